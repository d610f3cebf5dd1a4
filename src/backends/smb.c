/*
 * smb.c - the SMB backend: every netbench op against a real SMB2/3 server
 * through libsmbclient, the way a room full of Windows clients loads it.
 * This file is its adapter of the netbench layer (netbench.h); the session
 * (options, URLs, contexts, connecting) is smb_session.c.
 *
 * Each client has its own libsmbclient context and so its own connection,
 * made in setup before the release so that connecting is not measured.
 * The parent checks the share and the credentials once, with one
 * connection, so that a wrong password or share is one line and exit 2.
 * Paths are relative to //SERVER/SHARE[/DIR]; the server resolves names
 * case-insensitively itself, so fileio's name emulation is not needed.
 *
 * libsmbclient is POSIX-shaped: it reports errno, not the NT status, and
 * its unlink and rename do not have NT's meaning.  The backend restores
 * what it can (doc/notes/smb-nfs-probes.md has the measured facts):
 *  - OBJECT_NAME_NOT_FOUND vs OBJECT_PATH_NOT_FOUND (both ENOENT): the
 *    parent directory decides; directories this client has seen in its
 *    own tree are remembered, other parents cost one query.
 *  - Where one errno stands for several NT statuses (EINVAL for every
 *    status libsmbclient has no errno for), a loadfile expecting one of
 *    them gets it: they compare equal (smbc_errno_of below, dbench(1)).
 *  - Unlink of a directory fails (libsmbclient would remove an empty one),
 *    Rename never replaces (libsmbclient would): a probe first.
 *  - LockX/UnlockX and Flush have no libsmbclient call: the layer's lock
 *    table is kept per handle without wire traffic, Flush sends nothing.
 * The first error that says the connection is gone (reset, refused on
 * reconnect, timed out) stops the client: STATUS_FATAL.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "client.h"
#include "smb.h"
#include "status.h"
#include "util.h"

#define MAX_TREE_DEPTH 512

static const char *url_of(struct smb *s, const char *path)
{
	return url_in(s->opt, s->url, path);
}

/* ---- known directories ---- */

/* Is path (len bytes) in one of this client's own trees? */
static bool is_own(const struct smb *s, const char *path, size_t len)
{
	for (uint32_t r = 0; r < s->nown; r++) {
		size_t n = s->own_len[r];

		if (n <= len && memcmp(path, s->own_root[r], n) == 0 && (n == len || path[n] == '/'))
			return true;
	}
	return false;
}

static bool dir_known(const struct smb *s, const char *path, size_t len)
{
	for (int i = 0; i < KNOWN_DIRS; i++)
		if (s->known_len[i] == len && s->known[i] && memcmp(s->known[i], path, len) == 0)
			return true;
	return false;
}

/* Remember that path (len bytes) is a directory, if it is in the client's
 * own trees (no other client changes those). */
static void dir_learn(struct smb *s, const char *path, size_t len)
{
	uint32_t i;

	if (len == 0 || len >= PATH_MAX || !is_own(s, path, len) || dir_known(s, path, len))
		return;
	i = s->known_next++ % KNOWN_DIRS;
	if (!s->known[i])
		s->known[i] = xmalloc(PATH_MAX);
	memcpy(s->known[i], path, len);
	s->known_len[i] = (uint16_t)len;
}

/* A path op succeeded: its parent is a directory. */
static void learn_parent(struct smb *s, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash)
		dir_learn(s, path, (size_t)(slash - path));
}

/* path may have gone (Rmdir, Deltree, Rename): forget it and what is
 * under it, in any case (the server's names are case-insensitive). */
static void dirs_forget(struct smb *s, const char *path)
{
	size_t len = strlen(path);

	for (int i = 0; i < KNOWN_DIRS; i++)
		if (s->known[i] && s->known_len[i] >= len && strncasecmp(s->known[i], path, len) == 0 &&
		    (s->known_len[i] == len || s->known[i][len] == '/' || len == 0))
			s->known_len[i] = 0;
}

/* ---- statuses ---- */

/* The NT statuses libsmbclient 4.17 reports as each errno (Samba's
 * map_errno_from_nt_status): every status not listed arrives as EINVAL.
 * A loadfile expecting a status of the same errno as the one seen gets
 * it: over libsmbclient they cannot be told apart, so they compare equal.
 * OBJECT_NAME_NOT_FOUND and OBJECT_PATH_NOT_FOUND are told apart by the
 * parent directory instead. */
