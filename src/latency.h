/*
 * latency.h - the --latency tables, rendered from a results value
 * (results.h): per op and per op group (ops.def) count, share, min,
 * percentiles, mean, max, stddev, mismatches and errors; the distributions
 * by decade; and for paced runs the schedule lag and the response time
 * from the schedule.  The JSON document renders the same figures
 * (latency_figures), so both outputs agree.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_LATENCY_H
#define DBENCH_LATENCY_H

#include <stdio.h>

#include "results.h"

/* The --latency tables, printed after the op table. */
void latency_report(FILE *out, const struct results *r);

/* One line for paced runs, printed by default before the final lines:
 * says that max_latency is service time and shows the schedule lag. */
void latency_paced_line(FILE *out, const struct results *r);

#endif
