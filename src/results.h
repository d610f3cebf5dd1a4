/*
 * results.h - the outcome of a run as one value: what was run (identity),
 * every figure of the measured window (totals, per op and per group, with
 * their histograms and decade counts), passes, the clients' own cost,
 * failed clients, the per-second series and the exit status.
 *
 * It is computed once, at the end, from the stats region (results_compute)
 * and is then all the renderers see: the text report (report.h), the
 * --latency tables (latency.h), the --json document and the rest of the
 * --csv-series file (series.h) take a `const struct results *` and never
 * reach back into the stats region, the program or each other.
 *
 * A results value is serializable and mergeable: results_to_json
 * (json_report.h) writes the document described by
 * doc/dbench-result.schema.json, results_from_json reads one back into the
 * same value (every raw figure is in the document
 * exactly: counts, sums, min/max in ns, histograms, decades), and
 * results_merge adds the results of two processes or hosts that ran the same
 * loadfile in the same window, as if they had been one run.
 *
 * Only raw figures are stored; derived ones (averages, percentiles,
 * throughput) are computed by the renderers, so that a merged or a read-back
 * value renders exactly as one computed from the stats region.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_RESULTS_H
#define DBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "environment.h"
#include "op.h"
#include "region.h"

struct backend;
struct options;
struct run_result;

/* Version of the JSON document (doc/dbench-result.schema.json); bumped only
 * by a change that breaks a reader of the previous version. */
#define RESULT_SCHEMA_VERSION 1

/* What one pass of client 0 does (the client interpreter on the null
 * backend, see pass.h): the loadfile's figures in the identity. */
struct pass_figures {
	uint64_t ops;		/* timed ops one pass runs, loops expanded */
	uint64_t bytes_read;	/* bytes its read ops move */
	uint64_t bytes_written;	/* bytes its write ops move */
	uint64_t duration_ns;	/* last timestamp of a pass, 0 if none */
	bool partial;		/* a pass too long to walk: the figures of its start */
};

/* What was run: enough to say what the figures mean and to tell apart
 * results that cannot be merged. */
struct results_identity {
	char *progname;		/* "dbench" or "tbench" */
	char *version;		/* the program's version */
	int argc;		/* the command line */
	char **argv;
	char *backend;		/* backend name */
	char *loadfile;		/* loadfile path as given */
	uint32_t crc32;		/* CRC-32 of the loadfile text */
	char sha256[65];	/* SHA-256 of the loadfile text, hex ("" if unknown) */
	uint64_t lines;		/* lines of the loadfile */
	bool timestamps;	/* the loadfile schedules its ops */
	double nbscale;		/* netbench scale (NB = MB/s * nbscale) */
	struct pass_figures pass; /* one pass of client 0 */
	uint64_t seed;		/* --seed */
	char *host_name;	/* gethostname() */
	char *host_system;	/* uname: sysname, release, machine */
	char *host_release;
	char *host_machine;
	char *start_time;	/* wall clock at the release, ISO 8601 UTC */
	int clients;		/* clients (sum over merged results) */
	int processes;		/* client processes (sum over merged results) */
	bool paced;		/* timestamps in the loadfile, or -R */
	double target_rate;	/* -R, MB/s per client; 0 unpaced */
	int warmup_sec;		/* --warmup */
	int timelimit_sec;	/* -t (-1: unknown, in an old document) */
	int passes_per_client;	/* --passes/--run-once; 0 for timed runs */
	uint64_t window_start_ns; /* start of the measured window after the release */
	uint64_t window_ns;	/* length of the measured window */
	int signal;		/* SIGINT/SIGTERM that stopped the run, or 0 */
	bool strict;		/* --strict: idle clients fail the run */
	char *shared_paths;	/* the loadfile's paths without a client in them
				   ("/foo, /test.txt"), which every client uses; or NULL */
	bool loadfile_op_names;	/* --loadfile-op-names: the text names ops as the loadfile
				   does (QUERY_PATH_INFORMATION, as dbench 5.0), not as 4.0 */
	struct environment env;	/* build, kernel, CPU, memory, file system, server,
				   the options that shape the figures (environment.h) */
};

/* A failed client and why. */
struct results_failure {
	int client;		/* client number (offset by earlier results when merged) */
	char *reason;		/* the client's error message */
};

/* One client's own figures (kept with --per-client-results). */
struct results_client {
	int client;		/* client number */
	int state;		/* enum slot_state: SLOT_DONE, SLOT_FAILED, else unfinished */
	char *error;		/* why it failed, or NULL */
	uint64_t lines;		/* ops completed in the measured window */
	uint64_t bytes;		/* bytes they moved */
	uint64_t passes;	/* passes completed */
	struct op_total *op;	/* per results.op index, nops entries */
};

