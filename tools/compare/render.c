/*
 * render.c - dbench-compare's outputs, all from one struct comparison: a
 * text table for people (benchstat's shape: medians with their spread, the
 * change, p, the verdict), Markdown for a merge-request comment, JSON for
 * programs, and a JUnit report (a testcase per metric, a failure per
 * regression) for Jenkins and GitLab.
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

static void files_line(FILE *out, const char *title, const struct side *sd)
{
	fprintf(out, "%s", title);
	for (size_t f = 0; f < sd->nfiles; f++)
		fprintf(out, "%s%s", f ? ", " : "", sd->files[f]);
	fprintf(out, " (%zu run%s)\n", sd->nruns, sd->nruns == 1 ? "" : "s");
}

static void summary_line(const struct comparison *cmp, FILE *out)
{
	int same = 0, none = 0;

	for (size_t i = 0; i < cmp->nmetrics; i++) {
		same += cmp->metric[i].verdict == V_SAME;
		none += cmp->metric[i].verdict == V_NONE;
	}
	fprintf(out, "%d regression%s, %d improvement%s, %d without significant change",
		cmp->regressions, cmp->regressions == 1 ? "" : "s", cmp->improvements,
		cmp->improvements == 1 ? "" : "s", same);
	if (none)
		fprintf(out, ", %d not compared", none);
	fprintf(out, " (threshold %g%%, alpha %g)\n", cmp->threshold_pct, cmp->alpha);
}

void render_text(const struct comparison *cmp, FILE *out)
{
	int wl = (int)strlen("metric"), wb = 4, wn = 3;
	struct notes notes = { .n = 0 };
	char base[64], now[64], change[32], p[32];

	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];

		wl = MAX(wl, (int)strlen(m->label));
		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		wb = MAX(wb, (int)strlen(base));
		wn = MAX(wn, (int)strlen(now));
	}
	files_line(out, "base: ", &cmp->side[BASE]);
	files_line(out, "new:  ", &cmp->side[NEW]);
	fprintf(out, "\n%-*s  %*s  %*s  %9s  %10s  %s\n", wl, "metric", wb, "base", wn, "new",
		"change", "p", "verdict");
	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];
		int note = note_number(&notes, m->note);

		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		format_change(change, sizeof(change), m);
		format_p(p, sizeof(p), m);
		fprintf(out, "%-*s  %*s  %*s  %9s  %10s  %s", wl, m->label, wb, base, wn, now, change, p,
			short_verdict(m->verdict));
		if (note)
			fprintf(out, " (%d)", note);
		fputc('\n', out);
	}
	fprintf(out, "\nMedians of the runs ±CoV; p: U Mann-Whitney, t Welch's t, - no test; "
		     "~ no significant change.\n");
	for (int i = 0; i < notes.n; i++)
		fprintf(out, "(%d) %s\n", i + 1, notes.text[i]);
	summary_line(cmp, out);
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

void render_markdown(const struct comparison *cmp, FILE *out)
{
	struct notes notes = { .n = 0 };
	char base[64], now[64], change[32], p[32];

	fprintf(out, "### dbench-compare: %s\n\n",
		cmp->regressions ? "regression" : cmp->improvements ? "improvement" : "no significant change");
	fprintf(out, "| Metric | Base | New | Change | p | Verdict |\n");
	fprintf(out, "|:--|--:|--:|--:|--:|:--|\n");
	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];
		int note = note_number(&notes, m->note);

		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		format_change(change, sizeof(change), m);
		format_p(p, sizeof(p), m);
		fprintf(out, "| ");
		md_text(out, m->label);
		fprintf(out, " | %s | %s | %s | %s | %s%s%s", base, now, change, p,
			m->verdict == V_REGRESSION ? "**" : "", verdict_name[m->verdict],
			m->verdict == V_REGRESSION ? "**" : "");
		if (note)
			fprintf(out, " (%d)", note);
		fprintf(out, " |\n");
	}
	fprintf(out, "\nMedians of the runs ±CoV; p: U Mann-Whitney, t Welch's t, - no test.\n");
	for (int i = 0; i < notes.n; i++)
		fprintf(out, "(%d) %s  \n", i + 1, notes.text[i]);
	for (int s = 0; s < 2; s++) {
		const struct side *sd = &cmp->side[s];

		fprintf(out, "\n%s: ", s == BASE ? "Base" : "New");
		for (size_t f = 0; f < sd->nfiles; f++) {
			fprintf(out, "%s", f ? ", " : "");
			md_text(out, sd->files[f]);
		}
		fprintf(out, " (%zu run%s)\n", sd->nruns, sd->nruns == 1 ? "" : "s");
	}
	if (cmp->nwarnings) {
		fprintf(out, "\nWarnings:\n\n");
		for (size_t i = 0; i < cmp->nwarnings; i++) {
			fprintf(out, "- ");
			md_text(out, cmp->warning[i]);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	summary_line(cmp, out);
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

json_t *render_json(const struct comparison *cmp)
{
	json_t *doc = json_object(), *metrics = json_array(), *warnings = json_array();

	for (int s = 0; s < 2; s++) {
		json_t *files = json_array();

		for (size_t f = 0; f < cmp->side[s].nfiles; f++)
			json_array_append_new(files, json_string(cmp->side[s].files[f]));
		json_object_set_new(doc, s == BASE ? "base" : "new",
				    json_pack("{s:o s:I}", "files", files, "runs",
					      (json_int_t)cmp->side[s].nruns));
	}
	json_object_set_new(doc, "threshold_pct", json_real(cmp->threshold_pct));
	json_object_set_new(doc, "alpha", json_real(cmp->alpha));
	json_object_set_new(doc, "test", json_string(cmp->test == TEST_AUTO ? "auto" :
						     test_id[cmp->test]));
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
	json_object_set_new(doc, "metrics", metrics);
	for (size_t i = 0; i < cmp->nwarnings; i++)
		json_array_append_new(warnings, json_string(cmp->warning[i]));
	json_object_set_new(doc, "warnings", warnings);
	json_object_set_new(doc, "regressions", json_integer(cmp->regressions));
	json_object_set_new(doc, "improvements", json_integer(cmp->improvements));
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

int render_junit(const struct comparison *cmp, const char *path)
{
	char *text = NULL, base[64], now[64], change[32], p[32];
	size_t text_len = 0;
	FILE *mem = open_memstream(&text, &text_len), *out;
	int skipped = 0, rc = 0;

	if (!mem)
		return -1;
	render_text(cmp, mem);
	fclose(mem);
	out = fopen(path, "w");
	if (!out) {
		free(text);
		return -1;
	}
	for (size_t i = 0; i < cmp->nmetrics; i++)
		skipped += cmp->metric[i].verdict == V_NONE;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<testsuites name=\"dbench-compare\" tests=\"%zu\" failures=\"%d\" errors=\"0\" "
		     "skipped=\"%d\">\n", cmp->nmetrics, cmp->regressions, skipped);
	fprintf(out, "  <testsuite name=\"dbench-compare\" tests=\"%zu\" failures=\"%d\" errors=\"0\" "
		     "skipped=\"%d\" time=\"0\">\n", cmp->nmetrics, cmp->regressions, skipped);
	fprintf(out, "    <properties>\n");
	fprintf(out, "      <property name=\"threshold_pct\" value=\"%g\"/>\n", cmp->threshold_pct);
	fprintf(out, "      <property name=\"alpha\" value=\"%g\"/>\n", cmp->alpha);
	for (int s = 0; s < 2; s++)
		for (size_t f = 0; f < cmp->side[s].nfiles; f++) {
			fprintf(out, "      <property name=\"%s\" value=\"", s == BASE ? "base" : "new");
			xml_text(out, cmp->side[s].files[f]);
			fprintf(out, "\"/>\n");
		}
	fprintf(out, "    </properties>\n");
	for (size_t i = 0; i < cmp->nmetrics; i++) {
		const struct metric *m = &cmp->metric[i];

		format_side(base, sizeof(base), m, BASE);
		format_side(now, sizeof(now), m, NEW);
		format_change(change, sizeof(change), m);
		format_p(p, sizeof(p), m);
		char line[512];

		fprintf(out, "    <testcase classname=\"dbench-compare\" name=\"");
		xml_text(out, m->label);
		fprintf(out, " (%s)\" time=\"0\">\n", m->unit);
		if (m->verdict == V_REGRESSION) {
			fprintf(out, "      <failure type=\"regression\" message=\"");
			snprintf(line, sizeof(line), "%s %s: %s -> %s (p %s, threshold %g%%)", m->label,
				 change, base, now, p, cmp->threshold_pct);
			xml_text(out, line);
			fprintf(out, "\">");
			snprintf(line, sizeof(line),
				 "%s got %s: median %s in the base runs, %s in the new runs, p %s%s%s",
				 m->label, m->higher_better ? "lower" : "higher", base, now, p,
				 m->note ? "; " : "", m->note ? m->note : "");
			xml_text(out, line);
			fprintf(out, "</failure>\n");
		} else if (m->verdict == V_NONE) {
			fprintf(out, "      <skipped message=\"");
			xml_text(out, m->note ? m->note : "not compared");
			fprintf(out, "\"/>\n");
		}
		fprintf(out, "      <system-out>");
		snprintf(line, sizeof(line), "%s: base %s, new %s, change %s, p %s: %s", m->label, base,
			 now, change, p, verdict_name[m->verdict]);
		xml_text(out, line);
		fprintf(out, "</system-out>\n");
		fprintf(out, "    </testcase>\n");
	}
	fprintf(out, "    <system-out>");
	xml_text(out, text ? text : "");
	fprintf(out, "</system-out>\n");
	if (cmp->nwarnings) {
		fprintf(out, "    <system-err>");
		for (size_t i = 0; i < cmp->nwarnings; i++) {
			fprintf(out, "warning: ");
			xml_text(out, cmp->warning[i]);
			fputc('\n', out);
		}
		fprintf(out, "</system-err>\n");
	}
	fprintf(out, "  </testsuite>\n</testsuites>\n");
	free(text);
	if (ferror(out))
		rc = -1;
	if (fclose(out) != 0)
		rc = -1;
	return rc;
}
