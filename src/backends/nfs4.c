/*
 * nfs4.c - the NFSv4.0 adapter of the nfs backend (-B nfs --nfs-version 4):
 * the netbench ops (netbench.h) as the COMPOUNDs an NFSv4.0 client sends,
 * on the client's own session (nfs4_rpc.c).  Paths are walked from the
 * export's root handle in each COMPOUND (PUTFH, LOOKUP per component), so
 * most ops are one round trip:
 *   NTCreateX      PUTFH LOOKUP.. OPEN GETFH GETATTR (+ OPEN_CONFIRM for a
 *                  new open-owner; + SETATTR size 0 to truncate without
 *                  creating)
 *   Close          PUTFH [LOCKU] [COMMIT] CLOSE  (or RELEASE_LOCKOWNER when
 *                  another handle still uses the open)
 *   ReadX          PUTFH READ (per rsize)
 *   WriteX         PUTFH WRITE per NFS4_WRITE_MAX bytes (3584 with libnfs
 *                  4.0, else 1 MiB or the server's maxwrite), all in flight
 *                  at once
 *   LockX/UnlockX  PUTFH LOCK / LOCKU
 *   Flush          PUTFH COMMIT
 *   QUERY_*        PUTFH LOOKUP.. GETATTR
 *   SET_FILE_INFO  PUTFH SETATTR (times to the server's clock)
 *   FIND_FIRST     PUTFH LOOKUP.. READDIR (per page)
 *   Unlink/Rmdir   PUTFH LOOKUP.. SAVEFH LOOKUP (N)VERIFY RESTOREFH REMOVE
 *   Rename         GETATTR of the target, then ... SAVEFH ... RENAME
 *   Mkdir          PUTFH LOOKUP.. CREATE
 * The NFSv3 ops (READ3, LOOKUP3, ...) are not offered: nfs4_backend, the
 * table nfs_variant() chooses for --nfs-version 4, has none of them, so a
 * loadfile using them is refused at load time.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs4.h"

#define ATTR_STAT (1u << FATTR4_TYPE | 1u << FATTR4_SIZE)

static inline struct nfs4b *nb4(struct client *c)
{
	return c->priv;
}

/* ---- opens ---- */