static const struct {
	uint32_t status;
	int err;
} smbc_errno_of[] = {
	{ NT_STATUS_INVALID_HANDLE, EBADF },
	{ NT_STATUS_ACCESS_DENIED, EACCES },
	{ NT_STATUS_LOGON_FAILURE, EACCES },
	{ NT_STATUS_OBJECT_NAME_NOT_FOUND, ENOENT },
	{ NT_STATUS_OBJECT_PATH_NOT_FOUND, ENOENT },
	{ NT_STATUS_NO_SUCH_FILE, ENOENT },
	{ NT_STATUS_BAD_NETWORK_NAME, ENOENT },
	{ NT_STATUS_SHARING_VIOLATION, EBUSY },
	{ NT_STATUS_OBJECT_PATH_INVALID, ENOTDIR },
	{ NT_STATUS_NOT_A_DIRECTORY, ENOTDIR },
	{ NT_STATUS_OBJECT_NAME_COLLISION, EEXIST },
	{ NT_STATUS_NOT_IMPLEMENTED, ENOSYS },
	{ NT_STATUS_NOT_SUPPORTED, ENOSYS },
	{ NT_STATUS_QUOTA_EXCEEDED, EDQUOT },
	{ NT_STATUS_END_OF_FILE, ENODATA },
	{ NT_STATUS_NO_MEMORY, ENOMEM },
	{ NT_STATUS_DISK_FULL, ENOSPC },
	{ NT_STATUS_FILE_IS_A_DIRECTORY, EISDIR },
	{ NT_STATUS_DIRECTORY_NOT_EMPTY, ENOTEMPTY },
	{ NT_STATUS_TOO_MANY_LINKS, EMLINK },
	{ NT_STATUS_TOO_MANY_OPENED_FILES, EMFILE },
	{ NT_STATUS_MEDIA_WRITE_PROTECTED, EROFS },
	{ NT_STATUS_NAME_TOO_LONG, ENAMETOOLONG },
	{ NT_STATUS_NOT_SAME_DEVICE, EXDEV },
	{ NT_STATUS_IO_TIMEOUT, ETIMEDOUT },
	{ NT_STATUS_CONNECTION_REFUSED, ECONNREFUSED },
	{ NT_STATUS_CONNECTION_DISCONNECTED, ECONNABORTED },
	{ NT_STATUS_CONNECTION_RESET, ENETRESET },
};

static int errno_of_status(uint32_t status)
{
	for (size_t i = 0; i < ARRAY_SIZE(smbc_errno_of); i++)
		if (smbc_errno_of[i].status == status)
			return smbc_errno_of[i].err;
	return EINVAL;
}

/* Errors that mean the connection is gone (or the server stopped
 * answering): the client cannot go on. */
static bool conn_lost(int err)
{
	switch (err) {
	case ECONNABORTED:
	case ECONNRESET:
	case ECONNREFUSED:
	case ETIMEDOUT:
	case EPIPE:
	case ENOTCONN:
	case ENETRESET:
	case ESHUTDOWN:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
		return true;
	default:
		return false;
	}
}

static uint32_t lost(struct client *c, const struct op *op, int err)
{
	struct smb *s = c->priv;

	s->lost = true;
	if (!op)	/* at teardown, before any op ran */
		snprintf(c->error, sizeof(c->error), "lost the connection to %s: %s", smb_opt(c)->display,
			 strerror(err));
	else if (err == ETIMEDOUT)
		snprintf(c->error, sizeof(c->error), "%s did not answer within %d s (%s, loadfile line %u)",
			 smb_opt(c)->display, smb_opt(c)->timeout_ms / 1000, op_info[op->id].name, op->line);
	else
		snprintf(c->error, sizeof(c->error), "lost the connection to %s (%s, loadfile line %u): %s",
			 smb_opt(c)->display, op_info[op->id].name, op->line, strerror(err));
	return STATUS_FATAL;
}

/* Does the name hold a character NT does not allow in names? */
static bool name_invalid(const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || strchr("\"*:<>?|", *p))
			return true;
	return false;
}

/* A missing name: OBJECT_NAME_NOT_FOUND, or OBJECT_PATH_NOT_FOUND when a
 * directory on the way is missing or is a file. */
