/*
 * run.c - the parent's side of a run and the client processes' main.
 *
 * The parent forks options.nprocs processes, each running
 * options.clients_per_process clients.  Every client sets up (connects,
 * checks its tree) and marks its slot READY; then all block reading a
 * pipe.  The parent fixes the release time and the measured window in the
 * shared region and closes the pipe: every client wakes at once.  Once a
 * second the parent reads the slots and prints a progress line; clients
 * stop by themselves at the end of the window (or after their passes), or
 * when the parent sets the stop flag (SIGINT/SIGTERM).  Each client removes
 * its own tree; at the end one process removes the shared directories the
 * run created.  Nothing runs in a signal handler but setting a flag.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "mpi_run.h"
#include "progress.h"
#include "run.h"
#include "util.h"

/*
 * The signals that stop a run, in the parent and in each client process
 * (dbench(1) SIGNALS): SIGINT and SIGTERM always; the others unless they
 * were ignored when dbench started (nohup, a shell's background job).  The
 * parent stops the run as for SIGTERM: partial report, error document,
 * cleanup, exit status 128 + the signal.  A client process stops its
 * clients and cleans up; cut short before the end of the run, they are
 * failed clients unless the parent was stopped too (a Ctrl-C reaches the
 * whole process group).  SIGPIPE in a client is ignored: a backend's
 * socket reports EPIPE as an error.
 */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
};

static volatile sig_atomic_t parent_signal;	/* the first stop signal seen */
static volatile sig_atomic_t client_signal;	/* in a client process: the same */
static volatile int client_stop;		/* in a client process */
static volatile uint64_t client_signal_ns;	/* when client_signal came */

static void on_parent_signal(int sig)
{
	if (!parent_signal)
		parent_signal = sig;
}

int run_signal(void)
{
	return parent_signal;
}

static void on_client_signal(int sig)
{
	struct timespec ts;

	if (!client_signal) {
		clock_gettime(CLOCK_MONOTONIC, &ts);	/* async-signal-safe */
		client_signal_ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
		client_signal = sig;
	}
	client_stop = 1;
}

static void on_sigchld(int sig)
{
	(void)sig;	/* only interrupts the parent's sleep */
}

static void set_handler_flags(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;	/* no SA_RESTART: a blocked call returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void set_handler(int sig, void (*fn)(int))
{
	set_handler_flags(sig, fn, 0);
}

/* Was sig ignored when this process got it (SIG_IGN inherited)? */
static bool signal_ignored(int sig)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

/* Catch the stop signals with fn (flags as sigaction's). */
static void catch_stop_signals(void (*fn)(int), int flags)
{
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		int sig = stop_signals[i];

		if (sig != SIGINT && sig != SIGTERM && signal_ignored(sig))
			continue;	/* nohup dbench ...: SIGHUP stays ignored */
		set_handler_flags(sig, fn, flags);
	}
}

void run_catch_signals(void)
{
	/* before the run: a second signal of the kind ends dbench at once,
	 * should a backend's library retry a call the first one cut short */
	catch_stop_signals(on_parent_signal, SA_RESETHAND);
}

/* ---- the client processes ---- */

