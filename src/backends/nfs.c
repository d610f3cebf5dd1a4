/*
 * nfs.c - the NFSv3 backend: replays a loadfile against a real NFS server
 * (a filer) through libnfs.
 *
 * Each client has its own libnfs context, mounted before the release.  The
 * NFSv3 loadfile ops (GETATTR3, LOOKUP3, READ3, ...) are each the one RPC
 * they name, sent with libnfs's raw calls on the mounted connection and
 * waited for in our own poll loop with a deadline, so a dead server fails
 * the client within --nfs-timeout instead of hanging it.  Paths become
 * file handles through a per-client cache (path -> handle), filled by the
 * replies that carry handles (LOOKUP3, CREATE3, MKDIR3, SYMLINK3) and
 * emptied by the ops that remove or move names; a path that is not cached
 * is resolved with one LOOKUP3 per missing component, as a client with a
 * cold cache does.  The classic netbench ops are mapped to the calls an
 * NFS client makes for them (see the table in dbench(1)), with their NFS
 * statuses turned into the NT statuses the loadfile expects.  Byte-range
 * locks go to the server's NLM v4 service with --enable-nlm.
 *
 * libnfs 4.x/5.x and >= 6 (LIBNFS_API_V2) differ in the names and return
 * types of the raw calls and in how READ3 returns data; configure tells
 * which one we have.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <popt.h>
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
#include "common.h"
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

static struct {
	const char *export;	/* --export PATH */
	const char *url;	/* --nfs nfs://HOST/EXPORT[?ARGS] */
	const char *protocol;	/* --protocol tcp|udp */
	const char *mount_port;	/* --mount-port, as given */
	const char *nfs_port;	/* --nfs-port, as given */
	const char *timeout;	/* --nfs-timeout, as given */
	int enable_nlm;		/* --enable-nlm */
	/* Derived by nfsb_init from the above and the core options. */
	char server[256];	/* host name or address, without a port */
	char export_path[PATH_MAX]; /* the export to mount */
	char port_url[128];	/* "nfs://HOST/?nfsport=..." to set ports, or "" */
	int mount_port_num;	/* --mount-port, 0 if not given */
	int nfs_port_num;	/* --nfs-port (or HOST:PORT), 0 if not given */
	int timeout_s;		/* reply deadline */
} nfs_opt = { .protocol = "tcp" };

static const struct poptOption nfs_options[] = {
	{ "export", 0, POPT_ARG_STRING, &nfs_opt.export, 0,
	  "the export to mount (nfs backend)", "PATH" },
	{ "nfs", 0, POPT_ARG_STRING, &nfs_opt.url, 0,
	  "server and export as a libnfs URL: nfs://HOST/EXPORT[?nfsport=N&mountport=N]", "URL" },
	{ "protocol", 0, POPT_ARG_STRING, &nfs_opt.protocol, 0,
	  "transport: tcp (default; libnfs has no NFS over udp)", "PROTO" },
	{ "mount-port", 0, POPT_ARG_STRING, &nfs_opt.mount_port, 0,
	  "the server's MOUNT port (default: ask its portmapper)", "PORT" },
	{ "nfs-port", 0, POPT_ARG_STRING, &nfs_opt.nfs_port, 0,
	  "the server's NFS port (default: ask its portmapper)", "PORT" },
	{ "nfs-timeout", 0, POPT_ARG_STRING, &nfs_opt.timeout, 0,
	  "seconds to wait for a reply before the client fails (default 5)", "SECS" },
	{ "enable-nlm", 0, POPT_ARG_NONE, &nfs_opt.enable_nlm, 0,
	  "byte-range locks (LockX, UnlockX, LOCK4, UNLOCK4, TEST4) through the server's NLM", NULL },
	POPT_TABLEEND
};

/* ---- per-client state ---- */

struct fhandle {
	uint32_t len;			/* bytes used in data */
	unsigned char data[FH_MAX];	/* the server's opaque handle */
};

/* One cached path -> handle; open addressing, linear probing. */
struct cache_entry {
	char *path;		/* key, relative to the export; NULL: free slot */
	uint64_t hash;		/* of path */
	struct fhandle fh;	/* its handle */
	uint8_t type;		/* ftype3 (NF3REG, NF3DIR, ...), 0 unknown */
};

struct fh_cache {
	struct cache_entry *slot; /* cap slots */
	size_t cap;		/* a power of two */
	size_t used;		/* slots with a path */
};

/* What a path resolved to. */
struct lookup {
	struct fhandle fh;	/* the object's handle */
	uint8_t type;		/* ftype3, 0 unknown */
	bool cached;		/* came from the cache (may be stale) */
	bool in_parent;		/* failed on a directory on the way */
};

/* A netbench file number (op->handle). */
struct nb_file {
	bool open;		/* the number names an open file */
	bool is_dir;		/* a directory was opened */
	bool delete_on_close;	/* remove it at Close */
	bool dirty;		/* UNSTABLE writes since the last COMMIT3 */
	struct fhandle fh;	/* the file's handle */
	char *path;		/* as opened, for delete-on-close */
	size_t path_cap;	/* bytes allocated for path */
	struct lock_table locks; /* ranges held (LockX) */
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
	struct nfs_context *nfs;	/* the mounted export */
	struct rpc_context *rpc;	/* its connection: the raw NFSv3 calls */
	struct rpc_context *nlm;	/* NLM v4 connection (--enable-nlm), or NULL */
	struct fhandle root;		/* the export's root handle */
	uint64_t timeout_ns;		/* reply deadline */
	uint32_t rsize, wsize;		/* netbench ops: bytes per READ3/WRITE3 */
	bool dead;			/* the connection failed: every call is fatal */
	struct reply r;
	struct fh_cache cache;
	struct dir_list *collect;	/* READDIRPLUS3: keep the entries here, or NULL */
	const char *match;		/* READDIRPLUS3: count names matching this, or NULL */
	uint64_t matches;
	struct nb_file *files;		/* program.nhandles netbench handles */
	uint32_t nfiles;
	struct iobuf buf;		/* data written and read */
	bool copy_read;			/* copy READ3 data into readbuf (libnfs < 6) */
	uint64_t create_verf;		/* next EXCLUSIVE create verifier */
	uint32_t nlm_cookie;		/* next NLM cookie */
	char nlm_owner[64];		/* NLM lock owner of this client */
	char nlm_host[64];		/* NLM caller name */
};

/* ---- small helpers ---- */

static struct nfs_fh3 fh3(const struct fhandle *fh)
{
	struct nfs_fh3 f;

	f.data.data_len = fh->len;
	f.data.data_val = (char *)fh->data;
	return f;
}

static bool fh_copy(struct fhandle *dst, const struct nfs_fh3 *src)
{
	if (src->data.data_len == 0 || src->data.data_len > FH_MAX || !src->data.data_val)
		return false;
	dst->len = src->data.data_len;
	memcpy(dst->data, src->data.data_val, dst->len);
	return true;
}

static uint8_t attr_type(const struct post_op_attr *a)
{
	return a->attributes_follow ? (uint8_t)a->post_op_attr_u.attributes.type : 0;
}

static uint64_t attr_size(const struct post_op_attr *a)
{
	return a->attributes_follow ? a->post_op_attr_u.attributes.size : 0;
}

static const char *shown(const char *path)
{
	return *path ? path : "(the export root)";
}

/* ---- the handle cache ---- */

static uint64_t path_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static struct cache_entry *cache_find(struct nfsb *nb, const char *path, size_t len)
{
	struct fh_cache *fc = &nb->cache;
	uint64_t h = path_hash(path, len);

	for (size_t i = h & (fc->cap - 1);; i = (i + 1) & (fc->cap - 1)) {
		struct cache_entry *e = &fc->slot[i];

		if (!e->path)
			return NULL;
		if (e->hash == h && strncmp(e->path, path, len) == 0 && e->path[len] == '\0')
			return e;
	}
}

static void cache_clear(struct nfsb *nb)
{
	struct fh_cache *fc = &nb->cache;

	for (size_t i = 0; i < fc->cap; i++) {
		free(fc->slot[i].path);
		fc->slot[i].path = NULL;
	}
	fc->used = 0;
}

static void cache_place(struct fh_cache *fc, const struct cache_entry *src)
{
	size_t i = src->hash & (fc->cap - 1);

	while (fc->slot[i].path)
		i = (i + 1) & (fc->cap - 1);
	fc->slot[i] = *src;
	fc->used++;
}

static void cache_grow(struct fh_cache *fc)
{
	struct fh_cache old = *fc;

	fc->cap = old.cap * 2;
	fc->slot = xcalloc(fc->cap, sizeof(*fc->slot));
	fc->used = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].path)
			cache_place(fc, &old.slot[i]);
	free(old.slot);
}

static void cache_put(struct nfsb *nb, const char *path, size_t len, const struct fhandle *fh,
		      uint8_t type)
{
	struct fh_cache *fc = &nb->cache;
	struct cache_entry *e = cache_find(nb, path, len), ne;

	if (e) {
		e->fh = *fh;
		e->type = type;
		return;
	}
	if (fc->used >= CACHE_MAX_ENTRIES)
		cache_clear(nb);
	if ((fc->used + 1) * 2 > fc->cap)
		cache_grow(fc);
	ne.path = xmalloc(len + 1);
	memcpy(ne.path, path, len);
	ne.path[len] = '\0';
	ne.hash = path_hash(path, len);
	ne.fh = *fh;
	ne.type = type;
	cache_place(fc, &ne);
}

/* Forget one path (linear probing: move later entries of the run back). */
static void cache_del(struct nfsb *nb, const char *path)
{
	struct fh_cache *fc = &nb->cache;
	struct cache_entry *e = cache_find(nb, path, strlen(path));
	size_t mask = fc->cap - 1, i, j;

	if (!e)
		return;
	free(e->path);
	e->path = NULL;
	fc->used--;
	i = (size_t)(e - fc->slot);
	for (j = (i + 1) & mask; fc->slot[j].path; j = (j + 1) & mask) {
		size_t home = fc->slot[j].hash & mask;

		/* may the entry at j move to the hole at i? */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			fc->slot[i] = fc->slot[j];
			fc->slot[j].path = NULL;
			i = j;
		}
	}
}

/*
 * Forget a path and everything under it.  A path is only cached when its
 * directory is (resolve() caches every component, new objects are cached
 * under a resolved directory), so when the path is not cached, nothing
 * under it is; and nothing is under a file.
 */
