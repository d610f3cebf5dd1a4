/*
 * nfs_ops.c - the NFSv3 loadfile ops (GETATTR3, LOOKUP3, READ3, ...), each
 * the one procedure it names, and NLM's LOCK4, UNLOCK4 and TEST4.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

static uint32_t do_getattr(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_getattr(c, nb, fh);
}

uint32_t nfsb_getattr3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_getattr, &lk);
}

static uint32_t do_setattr(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_setattr(c, nb, fh, -1, (uint32_t)c->num[0]);
}

uint32_t nfsb_setattr3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	if (c->num[0] < 0 || c->num[0] > 07777)
		return NFS3ERR_INVAL;
	return on_object(c, c->path[0], do_setattr, &lk);
}

/* LOOKUP3 is always sent (the op is the RPC); its answer updates the cache. */
static uint32_t do_lookup(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	uint32_t st = rpc_lookup(c, nb, dir, name);

	if (st == NFS3_OK && nb->r.have_fh)
		cache_put(nb, path, strlen(path), &nb->r.fh, nb->r.type);
	else if (st == NFS3ERR_NOENT)
		cache_del_tree(nb, path);
	return st;
}

uint32_t nfsb_lookup3(struct client *c, const struct op *op)
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
uint32_t nfsb_access3(struct client *c, const struct op *op)
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

uint32_t nfsb_readlink3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_readlink, &lk);
}

static uint32_t do_read3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	uint32_t st = rpc_read(c, nb, fh, (uint64_t)c->num[0], (uint32_t)c->num[1],
			       iobuf_read_target(&nb->nbc.buf, false));

	if (st == NFS3_OK)
		c->bytes = nb->r.count;
	return st;
}

uint32_t nfsb_read3(struct client *c, const struct op *op)
{
	struct lookup lk;
	struct nfsb *nb = c->priv;

	(void)op;
	if (nfs_opt(c)->trunc_io > 0 && c->num[1] > nfs_opt(c)->trunc_io)
		c->num[1] = nfs_opt(c)->trunc_io;	/* --trunc-io, as dbench 5.0 */
	if (c->num[0] < 0 || c->num[1] < 0 || iobuf_grow(&nb->nbc.buf, c->nc.rng, (size_t)c->num[1]) < 0)
		return NFS3ERR_INVAL;
	if (nfs_opt(c)->files.fake_io) {
		c->bytes = (uint64_t)c->num[1];
		return NFS3_OK;
	}
	nb->copy_read = false;
	return on_object(c, c->path[0], do_read3, &lk);
}

static uint32_t do_write3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	const char *src = iobuf_write_source(&nb->nbc.buf, c, (uint64_t)c->num[0], (size_t)c->num[1]);
	uint32_t st;

	if (!src)
		return NFS3ERR_IO;
	st = rpc_write(c, nb, fh, (uint64_t)c->num[0], (uint32_t)c->num[1], (int)c->num[2], src);

	if (st == NFS3_OK)
		c->bytes = nb->r.count;
	return st;
}

/* WRITE3 path offset count [stable_how]: 0 UNSTABLE, 1 DATA_SYNC, 2 FILE_SYNC. */
uint32_t nfsb_write3(struct client *c, const struct op *op)
{
	struct lookup lk;
	struct nfsb *nb = c->priv;

	(void)op;
	if (nfs_opt(c)->trunc_io > 0 && c->num[1] > nfs_opt(c)->trunc_io)
		c->num[1] = nfs_opt(c)->trunc_io;	/* --trunc-io, as dbench 5.0 */
	if (c->num[0] < 0 || c->num[1] < 0 || c->num[2] < UNSTABLE || c->num[2] > FILE_SYNC ||
	    iobuf_grow(&nb->nbc.buf, c->nc.rng, (size_t)c->num[1]) < 0)
		return NFS3ERR_INVAL;
	if (nfs_opt(c)->files.fake_io) {
		c->bytes = (uint64_t)c->num[1];
		return NFS3_OK;
	}
	return on_object(c, c->path[0], do_write3, &lk);
}

static void cache_new_object(struct nfsb *nb, const char *path, uint32_t st)
{
	if (st == NFS3_OK && nb->r.have_fh)
		cache_put(nb, path, strlen(path), &nb->r.fh, nb->r.type);
}

static uint32_t do_create3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	uint32_t st = rpc_create(c, nb, dir, name, (int)c->num[0], false);

	cache_new_object(nb, path, st);
	return st;
}

/* CREATE3 path [createmode]: 0 UNCHECKED, 1 GUARDED, 2 EXCLUSIVE. */
uint32_t nfsb_create3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	if (c->num[0] < UNCHECKED || c->num[0] > EXCLUSIVE)
		return NFS3ERR_INVAL;
	return on_parent(c, c->path[0], do_create3, &lk);
}

uint32_t do_mkdir3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	uint32_t st = rpc_mkdir(c, nb, dir, name);

	cache_new_object(nb, path, st);
	return st;
}

uint32_t nfsb_mkdir3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_mkdir3, &lk);
}

static uint32_t do_symlink3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	SYMLINK3args a;
	uint32_t st;

	memset(&a, 0, sizeof(a));
	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.symlink.symlink_data = c->path[1];
	st = NFS3(c, nb, symlink, "SYMLINK3", ex_symlink, &a);
	cache_new_object(nb, path, st);
	return st;
}

