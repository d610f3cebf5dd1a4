/*
 * tbench_srv.c - the tbench server: accepts tbench clients and answers
 * every request with the reply size it asks for, doing no file I/O, so
 * that tbench measures the TCP and process load of a file server as if
 * the server itself were infinitely fast.
 *
 * Here: the options, the listeners, the log, and the default mode, a
 * process per connection, as smbd does: the parent only accepts, forks
 * and reaps; a child serves one connection (serve.c) and dies with its
 * parent.  --workers N hands the accepted connections to N event loops
 * instead (workers.c).  SIGTERM, SIGINT and SIGHUP stop the parent,
 * which stops and reaps every child before it exits.  The only file it
 * writes is the optional pid file.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <popt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tbench_srv.h"
#include "workers.h"

#define DEFAULT_MAX_CLIENTS 1024
#define DEFAULT_TIMEOUT 60
#define DEFAULT_REQUEST_TIMEOUT 300	/* a 16 MiB request at 1 Mbit/s takes 134 s */
#define DEFAULT_IDLE_TIMEOUT 3600	/* well past a tbench run's setup and pauses */
#define STOP_GRACE_MS 2000	/* children get this long after SIGTERM */
#define EXIT_USAGE 2

/* ---- The log (tbench_srv.h): one write a line. */
void logline(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), PROGNAME "[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

void log_end(const struct srv_options *opt, const char *peer, enum serve_end end,
	     const char *why, const struct serve_counts *n)
{
	if (opt->verbose || end == SERVE_PROTOCOL || end == SERVE_TIMEOUT)
		logline("%s: disconnected (%s): %s; %llu requests, %llu bytes in, %llu bytes out%s",
			peer, serve_end_name(end), why, (unsigned long long)n->requests,
			(unsigned long long)n->bytes_in, (unsigned long long)n->bytes_out,
			n->classic ? " (classic wire)" : "");
}

/* ---- Options. */

static void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROGNAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	exit(EXIT_USAGE);
}

/* "a.b.c.d:port" or "[v6]:port"; IPv4-mapped IPv6 shown as IPv4. */
static void format_addr(const struct sockaddr *sa, socklen_t len, char *out, size_t outlen)
{
	char host[INET6_ADDRSTRLEN], port[8];
	const char *h = host;

	if (getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(out, outlen, "?");
		return;
	}
	if (sa->sa_family == AF_INET6 && strncmp(host, "::ffff:", 7) == 0 && strchr(host + 7, '.'))
		h = host + 7;
	if (strchr(h, ':'))
		snprintf(out, outlen, "[%s]:%s", h, port);
	else
		snprintf(out, outlen, "%s:%s", h, port);
}

static int parse_int(const char *name, const char *text, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end != '\0' || v < min || v > max)
		usage_error("%s: '%s' is not a number in %ld..%ld", name, text, min, max);
	return (int)v;
}

/* popt's POPT_ARG_ARGV arrays: each string and the array are malloc'd. */
static void free_argv(const char **argv)
{
	for (const char **a = argv; a && *a; a++)
		free((char *)*a);
	free(argv);
}

