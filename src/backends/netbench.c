/*
 * netbench.c - the netbench ops once, over an adapter's narrow file calls
 * (see netbench.h): handles, argument checks, dispositions, data, locks,
 * FIND_FIRST.  Nothing here knows a protocol.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netbench.h"
#include "status.h"
#include "util.h"

static inline struct nb_client *nbc_of(struct client *c)
{
	return c->priv;
}

/* The file options of the client's backend. */
static inline const struct nb_options *opt_of(struct client *c)
{
	return nbc_of(c)->opt;
}

#define FILE_OPTION(name_, short_, field_, help_, result_)                                  \
	{ .name = name_, .short_name = short_, .type = BOPT_FLAG,                           \
	  .offset = offsetof(struct nb_options, field_), .help = help_, .result_name = result_ }

const struct backend_option nb_file_options[] = {
	FILE_OPTION("sync", 's', sync_open, "open files with O_SYNC", "sync"),
	FILE_OPTION("sync-dir", 'S', sync_dirs, "fsync the directory after every directory change",
		    "sync_dir"),
	FILE_OPTION("fsync", 'F', do_fsync, "fsync after every write", "fsync"),
	FILE_OPTION("one-byte-write-fix", 0, one_byte_write_fix,
		    "as dbench 4.0: a 1-byte write writes a zero byte, skipped where the file holds it, "
		    "an ftruncate where it extends the file", "one_byte_write_fix"),
	FILE_OPTION("stat-check", 0, stat_check,
		    "as dbench 4.0: stat first and skip a mkdir, rmdir, create or rename that "
		    "would fail", "stat_check"),
	FILE_OPTION("check-size", 0, check_size,
		    "after each write, check with fstat that the file is as large as written", NULL),
	FILE_OPTION("fake-io", 0, fake_io, "do not read or write data, only count it", "fake_io"),
	{ .name = NULL },
};

/* ---- handles ---- */

int nb_client_init(struct client *c, struct nb_client *nbc, const struct nb_adapter *ad,
		   const struct nb_options *opt)
{
	uint32_t n = c->prog->nhandles;
	size_t fsize = ad->file_size ? (ad->file_size + 15) & ~(size_t)15 : 0;

	nbc->ad = ad;
	nbc->opt = opt;
	nbc->nhandles = n;
	nbc->h = xcalloc(n ? n : 1, sizeof(*nbc->h));
	nbc->files = fsize ? xcalloc((size_t)n + 1, fsize) : NULL;
	for (uint32_t i = 0; i < n; i++)
		nbc->h[i].file = fsize ? nbc->files + (size_t)i * fsize : NULL;
	nbc->spare = fsize ? nbc->files + (size_t)n * fsize : NULL;
	if (iobuf_grow(&nbc->buf, c->nc.rng, 1 << 16) < 0) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		return -1;
	}
	return 0;
}

void nb_close_all(struct client *c, struct nb_client *nbc)
{
	for (uint32_t i = 0; nbc->h && i < nbc->nhandles; i++) {
		struct nb_handle *h = &nbc->h[i];

		if (!h->open)
			continue;
		h->open = false;
		nbc->ad->close(c, h);
		h->locks.n = 0;
	}
}

void nb_client_free(struct client *c, struct nb_client *nbc)
{
	if (!nbc->ad)
		return;
	nb_close_all(c, nbc);
	for (uint32_t i = 0; nbc->h && i < nbc->nhandles; i++) {
		lock_table_free(&nbc->h[i].locks);
		free(nbc->h[i].path);
	}
	free(nbc->h);
	free(nbc->files);
	iobuf_free(&nbc->buf);
	memset(nbc, 0, sizeof(*nbc));
}

/* The open handle an op names, or NULL. */
static struct nb_handle *handle_of(struct client *c, const struct op *op)
{
	struct nb_handle *h = &nbc_of(c)->h[op->handle];

	return h->open ? h : NULL;
}

static void handle_set_path(struct nb_handle *h, const char *path)
{
	size_t n = strlen(path) + 1;

	if (n > h->path_cap) {
		h->path = xrealloc(h->path, n);
		h->path_cap = n;
	}
	memcpy(h->path, path, n);
}

/*
 * -S: sync the directory holding path, after the operations dbench 4.0
 * syncs it after -- Unlink, Rmdir and Rename (the new name's directory),
 * whether they succeeded or not -- and no others (not after creates,
 * Mkdir, Deltree or a delete-on-close), so that -S loads a server as much
 * as 4.0's does.
 */
