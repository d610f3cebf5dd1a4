/*
 * client_process.h - what a client process runs: the client side of a run
 * (run.c is the parent's).  A process forked by the parent runs
 * client_process_main(): it sets up its clients, waits for the release,
 * drives them until they finish, cleans up and exits; the final cleanup
 * runs client_process_cleanup() in a process of its own.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_CLIENT_PROCESS_H
#define DBENCH_CLIENT_PROCESS_H

#include <sys/types.h>

#include "backend.h"
#include "region.h"

/* Run clients first .. first + count - 1 on backend be (its option block
 * be_opt): set each up and mark its slot READY, wait until release_fd (the
 * release pipe) is closed, run them, remove their trees, tear them down.
 * The last process out removes the shared directories if the parent (pid
 * parent) died.  Exits: 0, EXIT_USAGE if a client could not set up,
 * EXIT_RUN_FAILED if one failed. */
void client_process_main(int first, int count, const struct program *prog, const struct backend *be,
			 const void *be_opt, struct shared *sh, int release_fd, pid_t parent)
	__attribute__((noreturn));

/* After the run, in a process of its own: remove the shared directories
 * the run made (those not there before it).  Exits 0, or 1 if one could
 * not be removed (said on stderr). */
void client_process_cleanup(const struct program *prog, const struct backend *be, const void *be_opt,
			    struct shared *sh) __attribute__((noreturn));

#endif
