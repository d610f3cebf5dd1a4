/*
 * queue.c - the calls in the order the client made them, and the output.
 *
 * A call is queued when it is seen and completed when its reply comes;
 * replies may come in any order, but the loadfile must list the calls in
 * call order.  So the queue is written from its head whenever the head is
 * complete, and each record is rendered only then: the protocol modules
 * apply a call's effect on their state (a name learnt, a rename, a handle
 * number taken or freed) at that moment, in call order, which is the order
 * dbench will replay it in.  A call whose reply never comes is written as a
 * comment once it is older than the reply timeout, or --max-waiting later
 * calls wait behind it, or at the end.
 *
 * Every line that holds text from the capture (names in comments) is made
 * printable first, so a hostile name cannot start a line of its own.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "t2l.h"

#define LINE_MAX_TEXT 8192

static const char *const skip_names[SKIP_REASONS] = {
	[SKIP_NO_OP] = "with no loadfile op",
	[SKIP_SESSION] = "session and mount set-up",
	[SKIP_UNKNOWN_HANDLE] = "on handles never named in the capture",
	[SKIP_OUTSIDE_ROOT] = "outside the root",
	[SKIP_BAD_NAME] = "with names a loadfile cannot hold",
	[SKIP_NO_REPLY] = "without a reply",
	[SKIP_REJECTED] = "rejected by the server's RPC layer",
	[SKIP_CONTINUATION] = "continuing a listing",
	[SKIP_OTHER_PROTOCOL] = "of the other protocol",
	[SKIP_FOLDED] = "folded into one Rename, Unlink or Rmdir",
};

const char *skip_reason_text(enum skip_reason why)
{
	return skip_names[why];
}

bool name_is_safe(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > 255 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\' || *p == '/' || *p == ':')
			return false;
	return true;
}

/* ---- writing ---- */

static void write_text(struct t2l *t, const char *s, size_t len)
{
	if (t->out_error)
		return;
	if (t->gz) {
		if (len && gzwrite(t->gz, s, (unsigned)len) != (int)len)
			t->out_error = true;
	} else if (fwrite(s, 1, len, t->out) != len) {
		t->out_error = true;
	}
}

