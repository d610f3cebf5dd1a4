/*
 * options.h - the core's part of the parsed command line: the only global
 * mutable state.  Each backend's options are in its own block (backend.h),
 * which options_parse() hands back with the backend.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_OPTIONS_H
#define DBENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

struct backend;

struct options {
	const char *progname;	/* "dbench" or "tbench" */
	int nprocs;		/* client processes (NPROCS) */
	int clients_per_process;
	int iodepth;		/* --iodepth: ops a client keeps in flight (a backend
				   with a queue; 1: one at a time, as always) */
	int timelimit;		/* seconds of measurement (-t); also ends fixed work */
	int warmup;		/* seconds of warmup before it; -1: default */
	const char *loadfile;	/* -c, or found by loadfile_default() */
	const char *backend;	/* -B */
	const char *server;	/* --server or tbench's SERVER */
	int port;		/* --port, 0: the backend's default */
	double target_rate;	/* -R: MB/sec per client, 0: unpaced */
	int64_t trunc_io;	/* --trunc-io N: nfs READ3/WRITE3 and block READ/WRITE move
				   at most N bytes (as dbench 5.0), 0: off; the backends
				   are told it in struct run_info */
	int show_execute_time;	/* --show-execute-time: a line per client and pass
				   (with --machine-readable, mmtests' @E@ lines) */
	int stagger;		/* --stagger N: N > 0: client process i starts
				   i * STAGGER_STEP_MS after the release */
	int skip_cleanup;	/* --skip-cleanup */
	int per_client_results;	/* --per-client-results */
	int run_once;		/* --run-once: one pass per client */
	int passes;		/* --passes N: N passes per client, 0: timed */
	int machine_readable;	/* --machine-readable */
	int loadfile_op_names;	/* --loadfile-op-names: name ops in the text and machine lines
				   as the loadfile does (dbench 5.0's and mmtests' names) */
	int check_loadfile;	/* --check-loadfile: validate and summarize */
	int allow_mismatch;	/* --allow-mismatch: mismatches don't fail the run */
	int allow_scsi_writes;	/* --allow-scsi-writes: WRITE10/16, PROUT may run */
	int show_mismatches;	/* --show-mismatches N: print the first N (default 10) */
	int latency_report;	/* --latency: the full response-time report */
	int repeat;		/* --repeat N: N runs and their summary (0, 1: one run) */
	double repeat_until_ci;	/* --repeat-until-ci PCT: stop once the 95% interval of the
				   mean throughput is within PCT % of it; 0: never */
	int *sweep;		/* --sweep LIST: client process counts, run in turn */
	int nsweep;		/* how many (0: no sweep) */
	const char *json;	/* --json FILE ('-' stdout) */
	const char *csv_series;	/* --csv-series FILE ('-' stdout; *.jsonl: JSON Lines) */
	int stdout_fd;		/* the real stdout when a machine output took it
				   (the human output then goes to stderr), else -1 */
	uint64_t max_loadfile;	/* --max-loadfile: most bytes of loadfile text (and
				   twice that of compiled program) */
	int grace;		/* --grace: seconds a client may take to stop after
				   the end of the run before it is killed */
	int strict;		/* --strict: an overloaded run fails */
	uint64_t seed;		/* --seed */
	bool seed_given;
	int verbose;		/* -v */
	int nclients;		/* nprocs * clients_per_process (this rank's, with --mpi) */
	int mpi;		/* --mpi: one rank of several (mpi_run.h) */
	int mpi_timeout;	/* --mpi-timeout: seconds without a rank's report */
	int client_base;	/* --mpi: the global id of this rank's first client */
	int clients_total;	/* --mpi: clients over every rank (0: nclients) */
	const void *be_opt;	/* the chosen backend's option block (backend.h), or NULL */
	int argc;		/* the command line, for the JSON report */
	const char **argv;
};

/* --stagger's step between the starts of two client processes, as the
 * mmtests patch that added the option (any N > 0 turns it on). */
#define STAGGER_STEP_MS 10

/* --iodepth's largest value. */
#define IODEPTH_MAX 1024

extern struct options options;

/* Parse and validate argv into `options` and the chosen backend's option
 * block (*be_opt; NULL if it has none).  Returns the backend to run with
 * (the table -B names, or the variant its options chose).  Exits with
 * status 2 (and one line on stderr) on any bad value, including an option
 * of a backend that is not the one chosen (but for dbench 4.0's options,
 * which every backend takes); exits 0 after --help/--version. */
const struct backend *options_parse(int argc, const char **argv, void **be_opt);

#endif
