/*
 * repeat.h - several runs in one invocation.  A run is: a fresh stats region,
 * the clients forked, released, stopped and reaped (run.c), and its
 * results computed once (results.h).  run_series() loops over runs under a
 * plan (--repeat N, --repeat-until-ci PCT) and keeps each run's results in
 * a set; the set is summarized (inference.h) and rendered as the summary
 * table and the --repeat JSON document.
 *
 * The program is loaded and the backend initialized once, before the
 * series; each run has its own warmup, measurement and cleanup.  A sweep
 * over client counts is a second loop around run_series(), one plan per
 * count.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_REPEAT_H
#define DBENCH_REPEAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "loadfile.h"
#include "results.h"

/* What a series of runs is to do. */
struct run_plan {
	int max_runs;		/* runs to make (--repeat N; 1: a single run) */
	double until_ci_pct;	/* stop once the 95% interval of the mean throughput
				   is within this % of the mean; 0: run them all */
	int min_runs;		/* with until_ci_pct: never stop before this many */
	bool quiet;		/* no per-run line (a single run prints its own report) */
};

/* Why a series stopped. */
enum series_end {
	SERIES_DONE,		/* every run of the plan was made */
	SERIES_CI_REACHED,	/* the interval was narrow enough */
	SERIES_SIGNAL,		/* SIGINT/SIGTERM: the interrupted run is not in the set */
	SERIES_SETUP_FAILED,	/* a run could not start its clients */
};

extern const char *const series_end_name[];

/* The results of a series: the runs that completed. */
struct run_set {
	struct results *run;	/* in order */
	json_t **mpi;		/* --mpi, rank 0: each run's per-rank breakdown (the
				   "mpi" object of its document), else NULLs */
	int nruns;
	int max_runs;		/* the plan's */
	double until_ci_pct;
	enum series_end end;
	int status;		/* exit status: the worst of the runs, 128 + signal, or 2 */
};

/* Make the runs of the plan on backend be with its option block be_opt
 * (options give the rest: clients, time, ...).
 * Prints the progress of each run and, unless plan->quiet, a line per run. */
void run_series(const struct program *prog, const struct backend *be, const void *be_opt,
		const struct run_plan *plan, struct run_set *set);
void run_set_free(struct run_set *set);

/* The summary of the set (text): a table of mean, median, stddev, CoV,
 * min, max and 95% interval per figure, then
 *   Mean of 5 runs: 312.4 MB/sec ± 4.1 (95% confidence interval), CoV 1.1%
 *   Throughput 312.4 MB/sec  2 clients  2 procs  max_latency=23.582 ms
 * (the last line keeps dbench's shape: the mean, the largest latency; it
 * is the only line that starts with "Throughput", for LKP and PTS). */
void run_set_report(FILE *out, const struct run_set *set);

/* --mpi (rank 0): does the set have each run's ranks?  Then the lines
 *   Run   Rank  Host   Clients   MB/sec   ops/sec   p99 ms
 * one per run and rank (a sweep puts the point's number first). */
bool run_set_has_ranks(const struct run_set *set);
void run_set_rank_header(FILE *out, bool sweep);
void run_set_rank_lines(FILE *out, const struct run_set *set, int point);

/* The --repeat document (doc/dbench-repeat.schema.json): the program, why
 * the series stopped, the summary, and every run's own document (with
 * --mpi, each with its "mpi" breakdown per rank). */
json_t *run_set_json(const struct run_set *set);

/* Write it to path ('-': the file descriptor stdout_fd); 0 or -1 after a
 * message. */
int run_set_write_json(const struct run_set *set, const char *path, int stdout_fd);

#endif
