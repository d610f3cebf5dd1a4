/*
 * client.c - one client: the interpreter that replays the compiled
 * program against a backend, paces it, times every op and records the
 * result in the client's own slot of the shared region.
 *
 * The hot path per op is: evaluate numbers (a copy when all are literal),
 * expand the path templates, read the clock, call the handler, read the
 * clock, compare the status, add to the slot.  Nothing is parsed here.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "client.h"
#include "options.h"
#include "region_atomic.h"
#include "region.h"
#include "status.h"
#include "util.h"

void client_init(struct client *c, int id, const struct options *opt, const struct program *prog,
		 const struct backend *be, const void *be_opt, struct shared *sh, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->nclients = opt->nclients;
	c->opt = opt;
	c->prog = prog;
	c->be = be;
	c->be_opt = be_opt;
	c->sh = sh;
	c->slot = shared_slot(sh, id);
	/* the name, the loadfile's client number and the random stream are
	 * the global id: with --mpi, this rank's clients follow the earlier
	 * ranks' (client_base), so on a shared target each has its own tree */
	c->namelen = (size_t)snprintf(c->name, sizeof(c->name), "client%d", opt->client_base + id);
	c->nc.child = opt->client_base + id;
	c->nc.nchildren = opt->clients_total ? opt->clients_total : opt->nclients;
	rng_seed(c->nc.rng, seed, (uint64_t)(opt->client_base + id) + 1);
}

/* A random string may hold '/', '\\', "." and "..": the part of the
 * expanded path from `fixed` is normalized (path_normalize_tail); if it
 * would climb above `fixed` or become the share root, the path is left as
 * it is and the client stops (c->path_escaped) before the op runs. */
static size_t normalize_tail(struct client *c, char *dst, size_t fixed, size_t n)
{
	size_t out;

	if (fixed == SIZE_MAX)
		return n;
	out = path_normalize_tail(dst, fixed, n);
	if (out == SIZE_MAX) {
		c->path_escaped = 1;
		return n;
	}
	return out;
}

/* Expand a path template for this client; returns the length.  Most
 * templates have one client marker and no random string: they are copied
 * in pieces between markers, not byte by byte. */
static size_t expand_path(struct client *c, uint32_t path, char *dst)
{
	const struct path_tpl *t = &c->prog->paths[path];
	const char *src = c->prog->pool + t->off, *end = src + t->len;
	size_t n = 0;

	if (!(t->flags & (PATHF_CLIENT | PATHF_RANDSTR))) {
		memcpy(dst, src, (size_t)t->len + 1);
		return t->len;
	}
	if (!(t->flags & PATHF_RANDSTR)) {
		for (;;) {
			const char *mark = memchr(src, PATH_CLIENT, (size_t)(end - src));
			size_t piece = (size_t)((mark ? mark : end) - src);

			memcpy(dst + n, src, piece);
			n += piece;
			if (!mark)
				break;
			memcpy(dst + n, c->name, c->namelen);
			n += c->namelen;
			src = mark + 1;
		}
		dst[n] = '\0';
		return n;
	}
	size_t fixed = SIZE_MAX;	/* after the last '/' before a random string */

	for (size_t i = 0; i < t->len; i++) {
		if (src[i] == PATH_CLIENT) {
			memcpy(dst + n, c->name, c->namelen);
			n += c->namelen;
		} else if (src[i] == PATH_RANDSTR) {
			int slot = src[++i];

			if (fixed == SIZE_MAX) {
				fixed = n;
				while (fixed > 0 && dst[fixed - 1] != '/')
					fixed--;
			}
			memcpy(dst + n, c->randstr[slot], c->randstr_len[slot]);
			n += c->randstr_len[slot];
		} else {
			dst[n++] = src[i];
		}
	}
	dst[n] = '\0';
	return normalize_tail(c, dst, fixed, n);
}

size_t client_expand(struct client *c, const char *tpl, size_t len, char *dst)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (tpl[i] == PATH_CLIENT) {
			memcpy(dst + n, c->name, c->namelen);
			n += c->namelen;
		} else {
			dst[n++] = tpl[i];
		}
	}
	dst[n] = '\0';
	return n;
}

