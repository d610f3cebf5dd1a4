/*
 * results.c - the results of a run, computed once from the stats region,
 * merged, freed; see results.h.  The JSON form is in json_report.c.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "options.h"
#include "results.h"
#include "run.h"
#include "util.h"

const char *const phase_name[] = {
	[PHASE_WARMUP] = "warmup",
	[PHASE_EXECUTE] = "execute",
	[PHASE_CLEANUP] = "cleanup",
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Up to three of the loadfile's fixed paths that have no client in
 * them, as "/foo, /test.txt": every client uses the same file there. */
static char *shared_paths_of(const struct program *prog)
{
	char buf[200] = "";
	size_t n = 0;
	int shown = 0;

	for (uint32_t i = 0; i < prog->npaths && shown < 3; i++) {
		const struct path_tpl *t = &prog->paths[i];

		if (t->len == 0 || (t->flags & (PATHF_CLIENT | PATHF_RANDSTR)))
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s/%.*s", shown ? ", " : "",
				      (int)MIN((size_t)t->len, (size_t)60), prog->pool + t->off);
		if (n >= sizeof(buf))
			break;
		shown++;
	}
	return shown ? xstrdup(buf) : NULL;
}

static void identity_compute(struct results_identity *id, const struct results_source *src)
{
	const struct program *prog = src->prog;
	const struct options *opt = src->opt;
	const struct run_result *run = src->run;
	char name[256] = "";
	struct utsname u;

	id->progname = xstrdup(opt->progname);
	id->version = xstrdup(PACKAGE_VERSION);
	id->argc = opt->argc;
	id->argv = xcalloc((size_t)opt->argc + 1, sizeof(char *));
	for (int i = 0; i < opt->argc; i++)
		id->argv[i] = xstrdup(opt->argv[i]);
	id->backend = xstrdup(src->backend);
	id->loadfile = xstrdup(prog->filename);
	id->crc32 = prog->crc32;
	memcpy(id->sha256, prog->sha256, sizeof(id->sha256));
	id->lines = prog->lines;
	id->timestamps = prog->timestamps;
	id->nbscale = prog->nbscale;
	if (src->pass)
		id->pass = *src->pass;
	id->seed = opt->seed;
	if (src->env)
		environment_copy(&id->env, src->env);
	gethostname(name, sizeof(name) - 1);
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	id->host_name = xstrdup(name);
	id->host_system = xstrdup(u.sysname);
	id->host_release = xstrdup(u.release);
	id->host_machine = xstrdup(u.machine);
	id->start_time = xstrdup(run->start_time);
	id->clients = opt->nclients;
	id->processes = opt->nprocs;
	id->paced = opt->target_rate > 0 || prog->timestamps;
	id->target_rate = opt->target_rate;
	id->warmup_sec = opt->warmup;
	id->timelimit_sec = opt->timelimit;
	id->passes_per_client = opt->passes;
	id->loadfile_op_names = opt->loadfile_op_names;
	id->shared_paths = shared_paths_of(prog);
	id->window_start_ns = run->measure_start_ns - run->release_ns;
	id->window_ns = run->measure_end_ns > run->measure_start_ns ?
			run->measure_end_ns - run->measure_start_ns : 0;
	id->signal = run->signal;
	id->strict = opt->strict;
}

void results_regroup(struct results *r)
{
	for (int g = 0; g < GROUP_COUNT; g++)
		op_total_init(&r->group[g]);
	op_total_init(&r->all);
	for (unsigned k = 0; k < r->nops; k++) {
		op_total_merge(&r->group[op_info[r->op[k].id].group], &r->op[k].total);
		op_total_merge(&r->all, &r->op[k].total);
	}
}

