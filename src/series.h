/*
 * series.h - the per-second series of a run (--csv-series, and the
 * "series" array of the JSON report): for each second since the release,
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
#include "stats.h"

/* One second of the run: [second, second + 1) s after the release. */
struct series_row {
	uint64_t second;	/* seconds from the release to its start */
	int phase;		/* enum phase */
	int clients;		/* clients that completed an op in it */
	uint64_t ops;		/* ops completed in it, every phase */
	uint64_t bytes;		/* bytes they moved */
	uint64_t max_ns;	/* the largest latency */
	uint64_t p99_ns;	/* 99th percentile (see above) */
};

struct series {
	FILE *out;		/* --csv-series file, or NULL */
	bool jsonl;		/* write JSON Lines instead of CSV */
	bool keep_rows;		/* keep rows[] for the JSON report */
	const struct shared *sh;
	uint64_t next_sec;	/* next second to read from the rings */
	uint64_t snap_sec;	/* the second the last snapshot was taken at */
	struct hist_total *snap; /* merged slot.every at the last snapshot */
	struct hist_total *now;	/* scratch: merged slot.every now */
	uint64_t p99[SEC_RING];	/* p99 of second s, at s % SEC_RING */
	uint64_t p99_sec[SEC_RING]; /* which second each p99[] entry holds */
	uint64_t lost;		/* seconds overwritten before they were read */
	bool failed;		/* the file could not be opened or written */
	struct series_row *rows; /* every row, if keep_rows */
	size_t nrows, cap;
};

/* Start a series when --csv-series or --json asks for one; NULL if not.
 * A file that cannot be opened is a warning, not the end of the run. */
struct series *series_create(const struct shared *sh);

/* Called once a second (with the tick's time): takes a histogram snapshot
 * and writes the seconds that are safely over. */
void series_tick(struct series *ser, uint64_t now);

/* Called once every client has exited: writes the remaining seconds and
 * closes the file (the rows stay for the JSON report). */
void series_finish(struct series *ser);

void series_free(struct series *ser);

/* Did --csv-series fail (a message was printed)?  The run then exits 1. */
static inline bool series_failed(const struct series *ser)
{
	return ser && ser->failed;
}

/* One row as a JSON object (for JSON Lines and the JSON report). */
json_t *series_row_json(const struct series_row *row);

#endif
