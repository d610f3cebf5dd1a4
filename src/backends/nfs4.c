/*
 * nfs4.c - the NFSv4 adapter of the nfs backend (-B nfs --nfs-version 4):
 * the netbench ops (netbench.h) over libnfs's high-level calls with
 * NFS_V4, which keep the v4 state a client has (the client id and its
 * lease renewal, OPEN stateids, lock owners) inside libnfs.  The calls
 * answer -errno; one table turns those into NT statuses.  The NFSv3 ops
 * (READ3, LOOKUP3, ...) are not offered: nfs_select_v4() takes them out of
 * the backend's table, so a loadfile using them is refused at load time.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

/* One NFSv4 open of a file, shared by the client's handles of that path:
 * NFSv4.0 gives one open-owner one open state per file (a second OPEN
 * upgrades the first), and libnfs 4.0 keeps a seqid per nfsfh, so two
 * nfsfh of one file make the second CLOSE fail with NFS4ERR_BAD_SEQID.
 * A real client shares the open state the same way. */
struct nfs4_open {
	char *path;			/* the path it was opened by; NULL once
					   renamed or removed (no new sharers) */
	struct nfsfh *fh;		/* libnfs's open file */
	int refs;			/* handles using it */
};

struct nfs4b {
	struct nb_client nbc;		/* first: the netbench layer's state */
	struct nfs_context *nfs;	/* the mounted export (NFSv4) */
	bool dead;			/* the connection failed: every call is fatal */
	struct nfs4_open **opens;	/* the client's open files */
	size_t nopens, capopens;
};

/* libnfs 4.0 sizes an NFSv4 call's encoding buffer without the data: a
 * WRITE of 4096 bytes or more fails locally ("ZDR error: Failed to encode
 * COMPOUND4args"), and nfs_get_writemax() is 0 under NFSv4, so libnfs does
 * not split it.  Writes go in chunks that fit. */
#define NFS4_WRITE_CHUNK 3072

struct nfs4_file {
	struct nfsfh *fh;		/* open file, or NULL for a directory */
	struct nfs4_open *o;		/* its shared open, or NULL */
};

static struct nfs4_open *open_find(struct nfs4b *nb, const char *path)
{
	for (size_t i = 0; i < nb->nopens; i++)
		if (nb->opens[i]->path && !strcmp(nb->opens[i]->path, path))
			return nb->opens[i];
	return NULL;
}

/* A path renamed or removed: its opens are no longer found by it. */
static void open_forget(struct nfs4b *nb, const char *path)
{
	struct nfs4_open *o;

	while ((o = open_find(nb, path))) {
		free(o->path);
		o->path = NULL;
	}
}

static void open_drop(struct nfs4b *nb, struct nfs4_open *o)
{
	for (size_t i = 0; i < nb->nopens; i++) {
		if (nb->opens[i] == o) {
			nb->opens[i] = nb->opens[--nb->nopens];
			break;
		}
	}
	free(o->path);
	free(o);
}

/* -errno from libnfs -> NT status.  Errors that mean the connection (or
 * the lease) is gone are fatal: c->error says which call and why. */
static const struct {
	int err;
	uint32_t status;
} errno_status[] = {
	{ ENOENT, NT_STATUS_OBJECT_NAME_NOT_FOUND },
	{ ENOTDIR, NT_STATUS_OBJECT_PATH_NOT_FOUND },
	{ EEXIST, NT_STATUS_OBJECT_NAME_COLLISION },
	{ EISDIR, NT_STATUS_FILE_IS_A_DIRECTORY },
	{ ENOTEMPTY, NT_STATUS_DIRECTORY_NOT_EMPTY },
	{ EACCES, NT_STATUS_ACCESS_DENIED },
	{ EPERM, NT_STATUS_ACCESS_DENIED },
	{ EROFS, NT_STATUS_ACCESS_DENIED },
	{ ENOSPC, NT_STATUS_DISK_FULL },
	{ EDQUOT, NT_STATUS_DISK_FULL },
	{ EFBIG, NT_STATUS_DISK_FULL },
	{ ENAMETOOLONG, NT_STATUS_OBJECT_NAME_INVALID },
	{ EINVAL, NT_STATUS_INVALID_PARAMETER },
	{ EBADF, NT_STATUS_INVALID_HANDLE },
};

static const int fatal_errno[] = { ETIMEDOUT, ECONNRESET, ECONNREFUSED, ENOTCONN, EPIPE,
				   ESHUTDOWN, EIO, EFAULT, ENOMEM };

