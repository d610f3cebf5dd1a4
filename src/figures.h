/*
 * figures.h - the headline figures of a set of runs of one configuration
 * (one point of a sweep, or --repeat's runs), each summarized over the
 * runs: throughput, ops/sec, mean and p99 response time of all operations,
 * and the largest response time.  The sweep table (sweep.c) and
 * dbench-plot (tools/plot) show the same numbers from the same code.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_FIGURES_H
#define DBENCH_FIGURES_H

#include <stddef.h>

#include "results.h"
#include "inference.h"

#define FIGURES_CI_LEVEL 0.95	/* the interval's confidence level */

struct point_figures {
	struct summary mbps;	/* throughput, MB/sec (1e6 bytes) */
	struct summary ops;	/* ops/sec */
	struct summary mean_ms;	/* mean response time of all ops, ms */
	struct summary p99_ms;	/* their 99th percentile, ms */
	double max_ms;		/* the largest response time of any run, ms */
	double nbscale;		/* the netbench scale (NB = MB/sec * nbscale) */
	int clients;		/* clients of the first run */
	int procs;		/* client processes of the first run */
	size_t nruns;		/* runs summarized */
};

/* Summarize n runs (n >= 0; with 0 everything is 0). */
void point_figures(const struct results *run, size_t n, struct point_figures *pf);

#endif