static void randomstring(struct client *c, const struct op *op)
{
	const char *pat = c->prog->pool + op->num[1];
	size_t len = (size_t)op->num[2], n = 0;
	int slot = (int)op->num[0];

	for (size_t i = 0; i < len && n < 63; i++) {
		if (pat[i] != '[') {
			c->randstr[slot][n++] = pat[i];
			continue;
		}
		/* a [set]: pick one member */
		char members[256];
		size_t m = randstr_set(pat, i, members, &i);

		if (m)	/* the compiler refused empty sets */
			c->randstr[slot][n++] = members[rng_next(c->nc.rng) % m];
	}
	c->randstr[slot][n] = '\0';
	c->randstr_len[slot] = (uint8_t)n;
}

static void report_mismatch(struct client *c, const struct op *op, uint32_t status, bool size_bad)
{
	int shown = region_message_ticket(c->sh);
	const struct op_info *info = &op_info[op->id];
	char b1[STATUS_NAME_SIZE], b2[STATUS_NAME_SIZE];

	if (shown > c->opt->show_mismatches)
		return;
	if (shown == c->opt->show_mismatches) {
		if (c->opt->show_mismatches > 0)
			fprintf(stderr, "%s: further mismatches are counted, not shown\n", c->opt->progname);
		return;
	}
	if (size_bad)
		fprintf(stderr, "%s:%u: %s expected %lld bytes, got %llu (client %d)\n", c->prog->filename,
			op->line, info->name, (long long)c->num[3], (unsigned long long)c->bytes, c->id);
	else
		fprintf(stderr, "%s:%u: %s expected %s, got %s (client %d)\n", c->prog->filename, op->line,
			info->name, expect_name(info->domain, &op->expect, b1),
			status_name(info->domain, status, b2), c->id);
}

static void record(struct client *c, const struct op *op, uint64_t t0, uint64_t t1, bool mismatch,
		   bool error)
{
	struct slot *s = c->slot;
	uint64_t lat = t1 - t0;
	uint64_t sec = (t1 - c->release_ns) / NSEC_PER_SEC;
	struct sec_stat *ss = sec_stat_enter(s, sec);

	slot_count(&s->ops_all, 1);
	slot_count(&s->bytes_all, c->bytes);
	sec_stat_add(ss, c->bytes, lat);
	hist64_add(&s->every, lat);
	if (mismatch)
		slot_count(&s->mismatches_all, 1);
	if (t1 < c->measure_start_ns || t1 >= region_end(c->sh))
		return;

	struct op_stats *os = &s->ops[c->prog->statidx[op->id]];

	op_stats_add(os, lat, c->bytes);
	if (mismatch)
		os->mismatches++;
	if (error)
		os->errors++;
	if (c->sched_ns) {
		op_stats_add(&s->lag, t0 > c->sched_ns ? t0 - c->sched_ns : 0, 0);
		op_stats_add(&s->response, t1 > c->sched_ns ? t1 - c->sched_ns : 0, 0);
	}
	slot_count(&s->ops_measured, 1);
	slot_count(&s->bytes_measured, c->bytes);
}

/* Evaluate the op at pc for this client and find when it may start. */
static void prepare(struct client *c, const struct op *op, uint64_t now)
{
	const struct options *opt = c->opt;

	numexpr_eval_all(c->prog, op, &c->nc, c->last[op->id], c->num);
	for (int i = 0; i < op->npaths; i++)
		c->pathlen[i] = expand_path(c, op->path[i], c->path[i]);
	c->sched_ns = 0;
	if (opt->target_rate > 0) {
		c->sched_ns = c->rate_start_ns +
			      (uint64_t)((double)c->rate_bytes * 1e3 / opt->target_rate);
	} else if (op->when_ns >= 0) {
		c->sched_ns = c->pass_start_ns + (uint64_t)op->when_ns;
	}
	c->due_ns = c->sched_ns > now ? c->sched_ns : 0;
	c->prepared = 1;
}

/* Did a read or write move the byte count the loadfile expects? */
static bool size_mismatch(const struct client *c, const struct op *op, uint32_t status)
{
	if ((op->id != OP_READX && op->id != OP_WRITEX) || !status_is_success(DOMAIN_NT, status))
		return false;
	return c->num[3] >= 0 && c->bytes != (uint64_t)c->num[3];
}

/* The op a client failed in, after the backend's reason: "(client.txt:12:
 * NTCreateX clients/client3/f)", so that "Too many open files" or a lost
 * connection says where the loadfile was. */
static void fatal_context(struct client *c, const struct op *op)
{
	size_t n = strlen(c->error);

	snprintf(c->error + n, sizeof(c->error) - n, " (%s:%u: %s%s%s)", c->prog->filename, op->line,
		 op_info[op->id].name, op->npaths ? " " : "", op->npaths ? c->path[0] : "");
}