static void sync_dir(struct client *c, const char *path)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;

	if (opt_of(c)->sync_dirs && ad->sync_dir)
		ad->sync_dir(c, path);
}

/* Open path into the op's handle.  A trace may open a number that is still
 * open: when the open succeeds, the old file is closed (without its
 * delete-on-close); when it fails, the old file stays open. */
static uint32_t open_handle(struct client *c, const struct op *op, char *path,
			    unsigned flags, bool delete_on_close)
{
	struct nb_client *nbc = nbc_of(c);
	struct nb_handle *h = &nbc->h[op->handle];
	bool created = false;
	uint32_t st;

	if (h->open) {
		struct nb_handle fresh = { .file = nbc->spare };

		st = nbc->ad->open(c, &fresh, path, flags, &created);
		if (st != NT_STATUS_OK)
			return st;
		h->open = false;
		st = nbc->ad->close(c, h);
		h->locks.n = 0;
		if (st == STATUS_FATAL) {
			nbc->ad->close(c, &fresh);
			return STATUS_FATAL;
		}
		nbc->spare = h->file;
		h->file = fresh.file;
		h->is_dir = fresh.is_dir;
	} else {
		h->is_dir = false;
		st = nbc->ad->open(c, h, path, flags, &created);
		if (st != NT_STATUS_OK)
			return st;
	}
	h->open = true;
	h->delete_on_close = delete_on_close;
	h->locks.n = 0;
	handle_set_path(h, path);
	return NT_STATUS_OK;
}

/* ---- opening and closing ---- */

/*
 * NTCreateX path create_options disposition fnum.  With the directory
 * option: OPEN opens a directory, CREATE makes one, OPEN_IF either; other
 * dispositions are invalid.  A file: the disposition's create and truncate
 * flags; a directory found where a file was asked for is opened as one
 * when the disposition only opens and the non-directory option is off.
 */
uint32_t nb_ntcreatex(struct client *c, const struct op *op)
{
	char *path = c->path[0];
	uint64_t opts = (uint64_t)c->num[0];
	int64_t disp = c->num[1];
	bool doc = opts & FILE_DELETE_ON_CLOSE;
	unsigned flags;
	uint32_t st;

	if (disp < DISP_SUPERSEDE || disp > DISP_OVERWRITE_IF)
		return NT_STATUS_INVALID_PARAMETER;
	if (opt_of(c)->stat_check && (disp == DISP_CREATE || disp == DISP_OPEN_IF)) {
		/* --stat-check, as dbench 4.0: what exists is opened, not created */
		struct nb_stat sb;

		st = nbc_of(c)->ad->stat(c, path, &sb);
		if (st == STATUS_FATAL)
			return st;
		if (st == NT_STATUS_OK)
			disp = DISP_OPEN;
	}
	if (opts & FILE_DIRECTORY_FILE) {
		if (disp == DISP_OPEN)
			flags = NB_DIRECTORY;
		else if (disp == DISP_CREATE)
			flags = NB_DIRECTORY | NB_CREATE | NB_EXCL;
		else if (disp == DISP_OPEN_IF)
			flags = NB_DIRECTORY | NB_CREATE;
		else
			return NT_STATUS_INVALID_PARAMETER;
		return open_handle(c, op, path, flags, doc);
	}
	flags = NB_READ | NB_WRITE;
	switch (disp) {
	case DISP_SUPERSEDE:
	case DISP_OVERWRITE_IF:
		flags |= NB_CREATE | NB_TRUNC;
		break;
	case DISP_CREATE:
		flags |= NB_CREATE | NB_EXCL;
		break;
	case DISP_OPEN_IF:
		flags |= NB_CREATE;
		break;
	case DISP_OVERWRITE:
		flags |= NB_TRUNC;
		break;
	default:
		break;
	}
	if ((disp == DISP_OPEN || disp == DISP_OPEN_IF) && !(opts & FILE_NON_DIRECTORY_FILE))
		flags |= NB_ANY;
	st = open_handle(c, op, path, flags, doc);
	if (st == NT_STATUS_FILE_IS_A_DIRECTORY && disp == DISP_CREATE)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	return st;
}

/* OPEN path flags fnum: the plain SMB open (read, write, create, truncate,
 * exclusive bits; ops.def). */
