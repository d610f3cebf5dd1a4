/*
 * client_process.c - what a client process runs (see client_process.h):
 * it sets up its clients (connects, checks its trees) and marks each slot
 * READY, blocks reading the release pipe, drives its clients until they
 * have finished (the end of the window, their passes, the stop flag),
 * removes each client's own tree, tears its clients down and exits.  The
 * parent's side of the run is run.c.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "client.h"
#include "client_process.h"
#include "engine.h"
#include "options.h"
#include "region_atomic.h"
#include "signals.h"
#include "util.h"

static void slot_fail(struct client *c, const char *why)
{
	snprintf(c->slot->error, sizeof(c->slot->error), "%s", why);
	slot_set_state(c->slot, SLOT_FAILED);
}

/* Which client roots are this client's to remove at the end: those the
 * run created, and those the loadfile itself deletes and remakes. */
static int find_owned_roots(struct client *c)
{
	const struct program *prog = c->prog;
	char path[PATH_MAX];

	for (uint32_t r = 0; r < prog->nclient_roots; r++) {
		int e;

		client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		e = c->be->exists(c, path);
		if (e < 0)
			return -1;
		if (!e || (prog->client_root_deltreed & (1ULL << r)))
			c->roots_owned |= 1ULL << r;
	}
	return 0;
}

static int check_shared_roots(struct client *c)
{
	const struct program *prog = c->prog;

	for (uint32_t r = 0; r < prog->nshared_roots; r++) {
		int e = c->be->exists(c, prog->shared_roots[r]);

		if (e < 0)
			return -1;
		c->sh->root_existed[r] = (uint8_t)e;
	}
	return 0;
}

/* Remove the client's own trees: 0, or -1 with the client failed (its
 * first failure kept). */
static int client_cleanup(struct client *c)
{
	const struct program *prog = c->prog;
	char path[PATH_MAX];
	int rc = 0;

	if (c->opt->skip_cleanup || !c->priv_ready)
		return 0;
	for (uint32_t r = 0; r < prog->nclient_roots; r++) {
		if (!(c->roots_owned & (1ULL << r)))
			continue;
		client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		if (c->be->remove_tree(c, path) < 0)
			rc = -1;
		if (rc < 0 && !c->failed) {
			char why[sizeof(c->error)];

			/* the backend's reason names the path: say it was the cleanup */
			c->failed = 1;
			snprintf(why, sizeof(why), "%s", c->error);
			if (why[0])
				snprintf(c->error, sizeof(c->error), "cleanup: %s", why);
			else
				snprintf(c->error, sizeof(c->error), "cleanup: cannot remove %s", path);
		}
	}
	return rc;
}

/* Tear a client down (once: its backend state goes); 0. */
static int client_teardown(struct client *c)
{
	if (c->priv_ready && c->be->teardown)
		c->be->teardown(c);
	c->priv_ready = 0;
	return 0;
}

