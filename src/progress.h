/*
 * progress.h - what the parent prints while the run goes on: the banner,
 * and once a second the progress line (dbench 4.0's shape, or '@W@' /
 * '@R@' / '@C@' lines with --machine-readable), which also drives the
 * per-second series (series.h).  These read the stats region live; the
 * final report is rendered from the results (report.h).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_PROGRESS_H
#define DBENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "results.h"
#include "region.h"

struct series;

/* State kept between progress ticks. */
struct progress_state {
	const struct program *prog;
	struct shared *sh;
	uint64_t release_ns;
	uint64_t measure_start_ns;
	struct series *series;		/* per-second series (series.h), or NULL */
	int procs_running;		/* in: this rank's client processes not reaped */
	int died_client;		/* in, --mpi: 1 + the global id of this rank's first
					   client whose process died on a signal, or 0 */
	int died_signal;		/* in, --mpi: that signal */
	uint64_t procs_running_all;	/* out, --mpi: over every rank (mpi_run.h) */
	bool stop_all;			/* out, --mpi: a client died on some rank: every
					   rank ends the run */
};

void progress_init(struct progress_state *ps, const struct program *prog, struct shared *sh,
		   uint64_t release_ns, uint64_t measure_start_ns);
void progress_tick(struct progress_state *ps, uint64_t now);
/* Once every client has exited: the last line; reads the series' last
 * seconds (written with the report, series_write_rest). */
void progress_finish(struct progress_state *ps);

struct pass_figures;
void report_banner(const struct program *prog, const struct pass_figures *pass);

/* With --json - or --csv-series -, keep the real stdout for that output
 * (options.stdout_fd) and send everything else printed to stdout to stderr
 * instead.  Call before anything is printed or any client is started. */
void machine_stdout_prepare(void);

#endif
