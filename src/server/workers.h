/*
 * workers.h - tbench_srv --workers N: N processes, each serving many
 * connections on an event loop (workers.c).  The parent accepts, and
 * hands each connection to the worker with the fewest; a worker feeds
 * what its connections send to the protocol (serve.h), keeps their
 * deadlines, and logs their ends.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_WORKERS_H
#define DBENCH_WORKERS_H

#define MAX_WORKERS 256		/* --workers */

struct server;

/* Before the server starts: the counts the parent and the workers share,
 * and a descriptor limit for every connection a worker may take; sets
 * srv->workers.  0, or -1 after a message. */
int workers_init(struct server *srv);

/* Fork the workers (each tracked as a child of srv): 0, or -1 after a
 * message. */
int workers_start(struct server *srv);

/* Connections open, all workers together (what --max-clients bounds). */
int workers_connections(const struct server *srv);

/* Give an accepted connection to the worker with the fewest; nopen: the
 * connections open before it.  The caller closes its fd after. */
void workers_hand_off(struct server *srv, int fd, const char *peer, int nopen);

/* The parent's side: its ends of the workers' sockets, the shared counts. */
void workers_free(struct server *srv);

#endif
