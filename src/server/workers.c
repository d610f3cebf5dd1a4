/*
 * workers.c - tbench_srv --workers N: N processes, each serving many
 * connections on an event loop (epoll), the protocol fed through
 * serve_input().
 *
 * The parent accepts (tbench_srv.c) and hands each connection, with its
 * peer's name, to the worker with the fewest (SCM_RIGHTS over a
 * SOCK_SEQPACKET pair); the counts live in a page the parent and the
 * workers share.  A worker reads a request with one recv into its
 * buffer, drops the payload in the kernel (MSG_TRUNC) and sends a reply
 * with one sendmsg of its header and shared zeros; a reply that does not
 * fit waits for EPOLLOUT, and input already read waits with it.  Each
 * connection has its deadlines (--idle-timeout, --request-timeout,
 * --timeout), checked when the earliest is due.  SIGTERM, SIGINT or
 * SIGHUP, or the parent going away, ends every connection, each logged
 * as a process per connection logs it.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tbench_srv.h"
#include "workers.h"

/* Shared by the parent and its workers (__atomic builtins): the
 * connections open, all together and each worker's. */
struct wshared {
	int nconn;
	int per[MAX_WORKERS];
};

/* The parent's view of its workers. */
struct workers {
	int n;			/* --workers */
	struct wshared *shared;	/* MAP_SHARED */
	pid_t pid[MAX_WORKERS];	/* each worker's */
	int handoff[MAX_WORKERS]; /* the parent's end of each worker's socket
				   for accepted connections, -1: none */
};

/* ---- The parent's side. */

/* Descriptors for every connection a worker may take. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int workers_init(struct server *srv)
{
	struct workers *ws = calloc(1, sizeof(*ws));

	if (!ws) {
		fprintf(stderr, PROGNAME ": out of memory\n");
		return -1;
	}
	ws->n = srv->opt->workers;
	for (int i = 0; i < MAX_WORKERS; i++)
		ws->handoff[i] = -1;
	ws->shared = mmap(NULL, sizeof(*ws->shared), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ws->shared == MAP_FAILED) {
		fprintf(stderr, PROGNAME ": mmap: %s\n", strerror(errno));
		free(ws);
		return -1;
	}
	raise_fd_limit();
	srv->workers = ws;
	return 0;
}

void workers_free(struct server *srv)
{
	struct workers *ws = srv->workers;

	if (!ws)
		return;
	for (int i = 0; i < MAX_WORKERS; i++)
		if (ws->handoff[i] >= 0)
			close(ws->handoff[i]);
	munmap(ws->shared, sizeof(*ws->shared));
	free(ws);
	srv->workers = NULL;
}

int workers_connections(const struct server *srv)
{
	return __atomic_load_n(&srv->workers->shared->nconn, __ATOMIC_RELAXED);
}

/* Give an accepted connection to the worker with the fewest, with its
 * peer's name (SCM_RIGHTS over the worker's socket). */
