/*
 * nfs.h - what the parts of the NFS backend share.  The backend is
 *   nfs.c        the netbench adapter (netbench.h) and the backend's table
 *   nfs_ops.c    the NFSv3 loadfile ops, each the one procedure it names
 *   nfs_cache.c  paths: the handle cache, LOOKUP3 resolution, tree removal
 *   nfs_rpc.c    one call: queue, wait with a deadline, copy the reply
 *   nfs_mount.c  options, mounting, NLM, a client's setup and teardown
 *
 * libnfs 4.x/5.x and >= 6 (LIBNFS_API_V2) differ in the names and return
 * types of the raw calls and in how READ3 returns data; configure tells
 * which one we have.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_NFS_H
#define DBENCH_BACKENDS_NFS_H

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* libnfs first: its enums (nfsstat3, nlmstat4) use the names that
 * status.h defines as macros for the same values. */
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>
#ifdef HAVE_NFSC_LIBNFS_RAW_NLM_H
#include <nfsc/libnfs-raw-nlm.h>
#define NLM_BUILT 1
#else
#define NLM_BUILT 0
#endif

#include "backend.h"
#include "client.h"
#include "fiber.h"
#include "hmap.h"
#include "netbench.h"
#include "status.h"
#include "util.h"

/* ---- libnfs versions ---- */

/* libnfs >= 6 names the raw calls rpc_<proto>_<proc>_task and returns the
 * queued PDU (NULL on failure); older ones rpc_<proto>_<proc>_async,
 * returning 0 when queued. */
#ifdef HAVE_RPC_NFS3_GETATTR_TASK
#define RAW(proc) rpc_##proc##_task
#else
#define RAW(proc) rpc_##proc##_async
#endif

static inline bool queued_int(int rc)
{
	return rc == 0;
}

static inline bool queued_pdu(const void *pdu)
{
	return pdu != NULL;
}

#define QUEUED(call) _Generic((call), int: queued_int, default: queued_pdu)(call)

/* Exported by every libnfs, declared by none we build against: the root
 * handle of the mounted export ({ length, bytes }, as struct nfs_fh3). */
#if !HAVE_DECL_NFS_GET_ROOTFH
const struct nfs_fh3 *nfs_get_rootfh(struct nfs_context *nfs);
#endif
/* exported by every libnfs (4.0 to 7.0), declared only in its private
 * header: the NFSv4 context needs it (nfs4_session_start) */
void rpc_set_timeout(struct rpc_context *rpc, int timeout);


/* ---- limits and constants ---- */

#define FH_MAX 64			/* NFS3_FHSIZE */
#define NB_IO_MAX (1u << 20)		/* netbench ops: bytes per READ3/WRITE3 at most */
#define CACHE_MAX_ENTRIES 65536		/* then the handle cache starts afresh */
#define READDIR_DIRCOUNT 8192		/* READDIRPLUS3 dircount and maxcount */
#define READDIR_MAXCOUNT 32768
#define REMOVE_DEPTH_MAX 512
#define DEFAULT_TIMEOUT_S 5
#define FILE_MODE 0644
#define DIR_MODE 0755


/* ---- options ---- */

/* The backend's option block: the file options, its own as given, then
 * what nfs_variant and nfsb_init derived from them in the parent
 * (read-only in the clients). */
struct nfs_options {
	struct nb_options files; /* first (BACKEND_FILES): -s, -S, -F, --fake-io, ... */
	const char *version_arg; /* --nfs-version, as given */
	const char *export;	/* --export PATH */
	const char *url;	/* --nfs nfs://HOST/EXPORT[?ARGS] */
	const char *protocol;	/* --protocol tcp|udp */
	const char *mount_port;	/* --mount-port, as given */
	const char *nfs_port;	/* --nfs-port, as given */
	const char *timeout;	/* --nfs-timeout, as given */
	int enable_nlm;		/* --enable-nlm */
	const char *connection;	/* --nfs-connection client|shared */
	int shared;		/* --nfs-connection shared */
	/* Derived by nfs_variant and nfsb_init from the above, the server and
	 * the port. */
	int version;		/* --nfs-version: 3 (default) or 4 */
	char server[256];	/* host name or address, without a port */
	char export_path[PATH_MAX]; /* the export to mount */
	char port_url[128];	/* "nfs://HOST/?nfsport=..." to set ports, or "" */
	int mount_port_num;	/* --mount-port, 0 if not given */
	int nfs_port_num;	/* --nfs-port (or HOST:PORT), 0 if not given */
	int timeout_s;		/* reply deadline */
	int any_port;		/* the server took a connection from a port above
				   1023: the clients need no reserved port */
	int64_t trunc_io;	/* --trunc-io (run_info): READ3/WRITE3 move at most this */
};

