/*
 * fileio.c - the local file system backend (dbench).
 *
 * Every netbench op with its meaning on POSIX, making the same file-system
 * calls as dbench 4.0's fileio backend so that figures compare work for
 * work: before a path op, a stat of the path and, when that misses, a scan
 * of the parent directory comparing names case-insensitively (emulating a
 * case-insensitive server; --no-resolve turns it off); NTCreateX is open
 * plus fstat; ReadX/WriteX are pread/pwrite; Flush is fsync; LockX/UnlockX
 * are fcntl locks; QUERY_FS_INFORMATION is statfs; FIND_FIRST lists the
 * directory.  Each client chdirs into -D; paths are relative to it.
 *
 * Safety: the loadfile compiler already refused paths that climb out of the
 * share root.  Opens use O_NOFOLLOW, trees are removed without following
 * symlinks, and at setup the trees a client will work in are checked for
 * symlinks, so nothing outside -D is touched.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backend.h"
#include "client.h"
#include "common.h"
#include "status.h"
#include "util.h"

#define DOSATTRIB_XATTR "user.DOSATTRIB"

struct fio_handle {
	int fd;			/* -1 when not open */
	uint8_t is_dir;		/* opened as a directory */
	uint8_t delete_on_close;
	struct lock_table locks;	/* byte ranges held */
	char *path;		/* the path it was opened with */
	size_t path_cap;
};

struct fio {
	struct fio_handle *h;	/* program.nhandles entries */
	uint32_t nhandles;
	struct iobuf buf;	/* data written and read */
};

/* ---- helpers ---- */

static struct fio_handle *handle_of(struct client *c, const struct op *op)
{
	struct fio *f = c->priv;
	struct fio_handle *h = &f->h[op->handle];

	return h->fd < 0 ? NULL : h;
}

static void handle_release(struct fio_handle *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->locks.n = 0;
	h->delete_on_close = 0;
}

static void handle_set_path(struct fio_handle *h, const char *path)
{
	size_t n = strlen(path) + 1;

	if (n > h->path_cap) {
		char *p = realloc(h->path, n);

		if (!p)
			return;
		h->path = p;
		h->path_cap = n;
	}
	memcpy(h->path, path, n);
}

/* fsync the directory holding path (-S). */
static void sync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (slash) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	} else {
		strcpy(dir, ".");
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Name resolution as dbench 4.0 emulates a case-insensitive server: stat
 * the path; if it is missing, scan the parent directory for the name in
 * any case, and on a match use that spelling (same length in ASCII).
 * Returns 1 if the name exists, 0 if not; *parent_missing says whether
 * the parent directory could not be opened.
 */
static int resolve(char *path, int *parent_missing)
{
	struct stat st;
	char *slash, *name;
	DIR *dir;
	struct dirent *d;
	int found = 0;

	*parent_missing = 0;
	if (stat(path, &st) == 0)
		return 1;
	if (errno != ENOENT) {
		*parent_missing = errno == ENOTDIR;
		return 0;
	}
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		dir = opendir(path);
		*slash = '/';
		name = slash + 1;
	} else {
		dir = opendir(".");
		name = path;
	}
	if (!dir) {
		*parent_missing = 1;
		return 0;
	}
	while ((d = readdir(dir))) {
		if (strcasecmp(d->d_name, name) == 0) {
			memcpy(name, d->d_name, strlen(name));
			found = 1;
			break;
		}
	}
	closedir(dir);
	return found;
}

/* Resolve unless --no-resolve; returns the parent-missing hint: 1 missing,
 * 0 present, -1 unknown. */
static int lookup(struct client *c, char *path)
{
	int pm;

	if (c->opt->no_resolve)
		return -1;
	resolve(path, &pm);
	return pm;
}

/* A missing name: OBJECT_NAME_NOT_FOUND, or OBJECT_PATH_NOT_FOUND when a
 * directory on the way is missing. */
static uint32_t not_found(const char *path, int parent_missing)
{
	if (parent_missing < 0) {
		char dir[PATH_MAX];
		const char *slash = strrchr(path, '/');
		struct stat st;

		if (!slash)
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		parent_missing = stat(dir, &st) < 0 || !S_ISDIR(st.st_mode);
	}
	return parent_missing ? NT_STATUS_OBJECT_PATH_NOT_FOUND : NT_STATUS_OBJECT_NAME_NOT_FOUND;
}