static uint32_t nt4(struct client *c, int rc, const char *what, const char *path)
{
	struct nfs4b *nb = c->priv;
	int err = -rc;

	if (rc >= 0)
		return NT_STATUS_OK;
	if (err == EINTR) {
		/* libnfs 4.0's synchronous calls end so at --nfs-timeout
		 * ("Command timed out"): the server stopped answering */
		snprintf(c->error, sizeof(c->error),
			 "nfs %s: NFSv4 %s %s: no reply in %d s: the server stopped answering",
			 nfs_opt.server, what, shown(path), nfs_opt.timeout_s);
		nb->dead = true;
		return STATUS_FATAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fatal_errno); i++) {
		if (err == fatal_errno[i]) {
			snprintf(c->error, sizeof(c->error), "nfs: NFSv4 %s %s: %s", what, shown(path),
				 nfs_get_error(nb->nfs));
			nb->dead = true;
			return STATUS_FATAL;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(errno_status); i++)
		if (err == errno_status[i].err)
			return errno_status[i].status;
	return nt_from_errno(err);
}

/* libnfs's paths start at the export's root: "/" + path. */
static const char *abs4(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "/%s", path);
	return buf;
}

#define P(path) abs4((char[PATH_MAX + 2]){ 0 }, PATH_MAX + 2, (path))
#define LIVE(c) do { if (((struct nfs4b *)(c)->priv)->dead) return STATUS_FATAL; } while (0)

static struct nfs_context *ctx(struct client *c)
{
	return ((struct nfs4b *)c->priv)->nfs;
}

/* Stat path: 1 a directory, 0 something else, or a status (not-found
 * pair decided by the parent) as a negative -1 with *st set. */
static uint32_t stat4(struct client *c, const char *path, struct nfs_stat_64 *st)
{
	int rc = nfs_stat64(ctx(c), P(path), st);

	if (rc == -ENOENT || rc == -ENOTDIR) {
		/* the name, or a directory on the way? */
		char parent[PATH_MAX];
		const char *slash = strrchr(path, '/');
		struct nfs_stat_64 pst;

		if (!slash)
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
		rc = nfs_stat64(ctx(c), P(parent), &pst);
		if (rc == 0 && S_ISDIR(pst.nfs_mode))
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		return rc == 0 || rc == -ENOENT || rc == -ENOTDIR ? NT_STATUS_OBJECT_PATH_NOT_FOUND :
								     nt4(c, rc, "GETATTR", parent);
	}
	return nt4(c, rc, "GETATTR", path);
}

static uint32_t nfs4_open(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			  bool *created)
{
	struct nfs4_file *f = h->file;
	struct nfs_stat_64 st;
	uint32_t s;
	int rc;

	LIVE(c);
	f->fh = NULL;
	*created = false;
	s = stat4(c, path, &st);
	if (s == NT_STATUS_OK) {
		if ((flags & NB_CREATE) && (flags & NB_EXCL))
			return NT_STATUS_OBJECT_NAME_COLLISION;
		if (S_ISDIR(st.nfs_mode)) {
			if (!(flags & NB_DIRECTORY) && (!(flags & NB_ANY) || (flags & NB_TRUNC)))
				return NT_STATUS_FILE_IS_A_DIRECTORY;
			h->is_dir = true;
			return NT_STATUS_OK;
		}
		if (flags & NB_DIRECTORY)
			return NT_STATUS_NOT_A_DIRECTORY;
	} else if (s != NT_STATUS_OBJECT_NAME_NOT_FOUND || !(flags & NB_CREATE)) {
		return s;
	} else if (flags & NB_DIRECTORY) {
		s = nt4(c, nfs_mkdir(ctx(c), P(path)), "CREATE (directory)", path);
		if (s == NT_STATUS_OK) {
			h->is_dir = true;
			*created = true;
		}
		return s;
	}
	/* OPEN; of a missing name with NB_CREATE an OPEN4_CREATE.  libnfs 4.0
	 * answers O_CREAT|O_TRUNC on an existing file with NFS4ERR_EXIST, so
	 * an existing file is opened without O_CREAT, a new one without
	 * O_TRUNC (it is empty). */
	if (s == NT_STATUS_OK) {
		struct nfs4_open *o = open_find(c->priv, path);

		flags &= ~(unsigned)(NB_CREATE | NB_EXCL);
		if (o) {
			if ((flags & NB_TRUNC) && (rc = nfs_ftruncate(ctx(c), o->fh, 0)) < 0)
				return nt4(c, rc, "SETATTR", path);
			o->refs++;
			f->o = o;
			f->fh = o->fh;
			h->is_dir = false;
			return NT_STATUS_OK;
		}
	} else {
		flags &= ~(unsigned)NB_TRUNC;
	}
	rc = nfs_open2(ctx(c), P(path), nb_open_flags(flags | NB_READ | NB_WRITE), 0644, &f->fh);
	if (rc < 0) {
		f->fh = NULL;
		return nt4(c, rc, "OPEN", path);
	}
	{
		struct nfs4b *nb = c->priv;
		struct nfs4_open *o = xcalloc(1, sizeof(*o));

		o->path = xstrdup(path);
		o->fh = f->fh;
		o->refs = 1;
		if (nb->nopens == nb->capopens) {
			nb->capopens = nb->capopens ? 2 * nb->capopens : 16;
			nb->opens = xrealloc(nb->opens, nb->capopens * sizeof(*nb->opens));
		}
		nb->opens[nb->nopens++] = o;
		f->o = o;
	}
	h->is_dir = false;
	*created = s != NT_STATUS_OK;
	return NT_STATUS_OK;
}

