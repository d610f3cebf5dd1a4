/*
 * serve.c - the server side of one tbench connection: read a header,
 * check it, drop the payload, answer with the wanted reply; repeat.
 *
 * Framing errors end the connection (after a best-effort error reply, so
 * that a client can say what went wrong); an unknown op in a well-formed
 * frame only gets a PROTO_ERR_OP reply.  Nothing is allocated: the header
 * and one chunk buffer live on the stack.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
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
 * Read the header.  Returns -1 at a clean end (nothing of a new header
 * arrived), 0 when complete, or 1 + enum serve_end on failure.  A timeout
 * before the first byte is idling, not an error.
 */
static int read_header(const struct serve_io *io, uint8_t *wire, struct serve_counts *counts,
		       char *why, size_t whylen)
{
	static const struct xfer x = { "header", FRAME_HEADER_SIZE };
	size_t done = 0;

	while (done < FRAME_HEADER_SIZE) {
		ssize_t rc = io->recv(io->ctx, wire + done, FRAME_HEADER_SIZE - done);

		if (rc > 0) {
			done += (size_t)rc;
			counts->bytes_in += (uint64_t)rc;
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		if (done == 0 && rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (done == 0 && rc == 0) {
			snprintf(why, whylen, "client closed the connection");
			return -1;
		}
		return 1 + io_failed(rc, errno, &x, done, why, whylen);
	}
	return 0;
}

/* Drop `len` payload bytes; SERVE_CLOSED on success. */
static enum serve_end drop_payload(const struct serve_io *io, uint32_t len,
				   struct serve_counts *counts, char *why, size_t whylen)
{
	const struct xfer x = { "request payload", len };
	uint32_t done = 0;

	while (done < len) {
		size_t chunk = len - done < SERVE_CHUNK ? len - done : SERVE_CHUNK;
		ssize_t rc = io->discard(io->ctx, chunk);

		if (rc > 0) {
			done += (uint32_t)rc;
			counts->bytes_in += (uint64_t)rc;
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		return io_failed(rc, errno, &x, done, why, whylen);
	}
	return SERVE_CLOSED;
}

static enum serve_end send_all(const struct serve_io *io, const uint8_t *buf, size_t len,
			       int more, const struct xfer *x, uint64_t *done,
			       struct serve_counts *counts, char *why, size_t whylen)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t rc = io->send(io->ctx, buf + sent, len - sent, more);

		if (rc > 0) {
			sent += (size_t)rc;
			*done += (uint64_t)rc;
			counts->bytes_out += (uint64_t)rc;
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

/* Send the reply header and `reply->length` bytes from `chunk`. */
static enum serve_end send_reply(const struct serve_io *io, const struct frame_header *reply,
				 const uint8_t *chunk, struct serve_counts *counts,
				 char *why, size_t whylen)
{
	const struct xfer x = { "reply", (uint64_t)FRAME_HEADER_SIZE + reply->length };
	uint8_t wire[FRAME_HEADER_SIZE];
	uint64_t done = 0;
	uint32_t left = reply->length;
	enum serve_end end;

	frame_encode(reply, wire);
	end = send_all(io, wire, sizeof(wire), left > 0, &x, &done, counts, why, whylen);
	while (end == SERVE_CLOSED && left > 0) {
		uint32_t n = left < SERVE_CHUNK ? left : SERVE_CHUNK;

		left -= n;
		end = send_all(io, chunk, n, left > 0, &x, &done, counts, why, whylen);
	}
	return end;
}

/* A header failed the checks: tell the client (best effort), then end. */
static enum serve_end reject(const struct serve_io *io, const struct frame_header *req,
			     int status, const char *problem, struct serve_counts *counts,
			     char *why, size_t whylen)
{
	struct frame_header reply;
	uint8_t wire[FRAME_HEADER_SIZE];

	frame_reply(&reply, req, (uint32_t)status, 0);
	frame_encode(&reply, wire);
	if (io->send(io->ctx, wire, sizeof(wire), 0) == (ssize_t)sizeof(wire))
		counts->bytes_out += sizeof(wire);
	snprintf(why, whylen, "%s", problem);
	return SERVE_PROTOCOL;
}

enum serve_end serve_connection(const struct serve_io *io, struct serve_counts *counts,
				char *why, size_t whylen)
{
	uint8_t chunk[SERVE_CHUNK];
	uint8_t wire[FRAME_HEADER_SIZE];
	struct frame_header req, reply;
	char problem[160];

	memset(counts, 0, sizeof(*counts));
	memset(chunk, 0, sizeof(chunk));
	for (;;) {
		enum serve_end end;
		int rc = read_header(io, wire, counts, why, whylen);
		int status;

		if (rc < 0)
			return SERVE_CLOSED;
		if (rc > 0)
			return (enum serve_end)(rc - 1);
		frame_decode(wire, &req);
		status = frame_check(&req, FRAME_REQUEST, problem, sizeof(problem));
		if (status != PROTO_OK)
			return reject(io, &req, status, problem, counts, why, whylen);
		end = drop_payload(io, req.length, counts, why, whylen);
		if (end != SERVE_CLOSED)
			return end;
		if (proto_op_known(req.op)) {
			frame_reply(&reply, &req, PROTO_OK, req.want);
		} else {
			frame_reply(&reply, &req, PROTO_ERR_OP, 0);
			counts->bad_ops++;
		}
		end = send_reply(io, &reply, chunk, counts, why, whylen);
		if (end != SERVE_CLOSED)
			return end;
		counts->requests++;
	}
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
	}
	return "?";
}
