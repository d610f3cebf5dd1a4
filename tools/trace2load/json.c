/*
 * json.c - read tshark's `-T json` output from a pipe, one packet at a time.
 *
 * tshark prints one JSON array whose elements are packets; each packet is a
 * tree of objects whose scalars are all strings.  A general JSON library
 * would not do: tshark repeats keys inside one object (two RPC messages in
 * one TCP segment give two "rpc" members; a directory listing gives one
 * "nfs.readdir.entry" per entry), and a library keeps only one of them.  So
 * this is a small streaming parser that keeps every member in order, builds
 * the tree of one packet in an arena that is reused for the next, and bounds
 * everything: string length (longer strings, i.e. packet data, are cut),
 * nesting depth and the nodes of a packet.  Malformed input is an error with
 * a message, never a crash.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t2l.h"

#define READ_SIZE 65536
#define NODE_BLOCK 4096		/* nodes per arena block */
#define TEXT_BLOCK 262144	/* bytes per text block */

struct node_block {
	struct node_block *next;	/* next block */
	size_t used;			/* nodes handed out */
	struct jnode nodes[NODE_BLOCK];	/* the nodes */
};

struct text_block {
	struct text_block *next;	/* next block */
	size_t used;			/* bytes handed out */
	char text[TEXT_BLOCK];		/* the bytes */
};

struct json_reader {
	int fd;				/* tshark's stdout */
	unsigned char buf[READ_SIZE];	/* read buffer */
	size_t pos, len;		/* unread bytes are buf[pos..len) */
	bool eof;			/* read returned 0 */
	bool started;			/* the opening '[' was read */
	bool finished;			/* the closing ']' was read */
	uint64_t offset;		/* bytes consumed before buf[0] */
	uint64_t packets;		/* packets read */
	size_t nodes;			/* nodes in the current packet */
	struct node_block *nblocks;	/* node arena */
	struct node_block *ncur;	/* block being filled */
	struct text_block *tblocks;	/* text arena */
	struct text_block *tcur;	/* block being filled */
	char scratch[JSON_MAX_STRING + 8]; /* a string being decoded */
	char error[256];		/* why the input is bad */
};

struct json_reader *json_open(int fd)
{
	struct json_reader *r = xcalloc(1, sizeof(*r));

	r->fd = fd;
	return r;
}

void json_close(struct json_reader *r)
{
	if (!r)
		return;
	while (r->nblocks) {
		struct node_block *b = r->nblocks;

		r->nblocks = b->next;
		free(b);
	}
	while (r->tblocks) {
		struct text_block *b = r->tblocks;

		r->tblocks = b->next;
		free(b);
	}
	free(r);
}

const char *json_error(const struct json_reader *r)
{
	return r->error;
}

static int fail(struct json_reader *r, const char *what)
{
	if (!r->error[0])
		snprintf(r->error, sizeof(r->error), "tshark's output is not valid JSON at byte %llu (packet %llu): %s",
			 (unsigned long long)(r->offset + r->pos), (unsigned long long)r->packets + 1, what);
	return -1;
}

/* ---- the arena ---- */

static void arena_reset(struct json_reader *r)
{
	for (struct node_block *b = r->nblocks; b; b = b->next)
		b->used = 0;
	for (struct text_block *b = r->tblocks; b; b = b->next)
		b->used = 0;
	r->ncur = r->nblocks;
	r->tcur = r->tblocks;
	r->nodes = 0;
}

static struct jnode *new_node(struct json_reader *r)
{
	struct jnode *n;

	if (r->nodes >= JSON_MAX_NODES)
		return NULL;
	while (r->ncur && r->ncur->used == NODE_BLOCK)
		r->ncur = r->ncur->next;
	if (!r->ncur) {
		struct node_block *b = xcalloc(1, sizeof(*b));

		b->next = r->nblocks;
		r->nblocks = b;
		r->ncur = b;
	}
	n = &r->ncur->nodes[r->ncur->used++];
	memset(n, 0, sizeof(*n));
	r->nodes++;
	return n;
}

static char *save_text(struct json_reader *r, const char *s, size_t len)
{
	char *p;

	while (r->tcur && TEXT_BLOCK - r->tcur->used < len + 1)
		r->tcur = r->tcur->next;
	if (!r->tcur) {
		struct text_block *b = xcalloc(1, sizeof(*b));

		b->next = r->tblocks;
		r->tblocks = b;
		r->tcur = b;
	}
	p = r->tcur->text + r->tcur->used;
	memcpy(p, s, len);
	p[len] = '\0';
	r->tcur->used += len + 1;
	return p;
}