static uint32_t not_found(struct client *c, const struct op *op, const char *path)
{
	struct smb *s = c->priv;
	const char *slash = strrchr(path, '/');
	char parent[PATH_MAX];
	struct stat st;
	size_t len;

	if (!slash)
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;	/* the base: checked at setup */
	len = (size_t)(slash - path);
	if (dir_known(s, path, len))
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	memcpy(parent, path, len);
	parent[len] = '\0';
	if (smbc_getFunctionStat(s->ctx)(s->ctx, url_in(smb_opt(c), s->url2, parent), &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;
		dir_learn(s, parent, len);
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (conn_lost(errno))
		return lost(c, op, errno);
	return NT_STATUS_OBJECT_PATH_NOT_FOUND;
}

/* If the loadfile expects a status libsmbclient reports as the same errno
 * as the one seen, that status it is. */
static uint32_t compare_equal(const struct op *op, int err, uint32_t status)
{
	uint32_t want = op ? op->expect.code : 0;

	if (!op || op->expect.kind != EXPECT_EXACT || want == status || status_is_success(DOMAIN_NT, want))
		return status;
	if (want == NT_STATUS_OBJECT_NAME_NOT_FOUND || want == NT_STATUS_OBJECT_PATH_NOT_FOUND)
		return status;
	return errno_of_status(want) == err ? want : status;
}

/* The NT status of a failed libsmbclient call; path is the path the call
 * named, NULL for a call on a handle. */
static uint32_t smb_error(struct client *c, const struct op *op, int err, const char *path)
{
	uint32_t status;

	if (conn_lost(err))
		return lost(c, op, err);
	switch (err) {
	case ENOENT:
		/* exact when the parent is missing; a missing name in a
		 * directory compares equal to NO_SUCH_FILE and the like */
		status = path ? not_found(c, op, path) : NT_STATUS_OBJECT_NAME_NOT_FOUND;
		if (status != NT_STATUS_OBJECT_NAME_NOT_FOUND)
			return status;
		break;
	case ENOSYS:
		status = NT_STATUS_NOT_SUPPORTED;
		break;
	case EDQUOT:
		status = NT_STATUS_QUOTA_EXCEEDED;
		break;
	case ENODATA:
		status = NT_STATUS_END_OF_FILE;
		break;
	case EINVAL:
		status = path && name_invalid(path) ? NT_STATUS_OBJECT_NAME_INVALID :
						      NT_STATUS_INVALID_PARAMETER;
		break;
	default:
		status = nt_from_errno(err);
		break;
	}
	return compare_equal(op, err, status);
}

/* A handle call that started at t0 failed in a way that does not say why
 * (fstat gives EINVAL when the server is gone, fstatvfs nothing at all):
 * a call that waited the whole timeout timed out; otherwise ask the
 * server something to find out. */
static uint32_t handle_failed(struct client *c, const struct op *op, int err, uint64_t t0)
{
	struct smb *s = c->priv;
	struct stat st;

	if (now_ns() - t0 >= (uint64_t)smb_opt(c)->timeout_ms * NSEC_PER_MSEC)
		return lost(c, op, ETIMEDOUT);
	if (!conn_lost(err) &&
	    smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, ""), &st) < 0 && conn_lost(errno))
		err = errno;
	return smb_error(c, op, err, NULL);
}

static const struct nb_adapter smb_adapter;
static void smb_teardown(struct client *c);

static int smb_setup(struct client *c)
{
	const struct program *prog = c->prog;
	struct smb *s = xcalloc(1, sizeof(*s));
	int fds[MAX_SOCKETS], nbefore;
	ino_t before[MAX_SOCKETS];
	char path[PATH_MAX];

	c->priv = s;
	s->opt = smb_opt(c);
	s->sock_fd = -1;
	s->url_size = s->opt->base_len + 2 + 3 * PATH_MAX;
	s->url = xmalloc(s->url_size);
	s->url2 = xmalloc(s->url_size);
	nbefore = open_sockets(fds, before, MAX_SOCKETS);
	s->ctx = smb_new_context(s->opt, c->error, sizeof(c->error));
	if (!s->ctx || smb_connect_share(s->opt, s->ctx, NULL, c->error, sizeof(c->error)) < 0)
		goto fail;
	if (c->cleanup_only)
		return 0;
	find_connection(s, before, nbefore);
	/* a handle for QUERY_FS_INFORMATION, which libsmbclient only has on
	 * an open file (smbc_statvfs would list the directory every time) */
	s->fs_dir = smbc_getFunctionOpendir(s->ctx)(s->ctx, s->opt->base_url);
	if (!s->fs_dir) {
		snprintf(c->error, sizeof(c->error), "cannot open %s: %s", smb_opt(c)->display, strerror(errno));
		goto fail;
	}
	for (uint32_t r = 0; r < prog->nclient_roots && r < MAX_ROOTS; r++) {
		s->own_len[r] = client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		s->own_root[r] = xstrdup(path);
		s->nown++;
	}
	if (nb_client_init(c, &s->nb, &smb_adapter, &smb_opt(c)->files) < 0)
		goto fail;
	return 0;
fail:
	smb_teardown(c);
	return -1;
}

