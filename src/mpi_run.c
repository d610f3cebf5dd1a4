/*
 * mpi_run.c - several client hosts in one run (--mpi); see mpi_run.h.
 * This is the module dbench-mpi.so: it links the MPI library, the program
 * does not.  Its functions have the names of mpi_run.h's, whose versions
 * in the program (mpi.c) call these through the table at the bottom.
 *
 * Only the parent process of each rank calls MPI; the clients it forks
 * never do (they _exit without running MPI's handlers).  Nothing here is
 * on the clients' path: the once-a-second exchange is the parent's.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <popt.h>

#define DBENCH_MPI_MODULE	/* mpi_run.h: the table, not the program's functions */
#include "backend.h"
#include "json_report.h"
#include "latency.h"
#include "mpi_run.h"
#include "options.h"
#include "signals.h"
#include "util.h"

#define HOST_MAX 64
#define TAG_FIGURES 1
#define TAG_TOTALS 2
#define TAG_END 3		/* rank 0 to the others: it has said why the job ends */
#define TAG_AGREE 4		/* mpi_agree: each rank's outcome to rank 0 */
#define TAG_AGREED 5		/* mpi_agree: the first rank that failed, to each */
#define TAG_SAME 6		/* mpi_same: each rank's run, to rank 0 */

/* What rank 0 keeps of each rank's results for the per-host lines and the
 * per-rank breakdown in the JSON document. */
struct rank_result {
	int clients;
	double mbps, ops_per_sec, p99_ms;
	json_t *doc;		/* its own results document */
};

static struct {
	bool on;
	int rank, size;
	char (*host)[HOST_MAX];	/* per rank */
	struct rank_result *res; /* rank 0, after mpi_gather */
	uint64_t exchanges;	/* mpi_exchange calls */
	uint64_t start_ns;	/* MPI_Init done */
	uint64_t last_exchange_ns; /* the last exchange done */
	uint64_t signal_at;	/* the first SIGCONT/SIGINT/SIGTERM seen, or 0 */
	bool died_told;		/* rank 0: a client's death was announced */
	uint64_t exchange_cpu_ns; /* CPU they took (this thread's, waiting included) */
	const char *json_path, *csv_path; /* ranks > 0: the outputs rank 0 writes */
} m;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static bool mpi_on(void)
{
	return m.on;
}

static int mpi_rank(void)
{
	return m.rank;
}

static int mpi_size(void)
{
	return m.on ? m.size : 1;
}

/*
 * mpirun binds each rank to a core unless told otherwise (OpenMPI 4: a
 * core for up to 2 ranks, a socket above), and every client a rank forks
 * inherits it: one rank per host put all of the host's clients on one core.
 * A rank is a launcher, not a compute process: unless the user chose a
 * binding (--bind-to sets OMPI_MCA_hwloc_base_binding_policy), give it back
 * every CPU it may use (the kernel keeps it inside its cpuset).
 */
static void undo_default_binding(void)
{
	cpu_set_t all;

	if (!getenv("OMPI_MCA_orte_bound_at_launch") || getenv("OMPI_MCA_hwloc_base_binding_policy"))
		return;
	CPU_ZERO(&all);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	sched_setaffinity(0, sizeof(all), &all);	/* best effort: as bound, else */
}

static void mpi_spread(int nprocs)
{
	/* NPROCS spread over the ranks: the first NPROCS % ranks get one more */
	int share = nprocs / m.size + (m.rank < nprocs % m.size);
	int base = m.rank * (nprocs / m.size) + MIN(m.rank, nprocs % m.size);

	options.nprocs = share;
	options.clients_total = nprocs * options.clients_per_process;
	options.nclients = share * options.clients_per_process;
	options.client_base = base * options.clients_per_process;
}

