/*
 * report.c - progress lines and the final report.
 *
 * The human output keeps dbench 4.0's shape, because harnesses parse it,
 * some by field position: the progress line
 *   "%4d  %8d  %7.2f MB/sec  warmup|execute %3.0f sec  latency %.03f ms",
 * the op table " %-12s %7u %9.03f %9.03f", and as the very last line
 *   "Throughput %g MB/sec  %d clients  %d procs  max_latency=%.03f ms".
 * --machine-readable prints only '@W@'/'@R@'/'@C@' progress lines,
 * ':op:count:avg:max:' lines and ';throughput;clients;procs;maxlat;'.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "json_report.h"
#include "latency.h"
#include "report.h"
#include "run.h"
#include "series.h"
#include "util.h"

const char *const phase_name[] = {
	[PHASE_WARMUP] = "warmup",
	[PHASE_EXECUTE] = "execute",
	[PHASE_CLEANUP] = "cleanup",
};

void report_banner(const struct program *prog)
{
	if (options.machine_readable)
		return;
	printf("%s version %s - a netbench emulator (GPL-3.0-or-later)\n\n", options.progname,
	       PACKAGE_VERSION);
	if (options.passes > 0)
		printf("Running %d pass%s with load '%s' and minimum warmup %d secs\n", options.passes,
		       options.passes == 1 ? "" : "es", prog->filename, options.warmup);
	else
		printf("Running for %d seconds with load '%s' and minimum warmup %d secs\n",
		       options.timelimit, prog->filename, options.warmup);
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
	uint64_t end = STAT_LOAD(ps->sh->measure_end_ns);

	if (STAT_LOAD(ps->sh->stop) || now >= end + NSEC_PER_SEC / 2 || running == 0)
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
	double t;
	enum phase phase;

	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);
		int state = STAT_LOAD(s->state);
		uint64_t start = STAT_LOAD(s->op_start_ns);

		ops += STAT_LOAD(s->ops_all);
		bytes_all += STAT_LOAD(s->bytes_all);
		bytes_measured += STAT_LOAD(s->bytes_measured);
		if (state == SLOT_RUNNING)
			running++;
		if (state == SLOT_RUNNING || state == SLOT_CLEANUP)
			active++;
		if (sec > 0) {
			const struct sec_stat *ss = &s->secs[(sec - 1) % SEC_RING];

			if (__atomic_load_n(&ss->sec, __ATOMIC_ACQUIRE) == sec - 1)
				latency = MAX(latency, STAT_LOAD(ss->max_ns));
		}
		if (start && now > start && state == SLOT_RUNNING)
			latency = MAX(latency, now - start);
	}
	phase = current_phase(ps, now, running);
	/* the second that just ended decides warmup or execute */
	if (phase == PHASE_EXECUTE && now - ps->release_ns < ps->measure_start_ns - ps->release_ns + NSEC_PER_SEC / 2)
		phase = PHASE_WARMUP;
	if (phase == PHASE_CLEANUP) {
		t = (double)(now - (now > ps->measure_start_ns ? ps->measure_start_ns : ps->release_ns)) / 1e9;
		if (options.machine_readable)
			printf("@C@%d@%.0f@\n", active, t);
		else
			printf("%4d  cleanup %3.0f sec\n", active, t);
	} else {
		bool warm = phase == PHASE_WARMUP;
		uint64_t base = warm ? ps->release_ns : ps->measure_start_ns;
		double mbps;

		t = (double)(now - base) / 1e9;
		mbps = t > 0 ? (double)(warm ? bytes_all : bytes_measured) / 1e6 / t : 0;
		if (options.machine_readable)
			printf("@%c@%d@%llu@%.2f@%.0f@%.03f@\n", warm ? 'W' : 'R', running,
			       (unsigned long long)(ops / (uint64_t)sh->nclients), mbps, t,
			       (double)latency / 1e6);
		else
			printf("%4d  %8llu  %7.2f MB/sec  %s %3.0f sec  latency %.03f ms\n", running,
			       (unsigned long long)(ops / (uint64_t)sh->nclients), mbps,
			       phase_name[phase], t, (double)latency / 1e6);
	}
	fflush(stdout);
	series_tick(ps->series, now);
}

