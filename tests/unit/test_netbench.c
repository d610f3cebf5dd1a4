/*
 * test_netbench.c - unit tests of the netbench layer (src/backends/netbench.c) over
 * the fileio adapter, in a temporary directory: NTCreateX dispositions and
 * create options, the statuses of path ops, handles, byte-range locks
 * between two clients of one process, FIND_FIRST, ReadX and WriteX checks.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h"
#include "client.h"
#include "backends/netbench.h"
#include "options.h"
#include "status.h"
#include "util.h"

extern const struct backend fileio_backend;

/* fileio.c expands the client's tree names at setup; these tests give it
 * none, so the interpreter's expansion is never called. */
size_t client_expand(struct client *c, const char *tpl, size_t len, char *dst)
{
	(void)c;
	memcpy(dst, tpl, len);
	dst[len] = '\0';
	return len;
}

#ifdef HAVE_LIBURING
/* fileio's io_uring path on an event loop (fileio_uring.c with
 * --clients-per-process) is run by tests/cli/fileio_uring.bats; the
 * clients here have no loop (c->engine is NULL: each waits on a ring of
 * its own), so the loop's calls must never come. */
void client_complete(struct client *c, uint32_t status)
{
	(void)c;
	(void)status;
	fail_msg("client_complete without an event loop");
}

void **engine_shared(struct client *c)
{
	(void)c;
	fail_msg("engine_shared without an event loop");
	return NULL;
}

int engine_watch(struct client *c, struct source *src)
{
	(void)c;
	(void)src;
	fail_msg("engine_watch without an event loop");
	return -1;
}

void source_unwatch(struct source *src)
{
	(void)src;
	fail_msg("source_unwatch without an event loop");
}
#endif

#define NHANDLES 8

struct fixture {
	char dir[64];		/* the temporary directory */
	char cwd[PATH_MAX];	/* where the test started */
	struct options opt;
	void *be_opt;		/* fileio's option block */
	struct program prog;
	struct client a, b;	/* two clients of one process */
	char paths[2][MAX_PATHS][PATH_MAX]; /* their path buffers */
};

static int client_setup(struct fixture *fx, struct client *c, int id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->nclients = 2;
	c->opt = &fx->opt;
	c->prog = &fx->prog;
	c->be = &fileio_backend;
	c->be_opt = fx->be_opt;
	c->nc.child = id;
	c->nc.nchildren = 2;
	c->nc.rng[0] = 0x1234u + (uint64_t)id;
	c->nc.rng[1] = 0x9876u;
	for (int i = 0; i < MAX_PATHS; i++)
		c->path[i] = fx->paths[id][i];
	c->path_size = PATH_MAX;
	return fileio_backend.setup(c);
}

/* The fixture, with fileio's --ioengine set to ioengine (NULL: not set,
 * the psync path). */
static int setup_engine(void **state, const char *ioengine);

static int setup(void **state)
{
	return setup_engine(state, NULL);
}

#ifdef HAVE_LIBURING
/* The same, the data path through io_uring (--ioengine io_uring). */
static int setup_uring(void **state)
{
	return setup_engine(state, "io_uring");
}
#endif

