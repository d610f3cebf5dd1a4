/*
 * common.c - see common.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backend.h"
#include "common.h"
#include "util.h"

/*
 * The process's WRITEPATTERN bytes (deterministic: the same for every
 * client) and its scratch read target (reads nobody checks): one copy a
 * process instead of 64 KiB or more each per client, which matters when
 * a process runs many clients (the engine).  Each is mapped once at its
 * largest size and never moves, since a call in flight may point into it
 * (libnfs >= 6 sends from and receives into the caller's buffer); only the
 * pages used become resident.  users: the iobufs that hold them.
 */
static char *pattern_map, *scratch_map;
static size_t pattern_filled;	/* bytes of pattern_map filled in */
static unsigned users;

#define PATTERN_MAP_SIZE ((size_t)MAX_IO_SIZE + PATTERN_PERIOD)

static void *map_max(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void maps_release(void)
{
	if (pattern_map)
		munmap(pattern_map, PATTERN_MAP_SIZE);
	if (scratch_map)
		munmap(scratch_map, MAX_IO_SIZE);
	pattern_map = scratch_map = NULL;
	pattern_filled = 0;
}

static int maps_join(void)
{
	if (users == 0 && (!(pattern_map = map_max(PATTERN_MAP_SIZE)) ||
			   !(scratch_map = map_max(MAX_IO_SIZE)))) {
		maps_release();
		return -1;
	}
	users++;
	return 0;
}

int iobuf_grow(struct iobuf *b, uint64_t rng[2], size_t size)
{
	size_t n = b->size ? b->size : 1 << 16;
	char *d;

	if (size <= b->size)
		return 0;
	if (size > MAX_IO_SIZE)
		return -1;
	while (n < size)
		n *= 2;
	if (!b->size && maps_join() < 0)
		return -1;
	d = realloc(b->data, n);
	if (!d) {
		if (!b->size && --users == 0)
			maps_release();
		return -1;
	}
	b->data = d;
	/* incompressible data, so compressing or deduplicating servers and
	 * file systems do the work a real client's data would cause */
	for (size_t i = b->size; i + 8 <= n; i += 8) {
		uint64_t v = rng_next(rng);

		memcpy(b->data + i, &v, 8);
	}
	for (; pattern_filled < n + PATTERN_PERIOD; pattern_filled++)
		pattern_map[pattern_filled] = (char)((pattern_filled % PATTERN_PERIOD) * 2654435761u >> 13);
	b->size = n;
	return 0;
}

const char *iobuf_source(const struct iobuf *b, int pattern, uint64_t offset)
{
	return pattern ? pattern_map + offset % PATTERN_PERIOD : b->data;
}

char *iobuf_read_target(struct iobuf *b, bool check)
{
	if (!check)
		return scratch_map;
	if (b->readbuf_size < b->size) {
		char *r = realloc(b->readbuf, b->size);

		if (!r)
			return NULL;
		b->readbuf = r;
		b->readbuf_size = b->size;
	}
	return b->readbuf;
}

bool iobuf_pattern_ok(const struct iobuf *b, const char *got, uint64_t offset, size_t n)
{
	(void)b;
	return memcmp(got, pattern_map + offset % PATTERN_PERIOD, n) == 0;
}

const char *iobuf_write_source(struct iobuf *b, const struct client *c, uint64_t offset, size_t size)
{
	if (!c->wptext)
		return iobuf_source(b, c->writepattern, offset);
	if (b->text_of != c->wptext || b->text_size < size) {
		size_t n = MAX(size, (size_t)1 << 16);
		char *t = realloc(b->text, n);

		if (!t)
			return NULL;
		b->text = t;
		for (size_t i = 0; i < n; i += c->wptextlen)
			memcpy(t + i, c->wptext, MIN(c->wptextlen, n - i));
		b->text_size = n;
		b->text_of = c->wptext;
	}
	return b->text;
}

void iobuf_free(struct iobuf *b)
{
	if (b->size && --users == 0)
		maps_release();
	free(b->data);
	free(b->readbuf);
	free(b->text);
	memset(b, 0, sizeof(*b));
}

bool lock_table_overlaps(const struct lock_table *t, uint64_t offset, uint64_t length)
{
	for (unsigned i = 0; i < t->n; i++)
		if (offset < t->r[i].offset + t->r[i].length && t->r[i].offset < offset + length)
			return true;
	return false;
}

bool lock_table_add(struct lock_table *t, uint64_t offset, uint64_t length)
{
	if (t->n == UINT16_MAX)
		return false;
	if (t->n == t->cap) {
		t->cap = t->cap ? (uint16_t)MIN((unsigned)t->cap * 2, UINT16_MAX) : 4;
		t->r = xrealloc(t->r, t->cap * sizeof(*t->r));
	}
	t->r[t->n++] = (struct lock_range){ offset, length };
	return true;
}

bool lock_table_remove(struct lock_table *t, uint64_t offset, uint64_t length)
{
	for (unsigned i = 0; i < t->n; i++) {
		if (t->r[i].offset == offset && t->r[i].length == length) {
			t->r[i] = t->r[--t->n];
			return true;
		}
	}
	return false;
}

void lock_table_free(struct lock_table *t)
{
	free(t->r);
	memset(t, 0, sizeof(*t));
}

/* ---- servers ---- */

void tcp_probe(const char *host, int port, int timeout_ms, char *why, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char service[16];
	struct pollfd pfd;
	int fd, err = 0, rc;
	socklen_t elen = sizeof(err);

	why[0] = '\0';
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, &ai);
	if (rc != 0) {
		snprintf(why, len, "%s", gai_strerror(rc));
		return;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		goto out;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = errno;
		} else {
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			if (poll(&pfd, 1, timeout_ms) <= 0)
				err = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
				err = errno;
		}
	}
	if (err)
		snprintf(why, len, "%s", strerror(err));
	close(fd);
out:
	freeaddrinfo(ai);
}