static void cache_del_tree(struct nfsb *nb, const char *path)
{
	struct fh_cache *fc = &nb->cache;
	size_t len = strlen(path), cap = fc->cap, n = 0;
	struct cache_entry *keep, *top;

	if (len == 0) {
		cache_clear(nb);
		return;
	}
	top = cache_find(nb, path, len);
	if (!top)
		return;
	if (top->type && top->type != NF3DIR) {
		cache_del(nb, path);
		return;
	}
	keep = xmalloc(cap * sizeof(*keep));
	for (size_t i = 0; i < cap; i++) {
		struct cache_entry *e = &fc->slot[i];

		if (!e->path)
			continue;
		if (strncmp(e->path, path, len) == 0 && (e->path[len] == '\0' || e->path[len] == '/'))
			free(e->path);
		else
			keep[n++] = *e;
		e->path = NULL;
	}
	fc->used = 0;
	for (size_t i = 0; i < n; i++)
		cache_place(fc, &keep[i]);
	free(keep);
}

/* ---- calls: queue, wait with a deadline, copy the reply ---- */

static void on_reply(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct nfsb *nb = private_data;

	(void)rpc;
	nb->r.rpc_status = status;
	if (status == RPC_STATUS_SUCCESS && data) {
		uint32_t st;

		/* every *3res starts with its nfsstat3 */
		memcpy(&st, data, sizeof(st));
		nb->r.status = st;
		if (nb->r.extract)
			nb->r.extract(nb, data);
	} else if (status == RPC_STATUS_ERROR && data) {
		snprintf(nb->r.error, sizeof(nb->r.error), "%s", (const char *)data);
	}
	nb->r.done = true;
}

static void reply_reset(struct nfsb *nb, void (*extract)(struct nfsb *, void *))
{
	nb->r.done = false;
	nb->r.rpc_status = RPC_STATUS_ERROR;
	nb->r.status = NFS3ERR_SERVERFAULT;
	nb->r.extract = extract;
	nb->r.have_fh = false;
	nb->r.type = 0;
	nb->r.count = 0;
	nb->r.eof = false;
	nb->r.entries = 0;
	nb->r.error[0] = '\0';
}

static uint32_t fail(struct client *c, struct nfsb *nb, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The connection is unusable: the client fails, and so does every later
 * call (cleanup included). */
static uint32_t fail(struct client *c, struct nfsb *nb, const char *fmt, ...)
{
	va_list ap;
	int n;

	nb->dead = true;
	n = snprintf(c->error, sizeof(c->error), "nfs %s: ", nfs_opt.server);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(c->error))
		vsnprintf(c->error + n, sizeof(c->error) - (size_t)n, fmt, ap);
	va_end(ap);
	return STATUS_FATAL;
}

/* Drive the connection until the reply arrives, the connection fails or
 * the deadline passes.  Returns the reply's status or STATUS_FATAL. */
static uint32_t wait_reply(struct client *c, struct nfsb *nb, struct rpc_context *rpc,
			   const char *what)
{
	uint64_t deadline = now_ns() + nb->timeout_ns;

	/* send at once: the socket is almost always writable, and a poll
	 * saved is a system call per op */
	if ((rpc_which_events(rpc) & POLLOUT) && rpc_service(rpc, POLLOUT) < 0 && !nb->r.done)
		return fail(c, nb, "%s: connection to the server lost (%s)", what, rpc_get_error(rpc));
	while (!nb->r.done) {
		struct pollfd pfd = { .fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc) };
		uint64_t now = now_ns();
		int n, ms;

		if (now >= deadline)
			return fail(c, nb, "%s: no reply in %d s: the server stopped answering", what,
				    nfs_opt.timeout_s);
		if (pfd.fd < 0)
			return fail(c, nb, "%s: connection to the server lost (%s)", what, rpc_get_error(rpc));
		ms = (int)MIN((deadline - now) / NSEC_PER_MSEC + 1, 100);
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR)
			return fail(c, nb, "%s: poll: %s", what, strerror(errno));
		if (rpc_service(rpc, n > 0 ? pfd.revents : 0) < 0 && !nb->r.done)
			return fail(c, nb, "%s: connection to the server lost (%s)", what,
				    rpc_get_error(rpc));
	}
	switch (nb->r.rpc_status) {
	case RPC_STATUS_SUCCESS:
		return nb->r.status;
	case RPC_STATUS_TIMEOUT:
		return fail(c, nb, "%s: no reply in %d s: the server stopped answering", what,
			    nfs_opt.timeout_s);
	case RPC_STATUS_CANCEL:
		return fail(c, nb, "%s: the call was cancelled", what);
	default:
		return fail(c, nb, "%s: connection to the server lost (%s)", what,
			    nb->r.error[0] ? nb->r.error : "RPC error");
	}
}

static uint32_t not_queued(struct client *c, struct nfsb *nb, struct rpc_context *rpc,
			   const char *what)
{
	return fail(c, nb, "%s: cannot send: %s", what, rpc_get_error(rpc));
}

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

/* ---- reply extractors ---- */

static void ex_lookup(struct nfsb *nb, void *res)
{
	LOOKUP3res *r = res;

	if (r->status != NFS3_OK)
		return;
	nb->r.have_fh = fh_copy(&nb->r.fh, &r->LOOKUP3res_u.resok.object);
	nb->r.type = attr_type(&r->LOOKUP3res_u.resok.obj_attributes);
	nb->r.size = attr_size(&r->LOOKUP3res_u.resok.obj_attributes);
}

static void ex_getattr(struct nfsb *nb, void *res)
{
	GETATTR3res *r = res;

	if (r->status != NFS3_OK)
		return;
	nb->r.type = (uint8_t)r->GETATTR3res_u.resok.obj_attributes.type;
	nb->r.size = r->GETATTR3res_u.resok.obj_attributes.size;
}

static void ex_new_object(struct nfsb *nb, const struct post_op_fh3 *obj, const struct post_op_attr *a)
{
	if (obj->handle_follows)
		nb->r.have_fh = fh_copy(&nb->r.fh, &obj->post_op_fh3_u.handle);
	nb->r.type = attr_type(a);
}

static void ex_create(struct nfsb *nb, void *res)
{
	CREATE3res *r = res;

	if (r->status == NFS3_OK)
		ex_new_object(nb, &r->CREATE3res_u.resok.obj, &r->CREATE3res_u.resok.obj_attributes);
}

static void ex_mkdir(struct nfsb *nb, void *res)
{
	MKDIR3res *r = res;

	if (r->status == NFS3_OK)
		ex_new_object(nb, &r->MKDIR3res_u.resok.obj, &r->MKDIR3res_u.resok.obj_attributes);
}

static void ex_symlink(struct nfsb *nb, void *res)
{
	SYMLINK3res *r = res;

	if (r->status == NFS3_OK)
		ex_new_object(nb, &r->SYMLINK3res_u.resok.obj, &r->SYMLINK3res_u.resok.obj_attributes);
}

static void ex_read(struct nfsb *nb, void *res)
{
	READ3res *r = res;
	const READ3resok *ok = &r->READ3res_u.resok;

	if (r->status != NFS3_OK)
		return;
	nb->r.count = ok->count;
	nb->r.eof = ok->eof;
#ifndef HAVE_RPC_NFS3_GETATTR_TASK
	/* libnfs < 6 hands us the data in its receive buffer (>= 6 reads
	 * straight into readbuf) */
	if (nb->copy_read && ok->data.data_val && ok->data.data_len <= nb->buf.size)
		memcpy(nb->buf.readbuf, ok->data.data_val, ok->data.data_len);
#endif
}

static void ex_write(struct nfsb *nb, void *res)
{
	WRITE3res *r = res;

	if (r->status != NFS3_OK)
		return;
	nb->r.count = r->WRITE3res_u.resok.count;
	nb->r.committed = r->WRITE3res_u.resok.committed;
}

static void dir_list_add(struct dir_list *dl, const char *name, uint8_t type, const struct fhandle *fh)
{
	struct dir_entry *e;

	if (dl->n == dl->cap) {
		dl->cap = dl->cap ? dl->cap * 2 : 64;
		dl->e = xrealloc(dl->e, dl->cap * sizeof(*dl->e));
	}
	e = &dl->e[dl->n++];
	e->name = xstrdup(name);
	e->type = type;
	e->have_fh = fh != NULL;
	if (fh)
		e->fh = *fh;
}

static void dir_list_free(struct dir_list *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		free(dl->e[i].name);
	free(dl->e);
	dl->e = NULL;
	dl->n = dl->cap = 0;
}

/*
 * libnfs 4.0 decodes READDIRPLUS3 entries at 4-byte alignment: reading
 * their 64-bit members in place is undefined behaviour (UBSan says so), so
 * each entry is copied to an aligned one first.
 */
static void ex_readdirplus(struct nfsb *nb, void *res)
{
	READDIRPLUS3res *r = res;
	const void *p;

	if (r->status != NFS3_OK)
		return;
	memcpy(nb->r.verf, r->READDIRPLUS3res_u.resok.cookieverf, sizeof(nb->r.verf));
	nb->r.eof = r->READDIRPLUS3res_u.resok.reply.eof;
	for (p = r->READDIRPLUS3res_u.resok.reply.entries; p;) {
		entryplus3 e;
		struct fhandle fh;
		bool have_fh = false;

		memcpy(&e, p, sizeof(e));
		p = e.nextentry;
		nb->r.entries++;
		nb->r.cookie = e.cookie;
		if (!e.name || is_dot(e.name))
			continue;
		if (nb->match && wildcard_match(nb->match, e.name))
			nb->matches++;
		if (!nb->collect)
			continue;
		if (e.name_handle.handle_follows)
			have_fh = fh_copy(&fh, &e.name_handle.post_op_fh3_u.handle);
		dir_list_add(nb->collect, e.name, attr_type(&e.name_attributes), have_fh ? &fh : NULL);
	}
}

/* ---- single procedures ---- */

static uint32_t rpc_lookup(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	LOOKUP3args a;

	memset(&a, 0, sizeof(a));
	a.what.dir = fh3(dir);
	a.what.name = (char *)name;
	return NFS3(c, nb, lookup, "LOOKUP3", ex_lookup, &a);
}

static uint32_t rpc_getattr(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	GETATTR3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(fh);
	return NFS3(c, nb, getattr, "GETATTR3", ex_getattr, &a);
}

/* SETATTR3: size (if size >= 0), mode (if mode != 0), else the times to
 * the server's clock. */
static uint32_t rpc_setattr(struct client *c, struct nfsb *nb, const struct fhandle *fh, int64_t size,
			    uint32_t mode)
{
	SETATTR3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(fh);
	if (size >= 0) {
		a.new_attributes.size.set_it = 1;
		a.new_attributes.size.set_size3_u.size = (uint64_t)size;
	} else if (mode) {
		a.new_attributes.mode.set_it = 1;
		a.new_attributes.mode.set_mode3_u.mode = mode;
	} else {
		a.new_attributes.atime.set_it = SET_TO_SERVER_TIME;
		a.new_attributes.mtime.set_it = SET_TO_SERVER_TIME;
	}
	return NFS3(c, nb, setattr, "SETATTR3", NULL, &a);
}

