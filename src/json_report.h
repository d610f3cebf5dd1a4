/*
 * json_report.h - a results value (results.h) as the --json document
 * (doc/dbench-result.schema.json) and back, and the file around it.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_JSON_REPORT_H
#define DBENCH_JSON_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "results.h"

/* The JSON document (doc/dbench-result.schema.json) of r; a new reference. */
json_t *results_to_json(const struct results *r);

/* Read a document written by results_to_json back into r.  Returns 0, or
 * -1 with a one-line reason in err (r is then empty). */
int results_from_json(struct results *r, const json_t *doc, char *err, size_t errlen);

/* One series row as a JSON object (the rows of the document, and the
 * lines of --csv-series FILE.jsonl). */
json_t *series_row_json(const struct series_row *row);

/* Write r's document to path ("-": the file descriptor stdout_fd).
 * Returns 0, or -1 after a message on stderr. */
int results_write_json(const struct results *r, const char *path, int stdout_fd);
/* The document of a run that ended without results (bad options or
 * loadfile, no client started, a fatal error): program, command line,
 * exit status and the error message; written the same way, silently.
 * 0 or -1. */
int results_write_error_json(const char *path, int stdout_fd, const char *progname, int argc,
			     const char **argv, int exit_status, const char *message);

/* Write any document to path ("-": the file descriptor stdout_fd, or
 * stdout): a file is written whole or not at all (a temporary file beside
 * it, renamed over it); a device or FIFO is written in place.  Takes doc.
 * Returns 0, or -1 (after a message unless quiet). */
int json_write_document(json_t *doc, const char *path, int stdout_fd, bool quiet);

/* Read a JSON document (jansson's flags) from path: a file, or a FIFO or
 * pipe, never blocking on one that nobody writes to (waits
 * FIFO_WRITER_WAIT_MS for a writer to open it, as long as it takes for one
 * that has).  NULL with a one-line reason in err (without the path): cannot
 * read it (why), is a directory, a FIFO nobody writes to, over
 * DOCUMENT_MAX_BYTES, not JSON (where). */
#define FIFO_WRITER_WAIT_MS 5000
#define DOCUMENT_MAX_BYTES (1ULL << 30)
json_t *json_read_document(const char *path, size_t flags, char *err, size_t errlen);

/* Read a document from a file into r; 0, or -1 with a reason in err. */
int results_read_json(struct results *r, const char *path, char *err, size_t errlen);

#endif
