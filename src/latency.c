/*
 * latency.c - the response-time totals and the --latency tables; see
 * latency.h.
 *
 * The tables come after the classic op table, whose lines stay as dbench
 * 4.0 printed them, and before the final lines, so that a harness that
 * reads the op table or the last line finds them where it always did.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "options.h"
#include "util.h"

#define BAR_WIDTH 30		/* stars of the largest decade */

void totals_collect(struct result_totals *t, const struct program *prog, const struct shared *sh,
		    int client)
{
	int first = client < 0 ? 0 : client, last = client < 0 ? sh->nclients : client + 1;

	memset(t, 0, sizeof(*t));
	t->nstats = prog->nstats;
	t->op = xcalloc(prog->nstats ? prog->nstats : 1, sizeof(*t->op));
	for (unsigned k = 0; k < prog->nstats; k++)
		op_total_init(&t->op[k]);
	for (int g = 0; g < GROUP_COUNT; g++)
		op_total_init(&t->group[g]);
	op_total_init(&t->all);
	op_total_init(&t->lag);
	op_total_init(&t->response);
	for (int i = first; i < last; i++) {
		const struct slot *s = shared_slot(sh, i);

		for (unsigned k = 0; k < prog->nstats; k++)
			op_total_add(&t->op[k], &s->ops[k]);
		op_total_add(&t->lag, &s->lag);
		op_total_add(&t->response, &s->response);
	}
	for (unsigned k = 0; k < prog->nstats; k++) {
		op_total_merge(&t->group[op_info[prog->stat_op[k]].group], &t->op[k]);
		op_total_merge(&t->all, &t->op[k]);
	}
}

void totals_free(struct result_totals *t)
{
	free(t->op);
	t->op = NULL;
}

/* The p-th percentile by nearest rank: exact when the rank is the first
 * or the last; otherwise the histogram's value, kept within min..max. */
static double percentile(const struct op_total *t, double p)
{
	double rank = ceil(p * (double)t->count), v;

	if (rank <= 1)
		return (double)t->min_ns;
	if (rank >= (double)t->count)
		return (double)t->max_ns;
	v = (double)hist_total_percentile(&t->hist, p);
	return v < (double)t->min_ns ? (double)t->min_ns : v > (double)t->max_ns ? (double)t->max_ns : v;
}

void latency_figures(const struct op_total *t, uint64_t all_ops, struct latency_figures *f)
{
	double n = (double)t->count, var;

	memset(f, 0, sizeof(*f));
	f->count = t->count;
	f->percent = percent_of(t->count, all_ops);
	if (!t->count)
		return;
	f->min = (double)t->min_ns;
	f->max = (double)t->max_ns;
	f->avg = (double)t->total_ns / n;
	f->median = percentile(t, 0.5);
	f->p90 = percentile(t, 0.9);
	f->p99 = percentile(t, 0.99);
	f->p999 = percentile(t, 0.999);
	var = t->sumsq_ns / n - f->avg * f->avg;
	f->stddev = var > 0 ? sqrt(var) : 0;
}

bool run_is_paced(const struct program *prog)
{
	return options.target_rate > 0 || prog->timestamps;
}

/* ---- the tables ---- */

static void table_head(FILE *out, const char *what)
{
	fprintf(out, " %-13s %9s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n", what, "Count", "%",
		"Min", "Median", "Avg", "p90", "p99", "p99.9", "Max", "StdDev", "Mismatch", "Errors");
}

static void table_row(FILE *out, const char *name, const struct op_total *t, uint64_t all_ops)
{
	struct latency_figures f;

	latency_figures(t, all_ops, &f);
	fprintf(out, " %-13s %9llu %6.2f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8llu %6llu\n",
		name, (unsigned long long)f.count, f.percent, f.min / 1e6, f.median / 1e6,
		f.avg / 1e6, f.p90 / 1e6, f.p99 / 1e6, f.p999 / 1e6, f.max / 1e6, f.stddev / 1e6,
		(unsigned long long)t->mismatches, (unsigned long long)t->errors);
}

/* One op's or group's decades: count, %, cumulative % and a bar. */
static void distribution(FILE *out, const char *name, const struct op_total *t)
{
	int first = -1, last = -1;
	uint64_t largest = 0, cum = 0;

	for (int d = 0; d < DECADES; d++) {
		if (!t->decade[d])
			continue;
		if (first < 0)
			first = d;
		last = d;
		largest = MAX(largest, t->decade[d]);
	}
	if (first < 0)
		return;
	fprintf(out, "  %s:\n", name);
	for (int d = 0; d < first; d++)
		cum += t->decade[d];
	for (int d = first; d <= last; d++) {
		uint64_t n = t->decade[d];
		int stars = (int)(n * BAR_WIDTH / largest);
		char bar[BAR_WIDTH + 1];

		cum += n;
		memset(bar, '*', (size_t)stars);
		bar[stars] = '\0';
		fprintf(out, "    %-9s %10llu %6.1f%% %6.1f%%  %s\n", decade_label[d], (unsigned long long)n,
			percent_of(n, t->count), percent_of(cum, t->count), bar);
	}
}

static const char *op_name(const struct program *prog, unsigned k)
{
	return op_info[prog->stat_op[k]].display;
}

void latency_report(FILE *out, const struct program *prog, const struct result_totals *t)
{
	uint64_t all = t->all.count;
	bool paced = run_is_paced(prog) && t->lag.count;

	fprintf(out, "%s times in ms, measured window:\n", paced ? "Service" : "Response");
	table_head(out, "Operation");
	for (unsigned k = 0; k < t->nstats; k++)
		if (t->op[k].count)
			table_row(out, op_name(prog, k), &t->op[k], all);
	fprintf(out, "\n");
	table_head(out, "Group");
	for (int g = 0; g < GROUP_COUNT; g++)
		if (t->group[g].count)
			table_row(out, group_name[g], &t->group[g], all);
	table_row(out, "All", &t->all, all);
	fprintf(out, "\n");

	if (paced) {
		fprintf(out, "Paced run: schedule lag (start minus scheduled start) and response time\n"
			     "(end minus scheduled start = lag + service time), in ms:\n");
		table_head(out, "");
		table_row(out, "Lag", &t->lag, t->lag.count);
		table_row(out, "Response", &t->response, t->response.count);
		fprintf(out, "\n");
	}

	fprintf(out, "Distribution by decade per operation: count, %%, cumulative %%:\n");
	for (unsigned k = 0; k < t->nstats; k++)
		distribution(out, op_name(prog, k), &t->op[k]);
	fprintf(out, "\nDistribution by decade per group:\n");
	for (int g = 0; g < GROUP_COUNT; g++)
		distribution(out, group_name[g], &t->group[g]);
	if (paced) {
		fprintf(out, "\nDistribution by decade of the paced run's lag and response time:\n");
		distribution(out, "Schedule lag", &t->lag);
		distribution(out, "Response (lag + service)", &t->response);
	}
	fprintf(out, "\n");
}

void latency_paced_line(FILE *out, const struct program *prog, const struct result_totals *t)
{
	struct latency_figures lag;

	if (!run_is_paced(prog) || !t->lag.count)
		return;
	latency_figures(&t->lag, t->lag.count, &lag);
	fprintf(out, "Paced run: max_latency is service time; schedule lag p99 %.03f ms, max %.03f ms\n",
		lag.p99 / 1e6, lag.max / 1e6);
}
