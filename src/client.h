/*
 * client.h - one client's interpreter (client.c).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_CLIENT_H
#define DBENCH_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

void client_init(struct client *c, int id, const struct options *opt, const struct program *prog,
		 const struct backend *be, const void *be_opt, struct shared *sh, uint64_t seed);
void client_start(struct client *c, uint64_t release_ns, uint64_t measure_start_ns);
/* Run the client's next op if due: 0 ran, 1 waits until c->due_ns, 2 finished. */
int client_advance(struct client *c, uint64_t *now, const volatile int *local_stop);
/* Expand a template (with PATH_CLIENT bytes) for this client into dst. */
size_t client_expand(struct client *c, const char *tpl, size_t len, char *dst);

#endif