void workers_hand_off(struct server *srv, int fd, const char *peer, int nopen)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)peer, strlen(peer) + 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	struct workers *ws = srv->workers;
	struct wshared *sh = ws->shared;
	char why[256];
	int w = 0;

	for (int i = 1; i < ws->n; i++)
		if (__atomic_load_n(&sh->per[i], __ATOMIC_RELAXED) <
		    __atomic_load_n(&sh->per[w], __ATOMIC_RELAXED))
			w = i;
	if (sockopts_apply(fd, &srv->opt->so, why, sizeof(why)) < 0) {
		logline("%s: %s; connection dropped", peer, why);
		return;
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	/* counted before the worker can count it out */
	__atomic_add_fetch(&sh->nconn, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->per[w], 1, __ATOMIC_RELAXED);
	if (sendmsg(ws->handoff[w], &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* a worker that takes none (stopped, or its queue full) must not
		 * hold up the server */
		logline("%s: worker %d takes no connection (%s); connection dropped", peer,
			(int)ws->pid[w], strerror(errno));
		__atomic_sub_fetch(&sh->nconn, 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&sh->per[w], 1, __ATOMIC_RELAXED);
		return;
	}
	if (srv->opt->verbose)
		logline("%s: connected (worker %d, %d connections)", peer, (int)ws->pid[w],
			nopen + 1);
}

/* ---- A worker. */

/* What a worker's epoll events point to: its hand-off socket, its
 * signalfd, or a connection (struct wconn, which begins with the same
 * field). */
enum wkind { W_HANDOFF, W_SIGNAL, W_CONN };

struct wtag {
	enum wkind kind;
};

struct wconn {
	enum wkind kind;	/* W_CONN */
	int fd;
	int phase;		/* enum serve_phase of the deadline below */
	int out_wait;		/* waiting for EPOLLOUT (a reply did not fit) */
	uint64_t deadline_ns;	/* --idle-timeout / --request-timeout, 0: none */
	uint64_t stall_ns;	/* --timeout: no progress inside a frame, 0: none */
	uint8_t *pending;	/* input read while a reply waited to go out */
	uint32_t pending_off, pending_len;
	struct wconn *prev, *next;
	struct serve_conn sc;
	char peer[INET6_ADDRSTRLEN + 16];
};

struct worker {
	const struct server *srv;
	struct wshared *shared;
	int idx;		/* this worker's index */
	int epfd, sigfd;
	int handoff;		/* where the parent sends accepted connections */
	struct wtag handoff_tag, sig_tag;
	struct wconn *conns;	/* every open connection */
	uint64_t now;		/* the clock, read once per epoll_wait: the time
				   of every event in the batch */
	uint64_t next_check;	/* the earliest deadline may be this soon, 0: none */
	uint8_t rbuf[SERVE_CHUNK]; /* every connection reads into this */
};

static const uint8_t zeros[SERVE_CHUNK];

static void w_note_deadline(struct worker *w, uint64_t t)
{
	if (t && (!w->next_check || t < w->next_check))
		w->next_check = t;
}

/* After progress: a new phase starts its deadline (a request keeps the
 * one of its first byte, as a process per connection does); progress
 * inside a frame pushes the stall deadline on.  Deadlines count from the
 * batch of events the progress came in. */
static void w_progress(struct worker *w, struct wconn *c)
{
	const struct srv_options *opt = w->srv->opt;
	int phase = serve_phase_of(&c->sc);

	if (phase != c->phase) {
		int secs = phase_timeout(opt, phase);

		c->phase = phase;
		c->deadline_ns = secs ? w->now + (uint64_t)secs * 1000000000ULL : 0;
		w_note_deadline(w, c->deadline_ns);
	}
	c->stall_ns = phase != SERVE_PHASE_IDLE && opt->timeout ?
		      w->now + (uint64_t)opt->timeout * 1000000000ULL : 0;
	w_note_deadline(w, c->stall_ns);
}

static void w_close(struct worker *w, struct wconn *c)
{
	/* out of the interest list first: closing is not enough while the
	 * parent may still hold its copy of the descriptor (between its
	 * sendmsg and its close), and an event would then point to freed c */
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	/* counted out before its end is logged, as a connection's process is
	 * reaped (and counted out) after it logged */
	__atomic_sub_fetch(&w->shared->per[w->idx], 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&w->shared->nconn, 1, __ATOMIC_RELAXED);
	log_end(w->srv->opt, c->peer, c->sc.end, c->sc.why, &c->sc.counts);
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c->pending);
	free(c);
}

static void w_events(struct worker *w, struct wconn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Send what is left of the ready reply: 1 when it is out (or the
 * connection ended), 0 when the socket is full (EPOLLOUT armed). */
static int w_send(struct worker *w, struct wconn *c)
{
	while (c->sc.state == SERVE_S_REPLY) {
		struct iovec iov[17];
		struct msghdr msg = { .msg_iov = iov };
		uint32_t z = c->sc.zeros_left;
		int n = 0;
		ssize_t rc;

		if (c->sc.reply_off < c->sc.reply_len)
			iov[n++] = (struct iovec){ c->sc.reply + c->sc.reply_off,
						   c->sc.reply_len - c->sc.reply_off };
		while (z && n < 17) {
			size_t k = z < sizeof(zeros) ? z : sizeof(zeros);

			iov[n++] = (struct iovec){ (void *)zeros, k };
			z -= (uint32_t)k;
		}
		msg.msg_iovlen = (size_t)n;
		rc = sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (rc > 0) {
			serve_sent(&c->sc, (size_t)rc);
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!c->out_wait) {
				c->out_wait = 1;
				w_events(w, c, EPOLLOUT);
			}
			return 0;
		}
		serve_fail(&c->sc, rc == 0 ? ECONNRESET : errno);
	}
	if (c->out_wait) {
		c->out_wait = 0;
		w_events(w, c, EPOLLIN);
	}
	return 1;
}

