/*
 * json_report.c - a results value as the --json document and back:
 * results_to_json, results_from_json and the file around them
 * (json_report.h).
 * Built with jansson, so that names and paths are escaped correctly
 * whatever they hold.
 *
 * The document holds every figure of the human report (derived figures:
 * averages, percentiles, throughput, in ms and MB/s) for readers, and beside
 * them the raw figures they are derived from, exactly (counts, sum_ns,
 * min_ns, max_ns, sumsq_ns as a decimal string exact to the double, decades,
 * the histograms as sparse bucket lists), which is what results_from_json
 * reads: a document read back is the value that was written, and renders
 * the same.  The shape is described by doc/dbench-result.schema.json; a
 * change that breaks a reader of version N bumps RESULT_SCHEMA_VERSION.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_report.h"
#include "outfile.h"
#include "results.h"
#include "util.h"

#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(9))

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

static json_t *uint_json(uint64_t v)
{
	return json_integer((json_int_t)v);
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

static json_t *sumsq_json(double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.17g", v);
	return json_string(buf);
}

/* Every figure of one op, group or other total, derived and raw. */
static json_t *figures_json(const struct op_total *t, uint64_t all_ops)
{
	struct latency_figures f;
	json_t *obj = json_object();

	latency_figures(t, all_ops, &f);
	set(obj, "count", uint_json(t->count));
	set(obj, "percent", json_real(f.percent));
	set(obj, "mismatches", uint_json(t->mismatches));
	set(obj, "errors", uint_json(t->errors));
	set(obj, "bytes", uint_json(t->bytes));
	set(obj, "min_ms", ms_or_null(&f, f.min));
	set(obj, "median_ms", ms_or_null(&f, f.median));
	set(obj, "avg_ms", ms_or_null(&f, f.avg));
	set(obj, "p90_ms", ms_or_null(&f, f.p90));
	set(obj, "p99_ms", ms_or_null(&f, f.p99));
	set(obj, "p99_9_ms", ms_or_null(&f, f.p999));
	set(obj, "max_ms", ms_or_null(&f, f.max));
	set(obj, "stddev_ms", ms_or_null(&f, f.stddev));
	set(obj, "decades", decades_json(t));
	set(obj, "histogram", histogram_json(&t->hist));
	set(obj, "sum_ns", uint_json(t->total_ns));
	set(obj, "min_ns", t->count ? uint_json(t->min_ns) : json_null());
	set(obj, "max_ns", uint_json(t->max_ns));
	set(obj, "sumsq_ns", sumsq_json(t->sumsq_ns));
	return obj;
}

static json_t *operations_json(const struct results *r, const struct op_total *tot, size_t stride)
{
	json_t *arr = json_array();
	uint64_t all = 0;

	for (unsigned k = 0; k < r->nops; k++)
		all += ((const struct op_total *)((const char *)tot + k * stride))->count;
	for (unsigned k = 0; k < r->nops; k++) {
		const struct op_info *info = &op_info[r->op[k].id];
		json_t *obj = json_pack("{s:s s:s s:s}", "name", info->display, "loadfile_name",
					info->name, "group", group_name[info->group]);

		update(obj, figures_json((const struct op_total *)((const char *)tot + k * stride), all));
		json_array_append_new(arr, obj);
	}
	return arr;
}

