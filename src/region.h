/*
 * region.h - the shared-memory region the clients record into and the
 * parent reads: a header the parent writes (times, the stop flag) and one
 * slot per client, written only by that client, so no locks are needed.
 *
 * This is its layout; region.h is its protocol: every access to a field
 * the other side reads or writes while the run goes on is one of the
 * operations named there.  The final report reads the slots after the
 * clients have exited.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_REGION_H
#define DBENCH_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "op.h"

/* One op kind of one client, in the measured window. */
struct op_stats {
	uint64_t count;		/* ops completed */
	uint64_t mismatches;	/* status (or size) not as expected */
	uint64_t errors;	/* returned a failure status, expected or not */
	uint64_t bytes;		/* bytes moved */
	uint64_t total_ns;	/* sum of latencies */
	uint64_t min_ns;	/* smallest latency (UINT64_MAX if none) */
	uint64_t max_ns;	/* largest latency */
	double sumsq_ns;	/* sum of squared latencies, for the stddev */
	uint64_t decade[DECADES]; /* exact counts by decade */
	struct hist hist;	/* latency histogram */
};

enum slot_state {
	SLOT_STARTING,		/* setting up (connecting ...) */
	SLOT_READY,		/* set up, waiting for the release */
	SLOT_RUNNING,		/* replaying the loadfile */
	SLOT_CLEANUP,		/* removing what it made */
	SLOT_DONE,		/* finished normally */
	SLOT_FAILED,		/* stopped with an error (see error) */
};

/* Per-second figures, a ring indexed by the second (from the release)
 * in which ops completed; the parent reads a second once it is over.  The
 * client reuses an entry SEC_RING seconds later: sec_stat_enter() and
 * sec_stat_read() below are the only ways to them while the run goes on. */
#define SEC_RING 8
struct sec_stat {
	uint64_t sec;		/* which second this entry holds; SEC_CHANGING
				   while the client resets it for another */
	uint64_t ops;		/* ops completed in it */
	uint64_t bytes;		/* bytes they moved */
	uint64_t max_ns;	/* their largest latency */
};
#define SEC_CHANGING UINT64_MAX

struct slot {
	int state;		/* enum slot_state */
	int pid;		/* the process running this client */
	int finished_work;	/* did all its passes (fixed-work runs) */
	int signal;		/* a stop signal to its own process cut it short
				   before the end of the run (run.c), or 0 */
	int64_t sp64;		/* last SETSP: pass << 32 | sync point */
	uint64_t ops_all;	/* ops completed, all phases (progress) */
	uint64_t bytes_all;	/* bytes moved, all phases */
	uint64_t ops_measured;	/* ops completed in the measured window */
	uint64_t bytes_measured; /* bytes moved in the measured window */
	uint64_t mismatches_all; /* status mismatches, all phases */
	uint64_t passes;	/* passes completed */
	uint64_t cpu_user_ns;	/* the process's CPU from release to the end of
				   its run (in its first client's slot only) */
	uint64_t cpu_sys_ns;
	uint64_t net_sent;	/* bytes a network backend sent, all phases */
	uint64_t net_received;	/* and received */
	uint64_t work_end_ns;	/* when it finished its work (fixed-work runs) */
	uint64_t op_start_ns;	/* start of the op in progress, 0 if none */
	uint32_t op_id;		/* which op that is (valid while op_start_ns) */
	struct sec_stat secs[SEC_RING]; /* per-second figures */
	char error[256];	/* why it failed */
	struct op_stats lag;	/* schedule lag of paced ops */
	struct op_stats response; /* paced ops: end minus scheduled start */
	struct hist64 every;	/* every op, all phases (per-second percentiles) */
	struct op_stats ops[];	/* program.nstats entries */
};

struct shared {
	uint64_t release_ns;	/* clients start (CLOCK_MONOTONIC) */
	uint64_t measure_start_ns; /* start of the measured window */
	uint64_t measure_end_ns; /* end of it; lowered on an early stop */
	int stop;		/* the parent asks clients to stop */
	int nclients;
	size_t slot_size;	/* bytes per slot, a multiple of 64 */
	int mismatch_printed;	/* messages printed, all clients */
	int procs_left;		/* client processes not yet done: the last one
				   out removes the shared roots if the parent died */
	uint32_t nroots;	/* shared roots */
	uint8_t *root_existed;	/* per shared root: found before the run
				   (program.nshared_roots, after this header) */
	uint64_t parent_alive_ns; /* --mpi: the parent's last sign of life; its clients
				   stop when it is older than --mpi-timeout (a rank
				   stopped or hung: the job is being ended) */
	char *slots;		/* first slot */
};

size_t slot_size_for(const struct program *prog);
/* Map the region for n clients (MAP_SHARED | MAP_ANONYMOUS). */
struct shared *shared_create(const struct program *prog, int nclients);
void shared_destroy(struct shared *sh);

static inline struct slot *shared_slot(const struct shared *sh, int i)
{
	return (struct slot *)(sh->slots + (size_t)i * sh->slot_size);
}

static inline void op_stats_init(struct op_stats *s)
{
	s->min_ns = UINT64_MAX;
}

static inline void op_stats_add(struct op_stats *s, uint64_t ns, uint64_t bytes)
{
	s->count++;
	s->bytes += bytes;
	s->total_ns += ns;
	if (ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->sumsq_ns += (double)ns * (double)ns;
	s->decade[decade_index(ns)]++;
	hist_add(&s->hist, ns);
}

/* Merged figures of one op (or group) over clients. */
struct op_total {
	uint64_t count, mismatches, errors, bytes, total_ns, min_ns, max_ns;
	double sumsq_ns;
	uint64_t decade[DECADES];
	struct hist_total hist;
};

void op_total_init(struct op_total *t);
void op_total_add(struct op_total *t, const struct op_stats *s);
void op_total_merge(struct op_total *t, const struct op_total *o);

#endif