static void smb_teardown(struct client *c)
{
	struct smb *s = c->priv;

	if (!s)
		return;
	nb_client_free(c, &s->nb);
	count_wire(c);
	/* With the connection gone, closing would wait on it again: the
	 * context is left to the process's exit. */
	if (s->ctx && !s->lost) {
		if (s->fs_dir)
			smbc_getFunctionClosedir(s->ctx)(s->ctx, s->fs_dir);
		smbc_free_context(s->ctx, 1);
	}
	for (uint32_t r = 0; r < s->nown; r++)
		free(s->own_root[r]);
	for (int i = 0; i < KNOWN_DIRS; i++)
		free(s->known[i]);
	free(s->url);
	free(s->url2);
	free(s);
	c->priv = NULL;
}

/* ---- removing trees ---- */

/* Remove s->tree (len bytes) and everything under it: 0 or -errno. */
static int tree_remove(struct smb *s, size_t len, int depth)
{
	SMBCCTX *ctx = s->ctx;
	struct smbc_dirent *d;
	SMBCFILE *dir;
	int rc = 0;

	if (depth > MAX_TREE_DEPTH)
		return -ELOOP;
	dir = smbc_getFunctionOpendir(ctx)(ctx, url_of(s, s->tree));
	if (!dir) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR)
			return -errno;
		if (smbc_getFunctionUnlink(ctx)(ctx, url_of(s, s->tree)) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	while ((d = smbc_getFunctionReaddir(ctx)(ctx, dir))) {
		size_t n = strlen(d->name);
		int r = 0;

		if (is_dot(d->name) || (d->smbc_type != SMBC_DIR && d->smbc_type != SMBC_FILE))
			continue;
		if (len + 1 + n >= sizeof(s->tree)) {
			rc = rc ? rc : -ENAMETOOLONG;
			continue;
		}
		s->tree[len] = '/';
		memcpy(s->tree + len + 1, d->name, n + 1);
		if (d->smbc_type == SMBC_DIR)
			r = tree_remove(s, len + 1 + n, depth + 1);
		else if (smbc_getFunctionUnlink(ctx)(ctx, url_of(s, s->tree)) < 0 && errno != ENOENT)
			r = -errno;
		s->tree[len] = '\0';
		if (r < 0 && !rc)
			rc = r;
		if (r < 0 && conn_lost(-r))
			break;
	}
	smbc_getFunctionClosedir(ctx)(ctx, dir);
	if (rc == 0 && smbc_getFunctionRmdir(ctx)(ctx, url_of(s, s->tree)) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

/* Remove a tree: 0 or -errno. */
static int remove_path(struct smb *s, const char *path)
{
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(s->tree))
		return -EINVAL;	/* never the base directory itself */
	memcpy(s->tree, path, len + 1);
	dirs_forget(s, path);
	return tree_remove(s, len, 0);
}

static int smb_remove_tree(struct client *c, const char *path)
{
	struct smb *s = c->priv;
	int rc;

	if (s->lost) {
		if (!c->error[0])	/* keep the first error: it says why */
			snprintf(c->error, sizeof(c->error), "cannot remove %s/%s: the connection is lost",
				 smb_opt(c)->display, path);
		return -1;
	}
	/* files the run left open would be sharing violations */
	nb_close_all(c, &s->nb);
	rc = remove_path(s, path);
	if (rc < 0) {
		if (conn_lost(-rc))
			s->lost = true;
		snprintf(c->error, sizeof(c->error), "cannot remove %s/%s: %s", smb_opt(c)->display, path,
			 strerror(-rc));
		return -1;
	}
	return 0;
}

static int smb_exists(struct client *c, const char *path)
{
	struct smb *s = c->priv;
	struct stat st;

	if (smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, path), &st) == 0)
		return 1;
	if (errno == ENOENT || errno == ENOTDIR)
		return 0;
	snprintf(c->error, sizeof(c->error), "cannot look at %s/%s: %s", smb_opt(c)->display, path,
		 strerror(errno));
	return -1;
}