static json_t *groups_json(const struct results *r)
{
	json_t *arr = json_array();

	for (int g = 0; g < GROUP_COUNT; g++) {
		json_t *members = json_array(), *obj;

		for (unsigned k = 0; k < r->nops; k++)
			if (op_info[r->op[k].id].group == (enum op_group)g)
				json_array_append_new(members, json_string(results_op_name(r, k)));
		obj = json_pack("{s:s s:o}", "name", group_name[g], "operations", members);
		update(obj, figures_json(&r->group[g], r->all.count));
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

static json_t *command_line_json(const struct results_identity *id)
{
	json_t *arr = json_array();

	for (int i = 0; i < id->argc; i++)
		json_array_append_new(arr, json_string(id->argv[i]));
	return arr;
}

static json_t *loadfile_json(const struct results_identity *id)
{
	char crc[16];
	json_t *lf;

	snprintf(crc, sizeof(crc), "%08x", id->crc32);
	lf = json_pack("{s:s s:s s:s s:I s:I s:I s:I s:b s:f s:I s:f}",
			 "path", id->loadfile,
			 "crc32", crc,
			 "sha256", id->sha256,
			 "lines", (json_int_t)id->lines,
			 "ops_per_pass", (json_int_t)id->pass.ops,
			 "bytes_read_per_pass", (json_int_t)id->pass.bytes_read,
			 "bytes_written_per_pass", (json_int_t)id->pass.bytes_written,
			 "timestamps", (int)id->timestamps,
			 "duration_sec", (double)id->pass.duration_ns / 1e9,
			 "duration_ns", (json_int_t)id->pass.duration_ns,
			 "nbscale", id->nbscale);
	if (lf && !id->sha256[0])	/* read back from a document without it */
		json_object_del(lf, "sha256");
	return lf;
}

static json_t *window_json(const struct results_identity *id)
{
	json_t *obj = json_object();

	set(obj, "warmup_sec", json_integer(id->warmup_sec));
	set(obj, "timelimit_sec", id->timelimit_sec < 0 ? json_null() : json_integer(id->timelimit_sec));
	set(obj, "passes_per_client", id->passes_per_client ? json_integer(id->passes_per_client) :
							      json_null());
	set(obj, "start_sec", json_real((double)id->window_start_ns / 1e9));
	set(obj, "duration_sec", json_real((double)id->window_ns / 1e9));
	set(obj, "start_ns", uint_json(id->window_start_ns));
	set(obj, "duration_ns", uint_json(id->window_ns));
	return obj;
}

static json_t *passes_json(const struct results *r)
{
	json_t *per = json_array();
	uint64_t lo = UINT64_MAX, hi = 0, total = 0;

	for (int i = 0; i < r->id.clients; i++) {
		uint64_t p = r->passes[i];

		json_array_append_new(per, uint_json(p));
		lo = MIN(lo, p);
		hi = MAX(hi, p);
		total += p;
	}
	return json_pack("{s:I s:I s:I s:I s:o}", "min", (json_int_t)(lo == UINT64_MAX ? 0 : lo),
			 "median", (json_int_t)results_passes_median(r), "max", (json_int_t)hi,
			 "total", (json_int_t)total, "per_client", per);
}

static const char *client_state_name(int state)
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

static json_t *per_client_json(const struct results *r)
{
	json_t *arr = json_array();

	for (int i = 0; i < r->id.clients; i++) {
		const struct results_client *c = &r->per_client[i];
		uint64_t mismatches = 0;
		json_t *obj;

		for (unsigned k = 0; k < r->nops; k++)
			mismatches += c->op[k].mismatches;
		obj = json_pack("{s:i s:s s:I s:I s:I s:I s:o}",
				"client", c->client,
				"state", client_state_name(c->state),
				"lines", (json_int_t)c->lines,
				"bytes", (json_int_t)c->bytes,
				"passes", (json_int_t)c->passes,
				"mismatches", (json_int_t)mismatches,
				"operations", operations_json(r, c->op, sizeof(*c->op)));
		if (c->error)
			set(obj, "error", json_string(c->error));
		json_array_append_new(arr, obj);
	}
	return arr;
}

json_t *series_row_json(const struct series_row *row)
{
	return json_pack("{sI s:s s:i sI sI s:f s:f s:f}",
			 "elapsed_sec", (json_int_t)(row->second + 1),
			 "phase", phase_name[row->phase],
			 "clients", row->clients,
			 "ops", (json_int_t)row->ops,
			 "bytes", (json_int_t)row->bytes,
			 "mb_per_sec", (double)row->bytes / 1e6,
			 "max_latency_ms", (double)row->max_ns / 1e6,
			 "p99_latency_ms", (double)row->p99_ns / 1e6);
}

static json_t *series_json(const struct results *r)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < r->nseries; i++) {
		json_t *row = series_row_json(&r->series[i]);

		set(row, "max_latency_ns", uint_json(r->series[i].max_ns));
		set(row, "p99_latency_ns", uint_json(r->series[i].p99_ns));
		json_array_append_new(arr, row);
	}
	return arr;
}

static json_t *resources_json(const struct results_resources *res)
{
	double per = res->ops ? 1.0 / (double)res->ops : 0;

	return json_pack("{s:I s:f s:f s:f s:f s:I s:I s:I s:I}",
			 "ops_all_phases", (json_int_t)res->ops,
			 "user_cpu_sec", (double)res->user_ns / 1e9,
			 "system_cpu_sec", (double)res->sys_ns / 1e9,
			 "user_us_per_op", (double)res->user_ns / 1e3 * per,
			 "system_us_per_op", (double)res->sys_ns / 1e3 * per,
			 "network_bytes_sent", (json_int_t)res->net_sent,
			 "network_bytes_received", (json_int_t)res->net_received,
			 "user_cpu_ns", (json_int_t)res->user_ns,
			 "system_cpu_ns", (json_int_t)res->sys_ns);
}

static json_t *failures_json(const struct results *r)
{
	json_t *arr = json_array();

	for (int i = 0; i < r->nfailures; i++)
		json_array_append_new(arr, json_pack("{s:i s:s}", "client", r->failures[i].client,
						     "error", r->failures[i].reason));
	return arr;
}

