/*
 * dbench.c - main: options -> load -> run -> report.
 *
 * dbench and tbench are the same program: tbench is dbench with the sockio
 * backend and a SERVER argument (chosen by the name it is run under).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "loadfile.h"
#include "options.h"
#include "pass.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "runs.h"
#include "series.h"
#include "stats.h"
#include "util.h"

static void print_check(const struct program *prog, const struct backend *be)
{
	struct pass_stats ps;

	pass_run(prog, &options, PASS_MAX_STEPS, &ps);
	printf("Loadfile %s: %llu lines, %u program entries, crc32 %08x\n", prog->filename,
	       (unsigned long long)prog->lines, prog->nops, prog->crc32);
	printf("Backend %s: every operation is supported\n", be->name);
	printf("\nOne pass of client 0:\n");
	printf(" %-24s %10s %7s\n", "Operation", "Count", "%");
	for (int id = 0; id < OP_COUNT; id++) {
		if (!ps.ops[id])
			continue;
		printf(" %-24s %10llu %6.2f%%\n", op_info[id].name, (unsigned long long)ps.ops[id],
		       100.0 * (double)ps.ops[id] / (double)ps.total_ops);
	}
	printf(" %-24s %10llu\n", "total", (unsigned long long)ps.total_ops);
	if (ps.truncated)
		printf("(the walk stopped after %llu steps: one pass is longer, or endless;\n"
		       " the figures cover its start)\n", (unsigned long long)ps.steps);
	printf("\nBytes read:     %llu (%.1f MB)\n", (unsigned long long)ps.bytes_read,
	       (double)ps.bytes_read / 1e6);
	printf("Bytes written:  %llu (%.1f MB)\n", (unsigned long long)ps.bytes_written,
	       (double)ps.bytes_written / 1e6);
	printf("Bytes per op:   %.0f\n",
	       ps.total_ops ? (double)(ps.bytes_read + ps.bytes_written) / (double)ps.total_ops : 0);
	printf("Files touched:  %llu distinct paths\n", (unsigned long long)ps.paths);
	if (prog->timestamps)
		printf("Duration:       %.3f sec (by the timestamps)\n", (double)ps.duration_ns / 1e9);
	printf("Netbench scale: %g\n", prog->nbscale);
	printf("Stats per client: %.1f KiB of shared memory (%u operations in use)\n",
	       (double)slot_size_for(prog) / 1024, prog->nstats);
}

/* The results of a single run, rendered: the text report and the JSON
 * document.  Returns the exit status. */
static int report(const struct results *r)
{
	int status = r->exit_status;

	report_final(stdout, stderr, r,
		     (options.machine_readable ? REPORT_MACHINE_READABLE : 0) |
		     (options.per_client_results ? REPORT_PER_CLIENT : 0) |
		     (options.latency_report ? REPORT_LATENCY : 0));
	if (options.json && results_write_json(r, options.json, options.stdout_fd) < 0 && status == 0)
		status = EXIT_RUN_FAILED;
	return status;
}

int main(int argc, const char **argv)
{
	const struct backend *be;
	char why[512];
	struct program *prog;
	struct run_set set;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	options_parse(argc, argv);
	be = backend_find(options.backend, why, sizeof(why));	/* found by options_parse */
	prog = program_load_max(options.loadfile, options.max_loadfile, stderr);
	if (!prog)
		return EXIT_USAGE;
	if (program_check_backend(prog, be, stderr) < 0 ||
	    program_check_scsi_writes(prog, options.allow_scsi_writes, stderr) < 0) {
		program_free(prog);
		return EXIT_USAGE;
	}
	if (options.check_loadfile) {
		print_check(prog, be);
		program_free(prog);
		return 0;
	}
	if (be->init && be->init(&options) < 0) {
		program_free(prog);
		return EXIT_USAGE;
	}
	machine_stdout_prepare();
	report_banner(prog);
	/* one run, or --repeat's runs: see runs.h */
	run_series(prog, be, &(struct run_plan){
		.max_runs = MAX(options.repeat, 1),
		.until_ci_pct = options.repeat_until_ci,
		.min_runs = 3,
		.quiet = options.repeat <= 1 }, &set);
	if (options.repeat <= 1) {
		status = set.nruns ? report(&set.run[0]) : set.status;
	} else {
		run_set_report(stdout, &set);
		status = set.status;
		if (options.json && set.nruns &&
		    run_set_write_json(&set, options.json, options.stdout_fd) < 0 && status == 0)
			status = EXIT_RUN_FAILED;
	}
	run_set_free(&set);
	program_free(prog);
	return status;
}
