/*
 * pass.c - one pass of client 0, run by the client interpreter on the null
 * backend; see pass.h.
 *
 * The interpreter is driven as run.c drives it, with one difference: when
 * it would wait (timestamps, -R, SLEEP) the clock it is given jumps to the
 * time it waits for, so a pass of a paced loadfile takes no longer than an
 * unpaced one.  Its private stats region has one slot: a WAITSP for another
 * client finds nobody there and does not wait.
 *
 * A loadfile whose loop counts and read and write sizes are fixed (no
 * random or relative numbers there) is counted instead, from the counts:
 * the same figures, without running a pass of 10,000,003 operations one by
 * one (upstream's nfs_lock.load).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "client.h"
#include "numexpr.h"
#include "options.h"
#include "pass.h"
#include "region.h"
#include "util.h"

/* The do-nothing backend (backends/null.c) is the interpreter's stand-in
 * target here, whatever backend the run uses. */
extern const struct backend null_backend;

static void count_op(const struct client *c, uint8_t *seen, struct pass_stats *ps)
{
	const struct op *op = c->op;

	ps->ops[op->id]++;
	ps->total_ops++;
	if (op_is_read(op->id))
		ps->bytes_read += c->bytes;
	if (op_is_write(op->id))
		ps->bytes_written += c->bytes;
	if (op->when_ns >= 0 && (uint64_t)op->when_ns > ps->duration_ns)
		ps->duration_ns = (uint64_t)op->when_ns;
	for (int i = 0; i < op->npaths; i++) {
		if (!seen[op->path[i]]) {
			seen[op->path[i]] = 1;
			ps->paths++;
		}
	}
}

/* Number i of op for client 0 if it is the same every time the op runs
 * (a literal, 'child', 'num_children', with qualifiers); false if it is
 * random or relative to the previous value. */
static bool fixed_number(const struct program *prog, const struct op *op, int i,
			 struct numctx *ctx, int64_t *out)
{
	const struct numexpr *x;

	if (op->expr == 0) {
		*out = op->num[i];
		return true;
	}
	x = &prog->exprs[op->expr - 1 + (uint32_t)i];
	if (x->base == NUM_RANDOM || x->base == NUM_RELATIVE)
		return false;
	*out = numexpr_eval(x, op->num[i], 0, ctx);
	return true;
}

/* a * b, false on overflow */
static bool mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a && b > UINT64_MAX / a)
		return false;
	*out = a * b;
	return true;
}

/*
 * Count one pass from the program: each op runs the product of the counts
 * of the loops around it.  False (ps untouched) when a loop count or a
 * read's or write's size is not fixed, or a count overflows: then only
 * running the pass tells.
 */
static bool pass_count(const struct program *prog, const struct options *opt, struct pass_stats *ps)
{
	struct numctx ctx = { .child = opt->client_base,
			      .nchildren = opt->clients_total ? opt->clients_total : opt->nclients };
	uint64_t mult[MAX_LOOP_DEPTH + 1] = { 1 };
	struct pass_stats count;
	uint8_t *seen;
	int depth = 0;
	bool ok = true;

	memset(&count, 0, sizeof(count));
	seen = xcalloc(prog->npaths ? prog->npaths : 1, 1);
	for (uint32_t i = 0; i < prog->nops && ok; i++) {
		const struct op *op = &prog->ops[i];
		int64_t num[MAX_NUMS] = { 0 }, n;
		uint64_t m = mult[depth], bytes;

		if (op->id == DIR_LOOP) {
			ok = fixed_number(prog, op, 0, &ctx, &n) && depth < MAX_LOOP_DEPTH &&
			     mul_u64(m, n > 0 ? (uint64_t)n : 0, &mult[depth + 1]);
			depth++;
			continue;
		}
		if (op->id == DIR_ENDLOOP) {
			depth--;
			continue;
		}
		if (op->id >= OP_COUNT || m == 0)
			continue;
		if (op_is_read(op->id) || op_is_write(op->id)) {
			for (int k = 0; k < MAX_NUMS && ok; k++) {
				bool sized = k == op_size_arg(op->id) ||
					     (k == 3 && (op->id == OP_READX || op->id == OP_WRITEX));

				ok = fixed_number(prog, op, k, &ctx, &num[k]) || !sized;
			}
			if (!ok)
				break;
			bytes = op_nominal_bytes(op->id, num, opt->trunc_io);
			ok = mul_u64(bytes, m, &bytes);
			if (op_is_read(op->id))
				count.bytes_read += bytes;
			else
				count.bytes_written += bytes;
		}
		count.ops[op->id] += m;
		count.total_ops += m;
		count.steps += m;
		if (op->when_ns >= 0 && (uint64_t)op->when_ns > count.duration_ns)
			count.duration_ns = (uint64_t)op->when_ns;
		for (int p = 0; p < op->npaths; p++) {
			if (!seen[op->path[p]]) {
				seen[op->path[p]] = 1;
				count.paths++;
			}
		}
	}
	free(seen);
	if (ok)
		*ps = count;
	return ok;
}

void pass_run(const struct program *prog, const struct options *base, uint64_t max_steps,
	      struct pass_stats *ps)
{
	static const volatile int no_stop;
	struct options opt = *base;
	struct client *c;
	uint8_t *seen;
	struct shared *sh;
	uint64_t now;

	if (pass_count(prog, base, ps)) {
		ps->counted = true;
		return;
	}
	c = xcalloc(1, sizeof(*c));
	seen = xcalloc(prog->npaths ? prog->npaths : 1, 1);
	memset(ps, 0, sizeof(*ps));
	opt.passes = 1;
	opt.target_rate = 0;
	opt.show_mismatches = 0;
	opt.show_execute_time = 0;	/* a walk, not a pass of the run */
	sh = shared_create(prog, 1);
	sh->measure_end_ns = UINT64_MAX;
	client_init(c, 0, &opt, prog, &null_backend, NULL, sh, opt.seed);
	now = now_ns();
	sh->release_ns = now;
	client_start(c, now, 0);
	while (ps->steps < max_steps) {
		uint64_t ops_before = c->slot->ops_all;
		int rc = client_advance(c, &now, &no_stop);

		if (c->slot->ops_all != ops_before)	/* an op ran (the last one returns 2) */
			count_op(c, seen, ps);
		if (rc == 2)
			break;
		ps->steps++;
		if (rc == 1)		/* it waits: make the time come */
			now = MAX(now, c->due_ns);
	}
	ps->truncated = !c->finished;
	shared_destroy(sh);
	free(seen);
	free(c);
}

void pass_figures_of(const struct pass_stats *ps, struct pass_figures *pf)
{
	pf->ops = ps->total_ops;
	pf->bytes_read = ps->bytes_read;
	pf->bytes_written = ps->bytes_written;
	pf->duration_ns = ps->duration_ns;
	pf->partial = ps->truncated;
}