static uint32_t rpc_create(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			   int how, bool truncate)
{
	CREATE3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.how.mode = (createmode3)how;
	if (how == EXCLUSIVE) {
		uint64_t v = ((uint64_t)getpid() << 32) ^ ++nb->create_verf;

		memcpy(a.how.createhow3_u.verf, &v, sizeof(a.how.createhow3_u.verf));
	} else {
		a.how.createhow3_u.obj_attributes.mode.set_it = 1;
		a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = FILE_MODE;
		if (truncate) {
			a.how.createhow3_u.obj_attributes.size.set_it = 1;
			a.how.createhow3_u.obj_attributes.size.set_size3_u.size = 0;
		}
	}
	return NFS3(c, nb, create, "CREATE3", ex_create, &a);
}

static uint32_t rpc_mkdir(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	MKDIR3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.attributes.mode.set_it = 1;
	a.attributes.mode.set_mode3_u.mode = DIR_MODE;
	return NFS3(c, nb, mkdir, "MKDIR3", ex_mkdir, &a);
}

static uint32_t rpc_remove(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	REMOVE3args a;

	memset(&a, 0, sizeof(a));
	a.object.dir = fh3(dir);
	a.object.name = (char *)name;
	return NFS3(c, nb, remove, "REMOVE3", NULL, &a);
}

static uint32_t rpc_rmdir(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	RMDIR3args a;

	memset(&a, 0, sizeof(a));
	a.object.dir = fh3(dir);
	a.object.name = (char *)name;
	return NFS3(c, nb, rmdir, "RMDIR3", NULL, &a);
}

static uint32_t rpc_commit(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			   uint32_t count)
{
	COMMIT3args a;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = offset;
	a.count = count;
	return NFS3(c, nb, commit, "COMMIT3", NULL, &a);
}

static uint32_t rpc_fsstat(struct client *c, struct nfsb *nb)
{
	FSSTAT3args a;

	memset(&a, 0, sizeof(a));
	a.fsroot = fh3(&nb->root);
	return NFS3(c, nb, fsstat, "FSSTAT3", NULL, &a);
}

/* One READDIRPLUS3 page from cookie (0 and a zero verifier: the start). */
static uint32_t rpc_readdirplus(struct client *c, struct nfsb *nb, const struct fhandle *dir,
				uint64_t cookie, const char *verf)
{
	READDIRPLUS3args a;

	memset(&a, 0, sizeof(a));
	a.dir = fh3(dir);
	a.cookie = cookie;
	if (verf)
		memcpy(a.cookieverf, verf, sizeof(a.cookieverf));
	a.dircount = READDIR_DIRCOUNT;
	a.maxcount = READDIR_MAXCOUNT;
	return NFS3(c, nb, readdirplus, "READDIRPLUS3", ex_readdirplus, &a);
}

/* A whole directory, page after page, as a client lists it. */
static uint32_t list_dir(struct client *c, struct nfsb *nb, const struct fhandle *dir)
{
	uint64_t cookie = 0;
	char verf[NFS3_COOKIEVERFSIZE] = { 0 };
	uint32_t st;

	for (int pages = 0; pages < 1000000; pages++) {
		st = rpc_readdirplus(c, nb, dir, cookie, verf);
		if (st != NFS3_OK || nb->r.eof || nb->r.entries == 0)
			return st;
		cookie = nb->r.cookie;
		memcpy(verf, nb->r.verf, sizeof(verf));
	}
	return NFS3ERR_IO;
}

/* READ3 of count bytes into readbuf (grown by the caller). */
static uint32_t rpc_read(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			 uint32_t count)
{
	READ3args a;
	uint32_t st;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = offset;
	a.count = count;
	reply_reset(nb, ex_read);
	if (nb->dead)
		return STATUS_FATAL;
#ifdef HAVE_RPC_NFS3_GETATTR_TASK
	if (!QUEUED(rpc_nfs3_read_task(nb->rpc, on_reply, nb->buf.readbuf, count, &a, nb)))
		return not_queued(c, nb, nb->rpc, "READ3");
#else
	if (!QUEUED(rpc_nfs3_read_async(nb->rpc, on_reply, &a, nb)))
		return not_queued(c, nb, nb->rpc, "READ3");
#endif
	st = wait_reply(c, nb, nb->rpc, "READ3");
	if (st == NFS3_OK && nb->r.count > count)
		nb->r.count = count;
	return st;
}

static uint32_t rpc_write(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			  uint32_t count, int stable)
{
	WRITE3args a;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = offset;
	a.count = count;
	a.stable = (stable_how)stable;
	a.data.data_len = count;
	a.data.data_val = (char *)iobuf_source(&nb->buf, c->writepattern, offset);
	return NFS3(c, nb, write, "WRITE3", ex_write, &a);
}

/* ---- paths ---- */

/*
 * The handle of path: from the cache, or by LOOKUP3 of each component from
 * the nearest cached directory (caching each).  Returns NFS3_OK, the
 * failing LOOKUP3's status, or STATUS_FATAL.
 */
static uint32_t resolve(struct client *c, struct nfsb *nb, const char *path, size_t len, struct lookup *lk)
{
	struct cache_entry *e;
	char name[PATH_MAX];
	size_t start = 0;
	uint32_t st;

	memset(lk, 0, sizeof(*lk));
	lk->fh = nb->root;
	lk->type = NF3DIR;
	lk->cached = true;
	if (len == 0)
		return NFS3_OK;
	e = cache_find(nb, path, len);
	if (e) {
		lk->fh = e->fh;
		lk->type = e->type;
		return NFS3_OK;
	}
	lk->cached = false;
	for (size_t i = len; i-- > 0;) {
		if (path[i] != '/')
			continue;
		e = cache_find(nb, path, i);
		if (e) {
			lk->fh = e->fh;
			start = i + 1;
			break;
		}
	}
	while (start < len) {
		size_t end = start;

		while (end < len && path[end] != '/')
			end++;
		memcpy(name, path + start, end - start);
		name[end - start] = '\0';
		st = rpc_lookup(c, nb, &lk->fh, name);
		if (st == NFS3_OK && !nb->r.have_fh)
			st = NFS3ERR_SERVERFAULT;
		if (st != NFS3_OK) {
			lk->in_parent = end < len;
			return st;
		}
		lk->fh = nb->r.fh;
		lk->type = nb->r.type;
		cache_put(nb, path, end, &lk->fh, lk->type);
		start = end + 1;
	}
	return NFS3_OK;
}

/* Split path into its directory (length) and last component. */
static size_t split_path(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');

	*name = slash ? slash + 1 : path;
	return slash ? (size_t)(slash - path) : 0;
}

/* The handle of path's directory; *name its last component.  A failure
 * there is always "in the parent". */
static uint32_t resolve_parent(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk,
			       const char **name)
{
	size_t dirlen = split_path(path, name);
	uint32_t st;

	if (!**name) {		/* the export root has no parent */
		memset(lk, 0, sizeof(*lk));
		return NFS3ERR_INVAL;
	}
	st = resolve(c, nb, path, dirlen, lk);
	lk->in_parent = true;
	return st;
}

/* A cached handle came back stale (another client removed the object):
 * forget it and what is under it, and resolve the path afresh. */
static bool stale_retry(struct nfsb *nb, uint32_t st, const struct lookup *lk, const char *path, size_t len)
{
	char buf[PATH_MAX];

	if (st != NFS3ERR_STALE || !lk->cached || len == 0)
		return false;
	memcpy(buf, path, len);
	buf[len] = '\0';
	cache_del_tree(nb, buf);
	return true;
}

/* The object at path, up to date: a cached handle is revalidated with
 * GETATTR3 (close-to-open, as NFS clients do), an uncached path costs its
 * LOOKUP3s.  lk->type is then known. */
static uint32_t revalidate(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk)
{
	size_t len = strlen(path);
	uint32_t st = resolve(c, nb, path, len, lk);

	if (st != NFS3_OK || !lk->cached)
		return st;
	st = rpc_getattr(c, nb, &lk->fh);
	if (stale_retry(nb, st, lk, path, len)) {
		st = resolve(c, nb, path, len, lk);
		if (st != NFS3_OK || !lk->cached)
			return st;
		st = rpc_getattr(c, nb, &lk->fh);
	}
	if (st == NFS3_OK)
		lk->type = nb->r.type;
	if (st == NFS3ERR_STALE)
		st = NFS3ERR_NOENT;
	return st;
}

/* ---- the NFSv3 ops: each the one procedure it names ---- */

/* Run fn on the handle of the op's first path; on a stale cached handle,
 * resolve again and retry once. */
typedef uint32_t (*on_fh_fn)(struct client *c, struct nfsb *nb, const struct fhandle *fh);

static uint32_t on_object(struct client *c, const char *path, on_fh_fn fn, struct lookup *lk)
{
	struct nfsb *nb = c->priv;
	size_t len = strlen(path);
	uint32_t st = resolve(c, nb, path, len, lk);

	if (st != NFS3_OK)
		return st;
	st = fn(c, nb, &lk->fh);
	if (stale_retry(nb, st, lk, path, len)) {
		st = resolve(c, nb, path, len, lk);
		if (st == NFS3_OK)
			st = fn(c, nb, &lk->fh);
	}
	return st;
}

typedef uint32_t (*on_dir_fn)(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name);

/* Run fn on the handle of the directory of path and its last name. */
static uint32_t on_parent(struct client *c, const char *path, on_dir_fn fn, struct lookup *lk)
{
	struct nfsb *nb = c->priv;
	const char *name;
	size_t dirlen = split_path(path, &name);
	uint32_t st = resolve_parent(c, nb, path, lk, &name);

	if (st != NFS3_OK)
		return st;
	st = fn(c, nb, &lk->fh, name);
	if (stale_retry(nb, st, lk, path, dirlen)) {
		st = resolve_parent(c, nb, path, lk, &name);
		if (st != NFS3_OK)
			return st;
		st = fn(c, nb, &lk->fh, name);
	}
	lk->in_parent = false;
	return st;
}

static uint32_t do_getattr(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_getattr(c, nb, fh);
}

static uint32_t nfsb_getattr3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_getattr, &lk);
}

static uint32_t do_setattr(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_setattr(c, nb, fh, -1, (uint32_t)c->num[0]);
}

static uint32_t nfsb_setattr3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	if (c->num[0] < 0 || c->num[0] > 07777)
		return NFS3ERR_INVAL;
	return on_object(c, c->path[0], do_setattr, &lk);
}

/* LOOKUP3 is always sent (the op is the RPC); its answer updates the cache. */
static uint32_t do_lookup(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	uint32_t st = rpc_lookup(c, nb, dir, name);

	if (st == NFS3_OK && nb->r.have_fh)
		cache_put(nb, c->path[0], strlen(c->path[0]), &nb->r.fh, nb->r.type);
	else if (st == NFS3ERR_NOENT)
		cache_del_tree(nb, c->path[0]);
	return st;
}

