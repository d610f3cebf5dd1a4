/*
 * repeat.c - several runs in one invocation (see repeat.h): one run from a
 * fresh stats region to its results, the loop of --repeat and
 * --repeat-until-ci around it, and the summary of the runs it made.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "environment.h"
#include "json_report.h"
#include "mpi_run.h"
#include "options.h"
#include "pass.h"
#include "run.h"
#include "repeat.h"
#include "series.h"
#include "inference.h"
#include "region.h"
#include "util.h"

#define CI_LEVEL 0.95

const char *const series_end_name[] = {
	[SERIES_DONE] = "done",
	[SERIES_CI_REACHED] = "ci_reached",
	[SERIES_SIGNAL] = "signal",
	[SERIES_SETUP_FAILED] = "setup_failed",
};

/* One run: a fresh stats region, the run, its results in *r.  Returns 0,
 * or -1 when no client could start (the reasons printed; *status is the
 * exit status). */
/* The --json error document of a run whose clients did not start. */
static void setup_failed_json(const struct shared *sh, int signal, int status)
{
	char message[600];

	if (signal)
		snprintf(message, sizeof(message), "stopped by signal %d (%s) before the clients were released",
			 signal, strsignal(signal));
	else
		snprintf(message, sizeof(message), "no client was started");
	for (int i = 0; i < sh->nclients && !signal; i++) {
		const struct slot *s = shared_slot(sh, i);

		if (s->state == SLOT_FAILED) {
			snprintf(message, sizeof(message), "no client was started: client %d: %.400s", i,
				 s->error);
			break;
		}
	}
	run_exit_hook(status, message);
}

static int run_one(const struct program *prog, const struct backend *be, const void *be_opt,
		   const struct pass_figures *pass, const struct environment *env, struct results *r,
		   int *status)
{
	struct shared *sh = shared_create(prog, options.nclients);
	struct run_result res;

	run_benchmark(prog, be, be_opt, sh, &res);
	if (res.setup_failed) {
		/* with --mpi, rank 0 has printed the first failing rank's message;
		 * after a signal to dbench, its clients stopped for the same one */
		for (int i = 0; i < sh->nclients && !mpi_on() && !res.signal; i++) {
			struct slot *s = shared_slot(sh, i);

			if (s->state == SLOT_FAILED)
				fprintf(stderr, "%s: client %d: %s\n", options.progname, i, s->error);
		}
		if (res.signal && !mpi_on())
			fprintf(stderr, "%s: stopped by signal %d (%s) before the clients were released\n",
				options.progname, res.signal, strsignal(res.signal));
		else if (!mpi_on())
			fprintf(stderr, "%s: no client was started\n", options.progname);
		*status = res.signal ? 128 + res.signal : EXIT_USAGE;
		setup_failed_json(sh, res.signal, *status);
		series_free(res.series);
		shared_destroy(sh);
		return -1;
	}
	results_compute(r, &(struct results_source){
		.prog = prog, .backend = be->name, .opt = &options, .sh = sh, .run = &res, .pass = pass,
		.env = env, .series = res.series ? res.series->rows : NULL,
		.nseries = res.series ? res.series->nrows : 0, .series_failed = series_failed(res.series) });
	if (res.series) {
		series_write_rest(res.series, r);
		r->exit_status = results_exit_status(r, options.allow_mismatch, res.cleanup_failed,
						     series_failed(res.series));
	}
	/* --mpi: rank 0 merges every rank's results into its own */
	if (mpi_on())
		mpi_gather(r);
	*status = r->exit_status;
	series_free(res.series);
	shared_destroy(sh);
	return 0;
}

static double ops_per_sec(const struct results *r)
{
	double window = results_window_sec(r);

	return window > 0 ? (double)r->all.count / window : 0;
}

static void run_line(const struct results *r, int i, int max)
{
	printf("Run %d of %d: Throughput %g MB/sec  NB %g MB/sec  %.1f ops/sec  max_latency=%.03f ms%s\n",
	       i, max, results_throughput(r), results_throughput(r) * r->id.nbscale, ops_per_sec(r),
	       (double)r->all.max_ns / 1e6, r->exit_status ? "  (failed: see above)" : "");
}

