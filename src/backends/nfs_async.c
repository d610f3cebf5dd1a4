/*
 * nfs_async.c - the NFS backend's asynchronous form (backend.h, "the
 * asynchronous form"), for NFSv3 and NFSv4 alike: with
 * --clients-per-process N > 1 every client's op runs on its fiber
 * (fiber.h), and the connections are sources on the process's event loop:
 * each client's own (--nfs-connection client, the default), or one the
 * process's clients share (--nfs-connection shared), as a client machine
 * multiplexes its users' calls on one connection.  Where the synchronous
 * path polls the connection for its reply (wait_reply, c4_wait_all), the
 * op yields; the source's ready() runs libnfs's rpc_service(), whose
 * callbacks mark the replies in and wake their clients (nfs_async_wake),
 * and resumes the woken ops, which go on (or yield again) until they
 * finish and their clients complete.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

/* The first fields of both per-client states (struct nfsb, struct
 * nfs4b): what this file reads of either. */
struct nfs_common {
	struct nb_client nbc;
	struct nfs_async *as;
};

static struct nfs_async *async_of(struct client *c)
{
	return ((struct nfs_common *)c->priv)->as;
}

/* Go on with as's op; complete its client if it finished. */
static void resume(struct nfs_async *as)
{
	if (fiber_resume(as->fiber))
		client_complete(as->fiber->c, as->fiber->status);
}

static void conn_ready(struct source *src, uint32_t revents)
{
	struct nfs_conn *conn = src->arg;

	if (rpc_service(conn->rpc, (int)revents) < 0 || rpc_get_fd(conn->rpc) != conn->src.fd) {
		/* the connection is lost: the ops waiting on it find out */
		conn->broken = true;
		source_unwatch(src);
	} else {
		source_want(src, (uint32_t)rpc_which_events(conn->rpc));
	}
	if (conn->owner) {
		resume(conn->owner);
		return;
	}
	while (conn->woken) {
		struct nfs_async *as = conn->woken;

		conn->woken = as->next_woken;
		as->woken = false;
		resume(as);
	}
	if (conn->broken)
		for (size_t i = 0; i < conn->proc->nall; i++)
			resume(conn->proc->all[i]);
}

/* Send what the clients sharing the connection queued since the loop last
 * waited: one rpc_service() for them all. */
static void conn_commit(struct source *src)
{
	struct nfs_conn *conn = src->arg;

	if (!conn->broken && (rpc_which_events(conn->rpc) & POLLOUT))
		conn_ready(src, POLLOUT);
}

void nfs_async_wake(struct nfs_async *as)
{
	struct nfs_conn *conn = as->conn[0];

	if (!conn || conn->owner || as->woken)
		return;		/* its own connection resumes it anyway */
	as->woken = true;
	as->next_woken = conn->woken;
	conn->woken = as;
}

static int watch(struct client *c, struct nfs_conn *conn, struct rpc_context *rpc)
{
	conn->rpc = rpc;
	conn->src = (struct source){ .fd = rpc_get_fd(rpc), .events = (uint32_t)rpc_which_events(rpc),
				     .ready = conn_ready, .commit = conn_commit, .arg = conn };
	return engine_watch(c, &conn->src);
}

struct nfs_proc *nfs_proc_get(struct client *c)
{
	void **shared = engine_shared(c);
	struct nfs_proc *proc = *shared;

	if (!proc) {
		proc = xcalloc(1, sizeof(*proc));
		proc->conn.proc = proc;
		*shared = proc;
	}
	proc->users++;
	return proc;
}

void nfs_proc_leave(struct client *c, void *state, void (*free_state)(void *))
{
	void **shared = engine_shared(c);
	struct nfs_proc *proc = *shared;

	proc->states = xrealloc(proc->states, (proc->nstates + 1) * sizeof(*proc->states));
	proc->free_state = xrealloc(proc->free_state, (proc->nstates + 1) * sizeof(*proc->free_state));
	proc->states[proc->nstates] = state;
	proc->free_state[proc->nstates++] = free_state;
	if (--proc->users > 0)
		return;
	source_unwatch(&proc->conn.src);
	if (proc->nfs) {
		nfs_count_wire_bytes(c, proc->rpc);
		nfs_unmount(c, proc->nfs, !proc->conn.broken && !proc->given_up);
	} else if (proc->rpc) {
		nfs_count_wire_bytes(c, proc->rpc);
		rpc_destroy_context(proc->rpc);
	}
	for (size_t i = 0; i < proc->nstates; i++)
		proc->free_state[i](proc->states[i]);
	free(proc->states);
	free(proc->free_state);
	free(proc->all);
	free(proc);
	*shared = NULL;
}