uint32_t nb_smb_open(struct client *c, const struct op *op)
{
	uint64_t fl = (uint64_t)c->num[0];
	unsigned flags = 0;

	if (fl & SMB_OPEN_READ)
		flags |= NB_READ;
	if (fl & SMB_OPEN_WRITE)
		flags |= NB_WRITE;
	if (!(flags & (NB_READ | NB_WRITE)))
		flags |= NB_READ | NB_WRITE;
	if (fl & SMB_OPEN_CREATE)
		flags |= NB_CREATE;
	if (fl & SMB_OPEN_TRUNCATE)
		flags |= NB_TRUNC;
	if (fl & SMB_OPEN_EXCL)
		flags |= NB_CREATE | NB_EXCL;
	return open_handle(c, op, c->path[0], flags, false);
}

/* Close: the adapter's close, then delete-on-close (the path as opened). */
uint32_t nb_close(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_handle *h = handle_of(c, op);
	uint32_t st, del;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	h->open = false;
	st = ad->close(c, h);
	h->locks.n = 0;
	if (st == STATUS_FATAL || !h->delete_on_close)
		return st;
	h->delete_on_close = false;
	del = h->is_dir ? ad->rmdir(c, h->path) : ad->unlink(c, h->path);
	if (del == STATUS_FATAL)
		return del;
	return st;
}

/* ---- data ---- */