/* ---- bytes ---- */

static int refill(struct json_reader *r)
{
	ssize_t got;

	if (r->eof)
		return 0;
	r->offset += r->len;
	r->pos = r->len = 0;
	do
		got = read(r->fd, r->buf, sizeof(r->buf));
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		snprintf(r->error, sizeof(r->error), "reading tshark's output: %s", strerror(errno));
		return -1;
	}
	if (got == 0) {
		r->eof = true;
		return 0;
	}
	r->len = (size_t)got;
	return 1;
}

/* The next byte without consuming it; -1 at the end (or on error). */
static int peek(struct json_reader *r)
{
	if (r->pos == r->len && refill(r) <= 0)
		return -1;
	return r->buf[r->pos];
}

static int get(struct json_reader *r)
{
	int c = peek(r);

	if (c >= 0)
		r->pos++;
	return c;
}

static int skip_space(struct json_reader *r)
{
	int c;

	while ((c = peek(r)) == ' ' || c == '\n' || c == '\r' || c == '\t')
		r->pos++;
	return c;
}

/* ---- values ---- */

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int read_u16_escape(struct json_reader *r, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int d = hex_digit(get(r));

		if (d < 0)
			return fail(r, "bad \\u escape");
		v = v * 16 + (unsigned)d;
	}
	*out = v;
	return 0;
}

/* Append a code point as UTF-8 to the scratch string (within the limit). */
static void put_utf8(char *s, size_t *len, bool *cut, unsigned cp)
{
	unsigned char b[4];
	size_t n;

	if (cp == 0)
		cp = 1;		/* keep NUL out of C strings; names with it are refused */
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | (cp >> 6));
		b[1] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | (cp >> 12));
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | (cp >> 18));
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (unsigned char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (*len + n > JSON_MAX_STRING) {
		*cut = true;
		return;
	}
	memcpy(s + *len, b, n);
	*len += n;
}

static int read_escape(struct json_reader *r, size_t *len, bool *cut)
{
	int c = get(r);
	unsigned cp, lo;

	switch (c) {
	case '"': case '\\': case '/':
		put_utf8(r->scratch, len, cut, (unsigned)c);
		return 0;
	case 'b': put_utf8(r->scratch, len, cut, '\b'); return 0;
	case 'f': put_utf8(r->scratch, len, cut, '\f'); return 0;
	case 'n': put_utf8(r->scratch, len, cut, '\n'); return 0;
	case 'r': put_utf8(r->scratch, len, cut, '\r'); return 0;
	case 't': put_utf8(r->scratch, len, cut, '\t'); return 0;
	case 'u':
		break;
	default:
		return fail(r, "bad escape in a string");
	}
	if (read_u16_escape(r, &cp) < 0)
		return -1;
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		/* a surrogate pair: \uD83D\uDE00 */
		if (get(r) != '\\' || get(r) != 'u' || read_u16_escape(r, &lo) < 0 ||
		    lo < 0xDC00 || lo > 0xDFFF)
			return fail(r, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
		return fail(r, "lone low surrogate");
	}
	put_utf8(r->scratch, len, cut, cp);
	return 0;
}

/* A string (the opening quote is next) into the arena. */
static int read_string(struct json_reader *r, const char **out, size_t *outlen, bool *cut)
{
	size_t len = 0;
	int c;

	*cut = false;
	if (get(r) != '"')
		return fail(r, "expected a string");
	for (;;) {
		c = get(r);
		if (c < 0)
			return fail(r, "unterminated string");
		if (c == '"')
			break;
		if (c == '\\') {
			if (read_escape(r, &len, cut) < 0)
				return -1;
			continue;
		}
		if (c < 0x20)
			return fail(r, "control character in a string");
		if (len < JSON_MAX_STRING)
			r->scratch[len++] = (char)c;
		else
			*cut = true;
	}
	*out = save_text(r, r->scratch, len);
	*outlen = len;
	return 0;
}