/* ---- the adapter: libsmbclient's calls for the netbench layer ---- */

/* The file object of a handle: the server handle; NULL for a directory
 * (libsmbclient keeps no server handle for one: it is checked at open). */
struct smb_file {
	SMBCFILE *file;
};

static inline SMBCFILE *file_of(const struct nb_handle *h)
{
	return ((const struct smb_file *)h->file)->file;
}

static uint32_t stat_path(struct client *c, const char *path, struct nb_stat *sb)
{
	struct smb *s = c->priv;
	struct stat st;

	if (smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, path), &st) < 0)
		return smb_error(c, c->op, errno, path);
	learn_parent(s, path);
	sb->is_dir = S_ISDIR(st.st_mode);
	sb->size = (uint64_t)st.st_size;
	return NT_STATUS_OK;
}

/* A directory: created with mkdir (NB_CREATE) or checked with a query. */
static uint32_t open_dir(struct client *c, struct nb_handle *h, const char *path, unsigned flags,
			 bool *created)
{
	struct smb *s = c->priv;
	struct nb_stat sb;
	uint32_t st;

	if (flags & NB_CREATE) {
		if (smbc_getFunctionMkdir(s->ctx)(s->ctx, url_of(s, path), 0755) == 0) {
			*created = true;
			learn_parent(s, path);
			goto opened;
		}
		if (errno != EEXIST)
			return smb_error(c, c->op, errno, path);
		if (flags & NB_EXCL)
			return NT_STATUS_OBJECT_NAME_COLLISION;
	}
	st = stat_path(c, path, &sb);
	if (st != NT_STATUS_OK)
		return st;
	if (!sb.is_dir)
		return NT_STATUS_NOT_A_DIRECTORY;
opened:
	((struct smb_file *)h->file)->file = NULL;
	h->is_dir = true;
	dir_learn(s, path, strlen(path));
	return NT_STATUS_OK;
}

static uint32_t smb_open(struct client *c, struct nb_handle *h, char *path, unsigned flags,
			 bool *created)
{
	struct smb *s = c->priv;
	SMBCFILE *f;

	if (flags & NB_DIRECTORY)
		return open_dir(c, h, path, flags, created);
	f = smbc_getFunctionOpen(s->ctx)(s->ctx, url_of(s, path), nb_open_flags(flags), 0644);
	if (!f) {
		int err = errno;

		if (err != EISDIR)
			return smb_error(c, c->op, err, path);
		if (!(flags & NB_ANY) || (flags & NB_TRUNC))
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		return open_dir(c, h, path, 0, created);
	}
	((struct smb_file *)h->file)->file = f;
	h->is_dir = false;
	learn_parent(s, path);
	return NT_STATUS_OK;
}

/* With the connection lost, a close would wait on it again: the handle is
 * left to the process's exit. */
static uint32_t smb_close(struct client *c, struct nb_handle *h)
{
	struct smb *s = c->priv;
	SMBCFILE *f = file_of(h);
	int rc;

	((struct smb_file *)h->file)->file = NULL;
	if (!f || s->lost)
		return NT_STATUS_OK;
	rc = smbc_getFunctionClose(s->ctx)(s->ctx, f);
	return rc < 0 ? smb_error(c, c->op, errno, NULL) : NT_STATUS_OK;
}

/* Read (into rbuf) or write (from wbuf): a SEEK_SET only sets
 * libsmbclient's offset (no wire traffic), then one call. */
static uint32_t smb_io(struct client *c, struct nb_handle *h, char *rbuf, const char *wbuf,
		       uint64_t offset, size_t size, size_t *moved)
{
	struct smb *s = c->priv;
	ssize_t n;

	smbc_getFunctionLseek(s->ctx)(s->ctx, file_of(h), (off_t)offset, SEEK_SET);
	if (rbuf)
		n = smbc_getFunctionRead(s->ctx)(s->ctx, file_of(h), rbuf, size);
	else
		n = smbc_getFunctionWrite(s->ctx)(s->ctx, file_of(h), wbuf, size);
	if (n < 0)
		return smb_error(c, c->op, errno, NULL);
	*moved = (size_t)n;
	return NT_STATUS_OK;
}

