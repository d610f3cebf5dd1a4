/*
 * tbench_wire.c - the tbench wire format: header encoding, the one validation
 * both sides use, the per-op wire sizes, and socket-option parsing.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "tbench_wire.h"

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htons(v);
	memcpy(p, &v, 2);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return ntohs(v);
}

void frame_encode(const struct frame_header *h, uint8_t wire[FRAME_HEADER_SIZE])
{
	put32(wire + 0, h->magic);
	put16(wire + 4, h->version);
	put16(wire + 6, h->op);
	put32(wire + 8, h->flags);
	put32(wire + 12, h->seq);
	put32(wire + 16, h->length);
	put32(wire + 20, h->want);
	put32(wire + 24, h->status);
	put32(wire + 28, h->reserved);
}

void frame_decode(const uint8_t wire[FRAME_HEADER_SIZE], struct frame_header *h)
{
	h->magic = get32(wire + 0);
	h->version = get16(wire + 4);
	h->op = get16(wire + 6);
	h->flags = get32(wire + 8);
	h->seq = get32(wire + 12);
	h->length = get32(wire + 16);
	h->want = get32(wire + 20);
	h->status = get32(wire + 24);
	h->reserved = get32(wire + 28);
}

int frame_check(const struct frame_header *h, enum frame_dir dir,
		char *why, size_t whylen)
{
	int is_reply = (h->flags & FRAME_F_REPLY) != 0;

	if (h->magic != FRAME_MAGIC) {
		snprintf(why, whylen, "bad magic 0x%08x (want 0x%08x): not a tbench peer",
			 h->magic, FRAME_MAGIC);
		return PROTO_ERR_FRAME;
	}
	if (h->version != PROTO_VERSION) {
		snprintf(why, whylen, "protocol version %u, this side speaks %u",
			 h->version, PROTO_VERSION);
		return PROTO_ERR_VERSION;
	}
	if (h->flags & ~FRAME_F_KNOWN) {
		snprintf(why, whylen, "unknown flags 0x%x", h->flags & ~FRAME_F_KNOWN);
		return PROTO_ERR_FRAME;
	}
	if (is_reply != (dir == FRAME_REPLY)) {
		snprintf(why, whylen, "got a %s where a %s was due",
			 is_reply ? "reply" : "request", dir == FRAME_REPLY ? "reply" : "request");
		return PROTO_ERR_FRAME;
	}
	if (h->reserved != 0) {
		snprintf(why, whylen, "reserved field is 0x%x, not 0", h->reserved);
		return PROTO_ERR_FRAME;
	}
	if (h->length > FRAME_MAX_PAYLOAD) {
		snprintf(why, whylen, "payload length %u over the limit of %u",
			 h->length, FRAME_MAX_PAYLOAD);
		return PROTO_ERR_FRAME;
	}
	if (dir == FRAME_REQUEST && h->want > FRAME_MAX_PAYLOAD) {
		snprintf(why, whylen, "wanted reply length %u over the limit of %u",
			 h->want, FRAME_MAX_PAYLOAD);
		return PROTO_ERR_FRAME;
	}
	if (dir == FRAME_REQUEST && h->status != 0) {
		snprintf(why, whylen, "request carries status %u, not 0", h->status);
		return PROTO_ERR_FRAME;
	}
	if (dir == FRAME_REPLY && h->want != 0) {
		snprintf(why, whylen, "reply carries a wanted length (%u), not 0", h->want);
		return PROTO_ERR_FRAME;
	}
	return PROTO_OK;
}

int frame_check_reply(const struct frame_header *reply,
		      const struct frame_header *request,
		      char *why, size_t whylen)
{
	if (reply->seq != request->seq) {
		snprintf(why, whylen, "reply has sequence number %u, request had %u",
			 reply->seq, request->seq);
		return -1;
	}
	if (reply->op != request->op) {
		snprintf(why, whylen, "reply is for op %s, request was %s",
			 proto_op_name(reply->op), proto_op_name(request->op));
		return -1;
	}
	if (reply->status >= PROTO_STATUS_COUNT) {
		snprintf(why, whylen, "reply has unknown status %u", reply->status);
		return -1;
	}
	if (reply->status != PROTO_OK && reply->length != 0) {
		snprintf(why, whylen, "error reply (%s) carries %u payload bytes",
			 proto_status_name(reply->status), reply->length);
		return -1;
	}
	if (reply->status == PROTO_OK && reply->length != request->want) {
		snprintf(why, whylen, "reply carries %u payload bytes, %u were asked for",
			 reply->length, request->want);
		return -1;
	}
	return 0;
}

void frame_request(struct frame_header *h, uint16_t op, uint32_t seq,
		   uint32_t length, uint32_t want)
{
	*h = (struct frame_header){
		.magic = FRAME_MAGIC,
		.version = PROTO_VERSION,
		.op = op,
		.seq = seq,
		.length = length,
		.want = want,
	};
}

void frame_reply(struct frame_header *h, const struct frame_header *req,
		 uint32_t status, uint32_t length)
{
	*h = (struct frame_header){
		.magic = FRAME_MAGIC,
		.version = PROTO_VERSION,
		.op = req->op,
		.flags = FRAME_F_REPLY,
		.seq = req->seq,
		.length = length,
		.status = status,
	};
}

void frame_encode_exchange(uint16_t op, uint32_t seq, uint32_t length, uint32_t want,
			   uint8_t req_wire[FRAME_HEADER_SIZE],
			   uint8_t ok_wire[FRAME_HEADER_SIZE])
{
	struct frame_header req, ok;

	frame_request(&req, op, seq, length, want);
	frame_reply(&ok, &req, PROTO_OK, want);
	frame_encode(&req, req_wire);
	frame_encode(&ok, ok_wire);
}

/* Per op: its name and the fixed parts of its SMB1-shaped sizes. */
struct op_wire {
	const char *name;	/* as the loadfile spells it */
	uint16_t request;	/* fixed request payload bytes */
	uint16_t reply;		/* fixed reply payload bytes */
	uint8_t names;		/* UTF-16 names the request carries (0-2) */
	uint8_t data;		/* where `count` data bytes go, enum below */
	uint16_t entry;		/* reply bytes per counted entry (FIND_FIRST) */
};

