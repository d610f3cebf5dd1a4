/*
 * options.c - the command line (popt): dbench 4.0's options, the later
 * ones, and each built backend's own table.  Every value is checked here,
 * where it enters: a bad one gets one line on stderr and exit status 2.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <popt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "loadfile.h"
#include "options.h"
#include "util.h"

struct options options = {
	.progname = "dbench",
	.clients_per_process = 1,
	.timelimit = 600,
	.warmup = -1,
	.directory = ".",
	.backend = "fileio",
	.tcp_options = "TCP_NODELAY",
	.show_mismatches = 10,
	.stdout_fd = -1,
};

static const char *seed_text;
static int show_version;

/* Numeric options are taken as text and checked here, so that a bad value
 * gets a message naming the option. */
static struct {
	const char *timelimit, *warmup, *passes, *cpp, *show_mismatches, *port, *rate, *trunc_io;
} text;

static void usage_error(poptContext pc, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void usage_error(poptContext pc, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s (see %s --help)\n", options.progname, buf, options.progname);
	poptFreeContext(pc);
	exit(EXIT_USAGE);
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int parse_count(const char *s, int *out)
{
	int64_t v;

	if (parse_i64(s, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static void int_option(poptContext pc, const char *name, const char *value, int *out, int min, int max)
{
	int64_t v;

	if (!value)
		return;
	if (parse_i64(value, &v) < 0)
		usage_error(pc, "%s: '%s' is not a number", name, value);
	if (v < min || v > max)
		usage_error(pc, "%s: %s is out of range (%d to %d)", name, value, min, max);
	*out = (int)v;
}

static void check_directory(poptContext pc)
{
	struct stat st;

	if (stat(options.directory, &st) < 0)
		usage_error(pc, "directory '%s': %s", options.directory, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		usage_error(pc, "'%s' is not a directory", options.directory);
	if (access(options.directory, W_OK | X_OK) < 0)
		usage_error(pc, "directory '%s' is not writable: %s", options.directory, strerror(errno));
}

/* A machine output file (--json, --csv-series) must be writable before
 * the run starts, so that a typo does not cost a whole run.  Nothing is
 * created here. */
static void check_output(poptContext pc, const char *option, const char *path)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;

	if (!path || strcmp(path, "-") == 0)
		return;
	if (!*path)
		usage_error(pc, "%s: empty file name", option);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			usage_error(pc, "%s %s: is a directory", option, path);
		if (access(path, W_OK) < 0)
			usage_error(pc, "%s %s: %s", option, path, strerror(errno));
		return;
	}
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (access(dir, W_OK | X_OK) < 0)
		usage_error(pc, "%s %s: cannot create it: %s", option, path, strerror(errno));
}

static uint64_t random_seed(void)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed;
}

void options_parse(int argc, const char **argv)
{
	struct poptOption core[] = {
		{ "timelimit", 't', POPT_ARG_STRING, &text.timelimit, 0,
		  "measure for SECS seconds after the warmup (default 600)", "SECS" },
		{ "loadfile", 'c', POPT_ARG_STRING, &options.loadfile, 0,
		  "the loadfile, plain or gzip (default: ./client.txt, then the installed one)", "FILE" },
		{ "directory", 'D', POPT_ARG_STRING, &options.directory, 0,
		  "the directory to work in, the share root of the fileio backend (default .)", "DIR" },
		{ "backend", 'B', POPT_ARG_STRING, &options.backend, 0,
		  "fileio, sockio (tbench)" BACKEND_LIST_HELP ", null (default fileio; tbench: sockio)", "NAME" },
		{ "target-rate", 'R', POPT_ARG_STRING, &text.rate, 0,
		  "pace each client to RATE MB/sec (0: as fast as possible)", "RATE" },
		{ "warmup", 0, POPT_ARG_STRING, &text.warmup, 0,
		  "seconds of warmup before measuring (default: timelimit/5, 0 with --passes)", "SECS" },
		{ "run-once", 0, POPT_ARG_NONE, &options.run_once, 0,
		  "each client replays the loadfile once (fixed work, no time limit)", NULL },
		{ "passes", 0, POPT_ARG_STRING, &text.passes, 0,
		  "each client replays the loadfile N times (fixed work, no time limit)", "N" },
		{ "clients-per-process", 0, POPT_ARG_STRING, &text.cpp, 0,
		  "clients run by each process (default 1)", "N" },
		{ "seed", 0, POPT_ARG_STRING, &seed_text, 0,
		  "seed for random loadfile parameters, for reproducible runs (default: random, printed)", "N" },
		{ "sync", 's', POPT_ARG_NONE, &options.sync_open, 0, "open files with O_SYNC", NULL },
		{ "sync-dir", 'S', POPT_ARG_NONE, &options.sync_dirs, 0,
		  "fsync the directory after every directory change", NULL },
		{ "fsync", 'F', POPT_ARG_NONE, &options.do_fsync, 0, "fsync after every write", NULL },
		{ "xattr", 'x', POPT_ARG_NONE, &options.ea_enable, 0,
		  "keep DOS attributes in the user.DOSATTRIB extended attribute", NULL },
		{ "no-resolve", 0, POPT_ARG_NONE, &options.no_resolve, 0,
		  "do not emulate case-insensitive name lookup (no stat + directory scan)", NULL },
		{ "one-byte-write-fix", 0, POPT_ARG_NONE, &options.one_byte_write_fix, 0,
		  "as dbench 4.0: a 1-byte write writes a zero byte, skipped where the file holds it, "
		  "an ftruncate where it extends the file", NULL },
		{ "stat-check", 0, POPT_ARG_NONE, &options.stat_check, 0,
		  "as dbench 4.0 (fileio): stat first and skip a mkdir, rmdir, create or rename that "
		  "would fail", NULL },
		{ "check-size", 0, POPT_ARG_NONE, &options.check_size, 0,
		  "after each write, check with fstat that the file is as large as written", NULL },
		{ "fake-io", 0, POPT_ARG_NONE, &options.fake_io, 0,
		  "do not read or write data, only count it", NULL },
		{ "trunc-io", 0, POPT_ARG_STRING, &text.trunc_io, 0,
		  "as dbench 4.0: no read or write moves more than N bytes (larger ones are cut to N)", "N" },
		{ "show-execute-time", 0, POPT_ARG_NONE, &options.show_execute_time, 0,
		  "print '%4d completed in %u ms at time %u ms' (client, pass time, time since the "
		  "release) after each pass of each client, as the mmtests dbench does", NULL },
		{ "skip-cleanup", 0, POPT_ARG_NONE, &options.skip_cleanup, 0,
		  "leave the files the run made", NULL },
		{ "per-client-results", 0, POPT_ARG_NONE, &options.per_client_results, 0,
		  "show each client's results too", NULL },
		{ "machine-readable", 0, POPT_ARG_NONE, &options.machine_readable, 0,
		  "print only machine-readable lines on stdout", NULL },
		{ "latency", 0, POPT_ARG_NONE, &options.latency_report, 0,
		  "after the op table, show response times per op and group: percentiles, stddev, decades",
		  NULL },
		{ "json", 0, POPT_ARG_STRING, &options.json, 0,
		  "write the results as JSON to FILE ('-': stdout, and the human output goes to stderr)",
		  "FILE" },
		{ "csv-series", 0, POPT_ARG_STRING, &options.csv_series, 0,
		  "write one row per second to FILE: CSV, or JSON Lines if it ends in .jsonl ('-': stdout)",
		  "FILE" },
		{ "check-loadfile", 0, POPT_ARG_NONE, &options.check_loadfile, 0,
		  "check the loadfile, print what one pass does, and exit", NULL },
		{ "allow-mismatch", 0, POPT_ARG_NONE, &options.allow_mismatch, 0,
		  "status mismatches do not make the exit status non-zero", NULL },
		{ "show-mismatches", 0, POPT_ARG_STRING, &text.show_mismatches, 0,
		  "print the first N status mismatches (default 10)", "N" },
		{ "tcp-options", 'T', POPT_ARG_STRING, &options.tcp_options, 0,
		  "socket options of tbench's (sockio) connections, as dbench 4.0: TCP_NODELAY[=0|1] "
		  "SO_KEEPALIVE[=0|1] SO_REUSEADDR[=0|1] SO_BROADCAST[=0|1] IPTOS_LOWDELAY IPTOS_THROUGHPUT "
		  "SO_SNDBUF=n SO_RCVBUF=n SO_SNDLOWAT=n SO_RCVLOWAT=n SO_SNDTIMEO=ms SO_RCVTIMEO=ms, "
		  "comma or space separated (default TCP_NODELAY)", "OPTS" },
		{ "server", 0, POPT_ARG_STRING, &options.server, 0,
		  "the server (sockio, nfs): a name or address, optionally with :PORT ([ADDR]:PORT "
		  "for IPv6); tbench also takes it as its last argument", "HOST" },
		{ "port", 0, POPT_ARG_STRING, &text.port, 0,
		  "the server's port (sockio: default 7003, tbench_srv's)", "PORT" },
		{ "version", 'V', POPT_ARG_NONE, &show_version, 0, "print the version and exit", NULL },
		POPT_TABLEEND
	};
	struct poptOption help[2] = { POPT_AUTOHELP POPT_TABLEEND };
	struct poptOption table[16];
	int n = 0, rc;
	poptContext pc;
	const char *arg;

	options.argc = argc;
	options.argv = argv;
	if (argc > 0 && strstr(basename_of(argv[0]), "tbench")) {
		options.progname = "tbench";
		options.backend = "sockio";
	}
	table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE, core, 0, "Options:", NULL };
	for (int i = 0; backends[i]; i++) {
		if (backends[i]->options)
			table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE,
							  (void *)backends[i]->options, 0,
							  backends[i]->options_title, NULL };
	}
	table[n++] = help[0];
	table[n++] = help[1];

	pc = poptGetContext(options.progname, argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, options.backend && strcmp(options.progname, "tbench") == 0 ?
				       "[OPTION...] NPROCS [SERVER[:PORT]]" : "[OPTION...] NPROCS");
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1)
		usage_error(pc, "%s: %s", poptBadOption(pc, 0), poptStrerror(rc));
	if (show_version) {
		printf("%s %s\n", options.progname, PACKAGE_VERSION);
		poptFreeContext(pc);
		exit(0);
	}

	int_option(pc, "-t", text.timelimit, &options.timelimit, 0, 100000000);
	options.timelimit_given = text.timelimit != NULL;
	int_option(pc, "--warmup", text.warmup, &options.warmup, 0, 100000000);
	int_option(pc, "--passes", text.passes, &options.passes, 1, INT32_MAX);
	int_option(pc, "--clients-per-process", text.cpp, &options.clients_per_process, 1, 100000);
	int_option(pc, "--show-mismatches", text.show_mismatches, &options.show_mismatches, 0, INT32_MAX);
	int_option(pc, "--port", text.port, &options.port, 1, 65535);
	if (text.trunc_io) {
		int trunc = 0;

		int_option(pc, "--trunc-io", text.trunc_io, &trunc, 1, INT32_MAX);
		options.trunc_io = trunc;
	}
	if (text.rate) {
		char *end;

		options.target_rate = strtod(text.rate, &end);
		if (*end || end == text.rate || !(options.target_rate >= 0) || options.target_rate > 1e9)
			usage_error(pc, "-R: '%s' is not a rate in MB/sec", text.rate);
	}

	arg = poptGetArg(pc);
	if (!arg && options.check_loadfile)
		arg = "1";	/* what one pass of client 0 does needs no NPROCS */
	if (!arg) {
		fprintf(stderr, "%s: missing NPROCS, the number of clients\n", options.progname);
		poptPrintUsage(pc, stderr, 0);
		poptFreeContext(pc);
		exit(EXIT_USAGE);
	}
	if (parse_count(arg, &options.nprocs) < 0)
		usage_error(pc, "NPROCS '%s' is not a number", arg);
	if (options.nprocs < 1)
		usage_error(pc, "NPROCS must be at least 1, not %d", options.nprocs);
	arg = poptGetArg(pc);
	if (arg) {
		if (strcmp(options.backend, "fileio") == 0)
			usage_error(pc, "unexpected argument '%s' (the fileio backend takes no server; did you mean -D %s?)",
				    arg, arg);
		options.server = xstrdup(arg);	/* arg dies with the popt context */
	}
	if ((arg = poptGetArg(pc)))
		usage_error(pc, "unexpected argument '%s'", arg);

	if (!backend_find(options.backend)) {
		char names[256] = "";

		for (int i = 0; backends[i]; i++) {
			strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
			strncat(names, backends[i]->name, sizeof(names) - strlen(names) - 1);
		}
		usage_error(pc, "unknown backend '%s' (built: %s)", options.backend, names);
	}
	if ((int64_t)options.nprocs * options.clients_per_process > 100000)
		usage_error(pc, "%d x %d clients is more than 100000", options.nprocs,
			    options.clients_per_process);
	options.nclients = options.nprocs * options.clients_per_process;
	if (options.run_once)
		options.passes = options.passes ? options.passes : 1;
	if (options.timelimit < 1 && options.passes == 0)
		usage_error(pc, "-t must be at least 1 second");
	if (options.warmup == -1)
		options.warmup = options.passes ? 0 : options.timelimit / 5;
	if (seed_text) {
		if (parse_u64(seed_text, &options.seed) < 0)
			usage_error(pc, "--seed '%s' is not a number", seed_text);
		options.seed_given = true;
	} else {
		options.seed = random_seed();
	}
	if (!options.loadfile) {
		options.loadfile = loadfile_default();
		if (!options.loadfile)
			usage_error(pc, "no loadfile: give one with -c (looked for ./client.txt, %s/client.txt and %s/loadfiles/client.txt)",
				    PKGDATADIR, ABS_SRCDIR);
	}
	if (strcmp(options.backend, "fileio") == 0 && !options.check_loadfile)
		check_directory(pc);
	if (options.json && options.csv_series && strcmp(options.json, "-") == 0 &&
	    strcmp(options.csv_series, "-") == 0)
		usage_error(pc, "--json - and --csv-series - cannot both have stdout");
	check_output(pc, "--json", options.json);
	check_output(pc, "--csv-series", options.csv_series);
	poptFreeContext(pc);
}
