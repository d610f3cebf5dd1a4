/*
 * fileio_uring.h - fileio's data path through io_uring (--ioengine
 * io_uring): ReadX, WriteX and Flush as IORING_OP_READ, IORING_OP_WRITE
 * and IORING_OP_FSYNC instead of pread, pwrite and fsync.  Everything else
 * (open, stat, rename, listing, locks: the paths beneath the target) stays
 * the synchronous calls of fileio.c, so that what changes between the two
 * engines is the data path alone.
 *
 * With --clients-per-process N > 1 the backend is asynchronous (backend.h,
 * "the asynchronous form"): a process's clients share one ring, which is a
 * source on its event loop, and every op runs on its client's fiber
 * (fiber.h), yielding while its request is in the ring, so that the
 * process keeps up to N requests in flight.  With one client a process the
 * client has a ring of its own and waits for each completion in
 * io_uring_enter, as pread waits in the kernel.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_FILEIO_URING_H
#define DBENCH_BACKENDS_FILEIO_URING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"

struct uring_client;

/* In the parent: may this kernel run io_uring (it may be disabled,
 * kernel.io_uring_disabled, or refused by a seccomp filter)?  0, or -1
 * with the reason in why. */
int uring_check(char *why, size_t whylen);

/* In the client's setup: its ring (the process's, on the event loop, or
 * its own) and fiber.  0, or -1 with c->error set. */
int uring_setup(struct client *c, struct uring_client **up);
/* In its teardown: waits for a request still in the kernel (an op given
 * up), then frees what the client holds (the ring with its last user). */
void uring_teardown(struct client *c, struct uring_client **up);

/* pread, pwrite and fsync through the ring: bytes moved (0 for fsync),
 * or -errno.  Called from an op (on the client's fiber when it runs on the
 * event loop). */
ssize_t uring_pread(struct uring_client *u, int fd, void *buf, size_t size, uint64_t offset);
ssize_t uring_pwrite(struct uring_client *u, int fd, const void *buf, size_t size,
		     uint64_t offset);
int uring_fsync(struct uring_client *u, int fd);

/* The backend's submit and expire hooks, given the client's state. */
uint32_t uring_submit(struct uring_client *u, struct client *c, const struct op *op);
void uring_expire(struct uring_client *u, struct client *c);

#endif
