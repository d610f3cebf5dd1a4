/*
 * numexpr.c - number expressions of the loadfile: parsing literals and
 * operands (for the compiler in loadfile.c) and evaluating an op's numbers
 * for one client.  See numexpr.h.
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

bool numexpr_parse_literal(const char *s, size_t len, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;
	size_t i = 0;

	if (len && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == len)
		return false;
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		if (len - i > 16)
			return false;
		for (; i < len; i++) {
			char c = s[i];
			unsigned d;

			if (c >= '0' && c <= '9')
				d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				d = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				d = (unsigned)(c - 'A' + 10);
			else
				return false;
			v = (v << 4) | d;
		}
	} else {
		for (; i < len; i++) {
			if (s[i] < '0' || s[i] > '9')
				return false;
			if (v > (UINT64_MAX - 9) / 10)
				return false;
			v = v * 10 + (uint64_t)(s[i] - '0');
		}
	}
	if (v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* An operand inside an expression: a literal, "child" or "num_children";
 * advances *p. */
bool numexpr_parse_operand(const char **p, const char *end, struct operand *o)
{
	const char *s = *p, *q = s;

	if ((size_t)(end - s) >= 12 && memcmp(s, "num_children", 12) == 0) {
		o->kind = OPERAND_NCHILDREN;
		*p = s + 12;
		return true;
	}
	if ((size_t)(end - s) >= 5 && memcmp(s, "child", 5) == 0) {
		o->kind = OPERAND_CHILD;
		*p = s + 5;
		return true;
	}
	while (q < end && *q != '/' && *q != '%' && *q != '+' && *q != '-')
		q++;
	o->kind = OPERAND_LITERAL;
	if (!numexpr_parse_literal(s, (size_t)(q - s), &o->value))
		return false;
	*p = q;
	return true;
}
