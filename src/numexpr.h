/*
 * numexpr.h - evaluating an op's numbers for one client: literals as
 * parsed, and the non-literal forms (random '*' with qualifiers, relative
 * '+N', 'child', 'num_children') described in dbench-loadfile(5).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_NUMEXPR_H
#define DBENCH_NUMEXPR_H

#include <string.h>

#include "op.h"
#include "util.h"

struct numctx {
	int child;		/* the client's number */
	int nchildren;		/* clients in the run */
	uint64_t rng[2];	/* the client's random generator */
};

static inline int64_t operand_value(const struct operand *o, const struct numctx *ctx)
{
	switch (o->kind) {
	case OPERAND_CHILD:
		return ctx->child;
	case OPERAND_NCHILDREN:
		return ctx->nchildren;
	default:
		return o->value;
	}
}

int64_t numexpr_eval(const struct numexpr *x, int64_t literal, int64_t prev, struct numctx *ctx);

/* Parse a number literal of len bytes at s: decimal or 0x hex, optionally
 * negative, within int64_t.  False if it is not one. */
bool numexpr_parse_literal(const char *s, size_t len, int64_t *out);

/* Parse an operand inside an expression at *p (before end): a literal,
 * "child" or "num_children"; advances *p past it.  False if none. */
bool numexpr_parse_operand(const char **p, const char *end, struct operand *o);

/*
 * Evaluate all numbers of op into num[]; `last` holds this client's
 * previous values of the same op's fields (for '+N') and is updated.
 */
static inline void numexpr_eval_all(const struct program *prog, const struct op *op,
				    struct numctx *ctx, int64_t *last, int64_t *num)
{
	if (op->expr == 0) {
		memcpy(num, op->num, sizeof(op->num));
	} else {
		const struct numexpr *x = &prog->exprs[op->expr - 1];

		for (int i = 0; i < MAX_NUMS; i++)
			num[i] = numexpr_eval(&x[i], op->num[i], last[i], ctx);
	}
	memcpy(last, num, sizeof(op->num));
}

#endif