extern const struct backend_option nfs_option_table[];
/* The two tables of the module: NFSv3 (nfs.c, the one the module
 * exports) and NFSv4 (nfs4.c); nfs_variant chooses by --nfs-version. */
extern const struct backend nfs_backend;
extern const struct backend nfs4_backend;
const struct backend *nfs_variant(void *be_opt, char *why, size_t whylen);

/* The options of c's run. */
static inline const struct nfs_options *nfs_opt(const struct client *c)
{
	return c->be_opt;
}

/* Mount the export (NFSv4 under --nfs-version 4): the context, or NULL
 * with one line in err and, if answered is not NULL, whether the server
 * answered (refused) or nothing did (no connection, no reply in time).
 * c: the client whose setup it is (NULL: the parent's check); on c's
 * fiber (the setup on the event loop) it waits there, the other clients'
 * mounts beside it. */
struct nfs_context *nfs_mount_export(const struct nfs_options *o, struct client *c, char *err,
				     size_t errlen, bool *answered);
/* Unmount the export (NFSv3: UMNT to the server's MOUNT service, a
 * connection of its own; not if umount is false: the server may be gone)
 * and free the context.  On c's fiber (the teardown on the event loop) it
 * waits there, the other clients' umounts beside it; elsewhere within
 * --nfs-timeout.  Whether the server took it is not asked. */
void nfs_unmount(struct client *c, struct nfs_context *nfs, bool umount);
/* The connection is unusable: set *dead (every later call of the client
 * fails, cleanup included), write the client's failure line ("nfs SERVER:
 * " and the message) and return STATUS_FATAL.  The v3 and v4 paths call
 * it as fail() and nfs4_fail(). */
