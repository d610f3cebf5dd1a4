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
 * directory.
 *
 * The target is the boundary, for the whole run, cleanup included: -D is
 * opened once, in the parent before any client starts, and every path is
 * resolved beneath that descriptor, never through a symlink (beneath.h:
 * openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or a walk of
 * O_NOFOLLOW descriptors), the last component with the *at calls.  So -D
 * renamed and replaced by a symlink during the run changes nothing: the
 * run goes on, and cleans up, in the directory it opened, and says so at
 * the end; a symlink planted in the tree during the run is not followed
 * (the ops through it fail with NT_STATUS_ACCESS_DENIED, and the client
 * says once which path it is).  Lookups (the stat before an op, a stat, a
 * listing) in a client's own tree go through directories it keeps open
 * between ops (lookup_dir: checked against a fresh resolution when used
 * 100 ms after the last check, dropped at once when the client itself
 * removes or renames them),
 * so that they cost one fstatat as before; everything that opens, creates,
 * writes, removes or renames is resolved afresh.  At setup the trees a
 * client will work in are checked for symlinks, so that one made before
 * the run is refused before it starts; trees are removed as rm -rf does.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "backends/beneath.h"
#ifdef HAVE_LIBURING
#include "backends/fileio_uring.h"
#endif
#include "client.h"
#include "netbench.h"
#include "status.h"
#include "util.h"

/* fileio's option block: the file options (-s, -S, -F, ...) it shares
 * with the other file backends first, then its own, then what init
 * fills in. */
struct fileio_options {
	struct nb_options files;	/* first (BACKEND_FILES) */
	const char *directory;		/* -D: the share root (absolute: the core) */
	int xattr;			/* -x: DOS attributes in user.DOSATTRIB */
	int no_resolve;			/* --no-resolve */
	const char *ioengine;		/* --ioengine psync|io_uring */
	const char *progname;		/* init: for the clients' messages */
	int uring;			/* variant: --ioengine io_uring */
};

static const struct backend_option fileio_options[] = {
	{ .name = "directory", .short_name = 'D', .type = BOPT_DIRECTORY,
	  .offset = offsetof(struct fileio_options, directory), .def = ".", .arg_name = "DIR",
	  .help = "the directory to work in: the share root (default .)" },
	{ .name = "xattr", .short_name = 'x', .type = BOPT_FLAG,
	  .offset = offsetof(struct fileio_options, xattr), .result_name = "xattr",
	  .help = "keep DOS attributes as Samba 4 does: its NDR blob (version 5) in user.DOSATTRIB" },
	{ .name = "no-resolve", .type = BOPT_FLAG, .offset = offsetof(struct fileio_options, no_resolve),
	  .result_name = "no_resolve",
	  .help = "do not emulate case-insensitive name lookup (no stat + directory scan)" },
	{ .name = "ioengine", .type = BOPT_STRING, .offset = offsetof(struct fileio_options, ioengine),
	  .def = "psync", .arg_name = "ENGINE", .result_name = "ioengine",
	  .help = "the data path of ReadX, WriteX and Flush, as fio names it: psync (pread, pwrite, "
		  "fsync: the default) or io_uring (requests in an io_uring; with "
		  "--clients-per-process N a process's clients share one ring, each with a request "
		  "in flight)" },
	{ .name = NULL },
};

/* The options of c's run. */
static inline const struct fileio_options *fopt(const struct client *c)
{
	return c->be_opt;
}

#define DOSATTRIB_XATTR "user.DOSATTRIB"

/* The target: -D, opened once by fileio_init in the parent before any
 * client is forked; every client process and the final cleanup inherit
 * it.  Set once, then only read. */
static int target = -1;
static struct stat target_st;	/* its device and inode, as opened */

/*
 * The directories a client looks names up in, kept open (O_PATH) between
 * ops: only in the client's own trees (clients/clientN: no other client
 * changes them), and only for lookups and listings -- every op that opens,
 * creates, writes, removes or renames resolves its path beneath the target
 * afresh.  A directory the client removes or renames is dropped at once;
 * one used DIR_CHECK_NS or more after it was last found in place is looked
 * for again beneath the target first, and dropped if someone else moved or
 * replaced it (so for at most DIR_CHECK_NS a lookup may read the run's own
 * directory where it is now: never through a symlink, never outside the
 * run's own files).  This keeps a lookup one fstatat, as dbench 4.0's stat
 * of the path was, instead of an open, a stat and a close.
 */
#define DIR_CACHE 16
#define DIR_PATH_MAX 240
#define DIR_CHECK_NS (100 * NSEC_PER_MSEC)

