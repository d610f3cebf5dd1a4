/*
 * fileio.c - the local file system backend (dbench).
 *
 * An adapter of the netbench layer (netbench.h): its file calls with their
 * meaning on POSIX, making the same file-system calls as dbench 4.0's
 * fileio backend so that figures compare work for work: before a path op,
 * a stat of the path and, when that misses, a scan of the parent directory
 * comparing names case-insensitively (emulating a case-insensitive server;
 * --no-resolve turns it off); open is open plus fstat; read and write are
 * pread/pwrite; flush is fsync; locks are open-file-description locks
 * (F_OFD_SETLK: per handle, as SMB's); statfs is statfs; list reads the
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
#include <popt.h>
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
#include "netbench.h"
#include "status.h"
#include "util.h"

/* fileio's own options; the file options (-s, -S, -F, ...) it shares
 * with the other file backends are the core's (BACKEND_FILES). */
static const struct poptOption fileio_options[] = {
	{ "directory", 'D', POPT_ARG_STRING, &options.directory, 0,
	  "the directory to work in: the share root (default .)", "DIR" },
	{ "xattr", 'x', POPT_ARG_NONE, &options.ea_enable, 0,
	  "keep DOS attributes as Samba 4 does: its NDR blob (version 5) in user.DOSATTRIB", NULL },
	{ "no-resolve", 0, POPT_ARG_NONE, &options.no_resolve, 0,
	  "do not emulate case-insensitive name lookup (no stat + directory scan)", NULL },
	POPT_TABLEEND
};

#define DOSATTRIB_XATTR "user.DOSATTRIB"

/* The client's state: the netbench layer's, nothing of its own. */
struct fileio {
	struct nb_client nb;	/* first: the layer finds itself at c->priv */
};

/* ---- helpers ---- */

static const struct nb_adapter fileio_adapter;

/* fdatasync the directory holding path (-S), as dbench 4.0 does. */
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
		fdatasync(fd);
		close(fd);
	}
}

/*
 * Name resolution as dbench 4.0 emulates a case-insensitive server: stat
 * the path; if it is missing, scan the parent directory for the name in
 * any case, and on a match use that spelling (same length in ASCII).
 * Returns 1 if the name exists (its attributes in *st), 0 if not;
 * *parent_missing says whether the parent directory could not be opened.
 */
static int resolve(char *path, int *parent_missing, struct stat *st)
{
	char *slash, *name;
	DIR *dir;
	struct dirent *d;
	int found = 0;

	*parent_missing = 0;
	if (stat(*path ? path : ".", st) == 0)
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
	return found && stat(path, st) == 0;
}

/* Resolve unless --no-resolve; returns the parent-missing hint: 1 missing,
 * 0 present, -1 unknown. */
static int lookup(struct client *c, char *path)
{
	struct stat st;
	int pm;

	if (c->opt->no_resolve)
		return -1;
	resolve(path, &pm, &st);
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

static int fileio_setup(struct client *c)
{
	const struct program *prog = c->prog;
	struct fileio *f;
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
	c->priv = f;
	return nb_client_init(c, &f->nb, &fileio_adapter);
}

static void fileio_teardown(struct client *c)
{
	struct fileio *f = c->priv;

	if (!f)
		return;
	nb_client_free(c, &f->nb);
	free(f);
	c->priv = NULL;
}

static int fileio_remove_tree(struct client *c, const char *path)
{
	int rc = remove_tree(path);

	if (rc < 0)
		snprintf(c->error, sizeof(c->error), "%s", strerror(-rc));
	return rc < 0 ? -1 : 0;
}

static int fileio_exists(struct client *c, const char *path)
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

/* ---- the adapter ---- */

/* The file object of a handle. */
struct fileio_file {
	int fd;			/* the open descriptor */
};

static inline int fd_of(const struct nb_handle *h)
{
	return ((const struct fileio_file *)h->file)->fd;
}

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

/* A directory: made first with NB_CREATE, then opened. */
static uint32_t open_dir(struct client *c, struct nb_handle *h, char *path, unsigned flags, int pm,
			 bool *created)
{
	struct stat st;
	int fd;

	if (flags & NB_CREATE) {
		if (mkdir(path, 0777) == 0) {
			*created = true;
			set_dir_dosattrib(c, path);
		} else if (errno != EEXIST || (flags & NB_EXCL)) {
			if (errno == EEXIST)
				return NT_STATUS_OBJECT_NAME_COLLISION;
			return path_errno(errno, path, pm);
		}
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR && stat(path, &st) == 0)
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_errno(errno, path, pm);
	}
	fstat(fd, &st);
	((struct fileio_file *)h->file)->fd = fd;
	h->is_dir = true;
	return NT_STATUS_OK;
}

