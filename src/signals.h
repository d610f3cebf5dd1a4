/*
 * signals.h - the signal flags of a run: what the parent and the client
 * processes saw.  A handler only sets a flag (nothing else runs in one);
 * the parent's side of a run (run.c), the client processes
 * (client_process.c) and --mpi's exchanges (mpi_run.c) read the flags
 * here.  With --mpi, a run can also be ended from outside (the job ends):
 * run.c says here what run is in progress and how to end it, and
 * mpi_run.c, which blocks the parent while it waits for the other ranks,
 * keeps the run alive or ends it through here, not through run.c.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SIGNALS_H
#define DBENCH_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

struct shared;

/* The stop signals: SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM,
 * SIGUSR1, SIGUSR2 (dbench(1) SIGNALS); SIGINT and SIGTERM always, the
 * others unless they were ignored when dbench started (nohup). */

/* ---- the parent ---- */

/* From the options on: a stop signal sets the parent's flag; before the
 * run a second one of the same kind ends dbench at once. */
void signals_catch_stop(void);

/* At the start of a run: a stop signal sets the parent's flag (a second
 * one too), SIGCHLD only cuts the parent's sleeps short. */
void signals_parent_catch(void);

/* The first stop signal the parent has seen, or 0. */
int signals_parent_seen(void);

/* ---- a client process ---- */

/* In a client process, first: a stop signal asks its clients to stop;
 * SIGPIPE is ignored (a socket says EPIPE); SIGCHLD is back to its
 * default. */
void signals_client_catch(void);

/* The first stop signal the client process got, or 0; when it came
 * (CLOCK_MONOTONIC ns) in *when_ns if not NULL. */
int signals_client_seen(uint64_t *when_ns);

/* The client process's stop flag, as client_advance() polls it: set by
 * SIGINT/SIGTERM or by signals_client_stop(). */
const volatile int *signals_client_stop_flag(void);

/* Ask this process's clients to stop (the parent is gone, or the run was
 * stopped before the release). */
void signals_client_stop(void);

/* In the process of the final cleanup: the stop signals are ignored (a
 * Ctrl-C or a hangup during the cleanup must not leave half a tree), but
 * SIGTERM, which ends it. */
void signals_cleanup_catch(void);

/* ---- --mpi: SIGCONT ---- */

/* Under mpirun a SIGCONT is how the job's end begins (mpirun sends it to
 * every rank when one ends abnormally): note it (the interrupted calls
 * are restarted). */
void signals_cont_catch(void);

/* Has a SIGCONT come since the last signals_cont_forget()? */
bool signals_cont_seen(void);
void signals_cont_forget(void);

/* ---- --mpi: the run in progress ---- */

/* run.c, as it forks the clients: the run's shared region, and end_now,
 * which stops the run's clients at once (each removes its own tree; one
 * that does not within --grace is killed) and removes what the run made,
 * as the end of a run would; end_now does nothing outside a run or once
 * its cleanup is done. */
void signals_run_begin(struct shared *sh, void (*end_now)(void));

/* mpi_run.c, while it waits for the other ranks: the parent is alive, so
 * that its clients, which stop when it is silent for --mpi-timeout, go on.
 * Nothing before the first run. */
void signals_run_alive(void);

/* mpi_run.c: the job is being ended (a rank fell silent for
 * --mpi-timeout): end the run in progress (end_now above), if any. */
void signals_run_end_now(void);

#endif
