/*
 * tbench_srv.h - what the parts of tbench_srv share: its options, the
 * server (listeners, signals, children), the log, and the clock.
 *
 * tbench_srv.c parses the options, listens, accepts and serves in one of
 * two modes: a process per connection (there), or --workers N event
 * loops (workers.c).  Either mode drives the protocol of serve.c.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_TBENCH_SRV_H
#define DBENCH_TBENCH_SRV_H

#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "tbench_wire.h"
#include "serve.h"

#define PROGNAME "tbench_srv"
#define MAX_LISTENERS 16

struct srv_options {
	int port;		/* -p: TCP port, 0: any free one */
	const char **bind;	/* -b: addresses (NULL-terminated), NULL: all */
	int max_clients;	/* --max-clients */
	int timeout;		/* --timeout: seconds a frame may stall, 0: none */
	int request_timeout;	/* --request-timeout: seconds a request may take
				   from its first byte to its last, 0: none */
	int idle_timeout;	/* --idle-timeout: seconds a connection may wait
				   between requests, 0: none */
	int daemon;		/* -D: detach */
	int foreground;		/* --foreground: stay attached (the default) */
	const char *pid_file;	/* --pid-file */
	int workers;		/* --workers: 0, a process per connection */
	int verbose;		/* -v */
	int version;		/* --version */
	struct sockopts so;	/* parsed sockopts */
};

struct listener {
	int fd;			/* listening socket */
	char name[INET6_ADDRSTRLEN + 16]; /* "[::]:7003", for messages */
};

struct server {
	const struct srv_options *opt;
	struct listener lst[MAX_LISTENERS];
	int nlst;		/* listeners in use */
	int sigfd;		/* signalfd for SIGCHLD, SIGTERM, SIGINT, SIGHUP */
	sigset_t sigs;		/* those signals (blocked in the parent) */
	pid_t *children;	/* nslots slots, 0 = free */
	int nslots;		/* max_clients, or --workers */
	int stopping;		/* stop_children() under way */
	struct workers *workers; /* --workers (workers.c), NULL: a process
				   per connection */
	int nchildren;		/* slots in use */
	pid_t pid;		/* the serving parent */
	int piddir;		/* directory of the pid file, or -1 */
	const char *pidbase;	/* pid file name within piddir */
};

/* One line to stderr, "tbench_srv[pid]: ...", written at once so that
 * children don't interleave. */
void __attribute__((format(printf, 1, 2))) logline(const char *fmt, ...);

/* A connection's end, logged with -v, and always when it was trouble. */
void log_end(const struct srv_options *opt, const char *peer, enum serve_end end,
	     const char *why, const struct serve_counts *n);

/* The parent counts a child it forked (a connection's process, a worker). */
void track_child(struct server *srv, pid_t pid);

/* In a child just forked: die with the parent (exit at once if it is
 * gone already) and close the parent's descriptors. */
void child_setup(const struct server *srv);

/* The deadline a connection gets entering phase (enum serve_phase): its
 * seconds from the options, 0: none. */
static inline int phase_timeout(const struct srv_options *opt, int phase)
{
	return phase == SERVE_PHASE_IDLE ? opt->idle_timeout :
	       phase == SERVE_PHASE_REQUEST ? opt->request_timeout : 0;
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Milliseconds from now to t, rounded up (a wait ends at t, not before). */
static inline int ms_until(uint64_t t, uint64_t now)
{
	uint64_t ms = (t - now + 999999) / 1000000;

	return ms > INT_MAX ? INT_MAX : (int)ms;
}

#endif
