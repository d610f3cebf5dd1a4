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
#include "mpi_run.h"
#include "options.h"
#include "paths.h"
#include "outfile.h"
#include "util.h"

static const char default_directory[] = ".";	/* -D */

struct options options = {
	.progname = "dbench",
	.clients_per_process = 1,
	.timelimit = 600,
	.warmup = -1,
	.directory = default_directory,
	.tcp_options = "TCP_NODELAY",
	.show_mismatches = 10,
	.stdout_fd = -1,
	.max_loadfile = LOADFILE_MAX_DEFAULT,
	.grace = 30,
	.mpi_timeout = 10,
};

static const char *seed_text;
static const char *max_loadfile_text;
static int show_version, show_help, show_usage;

/* Numeric options are taken as text and checked here, so that a bad value
 * gets a message naming the option. */
static struct {
	const char *timelimit, *warmup, *passes, *cpp, *show_mismatches, *port, *rate, *grace;
	const char *trunc_io, *stagger;
	const char *repeat, *until_ci, *sweep, *mpi_timeout;
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
	run_exit_hook(EXIT_USAGE, buf);
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

/* "64K", "256M", "1G" (binary units) or plain bytes, at least 1 KiB. */
static int parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t len = strlen(s);
	unsigned shift = 0;
	uint64_t v;

	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	switch (num[len - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: break;
	}
	if (shift)
		num[--len] = '\0';
	if (parse_u64(num, &v) < 0 || v > (UINT64_MAX >> shift) || (v << shift) < 1024)
		return -1;
	*out = v << shift;
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
	/* a relative -D is taken from where dbench was started: the second
	 * client of a process (--clients-per-process) must find it too */
	if (options.directory[0] != '/') {
		char cwd[PATH_MAX], *abs;

		if (!getcwd(cwd, sizeof(cwd)))
			usage_error(pc, "directory '%s': the current directory: %s", options.directory,
				    strerror(errno));
		abs = xmalloc(strlen(cwd) + strlen(options.directory) + 2);
		sprintf(abs, "%s/%s", cwd, options.directory);
		if (options.directory != default_directory)
			free((char *)options.directory);	/* popt's copy */
		options.directory = abs;
	}
}

/* A machine output file (--json, --csv-series) must be writable before
 * the run starts, so that a typo does not cost a whole run, and is never
 * a symbolic link (outfile.h).  Nothing is created here. */
static void check_output(poptContext pc, const char *option, const char *path)
{
	char why[PATH_MAX + 128];

	if (!path || strcmp(path, "-") == 0)
		return;
	if (!*path)
		usage_error(pc, "%s: empty file name", option);
	if (outfile_check(path, why, sizeof(why)) < 0)
		usage_error(pc, "%s %s: %s", option, path, why);
}

/* The backends whose reads and writes --trunc-io cuts, as dbench 5.0's
 * nfs and block backends (its other backends ignore the option); null
 * does too, so that a dry run and --check-loadfile's walk count what a
 * run moves. */
static bool trunc_io_applies(const struct backend *be)
{
	return strcmp(be->name, "nfs") == 0 || strcmp(be->name, "block") == 0 ||
	       strcmp(be->name, "null") == 0;
}

static uint64_t random_seed(void)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed;
}

/* The options several backends share: a table is in the command line
 * (and --help) when a backend known to the run has its flag. */
