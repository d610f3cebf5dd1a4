/*
 * render.c - dbench-compare's outputs, all from one struct comparison: a
 * text table for people (benchstat's shape: medians with their spread, the
 * change, p, the verdict), Markdown for a merge-request comment, JSON for
 * programs, and a JUnit report (a testcase per metric, a failure per
 * regression) for Jenkins and GitLab.  Two sweeps show a table per
 * point (a column of client counts in Markdown), a verdict per point and
 * the totals; their JSON has a member per point, their JUnit report a
 * testsuite per point.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

/* Machine names of the verdicts and tests (JSON). */
static const char *const verdict_id[] = {
	[V_SAME] = "same",
	[V_REGRESSION] = "regression",
	[V_IMPROVEMENT] = "improvement",
	[V_NONE] = "not_compared",
};

static const char *const test_id[] = {
	[TEST_AUTO] = NULL,
	[TEST_UTEST] = "mann-whitney",
	[TEST_WELCH] = "welch",
};

/* Short marks of the tests in the tables. */
static const char *const test_mark[] = {
	[TEST_AUTO] = "",
	[TEST_UTEST] = "U",
	[TEST_WELCH] = "t",
};

void format_value(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.2f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

/* The unit to show a metric in: times in ms, us or ns by the size of the
 * base median (both sides in the same unit); the factor from the
 * metric's own unit. */
static const char *display_unit(const struct metric *m, double *factor)
{
	double ref = m->sum[BASE].n ? m->sum[BASE].median : m->sum[NEW].median;

	*factor = 1;
	if (strcmp(m->unit, "ms") != 0 || fabs(ref) >= 1 || ref == 0)
		return m->unit;
	if (fabs(ref) >= 1e-3) {
		*factor = 1e3;
		return "us";
	}
	*factor = 1e6;
	return "ns";
}

/* "312.4 MB/s ±1.1%" (no spread with one run). */
static void format_side(char *buf, size_t len, const struct metric *m, int side)
{
	const struct summary *s = &m->sum[side];
	const char *unit;
	double factor;
	char v[32];

	if (!s->n) {
		snprintf(buf, len, "-");
		return;
	}
	unit = display_unit(m, &factor);
	format_value(v, sizeof(v), s->median * factor);
	if (s->n < 2)
		snprintf(buf, len, "%s %s", v, unit);
	else
		snprintf(buf, len, "%s %s ±%.1f%%", v, unit, s->cov * 100);
}

static void format_change(char *buf, size_t len, const struct metric *m)
{
	if (m->verdict == V_NONE || isnan(m->change_pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.2f%%", m->change_pct);
}

static void format_p(char *buf, size_t len, const struct metric *m)
{
	if (m->test == TEST_AUTO)
		snprintf(buf, len, "-");
	else if (m->result.p < 0.0001)
		snprintf(buf, len, "<0.0001 %s", test_mark[m->test]);
	else
		snprintf(buf, len, "%.4f %s", m->result.p, test_mark[m->test]);
}

/* The distinct notes, numbered in the order the metrics show them. */
struct notes {
	const char *text[8];
	int n;
};

static int note_number(struct notes *notes, const char *note)
{
	if (!note)
		return 0;
	for (int i = 0; i < notes->n; i++)
		if (notes->text[i] == note || strcmp(notes->text[i], note) == 0)
			return i + 1;
	if (notes->n == (int)ARRAY_SIZE(notes->text))
		return 0;
	notes->text[notes->n++] = note;
	return notes->n;
}

static const char *short_verdict(enum verdict v)
{
	return v == V_SAME ? "~" : verdict_name[v];
}

/* "1 client", "4 clients" */
static void point_name(char *buf, size_t len, const struct comparison *cmp)
{
	snprintf(buf, len, "%d client%s", cmp->clients, cmp->clients == 1 ? "" : "s");
}

/* "base.json (5 runs)", or for sweeps "base.json (3 points: 1, 2, 4 clients; 15 runs)" */
static void files_line(FILE *out, const char *title, const struct report *rep, int side)
{
	fprintf(out, "%s", title);
	for (size_t f = 0; f < rep->nfiles[side]; f++)
		fprintf(out, "%s%s", f ? ", " : "", rep->files[side][f]);
	fprintf(out, " (");
	if (rep->sweep) {
		fprintf(out, "%zu point%s: ", rep->npoints, rep->npoints == 1 ? "" : "s");
		for (size_t i = 0; i < rep->npoints; i++)
			fprintf(out, "%s%d", i ? ", " : "", rep->point[i].clients);
		fprintf(out, " client%s; ", rep->npoints == 1 && rep->point[0].clients == 1 ? "" : "s");
	}
	fprintf(out, "%zu run%s)\n", rep->nruns[side], rep->nruns[side] == 1 ? "" : "s");
}

/* The last line: the verdicts of the metrics (of every point), and for
 * sweeps of the points first. */
static void summary_line(const struct report *rep, FILE *out)
{
	const struct comparison *cmp0 = &rep->point[0];
	int same = 0, none = 0;

	for (size_t k = 0; k < rep->npoints; k++)
		for (size_t i = 0; i < rep->point[k].nmetrics; i++) {
			same += rep->point[k].metric[i].verdict == V_SAME;
			none += rep->point[k].metric[i].verdict == V_NONE;
		}
	if (rep->sweep)
		fprintf(out, "%zu point%s: %d with a regression, %d with an improvement; ", rep->npoints,
			rep->npoints == 1 ? "" : "s", rep->regressed_points, rep->improved_points);
	fprintf(out, "%d regression%s, %d improvement%s, %d without significant change",
		rep->regressions, rep->regressions == 1 ? "" : "s", rep->improvements,
		rep->improvements == 1 ? "" : "s", same);
	if (none)
		fprintf(out, ", %d not compared", none);
	fprintf(out, " (threshold %g%%, alpha %g)\n", cmp0->threshold_pct, cmp0->alpha);
}

/* Column widths of the text tables: the same for every point. */
struct widths {
	int label, base, now;
};

static void measure(const struct comparison *cmp, struct widths *w)
{
	char base[64], now[64];

	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];

		w->label = MAX(w->label, (int)strlen(m->label));
		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		w->base = MAX(w->base, (int)strlen(base));
		w->now = MAX(w->now, (int)strlen(now));
	}
}

static void text_table(const struct comparison *cmp, const struct widths *w, struct notes *notes,
		       FILE *out)
{
	char base[64], now[64], change[32], p[32];

	fprintf(out, "%-*s  %*s  %*s  %9s  %10s  %s\n", w->label, "metric", w->base, "base", w->now,
		"new", "change", "p", "verdict");
	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];
		int note = note_number(notes, m->note);

		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		format_change(change, sizeof(change), m);
		format_p(p, sizeof(p), m);
		fprintf(out, "%-*s  %*s  %*s  %9s  %10s  %s", w->label, m->label, w->base, base, w->now,
			now, change, p, short_verdict(m->verdict));
		if (note)
			fprintf(out, " (%d)", note);
		fputc('\n', out);
	}
}

