/*
 * hist.c - see hist.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>

#include "hist.h"

const char *const decade_label[DECADES] = {
	"<0.01 ms", "<0.1 ms", "<1 ms", "<10 ms", "<100 ms", "<1000 ms", ">=1 s",
};

uint64_t hist_bucket_low(unsigned i)
{
	unsigned g = i / HIST_SUB, m = i % HIST_SUB;

	if (g < 2)
		return i;
	return (uint64_t)(HIST_SUB + m) << (g - 1);
}

uint64_t hist_bucket_width(unsigned i)
{
	unsigned g = i / HIST_SUB;

	if (g < 2)
		return 1;
	return 1ULL << (g - 1);
}

void hist_total_add(struct hist_total *t, const struct hist *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		t->count[i] += h->count[i];
		n += h->count[i];
	}
	t->n += n;
}

void hist_total_add64(struct hist_total *t, const struct hist64 *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		t->count[i] += h->count[i];
		n += h->count[i];
	}
	t->n += n;
}

void hist_total_merge(struct hist_total *t, const struct hist_total *o)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		t->count[i] += o->count[i];
	t->n += o->n;
}

void hist_total_sub(struct hist_total *t, const struct hist_total *earlier)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		t->count[i] -= earlier->count[i];
	t->n -= earlier->n;
}

uint64_t hist_total_percentile(const struct hist_total *t, double p)
{
	uint64_t rank, cum = 0;

	if (t->n == 0)
		return 0;
	rank = (uint64_t)ceil(p * (double)t->n);
	if (rank < 1)
		rank = 1;
	if (rank > t->n)
		rank = t->n;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		cum += t->count[i];
		if (cum >= rank)
			return hist_bucket_low(i) + hist_bucket_width(i) / 2;
	}
	return hist_bucket_low(HIST_BUCKETS - 1);
}