static void slot_fail(struct client *c, const char *why)
{
	snprintf(c->slot->error, sizeof(c->slot->error), "%s", why);
	STAT_STORE(c->slot->state, SLOT_FAILED);
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

static void client_cleanup(struct client *c)
{
	const struct program *prog = c->prog;
	char path[PATH_MAX];

	STAT_STORE(c->slot->state, SLOT_CLEANUP);
	if (c->opt->skip_cleanup || !c->priv_ready)
		return;
	for (uint32_t r = 0; r < prog->nclient_roots; r++) {
		if (!(c->roots_owned & (1ULL << r)))
			continue;
		client_expand(c, prog->client_roots[r], strlen(prog->client_roots[r]), path);
		if (c->be->remove_tree(c, path) < 0 && !c->failed) {
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

	while (read(fd, &b, 1) < 0 && errno == EINTR && !client_signal)
		;
	close(fd);
	return client_signal ? -1 : 0;
}

/* "stopped by signal 15 (Terminated) before the run": why a client that a
 * signal of its own stopped failed. */
static void signal_message(char *buf, size_t len, int sig, const char *when)
{
	snprintf(buf, len, "stopped by signal %d (%s) %s", sig, strsignal(sig), when);
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
		if (silence && now > STAT_LOAD(cl[0].sh->parent_alive_ns) + silence)
			client_stop = 1;

		live = 0;
		for (int i = 0; i < n; i++) {
			int r = client_advance(&cl[i], &now, &client_stop);

			if (r == 2)
				continue;
			live++;
			if (r == 0)
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

static void __attribute__((noreturn))
process_main(int first, int count, const struct program *prog, const struct backend *be,
	     struct shared *sh, int release_fd, pid_t parent)
{
	struct client *cl = xcalloc((size_t)count, sizeof(*cl));
	int status = 0;

	set_exit_hook(NULL);	/* the parent writes the documents */
	catch_stop_signals(on_client_signal, 0);
	set_handler(SIGPIPE, SIG_IGN);
	set_handler(SIGCHLD, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		client_stop = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (int i = 0; i < count; i++) {
		struct client *c = &cl[i];

		client_init(c, first + i, &options, prog, be, sh, options.seed);
		c->slot->pid = getpid();
		if (client_signal) {
			signal_message(c->error, sizeof(c->error), client_signal, "while setting up");
			slot_fail(c, c->error);
			status = EXIT_USAGE;
			break;
		}
		if (be->setup(c) < 0) {
			slot_fail(c, c->error[0] ? c->error : "setup failed");
			status = EXIT_USAGE;
			break;
		}
		c->priv_ready = 1;
		if ((c->id == 0 && check_shared_roots(c) < 0) || find_owned_roots(c) < 0) {
			slot_fail(c, c->error[0] ? c->error : "cannot inspect the target");
			status = EXIT_USAGE;
			break;
		}
		STAT_STORE(c->slot->state, SLOT_READY);
	}
	if (status == 0 && wait_release(release_fd) < 0) {
		for (int i = 0; i < count; i++) {
			signal_message(cl[i].error, sizeof(cl[i].error), client_signal, "before the release");
			slot_fail(&cl[i], cl[i].error);
		}
		status = EXIT_USAGE;
	}
	if (status == 0) {
		if (STAT_LOAD(sh->stop))
			client_stop = 1;
		uint64_t user0, sys0, user1, sys1;

		for (int i = 0; i < count; i++)
			client_start(&cl[i], sh->release_ns, sh->measure_start_ns);
		process_cpu(&user0, &sys0);
		run_clients(cl, count);
		process_cpu(&user1, &sys1);
		/* a signal of this process's own cut its clients short: the
		 * parent counts them as failed unless it was stopped too */
		for (int i = 0; i < count && client_signal; i++)
			if (!cl[i].failed && !STAT_LOAD(cl[i].slot->finished_work) &&
			    client_signal_ns < STAT_LOAD(sh->measure_end_ns))
				STAT_STORE(cl[i].slot->signal, client_signal);
		STAT_STORE(cl[0].slot->cpu_user_ns, user1 - user0);
		STAT_STORE(cl[0].slot->cpu_sys_ns, sys1 - sys0);
		for (int i = 0; i < count; i++)
			client_cleanup(&cl[i]);
		/* the parent was killed (SIGKILL: no final cleanup from it):
		 * the last process out removes the shared roots (not with
		 * --mpi: the other ranks' clients may still be using them) */
		if (__atomic_sub_fetch(&sh->procs_left, 1, __ATOMIC_ACQ_REL) == 0 &&
		    getppid() != parent && !options.skip_cleanup && cl[0].priv_ready && !options.mpi)
			remove_shared_roots(&cl[0], prog, sh);
	}
	for (int i = 0; i < count && cl[i].slot; i++) {	/* those set up or tried */
		struct client *c = &cl[i];

		if (c->priv_ready && be->teardown)
			be->teardown(c);
		if (c->failed) {
			slot_fail(c, c->error);
			status = status ? status : EXIT_RUN_FAILED;
		} else if (STAT_LOAD(c->slot->state) != SLOT_FAILED) {
			STAT_STORE(c->slot->state, SLOT_DONE);
		}
	}
	fflush(stdout);
	_exit(status);
}

/* The final cleanup: one process removes the shared roots the run made. */
static int final_cleanup(const struct program *prog, const struct backend *be, struct shared *sh)
{
	int need = 0, status;
	pid_t pid;

	for (uint32_t r = 0; r < prog->nshared_roots; r++)
		if (!sh->root_existed[r])
			need = 1;
	if (!need || options.skip_cleanup)
		return 0;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct client c;
		int rc = 0;

		set_exit_hook(NULL);
		/* the cleanup goes on through a Ctrl-C or a hangup of the
		 * group; SIGTERM (its parent died) ends it */
		for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
			set_handler(stop_signals[i], SIG_IGN);
		set_handler(SIGTERM, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		client_init(&c, 0, &options, prog, be, sh, options.seed);
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
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- the parent ---- */

struct procs {
	pid_t *pid;		/* per process; 0 once reaped */
	int running;		/* not yet reaped */
	int died_client;	/* 1 + the first client of the first process that
				   died on a signal we did not send, or 0 */
	int died_signal;	/* that signal */
	uint64_t *inflight_ns;	/* per client: the time of the op in flight when
				   it was killed as stuck, counted once it is reaped */
};

/* Is the process stopped (SIGSTOP, SIGTSTP, a debugger)? */
static bool process_stopped(pid_t pid)
{
	char path[64], buf[512];
	const char *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* the command name may hold anything */
	return paren && paren[1] == ' ' && (paren[2] == 'T' || paren[2] == 't');
}

/*
 * The grace after the end of the run is over: kill every process that
 * still has a client in the run (stopped, or its op in flight does not
 * return) or that is stopped, and say why in each of its clients' slots.
 * The time of an op in flight counts as that op's latency.
 */
static void kill_stuck(struct procs *pr, struct shared *sh, const struct program *prog,
		       uint64_t now, uint64_t end)
{
	int cpp = options.clients_per_process;

	for (int p = 0; p < options.nprocs; p++) {
		bool stuck = false, stopped;
		int first = -1;

		if (!pr->pid[p])
			continue;
		stopped = process_stopped(pr->pid[p]);
		for (int k = 0; k < cpp; k++) {
			int state = STAT_LOAD(shared_slot(sh, p * cpp + k)->state);

			if (state == SLOT_STARTING || state == SLOT_READY || state == SLOT_RUNNING) {
				stuck = true;
				if (first < 0)
					first = p * cpp + k;
			}
		}
		if (!stuck && !stopped)
			continue;	/* cleaning up: that may take long */
		kill(pr->pid[p], SIGKILL);
		for (int k = 0; k < cpp; k++) {
			int i = p * cpp + k;
			struct slot *s = shared_slot(sh, i);
			uint64_t t0 = STAT_LOAD(s->op_start_ns);
			uint32_t id = STAT_LOAD(s->op_id);
			char why[160];

			if (STAT_LOAD(s->state) == SLOT_DONE || STAT_LOAD(s->state) == SLOT_FAILED)
				continue;
			if (stopped)
				snprintf(why, sizeof(why), "stopped (SIGSTOP or a debugger)");
			else if (t0 && t0 < now && id < OP_COUNT && prog->statidx[id] >= 0)
				snprintf(why, sizeof(why), "no progress for %llu s: %s in flight",
					 (unsigned long long)((now - t0) / NSEC_PER_SEC), op_info[id].name);
			else if (i == first)
				snprintf(why, sizeof(why), "did not stop");
			else
				snprintf(why, sizeof(why), "its process was killed for client %d", first);
			if (t0 && t0 < now && id < OP_COUNT && prog->statidx[id] >= 0)
				pr->inflight_ns[i] = now - t0;
			snprintf(s->error, sizeof(s->error), "%s; killed %llu s after the end of the run (--grace %d)",
				 why, (unsigned long long)((now - end) / NSEC_PER_SEC), options.grace);
			STAT_STORE(s->state, SLOT_FAILED);
		}
	}
}

/* Killed clients are gone: their ops in flight count, with the time they
 * had taken, in the op's figures (measured window or not: the truth). */
static void count_inflight(struct procs *pr, struct shared *sh, const struct program *prog)
{
	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);
		uint64_t lat = pr->inflight_ns[i];

		if (!lat)
			continue;
		op_stats_add(&s->ops[prog->statidx[s->op_id]], lat, 0);
		hist64_add(&s->every, lat);
		s->ops_measured++;
	}
}

static void reap(struct procs *pr, struct shared *sh, int block)
{
	int status;
	pid_t pid;

	while (pr->running > 0 && (pid = waitpid(-1, &status, block ? 0 : WNOHANG)) != 0) {
		if (pid < 0) {
			if (errno == EINTR && block && !parent_signal)
				continue;
			break;
		}
		for (int p = 0; p < options.nprocs; p++) {
			if (pr->pid[p] != pid)
				continue;
			pr->pid[p] = 0;
			pr->running--;
			if (WIFSIGNALED(status)) {
				for (int k = 0; k < options.clients_per_process; k++) {
					int i = p * options.clients_per_process + k;
					struct slot *s = shared_slot(sh, i);

					if (s->state != SLOT_DONE && s->state != SLOT_FAILED) {
						snprintf(s->error, sizeof(s->error), "killed by signal %d (%s)",
							 WTERMSIG(status), strsignal(WTERMSIG(status)));
						s->state = SLOT_FAILED;
						if (!pr->died_client) {	/* not our kill_stuck() */
							pr->died_client = options.client_base + i + 1;
							pr->died_signal = WTERMSIG(status);
						}
					}
				}
			}
		}
		block = 0;
	}
}

static int count_state(struct shared *sh, int state)
{
	int n = 0;

	for (int i = 0; i < sh->nclients; i++)
		if (STAT_LOAD(shared_slot(sh, i)->state) == state)
			n++;
	return n;
}

/*
 * The run in progress, for run_abort_cleanup(): set while this rank's
 * clients may be alive (from the fork to the final cleanup).
 */
static struct {
	struct procs *pr;
	struct shared *sh;
	const struct program *prog;
	const struct backend *be;
	bool cleaned;		/* the final cleanup ran */
} live;

void run_alive(void)
{
	if (live.sh)
		STAT_STORE(live.sh->parent_alive_ns, now_ns());
}

void run_abort_cleanup(void)
{
	uint64_t start = now_ns(), grace_ns = (uint64_t)options.grace * NSEC_PER_SEC;

	if (!live.pr || live.cleaned)
		return;
	/* every client stops and removes its own tree; one that does not
	 * within the grace is killed, and the final cleanup takes its tree
	 * with the shared roots */
	STAT_STORE(live.sh->measure_end_ns, MIN(STAT_LOAD(live.sh->measure_end_ns), start));
	STAT_STORE(live.sh->stop, 1);
	while (live.pr->running > 0 && now_ns() - start < grace_ns) {
		reap(live.pr, live.sh, 0);
		sleep_until_ns(now_ns() + 20 * NSEC_PER_MSEC);
	}
	for (int p = 0; p < options.nprocs; p++)
		if (live.pr->pid[p])
			kill(live.pr->pid[p], SIGKILL);
	reap(live.pr, live.sh, 1);
	live.cleaned = true;
	final_cleanup(live.prog, live.be, live.sh);
}

/* Clients that are not set up after this long (a server that accepts the
 * connection but never answers) fail the run. */
#define SETUP_TIMEOUT_NS (300 * NSEC_PER_SEC)

/* Wait until every client is READY; false if one failed or a signal came. */
static bool wait_ready(struct procs *pr, struct shared *sh)
{
	uint64_t start = now_ns(), next_print = start;

	for (;;) {
		int ready = count_state(sh, SLOT_READY);
		uint64_t now = now_ns();

		if (parent_signal)
			return false;

		if (now >= next_print || ready == sh->nclients) {
			if (!options.machine_readable)
				printf("%d of %d processes prepared for launch %3.0f sec\n",
				       ready / options.clients_per_process, options.nprocs,
				       (double)(now - start) / 1e9);
			next_print += NSEC_PER_SEC;
		}
		if (ready == sh->nclients)
			return true;
		STAT_STORE(sh->parent_alive_ns, now);
		reap(pr, sh, 0);
		if (count_state(sh, SLOT_FAILED) || pr->running < options.nprocs)
			return false;
		if (now - start > SETUP_TIMEOUT_NS) {
			warnx_("%d of %d clients did not finish setting up in %llu s", sh->nclients - ready,
			       sh->nclients, (unsigned long long)(SETUP_TIMEOUT_NS / NSEC_PER_SEC));
			return false;
		}
		sleep_until_ns(MIN(next_print, now + 20 * NSEC_PER_MSEC));
	}
}

/* Why this rank's clients did not all set up, for the other ranks. */
static void setup_message(struct shared *sh, char *buf, size_t len)
{
	snprintf(buf, len, "%s", parent_signal ? "stopped by a signal" : "its clients did not set up");
	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);

		if (STAT_LOAD(s->state) == SLOT_FAILED) {
			snprintf(buf, len, "client %d: %.400s", options.client_base + i, s->error);
			break;
		}
	}
}

static void wall_clock_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void run_benchmark(const struct program *prog, const struct backend *be, struct shared *sh,
		   struct run_result *res)
{
	struct procs pr = { .pid = xcalloc((size_t)options.nprocs, sizeof(pid_t)),
			    .inflight_ns = xcalloc((size_t)options.nclients, sizeof(uint64_t)) };
	bool fixed_work = options.passes > 0;
	int release[2];
	uint64_t tick, warmup_ns = (uint64_t)options.warmup * NSEC_PER_SEC;
	uint64_t fork_start = now_ns(), next_print = fork_start + NSEC_PER_SEC, end_seen = 0;
	uint64_t grace_ns = (uint64_t)options.grace * NSEC_PER_SEC;
	struct progress_state ps;
	pid_t parent = getpid();

	memset(res, 0, sizeof(*res));
	catch_stop_signals(on_parent_signal, 0);
	set_handler(SIGCHLD, on_sigchld);
	if (pipe(release) < 0)
		die(EXIT_USAGE, "cannot start the clients: pipe: %s", strerror(errno));	/* nothing ran */
	sh->measure_end_ns = UINT64_MAX;
	sh->procs_left = options.nprocs;
	fflush(stdout);
	fflush(stderr);
	for (int p = 0; p < options.nprocs && !parent_signal; p++) {	/* Ctrl-C: no more */
		pid_t pid = fork();

		if (pid < 0) {
			warnx_("cannot start client process %d: %s", p, strerror(errno));
			STAT_STORE(sh->stop, 1);
			break;
		}
		if (pid == 0) {
			close(release[1]);
			process_main(p * options.clients_per_process, options.clients_per_process, prog, be,
				     sh, release[0], parent);
		}
		pr.pid[p] = pid;
		pr.running++;
		if (!options.machine_readable && p + 1 < options.nprocs && now_ns() >= next_print) {
			/* thousands of forks take a while: show the start going on */
			printf("%d of %d processes started %3.0f sec\n", p + 1, options.nprocs,
			       (double)(now_ns() - fork_start) / 1e9);
			next_print += NSEC_PER_SEC;
		}
	}
	close(release[0]);
	STAT_STORE(sh->parent_alive_ns, now_ns());
	live.pr = &pr;
	live.sh = sh;
	live.prog = prog;
	live.be = be;
	live.cleaned = false;

	bool ready = pr.running == options.nprocs && wait_ready(&pr, sh);

	if (mpi_on()) {
		/* every rank's clients are set up, or none starts */
		char why[600];

		setup_message(sh, why, sizeof(why));
		if (mpi_agree(ready, why) < 0) {
			res->peer_failed = ready;
			ready = false;
		}
	}
	if (!ready) {
		/* release the ones that are waiting, with the stop flag set */
		uint64_t stop = now_ns();

		STAT_STORE(sh->stop, 1);
		close(release[1]);
		/* stopped by a signal: the clients still setting up stop now */
		for (int p = 0; p < options.nprocs && parent_signal; p++)
			if (pr.pid[p])
				kill(pr.pid[p], SIGTERM);
		/* a client stuck in its setup (a server that never answers)
		 * gets the grace, then is killed */
		while (pr.running > 0 && now_ns() - stop < grace_ns) {
			reap(&pr, sh, 0);
			sleep_until_ns(now_ns() + 50 * NSEC_PER_MSEC);
		}
		for (int p = 0; p < options.nprocs; p++)
			if (pr.pid[p])
				kill(pr.pid[p], SIGKILL);
		reap(&pr, sh, 1);
		live.pr = NULL;
		res->setup_failed = 1;
		res->signal = parent_signal;
		free(pr.pid);	/* nothing was released, so nothing was made */
		free(pr.inflight_ns);
		return;
	}

	mpi_barrier("start");	/* the ranks release their clients together */
	res->release_ns = now_ns();
	res->measure_start_ns = res->release_ns + warmup_ns;
	sh->release_ns = res->release_ns;
	sh->measure_start_ns = res->measure_start_ns;
	/* fixed work runs until the passes are done, or the time limit (as
	 * dbench 5.0's --run-once) */
	__atomic_store_n(&sh->measure_end_ns,
			 res->measure_start_ns + (uint64_t)options.timelimit * NSEC_PER_SEC,
			 __ATOMIC_RELEASE);
	wall_clock_iso(res->start_time, sizeof(res->start_time));
	if (!options.machine_readable)
		printf("releasing clients\n");
	fflush(stdout);
	close(release[1]);

	progress_init(&ps, prog, sh, res->release_ns, res->measure_start_ns);
	tick = res->release_ns + NSEC_PER_SEC;
	/* with --mpi, every rank ticks until every rank's clients are done:
	 * the exchange in progress_tick() is once a second on every rank */
	ps.procs_running_all = 1;
	while (pr.running > 0 || (mpi_on() && ps.procs_running_all > 0)) {
		uint64_t now;
		bool early;

		sleep_until_ns(tick);
		reap(&pr, sh, 0);
		now = now_ns();
		STAT_STORE(sh->parent_alive_ns, now);
		/* --mpi: after a signal every rank reports at once (mpirun may
		 * be ending the job: rank 0 names the ranks that no longer do) */
		early = mpi_tick_now();
		if (parent_signal && !res->signal) {
			uint64_t end = STAT_LOAD(sh->measure_end_ns);

			res->signal = parent_signal;
			STAT_STORE(sh->measure_end_ns, MIN(end, MAX(now, res->measure_start_ns)));
			STAT_STORE(sh->stop, 1);
		}
		if (ps.stop_all && !STAT_LOAD(sh->stop)) {
			/* --mpi: a client died on some rank: every rank ends the run */
			uint64_t end = STAT_LOAD(sh->measure_end_ns);

			STAT_STORE(sh->measure_end_ns, MIN(end, MAX(now, res->measure_start_ns)));
			STAT_STORE(sh->stop, 1);
		}
		/* the end of the run: the time limit, or a stop */
		if (!end_seen && (now >= STAT_LOAD(sh->measure_end_ns) || STAT_LOAD(sh->stop)))
			end_seen = now;
		if (end_seen && now - end_seen >= grace_ns)
			kill_stuck(&pr, sh, prog, now, end_seen);
		if (now >= tick || early) {
			ps.procs_running = pr.running;
			ps.died_client = pr.died_client;
			ps.died_signal = pr.died_signal;
			progress_tick(&ps, now);
			tick = early ? now + NSEC_PER_SEC : tick + NSEC_PER_SEC;
			if (tick < now)	/* we were stopped: skip missed seconds */
				tick = now + NSEC_PER_SEC;
		}
	}
	res->measure_end_ns = MIN(STAT_LOAD(sh->measure_end_ns), now_ns());
	if (fixed_work) {
		/* the window ends when the last client finished its passes,
		 * unless some did not (stopped, time limit): then at the stop */
		uint64_t end = res->measure_start_ns;
		bool all_done = true;

		for (int i = 0; i < sh->nclients; i++) {
			struct slot *s = shared_slot(sh, i);

			if (s->finished_work)
				end = MAX(end, s->work_end_ns);
			else
				all_done = false;
		}
		if (all_done)
			res->measure_end_ns = end;
	}
	count_inflight(&pr, sh, prog);
	/* a client a signal of its own cut short failed, unless dbench was
	 * stopped as a whole (a Ctrl-C reaches every process of the group) */
	for (int i = 0; i < sh->nclients && !res->signal; i++) {
		struct slot *s = shared_slot(sh, i);
		int sig = STAT_LOAD(s->signal);

		if (sig && STAT_LOAD(s->state) == SLOT_DONE) {
			signal_message(s->error, sizeof(s->error), sig, "before the end of the run");
			STAT_STORE(s->state, SLOT_FAILED);
		}
	}
	progress_finish(&ps);
	res->series = ps.series;	/* for the JSON report */
	res->failed_clients = count_state(sh, SLOT_FAILED);
	/* with --mpi, in rank order: on a shared target the first rank
	 * removes the shared directories, the others find them gone */
	for (int k = 0; k < mpi_size(); k++) {
		if (k == mpi_rank() && !live.cleaned && final_cleanup(prog, be, sh) < 0)
			res->cleanup_failed = 1;
		live.cleaned = live.cleaned || k == mpi_rank();
		mpi_barrier("cleanup");
	}
	live.pr = NULL;
	free(pr.pid);
	free(pr.inflight_ns);
}
