/*
 * outfile.c - writing a machine output file without following a symbolic
 * link at its name; see outfile.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* The descriptor a path names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1. */
static int fd_alias(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	long n;
	char *end;

	if (strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(path, dirs[i], len) != 0 || path[len] < '0' || path[len] > '9')
			continue;
		errno = 0;
		n = strtol(path + len, &end, 10);
		if (!errno && !*end && n <= INT_MAX)
			return (int)n;
	}
	return -1;
}

/* Split path into its directory (opened O_DIRECTORY, returned) and the
 * final name (in base).  -1 with errno and why set. */
static int open_parent(const char *path, char *base, char *why, size_t whylen)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	int dirfd;

	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		errno = EISDIR;
		snprintf(why, whylen, "is a directory");
		return -1;
	}
	if (strlen(name) > NAME_MAX) {
		errno = ENAMETOOLONG;
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".") >=
	    (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		snprintf(why, whylen, "its directory %s: %s", dir, strerror(errno));
		return -1;
	}
	strcpy(base, name);
	return dirfd;
}

enum kind { KIND_NEW, KIND_REPLACE, KIND_IN_PLACE };

/* What is at base in dirfd, without following it: how it is written, or
 * -1 with errno and why set. */
static int classify(int dirfd, const char *base, char *why, size_t whylen)
{
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return KIND_NEW;
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return KIND_REPLACE;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return KIND_IN_PLACE;
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		snprintf(why, whylen, "is a symbolic link: dbench does not write through one "
			 "(give the file it points to)");
	} else if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		snprintf(why, whylen, "is a directory");
	} else {
		errno = EINVAL;
		snprintf(why, whylen, "is a block device, not a file");
	}
	return -1;
}

int outfile_check(const char *path, char *why, size_t whylen)
{
	char base[NAME_MAX + 1];
	int dirfd, kind, rc = -1;

	if (fd_alias(path) >= 0)
		return 0;
	dirfd = open_parent(path, base, why, whylen);
	if (dirfd < 0)
		return -1;
	kind = classify(dirfd, base, why, whylen);
	if (kind < 0)
		goto out;
	if (kind != KIND_NEW && faccessat(dirfd, base, W_OK, AT_EACCESS) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto out;
	}
	if (kind != KIND_IN_PLACE && faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) < 0) {
		snprintf(why, whylen, "cannot create it: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	close(dirfd);
	return rc;
}

/* A name for the new file: the destination's, a dot and six hex digits. */
static void temp_name(char *tmp, const char *base)
{
	uint32_t r;
	int keep = (int)strlen(base);

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL) ^ (uint32_t)clock();
	if (keep > NAME_MAX - 8)
		keep = NAME_MAX - 8;
	snprintf(tmp, NAME_MAX + 1, "%.*s.%06x", keep, base, r & 0xffffff);
}

int outfile_open(struct outfile *o, const char *path, bool replace_now, char *why, size_t whylen)
{
	int alias = fd_alias(path), kind;
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->dirfd = -1;
	if (alias >= 0) {
		o->fd = fcntl(alias, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0)
			snprintf(why, whylen, "%s", strerror(errno));
		return o->fd < 0 ? -1 : 0;
	}
	o->dirfd = open_parent(path, o->base, why, whylen);
	if (o->dirfd < 0)
		return -1;
	kind = classify(o->dirfd, o->base, why, whylen);
	if (kind < 0)
		goto fail;
	if (kind == KIND_IN_PLACE) {
		o->fd = openat(o->dirfd, o->base, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			goto fail;
		}
		/* it changed between the look and the open: not written */
		if (fstat(o->fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
		    S_ISBLK(st.st_mode)) {
			errno = EAGAIN;
			snprintf(why, whylen, "it was replaced while being opened");
			close(o->fd);
			o->fd = -1;
			goto fail;
		}
		close(o->dirfd);
		o->dirfd = -1;
		return 0;
	}
	for (int tries = 0; tries < 100; tries++) {
		temp_name(o->tmp, o->base);
		/* the mode is 0666 less the umask, as for any new file */
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (o->fd >= 0 || errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		snprintf(why, whylen, "cannot create a file in its directory: %s", strerror(errno));
		o->tmp[0] = '\0';
		goto fail;
	}
	if (replace_now && renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0) {
		int e = errno;

		snprintf(why, whylen, "cannot replace it: %s", strerror(e));
		outfile_abort(o, false);
		errno = e;
		return -1;
	}
	if (replace_now) {	/* in place now: only o->fd is left */
		o->tmp[0] = '\0';
		close(o->dirfd);
		o->dirfd = -1;
	}
	return 0;
fail:
	if (o->dirfd >= 0) {
		int e = errno;

		close(o->dirfd);
		errno = e;
	}
	o->dirfd = -1;
	return -1;
}

int outfile_commit(struct outfile *o, bool closed)
{
	int rc = 0, e = 0;

	if (!closed && o->fd >= 0 && close(o->fd) < 0) {
		rc = -1;
		e = errno;
	}
	o->fd = -1;
	if (rc == 0 && o->tmp[0] && renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0) {
		rc = -1;
		e = errno;
	}
	if (rc < 0 && o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	o->tmp[0] = '\0';
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	errno = e;
	return rc;
}

void outfile_abort(struct outfile *o, bool closed)
{
	if (!closed && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0] && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	o->tmp[0] = '\0';
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}
