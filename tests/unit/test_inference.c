/*
 * test_inference.c - unit tests of src/inference.c against known values:
 * Student's t quantiles (the printed tables, to 15 digits from a 30-digit
 * evaluation of the incomplete beta function), the t distribution's closed
 * forms for 1 and 2 degrees of freedom, the 95% interval of a known
 * sample, the exact distribution of Mann-Whitney's U (its counts are
 * Gaussian binomial coefficients), exact p-values checked by enumerating
 * every assignment of the pooled values, the normal approximation with the
 * tie correction, and Welch's t test on the textbook example.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "inference.h"


#define assert_close(x, want, tol) \
	do { \
		double x_ = (x), w_ = (want); \
		if (!(fabs(x_ - w_) <= (tol))) \
			fail_msg("%s = %.15g, want %.15g (within %g)", #x, x_, w_, (double)(tol)); \
	} while (0)

static void test_t_quantiles(void **state)
{
	static const struct { double df, q975; } table[] = {
		{ 1, 12.7062047361747 }, { 2, 4.30265272974946 }, { 3, 3.18244630528371 },
		{ 4, 2.77644510519779 }, { 5, 2.57058183563632 }, { 7, 2.36462425159279 },
		{ 9, 2.26215716279821 }, { 10, 2.22813885198627 }, { 30, 2.04227245630124 },
		{ 100, 1.98397151852355 }, { 2.5, 3.57465484200368 }, { 24.9885, 2.05958661383498 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_close(student_t_quantile(0.975, table[i].df), table[i].q975, 1e-9);
		assert_close(student_t_quantile(0.025, table[i].df), -table[i].q975, 1e-9);
	}
	assert_close(student_t_quantile(0.995, 10), 3.16927267261695, 1e-9);
	assert_close(student_t_quantile(0.5, 7), 0, 1e-12);
	/* many degrees of freedom: the normal quantile */
	assert_close(student_t_quantile(0.975, 1e7), 1.95996398454005, 1e-6);
}