static bool fh_equal(const struct fh4 *a, const struct fh4 *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static struct open4 *open_find(struct nfs4b *nb, const struct fh4 *fh)
{
	for (size_t i = 0; i < nb->nopens; i++)
		if (fh_equal(&nb->opens[i]->fh, fh))
			return nb->opens[i];
	return NULL;
}

static struct open4 *open_add(struct nfs4b *nb, const struct fh4 *fh)
{
	struct open4 *o = xcalloc(1, sizeof(*o));

	o->fh = *fh;
	if (nb->nopens == nb->capopens) {
		nb->capopens = nb->capopens ? 2 * nb->capopens : 16;
		nb->opens = xrealloc(nb->opens, nb->capopens * sizeof(*nb->opens));
	}
	nb->opens[nb->nopens++] = o;
	return o;
}

static void open_drop(struct nfs4b *nb, struct open4 *o)
{
	for (size_t i = 0; i < nb->nopens; i++) {
		if (nb->opens[i] == o) {
			nb->opens[i] = nb->opens[--nb->nopens];
			break;
		}
	}
	free(o->lock_owners);
	free(o);
}

/* ---- paths ---- */

/* Where a path's operations are in a COMPOUND: LOOKUPs of its directories
 * at [first, last), the op on its last name at last. */
struct walk {
	int first, last;
};

/* PUTFH root, LOOKUP of the directories on the way (and of the last name
 * too if all). */
static struct walk walk(struct c4 *b, struct nfs4b *nb, const char *path, bool all)
{
	struct walk w;

	c4_putfh(b, &nb->root);
	w.first = (int)b->n;
	c4_lookup_path(b, path, false);
	w.last = (int)b->n;
	if (all && *path) {
		size_t len;
		const char *name = last_name(path, &len);

		c4_lookup(b, name, len);
	}
	return w;
}

/* The status of a COMPOUND that walked path with w: a missing or
 * non-directory component on the way is OBJECT_PATH_NOT_FOUND, a missing
 * last name OBJECT_NAME_NOT_FOUND; the rest through the table. */
static uint32_t walk_status(struct client *c, const struct c4 *b, const struct call4 *r,
			    const struct walk *w, uint32_t st)
{
	int at = c4_failed_at(r);

	if (st == NFS4_OK || st == STATUS_FATAL)
		return st;
	if (at >= w->first && at < w->last && (st == NFS4ERR_NOENT || st == NFS4ERR_NOTDIR))
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	if (at == w->last && st == NFS4ERR_NOTDIR)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt4_checked(c, st, b->what, b->path);
}

static uint32_t getattr_path(struct client *c, const char *path, struct attr4 *at)
{
	struct c4 b;
	struct call4 r = { 0 };
	struct walk w;
	uint32_t st;

	c4_init(&b, "GETATTR", path);
	w = walk(&b, nb4(c), path, true);
	c4_getattr(&b, ATTR_STAT, 0);
	st = walk_status(c, &b, &r, &w, c4_call(c, &b, &r, NULL));
	if (st == NT_STATUS_OK)
		*at = r.attr;
	return st;
}

/* ---- the adapter ---- */

static uint32_t nfs4_stat(struct client *c, char *path, struct nb_stat *out)
{
	struct attr4 at;
	uint32_t st = getattr_path(c, path, &at);

	if (st == NT_STATUS_OK) {
		out->is_dir = at.type == NF4DIR;
		out->size = at.size;
	}
	return st;
}

/* CREATE of a directory: OBJECT_NAME_COLLISION if the name exists. */
static uint32_t create_dir(struct client *c, const char *path)
{
	struct c4 b;
	struct call4 r = { 0 };
	struct walk w;
	nfs_argop4 *a;
	size_t len;
	const char *name = last_name(path, &len);

	c4_init(&b, "CREATE (directory)", path);
	w = walk(&b, nb4(c), path, false);
	a = c4_add(&b, OP_CREATE);
	a->nfs_argop4_u.opcreate.objtype.type = NF4DIR;
	a->nfs_argop4_u.opcreate.objname.utf8string_len = (u_int)len;
	a->nfs_argop4_u.opcreate.objname.utf8string_val = (char *)name;
	c4_fattr(&b, &a->nfs_argop4_u.opcreate.createattrs, -1, DIR_MODE, false);
	return walk_status(c, &b, &r, &w, c4_call(c, &b, &r, NULL));
}

static uint32_t open_dir(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			 bool *created)
{
	struct attr4 at;
	uint32_t st;

	if ((flags & NB_CREATE) && (flags & NB_EXCL)) {
		st = create_dir(c, path);
		if (st != NT_STATUS_OK)
			return st;
		*created = true;
		h->is_dir = true;
		return st;
	}
	st = getattr_path(c, path, &at);
	if (st == NT_STATUS_OBJECT_NAME_NOT_FOUND && (flags & NB_CREATE)) {
		st = create_dir(c, path);
		*created = st == NT_STATUS_OK;
	} else if (st == NT_STATUS_OK && at.type != NF4DIR) {
		st = NT_STATUS_NOT_A_DIRECTORY;
	}
	h->is_dir = st == NT_STATUS_OK;
	return st;
}

/* SETATTR on an open file with its open stateid. */
static uint32_t setattr_open(struct client *c, struct open4 *o, const char *path, int64_t size,
			     bool times)
{
	struct c4 b;
	struct call4 r = { 0 };
	nfs_argop4 *a;

	c4_init(&b, "SETATTR", path);
	c4_putfh(&b, &o->fh);
	a = c4_add(&b, OP_SETATTR);
	a->nfs_argop4_u.opsetattr.stateid = o->stateid;
	c4_fattr(&b, &a->nfs_argop4_u.opsetattr.obj_attributes, size, 0, times);
	b.renews = true;
	return nt4_checked(c, c4_call(c, &b, &r, NULL), b.what, path);
}

static uint32_t close_file(struct client *c, struct file4 *f, const char *path, bool locked);

/*
 * A file: one COMPOUND PUTFH root, LOOKUP.., OPEN (CLAIM_NULL, this
 * client's open-owner; OPEN4_CREATE GUARDED4 with NB_EXCL, UNCHECKED4
 * with size 0 for NB_CREATE | NB_TRUNC), GETFH, GETATTR.  A directory
 * there answers NFS4ERR_ISDIR: opened as a directory when flags allow.
 */
static uint32_t nfs4_open(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			  bool *created)
{
	struct nfs4b *nb = c->priv;
	struct file4 *f = h->file;
	struct c4 b;
	struct call4 r = { 0 };
	struct walk w;
	nfs_argop4 *a;
	OPEN4args *oa;
	size_t len;
	const char *name = last_name(path, &len);
	struct open4 *o;
	uint32_t st;
	int at;

	if (nb->dead)
		return STATUS_FATAL;
	memset(f, 0, sizeof(*f));
	h->is_dir = false;
	*created = false;
	if (flags & NB_DIRECTORY)
		return open_dir(c, h, path, flags, created);
	if (!*path)
		return (flags & NB_ANY) && !(flags & NB_TRUNC) ? (h->is_dir = true, NT_STATUS_OK) :
								  NT_STATUS_FILE_IS_A_DIRECTORY;
	c4_init(&b, "OPEN", path);
	w = walk(&b, nb, path, false);
	a = c4_add(&b, OP_OPEN);
	oa = &a->nfs_argop4_u.opopen;
	b.seq_op = w.last;
	b.renews = true;
	oa->seqid = nb->open_seqid;
	oa->share_access = (flags & NB_WRITE) ? ((flags & NB_READ) ? OPEN4_SHARE_ACCESS_BOTH :
							      OPEN4_SHARE_ACCESS_WRITE) :
						 OPEN4_SHARE_ACCESS_READ;
	oa->share_deny = OPEN4_SHARE_DENY_NONE;
	oa->owner.clientid = nb->clientid;
	oa->owner.owner.owner_len = (u_int)strlen(nb->owner);
	oa->owner.owner.owner_val = nb->owner;
	if (flags & NB_CREATE) {
		oa->openhow.opentype = OPEN4_CREATE;
		oa->openhow.openflag4_u.how.mode = (flags & NB_EXCL) ? GUARDED4 : UNCHECKED4;
		c4_fattr(&b, &oa->openhow.openflag4_u.how.createhow4_u.createattrs,
			 (flags & NB_TRUNC) ? 0 : -1, FILE_MODE, false);
	} else {
		oa->openhow.opentype = OPEN4_NOCREATE;
	}
	oa->claim.claim = CLAIM_NULL;
	oa->claim.open_claim4_u.file.utf8string_len = (u_int)len;
	oa->claim.open_claim4_u.file.utf8string_val = (char *)name;
	c4_getfh(&b);
	c4_getattr(&b, ATTR_STAT, 0);
	st = c4_call(c, &b, &r, NULL);
	at = c4_failed_at(&r);
	if (st == NFS4ERR_ISDIR && at == w.last) {
		if ((flags & NB_ANY) && !(flags & NB_TRUNC)) {
			h->is_dir = true;
			return NT_STATUS_OK;
		}
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	}
	if (st == NFS4ERR_EXIST && at == w.last)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	if (st != NFS4_OK)
		return walk_status(c, &b, &r, &w, st);
	if (!r.have_fh)
		return nfs4_fail(c, "NFSv4 OPEN %s: the reply has no file handle", path);
	if (r.rflags & OPEN4_RESULT_CONFIRM) {
		struct c4 cb;
		struct call4 cr = { 0 };
		nfs_argop4 *ca;

		c4_init(&cb, "OPEN_CONFIRM", path);
		c4_putfh(&cb, &r.fh);
		ca = c4_add(&cb, OP_OPEN_CONFIRM);
		ca->nfs_argop4_u.opopen_confirm.open_stateid = r.stateid;
		ca->nfs_argop4_u.opopen_confirm.seqid = nb->open_seqid;
		cb.seq_op = (int)cb.n - 1;
		cb.renews = true;
		st = nt4_checked(c, c4_call(c, &cb, &cr, NULL), cb.what, path);
		if (st != NT_STATUS_OK)
			return st;
		r.stateid = cr.stateid;
	}
	o = open_find(nb, &r.fh);
	if (!o)
		o = open_add(nb, &r.fh);
	o->stateid = r.stateid;		/* the newest: upgraded by each OPEN */
	o->refs++;
	f->o = o;
	if ((flags & NB_TRUNC) && !(flags & NB_CREATE) && r.attr.size) {
		st = setattr_open(c, o, path, 0, false);
		if (st != NT_STATUS_OK) {
			/* the handle is not opened: give the open back */
			uint32_t cst = close_file(c, f, path, false);

			return cst == STATUS_FATAL ? cst : st;
		}
	}
	*created = (flags & NB_EXCL) != 0;
	return NT_STATUS_OK;
}

/* The lock-owner's name: the client's owner string and its number. */
static void lock_owner_name(struct nfs4b *nb, const struct file4 *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s.L%llu", nb->owner, (unsigned long long)f->lock_owner);
}

/* Close: the handle's locks go (one LOCKU of the whole file), unstable
 * writes are committed, and the open is closed when no other handle of
 * the client uses it (else only the handle's lock-owner is released). */
static uint32_t close_file(struct client *c, struct file4 *f, const char *path, bool locked)
{
	struct nfs4b *nb = c->priv;
	struct open4 *o = f->o;
	struct c4 b;
	struct call4 r = { 0 };
	nfs_argop4 *a;
	char owners[8][160];
	uint32_t st = NFS4_OK;
	bool last;

	if (!o)
		return NT_STATUS_OK;
	f->o = NULL;
	last = --o->refs == 0;
	if (nb->dead) {
		if (last)
			open_drop(nb, o);
		return STATUS_FATAL;
	}
	c4_init(&b, "CLOSE", path);
	c4_putfh(&b, &o->fh);
	if (f->have_lock_owner && locked) {
		a = c4_add(&b, OP_LOCKU);
		a->nfs_argop4_u.oplocku.locktype = WRITE_LT;
		a->nfs_argop4_u.oplocku.seqid = f->lock_seqid;
		a->nfs_argop4_u.oplocku.lock_stateid = f->lock_stateid;
		a->nfs_argop4_u.oplocku.offset = 0;
		a->nfs_argop4_u.oplocku.length = UINT64_MAX;
		b.lock_seq_op = (int)b.n - 1;
	}
	if (o->dirty) {
		a = c4_add(&b, OP_COMMIT);
		o->dirty = false;
	}
	if (last) {
		a = c4_add(&b, OP_CLOSE);
		a->nfs_argop4_u.opclose.seqid = nb->open_seqid;
		a->nfs_argop4_u.opclose.open_stateid = o->stateid;
		b.seq_op = (int)b.n - 1;
		/* then the lock-owners of the open's handles go */
		for (size_t i = 0; i < o->nlock_owners && i < 8; i++) {
			struct file4 lf = { .lock_owner = o->lock_owners[i] };

			a = c4_add(&b, OP_RELEASE_LOCKOWNER);
			lock_owner_name(nb, &lf, owners[i], sizeof(owners[i]));
			a->nfs_argop4_u.oprelease_lockowner.lock_owner.clientid = nb->clientid;
			a->nfs_argop4_u.oprelease_lockowner.lock_owner.owner.owner_len =
				(u_int)strlen(owners[i]);
			a->nfs_argop4_u.oprelease_lockowner.lock_owner.owner.owner_val = owners[i];
		}
	}
	b.renews = true;
	if (b.n > 2)
		st = nt4_checked(c, c4_call(c, &b, &r, &f->lock_seqid), b.what, b.path);
	f->have_lock_owner = false;
	if (last)
		open_drop(nb, o);
	return st;
}

static uint32_t nfs4_close(struct client *c, struct nb_handle *h)
{
	return close_file(c, h->file, h->path ? h->path : "", h->locks.n > 0);
}

static uint32_t nfs4_read(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			  size_t size, size_t *got)
{
	struct nfs4b *nb = c->priv;
	struct open4 *o = ((struct file4 *)h->file)->o;

	*got = 0;
	while (*got < size) {
		uint32_t want = (uint32_t)MIN((uint64_t)(size - *got), (uint64_t)nb->rsize);
		struct c4 b;
		struct call4 r = { .read_dst = buf + *got, .read_max = want };
		nfs_argop4 *a;
		uint32_t st;

		c4_init(&b, "READ", h->path);
		c4_putfh(&b, &o->fh);
		a = c4_add(&b, OP_READ);
		a->nfs_argop4_u.opread.stateid = o->stateid;
		a->nfs_argop4_u.opread.offset = offset + *got;
		a->nfs_argop4_u.opread.count = want;
		b.renews = true;
		st = nt4_checked(c, c4_call(c, &b, &r, NULL), b.what, b.path);
		if (st != NT_STATUS_OK)
			return st;
		*got += r.count;
		if (r.eof || r.count < want)
			break;
	}
	return NT_STATUS_OK;
}

/*
 * WRITE of up to wsize bytes per COMPOUND (with libnfs 4.0, 3584: its
 * encoding buffer, nfs4.h), UNSTABLE: the chunks of one call all in flight at once (up to
 * C4_INFLIGHT), then waited for together.  COMMIT at Flush and Close.
 */
static uint32_t nfs4_write(struct client *c, struct nb_handle *h, const char *buf,
			   uint64_t offset, size_t size, size_t *done)
{
	struct nfs4b *nb = c->priv;
	struct open4 *o = ((struct file4 *)h->file)->o;
	struct call4 r[C4_INFLIGHT];
	uint32_t len[C4_INFLIGHT];

	*done = 0;
	while (*done < size) {
		unsigned n = 0;
		size_t pos = *done;
		uint64_t sent = now_ns();

		for (; n < C4_INFLIGHT && pos < size; n++) {
			struct c4 *b = &nb->wb[n];
			nfs_argop4 *a;

			len[n] = (uint32_t)MIN((uint64_t)(size - pos), (uint64_t)nb->wsize);
			c4_init(b, "WRITE", h->path);
			c4_putfh(b, &o->fh);
			a = c4_add(b, OP_WRITE);
			a->nfs_argop4_u.opwrite.stateid = o->stateid;
			a->nfs_argop4_u.opwrite.offset = offset + pos;
			a->nfs_argop4_u.opwrite.stable = UNSTABLE4;
			a->nfs_argop4_u.opwrite.data.data_len = len[n];
			a->nfs_argop4_u.opwrite.data.data_val = (char *)buf + pos;
			memset(&r[n], 0, sizeof(r[n]));
			if (c4_send(c, b, &r[n]) != NFS4_OK) {
				/* the session is over: what is pending answers
				 * now, while r is here */
				if (n)
					rpc_disconnect(nb->rpc, "dbench: the NFSv4 session failed");
				return STATUS_FATAL;
			}
			pos += len[n];
		}
		if (c4_wait_all(c, r, n, "WRITE", h->path) != NFS4_OK)
			return STATUS_FATAL;
		nb->renewed_ns = sent;
		o->dirty = true;
		for (unsigned i = 0; i < n; i++) {
			if (r[i].status != NFS4_OK)
				return nt4_checked(c, r[i].status, "WRITE", h->path);
			*done += r[i].count;
			if (r[i].count < len[i])
				return NT_STATUS_OK;
		}
	}
	return NT_STATUS_OK;
}

static uint32_t nfs4_truncate(struct client *c, struct nb_handle *h, uint64_t size)
{
	return setattr_open(c, ((struct file4 *)h->file)->o, h->path, (int64_t)size, false);
}

static uint32_t nfs4_flush(struct client *c, struct nb_handle *h)
{
	struct open4 *o = ((struct file4 *)h->file)->o;
	struct c4 b;
	struct call4 r = { 0 };
	uint32_t st;

	if (!o || !o->dirty)
		return NT_STATUS_OK;
	c4_init(&b, "COMMIT", h->path);
	c4_putfh(&b, &o->fh);
	c4_add(&b, OP_COMMIT);
	st = nt4_checked(c, c4_call(c, &b, &r, NULL), b.what, b.path);
	if (st == NT_STATUS_OK)
		o->dirty = false;
	return st;
}

static uint32_t nfs4_fstat(struct client *c, struct nb_handle *h, struct nb_stat *out)
{
	struct open4 *o = ((struct file4 *)h->file)->o;
	struct c4 b;
	struct call4 r = { 0 };
	uint32_t st;

	if (!o)
		return nfs4_stat(c, h->path, out);
	c4_init(&b, "GETATTR", h->path);
	c4_putfh(&b, &o->fh);
	c4_getattr(&b, ATTR_STAT, 0);
	st = nt4_checked(c, c4_call(c, &b, &r, NULL), b.what, b.path);
	if (st == NT_STATUS_OK) {
		out->is_dir = r.attr.type == NF4DIR;
		out->size = r.attr.size;
	}
	return st;
}

/* SET_FILE_INFORMATION 1004 / 1: the times, to the server's clock: one
 * SETATTR with the open stateid (a directory: by path, with the
 * anonymous stateid). */
static uint32_t nfs4_set_info(struct client *c, struct nb_handle *h, int level)
{
	struct open4 *o = ((struct file4 *)h->file)->o;
	struct c4 b;
	struct call4 r = { 0 };
	struct walk w;
	nfs_argop4 *a;

	if (level != 1004 && level != 1)
		return NT_STATUS_OK;
	if (o)
		return setattr_open(c, o, h->path, -1, true);
	c4_init(&b, "SETATTR", h->path);
	w = walk(&b, nb4(c), h->path, true);
	a = c4_add(&b, OP_SETATTR);
	c4_fattr(&b, &a->nfs_argop4_u.opsetattr.obj_attributes, -1, 0, true);
	return walk_status(c, &b, &r, &w, c4_call(c, &b, &r, NULL));
}

/* LOCK of an exclusive range: the handle's own lock-owner, made with
 * open_to_lock_owner4 (consuming the open-owner's seqid) the first time,
 * then exist_lock_owner4.  NFS4ERR_DENIED is LOCK_NOT_GRANTED. */
static uint32_t nfs4_lock(struct client *c, struct nb_handle *h, uint64_t offset, uint64_t length)
{
	struct nfs4b *nb = c->priv;
	struct file4 *f = h->file;
	struct c4 b;
	struct call4 r = { 0 };
	nfs_argop4 *a;
	LOCK4args *la;
	char owner[160];
	uint32_t st;

	if (!f->o)		/* a directory handle */
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	if (length == 0)	/* SMB allows it; NFSv4 has no empty range */
		return NT_STATUS_OK;
	c4_init(&b, "LOCK", h->path);
	c4_putfh(&b, &f->o->fh);
	a = c4_add(&b, OP_LOCK);
	la = &a->nfs_argop4_u.oplock;
	la->locktype = WRITE_LT;
	la->reclaim = 0;
	la->offset = offset;
	la->length = length > UINT64_MAX - offset ? UINT64_MAX : length;
	b.lock_seq_op = (int)b.n - 1;
	b.renews = true;
	if (!f->have_lock_owner) {
		open_to_lock_owner4 *ol = &la->locker.locker4_u.open_owner;

		f->lock_owner = ++nb->next_lock_owner;
		f->lock_seqid = 0;
		lock_owner_name(nb, f, owner, sizeof(owner));
		la->locker.new_lock_owner = 1;
		ol->open_seqid = nb->open_seqid;
		ol->open_stateid = f->o->stateid;
		ol->lock_seqid = 0;
		ol->lock_owner.clientid = nb->clientid;
		ol->lock_owner.owner.owner_len = (u_int)strlen(owner);
		ol->lock_owner.owner.owner_val = owner;
		b.seq_op = b.lock_seq_op;
	} else {
		la->locker.new_lock_owner = 0;
		la->locker.locker4_u.lock_owner.lock_stateid = f->lock_stateid;
		la->locker.locker4_u.lock_owner.lock_seqid = f->lock_seqid;
	}
	st = c4_call(c, &b, &r, &f->lock_seqid);
	if (st == NFS4_OK) {
		struct open4 *o = f->o;

		if (!f->have_lock_owner && o->nlock_owners < 8) {
			o->lock_owners = xrealloc(o->lock_owners,
						  (o->nlock_owners + 1) * sizeof(*o->lock_owners));
			o->lock_owners[o->nlock_owners++] = f->lock_owner;
		}
		f->have_lock_owner = true;
		f->lock_stateid = r.stateid;
	}
	/* a failed LOCK with a new lock-owner leaves no lock-owner we can
	 * count on: the next LOCK makes another */
	return nt4_checked(c, st, b.what, b.path);
}

static uint32_t nfs4_unlock(struct client *c, struct nb_handle *h, uint64_t offset,
			    uint64_t length)
{
	struct file4 *f = h->file;
	struct c4 b;
	struct call4 r = { 0 };
	nfs_argop4 *a;
	uint32_t st;

	if (length == 0 || !f->have_lock_owner)
		return NT_STATUS_OK;
	c4_init(&b, "LOCKU", h->path);
	c4_putfh(&b, &f->o->fh);
	a = c4_add(&b, OP_LOCKU);
	a->nfs_argop4_u.oplocku.locktype = WRITE_LT;
	a->nfs_argop4_u.oplocku.seqid = f->lock_seqid;
	a->nfs_argop4_u.oplocku.lock_stateid = f->lock_stateid;
	a->nfs_argop4_u.oplocku.offset = offset;
	a->nfs_argop4_u.oplocku.length = length > UINT64_MAX - offset ? UINT64_MAX : length;
	b.lock_seq_op = (int)b.n - 1;
	b.renews = true;
	st = c4_call(c, &b, &r, &f->lock_seqid);
	if (st == NFS4_OK)
		f->lock_stateid = r.stateid;
	return nt4_checked(c, st, b.what, b.path);
}

/* READDIR pages of a directory, each a COMPOUND walking to it. */
struct lister {
	nb_list_fn fn;
	void *arg;
	void (*typed)(void *arg, const char *name, uint32_t type);
};

static void list_entry(void *arg, const char *name, uint32_t type)
{
	struct lister *l = arg;

	if (l->typed)
		l->typed(l->arg, name, type);
	else
		l->fn(l->arg, name);
}

static uint32_t readdir_all(struct client *c, const char *dir, struct lister *l)
{
	uint64_t cookie = 0;
	verifier4 verf = { 0 };

	for (int pages = 0; pages < 1000000; pages++) {
		struct c4 b;
		struct call4 r = { .entry_fn = list_entry, .entry_arg = l };
		struct walk w;
		nfs_argop4 *a;
		uint32_t st;

		c4_init(&b, "READDIR", dir);
		w = walk(&b, nb4(c), dir, true);
		a = c4_add(&b, OP_READDIR);
		a->nfs_argop4_u.opreaddir.cookie = cookie;
		memcpy(a->nfs_argop4_u.opreaddir.cookieverf, verf, sizeof(verf));
		a->nfs_argop4_u.opreaddir.dircount = READDIR_DIRCOUNT;
		a->nfs_argop4_u.opreaddir.maxcount = READDIR_MAXCOUNT;
		a->nfs_argop4_u.opreaddir.attr_request.bitmap4_len = 1;
		b.attrmask[0][0] = 1u << FATTR4_TYPE;
		a->nfs_argop4_u.opreaddir.attr_request.bitmap4_val = b.attrmask[0];
		b.nattr = 1;
		st = c4_call(c, &b, &r, NULL);
		if (st == NFS4ERR_NOTDIR && c4_failed_at(&r) == (int)b.n - 1)
			return NT_STATUS_NOT_A_DIRECTORY;
		if (st != NFS4_OK)
			return walk_status(c, &b, &r, &w, st);
		if (r.eof || r.entries == 0)
			return NT_STATUS_OK;
		cookie = r.cookie;
		memcpy(verf, r.cookieverf, sizeof(verf));
	}
	return NT_STATUS_IO_DEVICE_ERROR;
}

static uint32_t nfs4_list(struct client *c, char *dir, char *full, nb_list_fn fn, void *arg)
{
	struct lister l = { .fn = fn, .arg = arg };

	(void)full;
	return readdir_all(c, dir, &l);
}

static uint32_t nfs4_mkdir(struct client *c, char *path)
{
	uint32_t st = create_dir(c, path);

	return st == NT_STATUS_OBJECT_NAME_NOT_FOUND ? NT_STATUS_OBJECT_PATH_NOT_FOUND : st;
}

/* REMOVE of path after checking its type in the same COMPOUND: VERIFY it
 * is a directory (rmdir) or NVERIFY it is not (unlink). */
static uint32_t remove_checked(struct client *c, const char *path, bool dir)
{
	struct c4 b;
	struct call4 r = { 0 };
	struct walk w;
	int check;
	uint32_t st;
	nfs_argop4 *a;
	size_t len;
	const char *name = last_name(path, &len);

	c4_init(&b, dir ? "REMOVE (directory)" : "REMOVE", path);
	w = walk(&b, nb4(c), path, false);
	c4_savefh(&b);
	w.last = (int)b.n;
	c4_lookup(&b, name, len);
	check = (int)b.n;
	c4_verify_type(&b, NF4DIR);
	if (!dir)
		b.op[check].argop = OP_NVERIFY;	/* same arguments as VERIFY */
	c4_restorefh(&b);
	a = c4_add(&b, OP_REMOVE);
	a->nfs_argop4_u.opremove.target.utf8string_len = (u_int)len;
	a->nfs_argop4_u.opremove.target.utf8string_val = (char *)name;
	st = c4_call(c, &b, &r, NULL);
	if (c4_failed_at(&r) == check && st != NFS4_OK)
		return dir ? NT_STATUS_NOT_A_DIRECTORY : NT_STATUS_FILE_IS_A_DIRECTORY;
	if (dir && (st == NFS4ERR_NOTEMPTY || st == NFS4ERR_EXIST))
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	return walk_status(c, &b, &r, &w, st);
}

static uint32_t nfs4_rmdir(struct client *c, char *path)
{
	return remove_checked(c, path, true);
}

static uint32_t nfs4_unlink(struct client *c, char *path)
{
	return remove_checked(c, path, false);
}

/* NT's rename never replaces: a GETATTR of the target first, then one
 * COMPOUND: PUTFH LOOKUP.. SAVEFH PUTFH LOOKUP.. RENAME. */
static uint32_t nfs4_rename(struct client *c, char *from, char *to)
{
	struct nfs4b *nb = c->priv;
	struct attr4 at;
	struct c4 b;
	struct call4 r = { 0 };
	struct walk wf, wt;
	nfs_argop4 *a;
	size_t flen, tlen;
	const char *fname = last_name(from, &flen), *tname = last_name(to, &tlen);
	uint32_t st = getattr_path(c, to, &at);
	int at_op;

	if (st == NT_STATUS_OK)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	if (st != NT_STATUS_OBJECT_NAME_NOT_FOUND)
		return st;
	c4_init(&b, "RENAME", from);
	wf = walk(&b, nb, from, false);
	c4_savefh(&b);
	wt = walk(&b, nb, to, false);
	a = c4_add(&b, OP_RENAME);
	a->nfs_argop4_u.oprename.oldname.utf8string_len = (u_int)flen;
	a->nfs_argop4_u.oprename.oldname.utf8string_val = (char *)fname;
	a->nfs_argop4_u.oprename.newname.utf8string_len = (u_int)tlen;
	a->nfs_argop4_u.oprename.newname.utf8string_val = (char *)tname;
	st = c4_call(c, &b, &r, NULL);
	at_op = c4_failed_at(&r);
	if (st == NFS4_OK || st == STATUS_FATAL)
		return st;
	if (((at_op >= wf.first && at_op < wf.last) || (at_op >= wt.first && at_op < wt.last)) &&
	    (st == NFS4ERR_NOENT || st == NFS4ERR_NOTDIR))
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	if (at_op == (int)b.n - 1) {	/* RENAME itself */
		if (st == NFS4ERR_NOENT)
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		if (st == NFS4ERR_EXIST)
			return NT_STATUS_OBJECT_NAME_COLLISION;
	}
	return nt4_checked(c, st, b.what, b.path);
}

/* ---- removing a tree (Deltree, cleanup) ---- */

struct tree_names {
	char **name;
	bool *dir;
	size_t n, cap;
};

static void tree_add(void *arg, const char *name, uint32_t type)
{
	struct tree_names *t = arg;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->name = xrealloc(t->name, t->cap * sizeof(*t->name));
		t->dir = xrealloc(t->dir, t->cap * sizeof(*t->dir));
	}
	t->name[t->n] = xstrdup(name);
	t->dir[t->n++] = type == NF4DIR;
}

