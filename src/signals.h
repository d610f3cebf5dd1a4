/*
 * signals.h - the signal flags of a run: what the parent and the client
 * processes saw.  A handler only sets a flag (nothing else runs in one);
 * the parent's side of a run (run.c), the client processes
 * (client_process.c) and --mpi's exchanges (mpi_run.c) read the flags
 * here.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SIGNALS_H
#define DBENCH_SIGNALS_H

#include <stdbool.h>

/* ---- the parent ---- */

/* At the start of a run: SIGINT and SIGTERM set the parent's flag, SIGCHLD
 * only cuts the parent's sleeps short, SIGPIPE is ignored. */
void signals_parent_catch(void);

/* The SIGINT or SIGTERM the parent has seen during a run, or 0. */
int signals_parent_seen(void);

/* ---- a client process ---- */

/* In a client process, first: SIGINT and SIGTERM ask its clients to stop;
 * SIGCHLD is back to its default. */
void signals_client_catch(void);

/* The client process's stop flag, as client_advance() polls it: set by
 * SIGINT/SIGTERM or by signals_client_stop(). */
const volatile int *signals_client_stop_flag(void);

/* Ask this process's clients to stop (the parent is gone, or the run was
 * stopped before the release). */
void signals_client_stop(void);

/* In the process of the final cleanup: SIGINT is ignored (a Ctrl-C during
 * the cleanup must not leave half a tree), SIGTERM ends it. */
void signals_cleanup_catch(void);

/* ---- --mpi: SIGCONT ---- */

/* Under mpirun a SIGCONT is how the job's end begins (mpirun sends it to
 * every rank when one ends abnormally): note it (the interrupted calls
 * are restarted). */
void signals_cont_catch(void);

/* Has a SIGCONT come since the last signals_cont_forget()? */
bool signals_cont_seen(void);
void signals_cont_forget(void);

#endif