/* Feed input to the protocol, sending each reply as it is ready.  Input
 * left when a reply cannot go out waits in c->pending (buf may be the
 * rest of c->pending itself).  0, or -1 when the connection ended. */
static int w_feed(struct worker *w, struct wconn *c, const uint8_t *buf, size_t len)
{
	int from_pending = c->pending && buf == c->pending + c->pending_off;
	size_t off = 0;

	for (;;) {
		off += serve_input(&c->sc, buf + off, len - off);
		if (c->sc.state == SERVE_S_REPLY && !w_send(w, c))
			break;
		if (c->sc.state == SERVE_S_DONE) {
			c->sc.counts.bytes_in += len - off;	/* read past the end */
			w_close(w, c);
			return -1;
		}
		if (off >= len)
			break;
	}
	if (from_pending) {
		c->pending_off += (uint32_t)off;
		if (c->pending_off == c->pending_len) {
			free(c->pending);
			c->pending = NULL;
		}
	} else if (off < len) {
		c->pending = malloc(len - off);
		if (!c->pending) {
			serve_fail(&c->sc, ENOMEM);
			w_close(w, c);
			return -1;
		}
		memcpy(c->pending, buf + off, len - off);
		c->pending_off = 0;
		c->pending_len = (uint32_t)(len - off);
	}
	w_progress(w, c);
	return 0;
}

static void w_readable(struct worker *w, struct wconn *c)
{
	uint32_t drop = serve_want_discard(&c->sc);
	ssize_t rc;

	if (drop) {	/* a payload: dropped in the kernel (TCP's MSG_TRUNC) */
		rc = recv(c->fd, w->rbuf, drop < sizeof(w->rbuf) ? drop : sizeof(w->rbuf),
			  MSG_TRUNC | MSG_DONTWAIT);
		if (rc > 0) {
			serve_dropped(&c->sc, (uint32_t)rc);
			w_feed(w, c, w->rbuf, 0);
			return;
		}
	} else {
		rc = recv(c->fd, w->rbuf, sizeof(w->rbuf), MSG_DONTWAIT);
		if (rc > 0) {
			w_feed(w, c, w->rbuf, (size_t)rc);
			return;
		}
	}
	if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (rc == 0)
		serve_eof(&c->sc);
	else
		serve_fail(&c->sc, errno);
	w_close(w, c);
}

static void w_writable(struct worker *w, struct wconn *c)
{
	if (!w_send(w, c)) {
		w_progress(w, c);
		return;
	}
	if (c->sc.state == SERVE_S_DONE) {
		w_close(w, c);
		return;
	}
	if (c->pending)
		w_feed(w, c, c->pending + c->pending_off, c->pending_len - c->pending_off);
	else
		w_progress(w, c);
}

/* Take the connections the parent handed over: a descriptor and the
 * peer's name a message.  -1 when the parent is gone. */
static int w_take(struct worker *w)
{
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))], peer[sizeof(((struct wconn *)0)->peer)] = { 0 };
		struct iovec iov = { peer, sizeof(peer) - 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		struct epoll_event ev;
		struct wconn *c;
		ssize_t rc;
		int fd = -1;

		rc = recvmsg(w->handoff, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		cm = rc > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
		if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		if (fd < 0) {
			if (rc < 0 && (errno == EAGAIN || errno == EINTR))
				return 0;
			return -1;	/* the parent closed its end */
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			logline("worker: out of memory");
			_exit(1);
		}
		memcpy(c->peer, peer, sizeof(peer));
		c->kind = W_CONN;
		c->fd = fd;
		c->phase = -1;
		serve_init(&c->sc);
		c->next = w->conns;
		if (w->conns)
			w->conns->prev = c;
		w->conns = c;
		ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = c };
		epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev);
		w_progress(w, c);
	}
}