/* REMOVE of names in dir, up to 32 in one COMPOUND; a name already gone
 * is skipped. */
static uint32_t remove_names(struct client *c, const char *dir, char **names, size_t n)
{
	size_t i = 0;

	while (i < n) {
		struct c4 b;
		struct call4 r = { 0 };
		struct walk w;
		size_t k, first = i;
		uint32_t st;
		int at;

		c4_init(&b, "REMOVE", dir);
		w = walk(&b, nb4(c), dir, true);
		for (k = 0; k < 32 && i + k < n; k++) {
			nfs_argop4 *a = c4_add(&b, OP_REMOVE);

			a->nfs_argop4_u.opremove.target.utf8string_len = (u_int)strlen(names[i + k]);
			a->nfs_argop4_u.opremove.target.utf8string_val = names[i + k];
		}
		st = c4_call(c, &b, &r, NULL);
		at = c4_failed_at(&r);
		if (st == NFS4_OK) {
			i += k;
			continue;
		}
		if (st == STATUS_FATAL)
			return st;
		if (at < (int)b.n - (int)k)
			return walk_status(c, &b, &r, &w, st);
		i = first + (size_t)(at - ((int)b.n - (int)k));
		if (st != NFS4ERR_NOENT)
			return nt4_checked(c, st, "REMOVE", names[i]);
		i++;
	}
	return NT_STATUS_OK;
}

