/*
 * netbench.h - the netbench ops once, over a narrow file interface.
 *
 * The classic netbench ops (NTCreateX, ReadX, WriteX, Close, LockX,
 * QUERY_PATH_INFORMATION, FIND_FIRST, Rename, ...) and the plain SMB ops
 * (OPEN, READ, WRITE, ...) mean the same on every file-like target.  What
 * they share lives here: the client's handles (the loadfile's fnum -> the
 * adapter's file object), the checks of arguments and handles, the
 * NTCreateX dispositions and create options, delete-on-close, the ReadX and
 * WriteX checks and the WRITEPATTERN data, the SMB byte-range lock policy
 * and FIND_FIRST's wildcard matching.  A backend (fileio, smb, nfs) is an
 * adapter: a struct nb_adapter of small calls, each translating one file
 * operation into its protocol and its errors into NT statuses.  The shape
 * is that of IOR's aiori.h: open, read, write, close, stat, list, mkdir,
 * rmdir, unlink, rename, statfs, flush, lock.
 *
 * A backend using the layer:
 *  - has BACKEND_FILES in its flags and a struct nb_options first in its
 *    option block (the file options, which the core parses for it);
 *  - puts a struct nb_client first in its per-client state, and makes
 *    c->priv point to that state (the layer finds itself at c->priv);
 *  - calls nb_client_init() in its setup (with its file options) and
 *    nb_client_free() in its teardown;
 *  - lists NB_OPS in its table's .op[] (and may add ops of its own).
 *
 * Every adapter call returns an NT status (status.h), or STATUS_FATAL with
 * c->error set when the client cannot go on (the connection is lost).  Its
 * statuses follow these rules, which the layer relies on:
 *  - a missing name is NT_STATUS_OBJECT_NAME_NOT_FOUND; a missing directory
 *    on the way (or a file where a directory should be) is
 *    NT_STATUS_OBJECT_PATH_NOT_FOUND;
 *  - a path is relative to the target's root ("" is the root), '/'
 *    separated, with no "." or ".." components (the loadfile compiler
 *    made sure); an adapter emulating a case-insensitive server may
 *    rewrite a name's case in place (paths are not const).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_NETBENCH_H
#define DBENCH_NETBENCH_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "backends/common.h"

/* Flags of nb_adapter.open. */
#define NB_READ 0x01		/* open for reading */
#define NB_WRITE 0x02		/* open for writing (both: read and write) */
#define NB_CREATE 0x04		/* create the file if it is missing */
#define NB_EXCL 0x08		/* with NB_CREATE: OBJECT_NAME_COLLISION if it exists */
#define NB_TRUNC 0x10		/* cut an existing file to size 0 */
#define NB_DIRECTORY 0x20	/* a directory: NB_CREATE makes it (mkdir); an
				   existing file is NT_STATUS_NOT_A_DIRECTORY */
#define NB_ANY 0x40		/* without NB_DIRECTORY: a directory found at the
				   path may be opened as one (else it is
				   NT_STATUS_FILE_IS_A_DIRECTORY) */

/* The file options the file backends share (BACKEND_FILES): the first
 * member of such a backend's option block.  The core parses them from
 * nb_file_options and lists them once in --help ("File options"). */
struct nb_options {
	int sync_open;		/* -s: open files for synchronous writes (O_SYNC) */
	int sync_dirs;		/* -S: make directory changes stable (fsync the directory) */
	int do_fsync;		/* -F: flush after every write */
	int one_byte_write_fix;	/* --one-byte-write-fix: as dbench 4.0 */
	int stat_check;		/* --stat-check: stat first, skip pointless calls (4.0) */
	int check_size;		/* --check-size: fstat after writes, check the size */
	int fake_io;		/* --fake-io: count data, move none */
};

/* Their table (offsets into struct nb_options), ended by a NULL name. */
extern const struct backend_option nb_file_options[];

/* The open(2) flags of NB_READ, NB_WRITE, NB_CREATE, NB_EXCL, NB_TRUNC, for
 * an adapter whose protocol takes them (fileio, libsmbclient). */
static inline int nb_open_flags(unsigned flags)
{
	int o = (flags & NB_WRITE) ? ((flags & NB_READ) ? O_RDWR : O_WRONLY) : O_RDONLY;

	if (flags & NB_CREATE)
		o |= O_CREAT | ((flags & NB_EXCL) ? O_EXCL : 0);
	if (flags & NB_TRUNC)
		o |= O_TRUNC;
	return o;
}

/* One of the client's handles: the loadfile's file number. */
struct nb_handle {
	bool open;		/* the number names an open file or directory */
	bool is_dir;		/* it is a directory (set by the adapter's open) */
	bool delete_on_close;	/* remove the path at Close */
	struct lock_table locks; /* byte ranges this handle holds */
	char *path;		/* the path it was opened with (set by the layer
				   once the adapter's open succeeded) */
	size_t path_cap;	/* bytes allocated for path */
	void *file;		/* the adapter's file object: nb_adapter.file_size
				   bytes, zeroed at the start and not zeroed
				   again between opens (the adapter's open
				   sets what it uses) */
};

