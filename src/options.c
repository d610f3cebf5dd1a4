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
#include "backends/netbench.h"
#include "options.h"
#include "paths.h"
#include "outfile.h"
#include "util.h"


struct options options = {
	.progname = "dbench",
	.clients_per_process = 1,
	.iodepth = 1,
	.timelimit = 600,
	.warmup = -1,
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
	const char *trunc_io, *stagger, *iodepth;
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

/* Check -D (or the backend's directory option); returns it absolute. */
static const char *check_directory(poptContext pc, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		usage_error(pc, "directory '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		usage_error(pc, "'%s' is not a directory", dir);
	if (access(dir, W_OK | X_OK) < 0)
		usage_error(pc, "directory '%s' is not writable: %s", dir, strerror(errno));
	/* a relative -D is taken from where dbench was started: the second
	 * client of a process (--clients-per-process) must find it too */
	if (dir[0] != '/') {
		char cwd[PATH_MAX], *abs;

		if (!getcwd(cwd, sizeof(cwd)))
			usage_error(pc, "directory '%s': the current directory: %s", dir, strerror(errno));
		abs = xmalloc(strlen(cwd) + strlen(dir) + 2);
		sprintf(abs, "%s/%s", cwd, dir);
		dir = abs;
	}
	return dir;
}

/* Is dir the default of be's directory option, not popt's copy of an
 * argument? */
static bool directory_is_default(const struct backend *be, const char *dir)
{
	for (const struct backend_option *o = be->options; o && o->name; o++)
		if (o->type == BOPT_DIRECTORY)
			return dir == o->def;
	return false;
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

/* ---- the options of the backends ----
 *
 * Every backend known to the run (the built-in ones, and a module when -B
 * names it or --help lists them all) has its option block, allocated here
 * with its defaults; popt fills each option at its offset.  Each entry also
 * returns a code, so that an option of a backend that is not the one chosen
 * is refused after parsing (refuse_foreign).  The file options go to
 * files_opt, copied to the start of the chosen backend's block when it
 * takes them (BACKEND_FILES); the server options are the core's. */

/* Where an option given on the command line belongs. */
struct origin {
	const char *name;		/* its long name */
	char short_name;		/* or 0 */
	const struct backend *be;	/* its backend, or NULL: a shared table's */
	unsigned flag;			/* a shared table's: the backends with this flag */
	bool given;			/* it was on the command line */
};

#define ORIGIN_CODE 0x4000	/* popt's val of origins[i]: ORIGIN_CODE + i */

static struct origin *origins;
static size_t norigins;

/* The option blocks of the known backends. */
static struct block {
	const struct backend *be;
	void *opt;
} *blocks;
static size_t nblocks;

static struct nb_options files_opt;	/* the file options, as given */

static int add_origin(const char *name, char short_name, const struct backend *be, unsigned flag)
{
	origins = xrealloc(origins, (norigins + 1) * sizeof(*origins));
	origins[norigins] = (struct origin){ name, short_name, be, flag, false };
	return ORIGIN_CODE + (int)norigins++;
}

/* The block of backend be (allocated with its defaults the first time). */
static void *block_of(const struct backend *be)
{
	void *opt;

	for (size_t i = 0; i < nblocks; i++)
		if (blocks[i].be == be)
			return blocks[i].opt;
	opt = be->options_size ? xcalloc(1, be->options_size) : NULL;
	for (const struct backend_option *o = be->options; opt && o && o->name; o++)
		if (o->type != BOPT_FLAG && o->def)
			*(const char **)((char *)opt + o->offset) = o->def;
	blocks = xrealloc(blocks, (nblocks + 1) * sizeof(*blocks));
	blocks[nblocks++] = (struct block){ be, opt };
	return opt;
}

/* A popt table of a backend's options (or the file options) filling
 * block; it lives until exit (popt refers to it). */
static struct poptOption *popt_table_of(const struct backend_option *table, void *block,
					const struct backend *be, unsigned flag)
{
	size_t n = 0;
	struct poptOption *p;

	while (table[n].name)
		n++;
	p = xcalloc(n + 1, sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		const struct backend_option *o = &table[i];

		p[i] = (struct poptOption){
			.longName = o->name,
			.shortName = o->short_name,
			.argInfo = o->type == BOPT_FLAG ? POPT_ARG_NONE : POPT_ARG_STRING,
			.arg = (char *)block + o->offset,
			.val = add_origin(o->name, o->short_name, be, flag),
			.descrip = o->help,
			.argDescrip = o->type == BOPT_FLAG ? NULL : o->arg_name,
		};
	}
	return p;
}

static struct poptOption server_options[] = {
	{ "server", 0, POPT_ARG_STRING, &options.server, 0,
	  "the server: a name or address, optionally with :PORT ([ADDR]:PORT for IPv6); "
	  "tbench also takes it as its last argument", "HOST" },
	{ "port", 0, POPT_ARG_STRING, &text.port, 0,
	  "the server's port (default: the backend's)", "PORT" },
	POPT_TABLEEND
};

/* The tables several backends share: one is in the command line (and
 * --help) when a backend known to the run has its flag. */
static struct poptOption *shared_table(unsigned flag)
{
	static struct poptOption *files;

	if (flag == BACKEND_FILES) {
		if (!files)
			files = popt_table_of(nb_file_options, &files_opt, NULL, BACKEND_FILES);
		return files;
	}
	/* --port: also the default port of a network backend's own server
	 * option (smb's --smb-share) */
	if (!server_options[0].val)
		for (struct poptOption *o = server_options; o->longName; o++)
			o->val = add_origin(o->longName, o->shortName, NULL,
					    BACKEND_SERVER | (o->arg == &text.port ? BACKEND_NETWORK : 0));
	return server_options;
}

static const struct {
	unsigned flag;
	const char *title;
} shared_tables[] = {
	{ BACKEND_FILES, "File options" },
	{ BACKEND_SERVER, "Server options" },
};

/* dbench 4.0's options: 4.0 built dbench (fileio) and tbench (sockio) from
 * one option table, and 5.0 took every option with every backend, so
 * scripts give them to any backend (-D to tbench, -T to dbench, -D with
 * --mpi -B null ...).  Every backend takes them; one with no use for an
 * option makes nothing of it, as 4.0's and 5.0's did. */
static const char *const options_of_4_0[] = {
	"directory", "xattr", "no-resolve", "tcp-options", "sync", "sync-dir", "fsync",
	"one-byte-write-fix", "stat-check", "fake-io",
};

static bool takes_option(const struct backend *be, const struct origin *o)
{
	if (o->be ? strcmp(o->be->name, be->name) == 0 : (be->flags & o->flag) != 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(options_of_4_0); i++)
		if (strcmp(o->name, options_of_4_0[i]) == 0)
			return true;
	return false;
}

/* An option given for a backend that is not the one chosen is an error
 * (one line: the option and the backends it is for), not ignored. */
static void refuse_foreign(poptContext pc, const struct backend *be)
{
	for (size_t i = 0; i < norigins; i++) {
		const struct origin *o = &origins[i];
		char label[80], owners[256];
		size_t n = 0;
		int count = 0, total = 0;

		if (!o->given || takes_option(be, o))
			continue;
		if (o->short_name)
			snprintf(label, sizeof(label), "--%s (-%c)", o->name, o->short_name);
		else
			snprintf(label, sizeof(label), "--%s", o->name);
		if (o->be)
			usage_error(pc, "%s is an option of the %s backend, not of the %s backend", label,
				    o->be->name, be->name);
		backend_load_all();	/* to name every backend that takes it */
		for (const struct backend *const *b = backend_list(); *b; b++)
			total += ((*b)->flags & o->flag) != 0;
		owners[0] = '\0';
		for (const struct backend *const *b = backend_list(); *b && n < sizeof(owners); b++) {
			if (!((*b)->flags & o->flag))
				continue;
			count++;
			n += (size_t)snprintf(owners + n, sizeof(owners) - n, "%s%s",
					      count == 1 ? "" : count == total ? " and " : ", ", (*b)->name);
		}
		usage_error(pc, "%s is an option of the %s backend%s, not of the %s backend", label, owners,
			    total == 1 ? "" : "s", be->name);
	}
}

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

/* The popt table of this run: the core options, the shared ones that a
 * known backend takes, each known backend's, help.  Sized from the
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
							  shared_table(shared_tables[i].flag), 0,
							  title_for(titles[t++], sizeof(titles[0]),
								    shared_tables[i].title, shared_tables[i].flag),
							  NULL };
	}
	for (size_t j = 0; j < nbe; j++) {
		if (!be[j]->options || t >= ARRAY_SIZE(titles))
			continue;
		snprintf(titles[t], sizeof(titles[0]), "%s backend options (-B %s):", be[j]->name, be[j]->name);
		table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE,
						  popt_table_of(be[j]->options, block_of(be[j]), be[j], 0), 0,
						  titles[t++], NULL };
	}
	table[n++] = (struct poptOption){ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)help_options, 0,
					  "Help options:", NULL };
	table[n] = (struct poptOption)POPT_TABLEEND;
	return table;
}

/* The table the options chose (nfs: its NFSv4 variant), checked as a
 * loaded module is. */
static const struct backend *choose_variant(const struct backend *be, void *be_opt)
{
	const struct backend *chosen;
	char why[512];

	if (!be->variant)
		return be;
	chosen = be->variant(be_opt, why, sizeof(why));
	if (!chosen)
		die(EXIT_USAGE, "%s", why);
	if (chosen != be && backend_check(chosen, why, sizeof(why)) < 0)
		die(EXIT_USAGE, "the %s backend: %s", be->name, why);
	return chosen;
}

static void parse_or_exit(poptContext pc);
static void check_core_values(poptContext pc, const struct backend *be);
static void parse_arguments(poptContext pc, const struct backend *be);
static void derive_and_check(poptContext pc, const struct backend *be, void *be_opt);

const struct backend *options_parse(int argc, const char **argv, void **be_opt)
{
	/* the core's options; the backends' come from the registry (build_table) */
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
		  "clients run by each process (default 1): an asynchronous backend's (see Backends) keep "
		  "an op each in flight on one event loop, the others' take turns", "N" },
		{ "iodepth", 0, POPT_ARG_STRING, &text.iodepth, 0,
		  "ops each client keeps in flight, for a backend with a queue (see Backends; default 1, "
		  "at most 1024): an op the backend can queue beside those in flight (iscsi: READ and "
		  "WRITE of other blocks) goes out before they complete; anything else, SLEEP, WAITSP, "
		  "SETSP and the end of a pass wait until none is in flight", "N" },
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
	poptContext pc;

	options.argc = argc;
	options.argv = argv;
	if (argc > 0 && strstr(basename_of(argv[0]), "tbench"))
		options.progname = "tbench";
	util_set_progname(options.progname);
	options.backend = backend_default(strcmp(options.progname, "tbench") == 0);
	named = prescan(argc, argv, &help);
	if (help)
		backend_load_all();
	be = find_backend_or_exit(named ? named : options.backend);

	pc = poptGetContext(options.progname, argc, argv, build_table(core), 0);
	poptSetOtherOptionHelp(pc, strcmp(options.progname, "tbench") == 0 ?
				       "[OPTION...] NPROCS [SERVER[:PORT]]" : "[OPTION...] NPROCS");
	parse_or_exit(pc);
	/* -B hidden where the scan above did not see it (-sBnull) */
	if (strcmp(be->name, options.backend) != 0)
		be = find_backend_or_exit(options.backend);
	refuse_foreign(pc, be);
	*be_opt = block_of(be);
	if (be->flags & BACKEND_FILES)	/* the block starts with them (backend.h) */
		memcpy(*be_opt, &files_opt, sizeof(files_opt));
	be = choose_variant(be, *be_opt);
	options.be_opt = *be_opt;
	check_core_values(pc, be);
	parse_arguments(pc, be);
	derive_and_check(pc, be, *be_opt);
	poptFreeContext(pc);
	return be;
}

/* Parse the command line; --help, --usage and --version print and exit
 * here, a bad option is one line and exit 2. */
static void parse_or_exit(poptContext pc)
{
	int rc;

	while ((rc = poptGetNextOpt(pc)) > 0)
		if (rc >= ORIGIN_CODE && (size_t)(rc - ORIGIN_CODE) < norigins)
			origins[rc - ORIGIN_CODE].given = true;
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
}

/* The core's values: each checked and converted, one line naming the
 * option when it is bad. */
static void check_core_values(poptContext pc, const struct backend *be)
{
	int_option(pc, "-t", text.timelimit, &options.timelimit, 0, 100000000);
	int_option(pc, "--warmup", text.warmup, &options.warmup, 0, 100000000);
	int_option(pc, "--passes", text.passes, &options.passes, 1, INT32_MAX);
	int_option(pc, "--clients-per-process", text.cpp, &options.clients_per_process, 1, 100000);
	int_option(pc, "--iodepth", text.iodepth, &options.iodepth, 1, IODEPTH_MAX);
	if (options.iodepth > 1 && !be->queueable) {
		char names[256];

		backend_queue_names(names, sizeof(names));
		usage_error(pc, "--iodepth %d: the %s backend has no queue (one op a client in flight); "
			    "backends with one: %s", options.iodepth, be->name, names);
	}
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

}

/* NPROCS (or the counts of --sweep) and tbench's SERVER[:PORT]. */
static void parse_arguments(poptContext pc, const struct backend *be)
{
	const char *arg;

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

}

/* What follows from the values (clients, passes, warmup, the seed, the
 * loadfile), and the checks that need several of them or the backend:
 * -D, the outputs. */
static void derive_and_check(poptContext pc, const struct backend *be, void *be_opt)
{
	if (!options.server && (be->flags & BACKEND_SERVER) && be->default_server)
		options.server = be->default_server;	/* the report says which */
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
	if ((be->flags & BACKEND_DIRECTORY) && !options.check_loadfile) {
		const char *dir = backend_directory(be, be_opt), *abs = check_directory(pc, dir);

		if (abs != dir && !directory_is_default(be, dir))
			free((char *)dir);	/* popt's copy */
		backend_set_directory(be, be_opt, abs);
	}
	if (options.json && options.csv_series && strcmp(options.json, "-") == 0 &&
	    strcmp(options.csv_series, "-") == 0)
		usage_error(pc, "--json - and --csv-series - cannot both have stdout");
	check_output(pc, "--json", options.json);
	check_output(pc, "--csv-series", options.csv_series);
}