static int setup_engine(void **state, const char *ioengine)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx || !getcwd(fx->cwd, sizeof(fx->cwd)))
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/dbench-unit.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	/* fileio's block, as the core makes it: zeroed, -D set */
	fx->be_opt = calloc(1, fileio_backend.options_size);
	if (!fx->be_opt)
		return -1;
	for (const struct backend_option *o = fileio_backend.options; o->name; o++) {
		if (o->type == BOPT_DIRECTORY)
			*(const char **)((char *)fx->be_opt + o->offset) = fx->dir;
		if (ioengine && strcmp(o->name, "ioengine") == 0)
			*(const char **)((char *)fx->be_opt + o->offset) = ioengine;
	}
	if (ioengine) {
		char why[200];
		const struct backend *be = fileio_backend.variant(fx->be_opt, why, sizeof(why));

		/* the variant: the same calls, asynchronous on an event loop */
		if (!be || !(be->flags & BACKEND_ASYNC) || be->setup != fileio_backend.setup)
			return -1;
	}
	fx->opt.nclients = 2;
	fx->prog.nhandles = NHANDLES;
	/* fileio opens the target in the parent; the tests' own files are
	 * made relative to it */
	if (fileio_backend.init(fx->be_opt, &(struct run_info){ .progname = "test" }) < 0 ||
	    chdir(fx->dir) < 0)
		return -1;
	if (client_setup(fx, &fx->a, 0) < 0 || client_setup(fx, &fx->b, 1) < 0)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	fileio_backend.teardown(&fx->a);
	fileio_backend.teardown(&fx->b);
	if (chdir(fx->cwd) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	if (system(cmd) != 0)
		return -1;
	free(fx->be_opt);
	free(fx);
	return 0;
}

/* Run one op on client c: op id, handle, paths (NULL if none), numbers. */
static uint32_t run(struct client *c, int id, uint32_t handle, const char *p0, const char *p1,
		    int64_t n0, int64_t n1, int64_t n2)
{
	struct op op = { .id = (uint16_t)id, .handle = handle };

	if (p0)
		snprintf(c->path[0], c->path_size, "%s", p0);
	if (p1)
		snprintf(c->path[1], c->path_size, "%s", p1);
	c->num[0] = n0;
	c->num[1] = n1;
	c->num[2] = n2;
	c->bytes = 0;
	c->op = &op;
	return c->be->op[id](c, &op);
}

static uint32_t ntcreatex(struct client *c, const char *path, uint64_t opts, int disp, uint32_t h)
{
	return run(c, OP_NTCREATEX, h, path, NULL, (int64_t)opts, disp, 0);
}

static uint32_t nb_close_h(struct client *c, uint32_t h)
{
	return run(c, OP_CLOSE, h, NULL, NULL, 0, 0, 0);
}

static void make_file(const char *path, size_t size)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

#define NF 0x40		/* FILE_NON_DIRECTORY_FILE */
#define DIRF 0x1	/* FILE_DIRECTORY_FILE */
#define DOC 0x1000	/* FILE_DELETE_ON_CLOSE */