static uint32_t rm_tree(struct client *c, const char *path, int depth)
{
	struct tree_names t = { 0 };
	struct lister l = { .typed = tree_add, .arg = &t };
	uint32_t st;

	if (depth > REMOVE_DEPTH_MAX)
		return NT_STATUS_INVALID_PARAMETER;
	st = readdir_all(c, path, &l);
	for (size_t i = 0; i < t.n && st == NT_STATUS_OK; i++) {
		if (t.dir[i]) {
			size_t len = strlen(path) + strlen(t.name[i]) + 2;
			char *sub = xmalloc(len);

			snprintf(sub, len, "%s%s%s", path, *path ? "/" : "", t.name[i]);
			st = rm_tree(c, sub, depth + 1);
			free(sub);
		}
	}
	if (st == NT_STATUS_OK && t.n)
		st = remove_names(c, path, t.name, t.n);
	for (size_t i = 0; i < t.n; i++)
		free(t.name[i]);
	free(t.name);
	free(t.dir);
	return st;
}

static uint32_t nfs4_remove_tree(struct client *c, char *path)
{
	struct attr4 at;
	uint32_t st = getattr_path(c, path, &at);
	char *parent, *name;
	size_t len;

	if (st == NT_STATUS_OBJECT_NAME_NOT_FOUND || st == NT_STATUS_OBJECT_PATH_NOT_FOUND)
		return NT_STATUS_OK;
	if (st != NT_STATUS_OK)
		return st;
	if (at.type == NF4DIR && (st = rm_tree(c, path, 0)) != NT_STATUS_OK)
		return st;
	if (!*path)
		return NT_STATUS_OK;
	name = (char *)last_name(path, &len);
	parent = xstrdup(path);
	parent[name - path ? (size_t)(name - path) - 1 : 0] = '\0';
	st = remove_names(c, parent, &name, 1);
	free(parent);
	return st;
}