static const struct poptOption file_options[] = {
	{ "sync", 's', POPT_ARG_NONE, &options.sync_open, 0, "open files with O_SYNC", NULL },
	{ "sync-dir", 'S', POPT_ARG_NONE, &options.sync_dirs, 0,
	  "fsync the directory after every directory change", NULL },
	{ "fsync", 'F', POPT_ARG_NONE, &options.do_fsync, 0, "fsync after every write", NULL },
	{ "one-byte-write-fix", 0, POPT_ARG_NONE, &options.one_byte_write_fix, 0,
	  "as dbench 4.0: a 1-byte write writes a zero byte, skipped where the file holds it, "
	  "an ftruncate where it extends the file", NULL },
	{ "stat-check", 0, POPT_ARG_NONE, &options.stat_check, 0,
	  "as dbench 4.0: stat first and skip a mkdir, rmdir, create or rename that "
	  "would fail", NULL },
	{ "check-size", 0, POPT_ARG_NONE, &options.check_size, 0,
	  "after each write, check with fstat that the file is as large as written", NULL },
	{ "fake-io", 0, POPT_ARG_NONE, &options.fake_io, 0,
	  "do not read or write data, only count it", NULL },
	POPT_TABLEEND
};

static const struct poptOption server_options[] = {
	{ "server", 0, POPT_ARG_STRING, &options.server, 0,
	  "the server: a name or address, optionally with :PORT ([ADDR]:PORT for IPv6); "
	  "tbench also takes it as its last argument", "HOST" },
	{ "port", 0, POPT_ARG_STRING, &text.port, 0,
	  "the server's port (default: the backend's)", "PORT" },
	POPT_TABLEEND
};

static const struct {
	unsigned flag;
	const struct poptOption *table;
	const char *title;
} shared_tables[] = {
	{ BACKEND_FILES, file_options, "File options" },
	{ BACKEND_SERVER, server_options, "Server options" },
};

static const struct poptOption help_options[] = {
	{ "help", '?', POPT_ARG_NONE, &show_help, 0, "Show this help message", NULL },
	{ "usage", 0, POPT_ARG_NONE, &show_usage, 0, "Display brief usage message", NULL },
	POPT_TABLEEND
};

/* Before popt runs: the backend named on the command line (its module's
 * options must be in the table popt parses), whether help is asked for
 * (then every module is loaded, to list them all), and the --json file,
 * so that a failure before popt has read it (a module that cannot be
 * loaded, a module's option callback) still writes the error document
 * over a stale one. */
static const char *prescan(int argc, const char **argv, bool *help)
{
	const char *name = NULL;

	*help = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-?") == 0 || strcmp(a, "--usage") == 0)
			*help = true;
		else if ((strcmp(a, "-B") == 0 || strcmp(a, "--backend") == 0) && i + 1 < argc)
			name = argv[++i];
		else if (strncmp(a, "--backend=", 10) == 0)
			name = a + 10;
		else if (strncmp(a, "-B", 2) == 0 && a[2])
			name = a + 2;
		else if (strcmp(a, "--json") == 0 && i + 1 < argc)
			options.json = argv[++i];
		else if (strncmp(a, "--json=", 7) == 0)
			options.json = a + 7;
	}
	return name;
}

static const struct backend *find_backend_or_exit(const char *name)
{
	char why[PATH_MAX + 512];
	const struct backend *be = backend_find(name, why, sizeof(why));

	if (!be) {
		fprintf(stderr, "%s: %s\n", options.progname, why);
		run_exit_hook(EXIT_USAGE, why);
		exit(EXIT_USAGE);
	}
	return be;
}

/* A table title naming the backends that take the options. */
static const char *title_for(char *buf, size_t len, const char *what, unsigned flag)
{
	const struct backend *const *be = backend_list();
	size_t n = (size_t)snprintf(buf, len, "%s (", what);

	for (int i = 0; be[i] && n < len; i++)
		if (be[i]->flags & flag)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", buf[n - 1] == '(' ? "" : ", ", be[i]->name);
	if (n < len)
		snprintf(buf + n, len - n, "):");
	return buf;
}

/* The popt table of this run: the core options, each known backend's,
 * the shared ones that a known backend takes, help.  Sized from the
 * registry; it and its titles live until exit. */
static struct poptOption *build_table(struct poptOption *core)
{
	static char titles[64][160];
	static struct poptOption *table;	/* popt refers to it until exit */
	const struct backend *const *be = backend_list();
	size_t nbe = 0, n = 0, t = 0;

