/*
 * inference.h - the statistics of a set of runs: a sample's summary (mean,
 * median, stddev, coefficient of variation, min/max, the confidence
 * interval of the mean by Student's t), and the two-sample tests that
 * decide whether two sets of runs differ (Mann-Whitney U, Welch's t).
 *
 * --repeat summarizes N runs with it; dbench-compare compares two sets.
 * Pure functions of arrays of doubles: no I/O, no global state.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_INFERENCE_H
#define DBENCH_INFERENCE_H

#include <stdbool.h>
#include <stddef.h>

/* A sample summarized.  With n == 1 stddev, cov and ci_half are 0 and
 * ci_valid is false; with n == 0 every figure is 0. */
struct summary {
	size_t n;		/* values */
	double mean;
	double median;
	double stddev;		/* sample standard deviation (n - 1) */
	double cov;		/* coefficient of variation: stddev / |mean| (0 if mean is 0) */
	double min, max;
	double level;		/* the confidence level asked for, e.g. 0.95 */
	double ci_half;		/* half-width of the interval of the mean: t * stddev / sqrt(n) */
	bool ci_valid;		/* n >= 2 */
};

/* Summarize x[0..n); level is the confidence level of the interval
 * (0 < level < 1). */
void summarize(const double *x, size_t n, double level, struct summary *s);

/* The median of x[0..n) (the mean of the two middle values for even n);
 * 0 for n == 0.  x is not changed. */
double median_of(const double *x, size_t n);

/* Student's t distribution with df > 0 degrees of freedom (df need not be
 * an integer: Welch's test has fractional ones): P(T <= t), and its
 * inverse for 0 < p < 1. */
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
double incomplete_beta(double x, double a, double b);

/* The standard normal distribution: P(Z <= z). */
double normal_cdf(double z);

/* A two-sample test of "a and b come from the same distribution",
 * two-sided. */
struct test_result {
	double statistic;	/* U of a (Mann-Whitney) or t (Welch) */
	double p;		/* two-sided p-value; 1 when the test cannot run */
	double df;		/* Welch: degrees of freedom */
	double min_p;		/* the smallest p the test could give with these n
				   (Mann-Whitney exact): below alpha or no verdict is possible */
	bool exact;		/* Mann-Whitney: the exact distribution of U (small n) */
	bool ties;		/* Mann-Whitney: some values occur in both or several times */
	bool valid;		/* the test could run (each side has enough values) */
};

/* Mann-Whitney U (Wilcoxon rank-sum).  U counts the pairs (a_i, b_j) with
 * a_i > b_j, ties counting 1/2.  With both sides under MW_EXACT_MAX values
 * the p-value is exact: the distribution of U by counting (with ties, of
 * the rank sum over every split of the pooled average ranks, so that three
 * equal runs a side are not taken for more evidence than they are);
 * otherwise the normal approximation with the tie correction of the
 * variance and a continuity correction.  Needs a value a side. */
#define MW_EXACT_MAX 50
void mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct test_result *r);

/* Welch's t test (unequal variances); needs two values a side.  When both
 * sides have no spread the means either are equal (p = 1) or differ
 * (p = 0). */
void welch_t(const double *a, size_t na, const double *b, size_t nb, struct test_result *r);

/* The number of ways U = u can happen, for u = 0..na*nb, for samples of
 * na and nb values without ties (counts[] has na*nb+1 entries; the counts
 * sum to C(na+nb, na)).  For the tests of the exact distribution. */
void mann_whitney_counts(size_t na, size_t nb, double *counts);

#endif