static int run_op(struct client *c, const struct op *op)
{
	struct slot *s = c->slot;
	uint64_t t0, t1;
	uint32_t status;
	bool ok, size_bad;

	if (c->path_escaped) {
		snprintf(c->error, sizeof(c->error),
			 "%s:%u: %s: after RANDOMSTRING expansion the path leaves the directory it names before the random string",
			 c->prog->filename, op->line, op_info[op->id].name);
		return -1;
	}
	c->bytes = 0;
	c->op = op;
	t0 = now_ns();
	slot_op_begin(s, op->id, t0);
	status = c->be->op[op->id](c, op);
	t1 = now_ns();
	c->last_t1 = t1;
	slot_op_end(s);
	c->prepared = 0;
	if (status == STATUS_FATAL) {
		if (!c->error[0])
			snprintf(c->error, sizeof(c->error), "%s failed", op_info[op->id].name);
		fatal_context(c, op);
		return -1;
	}
	ok = status_matches(&op->expect, op_info[op->id].domain, status);
	size_bad = ok && size_mismatch(c, op, status);
	record(c, op, t0, t1, !ok || size_bad, !status_is_success(op_info[op->id].domain, status));
	if (!ok || size_bad)
		report_mismatch(c, op, status, size_bad);
	c->rate_bytes += c->bytes;
	return 0;
}

/* A WAITSP that waited this long gives up: the loadfile's clients wait
 * for each other in a circle, or wait for a sync point nobody sets. */
#define WAITSP_TIMEOUT_NS (60 * NSEC_PER_SEC)

static void waitsp_timed_out(struct client *c, const struct op *op)
{
	int shown = region_message_ticket(c->sh);

	slot_count(&c->slot->mismatches_all, 1);
	if (shown < c->opt->show_mismatches)
		fprintf(stderr, "%s:%u: WAITSP gave up after 60 s waiting for sync point %lld of client %lld (client %d)\n",
			c->prog->filename, op->line, (long long)c->num[1],
			(long long)(((c->num[0] % c->nclients) + c->nclients) % c->nclients), c->id);
}

/* Would WAITSP still have to wait?  Never for a client that is gone. */
static bool waitsp_blocked(struct client *c)
{
	int64_t target = c->num[0] % c->nclients;
	struct slot *t;
	int64_t want = ((int64_t)c->pass << 32) | (int64_t)(uint32_t)c->num[1];
	int state;

	if (target < 0)
		target += c->nclients;
	if (target >= c->sh->nclients)	/* not in this region (pass.c): not there */
		return false;
	t = shared_slot(c->sh, (int)target);
	state = slot_state(t);
	if (state == SLOT_CLEANUP || state == SLOT_DONE || state == SLOT_FAILED || t == c->slot)
		return false;
	return slot_sync_point(t) < want;
}

/*
 * Run one program entry.  Returns 0 when it ran (or was a directive),
 * 1 when the client must wait until c->due_ns, -1 on a fatal error.
 */
static int step(struct client *c, uint64_t now)
{
	const struct program *prog = c->prog;
	const struct op *op = &prog->ops[c->pc];

	if (!c->prepared) {
		prepare(c, op, now);
		if (op->id == DIR_WAITSP && waitsp_blocked(c)) {
			if (!c->waitsp_since)
				c->waitsp_since = now;
			if (now - c->waitsp_since < WAITSP_TIMEOUT_NS) {
				c->due_ns = now + 200 * NSEC_PER_USEC;
				c->prepared = 0;
				return 1;
			}
			waitsp_timed_out(c, op);
		}
		c->waitsp_since = 0;
		if (op->id == DIR_SLEEP && c->num[0] > 0) {
			c->due_ns = now + (uint64_t)c->num[0] * NSEC_PER_USEC;
			c->sched_ns = 0;
			c->pc++;
			c->prepared = 0;
			return 1;
		}
		if (c->due_ns)
			return 1;
	}
	c->prepared = 0;
	c->due_ns = 0;
	if (op->id < OP_COUNT) {
		if (run_op(c, op) < 0)
			return -1;
		c->pc++;
		return 0;
	}
	switch (op->id) {
	case DIR_LOOP:
		if (c->num[0] <= 0) {
			c->pc = (uint32_t)op->num[1];
			return 0;
		}
		c->loop_left[c->loop_depth++] = (uint32_t)MIN(c->num[0], (int64_t)UINT32_MAX);
		break;
	case DIR_ENDLOOP:
		if (--c->loop_left[c->loop_depth - 1] > 0) {
			c->pc = (uint32_t)op->num[1] + 1;
			return 0;
		}
		c->loop_depth--;
		break;
	case DIR_SETSP:
		slot_set_sync_point(c->slot, ((int64_t)c->pass << 32) | (int64_t)(uint32_t)c->num[0]);
		break;
	case DIR_RANDOMSTRING:
		randomstring(c, op);
		break;
	case DIR_WRITEPATTERN:
		c->writepattern = op->num[0] == WRITEPATTERN_ON;
		c->wptext = NULL;
		c->wptextlen = 0;
		if (op->num[0] == WRITEPATTERN_TEXT) {
			c->wptext = c->prog->pool + op->num[1];
			c->wptextlen = (size_t)op->num[2];
		}
		break;
	default:	/* SLEEP 0, WAITSP satisfied */
		break;
	}
	c->pc++;
	return 0;
}

