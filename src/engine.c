/*
 * engine.c - one event loop a process for the clients of an asynchronous
 * backend (backend.h, "the asynchronous form"): each client is the same
 * interpreter as in a process of its own (client.c); where a synchronous
 * handler would block, the backend's handler starts the op and returns
 * STATUS_PENDING, and the loop serves the other clients until the backend
 * completes it (client_complete) from a source's ready().
 *
 * A client is in one of four states: runnable (in the run queue), waiting
 * (in the timer heap until c->due_ns: pacing, SLEEP, WAITSP), pending (its
 * op in flight) or finished.  A pass of the loop advances each client that
 * was runnable when the pass began by one op, commits the sources they
 * left requests queued on (source_commit), then waits in epoll for the
 * sources (not at all if a client is runnable, at most until the next due
 * client, at most 50 ms so that the stop flag is seen as promptly as the
 * synchronous loop sees it), dispatches the ready sources, moves the due
 * clients to the run queue, and expires the pending ops whose deadline
 * passed.  Once the run is over, the waiting clients run at once (they
 * finish), and a pending op that the grace does not see complete is
 * given up: only the clients whose server stopped answering fail.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "backends/fiber.h"
#include "client.h"
#include "engine.h"
#include "region_atomic.h"
#include "util.h"

enum engine_state {
	ES_RUNNABLE,		/* in the run queue */
	ES_WAITING,		/* in the timer heap until due_ns */
	ES_PENDING,		/* its op in flight */
	ES_FINISHED,
};

#define EVENTS_MAX 256
#define STOP_POLL_NS (50 * NSEC_PER_MSEC) /* see the stop flag this often */
#define DEADLINE_SCAN_NS (100 * NSEC_PER_MSEC) /* look for expired ops this often */
/* A phase (engine_phase): this many clients' calls in flight at most, so
 * that each one's calls go on while the others wait their turn (on a
 * connection they share, 500 at once would each wait behind the lot). */
#define PHASE_WIDTH 32

struct engine {
	int epfd;		/* the epoll descriptor */
	struct client *cl;	/* the process's clients */
	int n;
	int *runq;		/* ring of client indexes, each at most once */
	int rq_head, rq_len;
	struct client **heap;	/* waiting clients, a min-heap on due_ns */
	int heap_len;
	int live;		/* clients not finished */
	void *shared;		/* the backend's, for state the clients share */
	struct source *commits;	/* sources to commit before the loop waits */
	struct fiber **fibers;	/* each client's, made when first asked for */
	uint64_t over;		/* when the run ended (engine_run), or 0 */
	/* engine_phase: the core's call each client makes, and its name */
	int (*phase)(struct client *c);
	const char *phase_name;
	int phase_failed;	/* calls that failed, completed from a source */
};

/* ---- the run queue and the timer heap ---- */

static void runq_push(struct engine *e, struct client *c)
{
	e->runq[(e->rq_head + e->rq_len) % e->n] = (int)(c - e->cl);
	e->rq_len++;
	c->engine_state = ES_RUNNABLE;
}

static struct client *runq_pop(struct engine *e)
{
	struct client *c = &e->cl[e->runq[e->rq_head]];

	e->rq_head = (e->rq_head + 1) % e->n;
	e->rq_len--;
	return c;
}

static void heap_set(struct engine *e, int i, struct client *c)
{
	e->heap[i] = c;
	c->heap_index = (uint32_t)i;
}

static void heap_push(struct engine *e, struct client *c)
{
	int i = e->heap_len++;

	while (i > 0) {
		int parent = (i - 1) / 2;

		if (e->heap[parent]->due_ns <= c->due_ns)
			break;
		heap_set(e, i, e->heap[parent]);
		i = parent;
	}
	heap_set(e, i, c);
	c->engine_state = ES_WAITING;
}

static struct client *heap_pop(struct engine *e)
{
	struct client *top = e->heap[0], *last = e->heap[--e->heap_len];
	int i = 0;

	for (;;) {
		int child = 2 * i + 1;

		if (child >= e->heap_len)
			break;
		if (child + 1 < e->heap_len && e->heap[child + 1]->due_ns < e->heap[child]->due_ns)
			child++;
		if (last->due_ns <= e->heap[child]->due_ns)
			break;
		heap_set(e, i, e->heap[child]);
		i = child;
	}
	if (e->heap_len > 0)
		heap_set(e, i, last);
	return top;
}

/* ---- what backends call (backend.h) ---- */