static uint32_t nfs4_statfs(struct client *c)
{
	struct c4 b;
	struct call4 r = { 0 };

	c4_init(&b, "GETATTR (space)", "");
	c4_putfh(&b, &nb4(c)->root);
	c4_getattr(&b, 0, 1u << (FATTR4_SPACE_AVAIL - 32));
	return nt4_checked(c, c4_call(c, &b, &r, NULL), b.what, b.path);
}

static const struct nb_adapter nfs4_adapter = {
	.file_size = sizeof(struct file4),
	.flags = NB_FIND_BY_STAT,
	.open = nfs4_open,
	.close = nfs4_close,
	.read = nfs4_read,
	.write = nfs4_write,
	.truncate = nfs4_truncate,
	.flush = nfs4_flush,
	.fstat = nfs4_fstat,
	.stat = nfs4_stat,
	.set_info = nfs4_set_info,
	.lock = nfs4_lock,
	.unlock = nfs4_unlock,
	.list = nfs4_list,
	.mkdir = nfs4_mkdir,
	.rmdir = nfs4_rmdir,
	.unlink = nfs4_unlink,
	.rename = nfs4_rename,
	.remove_tree = nfs4_remove_tree,
	.statfs = nfs4_statfs,
};

/* A client's state, once nothing can reply into it. */
static void nfs4_free(void *state)
{
	struct nfs4b *nb = state;

	nfs_async_free(&nb->as);
	free(nb->wb);
	free(nb);
}

