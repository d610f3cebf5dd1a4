/*
 * nfs_async.c - the NFS backend's asynchronous form (backend.h, "the
 * asynchronous form"), for NFSv3 and NFSv4 alike: with
 * --clients-per-process N > 1 every client's connection (and its NLM
 * connection) is a source on the process's event loop, and each op runs
 * on the client's fiber (fiber.h): where the synchronous path polls the
 * connection for its reply (wait_reply, c4_wait_all), the op yields; the
 * source's ready() runs libnfs's rpc_service(), whose callbacks mark the
 * replies in, and resumes the op, which goes on (or yields again) until it
 * finishes and the client completes.
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

static void conn_ready(struct source *src, uint32_t revents)
{
	struct nfs_conn *conn = src->arg;
	struct nfs_async *as = conn->as;
	struct client *c = as->fiber.c;

	if (rpc_service(conn->rpc, (int)revents) < 0 || rpc_get_fd(conn->rpc) != conn->src.fd) {
		/* the connection is lost: the op (if one waits) finds out */
		conn->broken = true;
		source_unwatch(src);
	} else {
		source_want(src, (uint32_t)rpc_which_events(conn->rpc));
	}
	if (fiber_resume(&as->fiber))
		client_complete(c, as->fiber.status);
}

int nfs_async_watch(struct client *c, struct nfs_async *as, int i, struct rpc_context *rpc)
{
	struct nfs_conn *conn = &as->conn[i];

	conn->as = as;
	conn->rpc = rpc;
	conn->src = (struct source){ .fd = rpc_get_fd(rpc), .events = (uint32_t)rpc_which_events(rpc),
				     .ready = conn_ready, .arg = conn };
	return engine_watch(c, &conn->src);
}

int nfs_async_setup(struct client *c, struct nfs_async **asp, struct rpc_context *rpc)
{
	struct nfs_async *as;

	if (!c->engine)
		return 0;
	as = xcalloc(1, sizeof(*as));
	*asp = as;
	if (fiber_init(&as->fiber, c) < 0)
		return -1;
	return nfs_async_watch(c, as, 0, rpc);
}

void nfs_async_free(struct nfs_async **asp)
{
	struct nfs_async *as = *asp;

	if (!as)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(as->conn); i++)
		source_unwatch(&as->conn[i].src);
	fiber_free(&as->fiber);
	free(as);
	*asp = NULL;
}

int nfs_async_wait(struct client *c, struct nfs_async *as, struct rpc_context *rpc,
		   uint64_t deadline)
{
	struct nfs_conn *conn = as->conn[1].rpc == rpc ? &as->conn[1] : &as->conn[0];

	if (conn->broken)
		return -2;
	source_want(&conn->src, (uint32_t)rpc_which_events(rpc));
	c->deadline_ns = deadline;
	return fiber_wait(&as->fiber);
}

bool nfs_async_on(struct nfs_async *as)
{
	return as && fiber_on(&as->fiber);
}

uint32_t nfs_submit(struct client *c, const struct op *op)
{
	return fiber_submit(&async_of(c)->fiber, c, op, c->be->op[op->id]);
}

/* The op's deadline passed, or the run gives up on it: its wait fails and
 * it unwinds (c->error says why); its connections are not watched any
 * more, and the client's calls are all fatal from now on. */
void nfs_expire(struct client *c)
{
	struct nfs_async *as = async_of(c);

	fiber_expire(&as->fiber);
	for (size_t i = 0; i < ARRAY_SIZE(as->conn); i++) {
		source_unwatch(&as->conn[i].src);
		as->conn[i].broken = true;
	}
}