/* What the client processes cost, summed over clients, all phases. */
struct results_resources {
	uint64_t user_ns;	/* user CPU from the release to the end of the run */
	uint64_t sys_ns;	/* system CPU */
	uint64_t net_sent;	/* bytes a network backend sent */
	uint64_t net_received;	/* and received */
	uint64_t ops;		/* ops completed, all phases */
};

/* The phases of a run, as the progress lines and the series name them. */
enum phase {
	PHASE_WARMUP,
	PHASE_EXECUTE,
	PHASE_CLEANUP,
};

extern const char *const phase_name[];	/* "warmup", "execute", "cleanup" */

/* One second of the run (see series.h): [second, second + 1) s after the
 * release. */
struct series_row {
	uint64_t second;	/* seconds from the release to its start */
	int phase;		/* enum phase */
	int clients;		/* clients that completed an op in it */
	uint64_t ops;		/* ops completed in it, every phase */
	uint64_t bytes;		/* bytes they moved */
	uint64_t max_ns;	/* the largest latency */
	uint64_t p99_ns;	/* 99th percentile; merged: the larger of the two */
};

/* Per operation: its op id and its figures in the measured window. */
struct results_op {
	int id;			/* enum op_id */
	struct op_total total;	/* merged over clients */
};

struct results {
	struct results_identity id; /* what was run */
	unsigned nops;		/* ops the loadfile uses, in program order */
	struct results_op *op;
	struct op_total group[GROUP_COUNT]; /* per group (derived from op[]) */
	struct op_total all;	/* every op (derived from op[]) */
	struct op_total lag;	/* paced runs: start minus scheduled start */
	struct op_total response; /* paced runs: end minus scheduled start */
	uint64_t mismatches_all; /* status mismatches in every phase */
	uint64_t *passes;	/* passes per client, id.clients entries */
	int idle_clients;	/* clients that did not fail but completed no op in
				   the measured window: the machine was overloaded */
	int nfailures;		/* clients that failed */
	struct results_failure *failures;
	struct results_client *per_client; /* id.clients entries, or NULL */
	struct results_resources resources;
	size_t nseries;		/* the per-second series */
	struct series_row *series;
	int exit_status;	/* what the run exits with */
};

/* Inputs of results_compute that are not in the stats region. */
struct results_source {
	const struct program *prog; /* the program that ran (ops, loadfile) */
	const char *backend;	/* the backend's name */
	const struct options *opt; /* the run's options (clients, seed, window) */
	const struct shared *sh; /* the stats region, every client exited */
	const struct run_result *run; /* times, signal, cleanup */
	const struct series_row *series; /* the per-second series (copied), or NULL */
	size_t nseries;
	bool series_failed;	/* --csv-series could not be written (exit 1) */
	const struct pass_figures *pass; /* or NULL: zeros */
	const struct environment *env; /* copied into the identity, or NULL: unknown */
};

/* Compute the results of a finished run (every client has exited). */
void results_compute(struct results *r, const struct results_source *src);
void results_free(struct results *r);

/* Merge b into a: counts, bytes, sums, min/max, histograms, decades,
 * passes, failures, per-client figures, resources and the series add up;
 * clients and processes add; b's clients are numbered after a's; the
 * window is the longer of the two (merge results of one window: throughput
 * adds up); the exit status is the worse.  The two must have run the same
 * loadfile (the same ops in the same order): else -1 and a is unchanged.
 * Per-client figures are kept only if both have them. */
int results_merge(struct results *a, const struct results *b);

/* Recompute group[] and all from op[] (after changing op[]). */
void results_regroup(struct results *r);

/* The exit status the figures imply: failed clients or mismatches (unless
 * allowed) 1, a signal 128 + signal. */
int results_exit_status(const struct results *r, bool allow_mismatch, bool cleanup_failed,
			bool series_failed);

/* The median of the passes per client (the lower middle one). */
uint64_t results_passes_median(const struct results *r);

/* Throughput of the measured window in MB/s (1e6 bytes), and its length. */
double results_window_sec(const struct results *r);
double results_throughput(const struct results *r);

/* The name of op[k] in the JSON and as a key: dbench 4.0's op table name. */
const char *results_op_name(const struct results *r, unsigned k);

/* The name of op[k] in the text and --machine-readable output: 4.0's, or
 * with --loadfile-op-names the loadfile's (dbench 5.0's and mmtests'),
 * and the width of the name column of the op tables for it. */
const char *results_op_label(const struct results *r, unsigned k);
int results_op_label_width(const struct results *r);

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

#endif