void results_compute(struct results *r, const struct results_source *src)
{
	const struct program *prog = src->prog;
	const struct shared *sh = src->sh;
	const struct run_result *run = src->run;
	int n = sh->nclients;

	memset(r, 0, sizeof(*r));
	identity_compute(&r->id, src);
	r->nops = prog->nstats;
	r->op = xcalloc(r->nops ? r->nops : 1, sizeof(*r->op));
	for (unsigned k = 0; k < r->nops; k++) {
		r->op[k].id = prog->stat_op[k];
		op_total_init(&r->op[k].total);
	}
	op_total_init(&r->lag);
	op_total_init(&r->response);
	r->passes = xcalloc((size_t)n + 1, sizeof(*r->passes));
	if (src->opt->per_client_results)
		r->per_client = xcalloc((size_t)n + 1, sizeof(*r->per_client));
	for (int i = 0; i < n; i++) {
		const struct slot *s = shared_slot(sh, i);

		for (unsigned k = 0; k < r->nops; k++)
			op_total_add(&r->op[k].total, &s->ops[k]);
		if (r->id.paced) {	/* else empty: nothing had a schedule */
			op_total_add(&r->lag, &s->lag);
			op_total_add(&r->response, &s->response);
		}
		r->mismatches_all += s->mismatches_all;
		r->passes[i] = s->passes;
		if (s->ops_measured == 0 && s->state != SLOT_FAILED)
			r->idle_clients++;
		r->resources.user_ns += s->cpu_user_ns;
		r->resources.sys_ns += s->cpu_sys_ns;
		r->resources.net_sent += s->net_sent;
		r->resources.net_received += s->net_received;
		r->resources.ops += s->ops_all;
		if (s->state == SLOT_FAILED) {
			r->failures = xrealloc(r->failures, (size_t)(r->nfailures + 1) * sizeof(*r->failures));
			r->failures[r->nfailures].client = i;
			r->failures[r->nfailures++].reason = xstrdup(s->error[0] ? s->error : "unknown error");
		}
		if (r->per_client) {
			struct results_client *c = &r->per_client[i];

			c->client = i;
			c->state = s->state == SLOT_DONE || s->state == SLOT_FAILED ? s->state : SLOT_RUNNING;
			c->error = s->state == SLOT_FAILED ? xstrdup(s->error[0] ? s->error : "unknown error") : NULL;
			c->lines = s->ops_measured;
			c->bytes = s->bytes_measured;
			c->passes = s->passes;
			c->op = xcalloc(r->nops ? r->nops : 1, sizeof(*c->op));
			for (unsigned k = 0; k < r->nops; k++) {
				op_total_init(&c->op[k]);
				op_total_add(&c->op[k], &s->ops[k]);
			}
		}
	}
	results_regroup(r);
	if (src->nseries) {
		r->nseries = src->nseries;
		r->series = xcalloc(r->nseries, sizeof(*r->series));
		memcpy(r->series, src->series, r->nseries * sizeof(*r->series));
	}
	r->exit_status = results_exit_status(r, src->opt->allow_mismatch, run->cleanup_failed,
					     src->series_failed);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t results_passes_median(const struct results *r)
{
	uint64_t *v, m;

	if (r->id.clients <= 0)
		return 0;
	v = xmalloc((size_t)r->id.clients * sizeof(*v));
	memcpy(v, r->passes, (size_t)r->id.clients * sizeof(*v));
	qsort(v, (size_t)r->id.clients, sizeof(*v), cmp_u64);
	m = v[(r->id.clients - 1) / 2];
	free(v);
	return m;
}

int results_exit_status(const struct results *r, bool allow_mismatch, bool cleanup_failed,
			bool series_failed)
{
	uint64_t mismatches = r->all.mismatches ? r->all.mismatches : r->mismatches_all;
	int status = r->nfailures ? EXIT_RUN_FAILED : 0;

	if (mismatches && !allow_mismatch)
		status = EXIT_RUN_FAILED;
	if (cleanup_failed)
		status = EXIT_RUN_FAILED;
	if (r->id.strict && r->idle_clients)
		status = EXIT_RUN_FAILED;
	if (r->id.signal)
		status = 128 + r->id.signal;
	if (series_failed && status == 0)
		status = EXIT_RUN_FAILED;
	return status;
}

static void identity_free(struct results_identity *id)
{
	for (int i = 0; i < id->argc; i++)
		free(id->argv[i]);
	free(id->argv);
	free(id->progname);
	free(id->version);
	free(id->backend);
	free(id->loadfile);
	free(id->shared_paths);
	free(id->host_name);
	free(id->host_system);
	free(id->host_release);
	free(id->host_machine);
	free(id->start_time);
	environment_free(&id->env);
}

void results_free(struct results *r)
{
	identity_free(&r->id);
	for (int i = 0; i < r->nfailures; i++)
		free(r->failures[i].reason);
	if (r->per_client) {
		for (int i = 0; i < r->id.clients; i++) {
			free(r->per_client[i].error);
			free(r->per_client[i].op);
		}
	}
	free(r->per_client);
	free(r->failures);
	free(r->passes);
	free(r->op);
	free(r->series);
	memset(r, 0, sizeof(*r));
}

/* ---- merging ---- */

static void merge_series(struct results *a, const struct results *b)
{
	size_t j = 0, n = 0;
	struct series_row *rows = xcalloc(a->nseries + b->nseries + 1, sizeof(*rows));

	/* both are sorted by second: merge them */
	for (size_t i = 0; i < a->nseries || j < b->nseries;) {
		const struct series_row *x = i < a->nseries ? &a->series[i] : NULL;
		const struct series_row *y = j < b->nseries ? &b->series[j] : NULL;

		if (x && (!y || x->second < y->second)) {
			rows[n++] = *x;
			i++;
		} else if (!x || y->second < x->second) {
			rows[n++] = *y;
			j++;
		} else {
			struct series_row *m = &rows[n++];

			*m = *x;
			m->clients += y->clients;
			m->ops += y->ops;
			m->bytes += y->bytes;
			m->max_ns = MAX(x->max_ns, y->max_ns);
			m->p99_ns = MAX(x->p99_ns, y->p99_ns);
			i++;
			j++;
		}
	}
	free(a->series);
	a->series = rows;
	a->nseries = n;
}

int results_merge(struct results *a, const struct results *b)
{
	int na = a->id.clients, nb = b->id.clients;

	if (a->nops != b->nops)
		return -1;
	for (unsigned k = 0; k < a->nops; k++)
		if (a->op[k].id != b->op[k].id)
			return -1;
	for (unsigned k = 0; k < a->nops; k++)
		op_total_merge(&a->op[k].total, &b->op[k].total);
	op_total_merge(&a->lag, &b->lag);
	op_total_merge(&a->response, &b->response);
	results_regroup(a);
	a->mismatches_all += b->mismatches_all;
	a->passes = xrealloc(a->passes, (size_t)(na + nb + 1) * sizeof(*a->passes));
	memcpy(a->passes + na, b->passes, (size_t)nb * sizeof(*a->passes));
	a->failures = xrealloc(a->failures, (size_t)(a->nfailures + b->nfailures + 1) * sizeof(*a->failures));
	for (int i = 0; i < b->nfailures; i++) {
		a->failures[a->nfailures].client = na + b->failures[i].client;
		a->failures[a->nfailures++].reason = xstrdup(b->failures[i].reason);
	}
	if (a->per_client && b->per_client) {
		a->per_client = xrealloc(a->per_client, (size_t)(na + nb + 1) * sizeof(*a->per_client));
		for (int i = 0; i < nb; i++) {
			struct results_client *c = &a->per_client[na + i];

			*c = b->per_client[i];
			c->client += na;
			c->error = dup_or_null(c->error);
			c->op = xcalloc(a->nops ? a->nops : 1, sizeof(*c->op));
			memcpy(c->op, b->per_client[i].op, a->nops * sizeof(*c->op));
		}
	} else if (a->per_client) {
		for (int i = 0; i < na; i++) {
			free(a->per_client[i].error);
			free(a->per_client[i].op);
		}
		free(a->per_client);
		a->per_client = NULL;
	}
	a->resources.user_ns += b->resources.user_ns;
	a->resources.sys_ns += b->resources.sys_ns;
	a->resources.net_sent += b->resources.net_sent;
	a->resources.net_received += b->resources.net_received;
	a->resources.ops += b->resources.ops;
	merge_series(a, b);
	a->id.clients = na + nb;
	a->id.processes += b->id.processes;
	a->idle_clients += b->idle_clients;
	a->id.strict = a->id.strict || b->id.strict;
	a->id.window_ns = MAX(a->id.window_ns, b->id.window_ns);
	if (!a->id.signal)
		a->id.signal = b->id.signal;
	if (a->id.signal)
		a->exit_status = 128 + a->id.signal;
	else
		a->exit_status = MAX(a->exit_status, b->exit_status);
	return 0;
}

/* ---- derived figures ---- */

double results_window_sec(const struct results *r)
{
	return (double)r->id.window_ns / 1e9;
}

double results_throughput(const struct results *r)
{
	double window = results_window_sec(r);

	return window > 0 ? (double)r->all.bytes / 1e6 / window : 0;
}

const char *results_op_name(const struct results *r, unsigned k)
{
	return op_info[r->op[k].id].display;
}

const char *results_op_label(const struct results *r, unsigned k)
{
	return r->id.loadfile_op_names ? op_info[r->op[k].id].name : op_info[r->op[k].id].display;
}

int results_op_label_width(const struct results *r)
{
	return r->id.loadfile_op_names ? 22 : 12;	/* dbench 5.0's " %-22s", 4.0's " %-12s" */
}

/* The p-th percentile by nearest rank: exact when the rank is the first
 * or the last; otherwise the histogram's value, kept within min..max. */
static double percentile(const struct op_total *t, double p)
{
	double rank = ceil(p * (double)t->count), v;

	if (rank <= 1)
		return (double)t->min_ns;
	if (rank >= (double)t->count)
		return (double)t->max_ns;
	v = (double)hist_total_percentile(&t->hist, p);
	return v < (double)t->min_ns ? (double)t->min_ns : v > (double)t->max_ns ? (double)t->max_ns : v;
}

void latency_figures(const struct op_total *t, uint64_t all_ops, struct latency_figures *f)
{
	double n = (double)t->count, var;

	memset(f, 0, sizeof(*f));
	f->count = t->count;
	f->percent = percent_of(t->count, all_ops);
	if (!t->count)
		return;
	f->min = (double)t->min_ns;
	f->max = (double)t->max_ns;
	f->avg = (double)t->total_ns / n;
	f->median = percentile(t, 0.5);
	f->p90 = percentile(t, 0.9);
	f->p99 = percentile(t, 0.99);
	f->p999 = percentile(t, 0.999);
	var = t->sumsq_ns / n - f->avg * f->avg;
	f->stddev = var > 0 ? sqrt(var) : 0;
}