struct dir_entry {
	int fd;			/* O_PATH | O_DIRECTORY, or -1: free */
	uint16_t len;		/* of path */
	char path[DIR_PATH_MAX]; /* relative to the target */
	dev_t dev;		/* as opened */
	ino_t ino;
	uint64_t used;		/* for eviction: the least recently used goes */
	uint64_t checked_ns;	/* when it was last found where it was opened */
};

/* The client's state. */
struct fileio {
	struct nb_client nb;	/* first: the layer finds itself at c->priv */
	bool told_symlink;	/* said which symlink it met (once) */
	char **own;		/* the client's own trees ("clients/client0") */
	uint32_t nown;
	struct dir_entry dirs[DIR_CACHE];
	uint64_t tick;		/* dir_entry.used */
	struct uring_client *uring; /* --ioengine io_uring: the client's ring and fiber */
	char dents[32768];	/* getdents64 buffer (glibc's opendir uses as much) */
};

/* ---- paths beneath the target ---- */

static const struct nb_adapter fileio_adapter;

/* A path's last component and the directory it is in, opened beneath the
 * target for one op. */
struct at {
	int dir;		/* the target, or a directory in it (O_PATH); -1 */
	char *name;		/* the last component, in the path ("" the root) */
	int err;		/* why dir is -1: errno */
};

/* Say once per client which symlink (made during the run) an op met. */
static void symlink_met(struct client *c, const char *path)
{
	struct fileio *f = c->priv;
	char link[PATH_MAX];

	if (!f || f->told_symlink)
		return;
	f->told_symlink = true;
	if (!beneath_find_symlink(target, path, link, sizeof(link)))
		snprintf(link, sizeof(link), "%s", path);
	fprintf(stderr,
		"%s: client %d: %s/%s is a symbolic link (made during the run): not followed; the ops through it fail with NT_STATUS_ACCESS_DENIED\n",
		fopt(c)->progname, c->id, fopt(c)->directory, link);
}

static void at_find(char *path, struct at *a)
{
	a->dir = beneath_parent(target, path, &a->name);
	a->err = a->dir < 0 ? errno : 0;
}

/* For an op: a symlink on the way is said once. */
static void at_open(struct client *c, char *path, struct at *a)
{
	at_find(path, a);
	if (a->err == ELOOP)
		symlink_met(c, path);
}

static void at_close(struct at *a)
{
	beneath_put(target, a->dir);
}

/* The name for an open: the root itself is "." */
static inline const char *at_name(const struct at *a)
{
	return *a->name ? a->name : ".";
}

static int stat_at(const struct at *a, struct stat *st)
{
	return fstatat(a->dir, a->name, st, AT_SYMLINK_NOFOLLOW | (*a->name ? 0 : AT_EMPTY_PATH));
}

/* The directory the last component is in could not be opened. */
static uint32_t parent_status(const struct at *a)
{
	if (a->err == ENOENT || a->err == ENOTDIR)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt_from_errno(a->err);
}

/* An op on the last component failed with err. */
static uint32_t name_status(struct client *c, int err, char *path)
{
	if (err == ELOOP)
		symlink_met(c, path);
	if (err == ENOENT)
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	if (err == ENOTDIR)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	return nt_from_errno(err);
}

/* ---- the lookup directories ---- */

/* Is directory path[0..len) in one of the client's own trees? */
static bool own_tree(const struct fileio *f, const char *path, size_t len)
{
	for (uint32_t i = 0; i < f->nown; i++) {
		size_t n = strlen(f->own[i]);

		if (len >= n && memcmp(path, f->own[i], n) == 0 && (len == n || path[n] == '/'))
			return true;
	}
	return false;
}

