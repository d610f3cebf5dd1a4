/*
 * t2l.h - dbench-trace2load: turn an NFSv3 or SMB2 capture into a loadfile.
 *
 * The parts: json.c reads tshark's JSON packet trees from a pipe; the
 * protocol state lives in the project's hash map (src/hmap.h); queue.c
 * keeps the calls in the order they were made until each has its reply,
 * then writes them out; nfs.c and smb2.c know the protocols; trace2load.c
 * runs tshark and the loop.  Every field of a packet is untrusted text:
 * lengths are bounded and numbers are checked before use.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_T2L_H
#define DBENCH_T2L_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

#include "hmap.h"
#include "util.h"

#define T2L_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation and fatal errors are util.h's (xcalloc, xrealloc, xstrdup,
 * xstrndup; die(EXIT_USAGE, ...) for "dbench-trace2load: message", exit 2). */

/* ---- json.c: tshark -T json, one packet at a time ---- */

/* One member of an object or element of an array.  tshark writes every
 * field as a string, and repeats a key when a protocol tree holds the same
 * field twice (two RPCs in one frame, the entries of a directory listing):
 * the tree keeps every member in order, duplicates included. */
struct jnode {
	const char *key;	/* member name; "" for array elements */
	const char *value;	/* scalar text, NUL-terminated; NULL for objects, arrays */
	size_t value_len;	/* length of value (it may hold NUL bytes) */
	bool truncated;		/* value was longer than JSON_MAX_STRING */
	struct jnode *first;	/* first child of an object or array */
	struct jnode *next;	/* next sibling */
};

#define JSON_MAX_STRING 4096	/* longer strings (packet data) are cut */
#define JSON_MAX_DEPTH 128	/* deeper nesting is an error */
#define JSON_MAX_NODES 4000000	/* nodes in one packet */

struct json_reader;

struct json_reader *json_open(int fd);
void json_close(struct json_reader *r);
/* Read the next packet (an element of the top-level array).  Returns 1 and
 * sets *packet (valid until the next call), 0 at the end of the array (or
 * when there was no output at all), -1 on malformed input (json_error()). */
int json_next(struct json_reader *r, const struct jnode **packet);
const char *json_error(const struct json_reader *r);

/* The first node named key in the subtree below n (depth first), or NULL. */
const struct jnode *jfind(const struct jnode *n, const char *key);
/* The first direct child of n named key, or NULL. */
const struct jnode *jchild(const struct jnode *n, const char *key);
/* The value of jfind(n, key), or NULL when missing or not a scalar. */
const char *jstr(const struct jnode *n, const char *key);
/* Number (decimal or 0x hex) of jfind(n, key); false when missing or bad. */
bool jnum(const struct jnode *n, const char *key, uint64_t *out);
/* Parse a whole string as a decimal or 0x hex number. */
bool parse_number(const char *s, uint64_t *out);
/* Colon-separated hex bytes ("43:00:1f") into buf; returns the length, or
 * -1 when the text is not hex bytes or longer than max. */
int parse_hex_bytes(const char *s, uint8_t *buf, size_t max);

/* ---- what a packet carries: the endpoints of its conversation ---- */

struct endpoint {
	uint8_t addr[16];	/* IPv4 (mapped into IPv6) or IPv6 address */
	uint16_t port;		/* TCP or UDP port */
};

/* Who talks to whom, client first: the key prefix of every call. */
struct conversation {
	struct endpoint client;	/* the side that sends calls */
	struct endpoint server;	/* the side that sends replies */
};

struct packet {
	uint64_t frame;		/* frame number in the capture */
	int64_t t_ns;		/* capture time, ns since the epoch */
	struct endpoint src;	/* sender */
	struct endpoint dst;	/* receiver */
	bool have_addr;		/* src/dst were found */
};

/* Text of an address ("10.0.0.1", "fe80::1") into buf (64 bytes). */
const char *endpoint_addr_text(const struct endpoint *e, char *buf);
/* Parse an IPv4 or IPv6 address into e->addr; false if it is neither. */
bool parse_addr(const char *text, uint8_t addr[16]);