static uint32_t nfs4_close(struct client *c, struct nb_handle *h)
{
	struct nfs4_file *f = h->file;
	int rc = 0;

	if (f->fh) {
		if (f->o && --f->o->refs > 0) {
			f->fh = NULL;
			f->o = NULL;
			return NT_STATUS_OK;
		}
		rc = ((struct nfs4b *)c->priv)->dead ? 0 : nfs_close(ctx(c), f->fh);
		if (f->o)
			open_drop(c->priv, f->o);
		f->fh = NULL;
		f->o = NULL;
	}
	return nt4(c, rc, "CLOSE", h->path ? h->path : "");
}

static uint32_t nfs4_read(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			  size_t size, size_t *got)
{
	struct nfs4_file *f = h->file;
	int rc;

	LIVE(c);
	rc = nfs_pread(ctx(c), f->fh, offset, size, buf);
	if (rc < 0)
		return nt4(c, rc, "READ", h->path);
	*got = (size_t)rc;
	return NT_STATUS_OK;
}

static uint32_t nfs4_write(struct client *c, struct nb_handle *h, const char *buf,
			   uint64_t offset, size_t size, size_t *done)
{
	struct nfs4_file *f = h->file;
	int rc;

	LIVE(c);
	*done = 0;
	while (*done < size) {
		size_t n = size - *done < NFS4_WRITE_CHUNK ? size - *done : NFS4_WRITE_CHUNK;

		rc = nfs_pwrite(ctx(c), f->fh, offset + *done, n, buf + *done);
		if (rc < 0)
			return nt4(c, rc, "WRITE", h->path);
		*done += (size_t)rc;
		if ((size_t)rc < n)
			break;
	}
	return NT_STATUS_OK;
}

static uint32_t nfs4_truncate(struct client *c, struct nb_handle *h, uint64_t size)
{
	LIVE(c);
	return nt4(c, nfs_ftruncate(ctx(c), ((struct nfs4_file *)h->file)->fh, size), "SETATTR",
		   h->path);
}

static uint32_t nfs4_flush(struct client *c, struct nb_handle *h)
{
	struct nfs4_file *f = h->file;

	LIVE(c);
	return f->fh ? nt4(c, nfs_fsync(ctx(c), f->fh), "COMMIT", h->path) : NT_STATUS_OK;
}

static uint32_t nfs4_stat(struct client *c, char *path, struct nb_stat *out)
{
	struct nfs_stat_64 st;
	uint32_t s;

	LIVE(c);
	s = stat4(c, path, &st);
	if (s == NT_STATUS_OK) {
		out->is_dir = S_ISDIR(st.nfs_mode);
		out->size = st.nfs_size;
	}
	return s;
}

static uint32_t nfs4_fstat(struct client *c, struct nb_handle *h, struct nb_stat *out)
{
	struct nfs4_file *f = h->file;
	struct nfs_stat_64 st;
	int rc;

	LIVE(c);
	if (!f->fh)
		return nfs4_stat(c, h->path, out);
	rc = nfs_fstat64(ctx(c), f->fh, &st);
	if (rc < 0)
		return nt4(c, rc, "GETATTR", h->path);
	out->is_dir = S_ISDIR(st.nfs_mode);
	out->size = st.nfs_size;
	return NT_STATUS_OK;
}

/* SET_FILE_INFORMATION 1004 / 1: one SETATTR on the open file (its mode,
 * with the open stateid).  Not the times: libnfs 4.0's nfs_utimes under
 * NFSv4 goes by path and leaves the client's open-owner seqid behind, so
 * the next OPEN fails with NFS4ERR_BAD_SEQID.  A directory handle: a
 * GETATTR. */
