/*
 * statistics.c - a sample's summary and the two-sample tests (see
 * statistics.h).  Student's t comes from the regularized incomplete beta
 * function (a continued fraction, evaluated with the modified Lentz
 * method); its quantiles by bisection, which is slow only by the standards
 * of a numerical library and exact to the last bits that matter here.
 * The exact distribution of Mann-Whitney's U is counted with the classic
 * recurrence (the largest value belongs to one side or the other), in
 * additions only, so the small tail counts stay exact.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "statistics.h"
#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

double median_of(const double *x, size_t n)
{
	double *s, m;

	if (!n)
		return 0;
	s = sorted_copy(x, n);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

static double mean_of(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return n ? sum / (double)n : 0;
}

/* The sample variance (n - 1), two-pass. */
static double variance_of(const double *x, size_t n, double mean)
{
	double ss = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return ss / (double)(n - 1);
}

void summarize(const double *x, size_t n, double level, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->level = level;
	if (!n)
		return;
	s->mean = mean_of(x, n);
	s->median = median_of(x, n);
	s->min = s->max = x[0];
	for (size_t i = 1; i < n; i++) {
		s->min = MIN(s->min, x[i]);
		s->max = MAX(s->max, x[i]);
	}
	s->stddev = sqrt(variance_of(x, n, s->mean));
	s->cov = s->mean != 0 ? s->stddev / fabs(s->mean) : 0;
	if (n >= 2) {
		double t = student_t_quantile((1 + level) / 2, (double)(n - 1));

		s->ci_half = t * s->stddev / sqrt((double)n);
		s->ci_valid = true;
	}
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double x, double a, double b)
{
	const double tiny = 1e-300;
	double f = 1, c = 1, d = 0;

	for (int i = 0; i <= 1000; i++) {
		double m = i / 2, num, cd;

		if (i == 0)
			num = 1;
		else if (i % 2 == 0)
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		else
			num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		d = 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		cd = c * d;
		f *= cd;
		if (fabs(1 - cd) < 1e-15)
			break;
	}
	return f - 1;
}

double incomplete_beta(double x, double a, double b)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x > (a + 1) / (a + b + 2))
		return 1 - incomplete_beta(1 - x, b, a);
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)) / a;
	return front * beta_fraction(x, a, b);
}

/* P(|T| >= |t|): both tails. */
static double student_t_two_tails(double t, double df)
{
	return incomplete_beta(df / (df + t * t), df / 2, 0.5);
}

double student_t_cdf(double t, double df)
{
	double tail = student_t_two_tails(t, df) / 2;

	return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.5)
		return -student_t_quantile(1 - p, df);
	while (student_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (student_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

void mann_whitney_counts(size_t na, size_t nb, double *counts)
{
	size_t len = na * nb + 1;
	double *f = xcalloc((na + 1) * len, sizeof(*f));	/* f[i*len + u]: i a's, j b's */

	/* j = 0: with no b, U = 0 whatever i is */
	for (size_t i = 0; i <= na; i++)
		f[i * len] = 1;
	for (size_t j = 1; j <= nb; j++) {
		/* f(u; i, j) = f(u - j; i - 1, j) + f(u; i, j - 1): the largest
		 * value is an a (it beats all j b's) or a b.  Row i - 1 already
		 * holds j, row i still holds j - 1. */
		for (size_t i = 1; i <= na; i++) {
			double *row = f + i * len, *prev = f + (i - 1) * len;

			for (size_t u = i * j + 1; u-- > j;)
				row[u] += prev[u - j];
		}
	}
	memcpy(counts, f + na * len, len * sizeof(*counts));
	free(f);
}

/* Ranks of the pooled values (average ranks for ties); returns the sum of
 * the ranks of a and the tie term sum(t^3 - t). */
static double rank_sum(const double *a, size_t na, const double *b, size_t nb, double *tie_term)
{
	size_t n = na + nb;
	struct ranked { double v; int from_a; } *all = xmalloc(n * sizeof(*all));
	double sum = 0;

	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 0 };
	qsort(all, n, sizeof(*all), cmp_double);	/* v is the first member */
	*tie_term = 0;
	for (size_t i = 0; i < n;) {
		size_t k = i;
		double rank, t;

		while (k < n && all[k].v == all[i].v)
			k++;
		rank = (double)(i + 1 + k) / 2;	/* mean of ranks i+1 .. k */
		t = (double)(k - i);
		*tie_term += t * t * t - t;
		for (size_t m = i; m < k; m++)
			if (all[m].from_a)
				sum += rank;
		i = k;
	}
	free(all);
	return sum;
}

void mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct test_result *r)
{
	double n = (double)(na + nb), mn = (double)na * (double)nb, tie_term, u, mu, var;

	memset(r, 0, sizeof(*r));
	r->p = r->min_p = 1;
	if (!na || !nb)
		return;
	r->valid = true;
	u = rank_sum(a, na, b, nb, &tie_term) - (double)na * (double)(na + 1) / 2;
	r->statistic = u;
	r->ties = tie_term > 0;
	if (!r->ties && na < MW_EXACT_MAX && nb < MW_EXACT_MAX) {
		size_t len = na * nb + 1, k = (size_t)u;
		double *c = xmalloc(len * sizeof(*c)), total = 0, below = 0, above = 0;

		mann_whitney_counts(na, nb, c);
		for (size_t i = 0; i < len; i++) {
			total += c[i];
			if (i <= k)
				below += c[i];
			if (i >= k)
				above += c[i];
		}
		r->p = MIN(1.0, 2 * MIN(below, above) / total);
		r->min_p = MIN(1.0, 2 * c[0] / total);
		r->exact = true;
		free(c);
		return;
	}
	mu = mn / 2;
	var = mn / 12 * ((n + 1) - tie_term / (n * (n - 1)));
	if (var <= 0)
		return;		/* every value equal: p = 1 */
	r->p = MIN(1.0, erfc(MAX(0.0, fabs(u - mu) - 0.5) / sqrt(var) / sqrt(2.0)));
	r->min_p = MIN(1.0, erfc(MAX(0.0, mu - 0.5) / sqrt(var) / sqrt(2.0)));
}

void welch_t(const double *a, size_t na, const double *b, size_t nb, struct test_result *r)
{
	double ma, mb, va, vb, se2;

	memset(r, 0, sizeof(*r));
	r->p = 1;
	if (na < 2 || nb < 2)
		return;
	r->valid = true;
	ma = mean_of(a, na);
	mb = mean_of(b, nb);
	va = variance_of(a, na, ma) / (double)na;
	vb = variance_of(b, nb, mb) / (double)nb;
	se2 = va + vb;
	if (se2 <= 0) {
		r->p = ma == mb ? 1 : 0;
		r->statistic = ma == mb ? 0 : ma > mb ? INFINITY : -INFINITY;
		r->df = (double)(na + nb - 2);
		return;
	}
	r->statistic = (ma - mb) / sqrt(se2);
	r->df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	r->p = student_t_two_tails(r->statistic, r->df);
}