static void test_t_cdf(void **state)
{
	(void)state;
	/* df = 1 is Cauchy's distribution; df = 2 has a closed form too */
	for (double t = -20; t <= 20; t += 0.7) {
		assert_close(student_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		assert_close(student_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
	}
	assert_close(student_t_cdf(1.5, 3), 0.884708067377588, 1e-12);
	assert_close(student_t_cdf(-2, 7.5), 0.0414484976490832, 1e-12);
	assert_close(incomplete_beta(0.3, 2, 5), 0.579825, 1e-12);
	assert_close(incomplete_beta(0.9, 0.5, 10), 0.99999999998152, 1e-13);
	assert_close(normal_cdf(1.959963984540054), 0.975, 1e-12);
}

static void test_summary(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	const double one[] = { 312.4 };
	struct summary s;

	(void)state;
	summarize(x, 8, 0.95, &s);
	assert_int_equal(s.n, 8);
	assert_close(s.mean, 5, 1e-12);
	assert_close(s.median, 4.5, 1e-12);
	assert_close(s.stddev, 2.138089935299395, 1e-12);
	assert_close(s.cov, 2.138089935299395 / 5, 1e-12);
	assert_close(s.min, 2, 0);
	assert_close(s.max, 9, 0);
	assert_true(s.ci_valid);
	/* t(0.975, 7) * s / sqrt(8) */
	assert_close(s.ci_half, 1.78748791823621, 1e-9);

	summarize(x, 7, 0.95, &s);	/* odd n: the middle value */
	assert_close(s.median, 4, 0);

	summarize(one, 1, 0.95, &s);
	assert_close(s.mean, 312.4, 0);
	assert_close(s.median, 312.4, 0);
	assert_close(s.stddev, 0, 0);
	assert_false(s.ci_valid);

	summarize(NULL, 0, 0.95, &s);
	assert_int_equal(s.n, 0);
	assert_close(median_of(NULL, 0), 0, 0);
}

/* The counts of U are the coefficients of the Gaussian binomial
 * coefficient [m+n choose m]_q. */
static void test_mw_counts(void **state)
{
	static const double c33[] = { 1, 1, 2, 3, 3, 3, 3, 2, 1, 1 };
	static const double c44[] = { 1, 1, 2, 3, 5, 5, 7, 7, 8, 7, 7, 5, 5, 3, 2, 1, 1 };
	double c[2501], total = 0;

	(void)state;
	mann_whitney_counts(3, 3, c);
	for (int i = 0; i < 10; i++)
		assert_close(c[i], c33[i], 0);
	mann_whitney_counts(4, 4, c);
	for (int i = 0; i < 17; i++)
		assert_close(c[i], c44[i], 0);
	mann_whitney_counts(2, 5, c);	/* [7 choose 2]_q */
	for (int i = 0; i <= 10; i++)
		assert_close(c[i], (double)(i < 2 ? 1 : i < 4 ? 2 : i < 7 ? 3 : i < 9 ? 2 : 1), 0);
	mann_whitney_counts(50, 50, c);	/* sums to C(100, 50), symmetric, tails exact */
	for (int i = 0; i <= 2500; i++) {
		total += c[i];
		assert_close(c[i], c[2500 - i], 0);
	}
	assert_close(total / 1.0089134454556419e29, 1, 1e-12);
	assert_close(c[0], 1, 0);
	assert_close(c[1], 1, 0);
	assert_close(c[5], 7, 0);	/* partitions of 5 */
}

static void test_mw_exact(void **state)
{
	/* R's wilcox.test example (Hollander & Wolfe): W = 35, one-sided p
	 * 0.1272; the two-sided p checked by enumerating all 3003 splits */
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	const double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
	const double lo[] = { 1, 2, 3, 4, 5 }, hi[] = { 6, 7, 8, 9, 10 };
	struct test_result r;

	(void)state;
	mann_whitney(x, 10, y, 5, &r);
	assert_true(r.valid && r.exact && !r.ties);
	assert_close(r.statistic, 35, 0);
	assert_close(r.p, 0.2544122544122544, 1e-12);

	mann_whitney(males, 5, females, 4, &r);	/* SciPy's example: U = 17 */
	assert_true(r.exact);
	assert_close(r.statistic, 17, 0);
	assert_close(r.p, 0.1111111111111111, 1e-12);

	/* complete separation: the smallest p there is, 2 / C(10, 5) */
	mann_whitney(lo, 5, hi, 5, &r);
	assert_close(r.statistic, 0, 0);
	assert_close(r.p, 2.0 / 252, 1e-15);
	assert_close(r.min_p, 2.0 / 252, 1e-15);
	mann_whitney(hi, 5, lo, 5, &r);
	assert_close(r.statistic, 25, 0);
	assert_close(r.p, 2.0 / 252, 1e-15);

	/* three runs a side can never reach p < 0.05 */
	mann_whitney(lo, 3, hi, 3, &r);
	assert_close(r.p, 0.1, 1e-15);
	assert_close(r.min_p, 0.1, 1e-15);

	/* one value a side: a test without power, p = 1 */
	mann_whitney(lo, 1, hi, 1, &r);
	assert_true(r.valid);
	assert_close(r.p, 1, 0);
	mann_whitney(lo, 0, hi, 1, &r);
	assert_false(r.valid);
}

static void test_mw_ties(void **state)
{
	/* exact with ties: every split of the pooled average ranks, checked by
	 * enumerating the 1716 splits */
	const double a[] = { 1, 2, 2, 3, 3, 3, 5 }, b[] = { 3, 4, 4, 5, 6, 6 };
	const double hi[] = { 20, 20, 20 }, lo[] = { 10, 10, 10 };
	const double x[] = { 20.05, 20.05, 20.06 }, y[] = { 20.05, 20.04, 20.04 };
	const double same[] = { 4, 4, 4 };
	double big_a[60], big_b[60];
	struct test_result r;

	(void)state;
	mann_whitney(a, 7, b, 6, &r);
	assert_true(r.valid && r.ties && r.exact);
	assert_close(r.statistic, 5, 0);
	assert_close(r.p, 0.019813519813519812, 1e-12);

	/* three equal runs a side are no more evidence than three distinct ones */
	mann_whitney(hi, 3, lo, 3, &r);
	assert_true(r.ties && r.exact);
	assert_close(r.statistic, 9, 0);
	assert_close(r.p, 0.1, 1e-12);
	assert_close(r.min_p, 0.1, 1e-12);
	mann_whitney(x, 3, y, 3, &r);
	assert_close(r.statistic, 8, 0);
	assert_close(r.p, 0.3, 1e-12);

	mann_whitney(same, 3, same, 3, &r);	/* nothing to rank */
	assert_close(r.p, 1, 0);
	assert_close(r.min_p, 1, 0);
	assert_close(r.statistic, 4.5, 0);

	/* 50 or more a side: the normal approximation with the tie-corrected
	 * variance and a continuity correction (computed by the formula) */
	for (int i = 0; i < 60; i++) {
		big_a[i] = i % 10;
		big_b[i] = i % 10 + 2;
	}
	mann_whitney(big_a, 60, big_b, 55, &r);
	assert_true(r.ties && !r.exact);
	assert_close(r.statistic, 1125, 0);
	assert_close(r.p, 0.00318325035096, 1e-12);
}

static void test_mw_normal(void **state)
{
	double big_a[60], big_b[60], exact;
	struct test_result r;

	(void)state;
	/* without ties, just under and at the limit: the normal approximation
	 * is close to the exact p */
	for (int i = 0; i < 60; i++) {
		big_a[i] = i * 2.0;
		big_b[i] = i * 2.0 + 7.5;
	}
	mann_whitney(big_a, 49, big_b, 49, &r);
	assert_true(r.exact && !r.ties);
	exact = r.p;
	{
		double u = r.statistic, mu = 49.0 * 49 / 2, sd = sqrt(49.0 * 49 * 99 / 12);
		double approx = erfc((fabs(u - mu) - 0.5) / sd / sqrt(2.0));

		assert_close(approx / exact, 1, 0.02);
	}
	mann_whitney(big_a, 50, big_b, 50, &r);
	assert_false(r.exact);
	assert_close(r.p, 0.2453944672574752, 1e-12);	/* U = 1081 */
}

static void test_welch(void **state)
{
	/* Welch's test on Wikipedia's example: t = -2.46, df = 24.99, p = 0.021 */
	const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1,
			      19.6, 19.0, 21.7, 21.4 };
	const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9,
			      22.1, 22.9, 20.5, 24.4 };
	const double flat1[] = { 5, 5, 5 }, flat2[] = { 6, 6, 6 };
	struct test_result r;

	(void)state;
	welch_t(a1, 15, a2, 15, &r);
	assert_true(r.valid);
	assert_close(r.statistic, -2.45535639829, 1e-9);
	assert_close(r.df, 24.9885292902, 1e-8);
	assert_close(r.p, 0.0213780014629, 1e-10);

	welch_t(flat1, 3, flat2, 3, &r);
	assert_close(r.p, 0, 0);
	welch_t(flat1, 3, flat1, 3, &r);
	assert_close(r.p, 1, 0);
	welch_t(flat1, 1, flat2, 3, &r);
	assert_false(r.valid);
	assert_close(r.p, 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_t_cdf),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_mw_counts),
		cmocka_unit_test(test_mw_exact),
		cmocka_unit_test(test_mw_ties),
		cmocka_unit_test(test_mw_normal),
		cmocka_unit_test(test_welch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