/* ---- options ---- */

enum t2l_protocol { PROTO_AUTO, PROTO_NFS, PROTO_SMB2 };

struct t2l_options {
	const char *capture;		/* the capture file */
	const char *output;		/* -o FILE, NULL: stdout */
	const char *tshark;		/* the tshark program */
	const char *root;		/* --root, NULL: from the mount/tree connect */
	bool have_client, have_server;	/* --client/--server given */
	uint8_t client[16], server[16];	/* their addresses */
	const char *client_text;	/* as given */
	const char *server_text;
	bool zero_timestamps;		/* --zero-timestamps */
	bool header;			/* --header (default) / --no-header */
	bool gzip;			/* --gzip */
	bool quiet;			/* --quiet: no summary */
	enum t2l_protocol protocol;	/* --protocol */
	int nfs_ports[8];		/* --nfs-port: decode these as RPC */
	int n_nfs_ports;
	int smb_ports[8];		/* --smb-port: decode these as SMB (NBSS) */
	int n_smb_ports;
	int rpc_ports[16];		/* learned from the capture's portmapper replies */
	int n_rpc_ports;
	uint64_t reply_timeout_ns;	/* a call without a reply this long is given up */
	uint64_t max_waiting;		/* --max-waiting: so is one with this many calls
					   queued behind it */
};

/* ---- queue.c: calls in call order, written when complete ---- */

/* Why a call was not converted: each reason is counted in the summary. */
enum skip_reason {
	SKIP_NO_OP,		/* the loadfile has no op for it */
	SKIP_SESSION,		/* session set-up, done by the backend itself */
	SKIP_UNKNOWN_HANDLE,	/* a handle or fid whose name was never seen */
	SKIP_OUTSIDE_ROOT,	/* a path outside --root */
	SKIP_BAD_NAME,		/* a name the loadfile cannot hold */
	SKIP_NO_REPLY,		/* the reply is not in the capture */
	SKIP_REJECTED,		/* the server rejected the RPC itself */
	SKIP_CONTINUATION,	/* the rest of a listing already converted */
	SKIP_OTHER_PROTOCOL,	/* the other protocol of a mixed capture */
	SKIP_FOLDED,		/* part of a path op written as one line */
	SKIP_REASONS
};

struct record;
struct t2l;

/* How the summary names a skip reason ("with no loadfile op"). */
const char *skip_reason_text(enum skip_reason why);

/* A protocol's way of writing one of its records (at flush time, in call
 * order, where it also applies the record's effect on its state). */
typedef void (*render_fn)(struct record *rec, struct t2l *t);
typedef void (*release_fn)(struct record *rec);
/* May a complete record be written now, or does it wait for later calls
 * (an SMB2 open whose use decides how it is written)? */
typedef bool (*ready_fn)(struct record *rec, struct t2l *t);

struct record {
	struct record *next;	/* the next call in call order */
	uint64_t frame;		/* frame of the call */
	int64_t t_ns;		/* time of the call */
	bool done;		/* the reply was seen (or will never be) */
	bool replied;		/* a reply was seen */
	uint32_t status;	/* the reply's status */
	unsigned char key[64];	/* its key in the pending map */
	size_t keylen;
	render_fn render;	/* write it */
	ready_fn ready;		/* NULL, or: may it be written now? */
	release_fn release;	/* free its payload */
	void *payload;		/* the protocol's call and reply fields */
};

/* Summary counters. */
struct t2l_counts {
	uint64_t packets;		/* packets read from tshark */
	uint64_t calls;			/* calls seen */
	uint64_t lines;			/* operations written */
	uint64_t prologue;		/* lines of the --header prologue */
	uint64_t skipped[SKIP_REASONS];	/* comment lines by reason */
	uint64_t null_calls;		/* NULL procedures dropped */
	uint64_t unmatched_replies;	/* replies to calls not in the capture */
	uint64_t retransmissions;	/* calls seen twice */
	uint64_t interim;		/* SMB2 interim (pending) responses */
	uint64_t smb1;			/* SMB1 messages (not converted) */
	uint64_t filtered;		/* messages of other hosts (--client/--server) */
	uint64_t notifications;		/* server-initiated SMB2 messages */
	uint64_t lost_segments;		/* TCP gaps: the capture dropped packets */
};