uint32_t nfs_fail(struct client *c, bool *dead, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Drive rpc until done(arg) is true, the connection fails or no reply
 * comes in time: 0, or -1 with the reason in why ("connection to the
 * server lost (...)", "poll: ...", "no reply in N s: the server stopped
 * answering").  The deadline is timeout_s from the call, and it counts
 * only when a poll found nothing to read or write: a client stopped
 * (SIGSTOP, a debugger, a loaded machine) and continued after it finds
 * its reply waiting, or the first part of it, and goes on. */
struct nfs_async;
int nfs_wait(struct rpc_context *rpc, struct nfs_async *as, int timeout_s,
	     bool (*done)(const void *arg), const void *arg, char *why, size_t whylen);
/* Why a call that was answered failed at the RPC level (timed out,
 * cancelled, connection lost), or NULL if it succeeded (rpc_status
 * RPC_STATUS_SUCCESS); error is the callback's text, or "". */
const char *nfs_rpc_failure(int rpc_status, const char *error, int timeout_s, char *why,
			    size_t whylen);
/* The bytes a connection carried, into the client's network counters. */
void nfs_count_wire_bytes(struct client *c, struct rpc_context *rpc);
/* The load-time refusal's reason for an op the NFSv3 table lacks, or NULL. */
const char *nfsb_why_unsupported(int id);


/* ---- per-client state ---- */

struct fhandle {
	uint32_t len;			/* bytes used in data */
	unsigned char data[FH_MAX];	/* the server's opaque handle */
};

/* What the handle cache holds for a path (relative to the export): the
 * cache is the project's map (hmap.h) from paths to these. */
struct cache_entry {
	struct fhandle fh;	/* its handle */
	uint8_t type;		/* ftype3 (NF3REG, NF3DIR, ...), 0 unknown */
};

/* What a path resolved to. */
struct lookup {
	struct fhandle fh;	/* the object's handle */
	uint8_t type;		/* ftype3, 0 unknown */
	bool cached;		/* came from the cache (may be stale) */
	bool in_parent;		/* failed on a directory on the way */
};

/* One entry of a directory listing. */
struct dir_entry {
	char *name;		/* allocated */
	uint8_t type;		/* ftype3, 0 unknown */
	bool have_fh;		/* the reply carried its handle */
	struct fhandle fh;	/* that handle */
};

struct dir_list {
	struct dir_entry *e;	/* entries */
	size_t n, cap;		/* used, allocated */
};

struct nfsb;

/* The reply the client waits for (one call in flight at a time).  The
 * callback copies what the op needs out of libnfs's reply structure,
 * which lives only during the callback. */
struct reply {
	bool done;		/* the callback ran */
	int rpc_status;		/* RPC_STATUS_* */
	uint32_t status;	/* nfsstat3 or nlm4_stats of the reply */
	void (*extract)(struct nfsb *nb, void *res); /* op-specific copy, or NULL */
	struct fhandle fh;	/* the object's handle (LOOKUP3, CREATE3, ...) */
	bool have_fh;
	uint8_t type;		/* the object's ftype3, 0 if no attributes came */
	uint64_t size;		/* its size */
	uint32_t count;		/* READ3/WRITE3: bytes moved */
	uint32_t committed;	/* WRITE3: stable_how the server used */
	bool eof;		/* READ3, READDIRPLUS3: the end was reached */
	uint64_t cookie;	/* READDIRPLUS3: where the next page starts */
	char verf[NFS3_COOKIEVERFSIZE]; /* READDIRPLUS3: the cookie verifier */
	uint32_t entries;	/* READDIRPLUS3: entries in the reply */
	char error[200];	/* RPC_STATUS_ERROR: libnfs's text */
};

struct nfsb {
	struct nb_client nbc;		/* first: the netbench layer's state */
	struct nfs_async *as;		/* second: the asynchronous form's, or NULL */
	struct nfs_context *nfs;	/* the mounted export */
	struct rpc_context *rpc;	/* its connection: the raw NFSv3 calls */
	struct rpc_context *nlm;	/* NLM v4 connection (--enable-nlm), or NULL */
	struct fhandle root;		/* the export's root handle */
	uint32_t rsize, wsize;		/* netbench ops: bytes per READ3/WRITE3 */
	bool dead;			/* the connection failed: every call is fatal */
	bool shared;			/* nfs and rpc are the process's (nfs_proc) */
	struct reply r;
	struct hmap cache;		/* path -> struct cache_entry */
	struct dir_list *collect;	/* READDIRPLUS3: keep the entries here, or NULL */
	nb_list_fn list_fn;		/* READDIRPLUS3: called with each name, or NULL */
	void *list_arg;			/* its argument */
	char *read_dst;			/* READ3: where the data goes */
	uint32_t read_max;		/* and the room there */
	bool copy_read;			/* copy READ3 data to read_dst (libnfs < 6) */
	uint64_t create_verf;		/* next EXCLUSIVE create verifier */
	uint32_t nlm_cookie;		/* next NLM cookie */
	char nlm_owner[64];		/* NLM lock owner of this client */
	char nlm_host[64];		/* NLM caller name */
	struct fhandle *nlm_locked;	/* files LOCK4 locked ranges of (each once):
					   unlocked at teardown */
	size_t nlm_nlocked, nlm_locked_cap;
};


static inline const char *shown(const char *path)
{
	return *path ? path : "(the export root)";
}


/* Ready nb->r for the next call; extract copies what it needs out of the
 * reply (or NULL). */
void reply_reset(struct nfsb *nb, void (*extract)(struct nfsb *, void *));

/* Issue one raw NFSv3 call and wait for it: `call` queues it. */
#define NFS3(c, nb, proc, what, extract, args)                                          \
	({                                                                               \
		uint32_t st_;                                                            \
		reply_reset(nb, extract);                                                \
		if ((nb)->dead)                                                          \
			st_ = STATUS_FATAL;                                              \
		else if (!QUEUED(RAW(nfs3_##proc)((nb)->rpc, on_reply, args, nb)))       \
			st_ = not_queued(c, nb, (nb)->rpc, what);                        \
		else                                                                     \
			st_ = wait_reply(c, nb, (nb)->rpc, what);                        \
		st_;                                                                     \
	})


/* nfs_rpc.c */
struct nfs_fh3 fh3(const struct fhandle *fh);
bool fh_copy(struct fhandle *dst, const struct nfs_fh3 *src);
void on_reply(struct rpc_context *rpc, int status, void *data, void *private_data);
#define fail(c, nb, ...) nfs_fail((c), &(nb)->dead, __VA_ARGS__)
uint32_t wait_reply(struct client *c, struct nfsb *nb, struct rpc_context *rpc,
			   const char *what);
uint32_t not_queued(struct client *c, struct nfsb *nb, struct rpc_context *rpc,
			   const char *what);
void ex_symlink(struct nfsb *nb, void *res);
void dir_list_free(struct dir_list *dl);
uint32_t rpc_lookup(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name);
uint32_t rpc_getattr(struct client *c, struct nfsb *nb, const struct fhandle *fh);
uint32_t rpc_setattr(struct client *c, struct nfsb *nb, const struct fhandle *fh, int64_t size,
			    uint32_t mode);
uint32_t rpc_create(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			   int how, bool truncate);
uint32_t rpc_mkdir(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name);
uint32_t rpc_remove(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name);
uint32_t rpc_rmdir(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name);
uint32_t rpc_commit(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			   uint32_t count);
uint32_t rpc_fsstat(struct client *c, struct nfsb *nb);
uint32_t rpc_readdirplus(struct client *c, struct nfsb *nb, const struct fhandle *dir,
				uint64_t cookie, const char *verf);
uint32_t list_dir(struct client *c, struct nfsb *nb, const struct fhandle *dir);
uint32_t rpc_read(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			 uint32_t count, char *dst);
uint32_t rpc_write(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			  uint32_t count, int stable, const char *src);
#if NLM_BUILT
uint32_t nlm_call(struct client *c, struct nfsb *nb, int proc, const struct fhandle *fh,
			 uint64_t offset, uint64_t length);
uint32_t nt_from_nlm(uint32_t st);
/* At teardown, before the NLM connection goes: release every lock LOCK4
 * took and UNLOCK4 did not give back (a run that ended at its time limit
 * with locks held left them to the server, denying the next run's). */
void nlm_release_all(struct client *c, struct nfsb *nb);
#endif

/* nfs_cache.c */
/* What on_object and on_parent run on a path's handle, or on the handle
 * of its directory and its last name (path is the whole path). */
typedef uint32_t (*on_fh_fn)(struct client *c, struct nfsb *nb, const struct fhandle *fh);
typedef uint32_t (*on_dir_fn)(struct client *c, struct nfsb *nb, const struct fhandle *dir,
			      const char *name, const char *path);
void cache_clear(struct nfsb *nb);
void cache_put(struct nfsb *nb, const char *path, size_t len, const struct fhandle *fh,
		      uint8_t type);
void cache_del(struct nfsb *nb, const char *path);
void cache_del_tree(struct nfsb *nb, const char *path);
uint32_t resolve(struct client *c, struct nfsb *nb, const char *path, size_t len, struct lookup *lk);
size_t split_path(const char *path, const char **name);
uint32_t resolve_parent(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk,
			       const char **name);
uint32_t revalidate(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk);
uint32_t on_object(struct client *c, const char *path, on_fh_fn fn, struct lookup *lk);
uint32_t on_parent(struct client *c, const char *path, on_dir_fn fn, struct lookup *lk);
uint32_t remove_path(struct client *c, struct nfsb *nb, const char *path);
int nfsb_remove_tree(struct client *c, const char *path);
int nfsb_exists(struct client *c, const char *path);

/* nfs_ops.c */
uint32_t nfsb_getattr3(struct client *c, const struct op *op);
uint32_t nfsb_setattr3(struct client *c, const struct op *op);
uint32_t nfsb_lookup3(struct client *c, const struct op *op);
uint32_t nfsb_access3(struct client *c, const struct op *op);
uint32_t nfsb_readlink3(struct client *c, const struct op *op);
uint32_t nfsb_read3(struct client *c, const struct op *op);
uint32_t nfsb_write3(struct client *c, const struct op *op);
uint32_t nfsb_create3(struct client *c, const struct op *op);
uint32_t do_mkdir3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
		 const char *path);
uint32_t nfsb_mkdir3(struct client *c, const struct op *op);
uint32_t nfsb_symlink3(struct client *c, const struct op *op);
uint32_t do_remove3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
		 const char *path);
uint32_t nfsb_remove3(struct client *c, const struct op *op);
uint32_t do_rmdir3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
		 const char *path);
uint32_t nfsb_rmdir3(struct client *c, const struct op *op);
uint32_t rename_paths(struct client *c, const char *from, const char *to, bool *in_parent);
uint32_t nfsb_rename3(struct client *c, const struct op *op);
uint32_t nfsb_link3(struct client *c, const struct op *op);
uint32_t nfsb_readdirplus3(struct client *c, const struct op *op);
uint32_t nfsb_fsstat3(struct client *c, const struct op *op);
uint32_t nfsb_fsinfo3(struct client *c, const struct op *op);
uint32_t nfsb_pathconf3(struct client *c, const struct op *op);
uint32_t nfsb_commit3(struct client *c, const struct op *op);
#if NLM_BUILT
uint32_t nfsb_lock4(struct client *c, const struct op *op);
uint32_t nfsb_unlock4(struct client *c, const struct op *op);
uint32_t nfsb_test4(struct client *c, const struct op *op);
#endif

/* nfs_async.c: the asynchronous form (with --clients-per-process > 1) */
struct nfs_async;
struct nfs_proc;
struct nfs_conn {			/* a connection on the event loop */
	struct source src;		/* its descriptor */
	struct rpc_context *rpc;	/* the libnfs context it serves */
	struct nfs_async *owner;	/* its client's, or NULL: the process's (proc) */
	struct nfs_proc *proc;		/* shared: the process's state */
	struct nfs_async *woken;	/* shared: clients whose reply came, to resume */
	bool broken;			/* rpc_service failed: the ops find out */
};
struct nfs_async {
	struct fiber *fiber;		/* the client's op runs on it (engine_fiber) */
	struct nfs_conn own[2];		/* its own connections: NFS (unless shared), NLM */
	struct nfs_conn *conn[2];	/* the connections it waits on */
	struct nfs_async *next_woken;	/* in its connection's woken list */
	bool woken;			/* on that list */
	bool expired;			/* given up on (nfs_expire): its calls fail */
	bool stopped;			/* nfs_async_stop: its calls poll, off the loop */
};
/* --nfs-connection shared: what a process's clients share (engine_shared) */
struct nfs_proc {
	int users;			/* clients set up on it */
	struct nfs_context *nfs;	/* NFSv3: the mount */
	struct rpc_context *rpc;	/* the connection */
	struct nfs_conn conn;		/* on the event loop */
	struct nfs_async **all;		/* every client's (woken when it breaks) */
	size_t nall;
	void **states;			/* the clients' states, freed after the connection */
	void (**free_state)(void *);
	size_t nstates;
	bool given_up;			/* a client's call on it was given up: no umount */
};
/* The process's shared state, made by its first client. */
struct nfs_proc *nfs_proc_get(struct client *c);
/* A client of the shared connection is torn down: its state (and its
 * nfs_async) is freed by free_state once the last client closed the
 * connection. */
void nfs_proc_leave(struct client *c, void *state, void (*free_state)(void *));
/* In setup, with c->engine: the fiber and the connection's source (the
 * process's, if shared). */
int nfs_async_setup(struct client *c, struct nfs_async **asp, struct rpc_context *rpc, bool shared);
/* Watch the client's NLM connection. */
int nfs_async_watch_nlm(struct client *c, struct nfs_async *as, struct rpc_context *rpc);
/* The client is done with the loop (its teardown, before it closes its
 * connections): its own connections unwatched; a call of its from now on
 * polls its connection, on its fiber or not. */
void nfs_async_stop(struct nfs_async *as);
void nfs_async_free(struct nfs_async **asp);
/* A reply for as's client came (from libnfs's callback). */
void nfs_async_wake(struct nfs_async *as);
/* Was as's client given up on (expire), or the connection rpc is as's
 * lost?  Its calls then fail at once, on the loop or not (as may be NULL). */
bool nfs_async_lost(const struct nfs_async *as, const struct rpc_context *rpc);
/* Is the caller an op on the client's fiber, on the loop (as may be
 * NULL)? */
bool nfs_async_on(struct nfs_async *as);
/* Is as's op on the loop, waiting on a connection its process's clients
 * share?  Then its calls are sent by the loop (source_commit). */
bool nfs_async_batched(struct nfs_async *as, struct rpc_context *rpc);
/* In an op on the fiber: let the loop run until rpc has news.  0, -1 the
 * op is given up (deadline or grace), -2 the connection is lost. */
int nfs_async_wait(struct nfs_async *as, struct rpc_context *rpc, uint64_t deadline);
uint32_t nfs_submit(struct client *c, const struct op *op);
void nfs_expire(struct client *c);

/* nfs_mount.c */
/* In a client's setup: connect from any port when the server takes it
 * (o->any_port), not from a reserved one. */
void nfs_port_policy(const struct nfs_options *o);
void nfsb_teardown(struct client *c);
int nfsb_setup(struct client *c);
int nfsb_init(void *be_opt, const struct run_info *run);

/* nfs4.c: the NFSv4 table's calls (nfs.c holds the table) */
int nfs4_setup(struct client *c);
void nfs4_teardown(struct client *c);
int nfs4_backend_remove_tree(struct client *c, const char *path);
int nfs4_exists(struct client *c, const char *path);
const char *nfs4_why_unsupported(int id);

/* nfs.c: the netbench adapter */
extern const struct nb_adapter nfsb_adapter;

#endif