static uint32_t smb_read(struct client *c, struct nb_handle *h, char *buf, uint64_t offset,
			 size_t size, size_t *got)
{
	return smb_io(c, h, buf, NULL, offset, size, got);
}

static uint32_t smb_write(struct client *c, struct nb_handle *h, const char *buf, uint64_t offset,
			  size_t size, size_t *done)
{
	return smb_io(c, h, NULL, buf, offset, size, done);
}

static uint32_t smb_truncate(struct client *c, struct nb_handle *h, uint64_t size)
{
	struct smb *s = c->priv;

	if (smbc_getFunctionFtruncate(s->ctx)(s->ctx, file_of(h), (off_t)size) < 0)
		return smb_error(c, c->op, errno, NULL);
	return NT_STATUS_OK;
}

static uint32_t smb_fstat(struct client *c, struct nb_handle *h, struct nb_stat *sb)
{
	struct smb *s = c->priv;
	uint64_t t0 = now_ns();
	struct stat st;

	if (h->is_dir)
		return stat_path(c, h->path, sb);
	if (smbc_getFunctionFstat(s->ctx)(s->ctx, file_of(h), &st) < 0)
		return handle_failed(c, c->op, errno, t0);
	sb->is_dir = S_ISDIR(st.st_mode);
	sb->size = (uint64_t)st.st_size;
	return NT_STATUS_OK;
}

static uint32_t smb_stat(struct client *c, char *path, struct nb_stat *sb)
{
	return stat_path(c, path, sb);
}

/* Levels 1004 and 1 set the times (on the path: libsmbclient has no call
 * on a handle); others send nothing. */
static uint32_t smb_set_info(struct client *c, struct nb_handle *h, int level)
{
	struct smb *s = c->priv;

	if (level != 1004 && level != 1)
		return NT_STATUS_OK;
	if (smbc_getFunctionUtimes(s->ctx)(s->ctx, url_of(s, h->path), NULL) < 0)
		return smb_error(c, c->op, errno, h->path);
	return NT_STATUS_OK;
}

static uint32_t smb_list(struct client *c, char *dirpath, char *full, nb_list_fn fn, void *arg)
{
	struct smb *s = c->priv;
	struct smbc_dirent *d;
	SMBCFILE *dir = smbc_getFunctionOpendir(s->ctx)(s->ctx, url_of(s, dirpath));

	if (!dir) {
		int err = errno;

		if (conn_lost(err))
			return lost(c, c->op, err);
		if (dirpath != full && (err == ENOENT || err == ENOTDIR))
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;	/* the pattern's directory */
		return smb_error(c, c->op, err, dirpath);
	}
	while ((d = smbc_getFunctionReaddir(s->ctx)(s->ctx, dir)))
		fn(arg, d->name);
	smbc_getFunctionClosedir(s->ctx)(s->ctx, dir);
	if (dirpath == full)
		learn_parent(s, dirpath);
	dir_learn(s, dirpath, strlen(dirpath));
	return NT_STATUS_OK;
}

static uint32_t smb_mkdir(struct client *c, char *path)
{
	struct smb *s = c->priv;

	if (smbc_getFunctionMkdir(s->ctx)(s->ctx, url_of(s, path), 0755) < 0)
		return errno == EEXIST ? NT_STATUS_OBJECT_NAME_COLLISION :
					 smb_error(c, c->op, errno, path);
	learn_parent(s, path);
	dir_learn(s, path, strlen(path));
	return NT_STATUS_OK;
}

static uint32_t smb_rmdir(struct client *c, char *path)
{
	struct smb *s = c->priv;

	dirs_forget(s, path);
	if (smbc_getFunctionRmdir(s->ctx)(s->ctx, url_of(s, path)) < 0) {
		if (errno == ENOTEMPTY || errno == EEXIST)
			return NT_STATUS_DIRECTORY_NOT_EMPTY;
		return smb_error(c, c->op, errno, path);
	}
	return NT_STATUS_OK;
}

/* What is at path, asked the cheapest way for a name expected to be a
 * file or missing (one CREATE of a directory, which fails on a file):
 * 'f' file, 'd' directory, 0 missing; -1 other error (errno set). */
