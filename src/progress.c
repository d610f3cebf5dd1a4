/*
 * progress.c - the banner and the per-second progress lines; see
 * progress.h.
 *
 * The progress line keeps dbench 4.0's shape, because harnesses parse it:
 *   "%4d  %8d  %7.2f MB/sec  warmup|execute %3.0f sec  latency %.03f ms";
 * --machine-readable prints '@W@'/'@R@'/'@C@' lines instead.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "environment.h"
#include "mpi_run.h"
#include "options.h"
#include "progress.h"
#include "region_atomic.h"
#include "results.h"
#include "series.h"
#include "util.h"

void report_banner(const struct program *prog, const struct pass_figures *pass)
{
	if (options.machine_readable)
		return;
	printf("%s version %s - a netbench emulator (GPL-3.0-or-later)\n\n", options.progname,
	       PACKAGE_VERSION);
	/* dbench 4.0's sentence (scripts match "Running for N seconds"); a
	 * fixed-work run stops at its passes or at the time limit */
	printf("Running for %d seconds with load '%s' and minimum warmup %d secs", options.timelimit,
	       prog->filename, options.warmup);
	if (options.passes > 0)
		printf(", %d pass%s per client", options.passes, options.passes == 1 ? "" : "es");
	printf("\n");
	/* which loadfile: NB figures compare only between runs of the same one */
	printf("Loadfile %s: %s%llu operations per pass, sha256 %s\n", prog->filename,
	       pass->partial ? "at least " : "", (unsigned long long)pass->ops, prog->sha256);
	/* what the backend negotiated with its server (smb: dialect, signing) */
	environment_print_session(stdout);
	fflush(stdout);
}

/* ---- progress ---- */

void progress_init(struct progress_state *ps, const struct program *prog, struct shared *sh,
		   uint64_t release_ns, uint64_t measure_start_ns)
{
	memset(ps, 0, sizeof(*ps));
	ps->prog = prog;
	ps->sh = sh;
	ps->release_ns = release_ns;
	ps->measure_start_ns = measure_start_ns;
	ps->series = series_create(sh);
}

static enum phase current_phase(const struct progress_state *ps, uint64_t now, int running)
{
	uint64_t end = region_end(ps->sh);

	if (region_stopping(ps->sh) || now >= end + NSEC_PER_SEC / 2 || running == 0)
		return PHASE_CLEANUP;
	if (now < ps->measure_start_ns)
		return PHASE_WARMUP;
	return PHASE_EXECUTE;
}

