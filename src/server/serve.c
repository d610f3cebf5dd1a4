/*
 * serve.c - the server side of one tbench connection: read a header,
 * check it, drop the payload, answer with the wanted reply; repeat.
 *
 * Framing errors end the connection (after a best-effort error reply, so
 * that a client can say what went wrong); an unknown op in a well-formed
 * frame only gets a PROTO_ERR_OP reply.  A connection whose first 4 bytes
 * are not the magic speaks the classic wire of dbench 4.0/5.0 instead
 * (serve_classic), which has no header to check beyond two lengths.  Memory is fixed: one allocation
 * per connection holds an input buffer and an output buffer of one chunk
 * each, whatever the client sends.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbench_wire.h"
#include "serve.h"

/* Where a transfer stands, for the message when it stops. */
struct xfer {
	const char *what;	/* "header", "request payload", "reply" */
	uint64_t want;		/* bytes it should move */
};

/* Turn a failed or short I/O into an end reason and a message. */
static enum serve_end io_failed(ssize_t rc, int err, const struct xfer *x, uint64_t done,
				char *why, size_t whylen)
{
	if (rc == 0) {
		snprintf(why, whylen, "connection cut mid-frame: %llu of %llu %s bytes",
			 (unsigned long long)done, (unsigned long long)x->want, x->what);
		return SERVE_CUT;
	}
	if (err == ETIME) {
		snprintf(why, whylen, "request not complete within the request timeout: %llu of %llu %s bytes",
			 (unsigned long long)done, (unsigned long long)x->want, x->what);
		return SERVE_TIMEOUT;
	}
	if (err == EAGAIN || err == EWOULDBLOCK) {
		snprintf(why, whylen, "timed out in the %s after %llu of %llu bytes",
			 x->what, (unsigned long long)done, (unsigned long long)x->want);
		return SERVE_TIMEOUT;
	}
	snprintf(why, whylen, "%s after %llu of %llu %s bytes", strerror(err),
		 (unsigned long long)done, (unsigned long long)x->want, x->what);
	return SERVE_IO;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

const char *serve_end_name(enum serve_end end)
{
	switch (end) {
	case SERVE_CLOSED:
		return "closed";
	case SERVE_CUT:
		return "cut";
	case SERVE_PROTOCOL:
		return "protocol error";
	case SERVE_TIMEOUT:
		return "timeout";
	case SERVE_IO:
		return "I/O error";
	case SERVE_STOPPED:
		return "stopped";
	}
	return "?";
}

/* ---- The same protocol as a state machine fed with bytes (serve.h). */

void serve_init(struct serve_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->state = SERVE_S_HEADER;
}

/* Header bytes wanted: 4 to tell the formats apart, then a whole header. */
static uint32_t header_need(const struct serve_conn *c)
{
	return c->format == 0 ? 4 : c->format == 1 ? FRAME_HEADER_SIZE : 8;
}

static void set_done(struct serve_conn *c, enum serve_end end)
{
	c->end = end;
	c->state = SERVE_S_DONE;
}

/* Prepare the reply: header bytes already in c->reply, then zeros. */
static void reply_ready(struct serve_conn *c, uint32_t hdrlen, uint32_t zeros)
{
	c->reply_off = 0;
	c->reply_len = hdrlen;
	c->zeros_left = zeros;
	c->state = c->payload_left ? SERVE_S_PAYLOAD : SERVE_S_REPLY;
}

/* A whole header is in c->hdr: check it, prepare the reply. */
static void header_complete(struct serve_conn *c)
{
	struct frame_header req, reply;
	char problem[160];
	int status;

	c->have = 0;
	if (c->format == 2) {
		uint32_t len = get_be32(c->hdr), want = get_be32(c->hdr + 4);

		if (len < 4 || len > FRAME_MAX_PAYLOAD || want > FRAME_MAX_PAYLOAD) {
			snprintf(c->why, sizeof(c->why),
				 "classic frame of %u bytes wanting a %u-byte reply (lengths are 4 to %u)",
				 len, want, FRAME_MAX_PAYLOAD);
			set_done(c, SERVE_PROTOCOL);
			return;
		}
		c->payload_len = c->payload_left = len - 4;
		memcpy(c->reply, c->hdr + 4, 4);	/* the reply's length: want */
		reply_ready(c, 4, want);
		return;
	}
	frame_decode(c->hdr, &req);
	status = frame_check(&req, FRAME_REQUEST, problem, sizeof(problem));
	if (status != PROTO_OK) {
		/* the error frame goes out (best effort), then the end */
		frame_reply(&reply, &req, (uint32_t)status, 0);
		frame_encode(&reply, c->reply);
		snprintf(c->why, sizeof(c->why), "%s", problem);
		c->end = SERVE_PROTOCOL;
		c->closing = 1;
		c->payload_left = 0;
		reply_ready(c, FRAME_HEADER_SIZE, 0);
		return;
	}
	if (proto_op_known(req.op)) {
		frame_reply(&reply, &req, PROTO_OK, req.want);
	} else {
		frame_reply(&reply, &req, PROTO_ERR_OP, 0);
		c->counts.bad_ops++;
	}
	frame_encode(&reply, c->reply);
	c->payload_len = c->payload_left = req.length;
	reply_ready(c, FRAME_HEADER_SIZE, reply.length);
}

size_t serve_input(struct serve_conn *c, const uint8_t *buf, size_t len)
{
	size_t used = 0;

	while (used < len && (c->state == SERVE_S_HEADER || c->state == SERVE_S_PAYLOAD)) {
		size_t n;

		if (c->state == SERVE_S_PAYLOAD) {
			n = len - used < c->payload_left ? len - used : c->payload_left;
			used += n;
			serve_dropped(c, (uint32_t)n);
			continue;
		}
		n = header_need(c) - c->have;
		if (n > len - used)
			n = len - used;
		memcpy(c->hdr + c->have, buf + used, n);
		c->have += (uint32_t)n;
		c->counts.bytes_in += n;
		used += n;
		if (c->have < header_need(c))
			continue;
		if (c->format == 0) {
			/* ours open with the magic, a classic frame with its
			 * length (never near 0x7462656e) */
			c->format = get_be32(c->hdr) == FRAME_MAGIC ? 1 : 2;
			c->counts.classic = c->format == 2;
			continue;
		}
		header_complete(c);
	}
	return used;
}

void serve_dropped(struct serve_conn *c, uint32_t n)
{
	c->payload_left -= n;
	c->counts.bytes_in += n;
	if (c->payload_left == 0)
		c->state = SERVE_S_REPLY;
}

void serve_sent(struct serve_conn *c, size_t n)
{
	size_t hdr = c->reply_len - c->reply_off;

	c->counts.bytes_out += n;
	if (n < hdr) {
		c->reply_off += (uint32_t)n;
		return;
	}
	c->reply_off = c->reply_len;
	c->zeros_left -= (uint32_t)(n - hdr);
	if (c->zeros_left)
		return;
	if (c->closing) {
		c->state = SERVE_S_DONE;
		return;
	}
	c->counts.requests++;
	c->state = SERVE_S_HEADER;
}

/* The reply's payload, as its header gives it (a classic reply header
 * is that length alone): the zeros it began with. */
static uint32_t reply_payload(const struct serve_conn *c)
{
	struct frame_header h;

	if (c->format == 2)
		return get_be32(c->reply);
	frame_decode(c->reply, &h);
	return h.length;
}

/* Where the connection stood, as serve_connection() says it. */
static void where(const struct serve_conn *c, struct xfer *x, uint64_t *done)
{
	uint32_t payload;

	switch (c->state) {
	case SERVE_S_HEADER:
		*x = (struct xfer){ c->format == 2 ? "classic header" : "header",
				    c->format == 2 ? 8 : FRAME_HEADER_SIZE };
		*done = c->have;
		break;
	case SERVE_S_PAYLOAD:
		*x = (struct xfer){ "request payload", c->payload_len };
		*done = c->payload_len - c->payload_left;
		break;
	default:
		payload = reply_payload(c);
		*x = (struct xfer){ "reply", (uint64_t)c->reply_len + payload };
		*done = (uint64_t)c->reply_off + payload - c->zeros_left;
		break;
	}
}

void serve_eof(struct serve_conn *c)
{
	struct xfer x;
	uint64_t done;

	if (c->state == SERVE_S_DONE)
		return;
	if (c->state == SERVE_S_HEADER && c->have == 0) {
		snprintf(c->why, sizeof(c->why), "client closed the connection");
		set_done(c, SERVE_CLOSED);
		return;
	}
	where(c, &x, &done);
	set_done(c, io_failed(0, 0, &x, done, c->why, sizeof(c->why)));
}

void serve_fail(struct serve_conn *c, int err)
{
	struct xfer x;
	uint64_t done;

	if (c->state == SERVE_S_DONE)
		return;
	if (c->state == SERVE_S_HEADER && c->have == 0 && err == ETIME) {
		snprintf(c->why, sizeof(c->why), "idle for longer than the idle timeout");
		set_done(c, SERVE_TIMEOUT);
		return;
	}
	if (c->closing) {	/* the error frame could not go: the end stands */
		c->state = SERVE_S_DONE;
		return;
	}
	where(c, &x, &done);
	set_done(c, io_failed(-1, err, &x, done, c->why, sizeof(c->why)));
}

int serve_phase_of(const struct serve_conn *c)
{
	if (c->state == SERVE_S_HEADER)
		return c->have == 0 ? SERVE_PHASE_IDLE : SERVE_PHASE_REQUEST;
	return c->state == SERVE_S_PAYLOAD ? SERVE_PHASE_REQUEST : SERVE_PHASE_REPLY;
}

/* ---- serve_connection(): the state machine driven by blocking I/O. */

struct drive {
	struct serve_conn sc;
	size_t start, end;	/* unread input: in[start..end) */
	uint8_t in[SERVE_CHUNK]; /* input, read ahead up to a chunk */
	uint8_t out[FRAME_HEADER_SIZE + SERVE_CHUNK]; /* a reply header ends at
				   FRAME_HEADER_SIZE, zeros follow it */
};

/* Send the ready reply: its header and its first chunk of zeros in one
 * send (a small reply is one segment), the other chunks after it. */
static void drive_reply(const struct serve_io *io, struct drive *d)
{
	struct serve_conn *c = &d->sc;

	while (c->state == SERVE_S_REPLY) {
		uint32_t hdr = c->reply_len - c->reply_off;
		uint32_t z = c->zeros_left < SERVE_CHUNK ? c->zeros_left : SERVE_CHUNK;
		uint8_t *from = d->out + FRAME_HEADER_SIZE - hdr;
		ssize_t rc;

		memcpy(from, c->reply + c->reply_off, hdr);
		rc = io->send(io->ctx, from, hdr + z, c->zeros_left > z);
		if (rc > 0)
			serve_sent(c, (size_t)rc);
		else if (rc == 0)	/* a send cannot end a stream: a reset */
			serve_fail(c, ECONNRESET);
		else if (errno != EINTR)
			serve_fail(c, errno);
	}
}

/* Read more input, or drop payload unread: 0, or the connection ended. */
static void drive_input(const struct serve_io *io, struct drive *d)
{
	struct serve_conn *c = &d->sc;
	uint32_t drop = serve_want_discard(c);
	ssize_t rc;

	if (drop) {
		rc = io->discard(io->ctx, drop < SERVE_CHUNK ? drop : SERVE_CHUNK);
		if (rc > 0) {
			serve_dropped(c, (uint32_t)rc);
			return;
		}
	} else {
		d->start = d->end = 0;
		rc = io->recv(io->ctx, d->in, sizeof(d->in));
		if (rc > 0) {
			d->end = (size_t)rc;
			return;
		}
	}
	if (rc < 0 && errno == EINTR)
		return;
	/* a receive timeout before a request's first byte is idling */
	if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
	    serve_phase_of(c) == SERVE_PHASE_IDLE)
		return;
	if (rc == 0)
		serve_eof(c);
	else
		serve_fail(c, errno);
}

