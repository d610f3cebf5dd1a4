/*
 * backend.h - what a backend provides, and the client it works for: the
 * whole contract between the core and a backend, in this one file.
 *
 * A backend gives every op it supports a meaning on its target (a local
 * file system, the tbench wire, an SMB or NFS server, a block device).  The
 * core expands the op's paths and numbers for the client (c->path,
 * c->num), calls the handler, times it, and compares the status it returns
 * with the expected one.  A handler returns a status in the op's domain
 * (NT status, nfsstat3, nlm4_stats or a SCSI status), sets c->bytes to the
 * bytes it moved, and returns STATUS_FATAL (with c->error set) when the
 * client cannot go on, e.g. when the connection to the server is lost.
 *
 * To add a backend NAME, write src/backends/NAME.c, read top to bottom:
 *   1. its option block, struct NAME_options (starting with struct
 *      nb_options if it runs the netbench ops on files: netbench.h), and
 *      the table of its options (struct backend_option, below);
 *   2. its per-client state, made by setup() and found at c->priv;
 *   3. init() (the parent: check the options, reach the target once),
 *      setup(), teardown(), exists(), remove_tree(), and the op handlers
 *      (a file backend writes a struct nb_adapter and lists NB_OPS);
 *   4. at the bottom, one const struct backend with designated
 *      initializers, .abi = BACKEND_ABI first; then either list it in
 *      backend.c's builtin[] or end the file with BACKEND_MODULE(table)
 *      and build it as src/dbench-NAME.so (Makefile.am).
 * src/backends/null.c is the smallest backend; fileio.c the smallest file
 * backend; tests/modules/testmod.c a module with an option.
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

#define STATUS_FATAL UINT32_MAX
#define STATUS_PENDING (UINT32_MAX - 1) /* asynchronous: started, completes later */

struct slot;
struct shared;
struct backend;
struct options;
struct engine;
struct client_io;
struct fiber;

/*
 * A client, as the core runs it.  A backend reads who the client is (id,
 * nclients, name, prog, be_opt, cleanup_only), the op being run (op, path,
 * pathlen, num, the WRITEPATTERN state, nc.rng for random data) and sets
 * priv (setup), bytes (every handler) and error (when it fails).  The rest
 * is the interpreter's; opt is the core's options, which a backend does
 * not read (they are not part of the module interface: struct run_info
 * is what a backend is told of the run).
 */
struct client {
	int id;			/* 0-based client number */
	int nclients;		/* clients in the run */
	const struct options *opt; /* the core's options */
	const struct program *prog;
	const struct backend *be;
	const void *be_opt;	/* the backend's option block (struct NAME_options) */
	struct shared *sh;	/* the shared region */
	struct slot *slot;	/* this client's stats slot */
	char name[24];		/* "client7": replaces the client1 component */
	size_t namelen;
	void *priv;		/* the backend's per-client state */

	/* Arguments of the op being run, expanded for this client. */
	char *path[MAX_PATHS];	/* relative to the share root; each sized for the
				   loadfile's longest expanded path (client_init) */
	size_t pathlen[MAX_PATHS]; /* strlen of each path */
	size_t path_size;	/* bytes of each path buffer */
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

	/* The asynchronous form (see "the asynchronous form" below). */
	struct engine *engine;	/* the event loop running this client, or NULL:
				   the handlers block, as a synchronous backend's */
	uint64_t deadline_ns;	/* a pending op: expire() if still pending then
				   (set by the handler; 0: no deadline) */
	uint64_t op_t0;		/* the core's: when the pending op was submitted */
	uint32_t engine_state;	/* the core's: runnable, waiting, pending, finished */
	uint32_t heap_index;	/* the core's: place in the engine's timer heap */

	/* A queue (--iodepth, "a queue" below). */
	uint32_t iodepth;	/* ops this client may keep in flight (1: one) */
	uint32_t tag;		/* the op being submitted: its place in the queue,
				   0 .. iodepth - 1, until client_complete_io(tag) */
	uint32_t inflight;	/* the core's: ops in flight (with iodepth > 1) */
	int drain;		/* the core's: blocked until none is in flight (a
				   barrier), not only until one completes */
	int solo;		/* the core's: the op in flight is a barrier (not
				   queueable): nothing goes beside it */
	struct client_io *io;	/* the core's: the ops in flight, iodepth of them */

	char error[256];	/* why the client failed */
};

