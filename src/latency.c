/*
 * latency.c - the --latency tables; see latency.h.
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
#include "util.h"

#define BAR_WIDTH 30		/* stars of the largest decade */

/* ---- the tables ---- */

static void table_head(FILE *out, int width, const char *what)
{
	fprintf(out, " %-*s %9s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n",
		width, what, "Count", "%", "Min", "Median", "Avg", "p90", "p99", "p99.9", "Max", "StdDev",
		"Mismatch", "Errors");
}

static void table_row(FILE *out, int width, const char *name, const struct op_total *t,
		      uint64_t all_ops)
{
	struct latency_figures f;

	latency_figures(t, all_ops, &f);
	fprintf(out, " %-*s %9llu %6.2f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8llu %6llu\n",
		width, name, (unsigned long long)f.count, f.percent, f.min / 1e6, f.median / 1e6,
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

void latency_report(FILE *out, const struct results *t)
{
	uint64_t all = t->all.count;
	bool paced = t->id.paced && t->lag.count;
	int w = results_op_label_width(t) + 1;

	fprintf(out, "%s times in ms, measured window:\n", paced ? "Service" : "Response");
	table_head(out, w, "Operation");
	for (unsigned k = 0; k < t->nops; k++)
		if (t->op[k].total.count)
			table_row(out, w, results_op_label(t, k), &t->op[k].total, all);
	fprintf(out, "\n");
	table_head(out, w, "Group");
	for (int g = 0; g < GROUP_COUNT; g++)
		if (t->group[g].count)
			table_row(out, w, group_name[g], &t->group[g], all);
	table_row(out, w, "All", &t->all, all);
	fprintf(out, "\n");

	if (paced) {
		fprintf(out, "Paced run: schedule lag (start minus scheduled start) and response time\n"
			     "(end minus scheduled start = lag + service time), in ms:\n");
		table_head(out, w, "");
		table_row(out, w, "Lag", &t->lag, t->lag.count);
		table_row(out, w, "Response", &t->response, t->response.count);
		fprintf(out, "\n");
	}

	fprintf(out, "Distribution by decade per operation: count, %%, cumulative %%:\n");
	for (unsigned k = 0; k < t->nops; k++)
		distribution(out, results_op_label(t, k), &t->op[k].total);
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

void latency_paced_line(FILE *out, const struct results *t)
{
	struct latency_figures lag;

	if (!t->id.paced || !t->lag.count)
		return;
	latency_figures(&t->lag, t->lag.count, &lag);
	fprintf(out, "Paced run: max_latency is service time; schedule lag p99 %.03f ms, max %.03f ms\n",
		lag.p99 / 1e6, lag.max / 1e6);
}
