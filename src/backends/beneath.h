/*
 * beneath.h - paths resolved beneath a directory descriptor, never
 * through a symbolic link.
 *
 * fileio opens -D once and resolves every path of the run beneath that
 * descriptor, so that a directory renamed, or a symlink planted in the
 * tree while the run goes on, never leads it outside: with openat2(2)
 * (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it (5.6 and
 * later), else with a walk one component at a time, each opened O_NOFOLLOW
 * beneath the one before.  A symlink on the way is ELOOP either way.  The
 * last component is then handled with the *at calls (fstatat with
 * AT_SYMLINK_NOFOLLOW, unlinkat, mkdirat, renameat2, openat with
 * O_NOFOLLOW) relative to the directory opened.  Trees are removed as
 * rm -rf does: descriptors opened O_NOFOLLOW, entries removed with
 * unlinkat, never a path walked twice.
 *
 * Paths are relative ("a/b/c"; "" is the directory itself), '/'
 * separated, without "." or ".." components (the loadfile compiler made
 * them so); a ".." is refused (EXDEV) rather than resolved.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_BENEATH_H
#define DBENCH_BACKENDS_BENEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How paths are resolved: decided once (beneath_choose) before the
 * clients are forked. */
enum beneath_mode {
	BENEATH_OPENAT2,	/* one openat2() per path */
	BENEATH_WALK,		/* one openat(O_NOFOLLOW) per component */
};

/* Pick the way for directory root: openat2 if the kernel has it (a probe
 * beneath root), else the walk; force_walk picks the walk (the tests set
 * DBENCH_TEST_NO_OPENAT2 to check that path on a kernel with openat2). */
enum beneath_mode beneath_choose(int root, bool force_walk);
enum beneath_mode beneath_mode(void);

/* Open path beneath root with open(2) flags (O_NOFOLLOW and O_CLOEXEC
 * added) and mode; "" opens root itself (as "." would).  -1 with errno:
 * ELOOP for a symlink on the way or at the end, EXDEV for "..", the
 * open's errors otherwise. */
int beneath_open(int root, const char *path, int flags, mode_t mode);

/* The directory holding path's last component, opened beneath root
 * (O_PATH), and that component: *name points into path.  For a path of
 * one component the directory is root itself (nothing opened).  -1 with
 * errno as beneath_open (ENOENT or ENOTDIR: a directory on the way is
 * missing). */
int beneath_parent(int root, char *path, char **name);
/* Close what beneath_parent opened (nothing if it was root). */
void beneath_put(int root, int dir);

/* The first component of path (beneath root) that is a symlink, copied
 * into out (the path up to it): true if there is one.  For messages. */
bool beneath_find_symlink(int root, const char *path, char *out, size_t outlen);

/* Remove name (in directory dirfd) and everything under it without
 * following a symlink: 0 if it is gone (or was never there), -errno if
 * not.  The first path that could not be removed, relative to dirfd, is
 * copied into failed (if not NULL). */
int beneath_remove_tree(int dirfd, const char *name, char *failed, size_t failedlen);

/* Every name in directory fd (opened O_RDONLY | O_DIRECTORY), "." and
 * ".." included, read with getdents64 into buf (at least 4 KiB): fn is
 * called for each; stops early when fn returns true.  0, or -errno. */
int beneath_scan(int fd, char *buf, size_t buflen, bool (*fn)(void *arg, const char *name),
		 void *arg);

#endif