/* ---- a backend's options ----
 *
 * A backend owns its options (as fio's engines and IOR's backends do): it
 * declares them in a table of struct backend_option and the size of the
 * block that holds their values (its struct NAME_options).  The core
 * allocates the block zeroed, sets each option's default, lets the command
 * line fill it (each value at its option's offset), and hands it to the
 * backend's calls: variant() and init() in the parent (which may check the
 * values and fill fields derived from them), then every client through
 * c->be_opt, read-only.  A backend keeps no option in a global.
 *
 * The block of a BACKEND_FILES backend starts with struct nb_options
 * (netbench.h): the file options -s, -S, -F, ... that the file backends
 * share, parsed by the core and listed once in --help. */

enum backend_option_type {
	BOPT_FLAG,		/* int: 1 when given */
	BOPT_STRING,		/* const char *: the argument as given, or .def */
	BOPT_DIRECTORY,		/* const char *, as BOPT_STRING: the directory the
				   backend works in (BACKEND_DIRECTORY), which the
				   core checks before the run (a writable
				   directory) and describes in the results */
};

struct backend_option {
	const char *name;	/* --NAME */
	char short_name;	/* -C, or 0 */
	enum backend_option_type type;
	size_t offset;		/* offsetof(struct NAME_options, field) */
	const char *def;	/* string types: the value when not given, or NULL */
	const char *help;	/* --help's text */
	const char *arg_name;	/* string types: --help's name of the value ("SECS") */
	const char *result_name; /* the name under which the results' environment
				   records the option ("sync": "yes"/"no"), or NULL */
};

/* What the core tells a backend about the run, in the parent (init): the
 * only settings of the core a backend reads.  The core's struct options is
 * not part of the module interface. */
struct run_info {
	const char *progname;	/* "dbench" or "tbench", for messages */
	const char *server;	/* --server or tbench's SERVER, or NULL (BACKEND_SERVER) */
	int port;		/* --port, or 0: the backend's default */
	int nclients;		/* the clients this run starts (this rank's, with --mpi) */
	int64_t trunc_io;	/* --trunc-io: most bytes a read or write of the
				   backend's own ops moves (nfs, block), 0: no limit */
};

/* The interface a backend is built against.  Bump BACKEND_INTERFACE when
 * struct backend, struct backend_option, struct run_info, struct client,
 * struct nb_options or struct nb_adapter (netbench.h), or the meaning of a
 * field changes; a module built against another interface (or with other
 * struct sizes) is refused with one line, before anything else in it is
 * read. */
#define BACKEND_INTERFACE 7	/* 2: struct backend gained why_unsupported;
				   3: check_program;
				   4: backends own their option blocks; run_info, not struct options;
				   5: the asynchronous form (STATUS_PENDING, sources, expire,
				   submit); c->path[] point to buffers sized for the loadfile;
				   6: a queue (queueable, client_complete_io, --iodepth);
				   struct source gained commit (source_commit);
				   7: engine_fiber, BACKEND_FIBERS: the setup and the
				   cleanup on the loop */

struct backend_abi {
	uint32_t interface;	/* BACKEND_INTERFACE */
	uint32_t backend_size;	/* sizeof(struct backend) */
	uint32_t client_size;	/* sizeof(struct client) */
	uint32_t run_info_size;	/* sizeof(struct run_info) */
};

/* The first field of every backend table: `.abi = BACKEND_ABI,`. */
#define BACKEND_ABI                                                                        \
	{                                                                                   \
		BACKEND_INTERFACE, sizeof(struct backend), sizeof(struct client),          \
			sizeof(struct run_info)                                             \
	}

/* What a backend is, for the core (which names no backend): */
enum backend_flags {
	BACKEND_DIRECTORY = 1u << 0,	/* works in a local directory: one BOPT_DIRECTORY
					   option (-D), checked before the run */
	BACKEND_SERVER = 1u << 1,	/* takes a server: --server, --port, tbench's SERVER */
	BACKEND_NETWORK = 1u << 2,	/* talks to a server over the network (counts its bytes) */
	BACKEND_FILES = 1u << 3,	/* runs the netbench ops on files: takes the file
					   options (-s, -S, -F, --fake-io, ...), its option
					   block starts with struct nb_options */
	BACKEND_NFS_OPS = 1u << 4,	/* has the NFSv3 ops (READ3, LOOKUP3, ...) */
	BACKEND_BLOCK = 1u << 5,	/* block storage (a device or LUN, no file system) */
	BACKEND_ASYNC = 1u << 6,	/* offers the asynchronous form: with
					   --clients-per-process > 1 its clients
					   run on one event loop a process */
	BACKEND_FIBERS = 1u << 7,	/* BACKEND_ASYNC whose blocking calls wait on
					   the loop when made on the client's fiber
					   (engine_fiber): the core runs the setup,
					   the cleanup after the run and the
					   teardown there too, clients side by side */
};

