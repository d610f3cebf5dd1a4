/*
 * series.h - the per-second series of a run (--csv-series, and the
 * series of the results): for each second since the release,
 * its phase, the clients that completed ops in it, ops, bytes, MB/s, and
 * the largest and the 99th percentile latency of the ops that ended in it.
 *
 * Ops, bytes and the maximum are exact: they come from each client's
 * per-second ring (slot.secs), read once the second is over.  The p99 comes
 * from the difference of the merged all-op histograms (slot.every) between
 * two progress ticks, so it covers the second as the parent's ticks cut it
 * (within a few milliseconds of the true boundaries).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SERIES_H
#define DBENCH_SERIES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "results.h"
#include "region.h"

struct series {
	FILE *out;		/* --csv-series file, or NULL */
	bool jsonl;		/* write JSON Lines instead of CSV */
	const struct shared *sh;
	uint64_t next_sec;	/* next second to read from the rings */
	uint64_t snap_sec;	/* the second the last snapshot was taken at */
	struct hist_total *snap; /* merged slot.every at the last snapshot */
	struct hist_total *now;	/* scratch: merged slot.every now */
	uint64_t p99[SEC_RING];	/* p99 of second s, at s % SEC_RING */
	uint64_t p99_sec[SEC_RING]; /* which second each p99[] entry holds */
	uint64_t lost;		/* seconds overwritten before they were read */
	bool failed;		/* the file could not be opened or written */
	struct series_row *rows; /* every row read so far (for the results) */
	size_t nrows, cap;
	size_t written;		/* rows written to the file so far */
};

/* Start a series when --csv-series or --json asks for one; NULL if not.
 * A file that cannot be opened is a warning, not the end of the run. */
struct series *series_create(const struct shared *sh);

/* Called once a second (with the tick's time): takes a histogram snapshot
 * and writes the seconds that are safely over. */
void series_tick(struct series *ser, uint64_t now);

/* Called once every client has exited: reads the remaining seconds (they
 * become part of the results, results_compute). */
void series_finish(struct series *ser);

/* Write the rows of r's series that are not written yet and close the
 * file; says so if seconds were lost or the file could not be written (the
 * run then exits 1: results_exit_status). */
void series_write_rest(struct series *ser, const struct results *r);

void series_free(struct series *ser);

/* Did --csv-series fail (a message was printed)?  The run then exits 1. */
static inline bool series_failed(const struct series *ser)
{
	return ser && ser->failed;
}


#endif
