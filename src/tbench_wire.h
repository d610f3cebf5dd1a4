/*
 * tbench_wire.h - the tbench wire format: what tbench (the sockio backend) and
 * tbench_srv say to each other.
 *
 * tbench makes the TCP and process load a file server sees under a
 * netbench run, without the file system: every loadfile op becomes one
 * request and one reply whose sizes follow what the SMB exchange for that
 * op carries.  The server does no work beyond reading the request and
 * sending back exactly the reply length the client asked for, as if it
 * were infinitely fast.  tbench_srv(1) documents the format in full.
 *
 * Every frame is a fixed 32-byte header (the size of an SMB1 header) in
 * network byte order, followed by `length` payload bytes:
 *
 *   offset size  field
 *        0    4  magic     FRAME_MAGIC ("tben")
 *        4    2  version   PROTO_VERSION
 *        6    2  op        enum proto_op
 *        8    4  flags     FRAME_F_REPLY in replies; other bits zero
 *       12    4  seq       chosen by the client, echoed in the reply
 *       16    4  length    payload bytes after this header (<= FRAME_MAX_PAYLOAD)
 *       20    4  want      request: payload bytes wanted in the reply; reply: 0
 *       24    4  status    reply: enum proto_status; request: 0
 *       28    4  reserved  zero
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_TBENCH_WIRE_H
#define DBENCH_TBENCH_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC 0x7462656eu	/* "tben" */
#define PROTO_VERSION 1
#define FRAME_HEADER_SIZE 32
#define FRAME_MAX_PAYLOAD (16u << 20) /* 16 MiB, either direction */
#define FRAME_F_REPLY 0x1u	/* the frame is a reply */
#define FRAME_F_KNOWN FRAME_F_REPLY /* every flag version 1 defines */

#define TBENCH_DEFAULT_PORT 7003

/*
 * Op codes.  The server treats every known op alike (it reads the request
 * and sends the wanted reply); the code says what the frame stands for, in
 * captures and in the server's per-connection counts.  The values are
 * part of the protocol: never renumber, only append.
 */
enum proto_op {
	PROTO_OP_PING = 1,	/* no file meaning: health checks, tests */
	/* The classic netbench (SMB1) ops. */
	PROTO_OP_NTCREATEX = 16,
	PROTO_OP_CLOSE = 17,
	PROTO_OP_RENAME = 18,
	PROTO_OP_UNLINK = 19,
	PROTO_OP_DELTREE = 20,
	PROTO_OP_MKDIR = 21,
	PROTO_OP_RMDIR = 22,
	PROTO_OP_QPATHINFO = 23,
	PROTO_OP_QFILEINFO = 24,
	PROTO_OP_QFSINFO = 25,
	PROTO_OP_SFILEINFO = 26,
	PROTO_OP_FIND_FIRST = 27,
	PROTO_OP_WRITEX = 28,
	PROTO_OP_READX = 29,
	PROTO_OP_LOCKX = 30,
	PROTO_OP_UNLOCKX = 31,
	PROTO_OP_FLUSH = 32,
	/* Ops of other vocabularies (plain SMB, NFSv3, NLM), by kind. */
	PROTO_OP_OTHER_META = 64, /* small both ways, carries a path */
	PROTO_OP_OTHER_READ = 65, /* small request, data in the reply */
	PROTO_OP_OTHER_WRITE = 66, /* data in the request, small reply */
	PROTO_OP_MAX = PROTO_OP_OTHER_WRITE
};

/* Reply status.  Anything but PROTO_OK comes with an empty payload. */
enum proto_status {
	PROTO_OK = 0,		/* done: the payload is `want` bytes */
	PROTO_ERR_OP = 1,	/* unknown op; the connection goes on */
	PROTO_ERR_VERSION = 2,	/* unsupported version; the reply carries
				   the server's version; connection closed */
	PROTO_ERR_FRAME = 3,	/* malformed header; connection closed */
	PROTO_ERR_BUSY = 4,	/* the server is at --max-clients; closed */
	PROTO_STATUS_COUNT
};

/* A header in host byte order. */
struct frame_header {
	uint32_t magic;		/* FRAME_MAGIC */
	uint16_t version;	/* PROTO_VERSION of the sender */
	uint16_t op;		/* enum proto_op */
	uint32_t flags;		/* FRAME_F_* */
	uint32_t seq;		/* request number, echoed in the reply */
	uint32_t length;	/* payload bytes that follow the header */
	uint32_t want;		/* request: reply payload wanted; reply: 0 */
	uint32_t status;	/* reply: enum proto_status; request: 0 */
	uint32_t reserved;	/* zero */
};

/* What frame_check() expects the frame to be. */
enum frame_dir {
	FRAME_REQUEST,		/* client -> server */
	FRAME_REPLY,		/* server -> client */
};

/* Header <-> wire bytes (network order).  Decoding cannot fail: check. */
void frame_encode(const struct frame_header *h, uint8_t wire[FRAME_HEADER_SIZE]);
void frame_decode(const uint8_t wire[FRAME_HEADER_SIZE], struct frame_header *h);

