/*
 * smb.c - the SMB backend: every netbench op against a real SMB2/3 server
 * through libsmbclient, the way a room full of Windows clients loads it.
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
 *  - LockX/UnlockX and Flush have no libsmbclient call: the lock table is
 *    kept per client without wire traffic, Flush sends nothing.
 * The first error that says the connection is gone (reset, refused on
 * reconnect, timed out) stops the client: STATUS_FATAL.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libsmbclient.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <popt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <termios.h>
#include <unistd.h>

#include "backend.h"
#include "client.h"
#include "common.h"
#include "status.h"
#include "util.h"

#define KNOWN_DIRS 32		/* directories remembered per client */
#define MAX_TREE_DEPTH 512
#define SMB_TIMEOUT_DEFAULT 10	/* seconds */
#define SMB_PASSWORD_ENV "DBENCH_SMB_PASSWORD"
#define MAX_SOCKETS 256		/* sockets of a process looked at in setup */

/* The SMB dialects libsmbclient can be limited to, oldest first. */
static const char *const smb_dialects[] = { "SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02", "SMB3_11" };

/* The backend's options: as given on the command line, then as parsed by
 * smb_init() in the parent (read-only in the clients). */
static struct {
	const char *share_arg;	/* --smb-share //SERVER[:PORT]/SHARE[/DIR] */
	const char *user_arg;	/* --smb-user [DOMAIN/]USER[%PASSWORD] */
	const char *protocol_arg; /* --smb-protocol MIN[:MAX] */
	const char *timeout_arg; /* --smb-timeout SECS */

	char server[256];	/* host name or address */
	int port;		/* 0: libsmbclient's default (445) */
	char share[256];	/* share name */
	char subdir[1024];	/* directory in the share, "" for its root */
	char domain[256];	/* "" unless given */
	char user[256];		/* "" for guest */
	char password[256];
	const char *min_proto;	/* one of smb_dialects */
	const char *max_proto;
	int timeout_ms;		/* libsmbclient's per-request timeout */
	char base_url[8 + 256 + 3 * 256 + 3 * 1024]; /* smb://SERVER/SHARE[/DIR], URL-encoded */
	size_t base_len;
	char display[1600];	/* //SERVER[:PORT]/SHARE[/DIR], for messages */
} smbopt;

static const struct poptOption smb_option_table[] = {
	{ "smb-share", 0, POPT_ARG_STRING, &smbopt.share_arg, 0,
	  "the share to load (smb): //SERVER[:PORT]/SHARE[/DIR]", "URL" },
	{ "smb-user", 0, POPT_ARG_STRING, &smbopt.user_arg, 0,
	  "log on as [DOMAIN/]USER; the password comes from $" SMB_PASSWORD_ENV
	  " or is asked on the terminal (default: guest)", "USER" },
	{ "smb-protocol", 0, POPT_ARG_STRING, &smbopt.protocol_arg, 0,
	  "the dialects to allow, MIN[:MAX] of SMB2_02 SMB2_10 SMB3_00 SMB3_02 SMB3_11 (default SMB2_02:SMB3_11)",
	  "PROTO" },
	{ "smb-timeout", 0, POPT_ARG_STRING, &smbopt.timeout_arg, 0,
	  "seconds to wait for the server's answer before the client gives up (default 10)", "SECS" },
	POPT_TABLEEND
};

struct smb_handle {
	SMBCFILE *file;		/* the server handle; NULL for a directory */
	uint8_t open;		/* in use */
	uint8_t is_dir;		/* a directory: checked at open, no server handle kept */
	uint8_t delete_on_close; /* remove the path when it is closed */
	struct lock_table locks; /* ranges held (the emulated lock table) */
	char *path;		/* the path it was opened with */
	size_t path_cap;
};

struct smb {
	SMBCCTX *ctx;		/* this client's context: its own connection */
	SMBCFILE *fs_dir;	/* the base directory, for QUERY_FS_INFORMATION */
	bool lost;		/* the connection is gone: do not wait on it again */
	struct smb_handle *h;	/* program.nhandles entries */
	uint32_t nhandles;
	char *url;		/* URL buffers of url_size bytes */
	char *url2;
	size_t url_size;
	struct iobuf buf;	/* data written and read */
	char *own_root[MAX_ROOTS]; /* this client's trees: only it changes them */
	size_t own_len[MAX_ROOTS];
	uint32_t nown;
	char *known[KNOWN_DIRS]; /* directories seen to exist in its own trees */
	uint16_t known_len[KNOWN_DIRS];
	uint32_t known_next;	/* the slot to replace next */
	char tree[PATH_MAX];	/* remove_tree's working path */
	int sock_fd;		/* the connection's socket, -1 if not known */
	ino_t sock_ino;		/* and its inode, to know it is still that one */
};

/* ---- URLs ---- */

/* libsmbclient decodes %XX and cuts a URL at '?': everything but a few
 * plain characters is encoded. */
static bool url_plain(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '/' || ch == '.' || ch == '_' || ch == '-' || ch == '~';
}

/* Append the encoding of text to dst (which has room for 3 bytes a byte). */
static size_t url_encode(char *dst, const char *text)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (url_plain(*p)) {
			dst[n++] = (char)*p;
		} else {
			dst[n++] = '%';
			dst[n++] = hex[*p >> 4];
			dst[n++] = hex[*p & 15];
		}
	}
	dst[n] = '\0';
	return n;
}

/* The URL of a path relative to the share root (and --smb-share's DIR). */
static const char *url_in(char *buf, const char *path)
{
	memcpy(buf, smbopt.base_url, smbopt.base_len);
	buf[smbopt.base_len] = '\0';
	if (*path) {
		buf[smbopt.base_len] = '/';
		url_encode(buf + smbopt.base_len + 1, path);
	}
	return buf;
}