/* This process's user and system CPU so far, in ns. */
static void process_cpu(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (uint64_t)ru.ru_utime.tv_sec * NSEC_PER_SEC + (uint64_t)ru.ru_utime.tv_usec * 1000;
	*sys = (uint64_t)ru.ru_stime.tv_sec * NSEC_PER_SEC + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

/* Wait for the release; -1 if a stop signal came first. */
static int wait_release(int fd)
{
	char b;

	while (read(fd, &b, 1) < 0 && errno == EINTR && !signals_client_seen(NULL))
		;
	close(fd);
	return signals_client_seen(NULL) ? -1 : 0;
}

/* "stopped by signal 15 (Terminated) before the run": why a client that a
 * signal of its own stopped failed. */
static void signal_message(char *buf, size_t len, int sig, const char *when)
{
	snprintf(buf, len, "stopped by signal %d (%s) %s", sig, strsignal(sig), when);
}

/* Set a client up: connect, look at its trees; READY, or -1 with its slot
 * failed (the first failure: the process then sets up no more clients). */
static int client_setup(struct client *c)
{
	c->slot->pid = getpid();
	if (signals_client_seen(NULL)) {
		signal_message(c->error, sizeof(c->error), signals_client_seen(NULL), "while setting up");
		slot_fail(c, c->error);
		return -1;
	}
	if (c->be->setup(c) < 0) {
		slot_fail(c, c->error[0] ? c->error : "setup failed");
		return -1;
	}
	c->priv_ready = 1;
	if ((c->id == 0 && check_shared_roots(c) < 0) || find_owned_roots(c) < 0) {
		slot_fail(c, c->error[0] ? c->error : "cannot inspect the target");
		return -1;
	}
	slot_set_state(c->slot, SLOT_READY);
	return 0;
}

static void run_clients(struct client *cl, int n)
{
	uint64_t now = now_ns();
	/* (at least 2 s: a parent that is well says so once a second) */
	uint64_t silence = options.mpi ? (uint64_t)MAX(options.mpi_timeout - 1, 2) * NSEC_PER_SEC : 0;
	int live;

	for (;;) {
		uint64_t next = UINT64_MAX;
		int ran = 0;

		/* --mpi: a parent silent for about --mpi-timeout is stopped or
		 * hung, and the other ranks are ending the job: stop, and remove
		 * our trees before mpirun's SIGKILL (a second early, so that they
		 * are gone before the others remove the shared directories) */
		if (silence && now > region_parent_alive_ns(cl[0].sh) + silence)
			signals_client_stop();

		live = 0;
		for (int i = 0; i < n; i++) {
			int r = client_advance(&cl[i], &now, signals_client_stop_flag());

			if (r == CLIENT_FINISHED)
				continue;
			live++;
			if (r == CLIENT_RAN)
				ran = 1;
			else
				next = MIN(next, cl[i].due_ns);
		}
		if (!live)
			break;
		if (!ran) {
			/* wake at least every 50 ms to see the stop flag */
			sleep_until_ns(MIN(next, now + 50 * NSEC_PER_MSEC));
			now = now_ns();
		}
	}
}

/* Remove the shared roots the run made (those not there before it);
 * -1 if one could not be removed (said on stderr). */
static int remove_shared_roots(struct client *c, const struct program *prog, struct shared *sh)
{
	int rc = 0;

	for (uint32_t r = 0; r < prog->nshared_roots; r++) {
		if (sh->root_existed[r])
			continue;
		if (c->be->remove_tree(c, prog->shared_roots[r]) < 0) {
			fprintf(stderr, "%s: cleanup: cannot remove %s: %s\n", options.progname,
				prog->shared_roots[r], c->error);
			rc = -1;
		}
	}
	return rc;
}

void client_process_main(int first, int count, const struct program *prog, const struct backend *be,
			 const void *be_opt, struct shared *sh, int release_fd, pid_t parent)
{
	struct client *cl = xcalloc((size_t)count, sizeof(*cl));
	struct engine *engine = NULL;
	int status = 0;

	set_exit_hook(NULL);	/* the parent writes the documents */
	signals_client_catch();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		signals_client_stop();
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (int i = 0; i < count; i++)
		client_init(&cl[i], first + i, &options, prog, be, be_opt, sh, options.seed);
	/* an asynchronous backend's clients share one event loop (engine.c),
	 * as does a client with a queue (--iodepth); the others take turns,
	 * each op run to its end (run_clients) */
	if ((be->flags & BACKEND_ASYNC) && (count > 1 || options.iodepth > 1)) {
		engine = engine_create(cl, count);
		if (!engine) {
			slot_fail(&cl[0], "cannot create the event loop (epoll_create1)");
			status = EXIT_USAGE;
		}
	}
	/* the first client alone (it makes what the process's clients may
	 * share: a connection), then the others: side by side on the event
	 * loop where the backend waits there (BACKEND_FIBERS: 1,000 NFS
	 * mounts), else one after another */
	if (status == 0 && count > 0 && client_setup(&cl[0]) < 0)
		status = EXIT_USAGE;
	if (status == 0 && engine && (be->flags & BACKEND_FIBERS)) {
		if (engine_phase(engine, 1, client_setup, "setup", 0, true) > 0)
			status = EXIT_USAGE;
	} else {
		for (int i = 1; i < count && status == 0; i++)
			if (client_setup(&cl[i]) < 0)
				status = EXIT_USAGE;
	}
	if (status == 0 && wait_release(release_fd) < 0) {
		for (int i = 0; i < count; i++) {
			signal_message(cl[i].error, sizeof(cl[i].error), signals_client_seen(NULL),
				       "before the release");
			slot_fail(&cl[i], cl[i].error);
		}
		status = EXIT_USAGE;
	}
	if (status == 0) {
		uint64_t sig_ns;
		int sig;

		if (region_stopping(sh))
			signals_client_stop();
		uint64_t user0, sys0, user1, sys1;

		for (int i = 0; i < count; i++)
			client_start(&cl[i], sh->release_ns, sh->measure_start_ns);
		process_cpu(&user0, &sys0);
		if (engine)
			engine_run(engine, signals_client_stop_flag(), (uint64_t)options.grace * NSEC_PER_SEC);
		else
			run_clients(cl, count);
		process_cpu(&user1, &sys1);
		/* a signal of this process's own cut its clients short: the
		 * parent counts them as failed unless it was stopped too */
		sig = signals_client_seen(&sig_ns);
		for (int i = 0; i < count && sig; i++)
			if (!cl[i].failed && !slot_work_finished(cl[i].slot) && sig_ns < region_end(sh))
				slot_set_signal(cl[i].slot, sig);
		slot_put(&cl[0].slot->cpu_user_ns, user1 - user0);
		slot_put(&cl[0].slot->cpu_sys_ns, sys1 - sys0);
		/* every client is in the cleanup now (the parent kills no
		 * process that is only cleaning up), on the event loop side by
		 * side (engine.c), or one after another */
		for (int i = 0; i < count; i++)
			slot_set_state(cl[i].slot, SLOT_CLEANUP);
		if (engine)
			engine_phase(engine, 0, client_cleanup, "cleanup",
				     (uint64_t)options.grace * NSEC_PER_SEC, false);
		else
			for (int i = 0; i < count; i++)
				client_cleanup(&cl[i]);
		/* the parent was killed (SIGKILL: no final cleanup from it):
		 * the last process out removes the shared roots (not with
		 * --mpi: the other ranks' clients may still be using them) */
		if (region_process_done(sh) == 0 &&
		    getppid() != parent && !options.skip_cleanup && cl[0].priv_ready && !options.mpi)
			remove_shared_roots(&cl[0], prog, sh);
	}
	/* the teardowns (disconnect, unmount): side by side on the loop
	 * where the backend waits there (BACKEND_FIBERS: 1,000 NFSv3
	 * umounts), each call within the backend's own deadline; else one
	 * after another */
	if (engine && (be->flags & BACKEND_FIBERS))
		engine_phase(engine, 0, client_teardown, "teardown", 0, false);
	for (int i = 0; i < count && cl[i].slot; i++) {	/* those set up or tried */
		struct client *c = &cl[i];

		client_teardown(c);
		if (c->failed) {
			slot_fail(c, c->error);
			status = status ? status : EXIT_RUN_FAILED;
		} else if (slot_state(c->slot) != SLOT_FAILED) {
			slot_set_state(c->slot, SLOT_DONE);
		}
	}
	engine_destroy(engine);
	for (int i = 0; i < count; i++)
		client_release(&cl[i]);
	free(cl);
	fflush(stdout);
	_exit(status);
}

void client_process_cleanup(const struct program *prog, const struct backend *be, const void *be_opt,
			    struct shared *sh)
{
	struct client c;
	int rc = 0;

	set_exit_hook(NULL);
	signals_cleanup_catch();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	client_init(&c, 0, &options, prog, be, be_opt, sh, options.seed);
	c.cleanup_only = 1;
	if (be->setup(&c) < 0) {
		fprintf(stderr, "%s: cleanup: %s\n", options.progname, c.error);
		_exit(1);
	}
	if (remove_shared_roots(&c, prog, sh) < 0)
		rc = 1;
	if (be->teardown)
		be->teardown(&c);
	_exit(rc);
}
