/*
 * compare.c - dbench-compare: is the new build slower than the base?
 *
 *     dbench-compare [OPTIONS] BASE.json... -- NEW.json...
 *
 * Reads dbench's result documents (--json; a document of --repeat holds
 * several runs and contributes all of them; several files a side pool
 * their runs), compares each metric's medians, tests whether the two sets
 * of runs differ (Mann-Whitney U, or Welch's t where the U test cannot
 * reach alpha with so few runs), and gives a verdict per metric:
 * regression, improvement or no significant change.  A change counts only
 * when it is both significant (p < alpha) and at least the threshold.
 * Documents of --sweep compare with sweeps of the same client counts,
 * point by point: each point's runs are its samples, and each point gets
 * its verdict.
 *
 * Exit status: 0 no significant regression, 1 at least one (at any
 * point), 2 unusable input or options (one line on stderr; nothing
 * compared).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <popt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json_report.h"
#include "results.h"
#include "util.h"

const char *const verdict_name[] = {
	[V_SAME] = "no significant change",
	[V_REGRESSION] = "regression",
	[V_IMPROVEMENT] = "improvement",
	[V_NONE] = "not compared",
};

const char *const test_name[] = {
	[TEST_AUTO] = "none",
	[TEST_UTEST] = "Mann-Whitney U",
	[TEST_WELCH] = "Welch's t",
};

static void __attribute__((format(printf, 1, 2), noreturn)) unusable(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", COMPARE_PROGNAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(CMP_UNUSABLE);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die(CMP_UNUSABLE, "out of memory");
	va_end(ap);
	return s;
}

/* ---- options ---- */

struct settings {
	const char *threshold, *alpha, *test, *junit, *metrics;
	int json, markdown, force, per_op, quiet, version;
};

/* "5", "5%", "2.5 %": a percentage of change. */
static double parse_percent(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	while (*end == ' ')
		end++;
	if (*end == '%')
		end++;
	if (end == s || *end || errno || !(v >= 0) || v > 1e6)
		unusable("--threshold: '%s' is not a percentage (like 5 or 5%%)", s);
	return v;
}

static double parse_alpha(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v > 0 && v < 1))
		unusable("--alpha: '%s' is not a probability between 0 and 1 (like 0.05)", s);
	return v;
}

/* What to print, and where. */
struct output {
	int json, markdown, quiet, force;
	const char *junit;
};

/* Parse argv[0..argc) (argv[0] the program name) with popt, appending the
 * file arguments to *files. */
