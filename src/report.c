/*
 * report.c - the final text report; see report.h.
 *
 * The human output keeps dbench 4.0's shape, because harnesses parse it,
 * some by field position: the op table " %-12s %7u %9.03f %9.03f", and as
 * the very last line
 *   "Throughput %g MB/sec  %d clients  %d procs  max_latency=%.03f ms".
 * --machine-readable prints only ':op:count:avg:max:' lines and
 * ';throughput;clients;procs;maxlat;'.  Between the op table's header and
 * the final lines come only op rows (and --latency's tables): mmtests takes
 * every such line for one; the other summary lines come before the table.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdio.h>

#include "latency.h"
#include "report.h"
#include "util.h"

static void op_table(FILE *out, const struct results *r, const struct op_total *tot, size_t stride,
		     bool machine)
{
	int width;

	for (unsigned k = 0; machine && k < r->nops; k++) {
		const struct op_total *t = (const struct op_total *)((const char *)tot + k * stride);

		if (!t->count)
			continue;
		fprintf(out, ":%s:%llu:%.03f:%.03f:\n", results_op_label(r, k), (unsigned long long)t->count,
			(double)t->total_ns / (double)t->count / 1e6, (double)t->max_ns / 1e6);
	}
	if (machine)
		return;
	/* dbench 4.0's table, or 5.0's (wider) with its op names */
	width = results_op_label_width(r);
	fprintf(out, " %-*sCount    AvgLat    MaxLat\n", width + 3, "Operation");
	fprintf(out, " %.*s\n", width + 28, "--------------------------------------------------");
	for (unsigned k = 0; k < r->nops; k++) {
		const struct op_total *t = (const struct op_total *)((const char *)tot + k * stride);

		if (!t->count)
			continue;
		fprintf(out, " %-*s %7llu %9.03f %9.03f\n", width, results_op_label(r, k),
			(unsigned long long)t->count, (double)t->total_ns / (double)t->count / 1e6,
			(double)t->max_ns / 1e6);
	}
	fprintf(out, "\n");
}

static void per_client(FILE *out, const struct results *r)
{
	fprintf(out, "Per client results:\n");
	for (int i = 0; i < r->id.clients; i++) {
		const struct results_client *c = &r->per_client[i];

		fprintf(out, "Client %d did %llu lines and %llu bytes in %llu passes\n", c->client,
			(unsigned long long)c->lines, (unsigned long long)c->bytes,
			(unsigned long long)c->passes);
		op_table(out, r, c->op, sizeof(*c->op), false);
	}
}

/* The clients' own cost (CPU from release to the end of their runs) and,
 * for network backends, the bytes on the wire; both over all phases, so
 * given per op of all phases. */
static void client_resources_lines(FILE *out, const struct results *r)
{
	const struct results_resources *res = &r->resources;
	double per = 0;

	if (res->ops)
		per = 1.0 / (double)res->ops;
	fprintf(out, "Client CPU: user %.3f s, system %.3f s for %llu ops in all phases (%.2f + %.2f us per op)\n",
		(double)res->user_ns / 1e9, (double)res->sys_ns / 1e9, (unsigned long long)res->ops,
		(double)res->user_ns / 1e3 * per, (double)res->sys_ns / 1e3 * per);
	if (res->net_sent || res->net_received)
		fprintf(out, "Network: %llu bytes sent, %llu received (%.0f + %.0f per op)\n",
			(unsigned long long)res->net_sent, (unsigned long long)res->net_received,
			(double)res->net_sent * per, (double)res->net_received * per);
}

