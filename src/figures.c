/*
 * figures.c - the headline figures of a set of runs (see figures.h).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "util.h"

void point_figures(const struct results *run, size_t n, struct point_figures *pf)
{
	double *v = xcalloc(4 * (n ? n : 1), sizeof(double));
	double *mbps = v, *ops = v + n, *mean = v + 2 * n, *p99 = v + 3 * n;

	memset(pf, 0, sizeof(*pf));
	for (size_t i = 0; i < n; i++) {
		const struct results *r = &run[i];
		double window = results_window_sec(r);
		struct latency_figures lf = { 0 };

		if (r->all.count)
			latency_figures(&r->all, r->all.count, &lf);
		mbps[i] = results_throughput(r);
		ops[i] = window > 0 ? (double)r->all.count / window : 0;
		mean[i] = lf.avg / 1e6;
		p99[i] = lf.p99 / 1e6;
		pf->max_ms = MAX(pf->max_ms, (double)r->all.max_ns / 1e6);
	}
	summarize(mbps, n, FIGURES_CI_LEVEL, &pf->mbps);
	summarize(ops, n, FIGURES_CI_LEVEL, &pf->ops);
	summarize(mean, n, FIGURES_CI_LEVEL, &pf->mean_ms);
	summarize(p99, n, FIGURES_CI_LEVEL, &pf->p99_ms);
	pf->nruns = n;
	if (n) {
		pf->nbscale = run[0].id.nbscale;
		pf->clients = run[0].id.clients;
		pf->procs = run[0].id.processes;
	}
	free(v);
}