void progress_finish(struct progress_state *ps)
{
	struct shared *sh = ps->sh;
	int left = 0;

	for (int i = 0; i < sh->nclients; i++) {
		int state = STAT_LOAD(shared_slot(sh, i)->state);

		if (state != SLOT_DONE && state != SLOT_FAILED)
			left++;
	}
	if (options.machine_readable)
		printf("@C@%d@%.0f@\n", left, 0.0);
	else
		printf("%4d  cleanup %3.0f sec\n", left,
		       (double)(now_ns() - ps->measure_start_ns) / 1e9 > 0 ?
		       (double)(now_ns() - ps->measure_start_ns) / 1e9 : 0);
	series_finish(ps->series);
}

/* ---- the final report ---- */

static void op_table(const struct program *prog, const struct op_total *tot)
{
	if (options.machine_readable) {
		for (unsigned k = 0; k < prog->nstats; k++) {
			const struct op_total *t = &tot[k];

			if (!t->count)
				continue;
			printf(":%s:%llu:%.03f:%.03f:\n", op_info[prog->stat_op[k]].display,
			       (unsigned long long)t->count, (double)t->total_ns / (double)t->count / 1e6,
			       (double)t->max_ns / 1e6);
		}
		return;
	}
	printf(" Operation      Count    AvgLat    MaxLat\n");
	printf(" ----------------------------------------\n");
	for (unsigned k = 0; k < prog->nstats; k++) {
		const struct op_total *t = &tot[k];

		if (!t->count)
			continue;
		printf(" %-12s %7llu %9.03f %9.03f\n", op_info[prog->stat_op[k]].display,
		       (unsigned long long)t->count, (double)t->total_ns / (double)t->count / 1e6,
		       (double)t->max_ns / 1e6);
	}
	printf("\n");
}

static void per_client(const struct program *prog, struct shared *sh)
{
	struct op_total *tot = xcalloc(prog->nstats, sizeof(*tot));

	printf("Per client results:\n");
	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);

		for (unsigned k = 0; k < prog->nstats; k++) {
			op_total_init(&tot[k]);
			op_total_add(&tot[k], &s->ops[k]);
		}
		printf("Client %d did %llu lines and %llu bytes in %llu passes\n", i,
		       (unsigned long long)s->ops_measured, (unsigned long long)s->bytes_measured,
		       (unsigned long long)s->passes);
		op_table(prog, tot);
	}
	free(tot);
}

/* The clients' own cost (CPU from release to the end of their runs) and,
 * for network backends, the bytes on the wire; both over all phases, so
 * given per op of all phases. */
void client_resources(const struct shared *sh, struct client_resources *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < sh->nclients; i++) {
		const struct slot *s = shared_slot(sh, i);

		r->user_ns += s->cpu_user_ns;
		r->sys_ns += s->cpu_sys_ns;
		r->net_sent += s->net_sent;
		r->net_received += s->net_received;
		r->ops += s->ops_all;
	}
}

static void client_resources_lines(const struct shared *sh)
{
	struct client_resources r;
	double per = 0;

	client_resources(sh, &r);
	if (r.ops)
		per = 1.0 / (double)r.ops;
	printf("Client CPU: user %.3f s, system %.3f s for %llu ops in all phases (%.2f + %.2f us per op)\n",
	       (double)r.user_ns / 1e9, (double)r.sys_ns / 1e9, (unsigned long long)r.ops,
	       (double)r.user_ns / 1e3 * per, (double)r.sys_ns / 1e3 * per);
	if (r.net_sent || r.net_received)
		printf("Network: %llu bytes sent, %llu received (%.0f + %.0f per op)\n",
		       (unsigned long long)r.net_sent, (unsigned long long)r.net_received,
		       (double)r.net_sent * per, (double)r.net_received * per);
}

