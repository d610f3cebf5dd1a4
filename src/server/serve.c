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

/* One connection's buffers and counts. */
struct conn {
	const struct serve_io *io;
	struct serve_counts *counts;
	size_t start, end;	/* unread input: in[start..end) */
	uint8_t in[SERVE_CHUNK]; /* input, read ahead up to a chunk */
	uint8_t out[FRAME_HEADER_SIZE + SERVE_CHUNK]; /* header, then zeros */
};

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

/*
 * Have `need` bytes (a whole header) in the input buffer, reading ahead as
 * much as the socket offers (a small request arrives with one read).
 * Returns -1 at a clean end (nothing of a new header arrived), 0 when
 * complete, or 1 + enum serve_end on failure.  A timeout before the first
 * byte is idling, not an error.
 */
static void set_phase(struct conn *c, int phase)
{
	if (c->io->phase)
		c->io->phase(c->io->ctx, phase);
}

static int fill_bytes(struct conn *c, size_t need, const struct xfer *x, char *why, size_t whylen)
{
	set_phase(c, c->end > c->start ? SERVE_PHASE_REQUEST : SERVE_PHASE_IDLE);
	if (c->end - c->start >= need)
		return 0;
	memmove(c->in, c->in + c->start, c->end - c->start);
	c->end -= c->start;
	c->start = 0;
	while (c->end < need) {
		ssize_t rc = c->io->recv(c->io->ctx, c->in + c->end, sizeof(c->in) - c->end);

		if (rc > 0) {
			if (c->end == 0)
				set_phase(c, SERVE_PHASE_REQUEST);
			c->end += (size_t)rc;
			c->counts->bytes_in += (uint64_t)rc;
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		if (c->end == 0 && rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (c->end == 0 && rc < 0 && errno == ETIME) {
			snprintf(why, whylen, "idle for longer than the idle timeout");
			return 1 + SERVE_TIMEOUT;
		}
		if (c->end == 0 && rc == 0) {
			snprintf(why, whylen, "client closed the connection");
			return -1;
		}
		return 1 + io_failed(rc, errno, x, c->end, why, whylen);
	}
	return 0;
}

static int fill_header(struct conn *c, char *why, size_t whylen)
{
	static const struct xfer x = { "header", FRAME_HEADER_SIZE };

	return fill_bytes(c, FRAME_HEADER_SIZE, &x, why, whylen);
}

/* Drop `len` payload bytes, buffered ones first; SERVE_CLOSED on success. */
static enum serve_end drop_payload(struct conn *c, uint32_t len, char *why, size_t whylen)
{
	const struct xfer x = { "request payload", len };
	size_t buffered = c->end - c->start;
	uint32_t done = buffered < len ? (uint32_t)buffered : len;

	c->start += done;
	while (done < len) {
		size_t chunk = len - done < SERVE_CHUNK ? len - done : SERVE_CHUNK;
		ssize_t rc = c->io->discard(c->io->ctx, chunk);

		if (rc > 0) {
			done += (uint32_t)rc;
			c->counts->bytes_in += (uint64_t)rc;
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		return io_failed(rc, errno, &x, done, why, whylen);
	}
	return SERVE_CLOSED;
}

static enum serve_end send_all(struct conn *c, const uint8_t *buf, size_t len, int more,
			       const struct xfer *x, uint64_t *done, char *why, size_t whylen)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t rc = c->io->send(c->io->ctx, buf + sent, len - sent, more);

		if (rc > 0) {
			sent += (size_t)rc;
			*done += (uint64_t)rc;
			c->counts->bytes_out += (uint64_t)rc;
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)	/* a send cannot end a stream: treat as reset */
			errno = ECONNRESET;
		return io_failed(-1, errno, x, *done, why, whylen);
	}
	return SERVE_CLOSED;
}

/*
 * Send the reply header and `reply->length` zero bytes.  The header and
 * the first chunk of payload go out in one send: a small reply is one
 * segment.
 */
static enum serve_end send_reply(struct conn *c, const struct frame_header *reply,
				 char *why, size_t whylen)
{
	const struct xfer x = { "reply", (uint64_t)FRAME_HEADER_SIZE + reply->length };
	uint32_t first = reply->length < SERVE_CHUNK ? reply->length : SERVE_CHUNK;
	uint32_t left = reply->length - first;
	uint64_t done = 0;
	enum serve_end end;

	frame_encode(reply, c->out);
	end = send_all(c, c->out, FRAME_HEADER_SIZE + first, left > 0, &x, &done, why, whylen);
	while (end == SERVE_CLOSED && left > 0) {
		uint32_t n = left < SERVE_CHUNK ? left : SERVE_CHUNK;

		left -= n;
		end = send_all(c, c->out + FRAME_HEADER_SIZE, n, left > 0, &x, &done, why, whylen);
	}
	return end;
}

/* A header failed the checks: tell the client (best effort), then end. */
static enum serve_end reject(struct conn *c, const struct frame_header *req, int status,
			     const char *problem, char *why, size_t whylen)
{
	struct frame_header reply;

	frame_reply(&reply, req, (uint32_t)status, 0);
	frame_encode(&reply, c->out);
	if (c->io->send(c->io->ctx, c->out, FRAME_HEADER_SIZE, 0) == FRAME_HEADER_SIZE)
		c->counts->bytes_out += FRAME_HEADER_SIZE;
	snprintf(why, whylen, "%s", problem);
	return SERVE_PROTOCOL;
}

#define GO_ON (-1)

/* Serve one request: GO_ON, or how the connection ended. */
static int serve_one(struct conn *c, char *why, size_t whylen)
{
	struct frame_header req, reply;
	enum serve_end end;
	char problem[160];
	int rc, status;

	rc = fill_header(c, why, whylen);
	if (rc < 0)
		return SERVE_CLOSED;
	if (rc > 0)
		return rc - 1;
	frame_decode(c->in + c->start, &req);
	c->start += FRAME_HEADER_SIZE;
	status = frame_check(&req, FRAME_REQUEST, problem, sizeof(problem));
	if (status != PROTO_OK)
		return reject(c, &req, status, problem, why, whylen);
	end = drop_payload(c, req.length, why, whylen);
	if (end != SERVE_CLOSED)
		return end;
	set_phase(c, SERVE_PHASE_REPLY);
	if (proto_op_known(req.op)) {
		frame_reply(&reply, &req, PROTO_OK, req.want);
	} else {
		frame_reply(&reply, &req, PROTO_ERR_OP, 0);
		c->counts->bad_ops++;
	}
	end = send_reply(c, &reply, why, whylen);
	if (end != SERVE_CLOSED)
		return end;
	c->counts->requests++;
	return GO_ON;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Serve one request of the classic (dbench 4.0/5.0) wire: a 4-byte
 * big-endian length n, then n bytes whose first 4 are the big-endian
 * length of the reply wanted; the reply is that length and as many bytes.
 * GO_ON, or how the connection ended.
 */
static int serve_classic(struct conn *c, char *why, size_t whylen)
{
	static const struct xfer x = { "classic header", 8 };
	const struct xfer r = { "reply", 0 };
	uint32_t len, want, first, left;
	uint64_t done = 0;
	enum serve_end end;
	int rc;

	rc = fill_bytes(c, 8, &x, why, whylen);
	if (rc < 0)
		return SERVE_CLOSED;
	if (rc > 0)
		return rc - 1;
	len = get_be32(c->in + c->start);
	want = get_be32(c->in + c->start + 4);
	if (len < 4 || len > FRAME_MAX_PAYLOAD || want > FRAME_MAX_PAYLOAD) {
		snprintf(why, whylen,
			 "classic frame of %u bytes wanting a %u-byte reply (lengths are 4 to %u)",
			 len, want, FRAME_MAX_PAYLOAD);
		return SERVE_PROTOCOL;
	}
	c->start += 8;
	end = drop_payload(c, len - 4, why, whylen);
	if (end != SERVE_CLOSED)
		return end;
	set_phase(c, SERVE_PHASE_REPLY);
	/* the length goes just before the zeros of the output buffer, so
	 * that it and the first chunk leave in one send */
	first = want < SERVE_CHUNK ? want : SERVE_CHUNK;
	left = want - first;
	c->out[FRAME_HEADER_SIZE - 4] = (uint8_t)(want >> 24);
	c->out[FRAME_HEADER_SIZE - 3] = (uint8_t)(want >> 16);
	c->out[FRAME_HEADER_SIZE - 2] = (uint8_t)(want >> 8);
	c->out[FRAME_HEADER_SIZE - 1] = (uint8_t)want;
	end = send_all(c, c->out + FRAME_HEADER_SIZE - 4, 4 + first, left > 0, &r, &done, why, whylen);
	while (end == SERVE_CLOSED && left > 0) {
		uint32_t n = left < SERVE_CHUNK ? left : SERVE_CHUNK;

		left -= n;
		end = send_all(c, c->out + FRAME_HEADER_SIZE, n, left > 0, &r, &done, why, whylen);
	}
	if (end != SERVE_CLOSED)
		return end;
	c->counts->requests++;
	return GO_ON;
}

enum serve_end serve_connection(const struct serve_io *io, struct serve_counts *counts,
				char *why, size_t whylen)
{
	static const struct xfer x = { "header", FRAME_HEADER_SIZE };	/* either format's */
	struct conn *c;
	int rc;

	memset(counts, 0, sizeof(*counts));
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, whylen, "out of memory");
		return SERVE_IO;
	}
	c->io = io;
	c->counts = counts;
	/* The first 4 bytes tell the formats apart: ours start with the
	 * magic, a classic frame with its length (never near 0x7462656e). */
	rc = fill_bytes(c, 4, &x, why, whylen);
	if (rc != 0) {
		free(c);
		return rc < 0 ? SERVE_CLOSED : (enum serve_end)(rc - 1);
	}
	counts->classic = get_be32(c->in + c->start) != FRAME_MAGIC;
	do {
		rc = counts->classic ? serve_classic(c, why, whylen) : serve_one(c, why, whylen);
	} while (rc == GO_ON);
	free(c);
	return (enum serve_end)rc;
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
	c->reply_total = hdrlen + zeros;
	c->reply_sent = 0;
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
	c->reply_sent += (uint32_t)n;
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

/* Where the connection stood, as serve_connection() says it. */
static void where(const struct serve_conn *c, struct xfer *x, uint64_t *done)
{
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
		*x = (struct xfer){ "reply", c->reply_total };
		*done = c->reply_sent;
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