int engine_watch(struct client *c, struct source *src)
{
	struct epoll_event ev = { .events = src->events, .data.ptr = src };

	if (!c->engine) {
		snprintf(c->error, sizeof(c->error), "no event loop to watch descriptor %d", src->fd);
		return -1;
	}
	if (epoll_ctl(c->engine->epfd, EPOLL_CTL_ADD, src->fd, &ev) < 0) {
		snprintf(c->error, sizeof(c->error), "epoll_ctl: %s", strerror(errno));
		return -1;
	}
	src->engine = c->engine;
	src->armed = src->events;
	return 0;
}

void source_want(struct source *src, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };

	src->events = events;
	if (!src->engine || src->armed == events)
		return;
	if (epoll_ctl(src->engine->epfd, EPOLL_CTL_MOD, src->fd, &ev) == 0)
		src->armed = events;
}

void source_unwatch(struct source *src)
{
	if (!src->engine)
		return;
	for (struct source **p = &src->engine->commits; src->to_commit && *p; p = &(*p)->next_commit)
		if (*p == src) {
			*p = src->next_commit;
			src->to_commit = false;
			break;
		}
	epoll_ctl(src->engine->epfd, EPOLL_CTL_DEL, src->fd, NULL);
	src->engine = NULL;
	src->armed = 0;
}

void source_commit(struct source *src)
{
	if (!src->engine || src->to_commit)
		return;
	src->to_commit = true;
	src->next_commit = src->engine->commits;
	src->engine->commits = src;
}

void **engine_shared(struct client *c)
{
	return &c->engine->shared;
}

void client_complete(struct client *c, uint32_t status)
{
	struct engine *e = c->engine;

	if (c->engine_state != ES_PENDING)
		return;		/* given up on already */
	c->deadline_ns = 0;
	if (e->phase) {
		/* the phase's call returned (it said how it went itself) */
		c->engine_state = ES_FINISHED;
		e->live--;
		e->phase_failed += status != 0;
		return;
	}
	if (client_resume(c, status, now_ns()) == CLIENT_FINISHED) {
		c->engine_state = ES_FINISHED;
		e->live--;
		return;
	}
	runq_push(e, c);
}

void client_complete_io(struct client *c, uint32_t tag, uint32_t status, uint64_t bytes)
{
	int rc;

	if (c->iodepth == 1) {
		c->bytes = bytes;
		client_complete(c, status);
		return;
	}
	if (c->engine_state == ES_FINISHED || tag >= c->iodepth || !c->io[tag].op)
		return;		/* given up on already */
	rc = client_resume_io(c, tag, status, bytes, now_ns());
	/* blocked on a full queue: one completed; at a barrier: all did */
	if (c->engine_state == ES_PENDING && (rc == CLIENT_FINISHED || !c->drain || !c->inflight))
		runq_push(c->engine, c);
}

/* ---- the loop ---- */

struct engine *engine_create(struct client *cl, int n)
{
	struct engine *e = xcalloc(1, sizeof(*e));

	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0) {
		int err = errno;

		free(e);
		errno = err;
		return NULL;
	}
	e->cl = cl;
	e->n = n;
	e->runq = xcalloc((size_t)n, sizeof(*e->runq));
	e->heap = xcalloc((size_t)n, sizeof(*e->heap));
	for (int i = 0; i < n; i++)
		cl[i].engine = e;
	return e;
}

struct fiber *engine_fiber(struct client *c)
{
	struct engine *e = c->engine;
	int i = (int)(c - e->cl);

	if (!e->fibers)
		e->fibers = xcalloc((size_t)e->n, sizeof(*e->fibers));
	if (!e->fibers[i]) {
		struct fiber *f = xcalloc(1, sizeof(*f));

		if (fiber_init(f, c) < 0) {
			free(f);
			return NULL;
		}
		e->fibers[i] = f;
	}
	return e->fibers[i];
}

void engine_destroy(struct engine *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->n; i++) {
		e->cl[i].engine = NULL;
		if (e->fibers && e->fibers[i]) {
			fiber_free(e->fibers[i]);
			free(e->fibers[i]);
		}
	}
	free(e->fibers);
	close(e->epfd);
	free(e->runq);
	free(e->heap);
	free(e);
}

/* The backend gives up on c's pending op; the client fails with why (or
 * the backend's reason, when it gave one and why is NULL). */
static void expire(struct engine *e, struct client *c, uint64_t now, const char *why)
{
	char line[sizeof(c->error)];

	c->error[0] = '\0';
	c->be->expire(c);
	if (why)
		snprintf(line, sizeof(line), "%s", why);
	else if (c->error[0])
		snprintf(line, sizeof(line), "%s", c->error);
	else
		snprintf(line, sizeof(line), "%s: no answer in %llu s", op_info[c->op->id].name,
			 (unsigned long long)((now - c->op_t0) / NSEC_PER_SEC));
	client_give_up(c, now, line);
	c->engine_state = ES_FINISHED;
	e->live--;
}