/*
 * ---- the asynchronous form ----
 *
 * A synchronous handler runs an op to its end: it blocks until the server
 * answered.  A process then runs one op at a time, whatever the number of
 * its clients.  A backend that sets BACKEND_ASYNC can also start an op and
 * finish it later, so that one process keeps an op of each of its clients
 * in flight: with --clients-per-process N > 1 the core runs the process's
 * clients on one event loop (engine.c, epoll) and sets c->engine.  The
 * parts, after fio's engine interface (queue, then getevents/event) folded
 * onto callbacks as libnfs's and libiscsi's service loops deliver them:
 *
 *   submit      the op handler, called as always, but with c->engine set
 *               (or the backend's submit hook, for every op, if it has
 *               one): it starts the op (queues the request, sends what the
 *               socket takes) and returns STATUS_PENDING; or it finishes
 *               the op at once and returns its status as a synchronous
 *               handler does (nothing to send, an error found before
 *               sending).  The core took the op's start time before the
 *               call.  A backend whose ops are chains of blocking calls may
 *               run each op on a stack of its own and yield where it would
 *               block (src/backends/fiber.h: the NFS backend does).
 *
 *   a source    a descriptor the completions come from (a client's socket,
 *               or a connection its process's clients share) with the
 *               events it waits for.  The backend fills a struct source
 *               and registers it with engine_watch() (in setup), asks for
 *               other events with source_want() (EPOLLOUT while a request
 *               is half sent: the engine changes epoll only when they
 *               change), and removes it with source_unwatch() (teardown).
 *               When the descriptor is ready the engine calls ready(): the
 *               backend services it (reads replies, rpc_service(),
 *               iscsi_service()) and completes what finished.  A source
 *               several clients share may leave their requests queued and
 *               call source_commit(): the engine calls its commit() once
 *               before it waits again, and one write carries the lot.
 *
 *   completion  the backend sets c->bytes and calls client_complete(c,
 *               status): STATUS_FATAL (with c->error) stops the client.
 *               The op's latency runs from before submit to this call; the
 *               core checks the status, records the op and moves the
 *               client on, as after a synchronous handler.  A client has
 *               one op pending at a time (more with a queue, below:
 *               client_complete_io).
 *
 *   expire      c->deadline_ns, set by submit (0: none): if the op is
 *               still pending then, or when the run gives up on it (the
 *               grace after the end of the run is over), the engine calls
 *               expire(c).  It must leave nothing of the op that could
 *               still reach the client (close the client's connection,
 *               cancel the call) and may say why in c->error; the engine
 *               then fails the client.  Required with BACKEND_ASYNC.
 *
 * A queue.  A backend that also has the queueable hook lets one client
 * keep up to --iodepth N ops in flight (fio's iodepth): the interpreter
 * submits the next op before the last one completed when, and only when,
 * queueable(c, op) says the op (prepared: c->num, c->path) may run beside
 * those in flight: an op of a kind the target can queue (iscsi: READ and
 * WRITE) and independent of them (no overlap that would order them).
 * Anything else is a barrier: the core waits until none of the client's
 * ops is in flight, then submits it; so are SLEEP, WAITSP, SETSP, an op
 * paced for later and the end of a pass, so that the loadfile means what
 * it means at depth 1.  The core sets c->tag (0 .. c->iodepth - 1) before
 * each submit; the backend completes that op with client_complete_io(c,
 * tag, status, bytes), in any order.  expire(c) then gives up on all of c's
 * ops in flight.  With --iodepth 1 (the default) nothing of this runs.
 *
 * A process's clients may share state (one connection for all, as a real
 * initiator multiplexes): engine_shared() is one pointer per process the
 * backend owns.  setup, teardown, remove_tree and exists are synchronous
 * calls, with no op of the process in flight.  The setup (after the first
 * client's, alone: it makes what the clients share), the cleanup after the
 * run (remove_tree) and the teardown run on the loop: a backend with
 * BACKEND_FIBERS is called on the client's fiber
 * (engine_fiber(), the one its ops run on: its waits yield there as an
 * op's do, and it completes the call with client_complete() as it would an
 * op; a wait of its own registers a source, and expire() may come before
 * setup has made c->priv whole), a few dozen clients side by side; other
 * backends are called client after client.  Without c->engine (one client
 * a process, the final cleanup) the handlers block as a synchronous
 * backend's do.
 */