static const char *url_of(struct smb *s, const char *path)
{
	return url_in(s->url, path);
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
	if (err == ETIMEDOUT)
		snprintf(c->error, sizeof(c->error), "%s did not answer within %d s (%s, loadfile line %u)",
			 smbopt.display, smbopt.timeout_ms / 1000, op_info[op->id].name, op->line);
	else
		snprintf(c->error, sizeof(c->error), "lost the connection to %s (%s, loadfile line %u): %s",
			 smbopt.display, op_info[op->id].name, op->line, strerror(err));
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
	if (smbc_getFunctionStat(s->ctx)(s->ctx, url_in(s->url2, parent), &st) == 0) {
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
	uint32_t want = op->expect.code;

	if (op->expect.kind != EXPECT_EXACT || want == status || status_is_success(DOMAIN_NT, want))
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

	if (now_ns() - t0 >= (uint64_t)smbopt.timeout_ms * NSEC_PER_MSEC)
		return lost(c, op, ETIMEDOUT);
	if (!conn_lost(err) &&
	    smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, ""), &st) < 0 && conn_lost(errno))
		err = errno;
	return smb_error(c, op, err, NULL);
}

/* ---- buffers and handles ---- */

static struct smb_handle *handle_of(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	struct smb_handle *h = &s->h[op->handle];

	return h->open ? h : NULL;
}

/* Close a handle without asking for its status (a reused number). */
static void handle_release(struct smb *s, struct smb_handle *h)
{
	if (h->file && !s->lost)
		smbc_getFunctionClose(s->ctx)(s->ctx, h->file);
	h->file = NULL;
	h->open = 0;
	h->is_dir = 0;
	h->locks.n = 0;
	h->delete_on_close = 0;
}

static void handle_set_path(struct smb_handle *h, const char *path)
{
	size_t n = strlen(path) + 1;

	if (n > h->path_cap) {
		char *p = xrealloc(h->path, n);

		h->path = p;
		h->path_cap = n;
	}
	memcpy(h->path, path, n);
}

/* A handle was opened on path (a file, or a directory if dir). */
static void handle_opened(struct smb *s, struct smb_handle *h, SMBCFILE *file, const char *path,
			  bool dir)
{
	handle_release(s, h);	/* a trace may reuse a number still open */
	h->file = file;
	h->open = 1;
	h->is_dir = dir;
	handle_set_path(h, path);
	learn_parent(s, path);
}

/* ---- bytes on the wire: libsmbclient does not count them, the kernel
 * does (TCP_INFO of the connection's socket) ---- */

/* The inodes of the sockets this process has open; how many (at most max). */
static int open_sockets(int *fds, ino_t *inos, int max)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	struct stat st;
	int n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		int fd = atoi(d->d_name);

		if (d->d_name[0] == '.' || fd == dirfd(dir) || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		fds[n] = fd;
		inos[n++] = st.st_ino;
	}
	closedir(dir);
	return n;
}

/* After connecting: the one socket that was not open before (the
 * inodes in before[]) is this client's connection. */
static void find_connection(struct smb *s, const ino_t *before, int nbefore)
{
	int fds[MAX_SOCKETS], n, found = 0;
	ino_t inos[MAX_SOCKETS];

	s->sock_fd = -1;
	n = open_sockets(fds, inos, MAX_SOCKETS);
	for (int i = 0; i < n; i++) {
		bool old = false;

		for (int j = 0; j < nbefore && !old; j++)
			old = inos[i] == before[j];
		if (old)
			continue;
		s->sock_fd = fds[i];
		s->sock_ino = inos[i];
		found++;
	}
	if (found != 1)
		s->sock_fd = -1;
}

