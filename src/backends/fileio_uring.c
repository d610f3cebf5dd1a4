/*
 * fileio_uring.c - fileio's data path through io_uring (fileio_uring.h).
 *
 * A client has at most one request in the ring (an op reads, writes or
 * flushes one thing at a time); the request's user data is the client's
 * state, which lives until its request is out of the kernel.  A read of a
 * cached page completes inside the io_uring_enter that submits it: the op
 * takes its completion at once when it is first in line, and yields to the
 * event loop only for a request the kernel finishes later (a write-back,
 * an fsync, a read from the disk).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "backends/fiber.h"
#include "backends/fileio_uring.h"
#include "client.h"
#include "util.h"

#define SHARED_ENTRIES 256	/* a process's ring: submission queue */
#define SHARED_CQ_ENTRIES 16384	/* completions: above every client's one in flight;
				   past it the kernel keeps them (IORING_FEAT_NODROP) */
#define OWN_ENTRIES 4		/* a client's own ring */

struct ring {
	struct io_uring ring;
	struct source src;	/* on the event loop: the ring's descriptor */
	unsigned users;		/* clients holding it */
	bool on_loop;
};

struct uring_client {
	struct ring *ring;
	struct fiber fiber;	/* on the event loop: the client's ops */
	bool on_loop;		/* the client runs on the process's event loop */
	bool pending;		/* a request in the kernel, not completed */
	int res;		/* its completion's result */
};