static void parse_part(int argc, const char **argv, struct settings *set, char ***files,
		       size_t *nfiles)
{
	struct poptOption table[] = {
		{ "threshold", 0, POPT_ARG_STRING, &set->threshold, 0,
		  "the smallest change that counts, in % of the base median (default 5%)", "PCT" },
		{ "alpha", 0, POPT_ARG_STRING, &set->alpha, 0,
		  "the significance level of the test (default 0.05)", "P" },
		{ "test", 0, POPT_ARG_STRING, &set->test, 0,
		  "auto (default: the U test if it can reach alpha with these runs, else Welch's t), "
		  "utest (Mann-Whitney U) or welch", "TEST" },
		{ "per-op", 0, POPT_ARG_NONE, &set->per_op, 0,
		  "compare each operation's mean and p99 response time too (op.NAME.mean, op.NAME.p99)",
		  NULL },
		{ "metrics", 0, POPT_ARG_STRING, &set->metrics, 0,
		  "compare only these metrics: comma-separated names or patterns (default "
		  "throughput,ops_per_sec,latency.*; with --per-op also op.*)", "LIST" },
		{ "json", 0, POPT_ARG_NONE, &set->json, 0, "print the comparison as JSON", NULL },
		{ "markdown", 0, POPT_ARG_NONE, &set->markdown, 0,
		  "print the comparison as a Markdown table (for a merge-request comment)", NULL },
		{ "junit", 0, POPT_ARG_STRING, &set->junit, 0,
		  "also write a JUnit XML report to FILE: a testcase per metric (of sweeps: per point and "
		  "metric), a failure per regression", "FILE" },
		{ "force", 0, POPT_ARG_NONE, &set->force, 0,
		  "compare runs of different loadfiles", NULL },
		{ "quiet", 'q', POPT_ARG_NONE, &set->quiet, 0, "print no warnings", NULL },
		{ "version", 'V', POPT_ARG_NONE, &set->version, 0, "print the version and exit", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc = poptGetContext(COMPARE_PROGNAME, argc, argv, table, 0);
	const char *arg;
	int rc;

	poptSetOtherOptionHelp(pc, "[OPTION...] BASE.json... -- NEW.json...  (documents of dbench "
			       "--json, of --repeat, or of --sweep: sweeps compare point by point)");
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1)
		unusable("%s: %s (see %s --help)", poptBadOption(pc, 0), poptStrerror(rc),
			 COMPARE_PROGNAME);
	if (set->version) {
		printf("%s %s\n", COMPARE_PROGNAME, PACKAGE_VERSION);
		exit(0);
	}
	while ((arg = poptGetArg(pc))) {
		*files = xrealloc(*files, (*nfiles + 1) * sizeof(**files));
		(*files)[(*nfiles)++] = xstrdup(arg);
	}
	poptFreeContext(pc);
}

/* The settings go to cmp (the pattern of every point's comparison), the
 * files to rep. */
static void parse_command_line(int argc, const char **argv, struct comparison *cmp,
			       struct report *rep, struct output *out)
{
	struct settings set = { 0 };
	const char **part = xcalloc((size_t)argc + 2, sizeof(*part));
	char **files[2] = { NULL, NULL };
	size_t nfiles[2] = { 0, 0 };
	int split = -1;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	/* options and base files before "--", new files after it */
	part[0] = argv[0];
	for (int i = 1; i < (split < 0 ? argc : split); i++)
		part[i] = argv[i];
	parse_part(split < 0 ? argc : split, part, &set, &files[0], &nfiles[0]);
	if (split >= 0) {
		/* after "--" every argument is a file, even one that starts with "-" */
		for (int i = split + 1; i < argc; i++) {
			files[1] = xrealloc(files[1], (nfiles[1] + 1) * sizeof(*files[1]));
			files[1][nfiles[1]++] = xstrdup(argv[i]);
		}
	} else if (nfiles[0] == 2) {
		/* one file a side needs no "--" */
		files[1] = xcalloc(1, sizeof(*files[1]));
		files[1][0] = files[0][1];
		nfiles[1] = 1;
		nfiles[0] = 1;
	} else if (nfiles[0] > 2) {
		unusable("put -- between the base files and the new files (%s BASE.json... -- NEW.json...)",
			 COMPARE_PROGNAME);
	}
	free(part);
	if (!nfiles[0])
		unusable("no base file (%s BASE.json... -- NEW.json...; see --help)", COMPARE_PROGNAME);
	if (!nfiles[1])
		unusable("no new file (%s BASE.json... -- NEW.json...; see --help)", COMPARE_PROGNAME);
	cmp->threshold_pct = set.threshold ? parse_percent(set.threshold) : 5;
	cmp->alpha = set.alpha ? parse_alpha(set.alpha) : 0.05;
	cmp->test = TEST_AUTO;
	if (set.test) {
		if (strcmp(set.test, "auto") == 0)
			cmp->test = TEST_AUTO;
		else if (strcmp(set.test, "utest") == 0 || strcmp(set.test, "mann-whitney") == 0)
			cmp->test = TEST_UTEST;
		else if (strcmp(set.test, "welch") == 0 || strcmp(set.test, "ttest") == 0)
			cmp->test = TEST_WELCH;
		else
			unusable("--test: '%s' is not auto, utest or welch", set.test);
	}
	if (set.json && set.markdown)
		unusable("--json and --markdown both want stdout: choose one");
	cmp->per_op = set.per_op;
	cmp->metrics = set.metrics;
	if (cmp->metrics && !*cmp->metrics)
		unusable("--metrics: an empty list");
	for (int s = 0; s < 2; s++) {
		rep->files[s] = files[s];
		rep->nfiles[s] = nfiles[s];
	}
	out->json = set.json;
	out->markdown = set.markdown;
	out->junit = set.junit;	/* freed with the comparison (popt's copies) */
	free((char *)set.threshold);
	free((char *)set.alpha);
	free((char *)set.test);
	out->quiet = set.quiet;
	out->force = set.force;
}

/* ---- input: result documents and their runs ---- */

/* The member at a dotted path ("window.warmup_sec"), or NULL. */
static json_t *member(json_t *obj, const char *path)
{
	char key[128];

	while (obj && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (!json_is_object(obj) || len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = 0;
		obj = json_object_get(obj, key);
		path += len + (dot ? 1 : 0);
	}
	return obj;
}

/* Exits with status 2 when the document is not dbench's. */
static void check_document(const char *file, json_t *doc)
{
	json_t *name = member(doc, "program.name");

	if (!json_is_object(doc) || !json_is_integer(json_object_get(doc, "schema_version")) ||
	    !json_is_string(name) ||
	    (strcmp(json_string_value(name), "dbench") && strcmp(json_string_value(name), "tbench")))
		unusable("%s: not a dbench result (no schema_version and program of dbench --json)", file);
}

static bool is_sweep(json_t *doc)
{
	return json_is_array(json_object_get(doc, "points"));
}

/* The run documents of a document: its runs' (a document of --repeat) or
 * itself. */
static size_t document_runs(const char *file, json_t *doc, json_t ***runs)
{
	json_t *list = json_object_get(doc, "runs");
	size_t n = 0, i;
	json_t *run;

	if (json_is_array(list)) {
		*runs = xcalloc(json_array_size(list) + 1, sizeof(**runs));
		json_array_foreach(list, i, run)
			(*runs)[n++] = run;
	} else {
		*runs = xcalloc(1, sizeof(**runs));
		(*runs)[n++] = doc;
	}
	if (!n)
		unusable("%s: holds no run", file);
	return n;
}

static json_t *load_document(const char *file)
{
	char why[256];
	json_t *doc = json_read_document(file, JSON_REJECT_DUPLICATES, why, sizeof(why));

	if (doc)
		return doc;
	if (strncmp(why, "not JSON", 8) == 0)
		unusable("%s: not a dbench result: %s", file, why);
	unusable("%s: %s", file, why);
}

/* ---- sweeps: their points ---- */

/* A point's client count, or 0 when it is not a point of dbench's. */
static int point_clients(json_t *point)
{
	json_t *clients = json_object_get(point, "clients"), *runs = json_object_get(point, "runs");

	if (!json_is_integer(clients) || json_integer_value(clients) < 1 ||
	    json_integer_value(clients) > INT32_MAX || !json_is_array(runs) || !json_array_size(runs))
		return 0;
	return (int)json_integer_value(clients);
}

static int int_order(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The distinct client counts of a sweep document, ascending (a count the
 * list names twice is one point: its runs pool).  Exits with status 2 on
 * a point that is not dbench's or a sweep of no point. */
static size_t sweep_counts(const char *file, json_t *doc, int **counts)
{
	json_t *point;
	size_t n = 0, i;

	*counts = xcalloc(json_array_size(json_object_get(doc, "points")) + 1, sizeof(**counts));
	json_array_foreach(json_object_get(doc, "points"), i, point) {
		int clients = point_clients(point);

		if (!clients)
			unusable("%s: point %zu: not a dbench sweep point (no client count or no run)", file,
				 i + 1);
		(*counts)[n++] = clients;
	}
	if (!n)
		unusable("%s: a --sweep document with no point", file);
	qsort(*counts, n, sizeof(**counts), int_order);
	i = 0;
	for (size_t k = 0; k < n; k++)
		if (!i || (*counts)[i - 1] != (*counts)[k])
			(*counts)[i++] = (*counts)[k];
	return i;
}

/* "1,2,4" */
static char *counts_text(const int *counts, size_t n)
{
	char *text = xstrdup(""), *longer;

	for (size_t i = 0; i < n; i++) {
		longer = xasprintf("%s%s%d", text, i ? "," : "", counts[i]);
		free(text);
		text = longer;
	}
	return text;
}

/* The client counts every sweep of both sides has: the same in all, or
 * exit 2 with one line.  Also refuses a mix of sweeps and other results. */
static size_t common_counts(const struct report *rep, int **counts)
{
	const char *file0 = rep->files[BASE][0];
	size_t n0 = sweep_counts(file0, rep->whole[BASE][0], counts);

	for (int s = 0; s < 2; s++)
		for (size_t f = 0; f < rep->nfiles[s]; f++) {
			const char *file = rep->files[s][f];
			int *other;
			size_t n = sweep_counts(file, rep->whole[s][f], &other);
			char *a, *b;

			if (n == n0 && memcmp(other, *counts, n * sizeof(*other)) == 0) {
				free(other);
				continue;
			}
			a = counts_text(*counts, n0);
			b = counts_text(other, n);
			unusable("the sweeps' client counts differ: %s has %s, %s has %s (sweeps compare "
				 "point by point: sweep the same counts)", file0, a, file, b);
		}
	return n0;
}

/* The runs of every point of a sweep document with this many clients. */
static size_t point_runs(json_t *doc, int clients, json_t ***runs)
{
	json_t *point, *run;
	size_t n = 0, i, k;

	*runs = NULL;
	json_array_foreach(json_object_get(doc, "points"), i, point) {
		json_t *list = json_object_get(point, "runs");

		if (point_clients(point) != clients)
			continue;
		*runs = xrealloc(*runs, (n + json_array_size(list) + 1) * sizeof(**runs));
		json_array_foreach(list, k, run)
			(*runs)[n++] = run;
	}
	return n;
}

/* Read every file; sweeps only with sweeps. */
static void load_documents(struct report *rep)
{
	const char *sweep = NULL, *other = NULL;

	for (int s = 0; s < 2; s++) {
		rep->whole[s] = xcalloc(rep->nfiles[s], sizeof(*rep->whole[s]));
		for (size_t f = 0; f < rep->nfiles[s]; f++) {
			const char *file = rep->files[s][f];

			rep->whole[s][f] = load_document(file);
			check_document(file, rep->whole[s][f]);
			if (is_sweep(rep->whole[s][f]))
				sweep = sweep ? sweep : file;
			else
				other = other ? other : file;
		}
	}
	if (sweep && other)
		unusable("%s: a --sweep document, but %s is not: a sweep compares with sweeps of the "
			 "same client counts, point by point", sweep, other);
	rep->sweep = sweep != NULL;
}

/* ---- metrics ---- */

static void warn(struct comparison *cmp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct comparison *cmp, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die(CMP_UNUSABLE, "out of memory");
	va_end(ap);
	cmp->warning = xrealloc(cmp->warning, (cmp->nwarnings + 1) * sizeof(*cmp->warning));
	cmp->warning[cmp->nwarnings++] = s;
}


static struct metric *find_metric(struct comparison *cmp, const char *key, const char *label,
				  const char *unit, bool higher_better)
{
	struct metric *m;

	for (size_t i = 0; i < cmp->nmetrics; i++)
		if (strcmp(cmp->metric[i].key, key) == 0)
			return &cmp->metric[i];
	cmp->metric = xrealloc(cmp->metric, (cmp->nmetrics + 1) * sizeof(*cmp->metric));
	m = &cmp->metric[cmp->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->key = xstrdup(key);
	m->label = xstrdup(label);
	m->unit = unit;
	m->higher_better = higher_better;
	return m;
}

/* Add a value (runs without the figure, like an op that did not run,
 * add nothing). */
static void add_number(struct comparison *cmp, enum side_id side, double value, const char *key,
		       const char *label, const char *unit, bool higher_better)
{
	struct metric *m = find_metric(cmp, key, label, unit, higher_better);

	m->v[side] = xrealloc(m->v[side], (m->n[side] + 1) * sizeof(double));
	m->v[side][m->n[side]++] = value;
}

/* The metrics of one run, from its results (read back by the results
 * model, so that the figures are the ones dbench derives). */
static void add_run(struct comparison *cmp, enum side_id side, const struct results *r)
{
	double window = results_window_sec(r);
	struct latency_figures lf;

	add_number(cmp, side, results_throughput(r), "throughput", "Throughput", "MB/s", true);
	add_number(cmp, side, window > 0 ? (double)r->all.count / window : 0, "ops_per_sec",
		   "Operations", "ops/s", true);
	find_metric(cmp, "latency.mean", "Latency mean", "ms", false);
	find_metric(cmp, "latency.p99", "Latency p99", "ms", false);
	if (r->all.count) {
		latency_figures(&r->all, r->all.count, &lf);
		add_number(cmp, side, lf.avg / 1e6, "latency.mean", "Latency mean", "ms", false);
		add_number(cmp, side, lf.p99 / 1e6, "latency.p99", "Latency p99", "ms", false);
	}
	for (unsigned k = 0; k < r->nops; k++) {
		const char *name = results_op_name(r, k);
		char key[160], label[160];

		snprintf(key, sizeof(key), "op.%s.mean", name);
		snprintf(label, sizeof(label), "%s mean", name);
		find_metric(cmp, key, label, "ms", false);
		snprintf(key, sizeof(key), "op.%s.p99", name);
		snprintf(label, sizeof(label), "%s p99", name);
		find_metric(cmp, key, label, "ms", false);
		if (!r->op[k].total.count)
			continue;
		latency_figures(&r->op[k].total, r->all.count, &lf);
		snprintf(key, sizeof(key), "op.%s.mean", name);
		snprintf(label, sizeof(label), "%s mean", name);
		add_number(cmp, side, lf.avg / 1e6, key, label, "ms", false);
		snprintf(key, sizeof(key), "op.%s.p99", name);
		snprintf(label, sizeof(label), "%s p99", name);
		add_number(cmp, side, lf.p99 / 1e6, key, label, "ms", false);
	}
}

/* The runs of one side (of the point of cmp->clients in a sweep). */
static void load_side(struct comparison *cmp, const struct report *rep, enum side_id side)
{
	struct side *sd = &cmp->side[side];
	char point[32] = "";

	if (cmp->clients)
		snprintf(point, sizeof(point), " (%d client%s)", cmp->clients, cmp->clients == 1 ? "" : "s");
	sd->files = rep->files[side];
	sd->nfiles = rep->nfiles[side];
	sd->docs = xcalloc(sd->nfiles, sizeof(*sd->docs));
	for (size_t f = 0; f < sd->nfiles; f++) {
		json_t *whole = rep->whole[side][f], **runs;
		size_t n = cmp->clients ? point_runs(whole, cmp->clients, &runs) :
					  document_runs(sd->files[f], whole, &runs);

		sd->docs[f] = runs[0];	/* what was run: the first run's identity */
		for (size_t i = 0; i < n; i++) {
			struct results r;
			char err[256];

			if (results_from_json(&r, runs[i], err, sizeof(err)) < 0) {
				if (n > 1)
					unusable("%s%s: run %zu: not a dbench result: %s", sd->files[f], point,
						 i + 1, err);
				unusable("%s%s: not a dbench result: %s", sd->files[f], point, err);
			}
			if (!r.id.window_ns)
				unusable("%s%s%s%.0zu: a zero-length measured window (\"duration_ns\": 0): no "
					 "rate to compare", sd->files[f], point, n > 1 ? ": run " : "",
					 n > 1 ? i + 1 : 0);
			add_run(cmp, side, &r);
			if (r.exit_status)
				warn(cmp, "%s%s%s%.0zu: the run ended with exit status %d (mismatches, failed "
				     "clients or a signal)", sd->files[f], point, n > 1 ? " run " : "",
				     n > 1 ? i + 1 : 0, r.exit_status);
			results_free(&r);
		}
		sd->nruns += n;
		free(runs);
	}
}

/* Is the metric one of --metrics (comma-separated fnmatch patterns)?
 * Without --metrics: the totals, and each op's with --per-op. */
static bool metric_wanted(const struct comparison *cmp, const char *key)
{
	const char *list = cmp->metrics, *p;
	char pattern[160];

	if (!list)
		return strncmp(key, "op.", 3) != 0 || cmp->per_op;
	for (p = list; *p;) {
		size_t len = strcspn(p, ",");

		snprintf(pattern, sizeof(pattern), "%.*s", (int)len, p);
		if (len && fnmatch(pattern, key, 0) == 0)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* Drop the metrics not asked for. */
static void select_metrics(struct comparison *cmp)
{
	size_t n = 0;

	for (size_t i = 0; i < cmp->nmetrics; i++) {
		struct metric *m = &cmp->metric[i];

		if (metric_wanted(cmp, m->key)) {
			cmp->metric[n++] = *m;
			continue;
		}
		free(m->key);
		free(m->label);
		free(m->v[BASE]);
		free(m->v[NEW]);
	}
	cmp->nmetrics = n;
	if (!n)
		unusable("--metrics %s: no metric of the runs matches (they have throughput, ops_per_sec, "
			 "latency.mean, latency.p99, op.NAME.mean, op.NAME.p99)", cmp->metrics);
}

/* ---- what the runs must share, and what they should ---- */

/* A JSON value as short text, for messages. */
static char *value_text(json_t *v)
{
	char *s;

	if (!v)
		return xstrdup("(none)");
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
	return s ? s : xstrdup("?");
}

/* The loadfile's digest: sha256 where both documents have it, else CRC-32. */
static void check_loadfiles(struct comparison *cmp, bool force)
{
	const char *file0 = cmp->side[BASE].files[0];
	json_t *doc0 = cmp->side[BASE].docs[0];

	for (int s = 0; s < 2; s++)
		for (size_t f = 0; f < cmp->side[s].nfiles; f++) {
			json_t *doc = cmp->side[s].docs[f];
			const char *file = cmp->side[s].files[f], *kind = "sha256";
			json_t *a = member(doc0, "loadfile.sha256"), *b = member(doc, "loadfile.sha256");
			char *ta, *tb, *pa, *pb;

			if (!json_is_string(a) || !json_is_string(b)) {
				kind = "crc32";
				a = member(doc0, "loadfile.crc32");
				b = member(doc, "loadfile.crc32");
			}
			if (!json_is_string(b))
				unusable("%s: not a dbench result (no loadfile digest)", file);
			if (json_equal(a, b))
				continue;
			ta = value_text(a);
			tb = value_text(b);
			pa = value_text(member(doc0, "loadfile.path"));
			pb = value_text(member(doc, "loadfile.path"));
			if (!force)
				unusable("%s ran another loadfile than %s (%s %s of %s, not %s of %s): "
					 "its runs are not comparable (--force compares them anyway)",
					 file, file0, kind, tb, pb, ta, pa);
			warn(cmp, "%s ran another loadfile than %s (%s %s of %s, not %s of %s)", file, file0,
			     kind, tb, pb, ta, pa);
			free(ta);
			free(tb);
			free(pa);
			free(pb);
		}
}

/* What should be the same for a fair comparison: a difference is a
 * warning.  Besides these, every member of "environment" and "options". */
static const char *const same_paths[] = {
	"program.version", "backend", "clients", "processes", "paced", "target_rate_mb_per_sec",
	"window.warmup_sec", "window.timelimit_sec", "window.passes_per_client", "host.name",
	"host.system", "host.release", "host.machine", "loadfile.nbscale",
};

/* Equal values; numbers by value (4 and 4.0 are one rate, whatever wrote
 * the document last: jq, for one, writes 4.0 as 4). */
static bool same_value(json_t *a, json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	return json_equal(a, b);
}

/* Warn once per path about the first document that differs from doc0. */
static void compare_path(struct comparison *cmp, const char *path)
{
	json_t *doc0 = cmp->side[BASE].docs[0], *v0 = member(doc0, path);

	for (int s = 0; s < 2; s++)
		for (size_t f = 0; f < cmp->side[s].nfiles; f++) {
			json_t *v = member(cmp->side[s].docs[f], path);
			char *a, *b;

			if ((!v && !v0) || (v && v0 && same_value(v, v0)))
				continue;
			a = value_text(v0);
			b = value_text(v);
			warn(cmp, "%s differs: %s in %s, %s in %s", path, a, cmp->side[BASE].files[0], b,
			     cmp->side[s].files[f]);
			free(a);
			free(b);
			return;
		}
}

/* Every leaf under obj (an object of the first base document), by path. */
static void compare_tree(struct comparison *cmp, json_t *obj, const char *prefix)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		char *path = xasprintf("%s.%s", prefix, key);

		if (json_is_object(v))
			compare_tree(cmp, v, path);
		else
			compare_path(cmp, path);
		free(path);
	}
}

static void check_settings(struct comparison *cmp)
{
	for (size_t i = 0; i < ARRAY_SIZE(same_paths); i++)
		compare_path(cmp, same_paths[i]);
	for (int s = 0; s < 2; s++)
		for (size_t f = 0; f < cmp->side[s].nfiles; f++) {
			json_t *doc = cmp->side[s].docs[f];
			const char *trees[] = { "environment", "options" };

			/* members only the other documents have */
			for (size_t t = 0; t < ARRAY_SIZE(trees); t++) {
				json_t *tree = json_object_get(doc, trees[t]);

				if (json_is_object(tree))
					compare_tree(cmp, tree, trees[t]);
			}
		}
}

/* Keep one copy of each warning, in order. */
static void dedup_warnings(struct comparison *cmp)
{
	size_t n = 0;

	for (size_t i = 0; i < cmp->nwarnings; i++) {
		bool seen = false;

		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(cmp->warning[k], cmp->warning[i]) == 0;
		if (seen)
			free(cmp->warning[i]);
		else
			cmp->warning[n++] = cmp->warning[i];
	}
	cmp->nwarnings = n;
}

/* ---- the verdicts ---- */

static void judge(struct comparison *cmp, struct metric *m)
{
	double base, now, change;
	bool worse, big;

	for (int s = 0; s < 2; s++)
		summarize(m->v[s], m->n[s], 0.95, &m->sum[s]);
	m->test = TEST_AUTO;
	m->result.p = 1;
	if (!m->n[BASE] || !m->n[NEW]) {
		m->verdict = V_NONE;
		m->note = m->n[BASE] ? "no value in the new runs" : "no value in the base runs";
		return;
	}
	base = m->sum[BASE].median;
	now = m->sum[NEW].median;
	if (base == 0) {
		m->change_pct = now == 0 ? 0 : NAN;
		if (now != 0) {
			m->verdict = V_NONE;
			m->note = "the base median is 0: no relative change";
			return;
		}
	} else {
		m->change_pct = (now - base) / fabs(base) * 100;
	}
	change = m->change_pct;
	worse = m->higher_better ? change < 0 : change > 0;
	big = fabs(change) >= cmp->threshold_pct && change != 0;
	if (m->n[BASE] < 2 || m->n[NEW] < 2) {
		m->note = "one run on a side: no test, judged by the threshold alone";
		m->verdict = big ? (worse ? V_REGRESSION : V_IMPROVEMENT) : V_SAME;
		return;
	}
	m->test = cmp->test;
	if (m->test == TEST_AUTO) {
		mann_whitney(m->v[BASE], m->n[BASE], m->v[NEW], m->n[NEW], &m->result);
		m->test = m->result.min_p < cmp->alpha ? TEST_UTEST : TEST_WELCH;
	}
	if (m->test == TEST_UTEST) {
		mann_whitney(m->v[BASE], m->n[BASE], m->v[NEW], m->n[NEW], &m->result);
		if (m->result.min_p >= cmp->alpha)
			m->note = "too few runs for the U test to reach alpha (4 a side at 0.05; or --test welch)";
	} else {
		welch_t(m->v[BASE], m->n[BASE], m->v[NEW], m->n[NEW], &m->result);
	}
	m->verdict = m->result.p < cmp->alpha && big ? (worse ? V_REGRESSION : V_IMPROVEMENT) : V_SAME;
}

static void comparison_free(struct comparison *cmp)
{
	for (size_t i = 0; i < cmp->nmetrics; i++) {
		free(cmp->metric[i].key);
		free(cmp->metric[i].label);
		free(cmp->metric[i].v[BASE]);
		free(cmp->metric[i].v[NEW]);
	}
	free(cmp->metric);
	for (size_t i = 0; i < cmp->nwarnings; i++)
		free(cmp->warning[i]);
	free(cmp->warning);
	for (int s = 0; s < 2; s++)
		free(cmp->side[s].docs);	/* borrowed from the report's documents */
}

static void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->npoints; i++)
		comparison_free(&rep->point[i]);
	free(rep->point);
	free(rep->warning);	/* the points' strings */
	for (int s = 0; s < 2; s++) {
		for (size_t f = 0; f < rep->nfiles[s]; f++) {
			free(rep->files[s][f]);
			if (rep->whole[s])
				json_decref(rep->whole[s][f]);
		}
		free(rep->files[s]);
		free(rep->whole[s]);
	}
}

enum verdict point_verdict(const struct comparison *cmp)
{
	bool same = false;

	if (cmp->regressions)
		return V_REGRESSION;
	if (cmp->improvements)
		return V_IMPROVEMENT;
	for (size_t i = 0; i < cmp->nmetrics; i++)
		same |= cmp->metric[i].verdict == V_SAME;
	return same || !cmp->nmetrics ? V_SAME : V_NONE;
}

/* Compare one point (the whole input when it is not a sweep). */
static void compare_point(struct comparison *cmp, struct report *rep, bool force)
{
	load_side(cmp, rep, BASE);
	load_side(cmp, rep, NEW);
	select_metrics(cmp);
	check_loadfiles(cmp, force);
	check_settings(cmp);
	dedup_warnings(cmp);
	for (size_t i = 0; i < cmp->nmetrics; i++) {
		judge(cmp, &cmp->metric[i]);
		cmp->regressions += cmp->metric[i].verdict == V_REGRESSION;
		cmp->improvements += cmp->metric[i].verdict == V_IMPROVEMENT;
	}
	rep->regressions += cmp->regressions;
	rep->improvements += cmp->improvements;
	rep->regressed_points += cmp->regressions > 0;
	rep->improved_points += !cmp->regressions && cmp->improvements > 0;
	for (int s = 0; s < 2; s++)
		rep->nruns[s] += cmp->side[s].nruns;
	/* the report lists each warning once (the same difference shows at every point) */
	for (size_t i = 0; i < cmp->nwarnings; i++) {
		bool seen = false;

		for (size_t k = 0; k < rep->nwarnings && !seen; k++)
			seen = strcmp(rep->warning[k], cmp->warning[i]) == 0;
		if (seen)
			continue;
		rep->warning = xrealloc(rep->warning, (rep->nwarnings + 1) * sizeof(*rep->warning));
		rep->warning[rep->nwarnings++] = cmp->warning[i];
	}
}

int main(int argc, const char **argv)
{
	struct comparison settings = { 0 };
	struct report rep = { 0 };
	struct output out = { 0 };
	int *counts = NULL;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	util_set_progname(COMPARE_PROGNAME);
	parse_command_line(argc, argv, &settings, &rep, &out);
	load_documents(&rep);
	rep.npoints = rep.sweep ? common_counts(&rep, &counts) : 1;
	rep.point = xcalloc(rep.npoints, sizeof(*rep.point));
	for (size_t i = 0; i < rep.npoints; i++) {
		rep.point[i] = settings;
		rep.point[i].clients = counts ? counts[i] : 0;
		compare_point(&rep.point[i], &rep, out.force);
	}
	free(counts);
	status = rep.regressions ? CMP_REGRESSION : CMP_OK;
	if (!out.quiet)
		for (size_t i = 0; i < rep.nwarnings; i++)
			fprintf(stderr, "%s: warning: %s\n", COMPARE_PROGNAME, rep.warning[i]);
	if (out.json) {
		json_t *doc = render_json(&rep);

		json_object_set_new(doc, "exit_status", json_integer(status));
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
		fputc('\n', stdout);
		json_decref(doc);
	} else if (out.markdown) {
		render_markdown(&rep, stdout);
	} else {
		render_text(&rep, stdout);
	}
	if (out.junit && render_junit(&rep, out.junit) < 0)
		unusable("--junit %s: cannot write it: %s", out.junit, strerror(errno));
	if (fflush(stdout) == EOF)
		unusable("cannot write the output: %s", strerror(errno));
	free((char *)out.junit);
	report_free(&rep);
	free((char *)settings.metrics);
	return status;
}