static json_t *figures_json_all(const struct results *r)
{
	double window = results_window_sec(r), tput = results_throughput(r);
	bool paced = r->id.paced;
	json_t *obj = json_object();

	set(obj, "throughput_mb_per_sec", json_real(tput));
	set(obj, "nb_mb_per_sec", json_real(tput * r->id.nbscale));
	set(obj, "ops", uint_json(r->all.count));
	set(obj, "ops_per_sec", json_real(window > 0 ? (double)r->all.count / window : 0));
	set(obj, "bytes", uint_json(r->all.bytes));
	set(obj, "mismatches", uint_json(r->all.mismatches));
	set(obj, "errors", uint_json(r->all.errors));
	set(obj, "failed_clients", json_integer(r->nfailures));
	set(obj, "idle_clients", json_integer(r->idle_clients));
	set(obj, "passes", passes_json(r));
	set(obj, "max_latency_ms", json_real((double)r->all.max_ns / 1e6));
	set(obj, "latency_kind", json_string(paced ? "service" : "response"));
	set(obj, "all", figures_json(&r->all, r->all.count));
	set(obj, "operations", operations_json(r, &r->op[0].total, sizeof(*r->op)));
	set(obj, "groups", groups_json(r));
	set(obj, "schedule_lag", paced ? figures_json(&r->lag, r->lag.count) : json_null());
	set(obj, "response_from_schedule", paced ? figures_json(&r->response, r->response.count) :
						   json_null());
	set(obj, "client_resources", resources_json(&r->resources));
	set(obj, "mismatches_all_phases", uint_json(r->mismatches_all));
	set(obj, "failures", failures_json(r));
	return obj;
}

json_t *results_to_json(const struct results *r)
{
	const struct results_identity *id = &r->id;
	json_t *doc = json_object();
	char seed[24];

	set(doc, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	set(doc, "program", json_pack("{s:s s:s}", "name", id->progname, "version", id->version));
	set(doc, "command_line", command_line_json(id));
	set(doc, "backend", json_string(id->backend));
	set(doc, "loadfile", loadfile_json(id));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)id->seed);
	set(doc, "seed", json_string(seed));
	set(doc, "start_time", json_string(id->start_time));
	set(doc, "host", json_pack("{s:s s:s s:s s:s}", "name", id->host_name, "system", id->host_system,
				   "release", id->host_release, "machine", id->host_machine));
	set(doc, "environment", environment_to_json(&id->env));
	set(doc, "clients", json_integer(id->clients));
	set(doc, "processes", json_integer(id->processes));
	set(doc, "paced", json_boolean(id->paced));
	set(doc, "target_rate_mb_per_sec", json_real(id->target_rate));
	set(doc, "window", window_json(id));
	set(doc, "signal", json_integer(id->signal));
	set(doc, "strict", json_boolean(id->strict));
	set(doc, "exit_status", json_integer(r->exit_status));
	set(doc, "histogram_scheme", histogram_scheme_json());
	set(doc, "results", figures_json_all(r));
	if (r->per_client)
		set(doc, "per_client", per_client_json(r));
	set(doc, "series", series_json(r));
	return doc;
}

/* Write doc to path ('-': stdout_fd, or stdout).  A file is written whole
 * or not at all: a new file beside it renamed over it, so a reader never
 * sees half a document or the previous run's, and never through a symbolic
 * link at its name (outfile.h).  Takes doc. */