	while (be[nbe])
		nbe++;
	free(table);
	table = xcalloc(nbe + ARRAY_SIZE(shared_tables) + 3, sizeof(*table));
	table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE, core, 0, "Options:", NULL };
	for (size_t i = 0; i < ARRAY_SIZE(shared_tables); i++) {
		unsigned any = 0;

		for (size_t j = 0; j < nbe; j++)
			any |= be[j]->flags & shared_tables[i].flag;
		if (any && t < ARRAY_SIZE(titles))
			table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE,
							  (void *)shared_tables[i].table, 0,
							  title_for(titles[t++], sizeof(titles[0]),
								    shared_tables[i].title, shared_tables[i].flag),
							  NULL };
	}
	for (size_t j = 0; j < nbe; j++) {
		if (!be[j]->options || t >= ARRAY_SIZE(titles))
			continue;
		snprintf(titles[t], sizeof(titles[0]), "%s backend options (-B %s):", be[j]->name, be[j]->name);
		table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)be[j]->options, 0,
						  titles[t++], NULL };
	}
	table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)help_options, 0,
					  "Help options:", NULL };
	table[n] = (struct poptOption)POPT_TABLEEND;
	return table;
}

void options_parse(int argc, const char **argv)
{
	struct poptOption core[] = {
		{ "timelimit", 't', POPT_ARG_STRING, &text.timelimit, 0,
		  "measure for SECS seconds after the warmup (default 600)", "SECS" },
		{ "loadfile", 'c', POPT_ARG_STRING, &options.loadfile, 0,
		  "the loadfile, plain or gzip (default: ./client.txt, then the installed one)", "FILE" },
		{ "backend", 'B', POPT_ARG_STRING, &options.backend, 0,
		  "the backend to run on (see Backends below)", "NAME" },
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
		{ "trunc-io", 0, POPT_ARG_STRING, &text.trunc_io, 0,
		  "as dbench 5.0: the nfs backend's READ3 and WRITE3 and the block backend's READ and "
		  "WRITE move at most N bytes (larger ones are cut to N); no effect on other backends", "N" },
		{ "show-execute-time", 0, POPT_ARG_NONE, &options.show_execute_time, 0,
		  "print '%4d completed in %u ms at time %u ms' (client, pass time, time since the "
		  "release) after each pass of each client, as the mmtests dbench does; with "
		  "--machine-readable '@E@client@ms' instead", NULL },
		{ "stagger", 0, POPT_ARG_STRING, &text.stagger, 0,
		  "N > 0: client process i starts i x 10 ms after the release, instead of "
		  "all at once (the mmtests patch's option; 0: off)", "N" },
		{ "skip-cleanup", 0, POPT_ARG_NONE, &options.skip_cleanup, 0,
		  "leave the files the run made", NULL },
		{ "per-client-results", 0, POPT_ARG_NONE, &options.per_client_results, 0,
		  "show each client's results too", NULL },
		{ "machine-readable", 0, POPT_ARG_NONE, &options.machine_readable, 0,
		  "print only machine-readable lines on stdout", NULL },
		{ "loadfile-op-names", 0, POPT_ARG_NONE, &options.loadfile_op_names, 0,
		  "name the operations in the op tables and the machine-readable lines as the loadfile "
		  "does (QUERY_PATH_INFORMATION, FIND_FIRST, ... as dbench 5.0 and mmtests' dbench), not "
		  "with dbench 4.0's short names (Qpathinfo, Find, ...)", NULL },
		{ "latency", 0, POPT_ARG_NONE, &options.latency_report, 0,
		  "after the op table, show response times per op and group: percentiles, stddev, decades",
		  NULL },
		{ "json", 0, POPT_ARG_STRING, &options.json, 0,
		  "write the results as JSON to FILE, replaced atomically, never through a symlink "
		  "('-': stdout, and the human output goes to stderr)",
		  "FILE" },
		{ "csv-series", 0, POPT_ARG_STRING, &options.csv_series, 0,
		  "write one row per second to FILE: CSV, or JSON Lines if it ends in .jsonl; never "
		  "through a symlink ('-': stdout)",
		  "FILE" },
		{ "mpi", 0, POPT_ARG_NONE, &options.mpi, 0,
		  "run as one rank of an MPI job (mpirun, srun): NPROCS is the total over the ranks, "
		  "rank 0 prints one report"
#ifndef HAVE_MPI
		  " (not built: configure found no MPI)"
#endif
		  , NULL },
		{ "mpi-timeout", 0, POPT_ARG_STRING, &text.mpi_timeout, 0,
		  "with --mpi: end the run on every rank when a rank has not reported for SECS (default 10)",
		  "SECS" },
		{ "repeat", 0, POPT_ARG_STRING, &text.repeat, 0,
		  "make N runs, each with its own warmup, measurement and cleanup, and summarize them: "
		  "mean, median, stddev, CoV, min/max, 95% confidence interval", "N" },
		{ "repeat-until-ci", 0, POPT_ARG_STRING, &text.until_ci, 0,
		  "with --repeat N: stop after 3 or more runs once the 95% confidence interval of the "
		  "mean throughput is within PCT% of the mean", "PCT" },
		{ "sweep", 0, POPT_ARG_STRING, &text.sweep, 0,
		  "run each number of client processes in LIST in turn (e.g. 1,2,4,8 or 1..64x2; "
		  "instead of NPROCS), each with its own warmup, measurement and cleanup, and "
		  "tabulate them", "LIST" },
		{ "check-loadfile", 0, POPT_ARG_NONE, &options.check_loadfile, 0,
		  "check the loadfile, print what one pass does, and exit", NULL },
		{ "grace", 0, POPT_ARG_STRING, &text.grace, 0,
		  "after the time limit or a stop, kill a client that has not stopped within SECS "
		  "(stopped, or its operation in flight does not return) and count it as failed (default 30)",
		  "SECS" },
		{ "strict", 0, POPT_ARG_NONE, &options.strict, 0,
		  "an overloaded run fails (exit 1): a client completed no operation in the measured window",
		  NULL },
		{ "max-loadfile", 0, POPT_ARG_STRING, &max_loadfile_text, 0,
		  "refuse a loadfile of more than SIZE bytes of text (K, M, G: binary units; default 256M) "
		  "or whose compiled program takes more than twice that", "SIZE" },
		{ "allow-mismatch", 0, POPT_ARG_NONE, &options.allow_mismatch, 0,
		  "status mismatches do not make the exit status non-zero", NULL },
		{ "allow-scsi-writes", 0, POPT_ARG_NONE, &options.allow_scsi_writes, 0,
		  "let the loadfile's SCSI writes (WRITE10, WRITE16, PROUT) change the LUN", NULL },
		{ "show-mismatches", 0, POPT_ARG_STRING, &text.show_mismatches, 0,
		  "print the first N status mismatches (default 10)", "N" },
		{ "version", 'V', POPT_ARG_NONE, &show_version, 0, "print the version and exit", NULL },
		POPT_TABLEEND
	};
	const struct backend *be;
	const char *named;
	bool help;
	int rc;
	poptContext pc;
	const char *arg;

	options.argc = argc;
	options.argv = argv;
	if (argc > 0 && strstr(basename_of(argv[0]), "tbench"))
		options.progname = "tbench";
	options.backend = backend_default(strcmp(options.progname, "tbench") == 0);
	named = prescan(argc, argv, &help);
	if (help)
		backend_load_all();
	be = find_backend_or_exit(named ? named : options.backend);

	pc = poptGetContext(options.progname, argc, argv, build_table(core), 0);
	poptSetOtherOptionHelp(pc, strcmp(options.progname, "tbench") == 0 ?
				       "[OPTION...] NPROCS [SERVER[:PORT]]" : "[OPTION...] NPROCS");
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1)
		usage_error(pc, "%s: %s", poptBadOption(pc, 0), poptStrerror(rc));
	if (show_help || show_usage) {
		if (show_help) {
			poptPrintHelp(pc, stdout, 0);
			backend_print_help(stdout);
		} else {
			poptPrintUsage(pc, stdout, 0);
		}
		poptFreeContext(pc);
		exit(0);
	}
	if (show_version) {
		printf("%s %s\n", options.progname, PACKAGE_VERSION);
		if (options.mpi)
			mpi_print_version(stdout);
		poptFreeContext(pc);
		exit(0);
	}
	/* -B hidden where the scan above did not see it (-sBnull) */
	if (strcmp(be->name, options.backend) != 0)
		be = find_backend_or_exit(options.backend);

	int_option(pc, "-t", text.timelimit, &options.timelimit, 0, 100000000);
	int_option(pc, "--warmup", text.warmup, &options.warmup, 0, 100000000);
	int_option(pc, "--passes", text.passes, &options.passes, 1, INT32_MAX);
	int_option(pc, "--clients-per-process", text.cpp, &options.clients_per_process, 1, 100000);
	int_option(pc, "--show-mismatches", text.show_mismatches, &options.show_mismatches, 0, INT32_MAX);
	int_option(pc, "--port", text.port, &options.port, 1, 65535);
	if (text.trunc_io) {
		int trunc = 0;

		int_option(pc, "--trunc-io", text.trunc_io, &trunc, 1, INT32_MAX);
		options.trunc_io = trunc;
		if (!trunc_io_applies(be))
			fprintf(stderr, "%s: --trunc-io has no effect on the %s backend (as in dbench 5.0, "
				"it cuts only the READ3/WRITE3 of the nfs backend and the READ/WRITE of the "
				"block backend)\n", options.progname, be->name);
	}
	int_option(pc, "--stagger", text.stagger, &options.stagger, 0, INT32_MAX);
	int_option(pc, "--grace", text.grace, &options.grace, 1, 86400);
	int_option(pc, "--repeat", text.repeat, &options.repeat, 1, 1000);
	if (options.mpi)
		mpi_load();	/* dbench-mpi.so, or one line and exit 2 */
	int_option(pc, "--mpi-timeout", text.mpi_timeout, &options.mpi_timeout, 1, 86400);
	if (text.mpi_timeout && !options.mpi)
		usage_error(pc, "--mpi-timeout is for --mpi runs");
	if (text.until_ci) {
		char *end;

		options.repeat_until_ci = strtod(text.until_ci, &end);
		if (*end == '%')
			end++;
		if (*end || end == text.until_ci || !(options.repeat_until_ci > 0) ||
		    options.repeat_until_ci >= 100)
			usage_error(pc, "--repeat-until-ci: '%s' is not a percentage between 0 and 100",
				    text.until_ci);
		if (options.repeat < 2)
			usage_error(pc, "--repeat-until-ci needs --repeat N, the most runs to make (2 or more)");
	}
	if (options.repeat > 1 && options.csv_series)
		usage_error(pc, "--csv-series is for one run, not with --repeat (the --json document has each run's series)");
	if (options.repeat > 1 && options.machine_readable)
		usage_error(pc, "--machine-readable is for one run, not with --repeat (use --json)");
	if (text.sweep) {
		char why[160];

		options.nsweep = parse_count_list(text.sweep, 100000, 1000, &options.sweep, why,
						  sizeof(why));
		if (options.nsweep < 0)
			usage_error(pc, "--sweep: %s", why);
		if (options.csv_series)
			usage_error(pc, "--csv-series is for one run, not with --sweep (the --json document has each run's series)");
		if (options.machine_readable)
			usage_error(pc, "--machine-readable is for one run, not with --sweep (use --json)");
	}
	if (text.rate) {
		char *end;

		options.target_rate = strtod(text.rate, &end);
		if (*end || end == text.rate || !(options.target_rate >= 0) || options.target_rate > 1e9)
			usage_error(pc, "-R: '%s' is not a rate in MB/sec", text.rate);
	}

	arg = options.nsweep ? NULL : poptGetArg(pc);
	if (!arg && !options.nsweep && options.check_loadfile)
		arg = "1";	/* what one pass of client 0 does needs no NPROCS */
	if (options.nsweep) {
		options.nprocs = options.sweep[0];
		for (int i = 1; i < options.nsweep; i++)
			options.nprocs = MAX(options.nprocs, options.sweep[i]);
		/* tbench's SERVER still comes next; a number there is a stray NPROCS */
		arg = poptPeekArg(pc);
		if (arg && parse_count(arg, &(int){ 0 }) == 0)
			usage_error(pc, "give NPROCS or --sweep LIST, not both");
	} else if (!arg) {
		fprintf(stderr, "%s: missing NPROCS, the number of clients\n", options.progname);
		poptPrintUsage(pc, stderr, 0);
		run_exit_hook(EXIT_USAGE, "missing NPROCS, the number of clients");
		poptFreeContext(pc);
		exit(EXIT_USAGE);
	}
	if (!options.nsweep && parse_count(arg, &options.nprocs) < 0)
		usage_error(pc, "NPROCS '%s' is not a number", arg);
	if (options.nprocs < 1)
		usage_error(pc, "NPROCS must be at least 1, not %d", options.nprocs);
	arg = poptGetArg(pc);
	if (arg) {
		if (!(be->flags & BACKEND_SERVER))
			usage_error(pc, "unexpected argument '%s' (the %s backend takes no server%s%s%s)", arg,
				    be->name, be->flags & BACKEND_DIRECTORY ? "; did you mean -D " : "",
				    be->flags & BACKEND_DIRECTORY ? arg : "", be->flags & BACKEND_DIRECTORY ? "?" : "");
		options.server = xstrdup(arg);	/* arg dies with the popt context */
	}
	if ((arg = poptGetArg(pc)))
		usage_error(pc, "unexpected argument '%s'", arg);

	if ((int64_t)options.nprocs * options.clients_per_process > 100000)
		usage_error(pc, "%d x %d clients is more than 100000", options.nprocs,
			    options.clients_per_process);
	options.nclients = options.nprocs * options.clients_per_process;
	if (options.run_once)
		options.passes = options.passes ? options.passes : 1;
	if (options.timelimit < 1)
		usage_error(pc, "-t must be at least 1 second");
	if (options.warmup == -1)
		options.warmup = options.passes ? 0 : options.timelimit / 5;
	if (max_loadfile_text && parse_size(max_loadfile_text, &options.max_loadfile) < 0)
		usage_error(pc, "--max-loadfile: '%s' is not a size (a number of bytes, or with K, M, G)",
			    max_loadfile_text);
	if (seed_text) {
		if (parse_u64(seed_text, &options.seed) < 0)
			usage_error(pc, "--seed '%s' is not a number", seed_text);
		options.seed_given = true;
	} else {
		options.seed = random_seed();
	}
	if (options.loadfile && !*options.loadfile)
		usage_error(pc, "-c: an empty loadfile name (give a file, or leave -c out for the default)");
	if (!options.loadfile) {
		options.loadfile = loadfile_default();
		if (!options.loadfile)
			usage_error(pc, "no loadfile: give one with -c (looked for ./client.txt and %s/client.txt)",
				    data_dir());
	}
	if ((be->flags & BACKEND_DIRECTORY) && !options.check_loadfile)
		check_directory(pc);
	if (options.json && options.csv_series && strcmp(options.json, "-") == 0 &&
	    strcmp(options.csv_series, "-") == 0)
		usage_error(pc, "--json - and --csv-series - cannot both have stdout");
	check_output(pc, "--json", options.json);
	check_output(pc, "--csv-series", options.csv_series);
	poptFreeContext(pc);
}
