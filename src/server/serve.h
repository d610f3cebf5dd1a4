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

#endif