static uint32_t nfsb_lookup3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_lookup, &lk);
}

static uint32_t do_access(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	ACCESS3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(fh);
	a.access = (u_int)c->num[0];
	return NFS3(c, nb, access, "ACCESS3", NULL, &a);
}

/* ACCESS3 path [requested granted]: asks for the requested bits; the
 * granted bits the trace recorded are not compared. */
static uint32_t nfsb_access3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_access, &lk);
}

static uint32_t do_readlink(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	READLINK3args a;

	memset(&a, 0, sizeof(a));
	a.symlink = fh3(fh);
	return NFS3(c, nb, readlink, "READLINK3", NULL, &a);
}

static uint32_t nfsb_readlink3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_readlink, &lk);
}

static uint32_t do_read3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	uint32_t st = rpc_read(c, nb, fh, (uint64_t)c->num[0], (uint32_t)c->num[1]);

	if (st == NFS3_OK)
		c->bytes = nb->r.count;
	return st;
}

static uint32_t nfsb_read3(struct client *c, const struct op *op)
{
	struct lookup lk;
	struct nfsb *nb = c->priv;

	(void)op;
	if (c->num[0] < 0 || c->num[1] < 0 || iobuf_grow(&nb->buf, c->nc.rng, (size_t)c->num[1]) < 0)
		return NFS3ERR_INVAL;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)c->num[1];
		return NFS3_OK;
	}
	nb->copy_read = false;
	return on_object(c, c->path[0], do_read3, &lk);
}

static uint32_t do_write3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	uint32_t st = rpc_write(c, nb, fh, (uint64_t)c->num[0], (uint32_t)c->num[1], (int)c->num[2]);

	if (st == NFS3_OK)
		c->bytes = nb->r.count;
	return st;
}

/* WRITE3 path offset count [stable_how]: 0 UNSTABLE, 1 DATA_SYNC, 2 FILE_SYNC. */
static uint32_t nfsb_write3(struct client *c, const struct op *op)
{
	struct lookup lk;
	struct nfsb *nb = c->priv;

	(void)op;
	if (c->num[0] < 0 || c->num[1] < 0 || c->num[2] < UNSTABLE || c->num[2] > FILE_SYNC ||
	    iobuf_grow(&nb->buf, c->nc.rng, (size_t)c->num[1]) < 0)
		return NFS3ERR_INVAL;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)c->num[1];
		return NFS3_OK;
	}
	return on_object(c, c->path[0], do_write3, &lk);
}

static void cache_new_object(struct client *c, struct nfsb *nb, uint32_t st)
{
	if (st == NFS3_OK && nb->r.have_fh)
		cache_put(nb, c->path[0], strlen(c->path[0]), &nb->r.fh, nb->r.type);
}

static uint32_t do_create3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	uint32_t st = rpc_create(c, nb, dir, name, (int)c->num[0], false);

	cache_new_object(c, nb, st);
	return st;
}

/* CREATE3 path [createmode]: 0 UNCHECKED, 1 GUARDED, 2 EXCLUSIVE. */
static uint32_t nfsb_create3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	if (c->num[0] < UNCHECKED || c->num[0] > EXCLUSIVE)
		return NFS3ERR_INVAL;
	return on_parent(c, c->path[0], do_create3, &lk);
}

static uint32_t do_mkdir3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	uint32_t st = rpc_mkdir(c, nb, dir, name);

	cache_new_object(c, nb, st);
	return st;
}

static uint32_t nfsb_mkdir3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_mkdir3, &lk);
}

static uint32_t do_symlink3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	SYMLINK3args a;
	uint32_t st;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.symlink.symlink_data = c->path[1];
	st = NFS3(c, nb, symlink, "SYMLINK3", ex_symlink, &a);
	cache_new_object(c, nb, st);
	return st;
}

/* SYMLINK3 path target: makes path, a symlink whose text is target. */
static uint32_t nfsb_symlink3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_symlink3, &lk);
}

static uint32_t do_remove3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	uint32_t st = rpc_remove(c, nb, dir, name);

	if (st == NFS3_OK || st == NFS3ERR_NOENT)
		cache_del(nb, c->path[0]);
	return st;
}

static uint32_t nfsb_remove3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_remove3, &lk);
}

static uint32_t do_rmdir3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	uint32_t st = rpc_rmdir(c, nb, dir, name);

	if (st == NFS3_OK || st == NFS3ERR_NOENT)
		cache_del_tree(nb, c->path[0]);
	return st;
}

static uint32_t nfsb_rmdir3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_rmdir3, &lk);
}

/* RENAME3 from to (replaces to, as NFS does). */
static uint32_t rename_paths(struct client *c, const char *from, const char *to, bool *in_parent)
{
	struct nfsb *nb = c->priv;
	struct lookup from_dir, to_dir;
	const char *from_name, *to_name;
	RENAME3args a;
	uint32_t st;

	*in_parent = true;
	st = resolve_parent(c, nb, from, &from_dir, &from_name);
	if (st != NFS3_OK)
		return st;
	st = resolve_parent(c, nb, to, &to_dir, &to_name);
	if (st != NFS3_OK)
		return st;
	*in_parent = false;
	memset(&a, 0, sizeof(a));
	a.from.dir = fh3(&from_dir.fh);
	a.from.name = (char *)from_name;
	a.to.dir = fh3(&to_dir.fh);
	a.to.name = (char *)to_name;
	st = NFS3(c, nb, rename, "RENAME3", NULL, &a);
	if (st != STATUS_FATAL) {
		cache_del_tree(nb, from);
		cache_del_tree(nb, to);
	}
	return st;
}

static uint32_t nfsb_rename3(struct client *c, const struct op *op)
{
	bool in_parent;

	(void)op;
	return rename_paths(c, c->path[0], c->path[1], &in_parent);
}

static uint32_t do_link3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	struct lookup target;
	LINK3args a;
	uint32_t st = resolve(c, nb, c->path[1], strlen(c->path[1]), &target);

	if (st != NFS3_OK)
		return st;
	memset(&a, 0, sizeof(a));
	a.file = fh3(&target.fh);
	a.link.dir = fh3(dir);
	a.link.name = (char *)name;
	return NFS3(c, nb, link, "LINK3", NULL, &a);
}

/* LINK3 path target: makes path, a hard link to the existing target. */
static uint32_t nfsb_link3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_link3, &lk);
}

static uint32_t do_readdirplus3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_readdirplus(c, nb, fh, 0, NULL);
}

/* READDIRPLUS3 path: one call from the start (dircount 8192, maxcount
 * 32768), as the first READDIRPLUS of a listing. */
static uint32_t nfsb_readdirplus3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_readdirplus3, &lk);
}

static uint32_t nfsb_fsstat3(struct client *c, const struct op *op)
{
	(void)op;
	return rpc_fsstat(c, c->priv);
}

static uint32_t nfsb_fsinfo3(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	FSINFO3args a;

	(void)op;
	memset(&a, 0, sizeof(a));
	a.fsroot = fh3(&nb->root);
	return NFS3(c, nb, fsinfo, "FSINFO3", NULL, &a);
}

static uint32_t do_pathconf(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	PATHCONF3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(fh);
	return NFS3(c, nb, pathconf, "PATHCONF3", NULL, &a);
}

/* PATHCONF3 [path]: of the export root without a path. */
static uint32_t nfsb_pathconf3(struct client *c, const struct op *op)
{
	struct lookup lk;

	return on_object(c, op->npaths ? c->path[0] : "", do_pathconf, &lk);
}

static uint32_t do_commit3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_commit(c, nb, fh, (uint64_t)c->num[0], (uint32_t)c->num[1]);
}

/* COMMIT3 path [offset count]: 0 0 commits the whole file. */
static uint32_t nfsb_commit3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	if (c->num[0] < 0 || c->num[1] < 0 || c->num[1] > UINT32_MAX)
		return NFS3ERR_INVAL;
	return on_object(c, c->path[0], do_commit3, &lk);
}

/* ---- removing trees: READDIRPLUS3, REMOVE3, RMDIR3; never follows a
 * symlink (NFS never does: LOOKUP3 and REMOVE3 act on the link itself) ---- */

static uint32_t remove_entries(struct client *c, struct nfsb *nb, const struct fhandle *dir, int depth);

static uint32_t remove_entry(struct client *c, struct nfsb *nb, const struct fhandle *dir,
			     struct dir_entry *e, int depth)
{
	uint32_t st;

	if (!e->type || (e->type == NF3DIR && !e->have_fh)) {
		st = rpc_lookup(c, nb, dir, e->name);
		if (st == NFS3ERR_NOENT)
			return NFS3_OK;
		if (st != NFS3_OK)
			return st;
		e->type = nb->r.type;
		e->have_fh = nb->r.have_fh;
		e->fh = nb->r.fh;
	}
	if (e->type != NF3DIR) {
		st = rpc_remove(c, nb, dir, e->name);
		return st == NFS3ERR_NOENT ? NFS3_OK : st;
	}
	if (!e->have_fh)
		return NFS3ERR_SERVERFAULT;
	st = remove_entries(c, nb, &e->fh, depth + 1);
	if (st != NFS3_OK)
		return st;
	st = rpc_rmdir(c, nb, dir, e->name);
	return st == NFS3ERR_NOENT ? NFS3_OK : st;
}

/* Empty a directory.  Listed once whole, then emptied; listed again in case
 * names appeared meanwhile (another client), until nothing is left. */
static uint32_t remove_entries(struct client *c, struct nfsb *nb, const struct fhandle *dir, int depth)
{
	uint32_t st = NFS3_OK;

	if (depth > REMOVE_DEPTH_MAX)
		return NFS3ERR_NAMETOOLONG;
	for (int pass = 0; pass < 8; pass++) {
		struct dir_list dl = { 0 };

		nb->collect = &dl;
		st = list_dir(c, nb, dir);
		nb->collect = NULL;
		if (st == NFS3_OK && dl.n == 0) {
			dir_list_free(&dl);
			return NFS3_OK;
		}
		for (size_t i = 0; i < dl.n && st == NFS3_OK; i++)
			st = remove_entry(c, nb, dir, &dl.e[i], depth);
		dir_list_free(&dl);
		if (st != NFS3_OK)
			return st;
	}
	return NFS3ERR_NOTEMPTY;
}

/* Remove path and everything under it; NFS3_OK if it is gone (or was never
 * there). */
