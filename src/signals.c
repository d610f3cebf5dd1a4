/*
 * signals.c - the signal flags of a run; see signals.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "region_atomic.h"
#include "signals.h"
#include "util.h"

/*
 * The signals that stop a run, in the parent and in each client process
 * (dbench(1) SIGNALS): SIGINT and SIGTERM always; the others unless they
 * were ignored when dbench started (nohup, a shell's background job).  The
 * parent stops the run as for SIGTERM: partial report, error document,
 * cleanup, exit status 128 + the signal.  A client process stops its
 * clients and cleans up; cut short before the end of the run, they are
 * failed clients unless the parent was stopped too (a Ctrl-C reaches the
 * whole process group).  SIGPIPE in a client is ignored: a backend's
 * socket reports EPIPE as an error.
 */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
};

static volatile sig_atomic_t parent_signal;	/* the parent: the first stop signal */
static volatile sig_atomic_t client_signal;	/* a client process: the same */
static volatile uint64_t client_signal_ns;	/* when client_signal came */
static volatile int client_stop;		/* a client process: stop its clients */
static volatile sig_atomic_t cont_seen;		/* --mpi: SIGCONT seen */

/* --mpi: the run in progress (signals_run_begin) */
static struct {
	struct shared *sh;
	void (*end_now)(void);
} run;

static void on_parent_signal(int sig)
{
	if (!parent_signal)
		parent_signal = sig;
}

static void on_client_signal(int sig)
{
	struct timespec ts;

	if (!client_signal) {
		clock_gettime(CLOCK_MONOTONIC, &ts);	/* async-signal-safe */
		client_signal_ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
		client_signal = sig;
	}
	client_stop = 1;
}

static void on_sigchld(int sig)
{
	(void)sig;	/* only interrupts the parent's sleep */
}

static void on_sigcont(int sig)
{
	(void)sig;
	cont_seen = 1;
}

/* no SA_RESTART unless asked: a blocked call returns EINTR */
static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Was sig ignored when this process got it (SIG_IGN inherited)? */
static bool signal_ignored(int sig)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

/* Catch the stop signals with fn (flags as sigaction's). */
static void catch_stop_signals(void (*fn)(int), int flags)
{
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		int sig = stop_signals[i];

		if (sig != SIGINT && sig != SIGTERM && signal_ignored(sig))
			continue;	/* nohup dbench ...: SIGHUP stays ignored */
		set_handler(sig, fn, flags);
	}
}

void signals_catch_stop(void)
{
	/* before the run: a second signal of the kind ends dbench at once,
	 * should a backend's library retry a call the first one cut short */
	catch_stop_signals(on_parent_signal, SA_RESETHAND);
}

void signals_parent_catch(void)
{
	catch_stop_signals(on_parent_signal, 0);
	set_handler(SIGCHLD, on_sigchld, 0);
}

int signals_parent_seen(void)
{
	return parent_signal;
}

void signals_client_catch(void)
{
	catch_stop_signals(on_client_signal, 0);
	set_handler(SIGPIPE, SIG_IGN, 0);
	set_handler(SIGCHLD, SIG_DFL, 0);
}

int signals_client_seen(uint64_t *when_ns)
{
	if (when_ns)
		*when_ns = client_signal_ns;
	return client_signal;
}

const volatile int *signals_client_stop_flag(void)
{
	return &client_stop;
}

void signals_client_stop(void)
{
	client_stop = 1;
}

void signals_cleanup_catch(void)
{
	/* the cleanup goes on through a Ctrl-C or a hangup of the group;
	 * SIGTERM (its parent died) ends it */
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		set_handler(stop_signals[i], SIG_IGN, 0);
	set_handler(SIGTERM, SIG_DFL, 0);
}

void signals_cont_catch(void)
{
	set_handler(SIGCONT, on_sigcont, SA_RESTART);
}

bool signals_cont_seen(void)
{
	return cont_seen;
}

void signals_cont_forget(void)
{
	cont_seen = 0;
}

void signals_run_begin(struct shared *sh, void (*end_now)(void))
{
	run.sh = sh;
	run.end_now = end_now;
}

void signals_run_alive(void)
{
	if (run.sh)
		region_parent_alive(run.sh, now_ns());
}

void signals_run_end_now(void)
{
	if (run.end_now)
		run.end_now();
}