static uint32_t path_errno(int err, const char *path, int parent_missing)
{
	if (err == ENOENT)
		return not_found(path, parent_missing);
	if (err == ENOTDIR)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt_from_errno(err);
}

/* Remove a tree without following symlinks: 0 if gone, -errno if not. */
static int remove_at(int dirfd, const char *name, int depth)
{
	int fd, rc = 0;
	DIR *dir;
	struct dirent *d;

	if (depth > 512)
		return -ELOOP;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return -errno;
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((d = readdir(dir))) {
		int r;

		if (is_dot(d->d_name))
			continue;
		if (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN) {
			if (unlinkat(fd, d->d_name, 0) < 0 && errno != ENOENT && !rc)
				rc = -errno;
			continue;
		}
		r = remove_at(fd, d->d_name, depth + 1);
		if (r < 0 && !rc)
			rc = r;
	}
	closedir(dir);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && !rc)
		rc = -errno;
	return rc;
}

static int remove_tree(const char *path)
{
	return remove_at(AT_FDCWD, *path ? path : ".", 0);
}

/* ---- setup ---- */

/* nftw() passes no context to its callback: the first symlink found is
 * copied here. */
static char symlink_found[PATH_MAX];

static int find_symlink(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_SL || type == FTW_SLN) {
		snprintf(symlink_found, sizeof(symlink_found), "%s", path);
		return 1;
	}
	return 0;
}

/* Refuse to work in a tree that holds symlinks: they could lead out. */
static int check_tree(struct client *c, const char *path)
{
	char prefix[PATH_MAX];
	struct stat st;

	/* every directory on the way, then the tree itself */
	for (const char *p = path; (p = strchr(p, '/')); p++) {
		memcpy(prefix, path, (size_t)(p - path));
		prefix[p - path] = '\0';
		if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode))
			goto symlink;
	}
	snprintf(prefix, sizeof(prefix), "%s", path);
	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		goto symlink;
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (nftw(path, find_symlink, 32, FTW_PHYS) == 1) {
		snprintf(prefix, sizeof(prefix), "%s", symlink_found);
		goto symlink;
	}
	return 0;
symlink:
	snprintf(c->error, sizeof(c->error),
		 "%s/%s is a symbolic link: refusing to work in a tree with symlinks (they could lead outside the directory)",
		 c->opt->directory, prefix);
	return -1;
}

static int check_xattrs(struct client *c)
{
	char name[64];
	int fd, rc = 0;

	snprintf(name, sizeof(name), ".dbench-xattr-probe.%d", (int)getpid());
	fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(c->error, sizeof(c->error), "cannot create a file in %s: %s",
			 c->opt->directory, strerror(errno));
		return -1;
	}
	if (fsetxattr(fd, DOSATTRIB_XATTR, "", 1, 0) < 0) {
		snprintf(c->error, sizeof(c->error), "-x: extended attributes do not work in %s: %s",
			 c->opt->directory, strerror(errno));
		rc = -1;
	}
	close(fd);
	unlink(name);
	return rc;
}

static int fio_setup(struct client *c)
{
	const struct program *prog = c->prog;
	struct fio *f;
	char path[PATH_MAX];

	if (chdir(c->opt->directory) < 0) {
		snprintf(c->error, sizeof(c->error), "cannot enter %s: %s", c->opt->directory,
			 strerror(errno));
		return -1;
	}
	if (c->cleanup_only)
		goto buffers;
	if (c->id == 0) {
		for (uint32_t r = 0; r < prog->nshared_roots; r++)
			if (check_tree(c, prog->shared_roots[r]) < 0)
				return -1;
		if (c->opt->ea_enable && check_xattrs(c) < 0)
			return -1;
	}
	for (uint32_t r = 0; r < prog->nclient_roots; r++) {
		client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		if (check_tree(c, path) < 0)
			return -1;
	}
buffers:
	f = xcalloc(1, sizeof(*f));
	f->nhandles = prog->nhandles;
	f->h = xcalloc(prog->nhandles ? prog->nhandles : 1, sizeof(*f->h));
	for (uint32_t i = 0; i < prog->nhandles; i++)
		f->h[i].fd = -1;
	c->priv = f;
	if (iobuf_grow(&f->buf, c->nc.rng, 1 << 16) < 0) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		return -1;
	}
	return 0;
}

