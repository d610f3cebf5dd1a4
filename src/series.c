/*
 * series.c - the per-second series; see series.h.
 *
 * Second s is read from the rings at the tick of second s + 2 at the
 * earliest: at the tick that ends second s + 1 a client may still be
 * recording an op that ended just before the boundary.  The ring holds 8
 * seconds, so a parent that is held up for more than 6 seconds loses
 * seconds; they are counted and reported, not guessed.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_report.h"
#include "options.h"
#include "outfile.h"
#include "region_atomic.h"
#include "series.h"
#include "util.h"

static const char csv_header[] =
	"elapsed_sec,phase,clients,ops,bytes,mb_per_sec,max_latency_ms,p99_latency_ms\n";

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The file is made anew and renamed over the name at once (outfile.h):
 * its rows show there as the run goes, and a symbolic link planted at the
 * name is never followed. */
static FILE *open_output(const char *path)
{
	char why[PATH_MAX + 128];
	struct outfile out;
	FILE *f = NULL;

	if (strcmp(path, "-") == 0) {
		int fd = dup(options.stdout_fd >= 0 ? options.stdout_fd : STDOUT_FILENO);

		f = fd < 0 ? NULL : fdopen(fd, "w");
		snprintf(why, sizeof(why), "%s", strerror(errno));
	} else if (outfile_open(&out, path, true, why, sizeof(why)) == 0) {
		f = fdopen(out.fd, "w");
		if (!f) {
			snprintf(why, sizeof(why), "%s", strerror(errno));
			close(out.fd);
		}
	}
	if (!f)
		warnx_("--csv-series %s: cannot open: %s; no series is written", path, why);
	return f;
}

struct series *series_create(const struct shared *sh)
{
	struct series *ser;

	if (!options.csv_series && !options.json)
		return NULL;
	ser = xcalloc(1, sizeof(*ser));
	ser->sh = sh;
	ser->snap = xcalloc(1, sizeof(*ser->snap));
	ser->now = xcalloc(1, sizeof(*ser->now));
	for (int i = 0; i < SEC_RING; i++)
		ser->p99_sec[i] = UINT64_MAX;
	if (options.csv_series) {
		ser->jsonl = ends_with(options.csv_series, ".jsonl");
		ser->out = open_output(options.csv_series);
		ser->failed = !ser->out;
		if (ser->out && !ser->jsonl)
			fputs(csv_header, ser->out);
	}
	return ser;
}

static enum phase second_phase(const struct shared *sh, uint64_t second)
{
	uint64_t start = sh->release_ns + second * NSEC_PER_SEC;

	if (start + NSEC_PER_SEC <= sh->measure_start_ns)
		return PHASE_WARMUP;
	if (start >= region_end(sh))
		return PHASE_CLEANUP;
	return PHASE_EXECUTE;
}

/* Merge every client's all-op histogram into ser->now. */
static void snapshot(struct series *ser)
{
	memset(ser->now, 0, sizeof(*ser->now));
	for (int i = 0; i < ser->sh->nclients; i++)
		hist_total_add64(ser->now, &shared_slot(ser->sh, i)->every);
}

/* The ops since the last snapshot ended in seconds snap_sec .. upto - 1:
 * give each of them their p99, and make this snapshot the last. */
static void close_interval(struct series *ser, uint64_t upto)
{
	struct hist_total *t;
	uint64_t p99;

	if (upto <= ser->snap_sec)
		return;		/* the same second again: wait for the next */
	snapshot(ser);
	t = ser->now;
	hist_total_sub(t, ser->snap);
	p99 = hist_total_percentile(t, 0.99);
	for (uint64_t s = ser->snap_sec; s < upto; s++) {
		ser->p99[s % SEC_RING] = p99;
		ser->p99_sec[s % SEC_RING] = s;
	}
	hist_total_merge(t, ser->snap);	/* back to the full snapshot */
	ser->now = ser->snap;
	ser->snap = t;
	ser->snap_sec = upto;
}

