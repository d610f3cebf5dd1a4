/*
 * mpi_run.h - several client hosts in one run (--mpi), on MPI.
 *
 * Every rank is a dbench parent process started by mpirun or srun; it
 * forks its share of the clients as a single-host run does.  The clients
 * never touch MPI: only the parent talks to the other ranks, at these
 * points:
 *   mpi_start       after the options: MPI_Init, the rank's share of
 *                   NPROCS and its first global client id, rank 0's seed;
 *                   ranks other than 0 print nothing on stdout
 *   mpi_spread      a --sweep point: the rank's share of its count
 *   mpi_agree       the loadfile is loaded, the clients are set up: did
 *                   every rank succeed?  (else rank 0 prints the message of
 *                   the first rank that failed, and every rank stops; point
 *                   to point, so that a rank that dies meanwhile is named)
 *   mpi_barrier     the release of the clients, the final cleanup (in rank
 *                   order, so that ranks on a shared target do not race)
 *   mpi_exchange    once a second (and at once after a signal: mpi_tick_now):
 *                   each rank's progress figures to rank 0,
 *                   the whole run's back to every rank (point to point, so
 *                   a rank that stops reporting is named)
 *   mpi_gather      the end of a run: each rank's results, as JSON, merged
 *                   exactly on rank 0; mpi_json() is then the run's
 *                   per-rank breakdown ("mpi" in its document)
 *   mpi_max         between runs: one decision for every rank (go on, or
 *                   stop the series), so that all make the same runs
 *   mpi_finish      MPI_Finalize
 * A rank silent for --mpi-timeout seconds ends the job (MPI_Abort) with
 * one line naming its host.  A client process that dies on a signal is
 * reported in its rank's figures: rank 0 names host, client and signal in
 * one line and every rank ends the run (run.c stops its clients), with a
 * report.  A rank that dies is seen by mpirun, which ends the job (SIGCONT,
 * SIGTERM, SIGKILL); rank 0, or rank 1 if rank 0 died, names the rank whose
 * report is missing in one line.  The clients die with their parent
 * (PR_SET_PDEATHSIG).
 *
 * The MPI side is a module, dbench-mpi.so (mpi_run.c), dlopen'ed by
 * mpi_load() only when --mpi is given, so that the program links no MPI
 * library: the functions below (mpi.c) call into it, and without it they
 * are what a single-host run needs (rank 0 of 1, nothing to exchange).
 * Without MPI (configure found none) --mpi is refused.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_MPI_RUN_H
#define DBENCH_MPI_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "results.h"

struct backend;
struct program;

/* One rank's progress figures for a second (summed over ranks, except
 * latency_ns: the largest, and died_*: the first rank's that has one). */
struct mpi_figures {
	uint64_t running;	/* clients running */
	uint64_t active;	/* running or cleaning up */
	uint64_t ops;		/* ops completed, all phases */
	uint64_t bytes_all;	/* bytes moved, all phases */
	uint64_t bytes_measured; /* in the measured window */
	uint64_t clients;	/* clients */
	uint64_t procs_running;	/* client processes not yet reaped */
	uint64_t latency_ns;	/* the largest latency of the second */
	uint64_t died_client;	/* 1 + global id of a client whose process died on a
				   signal (every rank then ends the run), or 0 */
	uint64_t died_signal;	/* that signal */
};

#ifndef DBENCH_MPI_MODULE
/* Load dbench-mpi.so (module.h finds it as it finds the backends); a
 * module or library that is missing, or one built for another dbench, is
 * one line and exit status 2. */
void mpi_load(void);
/* --mpi --version: the module and its MPI library, one line each. */
void mpi_print_version(FILE *out);

bool mpi_on(void);		/* --mpi and MPI is initialized */
int mpi_rank(void);
int mpi_size(void);
void mpi_start(void);
void mpi_spread(int nprocs);
int mpi_max(int value);
int mpi_agree(bool ok, const char *message);
int mpi_same(const struct program *prog, const struct backend *be, char *why, size_t len);
void mpi_barrier(const char *what);
void mpi_exchange(struct mpi_figures *f);
bool mpi_tick_now(void);
void mpi_gather(struct results *r);
void mpi_banner(void);
void mpi_host_lines(FILE *out);
json_t *mpi_json(void);
void mpi_json_add(json_t *doc);
void mpi_finish(void);
#endif

/*
 * What dbench-mpi.so exports: the symbol dbench_mpi, pointing at its
 * table.  The module calls the program's own functions (options, the exit
 * hook, the results model: dbench is linked -rdynamic), so it must come
 * from the same build: abi says which, and mpi_load refuses another.
 */
#define MPI_MODULE_SYMBOL "dbench_mpi"
#define MPI_MODULE_INTERFACE 2

struct mpi_module_abi {
	unsigned interface;	/* MPI_MODULE_INTERFACE */
	unsigned options_size;	/* sizeof(struct options) */
	unsigned results_size;	/* sizeof(struct results) */
	unsigned figures_size;	/* sizeof(struct mpi_figures) */
};

#define MPI_MODULE_ABI ((struct mpi_module_abi){ MPI_MODULE_INTERFACE, sizeof(struct options), \
						 sizeof(struct results), sizeof(struct mpi_figures) })

/* Each hook is the function of the same name above, with MPI. */
struct mpi_module {
	struct mpi_module_abi abi;
	const char *(*library)(void);	/* the MPI library's version, one line */
	bool (*on)(void);
	int (*rank)(void);
	int (*size)(void);
	void (*start)(void);
	void (*spread)(int nprocs);
	int (*max)(int value);
	int (*agree)(bool ok, const char *message);
	int (*same)(const struct program *prog, const struct backend *be, char *why, size_t len);
	void (*barrier)(const char *what);
	void (*exchange)(struct mpi_figures *f);
	bool (*tick_now)(void);
	void (*gather)(struct results *r);
	void (*banner)(void);
	void (*host_lines)(FILE *out);
	json_t *(*json)(void);
	void (*finish)(void);
};

#endif
