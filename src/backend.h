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
#include <stdio.h>

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

/* The interface a backend is built against.  Bump BACKEND_INTERFACE when
 * struct backend, struct client or the meaning of a field changes; a
 * module built against another interface (or with other struct sizes) is
 * refused with one line, before anything else in it is read. */
#define BACKEND_INTERFACE 3	/* 2: struct backend gained why_unsupported;
				   3: check_program */

struct backend_abi {
	uint32_t interface;	/* BACKEND_INTERFACE */
	uint32_t backend_size;	/* sizeof(struct backend) */
	uint32_t client_size;	/* sizeof(struct client) */
	uint32_t options_size;	/* sizeof(struct options) */
};

/* The first field of every backend table: `.abi = BACKEND_ABI,`. */
#define BACKEND_ABI                                                                        \
	{                                                                                   \
		BACKEND_INTERFACE, sizeof(struct backend), sizeof(struct client),          \
			sizeof(struct options)                                              \
	}

/* What a backend is, for the core (which names no backend): */
enum backend_flags {
	BACKEND_DIRECTORY = 1u << 0,	/* works in -D: the directory is checked before the run */
	BACKEND_SERVER = 1u << 1,	/* takes a server: --server, --port, tbench's SERVER */
	BACKEND_NETWORK = 1u << 2,	/* talks to a server over the network (counts its bytes) */
	BACKEND_FILES = 1u << 3,	/* runs the netbench ops on files: takes the file
					   options (-s, -S, -F, --fake-io, ...) */
	BACKEND_NFS_OPS = 1u << 4,	/* has the NFSv3 ops (READ3, LOOKUP3, ...) */
	BACKEND_BLOCK = 1u << 5,	/* block storage (a device or LUN, no file system) */
};

struct backend {
	struct backend_abi abi;	/* BACKEND_ABI: checked first when loaded */
	const char *name;	/* -B NAME */
	const char *description; /* one line for --help's list of backends */
	unsigned flags;		/* enum backend_flags */
	/* The backend's own command-line options (popt), or NULL; --help
	 * lists them under "NAME backend options (-B NAME):". */
	const struct poptOption *options;
	/* In the parent, once, before any client starts: check the options
	 * (server reachable, share given, ...).  Return 0, or -1 after
	 * printing one line to stderr. */
	int (*init)(struct options *opt);
	/* In the parent, once, after init: may this loadfile run on the
	 * target (writes to a block device need --allow-block-writes)?
	 * Return 0, or -1 after printing one line to stderr.  May be NULL. */
	int (*check_program)(const struct program *prog, const struct options *opt);
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
	/* Why the backend lacks op id (its handler is NULL), or NULL: the
	 * rest of the load-time refusal "FILE:N: NAME <reason>", e.g. "is an
	 * NFSv3 operation: not available with --nfs-version 4".  Without it
	 * (or when it answers NULL) the line ends "is not supported by the
	 * NAME backend".  Asked in the parent, after the options are parsed. */
	const char *(*why_unsupported)(int id);
	/* Handlers, indexed by op id; NULL where the backend lacks the op
	 * (a loadfile using it is refused at load time). */
	uint32_t (*op[OP_COUNT])(struct client *c, const struct op *op);
};

/* A backend built as a module (dbench-NAME.so) ends with
 * BACKEND_MODULE(name_backend);: the one symbol the core looks up. */
#define BACKEND_MODULE_SYMBOL "dbench_backend"
#define BACKEND_MODULE(table) const struct backend *const dbench_backend = &(table)

/* A network backend counts the bytes it sends and receives (all phases),
 * for the report's network line. */
void client_count_net(struct client *c, uint64_t sent, uint64_t received);

/* ---- the registry (backend.c): built-in backends and loaded modules ---- */

/* The backend called name: built in, loaded already, or loaded now from
 * dbench-NAME.so.  NULL if there is none, with one line in why (unknown
 * backend, module missing or built for another dbench, library missing
 * and the Debian package that has it). */
const struct backend *backend_find(const char *name, char *why, size_t whylen);

/* Load every module found (for --help); a module that cannot be loaded
 * is listed with the reason. */
void backend_load_all(void);

/* The backends known so far (built in, then loaded), NULL-terminated. */
const struct backend *const *backend_list(void);

/* The default backend: dbench's, or tbench's (as_tbench). */
const char *backend_default(int as_tbench);

/* Print --help's list of backends (name, description, traits, module
 * path, modules that failed to load) and where modules are looked for. */
void backend_print_help(FILE *out);

#endif
