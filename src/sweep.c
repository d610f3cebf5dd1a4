/*
 * sweep.c - client-count sweeps (see sweep.h): a loop of series of runs
 * (repeat.c), one per count, the table of the points and their document.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "json_report.h"
#include "mpi_run.h"
#include "options.h"
#include "sweep.h"
#include "util.h"

static void point_line(const struct sweep *sw, int i)
{
	struct point_figures pf;

	point_figures(sw->point[i].run, (size_t)sw->point[i].nruns, &pf);
	printf("Point %d of %d: %d clients: Throughput %g MB/sec  NB %g MB/sec  %.1f ops/sec  "
	       "max_latency=%.03f ms%s\n", i + 1, sw->max_points, pf.clients, pf.mbps.mean,
	       pf.mbps.mean * pf.nbscale, pf.ops.mean, pf.max_ms,
	       sw->point[i].status ? "  (failed: see above)" : "");
	fflush(stdout);
}

void sweep_run(const struct program *prog, const struct backend *be, const void *be_opt,
	       const struct run_plan *plan, struct sweep *sw)
{
	memset(sw, 0, sizeof(*sw));
	sw->max_points = options.nsweep;
	sw->procs = options.sweep;
	sw->point = xcalloc((size_t)options.nsweep, sizeof(*sw->point));
	sw->end = SERIES_DONE;
	for (int i = 0; i < options.nsweep; i++) {
		struct run_set *set = &sw->point[i];

		options.nprocs = options.sweep[i];
		options.nclients = options.nprocs * options.clients_per_process;
		printf("%sPoint %d of %d: %d client%s in %d process%s\n", i ? "\n" : "", i + 1,
		       options.nsweep, options.nclients, options.nclients == 1 ? "" : "s", options.nprocs,
		       options.nprocs == 1 ? "" : "es");
		if (mpi_on())	/* --mpi: the point's processes spread over the ranks */
			mpi_spread(options.sweep[i]);
		run_series(prog, be, be_opt, plan, set);
		sw->status = MAX(sw->status, set->status);
		if (!set->nruns) {	/* its clients could not start: no figures */
			sw->end = set->end;
			run_set_free(set);
			break;
		}
		sw->npoints++;
		if (!plan->quiet)
			run_set_report(stdout, set);
		point_line(sw, i);
		if (set->end == SERIES_SIGNAL || set->end == SERIES_SETUP_FAILED) {
			sw->end = set->end;
			break;
		}
	}
}

void sweep_free(struct sweep *sw)
{
	for (int i = 0; i < sw->npoints; i++)
		run_set_free(&sw->point[i]);
	free(sw->point);
	memset(sw, 0, sizeof(*sw));
}

void sweep_report(FILE *out, const struct sweep *sw)
{
	int runs = 0;

	for (int i = 0; i < sw->npoints; i++)
		runs = MAX(runs, sw->point[i].nruns);
	fprintf(out, "\nSweep of %d point%s of %d%s (%s): response times of all operations\n",
		sw->npoints, sw->npoints == 1 ? "" : "s", sw->max_points,
		sw->end == SERIES_DONE || sw->end == SERIES_CI_REACHED ? "" : ", stopped early",
		runs > 1 ? "each the mean of its runs, +- the 95% interval of the mean" : "one run each");
	fprintf(out, " %7s %6s %12s %10s %12s %12s %10s %10s %10s\n", "Clients", "Procs", "MB/sec",
		"+-", "NB MB/sec", "Ops/sec", "Mean ms", "p99 ms", "Max ms");
	for (int i = 0; i < sw->npoints; i++) {
		struct point_figures pf;
		char ci[32] = "-";

		point_figures(sw->point[i].run, (size_t)sw->point[i].nruns, &pf);
		if (pf.mbps.ci_valid)
			snprintf(ci, sizeof(ci), "%.3f", pf.mbps.ci_half);
		fprintf(out, " %7d %6d %12.3f %10s %12.3f %12.1f %10.3f %10.3f %10.3f\n", pf.clients,
			pf.procs, pf.mbps.mean, ci, pf.mbps.mean * pf.nbscale, pf.ops.mean,
			pf.mean_ms.mean, pf.p99_ms.mean, pf.max_ms);
	}
	/* --mpi: each point's runs, rank by rank */
	if (sw->npoints && run_set_has_ranks(&sw->point[0])) {
		run_set_rank_header(out, true);
		for (int i = 0; i < sw->npoints; i++)
			run_set_rank_lines(out, &sw->point[i], i + 1);
	}
	fflush(out);
}

json_t *sweep_json(const struct sweep *sw)
{
	json_t *doc = json_object(), *list = json_array(), *points = json_array();

	for (int i = 0; i < sw->max_points; i++)
		json_array_append_new(list, json_integer(sw->procs[i]));
	for (int i = 0; i < sw->npoints; i++) {
		json_t *point = run_set_json(&sw->point[i]);

		json_object_set_new(point, "processes", json_integer(sw->procs[i]));
		json_object_set_new(point, "clients",
				    json_integer((json_int_t)sw->procs[i] * options.clients_per_process));
		json_array_append_new(points, point);
	}
	json_object_set_new(doc, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	json_object_set_new(doc, "program", json_pack("{s:s s:s}", "name", options.progname,
						      "version", PACKAGE_VERSION));
	json_object_set_new(doc, "sweep", json_pack("{s:o s:i s:i s:s}", "processes", list,
		"clients_per_process", options.clients_per_process, "points", sw->npoints,
		"end", series_end_name[sw->end]));
	json_object_set_new(doc, "points", points);
	json_object_set_new(doc, "exit_status", json_integer(sw->status));
	return doc;
}

int sweep_write_json(const struct sweep *sw, const char *path, int stdout_fd)
{
	return json_write_document(sweep_json(sw), path, stdout_fd, false);
}