static uint32_t nfs4_set_info(struct client *c, struct nb_handle *h, int level)
{
	struct nfs4_file *f = h->file;
	struct nb_stat st;

	LIVE(c);
	if (level != 1004 && level != 1)
		return NT_STATUS_OK;
	if (!f->fh)
		return nfs4_stat(c, h->path, &st);
	return nt4(c, nfs_fchmod(ctx(c), f->fh, 0644), "SETATTR", h->path);
}

static uint32_t nfs4_list(struct client *c, char *dir, char *full, nb_list_fn fn, void *arg)
{
	struct nfsdir *d;
	struct nfsdirent *e;
	struct nfs_stat_64 st;
	uint32_t s;
	int rc;

	(void)full;
	LIVE(c);
	s = stat4(c, dir, &st);
	if (s != NT_STATUS_OK)
		return s;
	if (!S_ISDIR(st.nfs_mode))
		return NT_STATUS_NOT_A_DIRECTORY;
	rc = nfs_opendir(ctx(c), P(dir), &d);
	if (rc < 0)
		return nt4(c, rc, "READDIR", dir);
	while ((e = nfs_readdir(ctx(c), d)))
		fn(arg, e->name);
	nfs_closedir(ctx(c), d);
	return NT_STATUS_OK;
}

static uint32_t nfs4_mkdir(struct client *c, char *path)
{
	int rc;

	LIVE(c);
	rc = nfs_mkdir(ctx(c), P(path));
	if (rc == -ENOENT || rc == -ENOTDIR)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt4(c, rc, "CREATE (directory)", path);
}

/* NFSv4's REMOVE takes files and directories alike: the type is checked
 * first, as NT's calls tell them apart. */
static uint32_t nfs4_rmdir(struct client *c, char *path)
{
	struct nfs_stat_64 st;
	uint32_t s;
	int rc;

	LIVE(c);
	s = stat4(c, path, &st);
	if (s != NT_STATUS_OK)
		return s;
	if (!S_ISDIR(st.nfs_mode))
		return NT_STATUS_NOT_A_DIRECTORY;
	rc = nfs_rmdir(ctx(c), P(path));
	if (rc == -EEXIST || rc == -ENOTEMPTY)
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	return nt4(c, rc, "REMOVE (directory)", path);
}

static uint32_t nfs4_unlink(struct client *c, char *path)
{
	struct nfs_stat_64 st;
	uint32_t s;

	LIVE(c);
	s = stat4(c, path, &st);
	if (s != NT_STATUS_OK)
		return s;
	if (S_ISDIR(st.nfs_mode))
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	open_forget(c->priv, path);
	return nt4(c, nfs_unlink(ctx(c), P(path)), "REMOVE", path);
}

static uint32_t nfs4_rename(struct client *c, char *from, char *to)
{
	struct nfs_stat_64 st;
	uint32_t s;
	int rc;

	LIVE(c);
	s = stat4(c, to, &st);
	if (s == NT_STATUS_OK)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	if (s == STATUS_FATAL)
		return s;
	if (s == NT_STATUS_OBJECT_PATH_NOT_FOUND)
		return s;
	open_forget(c->priv, from);
	rc = nfs_rename(ctx(c), P(from), P(to));
	if (rc == -ENOENT || rc == -ENOTDIR)
		return stat4(c, from, &st) == NT_STATUS_OK ? NT_STATUS_OBJECT_PATH_NOT_FOUND :
							     stat4(c, from, &st);
	return nt4(c, rc, "RENAME", from);
}

/* Depth first, without following symlinks (lstat). */
static uint32_t rm_tree(struct client *c, const char *path, int depth)
{
	struct nfs_stat_64 st;
	struct nfsdir *d;
	struct nfsdirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	uint32_t s = NT_STATUS_OK;
	int rc = nfs_lstat64(ctx(c), P(path), &st);

	if (rc == -ENOENT)
		return NT_STATUS_OK;
	if (rc < 0)
		return nt4(c, rc, "GETATTR", path);
	if (!S_ISDIR(st.nfs_mode))
		return nt4(c, nfs_unlink(ctx(c), P(path)), "REMOVE", path);
	if (depth > 256)
		return NT_STATUS_INVALID_PARAMETER;
	rc = nfs_opendir(ctx(c), P(path), &d);
	if (rc < 0)
		return nt4(c, rc, "READDIR", path);
	while ((e = nfs_readdir(ctx(c), d))) {
		if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = xrealloc(names, cap * sizeof(*names));
		}
		{
			size_t len = strlen(path) + strlen(e->name) + 2;

			names[n] = xmalloc(len);
			snprintf(names[n++], len, "%s%s%s", path, *path ? "/" : "", e->name);
		}
	}
	nfs_closedir(ctx(c), d);
	for (size_t i = 0; i < n; i++) {
		if (s == NT_STATUS_OK)
			s = rm_tree(c, names[i], depth + 1);
		free(names[i]);
	}
	free(names);
	if (s == NT_STATUS_OK && *path) {
		rc = nfs_rmdir(ctx(c), P(path));
		s = rc == -ENOENT ? NT_STATUS_OK : nt4(c, rc, "REMOVE (directory)", path);
	}
	return s;
}