static uint32_t remove_path(struct client *c, struct nfsb *nb, const char *path)
{
	struct lookup lk, dir;
	const char *name;
	uint32_t st;

	st = revalidate(c, nb, path, &lk);
	if (st == NFS3ERR_NOENT || (st == NFS3ERR_NOTDIR && lk.in_parent))
		return NFS3_OK;
	if (st != NFS3_OK)
		return st;
	if (lk.type == NF3DIR)
		st = remove_entries(c, nb, &lk.fh, 0);
	if (st == NFS3_OK && *path) {
		st = resolve_parent(c, nb, path, &dir, &name);
		if (st == NFS3_OK)
			st = lk.type == NF3DIR ? rpc_rmdir(c, nb, &dir.fh, name) :
						 rpc_remove(c, nb, &dir.fh, name);
		if (st == NFS3ERR_NOENT)
			st = NFS3_OK;
	}
	if (st != STATUS_FATAL)
		cache_del_tree(nb, path);
	return st;
}

static int nfsb_remove_tree(struct client *c, const char *path)
{
	struct nfsb *nb = c->priv;
	uint32_t st;
	char b[16];

	if (nb->dead)
		return -1;
	st = remove_path(c, nb, path);
	if (st == NFS3_OK)
		return 0;
	if (st != STATUS_FATAL)
		snprintf(c->error, sizeof(c->error), "nfs: cannot remove %s: %s", shown(path),
			 status_name(DOMAIN_NFS, st, b));
	return -1;
}

static int nfsb_exists(struct client *c, const char *path)
{
	struct nfsb *nb = c->priv;
	struct lookup lk;
	uint32_t st = resolve(c, nb, path, strlen(path), &lk);
	char b[16];

	if (st == NFS3_OK)
		return 1;
	if (st == NFS3ERR_NOENT || st == NFS3ERR_NOTDIR)
		return 0;
	if (st != STATUS_FATAL)
		snprintf(c->error, sizeof(c->error), "nfs: cannot look up %s: %s", shown(path),
			 status_name(DOMAIN_NFS, st, b));
	return -1;
}

/* ---- the netbench ops over NFS ---- */

/* The NT status of a netbench op's NFS status: a name missing on the way
 * to the object is a missing path. */
static uint32_t nt(uint32_t st, bool in_parent)
{
	if (st == STATUS_FATAL)
		return st;
	if (in_parent && (st == NFS3ERR_NOENT || st == NFS3ERR_NOTDIR))
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt_from_nfs(st);
}

static struct nb_file *file_of(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct nb_file *f = &nb->files[op->handle];

	return f->open ? f : NULL;
}

static void file_set_path(struct nb_file *f, const char *path)
{
	size_t n = strlen(path) + 1;

	if (n > f->path_cap) {
		f->path = xrealloc(f->path, n);
		f->path_cap = n;
	}
	memcpy(f->path, path, n);
}

static void file_open(struct nb_file *f, const struct lookup *lk, const char *path, bool is_dir)
{
	f->open = true;
	f->is_dir = is_dir;
	f->delete_on_close = false;
	f->dirty = false;
	f->locks.n = 0;
	f->fh = lk->fh;
	file_set_path(f, path);
}

static uint32_t release_locks(struct client *c, struct nfsb *nb, struct nb_file *f);

/* A trace may open a file number that is still open: the old file's locks
 * go (its unstable writes stay with the server, as a client that drops a
 * descriptor without closing leaves them). */
static uint32_t file_reuse(struct client *c, struct nfsb *nb, struct nb_file *f)
{
	if (!f->open || !f->locks.n)
		return NFS3_OK;
	return release_locks(c, nb, f) == STATUS_FATAL ? STATUS_FATAL : NFS3_OK;
}

/* A new object's handle from CREATE3/MKDIR3, or its LOOKUP3 if the server
 * did not send one. */
static uint32_t new_object(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk,
			   uint8_t type)
{
	if (nb->r.have_fh) {
		lk->fh = nb->r.fh;
		lk->type = nb->r.type ? nb->r.type : type;
		cache_put(nb, path, strlen(path), &lk->fh, lk->type);
		return NFS3_OK;
	}
	return resolve(c, nb, path, strlen(path), lk);
}

/*
 * NTCreateX path create_options disposition fnum.  Opening an existing
 * name: GETATTR3 of its cached handle or LOOKUP3; creating: CREATE3
 * (GUARDED for CREATE, UNCHECKED otherwise, size 0 to overwrite) or MKDIR3
 * with the directory option; OVERWRITE: LOOKUP3 + SETATTR3 size 0.
 */
static uint32_t nfsb_ntcreatex(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct nb_file *f = &nb->files[op->handle];
	char *path = c->path[0];
	uint64_t opts = (uint64_t)c->num[0];
	int disp = (int)c->num[1];
	bool want_dir = opts & FILE_DIRECTORY_FILE, non_dir = opts & FILE_NON_DIRECTORY_FILE;
	struct lookup lk, dir;
	const char *name;
	uint32_t st;

	if (c->num[1] < DISP_SUPERSEDE || c->num[1] > DISP_OVERWRITE_IF)
		return NT_STATUS_INVALID_PARAMETER;
	if (want_dir && disp != DISP_OPEN && disp != DISP_CREATE && disp != DISP_OPEN_IF)
		return NT_STATUS_INVALID_PARAMETER;
	if (disp == DISP_OPEN || disp == DISP_OPEN_IF || disp == DISP_OVERWRITE) {
		st = revalidate(c, nb, path, &lk);
		if (st == NFS3ERR_NOENT && !lk.in_parent && disp == DISP_OPEN_IF)
			goto create;
		if (st != NFS3_OK)
			return nt(st, lk.in_parent);
		if (want_dir && lk.type != NF3DIR)
			return NT_STATUS_NOT_A_DIRECTORY;
		if (non_dir && lk.type == NF3DIR)
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		if (disp == DISP_OVERWRITE) {
			if (lk.type == NF3DIR)
				return NT_STATUS_FILE_IS_A_DIRECTORY;
			st = rpc_setattr(c, nb, &lk.fh, 0, 0);
			if (st != NFS3_OK)
				return nt(st, false);
		}
		if (file_reuse(c, nb, f) == STATUS_FATAL)
			return STATUS_FATAL;
		file_open(f, &lk, path, lk.type == NF3DIR);
		goto opened;
	}
create:
	st = resolve_parent(c, nb, path, &dir, &name);
	if (st != NFS3_OK)
		return nt(st, true);
	if (want_dir)
		st = rpc_mkdir(c, nb, &dir.fh, name);
	else
		st = rpc_create(c, nb, &dir.fh, name, disp == DISP_CREATE ? GUARDED : UNCHECKED,
				disp == DISP_SUPERSEDE || disp == DISP_OVERWRITE_IF);
	if (st == NFS3ERR_EXIST)
		return disp == DISP_CREATE ? NT_STATUS_OBJECT_NAME_COLLISION : NT_STATUS_FILE_IS_A_DIRECTORY;
	if (st == NFS3ERR_ISDIR)
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	if (st != NFS3_OK)
		return nt(st, false);
	st = new_object(c, nb, path, &lk, want_dir ? NF3DIR : NF3REG);
	if (st == NFS3_OK)
		st = file_reuse(c, nb, f);
	if (st != NFS3_OK)
		return nt(st, false);
	file_open(f, &lk, path, want_dir);
opened:
	f->delete_on_close = opts & FILE_DELETE_ON_CLOSE;
	return NT_STATUS_OK;
}

#if NLM_BUILT
static uint32_t nlm_call(struct client *c, struct nfsb *nb, int proc, const struct fhandle *fh,
			 uint64_t offset, uint64_t length);
#endif

static uint32_t release_locks(struct client *c, struct nfsb *nb, struct nb_file *f)
{
	uint32_t st = NLM4_GRANTED;

#if NLM_BUILT
	if (f->locks.n && nb->nlm)	/* closing a file drops its locks */
		st = nlm_call(c, nb, NLM4_UNLOCK, &f->fh, 0, 0);
#else
	(void)c;
	(void)nb;
#endif
	f->locks.n = 0;
	return st;
}

/* Close: COMMIT3 if UNSTABLE writes are pending (NFS close-to-open), then
 * REMOVE3/RMDIR3 for delete-on-close; nothing on the wire otherwise. */
static uint32_t close_file(struct client *c, struct nfsb *nb, struct nb_file *f)
{
	uint32_t st = NFS3_OK;
	struct lookup dir;
	const char *name;

	f->open = false;
	if (release_locks(c, nb, f) == STATUS_FATAL)
		return STATUS_FATAL;
	if (f->dirty)
		st = rpc_commit(c, nb, &f->fh, 0, 0);
	f->dirty = false;
	if (st != NFS3_OK || !f->delete_on_close || !f->path[0])
		return nt(st, false);
	st = resolve_parent(c, nb, f->path, &dir, &name);
	if (st == NFS3_OK)
		st = f->is_dir ? rpc_rmdir(c, nb, &dir.fh, name) : rpc_remove(c, nb, &dir.fh, name);
	if (st != STATUS_FATAL)
		cache_del_tree(nb, f->path);
	return st == NFS3ERR_NOENT ? NT_STATUS_OK : nt(st, false);
}

static uint32_t nfsb_close(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	return close_file(c, c->priv, f);
}

/* ReadX/READ: READ3s of at most rsize bytes until size is read or the file
 * ends. */
