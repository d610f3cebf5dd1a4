/*
 * run.c - the parent's side of a run: fork, release, tick, stop, grace,
 * reap.  What each forked process runs is client_process.c; the signal
 * flags both sides read are signals.c.
 *
 * The parent forks options.nprocs processes, each running
 * options.clients_per_process clients.  Every client sets up (connects,
 * checks its tree) and marks its slot READY; then all block reading a
 * pipe.  The parent fixes the release time and the measured window in the
 * shared region and closes the pipe: every client wakes at once.  Once a
 * second the parent reads the slots and prints a progress line; clients
 * stop by themselves at the end of the window (or after their passes), or
 * when the parent sets the stop flag (SIGINT/SIGTERM).  After the time
 * limit or a stop, a client process that has not finished within --grace
 * is killed.  Each client removes its own tree; at the end one process
 * removes the shared directories the run created.  Nothing runs in a
 * signal handler but setting a flag.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client_process.h"
#include "mpi_run.h"
#include "options.h"
#include "progress.h"
#include "region_atomic.h"
#include "run.h"
#include "signals.h"
#include "util.h"

/* How much longer than --grace the parent waits before it kills a process
 * whose clients run on an event loop (which gives up on their stuck ops
 * itself at the grace's end: engine.c). */
#define ENGINE_KILL_MARGIN_NS (3 * NSEC_PER_SEC)

/* The final cleanup: one process removes the shared roots the run made. */
static int final_cleanup(const struct program *prog, const struct backend *be, const void *be_opt,
			 struct shared *sh)
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
	if (pid == 0)
		client_process_cleanup(prog, be, be_opt, sh);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

struct procs {
	pid_t *pid;		/* per process; 0 once reaped */
	int running;		/* not yet reaped */
	int died_client;	/* 1 + the first client of the first process that
				   died on a signal we did not send, or 0 */
	int died_signal;	/* that signal */
	uint64_t *inflight_ns;	/* per client: the time of the op in flight when
				   it was killed as stuck, counted once it is reaped */
	bool engine;		/* the clients run on event loops (engine.c) */
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
			int state = slot_state(shared_slot(sh, p * cpp + k));

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
			uint32_t id;
			uint64_t t0 = slot_op_in_flight(s, &id);
			char why[160];

			if (slot_state(s) == SLOT_DONE || slot_state(s) == SLOT_FAILED)
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
			slot_set_state(s, SLOT_FAILED);
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
			if (errno == EINTR && block && !signals_parent_seen())
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
		if (slot_state(shared_slot(sh, i)) == state)
			n++;
	return n;
}

/*
 * The run in progress, for end_now(): set while this rank's clients may
 * be alive (from the fork to the final cleanup).
 */
static struct {
	struct procs *pr;
	struct shared *sh;
	const struct program *prog;
	const struct backend *be;
	const void *be_opt;
	bool cleaned;		/* the final cleanup ran */
} live;

/* --mpi: the job is being ended (signals_run_end_now() in mpi_run.c):
 * stop the clients now and remove what the run made. */