int json_write_document(json_t *doc, const char *path, int stdout_fd, bool quiet)
{
	bool to_stdout = strcmp(path, "-") == 0;
	struct outfile out = { .fd = -1, .dirfd = -1 };
	char why[PATH_MAX + 128];
	FILE *f = NULL;
	int rc = 0, fd;

	if (to_stdout) {
		fd = stdout_fd >= 0 ? stdout_fd : dup(STDOUT_FILENO);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		snprintf(why, sizeof(why), "%s", strerror(errno));
	} else if (outfile_open(&out, path, false, why, sizeof(why)) == 0) {
		f = fdopen(out.fd, "w");
		if (!f) {
			snprintf(why, sizeof(why), "%s", strerror(errno));
			outfile_abort(&out, false);
		}
	}
	if (!f) {
		if (!quiet)
			warnx_("--json %s: cannot open: %s", path, why);
		json_decref(doc);
		return -1;
	}
	if (json_dumpf(doc, f, JSON_FLAGS) < 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	if (!to_stdout) {
		int e = errno;

		if (rc == 0) {
			rc = outfile_commit(&out, true);
		} else {
			outfile_abort(&out, true);
			errno = e;
		}
	}
	if (rc < 0 && !quiet)
		warnx_("--json %s: write error: %s", path, strerror(errno));
	json_decref(doc);
	return rc;
}

int results_write_json(const struct results *r, const char *path, int stdout_fd)
{
	return json_write_document(results_to_json(r), path, stdout_fd, false);
}

int results_write_error_json(const char *path, int stdout_fd, const char *progname, int argc,
			     const char **argv, int exit_status, const char *message)
{
	json_t *doc = json_object(), *cmd = json_array(), *v;

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	set(doc, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	set(doc, "program", json_pack("{s:s s:s}", "name", progname, "version", PACKAGE_VERSION));
	set(doc, "command_line", cmd);
	set(doc, "exit_status", json_integer(exit_status));
	/* the message may hold any bytes (a loadfile's): keep valid UTF-8 only */
	v = json_string(message);
	set(doc, "error", v ? v : json_string("(the message is not UTF-8)"));
	return json_write_document(doc, path, stdout_fd, true);	/* already failing: no second message */
}

/* ---- reading a document back ----
 *
 * The readers name each member, in the order results_to_json writes them
 * (get_u64(rd, obj, "count"), ...): runs of the same shape, kept on
 * purpose, so that the reader and the writer can be checked against each
 * other and against doc/dbench-result.schema.json line by line. */

/* Where the reader is, for its one-line error. */
struct reader {
	char *err;
	size_t errlen;
	bool failed;
};

static void __attribute__((format(printf, 2, 3))) bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	if (rd->failed)
		return;
	rd->failed = true;
	va_start(ap, fmt);
	vsnprintf(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
}

static const json_t *member(struct reader *rd, const json_t *obj, const char *key, json_type type)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	if (!v || json_typeof(v) != type) {
		bad(rd, "\"%s\" missing or not a%s %s", key, type == JSON_INTEGER || type == JSON_OBJECT ||
		    type == JSON_ARRAY ? "n" : "", type == JSON_INTEGER ? "integer" : type == JSON_STRING ?
		    "string" : type == JSON_OBJECT ? "object" : type == JSON_ARRAY ? "array" : "number");
		return NULL;
	}
	return v;
}

static uint64_t get_u64(struct reader *rd, const json_t *obj, const char *key)
{
	const json_t *v = member(rd, obj, key, JSON_INTEGER);

	if (v && json_integer_value(v) < 0)
		bad(rd, "\"%s\" is negative", key);
	return v ? (uint64_t)json_integer_value(v) : 0;
}

static int get_int(struct reader *rd, const json_t *obj, const char *key)
{
	const json_t *v = member(rd, obj, key, JSON_INTEGER);

	if (v && (json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX))
		bad(rd, "\"%s\" is out of range", key);
	return v ? (int)json_integer_value(v) : 0;
}

/* An integer member that may be null (def then). */
static int64_t get_int_or_null(struct reader *rd, const json_t *obj, const char *key, int64_t def)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	if (v && json_is_null(v))
		return def;
	return get_int(rd, obj, key);
}

static double get_real(struct reader *rd, const json_t *obj, const char *key)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	if (!v || !json_is_number(v)) {
		bad(rd, "\"%s\" missing or not a number", key);
		return 0;
	}
	return json_number_value(v);
}

static char *get_str(struct reader *rd, const json_t *obj, const char *key)
{
	const json_t *v = member(rd, obj, key, JSON_STRING);

	return xstrdup(v ? json_string_value(v) : "");
}

/*
 * Figures no run can produce: dbench counts every op once in the count, the
 * histogram and the decades; a mismatch or an error is an op; an op has a
 * latency between the smallest and the largest.  A document that says
 * otherwise was edited or broken, and no figure derived from it is one.
 */
static void check_total(struct reader *rd, const char *what, const struct op_total *t)
{
	uint64_t decades = 0;

	for (int i = 0; i < DECADES; i++)
		decades += t->decade[i];
	if (t->hist.n != t->count)
		bad(rd, "%s: %llu ops, but its histogram holds %llu", what,
		    (unsigned long long)t->count, (unsigned long long)t->hist.n);
	else if (decades != t->count)
		bad(rd, "%s: %llu ops, but its decades hold %llu", what, (unsigned long long)t->count,
		    (unsigned long long)decades);
	else if (t->mismatches > t->count || t->errors > t->count)
		bad(rd, "%s: more mismatches or errors (%llu, %llu) than ops (%llu)", what,
		    (unsigned long long)t->mismatches, (unsigned long long)t->errors,
		    (unsigned long long)t->count);
	else if (!isfinite(t->sumsq_ns) || t->sumsq_ns < 0)
		bad(rd, "%s: \"sumsq_ns\" is %g, not a sum of squares", what, t->sumsq_ns);
	else if (!t->count && (t->bytes || t->total_ns || t->max_ns || t->sumsq_ns))
		bad(rd, "%s: no op, but bytes or latencies", what);
	else if (t->count && (t->min_ns > t->max_ns ||
			      (unsigned __int128)t->min_ns * t->count > t->total_ns ||
			      (unsigned __int128)t->max_ns * t->count < t->total_ns))
		bad(rd, "%s: the latencies do not add up (min %llu ns, max %llu ns, %llu ops, sum %llu ns)",
		    what, (unsigned long long)t->min_ns, (unsigned long long)t->max_ns,
		    (unsigned long long)t->count, (unsigned long long)t->total_ns);
}

