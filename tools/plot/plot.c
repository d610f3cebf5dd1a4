/*
 * dbench-plot - draw dbench's results with gnuplot.
 *
 *   dbench-plot [-o DIR] [--format png|svg] [--size WxH] [--title TEXT]
 *               FILE.json...
 *
 * Each FILE is a document of `dbench --json`: a single run, --repeat's runs
 * or a --sweep (one point per client count).  Each file is one line in the
 * pictures: throughput (MB/sec and ops/sec) against clients, with the 95%
 * interval of the mean as error bars where a point has repeats; mean and p99
 * response time against clients; for every point its first run's MB/sec
 * and p99 second by second, the warmup, measurement and cleanup shaded; and
 * per group of operations the distribution of response times (the CDF on a
 * log time axis), one curve per point.
 *
 * What it writes in DIR: the data files (data/NAME.dat, read by the scripts),
 * one gnuplot script per picture (*.gp: re-run or edit them by hand), the
 * pictures, and index.html listing them with the runs' configuration.  The
 * figures come from the results model (results_from_json) and figures.h,
 * the code the dbench table uses: no second computation.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <popt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "figures.h"
#include "json_report.h"
#include "op.h"
#include "results.h"
#include "util.h"

#define MAX_CURVES 12		/* curves in one CDF picture */
#define MAX_TIMELINES 16	/* per-second pictures per input */

/* One client count of one input: its runs. */
struct point {
	struct results *run;
	size_t nruns;
	struct point_figures fig;
};

/* One input file: a line in the pictures. */
struct input {
	const char *file;
	char label[64];		/* the file's name without directory and .json */
	struct point *point;
	size_t npoints;
	bool repeats;		/* some point has 2 or more runs */
};

static struct {
	const char *dir;
	const char *format;	/* "png" or "svg" */
	int width, height;
	const char *title;	/* a prefix for every title, or NULL */
	const char *gnuplot;	/* the program */
} cfg = { .format = "png", .width = 1024, .height = 768 };

static void __attribute__((format(printf, 2, 3), noreturn)) fail(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dbench-plot: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* ---- input ---- */

static void add_point(struct input *in, const char *file, json_t *runs, json_t *one)
{
	struct point *p;
	size_t n = runs ? json_array_size(runs) : 1, i;
	char err[256];

	in->point = xrealloc(in->point, (in->npoints + 1) * sizeof(*in->point));
	p = &in->point[in->npoints++];
	memset(p, 0, sizeof(*p));
	if (!n)
		fail(2, "%s: a point holds no run", file);
	p->run = xcalloc(n, sizeof(*p->run));
	for (i = 0; i < n; i++) {
		json_t *doc = runs ? json_array_get(runs, i) : one;

		if (results_from_json(&p->run[i], doc, err, sizeof(err)) < 0)
			fail(2, "%s: not a dbench result: %s", file, err);
		p->nruns++;
	}
	point_figures(p->run, p->nruns, &p->fig);
	if (p->nruns > 1)
		in->repeats = true;
}

static int point_order(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return (x->fig.clients > y->fig.clients) - (x->fig.clients < y->fig.clients);
}

static void load_input(struct input *in, const char *file)
{
	char why[256];
	json_t *doc = json_read_document(file, JSON_REJECT_DUPLICATES, why, sizeof(why)), *points, *p;
	const char *base = strrchr(file, '/'), *name;
	size_t i;

	memset(in, 0, sizeof(*in));
	in->file = file;
	base = base ? base + 1 : file;
	snprintf(in->label, sizeof(in->label), "%.*s",
		 (int)(strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".json") ?
			       strlen(base) - 5 : strlen(base)), base);
	if (!doc)
		fail(2, "%s: %s%s", file, strncmp(why, "not JSON", 8) ? "" : "not a dbench result: ", why);
	name = json_string_value(json_object_get(json_object_get(doc, "program"), "name"));
	if (!json_is_object(doc) || !json_is_integer(json_object_get(doc, "schema_version")) || !name ||
	    (strcmp(name, "dbench") && strcmp(name, "tbench")))
		fail(2, "%s: not a dbench result (no schema_version and program of dbench --json)", file);
	if (json_object_get(doc, "error") && !json_object_get(doc, "results"))
		fail(2, "%s: a run that failed: %s", file,
		     json_string_value(json_object_get(json_object_get(doc, "error"), "message")) ?:
		     "no results");
	points = json_object_get(doc, "points");
	if (json_is_array(points)) {
		json_array_foreach(points, i, p)
			add_point(in, file, json_object_get(p, "runs"), NULL);
	} else if (json_is_array(json_object_get(doc, "runs"))) {
		add_point(in, file, json_object_get(doc, "runs"), NULL);
	} else {
		add_point(in, file, NULL, doc);
	}
	if (!in->npoints)
		fail(2, "%s: holds no point", file);
	qsort(in->point, in->npoints, sizeof(*in->point), point_order);
	json_decref(doc);
}

