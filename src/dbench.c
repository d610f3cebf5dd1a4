/*
 * dbench.c - main: options -> load -> run -> report.
 *
 * dbench and tbench are the same program: tbench is dbench with the sockio
 * backend and a SERVER argument (chosen by the name it is run under).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "json_report.h"
#include "loadfile.h"
#include "mpi_run.h"
#include "options.h"
#include "pass.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "repeat.h"
#include "series.h"
#include "signals.h"
#include "region.h"
#include "sweep.h"
#include "util.h"

static void print_check(const struct program *prog, const struct backend *be)
{
	struct pass_stats ps;

	pass_run(prog, &options, PASS_MAX_STEPS, &ps);
	printf("Loadfile %s: %llu lines, %u program entries, crc32 %08x\n", prog->filename,
	       (unsigned long long)prog->lines, prog->nops, prog->crc32);
	printf("sha256 %s\n", prog->sha256);
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

/* ---- the report on stdout must reach it ---- */

/* A standard descriptor closed when dbench starts (dbench >&-) is held by
 * /dev/null opened read-only: no file dbench opens takes its number (and
 * gets the report written into it), and a write to it fails as on a closed
 * descriptor (EBADF). */
static void hold_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDONLY) != fd)
			_exit(EXIT_USAGE);	/* cannot happen: the lowest free number is fd */
}

static pid_t main_pid;
static bool stdout_told;

/* Flush stdout; the status the run ends with if what was printed did not
 * all reach it (status 0 becomes 1, or 141 for a reader that went away
 * with SIGPIPE caught), said once in one line as coreutils do. */
static int stdout_status(int status)
{
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;

	if (!failed)
		return status;
	if (!stdout_told && !(e == EPIPE && signals_parent_seen() == SIGPIPE))
		fprintf(stderr, "%s: write error: %s\n", options.progname, strerror(e));
	stdout_told = true;
	if (status == 0)
		status = e == EPIPE && signals_parent_seen() == SIGPIPE ? 128 + SIGPIPE : EXIT_RUN_FAILED;
	return status;
}

/* At exit (on_exit: every exit of the dbench process, not its clients'):
 * the report that could not be written makes the exit status non-zero. */
static void check_stdout_at_exit(int status, void *arg)
{
	int now;

	(void)arg;
	if (getpid() != main_pid)
		return;
	now = stdout_status(status);
	if (fclose(stdout) != 0 && now == 0 && errno != EBADF)
		now = stdout_status(EXIT_RUN_FAILED);
	if (now != status)
		_exit(now);
}

/* The results of a single run, rendered: the text report and the JSON
 * document.  Returns the exit status. */
static int report(const struct results *r)
{
	int status = r->exit_status;

	if (mpi_rank() != 0)	/* --mpi: rank 0 reports the merged run */
		return status;
	report_final(stdout, stderr, r,
		     (options.machine_readable ? REPORT_MACHINE_READABLE : 0) |
		     (options.per_client_results ? REPORT_PER_CLIENT : 0) |
		     (options.latency_report ? REPORT_LATENCY : 0));
	mpi_host_lines(stdout);	/* --mpi: one line per rank */
	status = stdout_status(status);	/* the document says so too */
	if (options.json) {
		json_t *doc = results_to_json(r);

		json_object_set_new(doc, "exit_status", json_integer(status));
		mpi_json_add(doc);
		if (json_write_document(doc, options.json, options.stdout_fd, false) < 0 && status == 0)
			status = EXIT_RUN_FAILED;
	}
	return status;
}

/* One run, or --repeat's runs (see repeat.h). */
static struct run_plan run_plan_of_options(void)
{
	return (struct run_plan){
		.max_runs = MAX(options.repeat, 1),
		.until_ci_pct = options.repeat_until_ci,
		.min_runs = 3,
		.quiet = options.repeat <= 1,
	};
}

