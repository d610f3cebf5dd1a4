/*
 * json_report.c - the --json result document: what was run (program,
 * command line, backend, loadfile and its CRC-32, host, clients, window)
 * and every figure of the human report, with the histograms as sparse
 * bucket lists that another tool can merge.  Built with jansson, so that
 * names and paths are escaped correctly whatever they hold.
 *
 * The shape is described by doc/dbench-result.schema.json; a change that
 * breaks a reader of version N bumps RESULT_SCHEMA_VERSION.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "json_report.h"
#include "latency.h"
#include "loadfile.h"
#include "options.h"
#include "report.h"
#include "series.h"
#include "util.h"

void machine_stdout_prepare(void)
{
	bool json_out = options.json && strcmp(options.json, "-") == 0;
	bool series_out = options.csv_series && strcmp(options.csv_series, "-") == 0;

	if (!json_out && !series_out)
		return;
	fflush(stdout);
	options.stdout_fd = dup(STDOUT_FILENO);
	if (options.stdout_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		die(EXIT_USAGE, "cannot move the human output to stderr: %s", strerror(errno));
}

/* Add a member, taking the reference (jansson's "_new" setters). */
static void set(json_t *obj, const char *key, json_t *value)
{
	json_object_set_new(obj, key, value);
}

/* Add every member of `more` to obj, taking the reference to `more`. */
static void update(json_t *obj, json_t *more)
{
	json_object_update(obj, more);
	json_decref(more);
}

static json_t *ms_or_null(const struct latency_figures *f, double ns)
{
	return f->count ? json_real(ns / 1e6) : json_null();
}

static json_t *decades_json(const struct op_total *t)
{
	json_t *arr = json_array();
	uint64_t cum = 0;
	double upper = 0.01;

	for (int d = 0; d < DECADES; d++, upper *= 10) {
		cum += t->decade[d];
		json_array_append_new(arr, json_pack("{s:s s:o sI s:f s:f}",
			"label", decade_label[d],
			"upper_ms", d < DECADES - 1 ? json_real(upper) : json_null(),
			"count", (json_int_t)t->decade[d],
			"percent", percent_of(t->decade[d], t->count),
			"cumulative_percent", percent_of(cum, t->count)));
	}
	return arr;
}

/* Non-empty buckets as [index, low_ns, high_ns (exclusive; null for the
 * last bucket, which has no upper bound), count]. */
static json_t *histogram_json(const struct hist_total *h)
{
	json_t *arr = json_array(), *high;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t low = hist_bucket_low(i);

		if (!h->count[i])
			continue;
		high = i == HIST_BUCKETS - 1 ? json_null() :
					       json_integer((json_int_t)(low + hist_bucket_width(i)));
		json_array_append_new(arr, json_pack("[i I o I]", (int)i, (json_int_t)low, high,
						     (json_int_t)h->count[i]));
	}
	return arr;
}

/* Every figure of one op, group or other total. */
static json_t *figures_json(const struct op_total *t, uint64_t all_ops, bool with_histogram)
{
	struct latency_figures f;
	json_t *obj = json_object();

	latency_figures(t, all_ops, &f);
	set(obj, "count", json_integer((json_int_t)t->count));
	set(obj, "percent", json_real(f.percent));
	set(obj, "mismatches", json_integer((json_int_t)t->mismatches));
	set(obj, "errors", json_integer((json_int_t)t->errors));
	set(obj, "bytes", json_integer((json_int_t)t->bytes));
	set(obj, "min_ms", ms_or_null(&f, f.min));
	set(obj, "median_ms", ms_or_null(&f, f.median));
	set(obj, "avg_ms", ms_or_null(&f, f.avg));
	set(obj, "p90_ms", ms_or_null(&f, f.p90));
	set(obj, "p99_ms", ms_or_null(&f, f.p99));
	set(obj, "p99_9_ms", ms_or_null(&f, f.p999));
	set(obj, "max_ms", ms_or_null(&f, f.max));
	set(obj, "stddev_ms", ms_or_null(&f, f.stddev));
	set(obj, "decades", decades_json(t));
	if (with_histogram)
		set(obj, "histogram", histogram_json(&t->hist));
	return obj;
}

static json_t *operations_json(const struct program *prog, const struct result_totals *t,
			       bool with_histogram)
{
	json_t *arr = json_array();

	for (unsigned k = 0; k < t->nstats; k++) {
		const struct op_info *info = &op_info[prog->stat_op[k]];
		json_t *obj = json_pack("{s:s s:s s:s}", "name", info->display, "loadfile_name",
					info->name, "group", group_name[info->group]);

		update(obj, figures_json(&t->op[k], t->all.count, with_histogram));
		json_array_append_new(arr, obj);
	}
	return arr;
}