/* Give the core the bytes the connection sent and received, all phases. */
static void count_wire(struct client *c)
{
	struct smb *s = c->priv;
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	struct stat st;

	if (s->sock_fd < 0 || fstat(s->sock_fd, &st) < 0 || st.st_ino != s->sock_ino)
		return;	/* gone with the connection */
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(s->sock_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	    len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		client_count_net(c, ti.tcpi_bytes_acked, ti.tcpi_bytes_received);
	s->sock_fd = -1;
}

/* ---- setup ---- */

static void smb_auth(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen, char *un,
		     int unlen, char *pw, int pwlen)
{
	(void)ctx;
	(void)srv;
	(void)shr;
	if (smbopt.domain[0])
		snprintf(wg, (size_t)wglen, "%s", smbopt.domain);
	snprintf(un, (size_t)unlen, "%s", smbopt.user);
	snprintf(pw, (size_t)pwlen, "%s", smbopt.password);
}

/*
 * libsmbclient runs every request in a new tevent context; with tevent's
 * default epoll backend that is an epoll_create, two epoll_ctl and a close
 * per request on top of the send and receive, half the client's system
 * calls.  The poll backend needs none of them (nothing changes on the
 * wire).  tevent_set_default_backend is libtevent's public API, looked up
 * at run time so that dbench does not link libtevent itself.
 */
static void prefer_poll_events(void)
{
	void *sym = dlsym(RTLD_DEFAULT, "tevent_set_default_backend");
	void (*set_default_backend)(const char *);

	/* DBENCH_SMB_TEVENT_DEFAULT keeps the default, for bench/smb.sh */
	if (!sym || getenv("DBENCH_SMB_TEVENT_DEFAULT"))
		return;
	memcpy(&set_default_backend, &sym, sizeof(sym));
	set_default_backend("poll");
}

/* A libsmbclient context with the run's settings; NULL with error set. */
static SMBCCTX *new_context(char *error, size_t len)
{
	SMBCCTX *ctx = smbc_new_context();

	if (!ctx) {
		snprintf(error, len, "cannot create a libsmbclient context: %s", strerror(errno));
		return NULL;
	}
	smbc_setDebug(ctx, 0);
	smbc_setOptionDebugToStderr(ctx, 1);
	smbc_setFunctionAuthDataWithContext(ctx, smb_auth);
	smbc_setTimeout(ctx, smbopt.timeout_ms);
	if (smbopt.port)
		smbc_setPort(ctx, (uint16_t)smbopt.port);
	/* with a user, a refused logon must fail, not become a guest logon */
	smbc_setOptionNoAutoAnonymousLogin(ctx, smbopt.user[0] != '\0');
	smbc_setOptionProtocols(ctx, smbopt.min_proto, smbopt.max_proto);
	if (!smbc_init_context(ctx)) {
		snprintf(error, len, "cannot set up libsmbclient: %s", strerror(errno));
		smbc_free_context(ctx, 1);
		return NULL;
	}
	return ctx;
}

static bool host_known(const char *host)
{
	struct addrinfo *ai;

	if (getaddrinfo(host, NULL, NULL, &ai) != 0)
		return false;
	freeaddrinfo(ai);
	return true;
}

/* Why connecting to the share failed, in words. */
static void connect_error(SMBCCTX *ctx, int err, char *error, size_t len)
{
	char url[8 + sizeof(smbopt.server) + 3 * sizeof(smbopt.share)];
	struct stat st;

	if (err != EACCES && err != EPERM && err != ECONNREFUSED && !host_known(smbopt.server)) {
		snprintf(error, len, "cannot connect to %s: unknown host %s", smbopt.display,
			 smbopt.server);
		return;
	}
	switch (err) {
	case EACCES:
	case EPERM:
		if (smbopt.user[0])
			snprintf(error, len, "%s: access denied for user %s%s%s (wrong user or password, or not allowed on the share)",
				 smbopt.display, smbopt.domain, smbopt.domain[0] ? "/" : "", smbopt.user);
		else
			snprintf(error, len, "%s: access denied for guest (give a user with --smb-user)",
				 smbopt.display);
		return;
	case ECONNREFUSED:
		snprintf(error, len, "cannot connect to %s: connection refused (no SMB server on that port?)",
			 smbopt.display);
		return;
	case ETIMEDOUT:
		snprintf(error, len, "cannot connect to %s: no answer within %d s", smbopt.display,
			 smbopt.timeout_ms / 1000);
		return;
	case ENOENT:
	case ENODEV:
		if (smbopt.subdir[0]) {
			snprintf(url, sizeof(url), "smb://%s/", smbopt.server);
			url_encode(url + strlen(url), smbopt.share);
			if (smbc_getFunctionStat(ctx)(ctx, url, &st) == 0) {
				snprintf(error, len, "%s: no such directory on the share", smbopt.display);
				return;
			}
		}
		snprintf(error, len, "%s: no such share on %s", smbopt.display, smbopt.server);
		return;
	default:
		snprintf(error, len, "cannot connect to %s: %s", smbopt.display, strerror(err));
		return;
	}
}

/* Connect and check the base directory; -1 with error set. */
static int connect_share(SMBCCTX *ctx, char *error, size_t len)
{
	struct stat st;

	if (smbc_getFunctionStat(ctx)(ctx, smbopt.base_url, &st) < 0) {
		connect_error(ctx, errno, error, len);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(error, len, "%s is not a directory", smbopt.display);
		return -1;
	}
	return 0;
}

static void smb_teardown(struct client *c);

static int smb_setup(struct client *c)
{
	const struct program *prog = c->prog;
	struct smb *s = xcalloc(1, sizeof(*s));
	int fds[MAX_SOCKETS], nbefore;
	ino_t before[MAX_SOCKETS];
	char path[PATH_MAX];

	c->priv = s;
	s->sock_fd = -1;
	s->url_size = smbopt.base_len + 2 + 3 * PATH_MAX;
	s->url = xmalloc(s->url_size);
	s->url2 = xmalloc(s->url_size);
	nbefore = open_sockets(fds, before, MAX_SOCKETS);
	s->ctx = new_context(c->error, sizeof(c->error));
	if (!s->ctx || connect_share(s->ctx, c->error, sizeof(c->error)) < 0)
		goto fail;
	if (c->cleanup_only)
		return 0;
	find_connection(s, before, nbefore);
	/* a handle for QUERY_FS_INFORMATION, which libsmbclient only has on
	 * an open file (smbc_statvfs would list the directory every time) */
	s->fs_dir = smbc_getFunctionOpendir(s->ctx)(s->ctx, smbopt.base_url);
	if (!s->fs_dir) {
		snprintf(c->error, sizeof(c->error), "cannot open %s: %s", smbopt.display, strerror(errno));
		goto fail;
	}
	s->nhandles = prog->nhandles;
	s->h = xcalloc(prog->nhandles ? prog->nhandles : 1, sizeof(*s->h));
	for (uint32_t r = 0; r < prog->nclient_roots && r < MAX_ROOTS; r++) {
		s->own_len[r] = client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		s->own_root[r] = xstrdup(path);
		s->nown++;
	}
	if (iobuf_grow(&s->buf, c->nc.rng, 1 << 16) < 0) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		goto fail;
	}
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
	for (uint32_t i = 0; i < s->nhandles; i++) {
		handle_release(s, &s->h[i]);
		lock_table_free(&s->h[i].locks);
		free(s->h[i].path);
	}
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
	free(s->h);
	free(s->url);
	free(s->url2);
	iobuf_free(&s->buf);
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
				 smbopt.display, path);
		return -1;
	}
	/* files the run left open would be sharing violations */
	for (uint32_t i = 0; i < s->nhandles; i++)
		handle_release(s, &s->h[i]);
	rc = remove_path(s, path);
	if (rc < 0) {
		if (conn_lost(-rc))
			s->lost = true;
		snprintf(c->error, sizeof(c->error), "cannot remove %s/%s: %s", smbopt.display, path,
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
	snprintf(c->error, sizeof(c->error), "cannot look at %s/%s: %s", smbopt.display, path,
		 strerror(errno));
	return -1;
}

/* ---- opening ---- */

/* NTCreateX of a directory: created with mkdir or checked with a query;
 * libsmbclient keeps no server handle for a directory. */
static uint32_t open_dir(struct client *c, const struct op *op, struct smb_handle *h, int disp)
{
	struct smb *s = c->priv;
	const char *path = c->path[0];
	struct stat st;

	if (disp == DISP_CREATE || disp == DISP_OPEN_IF) {
		if (smbc_getFunctionMkdir(s->ctx)(s->ctx, url_of(s, path), 0755) == 0)
			goto opened;
		if (errno != EEXIST)
			return smb_error(c, op, errno, path);
		if (disp == DISP_CREATE)
			return NT_STATUS_OBJECT_NAME_COLLISION;
	} else if (disp != DISP_OPEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, path), &st) < 0)
		return smb_error(c, op, errno, path);
	if (!S_ISDIR(st.st_mode))
		return NT_STATUS_NOT_A_DIRECTORY;