void progress_tick(struct progress_state *ps, uint64_t now)
{
	struct shared *sh = ps->sh;
	uint64_t ops = 0, bytes_all = 0, bytes_measured = 0, latency = 0;
	uint64_t sec = (now - ps->release_ns + NSEC_PER_SEC / 2) / NSEC_PER_SEC;
	int running = 0, active = 0;
	uint64_t nclients = (uint64_t)sh->nclients;
	double t;
	enum phase phase;

	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);
		int state = slot_state(s);
		uint32_t id;
		uint64_t start = slot_op_in_flight(s, &id);

		ops += slot_get(&s->ops_all);
		bytes_all += slot_get(&s->bytes_all);
		bytes_measured += slot_get(&s->bytes_measured);
		if (state == SLOT_RUNNING)
			running++;
		if (state == SLOT_RUNNING || state == SLOT_CLEANUP)
			active++;
		if (sec > 0) {
			struct sec_stat last;

			if (sec_stat_read(&s->secs[(sec - 1) % SEC_RING], sec - 1, &last))
				latency = MAX(latency, last.max_ns);
		}
		if (start && now > start && state == SLOT_RUNNING)
			latency = MAX(latency, now - start);
	}
	if (mpi_on()) {
		/* the whole run's figures: every rank's, summed on rank 0
		 * (the phase is this rank's: the ranks started together) */
		struct mpi_figures f = { .running = (uint64_t)running, .active = (uint64_t)active,
					 .ops = ops, .bytes_all = bytes_all,
					 .bytes_measured = bytes_measured,
					 .clients = (uint64_t)sh->nclients,
					 .procs_running = (uint64_t)ps->procs_running,
					 .latency_ns = latency,
					 .died_client = (uint64_t)ps->died_client,
					 .died_signal = (uint64_t)ps->died_signal };

		mpi_exchange(&f);
		ps->procs_running_all = f.procs_running;
		ps->stop_all = f.died_client != 0;
		nclients = f.clients;
		ops = f.ops;
		bytes_all = f.bytes_all;
		bytes_measured = f.bytes_measured;
		latency = f.latency_ns;
		phase = current_phase(ps, now, (int)f.running);
		running = (int)f.running;
		active = (int)f.active;
	} else {
		phase = current_phase(ps, now, running);
	}
	/* the second that just ended decides warmup or execute */
	if (phase == PHASE_EXECUTE && now - ps->release_ns < ps->measure_start_ns - ps->release_ns + NSEC_PER_SEC / 2)
		phase = PHASE_WARMUP;
	if (phase == PHASE_CLEANUP) {
		t = (double)(now - (now > ps->measure_start_ns ? ps->measure_start_ns : ps->release_ns)) / 1e9;
		if (options.machine_readable)	/* dbench 4.0's five fields; no latency in cleanup */
			printf("@C@%d@%llu@%.2f@%u@%.03f@\n", active,
			       (unsigned long long)(ops / (uint64_t)sh->nclients),
			       t > 0 ? (double)bytes_measured / 1e6 / t : 0, (unsigned)t, 0.0);
		else
			printf("%4d  cleanup %3.0f sec\n", active, t);
	} else {
		bool warm = phase == PHASE_WARMUP;
		uint64_t base = warm ? ps->release_ns : ps->measure_start_ns;
		double mbps;

		t = (double)(now - base) / 1e9;
		mbps = t > 0 ? (double)(warm ? bytes_all : bytes_measured) / 1e6 / t : 0;
		if (options.machine_readable)	/* seconds truncated, as dbench 4.0 */
			printf("@%c@%d@%llu@%.2f@%u@%.03f@\n", warm ? 'W' : 'R', running,
			       (unsigned long long)(ops / nclients), mbps, (unsigned)t,
			       (double)latency / 1e6);
		else
			printf("%4d  %8llu  %7.2f MB/sec  %s %3.0f sec  latency %.03f ms\n", running,
			       (unsigned long long)(ops / nclients), mbps,
			       phase_name[phase], t, (double)latency / 1e6);
	}
	fflush(stdout);
	series_tick(ps->series, now);
}

void progress_finish(struct progress_state *ps)
{
	struct shared *sh = ps->sh;
	uint64_t now = now_ns(), ops = 0, bytes = 0;
	double t = now > ps->measure_start_ns ? (double)(now - ps->measure_start_ns) / 1e9 : 0;
	int left = 0;

	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);
		int state = slot_state(s);

		ops += slot_get(&s->ops_all);
		bytes += slot_get(&s->bytes_measured);
		if (state != SLOT_DONE && state != SLOT_FAILED)
			left++;
	}
	if (options.machine_readable)	/* the real seconds, as every @C@ line */
		printf("@C@%d@%llu@%.2f@%u@%.03f@\n", left, (unsigned long long)(ops / (uint64_t)sh->nclients),
		       t > 0 ? (double)bytes / 1e6 / t : 0, (unsigned)t, 0.0);
	else
		printf("%4d  cleanup %3.0f sec\n", left, t);
	series_finish(ps->series);
}

void machine_stdout_prepare(void)
{
	bool json_out = options.json && strcmp(options.json, "-") == 0;
	bool series_out = options.csv_series && strcmp(options.csv_series, "-") == 0;

	if (!json_out && !series_out)
		return;
	fflush(stdout);
	options.stdout_fd = dup(STDOUT_FILENO);
	if (options.stdout_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		die(EXIT_USAGE, "cannot move the human output to stderr: %s", strerror(errno));
}