/* Replace what could break a line (control bytes) with '?'. */
static void make_printable(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static void write_timestamp(struct t2l *t, int64_t t_ns, char *buf, size_t size)
{
	int64_t rel = t_ns - t->t0_ns;

	if (rel < 0)
		rel = 0;
	if (rel < t->last_ts_ns)
		rel = t->last_ts_ns;	/* capture clocks may step back a little */
	t->last_ts_ns = rel;
	snprintf(buf, size, "%lld.%06lld ", (long long)(rel / 1000000000),
		 (long long)(rel % 1000000000 / 1000));
}

static void prologue(struct t2l *t, const char *ts)
{
	out_comment(t, "Prologue (--header): every pass starts from an empty client directory.");
	if (t->protocol == PROTO_SMB2) {
		char line[256];

		snprintf(line, sizeof(line),
			 "%sDeltree \"\\clients\\client1\" NT_STATUS_OK\n"
			 "%sMkdir \"\\clients\" *\n"
			 "%sMkdir \"\\clients\\client1\" *\n", ts, ts, ts);
		write_text(t, line, strlen(line));
	} else {
		char line[256];

		snprintf(line, sizeof(line),
			 "%sDeltree \"/clients/client1\" NT_STATUS_OK\n"
			 "%sMKDIR3 \"/clients\" *\n"
			 "%sMKDIR3 \"/clients/client1\" *\n", ts, ts, ts);
		write_text(t, line, strlen(line));
	}
	t->n.prologue = 3;
}

void out_start(struct t2l *t)
{
	char name[512];

	if (t->started)
		return;
	t->started = true;
	snprintf(name, sizeof(name), "%s", t->opt->capture);
	make_printable(name);
	out_comment(t, "dbench loadfile made by dbench-trace2load from %s (%s).", name,
		    t->protocol == PROTO_SMB2 ? "SMB2" : "NFSv3");
	out_comment(t, "Replay: dbench %s -c THIS_FILE NPROCS; see dbench-trace2load(1).",
		    t->protocol == PROTO_SMB2 ? "-B smb --smb-share //SERVER/SHARE" :
						"-B nfs --server SERVER --export /EXPORT");
	if (t->opt->header)
		prologue(t, t->opt->zero_timestamps ? "" : "0.000000 ");
	if (t->protocol == PROTO_SMB2 && t->smb_root_text[0])
		out_comment(t, "%s", t->smb_root_text);
	else if (t->protocol == PROTO_NFS && t->nfs_root_text[0])
		out_comment(t, "%s", t->nfs_root_text);
}

void out_comment(struct t2l *t, const char *fmt, ...)
{
	char text[LINE_MAX_TEXT];
	va_list ap;

	if (!t->started)
		out_start(t);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	make_printable(text);
	write_text(t, "# ", 2);
	write_text(t, text, strlen(text));
	write_text(t, "\n", 1);
}

void out_line(struct t2l *t, const struct record *rec, const char *fmt, ...)
{
	char text[LINE_MAX_TEXT], ts[40] = "";
	va_list ap;

	if (!t->started)
		out_start(t);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	make_printable(text);
	if (!t->opt->zero_timestamps)
		write_timestamp(t, rec->t_ns, ts, sizeof(ts));
	write_text(t, ts, strlen(ts));
	write_text(t, text, strlen(text));
	write_text(t, "\n", 1);
	t->n.lines++;
}

void out_skip(struct t2l *t, const struct record *rec, enum skip_reason why, const char *fmt, ...)
{
	char text[LINE_MAX_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	int64_t rel = rec->t_ns - t->t0_ns;

	if (rel < 0)
		rel = 0;
	out_comment(t, "%lld.%06lld skipped (frame %llu): %s", (long long)(rel / 1000000000),
		    (long long)(rel % 1000000000 / 1000), (unsigned long long)rec->frame, text);
	t->n.skipped[why]++;
}

/* ---- the queue ---- */

struct record *queue_call(struct t2l *t, const struct packet *pkt, const void *key, size_t keylen,
			  render_fn render, release_fn release, void *payload)
{
	struct record *rec = xcalloc(1, sizeof(*rec));

	rec->frame = pkt->frame;
	rec->t_ns = pkt->t_ns;
	rec->render = render;
	rec->release = release;
	rec->payload = payload;
	if (keylen > sizeof(rec->key))
		keylen = sizeof(rec->key);
	rec->keylen = keylen;
	if (keylen) {
		memcpy(rec->key, key, keylen);
		hmap_put(&t->pending, rec->key, keylen, rec);
	}
	if (!t->have_t0) {
		t->t0_ns = pkt->t_ns;
		t->have_t0 = true;
	}
	if (t->tail)
		t->tail->next = rec;
	else
		t->head = rec;
	t->tail = rec;
	t->queued++;
	t->n.calls++;
	return rec;
}

struct record *queue_pending(struct t2l *t, const void *key, size_t keylen)
{
	if (keylen > sizeof(((struct record *)0)->key))
		keylen = sizeof(((struct record *)0)->key);
	return hmap_get(&t->pending, key, keylen);
}

void queue_complete(struct t2l *t, struct record *rec, uint32_t status)
{
	if (rec->keylen)
		hmap_del(&t->pending, rec->key, rec->keylen);
	rec->keylen = 0;
	rec->done = true;
	rec->replied = true;
	rec->status = status;
}

static void write_head(struct t2l *t)
{
	struct record *rec = t->head;

	if (!rec->done && rec->keylen) {
		hmap_del(&t->pending, rec->key, rec->keylen);
		rec->keylen = 0;
	}
	rec->done = true;
	rec->render(rec, t);
	t->head = rec->next;
	if (!t->head)
		t->tail = NULL;
	t->queued--;
	if (rec->release)
		rec->release(rec);
	free(rec->payload);
	free(rec);
}

void queue_flush(struct t2l *t, int64_t now_ns)
{
	while (t->head) {
		struct record *rec = t->head;
		/* the reply of a call that holds up this many later ones is
		 * lost (else the queue would hold everything after a lost reply
		 * for the whole reply timeout: 500,000 calls, 250 MB) */
		bool late = now_ns - rec->t_ns > (int64_t)t->opt->reply_timeout_ns ||
			    t->queued > t->opt->max_waiting;

		if (!late && (!rec->done || (rec->ready && !rec->ready(rec, t))))
			break;
		write_head(t);
	}
}

void queue_drain(struct t2l *t)
{
	while (t->head)
		write_head(t);
}