static uint32_t read_file(struct client *c, struct nb_file *f, int64_t offset, int64_t size)
{
	struct nfsb *nb = c->priv;
	uint64_t done = 0;

	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (f->is_dir)
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	if (iobuf_grow(&nb->buf, c->nc.rng, MIN((size_t)size, (size_t)nb->rsize)) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	nb->copy_read = c->writepattern;
	while (done < (uint64_t)size) {
		uint32_t want = (uint32_t)MIN((uint64_t)size - done, (uint64_t)nb->rsize);
		uint64_t at = (uint64_t)offset + done;
		uint32_t st = rpc_read(c, nb, &f->fh, at, want);

		if (st != NFS3_OK)
			return nt(st, false);
		if (c->writepattern &&
		    !iobuf_pattern_ok(&nb->buf, nb->buf.readbuf, at, nb->r.count))
			return NT_STATUS_FILE_CORRUPT_ERROR;
		done += nb->r.count;
		if (nb->r.count < want || nb->r.eof)
			break;
	}
	c->bytes = done;
	return done == 0 && size > 0 ? NT_STATUS_END_OF_FILE : NT_STATUS_OK;
}

/* WriteX/WRITE: WRITE3s of at most wsize bytes, UNSTABLE (committed at
 * Close or Flush), FILE_SYNC with -s or -F. */
static uint32_t write_file(struct client *c, struct nb_file *f, int64_t offset, int64_t size)
{
	struct nfsb *nb = c->priv;
	int stable = c->opt->sync_open || c->opt->do_fsync ? FILE_SYNC : UNSTABLE;
	uint64_t done = 0;
	uint32_t st;

	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (f->is_dir)
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	if (iobuf_grow(&nb->buf, c->nc.rng, MIN((size_t)size, (size_t)nb->wsize)) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (c->opt->one_byte_write_fix && size == 1) {
		/* a client extending a file by writing its last byte */
		st = rpc_getattr(c, nb, &f->fh);
		if (st != NFS3_OK)
			return nt(st, false);
		if ((uint64_t)offset >= nb->r.size) {
			st = rpc_setattr(c, nb, &f->fh, offset + 1, 0);
			c->bytes = st == NFS3_OK ? 1 : 0;
			return nt(st, false);
		}
	}
	while (done < (uint64_t)size) {
		uint32_t want = (uint32_t)MIN((uint64_t)size - done, (uint64_t)nb->wsize);

		st = rpc_write(c, nb, &f->fh, (uint64_t)offset + done, want, stable);
		if (st != NFS3_OK)
			return nt(st, false);
		if (nb->r.committed != FILE_SYNC)
			f->dirty = true;
		done += nb->r.count;
		if (nb->r.count < want)
			break;
	}
	c->bytes = done;
	if (c->opt->stat_check) {
		st = rpc_getattr(c, nb, &f->fh);
		if (st != NFS3_OK)
			return nt(st, false);
		if (nb->r.size < (uint64_t)offset + done)
			return NT_STATUS_FILE_INVALID;
	}
	return NT_STATUS_OK;
}

static uint32_t nfsb_readx(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	return read_file(c, f, c->num[1], c->num[2]);
}

static uint32_t nfsb_writex(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	return write_file(c, f, c->num[1], c->num[2]);
}

/* Flush: COMMIT3 when UNSTABLE writes are pending, as fsync(2) on an NFS
 * client does. */
static uint32_t nfsb_flush(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);
	uint32_t st;

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	if (!f->dirty)
		return NT_STATUS_OK;
	st = rpc_commit(c, c->priv, &f->fh, 0, 0);
	if (st == NFS3_OK)
		f->dirty = false;
	return nt(st, false);
}

/* ---- locks: SMB semantics kept per handle; with --enable-nlm each is also
 * an NLM v4 LOCK/UNLOCK on the server (other clients then see it) ---- */

#if NLM_BUILT
static void ex_nlm_test(struct nfsb *nb, void *res)
{
	nb->r.status = ((NLM4_TESTres *)res)->reply.status;
}

static void ex_nlm_lock(struct nfsb *nb, void *res)
{
	nb->r.status = ((NLM4_LOCKres *)res)->status;
}

static void ex_nlm_unlock(struct nfsb *nb, void *res)
{
	nb->r.status = ((NLM4_UNLOCKres *)res)->status;
}

/* One NLM v4 call (NLM4_TEST, NLM4_LOCK or NLM4_UNLOCK), exclusive,
 * non-blocking, as this client's lock owner. */
static uint32_t nlm_call(struct client *c, struct nfsb *nb, int proc, const struct fhandle *fh,
			 uint64_t offset, uint64_t length)
{
	uint32_t cookie = ++nb->nlm_cookie;
	nlm4_lock lock;
	bool queued;

	memset(&lock, 0, sizeof(lock));
	lock.caller_name = nb->nlm_host;
	lock.fh.data.data_len = fh->len;
	lock.fh.data.data_val = (char *)fh->data;
	lock.oh = nb->nlm_owner;
	lock.svid = (u_int)c->id + 1;
	lock.l_offset = offset;
	lock.l_len = length;
	if (nb->dead)
		return STATUS_FATAL;
	if (proc == NLM4_TEST) {
		NLM4_TESTargs a;

		memset(&a, 0, sizeof(a));
		a.cookie.data.data_len = sizeof(cookie);
		a.cookie.data.data_val = (char *)&cookie;
		a.exclusive = 1;
		a.lock = lock;
		reply_reset(nb, ex_nlm_test);
		queued = QUEUED(RAW(nlm4_test)(nb->nlm, on_reply, &a, nb));
	} else if (proc == NLM4_LOCK) {
		NLM4_LOCKargs a;

		memset(&a, 0, sizeof(a));
		a.cookie.data.data_len = sizeof(cookie);
		a.cookie.data.data_val = (char *)&cookie;
		a.exclusive = 1;
		a.lock = lock;
		reply_reset(nb, ex_nlm_lock);
		queued = QUEUED(RAW(nlm4_lock)(nb->nlm, on_reply, &a, nb));
	} else {
		NLM4_UNLOCKargs a;

		memset(&a, 0, sizeof(a));
		a.cookie.data.data_len = sizeof(cookie);
		a.cookie.data.data_val = (char *)&cookie;
		a.lock = lock;
		reply_reset(nb, ex_nlm_unlock);
		queued = QUEUED(RAW(nlm4_unlock)(nb->nlm, on_reply, &a, nb));
	}
	if (!queued)
		return not_queued(c, nb, nb->nlm, "NLM");
	return wait_reply(c, nb, nb->nlm, proc == NLM4_TEST ? "NLM4 TEST" :
				     proc == NLM4_LOCK ? "NLM4 LOCK" : "NLM4 UNLOCK");
}

static uint32_t nt_from_nlm(uint32_t st)
{
	switch (st) {
	case NLM4_GRANTED:
		return NT_STATUS_OK;
	case NLM4_DENIED:
	case NLM4_BLOCKED:
	case NLM4_DEADLCK:
		return NT_STATUS_LOCK_NOT_GRANTED;
	case NLM4_STALE_FH:
		return NT_STATUS_INVALID_HANDLE;
	case NLM4_ROFS:
		return NT_STATUS_MEDIA_WRITE_PROTECTED;
	case NLM4_DENIED_NOLOCKS:
		return NT_STATUS_NO_MEMORY;
	default:
		return st == STATUS_FATAL ? st : NT_STATUS_UNSUCCESSFUL;
	}
}

/* LOCK4/UNLOCK4/TEST4 path offset length: the NLM v4 call itself. */
static uint32_t nlm_path_op(struct client *c, const struct op *op, int proc)
{
	struct nfsb *nb = c->priv;
	struct lookup lk;
	uint32_t st;

	(void)op;
	if (c->num[0] < 0 || c->num[1] < 0)
		return NLM4_FAILED;
	st = resolve(c, nb, c->path[0], strlen(c->path[0]), &lk);
	if (st == STATUS_FATAL)
		return st;
	if (st != NFS3_OK)
		return NLM4_STALE_FH;
	return nlm_call(c, nb, proc, &lk.fh, (uint64_t)c->num[0], (uint64_t)c->num[1]);
}

static uint32_t nfsb_lock4(struct client *c, const struct op *op)
{
	return nlm_path_op(c, op, NLM4_LOCK);
}

static uint32_t nfsb_unlock4(struct client *c, const struct op *op)
{
	return nlm_path_op(c, op, NLM4_UNLOCK);
}

static uint32_t nfsb_test4(struct client *c, const struct op *op)
{
	return nlm_path_op(c, op, NLM4_TEST);
}
#endif

static uint32_t nfsb_lockx(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct nb_file *f = file_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	if (c->num[1] < 0 || c->num[2] < 0)
		return NT_STATUS_INVALID_LOCK_RANGE;
	if (lock_table_overlaps(&f->locks, offset, length))
		return NT_STATUS_LOCK_NOT_GRANTED;	/* SMB locks don't stack */
#if NLM_BUILT
	if (nb->nlm) {
		uint32_t st = nt_from_nlm(nlm_call(c, nb, NLM4_LOCK, &f->fh, offset, length));

		if (st != NT_STATUS_OK)
			return st;
	}
#else
	(void)nb;
#endif
	return lock_table_add(&f->locks, offset, length) ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static uint32_t nfsb_unlockx(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct nb_file *f = file_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	if (lock_table_remove(&f->locks, offset, length)) {
#if NLM_BUILT
		if (nb->nlm)
			return nt_from_nlm(nlm_call(c, nb, NLM4_UNLOCK, &f->fh, offset, length));
#else
		(void)nb;
#endif
		return NT_STATUS_OK;
	}
	return NT_STATUS_RANGE_NOT_LOCKED;
}

/* ---- netbench metadata ---- */

static uint32_t nfsb_qpathinfo(struct client *c, const struct op *op)
{
	struct lookup lk;
	uint32_t st;

	(void)op;
	st = revalidate(c, c->priv, c->path[0], &lk);
	return nt(st, lk.in_parent);
}

static uint32_t nfsb_qfileinfo(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	return nt(rpc_getattr(c, c->priv, &f->fh), false);
}

static uint32_t nfsb_qfsinfo(struct client *c, const struct op *op)
{
	(void)op;
	return nt(rpc_fsstat(c, c->priv), false);
}

/* SET_FILE_INFORMATION: level 1004 (FileBasicInformation) and 1
 * (SMB_INFO_STANDARD) set the times (SETATTR3); 1013 marks the file
 * delete-on-close; other levels send nothing. */
static uint32_t nfsb_sfileinfo(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	switch (c->num[1]) {
	case 1004:
	case 1:
		return nt(rpc_setattr(c, c->priv, &f->fh, -1, 0), false);
	case 1013:
		f->delete_on_close = true;
		return NT_STATUS_OK;
	default:
		return NT_STATUS_OK;
	}
}

/* FIND_FIRST pattern ...: READDIRPLUS3 of the pattern's directory, page
 * after page, matching the last component. */
static uint32_t nfsb_find_first(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct lookup dir;
	const char *pattern;
	size_t dirlen = split_path(c->path[0], &pattern);
	uint32_t st;

	(void)op;
	st = resolve(c, nb, c->path[0], dirlen, &dir);
	if (st != NFS3_OK)
		return st == NFS3ERR_NOENT || st == NFS3ERR_NOTDIR ? NT_STATUS_OBJECT_PATH_NOT_FOUND :
								    nt(st, true);
	nb->match = pattern;
	nb->matches = 0;
	st = list_dir(c, nb, &dir.fh);
	nb->match = NULL;
	if (st == NFS3ERR_NOTDIR)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	if (st != NFS3_OK)
		return nt(st, false);
	return nb->matches ? NT_STATUS_OK : NT_STATUS_NO_SUCH_FILE;
}

/* Rename old new: LOOKUP3 of new first, since NT renames do not replace. */
static uint32_t nfsb_rename(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct lookup lk;
	bool in_parent;
	uint32_t st;

	(void)op;
	st = revalidate(c, nb, c->path[1], &lk);
	if (st == NFS3_OK)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	if (st == STATUS_FATAL)
		return st;
	st = rename_paths(c, c->path[0], c->path[1], &in_parent);
	return nt(st, in_parent);
}

static uint32_t nfsb_unlink(struct client *c, const struct op *op)
{
	struct lookup lk;
	uint32_t st;

	(void)op;
	st = on_parent(c, c->path[0], do_remove3, &lk);
	if (st == NFS3ERR_ISDIR)
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	return nt(st, lk.in_parent);
}

/* Mkdir: MKDIR3; an existing directory is fine (as dbench). */
static uint32_t nfsb_mkdir(struct client *c, const struct op *op)
{
	struct lookup lk;
	uint32_t st;

	(void)op;
	st = on_parent(c, c->path[0], do_mkdir3, &lk);
	if (st == NFS3ERR_EXIST) {
		st = revalidate(c, c->priv, c->path[0], &lk);
		if (st == NFS3_OK)
			return lk.type == NF3DIR ? NT_STATUS_OK : NT_STATUS_OBJECT_NAME_COLLISION;
	}
	return nt(st, lk.in_parent);
}

static uint32_t nfsb_rmdir(struct client *c, const struct op *op)
{
	struct lookup lk;
	uint32_t st;

	(void)op;
	st = on_parent(c, c->path[0], do_rmdir3, &lk);
	if (st == NFS3ERR_NOTEMPTY || st == NFS3ERR_EXIST)
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	return nt(st, lk.in_parent);
}

static uint32_t nfsb_deltree(struct client *c, const struct op *op)
{
	(void)op;
	return nt(remove_path(c, c->priv, c->path[0]), false);
}

/* ---- the plain SMB ops: files named by path ---- */

static uint32_t nfsb_smb_open(struct client *c, const struct op *op)
{
	struct nfsb *nb = c->priv;
	struct nb_file *f = &nb->files[op->handle];
	uint64_t fl = (uint64_t)c->num[0];
	char *path = c->path[0];
	struct lookup lk, dir;
	const char *name;
	uint32_t st;

	if (fl & (SMB_OPEN_CREATE | SMB_OPEN_EXCL)) {
		st = resolve_parent(c, nb, path, &dir, &name);
		if (st != NFS3_OK)
			return nt(st, true);
		st = rpc_create(c, nb, &dir.fh, name, fl & SMB_OPEN_EXCL ? GUARDED : UNCHECKED,
				fl & SMB_OPEN_TRUNCATE);
		if (st == NFS3ERR_EXIST)
			return fl & SMB_OPEN_EXCL ? NT_STATUS_OBJECT_NAME_COLLISION :
						    NT_STATUS_FILE_IS_A_DIRECTORY;
		if (st == NFS3_OK)
			st = new_object(c, nb, path, &lk, NF3REG);
		if (st != NFS3_OK)
			return nt(st, false);
	} else {
		st = revalidate(c, nb, path, &lk);
		if (st != NFS3_OK)
			return nt(st, lk.in_parent);
		if (lk.type == NF3DIR)
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		if (fl & SMB_OPEN_TRUNCATE) {
			st = rpc_setattr(c, nb, &lk.fh, 0, 0);
			if (st != NFS3_OK)
				return nt(st, false);
		}
	}
	if (file_reuse(c, nb, f) == STATUS_FATAL)
		return STATUS_FATAL;
	file_open(f, &lk, path, false);
	return NT_STATUS_OK;
}

static uint32_t nfsb_smb_read(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	return read_file(c, f, c->num[0], c->num[1]);
}

static uint32_t nfsb_smb_write(struct client *c, const struct op *op)
{
	struct nb_file *f = file_of(c, op);

	if (!f)
		return NT_STATUS_INVALID_HANDLE;
	return write_file(c, f, c->num[0], c->num[1]);
}

static uint32_t do_list(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return list_dir(c, nb, fh);
}

static uint32_t nfsb_smb_readdir(struct client *c, const struct op *op)
{
	struct lookup lk;
	uint32_t st;

	(void)op;
	st = on_object(c, c->path[0], do_list, &lk);
	if (st == NFS3ERR_NOTDIR && !lk.in_parent)
		return NT_STATUS_NOT_A_DIRECTORY;
	return nt(st, lk.in_parent);
}

/* ---- setup ---- */

/* Connect a second RPC context to the server's NLM v4 service. */
#if NLM_BUILT
static void on_connect(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct nfsb *nb = private_data;

	(void)rpc;
	nb->r.rpc_status = status;
	if (status != RPC_STATUS_SUCCESS && data)
		snprintf(nb->r.error, sizeof(nb->r.error), "%s", (const char *)data);
	nb->r.status = status == RPC_STATUS_SUCCESS ? NLM4_GRANTED : NLM4_FAILED;
	nb->r.done = true;
}

static int nlm_connect(struct client *c, struct nfsb *nb)
{
	nb->nlm = rpc_init_context();
	if (!nb->nlm) {
		snprintf(c->error, sizeof(c->error), "nfs: cannot create an RPC context for NLM");
		return -1;
	}
	snprintf(nb->nlm_host, sizeof(nb->nlm_host), "dbench");
	snprintf(nb->nlm_owner, sizeof(nb->nlm_owner), "dbench.%d.%d", (int)getpid(), c->id);
	reply_reset(nb, NULL);
	if (rpc_connect_program_async(nb->nlm, nfs_opt.server, NLM_PROGRAM, NLM_V4, on_connect, nb) != 0) {
		snprintf(c->error, sizeof(c->error), "nfs: NLM on %s: %s", nfs_opt.server,
			 rpc_get_error(nb->nlm));
		return -1;
	}
	return wait_reply(c, nb, nb->nlm, "NLM (byte-range locks) connect") == NLM4_GRANTED ? 0 : -1;
}
#endif

/* Why a server does not answer on a TCP port: "" if it does, else the
 * reason (connect refused, unreachable, timed out). */
static void probe_port(const char *server, int port, char *why, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char service[16];
	struct pollfd pfd;
	int fd, err = 0, rc;
	socklen_t elen = sizeof(err);

	why[0] = '\0';
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(server, service, &hints, &ai);
	if (rc != 0) {
		snprintf(why, len, "%s", gai_strerror(rc));
		return;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		goto out;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = errno;
		} else {
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			if (poll(&pfd, 1, nfs_opt.timeout_s * 1000) <= 0)
				err = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
				err = errno;
		}
	}
	if (err)
		snprintf(why, len, "%s", strerror(err));
	close(fd);
out:
	freeaddrinfo(ai);
}

/* A libnfs context with our settings, mounted.  On failure, NULL and one
 * line in err. */
static struct nfs_context *mount_export(char *err, size_t errlen)
{
	struct nfs_context *nfs = nfs_init_context();
	const char *server = nfs_opt.server, *export = nfs_opt.export_path;
	struct nfs_url *url = NULL;

	if (!nfs) {
		snprintf(err, errlen, "nfs: cannot create a libnfs context");
		return NULL;
	}
	if (nfs_opt.url || nfs_opt.port_url[0]) {
		url = nfs_opt.url ? nfs_parse_url_dir(nfs, nfs_opt.url) :
				    nfs_parse_url_incomplete(nfs, nfs_opt.port_url);
		if (!url) {
			snprintf(err, errlen, "nfs: bad URL '%s': %s",
				 nfs_opt.url ? nfs_opt.url : nfs_opt.port_url, nfs_get_error(nfs));
			goto fail;
		}
		if (nfs_opt.url) {
			server = url->server;
			export = url->path;
		}
	}
	/* always a timeout (libnfs waits forever without one) and no
	 * reconnecting, so a dead server fails at once */
	nfs_set_timeout(nfs, nfs_opt.timeout_s * 1000);
	nfs_set_autoreconnect(nfs, 0);
	if (nfs_mount(nfs, server, export) < 0) {
		const char *text = nfs_get_error(nfs), *hint = "";
		int port = nfs_opt.mount_port_num ? nfs_opt.mount_port_num : 111;
		char why[128] = "";

		/* libnfs says "nfs_service failed" when it cannot connect:
		 * find out why */
		if (!strstr(text, "MNT3ERR")) {
			probe_port(server, port, why, sizeof(why));
			if (!why[0] && nfs_opt.nfs_port_num) {
				port = nfs_opt.nfs_port_num;
				probe_port(server, port, why, sizeof(why));
			}
		} else {
			hint = " (is it exported to this client?)";
		}
		if (why[0])
			snprintf(err, errlen, "nfs: cannot mount %s:%s: no answer on port %d (%s): %s",
				 server, export, port,
				 port == nfs_opt.nfs_port_num ? "nfs" : port == 111 ? "portmapper" : "mount",
				 why);
		else if (strcmp(text, "nfs_service failed") == 0)
			snprintf(err, errlen, "nfs: cannot mount %s:%s: the server's NFS or MOUNT service does not answer",
				 server, export);
		else
			snprintf(err, errlen, "nfs: cannot mount %s:%s: %s%s", server, export, text, hint);
		goto fail;
	}
	if (url)
		nfs_destroy_url(url);
	return nfs;
fail:
	if (url)
		nfs_destroy_url(url);
	nfs_destroy_context(nfs);
	return NULL;
}

/* The bytes a connection carried (TCP payload, both ways), for the
 * report's network line: the kernel counts them, so the client does no
 * work per op for it. */
static void count_wire_bytes(struct client *c, struct rpc_context *rpc)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int fd = rpc ? rpc_get_fd(rpc) : -1;

	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		return;
	client_count_net(c, ti.tcpi_bytes_acked, ti.tcpi_bytes_received);
}