enum { DATA_NONE, DATA_REQUEST, DATA_REPLY };

/*
 * Fixed sizes: SMB1 WordCount byte + parameter words + ByteCount, plus
 * alignment pads and the fixed Trans2 parameter/data blocks; names are
 * added as UTF-16 with a terminator.  Close to what a capture shows; the
 * exact figures matter less than their being fixed and documented.
 */
static const struct op_wire op_wire[PROTO_OP_MAX + 1] = {
	[PROTO_OP_PING] = { "Ping", 0, 0, 0, DATA_REPLY, 0 },
	[PROTO_OP_NTCREATEX] = { "NTCreateX", 52, 71, 1, DATA_NONE, 0 },
	[PROTO_OP_CLOSE] = { "Close", 9, 3, 0, DATA_NONE, 0 },
	[PROTO_OP_RENAME] = { "Rename", 8, 3, 2, DATA_NONE, 0 },
	[PROTO_OP_UNLINK] = { "Unlink", 6, 3, 1, DATA_NONE, 0 },
	[PROTO_OP_DELTREE] = { "Deltree", 6, 3, 1, DATA_NONE, 0 },
	[PROTO_OP_MKDIR] = { "Mkdir", 4, 3, 1, DATA_NONE, 0 },
	[PROTO_OP_RMDIR] = { "Rmdir", 4, 3, 1, DATA_NONE, 0 },
	[PROTO_OP_QPATHINFO] = { "QUERY_PATH_INFORMATION", 42, 100, 1, DATA_NONE, 0 },
	[PROTO_OP_QFILEINFO] = { "QUERY_FILE_INFORMATION", 40, 100, 0, DATA_NONE, 0 },
	[PROTO_OP_QFSINFO] = { "QUERY_FS_INFORMATION", 38, 52, 0, DATA_NONE, 0 },
	[PROTO_OP_SFILEINFO] = { "SET_FILE_INFORMATION", 84, 28, 0, DATA_NONE, 0 },
	[PROTO_OP_FIND_FIRST] = { "FIND_FIRST", 48, 36, 1, DATA_NONE, 120 },
	[PROTO_OP_WRITEX] = { "WriteX", 32, 15, 0, DATA_REQUEST, 0 },
	[PROTO_OP_READX] = { "ReadX", 27, 28, 0, DATA_REPLY, 0 },
	[PROTO_OP_LOCKX] = { "LockX", 39, 7, 0, DATA_NONE, 0 },
	[PROTO_OP_UNLOCKX] = { "UnlockX", 39, 7, 0, DATA_NONE, 0 },
	[PROTO_OP_FLUSH] = { "Flush", 5, 3, 0, DATA_NONE, 0 },
	[PROTO_OP_OTHER_META] = { "other-meta", 8, 100, 2, DATA_NONE, 0 },
	[PROTO_OP_OTHER_READ] = { "other-read", 24, 28, 1, DATA_REPLY, 0 },
	[PROTO_OP_OTHER_WRITE] = { "other-write", 32, 16, 1, DATA_REQUEST, 0 },
};