int report_final(const struct program *prog, const struct backend *be, struct shared *sh,
		 const struct run_result *res)
{
	struct op_total *tot = xcalloc(prog->nstats ? prog->nstats : 1, sizeof(*tot));
	struct result_totals totals;
	uint64_t bytes = 0, ops = 0, mismatches = 0, maxlat = 0;
	uint64_t pmin = UINT64_MAX, pmax = 0, ptotal = 0;
	double window = run_window(res), tput;
	int status = 0;

	for (unsigned k = 0; k < prog->nstats; k++)
		op_total_init(&tot[k]);
	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);

		for (unsigned k = 0; k < prog->nstats; k++)
			op_total_add(&tot[k], &s->ops[k]);
		pmin = MIN(pmin, s->passes);
		pmax = MAX(pmax, s->passes);
		ptotal += s->passes;
	}
	for (unsigned k = 0; k < prog->nstats; k++) {
		bytes += tot[k].bytes;
		ops += tot[k].count;
		mismatches += tot[k].mismatches;
		maxlat = MAX(maxlat, tot[k].max_ns);
	}
	tput = window > 0 ? (double)bytes / 1e6 / window : 0;

	if (!options.machine_readable)
		printf("\n");
	op_table(prog, tot);
	if (options.per_client_results && !options.machine_readable)
		per_client(prog, sh);
	totals_collect(&totals, prog, sh, -1);
	if (options.latency_report && !options.machine_readable)
		latency_report(stdout, prog, &totals);

	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);

		if (s->state == SLOT_FAILED) {
			fprintf(stderr, "%s: client %d failed: %s\n", options.progname, i,
				s->error[0] ? s->error : "unknown error");
			status = EXIT_RUN_FAILED;
		}
	}
	if (mismatches) {
		fprintf(stderr, "%s: %llu status mismatch%s in the measured window:", options.progname,
			(unsigned long long)mismatches, mismatches == 1 ? "" : "es");
		for (unsigned k = 0; k < prog->nstats; k++)
			if (tot[k].mismatches)
				fprintf(stderr, " %s %llu", op_info[prog->stat_op[k]].display,
					(unsigned long long)tot[k].mismatches);
		fprintf(stderr, "\n");
	}
	if (mismatches == 0) {
		uint64_t all = 0;

		for (int i = 0; i < sh->nclients; i++)
			all += shared_slot(sh, i)->mismatches_all;
		mismatches = all;	/* warmup and cleanup count for the exit status too */
		if (all)
			fprintf(stderr, "%s: %llu status mismatch%s outside the measured window\n",
				options.progname, (unsigned long long)all, all == 1 ? "" : "es");
	}
	if (mismatches && !options.allow_mismatch && !status)
		status = EXIT_RUN_FAILED;
	if (res->cleanup_failed && !status)
		status = EXIT_RUN_FAILED;

	if (options.machine_readable) {
		printf(";%g;%d;%d;%.03f;\n", tput, options.nclients, options.nprocs, (double)maxlat / 1e6);
	} else {
		latency_paced_line(stdout, prog, &totals);
		client_resources_lines(sh);
		printf("Operations %llu in %.3f sec (%.1f ops/sec), %llu mismatches, passes per client %llu..%llu (%llu in all)\n",
		       (unsigned long long)ops, window, window > 0 ? (double)ops / window : 0,
		       (unsigned long long)mismatches, (unsigned long long)(pmin == UINT64_MAX ? 0 : pmin),
		       (unsigned long long)pmax, (unsigned long long)ptotal);
		printf("Netbench scaled: NB=%g MB/sec  %g MBit/sec\n", tput * prog->nbscale,
		       tput * prog->nbscale * 8);
		printf("Throughput %g MB/sec  %d clients  %d procs  max_latency=%.03f ms\n", tput,
		       options.nclients, options.nprocs, (double)maxlat / 1e6);
	}
	fflush(stdout);
	free(tot);
	totals_free(&totals);
	if (res->signal)
		status = 128 + res->signal;
	if (series_failed(res->series) && status == 0)
		status = EXIT_RUN_FAILED;
	if (options.json && json_report(prog, be, sh, res, status) < 0 && status == 0)
		status = EXIT_RUN_FAILED;
	return status;
}