/* ---- output files ---- */

static FILE *create(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static FILE *create(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "%s/", cfg.dir);
	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(path) - (size_t)n, fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	if (!f)
		fail(1, "%s: cannot write: %s", path, strerror(errno));
	return f;
}

static void finish(FILE *f)
{
	if (ferror(f) | fclose(f))
		fail(1, "%s: write error: %s", cfg.dir, strerror(errno));
}

/*
 * User text (file names, --title, what the documents say) reaches three
 * places, and none of them may read it as anything but text:
 *   a gnuplot script: as single-quoted strings, the one kind of string in
 *     which gnuplot substitutes nothing (no `command`, no @macro, no
 *     backslash escape); a ' closes the string and is concatenated as "'"
 *     ('it'."'".'s': gnuplot 5.4 misreads a doubled '' next to another);
 *     marked noenhanced, so that _ ^ { } @ & ~ are printed as they are;
 *   a comment line of a data file or script;
 *   index.html: as escaped text.
 * A control character (a newline would end the string or the comment
 * line, and let what follows run as a command or be read as data) is shown
 * as '?', as `ls` does.
 */
static int shown_char(unsigned char c)
{
	return c < 0x20 || c == 0x7f ? '?' : c;
}

/* s as gnuplot text, without the quotes. */
static void put_gnuplot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'.\"'\".'", f);
		else
			fputc(shown_char((unsigned char)*s), f);
	}
}

/* s as a comment line's text (after "# "). */
static void put_comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(shown_char((unsigned char)*s), f);
}

/* s as HTML text (or a double-quoted attribute value). */
static void put_html(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(shown_char((unsigned char)*s), f);
	}
}

/* The start of a script: terminal, output, title, labels. */
static FILE *script(const char *name, const char *title, const char *xlabel, const char *ylabel)
{
	FILE *f = create("%s.gp", name);

	fprintf(f, "# %s.gp - made by dbench-plot; run `gnuplot %s.gp` in this directory\n", name, name);
	if (!strcmp(cfg.format, "svg"))
		fprintf(f, "set terminal svg size %d,%d dynamic enhanced font \"DejaVu Sans,12\" "
			   "background rgb \"white\"\n", cfg.width, cfg.height);
	else
		fprintf(f, "set terminal pngcairo size %d,%d enhanced font \"DejaVu Sans,12\" "
			   "background rgb \"white\"\n", cfg.width, cfg.height);
	fprintf(f, "set output \"%s.%s\"\nset encoding utf8\nset title '", name, cfg.format);
	if (cfg.title) {
		put_gnuplot_text(f, cfg.title);
		fputs(": ", f);
	}
	put_gnuplot_text(f, title);
	fprintf(f, "' noenhanced font \",14\"\nset xlabel \"%s\"\nset ylabel \"%s\"\n", xlabel, ylabel);
	fputs("set grid\nset key outside right top vertical box\n", f);
	return f;
}

static void plot_title(FILE *f, const char *label, const char *suffix)
{
	fputs(" title '", f);
	put_gnuplot_text(f, label);
	put_gnuplot_text(f, suffix);
	fputs("' noenhanced", f);
}