opened:
	handle_opened(s, h, NULL, path, true);
	dir_learn(s, path, strlen(path));
	return NT_STATUS_OK;
}

static uint32_t smb_ntcreatex(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	struct smb_handle *h = &s->h[op->handle];
	const char *path = c->path[0];
	uint64_t opts = (uint64_t)c->num[0];
	int disp = (int)c->num[1];
	SMBCFILE *f;

	if (c->num[1] < 0 || c->num[1] > DISP_OVERWRITE_IF)
		return NT_STATUS_INVALID_PARAMETER;
	if (opts & FILE_DIRECTORY_FILE) {
		uint32_t status = open_dir(c, op, h, disp);

		if (status == NT_STATUS_OK && (opts & FILE_DELETE_ON_CLOSE))
			h->delete_on_close = 1;
		return status;
	}
	f = smbc_getFunctionOpen(s->ctx)(s->ctx, url_of(s, path), O_RDWR | disposition_flags(disp), 0644);
	if (!f) {
		int err = errno;

		if (err != EISDIR)
			return smb_error(c, op, err, path);
		if (opts & FILE_NON_DIRECTORY_FILE)
			return NT_STATUS_FILE_IS_A_DIRECTORY;
		if (disp != DISP_OPEN && disp != DISP_OPEN_IF)
			return disp == DISP_CREATE ? NT_STATUS_OBJECT_NAME_COLLISION :
						     NT_STATUS_FILE_IS_A_DIRECTORY;
		return open_dir(c, op, h, DISP_OPEN);
	}
	handle_opened(s, h, f, path, false);
	if (opts & FILE_DELETE_ON_CLOSE)
		h->delete_on_close = 1;
	return NT_STATUS_OK;
}

static uint32_t close_handle(struct client *c, const struct op *op, struct smb_handle *h)
{
	struct smb *s = c->priv;
	bool del = h->delete_on_close, dir = h->is_dir;
	int rc = 0, err = 0;

	if (h->file) {
		rc = smbc_getFunctionClose(s->ctx)(s->ctx, h->file);
		err = errno;
		h->file = NULL;
	}
	handle_release(s, h);
	if (rc < 0)
		return smb_error(c, op, err, NULL);
	if (!del)
		return NT_STATUS_OK;
	/* delete-on-close: libsmbclient has no call for it; remove the path
	 * now that the handle is closed (as fileio does) */
	if (dir) {
		dirs_forget(s, h->path);
		rc = smbc_getFunctionRmdir(s->ctx)(s->ctx, url_of(s, h->path));
	} else {
		rc = smbc_getFunctionUnlink(s->ctx)(s->ctx, url_of(s, h->path));
	}
	if (rc < 0 && conn_lost(errno))
		return lost(c, op, errno);
	return NT_STATUS_OK;
}

static uint32_t smb_close(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return close_handle(c, op, h);
}

/* ---- data ---- */