static void fio_teardown(struct client *c)
{
	struct fio *f = c->priv;

	if (!f)
		return;
	for (uint32_t i = 0; i < f->nhandles; i++) {
		handle_release(&f->h[i]);
		lock_table_free(&f->h[i].locks);
		free(f->h[i].path);
	}
	free(f->h);
	iobuf_free(&f->buf);
	free(f);
	c->priv = NULL;
}

static int fio_remove_tree(struct client *c, const char *path)
{
	int rc = remove_tree(path);

	if (rc < 0)
		snprintf(c->error, sizeof(c->error), "%s", strerror(-rc));
	return rc < 0 ? -1 : 0;
}

static int fio_exists(struct client *c, const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return 1;
	if (errno == ENOENT || errno == ENOTDIR)
		return 0;
	snprintf(c->error, sizeof(c->error), "cannot look at %s/%s: %s", c->opt->directory, path,
		 strerror(errno));
	return -1;
}

/* ---- opening ---- */

/*
 * -x: the DOS attributes as Samba 4 keeps them, so that the metadata load
 * is smbd's: user.DOSATTRIB holding an NDR xattr_DOSATTRIB blob of version
 * 5 -- an empty attrib_hex string, version 5 (twice: the field and the
 * union's level), padding, valid flags ATTRIB|CREATE_TIME, the attributes,
 * and the birth time as an NTTIME -- 24 bytes, as smbd 4.17 writes them.
 */
#define DOSATTRIB_LEN 24
#define FILE_ATTRIBUTE_DIRECTORY 0x10
#define FILE_ATTRIBUTE_ARCHIVE 0x20

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void dosattrib_blob(uint8_t blob[DOSATTRIB_LEN], uint32_t attrib, int dirfd, const char *path)
{
	struct statx stx;
	uint64_t sec, nsec, nttime;

	if (statx(dirfd, path, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_MTIME, &stx) == 0) {
		bool birth = stx.stx_mask & STATX_BTIME;

		sec = (uint64_t)(birth ? stx.stx_btime.tv_sec : stx.stx_mtime.tv_sec);
		nsec = birth ? stx.stx_btime.tv_nsec : stx.stx_mtime.tv_nsec;
	} else {
		sec = (uint64_t)time(NULL);
		nsec = 0;
	}
	nttime = (sec + 11644473600ULL) * 10000000ULL + nsec / 100;
	memset(blob, 0, DOSATTRIB_LEN);
	blob[2] = 5;			/* version */
	blob[4] = 5;			/* the union's level */
	put_le32(blob + 8, 0x11);	/* XATTR_DOSINFO_ATTRIB | XATTR_DOSINFO_CREATE_TIME */
	put_le32(blob + 12, attrib);
	put_le32(blob + 16, (uint32_t)nttime);
	put_le32(blob + 20, (uint32_t)(nttime >> 32));
}

static void set_dosattrib(struct client *c, int fd)
{
	uint8_t blob[DOSATTRIB_LEN];

	if (!c->opt->ea_enable)
		return;
	dosattrib_blob(blob, FILE_ATTRIBUTE_ARCHIVE, fd, "");
	fsetxattr(fd, DOSATTRIB_XATTR, blob, sizeof(blob), 0);
}

static void set_dir_dosattrib(struct client *c, const char *path)
{
	uint8_t blob[DOSATTRIB_LEN];

	if (!c->opt->ea_enable)
		return;
	dosattrib_blob(blob, FILE_ATTRIBUTE_DIRECTORY, AT_FDCWD, path);
	lsetxattr(path, DOSATTRIB_XATTR, blob, sizeof(blob), 0);
}

static uint32_t open_dir(struct client *c, struct fio_handle *h, char *path, int disp, int pm,
			 bool *created)
{
	struct stat st;
	int fd;

	if (disp == DISP_CREATE || disp == DISP_OPEN_IF) {
		if (mkdir(path, 0777) == 0) {
			*created = true;
			set_dir_dosattrib(c, path);
		} else if (errno != EEXIST || disp == DISP_CREATE) {
			if (errno == EEXIST)
				return NT_STATUS_OBJECT_NAME_COLLISION;
			return path_errno(errno, path, pm);
		}
	} else if (disp != DISP_OPEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR && stat(path, &st) == 0)
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_errno(errno, path, pm);
	}
	fstat(fd, &st);
	handle_release(h);	/* a trace may reuse a number still open */
	h->fd = fd;
	h->is_dir = 1;
	return NT_STATUS_OK;
}