/* Log scale on the clients axis when they span a factor of 4 or more. */
static void clients_axis(FILE *f, const struct input *in, size_t nin)
{
	int lo = INT_MAX, hi = 0;

	for (size_t i = 0; i < nin; i++)
		for (size_t k = 0; k < in[i].npoints; k++) {
			lo = MIN(lo, in[i].point[k].fig.clients);
			hi = MAX(hi, in[i].point[k].fig.clients);
		}
	if (lo > 0 && hi >= 4 * lo)
		fprintf(f, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.3, hi * 1.3);
	else
		fprintf(f, "set xrange [%g:%g]\n", lo - 0.5, hi + 0.5);
	fputs("set xtics nomirror\nset mxtics default\n", f);
}

/* data/points.dat: a block per input, a row per point. */
static void write_points(const struct input *in, size_t nin)
{
	FILE *f = create("data/points.dat");

	fputs("# clients  mbps mbps_low mbps_high  ops ops_low ops_high  mean_ms p99_ms max_ms  "
	      "nb_mbps runs\n# a block per input (gnuplot: index N); low/high: the 95% interval of "
	      "the mean (the mean itself with one run)\n", f);
	for (size_t i = 0; i < nin; i++) {
		fprintf(f, "%s# input %zu: ", i ? "\n\n" : "", i);
		put_comment_text(f, in[i].file);
		fputc('\n', f);
		for (size_t k = 0; k < in[i].npoints; k++) {
			const struct point_figures *p = &in[i].point[k].fig;
			double mh = p->mbps.ci_valid ? p->mbps.ci_half : 0;
			double oh = p->ops.ci_valid ? p->ops.ci_half : 0;

			fprintf(f, "%d  %.6f %.6f %.6f  %.3f %.3f %.3f  %.6f %.6f %.6f  %.6f %zu\n",
				p->clients, p->mbps.mean, p->mbps.mean - mh, p->mbps.mean + mh,
				p->ops.mean, p->ops.mean - oh, p->ops.mean + oh, p->mean_ms.mean,
				p->p99_ms.mean, p->max_ms, p->mbps.mean * p->nbscale, p->nruns);
		}
	}
	finish(f);
}

/* Throughput or ops/sec against clients (columns: value, low, high). */
static void chart_rate(const struct input *in, size_t nin, const char *name, const char *title,
		       const char *ylabel, int col)
{
	FILE *f = script(name, title, "Clients", ylabel);

	clients_axis(f, in, nin);
	fputs("set yrange [0:*]\nset key inside left top\nplot", f);
	for (size_t i = 0; i < nin; i++) {
		if (in[i].repeats)
			fprintf(f, "%s \"data/points.dat\" index %zu using 1:%d:%d:%d with yerrorlines "
				   "lw 2 pt 7 ps 1.2", i ? ", \\\n    " : " ", i, col, col + 1, col + 2);
		else
			fprintf(f, "%s \"data/points.dat\" index %zu using 1:%d with linespoints lw 2 pt 7 "
				   "ps 1.2", i ? ", \\\n    " : " ", i, col);
		plot_title(f, in[i].label, in[i].repeats ? " (mean, 95% interval)" : "");
	}
	fputc('\n', f);
	finish(f);
}

static void chart_latency(const struct input *in, size_t nin)
{
	FILE *f = script("latency", "Response time against clients (all operations)", "Clients",
			 "Response time (ms)");

	clients_axis(f, in, nin);
	fputs("set logscale y 10\nset key inside left top\nplot", f);
	for (size_t i = 0; i < nin; i++) {
		fprintf(f, "%s \"data/points.dat\" index %zu using 1:($8 > 0 ? $8 : NaN) with "
			   "linespoints lw 2 pt 7 lc %zu", i ? ", \\\n    " : " ", i, i + 1);
		plot_title(f, in[i].label, " mean");
		fprintf(f, ", \\\n     \"data/points.dat\" index %zu using 1:($9 > 0 ? $9 : NaN) with "
			   "linespoints lw 2 pt 5 dt 2 lc %zu", i, i + 1);
		plot_title(f, in[i].label, " p99");
	}
	fputc('\n', f);
	finish(f);
}

