/*
 * serve.h - the server side of one tbench connection.
 *
 * serve_connection() reads requests, checks every header, drops the
 * request payload and sends back exactly the reply length each request
 * asks for, until the client goes away or breaks the protocol.  It does
 * its I/O through the callbacks of struct serve_io, so that tbench_srv
 * runs it on a socket and the fuzzer on a buffer.  Memory use is fixed:
 * one input and one output buffer of a chunk each, whatever the client
 * sends.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SERVE_H
#define DBENCH_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tbench_wire.h"

/* Bytes moved per recv/send of payload. */
#define SERVE_CHUNK (64 * 1024)

struct serve_io {
	void *ctx;		/* handed to every callback */
	/* Read up to len bytes: bytes read, 0 at end of stream, or -1 with
	 * errno set (EAGAIN/EWOULDBLOCK: nothing arrived within the timeout). */
	ssize_t (*recv)(void *ctx, void *buf, size_t len);
	/* Read and drop up to len bytes; returns as recv. */
	ssize_t (*discard)(void *ctx, size_t len);
	/* Send up to len bytes (more: the frame goes on after them): bytes
	 * sent, or -1 with errno set (EAGAIN: the client is not reading). */
	ssize_t (*send)(void *ctx, const void *buf, size_t len, int more);
	/* Optional: told what the connection waits for, so that it can bound
	 * each wait as a whole.  A recv or discard that ran out of such a
	 * bound returns -1 with errno ETIME. */
	void (*phase)(void *ctx, int phase);	/* enum serve_phase */
};

enum serve_phase {
	SERVE_PHASE_IDLE,	/* waiting for a request: nothing of it arrived */
	SERVE_PHASE_REQUEST,	/* a request began: until its payload is in */
	SERVE_PHASE_REPLY,	/* sending the reply */
};

struct serve_counts {
	uint64_t requests;	/* requests answered */
	uint64_t bad_ops;	/* of them, with an unknown op */
	uint64_t bytes_in;	/* bytes received, headers included */
	uint64_t bytes_out;	/* bytes sent, headers included */
	int classic;		/* the client spoke the classic (4.0/5.0) wire */
};

/* How a connection ended. */
enum serve_end {
	SERVE_CLOSED,		/* the client closed between frames */
	SERVE_CUT,		/* the connection ended inside a frame */
	SERVE_PROTOCOL,		/* a header failed the checks */
	SERVE_TIMEOUT,		/* stalled inside a frame, or not reading */
	SERVE_IO,		/* an I/O error (reset, ...) */
	SERVE_STOPPED,		/* a signal stopped the server (set by its caller) */
};

/*
 * Serve requests until the connection ends; returns how it ended, with
 * one line of detail in `why` (for SERVE_CLOSED too).  `counts` is
 * zeroed first.
 */
enum serve_end serve_connection(const struct serve_io *io, struct serve_counts *counts,
				char *why, size_t whylen);

const char *serve_end_name(enum serve_end end);

/*
 * The same protocol as a state machine that is handed bytes, for a
 * server that multiplexes many connections in one process: the caller
 * reads what a socket has into a buffer of its own and feeds it, and
 * sends the reply the state machine has ready.  A connection costs this
 * struct (no buffers: a reply is its header and zeros).
 *
 *   - serve_input() consumes request bytes until a reply is ready (or the
 *     connection ends): it returns how many it took; the rest waits until
 *     the reply is out.
 *   - serve_want_discard(): request payload bytes the caller may drop
 *     without reading them (recv MSG_TRUNC), reported with serve_dropped().
 *   - serve_reply_ready(): a reply is to be sent: c->reply[c->reply_off ..
 *     c->reply_len) then c->zeros_left zero bytes; report what went with
 *     serve_sent().  After a protocol error the reply is the error frame,
 *     and the connection ends once it is out (or cannot be sent).
 *   - serve_eof(): the client closed; serve_fail(): a socket error or a
 *     timeout ended it.  Then c->end and c->why say how.
 */
enum serve_state {
	SERVE_S_HEADER,		/* collecting a header */
	SERVE_S_PAYLOAD,	/* dropping a request payload */
	SERVE_S_REPLY,		/* a reply is to be sent */
	SERVE_S_DONE,		/* the connection ended: end, why */
};

struct serve_conn {
	enum serve_state state;
	int format;		/* 0: not known yet, 1: ours, 2: classic */
	int closing;		/* the reply is an error frame: end after it */
	uint8_t hdr[FRAME_HEADER_SIZE]; /* the header collected so far */
	uint32_t have;		/* its bytes */
	uint32_t payload_len;	/* the request's payload */
	uint32_t payload_left;	/* of which still to drop */
	uint8_t reply[FRAME_HEADER_SIZE]; /* the reply's header */
	uint32_t reply_off, reply_len; /* header bytes sent, header bytes */
	uint32_t zeros_left;	/* reply payload still to send (the header
				   says how much there was) */
	enum serve_end end;	/* in SERVE_S_DONE */
	struct serve_counts counts;
	char why[200];		/* in SERVE_S_DONE: one line of detail */
};

void serve_init(struct serve_conn *c);
size_t serve_input(struct serve_conn *c, const uint8_t *buf, size_t len);
static inline uint32_t serve_want_discard(const struct serve_conn *c)
{
	return c->state == SERVE_S_PAYLOAD ? c->payload_left : 0;
}
void serve_dropped(struct serve_conn *c, uint32_t n);
void serve_sent(struct serve_conn *c, size_t n);
void serve_eof(struct serve_conn *c);
/* errno-style failure: err EAGAIN/ETIME (a timeout) or a socket error. */
void serve_fail(struct serve_conn *c, int err);
/* What the connection waits for (enum serve_phase), for its deadlines. */
int serve_phase_of(const struct serve_conn *c);

#endif
