/*
 * test_hist.c - unit tests of the latency histogram and the figures made
 * from it: the bucket scheme, percentiles against the exact values of a
 * million random latencies over six decades, exact merging of client
 * histograms, the decade counters, and the per-op/per-group totals.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"
#include "results.h"
#include "loadfile.h"
#include "region.h"
#include "util.h"


#define NVALUES 1000000
#define NCLIENTS 4

/* A latency between 1 us and 1 s, uniform in its logarithm. */
static uint64_t random_latency(uint64_t rng[2])
{
	double u = (double)(rng_next(rng) >> 11) / 9007199254740992.0;

	return (uint64_t)(1e3 * pow(10.0, 6.0 * u));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The test data: the values sorted, and one histogram per client. */
struct sample {
	uint64_t *sorted;
	struct hist *client;	/* NCLIENTS histograms */
	struct hist_total merged;
};

static int sample_setup(void **state)
{
	struct sample *s = xcalloc(1, sizeof(*s));
	uint64_t rng[2];

	rng_seed(rng, 12345, 1);
	s->sorted = xmalloc(NVALUES * sizeof(*s->sorted));
	s->client = xcalloc(NCLIENTS, sizeof(*s->client));
	for (size_t i = 0; i < NVALUES; i++) {
		uint64_t v = random_latency(rng);

		s->sorted[i] = v;
		hist_add(&s->client[rng_next(rng) % NCLIENTS], v);
	}
	qsort(s->sorted, NVALUES, sizeof(*s->sorted), cmp_u64);
	for (int c = 0; c < NCLIENTS; c++)
		hist_total_add(&s->merged, &s->client[c]);
	*state = s;
	return 0;
}

static int sample_teardown(void **state)
{
	struct sample *s = *state;

	free(s->sorted);
	free(s->client);
	free(s);
	return 0;
}

/* Buckets tile the values without gaps; every value is in the bucket
 * hist_index() names and within 1/64 of the bucket's middle. */
static void test_bucket_scheme(void **state)
{
	(void)state;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t low = hist_bucket_low(i), width = hist_bucket_width(i);
		double mid = (double)low + (double)(width / 2);

		assert_int_equal(hist_index(low), i);
		assert_int_equal(hist_index(low + width - 1), i);
		if (i + 1 < HIST_BUCKETS)
			assert_true(hist_bucket_low(i + 1) == low + width);
		if (low > 0) {
			assert_true(fabs(mid - (double)low) / (double)low <= 1.0 / 64);
			assert_true(fabs(mid - (double)(low + width - 1)) / (double)(low + width - 1) <= 1.0 / 64);
		}
	}
	assert_int_equal(hist_index(0), 0);
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
	assert_int_equal(hist_index(1ULL << 38), HIST_BUCKETS - 1);
}

/* Every percentile from 0.1% to 99.9%, and the far tail, within 3% of the
 * exact nearest-rank value of the sorted data. */
static void test_percentile_accuracy(void **state)
{
	struct sample *s = *state;
	double worst = 0;
	static const double tail[] = { 0.9999, 0.99999, 0.000001 };

	assert_true(s->merged.n == NVALUES);
	for (int k = 1; k <= 1002; k++) {
		double p = k <= 999 ? k / 1000.0 : tail[k - 1000];
		uint64_t rank = (uint64_t)ceil(p * NVALUES);
		double exact, got, err;

		if (rank < 1)
			rank = 1;
		exact = (double)s->sorted[rank - 1];
		got = (double)hist_total_percentile(&s->merged, p);
		err = fabs(got - exact) / exact;
		if (err > worst)
			worst = err;
		if (err > 0.03)
			fail_msg("p%.5f: histogram %.0f ns, exact %.0f ns (%.2f%%)", p * 100, got, exact,
				 err * 100);
	}
	print_message("# worst percentile error over %d values: %.3f%%\n", NVALUES, worst * 100);
	/* the scheme promises 1/64; the 3% the report promises has room */
	assert_true(worst <= 1.0 / 64 + 1e-9);
}

/* Merging client histograms gives exactly the histogram of all values,
 * in any order, and subtracting a part gives back the rest. */