static json_t *groups_json(const struct program *prog, const struct result_totals *t)
{
	json_t *arr = json_array();

	for (int g = 0; g < GROUP_COUNT; g++) {
		json_t *members = json_array(), *obj;

		for (unsigned k = 0; k < t->nstats; k++)
			if (op_info[prog->stat_op[k]].group == (enum op_group)g)
				json_array_append_new(members, json_string(op_info[prog->stat_op[k]].display));
		obj = json_pack("{s:s s:o}", "name", group_name[g], "operations", members);
		update(obj, figures_json(&t->group[g], t->all.count, true));
		json_array_append_new(arr, obj);
	}
	return arr;
}

static json_t *histogram_scheme_json(void)
{
	return json_pack("{s:s s:s s:i s:i s:i s:I s:s}",
			 "type", "log-linear",
			 "unit", "ns",
			 "buckets", HIST_BUCKETS,
			 "linear_below_ns", 2 * HIST_SUB,
			 "buckets_per_octave", HIST_SUB,
			 "last_bucket_from_ns", (json_int_t)hist_bucket_low(HIST_BUCKETS - 1),
			 "bucket_low_ns",
			 "i < 64: i; else (32 + i % 32) << (i / 32 - 1); width 1 below 64, else 1 << (i / 32 - 1)");
}

static json_t *command_line_json(void)
{
	json_t *arr = json_array();

	for (int i = 0; i < options.argc; i++)
		json_array_append_new(arr, json_string(options.argv[i]));
	return arr;
}

static json_t *host_json(void)
{
	char name[256] = "";
	struct utsname u;

	gethostname(name, sizeof(name) - 1);
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	return json_pack("{s:s s:s s:s s:s}", "name", name, "system", u.sysname, "release", u.release,
			 "machine", u.machine);
}

static json_t *loadfile_json(const struct program *prog)
{
	struct pass_stats ps;
	char crc[16];

	program_pass_stats(prog, options.nclients, options.seed, &ps);
	snprintf(crc, sizeof(crc), "%08x", prog->crc32);
	return json_pack("{s:s s:s s:I s:I s:I s:I s:b s:f s:f}",
			 "path", prog->filename,
			 "crc32", crc,
			 "lines", (json_int_t)prog->lines,
			 "ops_per_pass", (json_int_t)ps.total_ops,
			 "bytes_read_per_pass", (json_int_t)ps.bytes_read,
			 "bytes_written_per_pass", (json_int_t)ps.bytes_written,
			 "timestamps", (int)prog->timestamps,
			 "duration_sec", ps.duration,
			 "nbscale", prog->nbscale);
}

static json_t *window_json(const struct run_result *res)
{
	json_t *obj = json_object();

	set(obj, "warmup_sec", json_integer(options.warmup));
	set(obj, "timelimit_sec", options.passes && !options.timelimit_given ? json_null() :
				  json_integer(options.timelimit));
	set(obj, "passes_per_client", options.passes ? json_integer(options.passes) : json_null());
	set(obj, "start_sec", json_real((double)(res->measure_start_ns - res->release_ns) / 1e9));
	set(obj, "duration_sec", json_real(run_window(res)));
	return obj;
}

static json_t *passes_json(const struct shared *sh)
{
	json_t *per = json_array();
	uint64_t lo = UINT64_MAX, hi = 0, total = 0;

	for (int i = 0; i < sh->nclients; i++) {
		uint64_t p = shared_slot(sh, i)->passes;

		json_array_append_new(per, json_integer((json_int_t)p));
		lo = MIN(lo, p);
		hi = MAX(hi, p);
		total += p;
	}
	return json_pack("{s:I s:I s:I s:o}", "min", (json_int_t)(lo == UINT64_MAX ? 0 : lo), "max",
			 (json_int_t)hi, "total", (json_int_t)total, "per_client", per);
}

static const char *slot_state_name(int state)
{
	switch (state) {
	case SLOT_DONE:
		return "done";
	case SLOT_FAILED:
		return "failed";
	default:
		return "unfinished";
	}
}

static json_t *per_client_json(const struct program *prog, const struct shared *sh)
{
	json_t *arr = json_array();

	for (int i = 0; i < sh->nclients; i++) {
		const struct slot *s = shared_slot(sh, i);
		struct result_totals t;
		json_t *obj;

		totals_collect(&t, prog, sh, i);
		obj = json_pack("{s:i s:s s:I s:I s:I s:I s:o}",
				"client", i,
				"state", slot_state_name(s->state),
				"lines", (json_int_t)s->ops_measured,
				"bytes", (json_int_t)s->bytes_measured,
				"passes", (json_int_t)s->passes,
				"mismatches", (json_int_t)t.all.mismatches,
				"operations", operations_json(prog, &t, false));
		if (s->state == SLOT_FAILED)
			set(obj, "error", json_string(s->error[0] ? s->error : "unknown error"));
		json_array_append_new(arr, obj);
		totals_free(&t);
	}
	return arr;
}

