/*
 * compare.h - dbench-compare: the comparison of two sets of runs (the
 * base and the new), metric by metric, and its renderers.  Two sweeps
 * compare point by point: a comparison per client count, each point's
 * runs its samples.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_COMPARE_H
#define DBENCH_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "inference.h"

#define COMPARE_PROGNAME "dbench-compare"

/* Exit statuses. */
#define CMP_OK 0		/* no significant regression */
#define CMP_REGRESSION 1	/* at least one */
#define CMP_UNUSABLE 2		/* bad options or input: nothing was compared */

enum side_id { BASE, NEW };

enum test_kind {
	TEST_AUTO,		/* the U test where it can reach alpha with these n, else Welch's t */
	TEST_UTEST,		/* Mann-Whitney U */
	TEST_WELCH,		/* Welch's t */
};

enum verdict {
	V_SAME,			/* no significant change */
	V_REGRESSION,
	V_IMPROVEMENT,
	V_NONE,			/* a side has no value: not compared */
};

/* One compared figure: its values in every run of each side. */
struct metric {
	char *key;		/* stable id: "throughput", "ops_per_sec", "op.ReadX.p99", ... */
	char *label;		/* for people: "Throughput", "ReadX p99" */
	const char *unit;	/* "MB/s", "ops/s", "ms" */
	bool higher_better;
	double *v[2];		/* values per side (runs where the figure exists) */
	size_t n[2];
	/* the comparison */
	struct summary sum[2];
	double change_pct;	/* (new median - base median) / base median, in % */
	enum test_kind test;	/* the test that ran (TEST_AUTO: none ran) */
	struct test_result result;
	enum verdict verdict;
	const char *note;	/* why no test ran or why it could say nothing, or NULL */
};

/* The files of one side and what they held (for one sweep point: that
 * point's runs). */
struct side {
	char **files;		/* borrowed from the report */
	size_t nfiles;
	json_t **docs;		/* the (first) run of each file: what was run */
	size_t nruns;		/* runs pooled from the files */
};

struct comparison {
	int clients;		/* the sweep point's client count; 0: not a sweep */
	struct side side[2];
	struct metric *metric;
	size_t nmetrics;
	char **warning;		/* differences in environment or options, runs that failed, ... */
	size_t nwarnings;
	/* settings */
	double threshold_pct;
	double alpha;
	enum test_kind test;
	bool per_op;		/* each op's mean and p99 too */
	const char *metrics;	/* --metrics: patterns of the metrics to compare, or NULL */
	/* outcome */
	int regressions, improvements;
};

/* All that was compared: one comparison, or one per point of two sets of
 * sweeps (in the order of their client counts). */
struct report {
	bool sweep;		/* the inputs are --sweep documents */
	struct comparison *point;
	size_t npoints;
	char **files[2];	/* each side's files */
	size_t nfiles[2];
	json_t **whole[2];	/* their documents */
	size_t nruns[2];	/* runs of each side, over all points */
	char **warning;		/* of every point, each once */
	size_t nwarnings;
	/* outcome: metrics over all points, and points */
	int regressions, improvements;
	int regressed_points, improved_points;
};

extern const char *const verdict_name[];
extern const char *const test_name[];

/* A point's verdict: a regression if a metric regressed, else an
 * improvement if one improved, else no significant change (not compared
 * if no metric could be). */
enum verdict point_verdict(const struct comparison *cmp);

/* The renderers: stdout formats and the JUnit file. */
void render_text(const struct report *rep, FILE *out);
void render_markdown(const struct report *rep, FILE *out);
json_t *render_json(const struct report *rep);
int render_junit(const struct report *rep, const char *path);

/* "12.3" with the precision a figure of this size needs. */
void format_value(char *buf, size_t len, double v);

#endif