struct nfs_state;
struct smb_state;

/* The converter: options, output, the call queue and protocol state. */
struct t2l {
	const struct t2l_options *opt;
	FILE *out;			/* plain output */
	gzFile gz;			/* --gzip output */
	bool out_error;			/* writing failed */
	bool started;			/* first line (and header) written */
	int64_t t0_ns;			/* time of the first call: timestamp 0 */
	bool have_t0;			/* t0_ns is set */
	int64_t last_ts_ns;		/* last timestamp written */
	enum t2l_protocol protocol;	/* the protocol being converted */
	struct record *head, *tail;	/* the queue */
	uint64_t queued;		/* records in the queue */
	struct hmap pending;		/* key -> record waiting for its reply */
	struct t2l_counts n;
	struct nfs_state *nfs;
	struct smb_state *smb;
	char nfs_root_text[1100];	/* --root as NFS, for the header comment */
	char smb_root_text[1400];	/* --root as SMB2, for the header comment */
	bool multiple_clients;		/* calls from more than one client */
	bool have_first_client;
	struct endpoint first_client;	/* the first client seen */
};

/* Queue a call; it waits in `pending` under key until its reply. */
struct record *queue_call(struct t2l *t, const struct packet *pkt, const void *key, size_t keylen,
			  render_fn render, release_fn release, void *payload);
/* The call waiting under key, or NULL. */
struct record *queue_pending(struct t2l *t, const void *key, size_t keylen);
/* The reply came: the record is complete. */
void queue_complete(struct t2l *t, struct record *rec, uint32_t status);
/* Write every complete record at the head; give up on calls older than the
 * reply timeout (now_ns: the time of the packet being read), or with
 * --max-waiting calls queued behind them. */
void queue_flush(struct t2l *t, int64_t now_ns);
/* At the end: every call still waiting is written as "no reply". */
void queue_drain(struct t2l *t);

/* Output, for render functions. */
void out_line(struct t2l *t, const struct record *rec, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void out_skip(struct t2l *t, const struct record *rec, enum skip_reason why, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void out_comment(struct t2l *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The header (comment, optional prologue) before the first line. */
void out_start(struct t2l *t);

/* A name the loadfile can hold: no quote, separator, colon, control or
 * non-ASCII byte, not "." or ".."; at most 255 bytes. */
bool name_is_safe(const char *name);

/* ---- nfs.c, smb2.c ---- */

void nfs_init(struct t2l *t);
void nfs_free(struct t2l *t);
/* One RPC message: its rpc tree and the tree of its program (nfs, mount,
 * nlm), which may be NULL. */
void nfs_message(struct t2l *t, const struct packet *pkt, const struct jnode *rpc,
		 const struct jnode *prog);
void nfs_summary(struct t2l *t, FILE *f);
/* --root for NFS: "[host:]/path"; false when it is not one. */
bool nfs_set_root_option(struct t2l *t, const char *root);

void smb2_init(struct t2l *t);
void smb2_free(struct t2l *t);
void smb2_message(struct t2l *t, const struct packet *pkt, const struct jnode *smb2);
void smb2_summary(struct t2l *t, FILE *f);
/* --root for SMB2: "\\\\server\\share[\\dir]" or "share[\\dir]"; false when it is not one. */
bool smb2_set_root_option(struct t2l *t, const char *root);

/* Is this call one of the conversation the options pick?  Also notes when
 * calls come from more than one client. */
bool conversation_wanted(struct t2l *t, const struct conversation *c);
/* Is this protocol the one being converted (the first one seen, or
 * --protocol)?  Counts the calls of the other one as skipped. */
bool protocol_wanted(struct t2l *t, enum t2l_protocol p);

#endif
