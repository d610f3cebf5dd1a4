/*
 * nfs_rpc.c - the NFS backend's calls: one raw NFSv3 (or NLM v4) procedure
 * queued on the client's connection and waited for in our own poll loop
 * with a deadline; the reply's parts the ops need are copied out in the
 * callback (libnfs frees the reply after it).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

/* ---- small helpers ---- */

struct nfs_fh3 fh3(const struct fhandle *fh)
{
	struct nfs_fh3 f;

	f.data.data_len = fh->len;
	f.data.data_val = (char *)fh->data;
	return f;
}

bool fh_copy(struct fhandle *dst, const struct nfs_fh3 *src)
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

/* ---- calls: queue, wait with a deadline, copy the reply ---- */

void on_reply(struct rpc_context *rpc, int status, void *data, void *private_data)
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
	if (nb->as)
		nfs_async_wake(nb->as);
}

void reply_reset(struct nfsb *nb, void (*extract)(struct nfsb *, void *))
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

/* ---- waiting: one loop for the NFSv3, NLM and NFSv4 calls ---- */

int nfs_wait(struct rpc_context *rpc, struct nfs_async *as, int timeout_s,
	     bool (*done)(const void *arg), const void *arg, char *why, size_t whylen)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_s * NSEC_PER_SEC;

	if (nfs_async_lost(as, rpc)) {
		/* given up on (expire): fatal from now on */
		snprintf(why, whylen, "%s", as->expired ? "given up on earlier" :
			 "connection to the server lost");
		return -1;
	}
	/* send at once: the socket is almost always writable, and a poll
	 * saved is a system call per op; on a connection the process's
	 * clients share, the loop sends their calls together before it waits
	 * (each rpc_service() of libnfs < 6 walks its 1024 reply queues) */
	if (!nfs_async_batched(as, rpc) && (rpc_which_events(rpc) & POLLOUT) &&
	    rpc_service(rpc, POLLOUT) < 0 && !done(arg))
		goto lost;
	while (!done(arg) && nfs_async_on(as)) {
		/* an op on the event loop (nfs_async.c): the loop serves the
		 * connection and resumes the op when its reply is in */
		int w = nfs_async_wait(as, rpc, deadline);

		if (w == -2)
			goto lost;
		if (w < 0) {
			snprintf(why, whylen, "no reply in %d s: the server stopped answering", timeout_s);
			return -1;
		}
	}
	while (!done(arg)) {
		struct pollfd pfd = { .fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc) };
		uint64_t now = now_ns();
		int n, ms;

		if (pfd.fd < 0)
			goto lost;
		ms = now >= deadline ? 0 : (int)MIN((deadline - now) / NSEC_PER_MSEC + 1, 100);
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR) {
			snprintf(why, whylen, "poll: %s", strerror(errno));
			return -1;
		}
		if (rpc_service(rpc, n > 0 ? pfd.revents : 0) < 0 && !done(arg))
			goto lost;
		/* the deadline counts only when nothing came */
		if (n == 0 && now_ns() >= deadline && !done(arg)) {
			snprintf(why, whylen, "no reply in %d s: the server stopped answering", timeout_s);
			return -1;
		}
	}
	return 0;
lost:
	snprintf(why, whylen, "connection to the server lost (%s)", rpc_get_error(rpc));
	return -1;
}

const char *nfs_rpc_failure(int rpc_status, const char *error, int timeout_s, char *why,
			    size_t whylen)
{
	switch (rpc_status) {
	case RPC_STATUS_SUCCESS:
		return NULL;
	case RPC_STATUS_TIMEOUT:
		snprintf(why, whylen, "no reply in %d s: the server stopped answering", timeout_s);
		break;
	case RPC_STATUS_CANCEL:
		snprintf(why, whylen, "the call was cancelled");
		break;
	default:
		snprintf(why, whylen, "connection to the server lost (%s)", error[0] ? error : "RPC error");
	}
	return why;
}

static bool reply_done(const void *arg)
{
	const struct nfsb *nb = arg;

	return nb->r.done;
}

/* Wait for the reply of the call queued on rpc (the NFS or the NLM
 * connection): its status, or STATUS_FATAL. */
uint32_t wait_reply(struct client *c, struct nfsb *nb, struct rpc_context *rpc,
			   const char *what)
{
	int timeout_s = nfs_opt(c)->timeout_s;
	char why[sizeof(c->error)];

	if (nfs_wait(rpc, nb->as, timeout_s, reply_done, nb, why, sizeof(why)) < 0 ||
	    nfs_rpc_failure(nb->r.rpc_status, nb->r.error, timeout_s, why, sizeof(why)))
		return fail(c, nb, "%s: %s", what, why);
	return nb->r.status;
}

uint32_t not_queued(struct client *c, struct nfsb *nb, struct rpc_context *rpc,
			   const char *what)
{
	return fail(c, nb, "%s: cannot send: %s", what, rpc_get_error(rpc));
}

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

