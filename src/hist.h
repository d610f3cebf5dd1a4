/*
 * hist.h - a log-linear latency histogram: fixed size, mergeable by adding
 * counts, every value from 1 ns to 137 s within 1/64 (1.6%) of the middle
 * of its bucket.
 *
 * Values are nanoseconds.  Below 64 ns a bucket is 1 ns wide; above, each
 * power-of-two octave is split into 32 equal buckets, so a bucket's width is
 * at most 1/32 of its lower bound and its midpoint is within 1/64 of every
 * value in it.  Values of 2^38 ns (275 s) and more share the last bucket.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_HIST_H
#define DBENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)	/* buckets per octave */
#define HIST_GROUPS 34			/* 2 linear groups + 32 octaves */
#define HIST_BUCKETS (HIST_GROUPS * HIST_SUB)

/* Per-client histogram: 32-bit counters keep a client's slot small. */
struct hist {
	uint32_t count[HIST_BUCKETS];
};

/* A histogram that does not wrap: 64-bit counters, for a client's count
 * of every op in all phases (slot.every), which a null run would take past
 * 2^32 in one bucket in about an hour. */
struct hist64 {
	uint64_t count[HIST_BUCKETS];
};

/* A merged histogram: 64-bit counters and the total. */
struct hist_total {
	uint64_t count[HIST_BUCKETS];
	uint64_t n;			/* sum of count[] */
};

static inline unsigned hist_index(uint64_t ns)
{
	unsigned e, g;

	if (ns < 2 * HIST_SUB)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);	/* >= 6 */
	g = e - HIST_SUB_BITS + 1;			/* octave group, >= 2 */
	if (g >= HIST_GROUPS)
		return HIST_BUCKETS - 1;
	return g * HIST_SUB + (unsigned)((ns >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->count[hist_index(ns)]++;
}

static inline void hist64_add(struct hist64 *h, uint64_t ns)
{
	h->count[hist_index(ns)]++;
}

/* The smallest value of bucket i, and its width (ns). */
uint64_t hist_bucket_low(unsigned i);
uint64_t hist_bucket_width(unsigned i);

void hist_total_add(struct hist_total *t, const struct hist *h);
void hist_total_add64(struct hist_total *t, const struct hist64 *h);
void hist_total_merge(struct hist_total *t, const struct hist_total *o);
/* Subtract an earlier snapshot (for per-interval figures). */
void hist_total_sub(struct hist_total *t, const struct hist_total *earlier);

/* The p-th percentile (0 < p <= 1), by nearest rank, as the middle of the
 * bucket that holds it; 0 when empty. */
uint64_t hist_total_percentile(const struct hist_total *t, double p);

/* Decades for the distribution report: <10us, <100us, <1ms, <10ms, <100ms,
 * <1s, >=1s.  Kept as exact counters beside the histogram, because decade
 * bounds are not bucket bounds. */
#define DECADES 7
static inline unsigned decade_index(uint64_t ns)
{
	unsigned i = 0;
	uint64_t bound = 10000;		/* 10 us */

	while (i < DECADES - 1 && ns >= bound) {
		bound *= 10;
		i++;
	}
	return i;
}

extern const char *const decade_label[DECADES];

#endif
