/*
 * smb.h - what the two halves of the SMB backend share: the session
 * (smb_session.c: options, URLs, libsmbclient contexts, connecting, bytes
 * on the wire) and the netbench adapter (smb.c).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_SMB_H
#define DBENCH_BACKENDS_SMB_H

#include <libsmbclient.h>
#include <popt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend.h"
#include "netbench.h"

#define KNOWN_DIRS 32		/* directories remembered per client */
#define SMB_TIMEOUT_DEFAULT 10	/* seconds */
#define SMB_PASSWORD_ENV "DBENCH_SMB_PASSWORD"
#define MAX_SOCKETS 256		/* sockets of a process looked at in setup */

/* The backend's options: as given on the command line, then as parsed by
 * smb_init() in the parent (read-only in the clients). */
struct smb_options {
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
	const char *password_from; /* where the password came from, for messages */
	const char *min_proto;	/* one of smb_dialects */
	const char *max_proto;
	int timeout_ms;		/* libsmbclient's per-request timeout */
	char base_url[8 + 256 + 3 * 256 + 3 * 1024]; /* smb://SERVER/SHARE[/DIR], URL-encoded */
	size_t base_len;
	char display[1600];	/* //SERVER[:PORT]/SHARE[/DIR], for messages */
};

extern struct smb_options smbopt;
extern const struct poptOption smb_option_table[];

/* A client's state. */
struct smb {
	struct nb_client nb;	/* first: the netbench layer's state */
	SMBCCTX *ctx;		/* this client's context: its own connection */
	SMBCFILE *fs_dir;	/* the base directory, for QUERY_FS_INFORMATION */
	bool lost;		/* the connection is gone: do not wait on it again */
	char *url;		/* URL buffers of url_size bytes */
	char *url2;
	size_t url_size;
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

/* In the parent: parse and check the options, connect once. */
int smb_init(struct options *opt);

/* Append the URL encoding of text to dst (room for 3 bytes a byte). */
size_t url_encode(char *dst, const char *text);
/* The URL of a path relative to the share root (and --smb-share's DIR). */
const char *url_in(char *buf, const char *path);

/* A libsmbclient context with the run's settings; NULL with error set. */
SMBCCTX *smb_new_context(char *error, size_t len);
/* Connect and check the base directory; -1 with error set. */
int smb_connect_share(SMBCCTX *ctx, char *error, size_t len);

/* The sockets this process has open (fds and inodes, at most max). */
int open_sockets(int *fds, ino_t *inos, int max);
/* After connecting: the one socket not among before[] is the client's. */
void find_connection(struct smb *s, const ino_t *before, int nbefore);
/* Give the core the bytes the connection sent and received. */
void count_wire(struct client *c);

#endif