static void read_total(struct reader *rd, const json_t *obj, struct op_total *t, const char *what)
{
	const json_t *decades = member(rd, obj, "decades", JSON_ARRAY);
	const json_t *hist = member(rd, obj, "histogram", JSON_ARRAY);
	const json_t *v;
	const char *sumsq;
	size_t i;
	char *end;

	op_total_init(t);
	if (rd->failed)
		return;
	t->count = get_u64(rd, obj, "count");
	t->mismatches = get_u64(rd, obj, "mismatches");
	t->errors = get_u64(rd, obj, "errors");
	t->bytes = get_u64(rd, obj, "bytes");
	t->total_ns = get_u64(rd, obj, "sum_ns");
	t->max_ns = get_u64(rd, obj, "max_ns");
	v = json_object_get(obj, "min_ns");
	if (v && json_is_null(v) && t->count == 0)
		t->min_ns = UINT64_MAX;
	else
		t->min_ns = get_u64(rd, obj, "min_ns");
	v = member(rd, obj, "sumsq_ns", JSON_STRING);
	if (v) {
		sumsq = json_string_value(v);
		errno = 0;
		t->sumsq_ns = strtod(sumsq, &end);
		if (errno || end == sumsq || *end)
			bad(rd, "\"sumsq_ns\" is not a number: %s", sumsq);
	}
	if (rd->failed)
		return;
	if (json_array_size(decades) != DECADES) {
		bad(rd, "\"decades\" must have %d entries", DECADES);
		return;
	}
	json_array_foreach(decades, i, v)
		t->decade[i] = get_u64(rd, v, "count");
	json_array_foreach(hist, i, v) {
		json_int_t index, count;

		if (json_unpack((json_t *)v, "[I I o I]", &index, &(json_int_t){ 0 }, &(json_t *){ NULL }, &count) < 0 ||
		    index < 0 || index >= HIST_BUCKETS || count < 0) {
			bad(rd, "a histogram bucket is not [index, low, high, count]");
			return;
		}
		t->hist.count[index] += (uint64_t)count;
		t->hist.n += (uint64_t)count;
	}
	check_total(rd, what, t);
}

static void read_identity(struct reader *rd, const json_t *doc, struct results_identity *id)
{
	const json_t *program = member(rd, doc, "program", JSON_OBJECT);
	const json_t *argv = member(rd, doc, "command_line", JSON_ARRAY);
	const json_t *lf = member(rd, doc, "loadfile", JSON_OBJECT);
	const json_t *host = member(rd, doc, "host", JSON_OBJECT);
	const json_t *window = member(rd, doc, "window", JSON_OBJECT);
	const json_t *v;
	char *crc, *seed, *end;
	size_t i;

	if (rd->failed)
		return;
	id->progname = get_str(rd, program, "name");
	id->version = get_str(rd, program, "version");
	id->argc = (int)json_array_size(argv);
	id->argv = xcalloc((size_t)id->argc + 1, sizeof(char *));
	json_array_foreach(argv, i, v)
		id->argv[i] = xstrdup(json_is_string(v) ? json_string_value(v) : "");
	id->backend = get_str(rd, doc, "backend");
	id->loadfile = get_str(rd, lf, "path");
	crc = get_str(rd, lf, "crc32");
	id->crc32 = (uint32_t)strtoul(crc, &end, 16);
	if (strlen(crc) != 8 || *end)
		bad(rd, "\"crc32\" is not 8 hex digits");
	free(crc);
	{
		json_t *sha = json_object_get(lf, "sha256");	/* optional: older documents */

		if (json_is_string(sha) && strlen(json_string_value(sha)) == 64 &&
		    strspn(json_string_value(sha), "0123456789abcdef") == 64)
			memcpy(id->sha256, json_string_value(sha), 65);
		else if (sha)
			bad(rd, "\"sha256\" is not 64 hex digits");
	}
	id->lines = get_u64(rd, lf, "lines");
	id->pass.ops = get_u64(rd, lf, "ops_per_pass");
	id->pass.bytes_read = get_u64(rd, lf, "bytes_read_per_pass");
	id->pass.bytes_written = get_u64(rd, lf, "bytes_written_per_pass");
	id->pass.duration_ns = get_u64(rd, lf, "duration_ns");
	id->timestamps = json_is_true(json_object_get(lf, "timestamps"));
	id->nbscale = get_real(rd, lf, "nbscale");
	seed = get_str(rd, doc, "seed");
	if (parse_u64(seed, &id->seed) < 0)
		bad(rd, "\"seed\" is not a decimal number");
	free(seed);
	id->start_time = get_str(rd, doc, "start_time");
	id->host_name = get_str(rd, host, "name");
	id->host_system = get_str(rd, host, "system");
	id->host_release = get_str(rd, host, "release");
	id->host_machine = get_str(rd, host, "machine");
	id->clients = get_int(rd, doc, "clients");
	id->processes = get_int(rd, doc, "processes");
	id->paced = json_is_true(json_object_get(doc, "paced"));
	id->target_rate = get_real(rd, doc, "target_rate_mb_per_sec");
	id->warmup_sec = get_int(rd, window, "warmup_sec");
	id->timelimit_sec = (int)get_int_or_null(rd, window, "timelimit_sec", -1);
	id->passes_per_client = (int)get_int_or_null(rd, window, "passes_per_client", 0);
	id->window_start_ns = get_u64(rd, window, "start_ns");
	id->window_ns = get_u64(rd, window, "duration_ns");
	id->signal = get_int(rd, doc, "signal");
	id->strict = json_is_true(json_object_get(doc, "strict"));
	if (!rd->failed && environment_from_json(&id->env, json_object_get(doc, "environment"),
						 rd->err, rd->errlen) < 0)
		rd->failed = true;
	if (id->clients < 1 || id->clients > 1 << 24)
		bad(rd, "\"clients\" is out of range");
}