static uint32_t fio_ntcreatex(struct client *c, const struct op *op)
{
	struct fio *f = c->priv;
	struct fio_handle *h = &f->h[op->handle];
	char *path = c->path[0];
	uint64_t opts = (uint64_t)c->num[0];
	int disp = (int)c->num[1], pm, fd, flags;
	bool created = false;
	struct stat st;
	uint32_t status;

	pm = lookup(c, path);
	if (c->num[1] < 0 || c->num[1] > DISP_OVERWRITE_IF)
		return NT_STATUS_INVALID_PARAMETER;
	/* --stat-check, as dbench 4.0: what exists is opened, not created */
	if (c->opt->stat_check && (disp == DISP_CREATE || disp == DISP_OPEN_IF) &&
	    stat(path, &st) == 0)
		disp = DISP_OPEN;
	if (opts & FILE_DIRECTORY_FILE) {
		status = open_dir(c, h, path, disp, pm, &created);
		if (status != NT_STATUS_OK)
			return status;
		goto opened;
	}
	flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | disposition_flags(disp) |
		(c->opt->sync_open ? O_SYNC : 0);
	fd = open(path, flags, 0644);
	if (fd < 0 && errno == EISDIR) {
		if (opts & FILE_NON_DIRECTORY_FILE)
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		if (disp != DISP_OPEN && disp != DISP_OPEN_IF)
			return disp == DISP_CREATE ? NT_STATUS_OBJECT_NAME_COLLISION :
						     NT_STATUS_FILE_IS_A_DIRECTORY;
		return open_dir(c, h, path, DISP_OPEN, pm, &created);
	}
	if (fd < 0) {
		if (errno == EEXIST)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		return path_errno(errno, path, pm);
	}
	fstat(fd, &st);
	handle_release(h);	/* a trace may reuse a number still open */
	h->fd = fd;
	h->is_dir = 0;
	created = (flags & O_CREAT) && st.st_size == 0;
	if (created)
		set_dosattrib(c, fd);
opened:
	handle_set_path(h, path);
	if (opts & FILE_DELETE_ON_CLOSE)
		h->delete_on_close = 1;
	if (created && c->opt->sync_dirs)
		sync_parent(path);
	return NT_STATUS_OK;
}

static uint32_t close_handle(struct client *c, struct fio_handle *h)
{
	if (h->delete_on_close && h->path) {
		if (h->is_dir)
			rmdir(h->path);
		else
			unlink(h->path);
		if (c->opt->sync_dirs)
			sync_parent(h->path);
	}
	if (close(h->fd) < 0) {
		int err = errno;

		h->fd = -1;
		handle_release(h);
		return nt_from_errno(err);
	}
	h->fd = -1;
	handle_release(h);
	return NT_STATUS_OK;
}

static uint32_t fio_close(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return close_handle(c, h);
}

/* ---- data ---- */

