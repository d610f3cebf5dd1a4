/*
 * beneath.c - see beneath.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#else
struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif

#include "backends/beneath.h"
#include "backends/common.h"

static enum beneath_mode mode = BENEATH_WALK;

static int openat2_beneath(int root, const char *path, int flags, mode_t perm)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? perm : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	/* EAGAIN: a rename elsewhere raced a ".." check; there is no ".."
	 * in our paths, but the kernel may say so anyway: try again */
	for (int i = 0; i < 8; i++) {
		fd = syscall(SYS_openat2, root, *path ? path : ".", &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return (int)fd;
#else
	(void)root;
	(void)path;
	(void)flags;
	(void)perm;
	errno = ENOSYS;
	return -1;
#endif
}

enum beneath_mode beneath_choose(int root, bool force_walk)
{
	int fd;

	mode = BENEATH_WALK;
	if (force_walk)
		return mode;
	/* ENOSYS before Linux 5.6; EPERM from a seccomp filter that does not
	 * know the call */
	fd = openat2_beneath(root, "", O_PATH | O_DIRECTORY, 0);
	if (fd >= 0) {
		close(fd);
		mode = BENEATH_OPENAT2;
	}
	return mode;
}

enum beneath_mode beneath_mode(void)
{
	return mode;
}

/* One component: a symlink is ELOOP (O_NOFOLLOW with O_DIRECTORY or
 * O_PATH says ENOTDIR or opens the link itself: both are told apart). */
static int open_component(int dir, const char *name, int flags, mode_t perm)
{
	struct stat st;
	int fd;

	if (name[0] == '.' && name[1] == '.' && name[2] == '\0') {
		errno = EXDEV;
		return -1;
	}
	fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, perm);
	if (fd >= 0 && (flags & O_PATH)) {
		if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			errno = ELOOP;
			return -1;
		}
		return fd;
	}
	if (fd < 0 && errno == ENOTDIR && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		errno = ELOOP;
	return fd;
}

/* The walk: every directory on the way opened O_PATH | O_NOFOLLOW beneath
 * the one before, the last component with the caller's flags. */
static int walk_beneath(int root, const char *path, int flags, mode_t perm)
{
	char comp[NAME_MAX + 1];
	int dir = root, fd;

	for (;;) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);

		if (len > NAME_MAX) {
			fd = -1;
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(comp, path, len);
		comp[len] = '\0';
		if (!slash) {
			fd = open_component(dir, len ? comp : ".", flags, perm);
			break;
		}
		path = slash + 1;
		if (len == 0)
			continue;	/* "a//b" */
		fd = open_component(dir, comp, O_PATH | O_DIRECTORY, 0);
		if (fd < 0)
			break;
		if (dir != root)
			close(dir);
		dir = fd;
	}
	if (dir != root) {
		int err = errno;

		close(dir);
		errno = err;
	}
	return fd;
}

int beneath_open(int root, const char *path, int flags, mode_t perm)
{
	struct stat st;
	int fd;

	if (mode == BENEATH_OPENAT2)
		fd = openat2_beneath(root, path, flags, perm);
	else
		fd = walk_beneath(root, path, flags, perm);
	if (fd >= 0 || errno != ENOTDIR || !(flags & O_DIRECTORY))
		return fd;
	/* O_DIRECTORY | O_NOFOLLOW says ENOTDIR for a symlink at the end:
	 * that is a symlink met, ELOOP, as on the way */
	fd = mode == BENEATH_OPENAT2 ? openat2_beneath(root, path, O_PATH, 0) :
				       walk_beneath(root, path, O_PATH, 0);
	if (fd >= 0) {
		bool link = fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);

		close(fd);
		errno = link ? ELOOP : ENOTDIR;
		return -1;
	}
	if (errno != ELOOP)
		errno = ENOTDIR;
	return -1;
}

int beneath_parent(int root, char *path, char **name)
{
	char *slash = strrchr(path, '/');
	int fd;

	if (!slash) {
		*name = path;
		return root;
	}
	*slash = '\0';
	fd = beneath_open(root, path, O_PATH | O_DIRECTORY, 0);
	*slash = '/';
	*name = slash + 1;
	return fd;
}

void beneath_put(int root, int dir)
{
	if (dir >= 0 && dir != root)
		close(dir);
}

bool beneath_find_symlink(int root, const char *path, char *out, size_t outlen)
{
	size_t n = strlen(path);
	struct stat st;

	if (n >= outlen)
		return false;
	memcpy(out, path, n + 1);
	/* each prefix in turn: "a", "a/b", ... */
	for (size_t i = 1; i <= n; i++) {
		char *name;
		int dir, r;

		if (out[i] != '/' && out[i] != '\0')
			continue;
		out[i] = '\0';
		dir = beneath_parent(root, out, &name);
		if (dir < 0)
			return false;
		r = fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW);
		beneath_put(root, dir);
		if (r < 0)
			return false;
		if (S_ISLNK(st.st_mode))
			return true;
		out[i] = path[i];
	}
	return false;
}

int beneath_scan(int fd, char *buf, size_t buflen, bool (*fn)(void *arg, const char *name),
		 void *arg)
{
	for (;;) {
		ssize_t n = getdents64(fd, buf, buflen);

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);

			if (fn(arg, d->d_name))
				return 0;
			off += d->d_reclen;
		}
	}
}

/* Put "name/" before what failed holds (the path below name). */
static void prepend(char *failed, size_t failedlen, const char *name)
{
	size_t n = strlen(name), have = strlen(failed);

	if (!failed[0]) {
		snprintf(failed, failedlen, "%s", name);
		return;
	}
	if (n + 1 + have >= failedlen)
		return;
	memmove(failed + n + 1, failed, have + 1);
	memcpy(failed, name, n);
	failed[n] = '/';
}

/* rm -rf of dirfd/name; depth bounds the recursion.  On the first failure
 * the path below dirfd that failed is left in failed. */
static int remove_at(int dirfd, const char *name, int depth, char *failed, size_t failedlen)
{
	int fd, rc = 0;
	DIR *dir;
	struct dirent *d;

	if (depth > 512) {
		errno = ELOOP;
		goto fail;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			goto fail;
		/* a file, or a symlink: the name itself goes */
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			goto fail;
		return 0;
	}
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		goto fail;
	}
	while ((d = readdir(dir))) {
		int r;

		if (is_dot(d->d_name))
			continue;
		if (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN) {
			if (unlinkat(fd, d->d_name, 0) < 0 && errno != ENOENT && !rc) {
				rc = -errno;
				if (failed)
					snprintf(failed, failedlen, "%s/%s", name, d->d_name);
			}
			continue;
		}
		r = remove_at(fd, d->d_name, depth + 1, rc ? NULL : failed, failedlen);
		if (r < 0 && !rc) {
			rc = r;
			if (failed)
				prepend(failed, failedlen, name);
		}
	}
	closedir(dir);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && !rc) {
		rc = -errno;
		if (failed)
			snprintf(failed, failedlen, "%s", name);
	}
	return rc;
fail:
	rc = -errno;
	if (failed)
		snprintf(failed, failedlen, "%s", name);
	return rc;
}

int beneath_remove_tree(int dirfd, const char *name, char *failed, size_t failedlen)
{
	char none[1];

	if (!failed) {
		failed = none;
		failedlen = sizeof(none);
	}
	failed[0] = '\0';
	return remove_at(dirfd, name, 0, failed, failedlen);
}