int uring_check(char *why, size_t whylen)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(OWN_ENTRIES, &ring, 0);

	if (rc < 0) {
		snprintf(why, whylen, "this system refuses io_uring: %s%s", strerror(-rc),
			 rc == -EPERM ? " (see sysctl kernel.io_uring_disabled)" : "");
		return -1;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

/* Take one completion off the ring: its client's request is over. */
static struct uring_client *take(struct ring *r, struct io_uring_cqe *cqe)
{
	struct uring_client *u = io_uring_cqe_get_data(cqe);

	u->res = cqe->res;
	u->pending = false;
	io_uring_cqe_seen(&r->ring, cqe);
	return u;
}

/* The process's ring has completions: go on with their clients' ops. */
static void ring_ready(struct source *src, uint32_t revents)
{
	struct ring *r = src->arg;
	struct io_uring_cqe *cqe;

	(void)revents;
	while (io_uring_peek_cqe(&r->ring, &cqe) == 0) {
		struct uring_client *u = take(r, cqe);

		/* a request of an op given up: nothing waits for it */
		if (fiber_resume(&u->fiber))
			client_complete(u->fiber.c, u->fiber.status);
	}
}

static int ring_init(struct client *c, struct ring *r, bool shared)
{
	struct io_uring_params p = { 0 };
	int rc;

	if (shared) {
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = SHARED_CQ_ENTRIES;
	}
	rc = io_uring_queue_init_params(shared ? SHARED_ENTRIES : OWN_ENTRIES, &r->ring, &p);
	if (rc == -EINVAL && shared) {
		/* a kernel without IORING_SETUP_CQSIZE: the default size */
		memset(&p, 0, sizeof(p));
		rc = io_uring_queue_init_params(SHARED_ENTRIES, &r->ring, &p);
	}
	if (rc < 0) {
		snprintf(c->error, sizeof(c->error), "io_uring_queue_init: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

int uring_setup(struct client *c, struct uring_client **up)
{
	struct uring_client *u = xcalloc(1, sizeof(*u));
	struct ring *r;

	*up = u;
	if (!c->engine) {
		r = xcalloc(1, sizeof(*r));
		if (ring_init(c, r, false) < 0) {
			free(r);
			return -1;
		}
		r->users = 1;
		u->ring = r;
		return 0;
	}
	u->on_loop = true;
	if (fiber_init(&u->fiber, c) < 0)
		return -1;
	void **shared = engine_shared(c);

	r = *shared;
	if (!r) {
		r = xcalloc(1, sizeof(*r));
		if (ring_init(c, r, true) < 0) {
			free(r);
			return -1;
		}
		r->on_loop = true;
		r->src = (struct source){ .fd = r->ring.ring_fd, .events = EPOLLIN,
					  .ready = ring_ready, .arg = r };
		if (engine_watch(c, &r->src) < 0) {
			io_uring_queue_exit(&r->ring);
			free(r);
			return -1;
		}
		*shared = r;
	}
	r->users++;
	u->ring = r;
	return 0;
}

void uring_teardown(struct client *c, struct uring_client **up)
{
	struct uring_client *u = *up;
	struct ring *r;

	if (!u)
		return;
	r = u->ring;
	/* an op given up left its request in the kernel: it completes (a
	 * local file's I/O always does) before its buffer and state go */
	while (r && u->pending) {
		struct io_uring_cqe *cqe;
		int rc = io_uring_submit_and_wait(&r->ring, 1);

		if (rc == -EINTR)
			continue;
		if (rc < 0)
			break;
		while (io_uring_peek_cqe(&r->ring, &cqe) == 0)
			take(r, cqe);
	}
	if (r && --r->users == 0) {
		if (r->on_loop)
			source_unwatch(&r->src);
		io_uring_queue_exit(&r->ring);
		free(r);
		if (u->on_loop)
			*engine_shared(c) = NULL;
	}
	if (u->on_loop)
		fiber_free(&u->fiber);
	free(u);
	*up = NULL;
}

/* Submit the request prepared in sqe and wait for its completion: its
 * result, or -errno. */
static int run(struct uring_client *u, struct io_uring_sqe *sqe)
{
	struct io_uring *ring = &u->ring->ring;
	struct io_uring_cqe *cqe;
	int rc;

	if (u->pending)
		return -EBUSY;
	io_uring_sqe_set_data(sqe, u);
	u->pending = true;
	do
		rc = io_uring_submit(ring);
	while (rc == -EINTR);
	if (rc < 0)
		return rc;	/* left in the queue: the client's next requests
				   fail (EBUSY), its teardown waits for it */
	if (u->on_loop) {
		/* completed inside the submit, first in line: take it now */
		if (io_uring_peek_cqe(ring, &cqe) == 0 && io_uring_cqe_get_data(cqe) == u) {
			take(u->ring, cqe);
			return u->res;
		}
		if (fiber_wait(&u->fiber) < 0)
			return -ECANCELED;	/* given up: teardown waits for it */
		return u->res;
	}
	while (u->pending) {
		rc = io_uring_wait_cqe(ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return rc;
		take(u->ring, cqe);
	}
	return u->res;
}

/* A free submission entry: the queue holds at most one a client, and is
 * emptied by every submission, but a process of more clients than its
 * entries may find it full: submit what is there first. */
static struct io_uring_sqe *sqe_of(struct uring_client *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring->ring);

	while (!sqe) {
		int rc = io_uring_submit(&u->ring->ring);

		if (rc < 0 && rc != -EINTR)
			return NULL;
		sqe = io_uring_get_sqe(&u->ring->ring);
	}
	return sqe;
}

ssize_t uring_pread(struct uring_client *u, int fd, void *buf, size_t size, uint64_t offset)
{
	struct io_uring_sqe *sqe = sqe_of(u);

	if (!sqe)
		return -EIO;
	io_uring_prep_read(sqe, fd, buf, (unsigned)size, offset);
	return run(u, sqe);
}

ssize_t uring_pwrite(struct uring_client *u, int fd, const void *buf, size_t size,
		     uint64_t offset)
{
	struct io_uring_sqe *sqe = sqe_of(u);

	if (!sqe)
		return -EIO;
	io_uring_prep_write(sqe, fd, buf, (unsigned)size, offset);
	return run(u, sqe);
}

int uring_fsync(struct uring_client *u, int fd)
{
	struct io_uring_sqe *sqe = sqe_of(u);

	if (!sqe)
		return -EIO;
	io_uring_prep_fsync(sqe, fd, 0);
	return run(u, sqe);
}

uint32_t uring_submit(struct uring_client *u, struct client *c, const struct op *op)
{
	return fiber_submit(&u->fiber, c, op, c->be->op[op->id]);
}

void uring_expire(struct uring_client *u, struct client *c)
{
	snprintf(c->error, sizeof(c->error), "its io_uring request did not complete");
	fiber_expire(&u->fiber);
}
