/*
 * nfs.c - the NFSv3 backend: replays a loadfile against a real NFS server
 * (a filer) through libnfs.  This file is its adapter of the netbench
 * layer (netbench.h) and its table; nfs.h says where the rest lives.
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
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

/* The file object of a handle. */
struct nfs_file {
	struct fhandle fh;	/* the file's handle */
	bool dirty;		/* UNSTABLE writes since the last COMMIT3 */
};

static inline struct nfs_file *file_of(const struct nb_handle *h)
{
	return h->file;
}

/* The NT status of an NFS status: a name missing on the way to the object
 * is a missing path. */
static uint32_t nt(uint32_t st, bool in_parent)
{
	if (st == STATUS_FATAL)
		return st;
	if (in_parent && (st == NFS3ERR_NOENT || st == NFS3ERR_NOTDIR))
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt_from_nfs(st);
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

static void file_opened(struct nb_handle *h, const struct lookup *lk, bool is_dir)
{
	struct nfs_file *f = file_of(h);

	f->fh = lk->fh;
	f->dirty = false;
	h->is_dir = is_dir;
}

/*
 * Opening an existing name: GETATTR3 of its cached handle or its LOOKUP3s
 * (close-to-open); with NB_TRUNC then SETATTR3 size 0.  Creating: CREATE3
 * (GUARDED with NB_EXCL, UNCHECKED otherwise, size 0 with NB_TRUNC) or
 * MKDIR3.  A name that may be a directory (NB_ANY) or an NB_CREATE of a
 * directory that may exist is looked up first.
 */
static uint32_t nfsb_open(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			  bool *created)
{
	struct nfsb *nb = c->priv;
	bool want_dir = flags & NB_DIRECTORY, excl = flags & NB_EXCL;
	struct lookup lk, dir;
	const char *name;
	uint32_t st;

	if (!(flags & NB_CREATE) || (!excl && (want_dir || (flags & NB_ANY)))) {
		st = revalidate(c, nb, path, &lk);
		if (st == NFS3ERR_NOENT && !lk.in_parent && (flags & NB_CREATE))
			goto create;
		if (st != NFS3_OK)
			return nt(st, lk.in_parent);
		if (want_dir && lk.type != NF3DIR)
			return NT_STATUS_NOT_A_DIRECTORY;
		if (lk.type == NF3DIR && !want_dir && (!(flags & NB_ANY) || (flags & NB_TRUNC)))
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		if ((flags & NB_TRUNC) && (st = rpc_setattr(c, nb, &lk.fh, 0, 0)) != NFS3_OK)
			return nt(st, false);
		file_opened(h, &lk, lk.type == NF3DIR);
		return NT_STATUS_OK;
	}
create:
	st = resolve_parent(c, nb, path, &dir, &name);
	if (st != NFS3_OK)
		return nt(st, true);
	if (want_dir)
		st = rpc_mkdir(c, nb, &dir.fh, name);
	else
		st = rpc_create(c, nb, &dir.fh, name, excl ? GUARDED : UNCHECKED, flags & NB_TRUNC);
	if (st == NFS3ERR_EXIST)
		return excl ? NT_STATUS_OBJECT_NAME_COLLISION : NT_STATUS_FILE_IS_A_DIRECTORY;
	if (st == NFS3ERR_ISDIR)
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	if (st != NFS3_OK)
		return nt(st, false);
	st = new_object(c, nb, path, &lk, want_dir ? NF3DIR : NF3REG);
	if (st != NFS3_OK)
		return nt(st, false);
	*created = excl || want_dir;
	file_opened(h, &lk, want_dir);
	return NT_STATUS_OK;
}

/* Close: its NLM locks go, then COMMIT3 if UNSTABLE writes are pending
 * (NFS close-to-open); nothing on the wire otherwise. */
static uint32_t nfsb_close(struct client *c, struct nb_handle *h)
{
	struct nfsb *nb = c->priv;
	struct nfs_file *f = file_of(h);
	uint32_t st = NFS3_OK;

#if NLM_BUILT
	if (h->locks.n && nb->nlm && nlm_call(c, nb, NLM4_UNLOCK, &f->fh, 0, 0) == STATUS_FATAL)
		return STATUS_FATAL;
#endif
	if (f->dirty)
		st = rpc_commit(c, nb, &f->fh, 0, 0);
	f->dirty = false;
	return nt(st, false);
}

/* READ3s of at most rsize bytes until size is read or the file ends. */
static uint32_t nfsb_read(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			  size_t size, size_t *got)
{
	struct nfsb *nb = c->priv;
	uint64_t done = 0;

	nb->copy_read = c->writepattern;
	while (done < size) {
		uint32_t want = (uint32_t)MIN((uint64_t)size - done, (uint64_t)nb->rsize);
		uint32_t st = rpc_read(c, nb, &file_of(h)->fh, offset + done, want, buf + done);

		if (st != NFS3_OK)
			return nt(st, false);
		done += nb->r.count;
		if (nb->r.count < want || nb->r.eof)
			break;
	}
	*got = done;
	return NT_STATUS_OK;
}

/* WRITE3s of at most wsize bytes, UNSTABLE (committed at Close or Flush),
 * FILE_SYNC with -s or -F. */
static uint32_t nfsb_write(struct client *c, struct nb_handle *h, const char *buf, uint64_t offset,
			   size_t size, size_t *done)
{
	struct nfsb *nb = c->priv;
	struct nfs_file *f = file_of(h);
	int stable = nfs_opt(c)->files.sync_open || nfs_opt(c)->files.do_fsync ? FILE_SYNC : UNSTABLE;
	uint64_t n = 0;

	while (n < size) {
		uint32_t want = (uint32_t)MIN((uint64_t)size - n, (uint64_t)nb->wsize);
		uint32_t st = rpc_write(c, nb, &f->fh, offset + n, want, stable, buf + n);

		if (st != NFS3_OK)
			return nt(st, false);
		if (nb->r.committed != FILE_SYNC)
			f->dirty = true;
		n += nb->r.count;
		if (nb->r.count < want)
			break;
	}
	*done = n;
	return NT_STATUS_OK;
}

static uint32_t nfsb_truncate(struct client *c, struct nb_handle *h, uint64_t size)
{
	return nt(rpc_setattr(c, c->priv, &file_of(h)->fh, (int64_t)size, 0), false);
}

/* COMMIT3 when UNSTABLE writes are pending, as fsync(2) on an NFS client. */
static uint32_t nfsb_flush(struct client *c, struct nb_handle *h)
{
	struct nfs_file *f = file_of(h);
	uint32_t st;

	if (!f->dirty)
		return NT_STATUS_OK;
	st = rpc_commit(c, c->priv, &f->fh, 0, 0);
	if (st == NFS3_OK)
		f->dirty = false;
	return nt(st, false);
}

static uint32_t nfsb_fstat(struct client *c, struct nb_handle *h, struct nb_stat *sb)
{
	struct nfsb *nb = c->priv;
	uint32_t st = rpc_getattr(c, nb, &file_of(h)->fh);

	if (st != NFS3_OK)
		return nt(st, false);
	sb->is_dir = nb->r.type == NF3DIR;
	sb->size = nb->r.size;
	return NT_STATUS_OK;
}

static uint32_t nfsb_stat(struct client *c, char *path, struct nb_stat *sb)
{
	struct nfsb *nb = c->priv;
	struct lookup lk;
	uint32_t st = revalidate(c, nb, path, &lk);

	if (st != NFS3_OK)
		return nt(st, lk.in_parent);
	sb->is_dir = lk.type == NF3DIR;
	sb->size = nb->r.size;
	return NT_STATUS_OK;
}

/* Levels 1004 (FileBasicInformation) and 1 (SMB_INFO_STANDARD) set the
 * times (SETATTR3); other levels send nothing. */
static uint32_t nfsb_set_info(struct client *c, struct nb_handle *h, int level)
{
	if (level != 1004 && level != 1)
		return NT_STATUS_OK;
	return nt(rpc_setattr(c, c->priv, &file_of(h)->fh, -1, 0), false);
}

/* Byte-range locks: with --enable-nlm each is also an NLM v4 LOCK/UNLOCK on
 * the server (other clients then see it); without, the layer's table is
 * the only one. */
static uint32_t nlm_range(struct client *c, struct nb_handle *h, bool lock, uint64_t offset,
			  uint64_t length)
{
#if NLM_BUILT
	struct nfsb *nb = c->priv;

	if (nb->nlm)
		return nt_from_nlm(nlm_call(c, nb, lock ? NLM4_LOCK : NLM4_UNLOCK, &file_of(h)->fh,
					    offset, length));
#endif
	return NT_STATUS_OK;
}

static uint32_t nfsb_lock(struct client *c, struct nb_handle *h, uint64_t offset, uint64_t length)
{
	return nlm_range(c, h, true, offset, length);
}

static uint32_t nfsb_unlock(struct client *c, struct nb_handle *h, uint64_t offset,
			    uint64_t length)
{
	return nlm_range(c, h, false, offset, length);
}

static uint32_t do_list(struct client *c, struct nfsb *nb, const struct fhandle *fh)
{
	return list_dir(c, nb, fh);
}

/* READDIRPLUS3 of the directory, page after page. */
static uint32_t nfsb_list(struct client *c, char *dirpath, char *full, nb_list_fn fn, void *arg)
{
	struct nfsb *nb = c->priv;
	struct lookup lk;
	uint32_t st;

	nb->list_fn = fn;
	nb->list_arg = arg;
	if (dirpath != full) {
		/* FIND_FIRST: the pattern's directory, as cached */
		st = resolve(c, nb, dirpath, strlen(dirpath), &lk);
		if (st == NFS3_OK)
			st = list_dir(c, nb, &lk.fh);
		nb->list_fn = NULL;
		if (st == NFS3ERR_NOENT || st == NFS3ERR_NOTDIR)
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;
		return nt(st, true);
	}
	st = on_object(c, dirpath, do_list, &lk);
	nb->list_fn = NULL;
	if (st == NFS3ERR_NOTDIR && !lk.in_parent)
		return NT_STATUS_NOT_A_DIRECTORY;
	return nt(st, lk.in_parent);
}

/* fn on the name's directory; the NFS status as NT's, but `special`, which
 * means `as` here. */
static uint32_t on_name(struct client *c, char *path, on_dir_fn fn, uint32_t special, uint32_t as)
{
	struct lookup lk;
	uint32_t st = on_parent(c, path, fn, &lk);

	return st == special ? as : nt(st, lk.in_parent);
}

static uint32_t nfsb_mkdir(struct client *c, char *path)
{
	return on_name(c, path, do_mkdir3, NFS3ERR_EXIST, NT_STATUS_OBJECT_NAME_COLLISION);
}

static uint32_t nfsb_rmdir(struct client *c, char *path)
{
	struct lookup lk;
	uint32_t st = on_parent(c, path, do_rmdir3, &lk);

	if (st == NFS3ERR_NOTEMPTY || st == NFS3ERR_EXIST)
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	return nt(st, lk.in_parent);
}

static uint32_t nfsb_unlink(struct client *c, char *path)
{
	return on_name(c, path, do_remove3, NFS3ERR_ISDIR, NT_STATUS_FILE_IS_A_DIRECTORY);
}

/* LOOKUP3 of the target first, since NT renames do not replace. */
static uint32_t nfsb_rename(struct client *c, char *from, char *to)
{
	struct lookup lk;
	bool in_parent;
	uint32_t st = revalidate(c, c->priv, to, &lk);

	if (st == NFS3_OK)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	if (st == STATUS_FATAL)
		return st;
	st = rename_paths(c, from, to, &in_parent);
	return nt(st, in_parent);
}

static uint32_t nfsb_deltree(struct client *c, char *path)
{
	return nt(remove_path(c, c->priv, path), false);
}

static uint32_t nfsb_statfs(struct client *c)
{
	return nt(rpc_fsstat(c, c->priv), false);
}

const struct nb_adapter nfsb_adapter = {
	.file_size = sizeof(struct nfs_file),
	.open = nfsb_open,
	.close = nfsb_close,
	.read = nfsb_read,
	.write = nfsb_write,
	.truncate = nfsb_truncate,
	.flush = nfsb_flush,
	.fstat = nfsb_fstat,
	.stat = nfsb_stat,
	.set_info = nfsb_set_info,
	.lock = nfsb_lock,
	.unlock = nfsb_unlock,
	.list = nfsb_list,
	.mkdir = nfsb_mkdir,
	.rmdir = nfsb_rmdir,
	.unlink = nfsb_unlink,
	.rename = nfsb_rename,
	.remove_tree = nfsb_deltree,
	.statfs = nfsb_statfs,
};

/* What the NFSv3 and NFSv4 tables share: the options, the parent's
 * checks (nfsb_init) and the asynchronous form (nfs_async.c). */
#define NFS_TABLE                                                                          \
	BACKEND_VARIANT_OF("nfs", nfs_option_table, struct nfs_options, nfs_variant),        \
	.init = nfsb_init,                                                                 \
	.expire = nfs_expire,                                                              \
	.submit = nfs_submit
#define NFS_FLAGS (BACKEND_SERVER | BACKEND_NETWORK | BACKEND_FILES | BACKEND_ASYNC | BACKEND_FIBERS)

const struct backend nfs_backend = {
	NFS_TABLE,
	.description = "an NFSv3 server through libnfs (--server, --export)",
	.flags = NFS_FLAGS | BACKEND_NFS_OPS,
	.setup = nfsb_setup,
	.teardown = nfsb_teardown,
	.remove_tree = nfsb_remove_tree,
	.exists = nfsb_exists,
	.why_unsupported = nfsb_why_unsupported,
	.op = {
		NB_OPS,
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

/* The module's table under --nfs-version 4 (nfs_variant): the options and
 * the parent's checks of the NFSv3 table, NFSv4 clients (nfs4.c), and only
 * the netbench and SMB ops. */
const struct backend nfs4_backend = {
	NFS_TABLE,
	.description = "an NFSv4 server through libnfs (--server, --export, --nfs-version 4)",
	.flags = NFS_FLAGS,
	.setup = nfs4_setup,
	.teardown = nfs4_teardown,
	.remove_tree = nfs4_backend_remove_tree,
	.exists = nfs4_exists,
	.why_unsupported = nfs4_why_unsupported,
	.op = { NB_OPS },
};

/* The module exports the NFSv3 table; its options choose (nfs_variant). */
BACKEND_MODULE(nfs_backend);