/*
 * Validate a decoded header as a frame going in direction `dir`.
 * Returns PROTO_OK, PROTO_ERR_VERSION (wrong version, the rest unchecked),
 * or PROTO_ERR_FRAME; on an error writes one line saying why to `why`.
 * An unknown op is not a framing error: see proto_op_known().
 */
int frame_check(const struct frame_header *h, enum frame_dir dir,
		char *why, size_t whylen);

/*
 * Check a reply (already through frame_check) against the request it
 * answers: same op and seq, status known, length == want when the status
 * is PROTO_OK and 0 otherwise.  Returns 0, or -1 with a line in `why`.
 */
int frame_check_reply(const struct frame_header *reply,
		      const struct frame_header *request,
		      char *why, size_t whylen);

/* Fill a request header; fill the reply header answering `req`. */
void frame_request(struct frame_header *h, uint16_t op, uint32_t seq,
		   uint32_t length, uint32_t want);
void frame_reply(struct frame_header *h, const struct frame_header *req,
		 uint32_t status, uint32_t length);

/*
 * A client's hot path: encode the request header into `req_wire` and the
 * header of the PROTO_OK reply answering it into `ok_wire`, so that a
 * reply is checked by comparing 32 bytes; only a reply that differs needs
 * frame_decode() and the checks, to say what is wrong with it.
 */
void frame_encode_exchange(uint16_t op, uint32_t seq, uint32_t length, uint32_t want,
			   uint8_t req_wire[FRAME_HEADER_SIZE],
			   uint8_t ok_wire[FRAME_HEADER_SIZE]);

int proto_op_known(uint32_t op);
const char *proto_op_name(uint32_t op);	/* "ReadX"; "unknown-op" if unknown */
const char *proto_status_name(uint32_t status);

/*
 * Wire sizes of an op, modelled on the SMB1 exchange for it (parameter
 * words, byte counts and UTF-16 names after the 32-byte header): how many
 * payload bytes the request carries and how many the reply should carry.
 * `pathlen` is the length of the op's first path (0 if it has none),
 * `pathlen2` of its second (Rename), `count` the op's data size (ReadX,
 * WriteX) or entry count (FIND_FIRST); `fails`: the op is expected to
 * fail, and the reply is an SMB error response (PROTO_ERROR_REPLY bytes,
 * no data).  Sizes are clamped to FRAME_MAX_PAYLOAD; callers split
 * transfers of more than PROTO_MAX_DATA bytes.
 */
#define PROTO_ERROR_REPLY 3	/* WordCount 0, ByteCount 0 */
#define PROTO_MAX_DATA (FRAME_MAX_PAYLOAD - 4096) /* data bytes in one frame */

struct proto_sizes {
	uint32_t request;	/* request payload bytes */
	uint32_t reply;		/* reply payload bytes wanted */
};
void proto_op_sizes(enum proto_op op, size_t pathlen, size_t pathlen2,
		    uint64_t count, int fails, struct proto_sizes *sizes);

/*
 * Socket options, as tbench's -T / tbench_srv's -t take them (dbench 4.0's
 * list): names separated by commas or spaces, a value after '=' where one
 * is needed: TCP_NODELAY[=0|1], SO_KEEPALIVE[=0|1], SO_REUSEADDR[=0|1],
 * SO_BROADCAST[=0|1], IPTOS_LOWDELAY, IPTOS_THROUGHPUT, SO_SNDBUF=n,
 * SO_RCVBUF=n, SO_SNDLOWAT=n, SO_RCVLOWAT=n, SO_SNDTIMEO=ms, SO_RCVTIMEO=ms.
 */
struct sockopts {
	int nodelay;		/* -1 leave alone, else the TCP_NODELAY value */
	int keepalive;		/* -1 leave alone, else the SO_KEEPALIVE value */
	int reuseaddr;		/* -1 leave alone, else the SO_REUSEADDR value */
	int broadcast;		/* -1 leave alone, else the SO_BROADCAST value */
	int tos;		/* -1 leave alone, else IP_TOS (IPV6_TCLASS) */
	int sndbuf;		/* 0 leave alone, else SO_SNDBUF bytes */
	int rcvbuf;		/* 0 leave alone, else SO_RCVBUF bytes */
	int sndlowat;		/* 0 leave alone, else SO_SNDLOWAT bytes */
	int rcvlowat;		/* 0 leave alone, else SO_RCVLOWAT bytes */
	int sndtimeo;		/* -1 leave alone, else SO_SNDTIMEO in ms */
	int rcvtimeo;		/* -1 leave alone, else SO_RCVTIMEO in ms */
};

void sockopts_init(struct sockopts *so);
/* Parse `text` (NULL or empty: nothing) on top of `so`; 0, or -1 with why. */
int sockopts_parse(const char *text, struct sockopts *so, char *why, size_t whylen);
/* Apply to a socket; 0, or -1 with why (naming the option and errno). */
int sockopts_apply(int fd, const struct sockopts *so, char *why, size_t whylen);

#endif
