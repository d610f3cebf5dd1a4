/*
 * client.h - one client's interpreter (client.c).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_CLIENT_H
#define DBENCH_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* An op in a client's queue (--iodepth > 1), from its submit to its
 * completion: what finishing it needs, which c no longer holds (the
 * client went on to prepare and submit others). */
struct client_io {
	const struct op *op;	/* NULL: this place is free */
	uint64_t t0;		/* submitted */
	uint64_t sched_ns;	/* its schedule (pacing), 0 if unpaced */
	uint64_t deadline_ns;	/* the backend's deadline for it, 0: none */
	int64_t want_bytes;	/* its c->num[3] (the bytes ReadX/WriteX expect) */
};

void client_init(struct client *c, int id, const struct options *opt, const struct program *prog,
		 const struct backend *be, const void *be_opt, struct shared *sh, uint64_t seed);
/* Free what client_init() allocated. */
void client_release(struct client *c);
void client_start(struct client *c, uint64_t release_ns, uint64_t measure_start_ns);
/* What client_advance() did. */
enum {
	CLIENT_RAN = 0,		/* ran an op or a directive */
	CLIENT_WAITS = 1,	/* waits until c->due_ns */
	CLIENT_FINISHED = 2,	/* left the op loop (c->failed if on an error) */
	CLIENT_PENDING = 3,	/* its op completes later (asynchronous backends) */
	CLIENT_BLOCKED = 4,	/* --iodepth: waits for its ops in flight, all of
				   them (c->drain: a barrier) or one (the queue
				   is full) */
};

/* Run the client's next op if due (*now: the time, advanced past the op). */
int client_advance(struct client *c, uint64_t *now, const volatile int *local_stop);
/* The pending op completed at t1 with status: record it and move on.
 * CLIENT_RAN, or CLIENT_FINISHED (an error, or the last pass done). */
int client_resume(struct client *c, uint32_t status, uint64_t t1);
/* An op of c's queue completed at t1 (--iodepth > 1): record it.
 * CLIENT_RAN, or CLIENT_FINISHED when it failed the client (the client's
 * next advance gives up on the rest). */
int client_resume_io(struct client *c, uint32_t tag, uint32_t status, uint64_t bytes, uint64_t t1);
/* The run gives up on the pending op (the grace is over): count the time
 * it has taken as its latency, as the parent does for a killed client's
 * op, and fail the client with why. */
void client_give_up(struct client *c, uint64_t now, const char *why);
/* Expand a template (with PATH_CLIENT bytes) for this client into dst. */
size_t client_expand(struct client *c, const char *tpl, size_t len, char *dst);

#endif
