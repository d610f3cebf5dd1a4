/*
 * report.h - what the parent prints: the per-second progress lines while
 * the run goes on, and the final report (op table, netbench-scaled figures,
 * the dbench-compatible "Throughput" line), in human or machine-readable
 * form.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_REPORT_H
#define DBENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "op.h"
#include "stats.h"

struct run_result;
struct backend;
struct series;

enum phase {
	PHASE_WARMUP,
	PHASE_EXECUTE,
	PHASE_CLEANUP,
};

extern const char *const phase_name[];

/* State kept between progress ticks. */
struct progress_state {
	const struct program *prog;
	struct shared *sh;
	uint64_t release_ns;
	uint64_t measure_start_ns;
	struct series *series;		/* per-second series (series.h), or NULL */
};

void progress_init(struct progress_state *ps, const struct program *prog, struct shared *sh,
		   uint64_t release_ns, uint64_t measure_start_ns);
void progress_tick(struct progress_state *ps, uint64_t now);
void progress_finish(struct progress_state *ps);

/* What the clients themselves cost, summed over clients, all phases. */
struct client_resources {
	uint64_t user_ns;	/* user CPU of the client processes */
	uint64_t sys_ns;	/* system CPU */
	uint64_t net_sent;	/* bytes sent by a network backend */
	uint64_t net_received;	/* bytes received */
	uint64_t ops;		/* ops completed, all phases */
};
void client_resources(const struct shared *sh, struct client_resources *r);

void report_banner(const struct program *prog);
/* The final report; returns the process exit status it implies. */
int report_final(const struct program *prog, const struct backend *be, struct shared *sh,
		 const struct run_result *res);

#endif