void nfs4_teardown(struct client *c)
{
	struct nfs4b *nb = c->priv;

	if (!nb)
		return;
	/* open files are closed (locks released, writes committed) while
	 * the session is there (and on the loop: the teardown runs on the
	 * client's fiber, beside the others') */
	nb_client_free(c, &nb->nbc);
	while (nb->nopens)
		open_drop(nb, nb->opens[0]);
	free(nb->opens);
	nb->opens = NULL;
	nfs_async_stop(nb->as);	/* before the connection closes */
	if (nb->shared) {
		/* the last client of the process closes the connection; the
		 * states (and the fibers' stacks, where late replies land) are
		 * freed after it */
		nfs_proc_leave(c, nb, nfs4_free);
		c->priv = NULL;
		return;
	}
	if (nb->rpc)
		nfs_count_wire_bytes(c, nb->rpc);
	nfs4_session_end(c, nb);
	nfs4_free(nb);
	c->priv = NULL;
}

/* Each client has its own connection, client id, open-owner and lease. */
int nfs4_setup(struct client *c)
{
	struct nfs4b *nb = xcalloc(1, sizeof(*nb));

	c->priv = nb;
	nfs_port_policy(nfs_opt(c));
	nb->wb = xcalloc(C4_INFLIGHT, sizeof(*nb->wb));
	if (nfs4_session_start(c, nb) < 0 || nb_client_init(c, &nb->nbc, &nfs4_adapter, &nfs_opt(c)->files) < 0) {
		nfs4_teardown(c);
		return -1;
	}
	return 0;
}