static uint32_t do_read(struct client *c, const struct op *op, struct smb_handle *h, int64_t offset,
			int64_t size)
{
	struct smb *s = c->priv;
	ssize_t n;

	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (h->is_dir)
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	if (iobuf_grow(&s->buf, c->nc.rng, (size_t)size) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	/* a SEEK_SET only sets libsmbclient's offset: no wire traffic */
	smbc_getFunctionLseek(s->ctx)(s->ctx, h->file, (off_t)offset, SEEK_SET);
	n = smbc_getFunctionRead(s->ctx)(s->ctx, h->file, s->buf.readbuf, (size_t)size);
	if (n < 0)
		return smb_error(c, op, errno, NULL);
	if (n == 0 && size > 0)
		return NT_STATUS_END_OF_FILE;
	c->bytes = (uint64_t)n;
	if (c->writepattern &&
	    !iobuf_pattern_ok(&s->buf, s->buf.readbuf, (uint64_t)offset, (size_t)n))
		return NT_STATUS_FILE_CORRUPT_ERROR;
	return NT_STATUS_OK;
}

/* --one-byte-write-fix: a 1-byte write at or past the end extends the
 * file with a truncate instead; 1 if done, 0 if not applicable. */
static int one_byte_extend(struct smb *s, struct smb_handle *h, int64_t offset, int *err)
{
	struct stat st;

	if (smbc_getFunctionFstat(s->ctx)(s->ctx, h->file, &st) < 0 || offset < st.st_size)
		return 0;
	if (smbc_getFunctionFtruncate(s->ctx)(s->ctx, h->file, (off_t)offset + 1) < 0) {
		*err = errno;
		return -1;
	}
	return 1;
}

static uint32_t do_write(struct client *c, const struct op *op, struct smb_handle *h, int64_t offset,
			 int64_t size)
{
	struct smb *s = c->priv;
	const char *src;
	struct stat st;
	ssize_t n;
	int err = 0;

	if (offset < 0 || size < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (h->is_dir)
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	if (c->opt->fake_io) {
		c->bytes = (uint64_t)size;
		return NT_STATUS_OK;
	}
	if (iobuf_grow(&s->buf, c->nc.rng, (size_t)size) < 0)
		return NT_STATUS_INVALID_PARAMETER;
	if (c->opt->one_byte_write_fix && size == 1) {
		int r = one_byte_extend(s, h, offset, &err);

		if (r < 0)
			return smb_error(c, op, err, NULL);
		if (r > 0) {
			c->bytes = 1;
			return NT_STATUS_OK;
		}
	}
	src = iobuf_source(&s->buf, c->writepattern, (uint64_t)offset);
	smbc_getFunctionLseek(s->ctx)(s->ctx, h->file, (off_t)offset, SEEK_SET);
	n = smbc_getFunctionWrite(s->ctx)(s->ctx, h->file, src, (size_t)size);
	if (n < 0)
		return smb_error(c, op, errno, NULL);
	c->bytes = (uint64_t)n;
	if (c->opt->stat_check) {
		uint64_t t0 = now_ns();

		if (smbc_getFunctionFstat(s->ctx)(s->ctx, h->file, &st) < 0)
			return handle_failed(c, op, errno, t0);
		if (st.st_size < offset + n)
			return NT_STATUS_FILE_INVALID;
	}
	return NT_STATUS_OK;
}

static uint32_t smb_readx(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_read(c, op, h, c->num[1], c->num[2]);
}

static uint32_t smb_writex(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_write(c, op, h, c->num[1], c->num[2]);
}

/* libsmbclient has no flush call: Flush checks the handle and sends
 * nothing (a documented limitation). */
static uint32_t smb_flush(struct client *c, const struct op *op)
{
	return handle_of(c, op) ? NT_STATUS_OK : NT_STATUS_INVALID_HANDLE;
}

/* ---- locks: libsmbclient has no byte-range lock call; the table is kept
 * per handle with fileio's statuses, and nothing goes on the wire ---- */

static uint32_t smb_lockx(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (c->num[1] < 0 || c->num[2] < 0)
		return NT_STATUS_INVALID_LOCK_RANGE;
	if (lock_table_overlaps(&h->locks, offset, length))
		return NT_STATUS_LOCK_NOT_GRANTED;	/* SMB locks don't stack */
	return lock_table_add(&h->locks, offset, length) ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static uint32_t smb_unlockx(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);
	uint64_t offset = (uint64_t)c->num[1], length = (uint64_t)c->num[2];

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return lock_table_remove(&h->locks, offset, length) ? NT_STATUS_OK : NT_STATUS_RANGE_NOT_LOCKED;
}

/* ---- metadata ---- */

static uint32_t stat_path(struct client *c, const struct op *op, const char *path)
{
	struct smb *s = c->priv;
	struct stat st;

	if (smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, path), &st) < 0)
		return smb_error(c, op, errno, path);
	learn_parent(s, path);
	return NT_STATUS_OK;
}

static uint32_t smb_qpathinfo(struct client *c, const struct op *op)
{
	return stat_path(c, op, c->path[0]);
}

static uint32_t smb_qfileinfo(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	struct smb_handle *h = handle_of(c, op);
	uint64_t t0 = now_ns();
	struct stat st;

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	if (h->is_dir)
		return stat_path(c, op, h->path);
	if (smbc_getFunctionFstat(s->ctx)(s->ctx, h->file, &st) < 0)
		return handle_failed(c, op, errno, t0);
	return NT_STATUS_OK;
}

static uint32_t smb_sfileinfo(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	struct smb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	switch (c->num[1]) {
	case 1004:	/* FileBasicInformation: times and attributes */
	case 1:		/* SMB_INFO_STANDARD */
		if (smbc_getFunctionUtimes(s->ctx)(s->ctx, url_of(s, h->path), NULL) < 0)
			return smb_error(c, op, errno, h->path);
		break;
	case 1013:	/* FileDispositionInformation: delete on close */
		h->delete_on_close = 1;
		break;
	default:
		break;
	}
	return NT_STATUS_OK;
}

static uint32_t smb_qfsinfo(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	uint64_t t0 = now_ns();
	struct statvfs sv;

	/* smbc_fstatvfs asks for FileFsFullSizeInformation and
	 * FileFsAttributeInformation, and returns 0 even when both failed:
	 * a zero block size says they did */
	if (smbc_getFunctionFstatVFS(s->ctx)(s->ctx, s->fs_dir, &sv) < 0 || sv.f_bsize == 0)
		return handle_failed(c, op, EIO, t0);
	return NT_STATUS_OK;
}