/* The metrics a point's verdict comes from: "Throughput, Operations" */
static void verdict_metrics(char *buf, size_t len, const struct comparison *cmp, enum verdict v)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < cmp->nmetrics && used < len; i++)
		if (cmp->metric[i].verdict == v)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 cmp->metric[i].label);
}

void render_text(const struct report *rep, FILE *out)
{
	struct widths w = { (int)strlen("metric"), 4, 3 };
	struct notes notes = { .n = 0 };
	char name[32], which[256];

	for (size_t k = 0; k < rep->npoints; k++)
		measure(&rep->point[k], &w);
	files_line(out, "base: ", rep, BASE);
	files_line(out, "new:  ", rep, NEW);
	for (size_t k = 0; k < rep->npoints; k++) {
		const struct comparison *cmp = &rep->point[k];

		fputc('\n', out);
		if (rep->sweep) {
			point_name(name, sizeof(name), cmp);
			fprintf(out, "%s (base %zu run%s, new %zu run%s)\n", name, cmp->side[BASE].nruns,
				cmp->side[BASE].nruns == 1 ? "" : "s", cmp->side[NEW].nruns,
				cmp->side[NEW].nruns == 1 ? "" : "s");
		}
		text_table(cmp, &w, &notes, out);
	}
	fprintf(out, "\nMedians of the runs ±CoV; p: U Mann-Whitney, t Welch's t, - no test; "
		     "~ no significant change.\n");
	for (int i = 0; i < notes.n; i++)
		fprintf(out, "(%d) %s\n", i + 1, notes.text[i]);
	if (rep->sweep) {
		fputc('\n', out);
		for (size_t k = 0; k < rep->npoints; k++) {
			const struct comparison *cmp = &rep->point[k];
			enum verdict v = point_verdict(cmp);

			point_name(name, sizeof(name), cmp);
			verdict_metrics(which, sizeof(which), cmp, v);
			fprintf(out, "%-*s  %s", (int)strlen("1000 clients"), name, verdict_name[v]);
			if (v == V_REGRESSION || v == V_IMPROVEMENT)
				fprintf(out, " (%s)", which);
			fputc('\n', out);
		}
	}
	summary_line(rep, out);
}