static uint32_t nfs4_remove_tree(struct client *c, char *path)
{
	LIVE(c);
	return rm_tree(c, path, 0);
}

static uint32_t nfs4_statfs(struct client *c)
{
	struct statvfs sv;

	LIVE(c);
	return nt4(c, nfs_statvfs(ctx(c), "/", &sv), "GETATTR (space)", "");
}

static const struct nb_adapter nfs4_adapter = {
	.file_size = sizeof(struct nfs4_file),
	.open = nfs4_open,
	.close = nfs4_close,
	.read = nfs4_read,
	.write = nfs4_write,
	.truncate = nfs4_truncate,
	.flush = nfs4_flush,
	.fstat = nfs4_fstat,
	.stat = nfs4_stat,
	.set_info = nfs4_set_info,
	/* No server locks: libnfs 4.0's nfs_fcntl(NFS4_F_SETLK) sends LOCK with
	 * a new lock owner (open_to_lock_owner4) but does not count the
	 * open-owner seqid that LOCK consumes, so the next CLOSE or OPEN of
	 * that client fails with NFS4ERR_BAD_SEQID.  LockX/UnlockX follow the
	 * layer's table only (within one client). */
	.lock = NULL,
	.unlock = NULL,
	.list = nfs4_list,
	.mkdir = nfs4_mkdir,
	.rmdir = nfs4_rmdir,
	.unlink = nfs4_unlink,
	.rename = nfs4_rename,
	.remove_tree = nfs4_remove_tree,
	.statfs = nfs4_statfs,
};

static void nfs4_teardown(struct client *c)
{
	struct nfs4b *nb = c->priv;

	if (!nb)
		return;
	nb_client_free(c, &nb->nbc);
	while (nb->nopens)
		open_drop(nb, nb->opens[0]);
	free(nb->opens);
	if (nb->nfs) {
		if (!nb->dead)
			nfs_umount(nb->nfs);
		nfs_destroy_context(nb->nfs);
	}
	free(nb);
	c->priv = NULL;
}

/* Each client mounts the export with its own NFSv4 client id, lease and
 * credentials; libnfs renews the lease while the calls go on. */
static int nfs4_setup(struct client *c)
{
	struct nfs4b *nb = xcalloc(1, sizeof(*nb));

	c->priv = nb;
	nb->nfs = nfs_mount_export(c->error, sizeof(c->error));
	if (!nb->nfs || nb_client_init(c, &nb->nbc, &nfs4_adapter) < 0) {
		nfs4_teardown(c);
		return -1;
	}
	return 0;
}

static int nfs4_backend_remove_tree(struct client *c, const char *path)
{
	char *p = xstrdup(path);
	uint32_t s;

	nb_close_all(c, &((struct nfs4b *)c->priv)->nbc);
	s = nfs4_remove_tree(c, p);
	free(p);
	if (s != NT_STATUS_OK && !c->error[0])
		snprintf(c->error, sizeof(c->error), "nfs: cannot remove %s over NFSv4", path);
	return s == NT_STATUS_OK ? 0 : -1;
}

static int nfs4_exists(struct client *c, const char *path)
{
	struct nfs_stat_64 st;
	int rc = nfs_stat64(ctx(c), P(path), &st);

	if (rc == 0)
		return 1;
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;
	snprintf(c->error, sizeof(c->error), "nfs: NFSv4 GETATTR %s: %s", shown(path),
		 nfs_get_error(ctx(c)));
	return -1;
}

void nfs_select_v4(struct backend *be)
{
	for (int id = 0; id < OP_COUNT; id++)
		if (op_info[id].domain == DOMAIN_NFS || op_info[id].domain == DOMAIN_NLM)
			be->op[id] = NULL;
	be->flags &= ~(unsigned)BACKEND_NFS_OPS;
	be->description = "an NFSv4 server through libnfs (--server, --export, --nfs-version 4)";
	be->setup = nfs4_setup;
	be->teardown = nfs4_teardown;
	be->remove_tree = nfs4_backend_remove_tree;
	be->exists = nfs4_exists;
}
