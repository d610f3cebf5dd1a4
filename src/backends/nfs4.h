/*
 * nfs4.h - what the two files of the NFSv4.0 adapter share:
 *   nfs4_rpc.c  the client's own NFSv4.0 session on libnfs's raw layer:
 *               the connection, SETCLIENTID, COMPOUNDs built, sent (one or
 *               several in flight) and waited for in our own poll loop,
 *               the open-owner and lock-owner seqids (RFC 7530 9.1.7), the
 *               lease (RENEW), attributes, nfsstat4 -> NT status
 *   nfs4.c      the netbench adapter (netbench.h): each file operation as
 *               one COMPOUND (a few for the rest)
 *
 * No libnfs high-level call (nfs_open, nfs_fcntl, ...) runs in a client:
 * libnfs 4.0 keeps open-owner seqids that its own lock and utimes calls
 * break.  Only its RPC transport and XDR codec are used.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_NFS4_H
#define DBENCH_BACKENDS_NFS4_H

#include "nfs.h"

/* libnfs names NFSv4's operations OP_CLOSE, OP_RENAME, ... as dbench names
 * its loadfile ops (op.h): the two that clash get other names here. */
#define OP_CLOSE NFS4OP_CLOSE
#define OP_RENAME NFS4OP_RENAME
#include <nfsc/libnfs-raw-nfs4.h>

#define C4_MAX_OPS 48		/* operations in one COMPOUND we build */
#define C4_ATTR_SLOTS 4		/* bitmaps in one COMPOUND */
#define FH4_MAX 128		/* NFS4_FHSIZE */
#define C4_INFLIGHT 32		/* WRITE compounds of one WriteX in flight at once */
/*
 * How the libnfs we build against sends a COMPOUND (configure tells):
 *   libnfs >= 6 (LIBNFS_API_V2): rpc_nfs4_compound_task; a COMPOUND
 *     ending in READ or WRITE goes by rpc_nfs4_read_task / _write_task,
 *     whose data travels outside the XDR, straight from or into our buffer
 *     (its codec no longer encodes WRITE4args.data nor decodes READ data);
 *   libnfs 5: rpc_nfs4_compound_async2, told how much more room the
 *     encoding needs (the WRITE's data);
 *   libnfs 4.0: rpc_nfs4_compound_async, which encodes a COMPOUND into a
 *     buffer of fixed size (about 4 KiB, whatever the data): PUTFH + WRITE
 *     with more data than fits fails with "ZDR error: Failed to encode
 *     COMPOUND4args" before anything is sent.  Measured against ganesha
 *     (its VFS handles, AUTH_SYS from a host named "vm"): 3944 bytes of
 *     data fit, 3945 do not.  3584 leaves room for handles of up to 128
 *     bytes and longer host names.
 * A WriteX is sent as WRITEs of at most NFS4_WRITE_MAX bytes (and the
 * server's maxwrite), all in flight at once (C4_INFLIGHT at most).
 */
#if defined(HAVE_RPC_NFS4_WRITE_TASK)
#define NFS4_DATA_OUTSIDE_XDR 1		/* libnfs >= 6 */
#define NFS4_WRITE_MAX (1u << 20)
#elif defined(HAVE_RPC_NFS4_COMPOUND_ASYNC2)
#define NFS4_DATA_OUTSIDE_XDR 0		/* libnfs 5 */
#define NFS4_WRITE_MAX (1u << 20)
#else
#define NFS4_DATA_OUTSIDE_XDR 0		/* libnfs 4.0 */
#define NFS4_WRITE_MAX 3584
#endif
#define NFS4_READ_MAX (1u << 20)	/* bytes per READ at most */

struct fh4 {
	uint32_t len;			/* bytes used in data */
	char data[FH4_MAX];		/* the server's opaque handle */
};

/* The attributes we ask for and decode (GETATTR). */
struct attr4 {
	uint32_t type;			/* nfs_ftype4, 0 if not sent */
	uint64_t size;
	uint32_t lease_time;		/* seconds (the root's GETATTR) */
	uint64_t maxread, maxwrite;	/* ditto */
	uint64_t space_avail;		/* statfs */
};

/* What one COMPOUND's reply said, copied out in the callback (libnfs
 * frees the reply after it). */
struct call4 {
	bool done;			/* the callback ran */
	int rpc_status;			/* RPC_STATUS_* */
	char error[160];		/* RPC_STATUS_ERROR: libnfs's text */
	uint32_t status;		/* the COMPOUND's nfsstat4 */
	uint32_t nres;			/* operations answered (the last failed if status) */
	uint32_t op_status[C4_MAX_OPS];	/* each answered operation's status */
	bool have_fh;			/* GETFH: the last handle */
	struct fh4 fh;
	bool have_attr;			/* GETATTR: the last attributes */
	struct attr4 attr;
	stateid4 stateid;		/* OPEN, OPEN_CONFIRM, LOCK, LOCKU, CLOSE */
	uint32_t rflags;		/* OPEN */
	uint32_t count;			/* READ, WRITE: bytes moved */
	bool eof;			/* READ, READDIR */
	char *read_dst;			/* READ: the data goes here */
	uint32_t read_max;		/* room there */
	clientid4 clientid;		/* SETCLIENTID */
	verifier4 confirm;
	uint64_t cookie;		/* READDIR: last entry's cookie */
	verifier4 cookieverf;
	uint32_t entries;		/* READDIR: entries in this page */
	void (*entry_fn)(void *arg, const char *name, uint32_t type); /* READDIR */
	void *entry_arg;
};

/* One NFSv4 open of a file (by its handle), shared by the client's
 * handles of that file: one open-owner has one open state per file, a
 * second OPEN upgrades it (same stateid "other", next seqid), one CLOSE
 * ends it. */