static uint32_t check_io(struct client *c, struct nb_handle *h, int64_t offset, int64_t size)
{
	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (h->is_dir)
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	if (!opt_of(c)->fake_io && iobuf_grow(&nbc_of(c)->buf, c->nc.rng, (size_t)size) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	return NT_STATUS_OK;
}

/* ReadX and READ: END_OF_FILE when nothing is there; with WRITEPATTERN on,
 * what came must be what was written there. */
static uint32_t do_read(struct client *c, struct nb_handle *h, int64_t offset, int64_t size)
{
	struct nb_client *nbc = nbc_of(c);
	uint32_t st = check_io(c, h, offset, size);
	size_t got = 0;
	char *dst;

	if (st != NT_STATUS_OK)
		return st;
	if (opt_of(c)->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	dst = iobuf_read_target(&nbc->buf, c->writepattern);
	if (!dst)
		return NT_STATUS_NO_MEMORY;
	st = nbc->ad->read(c, h, dst, (uint64_t)offset, (size_t)size, &got);
	if (st != NT_STATUS_OK)
		return st;
	if (got == 0 && size > 0)
		return NT_STATUS_END_OF_FILE;
	c->bytes = got;
	if (c->writepattern && !iobuf_pattern_ok(&nbc->buf, dst, (uint64_t)offset, got))
		return NT_STATUS_FILE_CORRUPT_ERROR;
	return NT_STATUS_OK;
}

#define NB_GO_ON (UINT32_MAX - 1)	/* not a status: go on and write */

/*
 * --one-byte-write-fix, as dbench 4.0: a 1-byte write (how Windows clients
 * extend a file) writes a zero byte (4.0's buffer is zeros; WRITEPATTERN
 * data stays what it is); where the file already holds that byte the write
 * is skipped (a 1-byte read instead), and where it would extend the file
 * with a zero byte it is a truncate instead.  Returns a status when done
 * (c->bytes set), or NB_GO_ON to write *src.
 */
static uint32_t one_byte_write(struct client *c, struct nb_handle *h, uint64_t offset,
			       const char **src)
{
	static const char zero;
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_stat sb;
	char have;
	size_t got = 0;
	uint32_t st;

	if (!c->writepattern && !c->wptext)
		*src = &zero;
	st = ad->fstat(c, h, &sb);
	if (st == STATUS_FATAL)
		return st;
	if (st != NT_STATUS_OK)
		return NB_GO_ON;
	if (offset < sb.size) {
		st = ad->read(c, h, &have, offset, 1, &got);
		if (st == STATUS_FATAL)
			return st;
		if (st != NT_STATUS_OK || got != 1 || have != **src)
			return NB_GO_ON;
	} else {
		if (**src != 0)
			return NB_GO_ON;
		st = ad->truncate(c, h, offset + 1);
		if (st != NT_STATUS_OK)
			return st;
	}
	c->bytes = 1;
	return NT_STATUS_OK;
}

/* WriteX and WRITE: random data, or the pattern's bytes with WRITEPATTERN;
 * --one-byte-write-fix, -F and -T as dbench(1) says. */
static uint32_t do_write(struct client *c, struct nb_handle *h, int64_t offset, int64_t size)
{
	struct nb_client *nbc = nbc_of(c);
	const struct nb_adapter *ad = nbc->ad;
	uint32_t st = check_io(c, h, offset, size);
	struct nb_stat sb;
	const char *src;
	size_t done = 0;

	if (st != NT_STATUS_OK)
		return st;
	if (opt_of(c)->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	src = iobuf_write_source(&nbc->buf, c, (uint64_t)offset, (size_t)size);
	if (!src)
		return NT_STATUS_NO_MEMORY;
	if (opt_of(c)->one_byte_write_fix && size == 1) {
		st = one_byte_write(c, h, (uint64_t)offset, &src);
		if (st != NB_GO_ON)
			return st;
	}
	st = ad->write(c, h, src, (uint64_t)offset, (size_t)size, &done);
	if (st != NT_STATUS_OK)
		return st;
	c->bytes = done;
	if (opt_of(c)->do_fsync && ad->flush) {
		st = ad->flush(c, h);
		if (st != NT_STATUS_OK)
			return st;
	}
	if (opt_of(c)->check_size) {
		st = ad->fstat(c, h, &sb);
		if (st != NT_STATUS_OK)
			return st;
		if (sb.size < (uint64_t)offset + done)
			return NT_STATUS_FILE_INVALID;
	}
	return NT_STATUS_OK;
}

uint32_t nb_readx(struct client *c, const struct op *op)
{
	return do_read(c, handle_of(c, op), c->num[1], c->num[2]);
}

uint32_t nb_writex(struct client *c, const struct op *op)
{
	return do_write(c, handle_of(c, op), c->num[1], c->num[2]);
}

uint32_t nb_smb_read(struct client *c, const struct op *op)
{
	return do_read(c, handle_of(c, op), c->num[0], c->num[1]);
}

uint32_t nb_smb_write(struct client *c, const struct op *op)
{
	return do_write(c, handle_of(c, op), c->num[0], c->num[1]);
}

uint32_t nb_flush(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return ad->flush ? ad->flush(c, h) : NT_STATUS_OK;
}

/* ---- locks: SMB's semantics per handle.  A range is held by one handle
 * and does not stack (a second lock overlapping a range the handle holds
 * is refused); an unlock names exactly a range the handle holds.  The
 * table decides first, so the adapter's lock call only sees requests that
 * SMB would pass to the server. ---- */

uint32_t nb_lockx(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_handle *h = handle_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];
	uint32_t st;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (c->num[1] < 0 || c->num[2] < 0)
		return NT_STATUS_INVALID_LOCK_RANGE;
	if (lock_table_overlaps(&h->locks, offset, length))
		return NT_STATUS_LOCK_NOT_GRANTED;
	if (ad->lock) {
		st = ad->lock(c, h, offset, length);
		if (st != NT_STATUS_OK)
			return st;
	}
	if (!lock_table_add(&h->locks, offset, length)) {
		if (ad->unlock)
			ad->unlock(c, h, offset, length);
		return NT_STATUS_NO_MEMORY;
	}
	return NT_STATUS_OK;
}

uint32_t nb_unlockx(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_handle *h = handle_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (c->num[1] < 0 || c->num[2] < 0 || !lock_table_remove(&h->locks, offset, length))
		return NT_STATUS_RANGE_NOT_LOCKED;
	return ad->unlock ? ad->unlock(c, h, offset, length) : NT_STATUS_OK;
}

/* ---- metadata ---- */

uint32_t nb_qpathinfo(struct client *c, const struct op *op)
{
	struct nb_stat sb;

	(void)op;
	return nbc_of(c)->ad->stat(c, c->path[0], &sb);
}

uint32_t nb_smb_stat(struct client *c, const struct op *op)
{
	return nb_qpathinfo(c, op);
}

uint32_t nb_qfileinfo(struct client *c, const struct op *op)
{
	struct nb_handle *h = handle_of(c, op);
	struct nb_stat sb;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return nbc_of(c)->ad->fstat(c, h, &sb);
}

uint32_t nb_qfsinfo(struct client *c, const struct op *op)
{
	(void)op;
	return nbc_of(c)->ad->statfs(c);
}

/* SET_FILE_INFORMATION fnum level: 1013 (FileDispositionInformation) marks
 * the handle delete-on-close; the adapter does the rest. */
uint32_t nb_sfileinfo(struct client *c, const struct op *op)
{
	struct nb_handle *h = handle_of(c, op);
	uint32_t st;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	st = nbc_of(c)->ad->set_info(c, h, (int)c->num[1]);
	if (st == NT_STATUS_OK && c->num[1] == 1013)
		h->delete_on_close = true;
	return st;
}

/* ---- directories ---- */

struct find {
	const char *pattern;	/* the last component of FIND_FIRST's path */
	uint64_t matches;	/* names it matched */
};

static void find_one(void *arg, const char *name)
{
	struct find *f = arg;

	if (!is_dot(name) && wildcard_match(f->pattern, name))
		f->matches++;
}

static void count_none(void *arg, const char *name)
{
	(void)arg;
	(void)name;
}

/* The directory of path in buf ("" for the root); its last component. */
static char *split(const char *path, char *buf, const char **last)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		buf[0] = '\0';
		*last = path;
		return buf;
	}
	memcpy(buf, path, (size_t)(slash - path));
	buf[slash - path] = '\0';
	*last = slash + 1;
	return buf;
}

