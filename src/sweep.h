/*
 * sweep.h - client-count sweeps (--sweep LIST): the same loadfile run with
 * each number of client processes in turn, each point a series of runs
 * (repeat.h: one run, or --repeat's), then a table of the points and one
 * JSON document holding every point and every run (with its per-second
 * series), which dbench-plot draws.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SWEEP_H
#define DBENCH_SWEEP_H

#include <jansson.h>
#include <stdio.h>

#include "repeat.h"

/* A sweep: one point per client count, in the order given. */
struct sweep {
	int npoints;		/* points made (a signal or a failed setup ends early) */
	int max_points;		/* points asked for */
	int *procs;		/* client processes of each point (--sweep LIST) */
	struct run_set *point;	/* the runs of each point */
	enum series_end end;	/* why the sweep stopped */
	int status;		/* exit status: the worst of the points */
};

/* Run every point of options.sweep with the plan (a single run or
 * --repeat's runs), printing a line per point. */
void sweep_run(const struct program *prog, const struct backend *be, const void *be_opt,
	       const struct run_plan *plan, struct sweep *sw);
void sweep_free(struct sweep *sw);

/* The table of the points: clients, MB/sec (with the 95% interval of the
 * mean when a point has repeats), NB MB/sec, ops/sec, mean, p99 and max
 * response time; with --mpi, then each point's runs rank by rank. */
void sweep_report(FILE *out, const struct sweep *sw);

/* The --json document of a sweep (doc/dbench-sweep.schema.json): the
 * program, the list, and each point as --repeat's document with its
 * client count. */
json_t *sweep_json(const struct sweep *sw);
int sweep_write_json(const struct sweep *sw, const char *path, int stdout_fd);

#endif
