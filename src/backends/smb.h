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

/* --smb-signing and --smb-encrypt: Samba's `client signing` and `client
 * smb encrypt` values (smb_secure.c). */
enum smb_mode {
	SMB_MODE_UNSET,		/* not given: libsmbclient's configuration decides */
	SMB_MODE_DEFAULT,	/* "default": Samba's built-in default */
	SMB_MODE_OFF,
	SMB_MODE_IF_REQUIRED,
	SMB_MODE_DESIRED,
	SMB_MODE_REQUIRED,
};

/* The backend's option block: the file options, the options as given on
 * the command line, then as parsed by smb_init() in the parent (read-only
 * in the clients). */
struct smb_options {
	struct nb_options files; /* first (BACKEND_FILES): -s, -S, -F, --fake-io, ... */
	const char *share_arg;	/* --smb-share //SERVER[:PORT]/SHARE[/DIR] */
	const char *user_arg;	/* --smb-user [DOMAIN/]USER[%PASSWORD] */
	const char *protocol_arg; /* --smb-protocol MIN[:MAX] */
	const char *timeout_arg; /* --smb-timeout SECS */
	const char *signing_arg; /* --smb-signing MODE */
	const char *encrypt_arg; /* --smb-encrypt MODE */
	const char *signing_algos_arg; /* --smb-signing-algorithms LIST */
	const char *cipher_algos_arg; /* --smb-encryption-algorithms LIST */

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
	enum smb_mode signing;	/* SMB_MODE_UNSET if not given */
	enum smb_mode encrypt;
	char signing_algos[64];	/* "A, B" as smb.conf takes it, "" if not given */
	char cipher_algos[64];
	char base_url[8 + 256 + 3 * 256 + 3 * 1024]; /* smb://SERVER/SHARE[/DIR], URL-encoded */
	size_t base_len;
	char display[1600];	/* //SERVER[:PORT]/SHARE[/DIR], for messages */
};

extern const struct backend_option smb_option_table[];

/* The options of c's run. */
static inline const struct smb_options *smb_opt(const struct client *c)
{
	return c->be_opt;
}

/* What the session negotiated, as Samba's client library tells it. */
struct smb_facts {
	bool known;		/* it could be read (else the rest is empty) */
	char dialect[16];	/* "SMB3_11" */
	bool is_signed;		/* messages carry an SMB2 signature */
	bool encrypted;		/* messages go in SMB2 TRANSFORM headers */
	char signing_algo[24];	/* negotiated: "AES-128-GMAC", or "none" */
	char cipher[24];	/* negotiated: "AES-128-GCM", or "none" */
};

/* A client's state. */
struct smb {
	struct nb_client nb;	/* first: the netbench layer's state */
	const struct smb_options *opt; /* the run's (c->be_opt) */
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
int smb_init(void *be_opt, const struct run_info *run);

/* Append the URL encoding of text to dst (room for 3 bytes a byte). */
size_t url_encode(char *dst, const char *text);
/* The URL of a path relative to the share root (and --smb-share's DIR). */
const char *url_in(const struct smb_options *o, char *buf, const char *path);

/* A libsmbclient context with the run's settings; NULL with error set. */
SMBCCTX *smb_new_context(const struct smb_options *o, char *error, size_t len);
/* Connect and check the base directory, and that the session is signed
 * or encrypted as required; -1 with error set.  facts may be NULL. */
int smb_connect_share(const struct smb_options *o, SMBCCTX *ctx, struct smb_facts *facts,
		      char *error, size_t len);

/* smb_secure.c: signing and encryption. */
/* Parse --smb-signing, --smb-encrypt and the algorithm lists; -1 after
 * one line on stderr. */
int smb_secure_parse(struct smb_options *o);
/* For each new context, before smbc_init_context: give libsmbclient the
 * settings of those options (a private smb.conf overlay, loaded and
 * removed); -1 with error set. */
int smb_secure_apply(const struct smb_options *o, SMBCCTX *ctx, char *error, size_t len);
/* For each new context: the encryption level, and the hook that sees the
 * connection it makes. */
void smb_secure_context(const struct smb_options *o, SMBCCTX *ctx);
/* After the context's first connection: what it negotiated; -1 with error
 * set if a required mode is not in force. */
int smb_secure_check(const struct smb_options *o, struct smb_facts *f, char *error, size_t len);
/* Report the facts in the banner and the JSON environment. */
void smb_secure_note(const struct smb_facts *f);
/* The canonical name of a mode ("required"). */
const char *smb_mode_name(enum smb_mode mode);

/* The sockets this process has open (fds and inodes, at most max). */
int open_sockets(int *fds, ino_t *inos, int max);
/* After connecting: the one socket not among before[] is the client's. */
void find_connection(struct smb *s, const ino_t *before, int nbefore);
/* Give the core the bytes the connection sent and received. */
void count_wire(struct client *c);

#endif