int proto_op_known(uint32_t op)
{
	return op <= PROTO_OP_MAX && op_wire[op].name != NULL;
}

const char *proto_op_name(uint32_t op)
{
	return proto_op_known(op) ? op_wire[op].name : "unknown-op";
}

const char *proto_status_name(uint32_t status)
{
	static const char *const names[PROTO_STATUS_COUNT] = {
		[PROTO_OK] = "ok",
		[PROTO_ERR_OP] = "unknown op",
		[PROTO_ERR_VERSION] = "unsupported version",
		[PROTO_ERR_FRAME] = "malformed frame",
		[PROTO_ERR_BUSY] = "server busy (--max-clients)",
	};

	return status < PROTO_STATUS_COUNT ? names[status] : "unknown status";
}

static uint64_t utf16_name(size_t len)
{
	return 2 * ((uint64_t)len + 1);
}

static uint32_t clamp_payload(uint64_t n)
{
	return n > FRAME_MAX_PAYLOAD ? FRAME_MAX_PAYLOAD : (uint32_t)n;
}

void proto_op_sizes(enum proto_op op, size_t pathlen, size_t pathlen2,
		    uint64_t count, int fails, struct proto_sizes *sizes)
{
	const struct op_wire *w;
	uint64_t request, reply;

	if (!proto_op_known(op)) {
		sizes->request = sizes->reply = 0;
		return;
	}
	w = &op_wire[op];
	if (count > FRAME_MAX_PAYLOAD)
		count = FRAME_MAX_PAYLOAD;
	request = w->request;
	reply = w->reply;
	if (w->names >= 1)
		request += utf16_name(pathlen);
	if (w->names >= 2)
		request += utf16_name(pathlen2);
	if (w->data == DATA_REQUEST)
		request += count;
	else if (w->data == DATA_REPLY)
		reply += count;
	reply += (uint64_t)w->entry * count;
	if (fails && op != PROTO_OP_PING)
		reply = PROTO_ERROR_REPLY;
	sizes->request = clamp_payload(request);
	sizes->reply = clamp_payload(reply);
}

void sockopts_init(struct sockopts *so)
{
	*so = (struct sockopts){ .nodelay = -1, .keepalive = -1, .reuseaddr = -1, .broadcast = -1,
				 .tos = -1, .sndtimeo = -1, .rcvtimeo = -1 };
}

/* The largest buffer size accepted; the kernel clamps to its own limits. */
#define SOCKBUF_MAX (1 << 30)