static uint32_t smb_find_first(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	char *path = c->path[0];
	char *slash = strrchr(path, '/');
	const char *pattern = slash ? slash + 1 : path;
	struct smbc_dirent *d;
	uint64_t matches = 0;
	SMBCFILE *dir;
	int err;

	if (!strpbrk(pattern, "*?<>\"")) {
		/* one name: a query of it, as the server would answer it */
		uint32_t status = stat_path(c, op, path);

		return status == NT_STATUS_OBJECT_NAME_NOT_FOUND ? NT_STATUS_NO_SUCH_FILE : status;
	}
	if (slash)
		*slash = '\0';
	dir = smbc_getFunctionOpendir(s->ctx)(s->ctx, url_of(s, slash ? path : ""));
	err = errno;
	if (slash)
		*slash = '/';
	if (!dir) {
		if (conn_lost(err))
			return lost(c, op, err);
		return err == ENOENT || err == ENOTDIR ? NT_STATUS_OBJECT_PATH_NOT_FOUND :
							 smb_error(c, op, err, path);
	}
	while ((d = smbc_getFunctionReaddir(s->ctx)(s->ctx, dir)))
		if (!is_dot(d->name) && wildcard_match(pattern, d->name))
			matches++;
	smbc_getFunctionClosedir(s->ctx)(s->ctx, dir);
	if (slash)
		dir_learn(s, path, (size_t)(slash - path));
	return matches ? NT_STATUS_OK : NT_STATUS_NO_SUCH_FILE;
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

static uint32_t smb_rename(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	const char *from = c->path[0], *to = c->path[1];
	struct stat st;
	int err;

	/* NT's rename does not replace, libsmbclient's does: look first
	 * (a change of case only is the same name on this server) */
	if (strcasecmp(from, to) != 0) {
		int what = probe(s, to);

		if (what > 0)
			return NT_STATUS_OBJECT_NAME_COLLISION;
		if (what < 0 && conn_lost(errno))
			return lost(c, op, errno);
	}
	if (smbc_getFunctionRename(s->ctx)(s->ctx, url_in(s->url, from), s->ctx,
					   url_in(s->url2, to)) == 0) {
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
			return lost(c, op, errno);
	}
	return smb_error(c, op, err, from);
}

static uint32_t smb_unlink(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	const char *path = c->path[0];
	int what = probe(s, path);

	/* libsmbclient's unlink removes an empty directory: NT's does not */
	if (what == 'd')
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	if (what <= 0)
		return smb_error(c, op, what == 0 ? ENOENT : errno, path);
	if (smbc_getFunctionUnlink(s->ctx)(s->ctx, url_of(s, path)) < 0)
		return smb_error(c, op, errno, path);
	learn_parent(s, path);
	return NT_STATUS_OK;
}

static uint32_t smb_mkdir(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	const char *path = c->path[0];
	struct stat st;

	if (smbc_getFunctionMkdir(s->ctx)(s->ctx, url_of(s, path), 0755) < 0) {
		if (errno != EEXIST)
			return smb_error(c, op, errno, path);
		/* as dbench: an existing directory is fine */
		if (smbc_getFunctionStat(s->ctx)(s->ctx, url_of(s, path), &st) < 0)
			return smb_error(c, op, errno, path);
		if (!S_ISDIR(st.st_mode))
			return NT_STATUS_OBJECT_NAME_COLLISION;
	}
	learn_parent(s, path);
	dir_learn(s, path, strlen(path));
	return NT_STATUS_OK;
}

static uint32_t smb_rmdir(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	const char *path = c->path[0];

	if (smbc_getFunctionRmdir(s->ctx)(s->ctx, url_of(s, path)) < 0) {
		if (errno == ENOTEMPTY || errno == EEXIST)
			return NT_STATUS_DIRECTORY_NOT_EMPTY;
		return smb_error(c, op, errno, path);
	}
	dirs_forget(s, path);
	return NT_STATUS_OK;
}

static uint32_t smb_deltree(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	int rc;

	if (!c->path[0][0])
		return NT_STATUS_ACCESS_DENIED;	/* never the whole base directory */
	rc = remove_path(s, c->path[0]);
	if (rc < 0)
		return smb_error(c, op, -rc, NULL);
	return NT_STATUS_OK;
}

/* ---- the plain SMB ops: files named by path ---- */

static uint32_t smb_smb_open(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	struct smb_handle *h = &s->h[op->handle];
	const char *path = c->path[0];
	uint64_t fl = (uint64_t)c->num[0];
	int flags = smb_open_flags(fl);
	SMBCFILE *f;

	f = smbc_getFunctionOpen(s->ctx)(s->ctx, url_of(s, path), flags, 0644);
	if (!f)
		return smb_error(c, op, errno, path);
	handle_opened(s, h, f, path, false);
	return NT_STATUS_OK;
}

static uint32_t smb_smb_read(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_read(c, op, h, c->num[0], c->num[1]);
}

static uint32_t smb_smb_write(struct client *c, const struct op *op)
{
	struct smb_handle *h = handle_of(c, op);

	if (!h)
		return NT_STATUS_INVALID_HANDLE;
	return do_write(c, op, h, c->num[0], c->num[1]);
}

static uint32_t smb_smb_readdir(struct client *c, const struct op *op)
{
	struct smb *s = c->priv;
	const char *path = c->path[0];
	SMBCFILE *dir = smbc_getFunctionOpendir(s->ctx)(s->ctx, url_of(s, path));

	if (!dir)
		return smb_error(c, op, errno, path);
	while (smbc_getFunctionReaddir(s->ctx)(s->ctx, dir))
		;
	smbc_getFunctionClosedir(s->ctx)(s->ctx, dir);
	learn_parent(s, path);
	dir_learn(s, path, strlen(path));
	return NT_STATUS_OK;
}

static uint32_t smb_smb_stat(struct client *c, const struct op *op)
{
	return stat_path(c, op, c->path[0]);
}

/* ---- options, in the parent ---- */

/* //SERVER[:PORT]/SHARE[/DIR] (also smb://..., and backslashes). */
static int parse_share(const char *arg, int default_port)
{
	char text[2048], *p, *server, *share, *dir, *colon;
	size_t n = 0;

	if (strlen(arg) >= sizeof(text))
		goto bad;
	for (const char *q = arg; *q; q++)
		text[n++] = *q == '\\' ? '/' : *q;
	text[n] = '\0';
	p = text;
	if (strncasecmp(p, "smb:", 4) == 0)
		p += 4;
	if (strncmp(p, "//", 2) != 0)
		goto bad;
	server = p + 2;
	share = strchr(server, '/');
	if (!share)
		goto bad;
	*share++ = '\0';
	dir = strchr(share, '/');
	if (dir)
		*dir++ = '\0';
	colon = strchr(server, ':');
	smbopt.port = default_port;
	if (colon) {
		int64_t port;

		*colon = '\0';
		if (parse_i64(colon + 1, &port) < 0 || port < 1 || port > 65535) {
			warnx_("--smb-share '%s': '%s' is not a port", arg, colon + 1);
			return -1;
		}
		smbopt.port = (int)port;
	}
	if (!*server || !*share || strpbrk(server, "@?%# \t"))
		goto bad;
	if (strlen(server) >= sizeof(smbopt.server) || strlen(share) >= sizeof(smbopt.share))
		goto bad;
	strcpy(smbopt.server, server);
	strcpy(smbopt.share, share);
	/* the directory: components joined by '/', no '.' or '..' */
	n = 0;
	for (char *save, *comp = dir ? strtok_r(dir, "/", &save) : NULL; comp;
	     comp = strtok_r(NULL, "/", &save)) {
		size_t len = strlen(comp);

		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			warnx_("--smb-share '%s': '.' and '..' are not allowed in the directory", arg);
			return -1;
		}
		if (n + len + 2 > sizeof(smbopt.subdir))
			goto bad;
		if (n)
			smbopt.subdir[n++] = '/';
		memcpy(smbopt.subdir + n, comp, len + 1);
		n += len;
	}
	return 0;
bad:
	warnx_("--smb-share '%s': expected //SERVER[:PORT]/SHARE[/DIR]", arg);
	return -1;
}