/* Is the interval of the mean throughput narrow enough? */
static bool ci_reached(const struct run_set *set, int min_runs)
{
	double *v;
	struct summary s;

	if (set->nruns < MAX(min_runs, 2))
		return false;
	v = xcalloc((size_t)set->nruns, sizeof(*v));
	for (int i = 0; i < set->nruns; i++)
		v[i] = results_throughput(&set->run[i]);
	summarize(v, (size_t)set->nruns, CI_LEVEL, &s);
	free(v);
	return s.ci_valid && s.mean > 0 && s.ci_half <= set->until_ci_pct / 100 * s.mean;
}

void run_series(const struct program *prog, const struct backend *be, const void *be_opt,
		const struct run_plan *plan, struct run_set *set)
{
	struct pass_figures pass = { 0 };
	struct environment env;
	struct pass_stats ps;

	memset(set, 0, sizeof(*set));
	environment_collect(&env, &options, be->flags, backend_directory(be, be_opt));
	backend_options_to_environment(be, be_opt, &env);
	set->max_runs = plan->max_runs;
	set->until_ci_pct = plan->until_ci_pct;
	set->run = xcalloc((size_t)plan->max_runs, sizeof(*set->run));
	set->mpi = xcalloc((size_t)plan->max_runs, sizeof(*set->mpi));
	set->end = SERIES_DONE;
	/* what one pass does, for the documents: once for every run */
	if (options.json) {
		pass_run(prog, &options, PASS_MAX_STEPS, &ps);
		pass_figures_of(&ps, &pass);
	}

	for (int i = 0; i < plan->max_runs; i++) {
		struct results *r = &set->run[set->nruns];
		int status, signal;
		json_t *mpi;

		if (!plan->quiet && i > 0)
			printf("\n");
		if (run_one(prog, be, be_opt, &pass, &env, r, &status) < 0) {
			set->end = status == EXIT_USAGE ? SERIES_SETUP_FAILED : SERIES_SIGNAL;
			set->status = status;
			break;
		}
		/* with --mpi rank 0 has merged the ranks (mpi_gather): the run's
		 * per-rank breakdown; and every rank takes the same decisions, so
		 * that all make the same runs (a signal on one rank stops all) */
		mpi = mpi_json();
		signal = mpi_max(r->id.signal);
		if (signal) {
			/* the interrupted run's window is cut short: not a sample */
			if (!plan->quiet)
				printf("Run %d of %d: stopped by a signal, not counted\n", i + 1,
				       plan->max_runs);
			set->end = SERIES_SIGNAL;
			set->status = MAX(status, 128 + signal);
			if (plan->quiet) {
				set->mpi[set->nruns] = mpi;
				set->nruns++;	/* a single run reports what it measured */
			} else {
				json_decref(mpi);
				results_free(r);
			}
			break;
		}
		set->mpi[set->nruns] = mpi;
		set->nruns++;
		set->status = MAX(set->status, status);
		if (!plan->quiet)
			run_line(r, i + 1, plan->max_runs);
		/* the interval of the whole run's figures: rank 0's decision */
		if (plan->until_ci_pct > 0 && i + 1 < plan->max_runs &&
		    mpi_max(mpi_rank() == 0 && ci_reached(set, plan->min_runs))) {
			set->end = SERIES_CI_REACHED;
			break;
		}
	}
	environment_free(&env);
}

void run_set_free(struct run_set *set)
{
	for (int i = 0; i < set->nruns; i++) {
		results_free(&set->run[i]);
		json_decref(set->mpi[i]);
	}
	free(set->run);
	free(set->mpi);
	memset(set, 0, sizeof(*set));
}

/* ---- the summary ---- */

/* One summarized figure: its values in the runs that have it. */
struct figure {
	char key[96];		/* JSON name */
	char label[96];		/* table label */
	double *v;
	size_t n;
};

struct figures {
	struct figure *f;
	size_t n;
};

static struct figure *figure_add(struct figures *fs, const char *key, const char *label)
{
	struct figure *f;

	fs->f = xrealloc(fs->f, (fs->n + 1) * sizeof(*fs->f));
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->label, sizeof(f->label), "%s", label);
	return f;
}

static void figure_push(struct figure *f, double v, size_t cap)
{
	if (!f->v)
		f->v = xcalloc(cap ? cap : 1, sizeof(*f->v));
	f->v[f->n++] = v;
}

/* The figures of every run: the totals, the latency of all ops, and each
 * op's mean and p99 (runs where the op ran). */
