/*
 * test_beneath.c - unit tests of path resolution beneath a directory
 * descriptor (src/backends/beneath.c), both ways: openat2 (where the
 * kernel has it) and the O_NOFOLLOW walk of older kernels.  A symlink on
 * the way or at the end is ELOOP, never followed; trees are removed
 * without following the symlinks in them.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/beneath.h"

struct fixture {
	char top[64];		/* the temporary directory */
	char root[96];		/* top/root: the directory resolved beneath */
	char outside[96];	/* top/outside: where the symlinks lead */
	int fd;			/* root, opened */
	bool walk;		/* the O_NOFOLLOW walk, not openat2 */
};

static void put_file(const char *dir, const char *name)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("data\n", f);
	fclose(f);
}

static bool exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

static int setup(void **state, bool walk)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char path[256];

	if (!fx)
		return -1;
	snprintf(fx->top, sizeof(fx->top), "/tmp/dbench-beneath.XXXXXX");
	if (!mkdtemp(fx->top))
		return -1;
	snprintf(fx->root, sizeof(fx->root), "%s/root", fx->top);
	snprintf(fx->outside, sizeof(fx->outside), "%s/outside", fx->top);
	if (mkdir(fx->root, 0777) < 0 || mkdir(fx->outside, 0777) < 0)
		return -1;
	/* root/a/b/file, root/a/up -> ../.., root/a/out -> outside,
	 * root/link -> outside/victim, outside/victim */
	snprintf(path, sizeof(path), "%s/a", fx->root);
	if (mkdir(path, 0777) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/a/b", fx->root);
	if (mkdir(path, 0777) < 0)
		return -1;
	put_file(fx->root, "a/b/file");
	put_file(fx->outside, "victim");
	snprintf(path, sizeof(path), "%s/a/up", fx->root);
	if (symlink("../..", path) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/a/out", fx->root);
	if (symlink(fx->outside, path) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/link", fx->root);
	if (symlink("../outside/victim", path) < 0)
		return -1;
	fx->fd = open(fx->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fx->fd < 0)
		return -1;
	fx->walk = walk;
	beneath_choose(fx->fd, walk);
	*state = fx;
	return 0;
}

static int setup_openat2(void **state)
{
	return setup(state, false);
}

static int setup_walk(void **state)
{
	return setup(state, true);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	close(fx->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->top);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

/* The mode asked for is the one in use (openat2: when the kernel has it). */
static void test_mode(void **state)
{
	struct fixture *fx = *state;

	if (fx->walk)
		assert_int_equal(beneath_mode(), BENEATH_WALK);
	else if (beneath_mode() != BENEATH_OPENAT2)	/* before 5.6, or a filter hides it */
		print_message("openat2 is not available: both runs test the walk\n");
}

static void assert_fails(int fd, int err)
{
	assert_int_equal(fd, -1);
	assert_int_equal(errno, err);
}

static void test_open(void **state)
{
	struct fixture *fx = *state;
	char buf[8] = { 0 };
	int fd;

	fd = beneath_open(fx->fd, "a/b/file", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, 4), 4);
	assert_string_equal(buf, "data");
	close(fd);
	/* the root itself, and a directory on the way */
	fd = beneath_open(fx->fd, "", O_RDONLY | O_DIRECTORY, 0);
	assert_true(fd >= 0);
	close(fd);
	fd = beneath_open(fx->fd, "a/b", O_PATH | O_DIRECTORY, 0);
	assert_true(fd >= 0);
	close(fd);
	/* creating a file beneath */
	fd = beneath_open(fx->fd, "a/b/new", O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists(fx->root, "a/b/new"));
	/* missing names and directories */
	assert_fails(beneath_open(fx->fd, "a/b/none", O_RDONLY, 0), ENOENT);
	assert_fails(beneath_open(fx->fd, "a/none/x", O_RDONLY, 0), ENOENT);
	assert_fails(beneath_open(fx->fd, "a/b/file/x", O_RDONLY, 0), ENOTDIR);
	assert_fails(beneath_open(fx->fd, "a/b/file", O_RDONLY | O_DIRECTORY, 0), ENOTDIR);
}

/* A symlink on the way, or at the end, is ELOOP: not followed. */
static void test_symlinks(void **state)
{
	struct fixture *fx = *state;

	assert_fails(beneath_open(fx->fd, "a/out/victim", O_RDONLY, 0), ELOOP);
	assert_fails(beneath_open(fx->fd, "a/out/new", O_WRONLY | O_CREAT, 0644), ELOOP);
	assert_false(exists(fx->outside, "new"));
	assert_fails(beneath_open(fx->fd, "a/up/outside/victim", O_RDONLY, 0), ELOOP);
	assert_fails(beneath_open(fx->fd, "link", O_RDONLY, 0), ELOOP);
	assert_fails(beneath_open(fx->fd, "link", O_WRONLY | O_TRUNC, 0), ELOOP);
	assert_fails(beneath_open(fx->fd, "a/out", O_RDONLY | O_DIRECTORY, 0), ELOOP);
	assert_fails(beneath_open(fx->fd, "a/out", O_PATH | O_DIRECTORY, 0), ELOOP);
	/* O_PATH alone opens a symlink at the end as itself, as O_NOFOLLOW does */
	int fd = beneath_open(fx->fd, "link", O_PATH, 0);
	struct stat st;

	if (fd >= 0) {
		assert_int_equal(fstat(fd, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		close(fd);
	} else {
		assert_int_equal(errno, ELOOP);
	}
	/* the outside is as it was */
	assert_true(exists(fx->outside, "victim"));
}

static void test_climbing(void **state)
{
	struct fixture *fx = *state;

	assert_fails(beneath_open(fx->fd, "../outside/victim", O_RDONLY, 0), EXDEV);
	assert_fails(beneath_open(fx->fd, "a/../../outside/victim", O_RDONLY, 0), EXDEV);
}

static void test_parent(void **state)
{
	struct fixture *fx = *state;
	char path[64], *name;
	struct stat st;
	int dir;

	snprintf(path, sizeof(path), "a/b/file");
	dir = beneath_parent(fx->fd, path, &name);
	assert_true(dir >= 0 && dir != fx->fd);
	assert_string_equal(name, "file");
	assert_string_equal(path, "a/b/file");	/* given back whole */
	assert_int_equal(fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	beneath_put(fx->fd, dir);
	/* one component: the root itself, nothing opened */
	snprintf(path, sizeof(path), "top");
	dir = beneath_parent(fx->fd, path, &name);
	assert_int_equal(dir, fx->fd);
	assert_string_equal(name, "top");
	beneath_put(fx->fd, dir);
	assert_true(fcntl(fx->fd, F_GETFD) >= 0);	/* not closed */
	/* a symlink on the way */
	snprintf(path, sizeof(path), "a/out/victim");
	dir = beneath_parent(fx->fd, path, &name);
	assert_fails(dir, ELOOP);
	assert_string_equal(path, "a/out/victim");
}

static void test_find_symlink(void **state)
{
	struct fixture *fx = *state;
	char found[64];

	assert_true(beneath_find_symlink(fx->fd, "a/out/victim", found, sizeof(found)));
	assert_string_equal(found, "a/out");
	assert_true(beneath_find_symlink(fx->fd, "link", found, sizeof(found)));
	assert_string_equal(found, "link");
	assert_false(beneath_find_symlink(fx->fd, "a/b/file", found, sizeof(found)));
	assert_false(beneath_find_symlink(fx->fd, "a/b/none", found, sizeof(found)));
}

/* rm -rf beneath: symlinks go as names, what they lead to stays. */
static void test_remove_tree(void **state)
{
	struct fixture *fx = *state;
	char failed[PATH_MAX];

	assert_int_equal(beneath_remove_tree(fx->fd, "a", failed, sizeof(failed)), 0);
	assert_false(exists(fx->root, "a"));
	assert_int_equal(beneath_remove_tree(fx->fd, "link", failed, sizeof(failed)), 0);
	assert_false(exists(fx->root, "link"));
	assert_true(exists(fx->outside, "victim"));
	assert_true(exists(fx->top, "outside"));
	/* gone already: fine */
	assert_int_equal(beneath_remove_tree(fx->fd, "a", NULL, 0), 0);
}

/* A failure names the path that could not be removed (out of
 * descriptors: a failure that root gets too). */
static void test_remove_tree_fails(void **state)
{
	struct fixture *fx = *state;
	char failed[PATH_MAX];
	struct rlimit old, one_more;
	int next = dup(0);

	assert_true(next >= 0);
	close(next);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	one_more = old;
	one_more.rlim_cur = (rlim_t)next + 1;	/* "a" opens, "a/b" does not */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &one_more), 0);
	int rc = beneath_remove_tree(fx->fd, "a", failed, sizeof(failed));

	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(rc, -EMFILE);
	assert_string_equal(failed, "a/b");
	assert_true(exists(fx->root, "a/b/file"));
	assert_false(exists(fx->root, "a/out"));	/* the rest went */
}

struct names {
	int seen;
	bool file;
};

static bool count_name(void *arg, const char *name)
{
	struct names *n = arg;

	n->seen++;
	if (strcmp(name, "file") == 0)
		n->file = true;
	return false;
}

static void test_scan(void **state)
{
	struct fixture *fx = *state;
	struct names n = { 0 };
	char buf[4096];
	int fd = beneath_open(fx->fd, "a/b", O_RDONLY | O_DIRECTORY, 0);

	assert_true(fd >= 0);
	for (int i = 0; i < 300; i++) {	/* more than one buffer's worth */
		char name[32];

		snprintf(name, sizeof(name), "a/b/name-%03d-padding-padding", i);
		int f = beneath_open(fx->fd, name, O_WRONLY | O_CREAT, 0644);

		assert_true(f >= 0);
		close(f);
	}
	assert_int_equal(beneath_scan(fd, buf, sizeof(buf), count_name, &n), 0);
	close(fd);
	assert_int_equal(n.seen, 300 + 3);	/* ".", "..", file */
	assert_true(n.file);
}

#define BOTH(t)                                                        \
	cmocka_unit_test_setup_teardown(t, setup_openat2, teardown), \
		cmocka_unit_test_setup_teardown(t, setup_walk, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_mode),
		BOTH(test_open),
		BOTH(test_symlinks),
		BOTH(test_climbing),
		BOTH(test_parent),
		BOTH(test_find_symlink),
		BOTH(test_remove_tree),
		BOTH(test_remove_tree_fails),
		BOTH(test_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