static void end_now(void)
{
	uint64_t start = now_ns(), grace_ns = (uint64_t)options.grace * NSEC_PER_SEC;

	if (!live.pr || live.cleaned)
		return;
	/* every client stops and removes its own tree; one that does not
	 * within the grace is killed, and the final cleanup takes its tree
	 * with the shared roots */
	region_end_now(live.sh, start);
	while (live.pr->running > 0 && now_ns() - start < grace_ns) {
		reap(live.pr, live.sh, 0);
		sleep_until_ns(now_ns() + 20 * NSEC_PER_MSEC);
	}
	for (int p = 0; p < options.nprocs; p++)
		if (live.pr->pid[p])
			kill(live.pr->pid[p], SIGKILL);
	reap(live.pr, live.sh, 1);
	live.cleaned = true;
	final_cleanup(live.prog, live.be, live.be_opt, live.sh);
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

		if (signals_parent_seen())
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
		region_parent_alive(sh, now);
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
	snprintf(buf, len, "%s", signals_parent_seen() ? "stopped by a signal" : "its clients did not set up");
	for (int i = 0; i < sh->nclients; i++) {
		struct slot *s = shared_slot(sh, i);

		if (slot_state(s) == SLOT_FAILED) {
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

/* Fork the client processes; each waits on the release pipe.  Returns
 * with pr->running of them started (all, unless a fork failed: then the
 * region's stop flag is set). */
static void start_clients(struct procs *pr, const struct program *prog, const struct backend *be,
			  const void *be_opt, struct shared *sh, int release[2])
{
	uint64_t fork_start = now_ns(), next_print = fork_start + NSEC_PER_SEC;
	pid_t parent = getpid();

	fflush(stdout);
	fflush(stderr);
	for (int p = 0; p < options.nprocs && !signals_parent_seen(); p++) {	/* Ctrl-C: no more */
		pid_t pid = fork();

		if (pid < 0) {
			warnx_("cannot start client process %d: %s", p, strerror(errno));
			region_stop(sh);
			break;
		}
		if (pid == 0) {
			close(release[1]);
			client_process_main(p * options.clients_per_process, options.clients_per_process, prog,
					    be, be_opt, sh, release[0], parent);
		}
		pr->pid[p] = pid;
		pr->running++;
		if (!options.machine_readable && p + 1 < options.nprocs && now_ns() >= next_print) {
			/* thousands of forks take a while: show the start going on */
			printf("%d of %d processes started %3.0f sec\n", p + 1, options.nprocs,
			       (double)(now_ns() - fork_start) / 1e9);
			next_print += NSEC_PER_SEC;
		}
	}
	close(release[0]);
}

/* Is every client set up (with --mpi: on every rank)?  A rank that was
 * ready while another was not is told in res->peer_failed. */
static bool clients_ready(struct procs *pr, struct shared *sh, struct run_result *res)
{
	bool ready = pr->running == options.nprocs && wait_ready(pr, sh);

	if (mpi_on()) {
		/* every rank's clients are set up, or none starts */
		char why[600];

		setup_message(sh, why, sizeof(why));
		if (mpi_agree(ready, why) < 0) {
			res->peer_failed = ready;
			ready = false;
		}
	}
	return ready;
}

/* Not every client could set up: release the ones that are waiting, with
 * the stop flag set, give a client stuck in its setup (a server that
 * never answers) the grace, then kill it. */
static void abandon_start(struct procs *pr, struct shared *sh, int release_fd,
			  struct run_result *res)
{
	uint64_t stop = now_ns(), grace_ns = (uint64_t)options.grace * NSEC_PER_SEC;

	region_stop(sh);
	close(release_fd);
	/* stopped by a signal: the clients still setting up stop now */
	for (int p = 0; p < options.nprocs && signals_parent_seen(); p++)
		if (pr->pid[p])
			kill(pr->pid[p], SIGTERM);
	/* a client stuck in its setup (a server that never answers) gets the
	 * grace, then is killed */
	while (pr->running > 0 && now_ns() - stop < grace_ns) {
		reap(pr, sh, 0);
		sleep_until_ns(now_ns() + 50 * NSEC_PER_MSEC);
	}
	for (int p = 0; p < options.nprocs; p++)
		if (pr->pid[p])
			kill(pr->pid[p], SIGKILL);
	reap(pr, sh, 1);
	live.pr = NULL;
	res->setup_failed = 1;
	res->signal = signals_parent_seen();
}

/* Fix the window in the region and release every client at once. */
static void release_clients(struct shared *sh, int release_fd, struct run_result *res)
{
	mpi_barrier("start");	/* the ranks release their clients together */
	res->release_ns = now_ns();
	res->measure_start_ns = res->release_ns + (uint64_t)options.warmup * NSEC_PER_SEC;
	/* fixed work runs until the passes are done, or the time limit (as
	 * dbench 5.0's --run-once) */
	region_set_window(sh, res->release_ns, res->measure_start_ns,
			  res->measure_start_ns + (uint64_t)options.timelimit * NSEC_PER_SEC);
	wall_clock_iso(res->start_time, sizeof(res->start_time));
	if (!options.machine_readable)
		printf("releasing clients\n");
	fflush(stdout);
	close(release_fd);
}

/* Once a second until every client process has exited (with --mpi: on
 * every rank): reap, end the run on a signal or when a client died on
 * another rank, kill the clients still running --grace after the end,
 * print the progress line. */
static void supervise(struct procs *pr, struct shared *sh, const struct program *prog,
		      struct progress_state *ps, struct run_result *res)
{
	uint64_t tick = res->release_ns + NSEC_PER_SEC, end_seen = 0;
	uint64_t grace_ns = (uint64_t)options.grace * NSEC_PER_SEC;

	/* with --mpi, every rank ticks until every rank's clients are done:
	 * the exchange in progress_tick() is once a second on every rank */
	ps->procs_running_all = 1;
	while (pr->running > 0 || (mpi_on() && ps->procs_running_all > 0)) {
		uint64_t now;
		bool early;

		sleep_until_ns(tick);
		reap(pr, sh, 0);
		now = now_ns();
		region_parent_alive(sh, now);
		/* --mpi: after a signal every rank reports at once (mpirun may
		 * be ending the job: rank 0 names the ranks that no longer do) */
		early = mpi_tick_now();
		if (signals_parent_seen() && !res->signal) {
			res->signal = signals_parent_seen();
			region_end_now(sh, now);
		}
		if (ps->stop_all && !region_stopping(sh))
			region_end_now(sh, now);	/* --mpi: a client died on some rank: every rank ends the run */
		/* the end of the run: the time limit, or a stop */
		if (!end_seen && (now >= region_end(sh) || region_stopping(sh)))
			end_seen = now;
		/* a process of asynchronous clients gives up on their stuck ops
		 * itself at the grace's end (engine.c): it is killed only if it
		 * has not managed within a margin more */
		if (end_seen && now - end_seen >= grace_ns + (pr->engine ? ENGINE_KILL_MARGIN_NS : 0))
			kill_stuck(pr, sh, prog, now, end_seen);
		if (now >= tick || early) {
			ps->procs_running = pr->running;
			ps->died_client = pr->died_client;
			ps->died_signal = pr->died_signal;
			progress_tick(ps, now);
			tick = early ? now + NSEC_PER_SEC : tick + NSEC_PER_SEC;
			if (tick < now)	/* we were stopped: skip missed seconds */
				tick = now + NSEC_PER_SEC;
		}
	}
}

/* When the measured window ended: the time limit or the stop; with
 * --passes, when the last client finished its passes, unless some did
 * not (stopped, time limit): then at the stop. */
static uint64_t window_end(const struct shared *sh, const struct run_result *res)
{
	uint64_t end = res->measure_start_ns, stopped = MIN(region_end(sh), now_ns());

	if (options.passes == 0)
		return stopped;
	for (int i = 0; i < sh->nclients; i++) {
		const struct slot *s = shared_slot(sh, i);

		if (!s->finished_work)
			return stopped;
		end = MAX(end, s->work_end_ns);
	}
	return end;
}

void run_benchmark(const struct program *prog, const struct backend *be, const void *be_opt,
		   struct shared *sh, struct run_result *res)
{
	struct procs pr = { .engine = (be->flags & BACKEND_ASYNC) &&
				      (options.clients_per_process > 1 || options.iodepth > 1),
			    .pid = xcalloc((size_t)options.nprocs, sizeof(pid_t)),
			    .inflight_ns = xcalloc((size_t)options.nclients, sizeof(uint64_t)) };
	struct progress_state ps;
	int release[2];

	memset(res, 0, sizeof(*res));
	signals_parent_catch();
	if (pipe(release) < 0)
		die(EXIT_USAGE, "cannot start the clients: pipe: %s", strerror(errno));	/* nothing ran */
	sh->measure_end_ns = UINT64_MAX;
	sh->procs_left = options.nprocs;
	start_clients(&pr, prog, be, be_opt, sh, release);
	region_parent_alive(sh, now_ns());
	live.pr = &pr;
	live.sh = sh;
	live.prog = prog;
	live.be = be;
	live.be_opt = be_opt;
	live.cleaned = false;
	signals_run_begin(sh, end_now);
	if (!clients_ready(&pr, sh, res)) {
		abandon_start(&pr, sh, release[1], res);
		free(pr.pid);	/* nothing was released, so nothing was made */
		free(pr.inflight_ns);
		return;
	}
	release_clients(sh, release[1], res);
	progress_init(&ps, prog, sh, res->release_ns, res->measure_start_ns);
	supervise(&pr, sh, prog, &ps, res);
	res->measure_end_ns = window_end(sh, res);
	count_inflight(&pr, sh, prog);
	/* a client a signal of its own cut short failed, unless dbench was
	 * stopped as a whole (a Ctrl-C reaches every process of the group) */
	for (int i = 0; i < sh->nclients && !res->signal; i++) {
		struct slot *s = shared_slot(sh, i);
		int sig = slot_signal(s);

		if (sig && slot_state(s) == SLOT_DONE) {
			snprintf(s->error, sizeof(s->error), "stopped by signal %d (%s) before the end of the run",
				 sig, strsignal(sig));
			slot_set_state(s, SLOT_FAILED);
		}
	}
	progress_finish(&ps);
	res->series = ps.series;	/* for the JSON report */
	res->failed_clients = count_state(sh, SLOT_FAILED);
	/* with --mpi, in rank order: on a shared target the first rank
	 * removes the shared directories, the others find them gone */
	for (int k = 0; k < mpi_size(); k++) {
		if (k == mpi_rank() && !live.cleaned && final_cleanup(prog, be, be_opt, sh) < 0)
			res->cleanup_failed = 1;
		live.cleaned = live.cleaned || k == mpi_rank();
		mpi_barrier("cleanup");
	}
	live.pr = NULL;
	free(pr.pid);
	free(pr.inflight_ns);
}