static void read_ops(struct reader *rd, struct results *r, const json_t *ops)
{
	const json_t *v;
	size_t i;

	r->nops = (unsigned)json_array_size(ops);
	r->op = xcalloc(r->nops ? r->nops : 1, sizeof(*r->op));
	json_array_foreach(ops, i, v) {
		const json_t *name = member(rd, v, "loadfile_name", JSON_STRING);
		int id = name ? op_lookup(json_string_value(name), json_string_length(name)) : -1;

		if (id < 0) {
			bad(rd, "unknown operation %s", name ? json_string_value(name) : "(none)");
			return;
		}
		r->op[i].id = id;
		read_total(rd, v, &r->op[i].total, json_string_value(name));
	}
}

/* Per-client operations: the same ops as the results', in order. */
static void read_client_ops(struct reader *rd, const struct results *r, int client,
			    const json_t *ops, struct op_total *tot)
{
	const json_t *v;
	size_t i;

	if (json_array_size(ops) != r->nops) {
		bad(rd, "a client's operations are not the run's");
		return;
	}
	json_array_foreach(ops, i, v) {
		char what[160];

		snprintf(what, sizeof(what), "client %d: %s", client, results_op_name(r, (unsigned)i));
		read_total(rd, v, &tot[i], what);
	}
}

static void read_per_client(struct reader *rd, struct results *r, const json_t *arr)
{
	const json_t *v;
	size_t i;

	if (json_array_size(arr) != (size_t)r->id.clients) {
		bad(rd, "\"per_client\" must have an entry per client");
		return;
	}
	r->per_client = xcalloc((size_t)r->id.clients + 1, sizeof(*r->per_client));
	json_array_foreach(arr, i, v) {
		struct results_client *c = &r->per_client[i];
		const json_t *state = json_object_get(v, "state"), *error = json_object_get(v, "error");

		c->client = get_int(rd, v, "client");
		c->state = json_is_string(state) && !strcmp(json_string_value(state), "done") ? SLOT_DONE :
			   json_is_string(state) && !strcmp(json_string_value(state), "failed") ? SLOT_FAILED :
			   SLOT_RUNNING;
		c->error = json_is_string(error) ? xstrdup(json_string_value(error)) : NULL;
		c->lines = get_u64(rd, v, "lines");
		c->bytes = get_u64(rd, v, "bytes");
		c->passes = get_u64(rd, v, "passes");
		c->op = xcalloc(r->nops ? r->nops : 1, sizeof(*c->op));
		read_client_ops(rd, r, c->client, member(rd, v, "operations", JSON_ARRAY), c->op);
	}
}

static void read_series(struct reader *rd, struct results *r, const json_t *arr)
{
	const json_t *v;
	size_t i;

	r->nseries = json_array_size(arr);
	r->series = xcalloc(r->nseries + 1, sizeof(*r->series));
	json_array_foreach(arr, i, v) {
		struct series_row *row = &r->series[i];
		const json_t *phase = member(rd, v, "phase", JSON_STRING);
		uint64_t elapsed = get_u64(rd, v, "elapsed_sec");

		row->second = elapsed ? elapsed - 1 : 0;
		row->phase = PHASE_CLEANUP;
		for (int p = PHASE_WARMUP; phase && p <= PHASE_CLEANUP; p++)
			if (!strcmp(json_string_value(phase), phase_name[p]))
				row->phase = p;
		row->clients = get_int(rd, v, "clients");
		row->ops = get_u64(rd, v, "ops");
		row->bytes = get_u64(rd, v, "bytes");
		row->max_ns = get_u64(rd, v, "max_latency_ns");
		row->p99_ns = get_u64(rd, v, "p99_latency_ns");
	}
}

