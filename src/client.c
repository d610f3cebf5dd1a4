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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "client.h"
#include "options.h"
#include "region_atomic.h"
#include "region.h"
#include "status.h"
#include "util.h"

/* The loadfile's longest path, expanded for this client (its name for
 * each client marker, 63 bytes for each random string): the size of
 * each of its path buffers, so that a thousand clients in a process do
 * not hold PATH_MAX bytes each for paths of 40. */
static char *path_buffers(struct client *c)
{
	const struct program *prog = c->prog;
	size_t longest = 0;

	for (uint32_t p = 0; p < prog->npaths; p++) {
		const struct path_tpl *t = &prog->paths[p];
		const char *src = prog->pool + t->off;
		size_t n = t->len;

		for (size_t i = 0; i < t->len && (t->flags & (PATHF_CLIENT | PATHF_RANDSTR)); i++) {
			if (src[i] == PATH_CLIENT) {
				n += c->namelen - 1;
			} else if (src[i] == PATH_RANDSTR) {
				n += sizeof(c->randstr[0]) - 3;
				i++;
			}
		}
		longest = MAX(longest, n);
	}
	c->path_size = longest + 1;
	return xcalloc(MAX_PATHS, c->path_size);
}

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
	c->path[0] = path_buffers(c);
	for (int i = 1; i < MAX_PATHS; i++)
		c->path[i] = c->path[i - 1] + c->path_size;
	c->iodepth = opt->iodepth > 1 ? (uint32_t)opt->iodepth : 1;
	if (c->iodepth > 1)
		c->io = xcalloc(c->iodepth, sizeof(*c->io));
}