static int parse_value(const char *name, const char *value, long min, long max,
		       long *out, char *why, size_t whylen)
{
	char *end;

	errno = 0;
	*out = strtol(value, &end, 10);
	if (errno || end == value || *end != '\0' || *out < min || *out > max) {
		snprintf(why, whylen, "socket option %s: value '%s' is not a number in %ld..%ld",
			 name, value, min, max);
		return -1;
	}
	return 0;
}

/* dbench 4.0's socket options (its socklib.c list), by kind. */
enum sockopt_kind { SOCKOPT_BOOL, SOCKOPT_ON, SOCKOPT_INT, SOCKOPT_MS };

static const struct {
	const char *name;
	enum sockopt_kind kind;
	int on;			/* SOCKOPT_ON: the value set */
	size_t field;		/* offset in struct sockopts */
	long min, max;
} known_sockopts[] = {
	{ "TCP_NODELAY", SOCKOPT_BOOL, 0, offsetof(struct sockopts, nodelay), 0, 1 },
	{ "SO_KEEPALIVE", SOCKOPT_BOOL, 0, offsetof(struct sockopts, keepalive), 0, 1 },
	{ "SO_REUSEADDR", SOCKOPT_BOOL, 0, offsetof(struct sockopts, reuseaddr), 0, 1 },
	{ "SO_BROADCAST", SOCKOPT_BOOL, 0, offsetof(struct sockopts, broadcast), 0, 1 },
	{ "IPTOS_LOWDELAY", SOCKOPT_ON, 0x10, offsetof(struct sockopts, tos), 0, 0 },
	{ "IPTOS_THROUGHPUT", SOCKOPT_ON, 0x08, offsetof(struct sockopts, tos), 0, 0 },
	{ "SO_SNDBUF", SOCKOPT_INT, 0, offsetof(struct sockopts, sndbuf), 1, SOCKBUF_MAX },
	{ "SO_RCVBUF", SOCKOPT_INT, 0, offsetof(struct sockopts, rcvbuf), 1, SOCKBUF_MAX },
	{ "SO_SNDLOWAT", SOCKOPT_INT, 0, offsetof(struct sockopts, sndlowat), 1, SOCKBUF_MAX },
	{ "SO_RCVLOWAT", SOCKOPT_INT, 0, offsetof(struct sockopts, rcvlowat), 1, SOCKBUF_MAX },
	{ "SO_SNDTIMEO", SOCKOPT_MS, 0, offsetof(struct sockopts, sndtimeo), 0, 86400000 },
	{ "SO_RCVTIMEO", SOCKOPT_MS, 0, offsetof(struct sockopts, rcvtimeo), 0, 86400000 },
};

/* One NAME or NAME=VALUE item. */
static int parse_item(char *item, struct sockopts *so, char *why, size_t whylen)
{
	char *value = strchr(item, '=');
	long v = 1;

	if (value)
		*value++ = '\0';
	for (size_t i = 0; i < sizeof(known_sockopts) / sizeof(known_sockopts[0]); i++) {
		int *field;

		if (strcmp(item, known_sockopts[i].name) != 0)
			continue;
		field = (int *)((char *)so + known_sockopts[i].field);
		switch (known_sockopts[i].kind) {
		case SOCKOPT_ON:
			if (value) {
				snprintf(why, whylen, "socket option %s takes no value", item);
				return -1;
			}
			v = known_sockopts[i].on;
			break;
		case SOCKOPT_INT:
		case SOCKOPT_MS:
			if (!value) {
				snprintf(why, whylen, "socket option %s needs a value: %s=%s", item, item,
					 known_sockopts[i].kind == SOCKOPT_MS ? "MILLISECONDS" : "BYTES");
				return -1;
			}
			/* fall through */
		case SOCKOPT_BOOL:
			if (value && parse_value(item, value, known_sockopts[i].min, known_sockopts[i].max,
						 &v, why, whylen) < 0)
				return -1;
			break;
		}
		*field = (int)v;
		return 0;
	}
	snprintf(why, whylen,
		 "unknown socket option '%s' (known: TCP_NODELAY SO_KEEPALIVE SO_REUSEADDR SO_BROADCAST "
		 "IPTOS_LOWDELAY IPTOS_THROUGHPUT SO_SNDBUF=n SO_RCVBUF=n SO_SNDLOWAT=n SO_RCVLOWAT=n "
		 "SO_SNDTIMEO=ms SO_RCVTIMEO=ms)",
		 item);
	return -1;
}