static void parse_options(int argc, const char **argv, struct srv_options *opt)
{
	char *port = NULL, *max_clients = NULL, *workers = NULL, *timeout = NULL, *request_timeout = NULL,
	     *idle_timeout = NULL;
	const char **sockopts_t = NULL, **sockopts_T = NULL;
	struct poptOption table[] = {
		{ "port", 'p', POPT_ARG_STRING, &port, 0,
		  "TCP port to listen on (0: any free port; default 7003)", "PORT" },
		{ "bind", 'b', POPT_ARG_ARGV, &opt->bind, 0,
		  "listen on this address only (repeatable; default: every IPv4 and IPv6 address)",
		  "ADDR" },
		{ "socket-options", 't', POPT_ARG_ARGV, &sockopts_t, 0,
		  "socket options, as dbench 4.0: TCP_NODELAY[=0|1] SO_KEEPALIVE[=0|1] SO_REUSEADDR[=0|1] "
		  "SO_BROADCAST[=0|1] IPTOS_LOWDELAY IPTOS_THROUGHPUT SO_SNDBUF=n SO_RCVBUF=n SO_SNDLOWAT=n "
		  "SO_RCVLOWAT=n SO_SNDTIMEO=ms SO_RCVTIMEO=ms, comma or space separated (default TCP_NODELAY)",
		  "OPTS" },
		{ NULL, 'T', POPT_ARG_ARGV, &sockopts_T, 0, "same as -t", "OPTS" },
		{ "max-clients", '\0', POPT_ARG_STRING, &max_clients, 0,
		  "connections served at once; more are refused (default 1024)", "N" },
		{ "timeout", '\0', POPT_ARG_STRING, &timeout, 0,
		  "drop a connection stalled this long inside a frame or not reading its reply "
		  "(0: never; default 60)", "SECONDS" },
		{ "request-timeout", '\0', POPT_ARG_STRING, &request_timeout, 0,
		  "drop a connection whose request takes longer than this from its first byte to "
		  "its last, however it trickles in (0: never; default 300)", "SECONDS" },
		{ "idle-timeout", '\0', POPT_ARG_STRING, &idle_timeout, 0,
		  "drop a connection that sends no request for this long (0: never; default 3600)",
		  "SECONDS" },
		{ "workers", '\0', POPT_ARG_STRING, &workers, 0,
		  "serve from N processes, each multiplexing its connections on an event loop "
		  "(0: a process per connection, as smbd and dbench 4.0; default 0)", "N" },
		{ "daemon", 'D', POPT_ARG_NONE, &opt->daemon, 0,
		  "detach from the terminal and run in the background", NULL },
		{ "foreground", '\0', POPT_ARG_NONE, &opt->foreground, 0,
		  "stay in the foreground (the default)", NULL },
		{ "pid-file", '\0', POPT_ARG_STRING, &opt->pid_file, 0,
		  "write the server's pid to FILE once it listens; removed at exit", "FILE" },
		{ "verbose", 'v', POPT_ARG_NONE, &opt->verbose, 0,
		  "say where it listens and log every connection and disconnection", NULL },
		{ "version", '\0', POPT_ARG_NONE, &opt->version, 0,
		  "print the version and exit", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	char why[256];
	poptContext pc;
	int rc;

	*opt = (struct srv_options){
		.port = TBENCH_DEFAULT_PORT,
		.max_clients = DEFAULT_MAX_CLIENTS,
		.timeout = DEFAULT_TIMEOUT,
		.request_timeout = DEFAULT_REQUEST_TIMEOUT,
		.idle_timeout = DEFAULT_IDLE_TIMEOUT,
	};
	sockopts_init(&opt->so);
	opt->so.nodelay = 1;
	pc = poptGetContext(PROGNAME, argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, "[OPTION...]");
	while ((rc = poptGetNextOpt(pc)) > 0)
		;
	if (rc < -1)
		usage_error("%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
	if (poptPeekArg(pc))
		usage_error("unexpected argument '%s'", poptPeekArg(pc));
	if (opt->version) {
		printf("%s (dbench) %s, tbench protocol version %d\n", PROGNAME, PACKAGE_VERSION,
		       PROTO_VERSION);
		exit(0);
	}
	if (port)
		opt->port = parse_int("--port", port, 0, 65535);
	if (max_clients)
		opt->max_clients = parse_int("--max-clients", max_clients, 1, 65536);
	if (workers)
		opt->workers = parse_int("--workers", workers, 0, MAX_WORKERS);
	if (timeout)
		opt->timeout = parse_int("--timeout", timeout, 0, 86400);
	if (request_timeout)
		opt->request_timeout = parse_int("--request-timeout", request_timeout, 0, 86400);
	if (idle_timeout)
		opt->idle_timeout = parse_int("--idle-timeout", idle_timeout, 0, 86400 * 365);
	if (opt->daemon && opt->foreground)
		usage_error("--daemon and --foreground exclude each other");
	if (opt->pid_file && !*opt->pid_file)
		usage_error("--pid-file: empty file name");
	for (const char **s = sockopts_t; s && *s; s++)
		if (sockopts_parse(*s, &opt->so, why, sizeof(why)) < 0)
			usage_error("-t: %s", why);
	for (const char **s = sockopts_T; s && *s; s++)
		if (sockopts_parse(*s, &opt->so, why, sizeof(why)) < 0)
			usage_error("-T: %s", why);
	free_argv(sockopts_t);
	free_argv(sockopts_T);
	free(port);
	free(max_clients);
	free(workers);
	free(timeout);
	free(request_timeout);
	free(idle_timeout);
	poptFreeContext(pc);
}

/* ---- Listening, the pid file, detaching, signals. */

/* Make one listening socket; 0, or -1 after one line on stderr. */
static int listen_on(struct server *srv, const struct sockaddr *sa, socklen_t len, int v6only)
{
	struct listener *l = &srv->lst[srv->nlst];
	struct sockaddr_storage bound;
	socklen_t boundlen = sizeof(bound);
	char why[256];
	int one = 1;
	int fd;

	format_addr(sa, len, l->name, sizeof(l->name));
	if (srv->nlst == MAX_LISTENERS) {
		fprintf(stderr, PROGNAME ": %s: more than %d addresses to listen on\n",
			l->name, MAX_LISTENERS);
		return -1;
	}
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, PROGNAME ": socket for %s: %s\n", l->name, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
	if (sockopts_apply(fd, &srv->opt->so, why, sizeof(why)) < 0) {
		fprintf(stderr, PROGNAME ": %s: %s\n", l->name, why);
		goto fail;
	}
	if (bind(fd, sa, len) < 0) {
		fprintf(stderr, PROGNAME ": cannot listen on %s: %s\n", l->name, strerror(errno));
		goto fail;
	}
	if (listen(fd, SOMAXCONN) < 0) {
		fprintf(stderr, PROGNAME ": listen on %s: %s\n", l->name, strerror(errno));
		goto fail;
	}
	if (getsockname(fd, (struct sockaddr *)&bound, &boundlen) == 0)
		format_addr((struct sockaddr *)&bound, boundlen, l->name, sizeof(l->name));
	l->fd = fd;
	srv->nlst++;
	return 0;
fail:
	close(fd);
	return -1;
}

/* The port the first listener got (for -p 0 with several addresses). */
static int bound_port(const struct server *srv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (srv->nlst == 0 || getsockname(srv->lst[0].fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* No -b: one dual-stack socket, or IPv4 alone where there is no IPv6. */
static int listen_any(struct server *srv)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT,
				   .sin6_port = htons((uint16_t)srv->opt->port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY),
				  .sin_port = htons((uint16_t)srv->opt->port) };
	int probe = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (probe >= 0) {
		close(probe);
		return listen_on(srv, (struct sockaddr *)&a6, sizeof(a6), 0);
	}
	return listen_on(srv, (struct sockaddr *)&a4, sizeof(a4), 0);
}

static int listen_addr(struct server *srv, const char *addr)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char port[8];
	int rc;

	snprintf(port, sizeof(port), "%d", srv->nlst ? bound_port(srv) : srv->opt->port);
	rc = getaddrinfo(addr, port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, PROGNAME ": cannot resolve bind address '%s': %s\n", addr,
			gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (srv->nlst && srv->opt->port == 0) {
			int p = bound_port(srv);

			if (ai->ai_family == AF_INET6)
				((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons((uint16_t)p);
			else
				((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)p);
		}
		rc = listen_on(srv, ai->ai_addr, ai->ai_addrlen, 1);
		if (rc < 0)
			break;
	}
	freeaddrinfo(res);
	return rc;
}

static int open_listeners(struct server *srv)
{
	if (!srv->opt->bind)
		return listen_any(srv);
	for (const char **b = srv->opt->bind; *b; b++)
		if (listen_addr(srv, *b) < 0)
			return -1;
	return 0;
}

/* Open the pid file's directory now, so that it can be removed later. */
static int open_pid_dir(struct server *srv)
{
	const char *path = srv->opt->pid_file;
	const char *slash;
	char dir[PATH_MAX];

	srv->piddir = -1;
	if (!path)
		return 0;
	slash = strrchr(path, '/');
	srv->pidbase = slash ? slash + 1 : path;
	if (!*srv->pidbase) {
		fprintf(stderr, PROGNAME ": --pid-file %s: names a directory\n", path);
		return -1;
	}
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	srv->piddir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (srv->piddir < 0) {
		fprintf(stderr, PROGNAME ": --pid-file %s: %s: %s\n", path, dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_pid_file(const struct server *srv)
{
	char line[32];
	int len, fd;

	if (srv->piddir < 0)
		return 0;
	fd = openat(srv->piddir, srv->pidbase, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		fprintf(stderr, PROGNAME ": --pid-file %s: %s\n", srv->opt->pid_file, strerror(errno));
		return -1;
	}
	len = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (write(fd, line, (size_t)len) != len) {
		fprintf(stderr, PROGNAME ": --pid-file %s: write failed\n", srv->opt->pid_file);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void remove_pid_file(const struct server *srv)
{
	if (srv->piddir >= 0)
		unlinkat(srv->piddir, srv->pidbase, 0);
}

/*
 * --daemon: the original process waits until the daemon is ready (pid
 * file written), so that its exit status says whether the start worked.
 * Returns in the daemon with the write end of the ready pipe in *ready.
 */
static int daemonize(int *ready)
{
	int pipefd[2];
	char ok = 0;
	pid_t pid;
	int null;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, PROGNAME ": pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROGNAME ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid > 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &ok, 1) != 1 || ok != 1)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (chdir("/") < 0)
		return -1;
	*ready = pipefd[1];
	return 0;
}

static int setup_signals(struct server *srv)
{
	sigemptyset(&srv->sigs);
	sigaddset(&srv->sigs, SIGCHLD);
	sigaddset(&srv->sigs, SIGTERM);
	sigaddset(&srv->sigs, SIGINT);
	sigaddset(&srv->sigs, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &srv->sigs, NULL) < 0)
		return -1;
	srv->sigfd = signalfd(-1, &srv->sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (srv->sigfd < 0) {
		fprintf(stderr, PROGNAME ": signalfd: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- A process per connection: serve_connection() on a blocking socket. */

/* Socket I/O for serve_connection(). */
struct sock_ctx {
	int fd;			/* the connection */
	int can_trunc;		/* recv(MSG_TRUNC) discards without copying */
	const struct srv_options *opt;
	int phase;		/* enum serve_phase */
	uint64_t deadline_ns;	/* the wait for a request or its bytes ends, 0: none */
	uint8_t scratch[SERVE_CHUNK]; /* where discarded bytes go otherwise */
};

/* A request as a whole, and the wait between requests, have deadlines.  A
 * request's runs from its first byte: serve.c says REQUEST again as it
 * reads on (the header after the first bytes, the payload), which keeps it
 * (else a client that drips a frame would get a new --request-timeout
 * with each part of it). */
static void sock_phase(void *ctx, int phase)
{
	struct sock_ctx *s = ctx;
	int secs = phase_timeout(s->opt, phase);

	if (phase == SERVE_PHASE_REQUEST && s->phase == SERVE_PHASE_REQUEST)
		return;
	s->phase = phase;
	s->deadline_ns = secs ? mono_ns() + (uint64_t)secs * 1000000000ULL : 0;
}

/* recv, waiting in poll() until data comes, the deadline (ETIME) or
 * --timeout seconds without data (EAGAIN: a stall), whichever is first;
 * the deadline is kept to the millisecond, not to a receive timeout's
 * granularity. */
static ssize_t sock_recv_flags(struct sock_ctx *s, void *buf, size_t len, int flags)
{
	uint64_t start = mono_ns();
	ssize_t rc;

	for (;;) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		uint64_t now = mono_ns();
		int wait_ms = -1;

		if (s->deadline_ns) {
			if (now >= s->deadline_ns) {
				errno = ETIME;
				return -1;
			}
			wait_ms = ms_until(s->deadline_ns, now);
		}
		if (s->opt->timeout) {
			uint64_t stall = start + (uint64_t)s->opt->timeout * 1000000000ULL;

			if (now >= stall) {
				errno = EAGAIN;
				return -1;
			}
			if (wait_ms < 0 || ms_until(stall, now) < wait_ms)
				wait_ms = ms_until(stall, now);
		}
		rc = recv(s->fd, buf, len, flags | MSG_DONTWAIT);
		if (rc >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return rc;
		if (poll(&p, 1, wait_ms) < 0 && errno != EINTR)
			return -1;
	}
}

static ssize_t sock_recv(void *ctx, void *buf, size_t len)
{
	return sock_recv_flags(ctx, buf, len, 0);
}

static ssize_t sock_discard(void *ctx, size_t len)
{
	struct sock_ctx *s = ctx;
	ssize_t rc;

	if (len > sizeof(s->scratch))
		len = sizeof(s->scratch);
	if (s->can_trunc) {
		rc = sock_recv_flags(s, s->scratch, len, MSG_TRUNC);
		if (rc >= 0 || (errno != EINVAL && errno != EOPNOTSUPP))
			return rc;
		s->can_trunc = 0;
	}
	return sock_recv_flags(s, s->scratch, len, 0);
}

static ssize_t sock_send(void *ctx, const void *buf, size_t len, int more)
{
	return send(((struct sock_ctx *)ctx)->fd, buf, len, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
}

/* Sends may stall --timeout seconds (receives wait in sock_recv_flags). */
static void set_timeouts(int fd, const struct srv_options *opt)
{
	struct timeval snd = { .tv_sec = opt->timeout };

	if (snd.tv_sec)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof(snd));
}

void child_setup(const struct server *srv)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != srv->pid)
		_exit(1);
	for (int i = 0; i < srv->nlst; i++)
		close(srv->lst[i].fd);
	close(srv->sigfd);
	if (srv->piddir >= 0)
		close(srv->piddir);
}

/* In a connection's process: the signal that stopped it (0: none), and
 * the socket that the signal shuts down. */
static volatile sig_atomic_t child_stopped_by;
static int child_fd = -1;

/* SIGTERM (the parent stopping), SIGINT or SIGHUP in a connection's
 * process: shut the socket down (async-signal-safe), so that the recv or
 * send under way, or the next one, returns at once and the connection's
 * end is logged as "stopped" with its counts. */
static void child_stop(int sig)
{
	child_stopped_by = sig;
	shutdown(child_fd, SHUT_RDWR);
}

/* In the child: serve one connection, then exit. */
static void __attribute__((noreturn)) child_main(const struct server *srv, int fd, const char *peer)
{
	struct sigaction stop = { .sa_handler = child_stop };	/* no SA_RESTART */
	struct sock_ctx ctx;
	struct serve_io io = { &ctx, sock_recv, sock_discard, sock_send, sock_phase };
	struct serve_counts counts;
	enum serve_end end;
	char why[256];

	child_setup(srv);
	child_fd = fd;
	sigemptyset(&stop.sa_mask);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	sigprocmask(SIG_UNBLOCK, &srv->sigs, NULL);

	if (sockopts_apply(fd, &srv->opt->so, why, sizeof(why)) < 0) {
		logline("%s: %s; connection dropped", peer, why);
		_exit(1);
	}
	set_timeouts(fd, srv->opt);
	ctx.fd = fd;
	ctx.can_trunc = 1;
	ctx.opt = srv->opt;
	ctx.phase = -1;
	ctx.deadline_ns = 0;
	end = serve_connection(&io, &counts, why, sizeof(why));
	if (child_stopped_by) {
		snprintf(why, sizeof(why), "stopped by %s %s", strsignal(child_stopped_by),
			 end == SERVE_CLOSED ? "between requests" : "inside a frame");
		end = SERVE_STOPPED;
	}
	log_end(srv->opt, peer, end, why, &counts);
	close(fd);
	_exit(end == SERVE_CLOSED ? 0 : 1);
}

/* ---- The parent: accept, hand over or fork, reap, stop. */

/* Refuse a connection over --max-clients, with a PROTO_ERR_BUSY frame. */
static void refuse_busy(int fd, const char *peer, int nopen)
{
	struct frame_header req, reply;
	uint8_t wire[FRAME_HEADER_SIZE];

	frame_request(&req, PROTO_OP_PING, 0, 0, 0);
	frame_reply(&reply, &req, PROTO_ERR_BUSY, 0);
	frame_encode(&reply, wire);
	if (send(fd, wire, sizeof(wire), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		errno = 0;
	shutdown(fd, SHUT_WR);
	logline("%s: refused: %d connections already (--max-clients)", peer, nopen);
}

void track_child(struct server *srv, pid_t pid)
{
	for (int i = 0; i < srv->nslots; i++) {
		if (srv->children[i] == 0) {
			srv->children[i] = pid;
			srv->nchildren++;
			return;
		}
	}
}

static void untrack_child(struct server *srv, pid_t pid)
{
	for (int i = 0; i < srv->nslots; i++) {
		if (srv->children[i] == pid) {
			srv->children[i] = 0;
			srv->nchildren--;
			return;
		}
	}
}

/* Reap ended children: the number of workers among them (--workers:
 * a worker never ends before the server stops it). */
static int reap_children(struct server *srv)
{
	int status, workers = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		untrack_child(srv, pid);
		if (!srv->opt->workers || srv->stopping)
			continue;
		workers++;
		if (WIFSIGNALED(status))
			logline("worker %d killed by %s", (int)pid, strsignal(WTERMSIG(status)));
		else
			logline("worker %d exited with status %d", (int)pid, WEXITSTATUS(status));
	}
	return workers;
}

/* Accept one connection on a listener.  Returns -1 if accepting should
 * pause (out of file descriptors), 0 otherwise. */
static int accept_one(struct server *srv, int lfd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char peer[INET6_ADDRSTRLEN + 16];
	pid_t pid;
	int fd, nopen;

	fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			logline("accept: %s; pausing", strerror(errno));
			return -1;
		}
		return 0;	/* EAGAIN, ECONNABORTED, EINTR, ...: nothing to do */
	}
	format_addr((struct sockaddr *)&ss, len, peer, sizeof(peer));
	nopen = srv->workers ? workers_connections(srv) : srv->nchildren;
	if (nopen >= srv->opt->max_clients) {
		refuse_busy(fd, peer, nopen);
		close(fd);
		return 0;
	}
	if (srv->workers) {
		workers_hand_off(srv, fd, peer, nopen);
		close(fd);
		return 0;
	}
	pid = fork();
	if (pid == 0)
		child_main(srv, fd, peer);
	if (pid < 0) {
		logline("%s: fork: %s; connection dropped", peer, strerror(errno));
		close(fd);
		return -1;
	}
	track_child(srv, pid);
	if (srv->opt->verbose)
		logline("%s: connected (pid %d, %d connections)", peer, (int)pid, srv->nchildren);
	close(fd);
	return 0;
}

/* Read pending signals: returns the stop signal, 0, or -1 when a worker
 * ended (the server cannot serve on with fewer: it stops). */
static int read_signals(struct server *srv)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(srv->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo != SIGCHLD)
			stop = (int)si.ssi_signo;
		else if (reap_children(srv) && !stop)
			stop = -1;
	}
	return stop;
}

static int serve(struct server *srv)
{
	struct pollfd pfd[MAX_LISTENERS + 1];
	int paused = 0;

	for (;;) {
		int n = 0, stop;

		pfd[n++] = (struct pollfd){ .fd = srv->sigfd, .events = POLLIN };
		for (int i = 0; i < srv->nlst && !paused; i++)
			pfd[n++] = (struct pollfd){ .fd = srv->lst[i].fd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, paused ? 100 : -1) < 0 && errno != EINTR) {
			logline("poll: %s", strerror(errno));
			return 0;
		}
		paused = 0;
		stop = read_signals(srv);
		if (stop)
			return stop < 0 ? 0 : stop;
		for (int i = 1; i < n; i++)
			if ((pfd[i].revents & POLLIN) && accept_one(srv, pfd[i].fd) < 0)
				paused = 1;
	}
}

/* Stop every child: SIGTERM, a grace period, then SIGKILL; reap all. */
static void stop_children(struct server *srv)
{
	uint64_t deadline = mono_ns() + STOP_GRACE_MS * 1000000ULL;

	srv->stopping = 1;
	for (int i = 0; i < srv->nslots; i++)
		if (srv->children[i] > 0)
			kill(srv->children[i], SIGTERM);
	while (srv->nchildren > 0) {
		struct pollfd pfd = { .fd = srv->sigfd, .events = POLLIN };
		uint64_t now = mono_ns();

		if (now >= deadline)
			break;
		poll(&pfd, 1, ms_until(deadline, now));
		read_signals(srv);
	}
	for (int i = 0; i < srv->nslots; i++) {
		if (srv->children[i] > 0) {
			kill(srv->children[i], SIGKILL);
			waitpid(srv->children[i], NULL, 0);
			srv->children[i] = 0;
			srv->nchildren--;
		}
	}
}

static void free_options(struct srv_options *opt)
{
	free_argv(opt->bind);
	free((char *)opt->pid_file);
}

static void close_listeners(struct server *srv)
{
	for (int i = 0; i < srv->nlst; i++)
		close(srv->lst[i].fd);
	srv->nlst = 0;
}

/* Listen, detach if asked, write the pid file: 0, or -1 after a message. */
static int start(struct server *srv)
{
	int ready = -1;
	char ok = 1;

	if (open_pid_dir(srv) < 0 || open_listeners(srv) < 0)
		return -1;
	if (srv->opt->daemon && daemonize(&ready) < 0)
		return -1;
	srv->pid = getpid();
	if (setup_signals(srv) < 0 || write_pid_file(srv) < 0)
		return -1;
	if (srv->opt->verbose)
		for (int i = 0; i < srv->nlst; i++)
			logline("listening on %s%s", srv->lst[i].name,
				!srv->opt->bind && strchr(srv->lst[i].name, '[') ?
				" (IPv4 and IPv6)" : "");
	if (ready >= 0) {
		if (write(ready, &ok, 1) != 1)
			return -1;
		close(ready);
	}
	return 0;
}

int main(int argc, const char **argv)
{
	struct srv_options opt;
	struct server srv = { .opt = &opt, .sigfd = -1, .piddir = -1 };
	int stop = 0, nconn, status = 1;

	parse_options(argc, argv, &opt);
	srv.nslots = opt.workers ? opt.workers : opt.max_clients;
	srv.children = calloc((size_t)srv.nslots, sizeof(*srv.children));
	if (!srv.children) {
		fprintf(stderr, PROGNAME ": out of memory\n");
		goto out;
	}
	if (opt.workers && workers_init(&srv) < 0)
		goto out;
	if (start(&srv) < 0)
		goto out;
	if (srv.workers && workers_start(&srv) < 0) {
		stop_children(&srv);
		remove_pid_file(&srv);
		goto out;
	}
	stop = serve(&srv);
	close_listeners(&srv);
	nconn = srv.workers ? workers_connections(&srv) : srv.nchildren;
	stop_children(&srv);
	remove_pid_file(&srv);
	if (opt.verbose || !stop)
		logline("stopped by %s; %d connections ended", stop ? strsignal(stop) : "an error",
			nconn);
	status = stop ? 0 : 1;
out:
	close_listeners(&srv);
	if (srv.sigfd >= 0)
		close(srv.sigfd);
	if (srv.piddir >= 0)
		close(srv.piddir);
	workers_free(&srv);
	free(srv.children);
	free_options(&opt);
	return status;
}
