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
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "client.h"
#include "options.h"
#include "pass.h"
#include "stats.h"
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

void pass_run(const struct program *prog, const struct options *base, uint64_t max_steps,
	      struct pass_stats *ps)
{
	static const volatile int no_stop;
	struct options opt = *base;
	struct client *c = xcalloc(1, sizeof(*c));
	uint8_t *seen = xcalloc(prog->npaths ? prog->npaths : 1, 1);
	struct shared *sh;
	uint64_t now;

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
	client_release(c);
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
}