/* FIND_FIRST pattern count status: the names of the pattern's directory
 * that match its last component (SMB wildcards); NO_SUCH_FILE if none,
 * OBJECT_PATH_NOT_FOUND when the directory is missing. */
uint32_t nb_find_first(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	char *path = c->path[0];
	char dir[PATH_MAX];
	struct find f = { 0 };
	uint32_t st;

	(void)op;
	split(path, dir, &f.pattern);
	if ((ad->flags & NB_FIND_BY_STAT) && !strpbrk(f.pattern, "*?<>\"")) {
		struct nb_stat sb;

		st = ad->stat(c, path, &sb);
		return st == NT_STATUS_OBJECT_NAME_NOT_FOUND ? NT_STATUS_NO_SUCH_FILE : st;
	}
	st = ad->list(c, dir, path, find_one, &f);
	if (st == NT_STATUS_OBJECT_NAME_NOT_FOUND || st == NT_STATUS_NOT_A_DIRECTORY)
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	if (st != NT_STATUS_OK)
		return st;
	return f.matches ? NT_STATUS_OK : NT_STATUS_NO_SUCH_FILE;
}

/* READDIR path: list the directory. */
uint32_t nb_smb_readdir(struct client *c, const struct op *op)
{
	(void)op;
	return nbc_of(c)->ad->list(c, c->path[0], c->path[0], count_none, NULL);
}

/* ---- names ---- */

/*
 * --stat-check, as dbench 4.0: stat first and skip a call that would fail
 * or do nothing (Mkdir of what exists, Rmdir of what does not or is not a
 * directory, Rename of what does not exist), with the status the call would
 * have had.
 */
uint32_t nb_rename(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_stat sb;
	uint32_t st;

	if (opt_of(c)->stat_check && (st = ad->stat(c, c->path[0], &sb)) != NT_STATUS_OK)
		return st;
	st = ad->rename(c, c->path[0], c->path[1]);
	(void)op;
	if (st != STATUS_FATAL)
		sync_dir(c, c->path[1]);
	return st;
}

uint32_t nb_unlink(struct client *c, const struct op *op)
{
	uint32_t st = nbc_of(c)->ad->unlink(c, c->path[0]);

	(void)op;
	if (st != STATUS_FATAL)
		sync_dir(c, c->path[0]);
	return st;
}

/* Mkdir: an existing directory is fine (as dbench). */
uint32_t nb_mkdir(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	char *path = c->path[0];
	struct nb_stat sb;
	uint32_t st;

	(void)op;
	if (opt_of(c)->stat_check && ad->stat(c, path, &sb) == NT_STATUS_OK)
		return sb.is_dir ? NT_STATUS_OK : NT_STATUS_OBJECT_NAME_COLLISION;
	st = ad->mkdir(c, path);
	if (st == NT_STATUS_OBJECT_NAME_COLLISION) {
		st = ad->stat(c, path, &sb);
		if (st == NT_STATUS_OK)
			return sb.is_dir ? NT_STATUS_OK : NT_STATUS_OBJECT_NAME_COLLISION;
		return st;
	}
	return st;
}

uint32_t nb_rmdir(struct client *c, const struct op *op)
{
	const struct nb_adapter *ad = nbc_of(c)->ad;
	struct nb_stat sb;
	uint32_t st;

	(void)op;
	if (opt_of(c)->stat_check) {
		st = ad->stat(c, c->path[0], &sb);
		if (st != NT_STATUS_OK)
			return st;
		if (!sb.is_dir)
			return NT_STATUS_NOT_A_DIRECTORY;
	}
	st = ad->rmdir(c, c->path[0]);
	if (st != STATUS_FATAL)
		sync_dir(c, c->path[0]);
	return st;
}

/* Deltree path: never the whole target. */
uint32_t nb_deltree(struct client *c, const struct op *op)
{
	(void)op;
	if (!c->path[0][0])
		return NT_STATUS_ACCESS_DENIED;
	return nbc_of(c)->ad->remove_tree(c, c->path[0]);
}
