/*
 * fuzz_trace_json.c - libFuzzer target for dbench-trace2load's JSON reader
 * (tools/trace2load/json.c): the input is what tshark -T json would print.
 * Every packet read is walked (keys, values, children); the reader ends
 * with the end of the array or an error message, never a crash.
 *
 * Build and run: tests/fuzz/run.sh trace_json.
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

#include "t2l.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Visit every node; returns the count (a use of every field). */
static size_t walk(const struct jnode *n, int depth)
{
	size_t count = 0;

	if (depth > JSON_MAX_DEPTH + 1)
		abort();
	for (; n; n = n->next) {
		if (!n->key)
			abort();
		if (n->value && strlen(n->value) > n->value_len)
			abort();
		if (n->value && n->first)
			abort();	/* a scalar has no children */
		count += 1 + walk(n->first, depth + 1);
	}
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-json", 0);
	const struct jnode *packet;
	struct json_reader *r;
	int rc;

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	r = json_open(fd);
	while ((rc = json_next(r, &packet)) == 1) {
		(void)jfind(packet, "frame.number");
		(void)jstr(packet, "ip.src");
		walk(packet, 0);
	}
	if (rc < 0 && !json_error(r))
		abort();
	json_close(r);
	close(fd);
	return 0;
}
