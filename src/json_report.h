/*
 * json_report.h - the --json result document (doc/dbench-result.schema.json
 * describes it; dbench(1) shows an example), and the redirection of the
 * human output to stderr when a machine output is to go to stdout.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_JSON_REPORT_H
#define DBENCH_JSON_REPORT_H

#include "backend.h"
#include "op.h"
#include "run.h"
#include "stats.h"

#define RESULT_SCHEMA_VERSION 1

/* With --json - or --csv-series -, keep the real stdout for that output
 * (options.stdout_fd) and send everything else printed to stdout to stderr
 * instead.  Call before anything is printed or any client is started. */
void machine_stdout_prepare(void);

/* Write the document to the --json file.  exit_status is the status the
 * run will exit with.  Returns 0, or -1 after a message if it could not be
 * written. */
int json_report(const struct program *prog, const struct backend *be, const struct shared *sh,
		const struct run_result *res, int exit_status);

#endif
