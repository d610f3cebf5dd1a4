/*
 * latency.h - response times of the measured window as a file-server
 * engineer reads them: totals per op, per op group (ops.def) and for all
 * ops, merged over clients; the figures of each (count, share, min,
 * percentiles, mean, max, stddev, decades); and the human tables that
 * --latency prints after the classic op table.  The JSON report uses the
 * same totals and figures, so both outputs agree.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_LATENCY_H
#define DBENCH_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "op.h"
#include "stats.h"

/* Every total of the measured window, for all clients or one. */
struct result_totals {
	unsigned nstats;		/* entries of op[] (program.nstats) */
	struct op_total *op;		/* per stats index */
	struct op_total group[GROUP_COUNT]; /* per response-time group */
	struct op_total all;		/* every op */
	struct op_total lag;		/* paced ops: start minus scheduled start */
	struct op_total response;	/* paced ops: end minus scheduled start */
};

/* Merge the slots of client `client`, or of every client if it is -1. */
void totals_collect(struct result_totals *t, const struct program *prog, const struct shared *sh,
		    int client);
void totals_free(struct result_totals *t);

/* The reported figures of one total.  Latencies in nanoseconds; the
 * percentiles come from the histogram (within 1/64 of the exact value),
 * clamped to the exact min and max; the rest are exact. */
struct latency_figures {
	uint64_t count;		/* ops */
	double percent;		/* share of all ops, 0..100 */
	double min, median, avg, p90, p99, p999, max, stddev;
};

void latency_figures(const struct op_total *t, uint64_t all_ops, struct latency_figures *f);

/* Percent of `n` in `total` (0 when total is 0). */
static inline double percent_of(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* Was the run paced (timestamps in the loadfile, or -R)? */
bool run_is_paced(const struct program *prog);

/* The --latency tables: per op, per group, the distributions by decade,
 * and for paced runs the schedule lag and the response time from the
 * schedule. */
void latency_report(FILE *out, const struct program *prog, const struct result_totals *t);

/* One line for paced runs, printed by default before the final lines:
 * says that max_latency is service time and shows the schedule lag. */
void latency_paced_line(FILE *out, const struct program *prog, const struct result_totals *t);

#endif
