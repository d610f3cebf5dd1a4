/*
 * backend.h - what a backend provides, and the client it works for.
 *
 * A backend gives every op it supports a meaning on its target (a local
 * file system, the tbench wire, an SMB or NFS server).  The core expands the
 * op's paths and numbers for the client (c->path, c->num), calls the
 * handler, times it, and compares the status it returns with the expected
 * one.  A handler returns a status in the op's domain (NT status, nfsstat3
 * or nlm4_stats), sets c->bytes to the bytes it moved, and returns
 * STATUS_FATAL (with c->error set) when the client cannot go on, e.g. when
 * the connection to the server is lost.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKEND_H
#define DBENCH_BACKEND_H

#include <limits.h>
#include <stdint.h>

#include "numexpr.h"
#include "op.h"
#include "options.h"

#define STATUS_FATAL UINT32_MAX

struct slot;
struct shared;
struct backend;
struct poptOption;

struct client {
	int id;			/* 0-based client number */
	int nclients;		/* clients in the run */
	const struct options *opt;
	const struct program *prog;
	const struct backend *be;
	struct shared *sh;	/* the shared region */
	struct slot *slot;	/* this client's stats slot */
	char name[24];		/* "client7": replaces the client1 component */
	size_t namelen;
	void *priv;		/* the backend's per-client state */

	/* Arguments of the op being run, expanded for this client. */
	char path[MAX_PATHS][PATH_MAX]; /* relative to the share root */
	size_t pathlen[MAX_PATHS]; /* strlen of each path */
	int64_t num[MAX_NUMS];	/* evaluated numbers */
	uint64_t bytes;		/* set by the handler: bytes moved */
	const struct op *op;	/* the op being run */

	/* Interpreter state. */
	struct numctx nc;	/* client number, clients, random generator */
	uint32_t pc;		/* next program entry */
	int prepared;		/* op at pc evaluated, waiting for due_ns */
	uint64_t due_ns;	/* don't run before this time (pacing, waits) */
	uint64_t last_t1;	/* when the last op ended */
	uint64_t waitsp_since;	/* when the current WAITSP began waiting */
	uint64_t roots_owned;	/* bit i: client root i is ours to remove */
	uint64_t sched_ns;	/* the prepared op's schedule, 0 if unpaced */
	uint64_t release_ns;	/* when the clients were released */
	uint64_t measure_start_ns; /* the measured window starts */
	uint64_t pass;		/* passes completed */
	uint64_t pass_start_ns;	/* when this pass started */
	uint64_t rate_start_ns;	/* -R pacing: start and bytes since */
	uint64_t rate_bytes;
	uint32_t loop_left[MAX_LOOP_DEPTH]; /* iterations left per open LOOP */
	uint32_t loop_depth;
	int64_t last[DIR_COUNT][MAX_NUMS]; /* previous values, '+N' */
	char randstr[MAX_RANDSTR][64]; /* RANDOMSTRING values, NUL-terminated */
	uint8_t randstr_len[MAX_RANDSTR];
	int writepattern;	/* WRITEPATTERN on: verifiable data */
	const char *wptext;	/* WRITEPATTERN <text>: the text and its newline, or NULL */
	size_t wptextlen;
	int path_escaped;	/* a RANDOMSTRING expansion climbed out (fatal) */
	int finished;		/* left the op loop */
	int priv_ready;		/* backend setup succeeded */
	int cleanup_only;	/* set up only to remove what the run made */
	int failed;		/* stopped by a fatal error */

	char error[256];	/* why the client failed */
};

struct backend {
	const char *name;
	const char *description;
	/* The backend's own command-line options (popt), or NULL; listed in
	 * --help under `options_title`. */
	const struct poptOption *options;
	const char *options_title;
	/* In the parent, once, before any client starts: check the options
	 * (server reachable, share given, ...).  Return 0, or -1 after
	 * printing one line to stderr. */
	int (*init)(struct options *opt);
	/* In the client, before the release: connect, prepare.  Return 0, or
	 * -1 with c->error set. */
	int (*setup)(struct client *c);
	/* In the client, at the end: close handles, disconnect. */
	void (*teardown)(struct client *c);
	/* Remove a tree (a file or a directory and everything under it)
	 * without following symlinks; 0 if it is gone (or never existed). */
	int (*remove_tree)(struct client *c, const char *path);
	/* Does the path exist?  1 yes, 0 no, -1 error (c->error set). */
	int (*exists)(struct client *c, const char *path);
	/* Handlers, indexed by op id; NULL where the backend lacks the op
	 * (a loadfile using it is refused at load time). */
	uint32_t (*op[OP_COUNT])(struct client *c, const struct op *op);
};

/* A network backend counts the bytes it sends and receives (all phases),
 * for the report's network line. */
void client_count_net(struct client *c, uint64_t sent, uint64_t received);

/* The optional backends' names, for --help. */
#if defined(HAVE_SMB) && defined(HAVE_NFS)
#define BACKEND_LIST_HELP ", smb, nfs"
#elif defined(HAVE_SMB)
#define BACKEND_LIST_HELP ", smb"
#elif defined(HAVE_NFS)
#define BACKEND_LIST_HELP ", nfs"
#else
#define BACKEND_LIST_HELP ""
#endif

/* All backends built into this program, NULL-terminated. */
extern const struct backend *const backends[];
const struct backend *backend_find(const char *name);

extern const struct backend fileio_backend;
extern const struct backend sockio_backend;
extern const struct backend null_backend;
#ifdef HAVE_SMB
extern const struct backend smb_backend;
#endif
#ifdef HAVE_NFS
extern const struct backend nfs_backend;
#endif

#endif