struct source {
	int fd;			/* the descriptor to wait on */
	uint32_t events;	/* EPOLLIN, EPOLLOUT: what it waits for now */
	/* The descriptor is ready (revents: EPOLLIN, EPOLLOUT, EPOLLERR,
	 * EPOLLHUP): service it and complete the ops that finished. */
	void (*ready)(struct source *src, uint32_t revents);
	void *arg;		/* the backend's: whose source it is */
	/* Optional: send what the clients queued on src since the last call
	 * (source_commit asked for it). */
	void (*commit)(struct source *src);
	struct engine *engine;	/* the core's: the loop it is registered with */
	uint32_t armed;		/* the core's: the events epoll waits for */
	bool to_commit;		/* the core's: on the loop's commit list */
	struct source *next_commit; /* the core's: that list */
};

/* Register src (fd, events, ready, arg filled) with c's event loop;
 * 0, or -1 with c->error set. */
int engine_watch(struct client *c, struct source *src);
/* Wait for these events on src from now on (a no-op if unchanged). */
void source_want(struct source *src, uint32_t events);
/* Stop watching src (before its descriptor is closed). */
void source_unwatch(struct source *src);
/* A client queued a request on src and left it unsent: the loop calls
 * src->commit() once before it next waits, after every runnable client
 * has run, so that the requests of the clients sharing src leave together
 * (fio's queue, then commit). */
void source_commit(struct source *src);
/* The pending op of c is over: status and c->bytes, as a handler returns. */
void client_complete(struct client *c, uint32_t status);
/* The op submitted with c->tag == tag is over, with status and bytes
 * moved (a queue: any order; also right at depth 1). */
void client_complete_io(struct client *c, uint32_t tag, uint32_t status, uint64_t bytes);
/* The process's pointer for state its clients share (the backend's: made
 * by a client's setup, freed by the last teardown). */
void **engine_shared(struct client *c);
/* c's fiber (fiber.h): its stack mapped when first asked for, freed with
 * the loop, after the teardowns.  A backend runs c's ops on it; the core
 * runs c's cleanup on it (BACKEND_FIBERS).  NULL with c->error set. */
struct fiber *engine_fiber(struct client *c);

/*
 * A backend: one const table, read top to bottom.  Required: abi, name,
 * setup, remove_tree, exists and at least one op; a module lacking one is
 * refused when it is loaded, with one line naming the module and the hook.
 * Everything else may be NULL (or 0).
 *
 * The calls, in the order they come:
 *   variant   parent, once, right after the command line is parsed
 *   init      parent, once, before any client starts (not with --check-loadfile)
 *   check_program   parent, once, after init: may this loadfile run here
 *   setup     each client, before the release (and the final cleanup's)
 *   op[id]    each client, the loadfile's ops
 *   remove_tree, exists   each client: its trees before and after the run
 *   queueable with --iodepth > 1: may the client's next op start now
 *   expire    an asynchronous client's op that will not complete
 *   teardown  each client, at the end
 * A client reaches its backend's state through c->priv (set by setup) and
 * the option block through c->be_opt: nothing a backend keeps is global,
 * so that one process may serve many clients.
 */
