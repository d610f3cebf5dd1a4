/*
 * signals.c - the signal flags of a run; see signals.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "signals.h"

static volatile sig_atomic_t parent_signal;	/* the parent: SIGINT/SIGTERM seen */
static volatile int client_stop;		/* a client process: stop its clients */
static volatile sig_atomic_t cont_seen;		/* --mpi: SIGCONT seen */

static void on_parent_signal(int sig)
{
	parent_signal = sig;
}

static void on_client_signal(int sig)
{
	(void)sig;
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

static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void signals_parent_catch(void)
{
	set_handler(SIGINT, on_parent_signal, 0);
	set_handler(SIGTERM, on_parent_signal, 0);
	set_handler(SIGCHLD, on_sigchld, 0);
	signal(SIGPIPE, SIG_IGN);
}

int signals_parent_seen(void)
{
	return parent_signal;
}

void signals_client_catch(void)
{
	set_handler(SIGINT, on_client_signal, 0);
	set_handler(SIGTERM, on_client_signal, 0);
	set_handler(SIGCHLD, SIG_DFL, 0);
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
	set_handler(SIGINT, SIG_IGN, 0);
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