/* Read a password from the terminal without echo; -1 if there is none. */
static int ask_password(const char *prompt, char *buf, size_t len)
{
	struct termios old, quiet;
	size_t n = 0;
	char ch;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &old) < 0) {
		close(fd);
		return -1;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	if (write_all(fd, prompt, strlen(prompt)) < 0 || tcsetattr(fd, TCSAFLUSH, &quiet) < 0) {
		close(fd);
		return -1;
	}
	while (read(fd, &ch, 1) == 1 && ch != '\n' && ch != '\r')
		if (n + 1 < len)
			buf[n++] = ch;
	buf[n] = '\0';
	tcsetattr(fd, TCSAFLUSH, &old);
	write_all(fd, "\n", 1);
	close(fd);
	return 0;
}

/* [DOMAIN/]USER[%PASSWORD] (DOMAIN\USER too); the password from the
 * argument, else the environment, else the terminal. */
static int parse_user(const char *arg)
{
	char text[sizeof(smbopt.domain) + sizeof(smbopt.user) + sizeof(smbopt.password)];
	char *user, *pass, *sep;
	const char *env;

	if (strlen(arg) >= sizeof(text)) {
		warnx_("--smb-user: too long");
		return -1;
	}
	strcpy(text, arg);
	pass = strchr(text, '%');
	if (pass)
		*pass++ = '\0';
	user = text;
	sep = strpbrk(text, "/\\");
	if (sep) {
		*sep = '\0';
		if (strlen(text) >= sizeof(smbopt.domain))
			goto toolong;
		strcpy(smbopt.domain, text);
		user = sep + 1;
	}
	if (!*user) {
		warnx_("--smb-user '%s': no user name", arg);
		return -1;
	}
	if (strlen(user) >= sizeof(smbopt.user) || (pass && strlen(pass) >= sizeof(smbopt.password)))
		goto toolong;
	strcpy(smbopt.user, user);
	if (pass) {
		strcpy(smbopt.password, pass);
		return 0;
	}
	env = getenv(SMB_PASSWORD_ENV);
	if (env) {
		if (strlen(env) >= sizeof(smbopt.password))
			goto toolong;
		strcpy(smbopt.password, env);
		return 0;
	}
	snprintf(text, sizeof(text), "Password for %s%s%s on %s: ", smbopt.domain,
		 smbopt.domain[0] ? "/" : "", smbopt.user, smbopt.server);
	if (ask_password(text, smbopt.password, sizeof(smbopt.password)) < 0) {
		warnx_("--smb-user %s: no password: set %s (or run on a terminal to be asked)", arg,
		       SMB_PASSWORD_ENV);
		return -1;
	}
	return 0;
toolong:
	warnx_("--smb-user: a name or the password is too long");
	return -1;
}

static int dialect_index(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(smb_dialects); i++)
		if (strlen(smb_dialects[i]) == len && strncasecmp(smb_dialects[i], name, len) == 0)
			return (int)i;
	return -1;
}