static void nfsb_teardown(struct client *c)
{
	struct nfsb *nb = c->priv;

	if (!nb)
		return;
	count_wire_bytes(c, nb->rpc);
	count_wire_bytes(c, nb->nlm);
#if NLM_BUILT
	if (nb->nlm) {
		for (uint32_t i = 0; i < nb->nfiles && !nb->dead; i++)
			if (nb->files[i].open && nb->files[i].locks.n)
				release_locks(c, nb, &nb->files[i]);
		rpc_destroy_context(nb->nlm);
	}
#endif
	if (nb->nfs) {
#ifdef HAVE_NFS_UMOUNT
		/* a synchronous call: with a timeout again */
		nfs_set_timeout(nb->nfs, nfs_opt.timeout_s * 1000);
		if (!nb->dead)
			nfs_umount(nb->nfs);
#endif
		nfs_destroy_context(nb->nfs);
	}
	for (uint32_t i = 0; i < nb->nfiles; i++) {
		free(nb->files[i].path);
		lock_table_free(&nb->files[i].locks);
	}
	cache_clear(nb);
	free(nb->cache.slot);
	free(nb->files);
	iobuf_free(&nb->buf);
	free(nb);
	c->priv = NULL;
}

static bool uses_nlm_ops(const struct program *prog)
{
	return prog->count[OP_LOCK4] || prog->count[OP_UNLOCK4] || prog->count[OP_TEST4];
}