/* The per-second picture of the first run of a point. */
static void chart_timeline(const struct input *in, size_t i, size_t k, char *name, size_t nlen,
			   char *title, size_t tlen)
{
	const struct results *r = &in[i].point[k].run[0];
	static const char *const shade[] = { "#fff3d6", "#e3f0ff", "#eeeeee" };
	FILE *d, *f;
	size_t j;

	snprintf(name, nlen, "timeline-%zu-%dc", i + 1, in[i].point[k].fig.clients);
	d = create("data/%s.dat", name);
	fputs("# second phase mbps p99_ms ops max_ms  (phase: 0 warmup, 1 execute, 2 cleanup)\n", d);
	for (j = 0; j < r->nseries; j++) {
		const struct series_row *row = &r->series[j];

		fprintf(d, "%llu %d %.6f %.6f %llu %.6f\n", (unsigned long long)row->second, row->phase,
			(double)row->bytes / 1e6, (double)row->p99_ns / 1e6,
			(unsigned long long)row->ops, (double)row->max_ns / 1e6);
	}
	finish(d);
	snprintf(title, tlen, "%s: %d clients, second by second", in[i].label,
		 in[i].point[k].fig.clients);
	f = script(name, title, "Seconds since the clients were released", "Throughput (MB/sec)");
	fputs("set y2label \"p99 response time (ms)\"\nset ytics nomirror\nset y2tics\n"
	      "set yrange [0:*]\nset y2range [0:*]\nset key outside center bottom horizontal\n", f);
	/* shade each phase: the rows of one phase are contiguous */
	for (j = 0; j < r->nseries;) {
		size_t e = j;
		int ph = r->series[j].phase;

		while (e + 1 < r->nseries && r->series[e + 1].phase == ph)
			e++;
		fprintf(f, "set object %zu rect from %llu, graph 0 to %llu, graph 1 behind "
			   "fc rgb \"%s\" fs solid 1.0 noborder\n", j + 1,
			(unsigned long long)r->series[j].second,
			(unsigned long long)r->series[e].second + 1, shade[ph % 3]);
		fprintf(f, "set label %zu \"%s\" at %g, graph 0.97 center front\n", j + 1,
			phase_name[ph % 3],
			((double)r->series[j].second + (double)r->series[e].second + 1) / 2);
		j = e + 1;
	}
	if (!r->nseries)
		fputs("set xrange [0:1]\n", f);
	fprintf(f, "plot \"data/%s.dat\" using ($1 + 0.5):3 with linespoints lw 2 pt 7 title "
		   "\"MB/sec\", \\\n     \"data/%s.dat\" using ($1 + 0.5):4 axes x1y2 with linespoints "
		   "lw 2 pt 5 dt 2 title \"p99 ms\"\n", name, name);
	finish(f);
}