void client_release(struct client *c)
{
	free(c->path[0]);
	memset(c->path, 0, sizeof(c->path));
	free(c->io);
	c->io = NULL;
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

/* Check the status of op (not STATUS_FATAL; c->bytes, c->sched_ns and
 * c->num[3] are the op's) and record it. */
static inline void check_record(struct client *c, const struct op *op, uint64_t t0, uint64_t t1,
				uint32_t status)
{
	bool ok, size_bad;

	ok = status_matches(&op->expect, op_info[op->id].domain, status);
	size_bad = ok && size_mismatch(c, op, status);
	record(c, op, t0, t1, !ok || size_bad, !status_is_success(op_info[op->id].domain, status));
	if (!ok || size_bad)
		report_mismatch(c, op, status, size_bad);
	c->rate_bytes += c->bytes;
}

/* The op c->op started at t0 is over at t1 with status: check it and
 * record it.  -1 if the client cannot go on (STATUS_FATAL). */
static inline int finish_op(struct client *c, const struct op *op, uint64_t t0, uint64_t t1,
			    uint32_t status)
{
	c->last_t1 = t1;
	slot_op_end(c->slot);
	c->prepared = 0;
	if (status == STATUS_FATAL) {
		if (!c->error[0])
			snprintf(c->error, sizeof(c->error), "%s failed", op_info[op->id].name);
		fatal_context(c, op);
		return -1;
	}
	check_record(c, op, t0, t1, status);
	return 0;
}

/* ---- a queue (--iodepth > 1) ---- */

/* The slot shows the oldest op in flight (the parent's grace names it),
 * and c->deadline_ns is the earliest deadline (the engine's expiry). */
static void queue_oldest(struct client *c)
{
	const struct client_io *oldest = NULL;
	uint64_t deadline = 0;

	for (uint32_t i = 0; i < c->iodepth; i++) {
		const struct client_io *io = &c->io[i];

		if (!io->op)
			continue;
		if (!oldest || io->t0 < oldest->t0)
			oldest = io;
		if (io->deadline_ns && (!deadline || io->deadline_ns < deadline))
			deadline = io->deadline_ns;
	}
	c->deadline_ns = deadline;
	if (oldest)
		slot_op_begin(c->slot, oldest->op->id, oldest->t0);
	else
		slot_op_end(c->slot);
}

/* Submit the prepared op with others in flight: 0 when it is in flight
 * (or already done), -1 fatal. */
static int queue_op(struct client *c, const struct op *op)
{
	uint32_t tag = 0, status;
	struct client_io *io;
	uint64_t t0;
	/* an op that may not go beside others (step() let it go alone) may
	 * not have others go beside it either, while it is in flight */
	int solo = !c->inflight && op->id < OP_COUNT && !c->be->queueable(c, op);

	while (c->io[tag].op)
		tag++;		/* a free place: step() saw inflight < iodepth */
	io = &c->io[tag];
	c->bytes = 0;
	c->op = op;
	c->tag = tag;
	c->deadline_ns = 0;
	t0 = now_ns();
	if (!c->inflight)
		slot_op_begin(c->slot, op->id, t0);
	status = c->be->op[op->id](c, op);
	if (status != STATUS_PENDING) {
		int rc;

		if (c->failed)	/* an op in flight failed the client meanwhile */
			return -1;
		rc = finish_op(c, op, t0, now_ns(), status);
		if (c->inflight)
			queue_oldest(c);
		return rc;
	}
	*io = (struct client_io){ .op = op, .t0 = t0, .sched_ns = c->sched_ns,
				  .deadline_ns = c->deadline_ns, .want_bytes = c->num[3] };
	c->inflight++;
	c->solo = solo;
	c->prepared = 0;
	c->last_t1 = t0;
	if (c->inflight > 1)
		queue_oldest(c);
	return c->failed ? -1 : 0;
}

/* Forget the ops still in flight of a client that failed: the backend
 * gives up on them (expire), and they are not counted, as the op that
 * failed the client is not. */
static void queue_drop(struct client *c)
{
	char error[sizeof(c->error)];

	if (!c->inflight)
		return;
	memcpy(error, c->error, sizeof(error));
	c->be->expire(c);
	memcpy(c->error, error, sizeof(error));
	memset(c->io, 0, c->iodepth * sizeof(*c->io));
	c->inflight = 0;
	c->solo = 0;
	slot_op_end(c->slot);
}

int client_resume_io(struct client *c, uint32_t tag, uint32_t status, uint64_t bytes, uint64_t t1)
{
	struct client_io *io = &c->io[tag];
	const struct op *op = io->op;
	/* c holds the op being prepared or submitted: put its fields back */
	uint64_t c_bytes = c->bytes, c_sched = c->sched_ns;
	int64_t c_want = c->num[3];

	io->op = NULL;
	if (--c->inflight == 0)
		c->solo = 0;
	if (status == STATUS_FATAL) {
		if (!c->failed) {
			if (!c->error[0])
				snprintf(c->error, sizeof(c->error), "%s failed", op_info[op->id].name);
			snprintf(c->error + strlen(c->error), sizeof(c->error) - strlen(c->error),
				 " (%s:%u: %s)", c->prog->filename, op->line, op_info[op->id].name);
		}
		c->failed = 1;
	} else {
		c->bytes = bytes;
		c->sched_ns = io->sched_ns;
		c->num[3] = io->want_bytes;
		check_record(c, op, io->t0, t1, status);
		c->bytes = c_bytes;
		c->sched_ns = c_sched;
		c->num[3] = c_want;
	}
	queue_oldest(c);
	return c->failed ? CLIENT_FINISHED : CLIENT_RAN;
}

/* Run the op: 0 done, -1 fatal, CLIENT_PENDING started (an asynchronous
 * backend completes it later: client_resume). */
static int run_op(struct client *c, const struct op *op)
{
	uint64_t t0;
	uint32_t status;

	if (c->path_escaped) {
		snprintf(c->error, sizeof(c->error),
			 "%s:%u: %s: after RANDOMSTRING expansion the path leaves the directory it names before the random string",
			 c->prog->filename, op->line, op_info[op->id].name);
		return -1;
	}
	if (c->iodepth > 1 && c->engine)
		return queue_op(c, op);
	c->bytes = 0;
	c->op = op;
	t0 = now_ns();
	slot_op_begin(c->slot, op->id, t0);
	status = c->engine && c->be->submit ? c->be->submit(c, op) : c->be->op[op->id](c, op);
	if (status == STATUS_PENDING) {
		c->op_t0 = t0;
		return CLIENT_PENDING;
	}
	return finish_op(c, op, t0, now_ns(), status);
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
 * 1 when the client must wait until c->due_ns, CLIENT_PENDING when its op
 * completes later, -1 on a fatal error.
 */
static int step(struct client *c, uint64_t now)
{
	const struct program *prog = c->prog;
	const struct op *op = &prog->ops[c->pc];

	if (c->inflight) {
		/* a queue: room for one more, no barrier in flight, and no
		 * barrier before it */
		if (c->solo) {
			c->drain = 1;
			return CLIENT_BLOCKED;
		}
		if (c->inflight >= c->iodepth) {
			c->drain = 0;
			return CLIENT_BLOCKED;
		}
		if (!c->prepared &&
		    (op->id == DIR_SLEEP || op->id == DIR_WAITSP || op->id == DIR_SETSP)) {
			c->drain = 1;
			return CLIENT_BLOCKED;
		}
	}
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
		if (c->due_ns) {
			/* paced for later: after the ops in flight */
			c->drain = 1;
			return c->inflight ? CLIENT_BLOCKED : 1;
		}
	}
	if (c->inflight && op->id < OP_COUNT && !c->be->queueable(c, op)) {
		c->drain = 1;
		return CLIENT_BLOCKED;
	}
	c->prepared = 0;
	c->due_ns = 0;
	if (op->id < OP_COUNT) {
		int rc = run_op(c, op);

		if (rc == 0)
			c->pc++;
		return rc;
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

/* After a step: stop on a fatal error, start the next pass at the end of
 * the program (or finish). */
static int after_step(struct client *c, int rc, uint64_t now)
{
	if (rc < 0) {
		c->finished = 1;
		c->failed = 1;
		queue_drop(c);
		return CLIENT_FINISHED;
	}
	/* (with ops in flight, the pass ends when they complete) */
	if (rc == 0 && c->pc >= c->prog->nops && !c->inflight && !next_pass(c, now)) {
		c->finished = 1;
		return CLIENT_FINISHED;
	}
	return rc;
}

int client_advance(struct client *c, uint64_t *nowp, const volatile int *local_stop)
{
	uint64_t now = *nowp;
	int rc;

	if (c->finished)
		return CLIENT_FINISHED;
	if (c->failed) {	/* an op of its queue failed it */
		c->finished = 1;
		queue_drop(c);
		return CLIENT_FINISHED;
	}
	if (*local_stop || region_stopping(c->sh) || now >= region_end(c->sh)) {
		if (c->inflight) {	/* the run is over: they complete first */
			c->drain = 1;
			return CLIENT_BLOCKED;
		}
		c->finished = 1;
		return CLIENT_FINISHED;
	}
	if (c->due_ns > now)
		return CLIENT_WAITS;
	if (c->pc >= c->prog->nops && c->inflight) {	/* the pass ends when they complete */
		c->drain = 1;
		return CLIENT_BLOCKED;
	}
	/* a SLEEP at the end of the loadfile is part of the pass: it ends
	 * when the sleep is over */
	if (c->pc >= c->prog->nops && !next_pass(c, now)) {
		c->finished = 1;
		return CLIENT_FINISHED;
	}
	c->last_t1 = 0;
	rc = step(c, now);
	if (rc == CLIENT_PENDING || rc == CLIENT_BLOCKED)
		return rc;
	if (c->last_t1)
		*nowp = c->last_t1;
	else if (rc == 0)
		*nowp = MAX(*nowp, now_ns());	/* a directive: a loop of them must see the time limit */
	return after_step(c, rc, *nowp);
}

int client_resume(struct client *c, uint32_t status, uint64_t t1)
{
	const struct op *op = c->op;
	int rc = finish_op(c, op, c->op_t0, t1, status);

	if (rc == 0)
		c->pc++;
	return after_step(c, rc, t1);
}

void client_give_up(struct client *c, uint64_t now, const char *why)
{
	const struct op *op = c->op;
	struct slot *s = c->slot;
	uint64_t lat = now > c->op_t0 ? now - c->op_t0 : 0;

	/* as the parent counts an op in flight it killed (run.c) */
	if (c->inflight) {
		for (uint32_t i = 0; i < c->iodepth; i++) {
			const struct client_io *io = &c->io[i];

			if (!io->op || c->prog->statidx[io->op->id] < 0)
				continue;
			lat = now > io->t0 ? now - io->t0 : 0;
			op_stats_add(&s->ops[c->prog->statidx[io->op->id]], lat, 0);
			hist64_add(&s->every, lat);
			slot_count(&s->ops_measured, 1);
		}
		memset(c->io, 0, c->iodepth * sizeof(*c->io));
		c->inflight = 0;
		c->solo = 0;
	} else if (op && c->prog->statidx[op->id] >= 0) {
		op_stats_add(&s->ops[c->prog->statidx[op->id]], lat, 0);
		hist64_add(&s->every, lat);
		slot_count(&s->ops_measured, 1);
	}
	slot_op_end(s);
	snprintf(c->error, sizeof(c->error), "%s", why);
	c->prepared = 0;
	c->finished = 1;
	c->failed = 1;
	snprintf(s->error, sizeof(s->error), "%s", why);
	slot_set_state(s, SLOT_FAILED);
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