static json_t *series_json(const struct series *ser)
{
	json_t *arr = json_array();

	for (size_t i = 0; ser && i < ser->nrows; i++)
		json_array_append_new(arr, series_row_json(&ser->rows[i]));
	return arr;
}

static json_t *resources_json(const struct shared *sh)
{
	struct client_resources r;
	double per;

	client_resources(sh, &r);
	per = r.ops ? 1.0 / (double)r.ops : 0;
	return json_pack("{s:I s:f s:f s:f s:f s:I s:I}",
			 "ops_all_phases", (json_int_t)r.ops,
			 "user_cpu_sec", (double)r.user_ns / 1e9,
			 "system_cpu_sec", (double)r.sys_ns / 1e9,
			 "user_us_per_op", (double)r.user_ns / 1e3 * per,
			 "system_us_per_op", (double)r.sys_ns / 1e3 * per,
			 "network_bytes_sent", (json_int_t)r.net_sent,
			 "network_bytes_received", (json_int_t)r.net_received);
}

static json_t *results_json(const struct program *prog, const struct shared *sh,
			    const struct run_result *res, const struct result_totals *t)
{
	double window = run_window(res);
	double tput = window > 0 ? (double)t->all.bytes / 1e6 / window : 0;
	bool paced = run_is_paced(prog);
	json_t *obj = json_object();

	set(obj, "throughput_mb_per_sec", json_real(tput));
	set(obj, "nb_mb_per_sec", json_real(tput * prog->nbscale));
	set(obj, "ops", json_integer((json_int_t)t->all.count));
	set(obj, "ops_per_sec", json_real(window > 0 ? (double)t->all.count / window : 0));
	set(obj, "bytes", json_integer((json_int_t)t->all.bytes));
	set(obj, "mismatches", json_integer((json_int_t)t->all.mismatches));
	set(obj, "errors", json_integer((json_int_t)t->all.errors));
	set(obj, "failed_clients", json_integer(res->failed_clients));
	set(obj, "passes", passes_json(sh));
	set(obj, "max_latency_ms", json_real((double)t->all.max_ns / 1e6));
	set(obj, "latency_kind", json_string(paced ? "service" : "response"));
	set(obj, "all", figures_json(&t->all, t->all.count, true));
	set(obj, "operations", operations_json(prog, t, true));
	set(obj, "groups", groups_json(prog, t));
	set(obj, "schedule_lag", paced ? figures_json(&t->lag, t->lag.count, true) : json_null());
	set(obj, "response_from_schedule",
	    paced ? figures_json(&t->response, t->response.count, true) : json_null());
	set(obj, "client_resources", resources_json(sh));
	return obj;
}

static json_t *document(const struct program *prog, const struct backend *be, const struct shared *sh,
			const struct run_result *res, int exit_status)
{
	struct result_totals t;
	json_t *doc = json_object();
	char seed[24];

	totals_collect(&t, prog, sh, -1);
	set(doc, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	set(doc, "program", json_pack("{s:s s:s}", "name", options.progname, "version", PACKAGE_VERSION));
	set(doc, "command_line", command_line_json());
	set(doc, "backend", json_string(be->name));
	set(doc, "loadfile", loadfile_json(prog));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)options.seed);
	set(doc, "seed", json_string(seed));
	set(doc, "start_time", json_string(res->start_time));
	set(doc, "host", host_json());
	set(doc, "clients", json_integer(options.nclients));
	set(doc, "processes", json_integer(options.nprocs));
	set(doc, "paced", json_boolean(run_is_paced(prog)));
	set(doc, "target_rate_mb_per_sec", json_real(options.target_rate));
	set(doc, "window", window_json(res));
	set(doc, "signal", json_integer(res->signal));
	set(doc, "exit_status", json_integer(exit_status));
	set(doc, "histogram_scheme", histogram_scheme_json());
	set(doc, "results", results_json(prog, sh, res, &t));
	if (options.per_client_results)
		set(doc, "per_client", per_client_json(prog, sh));
	set(doc, "series", series_json(res->series));
	totals_free(&t);
	return doc;
}

int json_report(const struct program *prog, const struct backend *be, const struct shared *sh,
		const struct run_result *res, int exit_status)
{
	bool to_stdout = strcmp(options.json, "-") == 0;
	json_t *doc = document(prog, be, sh, res, exit_status);
	FILE *f;
	int rc = 0;

	if (to_stdout)
		f = fdopen(options.stdout_fd, "w");
	else
		f = fopen(options.json, "w");
	if (!f) {
		warnx_("--json %s: cannot open: %s", options.json, strerror(errno));
		json_decref(doc);
		return -1;
	}
	if (json_dumpf(doc, f, JSON_COMPACT | JSON_REAL_PRECISION(9)) < 0 || fputc('\n', f) == EOF)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		warnx_("--json %s: write error: %s", options.json, strerror(errno));
	json_decref(doc);
	return rc;
}