struct open4 {
	struct fh4 fh;			/* the file */
	stateid4 stateid;		/* the open stateid, as last returned */
	int refs;			/* handles using it */
	bool dirty;			/* UNSTABLE writes since the last COMMIT */
	uint64_t *lock_owners;		/* lock-owners made on it, released after its
					   CLOSE (ganesha 4.3 corrupts its heap when a
					   lock-owner is released while the open lives) */
	size_t nlock_owners;
};

/* The handle's file object (nb_adapter.file_size). */
struct file4 {
	struct open4 *o;		/* its open, NULL for a directory */
	bool have_lock_owner;		/* the lock-owner exists on the server */
	uint64_t lock_owner;		/* its number (owner name: client + number) */
	stateid4 lock_stateid;		/* its lock stateid */
	uint32_t lock_seqid;		/* its next seqid */
};

/* A COMPOUND being built: its operations and the buffers they point to
 * (names point into the caller's path). */
struct c4 {
	nfs_argop4 op[C4_MAX_OPS];
	unsigned n;
	const char *what;		/* for messages: "OPEN", "LOCK", ... */
	const char *path;		/* ditto */
	uint32_t attrmask[C4_ATTR_SLOTS][2]; /* bitmaps (GETATTR, VERIFY, fattr4s) */
	char attrval[C4_ATTR_SLOTS][64]; /* fattr4 values we send */
	unsigned nattr;			/* attrmask/attrval pairs used */
	int seq_op;			/* index of the op using the open-owner seqid, -1 */
	int lock_seq_op;		/* ditto the lock-owner seqid, -1 */
	bool renews;			/* carries the client id or a stateid */
	bool overflow;			/* more operations than C4_MAX_OPS */
};

struct nfs4b {
	struct nb_client nbc;		/* first: the netbench layer's state */
	struct rpc_context *rpc;	/* our connection to the NFSv4 server */
	bool dead;			/* the session failed: every call is fatal */
	struct fh4 root;		/* the export's root */
	clientid4 clientid;		/* from SETCLIENTID */
	uint32_t lease_s;		/* the server's lease time */
	uint64_t renewed_ns;		/* the lease was last renewed (a reply to an op
					   carrying the client id or a stateid) */
	char owner[96];			/* open-owner and lock-owner prefix */
	uint32_t open_seqid;		/* the open-owner's next seqid */
	uint64_t next_lock_owner;	/* numbers of new lock-owners */
	uint32_t rsize, wsize;		/* bytes per READ, WRITE */
	struct c4 *wb;			/* C4_INFLIGHT builders for WRITEs in flight */
	struct call4 connect;		/* the connect's answer (libnfs may call
					   back as late as rpc_destroy_context) */
	struct open4 **opens;		/* the client's opens */
	size_t nopens, capopens;
};

/* nfs4_rpc.c */
void c4_init(struct c4 *b, const char *what, const char *path);
void c4_putfh(struct c4 *b, const struct fh4 *fh);
void c4_putrootfh(struct c4 *b);
/* LOOKUP of path's components, all (last true) or all but the last. */
void c4_lookup_path(struct c4 *b, const char *path, bool last);
void c4_lookup(struct c4 *b, const char *name, size_t len);
void c4_getfh(struct c4 *b);
void c4_getattr(struct c4 *b, uint32_t w0, uint32_t w1);
void c4_savefh(struct c4 *b);
void c4_restorefh(struct c4 *b);
void c4_verify_type(struct c4 *b, uint32_t type);
nfs_argop4 *c4_add(struct c4 *b, nfs_opnum4 op);
/* A fattr4 of size (if size >= 0), mode (if mode), times (if times: to
 * the server's clock) in the builder's buffers. */
void c4_fattr(struct c4 *b, fattr4 *fa, int64_t size, uint32_t mode, bool times);
/* The last component of path (after the last '/'). */
const char *last_name(const char *path, size_t *len);

/* Send b and wait for its reply: STATUS_FATAL (c->error set) or the
 * COMPOUND's nfsstat4, with r filled.  Renews the lease first (a RENEW
 * in the same COMPOUND) when it is due; counts the open-owner and
 * lock-owner seqids the operations consumed. */
uint32_t c4_call(struct client *c, struct c4 *b, struct call4 *r, uint32_t *lock_seqid);
/* Queue b without waiting (r must stay until c4_wait_all): 0, or
 * STATUS_FATAL.  Only for operations without seqids. */
uint32_t c4_send(struct client *c, struct c4 *b, struct call4 *r);
/* Wait until the n calls are answered: STATUS_FATAL or NFS4_OK. */
uint32_t c4_wait_all(struct client *c, struct call4 *r, unsigned n, const char *what,
		     const char *path);
/* The index of the failed operation (nres - 1), or -1 if all passed. */
static inline int c4_failed_at(const struct call4 *r)
{
	return r->status == NFS4_OK || r->nres == 0 ? -1 : (int)r->nres - 1;
}
/* nfsstat4 -> NT status (the table), STATUS_FATAL kept. */
uint32_t nt4_status(uint32_t st);
/* A state error (expired lease, stale client id, ...) is fatal: one line
 * naming the client, the op and the cause. */
uint32_t nt4_checked(struct client *c, uint32_t st, const char *what, const char *path);
#define nfs4_fail(c, ...) nfs_fail((c), &((struct nfs4b *)(c)->priv)->dead, __VA_ARGS__)
int nfs4_session_start(struct client *c, struct nfs4b *nb);
void nfs4_session_end(struct client *c, struct nfs4b *nb);

#endif