static void collect(const struct run_set *set, struct figures *fs, size_t *ops_first)
{
	size_t cap = (size_t)set->nruns, first;
	unsigned nops = set->nruns ? set->run[0].nops : 0;
	struct figure *tput, *nb, *rate, *maxl, *mean, *p99;

	figure_add(fs, "throughput_mb_per_sec", "Throughput MB/sec");
	figure_add(fs, "nb_mb_per_sec", "NB MB/sec");
	figure_add(fs, "ops_per_sec", "Ops/sec");
	figure_add(fs, "max_latency_ms", "Max latency ms");
	figure_add(fs, "latency_mean_ms", "Latency mean ms");
	figure_add(fs, "latency_p99_ms", "Latency p99 ms");
	first = fs->n;
	for (unsigned k = 0; k < nops; k++) {
		char label[96];
		const char *name = results_op_name(&set->run[0], k);
		const char *shown = results_op_label(&set->run[0], k);

		snprintf(label, sizeof(label), "%s mean ms", shown);
		figure_add(fs, name, label);
		snprintf(label, sizeof(label), "%s p99 ms", shown);
		figure_add(fs, name, label);
	}
	tput = &fs->f[0], nb = &fs->f[1], rate = &fs->f[2], maxl = &fs->f[3];
	mean = &fs->f[4], p99 = &fs->f[5];
	for (int i = 0; i < set->nruns; i++) {
		const struct results *r = &set->run[i];
		struct latency_figures lf;

		figure_push(tput, results_throughput(r), cap);
		figure_push(nb, results_throughput(r) * r->id.nbscale, cap);
		figure_push(rate, ops_per_sec(r), cap);
		figure_push(maxl, (double)r->all.max_ns / 1e6, cap);
		if (r->all.count) {
			latency_figures(&r->all, r->all.count, &lf);
			figure_push(mean, lf.avg / 1e6, cap);
			figure_push(p99, lf.p99 / 1e6, cap);
		}
		for (unsigned k = 0; k < r->nops && k < nops; k++) {
			if (!r->op[k].total.count)
				continue;
			latency_figures(&r->op[k].total, r->all.count, &lf);
			figure_push(&fs->f[first + 2 * k], lf.avg / 1e6, cap);
			figure_push(&fs->f[first + 2 * k + 1], lf.p99 / 1e6, cap);
		}
	}
	*ops_first = first;
}

static void figures_free(struct figures *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->f[i].v);
	free(fs->f);
}

void run_set_report(FILE *out, const struct run_set *set)
{
	struct figures fs = { 0 };
	struct summary s;
	uint64_t maxlat = 0;
	size_t first;

	if (!set->nruns)
		return;
	collect(set, &fs, &first);
	fprintf(out, "\nSummary of %d run%s%s: mean, median, standard deviation, coefficient of "
		     "variation, min, max, and the 95%% confidence interval of the mean (Student's t)\n",
		set->nruns, set->nruns == 1 ? "" : "s",
		set->end == SERIES_CI_REACHED ? " (the interval reached --repeat-until-ci)" : "");
	fprintf(out, " %-28s %12s %12s %12s %7s %12s %12s %12s\n", "Figure", "Mean", "Median",
		"Stddev", "CoV", "Min", "Max", "95% CI +-");
	for (size_t i = 0; i < fs.n; i++) {
		const struct figure *f = &fs.f[i];

		if (!f->n)
			continue;
		summarize(f->v, f->n, CI_LEVEL, &s);
		fprintf(out, " %-28s %12.5g %12.5g %12.5g %6.1f%% %12.5g %12.5g ", f->label, s.mean,
			s.median, s.stddev, s.cov * 100, s.min, s.max);
		if (s.ci_valid)
			fprintf(out, "%12.5g\n", s.ci_half);
		else
			fprintf(out, "%12s\n", "-");
	}
	summarize(fs.f[0].v, fs.f[0].n, CI_LEVEL, &s);
	for (int i = 0; i < set->nruns; i++)
		maxlat = MAX(maxlat, set->run[i].all.max_ns);
	/* The spread on a line of its own that no dbench 4.0 parser takes
	 * for a result: LKP reads every line starting "Throughpu" by field
	 * position, PTS the last line holding "Throughput"; the only such
	 * line is the last one, dbench's, with the mean. */
	if (s.ci_valid)
		fprintf(out, "Mean of %zu runs: %g MB/sec ± %.3g (95%% confidence interval), CoV %.1f%%\n",
			s.n, s.mean, s.ci_half, s.cov * 100);
	else
		fprintf(out, "Mean of 1 run: %g MB/sec (one run: no interval)\n", s.mean);
	fprintf(out, "Throughput %g MB/sec  %d clients  %d procs  max_latency=%.03f ms\n", s.mean,
		set->run[0].id.clients, set->run[0].id.processes, (double)maxlat / 1e6);
	fflush(out);
	figures_free(&fs);
}