static uint32_t fileio_open(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			    bool *created)
{
	int pm = lookup(c, path), fd, oflags;
	struct stat st;

	if (flags & NB_DIRECTORY)
		return open_dir(c, h, path, flags, pm, created);
	oflags = nb_open_flags(flags) | O_NOFOLLOW | O_CLOEXEC | (c->opt->sync_open ? O_SYNC : 0);
	fd = open(path, oflags, 0644);
	if (fd < 0) {
		if (errno == EISDIR)
			return (flags & NB_ANY) && !(flags & NB_TRUNC) ?
				       open_dir(c, h, path, 0, pm, created) :
				       NT_STATUS_FILE_IS_A_DIRECTORY;
		if (errno == EEXIST)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		return path_errno(errno, path, pm);
	}
	fstat(fd, &st);
	((struct fileio_file *)h->file)->fd = fd;
	h->is_dir = S_ISDIR(st.st_mode);
	*created = (oflags & O_CREAT) && st.st_size == 0;
	if (*created)
		set_dosattrib(c, fd);
	return NT_STATUS_OK;
}

static uint32_t fileio_close(struct client *c, struct nb_handle *h)
{
	struct fileio_file *f = h->file;
	int rc = close(f->fd);

	(void)c;
	f->fd = -1;
	return rc < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static uint32_t fileio_read(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			    size_t size, size_t *got)
{
	ssize_t n = pread(fd_of(h), buf, size, (off_t)offset);

	(void)c;
	if (n < 0)
		return nt_from_errno(errno);
	*got = (size_t)n;
	return NT_STATUS_OK;
}

static uint32_t fileio_write(struct client *c, struct nb_handle *h, const char *buf,
			     uint64_t offset, size_t size, size_t *done)
{
	ssize_t n = pwrite(fd_of(h), buf, size, (off_t)offset);

	(void)c;
	if (n < 0)
		return nt_from_errno(errno);
	*done = (size_t)n;
	return NT_STATUS_OK;
}

static uint32_t fileio_truncate(struct client *c, struct nb_handle *h, uint64_t size)
{
	(void)c;
	return ftruncate(fd_of(h), (off_t)size) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static uint32_t fileio_flush(struct client *c, struct nb_handle *h)
{
	(void)c;
	return fsync(fd_of(h)) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static uint32_t fileio_fstat(struct client *c, struct nb_handle *h, struct nb_stat *sb)
{
	struct stat st;
	char attr[64];

	if (fstat(fd_of(h), &st) < 0)
		return nt_from_errno(errno);
	if (c->opt->ea_enable && c->op && c->op->id == OP_QFILEINFO)
		fgetxattr(fd_of(h), DOSATTRIB_XATTR, attr, sizeof(attr));
	sb->is_dir = S_ISDIR(st.st_mode);
	sb->size = (uint64_t)st.st_size;
	return NT_STATUS_OK;
}

static uint32_t fileio_stat(struct client *c, char *path, struct nb_stat *sb)
{
	struct stat st;
	char attr[64];

	if (!c->opt->no_resolve) {
		int pm;

		if (!resolve(path, &pm, &st))
			return not_found(path, pm);
	} else if (stat(*path ? path : ".", &st) < 0) {
		return path_errno(errno, path, -1);
	}
	if (c->opt->ea_enable && c->op && c->op->id == OP_QPATHINFO)
		getxattr(path, DOSATTRIB_XATTR, attr, sizeof(attr));
	sb->is_dir = S_ISDIR(st.st_mode);
	sb->size = (uint64_t)st.st_size;
	return NT_STATUS_OK;
}

static uint32_t fileio_set_info(struct client *c, struct nb_handle *h, int level)
{
	struct stat st;

	if (fstat(fd_of(h), &st) < 0)
		return nt_from_errno(errno);
	if (level == 1004 || level == 1) {	/* times and attributes */
		if (futimens(fd_of(h), NULL) < 0)
			return nt_from_errno(errno);
		set_dosattrib(c, fd_of(h));
	}
	return NT_STATUS_OK;
}

/*
 * Byte-range locks: open-file-description locks, which belong to the
 * descriptor like an SMB lock to its handle (POSIX process locks would
 * let the clients of one process never conflict, and drop every lock of
 * the file at any close).  A lock of length 0 locks nothing (for fcntl
 * it would mean "to the end of the file"); a range past what off_t holds
 * is cut there.
 */
static int ofd_lock(int fd, short type, uint64_t offset, uint64_t length)
{
	struct flock fl = {
		.l_type = type,
		.l_whence = SEEK_SET,
	};

	if (length == 0)
		return 0;
	if (offset > (uint64_t)INT64_MAX)
		return 0;	/* wholly past what the kernel can lock */
	if (length > (uint64_t)INT64_MAX - offset)
		length = (uint64_t)INT64_MAX - offset;
	fl.l_start = (off_t)offset;
	fl.l_len = (off_t)length;
	return fcntl(fd, F_OFD_SETLK, &fl);
}

static uint32_t fileio_lock(struct client *c, struct nb_handle *h, uint64_t offset, uint64_t length)
{
	(void)c;
	if (ofd_lock(fd_of(h), F_WRLCK, offset, length) < 0)
		return errno == EAGAIN || errno == EACCES ? NT_STATUS_LOCK_NOT_GRANTED :
							    nt_from_errno(errno);
	return NT_STATUS_OK;
}

static uint32_t fileio_unlock(struct client *c, struct nb_handle *h, uint64_t offset,
			      uint64_t length)
{
	(void)c;
	return ofd_lock(fd_of(h), F_UNLCK, offset, length) < 0 ? nt_from_errno(errno) :
								  NT_STATUS_OK;
}

static uint32_t fileio_list(struct client *c, char *dirpath, char *full, nb_list_fn fn, void *arg)
{
	int pm = lookup(c, full);
	DIR *dir = opendir(*dirpath ? dirpath : ".");
	struct dirent *d;
	struct stat st;

	if (!dir) {
		if (dirpath != full && (errno == ENOENT || errno == ENOTDIR))
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;	/* the pattern's directory */
		if (errno == ENOTDIR && stat(dirpath, &st) == 0)
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_errno(errno, dirpath, pm);
	}
	while ((d = readdir(dir)))
		fn(arg, d->d_name);
	closedir(dir);
	return NT_STATUS_OK;
}

static uint32_t fileio_mkdir(struct client *c, char *path)
{
	int pm = lookup(c, path);

	if (mkdir(path, 0777) < 0)
		return errno == EEXIST ? NT_STATUS_OBJECT_NAME_COLLISION : path_errno(errno, path, pm);
	set_dir_dosattrib(c, path);
	return NT_STATUS_OK;
}

static uint32_t fileio_rmdir(struct client *c, char *path)
{
	int pm = lookup(c, path);
	struct stat st;

	if (rmdir(path) < 0) {
		if (errno == ENOTEMPTY || errno == EEXIST)
			return NT_STATUS_DIRECTORY_NOT_EMPTY;
		if (errno == ENOTDIR && lstat(path, &st) == 0)
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_errno(errno, path, pm);
	}
	return NT_STATUS_OK;
}

static uint32_t fileio_unlink(struct client *c, char *path)
{
	int pm = lookup(c, path);
	struct stat st;

	if (unlink(path) < 0) {
		if ((errno == EISDIR || errno == EPERM) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		return path_errno(errno, path, pm);
	}
	return NT_STATUS_OK;
}

static uint32_t fileio_rename(struct client *c, char *from, char *to)
{
	int pm = lookup(c, from);
	struct stat st;
	int rc;

	lookup(c, to);
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
	return NT_STATUS_OK;
}

static uint32_t fileio_deltree(struct client *c, char *path)
{
	int rc = remove_tree(path);

	(void)c;
	return rc < 0 ? nt_from_errno(-rc) : NT_STATUS_OK;
}

static uint32_t fileio_statfs(struct client *c)
{
	struct statfs sfs;

	(void)c;
	return statfs(".", &sfs) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static void fileio_sync_dir(struct client *c, const char *path)
{
	(void)c;
	sync_parent(path);
}

static const struct nb_adapter fileio_adapter = {
	.file_size = sizeof(struct fileio_file),
	.open = fileio_open,
	.close = fileio_close,
	.read = fileio_read,
	.write = fileio_write,
	.truncate = fileio_truncate,
	.flush = fileio_flush,
	.fstat = fileio_fstat,
	.stat = fileio_stat,
	.set_info = fileio_set_info,
	.lock = fileio_lock,
	.unlock = fileio_unlock,
	.list = fileio_list,
	.mkdir = fileio_mkdir,
	.rmdir = fileio_rmdir,
	.unlink = fileio_unlink,
	.rename = fileio_rename,
	.remove_tree = fileio_deltree,
	.statfs = fileio_statfs,
	.sync_dir = fileio_sync_dir,
};

const struct backend fileio_backend = {
	.abi = BACKEND_ABI,
	.name = "fileio",
	.description = "the local file system under -D",
	.flags = BACKEND_DIRECTORY | BACKEND_FILES,
	.options = fileio_options,
	.setup = fileio_setup,
	.teardown = fileio_teardown,
	.remove_tree = fileio_remove_tree,
	.exists = fileio_exists,
	.op = { NB_OPS },
};