/* The distribution of one group's response times: a curve per point. */
static bool chart_cdf(const struct input *in, size_t nin, int g, char *name, size_t len)
{
	size_t ncurves = 0, total = 0, curve = 0;
	FILE *d, *f;

	for (size_t i = 0; i < nin; i++)
		for (size_t k = 0; k < in[i].npoints; k++)
			total++;
	snprintf(name, len, "cdf-%s", group_name[g]);
	for (char *c = name; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '-';
	d = create("data/%s.dat", name);
	fprintf(d, "# response time ms (bucket upper bound), fraction of %s operations at or under it\n"
		   "# a block per curve (gnuplot: index N)\n", group_name[g]);
	{
		char title[128];

		snprintf(title, sizeof(title), "Distribution of response times: %s", group_name[g]);
		f = script(name, title, "Response time (ms)", "Fraction of operations at or under it");
	}
	fputs("set logscale x 10\nset format x \"10^{%L}\"\nset yrange [0:1.02]\nset key inside right bottom\n"
	      "plot", f);
	for (size_t i = 0; i < nin; i++) {
		for (size_t k = 0; k < in[i].npoints; k++, curve++) {
			const struct point *p = &in[i].point[k];
			struct hist_total h = { 0 };
			uint64_t cum = 0;
			char suffix[64];

			/* at most MAX_CURVES, spread over the points */
			if (total > MAX_CURVES && (curve * MAX_CURVES) / total ==
						      ((curve + 1) * MAX_CURVES) / total)
				continue;
			for (size_t j = 0; j < p->nruns; j++)
				hist_total_merge(&h, &p->run[j].group[g].hist);
			if (!h.n)
				continue;
			fprintf(d, "%s# ", ncurves ? "\n\n" : "");
			put_comment_text(d, in[i].label);
			fprintf(d, ", %d clients\n", p->fig.clients);
			for (unsigned b = 0; b < HIST_BUCKETS; b++) {
				if (!h.count[b])
					continue;
				cum += h.count[b];
				fprintf(d, "%.9f %.9f\n",
					(double)(hist_bucket_low(b) + hist_bucket_width(b)) / 1e6,
					(double)cum / (double)h.n);
			}
			fprintf(f, "%s \"data/%s.dat\" index %zu using 1:2 with steps lw 2",
				ncurves ? ", \\\n    " : " ", name, ncurves);
			snprintf(suffix, sizeof(suffix), "%s%d clients", nin > 1 ? ", " : "",
				 p->fig.clients);
			plot_title(f, nin > 1 ? in[i].label : "", suffix);
			ncurves++;
		}
	}
	fputc('\n', f);
	finish(f);
	finish(d);
	if (!ncurves) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s.gp", cfg.dir, name);
		unlink(path);
		snprintf(path, sizeof(path), "%s/data/%s.dat", cfg.dir, name);
		unlink(path);
	}
	return ncurves > 0;
}

/* ---- gnuplot ---- */