/* --sweep: each count in turn (sweep.h), the table, the document. */
static int sweep_main(const struct program *prog, const struct backend *be, const void *be_opt)
{
	struct run_plan plan = run_plan_of_options();
	struct sweep sw;
	int status;

	sweep_run(prog, be, be_opt, &plan, &sw);
	if (!sw.npoints)
		run_exit_hook(sw.status ? sw.status : EXIT_USAGE, "no run was made");
	set_exit_hook(NULL);
	sweep_report(stdout, &sw);
	status = sw.status = stdout_status(sw.status);
	if (options.json && sw.npoints && sweep_write_json(&sw, options.json, options.stdout_fd) < 0 &&
	    status == 0)
		status = EXIT_RUN_FAILED;
	sweep_free(&sw);
	return status;
}

/* The backend's init and its check of the loadfile, told what they may
 * know of the run (backend.h). */
static int init_backend(const struct backend *be, void *be_opt, const struct program *prog)
{
	struct run_info run = {
		.progname = options.progname,
		.server = options.server,
		.port = options.port,
		.nclients = options.nclients,
		.trunc_io = options.trunc_io,
	};

	if (be->init && be->init(be_opt, &run) < 0)
		return -1;
	return be->check_program ? be->check_program(prog, be_opt, &run) : 0;
}

/* Every exit without results leaves a --json document saying why, so
 * that an old file at that path is never read as this run's result. */
static void json_error_hook(int status, const char *message)
{
	if (options.json)
		results_write_error_json(options.json, options.stdout_fd, options.progname, options.argc,
					 options.argv, status, message);
}

/* Messages printed to stderr between capture_begin() and capture_end()
 * are printed as they were, and the first line (without "progname: ") is
 * kept for the error document. */
struct capture {
	int saved;	/* the real stderr, -1 if not capturing */
	int fd;		/* a memfd holding what was printed */
};

static void capture_begin(struct capture *cap)
{
	fflush(stderr);
	cap->saved = -1;
	cap->fd = memfd_create("dbench-stderr", MFD_CLOEXEC);
	if (cap->fd < 0)
		return;
	cap->saved = dup(STDERR_FILENO);
	if (cap->saved < 0 || dup2(cap->fd, STDERR_FILENO) < 0) {
		close(cap->fd);
		if (cap->saved >= 0)
			close(cap->saved);
		cap->saved = -1;
	}
}

/* echo: print what was captured (with --mpi, only rank 0 prints, the
 * first failing rank's message: mpi_agree) */
static void capture_end(struct capture *cap, char *first, size_t len, bool echo)
{
	char buf[4096];
	size_t have = 0;
	ssize_t n;

	snprintf(first, len, "an error (see stderr)");
	if (cap->saved < 0)
		return;
	fflush(stderr);
	dup2(cap->saved, STDERR_FILENO);
	close(cap->saved);
	lseek(cap->fd, 0, SEEK_SET);
	while ((n = read(cap->fd, buf, sizeof(buf))) > 0) {
		if (have == 0) {
			size_t line = strcspn(buf, "\n");
			size_t skip = strlen(options.progname);

			if (line > (size_t)n)
				line = (size_t)n;
			if (line > skip + 2 && memcmp(buf, options.progname, skip) == 0 && buf[skip] == ':')
				skip += 2;
			else
				skip = 0;
			snprintf(first, len, "%.*s", (int)(line - skip), buf + skip);
		}
		have += (size_t)n;
		if (echo && write_all(STDERR_FILENO, buf, (size_t)n) < 0)
			break;
	}
	close(cap->fd);
}

/* --mpi: did every rank get this far?  One that did not has said why (rank
 * 0 prints the first such message: mpi_agree); then every rank stops. */
static struct program *all_ranks_ok(struct program *prog, char *message, size_t len)
{
	if (mpi_on() && mpi_agree(prog != NULL, message) < 0 && prog) {
		snprintf(message, len, "another rank failed to start (see its message)");
		program_free(prog);
		prog = NULL;
	}
	return prog;
}