/* true, false, null or a number: kept as text. */
static int read_bare(struct json_reader *r, struct jnode *n)
{
	size_t len = 0;
	int c;

	while ((c = peek(r)) >= 0 && (c == '-' || c == '+' || c == '.' ||
				      (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
				      (c >= 'A' && c <= 'Z'))) {
		if (len >= 64)
			return fail(r, "overlong bare value");
		r->scratch[len++] = (char)c;
		r->pos++;
	}
	if (len == 0)
		return fail(r, c < 0 ? "unexpected end of input" : "unexpected character");
	n->value = save_text(r, r->scratch, len);
	n->value_len = len;
	return 0;
}

static int read_value(struct json_reader *r, struct jnode *n, int depth);

/* The members of an object or elements of an array, after the opener. */
static int read_container(struct json_reader *r, struct jnode *n, int depth, bool object)
{
	struct jnode **link = &n->first;
	int close = object ? '}' : ']';
	int c = skip_space(r);

	if (c == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		struct jnode *child = new_node(r);

		if (!child)
			return fail(r, "a packet with too many fields");
		child->key = "";
		if (object) {
			size_t klen;
			bool cut;

			if (skip_space(r) != '"')
				return fail(r, "expected a member name");
			if (read_string(r, &child->key, &klen, &cut) < 0)
				return -1;
			if (skip_space(r) != ':')
				return fail(r, "expected ':'");
			r->pos++;
		}
		if (read_value(r, child, depth + 1) < 0)
			return -1;
		*link = child;
		link = &child->next;
		c = skip_space(r);
		if (c == ',') {
			r->pos++;
			continue;
		}
		if (c == close) {
			r->pos++;
			return 0;
		}
		return fail(r, c < 0 ? "unexpected end of input" : object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int read_value(struct json_reader *r, struct jnode *n, int depth)
{
	int c = skip_space(r);

	if (depth > JSON_MAX_DEPTH)
		return fail(r, "nesting too deep");
	switch (c) {
	case '{':
		r->pos++;
		return read_container(r, n, depth, true);
	case '[':
		r->pos++;
		return read_container(r, n, depth, false);
	case '"':
		return read_string(r, &n->value, &n->value_len, &n->truncated);
	case -1:
		return fail(r, "unexpected end of input");
	default:
		return read_bare(r, n);
	}
}

int json_next(struct json_reader *r, const struct jnode **packet)
{
	struct jnode *root;
	int c;

	if (r->finished || r->error[0])
		return r->error[0] ? -1 : 0;
	c = skip_space(r);
	if (!r->started) {
		if (c < 0)
			return r->error[0] ? -1 : 0;	/* no output at all */
		if (c != '[')
			return fail(r, "expected '[' at the start");
		r->pos++;
		r->started = true;
		c = skip_space(r);
		if (c == ']') {
			r->pos++;
			r->finished = true;
			return 0;
		}
	} else {
		if (c == ']') {
			r->pos++;
			r->finished = true;
			return 0;
		}
		if (c != ',')
			return fail(r, c < 0 ? "the output ends in the middle (tshark stopped?)" : "expected ',' between packets");
		r->pos++;
	}
	arena_reset(r);
	root = new_node(r);
	root->key = "";
	if (read_value(r, root, 0) < 0)
		return -1;
	if (!root->first && root->value)
		return fail(r, "a packet is not an object");
	r->packets++;
	*packet = root;
	return 1;
}

/* ---- lookups ---- */

const struct jnode *jchild(const struct jnode *n, const char *key)
{
	if (!n)
		return NULL;
	for (const struct jnode *c = n->first; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const struct jnode *jfind(const struct jnode *n, const char *key)
{
	if (!n)
		return NULL;
	for (const struct jnode *c = n->first; c; c = c->next) {
		const struct jnode *hit;

		if (strcmp(c->key, key) == 0)
			return c;
		if (c->first && (hit = jfind(c, key)))
			return hit;
	}
	return NULL;
}

const char *jstr(const struct jnode *n, const char *key)
{
	const struct jnode *hit = jfind(n, key);

	return hit && hit->value && !hit->truncated ? hit->value : NULL;
}

bool parse_number(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (!s || !*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!s[2] || strlen(s) > 18)
			return false;
		for (i = 2; s[i]; i++) {
			int d = hex_digit((unsigned char)s[i]);

			if (d < 0)
				return false;
			v = v * 16 + (uint64_t)d;
		}
		*out = v;
		return true;
	}
	for (; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		uint64_t d = (uint64_t)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool jnum(const struct jnode *n, const char *key, uint64_t *out)
{
	return parse_number(jstr(n, key), out);
}

int parse_hex_bytes(const char *s, uint8_t *buf, size_t max)
{
	size_t n = 0;

	if (!s)
		return -1;
	while (*s) {
		int hi = hex_digit((unsigned char)s[0]), lo;

		if (hi < 0 || (lo = hex_digit((unsigned char)s[1])) < 0 || n == max)
			return -1;
		buf[n++] = (uint8_t)(hi * 16 + lo);
		s += 2;
		if (*s == ':')
			s++;
		else if (*s)
			return -1;
	}
	return (int)n;
}