static void run_gnuplot(const char *name)
{
	char script_name[128], errpath[PATH_MAX], line[512] = "";
	int status;
	pid_t pid;
	FILE *e;

	snprintf(script_name, sizeof(script_name), "%s.gp", name);
	snprintf(errpath, sizeof(errpath), "%s/.%s.err", cfg.dir, name);
	pid = fork();
	if (pid < 0)
		fail(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* errpath is relative to where we are (cfg.dir may be): before chdir */
		int fd = creat(errpath, 0644);

		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		if (chdir(cfg.dir) < 0)
			_exit(126);
		execlp(cfg.gnuplot, cfg.gnuplot, script_name, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	e = fopen(errpath, "r");
	if (e) {
		/* gnuplot's first complaint, if any */
		while (fgets(line, sizeof(line), e) && !strpbrk(line, "abcdefghijklmnopqrstuvwxyz"))
			;
		fclose(e);
	}
	unlink(errpath);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		fail(2, "cannot run %s (Debian: apt-get install gnuplot-nox; or set GNUPLOT)", cfg.gnuplot);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		line[strcspn(line, "\n")] = 0;
		fail(1, "gnuplot failed on %s/%s: %s", cfg.dir, script_name, *line ? line : "no message");
	}
}

/* ---- index.html ---- */

static void html_row(FILE *h, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void html_row(FILE *h, const char *key, const char *fmt, ...)
{
	char value[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	fprintf(h, "<tr><th>%s</th><td>", key);
	put_html(h, value);
	fputs("</td></tr>\n", h);
}

static void html_input(FILE *h, const struct input *in)
{
	const struct results_identity *id = &in->point[0].run[0].id;
	char clients[512] = "";
	size_t n = 0, runs = 0;

	for (size_t k = 0; k < in->npoints; k++) {
		if (n < sizeof(clients) - 16)
			n += (size_t)snprintf(clients + n, sizeof(clients) - n, "%s%d", k ? ", " : "",
					      in->point[k].fig.clients);
		runs += in->point[k].nruns;
	}
	fputs("<h2>", h);
	put_html(h, in->label);
	fputs("</h2>\n<table>\n", h);
	html_row(h, "File", "%s", in->file);
	html_row(h, "Program", "%s %s%s%s", id->progname ? id->progname : "?",
		 id->version ? id->version : "?", id->env.git_describe ? " " : "",
		 id->env.git_describe ? id->env.git_describe : "");
	html_row(h, "Backend", "%s", id->backend ? id->backend : "?");
	html_row(h, "Loadfile", "%s (%llu lines, crc32 %08x)", id->loadfile ? id->loadfile : "?",
		 (unsigned long long)id->lines, id->crc32);
	html_row(h, "Clients", "%s (%zu run%s in all)", clients, runs, runs == 1 ? "" : "s");
	if (id->passes_per_client)
		html_row(h, "Work", "%d pass%s per client", id->passes_per_client,
			 id->passes_per_client == 1 ? "" : "es");
	else
		html_row(h, "Time", "%d s warmup, %d s measured", id->warmup_sec, id->timelimit_sec);
	html_row(h, "Host", "%s (%s %s %s)", id->host_name ? id->host_name : "?",
		 id->host_system ? id->host_system : "", id->host_release ? id->host_release : "",
		 id->host_machine ? id->host_machine : "");
	if (id->env.cpu_model)
		html_row(h, "CPU", "%s, %d online, %.1f GiB memory", id->env.cpu_model, id->env.cpus,
			 (double)id->env.memory_bytes / (1 << 30));
	if (id->env.directory)
		html_row(h, "Directory", "%s (%s%s%s)", id->env.directory,
			 id->env.fs_type ? id->env.fs_type : "?", id->env.mount_options ? ", " : "",
			 id->env.mount_options ? id->env.mount_options : "");
	if (id->env.server)
		html_row(h, "Server", "%s", id->env.server);
	html_row(h, "Started", "%s", id->start_time ? id->start_time : "?");
	fputs("</table>\n", h);
}

static void html_figure(FILE *h, const char *name, const char *caption)
{
	fprintf(h, "<div class=\"fig\"><img src=\"%s.%s\" alt=\"%s\" width=\"%d\"><p>", name,
		cfg.format, name, cfg.width);
	put_html(h, caption);
	fputs("</p></div>\n", h);
}

/* ---- main ---- */

static void parse_size_option(const char *s)
{
	char *end;
	long w = strtol(s, &end, 10), hgt;

	if (end == s || (*end != 'x' && *end != 'X'))
		fail(2, "--size: '%s' is not WIDTHxHEIGHT", s);
	hgt = strtol(end + 1, &end, 10);
	if (*end || w < 200 || hgt < 150 || w > 10000 || hgt > 10000)
		fail(2, "--size: '%s' is not WIDTHxHEIGHT from 200x150 to 10000x10000", s);
	cfg.width = (int)w;
	cfg.height = (int)hgt;
}

int main(int argc, const char **argv)
{
	static const char *size;	/* static: popt's copy stays reachable (LeakSanitizer) */
	int show_version = 0, rc;
	struct poptOption table[] = {
		{ "output", 'o', POPT_ARG_STRING, &cfg.dir, 0,
		  "the directory to write the pictures, their data and scripts and index.html to "
		  "(made if missing)", "DIR" },
		{ "format", 'f', POPT_ARG_STRING, &cfg.format, 0, "png (default) or svg", "FORMAT" },
		{ "size", 's', POPT_ARG_STRING, &size, 0, "picture size in pixels (default 1024x768)",
		  "WxH" },
		{ "title", 't', POPT_ARG_STRING, &cfg.title, 0, "put TEXT before every title", "TEXT" },
		{ "version", 'V', POPT_ARG_NONE, &show_version, 0, "print the version and exit", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc = poptGetContext("dbench-plot", argc, argv, table, 0);
	struct input *in = NULL;
	size_t nin = 0;
	const char *arg;
	FILE *h;

	util_set_progname("dbench-plot");
	poptSetOtherOptionHelp(pc, "[OPTION...] FILE.json...");
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1)
		fail(2, "%s: %s (see dbench-plot --help)", poptBadOption(pc, 0), poptStrerror(rc));
	if (show_version) {
		printf("dbench-plot %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(cfg.format, "png") && strcmp(cfg.format, "svg"))
		fail(2, "--format: '%s' is not png or svg", cfg.format);
	if (size)
		parse_size_option(size);
	if (!cfg.dir)
		fail(2, "no output directory: give one with -o DIR (see dbench-plot --help)");
	cfg.gnuplot = getenv("GNUPLOT") && *getenv("GNUPLOT") ? getenv("GNUPLOT") : "gnuplot";
	while ((arg = poptGetArg(pc))) {
		in = xrealloc(in, (nin + 1) * sizeof(*in));
		load_input(&in[nin++], arg);
	}
	if (!nin)
		fail(2, "no input: give one or more result files of dbench --json");
	if (mkdir(cfg.dir, 0777) < 0 && errno != EEXIST)
		fail(1, "%s: cannot make it: %s", cfg.dir, strerror(errno));
	{
		char data[PATH_MAX];

		snprintf(data, sizeof(data), "%s/data", cfg.dir);
		if (mkdir(data, 0777) < 0 && errno != EEXIST)
			fail(1, "%s: cannot make it: %s", data, strerror(errno));
	}

	h = create("index.html");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">\n<title>", h);
	put_html(h, cfg.title ? cfg.title : "dbench results");
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;"
	      "margin-bottom:1em}th,td{border:1px solid #ccc;padding:2px 8px;text-align:left}"
	      ".fig{display:inline-block;margin:1em 1em 1em 0}img{max-width:100%}</style>\n"
	      "</head>\n<body>\n<h1>", h);
	put_html(h, cfg.title ? cfg.title : "dbench results");
	fputs("</h1>\n", h);
	for (size_t i = 0; i < nin; i++)
		html_input(h, &in[i]);

	write_points(in, nin);
	fputs("<h2>Against the number of clients</h2>\n", h);
	chart_rate(in, nin, "throughput", "Throughput against clients", "Throughput (MB/sec)", 2);
	run_gnuplot("throughput");
	html_figure(h, "throughput", "Throughput (MB/sec) against clients");
	chart_rate(in, nin, "ops", "Operations per second against clients", "Operations/sec", 5);
	run_gnuplot("ops");
	html_figure(h, "ops", "Operations per second against clients");
	chart_latency(in, nin);
	run_gnuplot("latency");
	html_figure(h, "latency", "Mean and p99 response time against clients");

	fputs("<h2>Distribution of response times by group</h2>\n", h);
	for (int g = 0; g < GROUP_COUNT; g++) {
		char name[64], caption[128];

		if (!chart_cdf(in, nin, g, name, sizeof(name)))
			continue;
		run_gnuplot(name);
		snprintf(caption, sizeof(caption), "%s: distribution of response times", group_name[g]);
		html_figure(h, name, caption);
	}

	fputs("<h2>Second by second</h2>\n", h);
	for (size_t i = 0; i < nin; i++)
		for (size_t k = 0; k < in[i].npoints && k < MAX_TIMELINES; k++) {
			char name[64], title[160];

			chart_timeline(in, i, k, name, sizeof(name), title, sizeof(title));
			run_gnuplot(name);
			html_figure(h, name, title);
		}
	fputs("</body>\n</html>\n", h);
	finish(h);
	printf("dbench-plot: wrote %s/index.html\n", cfg.dir);

	for (size_t i = 0; i < nin; i++) {
		for (size_t k = 0; k < in[i].npoints; k++) {
			for (size_t j = 0; j < in[i].point[k].nruns; j++)
				results_free(&in[i].point[k].run[j]);
			free(in[i].point[k].run);
		}
		free(in[i].point);
	}
	free(in);
	poptFreeContext(pc);
	return 0;
}