/* Markdown text: the characters that would end a table cell or start
 * markup are escaped. */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\`*_[]<>", *s))
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* "**regression**" */
static void md_verdict(FILE *out, enum verdict v)
{
	const char *strong = v == V_REGRESSION ? "**" : "";

	fprintf(out, "%s%s%s", strong, verdict_name[v], strong);
}

void render_markdown(const struct report *rep, FILE *out)
{
	struct notes notes = { .n = 0 };
	char base[64], now[64], change[32], p[32], name[32];

	fprintf(out, "### dbench-compare: %s\n\n",
		rep->regressions ? "regression" : rep->improvements ? "improvement" : "no significant change");
	fprintf(out, "%s| Metric | Base | New | Change | p | Verdict |\n", rep->sweep ? "| Clients " : "");
	fprintf(out, "%s|:--|--:|--:|--:|--:|:--|\n", rep->sweep ? "|--:" : "");
	for (size_t k = 0; k < rep->npoints; k++) {
		const struct comparison *cmp = &rep->point[k];

		for (size_t i = 0; i < cmp->nmetrics; i++) {
			const struct metric *m = &cmp->metric[i];
			int note = note_number(&notes, m->note);

			format_side(base, sizeof(base), m, BASE);
			format_side(now, sizeof(now), m, NEW);
			format_change(change, sizeof(change), m);
			format_p(p, sizeof(p), m);
			if (rep->sweep)
				fprintf(out, "| %d ", cmp->clients);
			fprintf(out, "| ");
			md_text(out, m->label);
			fprintf(out, " | %s | %s | %s | %s | ", base, now, change, p);
			md_verdict(out, m->verdict);
			if (note)
				fprintf(out, " (%d)", note);
			fprintf(out, " |\n");
		}
	}
	fprintf(out, "\nMedians of the runs ±CoV; p: U Mann-Whitney, t Welch's t, - no test.\n");
	for (int i = 0; i < notes.n; i++)
		fprintf(out, "(%d) %s  \n", i + 1, notes.text[i]);
	if (rep->sweep) {
		fprintf(out, "\nPer point:\n\n");
		for (size_t k = 0; k < rep->npoints; k++) {
			point_name(name, sizeof(name), &rep->point[k]);
			fprintf(out, "- %s: ", name);
			md_verdict(out, point_verdict(&rep->point[k]));
			fputc('\n', out);
		}
	}
	for (int s = 0; s < 2; s++) {
		fprintf(out, "\n%s: ", s == BASE ? "Base" : "New");
		for (size_t f = 0; f < rep->nfiles[s]; f++) {
			fprintf(out, "%s", f ? ", " : "");
			md_text(out, rep->files[s][f]);
		}
		fprintf(out, " (%zu run%s)\n", rep->nruns[s], rep->nruns[s] == 1 ? "" : "s");
	}
	if (rep->nwarnings) {
		fprintf(out, "\nWarnings:\n\n");
		for (size_t i = 0; i < rep->nwarnings; i++) {
			fprintf(out, "- ");
			md_text(out, rep->warning[i]);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	summary_line(rep, out);
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_summary_json(const struct metric *m, int side)
{
	const struct summary *s = &m->sum[side];
	json_t *values = json_array();

	for (size_t i = 0; i < m->n[side]; i++)
		json_array_append_new(values, json_real(m->v[side][i]));
	if (!s->n)
		return json_pack("{s:i s:o}", "n", 0, "values", values);
	return json_pack("{s:I s:f s:f s:f s:f s:f s:f s:o s:o}", "n", (json_int_t)s->n,
			 "median", s->median, "mean", s->mean, "stddev", s->stddev, "cov", s->cov,
			 "min", s->min, "max", s->max,
			 "ci95_half_width", s->ci_valid ? json_real(s->ci_half) : json_null(),
			 "values", values);
}

/* The metrics of one comparison (of one point). */
static json_t *metrics_json(const struct comparison *cmp)
{
	json_t *metrics = json_array();

	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];
		bool tested = m->test != TEST_AUTO;

		json_array_append_new(metrics, json_pack(
			"{s:s s:s s:s s:b s:o s:o s:o s:o s:o s:o s:s s:o}",
			"key", m->key, "label", m->label, "unit", m->unit,
			"higher_is_better", (int)m->higher_better,
			"base", side_summary_json(m, BASE), "new", side_summary_json(m, NEW),
			"change_pct", m->verdict == V_NONE ? json_null() : number_or_null(m->change_pct),
			"test", tested ? json_string(test_id[m->test]) : json_null(),
			"p", tested ? json_real(m->result.p) : json_null(),
			"statistic", tested ? number_or_null(m->result.statistic) : json_null(),
			"verdict", verdict_id[m->verdict],
			"note", m->note ? json_string(m->note) : json_null()));
	}
	return metrics;
}

json_t *render_json(const struct report *rep)
{
	const struct comparison *cmp0 = &rep->point[0];
	json_t *doc = json_object(), *warnings = json_array();

	for (int s = 0; s < 2; s++) {
		json_t *files = json_array();

		for (size_t f = 0; f < rep->nfiles[s]; f++)
			json_array_append_new(files, json_string(rep->files[s][f]));
		json_object_set_new(doc, s == BASE ? "base" : "new",
				    json_pack("{s:o s:I}", "files", files, "runs",
					      (json_int_t)rep->nruns[s]));
	}
	json_object_set_new(doc, "threshold_pct", json_real(cmp0->threshold_pct));
	json_object_set_new(doc, "alpha", json_real(cmp0->alpha));
	json_object_set_new(doc, "test", json_string(cmp0->test == TEST_AUTO ? "auto" :
						     test_id[cmp0->test]));
	if (rep->sweep) {
		json_t *points = json_array();

		for (size_t k = 0; k < rep->npoints; k++) {
			const struct comparison *cmp = &rep->point[k];

			json_array_append_new(points, json_pack(
				"{s:i s:{s:I} s:{s:I} s:o s:i s:i s:s}", "clients", cmp->clients,
				"base", "runs", (json_int_t)cmp->side[BASE].nruns,
				"new", "runs", (json_int_t)cmp->side[NEW].nruns,
				"metrics", metrics_json(cmp), "regressions", cmp->regressions,
				"improvements", cmp->improvements,
				"verdict", verdict_id[point_verdict(cmp)]));
		}
		json_object_set_new(doc, "points", points);
		json_object_set_new(doc, "regressed_points", json_integer(rep->regressed_points));
		json_object_set_new(doc, "improved_points", json_integer(rep->improved_points));
	} else {
		json_object_set_new(doc, "metrics", metrics_json(cmp0));
	}
	for (size_t i = 0; i < rep->nwarnings; i++)
		json_array_append_new(warnings, json_string(rep->warning[i]));
	json_object_set_new(doc, "warnings", warnings);
	json_object_set_new(doc, "regressions", json_integer(rep->regressions));
	json_object_set_new(doc, "improvements", json_integer(rep->improvements));
	return doc;
}

/* XML character data or attribute value; control characters, which XML
 * 1.0 cannot hold, become '?'. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (c < 0x20 && c != '\n' && c != '\t')
				fputc('?', out);
			else
				fputc(c, out);
		}
	}
}

/* One testcase per metric of a comparison; with a prefix ("2 clients: ")
 * for a sweep's point, so that every name is its own. */
static void junit_testcases(FILE *out, const struct comparison *cmp, const char *prefix)
{
	char base[64], now[64], change[32], p[32], line[600];

	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];

		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		format_change(change, sizeof(change), m);
		format_p(p, sizeof(p), m);
		fprintf(out, "    <testcase classname=\"dbench-compare\" name=\"");
		xml_text(out, prefix);
		xml_text(out, m->label);
		fprintf(out, " (%s)\" time=\"0\">\n", m->unit);
		if (m->verdict == V_REGRESSION) {
			fprintf(out, "      <failure type=\"regression\" message=\"");
			snprintf(line, sizeof(line), "%s%s %s: %s -> %s (p %s, threshold %g%%)", prefix,
				 m->label, change, base, now, p, cmp->threshold_pct);
			xml_text(out, line);
			fprintf(out, "\">");
			snprintf(line, sizeof(line),
				 "%s%s got %s: median %s in the base runs, %s in the new runs, p %s%s%s",
				 prefix, m->label, m->higher_better ? "lower" : "higher", base, now, p,
				 m->note ? "; " : "", m->note ? m->note : "");
			xml_text(out, line);
			fprintf(out, "</failure>\n");
		} else if (m->verdict == V_NONE) {
			fprintf(out, "      <skipped message=\"");
			xml_text(out, m->note ? m->note : "not compared");
			fprintf(out, "\"/>\n");
		}
		fprintf(out, "      <system-out>");
		snprintf(line, sizeof(line), "%s%s: base %s, new %s, change %s, p %s: %s", prefix,
			 m->label, base, now, change, p, verdict_name[m->verdict]);
		xml_text(out, line);
		fprintf(out, "</system-out>\n");
		fprintf(out, "    </testcase>\n");
	}
}

static int skipped_metrics(const struct comparison *cmp)
{
	int skipped = 0;

	for (size_t i = 0; i < cmp->nmetrics; i++)
		skipped += cmp->metric[i].verdict == V_NONE;
	return skipped;
}

/* A testsuite: the whole comparison, or a sweep's point (named by it). */
static void junit_suite(FILE *out, const struct report *rep, const struct comparison *cmp,
			const char *text)
{
	char name[32] = "", prefix[40] = "";

	if (rep->sweep) {
		point_name(name, sizeof(name), cmp);
		snprintf(prefix, sizeof(prefix), "%s: ", name);
	}
	fprintf(out, "  <testsuite name=\"dbench-compare%s%s\" tests=\"%zu\" failures=\"%d\" "
		     "errors=\"0\" skipped=\"%d\" time=\"0\">\n", rep->sweep ? ": " : "", name,
		cmp->nmetrics, cmp->regressions, skipped_metrics(cmp));
	fprintf(out, "    <properties>\n");
	if (rep->sweep)
		fprintf(out, "      <property name=\"clients\" value=\"%d\"/>\n", cmp->clients);
	fprintf(out, "      <property name=\"threshold_pct\" value=\"%g\"/>\n", cmp->threshold_pct);
	fprintf(out, "      <property name=\"alpha\" value=\"%g\"/>\n", cmp->alpha);
	for (int s = 0; s < 2; s++)
		for (size_t f = 0; f < rep->nfiles[s]; f++) {
			fprintf(out, "      <property name=\"%s\" value=\"", s == BASE ? "base" : "new");
			xml_text(out, rep->files[s][f]);
			fprintf(out, "\"/>\n");
		}
	fprintf(out, "    </properties>\n");
	junit_testcases(out, cmp, prefix);
	fprintf(out, "    <system-out>");
	xml_text(out, text ? text : "");
	fprintf(out, "</system-out>\n");
	if (rep->nwarnings) {
		fprintf(out, "    <system-err>");
		for (size_t i = 0; i < rep->nwarnings; i++) {
			fprintf(out, "warning: ");
			xml_text(out, rep->warning[i]);
			fputc('\n', out);
		}
		fprintf(out, "</system-err>\n");
	}
	fprintf(out, "  </testsuite>\n");
}

/* A testsuite per comparison: one, or one per point of two sweeps; each
 * holds the whole text report. */
int render_junit(const struct report *rep, const char *path)
{
	char *text = NULL;
	size_t text_len = 0, tests = 0;
	FILE *mem = open_memstream(&text, &text_len), *out;
	int skipped = 0, rc = 0;

	if (!mem)
		return -1;
	render_text(rep, mem);
	fclose(mem);
	out = fopen(path, "w");
	if (!out) {
		free(text);
		return -1;
	}
	for (size_t k = 0; k < rep->npoints; k++) {
		tests += rep->point[k].nmetrics;
		skipped += skipped_metrics(&rep->point[k]);
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<testsuites name=\"dbench-compare\" tests=\"%zu\" failures=\"%d\" errors=\"0\" "
		     "skipped=\"%d\">\n", tests, rep->regressions, skipped);
	for (size_t k = 0; k < rep->npoints; k++)
		junit_suite(out, rep, &rep->point[k], text);
	fprintf(out, "</testsuites>\n");
	free(text);
	if (ferror(out))
		rc = -1;
	if (fclose(out) != 0)
		rc = -1;
	return rc;
}