static void dir_drop(struct dir_entry *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

/* The client removed or renamed path: drop it and what is under it. */
static void dirs_forget(struct client *c, const char *path)
{
	struct fileio *f = c->priv;
	size_t n = strlen(path);

	for (int i = 0; f && i < DIR_CACHE; i++) {
		struct dir_entry *e = &f->dirs[i];

		if (e->fd >= 0 && e->len >= n && memcmp(e->path, path, n) == 0 &&
		    (e->len == n || e->path[n] == '/'))
			dir_drop(e);
	}
}

static uint64_t coarse_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Is the directory still where it was opened (resolved beneath the
 * target afresh)?  Asked when it is used and was last found there more
 * than DIR_CHECK_NS ago. */
static bool dir_still_there(struct dir_entry *e, uint64_t now)
{
	struct stat st;
	bool there;
	int fd;

	if (now - e->checked_ns < DIR_CHECK_NS)
		return true;
	fd = beneath_open(target, e->path, O_PATH | O_DIRECTORY, 0);
	there = fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino;
	if (fd >= 0)
		close(fd);
	e->checked_ns = now;
	return there;
}

/*
 * The directory path[0..len) for a lookup: from the client's own trees,
 * kept open between ops; elsewhere (or if it cannot be kept) opened beneath
 * the target for this lookup, *opened set (the caller closes it).  -1 with
 * errno if it cannot be opened.
 */
static int lookup_dir(struct client *c, const char *path, size_t len, bool *opened)
{
	struct fileio *f = c->priv;
	struct dir_entry *e, *victim = &f->dirs[0];
	char dir[PATH_MAX];
	struct stat st;
	int fd;

	*opened = false;
	if (len == 0)
		return target;
	if (len < DIR_PATH_MAX && own_tree(f, path, len)) {
		uint64_t now = coarse_now();

		for (int i = 0; i < DIR_CACHE; i++) {
			e = &f->dirs[i];
			if (e->fd >= 0 && e->len == len && memcmp(e->path, path, len) == 0) {
				if (!dir_still_there(e, now)) {
					dir_drop(e);	/* moved or replaced: look again */
					victim = e;
					break;
				}
				e->used = ++f->tick;
				return e->fd;
			}
			if (e->fd < 0 || (victim->fd >= 0 && e->used < victim->used))
				victim = e;
		}
	}
	memcpy(dir, path, len);
	dir[len] = '\0';
	fd = beneath_open(target, dir, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return -1;
	if (len >= DIR_PATH_MAX || !own_tree(f, path, len) || fstat(fd, &st) < 0) {
		*opened = true;
		return fd;
	}
	dir_drop(victim);
	victim->fd = fd;
	victim->len = (uint16_t)len;
	memcpy(victim->path, dir, len + 1);
	victim->dev = st.st_dev;
	victim->ino = st.st_ino;
	victim->used = ++f->tick;
	victim->checked_ns = coarse_now();
	return fd;
}

/* fdatasync the directory holding path (-S), as dbench 4.0 does. */
static void sync_parent(struct client *c, const char *path)
{
	char copy[PATH_MAX];
	struct at a;
	int fd;

	snprintf(copy, sizeof(copy), "%s", path);
	at_open(c, copy, &a);
	if (a.dir < 0)
		return;
	fd = openat(a.dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fdatasync(fd);
		close(fd);
	}
	at_close(&a);
}

/* beneath_scan's callback for resolve: a name equal but for case. */
struct spelling {
	char *name;		/* the name looked for; rewritten on a match */
	bool found;
};

static bool same_but_case(void *arg, const char *name)
{
	struct spelling *s = arg;

	if (strcasecmp(name, s->name) != 0)
		return false;
	memcpy(s->name, name, strlen(s->name));
	s->found = true;
	return true;
}

/*
 * Name resolution as dbench 4.0 emulates a case-insensitive server.  The
 * name is looked for in its directory a->dir: if it is missing, the
 * directory is scanned for it in any case, and on a match that spelling is
 * used (same length in ASCII).  0 if the name exists (its attributes in
 * *st), else the errno.
 */
static int resolve_at(struct client *c, struct at *a, struct stat *st)
{
	struct fileio *f = c->priv;
	struct spelling s = { a->name, false };
	int fd;

	if (stat_at(a, st) == 0)
		return 0;
	if (errno != ENOENT || !*a->name)
		return errno;
	fd = openat(a->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ENOENT;
	beneath_scan(fd, f->dents, sizeof(f->dents), same_but_case, &s);
	close(fd);
	if (!s.found)
		return ENOENT;
	return stat_at(a, st) == 0 ? 0 : errno;
}

/* The lookup before an op on a name in the directory opened, unless
 * --no-resolve. */
static void lookup_at(struct client *c, struct at *a)
{
	struct stat st;

	if (!fopt(c)->no_resolve)
		resolve_at(c, a, &st);
}

/* The start of an op on a name: its directory opened beneath the target,
 * and the name looked up there; false, with the status in *st, if the
 * directory cannot be opened. */
static bool at_begin(struct client *c, char *path, struct at *a, uint32_t *st)
{
	at_open(c, path, a);
	if (a->dir < 0) {
		*st = parent_status(a);
		return false;
	}
	lookup_at(c, a);
	return true;
}

/*
 * The same resolution for an op that then opens the whole path again (an
 * open, a stat, a listing): the name looked up in its directory
 * (lookup_dir), and when it is missing the directory scanned.  0 if the
 * name exists (its attributes in *st if st is not NULL), else the errno;
 * *pm says whether a directory on the way is missing.
 */
static int resolve_path(struct client *c, char *path, struct stat *st, int *pm)
{
	char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	struct stat sb;
	bool opened;
	struct at a;
	int err;

	*pm = 0;
	a.dir = lookup_dir(c, path, len, &opened);
	if (a.dir < 0) {
		err = errno;
		*pm = err == ENOENT || err == ENOTDIR;
		return *pm ? ENOENT : err;
	}
	a.name = slash ? slash + 1 : path;
	err = fopt(c)->no_resolve ? (stat_at(&a, st ? st : &sb) == 0 ? 0 : errno) :
				   resolve_at(c, &a, st ? st : &sb);
	if (opened)
		close(a.dir);
	return err;
}

/* Is a directory on the way to path missing?  (-1: not known yet.) */
static bool parent_missing(char *path, int pm)
{
	char *name;
	int dir;

	if (pm >= 0)
		return pm;
	dir = beneath_parent(target, path, &name);
	beneath_put(target, dir);
	return dir < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* An op on a whole path failed with err; pm as resolve_path's. */
static uint32_t path_status(struct client *c, int err, char *path, int pm)
{
	if (err == ENOENT)
		return parent_missing(path, pm) ? NT_STATUS_OBJECT_PATH_NOT_FOUND :
						  NT_STATUS_OBJECT_NAME_NOT_FOUND;
	return name_status(c, err, path);
}

/* ---- setup ---- */

/* The first symlink in the tree under directory fd (whose path is
 * path[0..len)), its path left in path: 1; 0 if none; -1 on an error. */
static int find_symlink_in(int fd, char *path, size_t len, int depth)
{
	DIR *dir;
	struct dirent *d;
	int rc = 0;

	if (depth > 512)
		return -1;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (d = readdir(dir))) {
		struct stat st;
		size_t n = strlen(d->d_name);
		unsigned char type = d->d_type;
		int sub;

		if (is_dot(d->d_name))
			continue;
		if (len + 1 + n >= PATH_MAX) {
			rc = -1;
			break;
		}
		path[len] = '/';
		memcpy(path + len + 1, d->d_name, n + 1);
		if (type == DT_UNKNOWN && fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		if (type == DT_LNK) {
			rc = 1;
			break;
		}
		if (type != DT_DIR)
			continue;
		sub = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;	/* gone meanwhile */
		rc = find_symlink_in(sub, path, len + 1 + n, depth + 1);
	}
	closedir(dir);
	return rc;
}

/* Refuse to work in a tree that holds symlinks: they could lead out. */
static int check_tree(struct client *c, const char *path)
{
	char found[PATH_MAX];
	int fd, rc;

	if (!beneath_find_symlink(target, path, found, sizeof(found))) {
		fd = beneath_open(target, path, O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0)
			return 0;	/* missing, or a file: nothing below */
		snprintf(found, sizeof(found), "%s", path);
		rc = find_symlink_in(fd, found, strlen(found), 0);
		if (rc <= 0)
			return 0;
	}
	snprintf(c->error, sizeof(c->error),
		 "%s/%s is a symbolic link: refusing to work in a tree with symlinks (they could lead outside the directory)",
		 fopt(c)->directory, found);
	return -1;
}

static int check_xattrs(struct client *c)
{
	char name[64];
	int fd, rc = 0;

	snprintf(name, sizeof(name), ".dbench-xattr-probe.%d", (int)getpid());
	fd = openat(target, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(c->error, sizeof(c->error), "cannot create a file in %s: %s",
			 fopt(c)->directory, strerror(errno));
		return -1;
	}
	if (fsetxattr(fd, DOSATTRIB_XATTR, "", 1, 0) < 0) {
		snprintf(c->error, sizeof(c->error), "-x: extended attributes do not work in %s: %s",
			 fopt(c)->directory, strerror(errno));
		rc = -1;
	}
	close(fd);
	unlinkat(target, name, 0);
	return rc;
}

/* In the parent, once: open the target, the boundary of the whole run. */
static int fileio_init(void *be_opt, const struct run_info *run)
{
	struct fileio_options *opt = be_opt;

	opt->progname = run->progname;
#ifdef HAVE_LIBURING
	if (opt->uring) {
		char why[200];

		if (uring_check(why, sizeof(why)) < 0) {
			fprintf(stderr, "%s: --ioengine io_uring: %s\n", opt->progname, why);
			return -1;
		}
	}
#endif
	if (target >= 0)
		close(target);
	target = open(opt->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (target < 0 || fstat(target, &target_st) < 0) {
		fprintf(stderr, "%s: cannot open directory %s: %s\n", opt->progname, opt->directory,
			strerror(errno));
		return -1;
	}
	/* for the tests: the walk that kernels without openat2 get */
	beneath_choose(target, getenv("DBENCH_TEST_NO_OPENAT2") != NULL);
	return 0;
}

static int fileio_setup(struct client *c)
{
	const struct program *prog = c->prog;
	struct fileio *f;
	char path[PATH_MAX];

	if (target < 0) {
		snprintf(c->error, sizeof(c->error), "%s was not opened", fopt(c)->directory);
		return -1;
	}
	if (c->cleanup_only)
		goto buffers;
	if (c->id == 0) {
		for (uint32_t r = 0; r < prog->nshared_roots; r++)
			if (check_tree(c, prog->shared_roots[r]) < 0)
				return -1;
		if (fopt(c)->xattr && check_xattrs(c) < 0)
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
	for (int i = 0; i < DIR_CACHE; i++)
		f->dirs[i].fd = -1;
	f->own = xcalloc(prog->nclient_roots ? prog->nclient_roots : 1, sizeof(*f->own));
	for (uint32_t r = 0; r < prog->nclient_roots; r++) {
		client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		f->own[f->nown++] = xstrdup(path);
	}
#ifdef HAVE_LIBURING
	if (fopt(c)->uring && uring_setup(c, &f->uring) < 0)
		return -1;
#endif
	return nb_client_init(c, &f->nb, &fileio_adapter, &fopt(c)->files);
}

/* -D renamed or replaced during the run: the run went on in the directory
 * it opened; say so, and where that is now. */
static void tell_moved(struct client *c)
{
	char fdpath[64], now[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (stat(fopt(c)->directory, &st) == 0 && st.st_dev == target_st.st_dev &&
	    st.st_ino == target_st.st_ino)
		return;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", target);
	n = readlink(fdpath, now, sizeof(now) - 1);
	if (n <= 0)
		snprintf(now, sizeof(now), "where it was moved");
	else
		now[n] = '\0';
	fprintf(stderr,
		"%s: %s was renamed or replaced during the run: the run worked, and cleans up, in the directory it opened at the start (now %s); nothing at %s is touched\n",
		fopt(c)->progname, fopt(c)->directory, now, fopt(c)->directory);
}

static void fileio_teardown(struct client *c)
{
	struct fileio *f = c->priv;

	if (!f)
		return;
	if (c->id == 0 && !c->cleanup_only)
		tell_moved(c);
	nb_client_free(c, &f->nb);
#ifdef HAVE_LIBURING
	uring_teardown(c, &f->uring);
#endif
	for (int i = 0; i < DIR_CACHE; i++)
		dir_drop(&f->dirs[i]);
	for (uint32_t i = 0; i < f->nown; i++)
		free(f->own[i]);
	free(f->own);
	free(f);
	c->priv = NULL;
}

/* The cleanup's removal of a tree the run made. */
static int fileio_remove_tree(struct client *c, const char *path)
{
	char copy[PATH_MAX], failed[PATH_MAX];
	struct at a;
	int rc;

	snprintf(copy, sizeof(copy), "%s", path);
	dirs_forget(c, path);
	at_find(copy, &a);
	if (a.dir < 0) {
		if (a.err == ENOENT || a.err == ENOTDIR)
			return 0;	/* gone */
		snprintf(c->error, sizeof(c->error), "cannot remove %s/%s: %s%s",
			 fopt(c)->directory, path, strerror(a.err),
			 a.err == ELOOP ? " (a symbolic link on the way: not followed)" : "");
		return -1;
	}
	rc = beneath_remove_tree(a.dir, a.name, failed, sizeof(failed));
	at_close(&a);
	if (rc < 0) {
		/* failed is relative to the directory a.name is in */
		size_t dirlen = (size_t)(a.name - copy);

		snprintf(c->error, sizeof(c->error), "cannot remove %s/%.*s%s: %s",
			 fopt(c)->directory, (int)dirlen, copy, failed, strerror(-rc));
		return -1;
	}
	return 0;
}

static int fileio_exists(struct client *c, const char *path)
{
	char copy[PATH_MAX];
	struct stat st;
	struct at a;
	int rc;

	snprintf(copy, sizeof(copy), "%s", path);
	at_find(copy, &a);
	if (a.dir < 0) {
		if (a.err == ENOENT || a.err == ENOTDIR)
			return 0;
		errno = a.err;
		goto error;
	}
	rc = stat_at(&a, &st);
	at_close(&a);
	if (rc == 0)
		return 1;
	if (errno == ENOENT || errno == ENOTDIR)
		return 0;
error:
	snprintf(c->error, sizeof(c->error), "cannot look at %s/%s: %s", fopt(c)->directory, path,
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

	if (!fopt(c)->xattr)
		return;
	dosattrib_blob(blob, FILE_ATTRIBUTE_ARCHIVE, fd, "");
	fsetxattr(fd, DOSATTRIB_XATTR, blob, sizeof(blob), 0);
}

/* -x on a directory just made: its DOS attributes (opened without
 * following, as everything here). */
static void set_dir_dosattrib(struct client *c, const struct at *a)
{
	uint8_t blob[DOSATTRIB_LEN];
	int fd;

	if (!fopt(c)->xattr)
		return;
	fd = openat(a->dir, at_name(a), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	dosattrib_blob(blob, FILE_ATTRIBUTE_DIRECTORY, fd, "");
	fsetxattr(fd, DOSATTRIB_XATTR, blob, sizeof(blob), 0);
	close(fd);
}

/* A directory: made first with NB_CREATE, then opened. */
static uint32_t open_dir(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			 int pm, bool *created)
{
	struct stat st;
	struct at a;
	int fd;

	if (flags & NB_CREATE) {
		at_open(c, path, &a);
		if (a.dir < 0)
			return parent_status(&a);
		if (mkdirat(a.dir, a.name, 0777) == 0) {
			*created = true;
			set_dir_dosattrib(c, &a);
		} else if (errno != EEXIST || (flags & NB_EXCL)) {
			int err = errno;

			at_close(&a);
			return err == EEXIST ? NT_STATUS_OBJECT_NAME_COLLISION :
					       name_status(c, err, path);
		}
		at_close(&a);
	}
	fd = beneath_open(target, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		if (errno == ENOTDIR && !parent_missing(path, pm))
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_status(c, errno, path, pm);
	}
	fstat(fd, &st);
	((struct fileio_file *)h->file)->fd = fd;
	h->is_dir = true;
	return NT_STATUS_OK;
}

static uint32_t fileio_open(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			    bool *created)
{
	int pm = -1, fd, oflags;
	struct stat st;

	if (!fopt(c)->no_resolve)
		resolve_path(c, path, NULL, &pm);
	if (flags & NB_DIRECTORY)
		return open_dir(c, h, path, flags, pm, created);
	oflags = nb_open_flags(flags) | (fopt(c)->files.sync_open ? O_SYNC : 0);
	fd = beneath_open(target, path, oflags, 0644);
	if (fd < 0) {
		if (errno == EISDIR)
			return (flags & NB_ANY) && !(flags & NB_TRUNC) ?
				       open_dir(c, h, path, 0, pm, created) :
				       NT_STATUS_FILE_IS_A_DIRECTORY;
		if (errno == EEXIST)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		return path_status(c, errno, path, pm);
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

/* The client's io_uring (--ioengine io_uring), or NULL: psync. */
static inline struct uring_client *uring_of(const struct client *c)
{
	return ((const struct fileio *)c->priv)->uring;
}

/* A read's or write's outcome: n bytes moved, or -errno. */
static uint32_t io_result(ssize_t n, size_t *moved)
{
	if (n < 0)
		return nt_from_errno((int)-n);
	*moved = (size_t)n;
	return NT_STATUS_OK;
}

static uint32_t fileio_read(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			    size_t size, size_t *got)
{
	ssize_t n;

#ifdef HAVE_LIBURING
	if (uring_of(c))
		return io_result(uring_pread(uring_of(c), fd_of(h), buf, size, offset), got);
#endif
	(void)c;
	n = pread(fd_of(h), buf, size, (off_t)offset);
	return io_result(n < 0 ? -errno : n, got);
}

static uint32_t fileio_write(struct client *c, struct nb_handle *h, const char *buf,
			     uint64_t offset, size_t size, size_t *done)
{
	ssize_t n;

#ifdef HAVE_LIBURING
	if (uring_of(c))
		return io_result(uring_pwrite(uring_of(c), fd_of(h), buf, size, offset), done);
#endif
	(void)c;
	n = pwrite(fd_of(h), buf, size, (off_t)offset);
	return io_result(n < 0 ? -errno : n, done);
}

static uint32_t fileio_truncate(struct client *c, struct nb_handle *h, uint64_t size)
{
	(void)c;
	return ftruncate(fd_of(h), (off_t)size) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static uint32_t fileio_flush(struct client *c, struct nb_handle *h)
{
#ifdef HAVE_LIBURING
	if (uring_of(c)) {
		int rc = uring_fsync(uring_of(c), fd_of(h));

		return rc < 0 ? nt_from_errno(-rc) : NT_STATUS_OK;
	}
#endif
	(void)c;
	return fsync(fd_of(h)) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static uint32_t fileio_fstat(struct client *c, struct nb_handle *h, struct nb_stat *sb)
{
	struct stat st;
	char attr[64];

	if (fstat(fd_of(h), &st) < 0)
		return nt_from_errno(errno);
	if (fopt(c)->xattr && c->op && c->op->id == OP_QFILEINFO)
		fgetxattr(fd_of(h), DOSATTRIB_XATTR, attr, sizeof(attr));
	sb->is_dir = S_ISDIR(st.st_mode);
	sb->size = (uint64_t)st.st_size;
	return NT_STATUS_OK;
}

static uint32_t fileio_stat(struct client *c, char *path, struct nb_stat *sb)
{
	struct stat st;
	int pm = -1, err;

	err = resolve_path(c, path, &st, &pm);
	if (!err && S_ISLNK(st.st_mode))
		err = ELOOP;	/* not followed */
	if (err)
		return path_status(c, err, path, pm);
	if (fopt(c)->xattr && c->op && c->op->id == OP_QPATHINFO) {
		char attr[64];
		int fd = beneath_open(target, path, O_RDONLY | O_NONBLOCK, 0);

		if (fd >= 0) {
			fgetxattr(fd, DOSATTRIB_XATTR, attr, sizeof(attr));
			close(fd);
		}
	}
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

/* Open directory path for reading its names: through lookup_dir in the
 * client's own trees, else beneath the target. */
static int open_listing(struct client *c, const char *path)
{
	size_t len = strlen(path);
	bool opened;
	int dir, fd, err;

	if (len == 0 || !own_tree(c->priv, path, len))
		return beneath_open(target, path, O_RDONLY | O_DIRECTORY, 0);
	dir = lookup_dir(c, path, len, &opened);
	if (dir < 0)
		return -1;
	fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	if (opened)
		close(dir);
	errno = err;
	return fd;
}

/* beneath_scan's callback for list. */
struct listing {
	nb_list_fn fn;
	void *arg;
};

static bool list_one(void *arg, const char *name)
{
	struct listing *l = arg;

	l->fn(l->arg, name);
	return false;
}

static uint32_t fileio_list(struct client *c, char *dirpath, char *full, nb_list_fn fn, void *arg)
{
	struct fileio *f = c->priv;
	struct listing l = { fn, arg };
	int pm = -1, fd, rc;

	/* the lookup of full (FIND_FIRST's pattern, or dirpath itself), then
	 * the listing of dirpath */
	if (!fopt(c)->no_resolve)
		resolve_path(c, full, NULL, &pm);
	fd = open_listing(c, dirpath);
	if (fd < 0) {
		if (dirpath != full && (errno == ENOENT || errno == ENOTDIR))
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;	/* the pattern's directory */
		if (errno == ENOTDIR && !parent_missing(dirpath, pm))
			return NT_STATUS_NOT_A_DIRECTORY;
		return path_status(c, errno, dirpath, pm);
	}
	rc = beneath_scan(fd, f->dents, sizeof(f->dents), list_one, &l);
	close(fd);
	return rc < 0 ? nt_from_errno(-rc) : NT_STATUS_OK;
}

static uint32_t fileio_mkdir(struct client *c, char *path)
{
	struct at a;
	uint32_t st = NT_STATUS_OK;

	if (!at_begin(c, path, &a, &st))
		return st;
	if (mkdirat(a.dir, a.name, 0777) < 0)
		st = errno == EEXIST ? NT_STATUS_OBJECT_NAME_COLLISION : name_status(c, errno, path);
	else
		set_dir_dosattrib(c, &a);
	at_close(&a);
	return st;
}

static uint32_t fileio_rmdir(struct client *c, char *path)
{
	struct at a;
	uint32_t st = NT_STATUS_OK;

	if (!at_begin(c, path, &a, &st))
		return st;
	dirs_forget(c, path);
	if (unlinkat(a.dir, a.name, AT_REMOVEDIR) < 0) {
		int err = errno;
		struct stat sb;

		if (err == ENOTEMPTY || err == EEXIST)
			st = NT_STATUS_DIRECTORY_NOT_EMPTY;
		else if (err == ENOTDIR && stat_at(&a, &sb) == 0)
			st = S_ISLNK(sb.st_mode) ? name_status(c, ELOOP, path) : NT_STATUS_NOT_A_DIRECTORY;
		else
			st = name_status(c, err, path);
	}
	at_close(&a);
	return st;
}

static uint32_t fileio_unlink(struct client *c, char *path)
{
	struct at a;
	uint32_t st = NT_STATUS_OK;

	if (!at_begin(c, path, &a, &st))
		return st;
	if (unlinkat(a.dir, a.name, 0) < 0) {
		int err = errno;
		struct stat sb;

		if ((err == EISDIR || err == EPERM) && stat_at(&a, &sb) == 0 && S_ISDIR(sb.st_mode))
			st = NT_STATUS_FILE_IS_A_DIRECTORY;
		else
			st = name_status(c, err, path);
	}
	at_close(&a);
	return st;
}

/* Do two paths have the same directory part? */
static bool same_dir(const char *p, const char *pname, const char *q, const char *qname)
{
	return pname - p == qname - q && memcmp(p, q, (size_t)(pname - p)) == 0;
}

static uint32_t fileio_rename(struct client *c, char *from, char *to)
{
	struct at a, b;
	struct stat sb;
	uint32_t st = NT_STATUS_OK;
	int rc;

	at_open(c, from, &a);
	if (a.dir < 0)
		return parent_status(&a);
	b.name = strrchr(to, '/') ? strrchr(to, '/') + 1 : to;
	if (same_dir(from, a.name, to, b.name)) {
		b.dir = a.dir;
		b.err = 0;
	} else {
		at_open(c, to, &b);
	}
	lookup_at(c, &a);
	if (b.dir < 0) {
		/* the target's directory is missing: so says a server, unless
		 * the source is missing too */
		st = stat_at(&a, &sb) == 0 ? parent_status(&b) : name_status(c, ENOENT, from);
		goto out;
	}
	lookup_at(c, &b);
	dirs_forget(c, from);	/* if it is a directory, its path changes */
	rc = renameat2(a.dir, a.name, b.dir, b.name, RENAME_NOREPLACE);
	if (rc < 0 && errno == EINVAL) {
		/* a file system without RENAME_NOREPLACE */
		if (stat_at(&b, &sb) == 0) {
			st = NT_STATUS_OBJECT_NAME_COLLISION;
			goto out;
		}
		rc = renameat(a.dir, a.name, b.dir, b.name);
	}
	if (rc < 0) {
		int err = errno;

		if (err == EEXIST || err == ENOTEMPTY)
			st = NT_STATUS_OBJECT_NAME_COLLISION;
		else
			st = name_status(c, err, from);
	}
out:
	if (b.dir != a.dir)
		at_close(&b);
	at_close(&a);
	return st;
}

static uint32_t fileio_deltree(struct client *c, char *path)
{
	struct at a;
	int rc;

	dirs_forget(c, path);
	at_open(c, path, &a);
	if (a.dir < 0)
		return a.err == ENOENT || a.err == ENOTDIR ? NT_STATUS_OK : parent_status(&a);
	rc = beneath_remove_tree(a.dir, a.name, NULL, 0);
	at_close(&a);
	return rc < 0 ? nt_from_errno(-rc) : NT_STATUS_OK;
}

static uint32_t fileio_statfs(struct client *c)
{
	struct statfs sfs;

	(void)c;
	return fstatfs(target, &sfs) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

static void fileio_sync_dir(struct client *c, const char *path)
{
	sync_parent(c, path);
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

/* --ioengine: psync is the table below; io_uring its asynchronous twin. */
static const struct backend *fileio_variant(void *be_opt, char *why, size_t whylen);

/* What the two tables share: everything but the asynchronous form. */
#define FILEIO_TABLE                                                                       \
	BACKEND_VARIANT_OF("fileio", fileio_options, struct fileio_options, fileio_variant),  \
	.description = "the local file system under -D",                                   \
	.init = fileio_init,                                                               \
	.setup = fileio_setup,                                                             \
	.teardown = fileio_teardown,                                                       \
	.remove_tree = fileio_remove_tree,                                                 \
	.exists = fileio_exists,                                                           \
	.op = { NB_OPS }

const struct backend fileio_backend = {
	FILEIO_TABLE,
	.flags = BACKEND_DIRECTORY | BACKEND_FILES,
};

#ifdef HAVE_LIBURING
static uint32_t fileio_submit(struct client *c, const struct op *op)
{
	return uring_submit(uring_of(c), c, op);
}

static void fileio_expire(struct client *c)
{
	uring_expire(uring_of(c), c);
}

static const struct backend fileio_uring_backend = {
	FILEIO_TABLE,
	.flags = BACKEND_DIRECTORY | BACKEND_FILES | BACKEND_ASYNC,
	.expire = fileio_expire,
	.submit = fileio_submit,
};
#endif

static const struct backend *fileio_variant(void *be_opt, char *why, size_t whylen)
{
	struct fileio_options *opt = be_opt;

	if (strcmp(opt->ioengine, "psync") == 0)
		return &fileio_backend;
	if (strcmp(opt->ioengine, "io_uring") == 0) {
#ifdef HAVE_LIBURING
		opt->uring = 1;
		return &fileio_uring_backend;
#else
		snprintf(why, whylen,
			 "--ioengine io_uring: this dbench was built without liburing (install liburing-dev and rebuild)");
		return NULL;
#endif
	}
	snprintf(why, whylen, "--ioengine %s: unknown engine (psync or io_uring)", opt->ioengine);
	return NULL;
}
