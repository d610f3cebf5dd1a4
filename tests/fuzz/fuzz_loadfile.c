/*
 * fuzz_loadfile.c - libFuzzer target for the loadfile compiler on text
 * (program_compile_max): any bytes are either a program or FILE:LINE
 * messages, never a crash, a hang or a sanitizer report.
 *
 * Invariants checked beyond that: every error line is short (quoted input
 * is cut, issue 17 item 6); a compiled program's jumps, paths, handles and
 * expressions stay inside its arrays; its roots respect MAX_ROOTS; its
 * memory stays within the bound it was compiled with.
 *
 * Build and run: tests/fuzz/run.sh loadfile.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


#define MAX_TEXT (1u << 20)	/* the bound the target compiles with */
#define MAX_ERROR_LINE 800	/* "FILE:LINE: " + a 512-byte message */

static void check_errors(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n > MAX_ERROR_LINE) {
			fprintf(stderr, "an error line of %zu bytes: %.200s...\n", n, p);
			abort();
		}
		p = nl ? nl + 1 : end;
	}
}

static void check_program(const struct program *prog)
{
	if (prog->nops == 0 || prog->nclient_roots > MAX_ROOTS || prog->nshared_roots > MAX_ROOTS)
		abort();
	for (uint32_t i = 0; i < prog->nops; i++) {
		const struct op *op = &prog->ops[i];

		for (int k = 0; k < op->npaths; k++)
			if (op->path[k] != NO_PATH && op->path[k] >= prog->npaths)
				abort();
		if (op->handle != NO_HANDLE && op->handle >= prog->nhandles)
			abort();
		if (op->expr && op->expr - 1 + MAX_NUMS > prog->nexprs)
			abort();
		if (op->id == DIR_LOOP && (op->num[1] <= (int64_t)i || op->num[1] > (int64_t)prog->nops))
			abort();
		if (op->id == DIR_ENDLOOP && (op->num[1] < 0 || op->num[1] >= (int64_t)i))
			abort();
	}
	for (uint32_t i = 0; i < prog->npaths; i++)
		if ((size_t)prog->paths[i].off + prog->paths[i].len >= prog->poolsize)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *errtext = NULL;
	size_t errlen = 0;
	FILE *errors = open_memstream(&errtext, &errlen);
	struct program *prog;

	if (!errors)
		return 0;
	prog = program_compile_max("fuzz.txt", (const char *)data, size, MAX_TEXT, errors);
	fclose(errors);
	if (prog)
		check_program(prog);
	else if (errlen == 0)
		abort();	/* refused without a word */
	check_errors(errtext, errlen);
	program_free(prog);
	free(errtext);
	return 0;
}