static void problems(FILE *err, const struct results *r)
{
	uint64_t mismatches = r->all.mismatches;

	if (r->idle_clients) {
		uint64_t lo = UINT64_MAX, hi = 0;

		for (int i = 0; i < r->id.clients; i++) {
			lo = MIN(lo, r->passes[i]);
			hi = MAX(hi, r->passes[i]);
		}
		fprintf(err, "%s: overloaded: %d of %d clients completed no operation in the measured window "
			"(passes per client min %llu, median %llu, max %llu)%s\n", r->id.progname,
			r->idle_clients, r->id.clients, (unsigned long long)lo,
			(unsigned long long)results_passes_median(r), (unsigned long long)hi,
			r->id.strict ? "" : "; --strict makes this a failure");
	}

	if (r->id.passes_per_client > 0 && !r->id.signal) {
		uint64_t short_of = 0;

		for (int i = 0; i < r->id.clients; i++)
			if (r->passes[i] < (uint64_t)r->id.passes_per_client)
				short_of++;
		if (short_of)
			fprintf(err, "%s: the time limit (-t %d) ended the run before %llu of %d clients "
				"made their %d pass%s\n", r->id.progname, r->id.timelimit_sec,
				(unsigned long long)short_of, r->id.clients, r->id.passes_per_client,
				r->id.passes_per_client == 1 ? "" : "es");
	}
	for (int i = 0; i < r->nfailures; i++)
		fprintf(err, "%s: client %d failed: %s\n", r->id.progname, r->failures[i].client,
			r->failures[i].reason);
	if (mismatches) {
		fprintf(err, "%s: %llu status mismatch%s in the measured window:", r->id.progname,
			(unsigned long long)mismatches, mismatches == 1 ? "" : "es");
		for (unsigned k = 0; k < r->nops; k++)
			if (r->op[k].total.mismatches)
				fprintf(err, " %s %llu", results_op_label(r, k),
					(unsigned long long)r->op[k].total.mismatches);
		fprintf(err, "\n");
		/* upstream's smb.load: /foo and /test.txt are every client's */
		if (r->id.clients > 1 && r->id.shared_paths)
			fprintf(err, "%s: the %d clients share the loadfile's paths without a client in "
				"them (%s): where they collide, a loadfile written for one client "
				"mismatches\n", r->id.progname, r->id.clients, r->id.shared_paths);
	} else if (r->mismatches_all) {
		fprintf(err, "%s: %llu status mismatch%s outside the measured window\n", r->id.progname,
			(unsigned long long)r->mismatches_all, r->mismatches_all == 1 ? "" : "es");
	}
}

void report_final(FILE *out, FILE *err, const struct results *r, unsigned flags)
{
	bool machine = flags & REPORT_MACHINE_READABLE;
	double window = results_window_sec(r), tput = results_throughput(r);
	uint64_t ops = r->all.count, maxlat = r->all.max_ns;
	uint64_t mismatches = r->all.mismatches ? r->all.mismatches : r->mismatches_all;
	uint64_t pmin = UINT64_MAX, pmax = 0, ptotal = 0;

	for (int i = 0; i < r->id.clients; i++) {
		pmin = MIN(pmin, r->passes[i]);
		pmax = MAX(pmax, r->passes[i]);
		ptotal += r->passes[i];
	}
	/* Failed clients and mismatches first, as dbench 4.0 prints its
	 * errors before the table: a harness that merges stderr into stdout
	 * must not find them among the op rows. */
	fflush(out);
	problems(err, r);
	fflush(err);
	if (!machine) {
		/* Before the op table: harnesses take every line from the
		 * table's header to the final lines for an op row (mmtests:
		 * grep -A 99 Operation, dropping only the lines with -----,
		 * "Operation" or "Throughput" and empty ones). */
		fprintf(out, "\n");
		latency_paced_line(out, r);
		client_resources_lines(out, r);
		fprintf(out, "Netbench scaled: NB=%g MB/sec  %g MBit/sec\n\n", tput * r->id.nbscale,
			tput * r->id.nbscale * 8);
	}
	op_table(out, r, &r->op[0].total, sizeof(*r->op), machine);
	if ((flags & REPORT_PER_CLIENT) && r->per_client && !machine)
		per_client(out, r);
	if ((flags & REPORT_LATENCY) && !machine)
		latency_report(out, r);
	if (machine) {
		fprintf(out, ";%g;%d;%d;%.03f;\n", tput, r->id.clients, r->id.processes,
			(double)maxlat / 1e6);
	} else {
		fprintf(out, "Operations %llu in %.3f sec (%.1f ops/sec), %llu mismatches, passes per client %llu..%llu (%llu in all)\n",
			(unsigned long long)ops, window, window > 0 ? (double)ops / window : 0,
			(unsigned long long)mismatches, (unsigned long long)(pmin == UINT64_MAX ? 0 : pmin),
			(unsigned long long)pmax, (unsigned long long)ptotal);
		fprintf(out, "Throughput %g MB/sec  %d clients  %d procs  max_latency=%.03f ms\n", tput,
			r->id.clients, r->id.processes, (double)maxlat / 1e6);
	}
	fflush(out);
}
