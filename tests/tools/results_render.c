/*
 * results_render.c - a test tool: read a dbench --json document back
 * (results_read_json), print the text report rendered from the value read
 * (report_final), and write the value again as a document, so that a test
 * can check that a result read back is the run's result: the same text as
 * the run printed and the same document.
 *
 *   results_render [--latency] [--per-client] [--machine-readable] IN.json OUT.json
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "json_report.h"
#include "report.h"
#include "results.h"
#include "util.h"

int main(int argc, char **argv)
{
	unsigned flags = 0;
	struct results r;
	char err[512];
	int i;

	util_set_progname("results_render");
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--latency"))
			flags |= REPORT_LATENCY;
		else if (!strcmp(argv[i], "--per-client"))
			flags |= REPORT_PER_CLIENT;
		else if (!strcmp(argv[i], "--machine-readable"))
			flags |= REPORT_MACHINE_READABLE;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: results_render [--latency] [--per-client] [--machine-readable] IN.json OUT.json\n");
		return 2;
	}
	if (results_read_json(&r, argv[i], err, sizeof(err)) < 0) {
		fprintf(stderr, "results_render: %s\n", err);
		return 1;
	}
	report_final(stdout, stderr, &r, flags);
	if (results_write_json(&r, argv[i + 1], -1) < 0) {
		results_free(&r);
		return 1;
	}
	results_free(&r);
	return 0;
}