/* Start a pass, or finish when the wanted passes are done. */
static bool next_pass(struct client *c, uint64_t now)
{
	if (c->opt->show_execute_time) {
		/* the gormanm fork's lines, which mmtests reads: with
		 * --machine-readable "@E@client@ms" (its calibration run
		 * takes the 4th '@' field of the first), else the sentence */
		unsigned pass_ms = (unsigned)((now - c->pass_start_ns) / NSEC_PER_MSEC);
		int id = c->opt->client_base + c->id;

		if (c->opt->machine_readable)
			dprintf(STDOUT_FILENO, "@E@%d@%u\n", id, pass_ms);
		else
			dprintf(STDOUT_FILENO, "%4d completed in %u ms at time %u ms\n", id, pass_ms,
				(unsigned)((now - c->release_ns) / NSEC_PER_MSEC));
	}
	c->pass++;
	slot_put(&c->slot->passes, c->pass);
	if (c->opt->passes > 0 && c->pass >= (uint64_t)c->opt->passes) {
		slot_finish_work(c->slot, now);
		return false;
	}
	c->pc = 0;
	c->pass_start_ns = now;
	return true;
}

/*
 * Advance one client by one op if it is due.  Returns 0 if it ran
 * something, 1 if it waits (c->due_ns), 2 when it has finished.
 */
int client_advance(struct client *c, uint64_t *nowp, const volatile int *local_stop)
{
	uint64_t now = *nowp;
	int rc;

	if (c->finished)
		return 2;
	if (*local_stop || region_stopping(c->sh) || now >= region_end(c->sh)) {
		c->finished = 1;
		return 2;
	}
	if (c->due_ns > now)
		return 1;
	/* a SLEEP at the end of the loadfile is part of the pass: it ends
	 * when the sleep is over */
	if (c->pc >= c->prog->nops && !next_pass(c, now)) {
		c->finished = 1;
		return 2;
	}
	c->last_t1 = 0;
	rc = step(c, now);
	if (c->last_t1)
		*nowp = c->last_t1;
	else if (rc == 0)
		*nowp = MAX(*nowp, now_ns());	/* a directive: a loop of them must see the time limit */
	if (rc < 0) {
		c->finished = 1;
		c->failed = 1;
		return 2;
	}
	if (rc == 0 && c->pc >= c->prog->nops && !next_pass(c, *nowp)) {
		c->finished = 1;
		return 2;
	}
	return rc;
}

void client_count_net(struct client *c, uint64_t sent, uint64_t received)
{
	if (!c->slot || c->cleanup_only)
		return;
	slot_count(&c->slot->net_sent, sent);
	slot_count(&c->slot->net_received, received);
}

void client_start(struct client *c, uint64_t release_ns, uint64_t measure_start_ns)
{
	uint64_t start = release_ns;

	/* --stagger: process i starts i steps after the release; its first
	 * pass (and pacing) begins then */
	if (c->opt->stagger > 0) {
		int process = (c->opt->client_base + c->id) / c->opt->clients_per_process;

		start += (uint64_t)process * STAGGER_STEP_MS * NSEC_PER_MSEC;
		c->due_ns = start;
	}
	c->release_ns = release_ns;
	c->measure_start_ns = measure_start_ns;
	c->pass_start_ns = start;
	c->rate_start_ns = start;
	slot_set_state(c->slot, SLOT_RUNNING);
}
