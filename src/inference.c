/*
 * inference.c - a sample's summary and the two-sample tests (see
 * inference.h).  Student's t comes from the regularized incomplete beta
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

#include "inference.h"
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

/* The ranks of the pooled values a then b, doubled so that the average
 * ranks of ties are integers too; returns the tie term sum(t^3 - t). */
static double doubled_ranks(const double *a, size_t na, const double *b, size_t nb, size_t *rank2)
{
	size_t n = na + nb;
	struct ranked { double v; size_t at; } *all = xmalloc(n * sizeof(*all));
	double tie_term = 0;

	for (size_t i = 0; i < n; i++)
		all[i] = (struct ranked){ i < na ? a[i] : b[i - na], i };
	qsort(all, n, sizeof(*all), cmp_double);	/* v is the first member */
	for (size_t i = 0; i < n;) {
		size_t k = i;
		double t;

		while (k < n && all[k].v == all[i].v)
			k++;
		t = (double)(k - i);
		tie_term += t * t * t - t;
		for (size_t m = i; m < k; m++)
			rank2[all[m].at] = i + 1 + k;	/* twice the mean of ranks i+1 .. k */
		i = k;
	}
	free(all);
	return tie_term;
}

/* The exact p of a doubled rank sum s2 of na values among the pooled
 * ranks (ties or not): count the subsets of na ranks by their sum. */
static void exact_with_ties(const size_t *rank2, size_t na, size_t nb, size_t s2,
			    struct test_result *r)
{
	size_t n = na + nb, max = 0, lo = 0, hi;
	double *ways, total = 0, below = 0, above = 0;

	for (size_t i = 0; i < n; i++)
		max += rank2[i];
	ways = xcalloc((na + 1) * (max + 1), sizeof(*ways));	/* ways[k * (max+1) + sum] */
	ways[0] = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = MIN(i + 1, na); k >= 1; k--) {
			double *to = ways + k * (max + 1), *from = ways + (k - 1) * (max + 1);

			for (size_t sum = max - rank2[i] + 1; sum-- > 0;)
				to[sum + rank2[i]] += from[sum];
		}
	ways += na * (max + 1);
	while (lo < max && !ways[lo])
		lo++;
	hi = max;
	while (hi > lo && !ways[hi])
		hi--;
	for (size_t sum = lo; sum <= hi; sum++) {
		total += ways[sum];
		if (sum <= s2)
			below += ways[sum];
		if (sum >= s2)
			above += ways[sum];
	}
	r->p = MIN(1.0, 2 * MIN(below, above) / total);
	r->min_p = lo == hi ? 1 : MIN(1.0, 2 * MIN(ways[lo], ways[hi]) / total);
	r->exact = true;
	free(ways - na * (max + 1));
}

void mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct test_result *r)
{
	double n = (double)(na + nb), mn = (double)na * (double)nb, tie_term, u, mu, var;
	size_t *rank2, s2 = 0;

	memset(r, 0, sizeof(*r));
	r->p = r->min_p = 1;
	if (!na || !nb)
		return;
	r->valid = true;
	rank2 = xmalloc((na + nb) * sizeof(*rank2));
	tie_term = doubled_ranks(a, na, b, nb, rank2);
	for (size_t i = 0; i < na; i++)
		s2 += rank2[i];
	u = (double)s2 / 2 - (double)na * (double)(na + 1) / 2;
	r->statistic = u;
	r->ties = tie_term > 0;
	if (na < MW_EXACT_MAX && nb < MW_EXACT_MAX) {
		if (r->ties) {
			exact_with_ties(rank2, na, nb, s2, r);
		} else {
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
		}
		free(rank2);
		return;
	}
	free(rank2);
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