static int mpi_max(int value)
{
	int max = value;

	if (m.on)
		MPI_Allreduce(&value, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return max;
}

/* A refusal at the start: one line (rank 0), the --json error document
 * (rank 0), every rank exits 2. */
static void __attribute__((format(printf, 1, 2), noreturn)) refuse(const char *fmt, ...)
{
	char message[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (m.rank == 0) {
		fprintf(stderr, "%s: %s\n", options.progname, message);
		run_exit_hook(EXIT_USAGE, message);
	}
	MPI_Finalize();
	exit(EXIT_USAGE);
}

static void mpi_start(void)
{
	char host[HOST_MAX] = "";
	int nprocs = options.nprocs;

	/* OpenMPI warns when a process forks after MPI_Init; the clients
	 * never call MPI, so the warning is noise */
	setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		die(EXIT_USAGE, "--mpi: MPI_Init failed (run under mpirun or srun)");
	m.on = true;
	m.start_ns = now_ns();
	signals_cont_catch();	/* mpirun may be ending the job */
	MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m.size);
	gethostname(host, sizeof(host) - 1);
	m.host = xcalloc((size_t)m.size, sizeof(*m.host));
	MPI_Allgather(host, HOST_MAX, MPI_CHAR, m.host, HOST_MAX, MPI_CHAR, MPI_COMM_WORLD);
	undo_default_binding();
	/* --sweep: every point is spread over the ranks; each rank needs a
	 * client process at every point */
	for (int i = 0; i < options.nsweep; i++)
		if (options.sweep[i] < m.size)
			refuse("--mpi: --sweep point %d (%d process%s) is fewer than the ranks (%d): each rank needs a client process at every point",
			       i + 1, options.sweep[i], options.sweep[i] == 1 ? "" : "es", m.size);
	if (nprocs < m.size)
		refuse("--mpi: NPROCS (%d) is fewer than the ranks (%d): each rank needs a client process", nprocs,
		       m.size);
	mpi_spread(nprocs);
	/* one seed for the whole run: rank 0's */
	MPI_Bcast(&options.seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (m.rank != 0) {
		/* rank 0 prints and writes the documents */
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		fflush(stdout);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		m.json_path = options.json;	/* popt's string: kept, not leaked */
		m.csv_path = options.csv_series;
		options.json = NULL;
		options.csv_series = NULL;
	}
}

/*
 * A rank that dies.  mpirun (its daemon on each host) ends the job when a
 * rank's process ends abnormally: SIGCONT to every other rank at once,
 * SIGTERM odls_base_sigkill_timeout (1) s later, SIGKILL as long again
 * after that.  The first of these signals makes every rank exchange at once
 * (mpi_tick_now: the ticks of the ranks line up again), and rank 0, in that
 * exchange, names the ranks that have not reported half a second after the
 * signal: the ranks alive have, the ones that ended never will.  Later
 * exchanges name nobody (the ranks' ticks may differ by up to a second
 * again), nor do the barriers (a rank cleaning up keeps the others waiting).
 */
#define GONE_GRACE_NS (500 * NSEC_PER_MSEC)

/* The first signal of the run: SIGCONT, SIGINT or SIGTERM. */
static void note_signal(uint64_t now)
{
	if (!m.signal_at && (signals_cont_seen() || signals_parent_seen()))
		m.signal_at = now;
}

static bool mpi_tick_now(void)
{
	if (!m.on)
		return false;
	note_signal(now_ns());
	return m.signal_at && m.last_exchange_ns < m.signal_at;
}

/* Rank 0 is ending the job and has printed why: the other ranks say
 * nothing more (a rank that was stopped would otherwise blame rank 0).
 * gone[r]: rank r has ended (nothing is sent to it: over TCP that would
 * be a connection attempt, and Open MPI's warning); gone may be NULL. */
static void tell_end(const bool *gone)
{
	static int end = 1;
	uint64_t until = now_ns() + 200 * NSEC_PER_MSEC;
	MPI_Request *req;
	int done = 0, n = 0;

	if (m.rank != 0 || m.size < 2)
		return;
	req = xcalloc((size_t)m.size - 1, sizeof(*req));
	for (int i = 1; i < m.size; i++)
		if (!gone || !gone[i])
			MPI_Isend(&end, 1, MPI_INT, i, TAG_END, MPI_COMM_WORLD, &req[n++]);
	while (!done && now_ns() < until) {
		MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
		sleep_until_ns(now_ns() + 2 * NSEC_PER_MSEC);
	}
	free(req);	/* the requests not done are left to the end of the job */
}

/* Has rank 0 said why the job ends? */
static bool end_told(void)
{
	int flag = 0;

	if (m.rank != 0)
		MPI_Iprobe(0, TAG_END, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	return flag;
}

/* A signal came while rank 0 waited for the ranks' reports (or rank 1 for
 * rank 0's): name the ranks whose requests (req[i], with who[i]) are not
 * done, write the --json error document, tell the others, and wait for
 * mpirun's end: the clients end with their parent.  Returns if every
 * request is done after all. */
static void end_gone(MPI_Request *req, const int *who, int n, const char *what, uint64_t since)
{
	char line[600] = "";
	uint64_t now = now_ns();
	bool *gone = xcalloc((size_t)m.size, sizeof(*gone));

	for (int i = 0; i < n; i++) {
		int flag = 0;

		MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
		if (flag || gone[who[i]])
			continue;
		gone[who[i]] = true;
		snprintf(line, sizeof(line), "rank %d on %s: its process ended (no %s for %.1f s, and mpirun is ending the job): ending the run on every host",
			 who[i], m.host[who[i]], what, (double)(now - since) / 1e9);
		fprintf(stderr, "%s: %s\n", options.progname, line);
	}
	if (!line[0]) {
		free(gone);
		return;
	}
	fflush(stderr);
	run_exit_hook(EXIT_RUN_FAILED, line);
	tell_end(gone);
	/* mpirun's SIGKILL ends this process in a second or two; an exit of
	 * our own would add mpirun's "returned a non-zero exit code" banner
	 * (a signal with a handler cuts a sleep short: sleep to the end) */
	for (uint64_t until = now_ns() + 5 * NSEC_PER_SEC; now_ns() < until;)
		sleep_until_ns(until);
	_exit(EXIT_RUN_FAILED);
}

/* Wait for the requests, at most --mpi-timeout seconds; on the timeout,
 * end the whole job naming the rank (who[i] for request i; who NULL: a
 * collective of every rank) that is silent.  On rank 0, a signal (mpirun
 * ending the job) names the ranks that no longer answer (end_gone). */
static void wait_limit(MPI_Request *req, const int *who, int n, const char *what, uint64_t limit,
		       uint64_t since)
{
	uint64_t start = now_ns();
	uint64_t prev = start;
	/* rank 0 names the ranks that are gone; rank 1 names rank 0 */
	bool namer = who && (m.rank == 0 || (m.rank == 1 && who[0] == 0));
	char line[600] = "";
	int done = 0;

	for (;;) {
		uint64_t now;

		MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
		if (done)
			return;
		now = now_ns();
		signals_run_alive();
		if (now - prev > NSEC_PER_SEC) {
			/* this rank was stopped: it is the silent one */
			namer = false;
			start = now;
		}
		prev = now;
		if (end_told() && limit != UINT64_MAX / 2) {
			/* rank 0 has said why the job ends: stop the clients and
			 * remove what they made, then wait for mpirun's end */
			signals_run_end_now();
			namer = false;
			now = now_ns();
			start = now;
			limit = UINT64_MAX / 2;
		}
		note_signal(now);
		if (namer && m.signal_at && m.last_exchange_ns < m.signal_at && now - m.signal_at >= GONE_GRACE_NS) {
			end_gone(req, who, n, what, since ? since : start);
			namer = false;	/* every request was done after all */
		}
		if (now - start >= limit)
			break;
		sleep_until_ns(now + 2 * NSEC_PER_MSEC);
	}
	for (int i = 0; i < n && who; i++) {
		int flag = 0;

		MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
		if (!flag) {
			snprintf(line, sizeof(line), "rank %d on %s: no %s for %d s (--mpi-timeout): ending the run on every host",
				 who[i], m.host[who[i]], what, options.mpi_timeout);
			break;
		}
	}
	if (!line[0])
		snprintf(line, sizeof(line), "the ranks did not all reach the %s in %d s (--mpi-timeout): ending the run on every host",
			 what, options.mpi_timeout);
	fprintf(stderr, "%s: %s\n", options.progname, line);
	fflush(stderr);
	run_exit_hook(EXIT_RUN_FAILED, line);
	tell_end(NULL);
	/* the other ranks that still answer clean up as this one does; the
	 * silent one's clients are ended by mpirun and remove their trees */
	signals_run_end_now();
	MPI_Abort(MPI_COMM_WORLD, EXIT_RUN_FAILED);
	_exit(EXIT_RUN_FAILED);
}

/* At most --mpi-timeout seconds; a dead rank's silence is counted from
 * since (0: from the start of the wait). */
static void wait_or_abort(MPI_Request *req, const int *who, int n, const char *what, uint64_t since)
{
	wait_limit(req, who, n, what, (uint64_t)options.mpi_timeout * NSEC_PER_SEC, since);
}

/* What each rank tells rank 0 in mpi_agree. */
struct agree_msg {
	int ok;
	char text[600];		/* why not */
};

/* Point to point, not a collective, so that rank 0 can name a rank that
 * dies meanwhile (wait_limit); no time limit: a rank's setup may take long
 * (its own limits end it). */
static int mpi_agree(bool ok, const char *message)
{
	struct agree_msg mine = { .ok = ok };
	int first = m.size;

	if (!ok)
		snprintf(mine.text, sizeof(mine.text), "%s", message ? message : "failed");
	if (m.rank != 0) {
		MPI_Request req[2];
		int who[2] = { 0, 0 };

		MPI_Isend(&mine, sizeof(mine), MPI_BYTE, 0, TAG_AGREE, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(&first, 1, MPI_INT, 0, TAG_AGREED, MPI_COMM_WORLD, &req[1]);
		wait_limit(req, who, 2, "answer from rank 0", UINT64_MAX / 2, 0);
	} else {
		int n = m.size - 1;
		struct agree_msg *in = xcalloc((size_t)MAX(n, 1), sizeof(*in));
		MPI_Request *req = xcalloc((size_t)MAX(n, 1), sizeof(*req));
		int *who = xcalloc((size_t)MAX(n, 1), sizeof(*who));

		for (int i = 0; i < n; i++) {
			who[i] = i + 1;
			MPI_Irecv(&in[i], sizeof(in[i]), MPI_BYTE, i + 1, TAG_AGREE, MPI_COMM_WORLD, &req[i]);
		}
		wait_limit(req, who, n, "report that it is ready", UINT64_MAX / 2, 0);
		if (!ok)
			first = 0;	/* its own message is printed already */
		for (int i = 0; i < n && first == m.size; i++) {
			if (in[i].ok)
				continue;
			first = i + 1;
			in[i].text[sizeof(in[i].text) - 1] = '\0';
			fprintf(stderr, "%s: rank %d on %s: %s\n", options.progname, first, m.host[first],
				in[i].text);
		}
		for (int i = 0; i < n; i++)
			MPI_Isend(&first, 1, MPI_INT, i + 1, TAG_AGREED, MPI_COMM_WORLD, &req[i]);
		wait_or_abort(req, who, n, "receipt of the answer", 0);
		free(in);
		free(req);
		free(who);
	}
	return first == m.size ? 0 : -1;
}

/* ---- do the ranks run the same benchmark? ---- */

/* What a rank runs, as mpi_same compares it; text, so that it can be
 * shown. */
struct run_id {
	char loadfile[256];	/* the path, as given (shown, not compared) */
	char sha256[65];	/* of the loadfile's text: compared */
	char nprocs[160];	/* NPROCS or --sweep, and --clients-per-process */
	char length[96];	/* -t, --warmup, --passes */
	char shape[256];	/* --iodepth, -R, --stagger, --trunc-io, --repeat,
				   --repeat-until-ci: "--NAME VALUE" lines */
	char backend[64];	/* -B */
	char target[1536];	/* -D, --server, --port, the backend's options: "--NAME VALUE" lines */
};

/* Append "OPTION VALUE\n" to the target. */
static void target_add(struct run_id *id, const char *option, const char *value)
{
	size_t n = strlen(id->target);

	snprintf(id->target + n, sizeof(id->target) - n, "%s %s\n", option, value);
}

/* The core's options that shape the run beyond its length: each rank's
 * clients keep as many ops in flight, are paced, started and cut alike,
 * and the ranks make the same runs of a series (a rank that made fewer
 * would leave the others waiting for it).  Every line, defaults too, so
 * that a difference names its option. */
static void shape_of(struct run_id *id)
{
	snprintf(id->shape, sizeof(id->shape),
		 "--iodepth %d\n-R %g\n--stagger %d\n--trunc-io %lld\n--repeat %d\n--repeat-until-ci %g\n",
		 options.iodepth, options.target_rate, options.stagger, (long long)options.trunc_io,
		 MAX(options.repeat, 1), options.repeat_until_ci);
}

/* The values of a popt table's options (the backend's), in table order. */
static void target_options(struct run_id *id, const struct backend_option *o, const void *block)
{
	for (; block && o && o->name; o++) {
		const char *field = (const char *)block + o->offset;
		char num[32], name[80];

		if (o->type == BOPT_DIRECTORY)
			continue;	/* -D: said above */
		snprintf(name, sizeof(name), "--%s", o->name);
		if (o->type == BOPT_STRING) {
			const char *v = *(const char *const *)(const void *)field;

			if (v)
				target_add(id, name, v);
		} else {
			snprintf(num, sizeof(num), "%d", *(const int *)(const void *)field);
			target_add(id, name, num);
		}
	}
}

static void run_id_of(struct run_id *id, const struct program *prog, const struct backend *be)
{
	size_t n;

	memset(id, 0, sizeof(*id));
	snprintf(id->loadfile, sizeof(id->loadfile), "%s", prog->filename);
	memcpy(id->sha256, prog->sha256, sizeof(id->sha256));
	if (options.nsweep) {
		n = (size_t)snprintf(id->nprocs, sizeof(id->nprocs), "--sweep ");
		for (int i = 0; i < options.nsweep && n < sizeof(id->nprocs); i++)
			n += (size_t)snprintf(id->nprocs + n, sizeof(id->nprocs) - n, "%s%d", i ? "," : "",
					      options.sweep[i]);
	} else {
		n = (size_t)snprintf(id->nprocs, sizeof(id->nprocs), "NPROCS %d",
				     options.clients_total / options.clients_per_process);
	}
	if (n < sizeof(id->nprocs) && options.clients_per_process != 1)
		snprintf(id->nprocs + n, sizeof(id->nprocs) - n, " --clients-per-process %d",
			 options.clients_per_process);
	if (options.passes)
		snprintf(id->length, sizeof(id->length), "--passes %d", options.passes);
	n = strlen(id->length);
	/* (-t caps a --passes run too) */
	n += (size_t)snprintf(id->length + n, sizeof(id->length) - n, "%s-t %d", n ? " " : "",
			      options.timelimit);
	if (n < sizeof(id->length))
		n += (size_t)snprintf(id->length + n, sizeof(id->length) - n, " --warmup %d", options.warmup);
	if (n < sizeof(id->length) && options.check_loadfile)
		snprintf(id->length + n, sizeof(id->length) - n, " --check-loadfile");
	shape_of(id);
	snprintf(id->backend, sizeof(id->backend), "%s", be->name);
	if ((be->flags & BACKEND_DIRECTORY) && backend_directory(be, options.be_opt))
		target_add(id, "-D", backend_directory(be, options.be_opt));
	if ((be->flags & BACKEND_SERVER) && options.server)
		target_add(id, "--server", options.server);
	if ((be->flags & BACKEND_SERVER) && options.port) {
		char port[16];

		snprintf(port, sizeof(port), "%d", options.port);
		target_add(id, "--port", port);
	}
	target_options(id, be->options, options.be_opt);
}

/* A value for a message: a password in it (USER%PASSWORD, and the same in a
 * URL before '@') is not shown. */
static void shown_value(char *out, size_t len, const char *v, size_t vlen)
{
	const char *pct = memchr(v, '%', vlen);

	if (!pct) {
		snprintf(out, len, "%.*s", (int)vlen, v);
		return;
	}
	{
		const char *at = memchr(pct, '@', vlen - (size_t)(pct - v));
		size_t rest = at ? vlen - (size_t)(at - v) : 0;

		snprintf(out, len, "%.*s%%...%.*s", (int)(pct - v), v, (int)rest, at ? at : "");
	}
}

/* The first "--NAME VALUE" line (of a target or a shape) that is not the
 * same in both, as "--NAME VALUE (rank 0 on HOST: VALUE)". */
static void lines_difference(const char *a, const char *b, char *out, size_t len)
{
	while (*a || *b) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
		size_t ka = strcspn(a, " \n"), kb = strcspn(b, " \n");
		char va[256], vb[256];

		if (la == lb && !memcmp(a, b, la)) {
			a += la + (a[la] == '\n');
			b += lb + (b[lb] == '\n');
			continue;
		}
		if (la && lb && ka == kb && !memcmp(a, b, ka)) {
			shown_value(va, sizeof(va), a + ka + 1, la - ka - 1);
			shown_value(vb, sizeof(vb), b + kb + 1, lb - kb - 1);
			snprintf(out, len, "%.*s %s (rank 0 on %s: %s)", (int)ka, a, va, m.host[0], vb);
		} else if (la) {
			shown_value(va, sizeof(va), a + ka + 1, la > ka ? la - ka - 1 : 0);
			snprintf(out, len, "%.*s %s (rank 0 on %s: %s)", (int)ka, a, va, m.host[0],
				 lb ? "other options" : "not given");
		} else {
			shown_value(vb, sizeof(vb), b + kb + 1, lb > kb ? lb - kb - 1 : 0);
			snprintf(out, len, "no %.*s (rank 0 on %s: %s)", (int)kb, b, m.host[0], vb);
		}
		return;
	}
	snprintf(out, len, "other options");
}

/* Every text of a run_id another rank sent ends within it. */
static void run_id_terminate(struct run_id *id)
{
	id->loadfile[sizeof(id->loadfile) - 1] = '\0';
	id->sha256[sizeof(id->sha256) - 1] = '\0';
	id->nprocs[sizeof(id->nprocs) - 1] = '\0';
	id->length[sizeof(id->length) - 1] = '\0';
	id->shape[sizeof(id->shape) - 1] = '\0';
	id->backend[sizeof(id->backend) - 1] = '\0';
	id->target[sizeof(id->target) - 1] = '\0';
}

/* What rank r runs otherwise than rank 0, or "" if the same. */
static void run_difference(const struct run_id *r, const struct run_id *zero, char *out, size_t len)
{
	char target[600];

	out[0] = '\0';
	if (strcmp(r->sha256, zero->sha256))
		snprintf(out, len, "the loadfile %s (sha256 %.12s...; rank 0 on %s: %s, sha256 %.12s...)",
			 r->loadfile, r->sha256, m.host[0], zero->loadfile, zero->sha256);
	else if (strcmp(r->nprocs, zero->nprocs))
		snprintf(out, len, "%s (rank 0 on %s: %s)", r->nprocs, m.host[0], zero->nprocs);
	else if (strcmp(r->length, zero->length))
		snprintf(out, len, "%s (rank 0 on %s: %s)", r->length, m.host[0], zero->length);
	else if (strcmp(r->shape, zero->shape))
		lines_difference(r->shape, zero->shape, out, len);
	else if (strcmp(r->backend, zero->backend))
		snprintf(out, len, "-B %s (rank 0 on %s: -B %s)", r->backend, m.host[0], zero->backend);
	else if (strcmp(r->target, zero->target)) {
		lines_difference(r->target, zero->target, target, sizeof(target));
		snprintf(out, len, "%s", target);
	}
}

static int mpi_same(const struct program *prog, const struct backend *be, char *why, size_t len)
{
	struct run_id mine, *all = NULL;
	int ok = 1;

	run_id_of(&mine, prog, be);
	why[0] = '\0';
	if (m.rank != 0) {
		MPI_Request req;
		int who = 0;

		MPI_Isend(&mine, sizeof(mine), MPI_BYTE, 0, TAG_SAME, MPI_COMM_WORLD, &req);
		wait_limit(&req, &who, 1, "answer from rank 0", UINT64_MAX / 2, 0);
	} else {
		int n = m.size - 1, told = 0;
		MPI_Request *req = xcalloc((size_t)MAX(n, 1), sizeof(*req));
		int *who = xcalloc((size_t)MAX(n, 1), sizeof(*who));
		size_t used;

		all = xcalloc((size_t)MAX(n, 1), sizeof(*all));
		for (int i = 0; i < n; i++) {
			who[i] = i + 1;
			MPI_Irecv(&all[i], sizeof(all[i]), MPI_BYTE, i + 1, TAG_SAME, MPI_COMM_WORLD, &req[i]);
		}
		wait_limit(req, who, n, "report of what it runs", UINT64_MAX / 2, 0);
		used = (size_t)snprintf(why, len, "--mpi: the ranks do not run the same benchmark:");
		for (int i = 0; i < n; i++) {
			char diff[900];

			run_id_terminate(&all[i]);
			run_difference(&all[i], &mine, diff, sizeof(diff));
			if (!diff[0])
				continue;
			ok = 0;
			if (told++ < 3 && used < len)
				used += (size_t)snprintf(why + used, len - used, "%s rank %d on %s has %s",
							 told > 1 ? ";" : "", i + 1, m.host[i + 1], diff);
		}
		if (told > 3 && used < len)
			snprintf(why + used, len - used, "; and %d rank%s more", told - 3, told == 4 ? "" : "s");
		if (!ok)
			fprintf(stderr, "%s: %s\n", options.progname, why);
		free(req);
		free(who);
		free(all);
	}
	/* every rank learns the verdict (rank 0 has said why) */
	return mpi_agree(ok, why);
}

static void mpi_barrier(const char *what)
{
	MPI_Request req;

	if (!m.on)
		return;
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	wait_or_abort(&req, NULL, 1, what, 0);
	m.last_exchange_ns = now_ns();	/* a dead rank's silence counts from here */
	if (!signals_parent_seen()) {	/* (a run of a series: the next one) */
		signals_cont_forget();
		m.signal_at = 0;
	}
}

/* The progress figures of a second, as sent. */
#define NFIG 10

static void mpi_exchange(struct mpi_figures *f)
{
	uint64_t mine[NFIG] = { f->running, f->active, f->ops, f->bytes_all, f->bytes_measured,
				f->clients, f->procs_running, f->latency_ns, f->died_client,
				f->died_signal };
	uint64_t total[NFIG], cpu0 = thread_cpu_ns();

	if (m.rank != 0) {
		MPI_Request req[2];
		int who[2] = { 0, 0 };

		MPI_Isend(mine, NFIG, MPI_UINT64_T, 0, TAG_FIGURES, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(total, NFIG, MPI_UINT64_T, 0, TAG_TOTALS, MPI_COMM_WORLD, &req[1]);
		wait_or_abort(req, who, 2, "progress from rank 0", m.last_exchange_ns);
	} else {
		int n = m.size - 1, died_rank = mine[8] ? 0 : -1;
		uint64_t (*in)[NFIG] = xcalloc((size_t)MAX(n, 1), sizeof(*in));
		MPI_Request *req = xcalloc((size_t)MAX(n, 1), sizeof(*req));
		int *who = xcalloc((size_t)MAX(n, 1), sizeof(*who));

		for (int i = 0; i < n; i++) {
			who[i] = i + 1;
			MPI_Irecv(in[i], NFIG, MPI_UINT64_T, i + 1, TAG_FIGURES, MPI_COMM_WORLD, &req[i]);
		}
		wait_or_abort(req, who, n, "progress report", m.last_exchange_ns);
		memcpy(total, mine, sizeof(total));
		for (int i = 0; i < n; i++) {
			for (int k = 0; k < 7; k++)
				total[k] += in[i][k];
			total[7] = MAX(total[7], in[i][7]);
			if (died_rank < 0 && in[i][8]) {
				died_rank = i + 1;
				total[8] = in[i][8];
				total[9] = in[i][9];
			}
		}
		if (died_rank < 0)
			m.died_told = false;	/* (a run of a series: the next one) */
		else if (!m.died_told) {
			/* a client process died: every rank ends the run (run.c) */
			int sig = (int)total[9];

			fprintf(stderr, "%s: rank %d on %s: client %llu died on signal %d (%s): ending the run on every host\n",
				options.progname, died_rank, m.host[died_rank],
				(unsigned long long)(total[8] - 1), sig, strsignal(sig));
			fflush(stderr);
			m.died_told = true;
		}
		for (int i = 0; i < n; i++)
			MPI_Isend(total, NFIG, MPI_UINT64_T, i + 1, TAG_TOTALS, MPI_COMM_WORLD, &req[i]);
		wait_or_abort(req, who, n, "receipt of the progress", m.last_exchange_ns);
		free(in);
		free(req);
		free(who);
	}
	m.last_exchange_ns = now_ns();
	m.exchanges++;
	m.exchange_cpu_ns += thread_cpu_ns() - cpu0;
	*f = (struct mpi_figures){ total[0], total[1], total[2], total[3], total[4], total[5], total[6],
				   total[7], total[8], total[9] };
}

static void rank_result_of(struct rank_result *rr, const struct results *r)
{
	struct latency_figures lf;
	double window = results_window_sec(r);

	latency_figures(&r->all, r->all.count, &lf);
	rr->clients = r->id.clients;
	rr->mbps = results_throughput(r);
	rr->ops_per_sec = window > 0 ? (double)r->all.count / window : 0;
	rr->p99_ms = lf.p99 / 1e6;
}

static void free_rank_results(void)
{
	if (!m.res)
		return;
	for (int i = 0; i < m.size; i++)
		json_decref(m.res[i].doc);
	free(m.res);
	m.res = NULL;
}

static void mpi_gather(struct results *r)
{
	json_t *doc = results_to_json(r);
	char *text = json_dumps(doc, JSON_COMPACT);
	int len = text ? (int)strlen(text) + 1 : 0, *lens = NULL, *offs = NULL;
	char *all = NULL;

	json_decref(doc);
	if (m.rank == 0)
		lens = xcalloc((size_t)m.size, sizeof(int));
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (m.rank == 0) {
		size_t total = 0;

		offs = xcalloc((size_t)m.size, sizeof(int));
		for (int i = 0; i < m.size; i++) {
			offs[i] = (int)total;
			total += (size_t)lens[i];
		}
		all = xmalloc(total + 1);
	}
	MPI_Gatherv(text, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
	free(text);
	if (m.rank != 0)
		return;

	free_rank_results();
	m.res = xcalloc((size_t)m.size, sizeof(*m.res));
	rank_result_of(&m.res[0], r);
	m.res[0].doc = results_to_json(r);
	for (int i = 1; i < m.size; i++) {
		struct results b;
		json_error_t jerr;
		char err[256];
		json_t *d = lens[i] ? json_loads(all + offs[i], 0, &jerr) : NULL;

		if (!d || results_from_json(&b, d, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s: rank %d on %s: its results cannot be read: %s\n", options.progname,
				i, m.host[i], d ? err : "not JSON");
			json_decref(d);
			r->exit_status = MAX(r->exit_status, EXIT_RUN_FAILED);
			continue;
		}
		rank_result_of(&m.res[i], &b);
		m.res[i].doc = d;
		if (results_merge(r, &b) < 0) {
			fprintf(stderr, "%s: rank %d on %s: its results do not merge (another loadfile?)\n",
				options.progname, i, m.host[i]);
			r->exit_status = MAX(r->exit_status, EXIT_RUN_FAILED);
		}
		results_free(&b);
	}
	free(all);
	free(lens);
	free(offs);
}

static void mpi_banner(void)
{
	if (!m.on || options.machine_readable)
		return;
	if (options.nsweep)
		printf("MPI: each point's client processes over %d ranks (the first ones with one more) on",
		       m.size);
	else
		printf("MPI: %d clients over %d ranks (the first %d with one process more) on",
		       options.clients_total, m.size,
		       (options.clients_total / options.clients_per_process) % m.size);
	for (int i = 0; i < m.size; i++)
		if (i == 0 || strcmp(m.host[i], m.host[i - 1]) != 0)
			printf(" %s", m.host[i]);
	printf("\n");
	fflush(stdout);
}

static void mpi_host_lines(FILE *out)
{
	if (!m.on || !m.res)
		return;
	fprintf(out, "\n %-5s %-24s %8s %12s %12s %10s\n", "Rank", "Host", "Clients", "MB/sec", "ops/sec",
		"p99 ms");
	for (int i = 0; i < m.size; i++)
		fprintf(out, " %-5d %-24s %8d %12.2f %12.1f %10.3f\n", i, m.host[i], m.res[i].clients,
			m.res[i].mbps, m.res[i].ops_per_sec, m.res[i].p99_ms);
}

static json_t *mpi_json(void)
{
	json_t *ranks;

	if (!m.on || !m.res)
		return NULL;
	ranks = json_array();
	for (int i = 0; i < m.size; i++)
		json_array_append_new(ranks, json_pack("{s:i s:s s:i s:f s:f s:f s:O}", "rank", i, "host",
						       m.host[i], "clients", m.res[i].clients, "mb_per_sec",
						       m.res[i].mbps, "ops_per_sec", m.res[i].ops_per_sec,
						       "p99_ms", m.res[i].p99_ms, "result",
						       m.res[i].doc ? m.res[i].doc : json_null()));
	return json_pack("{s:i s:o s:I s:I}", "ranks", m.size, "per_rank", ranks, "exchanges",
			 (json_int_t)m.exchanges, "exchange_cpu_ns", (json_int_t)m.exchange_cpu_ns);
}

static void mpi_finish(void)
{
	if (!m.on)
		return;
	free_rank_results();
	free(m.host);
	MPI_Finalize();
	m.on = false;
}

static const char *mpi_library(void)
{
	static char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	if (!version[0] && MPI_Get_library_version(version, &len) == MPI_SUCCESS)
		version[strcspn(version, "\n")] = '\0';	/* its first line */
	return version;
}

/* What the program calls (mpi.c). */
static const struct mpi_module mpi_module = {
	.abi = MPI_MODULE_ABI,
	.library = mpi_library,
	.on = mpi_on,
	.rank = mpi_rank,
	.size = mpi_size,
	.start = mpi_start,
	.spread = mpi_spread,
	.max = mpi_max,
	.agree = mpi_agree,
	.same = mpi_same,
	.barrier = mpi_barrier,
	.exchange = mpi_exchange,
	.tick_now = mpi_tick_now,
	.gather = mpi_gather,
	.banner = mpi_banner,
	.host_lines = mpi_host_lines,
	.json = mpi_json,
	.finish = mpi_finish,
};
const struct mpi_module *const dbench_mpi = &mpi_module;