static uint32_t do_read(struct client *c, struct fio_handle *h, int64_t offset, int64_t size)
{
	struct fio *f = c->priv;
	ssize_t n;

	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	if (iobuf_grow(&f->buf, c->nc.rng, (size_t)size) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	n = pread(h->fd, f->buf.readbuf, (size_t)size, offset);
	if (n < 0)
		return errno == EISDIR ? NT_STATUS_INVALID_DEVICE_REQUEST : nt_from_errno(errno);
	if (n == 0 && size > 0)
		return NT_STATUS_END_OF_FILE;
	c->bytes = (uint64_t)n;
	if (c->writepattern &&
	    !iobuf_pattern_ok(&f->buf, f->buf.readbuf, (uint64_t)offset, (size_t)n))
		return NT_STATUS_FILE_CORRUPT_ERROR;
	return NT_STATUS_OK;
}

/*
 * --one-byte-write-fix, as dbench 4.0: a 1-byte write writes a zero byte
 * (4.0's buffer is zeros; WRITEPATTERN data stays what it is); if the file
 * already holds that byte there the write is skipped, and if the write
 * would extend the file with a zero byte it is an ftruncate instead.
 * 1 when done without a write, 0 to write *src, -1 on error (errno).
 */
static int one_byte_write(struct client *c, struct fio_handle *h, int64_t offset, const char **src)
{
	static const char zero;
	struct stat st;
	char have;

	if (!c->writepattern && !c->wptext)
		*src = &zero;
	if (fstat(h->fd, &st) < 0)
		return 0;
	if (st.st_size > offset)
		return pread(h->fd, &have, 1, offset) == 1 && have == **src;
	if (**src != 0)
		return 0;
	return ftruncate(h->fd, offset + 1) < 0 ? -1 : 1;
}

static uint32_t do_write(struct client *c, struct fio_handle *h, int64_t offset, int64_t size)
{
	struct fio *f = c->priv;
	const char *src;
	struct stat st;
	ssize_t n;

	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	if (iobuf_grow(&f->buf, c->nc.rng, (size_t)size) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	src = iobuf_write_source(&f->buf, c, (uint64_t)offset, (size_t)size);
	if (!src)
		return NT_STATUS_NO_MEMORY;
	if (c->opt->one_byte_write_fix && size == 1) {
		int r = one_byte_write(c, h, offset, &src);

		if (r < 0)
			return nt_from_errno(errno);
		if (r > 0) {
			c->bytes = 1;
			return NT_STATUS_OK;
		}
	}
	n = pwrite(h->fd, src, (size_t)size, offset);
	if (n < 0)
		return errno == EBADF && h->is_dir ? NT_STATUS_INVALID_DEVICE_REQUEST : nt_from_errno(errno);
	c->bytes = (uint64_t)n;
	if (c->opt->do_fsync && fsync(h->fd) < 0)
		return nt_from_errno(errno);
	if (c->opt->check_size && (fstat(h->fd, &st) < 0 || st.st_size < offset + n))
		return NT_STATUS_FILE_INVALID;
	return NT_STATUS_OK;
}

static uint32_t fio_readx(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_read(c, h, c->num[1], c->num[2]);
}

static uint32_t fio_writex(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_write(c, h, c->num[1], c->num[2]);
}

static uint32_t fio_flush(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return fsync(h->fd) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

/* ---- locks ---- */

static int set_lock(int fd, short type, uint64_t offset, uint64_t length)
{
	struct flock fl = {
		.l_type = type,
		.l_whence = SEEK_SET,
		.l_start = (off_t)offset,
		.l_len = (off_t)length,
	};

	return fcntl(fd, F_SETLK, &fl);
}

static uint32_t fio_lockx(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (c->num[1] < 0 || c->num[2] < 0)
		return NT_STATUS_INVALID_LOCK_RANGE;
	if (lock_table_overlaps(&h->locks, offset, length))
		return NT_STATUS_LOCK_NOT_GRANTED;	/* SMB locks don't stack */
	if (set_lock(h->fd, F_WRLCK, offset, length) < 0)
		return errno == EAGAIN || errno == EACCES ? NT_STATUS_LOCK_NOT_GRANTED : nt_from_errno(errno);
	if (!lock_table_add(&h->locks, offset, length)) {
		set_lock(h->fd, F_UNLCK, offset, length);
		return NT_STATUS_NO_MEMORY;
	}
	return NT_STATUS_OK;
}

static uint32_t fio_unlockx(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];
	int rc;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	rc = set_lock(h->fd, F_UNLCK, offset, length);
	if (!lock_table_remove(&h->locks, offset, length))
		return NT_STATUS_RANGE_NOT_LOCKED;
	return rc < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

/* ---- metadata ---- */

static uint32_t fio_qpathinfo(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	struct stat st;
	char attr[64];

	(void)op;
	if (!c->opt->no_resolve) {
		int pm;

		if (!resolve(path, &pm))
			return not_found(path, pm);
	} else if (stat(path, &st) < 0) {
		return path_errno(errno, path, -1);
	}
	if (c->opt->ea_enable)
		getxattr(path, DOSATTRIB_XATTR, attr, sizeof(attr));
	return NT_STATUS_OK;
}

static uint32_t fio_qfileinfo(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);
	struct stat st;
	char attr[64];

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (fstat(h->fd, &st) < 0)
		return nt_from_errno(errno);
	if (c->opt->ea_enable)
		fgetxattr(h->fd, DOSATTRIB_XATTR, attr, sizeof(attr));
	return NT_STATUS_OK;
}

static uint32_t fio_sfileinfo(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);
	struct stat st;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (fstat(h->fd, &st) < 0)
		return nt_from_errno(errno);
	switch (c->num[1]) {
	case 1004:	/* FileBasicInformation: times and attributes */
	case 1:		/* SMB_INFO_STANDARD */
		if (futimens(h->fd, NULL) < 0)
			return nt_from_errno(errno);
		set_dosattrib(c, h->fd);
		break;
	case 1013:	/* FileDispositionInformation: delete on close */
		h->delete_on_close = 1;
		break;
	default:
		break;
	}
	return NT_STATUS_OK;
}

static uint32_t fio_qfsinfo(struct client *c, const struct op *op)
{
	struct statfs sfs;

	(void)c;
	(void)op;
	return statfs(".", &sfs) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static uint32_t fio_find_first(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	char *slash, *pattern;
	DIR *dir;
	struct dirent *d;
	uint64_t matches = 0;

	(void)op;
	lookup(c, path);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		pattern = slash + 1;
		dir = opendir(path);
	} else {
		pattern = path;
		dir = opendir(".");
	}
	if (!dir) {
		int err = errno;

		return err == ENOENT || err == ENOTDIR ? NT_STATUS_OBJECT_PATH_NOT_FOUND : nt_from_errno(err);
	}
	while ((d = readdir(dir)))
		if (!is_dot(d->d_name) && wildcard_match(pattern, d->d_name))
			matches++;
	closedir(dir);
	return matches ? NT_STATUS_OK : NT_STATUS_NO_SUCH_FILE;
}

static uint32_t fio_rename(struct client *c, const struct op *op)
{
	char *from = c->path[0], *to = c->path[1];
	int pm = lookup(c, from);
	struct stat st;
	int rc;

	(void)op;
	lookup(c, to);
	if (c->opt->stat_check && lstat(from, &st) < 0)	/* as dbench 4.0 */
		return path_errno(errno, from, pm);
	rc = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
	if (rc < 0 && errno == EINVAL) {
		/* a file system without RENAME_NOREPLACE */
		if (lstat(to, &st) == 0)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		rc = rename(from, to);
	}
	if (rc < 0) {
		int err = errno;

		if (err == EEXIST || err == ENOTEMPTY)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		if (err == ENOENT && lstat(from, &st) == 0)
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;	/* the target's directory */
		return path_errno(err, from, pm);
	}
	if (c->opt->sync_dirs)
		sync_parent(to);
	return NT_STATUS_OK;
}

static uint32_t fio_unlink(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	int pm = lookup(c, path);

	(void)op;
	if (unlink(path) < 0) {
		if (errno == EISDIR || errno == EPERM) {
			struct stat st;

			if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
				return NT_STATUS_FILE_IS_A_DIRECTORY;
		}
		return path_errno(errno, path, pm);
	}
	if (c->opt->sync_dirs)
		sync_parent(path);
	return NT_STATUS_OK;
}

static uint32_t fio_mkdir(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	int pm = lookup(c, path);
	struct stat st;

	(void)op;
	if (c->opt->stat_check && stat(path, &st) == 0)	/* as dbench 4.0: no pointless mkdir */
		return S_ISDIR(st.st_mode) ? NT_STATUS_OK : NT_STATUS_OBJECT_NAME_COLLISION;
	if (mkdir(path, 0777) < 0) {
		if (errno == EEXIST)	/* as dbench: an existing directory is fine */
			return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? NT_STATUS_OK :
									    NT_STATUS_OBJECT_NAME_COLLISION;
		return path_errno(errno, path, pm);
	}
	set_dir_dosattrib(c, path);
	if (c->opt->sync_dirs)
		sync_parent(path);
	return NT_STATUS_OK;
}

static uint32_t fio_rmdir(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	int pm = lookup(c, path);

	(void)op;
	if (c->opt->stat_check) {	/* as dbench 4.0: no pointless rmdir */
		struct stat st;

		if (lstat(path, &st) < 0)
			return path_errno(errno, path, pm);
		if (!S_ISDIR(st.st_mode))
			return NT_STATUS_NOT_A_DIRECTORY;
	}
	if (rmdir(path) < 0) {
		if (errno == ENOTEMPTY || errno == EEXIST)
			return NT_STATUS_DIRECTORY_NOT_EMPTY;
		if (errno == ENOTDIR) {
			struct stat st;

			if (lstat(path, &st) == 0)
				return NT_STATUS_NOT_A_DIRECTORY;
		}
		return path_errno(errno, path, pm);
	}
	if (c->opt->sync_dirs)
		sync_parent(path);
	return NT_STATUS_OK;
}

static uint32_t fio_deltree(struct client *c, const struct op *op)
{
	int rc;

	(void)op;
	rc = remove_tree(c->path[0]);
	if (rc < 0)
		return nt_from_errno(-rc);
	if (c->opt->sync_dirs)
		sync_parent(c->path[0]);
	return NT_STATUS_OK;
}

/* ---- the plain SMB ops: files named by path ---- */

static uint32_t fio_smb_open(struct client *c, const struct op *op)
{
	struct fio *f = c->priv;
	struct fio_handle *h = &f->h[op->handle];
	char *path = c->path[0];
	uint64_t fl = (uint64_t)c->num[0];
	int flags = O_NOFOLLOW | O_CLOEXEC | smb_open_flags(fl), pm, fd;

	pm = lookup(c, path);
	if (c->opt->sync_open)
		flags |= O_SYNC;
	fd = open(path, flags, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		return path_errno(errno, path, pm);
	}
	handle_release(h);
	h->fd = fd;
	h->is_dir = 0;
	handle_set_path(h, path);
	return NT_STATUS_OK;
}

static uint32_t fio_smb_close(struct client *c, const struct op *op)
{
	return fio_close(c, op);
}

static uint32_t fio_smb_read(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_read(c, h, c->num[0], c->num[1]);
}

static uint32_t fio_smb_write(struct client *c, const struct op *op)
{
	struct fio_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_write(c, h, c->num[0], c->num[1]);
}

static uint32_t fio_smb_readdir(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	int pm = lookup(c, path);
	DIR *dir = opendir(*path ? path : ".");
	struct stat st;

	(void)op;
	if (!dir) {
		if (errno == ENOTDIR && stat(path, &st) == 0)
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_errno(errno, path, pm);
	}
	while (readdir(dir))
		;
	closedir(dir);
	return NT_STATUS_OK;
}

static uint32_t fio_smb_stat(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	struct stat st;

	(void)op;
	if (!c->opt->no_resolve) {
		int pm;

		if (!resolve(path, &pm))
			return not_found(path, pm);
		return NT_STATUS_OK;
	}
	return stat(*path ? path : ".", &st) < 0 ? path_errno(errno, path, -1) : NT_STATUS_OK;
}

const struct backend fileio_backend = {
	.name = "fileio",
	.description = "the local file system under -D",
	.setup = fio_setup,
	.teardown = fio_teardown,
	.remove_tree = fio_remove_tree,
	.exists = fio_exists,
	.op = {
		[OP_NTCREATEX] = fio_ntcreatex,
		[OP_CLOSE] = fio_close,
		[OP_RENAME] = fio_rename,
		[OP_UNLINK] = fio_unlink,
		[OP_DELTREE] = fio_deltree,
		[OP_MKDIR] = fio_mkdir,
		[OP_RMDIR] = fio_rmdir,
		[OP_QPATHINFO] = fio_qpathinfo,
		[OP_QFILEINFO] = fio_qfileinfo,
		[OP_QFSINFO] = fio_qfsinfo,
		[OP_SFILEINFO] = fio_sfileinfo,
		[OP_FIND_FIRST] = fio_find_first,
		[OP_WRITEX] = fio_writex,
		[OP_READX] = fio_readx,
		[OP_LOCKX] = fio_lockx,
		[OP_UNLOCKX] = fio_unlockx,
		[OP_FLUSH] = fio_flush,
		[OP_SMB_OPEN] = fio_smb_open,
		[OP_SMB_CLOSE] = fio_smb_close,
		[OP_SMB_READ] = fio_smb_read,
		[OP_SMB_WRITE] = fio_smb_write,
		[OP_SMB_READDIR] = fio_smb_readdir,
		[OP_SMB_STAT] = fio_smb_stat,
	},
};