/* Expire the pending ops whose deadline passed. */
static void expire_due(struct engine *e, uint64_t now)
{
	for (int i = 0; i < e->n; i++) {
		struct client *c = &e->cl[i];

		if (c->engine_state == ES_PENDING && c->deadline_ns && now >= c->deadline_ns)
			expire(e, c, now, NULL);
	}
}

/* The grace is over: give up on every op still pending. */
static void give_up_pending(struct engine *e, uint64_t now, uint64_t over, uint64_t grace_ns)
{
	for (int i = 0; i < e->n; i++) {
		struct client *c = &e->cl[i];
		char why[sizeof(c->error)];

		uint64_t t0 = c->op_t0;
		const struct op *op = c->op;
		char what[64];

		if (c->engine_state != ES_PENDING)
			continue;
		snprintf(what, sizeof(what), "%s", op_info[op->id].name);
		if (c->iodepth > 1) {
			/* a queue: how many, and the oldest */
			for (uint32_t k = 0, first = 1; k < c->iodepth; k++) {
				if (c->io[k].op && (first || c->io[k].t0 < t0)) {
					t0 = c->io[k].t0;
					op = c->io[k].op;
					first = 0;
				}
			}
			snprintf(what, sizeof(what), "%u op%s (the oldest a %s)", c->inflight,
				 c->inflight == 1 ? "" : "s", op_info[op->id].name);
		}
		snprintf(why, sizeof(why),
			 "no progress for %llu s: %s in flight; given up %llu s after the end of the run (--grace %llu)",
			 (unsigned long long)((now - t0) / NSEC_PER_SEC), what,
			 (unsigned long long)((now - over) / NSEC_PER_SEC),
			 (unsigned long long)(grace_ns / NSEC_PER_SEC));
		expire(e, c, now, why);
	}
}

/* Advance the clients that were runnable when the pass began, once each. */
static void run_ready(struct engine *e, uint64_t *now, const volatile int *stop)
{
	for (int batch = e->rq_len; batch > 0; batch--) {
		struct client *c = runq_pop(e);
		int r = client_advance(c, now, stop);

		/* a queue (--iodepth): fill it before waiting */
		for (uint32_t more = 2 * c->iodepth + 16; r == CLIENT_RAN && c->inflight && more > 0; more--)
			r = client_advance(c, now, stop);
		switch (r) {
		case CLIENT_RAN:
			runq_push(e, c);
			break;
		case CLIENT_WAITS:
			heap_push(e, c);
			break;
		case CLIENT_PENDING:
		case CLIENT_BLOCKED:
			c->engine_state = ES_PENDING;
			break;
		default:
			c->engine_state = ES_FINISHED;
			e->live--;
			break;
		}
	}
}

static void wait_events(struct engine *e, uint64_t now, uint64_t until)
{
	struct epoll_event ev[EVENTS_MAX];
	struct timespec ts = { 0, 0 };
	int n;

	while (e->commits) {
		struct source *src = e->commits;

		e->commits = src->next_commit;
		src->to_commit = false;
		src->commit(src);
	}
	if (!e->rq_len && until > now) {
		ts.tv_sec = (time_t)((until - now) / NSEC_PER_SEC);
		ts.tv_nsec = (long)((until - now) % NSEC_PER_SEC);
	}
	n = epoll_pwait2(e->epfd, ev, EVENTS_MAX, &ts, NULL);
	for (int i = 0; i < n; i++) {
		struct source *src = ev[i].data.ptr;

		src->ready(src, ev[i].events);
	}
}

void engine_run(struct engine *e, const volatile int *stop, uint64_t grace_ns)
{
	uint64_t over = 0, next_scan = 0;
	struct shared *sh = e->cl[0].sh;
	/* the parent kills the process a margin later (run.c) */
	uint64_t give_up_after = grace_ns;

	e->live = e->n;
	for (int i = 0; i < e->n; i++)
		runq_push(e, &e->cl[i]);
	while (e->live > 0) {
		uint64_t now = now_ns(), until;

		run_ready(e, &now, stop);
		if (!e->live)
			break;
		now = now_ns();
		if (!over && (*stop || region_stopping(sh) || now >= region_end(sh)))
			e->over = over = now;
		if (over) {
			/* the waiting clients finish now; the pending ones get the grace */
			while (e->heap_len > 0)
				runq_push(e, heap_pop(e));
			if (now - over >= give_up_after) {
				give_up_pending(e, now, over, grace_ns);
				continue;
			}
		}
		until = now + STOP_POLL_NS;
		if (e->heap_len > 0)
			until = MIN(until, e->heap[0]->due_ns);
		if (over)
			until = MIN(until, over + give_up_after);
		wait_events(e, now, until);
		now = now_ns();
		while (e->heap_len > 0 && e->heap[0]->due_ns <= now)
			runq_push(e, heap_pop(e));
		if (now >= next_scan) {
			expire_due(e, now);
			next_scan = now + DEADLINE_SCAN_NS;
		}
	}
}