enum serve_end serve_connection(const struct serve_io *io, struct serve_counts *counts,
				char *why, size_t whylen)
{
	struct drive *d = calloc(1, sizeof(*d));
	enum serve_end end;
	int phase = -1;

	memset(counts, 0, sizeof(*counts));
	if (!d) {
		snprintf(why, whylen, "out of memory");
		return SERVE_IO;
	}
	serve_init(&d->sc);
	while (d->sc.state != SERVE_S_DONE) {
		/* the phase (and so the deadline) of what comes next; a
		 * request says REQUEST again as it reads on */
		if (io->phase && (serve_phase_of(&d->sc) != phase || phase == SERVE_PHASE_REQUEST)) {
			phase = serve_phase_of(&d->sc);
			io->phase(io->ctx, phase);
		}
		if (d->sc.state == SERVE_S_REPLY)
			drive_reply(io, d);
		else if (d->start < d->end)
			d->start += serve_input(&d->sc, d->in + d->start, d->end - d->start);
		else
			drive_input(io, d);
	}
	/* bytes read ahead past the end (after a bad header) were received */
	d->sc.counts.bytes_in += d->end - d->start;
	*counts = d->sc.counts;
	snprintf(why, whylen, "%s", d->sc.why);
	end = d->sc.end;
	free(d);
	return end;
}
