/*
 * run.h - running a benchmark: fork the clients, release them together,
 * tick once a second, stop them, reap them, clean up.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_RUN_H
#define DBENCH_RUN_H

#include <stdint.h>

#include "backend.h"
#include "region.h"

struct series;

struct run_result {
	uint64_t release_ns;	/* clients released */
	uint64_t measure_start_ns; /* measured window */
	uint64_t measure_end_ns;
	int signal;		/* the stop signal that stopped the run, or 0 */
	int setup_failed;	/* a client could not set up: nothing ran */
	int peer_failed;	/* --mpi: this rank was ready, another was not */
	int failed_clients;	/* clients that stopped with an error */
	int cleanup_failed;	/* the final cleanup left something */
	char start_time[64];	/* wall clock at the release, ISO 8601 */
	struct series *series;	/* the per-second series, or NULL (series.h) */
};

/* Run the program with options.nprocs processes on backend be with its
 * option block be_opt; the shared region must have been made with
 * shared_create().  Progress goes to stdout. */
void run_benchmark(const struct program *prog, const struct backend *be, const void *be_opt,
		   struct shared *sh, struct run_result *res);

/* Window length in seconds. */
static inline double run_window(const struct run_result *res)
{
	if (res->measure_end_ns <= res->measure_start_ns)
		return 0;
	return (double)(res->measure_end_ns - res->measure_start_ns) / 1e9;
}

#endif
