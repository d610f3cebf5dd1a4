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
#include <sys/socket.h>
#include <unistd.h>

#include "backend.h"
#include "common.h"
#include "util.h"

int iobuf_grow(struct iobuf *b, uint64_t rng[2], size_t size)
{
	size_t n = b->size ? b->size : 1 << 16;
	char *d, *p, *r;

	if (size <= b->size)
		return 0;
	if (size > MAX_IO_SIZE)
		return -1;
	while (n < size)
		n *= 2;
	d = realloc(b->data, n);
	if (d)
		b->data = d;
	p = realloc(b->pattern, n + PATTERN_PERIOD);
	if (p)
		b->pattern = p;
	r = realloc(b->readbuf, n);
	if (r)
		b->readbuf = r;
	if (!d || !p || !r)
		return -1;
	/* incompressible data, so compressing or deduplicating servers and
	 * file systems do the work a real client's data would cause */
	for (size_t i = b->size; i + 8 <= n; i += 8) {
		uint64_t v = rng_next(rng);

		memcpy(b->data + i, &v, 8);
	}
	for (size_t i = b->size; i < n + PATTERN_PERIOD; i++)
		b->pattern[i] = (char)((i % PATTERN_PERIOD) * 2654435761u >> 13);
	b->size = n;
	return 0;
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
	free(b->data);
	free(b->pattern);
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