int sockopts_parse(const char *text, struct sockopts *so, char *why, size_t whylen)
{
	char *copy, *item, *save = NULL;
	int rc = 0;

	if (!text || !*text)
		return 0;
	copy = strdup(text);
	if (!copy) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (item = strtok_r(copy, ", \t", &save); item; item = strtok_r(NULL, ", \t", &save)) {
		rc = parse_item(item, so, why, whylen);
		if (rc < 0)
			break;
	}
	free(copy);
	return rc;
}

static int set_int(int fd, int level, int name, const char *label, int value,
		   char *why, size_t whylen)
{
	if (setsockopt(fd, level, name, &value, sizeof(value)) == 0)
		return 0;
	snprintf(why, whylen, "setsockopt %s=%d: %s", label, value, strerror(errno));
	return -1;
}

int sockopts_apply(int fd, const struct sockopts *so, char *why, size_t whylen)
{
	if (so->nodelay >= 0 &&
	    set_int(fd, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY", so->nodelay, why, whylen) < 0)
		return -1;
	if (so->keepalive >= 0 &&
	    set_int(fd, SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE", so->keepalive, why, whylen) < 0)
		return -1;
	if (so->sndbuf > 0 &&
	    set_int(fd, SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF", so->sndbuf, why, whylen) < 0)
		return -1;
	if (so->rcvbuf > 0 &&
	    set_int(fd, SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF", so->rcvbuf, why, whylen) < 0)
		return -1;
	if (so->reuseaddr >= 0 &&
	    set_int(fd, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR", so->reuseaddr, why, whylen) < 0)
		return -1;
	if (so->broadcast >= 0 &&
	    set_int(fd, SOL_SOCKET, SO_BROADCAST, "SO_BROADCAST", so->broadcast, why, whylen) < 0)
		return -1;
	if (so->tos >= 0) {
		int domain = AF_INET;
		socklen_t len = sizeof(domain);

		getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len);
		if (domain == AF_INET6 ?
		    set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, "IPV6_TCLASS", so->tos, why, whylen) < 0 :
		    set_int(fd, IPPROTO_IP, IP_TOS, "IP_TOS", so->tos, why, whylen) < 0)
			return -1;
	}
	/* Linux has SO_SNDLOWAT fixed at 1 and refuses to set it (ENOPROTOOPT);
	 * dbench 4.0 warns and goes on, and so the option is accepted here */
	if (so->sndlowat > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDLOWAT, &so->sndlowat,
					   sizeof(so->sndlowat)) < 0 && errno != ENOPROTOOPT) {
		snprintf(why, whylen, "setsockopt SO_SNDLOWAT=%d: %s", so->sndlowat, strerror(errno));
		return -1;
	}
	if (so->rcvlowat > 0 &&
	    set_int(fd, SOL_SOCKET, SO_RCVLOWAT, "SO_RCVLOWAT", so->rcvlowat, why, whylen) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		int ms = i ? so->rcvtimeo : so->sndtimeo;
		struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

		if (ms < 0)
			continue;
		if (setsockopt(fd, SOL_SOCKET, i ? SO_RCVTIMEO : SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
			snprintf(why, whylen, "setsockopt %s=%d: %s", i ? "SO_RCVTIMEO" : "SO_SNDTIMEO", ms,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}
