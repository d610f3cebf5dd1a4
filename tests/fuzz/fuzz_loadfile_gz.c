/*
 * fuzz_loadfile_gz.c - libFuzzer target for reading a loadfile from a file
 * (program_load_max): the input is the file's bytes, usually a gzip stream
 * (the corpus holds small ones: loadfiles, a run of zeros, a bomb of valid
 * lines, truncated and corrupt streams).  Whatever the bytes, the reader
 * ends with a program or one message, within the --max-loadfile bound.
 *
 * Build and run: tests/fuzz/run.sh loadfile_gz.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loadfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


#define MAX_TEXT (256u << 10)	/* small: a bomb is refused quickly */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	char *errtext = NULL;
	size_t errlen = 0;
	FILE *errors;
	struct program *prog;

	if (fd < 0) {
		fd = memfd_create("fuzz-loadfile", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	errors = open_memstream(&errtext, &errlen);
	if (!errors)
		return 0;
	prog = program_load_max(path, MAX_TEXT, errors);
	fclose(errors);
	if (!prog && errlen == 0)
		abort();	/* refused without a word */
	program_free(prog);
	free(errtext);
	return 0;
}