static void read_results(struct reader *rd, struct results *r, const json_t *res)
{
	const json_t *passes = member(rd, res, "passes", JSON_OBJECT);
	const json_t *per = member(rd, passes, "per_client", JSON_ARRAY);
	const json_t *resources = member(rd, res, "client_resources", JSON_OBJECT);
	const json_t *failures = member(rd, res, "failures", JSON_ARRAY);
	const json_t *v;
	size_t i;

	if (rd->failed)
		return;
	read_ops(rd, r, member(rd, res, "operations", JSON_ARRAY));
	results_regroup(r);
	v = json_object_get(res, "schedule_lag");
	if (json_is_object(v))
		read_total(rd, v, &r->lag, "schedule_lag");
	else
		op_total_init(&r->lag);
	v = json_object_get(res, "response_from_schedule");
	if (json_is_object(v))
		read_total(rd, v, &r->response, "response_from_schedule");
	else
		op_total_init(&r->response);
	r->mismatches_all = get_u64(rd, res, "mismatches_all_phases");
	v = json_object_get(res, "idle_clients");	/* optional: older documents */
	r->idle_clients = json_is_integer(v) ? (int)json_integer_value(v) : 0;
	if (json_array_size(per) != (size_t)r->id.clients) {
		bad(rd, "\"passes\" must have an entry per client");
		return;
	}
	r->passes = xcalloc((size_t)r->id.clients + 1, sizeof(*r->passes));
	json_array_foreach(per, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			bad(rd, "\"passes\" must be counts");
			return;
		}
		r->passes[i] = (uint64_t)json_integer_value(v);
	}
	r->nfailures = (int)json_array_size(failures);
	r->failures = xcalloc((size_t)r->nfailures + 1, sizeof(*r->failures));
	json_array_foreach(failures, i, v) {
		r->failures[i].client = get_int(rd, v, "client");
		r->failures[i].reason = get_str(rd, v, "error");
	}
	r->resources.ops = get_u64(rd, resources, "ops_all_phases");
	r->resources.user_ns = get_u64(rd, resources, "user_cpu_ns");
	r->resources.sys_ns = get_u64(rd, resources, "system_cpu_ns");
	r->resources.net_sent = get_u64(rd, resources, "network_bytes_sent");
	r->resources.net_received = get_u64(rd, resources, "network_bytes_received");
}

/* A summary figure of the document that must be the one derived from the
 * operations (absent in no document of dbench's; checked if present). */
static void check_summary(struct reader *rd, const json_t *res, const char *key, uint64_t derived)
{
	const json_t *v = json_object_get(res, key);

	if (json_is_integer(v) && json_integer_value(v) < 0)
		bad(rd, "\"%s\" is negative", key);
	else if (v && (!json_is_integer(v) || (uint64_t)json_integer_value(v) != derived))
		bad(rd, "\"%s\" is not the sum of the operations' (%llu)", key,
		    (unsigned long long)derived);
}

/* The whole run's figures: what check_total says of one total, of all. */
static void check_results(struct reader *rd, const struct results *r, const json_t *res)
{
	const struct results_identity *id = &r->id;

	check_summary(rd, res, "ops", r->all.count);
	check_summary(rd, res, "bytes", r->all.bytes);
	check_summary(rd, res, "mismatches", r->all.mismatches);
	check_summary(rd, res, "errors", r->all.errors);
	if (rd->failed)
		return;
	if (!id->window_ns && r->all.count)
		bad(rd, "%llu ops in a zero-length measured window", (unsigned long long)r->all.count);
	else if (r->mismatches_all < r->all.mismatches)
		bad(rd, "fewer mismatches in all phases (%llu) than in the measured window (%llu)",
		    (unsigned long long)r->mismatches_all, (unsigned long long)r->all.mismatches);
	else if (r->resources.ops < r->all.count)
		bad(rd, "fewer ops in all phases (%llu) than in the measured window (%llu)",
		    (unsigned long long)r->resources.ops, (unsigned long long)r->all.count);
	else if (!isfinite(id->nbscale) || id->nbscale <= 0)
		bad(rd, "\"nbscale\" is %g, not a positive number", id->nbscale);
	else if (!isfinite(id->target_rate) || id->target_rate < 0)
		bad(rd, "\"target_rate_mb_per_sec\" is %g, not a rate", id->target_rate);
	else if (r->idle_clients < 0 || r->idle_clients > id->clients || r->nfailures > id->clients)
		bad(rd, "more idle or failed clients (%d, %d) than clients (%d)", r->idle_clients,
		    r->nfailures, id->clients);
	for (int i = 0; i < r->nfailures && !rd->failed; i++)
		if (r->failures[i].client < 0 || r->failures[i].client >= id->clients)
			bad(rd, "a failure of client %d, of %d clients", r->failures[i].client, id->clients);
	for (size_t i = 0; i < r->nseries && !rd->failed; i++)
		if (r->series[i].clients < 0 || r->series[i].clients > id->clients)
			bad(rd, "second %llu of the series: %d clients, of %d",
			    (unsigned long long)r->series[i].second + 1, r->series[i].clients, id->clients);
}