int nfs4_backend_remove_tree(struct client *c, const char *path)
{
	char *p = xstrdup(path);
	uint32_t s;

	nb_close_all(c, &nb4(c)->nbc);
	s = nfs4_remove_tree(c, p);
	free(p);
	if (s != NT_STATUS_OK && !c->error[0])
		snprintf(c->error, sizeof(c->error), "nfs: cannot remove %s over NFSv4", path);
	return s == NT_STATUS_OK ? 0 : -1;
}

int nfs4_exists(struct client *c, const char *path)
{
	char *p = xstrdup(path);
	struct attr4 at;
	uint32_t s = getattr_path(c, p, &at);

	free(p);
	if (s == NT_STATUS_OK)
		return 1;
	if (s == NT_STATUS_OBJECT_NAME_NOT_FOUND || s == NT_STATUS_OBJECT_PATH_NOT_FOUND)
		return 0;
	if (!c->error[0])
		snprintf(c->error, sizeof(c->error), "nfs: NFSv4 GETATTR %s failed", shown(path));
	return -1;
}

/* Why an op is missing from the NFSv4 table, for the load-time refusal. */
const char *nfs4_why_unsupported(int id)
{
	if (op_info[id].domain == DOMAIN_NFS)
		return "is an NFSv3 operation: not available with --nfs-version 4";
	if (op_info[id].domain == DOMAIN_NLM)
		return "is an NLM (NFSv3 byte-range lock) operation: not available with --nfs-version 4";
	return NULL;
}
