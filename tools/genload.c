/*
 * genload.c - the project's own default loadfile generator (see
 * genload.h): its options, the header comment of the loadfile it writes
 * and the achieved mix it reports.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "genload.h"

/* The classic trace's share of each operation, in hundredths of a percent. */
static const int op_target_bp[K_COUNT] = {
	2710, 1729, 1567, 1270, 862, 606, 349, 287, 275, 141, 121, 73, 6, 6,
	0, 0, 0,
};

/* ---- output ---- */

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The header: the model in brief and what this pass holds. */
static void write_header(FILE *out, const struct gen *gen,
			 const struct genload_options *opts)
{
	static const char *const model[] = {
		"",
		"One Windows client working on a share, one session a pass, in its own",
		"directory \\clients\\client1 (the loader names it per client).  The pass",
		"starts clean (Deltree, Mkdir \\clients, the client directory created),",
		"builds \\OFFICE with a folder per application (Word, Excel, PowerPoint,",
		"Visio, Project, Notepad, Access, Outlook), copies documents in, then runs",
		"user sessions chosen at random: view (lookups, owner-file probe, open,",
		"read, close), edit and save the way each application saves (Word: temp,",
		"original -> ~WRL backup, temp -> original, delete backup; Excel, Project,",
		"PowerPoint, Visio: temp, delete original, rename; Notepad: overwrite),",
		"new documents, Explorer browse/copy/delete, Access database page I/O",
		"with lock file and LockX/UnlockX pairs, Outlook PST page I/O and saved",
		"attachments, application start-up probes of absent files and folders,",
		"a scratch folder and a delete-on-close temp, searches for leftovers.",
		"I/O is in 64 KiB and smaller pieces, odd sizes, 1-byte patches at odd",
		"offsets.  It ends with the tree removed (Deltree).",
		"",
		"Every expected status follows from a model of the client's tree (files",
		"with sizes, directories, open handles, locks): absent names give",
		"NT_STATUS_OBJECT_NAME_NOT_FOUND, absent folders",
		"NT_STATUS_OBJECT_PATH_NOT_FOUND, searches without a match",
		"NT_STATUS_NO_SUCH_FILE, reads at end of file NT_STATUS_END_OF_FILE.",
		"Handles are the lowest free number from 4097; a failed NTCreateX names",
		"the number the next open gets.",
	};
	uint64_t moved = gen->bytes_read + gen->bytes_written;

	fprintf(out, "# dbench loadfile made by: genload --seed %" PRIu64
		" --ops %lu\n# (do not edit; `make loadfiles` makes the shipped one again)\n",
		opts->seed, opts->ops);
	for (size_t i = 0; i < sizeof(model) / sizeof(model[0]); i++)
		fprintf(out, "#%s%s\n", model[i][0] ? " " : "", model[i]);
	fprintf(out, "#\n# %" PRIu64 " operations, %" PRIu64 " bytes read, %"
		PRIu64 " bytes written (%.0f bytes an operation)\n",
		gen->total_ops, gen->bytes_read, gen->bytes_written,
		(double)moved / (double)gen->total_ops);
	fprintf(out, "#\n# %-24s %6s %7s\n", "operation", "count", "share");
	for (int k = 0; k < K_COUNT; k++)
		fprintf(out, "# %-24s %6" PRIu64 " %6.2f%%\n", gl_op_names[k],
			gen->op_count[k],
			percent(gen->op_count[k], gen->total_ops));
	fprintf(out, "#\n");
}

/* The -v report: counts, shares against the targets, bytes. */
static void report(const struct gen *gen)
{
	fprintf(stderr, "%-24s %8s %7s %7s\n", "operation", "count", "share",
		"target");
	for (int k = 0; k < K_COUNT; k++)
		fprintf(stderr, "%-24s %8" PRIu64 " %6.2f%% %6.2f%%\n",
			gl_op_names[k], gen->op_count[k],
			percent(gen->op_count[k], gen->total_ops),
			op_target_bp[k] / 100.0);
	for (int s = 0; s < ST_COUNT; s++)
		fprintf(stderr, "%-34s %8" PRIu64 "\n", gl_status_names[s],
			gen->status_count[s]);
	fprintf(stderr, "operations %" PRIu64 ", read %" PRIu64 " bytes, written %"
		PRIu64 " bytes, read/written %.2f, %.0f bytes an operation\n",
		gen->total_ops, gen->bytes_read, gen->bytes_written,
		gen->bytes_written ? (double)gen->bytes_read /
				     (double)gen->bytes_written : 0.0,
		(double)(gen->bytes_read + gen->bytes_written) /
		(double)gen->total_ops);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: genload [-s SEED] [-n OPS] [-o FILE] [-v]\n"
		"Write dbench's default loadfile (one pass of a generated office session).\n"
		"  -s, --seed N     seed of the generator (default %d)\n"
		"  -n, --ops N      operations a pass aims at, 500..10000000 (default %d)\n"
		"  -o, --output F   write to F instead of standard output\n"
		"  -v, --verbose    print the operation mix and bytes moved to stderr\n"
		"  -h, --help       this help\n",
		DEFAULT_SEED, DEFAULT_OPS);
}

static uint64_t parse_number(const char *option, const char *text,
			     uint64_t min, uint64_t max)
{
	unsigned long long value;
	char *end;

	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' ||
	    value < min || value > max)
		gl_die("%s wants a whole number from %" PRIu64 " to %" PRIu64
		    ", not '%s'", option, min, max, text);
	return value;
}

static void parse_options(int argc, char **argv, struct genload_options *opts)
{
	static const struct option long_options[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	opts->seed = DEFAULT_SEED;
	opts->ops = DEFAULT_OPS;
	opts->output = NULL;
	opts->verbose = false;
	while ((c = getopt_long(argc, argv, "s:n:o:vh", long_options, NULL)) != -1) {
		switch (c) {
		case 's':
			opts->seed = parse_number("--seed", optarg, 0, UINT64_MAX);
			break;
		case 'n':
			opts->ops = parse_number("--ops", optarg, 500, 10000000);
			break;
		case 'o':
			opts->output = optarg;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			gl_die("unknown option or missing value: %s (see --help)",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		gl_die("unexpected argument '%s' (see --help)", argv[optind]);
}

int main(int argc, char **argv)
{
	struct genload_options opts;
	struct gen gen;
	char *body = NULL;
	size_t body_len = 0;
	FILE *out = stdout;

	parse_options(argc, argv, &opts);
	memset(&gen, 0, sizeof(gen));
	gen.rng = opts.seed;
	gen.pst = -1;
	gen.watch = -1;
	gen.out = open_memstream(&body, &body_len);
	if (!gen.out)
		gl_die("out of memory");
	gl_generate_pass(&gen, opts.ops);
	if (fclose(gen.out) != 0)
		gl_die("out of memory");

	if (opts.output) {
		out = fopen(opts.output, "w");
		if (!out)
			gl_die("cannot create %s: %s", opts.output, strerror(errno));
	}
	write_header(out, &gen, &opts);
	fwrite(body, 1, body_len, out);
	if (ferror(out) || (out != stdout && fclose(out) != 0) ||
	    (out == stdout && fflush(out) != 0)) {
		if (opts.output)
			remove(opts.output);
		gl_die("cannot write %s: %s", opts.output ? opts.output : "output",
		    strerror(errno));
	}
	if (opts.verbose)
		report(&gen);
	free(body);
	free(gen.nodes);
	return 0;
}