static int nfsb_setup(struct client *c)
{
	struct nfsb *nb = xcalloc(1, sizeof(*nb));
	const struct nfs_fh3 *root;
	uint64_t max;

	c->priv = nb;
	nb->timeout_ns = (uint64_t)nfs_opt.timeout_s * NSEC_PER_SEC;
	nb->cache.cap = 256;
	nb->cache.slot = xcalloc(nb->cache.cap, sizeof(*nb->cache.slot));
	nb->nfiles = c->prog->nhandles;
	nb->files = xcalloc(nb->nfiles ? nb->nfiles : 1, sizeof(*nb->files));
	if (c->id == 0 && !c->cleanup_only && uses_nlm_ops(c->prog) && !nfs_opt.enable_nlm) {
		snprintf(c->error, sizeof(c->error),
			 "nfs: the loadfile has NLM lock operations (LOCK4, UNLOCK4, TEST4): run with --enable-nlm");
		goto fail;
	}
	nb->nfs = mount_export(c->error, sizeof(c->error));
	if (!nb->nfs)
		goto fail;
	nb->rpc = nfs_get_rpc_context(nb->nfs);
	/*
	 * Our calls have their own deadline (wait_reply); libnfs's timeout
	 * served the synchronous mount and comes back for the umount.  (Either
	 * way libnfs 4.x scans all its 1024 lists of pending calls on every
	 * rpc_service(): about half the client's instructions per op, which
	 * libnfs >= 5 cuts to one scan a second.)
	 */
	nfs_set_timeout(nb->nfs, -1);
	root = nfs_get_rootfh(nb->nfs);
	{
		struct nfs_fh3 r;

		/* a { length, bytes } pair in every libnfs, whatever it is called */
		memcpy(&r, root, sizeof(r));
		if (!fh_copy(&nb->root, &r)) {
			snprintf(c->error, sizeof(c->error), "nfs: the server gave no usable root handle");
			goto fail;
		}
	}
	max = nfs_get_readmax(nb->nfs);
	nb->rsize = (uint32_t)(max && max < NB_IO_MAX ? max : NB_IO_MAX);
	max = nfs_get_writemax(nb->nfs);
	nb->wsize = (uint32_t)(max && max < NB_IO_MAX ? max : NB_IO_MAX);
	if (iobuf_grow(&nb->buf, c->nc.rng, 1 << 16) < 0) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		goto fail;
	}
#if NLM_BUILT
	if (nfs_opt.enable_nlm && !c->cleanup_only && nlm_connect(c, nb) < 0)
		goto fail;
#endif
	return 0;
fail:
	nfsb_teardown(c);
	return -1;
}

/* ---- options, checked once in the parent ---- */

static int port_option(const char *name, const char *text, int *port)
{
	int64_t v;

	if (!text)
		return 0;
	if (parse_i64(text, &v) < 0 || v < 1 || v > 65535) {
		warnx_("%s: '%s' is not a port (1 to 65535)", name, text);
		return -1;
	}
	*port = (int)v;
	return 0;
}

/* --server HOST[:PORT] (or tbench's SERVER argument); a PORT is the NFS port. */
static int split_server(const char *server, int *port)
{
	const char *colon = strrchr(server, ':');
	size_t len = strlen(server);

	if (colon && strchr(server, ':') == colon && server[0] != '[') {
		int64_t v;

		if (parse_i64(colon + 1, &v) < 0 || v < 1 || v > 65535) {
			warnx_("nfs: --server %s: '%s' is not a port", server, colon + 1);
			return -1;
		}
		*port = (int)v;
		len = (size_t)(colon - server);
	}
	if (len == 0 || len >= sizeof(nfs_opt.server)) {
		warnx_("nfs: --server '%s' is not a host name", server);
		return -1;
	}
	memcpy(nfs_opt.server, server, len);
	nfs_opt.server[len] = '\0';
	return 0;
}

static int check_options(const struct options *opt)
{
	int nfs_port = 0, mount_port = 0, server_port = 0;
	int64_t t = DEFAULT_TIMEOUT_S;

	if (strcmp(nfs_opt.protocol, "udp") == 0) {
		warnx_("nfs: --protocol udp: libnfs speaks NFS over TCP only; use --protocol tcp");
		return -1;
	}
	if (strcmp(nfs_opt.protocol, "tcp") != 0) {
		warnx_("nfs: --protocol '%s': expected tcp", nfs_opt.protocol);
		return -1;
	}
	if (nfs_opt.timeout && (parse_i64(nfs_opt.timeout, &t) < 0 || t < 1 || t > 3600)) {
		warnx_("nfs: --nfs-timeout '%s' is not a number of seconds (1 to 3600)", nfs_opt.timeout);
		return -1;
	}
	nfs_opt.timeout_s = (int)t;
	if (port_option("--nfs-port", nfs_opt.nfs_port, &nfs_port) < 0 ||
	    port_option("--mount-port", nfs_opt.mount_port, &mount_port) < 0)
		return -1;
	nfs_opt.mount_port_num = mount_port;
	if (nfs_opt.url) {
		if (strncmp(nfs_opt.url, "nfs://", 6) != 0) {
			warnx_("nfs: --nfs '%s' is not an nfs:// URL", nfs_opt.url);
			return -1;
		}
		if (nfs_opt.export || nfs_port || mount_port) {
			warnx_("nfs: --nfs names the export and ports itself; leave out --export, --nfs-port and --mount-port");
			return -1;
		}
		/* the server, for messages and NLM */
		snprintf(nfs_opt.server, sizeof(nfs_opt.server), "%.*s",
			 (int)strcspn(nfs_opt.url + 6, "/?:"), nfs_opt.url + 6);
		return 0;
	}
	if (!opt->server) {
		warnx_("nfs: no server: give --server HOST (or --nfs nfs://HOST/EXPORT)");
		return -1;
	}
	if (!nfs_opt.export) {
		warnx_("nfs: no export: give --export /PATH (or --nfs nfs://HOST/EXPORT)");
		return -1;
	}
	if (nfs_opt.export[0] != '/' || strlen(nfs_opt.export) >= sizeof(nfs_opt.export_path)) {
		warnx_("nfs: --export '%s' is not an absolute path", nfs_opt.export);
		return -1;
	}
	snprintf(nfs_opt.export_path, sizeof(nfs_opt.export_path), "%s", nfs_opt.export);
	if (split_server(opt->server, &server_port) < 0)
		return -1;
	if (!nfs_port)
		nfs_port = server_port ? server_port : opt->port;
	nfs_opt.nfs_port_num = nfs_port;
	if (nfs_port || mount_port) {
		int n = snprintf(nfs_opt.port_url, sizeof(nfs_opt.port_url), "nfs://%s/", nfs_opt.server);
		const char *sep = "?";

		if (nfs_port) {
			n += snprintf(nfs_opt.port_url + n, sizeof(nfs_opt.port_url) - (size_t)n,
				      "%snfsport=%d", sep, nfs_port);
			sep = "&";
		}
		if (mount_port)
			snprintf(nfs_opt.port_url + n, sizeof(nfs_opt.port_url) - (size_t)n,
				 "%smountport=%d", sep, mount_port);
	}
	return 0;
}

/* In the parent: check the options, then mount once, so that a wrong
 * export or a server that is not there is one line before any client
 * starts. */
static int nfsb_init(struct options *opt)
{
	char err[512];
	struct nfs_context *nfs;

	if (check_options(opt) < 0)
		return -1;
#if !NLM_BUILT
	if (nfs_opt.enable_nlm) {
		warnx_("nfs: --enable-nlm: this dbench was built with a libnfs without NLM");
		return -1;
	}
#endif
	nfs = mount_export(err, sizeof(err));
	if (!nfs) {
		warnx_("%s", err);
		return -1;
	}
	nfs_destroy_context(nfs);
	return 0;
}

const struct backend nfs_backend = {
	.abi = BACKEND_ABI,
	.name = "nfs",
	.description = "an NFSv3 server through libnfs (--server, --export)",
	.flags = BACKEND_SERVER | BACKEND_NETWORK | BACKEND_FILES | BACKEND_NFS_OPS,
	.options = nfs_options,
	.init = nfsb_init,
	.setup = nfsb_setup,
	.teardown = nfsb_teardown,
	.remove_tree = nfsb_remove_tree,
	.exists = nfsb_exists,
	.op = {
		[OP_NTCREATEX] = nfsb_ntcreatex,
		[OP_CLOSE] = nfsb_close,
		[OP_RENAME] = nfsb_rename,
		[OP_UNLINK] = nfsb_unlink,
		[OP_DELTREE] = nfsb_deltree,
		[OP_MKDIR] = nfsb_mkdir,
		[OP_RMDIR] = nfsb_rmdir,
		[OP_QPATHINFO] = nfsb_qpathinfo,
		[OP_QFILEINFO] = nfsb_qfileinfo,
		[OP_QFSINFO] = nfsb_qfsinfo,
		[OP_SFILEINFO] = nfsb_sfileinfo,
		[OP_FIND_FIRST] = nfsb_find_first,
		[OP_WRITEX] = nfsb_writex,
		[OP_READX] = nfsb_readx,
		[OP_LOCKX] = nfsb_lockx,
		[OP_UNLOCKX] = nfsb_unlockx,
		[OP_FLUSH] = nfsb_flush,
		[OP_SMB_OPEN] = nfsb_smb_open,
		[OP_SMB_CLOSE] = nfsb_close,
		[OP_SMB_READ] = nfsb_smb_read,
		[OP_SMB_WRITE] = nfsb_smb_write,
		[OP_SMB_READDIR] = nfsb_smb_readdir,
		[OP_SMB_STAT] = nfsb_qpathinfo,
		[OP_GETATTR3] = nfsb_getattr3,
		[OP_SETATTR3] = nfsb_setattr3,
		[OP_LOOKUP3] = nfsb_lookup3,
		[OP_ACCESS3] = nfsb_access3,
		[OP_READLINK3] = nfsb_readlink3,
		[OP_READ3] = nfsb_read3,
		[OP_WRITE3] = nfsb_write3,
		[OP_CREATE3] = nfsb_create3,
		[OP_MKDIR3] = nfsb_mkdir3,
		[OP_SYMLINK3] = nfsb_symlink3,
		[OP_REMOVE3] = nfsb_remove3,
		[OP_RMDIR3] = nfsb_rmdir3,
		[OP_RENAME3] = nfsb_rename3,
		[OP_LINK3] = nfsb_link3,
		[OP_READDIRPLUS3] = nfsb_readdirplus3,
		[OP_FSSTAT3] = nfsb_fsstat3,
		[OP_FSINFO3] = nfsb_fsinfo3,
		[OP_PATHCONF3] = nfsb_pathconf3,
		[OP_COMMIT3] = nfsb_commit3,
#if NLM_BUILT
		[OP_LOCK4] = nfsb_lock4,
		[OP_UNLOCK4] = nfsb_unlock4,
		[OP_TEST4] = nfsb_test4,
#endif
	},
};

BACKEND_MODULE(nfs_backend);