/* ---- --mpi: each run's ranks ---- */

bool run_set_has_ranks(const struct run_set *set)
{
	return set->nruns > 0 && set->mpi && set->mpi[0];
}

void run_set_rank_header(FILE *out, bool sweep)
{
	fprintf(out, "\nPer rank, each %s:\n", sweep ? "point and run" : "run");
	if (sweep)
		fprintf(out, " %-5s", "Point");
	fprintf(out, " %-5s", "Run");
	fprintf(out, " %-5s %-24s %8s %12s %12s %10s\n", "Rank", "Host", "Clients", "MB/sec", "ops/sec",
		"p99 ms");
}

void run_set_rank_lines(FILE *out, const struct run_set *set, int point)
{
	for (int i = 0; i < set->nruns; i++) {
		json_t *ranks = set->mpi[i] ? json_object_get(set->mpi[i], "per_rank") : NULL;
		size_t k;
		json_t *rank;

		json_array_foreach(ranks, k, rank) {
			if (point > 0)
				fprintf(out, " %-5d", point);
			fprintf(out, " %-5d %-5d %-24s %8d %12.2f %12.1f %10.3f\n", i + 1,
				(int)json_integer_value(json_object_get(rank, "rank")),
				json_string_value(json_object_get(rank, "host")),
				(int)json_integer_value(json_object_get(rank, "clients")),
				json_real_value(json_object_get(rank, "mb_per_sec")),
				json_real_value(json_object_get(rank, "ops_per_sec")),
				json_real_value(json_object_get(rank, "p99_ms")));
		}
	}
	fflush(out);
}

static json_t *summary_json(const struct figure *f)
{
	struct summary s;

	summarize(f->v, f->n, CI_LEVEL, &s);
	if (!s.n)
		return json_pack("{s:i}", "n", 0);
	return json_pack("{s:I s:f s:f s:f s:f s:f s:f s:o s:o s:o}", "n", (json_int_t)s.n,
			 "mean", s.mean, "median", s.median, "stddev", s.stddev, "cov", s.cov,
			 "min", s.min, "max", s.max,
			 "ci95_half_width", s.ci_valid ? json_real(s.ci_half) : json_null(),
			 "ci95_low", s.ci_valid ? json_real(s.mean - s.ci_half) : json_null(),
			 "ci95_high", s.ci_valid ? json_real(s.mean + s.ci_half) : json_null());
}

json_t *run_set_json(const struct run_set *set)
{
	json_t *doc = json_object(), *summary = json_object(), *runs = json_array(), *opsj = json_array();
	struct figures fs = { 0 };
	size_t first;

	collect(set, &fs, &first);
	for (size_t i = 0; i < first; i++)
		json_object_set_new(summary, fs.f[i].key, summary_json(&fs.f[i]));
	for (size_t i = first; i + 1 < fs.n; i += 2)
		json_array_append_new(opsj, json_pack("{s:s s:o s:o}", "name", fs.f[i].key,
						      "avg_ms", summary_json(&fs.f[i]),
						      "p99_ms", summary_json(&fs.f[i + 1])));
	json_object_set_new(summary, "operations", opsj);
	for (int i = 0; i < set->nruns; i++) {
		json_t *run = results_to_json(&set->run[i]);

		if (set->mpi[i])	/* --mpi: the run's per-rank breakdown */
			json_object_set(run, "mpi", set->mpi[i]);
		json_array_append_new(runs, run);
	}
	json_object_set_new(doc, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	json_object_set_new(doc, "program", json_pack("{s:s s:s}", "name", options.progname,
						      "version", PACKAGE_VERSION));
	json_object_set_new(doc, "repeat", json_pack("{s:i s:i s:o s:f s:s}",
		"max_runs", set->max_runs, "runs", set->nruns,
		"until_ci_pct", set->until_ci_pct > 0 ? json_real(set->until_ci_pct) : json_null(),
		"confidence_level", CI_LEVEL, "end", series_end_name[set->end]));
	json_object_set_new(doc, "summary", summary);
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "exit_status", json_integer(set->status));
	figures_free(&fs);
	return doc;
}

int run_set_write_json(const struct run_set *set, const char *path, int stdout_fd)
{
	return json_write_document(run_set_json(set), path, stdout_fd, false);
}