int results_from_json(struct results *r, const json_t *doc, char *err, size_t errlen)
{
	struct reader rd = { .err = err, .errlen = errlen };
	const json_t *v;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(doc)) {
		bad(&rd, "not a JSON object");
		goto out;
	}
	v = json_object_get(doc, "error");
	if (json_is_string(v)) {
		bad(&rd, "the run failed (exit status %lld): %s",
		    (long long)json_integer_value(json_object_get(doc, "exit_status")), json_string_value(v));
		goto out;
	}
	if (get_int(&rd, doc, "schema_version") != RESULT_SCHEMA_VERSION && !rd.failed)
		bad(&rd, "schema_version %lld is not %d",
		    (long long)json_integer_value(json_object_get(doc, "schema_version")),
		    RESULT_SCHEMA_VERSION);
	v = json_object_get(doc, "histogram_scheme");
	if (!rd.failed && get_int(&rd, v, "buckets") != HIST_BUCKETS)
		bad(&rd, "the histograms have another bucket scheme");
	read_identity(&rd, doc, &r->id);
	read_results(&rd, r, member(&rd, doc, "results", JSON_OBJECT));
	r->exit_status = get_int(&rd, doc, "exit_status");
	v = json_object_get(doc, "per_client");
	if (v && !rd.failed)
		read_per_client(&rd, r, v);
	if (!rd.failed)
		read_series(&rd, r, member(&rd, doc, "series", JSON_ARRAY));
	if (!rd.failed)
		check_results(&rd, r, json_object_get(doc, "results"));
out:
	if (!rd.failed)
		return 0;
	results_free(r);
	return -1;
}

/* ---- reading a document from a path ---- */

/* The file json_read_document reads, for jansson's callback. */
struct doc_source {
	int fd;
	bool fifo;		/* a FIFO or pipe */
	bool hup;		/* a writer came and went (poll said POLLHUP) */
	bool data;		/* some byte was read */
	uint64_t total;		/* bytes read */
	int err;		/* errno of a failed read, or 0 */
	bool no_writer;		/* a FIFO nobody opened for FIFO_WRITER_WAIT_MS */
	bool too_big;		/* more than DOCUMENT_MAX_BYTES */
};

/*
 * jansson's read callback.  A FIFO is opened without blocking, so read()
 * tells its two states apart: EAGAIN, a writer has it open (wait for it as
 * long as it takes: a slow writer is still a writer); 0 before any byte,
 * nobody has opened it (wait FIFO_WRITER_WAIT_MS for one, then give up).
 */
static size_t doc_read(void *buf, size_t len, void *arg)
{
	struct doc_source *src = arg;
	uint64_t waited_from = now_ns();

	for (;;) {
		struct pollfd p = { .fd = src->fd, .events = POLLIN };
		ssize_t n = read(src->fd, buf, len);
		int timeout = -1;

		if (n > 0) {
			src->data = true;
			src->total += (uint64_t)n;
			if (src->total > DOCUMENT_MAX_BYTES) {
				src->too_big = true;
				return (size_t)-1;
			}
			return (size_t)n;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			src->err = errno;
			return (size_t)-1;
		}
		if (n == 0 && (!src->fifo || src->hup || src->data))
			return 0;	/* the end */
		if (n == 0) {
			uint64_t waited = (now_ns() - waited_from) / NSEC_PER_MSEC;

			if (waited >= FIFO_WRITER_WAIT_MS) {
				src->no_writer = true;
				return (size_t)-1;
			}
			timeout = (int)(FIFO_WRITER_WAIT_MS - waited);
		}
		if (poll(&p, 1, timeout) > 0 && (p.revents & (POLLHUP | POLLERR)))
			src->hup = true;
	}
}

json_t *json_read_document(const char *path, size_t flags, char *err, size_t errlen)
{
	struct doc_source src = { .fd = -1 };
	json_error_t jerr;
	struct stat st;
	json_t *doc;

	src.fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (src.fd < 0) {
		snprintf(err, errlen, "cannot read it: %s", strerror(errno));
		return NULL;
	}
	if (fstat(src.fd, &st) < 0) {
		snprintf(err, errlen, "cannot read it: %s", strerror(errno));
		close(src.fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "is a directory, not a document");
		close(src.fd);
		return NULL;
	}
	src.fifo = S_ISFIFO(st.st_mode);
	doc = json_load_callback(doc_read, &src, flags, &jerr);
	close(src.fd);
	if (doc)
		return doc;
	if (src.no_writer)
		snprintf(err, errlen, "a FIFO that nobody opened for writing in %d s", FIFO_WRITER_WAIT_MS / 1000);
	else if (src.too_big)
		snprintf(err, errlen, "more than %llu MiB: not a document of dbench's",
			 (unsigned long long)(DOCUMENT_MAX_BYTES >> 20));
	else if (src.err)
		snprintf(err, errlen, "cannot read it: %s", strerror(src.err));
	else
		snprintf(err, errlen, "not JSON (line %d: %s)", jerr.line, jerr.text);
	return NULL;
}

int results_read_json(struct results *r, const char *path, char *err, size_t errlen)
{
	char why[200];
	json_t *doc = json_read_document(path, 0, why, sizeof(why));
	int rc;

	memset(r, 0, sizeof(*r));
	if (!doc) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	rc = results_from_json(r, doc, why, sizeof(why));
	if (rc < 0)
		snprintf(err, errlen, "%s: not a dbench result: %s", path, why);
	json_decref(doc);
	return rc;
}