int main(int argc, const char **argv)
{
	const struct backend *be;
	void *be_opt;
	struct program *prog;
	struct run_set set;
	struct run_plan plan;
	struct pass_figures pass;
	struct pass_stats ps;
	struct capture cap;
	char message[600];
	int status;

	hold_closed_std_fds();
	main_pid = getpid();
	on_exit(check_stdout_at_exit, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	set_exit_hook(json_error_hook);
	be = options_parse(argc, argv, &be_opt);
	signals_catch_stop();	/* from here a stop signal is told and documented */
	if (options.mpi)
		mpi_start();
	capture_begin(&cap);
	prog = program_load_max(options.loadfile, options.max_loadfile, stderr);
	if (prog && (program_check_backend(prog, be, stderr) < 0 ||
		     program_check_scsi_writes(prog, options.allow_scsi_writes, stderr) < 0)) {
		program_free(prog);
		prog = NULL;
	}
	/* (a read a stop signal cut short is not told: the signal is) */
	capture_end(&cap, message, sizeof(message), (!mpi_on() || mpi_rank() == 0) && !signals_parent_seen());
	if (signals_parent_seen()) {
		/* (a loadfile read it cut short failed for that reason) */
		snprintf(message, sizeof(message), "stopped by signal %d (%s) before the run started",
			 signals_parent_seen(), strsignal(signals_parent_seen()));
		fprintf(stderr, "%s: %s\n", options.progname, message);
		if (prog)
			program_free(prog);
		prog = NULL;
	}
	prog = all_ranks_ok(prog, message, sizeof(message));
	if (prog) {
		int rc = 0;

		capture_begin(&cap);
		if (!options.check_loadfile && init_backend(be, be_opt, prog) < 0)
			rc = -1;
		capture_end(&cap, message, sizeof(message), !mpi_on() || mpi_rank() == 0);
		if (rc < 0) {
			program_free(prog);
			prog = NULL;
		}
		prog = all_ranks_ok(prog, message, sizeof(message));
	}
	/* --mpi: every rank runs the same benchmark (rank 0 says how they
	 * differ), before any client starts */
	if (prog && mpi_on() && mpi_same(prog, be, message, sizeof(message)) < 0) {
		program_free(prog);
		prog = NULL;
	}
	if (!prog) {
		status = signals_parent_seen() ? 128 + signals_parent_seen() : EXIT_USAGE;
		run_exit_hook(status, message);
		mpi_finish();
		return status;
	}
	if (options.check_loadfile) {
		set_exit_hook(NULL);	/* not a run: no document */
		print_check(prog, be);
		program_free(prog);
		mpi_finish();
		return 0;
	}
	/* what one pass is, for the banner: a harness that relies on the
	 * default loadfile sees which one it got */
	pass_run(prog, &options, PASS_MAX_STEPS, &ps);
	pass_figures_of(&ps, &pass);
	machine_stdout_prepare();
	report_banner(prog, &pass);
	mpi_banner();
	if (options.nsweep) {
		status = sweep_main(prog, be, be_opt);
		program_free(prog);
		mpi_finish();
		return status;
	}
	/* one run, or --repeat's runs: see repeat.h */
	plan = run_plan_of_options();
	run_series(prog, be, be_opt, &plan, &set);
	if (!set.nruns)	/* run_one wrote why, unless there was no run at all */
		run_exit_hook(set.status ? set.status : EXIT_USAGE, "no run was made");
	set_exit_hook(NULL);	/* from here the results document is written */
	if (options.repeat <= 1) {
		status = set.nruns ? report(&set.run[0]) : set.status;
	} else {
		run_set_report(stdout, &set);
		if (run_set_has_ranks(&set)) {	/* --mpi: each run's ranks */
			run_set_rank_header(stdout, false);
			run_set_rank_lines(stdout, &set, 0);
		}
		status = set.status = stdout_status(set.status);
		if (options.json && set.nruns &&
		    run_set_write_json(&set, options.json, options.stdout_fd) < 0 && status == 0)
			status = EXIT_RUN_FAILED;
	}
	run_set_free(&set);
	program_free(prog);
	mpi_finish();
	return status;
}