static void test_merge_exact(void **state)
{
	struct sample *s = *state;
	struct hist_total *one = xcalloc(1, sizeof(*one)), *pair = xcalloc(1, sizeof(*pair));
	struct hist_total *rest = xcalloc(1, sizeof(*rest));
	uint64_t rng[2];

	/* the same values into a single histogram */
	rng_seed(rng, 12345, 1);
	{
		struct hist *h = xcalloc(1, sizeof(*h));

		for (size_t i = 0; i < NVALUES; i++) {
			hist_add(h, random_latency(rng));
			rng_next(rng);
		}
		hist_total_add(one, h);
		free(h);
	}
	assert_memory_equal(one->count, s->merged.count, sizeof(one->count));
	assert_true(one->n == s->merged.n);

	/* (0 + 1) merged with (2 + 3), reversed order */
	hist_total_add(pair, &s->client[3]);
	hist_total_add(pair, &s->client[2]);
	hist_total_add(rest, &s->client[1]);
	hist_total_add(rest, &s->client[0]);
	hist_total_merge(pair, rest);
	assert_memory_equal(pair->count, s->merged.count, sizeof(pair->count));
	assert_true(pair->n == NVALUES);

	/* all minus (0 + 1) is (2 + 3) */
	memcpy(one, &s->merged, sizeof(*one));
	hist_total_sub(one, rest);
	memset(pair, 0, sizeof(*pair));
	hist_total_add(pair, &s->client[2]);
	hist_total_add(pair, &s->client[3]);
	assert_memory_equal(one->count, pair->count, sizeof(one->count));
	assert_true(one->n == pair->n);
	free(one);
	free(pair);
	free(rest);
}

static void test_empty(void **state)
{
	struct hist_total t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_true(hist_total_percentile(&t, 0.5) == 0);
	assert_true(hist_total_percentile(&t, 1.0) == 0);
}

static void test_decades(void **state)
{
	static const struct {
		uint64_t ns;
		unsigned decade;
	} cases[] = {
		{ 0, 0 },		{ 9999, 0 },		{ 10000, 1 },
		{ 99999, 1 },		{ 100000, 2 },		{ 999999, 2 },
		{ 1000000, 3 },		{ 9999999, 3 },		{ 10000000, 4 },
		{ 99999999, 4 },	{ 100000000, 5 },	{ 999999999, 5 },
		{ 1000000000, 6 },	{ 3600000000000ULL, 6 }, { UINT64_MAX, 6 },
	};
	struct op_stats *st = xcalloc(1, sizeof(*st));
	uint64_t sum = 0;

	(void)state;
	op_stats_init(st);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(decade_index(cases[i].ns), cases[i].decade);
		op_stats_add(st, cases[i].ns, 0);
	}
	for (int d = 0; d < DECADES; d++)
		sum += st->decade[d];
	assert_true(sum == st->count);
	assert_true(st->decade[0] == 2 && st->decade[6] == 3);
	assert_string_equal(decade_label[0], "<0.01 ms");
	assert_string_equal(decade_label[DECADES - 1], ">=1 s");
	free(st);
}

/* The reported figures: exact min, max, mean and stddev; nearest-rank
 * percentiles that are exact at the ends and within 1/64 elsewhere. */
static void test_figures(void **state)
{
	struct op_stats *st = xcalloc(1, sizeof(*st));
	struct op_total *t = xcalloc(1, sizeof(*t));
	struct latency_figures f;

	(void)state;
	op_stats_init(st);
	for (uint64_t v = 1; v <= 100; v++)
		op_stats_add(st, v * 1000000, 0);	/* 1 ms .. 100 ms */
	op_total_init(t);
	op_total_add(t, st);
	latency_figures(t, 400, &f);
	assert_true(f.count == 100);
	assert_true(fabs(f.percent - 25.0) < 1e-9);
	assert_true(f.min == 1e6 && f.max == 100e6);
	assert_true(fabs(f.avg - 50.5e6) < 1);
	assert_true(fabs(f.stddev - sqrt((100.0 * 100 - 1) / 12) * 1e6) < 1e3);
	assert_true(fabs(f.median - 50e6) / 50e6 <= 1.0 / 64);
	assert_true(fabs(f.p90 - 90e6) / 90e6 <= 1.0 / 64);
	assert_true(fabs(f.p99 - 99e6) / 99e6 <= 1.0 / 64);
	assert_true(f.p999 == 100e6);		/* the last rank: exact */

	op_total_init(t);
	latency_figures(t, 0, &f);
	assert_true(f.count == 0 && f.max == 0 && f.percent == 0);
	free(st);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_scheme),
		cmocka_unit_test(test_percentile_accuracy),
		cmocka_unit_test(test_merge_exact),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_decades),
		cmocka_unit_test(test_figures),
	};

	return cmocka_run_group_tests(tests, sample_setup, sample_teardown);
}