void ex_symlink(struct nfsb *nb, void *res)
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
	if (nb->copy_read && ok->data.data_val && ok->data.data_len <= nb->read_max)
		memcpy(nb->read_dst, ok->data.data_val, ok->data.data_len);
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

void dir_list_free(struct dir_list *dl)
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
		if (nb->list_fn)
			nb->list_fn(nb->list_arg, e.name);
		if (!nb->collect)
			continue;
		if (e.name_handle.handle_follows)
			have_fh = fh_copy(&fh, &e.name_handle.post_op_fh3_u.handle);
		dir_list_add(nb->collect, e.name, attr_type(&e.name_attributes), have_fh ? &fh : NULL);
	}
}

/* ---- single procedures ----
 *
 * One function a procedure, all of one shape (fill the procedure's own
 * arguments, NFS3() them): written out on purpose, because what differs is
 * the argument struct of each procedure (XDR types that share no layout),
 * and a table of setters would hide the one line that matters in each.
 * (duplicates: the only repeated shape left in src/backends, by choice.) */

uint32_t rpc_lookup(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	LOOKUP3args a;

	memset(&a, 0, sizeof(a));
	a.what.dir = fh3(dir);
	a.what.name = (char *)name;
	return NFS3(c, nb, lookup, "LOOKUP3", ex_lookup, &a);
}

uint32_t rpc_getattr(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	GETATTR3args a;

	memset(&a, 0, sizeof(a));
	a.object = fh3(fh);
	return NFS3(c, nb, getattr, "GETATTR3", ex_getattr, &a);
}

/* SETATTR3: size (if size >= 0), mode (if mode != 0), else the times to
 * the server's clock. */
uint32_t rpc_setattr(struct client *c, struct nfsb *nb, const struct fhandle *fh, int64_t size,
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

uint32_t rpc_create(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
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

uint32_t rpc_mkdir(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	MKDIR3args a;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.attributes.mode.set_it = 1;
	a.attributes.mode.set_mode3_u.mode = DIR_MODE;
	return NFS3(c, nb, mkdir, "MKDIR3", ex_mkdir, &a);
}

uint32_t rpc_remove(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	REMOVE3args a;

	memset(&a, 0, sizeof(a));
	a.object.dir = fh3(dir);
	a.object.name = (char *)name;
	return NFS3(c, nb, remove, "REMOVE3", NULL, &a);
}

uint32_t rpc_rmdir(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name)
{
	RMDIR3args a;

	memset(&a, 0, sizeof(a));
	a.object.dir = fh3(dir);
	a.object.name = (char *)name;
	return NFS3(c, nb, rmdir, "RMDIR3", NULL, &a);
}

uint32_t rpc_commit(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			   uint32_t count)
{
	COMMIT3args a;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = offset;
	a.count = count;
	return NFS3(c, nb, commit, "COMMIT3", NULL, &a);
}

uint32_t rpc_fsstat(struct client *c, struct nfsb *nb)
{
	FSSTAT3args a;

	memset(&a, 0, sizeof(a));
	a.fsroot = fh3(&nb->root);
	return NFS3(c, nb, fsstat, "FSSTAT3", NULL, &a);
}

/* One READDIRPLUS3 page from cookie (0 and a zero verifier: the start). */
uint32_t rpc_readdirplus(struct client *c, struct nfsb *nb, const struct fhandle *dir,
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
uint32_t list_dir(struct client *c, struct nfsb *nb, const struct fhandle *dir)
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

/* READ3 of count bytes into dst (room for count bytes). */
uint32_t rpc_read(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			 uint32_t count, char *dst)
{
	READ3args a;
	uint32_t st;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = offset;
	a.count = count;
	reply_reset(nb, ex_read);
	nb->read_dst = dst;
	nb->read_max = count;
	if (nb->dead)
		return STATUS_FATAL;
#ifdef HAVE_RPC_NFS3_GETATTR_TASK
	if (!QUEUED(rpc_nfs3_read_task(nb->rpc, on_reply, dst, count, &a, nb)))
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

uint32_t rpc_write(struct client *c, struct nfsb *nb, const struct fhandle *fh, uint64_t offset,
			  uint32_t count, int stable, const char *src)
{
	WRITE3args a;

	memset(&a, 0, sizeof(a));
	a.file = fh3(fh);
	a.offset = offset;
	a.count = count;
	a.stable = (stable_how)stable;
	a.data.data_len = count;
	a.data.data_val = (char *)src;
	return NFS3(c, nb, write, "WRITE3", ex_write, &a);
}

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
uint32_t nlm_call(struct client *c, struct nfsb *nb, int proc, const struct fhandle *fh,
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

uint32_t nt_from_nlm(uint32_t st)
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

#endif