/* What the adapter says about a file (stat and fstat). */
struct nb_stat {
	bool is_dir;		/* a directory */
	uint64_t size;		/* bytes, for files */
};

/* nb_adapter.list calls this for every name in the directory ("." and
 * ".." included or not, as the protocol gives them). */
typedef void (*nb_list_fn)(void *arg, const char *name);

/* nb_adapter.flags */
#define NB_FIND_BY_STAT 0x1	/* FIND_FIRST of one name (no wildcard) asks the
				   adapter's stat instead of listing the
				   directory, as a server answers it */

/*
 * The narrow file interface: what a backend provides for the layer.
 * Every call is required unless its comment says it may be NULL.
 */
struct nb_adapter {
	size_t file_size;	/* bytes of the adapter's file object per handle */
	unsigned flags;		/* NB_FIND_BY_STAT */

	/* Open (or with NB_CREATE create) path into h->file, and set
	 * h->is_dir.  flags: NB_* above.  Statuses: OBJECT_NAME_COLLISION
	 * (NB_EXCL and the name exists), FILE_IS_A_DIRECTORY (a directory
	 * without NB_DIRECTORY or NB_ANY, or with NB_TRUNC),
	 * NOT_A_DIRECTORY (NB_DIRECTORY and a file), the not-found pair.
	 * *created (may be NULL) tells whether the call made the file. */
	uint32_t (*open)(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			 bool *created);
	/* Close h->file.  Locks the handle holds are dropped with it: h->locks
	 * still lists them during the call, the layer empties it after.  Also
	 * called when a trace reopens a number still open (its status then
	 * ignored unless STATUS_FATAL) and at teardown for handles left open. */
	uint32_t (*close)(struct client *c, struct nb_handle *h);
	/* Read up to size bytes at offset into buf; *got is what came (0 at
	 * the end of the file).  The layer has checked the handle is a file. */
	uint32_t (*read)(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			 size_t size, size_t *got);
	/* Write size bytes at offset from buf; *done is what was written. */
	uint32_t (*write)(struct client *c, struct nb_handle *h, const char *buf, uint64_t offset,
			  size_t size, size_t *done);
	/* Cut or extend the file to size bytes (--one-byte-write-fix). */
	uint32_t (*truncate)(struct client *c, struct nb_handle *h, uint64_t size);
	/* Make written data stable (Flush, -F after each write); NULL: the
	 * protocol has no such call and Flush sends nothing. */
	uint32_t (*flush)(struct client *c, struct nb_handle *h);
	/* Attributes of an open handle (QUERY_FILE_INFORMATION, -T). */
	uint32_t (*fstat)(struct client *c, struct nb_handle *h, struct nb_stat *st);
	/* Attributes of a path (QUERY_PATH_INFORMATION, STAT). */
	uint32_t (*stat)(struct client *c, char *path, struct nb_stat *st);
	/* SET_FILE_INFORMATION at an information level: 1004
	 * (FileBasicInformation) and 1 (SMB_INFO_STANDARD) set the times;
	 * other levels may do nothing (the layer handles 1013,
	 * delete-on-close, after this call succeeds). */
	uint32_t (*set_info)(struct client *c, struct nb_handle *h, int level);
	/* Take (lock) or release (unlock) an exclusive byte range for the
	 * handle; the layer has checked the range against the handle's own
	 * table (SMB locks neither stack nor split).  Lock: LOCK_NOT_GRANTED
	 * when another holder has it.  NULL: the protocol has no lock call;
	 * the layer's table is the only one. */
	uint32_t (*lock)(struct client *c, struct nb_handle *h, uint64_t offset, uint64_t length);
	uint32_t (*unlock)(struct client *c, struct nb_handle *h, uint64_t offset, uint64_t length);
	/* Call fn for every name in directory dir.  full is the path the op
	 * named (for FIND_FIRST the pattern's path; the adapter may use it
	 * as its lookup of that name).  Statuses: the not-found pair for a
	 * missing directory, NOT_A_DIRECTORY for a file. */
	uint32_t (*list)(struct client *c, char *dir, char *full, nb_list_fn fn,
			 void *arg);
	/* Make a directory; OBJECT_NAME_COLLISION if the name exists. */
	uint32_t (*mkdir)(struct client *c, char *path);
	/* Remove an empty directory: DIRECTORY_NOT_EMPTY, NOT_A_DIRECTORY. */
	uint32_t (*rmdir)(struct client *c, char *path);
	/* Remove a file; FILE_IS_A_DIRECTORY for a directory (NT's unlink
	 * never removes one). */
	uint32_t (*unlink)(struct client *c, char *path);
	/* Rename with NT's meaning: never replaces (OBJECT_NAME_COLLISION
	 * when to exists); OBJECT_PATH_NOT_FOUND when to's directory is
	 * missing. */
	uint32_t (*rename)(struct client *c, char *from, char *to);
	/* Remove a tree (Deltree) without following symlinks; OK if it never
	 * existed.  Never called with the root (""). */
	uint32_t (*remove_tree)(struct client *c, char *path);
	/* Ask for the file system's sizes (QUERY_FS_INFORMATION). */
	uint32_t (*statfs)(struct client *c);
	/* After a path op changed a directory (creating or removing a name):
	 * -S's fsync of the directory.  May be NULL. */
	void (*sync_dir)(struct client *c, const char *path);
};