static int probe(struct smb *s, const char *path)
{
	SMBCFILE *dir = smbc_getFunctionOpendir(s->ctx)(s->ctx, url_of(s, path));

	if (dir) {
		smbc_getFunctionClosedir(s->ctx)(s->ctx, dir);
		return 'd';
	}
	if (errno == ENOTDIR)
		return 'f';
	return errno == ENOENT ? 0 : -1;
}

/* libsmbclient's unlink removes an empty directory: NT's does not. */
static uint32_t smb_unlink(struct client *c, char *path)
{
	struct smb *s = c->priv;
	int what = probe(s, path);

	if (what == 'd')
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	if (what <= 0)
		return smb_error(c, c->op, what == 0 ? ENOENT : errno, path);
	if (smbc_getFunctionUnlink(s->ctx)(s->ctx, url_of(s, path)) < 0)
		return smb_error(c, c->op, errno, path);
	learn_parent(s, path);
	return NT_STATUS_OK;
}

/* NT's rename does not replace, libsmbclient's does: look first (a change
 * of case only is the same name on this server). */
static uint32_t smb_rename(struct client *c, char *from, char *to)
{
	struct smb *s = c->priv;
	struct stat st;
	int err;

	if (strcasecmp(from, to) != 0) {
		int what = probe(s, to);

		if (what > 0)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		if (what < 0 && conn_lost(errno))
			return lost(c, c->op, errno);
	}
	if (smbc_getFunctionRename(s->ctx)(s->ctx, url_in(smb_opt(c), s->url, from), s->ctx,
					   url_in(smb_opt(c), s->url2, to)) == 0) {
		dirs_forget(s, from);
		learn_parent(s, to);
		return NT_STATUS_OK;
	}
	err = errno;
	if (err == EEXIST || err == ENOTEMPTY)
		return NT_STATUS_OBJECT_NAME_COLLISION;
	if (err == ENOENT) {
		if (smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, from), &st) == 0)
			return NT_STATUS_OBJECT_PATH_NOT_FOUND;	/* the target's directory */
		if (conn_lost(errno))
			return lost(c, c->op, errno);
	}
	return smb_error(c, c->op, err, from);
}

static uint32_t smb_deltree(struct client *c, char *path)
{
	int rc = remove_path(c->priv, path);

	return rc < 0 ? smb_error(c, c->op, -rc, NULL) : NT_STATUS_OK;
}

/* smbc_fstatvfs asks for FileFsFullSizeInformation and
 * FileFsAttributeInformation, and returns 0 even when both failed: a zero
 * block size says they did. */
static uint32_t smb_statfs(struct client *c)
{
	struct smb *s = c->priv;
	uint64_t t0 = now_ns();
	struct statvfs sv;

	if (smbc_getFunctionFstatVFS(s->ctx)(s->ctx, s->fs_dir, &sv) < 0 || sv.f_bsize == 0)
		return handle_failed(c, c->op, EIO, t0);
	return NT_STATUS_OK;
}

/* libsmbclient has no byte-range lock and no flush call: the layer's lock
 * table is the only one (nothing goes on the wire), Flush sends nothing. */
static const struct nb_adapter smb_adapter = {
	.file_size = sizeof(struct smb_file),
	.flags = NB_FIND_BY_STAT,
	.open = smb_open,
	.close = smb_close,
	.read = smb_read,
	.write = smb_write,
	.truncate = smb_truncate,
	.fstat = smb_fstat,
	.stat = smb_stat,
	.set_info = smb_set_info,
	.list = smb_list,
	.mkdir = smb_mkdir,
	.rmdir = smb_rmdir,
	.unlink = smb_unlink,
	.rename = smb_rename,
	.remove_tree = smb_deltree,
	.statfs = smb_statfs,
};

const struct backend smb_backend = {
	.abi = BACKEND_ABI,
	.name = "smb",
	.description = "a real SMB2/3 server through libsmbclient (--smb-share)",
	.flags = BACKEND_NETWORK | BACKEND_FILES,
	.options = smb_option_table,
	.options_size = sizeof(struct smb_options),
	.init = smb_init,
	.setup = smb_setup,
	.teardown = smb_teardown,
	.remove_tree = smb_remove_tree,
	.exists = smb_exists,
	.op = { NB_OPS },
};

BACKEND_MODULE(smb_backend);