int nfs_async_setup(struct client *c, struct nfs_async **asp, struct rpc_context *rpc, bool shared)
{
	struct nfs_async *as;

	if (!c->engine)
		return 0;
	as = xcalloc(1, sizeof(*as));
	*asp = as;
	as->fiber = engine_fiber(c);	/* the loop's: it runs the cleanup on it too */
	if (!as->fiber)
		return -1;
	if (shared) {
		struct nfs_proc *proc = *engine_shared(c);

		as->conn[0] = &proc->conn;
		proc->all = xrealloc(proc->all, (proc->nall + 1) * sizeof(*proc->all));
		proc->all[proc->nall++] = as;
		if (proc->conn.src.engine || proc->conn.rpc)
			return 0;	/* watched already */
		return watch(c, &proc->conn, rpc);
	}
	as->conn[0] = &as->own[0];
	as->own[0].owner = as;
	return watch(c, &as->own[0], rpc);
}

int nfs_async_watch_nlm(struct client *c, struct nfs_async *as, struct rpc_context *rpc)
{
	as->conn[1] = &as->own[1];
	as->own[1].owner = as;
	return watch(c, &as->own[1], rpc);
}

void nfs_async_stop(struct nfs_async *as)
{
	if (!as)
		return;
	as->stopped = true;
	for (size_t i = 0; i < ARRAY_SIZE(as->own); i++)
		source_unwatch(&as->own[i].src);
}

void nfs_async_free(struct nfs_async **asp)
{
	struct nfs_async *as = *asp;

	if (!as)
		return;
	nfs_async_stop(as);
	free(as);
	*asp = NULL;
}

static struct nfs_conn *conn_of(const struct nfs_async *as, const struct rpc_context *rpc)
{
	return as->conn[1] && as->conn[1]->rpc == rpc ? as->conn[1] : as->conn[0];
}

bool nfs_async_lost(const struct nfs_async *as, const struct rpc_context *rpc)
{
	return as && (as->expired || (as->conn[0] && conn_of(as, rpc)->broken));
}

bool nfs_async_batched(struct nfs_async *as, struct rpc_context *rpc)
{
	return nfs_async_on(as) && !conn_of(as, rpc)->owner;
}

int nfs_async_wait(struct nfs_async *as, struct rpc_context *rpc, uint64_t deadline)
{
	struct nfs_conn *conn = conn_of(as, rpc);

	if (conn->broken)
		return -2;
	if (!conn->owner && (rpc_which_events(rpc) & POLLOUT))
		source_commit(&conn->src);	/* sent with the others' calls */
	else
		source_want(&conn->src, (uint32_t)rpc_which_events(rpc));
	as->fiber->c->deadline_ns = deadline;
	return fiber_wait(as->fiber);
}

bool nfs_async_on(struct nfs_async *as)
{
	return as && !as->stopped && fiber_on(as->fiber);
}

uint32_t nfs_submit(struct client *c, const struct op *op)
{
	return fiber_submit(async_of(c)->fiber, c, op, c->be->op[op->id]);
}

/* The op's deadline passed, or the run gives up on it: its wait fails and
 * it unwinds (c->error says why); the client's own connections are not
 * watched any more, and its calls are all fatal from now on.  A shared
 * connection stays: the other clients go on on it (the last one does not
 * unmount: the server may be gone). */
void nfs_expire(struct client *c)
{
	struct nfs_async *as = async_of(c);

	if (!as)
		return;	/* in its setup: the loop unwinds the fiber */
	as->expired = true;
	if (as->conn[0] && !as->conn[0]->owner)
		as->conn[0]->proc->given_up = true;	/* the server may be gone */
	for (size_t i = 0; i < ARRAY_SIZE(as->own); i++) {
		source_unwatch(&as->own[i].src);
		as->own[i].broken = true;
	}
	/* last: the call may unwind to the end of a teardown, which frees as */
	fiber_expire(as->fiber);
}