/* MIN[:MAX]: one name alone is both. */
static int parse_protocol(const char *arg)
{
	const char *colon = arg ? strchr(arg, ':') : NULL;
	int lo, hi;

	if (!arg) {
		smbopt.min_proto = smb_dialects[0];
		smbopt.max_proto = smb_dialects[ARRAY_SIZE(smb_dialects) - 1];
		return 0;
	}
	lo = dialect_index(arg, colon ? (size_t)(colon - arg) : strlen(arg));
	hi = colon ? dialect_index(colon + 1, strlen(colon + 1)) : lo;
	if (lo < 0 || hi < 0) {
		warnx_("--smb-protocol '%s': expected MIN[:MAX] of SMB2_02 SMB2_10 SMB3_00 SMB3_02 SMB3_11",
		       arg);
		return -1;
	}
	if (lo > hi) {
		warnx_("--smb-protocol '%s': %s is newer than %s", arg, smb_dialects[lo], smb_dialects[hi]);
		return -1;
	}
	smbopt.min_proto = smb_dialects[lo];
	smbopt.max_proto = smb_dialects[hi];
	return 0;
}

static int parse_timeout(const char *arg)
{
	int64_t secs = SMB_TIMEOUT_DEFAULT;

	if (arg && (parse_i64(arg, &secs) < 0 || secs < 1 || secs > 3600)) {
		warnx_("--smb-timeout '%s': expected seconds from 1 to 3600", arg);
		return -1;
	}
	smbopt.timeout_ms = (int)secs * 1000;
	return 0;
}

/* Options of the fileio backend that have no meaning over libsmbclient. */
static int refuse_local_options(const struct options *opt)
{
	const char *what = opt->sync_open ? "-s (libsmbclient does not ask for write-through)" :
			   opt->sync_dirs ? "-S (there is no directory to fsync over SMB)" :
			   opt->do_fsync ? "-F (libsmbclient has no flush call)" : NULL;

	if (!what)
		return 0;
	warnx_("the smb backend cannot do %s", what);
	return -1;
}

static void build_urls(void)
{
	size_t n;

	n = (size_t)snprintf(smbopt.base_url, sizeof(smbopt.base_url), "smb://%s/", smbopt.server);
	n += url_encode(smbopt.base_url + n, smbopt.share);
	if (smbopt.subdir[0]) {
		smbopt.base_url[n++] = '/';
		n += url_encode(smbopt.base_url + n, smbopt.subdir);
	}
	smbopt.base_len = n;
	if (smbopt.port)
		snprintf(smbopt.display, sizeof(smbopt.display), "//%s:%d/%s%s%s", smbopt.server,
			 smbopt.port, smbopt.share, smbopt.subdir[0] ? "/" : "", smbopt.subdir);
	else
		snprintf(smbopt.display, sizeof(smbopt.display), "//%s/%s%s%s", smbopt.server,
			 smbopt.share, smbopt.subdir[0] ? "/" : "", smbopt.subdir);
}

static int smb_init(struct options *opt)
{
	char error[512];
	SMBCCTX *ctx;
	int rc;

	if (!smbopt.share_arg) {
		warnx_("the smb backend needs --smb-share //SERVER[:PORT]/SHARE[/DIR]");
		return -1;
	}
	if (opt->server) {
		warnx_("unexpected argument '%s' (the smb backend takes the server from --smb-share)",
		       opt->server);
		return -1;
	}
	if (parse_share(smbopt.share_arg, opt->port) < 0 || parse_protocol(smbopt.protocol_arg) < 0 ||
	    parse_timeout(smbopt.timeout_arg) < 0 || refuse_local_options(opt) < 0)
		return -1;
	if (smbopt.user_arg && parse_user(smbopt.user_arg) < 0)
		return -1;
	build_urls();
	prefer_poll_events();
	/* one connection now: a wrong password or share is one line here,
	 * before any client starts */
	ctx = new_context(error, sizeof(error));
	if (!ctx) {
		warnx_("%s", error);
		return -1;
	}
	rc = connect_share(ctx, error, sizeof(error));
	smbc_free_context(ctx, 1);
	if (rc < 0)
		warnx_("%s", error);
	return rc;
}

const struct backend smb_backend = {
	.abi = BACKEND_ABI,
	.name = "smb",
	.description = "a real SMB2/3 server through libsmbclient (--smb-share)",
	.flags = BACKEND_NETWORK | BACKEND_FILES,
	.options = smb_option_table,
	.init = smb_init,
	.setup = smb_setup,
	.teardown = smb_teardown,
	.remove_tree = smb_remove_tree,
	.exists = smb_exists,
	.op = {
		[OP_NTCREATEX] = smb_ntcreatex,
		[OP_CLOSE] = smb_close,
		[OP_RENAME] = smb_rename,
		[OP_UNLINK] = smb_unlink,
		[OP_DELTREE] = smb_deltree,
		[OP_MKDIR] = smb_mkdir,
		[OP_RMDIR] = smb_rmdir,
		[OP_QPATHINFO] = smb_qpathinfo,
		[OP_QFILEINFO] = smb_qfileinfo,
		[OP_QFSINFO] = smb_qfsinfo,
		[OP_SFILEINFO] = smb_sfileinfo,
		[OP_FIND_FIRST] = smb_find_first,
		[OP_WRITEX] = smb_writex,
		[OP_READX] = smb_readx,
		[OP_LOCKX] = smb_lockx,
		[OP_UNLOCKX] = smb_unlockx,
		[OP_FLUSH] = smb_flush,
		[OP_SMB_OPEN] = smb_smb_open,
		[OP_SMB_CLOSE] = smb_close,
		[OP_SMB_READ] = smb_smb_read,
		[OP_SMB_WRITE] = smb_smb_write,
		[OP_SMB_READDIR] = smb_smb_readdir,
		[OP_SMB_STAT] = smb_smb_stat,
	},
};

BACKEND_MODULE(smb_backend);