/* The layer's per-client state: first in the backend's own state. */
struct nb_client {
	const struct nb_adapter *ad;	/* the backend's calls */
	const struct nb_options *opt;	/* the file options (in the backend's block) */
	struct nb_handle *h;		/* program.nhandles handles */
	uint32_t nhandles;
	char *files;			/* the adapter's file objects, one block */
	void *spare;			/* a file object for reopening an open number */
	struct iobuf buf;		/* data written and read */
};

/* Set up the layer for client c (whose c->priv points to nbc) with the
 * adapter's calls and the file options of the backend's block: 0, or -1
 * with c->error set. */
int nb_client_init(struct client *c, struct nb_client *nbc, const struct nb_adapter *ad,
		   const struct nb_options *opt);
/* Close every open handle (the adapter's close, without delete-on-close)
 * and free the layer's state; nothing if init never ran. */
void nb_client_free(struct client *c, struct nb_client *nbc);
/* Close every open handle as nb_client_free does, keeping the state (a
 * remove of the client's tree after the run: open files would be in the
 * way). */
void nb_close_all(struct client *c, struct nb_client *nbc);

/* The op handlers, for a backend table's .op[]. */
uint32_t nb_ntcreatex(struct client *c, const struct op *op);
uint32_t nb_close(struct client *c, const struct op *op);
uint32_t nb_rename(struct client *c, const struct op *op);
uint32_t nb_unlink(struct client *c, const struct op *op);
uint32_t nb_deltree(struct client *c, const struct op *op);
uint32_t nb_mkdir(struct client *c, const struct op *op);
uint32_t nb_rmdir(struct client *c, const struct op *op);
uint32_t nb_qpathinfo(struct client *c, const struct op *op);
uint32_t nb_qfileinfo(struct client *c, const struct op *op);
uint32_t nb_qfsinfo(struct client *c, const struct op *op);
uint32_t nb_sfileinfo(struct client *c, const struct op *op);
uint32_t nb_find_first(struct client *c, const struct op *op);
uint32_t nb_writex(struct client *c, const struct op *op);
uint32_t nb_readx(struct client *c, const struct op *op);
uint32_t nb_lockx(struct client *c, const struct op *op);
uint32_t nb_unlockx(struct client *c, const struct op *op);
uint32_t nb_flush(struct client *c, const struct op *op);
uint32_t nb_smb_open(struct client *c, const struct op *op);
uint32_t nb_smb_read(struct client *c, const struct op *op);
uint32_t nb_smb_write(struct client *c, const struct op *op);
uint32_t nb_smb_readdir(struct client *c, const struct op *op);
uint32_t nb_smb_stat(struct client *c, const struct op *op);

/* Every netbench and plain SMB op, for a backend table's .op[]. */
#define NB_OPS \
	[OP_NTCREATEX] = nb_ntcreatex, \
	[OP_CLOSE] = nb_close, \
	[OP_RENAME] = nb_rename, \
	[OP_UNLINK] = nb_unlink, \
	[OP_DELTREE] = nb_deltree, \
	[OP_MKDIR] = nb_mkdir, \
	[OP_RMDIR] = nb_rmdir, \
	[OP_QPATHINFO] = nb_qpathinfo, \
	[OP_QFILEINFO] = nb_qfileinfo, \
	[OP_QFSINFO] = nb_qfsinfo, \
	[OP_SFILEINFO] = nb_sfileinfo, \
	[OP_FIND_FIRST] = nb_find_first, \
	[OP_WRITEX] = nb_writex, \
	[OP_READX] = nb_readx, \
	[OP_LOCKX] = nb_lockx, \
	[OP_UNLOCKX] = nb_unlockx, \
	[OP_FLUSH] = nb_flush, \
	[OP_SMB_OPEN] = nb_smb_open, \
	[OP_SMB_CLOSE] = nb_close, \
	[OP_SMB_READ] = nb_smb_read, \
	[OP_SMB_WRITE] = nb_smb_write, \
	[OP_SMB_READDIR] = nb_smb_readdir, \
	[OP_SMB_STAT] = nb_smb_stat

#endif
