/*
 * fuzz_frame.c - libFuzzer target for the tbench frame parser: the header
 * decode and checks both sides use, and the whole server side of a
 * connection (serve.c) fed the input as the byte stream a client sent.
 *
 * Invariants checked beyond "no crash, no sanitizer report": everything
 * the server sends is a sequence of well-formed replies, it never sends
 * more payload than asked for, and it never reads past the input.
 *
 * Build and run: tests/fuzz/run.sh (clang -fsanitize=fuzzer,address).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tbench_wire.h"
#include "server/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The client's byte stream, and a checker for the server's. */
struct mem_conn {
	const uint8_t *in;	/* what the client sent */
	size_t inlen;
	size_t inpos;		/* bytes the server consumed */
	unsigned chunk;		/* largest read to hand out (short reads) */
	unsigned calls;		/* recv/discard calls, for EINTR/EAGAIN */
	int classic;		/* the server speaks dbench 4.0's wire */
	uint8_t hdr[FRAME_HEADER_SIZE]; /* reply header being assembled */
	size_t hdrlen;
	uint64_t payload_left;	/* reply payload still due */
	uint64_t replies;	/* complete reply headers seen */
};

/* Every 7th call is interrupted, every 11th times out: both harmless. */
static int simulate_error(struct mem_conn *m)
{
	m->calls++;
	if (m->calls % 7 == 0) {
		errno = EINTR;
		return 1;
	}
	if (m->calls % 11 == 0) {
		errno = EAGAIN;
		return 1;
	}
	return 0;
}

static ssize_t mem_take(struct mem_conn *m, void *buf, size_t len)
{
	size_t n = m->inlen - m->inpos;

	if (simulate_error(m))
		return -1;
	if (n > len)
		n = len;
	if (n > m->chunk)
		n = m->chunk;
	if (buf)
		memcpy(buf, m->in + m->inpos, n);
	m->inpos += n;
	return (ssize_t)n;
}

static ssize_t mem_recv(void *ctx, void *buf, size_t len)
{
	return mem_take(ctx, buf, len);
}

static ssize_t mem_discard(void *ctx, size_t len)
{
	return mem_take(ctx, NULL, len);
}

static ssize_t mem_send(void *ctx, const void *buf, size_t len, int more)
{
	struct mem_conn *m = ctx;
	const uint8_t *p = buf;
	size_t left = len;
	char why[256];

	while (left > 0) {
		if (m->payload_left > 0) {
			size_t n = left < m->payload_left ? left : (size_t)m->payload_left;

			m->payload_left -= n;
			p += n;
			left -= n;
			continue;
		}
		m->hdr[m->hdrlen++] = *p++;
		left--;
		if (m->classic && m->hdrlen == 4) {
			/* a classic reply: its 4-byte length, then as many bytes */
			uint64_t want = (uint32_t)m->hdr[0] << 24 | (uint32_t)m->hdr[1] << 16 |
					(uint32_t)m->hdr[2] << 8 | m->hdr[3];

			if (want > FRAME_MAX_PAYLOAD)
				abort();	/* longer than the server allows */
			m->payload_left = want;
			m->hdrlen = 0;
			m->replies++;
		} else if (!m->classic && m->hdrlen == FRAME_HEADER_SIZE) {
			struct frame_header h;

			frame_decode(m->hdr, &h);
			if (frame_check(&h, FRAME_REPLY, why, sizeof(why)) != PROTO_OK)
				abort();	/* the server sent a malformed reply */
			m->payload_left = h.length;
			m->hdrlen = 0;
			m->replies++;
		}
	}
	return (ssize_t)len;
}

static void fuzz_header(const uint8_t *data, size_t size)
{
	struct frame_header a, b;
	uint8_t wire[FRAME_HEADER_SIZE];
	char why[64];

	if (size < 2 * FRAME_HEADER_SIZE)
		return;
	frame_decode(data, &a);
	frame_decode(data + FRAME_HEADER_SIZE, &b);
	frame_encode(&a, wire);
	if (memcmp(wire, data, FRAME_HEADER_SIZE) != 0)
		abort();	/* decode/encode must round-trip */
	frame_check(&a, FRAME_REQUEST, why, sizeof(why));
	if (frame_check(&b, FRAME_REPLY, why, sizeof(why)) == PROTO_OK)
		frame_check_reply(&b, &a, why, sizeof(why));
	proto_op_name(a.op);
	proto_status_name(b.status);
}

static void fuzz_sizes_and_sockopts(const uint8_t *data, size_t size)
{
	struct proto_sizes sz;
	struct sockopts so;
	char text[128], why[256];
	uint64_t count = 0;
	size_t n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;

	memcpy(&count, data, size < sizeof(count) ? size : sizeof(count));
	proto_op_sizes((enum proto_op)(size % (PROTO_OP_MAX + 2)), size, n, count, size & 1, &sz);
	if (sz.request > FRAME_MAX_PAYLOAD || sz.reply > FRAME_MAX_PAYLOAD)
		abort();
	memcpy(text, data, n);
	text[n] = '\0';
	sockopts_init(&so);
	sockopts_parse(text, &so, why, sizeof(why));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem_conn m = { .in = data, .inlen = size };
	struct serve_io io = { &m, mem_recv, mem_discard, mem_send };
	struct serve_counts counts;
	char why[256];

	fuzz_header(data, size);
	fuzz_sizes_and_sockopts(data, size);

	m.chunk = size ? 1 + data[size - 1] % 61 : 1;
	/* as the server does: a stream that does not open with our magic is
	 * the classic wire, whose replies are a length and that many bytes */
	m.classic = size >= 4 && ((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
				  (uint32_t)data[2] << 8 | data[3]) != FRAME_MAGIC;
	serve_connection(&io, &counts, why, sizeof(why));
	if (m.inpos > m.inlen || m.hdrlen != 0 || m.payload_left != 0)
		abort();	/* overread, or a reply left unfinished */
	if (counts.bytes_in != m.inpos || m.replies < counts.requests)
		abort();
	return 0;
}
