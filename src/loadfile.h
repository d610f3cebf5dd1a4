/*
 * loadfile.h - read a loadfile (plain or gzip) once and compile it into a
 * program (op.h).  Every error is reported as FILE:LINE: message.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_LOADFILE_H
#define DBENCH_LOADFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "op.h"

struct backend;

/* The default bound on what a loadfile may take (--max-loadfile): its text
 * after decompression may be at most this many bytes, and its compiled
 * program at most twice this many bytes of memory. */
#define LOADFILE_MAX_DEFAULT (256ULL << 20)

/* Compile a loadfile.  On error, prints up to a few "FILE:LINE: message"
 * lines to `errors` and returns NULL.  Binary data is refused at the first
 * line that has it; a FIFO without a writer after 5 s is an error. */
struct program *program_load(const char *filename, FILE *errors);
/* The same with the bound max instead of LOADFILE_MAX_DEFAULT. */
struct program *program_load_max(const char *filename, uint64_t max, FILE *errors);

/* Compile loadfile text already in memory (name is used in messages). */
struct program *program_compile(const char *name, const char *text, size_t len, FILE *errors);
struct program *program_compile_max(const char *name, const char *text, size_t len, uint64_t max,
				    FILE *errors);

/* Check that the backend has a handler for every op the program uses;
 * prints FILE:LINE: message for the first use of each missing op. */
int program_check_backend(const struct program *prog, const struct backend *be, FILE *errors);

/* Refuse the ops that change a SCSI LUN (WRITE10, WRITE16, PROUT) unless
 * allowed (--allow-scsi-writes): prints FILE:LINE: message for the first
 * and returns -1. */
int program_check_scsi_writes(const struct program *prog, bool allowed, FILE *errors);

void program_free(struct program *prog);

/* Find the default loadfile: ./client.txt, then client.txt in data_dir()
 * (paths.h: the installed one, or the build tree's).  Returns NULL if
 * none exists. */
const char *loadfile_default(void);

#endif
