/*
 * engine.h - the event loop that runs many clients of an asynchronous
 * backend in one process (engine.c).  What a backend sees of it (struct
 * source, engine_watch, client_complete, ...) is in backend.h, under "the
 * asynchronous form"; this is the client process's side.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_ENGINE_H
#define DBENCH_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

/* An event loop for the n clients at cl (client_init()ed): sets each
 * one's c->engine, before their setup (which registers their sources).
 * NULL with errno if the epoll descriptor cannot be made. */
struct engine *engine_create(struct client *cl, int n);

/* Run the clients until every one has finished: each advances when it is
 * due and its op is not pending; the loop waits in epoll for the sources,
 * the next due client, or 50 ms (to see *stop).  Once the run is over (the
 * end of the window, a stop), a pending op is given up grace_ns later
 * (the parent kills the process only a margin later: run.c), with a line
 * naming it, as the parent's grace does. */
void engine_run(struct engine *e, const volatile int *stop, uint64_t grace_ns);

/* Make fn(c) for the clients from the from-th on, on the loop (the setup
 * of all but the first, the cleanup after the run, the teardown): a
 * backend with BACKEND_FIBERS runs it on the client's fiber, where its
 * blocking calls wait on the loop, so that up to a few dozen clients'
 * calls are in flight at once; another backend's fn runs to its end,
 * client after client.  fn
 * returns 0 or -1 and says how it went itself (c->failed, c->error).  A
 * call the backend's deadline ends fails as it would outside the loop; with
 * grace_ns, calls still in flight --grace after the end of the run (at
 * least a second from now) are given up, their clients failed with a line
 * naming the phase (name).  With stop_at_failure no call starts after one
 * failed.  The number of calls that failed. */
int engine_phase(struct engine *e, int from, int (*fn)(struct client *c), const char *name,
		 uint64_t grace_ns, bool stop_at_failure);

/* Close the epoll descriptor and free the loop (after the teardowns). */
void engine_destroy(struct engine *e);

#endif
