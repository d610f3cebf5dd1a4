/*
 * pass.h - what one pass of a loadfile does, found by running it: client
 * 0's interpreter (client.c, client_advance) replays one pass on the null
 * backend, in this process, with time made up rather than waited for.
 * --check-loadfile prints it and the results' identity carries it (the
 * JSON's ops_per_pass, bytes_read_per_pass, ...), so both say exactly what
 * a run does: the same random draws, RANDOMSTRINGs, previous values, loops.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_PASS_H
#define DBENCH_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "results.h"

struct options;

/* Stop absurd loops after this many interpreter steps (directives and
 * waits count too), and say the figures are cut short. */
#define PASS_MAX_STEPS 10000000ULL

struct pass_stats {
	uint64_t ops[OP_COUNT];		/* executions of each op */
	uint64_t total_ops;		/* timed ops */
	uint64_t bytes_read;		/* bytes the read ops move */
	uint64_t bytes_written;		/* bytes the write ops move */
	uint64_t paths;			/* distinct path templates used */
	uint64_t duration_ns;		/* last timestamp of an op run, 0 if none */
	uint64_t steps;			/* interpreter steps: ops, directives, waits */
	bool truncated;			/* stopped at max_steps */
	bool counted;			/* counted from the loop counts, not run */
};

/* What one pass of client 0 of a run with opt's clients and seed does:
 * counted from the program when its loop counts and data sizes are fixed,
 * else run (opt is copied; only nclients, seed, --trunc-io and the program
 * matter). */
void pass_run(const struct program *prog, const struct options *opt, uint64_t max_steps,
	      struct pass_stats *ps);

/* The figures of a pass that the results keep. */
void pass_figures_of(const struct pass_stats *ps, struct pass_figures *pf);

#endif
