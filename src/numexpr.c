/*
 * numexpr.c - see numexpr.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include "numexpr.h"

int64_t numexpr_eval(const struct numexpr *x, int64_t literal, int64_t prev, struct numctx *ctx)
{
	uint64_t v;

	switch (x->base) {
	case NUM_LITERAL:
		/* a literal field of an op that has other, non-literal ones */
		if (x->nqual == 0)
			return literal;
		v = (uint64_t)x->operand.value;
		break;
	case NUM_RANDOM:
		v = rng_next(ctx->rng) >> 1;	/* 0 .. 2^63-1 */
		break;
	case NUM_RELATIVE:
		v = (uint64_t)prev + (uint64_t)operand_value(&x->operand, ctx);
		break;
	case NUM_CHILD:
		v = (uint64_t)ctx->child;
		break;
	default:
		v = (uint64_t)ctx->nchildren;
		break;
	}
	for (int i = 0; i < x->nqual; i++) {
		int64_t a = operand_value(&x->qual[i].operand, ctx);

		switch (x->qual[i].op) {
		case '/':
			if (a > 0)
				v = (uint64_t)((int64_t)v / a * a);
			break;
		case '%':
			if (a > 0)
				v = (uint64_t)((((int64_t)v % a) + a) % a);
			break;
		case '+':
			v += (uint64_t)a;
			break;
		default:
			v -= (uint64_t)a;
			break;
		}
	}
	return (int64_t)v;
}