/* The deadlines that passed end their connections; the next is noted. */
static void w_expire(struct worker *w)
{
	struct wconn *c, *next;

	w->next_check = 0;
	for (c = w->conns; c; c = next) {
		next = c->next;
		if (c->deadline_ns && w->now >= c->deadline_ns) {
			serve_fail(&c->sc, ETIME);
			w_close(w, c);
		} else if (c->stall_ns && w->now >= c->stall_ns) {
			serve_fail(&c->sc, EAGAIN);
			w_close(w, c);
		} else {
			w_note_deadline(w, c->deadline_ns);
			w_note_deadline(w, c->stall_ns);
		}
	}
}

/* A stop signal: every connection ends, logged as a process-per-connection
 * server logs it. */
static void w_stop(struct worker *w, int sig)
{
	while (w->conns) {
		struct wconn *c = w->conns;
		int between = c->sc.state == SERVE_S_HEADER && c->sc.have == 0;

		snprintf(c->sc.why, sizeof(c->sc.why), "stopped by %s %s", strsignal(sig),
			 between ? "between requests" : "inside a frame");
		c->sc.end = SERVE_STOPPED;
		w_close(w, c);
	}
}

/* One batch of events; the stop signal, or 0. */
static int w_handle(struct worker *w, const struct epoll_event *evs, int n)
{
	int stop = 0;

	for (int i = 0; i < n; i++) {
		struct wtag *t = evs[i].data.ptr;

		if (t->kind == W_HANDOFF) {
			if (w_take(w) < 0)
				stop = SIGTERM;	/* the parent is gone */
		} else if (t->kind == W_SIGNAL) {
			struct signalfd_siginfo si;

			if (read(w->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				stop = (int)si.ssi_signo;
		} else {
			struct wconn *c = (struct wconn *)t;

			/* a connection closed while handling this batch had
			 * its one event in it already: no event points to
			 * freed memory */
			if (c->out_wait)
				w_writable(w, c);
			else
				w_readable(w, c);
		}
	}
	return stop;
}

static void __attribute__((noreturn)) worker_main(const struct server *srv, int idx, int handoff)
{
	const struct workers *ws = srv->workers;
	struct worker *w;
	struct epoll_event evs[128];
	sigset_t stop_sigs;
	int stop = 0;

	child_setup(srv);
	for (int i = 0; i < idx; i++)
		close(ws->handoff[i]);
	w = calloc(1, sizeof(*w));
	if (!w)
		_exit(1);
	w->srv = srv;
	w->shared = ws->shared;
	w->idx = idx;
	w->handoff = handoff;
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGHUP);
	w->sigfd = signalfd(-1, &stop_sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->sigfd < 0 || w->epfd < 0) {
		logline("worker: %s", strerror(errno));
		_exit(1);
	}
	w->sig_tag.kind = W_SIGNAL;
	epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->sigfd,
		  &(struct epoll_event){ .events = EPOLLIN, .data.ptr = &w->sig_tag });
	w->handoff_tag.kind = W_HANDOFF;
	epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->handoff,
		  &(struct epoll_event){ .events = EPOLLIN, .data.ptr = &w->handoff_tag });
	w->now = mono_ns();
	while (!stop) {
		int timeout = -1, n;

		if (w->next_check)
			timeout = w->now >= w->next_check ? 0 : ms_until(w->next_check, w->now);
		n = epoll_wait(w->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), timeout);
		if (n < 0 && errno != EINTR) {
			logline("worker: epoll_wait: %s", strerror(errno));
			_exit(1);
		}
		w->now = mono_ns();
		stop = w_handle(w, evs, n);
		if (w->next_check && w->now >= w->next_check)
			w_expire(w);
	}
	w_stop(w, stop);
	_exit(0);
}

/* Fork the workers, each with a socket the parent hands accepted
 * connections over. */
int workers_start(struct server *srv)
{
	struct workers *ws = srv->workers;

	for (int i = 0; i < ws->n; i++) {
		int sv[2];
		pid_t pid;

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
			logline("socketpair: %s", strerror(errno));
			return -1;
		}
		pid = fork();
		if (pid == 0) {
			close(sv[0]);
			worker_main(srv, i, sv[1]);
		}
		close(sv[1]);
		if (pid < 0) {
			close(sv[0]);
			logline("fork: %s", strerror(errno));
			return -1;
		}
		ws->handoff[i] = sv[0];
		ws->pid[i] = pid;
		track_child(srv, pid);
	}
	if (srv->opt->verbose)
		logline("%d workers, each serving its connections on an event loop", ws->n);
	return 0;
}