/* ---- a phase: one call of the core's for every client ---- */

static uint32_t phase_call(struct client *c, const struct op *op)
{
	(void)op;
	return c->engine->phase(c) < 0 ? 1 : 0;
}

/* Give up on c's call: the backend lets go of it (expire) and it unwinds
 * on its fiber; why, if given, replaces what the call then said. */
static void phase_expire(struct engine *e, struct client *c, const char *why)
{
	int failed = c->failed;

	c->be->expire(c);
	fiber_expire(e->fibers[c - e->cl]);	/* whatever the backend did */
	if (why && !failed) {
		snprintf(c->error, sizeof(c->error), "%s", why);
		c->failed = 1;
	}
	c->engine_state = ES_FINISHED;
	c->deadline_ns = 0;
	e->live--;
	e->phase_failed++;
}

int engine_phase(struct engine *e, int from, int (*fn)(struct client *c), const char *name,
		 uint64_t grace_ns, bool stop_at_failure)
{
	uint64_t now = now_ns(), start = now, next_scan = 0;
	/* given up with the run's grace, as the run's own pending ops are (a
	 * second at least: the parent kills the process a margin later) */
	uint64_t give_up = grace_ns ? MAX((e->over ? e->over : start) + grace_ns, start + NSEC_PER_SEC) :
				      UINT64_MAX;
	int next = from;

	e->phase = fn;
	e->phase_name = name;
	e->phase_failed = 0;
	e->live = 0;
	for (int i = 0; i < e->n; i++)
		e->cl[i].engine_state = ES_FINISHED;
	while (next < e->n || e->live > 0) {
		/* start calls up to the width (none after a failure, if so asked) */
		while (next < e->n && e->live < PHASE_WIDTH && !(e->phase_failed && stop_at_failure)) {
			struct client *c = &e->cl[next++];
			struct fiber *f;

			if (!(c->be->flags & BACKEND_FIBERS)) {
				e->phase_failed += fn(c) < 0;	/* it does not wait on the loop */
				continue;
			}
			f = engine_fiber(c);
			if (!f) {
				char why[sizeof(c->error)];

				snprintf(why, sizeof(why), "%s: %s", name, c->error);
				snprintf(c->error, sizeof(c->error), "%s", why);
				c->failed = 1;
				e->phase_failed++;
				continue;
			}
			c->deadline_ns = 0;
			c->op_t0 = now;
			c->engine_state = ES_PENDING;
			e->live++;
			if (fiber_submit(f, c, NULL, phase_call) != STATUS_PENDING) {
				c->engine_state = ES_FINISHED;
				e->live--;
				e->phase_failed += f->status != 0;
			}
		}
		if (e->phase_failed && stop_at_failure)
			next = e->n;
		if (!e->live)
			continue;
		now = now_ns();
		if (now >= give_up) {
			for (int i = 0; i < e->n; i++) {
				struct client *c = &e->cl[i];
				char why[sizeof(c->error)];

				if (c->engine_state != ES_PENDING)
					continue;
				snprintf(why, sizeof(why),
					 "%s: no progress for %llu s; given up %llu s after the end of the run (--grace %llu)",
					 name, (unsigned long long)((now - c->op_t0) / NSEC_PER_SEC),
					 (unsigned long long)((now - (e->over ? e->over : start)) / NSEC_PER_SEC),
					 (unsigned long long)(grace_ns / NSEC_PER_SEC));
				phase_expire(e, c, why);
			}
			continue;	/* the clients not started yet are given up at once */
		}
		wait_events(e, now, MIN(now + STOP_POLL_NS, give_up));
		now = now_ns();
		if (now >= next_scan) {
			/* a call's own deadline (the backend's timeout): it
			 * fails as it would have outside the loop */
			for (int i = 0; i < e->n; i++) {
				struct client *c = &e->cl[i];

				if (c->engine_state == ES_PENDING && c->deadline_ns && now >= c->deadline_ns)
					phase_expire(e, c, NULL);
			}
			next_scan = now + DEADLINE_SCAN_NS;
		}
	}
	e->phase = NULL;
	e->phase_name = NULL;
	return e->phase_failed;
}