/* SYMLINK3 path target: makes path, a symlink whose text is target. */
uint32_t nfsb_symlink3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_symlink3, &lk);
}

uint32_t do_remove3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	uint32_t st = rpc_remove(c, nb, dir, name);

	if (st == NFS3_OK || st == NFS3ERR_NOENT)
		cache_del(nb, path);
	return st;
}

uint32_t nfsb_remove3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_remove3, &lk);
}

uint32_t do_rmdir3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	uint32_t st = rpc_rmdir(c, nb, dir, name);

	if (st == NFS3_OK || st == NFS3ERR_NOENT)
		cache_del_tree(nb, path);
	return st;
}

uint32_t nfsb_rmdir3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_parent(c, c->path[0], do_rmdir3, &lk);
}

/* RENAME3 from to (replaces to, as NFS does). */
uint32_t rename_paths(struct client *c, const char *from, const char *to, bool *in_parent)
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

uint32_t nfsb_rename3(struct client *c, const struct op *op)
{
	bool in_parent;

	(void)op;
	return rename_paths(c, c->path[0], c->path[1], &in_parent);
}

static uint32_t do_link3(struct client *c, struct nfsb *nb, const struct fhandle *dir, const char *name,
			 const char *path)
{
	struct lookup target;
	LINK3args a;
	uint32_t st;

	(void)path;
	st = resolve(c, nb, c->path[1], strlen(c->path[1]), &target);
	if (st != NFS3_OK)
		return st;
	memset(&a, 0, sizeof(a));
	a.file = fh3(&target.fh);
	a.link.dir = fh3(dir);
	a.link.name = (char *)name;
	return NFS3(c, nb, link, "LINK3", NULL, &a);
}

/* LINK3 path target: makes path, a hard link to the existing target. */
uint32_t nfsb_link3(struct client *c, const struct op *op)
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
uint32_t nfsb_readdirplus3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	return on_object(c, c->path[0], do_readdirplus3, &lk);
}

uint32_t nfsb_fsstat3(struct client *c, const struct op *op)
{
	(void)op;
	return rpc_fsstat(c, c->priv);
}

uint32_t nfsb_fsinfo3(struct client *c, const struct op *op)
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
uint32_t nfsb_pathconf3(struct client *c, const struct op *op)
{
	struct lookup lk;

	return on_object(c, op->npaths ? c->path[0] : "", do_pathconf, &lk);
}

static uint32_t do_commit3(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return rpc_commit(c, nb, fh, (uint64_t)c->num[0], (uint32_t)c->num[1]);
}

/* COMMIT3 path [offset count]: 0 0 commits the whole file. */
uint32_t nfsb_commit3(struct client *c, const struct op *op)
{
	struct lookup lk;

	(void)op;
	if (c->num[0] < 0 || c->num[1] < 0 || c->num[1] > UINT32_MAX)
		return NFS3ERR_INVAL;
	return on_object(c, c->path[0], do_commit3, &lk);
}

#if NLM_BUILT
/* Remember a file LOCK4 locked a range of, for nlm_release_all. */
static void nlm_note_locked(struct nfsb *nb, const struct fhandle *fh)
{
	for (size_t i = nb->nlm_nlocked; i-- > 0;)
		if (nb->nlm_locked[i].len == fh->len && memcmp(nb->nlm_locked[i].data, fh->data, fh->len) == 0)
			return;
	if (nb->nlm_nlocked == nb->nlm_locked_cap) {
		nb->nlm_locked_cap = nb->nlm_locked_cap ? nb->nlm_locked_cap * 2 : 4;
		nb->nlm_locked = xrealloc(nb->nlm_locked, nb->nlm_locked_cap * sizeof(*nb->nlm_locked));
	}
	nb->nlm_locked[nb->nlm_nlocked++] = *fh;
}

void nlm_release_all(struct client *c, struct nfsb *nb)
{
	/* one UNLOCK of the whole file each: every range this client's
	 * lock owner holds there (nothing if UNLOCK4 released them) */
	for (size_t i = 0; i < nb->nlm_nlocked && nb->nlm && !nb->dead; i++)
		if (nlm_call(c, nb, NLM4_UNLOCK, &nb->nlm_locked[i], 0, 0) == STATUS_FATAL)
			break;
	free(nb->nlm_locked);
	nb->nlm_locked = NULL;
	nb->nlm_nlocked = nb->nlm_locked_cap = 0;
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
	st = nlm_call(c, nb, proc, &lk.fh, (uint64_t)c->num[0], (uint64_t)c->num[1]);
	if (proc == NLM4_LOCK && st == NLM4_GRANTED)
		nlm_note_locked(nb, &lk.fh);
	return st;
}

uint32_t nfsb_lock4(struct client *c, const struct op *op)
{
	return nlm_path_op(c, op, NLM4_LOCK);
}

uint32_t nfsb_unlock4(struct client *c, const struct op *op)
{
	return nlm_path_op(c, op, NLM4_UNLOCK);
}

uint32_t nfsb_test4(struct client *c, const struct op *op)
{
	return nlm_path_op(c, op, NLM4_TEST);
}
#endif