struct backend {
	struct backend_abi abi;	/* BACKEND_ABI: checked first when loaded */
	const char *name;	/* -B NAME */
	const char *description; /* one line for --help's list of backends */
	unsigned flags;		/* enum backend_flags */
	/* The backend's own command-line options, ended by an entry whose
	 * name is NULL, or NULL; --help lists them under "NAME backend
	 * options (-B NAME):". */
	const struct backend_option *options;
	/* Bytes of the option block (sizeof(struct NAME_options)), 0 if the
	 * backend has none; every option's field lies within it. */
	size_t options_size;
	/* In the parent, once, right after the command line is parsed (also
	 * with --check-loadfile, before the loadfile is checked against the
	 * table): the table to run with when the options choose between
	 * variants of the backend (nfs answers its NFSv4 table for
	 * --nfs-version 4).  A variant has the same name, options and
	 * options_size.  NULL with one line in why: exit status 2.  May fill
	 * fields of the block derived from the options. */
	const struct backend *(*variant)(void *be_opt, char *why, size_t whylen);
	/* In the parent, once, before any client starts: check the options
	 * (server reachable, share given, ...) and fill the fields derived
	 * from them, which the clients then read.  Return 0, or -1 after
	 * printing one line to stderr. */
	int (*init)(void *be_opt, const struct run_info *run);
	/* In the parent, once, after init: may this loadfile run on the
	 * target (writes to a block device need --allow-block-writes)?
	 * Return 0, or -1 after printing one line to stderr.  May be NULL. */
	int (*check_program)(const struct program *prog, const void *be_opt,
			     const struct run_info *run);
	/* In the client, before the release: connect, prepare (c->priv).
	 * Return 0, or -1 with c->error set. */
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
	/* BACKEND_ASYNC: give up on c's pending op (its deadline passed, or
	 * the run gives up on it; with a queue, on all of c's ops in flight):
	 * nothing of them may reach c afterwards; say why in c->error.  See
	 * "the asynchronous form" above. */
	void (*expire)(struct client *c);
	/* BACKEND_ASYNC, optional: with c->engine set the core calls submit
	 * for every op instead of op[id] (a backend that runs its blocking
	 * handlers on a stack of their own: fiber.h); NULL: op[id] itself may
	 * return STATUS_PENDING. */
	uint32_t (*submit)(struct client *c, const struct op *op);
	/* BACKEND_ASYNC, optional: the backend offers a queue (--iodepth; see
	 * "a queue" above).  With ops of c in flight: may op, prepared in
	 * c->num and c->path, start beside them?  1 only for an op the target
	 * queues and that is independent of those in flight; 0: the core
	 * waits until none is in flight, then submits it.  NULL: no queue,
	 * --iodepth > 1 is refused. */
	int (*queueable)(struct client *c, const struct op *op);
	/* Handlers, indexed by op id; NULL where the backend lacks the op
	 * (a loadfile using it is refused at load time).  With c->engine set,
	 * a BACKEND_ASYNC backend's handler may return STATUS_PENDING. */
	uint32_t (*op[OP_COUNT])(struct client *c, const struct op *op);
	/* BACKEND_SERVER: the server when none is given (tbench's
	 * "localhost", as dbench 4.0's), or NULL: one must be given. */
	const char *default_server;
};

/*
 * A backend with variants (variant() above: fileio's psync and io_uring
 * tables, nfs's NFSv3 and NFSv4 ones) is one backend to the user: its
 * tables have one name, one option block and the same variant().  It
 * writes what they share once, in a macro of its own that starts with
 * BACKEND_VARIANT_OF and adds the other members they share, and begins
 * each table with that macro, followed by what differs:
 *
 *	#define NAME_TABLE                                                      \
 *		BACKEND_VARIANT_OF("NAME", NAME_option_table, struct NAME_options, \
 *				   NAME_variant),                                \
 *		.init = NAME_init,                                              \
 *		.setup = NAME_setup
 *
 *	const struct backend NAME_backend = {
 *		NAME_TABLE,
 *		.flags = BACKEND_FILES,
 *	};
 *	static const struct backend NAME_async_backend = {
 *		NAME_TABLE,
 *		.flags = BACKEND_FILES | BACKEND_ASYNC,
 *		.expire = NAME_expire,
 *		.submit = NAME_submit,
 *	};
 *
 * A member stands once in a table (the macro's or the table's, not both:
 * -Woverride-init refuses a second initializer).
 */
#define BACKEND_VARIANT_OF(NAME, OPTIONS, OPTIONS_TYPE, VARIANT)                            \
	.abi = BACKEND_ABI, .name = (NAME), .options = (OPTIONS),                         \
	.options_size = sizeof(OPTIONS_TYPE), .variant = (VARIANT)

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
 * backend, module missing, built for another dbench or lacking a required
 * hook, library missing and the Debian package that has it). */
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

/* The names of the backends with a queue (--iodepth), loaded or loadable:
 * "iscsi", "a, b", or "none installed". */
void backend_queue_names(char *buf, size_t len);

/* Does the table have what the core relies on (the required hooks, an op,
 * options within the block, ...)?  0, or -1 with one line in why naming
 * the hook. */
int backend_check(const struct backend *be, char *why, size_t whylen);

/* The directory a BACKEND_DIRECTORY backend works in (its BOPT_DIRECTORY
 * option), or NULL. */
const char *backend_directory(const struct backend *be, const void *be_opt);
/* Set it (the core makes a relative -D absolute). */
void backend_set_directory(const struct backend *be, void *be_opt, const char *dir);

/* Add the options the results record (their result_name) to env, in
 * table order: the file options first. */
struct environment;
void backend_options_to_environment(const struct backend *be, const void *be_opt,
				    struct environment *env);

#endif