static void read_second(struct series *ser, uint64_t second, struct series_row *row)
{
	const struct shared *sh = ser->sh;
	bool lost = false;

	memset(row, 0, sizeof(*row));
	row->second = second;
	row->phase = second_phase(sh, second);
	for (int i = 0; i < sh->nclients; i++) {
		struct sec_stat copy;

		if (!sec_stat_read(&shared_slot(sh, i)->secs[second % SEC_RING], second, &copy)) {
			/* overwritten by a later second before or while it was
			 * read (the parent was held up for SEC_RING - 2 s) */
			lost |= copy.sec > second;
			continue;
		}
		if (!copy.ops)
			continue;
		row->clients++;
		row->ops += copy.ops;
		row->bytes += copy.bytes;
		row->max_ns = MAX(row->max_ns, copy.max_ns);
	}
	if (row->ops < 100)	/* the nearest rank is the last: exact */
		row->p99_ns = row->max_ns;
	else if (ser->p99_sec[second % SEC_RING] == second)
		row->p99_ns = MIN(ser->p99[second % SEC_RING], row->max_ns);
	if (lost)
		ser->lost++;
}

static void write_row(struct series *ser, const struct series_row *row)
{
	if (!ser->out)
		return;
	if (ser->jsonl) {
		json_t *j = series_row_json(row);

		json_dumpf(j, ser->out, JSON_COMPACT | JSON_REAL_PRECISION(9));
		fputc('\n', ser->out);
		json_decref(j);
	} else {
		fprintf(ser->out, "%llu,%s,%d,%llu,%llu,%.3f,%.3f,%.3f\n",
			(unsigned long long)row->second + 1, phase_name[row->phase], row->clients,
			(unsigned long long)row->ops, (unsigned long long)row->bytes,
			(double)row->bytes / 1e6, (double)row->max_ns / 1e6, (double)row->p99_ns / 1e6);
	}
	fflush(ser->out);
}

/* Read the seconds up to last into rows[]; write them if `write`. */
static void read_upto(struct series *ser, uint64_t last, bool write)
{
	for (; ser->next_sec <= last; ser->next_sec++) {
		struct series_row row;

		read_second(ser, ser->next_sec, &row);
		if (ser->nrows == ser->cap) {
			ser->cap = ser->cap ? 2 * ser->cap : 64;
			ser->rows = xrealloc(ser->rows, ser->cap * sizeof(*ser->rows));
		}
		ser->rows[ser->nrows++] = row;
		if (write) {
			write_row(ser, &row);
			ser->written = ser->nrows;
		}
	}
}

void series_tick(struct series *ser, uint64_t now)
{
	uint64_t second;

	if (!ser || now < ser->sh->release_ns)
		return;
	second = (now - ser->sh->release_ns + NSEC_PER_SEC / 2) / NSEC_PER_SEC;
	close_interval(ser, second);
	if (second >= 2)
		read_upto(ser, second - 2, true);
}

void series_finish(struct series *ser)
{
	uint64_t last = 0;
	bool any = false;

	if (!ser)
		return;
	for (int i = 0; i < ser->sh->nclients; i++) {
		const struct slot *s = shared_slot(ser->sh, i);

		for (int r = 0; r < SEC_RING; r++) {
			if (!s->secs[r].ops || s->secs[r].sec == SEC_CHANGING)	/* killed mid-reset */
				continue;
			last = any ? MAX(last, s->secs[r].sec) : s->secs[r].sec;
			any = true;
		}
	}
	if (any) {
		close_interval(ser, last + 1);
		read_upto(ser, last, false);
	}
}

void series_write_rest(struct series *ser, const struct results *r)
{
	if (!ser)
		return;
	for (; ser->written < r->nseries; ser->written++)
		write_row(ser, &r->series[ser->written]);
	if (ser->lost)
		warnx_("--csv-series: %llu second%s overwritten before the parent read %s (it was held up)",
		       (unsigned long long)ser->lost, ser->lost == 1 ? " was" : "s were",
		       ser->lost == 1 ? "it" : "them");
	if (ser->out && (ferror(ser->out) | fclose(ser->out)) != 0) {
		warnx_("--csv-series %s: write error", options.csv_series);
		ser->failed = true;
	}
	ser->out = NULL;
}

void series_free(struct series *ser)
{
	if (!ser)
		return;
	if (ser->out)
		fclose(ser->out);
	free(ser->snap);
	free(ser->now);
	free(ser->rows);
	free(ser);
}