static void test_dispositions(void **state)
{
	struct fixture *fx = *state;
	struct client *c = &fx->a;

	/* OPEN of a missing name, and of a name in a missing directory */
	assert_int_equal(ntcreatex(c, "f", NF, DISP_OPEN, 0), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(ntcreatex(c, "nodir/f", NF, DISP_OPEN, 0), NT_STATUS_OBJECT_PATH_NOT_FOUND);
	assert_int_equal(ntcreatex(c, "nodir/f", NF, DISP_CREATE, 0), NT_STATUS_OBJECT_PATH_NOT_FOUND);
	/* OVERWRITE needs the file; CREATE makes it once */
	assert_int_equal(ntcreatex(c, "f", NF, DISP_OVERWRITE, 0), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(ntcreatex(c, "f", NF, DISP_CREATE, 0), NT_STATUS_OK);
	assert_true(exists("f"));
	assert_int_equal(ntcreatex(c, "f", NF, DISP_CREATE, 1), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(ntcreatex(c, "f", NF, DISP_OPEN_IF, 1), NT_STATUS_OK);
	assert_int_equal(ntcreatex(c, "g", NF, DISP_OPEN_IF, 2), NT_STATUS_OK);
	assert_true(exists("g"));
	/* OVERWRITE and SUPERSEDE cut the file */
	make_file("h", 100);
	assert_int_equal(ntcreatex(c, "h", NF, DISP_OVERWRITE, 3), NT_STATUS_OK);
	assert_int_equal(run(c, OP_QFILEINFO, 3, NULL, NULL, 0, 0, 0), NT_STATUS_OK);
	make_file("h2", 100);
	assert_int_equal(ntcreatex(c, "h2", NF, DISP_SUPERSEDE, 4), NT_STATUS_OK);
	{
		struct stat st;

		assert_int_equal(stat("h", &st), 0);
		assert_int_equal(st.st_size, 0);
		assert_int_equal(stat("h2", &st), 0);
		assert_int_equal(st.st_size, 0);
	}
	/* out of range */
	assert_int_equal(ntcreatex(c, "f", NF, 6, 5), NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(ntcreatex(c, "f", NF, -1, 5), NT_STATUS_INVALID_PARAMETER);
	for (uint32_t h = 0; h < 5; h++)
		assert_int_equal(nb_close_h(c, h), NT_STATUS_OK);
}

static void test_directories(void **state)
{
	struct fixture *fx = *state;
	struct client *c = &fx->a;

	assert_int_equal(ntcreatex(c, "d", DIRF, DISP_OPEN, 0), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(ntcreatex(c, "d", DIRF, DISP_CREATE, 0), NT_STATUS_OK);
	assert_int_equal(ntcreatex(c, "d", DIRF, DISP_CREATE, 1), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(ntcreatex(c, "d", DIRF, DISP_OPEN_IF, 1), NT_STATUS_OK);
	assert_int_equal(ntcreatex(c, "d", DIRF, DISP_OVERWRITE_IF, 2), NT_STATUS_INVALID_PARAMETER);
	/* a file where a directory is asked for, and the other way round */
	make_file("file", 1);
	assert_int_equal(ntcreatex(c, "file", DIRF, DISP_OPEN, 2), NT_STATUS_NOT_A_DIRECTORY);
	assert_int_equal(ntcreatex(c, "d", NF, DISP_OPEN, 2), NT_STATUS_FILE_IS_A_DIRECTORY);
	assert_int_equal(ntcreatex(c, "d", NF, DISP_OVERWRITE_IF, 2), NT_STATUS_FILE_IS_A_DIRECTORY);
	assert_int_equal(ntcreatex(c, "d", 0, DISP_CREATE, 2), NT_STATUS_OBJECT_NAME_COLLISION);
	/* without the non-directory option, an open finds the directory */
	assert_int_equal(ntcreatex(c, "d", 0, DISP_OPEN, 2), NT_STATUS_OK);
	/* a directory handle reads and writes nothing */
	assert_int_equal(run(c, OP_READX, 2, NULL, NULL, 0, 0, 10), NT_STATUS_INVALID_DEVICE_REQUEST);
	assert_int_equal(run(c, OP_WRITEX, 2, NULL, NULL, 0, 0, 10), NT_STATUS_INVALID_DEVICE_REQUEST);
	for (uint32_t h = 0; h < 3; h++)
		assert_int_equal(nb_close_h(c, h), NT_STATUS_OK);
	/* Mkdir: an existing directory is fine, a file is not */
	assert_int_equal(run(c, OP_MKDIR, NO_HANDLE, "d", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_MKDIR, NO_HANDLE, "file", NULL, 0, 0, 0), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(run(c, OP_MKDIR, NO_HANDLE, "x/y", NULL, 0, 0, 0), NT_STATUS_OBJECT_PATH_NOT_FOUND);
	/* Rmdir */
	make_file("d/in", 1);
	assert_int_equal(run(c, OP_RMDIR, NO_HANDLE, "d", NULL, 0, 0, 0), NT_STATUS_DIRECTORY_NOT_EMPTY);
	assert_int_equal(run(c, OP_RMDIR, NO_HANDLE, "file", NULL, 0, 0, 0), NT_STATUS_NOT_A_DIRECTORY);
	assert_int_equal(run(c, OP_UNLINK, NO_HANDLE, "d/in", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_RMDIR, NO_HANDLE, "d", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_RMDIR, NO_HANDLE, "d", NULL, 0, 0, 0), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	/* Deltree: a tree, a missing one, never the root */
	assert_int_equal(run(c, OP_MKDIR, NO_HANDLE, "t", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_MKDIR, NO_HANDLE, "t/u", NULL, 0, 0, 0), NT_STATUS_OK);
	make_file("t/u/v", 3);
	assert_int_equal(run(c, OP_DELTREE, NO_HANDLE, "t", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_false(exists("t"));
	assert_int_equal(run(c, OP_DELTREE, NO_HANDLE, "t", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_DELTREE, NO_HANDLE, "", NULL, 0, 0, 0), NT_STATUS_ACCESS_DENIED);
}

static void test_path_statuses(void **state)
{
	struct fixture *fx = *state;
	struct client *c = &fx->a;

	assert_int_equal(mkdir("d", 0777), 0);
	make_file("d/File.TXT", 5);
	make_file("other", 5);
	/* QUERY_PATH_INFORMATION: case-insensitive, NAME vs PATH not found */
	assert_int_equal(run(c, OP_QPATHINFO, NO_HANDLE, "d/file.txt", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_QPATHINFO, NO_HANDLE, "d/nope", NULL, 0, 0, 0),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(run(c, OP_QPATHINFO, NO_HANDLE, "nodir/nope", NULL, 0, 0, 0),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	assert_int_equal(run(c, OP_QPATHINFO, NO_HANDLE, "other/nope", NULL, 0, 0, 0),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	/* Unlink never removes a directory */
	assert_int_equal(run(c, OP_UNLINK, NO_HANDLE, "d", NULL, 0, 0, 0), NT_STATUS_FILE_IS_A_DIRECTORY);
	assert_int_equal(run(c, OP_UNLINK, NO_HANDLE, "d/nope", NULL, 0, 0, 0),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(run(c, OP_UNLINK, NO_HANDLE, "nodir/nope", NULL, 0, 0, 0),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	/* Rename never replaces */
	assert_int_equal(run(c, OP_RENAME, NO_HANDLE, "other", "d/file.txt", 0, 0, 0),
			 NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(run(c, OP_RENAME, NO_HANDLE, "other", "nodir/x", 0, 0, 0),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	assert_int_equal(run(c, OP_RENAME, NO_HANDLE, "nope", "x", 0, 0, 0),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(run(c, OP_RENAME, NO_HANDLE, "other", "d/moved", 0, 0, 0), NT_STATUS_OK);
	assert_true(exists("d/moved"));
	assert_false(exists("other"));
	/* the plain SMB ops */
	assert_int_equal(run(c, OP_SMB_STAT, NO_HANDLE, "d/moved", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_SMB_READDIR, NO_HANDLE, "d", NULL, 0, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_SMB_READDIR, NO_HANDLE, "d/moved", NULL, 0, 0, 0),
			 NT_STATUS_NOT_A_DIRECTORY);
	assert_int_equal(run(c, OP_QFSINFO, NO_HANDLE, NULL, NULL, 0, 0, 0), NT_STATUS_OK);
}

static void test_handles(void **state)
{
	struct fixture *fx = *state;
	struct client *c = &fx->a;

	/* a number never opened */
	assert_int_equal(nb_close_h(c, 0), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 0, 1), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(run(c, OP_WRITEX, 0, NULL, NULL, 0, 0, 1), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(run(c, OP_LOCKX, 0, NULL, NULL, 0, 0, 1), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(run(c, OP_FLUSH, 0, NULL, NULL, 0, 0, 0), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(run(c, OP_QFILEINFO, 0, NULL, NULL, 0, 0, 0), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(run(c, OP_SFILEINFO, 0, NULL, NULL, 0, 1004, 0), NT_STATUS_INVALID_HANDLE);
	/* data: write, read back, the end of the file, bad arguments */
	assert_int_equal(ntcreatex(c, "f", NF, DISP_CREATE, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_WRITEX, 0, NULL, NULL, 0, 100, 5000), NT_STATUS_OK);
	assert_int_equal(c->bytes, 5000);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 4000, 5000), NT_STATUS_OK);
	assert_int_equal(c->bytes, 1100);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 5100, 10), NT_STATUS_END_OF_FILE);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, -1, 10), NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(run(c, OP_WRITEX, 0, NULL, NULL, 0, 0, -10), NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(run(c, OP_FLUSH, 0, NULL, NULL, 0, 0, 0), NT_STATUS_OK);
	/* WRITEPATTERN: what was written reads back verified */
	c->writepattern = 1;
	assert_int_equal(run(c, OP_WRITEX, 0, NULL, NULL, 0, 7, 9000), NT_STATUS_OK);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 1000, 3000), NT_STATUS_OK);
	c->writepattern = 0;
	assert_int_equal(run(c, OP_WRITEX, 0, NULL, NULL, 0, 0, 100), NT_STATUS_OK);
	c->writepattern = 1;
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 0, 100), NT_STATUS_FILE_CORRUPT_ERROR);
	c->writepattern = 0;
	/* a failed open of a number still open leaves it open */
	assert_int_equal(ntcreatex(c, "missing", NF, DISP_OPEN, 0), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 0, 10), NT_STATUS_OK);
	/* a successful one replaces it */
	make_file("g", 3);
	assert_int_equal(ntcreatex(c, "g", NF, DISP_OPEN, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_READX, 0, NULL, NULL, 0, 0, 10), NT_STATUS_OK);
	assert_int_equal(c->bytes, 3);
	assert_int_equal(nb_close_h(c, 0), NT_STATUS_OK);
	assert_int_equal(nb_close_h(c, 0), NT_STATUS_INVALID_HANDLE);
	/* delete-on-close: by create option and by SET_FILE_INFORMATION 1013 */
	assert_int_equal(ntcreatex(c, "doc", NF | DOC, DISP_CREATE, 1), NT_STATUS_OK);
	assert_true(exists("doc"));
	assert_int_equal(nb_close_h(c, 1), NT_STATUS_OK);
	assert_false(exists("doc"));
	assert_int_equal(ntcreatex(c, "g", NF, DISP_OPEN, 1), NT_STATUS_OK);
	assert_int_equal(run(c, OP_SFILEINFO, 1, NULL, NULL, 0, 1004, 0), NT_STATUS_OK);
	assert_true(exists("g"));
	assert_int_equal(run(c, OP_SFILEINFO, 1, NULL, NULL, 0, 1013, 0), NT_STATUS_OK);
	assert_int_equal(nb_close_h(c, 1), NT_STATUS_OK);
	assert_false(exists("g"));
	assert_int_equal(ntcreatex(c, "ddoc", DIRF | DOC, DISP_CREATE, 1), NT_STATUS_OK);
	assert_int_equal(nb_close_h(c, 1), NT_STATUS_OK);
	assert_false(exists("ddoc"));
	/* the plain SMB ops: OPEN flags, READ, WRITE */
	assert_int_equal(run(c, OP_SMB_OPEN, 2, "s", NULL, 0x01, 0, 0), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(run(c, OP_SMB_OPEN, 2, "s", NULL, 0x03 | 0x04, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_SMB_WRITE, 2, NULL, NULL, 0, 10, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_SMB_READ, 2, NULL, NULL, 0, 10, 0), NT_STATUS_OK);
	assert_int_equal(c->bytes, 10);
	assert_int_equal(run(c, OP_SMB_OPEN, 3, "s", NULL, 0x03 | 0x10, 0, 0), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(nb_close_h(c, 2), NT_STATUS_OK);
}

static uint32_t lockx(struct client *c, uint32_t h, int64_t offset, int64_t length)
{
	return run(c, OP_LOCKX, h, NULL, NULL, 0, offset, length);
}

static uint32_t unlockx(struct client *c, uint32_t h, int64_t offset, int64_t length)
{
	return run(c, OP_UNLOCKX, h, NULL, NULL, 0, offset, length);
}

static void test_locks(void **state)
{
	struct fixture *fx = *state;
	struct client *a = &fx->a, *b = &fx->b;

	make_file("f", 10);
	assert_int_equal(ntcreatex(a, "f", NF, DISP_OPEN, 0), NT_STATUS_OK);
	assert_int_equal(ntcreatex(a, "f", NF, DISP_OPEN, 1), NT_STATUS_OK);
	assert_int_equal(ntcreatex(b, "f", NF, DISP_OPEN, 0), NT_STATUS_OK);
	/* one handle: no stacking, exact unlocks */
	assert_int_equal(lockx(a, 0, 0, 100), NT_STATUS_OK);
	assert_int_equal(lockx(a, 0, 50, 10), NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(lockx(a, 0, -1, 10), NT_STATUS_INVALID_LOCK_RANGE);
	assert_int_equal(unlockx(a, 0, 10, 10), NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(unlockx(a, 0, 0, 50), NT_STATUS_RANGE_NOT_LOCKED);
	/* the unlocks of ranges not held released nothing: the other client
	 * (same process) and another handle of the same client conflict */
	assert_int_equal(lockx(b, 0, 10, 10), NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(lockx(b, 0, 99, 1), NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(lockx(a, 1, 15, 1), NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(lockx(b, 0, 100, 10), NT_STATUS_OK);
	/* closing another handle of the file drops no lock */
	assert_int_equal(nb_close_h(a, 1), NT_STATUS_OK);
	assert_int_equal(lockx(b, 0, 0, 1), NT_STATUS_LOCK_NOT_GRANTED);
	/* length 0 locks nothing (not "to the end of the file") */
	assert_int_equal(lockx(a, 0, 1000, 0), NT_STATUS_OK);
	assert_int_equal(lockx(b, 0, 5000, 10), NT_STATUS_OK);
	assert_int_equal(unlockx(a, 0, 1000, 0), NT_STATUS_OK);
	/* offsets past what off_t holds are accepted */
	assert_int_equal(lockx(a, 0, INT64_MAX - 5, 100), NT_STATUS_OK);
	/* an exact unlock releases the range */
	assert_int_equal(unlockx(a, 0, 0, 100), NT_STATUS_OK);
	assert_int_equal(unlockx(a, 0, 0, 100), NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(lockx(b, 0, 0, 100), NT_STATUS_OK);
	/* closing the handle releases its locks */
	assert_int_equal(nb_close_h(b, 0), NT_STATUS_OK);
	assert_int_equal(lockx(a, 0, 0, 100), NT_STATUS_OK);
	assert_int_equal(nb_close_h(a, 0), NT_STATUS_OK);
}

static void test_find_first(void **state)
{
	struct fixture *fx = *state;
	struct client *c = &fx->a;

	assert_int_equal(mkdir("d", 0777), 0);
	make_file("d/A.PRN", 1);
	make_file("d/b.prn", 1);
	make_file("d/c.txt", 1);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "d/*.prn", NULL, 10, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "d/?.TXT", NULL, 10, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "d/*.doc", NULL, 10, 0, 0), NT_STATUS_NO_SUCH_FILE);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "d/c.txt", NULL, 10, 0, 0), NT_STATUS_OK);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "nodir/*", NULL, 10, 0, 0),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "d/c.txt/*", NULL, 10, 0, 0),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	/* "." and ".." are never matches */
	assert_int_equal(mkdir("e", 0777), 0);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "e/*", NULL, 10, 0, 0), NT_STATUS_NO_SUCH_FILE);
	assert_int_equal(run(c, OP_FIND_FIRST, NO_HANDLE, "*", NULL, 10, 0, 0), NT_STATUS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dispositions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directories, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_statuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handles, setup, teardown),
#ifdef HAVE_LIBURING
		cmocka_unit_test_setup_teardown(test_handles, setup_uring, teardown),
		cmocka_unit_test_setup_teardown(test_dispositions, setup_uring, teardown),
#endif
		cmocka_unit_test_setup_teardown(test_locks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_first, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
