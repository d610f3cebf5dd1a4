/*
 * loadfile_read.h - private interface between the loadfile compiler
 * (loadfile.c) and the reading of a loadfile from disk (loadfile_read.c).
 * Not for other modules: they use loadfile.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_LOADFILE_READ_H
#define DBENCH_LOADFILE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "256 MiB": the byte count n for messages, written into buf. */
const char *loadfile_size_text(uint64_t n, char *buf, size_t len);

/* Check text for binary data (control characters other than tab, CR, LF,
 * VT, FF), counting lines from *lineno (the line the text starts in), which
 * is advanced past the text.  0, or -1 after "NAME:LINE: binary data". */
int loadfile_check_text(const char *name, const char *text, size_t len, uint64_t *lineno,
			FILE *errors);

/* Read the whole file filename, gunzipped if it is gzip (by its magic
 * bytes): at most max bytes of text, checked with loadfile_check_text as it
 * comes.  A FIFO waits a bounded time for its writer.  Returns the text
 * (malloc'd, *lenp bytes, not NUL-terminated), or NULL after one message
 * on errors. */
char *loadfile_read(const char *filename, uint64_t max, size_t *lenp, FILE *errors);

#endif
