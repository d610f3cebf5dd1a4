/*
 * report.h - the final text report, rendered from a results value
 * (results.h): the lines on stderr about failed clients and mismatches
 * (first, as dbench 4.0 prints its errors before the table), client CPU
 * and Netbench scaled, the op table, the per-client tables, the --latency
 * tables, and the final lines (Operations, and dbench 4.0's "Throughput"
 * line last), or with --machine-readable the ':op:...:' lines and
 * ';throughput;clients;procs;maxlat;'.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_REPORT_H
#define DBENCH_REPORT_H

#include <stdio.h>

#include "results.h"

/* What to print. */
#define REPORT_MACHINE_READABLE	0x1	/* --machine-readable */
#define REPORT_PER_CLIENT	0x2	/* --per-client-results (if r has them) */
#define REPORT_LATENCY		0x4	/* --latency */

/* Print the final report: figures to out, failed clients and mismatches to
 * err.  Renders r only. */
void report_final(FILE *out, FILE *err, const struct results *r, unsigned flags);

#endif
