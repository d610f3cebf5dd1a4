/*
 * sockio.c - the tbench backend: every loadfile op becomes one request to
 * tbench_srv and one reply, sized as the SMB exchange for the op (see
 * tbench_wire.h and tbench_srv(1)), so that a run makes the TCP and process load
 * of a file server without its file system.
 *
 * Each client opens one TCP connection in setup, before the release, and
 * checks with a Ping that the server speaks the protocol.  An op sends its
 * request, waits for the reply and checks it; the status it returns is
 * the one the loadfile expects, since the server is taken to be a perfect
 * one.  A lost server, a bad reply or no reply within --server-timeout
 * ends the client with STATUS_FATAL and one line in c->error.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <unistd.h>

#include "backend.h"
#include "tbench_wire.h"
#include "region_atomic.h"
#include "status.h"
#include "util.h"

#define SIO_CHUNK (64 * 1024)	/* bytes of a payload buffer */
#define SIO_IOV 16		/* payload buffers in one sendmsg/readv: a frame of
				   up to 1 MiB is one call (the buffer repeated) */
#define CONNECT_TIMEOUT_S 5	/* connect and the first Ping */
#define DEFAULT_TIMEOUT_S 30	/* --server-timeout */

/* The classic (dbench 4.0/5.0) wire: a frame is a 4-byte big-endian
 * length n and n bytes, the first 4 of a request being the big-endian
 * length of the reply wanted.  A 4.0 tbench_srv holds a frame in a
 * 70,000-byte buffer: data moves in frames of at most CLASSIC_MAX_DATA. */
#define CLASSIC_MAX_DATA 65536

/* Where the server is, from SERVER[:PORT] and --port. */
struct target {
	char host[256];		/* name or address, without brackets */
	char port[8];		/* decimal */
	char label[280];	/* "host:port" or "[v6]:port", for messages */
};

/* sockio's option block: the options as given, then what sio_init made
 * of them (with the core's server and port), which the clients read. */
struct sio_options {
	const char *tcp_options; /* -T */
	const char *timeout_text; /* --server-timeout */
	const char *wire_text;	/* --wire */
	struct target target;	/* the server */
	struct sockopts so;	/* -T, parsed */
	int timeout;		/* --server-timeout: seconds without progress */
	int classic;		/* --wire classic */
};

#define SIO_OPTION(name_, short_, field_, def_, arg_, help_)                                   \
	{ .name = name_, .short_name = short_, .type = BOPT_STRING,                          \
	  .offset = offsetof(struct sio_options, field_), .def = def_, .arg_name = arg_,     \
	  .help = help_ }

static const struct backend_option sio_options[] = {
	SIO_OPTION("tcp-options", 'T', tcp_options, "TCP_NODELAY", "OPTS",
		   "socket options of the connections, as dbench 4.0: TCP_NODELAY[=0|1] SO_KEEPALIVE[=0|1] "
		   "SO_REUSEADDR[=0|1] SO_BROADCAST[=0|1] IPTOS_LOWDELAY IPTOS_THROUGHPUT SO_SNDBUF=n "
		   "SO_RCVBUF=n SO_SNDLOWAT=n SO_RCVLOWAT=n SO_SNDTIMEO=ms SO_RCVTIMEO=ms, comma or space "
		   "separated (default TCP_NODELAY)"),
	SIO_OPTION("server-timeout", 0, timeout_text, NULL, "SECS",
		   "give up on a server that does not answer for SECS seconds (default 30)"),
	SIO_OPTION("wire", 0, wire_text, NULL, "FORMAT",
		   "force the wire format: tbench (this tbench_srv's) or classic (dbench 4.0/5.0's "
		   "tbench_srv; this tbench_srv speaks both); without it, the server's is detected"),
	{ .name = NULL },
};

/* The exchanges of an op run asynchronously, and the one in flight. */
struct sio_async {
	const struct op *op;	/* the op, NULL when none is pending */
	uint32_t status;	/* what it returns */
	uint64_t bytes;		/* and the bytes it moved */
	int kind;		/* the op as the wire sizes it */
	uint16_t proto;		/* tbench wire: the request's op code */
	uint8_t data;		/* moves data in as many exchanges as it takes */
	uint8_t fails;		/* the status is a failure one */
	uint64_t left;		/* data bytes for the exchanges still to come */
	size_t len0, len1;	/* the paths' lengths, as the wire counts them */
	/* the exchange in flight */
	uint32_t out_len, out_sent; /* request header bytes (s->out), sent */
	uint64_t zeros_left;	/* request payload (zeros) still to send */
	uint32_t in_len, in_got; /* reply header bytes (into s->in), received */
	const uint8_t *in_due;	/* the reply header due */
	uint64_t reply_left;	/* reply payload still to receive */
	int idle_hup;		/* the server hung up while nothing was pending */
};

/* A client's connection. */
struct sio {
	int fd;			/* the connection */
	int classic;		/* --wire classic */
	uint64_t received;	/* bytes received on the connection */
	uint32_t seq;		/* last request's sequence number */
	int timeout;		/* seconds without progress before giving up */
	struct target target;	/* for messages */
	uint8_t ok_reply[FRAME_HEADER_SIZE]; /* the reply header due, as wire bytes */
	uint8_t *out;		/* a request's header, then (synchronous) zeros */
	uint8_t *in;		/* a reply's header (synchronous: and its payload) */
	size_t in_size;		/* bytes at in */
	/* asynchronous (c->engine): the payload is zeros sent from and
	 * bytes drained into the process's struct sio_shared */
	struct client *client;	/* whose connection it is */
	struct source src;	/* the connection, on the event loop */
	struct sio_async a;	/* the op in flight */
	uint8_t buf[];		/* out, then in */
};

/* What a process's asynchronous clients share: one buffer of zeros to
 * send from, one to drain replies' payload into (nobody reads it). */
struct sio_shared {
	int users;		/* clients set up */
	uint8_t zeros[SIO_CHUNK];
	uint8_t drain[SIO_CHUNK];
};

/* How an op goes on the wire: its code, and which number is its size. */
struct wire_op {
	uint16_t proto;		/* enum proto_op */
	int8_t count;		/* c->num index of the data size or entry count, or -1 */
	uint8_t data;		/* count is data bytes (split over frames if large) */
};

static const struct wire_op wire_ops[OP_COUNT] = {
	[OP_NTCREATEX] = { PROTO_OP_NTCREATEX, -1, 0 },
	[OP_CLOSE] = { PROTO_OP_CLOSE, -1, 0 },
	[OP_RENAME] = { PROTO_OP_RENAME, -1, 0 },
	[OP_UNLINK] = { PROTO_OP_UNLINK, -1, 0 },
	[OP_DELTREE] = { PROTO_OP_DELTREE, -1, 0 },
	[OP_MKDIR] = { PROTO_OP_MKDIR, -1, 0 },
	[OP_RMDIR] = { PROTO_OP_RMDIR, -1, 0 },
	[OP_QPATHINFO] = { PROTO_OP_QPATHINFO, -1, 0 },
	[OP_QFILEINFO] = { PROTO_OP_QFILEINFO, -1, 0 },
	[OP_QFSINFO] = { PROTO_OP_QFSINFO, -1, 0 },
	[OP_SFILEINFO] = { PROTO_OP_SFILEINFO, -1, 0 },
	[OP_FIND_FIRST] = { PROTO_OP_FIND_FIRST, 2, 0 },	/* expected count */
	[OP_WRITEX] = { PROTO_OP_WRITEX, 2, 1 },
	[OP_READX] = { PROTO_OP_READX, 2, 1 },
	[OP_LOCKX] = { PROTO_OP_LOCKX, -1, 0 },
	[OP_UNLOCKX] = { PROTO_OP_UNLOCKX, -1, 0 },
	[OP_FLUSH] = { PROTO_OP_FLUSH, -1, 0 },
	[OP_SMB_READ] = { PROTO_OP_OTHER_READ, 1, 1 },
	[OP_SMB_WRITE] = { PROTO_OP_OTHER_WRITE, 1, 1 },
	[OP_READ3] = { PROTO_OP_OTHER_READ, 1, 1 },
	[OP_WRITE3] = { PROTO_OP_OTHER_WRITE, 1, 1 },
	/* every other op: PROTO_OP_OTHER_META (see wire_op_of) */
};

static struct wire_op wire_op_of(int id)
{
	struct wire_op w = wire_ops[id];

	if (w.proto == 0)
		w = (struct wire_op){ PROTO_OP_OTHER_META, -1, 0 };
	return w;
}

/* SERVER[:PORT], [V6ADDR][:PORT] or a bare IPv6 address; --port. */
static int parse_target(const struct run_info *run, struct target *t, char *why, size_t whylen)
{
	const char *s = run->server, *port = NULL, *host_end;
	size_t hostlen;
	long p;

	if (!s || !*s)
		s = "localhost";	/* as dbench 4.0's tbench */
	if (s[0] == '[') {
		host_end = strchr(s, ']');
		if (!host_end || (host_end[1] && host_end[1] != ':')) {
			snprintf(why, whylen, "server '%s': write an IPv6 address as [ADDR] or [ADDR]:PORT", s);
			return -1;
		}
		s++;
		port = host_end[1] ? host_end + 2 : NULL;
	} else {
		host_end = strchr(s, ':');
		if (host_end && strchr(host_end + 1, ':'))
			host_end = NULL;	/* a bare IPv6 address */
		port = host_end ? host_end + 1 : NULL;
		if (!host_end)
			host_end = s + strlen(s);
	}
	hostlen = (size_t)(host_end - s);
	if (hostlen == 0 || hostlen >= sizeof(t->host)) {
		snprintf(why, whylen, "server '%s': no host name", s);
		return -1;
	}
	memcpy(t->host, s, hostlen);
	t->host[hostlen] = '\0';
	if (port) {
		char *end;

		errno = 0;
		p = strtol(port, &end, 10);
		if (errno || end == port || *end || p < 1 || p > 65535) {
			snprintf(why, whylen, "server '%s': bad port '%s'", s, port);
			return -1;
		}
		if (run->port && run->port != p) {
			snprintf(why, whylen, "server '%s' and --port %d name different ports",
				 s, run->port);
			return -1;
		}
	} else {
		p = run->port ? run->port : TBENCH_DEFAULT_PORT;
	}
	snprintf(t->port, sizeof(t->port), "%ld", p);
	snprintf(t->label, sizeof(t->label), strchr(t->host, ':') ? "[%s]:%s" : "%s:%s",
		 t->host, t->port);
	return 0;
}

static int parse_timeout(const char *text, int *seconds, char *why, size_t whylen)
{
	char *end;
	long v;

	*seconds = DEFAULT_TIMEOUT_S;
	if (!text)
		return 0;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 1 || v > 86400) {
		snprintf(why, whylen, "--server-timeout: '%s' is not a number of seconds in 1..86400",
			 text);
		return -1;
	}
	*seconds = (int)v;
	return 0;
}

static void set_timeouts(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Connect one address within CONNECT_TIMEOUT_S; -1 with errno. */
static int connect_addr(const struct addrinfo *ai, const struct sockopts *so, char *why,
			size_t whylen)
{
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, err = 0, flags;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (sockopts_apply(fd, so, why, whylen) < 0) {
		close(fd);
		errno = 0;	/* why says it */
		return -1;
	}
	flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		err = poll(&pfd, 1, CONNECT_TIMEOUT_S * 1000);
		if (err == 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (err < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			goto fail;
		if (err) {
			errno = err;
			goto fail;
		}
	}
	fcntl(fd, F_SETFL, flags);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* Resolve and connect, trying every address; -1 with one line in why. */
static int connect_target(const struct target *t, const struct sockopts *so, char *why,
			  size_t whylen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	int fd = -1, rc, err = 0;

	rc = getaddrinfo(t->host, t->port, &hints, &res);
	if (rc != 0) {
		snprintf(why, whylen, "cannot resolve server '%s': %s", t->host,
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -1;
	}
	why[0] = '\0';
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = connect_addr(ai, so, why, whylen);
		if (fd < 0 && why[0]) {
			freeaddrinfo(res);
			return -1;
		}
		err = errno;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(why, whylen, "cannot connect to %s: %s", t->label,
			 err == ETIMEDOUT ? "no answer within 5 seconds" : strerror(err));
	return fd;
}

/* Why an I/O call failed, in words. */
static void io_error(struct sio *s, ssize_t rc, int err, const char *doing, char *why,
		     size_t whylen)
{
	if (rc == 0)
		snprintf(why, whylen, "server %s closed the connection (%s)", s->target.label, doing);
	else if (err == EAGAIN || err == EWOULDBLOCK)
		snprintf(why, whylen, "server %s did not answer for %d seconds (%s)",
			 s->target.label, s->timeout, doing);
	else if (err == EINTR)
		snprintf(why, whylen, "interrupted (%s)", doing);
	else
		snprintf(why, whylen, "connection to server %s: %s (%s)", s->target.label,
			 strerror(err), doing);
}

/* Should an interrupted call give up?  Only when the run stops. */
static int interrupted(const struct client *c)
{
	return !c->sh || region_stopping(c->sh);
}

/* Receive at least `min` and at most `max` bytes into buf; bytes or -1. */
static ssize_t recv_bytes(struct client *c, struct sio *s, uint8_t *buf, size_t min, size_t max,
			  char *why, size_t whylen)
{
	size_t got = 0;

	while (got < min) {
		ssize_t rc = recv(s->fd, buf + got, max - got, 0);

		if (rc > 0) {
			got += (size_t)rc;
			s->received += (uint64_t)rc;
			client_count_net(c, 0, (uint64_t)rc);
			continue;
		}
		if (rc < 0 && errno == EINTR && !interrupted(c))
			continue;
		io_error(s, rc, errno, "waiting for a reply", why, whylen);
		return -1;
	}
	return (ssize_t)got;
}

/* Point iov[] (at most SIO_IOV entries) at buf, SIO_CHUNK bytes each,
 * for up to len bytes: the entries used; *bytes, the bytes they hold. */
static int chunk_iov(struct iovec *iov, uint8_t *buf, uint64_t len, size_t *bytes)
{
	int n = 0;

	*bytes = 0;
	while (len > 0 && n < SIO_IOV) {
		size_t k = (size_t)MIN(len, (uint64_t)SIO_CHUNK);

		iov[n++] = (struct iovec){ buf, k };
		*bytes += k;
		len -= k;
	}
	return n;
}

/* Send the headlen bytes at head and `length` bytes of zeros (s->out's,
 * after the header), as few sendmsg calls as the socket takes: a frame
 * of up to SIO_IOV chunks is one. */
static int send_frame(struct client *c, struct sio *s, const uint8_t *head, size_t headlen,
		      uint32_t length, char *why, size_t whylen)
{
	uint64_t left = length;

	while (headlen > 0 || left > 0) {
		struct iovec iov[1 + SIO_IOV];
		struct msghdr msg = { .msg_iov = iov };
		size_t zeros, h;
		ssize_t rc;

		if (headlen > 0)
			iov[msg.msg_iovlen++] = (struct iovec){ (void *)head, headlen };
		msg.msg_iovlen += (size_t)chunk_iov(iov + msg.msg_iovlen, s->out + FRAME_HEADER_SIZE, left,
						    &zeros);
		rc = sendmsg(s->fd, &msg, MSG_NOSIGNAL | (left > zeros ? MSG_MORE : 0));
		if (rc > 0) {
			client_count_net(c, (uint64_t)rc, 0);
			h = MIN((size_t)rc, headlen);
			head += h;
			headlen -= h;
			left -= (uint64_t)rc - h;
			continue;
		}
		if (rc < 0 && errno == EINTR && !interrupted(c))
			continue;
		io_error(s, rc < 0 ? -1 : 1, rc < 0 ? errno : ECONNRESET, "sending a request",
			 why, whylen);
		return -1;
	}
	return 0;
}

/* Send the request whose header is in s->out, with `length` payload
 * bytes. */
static int send_request(struct client *c, struct sio *s, uint32_t length, char *why,
			size_t whylen)
{
	return send_frame(c, s, s->out, FRAME_HEADER_SIZE, length, why, whylen);
}

/* A reply header that is not the one due to the request s->out holds:
 * say what is wrong with it. */
static int bad_reply(struct sio *s, char *why, size_t whylen)
{
	struct frame_header request, reply;
	char problem[200];

	frame_decode(s->out, &request);
	frame_decode(s->in, &reply);
	if (frame_check(&reply, FRAME_REPLY, problem, sizeof(problem)) != PROTO_OK) {
		snprintf(why, whylen, "bad reply from server %s: %s", s->target.label, problem);
		return -1;
	}
	if (reply.status == PROTO_ERR_BUSY) {
		snprintf(why, whylen, "server %s refused the connection: it serves its maximum "
			 "of clients (tbench_srv --max-clients)", s->target.label);
		return -1;
	}
	if (frame_check_reply(&reply, &request, problem, sizeof(problem)) < 0) {
		snprintf(why, whylen, "bad reply from server %s: %s", s->target.label, problem);
		return -1;
	}
	if (reply.status != PROTO_OK) {
		snprintf(why, whylen, "server %s: %s for %s", s->target.label,
			 proto_status_name(reply.status), proto_op_name(request.op));
		return -1;
	}
	/* Every field is checked above; a header that differs fails one. */
	snprintf(why, whylen, "bad reply from server %s: unexpected header", s->target.label);
	return -1;
}

/* Read and check the reply to the request just sent: its header must be
 * s->ok_reply, then come `want` payload bytes (into s->in's room after the
 * header, chunk after chunk): as few readv calls as the data takes, a
 * reply of up to SIO_IOV chunks in one when it is all there. */
static int read_reply(struct client *c, struct sio *s, uint32_t want, char *why, size_t whylen)
{
	size_t got = 0;		/* header bytes */
	uint64_t left = want;	/* payload bytes to come */

	while (got < FRAME_HEADER_SIZE || left > 0) {
		struct iovec iov[1 + SIO_IOV];
		int n = 0;
		size_t payload;
		ssize_t rc;

		if (got < FRAME_HEADER_SIZE)
			iov[n++] = (struct iovec){ s->in + got, FRAME_HEADER_SIZE - got };
		n += chunk_iov(iov + n, s->in + FRAME_HEADER_SIZE, left, &payload);
		rc = readv(s->fd, iov, n);
		if (rc <= 0) {
			if (rc < 0 && errno == EINTR && !interrupted(c))
				continue;
			io_error(s, rc, errno, "waiting for a reply", why, whylen);
			return -1;
		}
		s->received += (uint64_t)rc;
		client_count_net(c, 0, (uint64_t)rc);
		if (got < FRAME_HEADER_SIZE) {
			size_t h = MIN((size_t)rc, FRAME_HEADER_SIZE - got);

			got += h;
			rc -= (ssize_t)h;
			if (got == FRAME_HEADER_SIZE && memcmp(s->in, s->ok_reply, FRAME_HEADER_SIZE) != 0)
				return bad_reply(s, why, whylen);
		}
		left -= (uint64_t)rc;
	}
	return 0;
}

/* One request/reply exchange; -1 with one line in why. */
static int exchange(struct client *c, struct sio *s, uint16_t op, uint32_t length,
		    uint32_t want, char *why, size_t whylen)
{
	frame_encode_exchange(op, ++s->seq, length, want, s->out, s->ok_reply);
	if (send_request(c, s, length, why, whylen) < 0)
		return -1;
	return read_reply(c, s, want, why, whylen);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The classic reply's length (s->in) is not recv_size - 4: say why. */
static int classic_bad_reply(struct sio *s, uint32_t recv_size, char *why, size_t whylen)
{
	uint32_t len = get_be32(s->in);

	if (len == FRAME_MAGIC)
		snprintf(why, whylen, "server %s answered in tbench's own wire format, not the "
			 "classic one (a tbench_srv of this dbench that does not know --wire "
			 "classic?)", s->target.label);
	else
		snprintf(why, whylen, "lost sync with server %s: a reply of %u bytes, "
			 "expected %u (classic wire)", s->target.label, len, recv_size - 4);
	return -1;
}

/* A classic opening answered in our own wire: a tbench_srv at its
 * --max-clients refuses it so, else it does not know the classic wire. */
static int tbench_reply_to_classic(struct client *c, struct sio *s, size_t got, uint32_t recv_size,
				   char *why, size_t whylen)
{
	struct frame_header reply;

	if (got < FRAME_HEADER_SIZE &&
	    recv_bytes(c, s, s->in + got, FRAME_HEADER_SIZE - got, FRAME_HEADER_SIZE - got, why,
		       whylen) < 0)
		return -1;
	frame_decode(s->in, &reply);
	if (reply.status != PROTO_ERR_BUSY)
		return classic_bad_reply(s, recv_size, why, whylen);
	snprintf(why, whylen, "server %s refused the connection: it serves its maximum "
		 "of clients (tbench_srv --max-clients)", s->target.label);
	return -1;
}

/*
 * One exchange of the classic wire, as dbench 4.0's do_packets(): a frame
 * of send_size bytes in all (the length, the reply length, zeros), then a
 * reply whose length must be recv_size - 4, and its bytes.
 */
static int classic_exchange(struct client *c, struct sio *s, uint32_t send_size, uint32_t recv_size,
			    char *why, size_t whylen)
{
	uint8_t *frame = s->out + FRAME_HEADER_SIZE - 8;	/* just before the zeros */
	uint64_t rest;
	ssize_t got;

	put_be32(frame, send_size - 4);
	put_be32(frame + 4, recv_size - 4);
	if (send_frame(c, s, frame, 8, send_size - 8, why, whylen) < 0)
		return -1;
	got = recv_bytes(c, s, s->in, 4, MIN((size_t)recv_size, s->in_size), why, whylen);
	if (got < 0)
		return -1;
	if (memcmp(s->in, frame + 4, 4) != 0) {
		if (get_be32(s->in) == FRAME_MAGIC)
			return tbench_reply_to_classic(c, s, (size_t)got, recv_size, why, whylen);
		return classic_bad_reply(s, recv_size, why, whylen);
	}
	for (rest = recv_size - (uint64_t)got; rest > 0; rest -= (uint64_t)got) {
		size_t n = rest < SIO_CHUNK ? (size_t)rest : SIO_CHUNK;

		got = recv_bytes(c, s, s->in, n, n, why, whylen);
		if (got < 0)
			return -1;
	}
	return 0;
}

/* The length of a path as dbench 4.0 sizes it: "./" and the path. */
static uint32_t classic_name(size_t pathlen)
{
	return (uint32_t)pathlen + 2;
}

/* The op as the classic wire sizes it: ops that 4.0 does not know are
 * sized as the netbench op of their kind. */
static int classic_kind(const struct op *op)
{
	int kind = op->id;

	if (kind >= OP_SMB_OPEN) {
		if (op_is_read(kind))
			kind = OP_READX;
		else if (op_is_write(kind))
			kind = OP_WRITEX;
		else
			kind = op->npaths ? OP_QPATHINFO : OP_QFSINFO;
	}
	return kind;
}

/*
 * The sizes of one exchange of an op on the classic wire: those of dbench
 * 4.0's sockio.c (an SMB1 header of 39 bytes, parameter words, UTF-16
 * names); n is a ReadX's or WriteX's data in this exchange (at most
 * CLASSIC_MAX_DATA).
 */
static void classic_sizes(const struct client *c, const struct op *op, int kind, uint32_t n,
			  uint64_t count, uint32_t *send, uint32_t *recv)
{
	uint32_t n0 = op->npaths > 0 ? classic_name(c->pathlen[0]) : 0;
	uint32_t n1 = op->npaths > 1 ? classic_name(c->pathlen[1]) : 0;

	switch (kind) {
	case OP_READX:
		*send = 39 + 20, *recv = 39 + 20 + n;
		break;
	case OP_WRITEX:
		*send = 39 + 20 + n, *recv = 39 + 16;
		break;
	case OP_UNLINK:
	case OP_MKDIR:
	case OP_RMDIR:
		*send = 39 + 2 + n0 * 2 + 2, *recv = 39;
		break;
	case OP_NTCREATEX:
		*send = 70 + 2 + n0 * 2 + 2, *recv = 39 + 12 * 4;
		break;
	case OP_CLOSE:
		*send = 39 + 8, *recv = 39;
		break;
	case OP_RENAME:
		*send = 39 + 8 + 2 * n0 + 2 * n1, *recv = 39;
		break;
	case OP_FLUSH:
		*send = 39 + 2, *recv = 39;
		break;
	case OP_QPATHINFO:
		*send = 39 + 16 + 2 * n0, *recv = 39 + 32;
		break;
	case OP_FIND_FIRST:
		*send = 39 + 20 + 2 * n0, *recv = 39 + 90 * (uint32_t)MIN(count, (uint64_t)700);
		break;
	case OP_SFILEINFO:
		*send = 39 + 32, *recv = 39 + 8;
		break;
	case OP_LOCKX:
	case OP_UNLOCKX:
		*send = 39 + 12, *recv = 39;
		break;
	default:	/* QUERY_FILE_INFORMATION, QUERY_FS_INFORMATION */
		*send = 39 + 20, *recv = 39 + 32;
		break;
	}
}

/*
 * An op on the classic wire: data over CLASSIC_MAX_DATA goes in several
 * exchanges.  Deltree sends nothing, as in 4.0.
 */
static int classic_op(struct client *c, struct sio *s, const struct op *op, uint64_t count)
{
	int kind = classic_kind(op);
	bool data = kind == OP_READX || kind == OP_WRITEX;
	uint32_t send, recv;

	if (kind == OP_DELTREE)
		return 0;
	do {
		uint32_t n = data ? (uint32_t)MIN(count, (uint64_t)CLASSIC_MAX_DATA) : 0;

		classic_sizes(c, op, kind, n, count, &send, &recv);
		if (classic_exchange(c, s, send, recv, c->error, sizeof(c->error)) < 0)
			return -1;
		count -= n;
	} while (data && count > 0);
	return 0;
}

static int parse_wire(const char *text, int *classic, char *why, size_t whylen)
{
	*classic = 0;
	if (!text || strcmp(text, "tbench") == 0)
		return 0;
	if (strcmp(text, "classic") == 0) {
		*classic = 1;
		return 0;
	}
	snprintf(why, whylen, "--wire: '%s' is not a wire format (tbench or classic)", text);
	return -1;
}

/* In the parent: the options, the server and the port, checked once. */
static int parse_options(struct sio_options *o, const struct run_info *run, char *why, size_t whylen)
{
	char problem[200];

	if (parse_target(run, &o->target, why, whylen) < 0 ||
	    parse_timeout(o->timeout_text, &o->timeout, why, whylen) < 0 ||
	    parse_wire(o->wire_text, &o->classic, why, whylen) < 0)
		return -1;
	sockopts_init(&o->so);
	if (sockopts_parse(o->tcp_options, &o->so, problem, sizeof(problem)) < 0) {
		snprintf(why, whylen, "-T: %s", problem);
		return -1;
	}
	return 0;
}

/* The opening failed the way a dbench 4.0/5.0 tbench_srv fails it: it
 * takes our frame's magic for a length, prints "overflow in server!" and
 * drops the connection (a reset, or an end of file) before any reply. */
static bool dropped_at_opening(const struct sio *s, const char *why)
{
	return s->received == 0 && strstr(why, "did not answer") == NULL;
}

/* Connect and Ping: the server is there and speaks our protocol (with
 * --wire classic, or a classic server detected: the 8-byte exchange dbench
 * 4.0 opens with).  Returns -1 with one line in why, or -2 (nothing in
 * why) when the server dropped our opening as a classic one does. */
static int open_connection(struct client *c, struct sio *s, const struct sio_options *o,
			   char *why, size_t whylen)
{
	s->target = o->target;
	s->timeout = o->timeout;
	s->classic = o->classic;
	s->fd = connect_target(&s->target, &o->so, why, whylen);
	if (s->fd < 0)
		return -1;
	set_timeouts(s->fd, CONNECT_TIMEOUT_S);
	if (s->classic) {
		if (classic_exchange(c, s, 8, 8, why, whylen) < 0)
			return -1;
	} else if (exchange(c, s, PROTO_OP_PING, 0, 0, why, whylen) < 0) {
		if (!dropped_at_opening(s, why))
			return -1;
		if (!o->wire_text) {
			why[0] = '\0';
			return -2;
		}
		snprintf(why, whylen, "server %s dropped the connection at the first request "
			 "(as a tbench_srv of dbench 4.0/5.0 does): for such a server use "
			 "--wire classic, or no --wire", s->target.label);
		return -1;
	}
	set_timeouts(s->fd, s->timeout);
	return 0;
}

/* A connection's state: with its own buffers for a synchronous client,
 * room for the headers only for an asynchronous one. */
static struct sio *sio_new(int async)
{
	size_t out = FRAME_HEADER_SIZE + (async ? 0 : SIO_CHUNK);
	size_t in = FRAME_HEADER_SIZE + (async ? 0 : SIO_CHUNK);
	struct sio *s = calloc(1, sizeof(*s) + out + in);

	if (!s)
		return NULL;
	s->fd = -1;
	s->out = s->buf;
	s->in = s->buf + out;
	s->in_size = in;
	return s;
}

static void sio_free(struct sio *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

/* In the parent: check the options and that the server answers, so that
 * a wrong address or port is one line before any client starts. */
static int sio_init(void *be_opt, const struct run_info *run)
{
	struct sio_options *o = be_opt;
	struct client probe = { .be_opt = o };
	struct sio *s = sio_new(0);
	char why[256];
	int rc;

	if (!s) {
		fprintf(stderr, "%s: out of memory\n", run->progname);
		return -1;
	}
	rc = parse_options(o, run, why, sizeof(why));
	if (rc == 0)
		rc = open_connection(&probe, s, o, why, sizeof(why));
	if (rc == -2) {
		/* no --wire, and the server dropped our opening: is it a
		 * classic tbench_srv?  Its 8-byte opening says. */
		char label[sizeof(s->target.label)];

		snprintf(label, sizeof(label), "%s", s->target.label);
		sio_free(s);
		s = sio_new(0);
		if (!s) {
			fprintf(stderr, "%s: out of memory\n", run->progname);
			return -1;
		}
		o->classic = 1;		/* the clients, forked after, use it */
		rc = open_connection(&probe, s, o, why, sizeof(why));
		if (rc == 0)
			fprintf(stderr, "%s: server %s speaks the classic tbench wire of dbench 4.0/5.0 "
				"(it dropped this tbench's opening): using it, as --wire classic\n",
				run->progname, label);
		else
			fprintf(stderr, "%s: server %s dropped the connection at this tbench's opening, "
				"and the classic wire of dbench 4.0/5.0 failed too: %s\n", run->progname,
				label, why);
		sio_free(s);
		return rc < 0 ? -1 : 0;
	}
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", run->progname, why);
	sio_free(s);
	return rc < 0 ? -1 : 0;
}

static void sio_ready(struct source *src, uint32_t revents);

/* An asynchronous client: the connection goes on the event loop,
 * non-blocking, and the payload buffers are the process's. */
static int watch_connection(struct client *c, struct sio *s)
{
	void **shared = engine_shared(c);
	struct sio_shared *sh = *shared;

	if (!sh) {
		sh = calloc(1, sizeof(*sh));
		if (!sh) {
			snprintf(c->error, sizeof(c->error), "out of memory");
			return -1;
		}
		*shared = sh;
	}
	sh->users++;
	s->client = c;
	fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
	s->src = (struct source){ .fd = s->fd, .events = EPOLLIN, .ready = sio_ready, .arg = s };
	return engine_watch(c, &s->src);
}

static int sio_setup(struct client *c)
{
	struct sio *s = sio_new(c->engine != NULL);
	int rc;

	if (!s) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		return -1;
	}
	c->priv = s;
	rc = open_connection(c, s, c->be_opt, c->error, sizeof(c->error));
	if (rc == -2) {
		/* the parent's probe found our wire, a client's is dropped */
		snprintf(c->error, sizeof(c->error), "server %s dropped the connection at the first "
			 "request, though it answered this tbench's probe (a tbench_srv at its "
			 "--max-clients?)", s->target.label);
		return -1;
	}
	if (rc < 0)
		return -1;
	return c->engine ? watch_connection(c, s) : 0;
}

static void sio_teardown(struct client *c)
{
	struct sio *s = c->priv;

	if (s && s->client) {
		void **shared = engine_shared(c);
		struct sio_shared *sh = *shared;

		source_unwatch(&s->src);
		if (sh && --sh->users == 0) {
			free(sh);
			*shared = NULL;
		}
	}
	sio_free(s);
	c->priv = NULL;
}

/* The server keeps no files: nothing exists, nothing is left to remove. */
static int sio_remove_tree(struct client *c, const char *path)
{
	return 0;
}

static int sio_exists(struct client *c, const char *path)
{
	return 0;
}

/* The status a perfect server gives: what the loadfile expects. */
static uint32_t expected_status(const struct op *op)
{
	enum status_domain domain = op_info[op->id].domain;

	switch (op->expect.kind) {
	case EXPECT_EXACT:
		return op->expect.code;
	case EXPECT_ERROR:
		if (domain == DOMAIN_NT)
			return NT_STATUS_UNSUCCESSFUL;
		return domain == DOMAIN_NFS ? NFS3ERR_IO : NLM4_FAILED;
	default:
		return 0;	/* NT_STATUS_OK, NFS3_OK, NLM4_GRANTED */
	}
}

static uint64_t nonneg(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/* The data size an op moves: for ReadX/WriteX what the loadfile expects
 * the server to report (the 4th number), else the size asked for. */
static uint64_t data_count(const struct client *c, const struct op *op, const struct wire_op *w)
{
	if (w->count < 0)
		return 0;
	if ((op->id == OP_READX || op->id == OP_WRITEX) && c->num[3] >= 0)
		return (uint64_t)c->num[3];
	return nonneg(c->num[w->count]);
}

/* ---- the asynchronous form (c->engine): an op's exchanges run on the
 * event loop, each request sent as far as the socket takes it, the rest
 * when it is writable; the reply read when it is readable ---- */

/* Prepare the next exchange of the pending op; false if none is left. */
static bool next_exchange(struct client *c, struct sio *s)
{
	struct sio_async *a = &s->a;
	uint32_t send, recv;

	if (a->kind < 0)
		return false;	/* the last one was the only one */
	if (s->classic) {
		uint32_t n = a->data ? (uint32_t)MIN(a->left, (uint64_t)CLASSIC_MAX_DATA) : 0;

		classic_sizes(c, a->op, a->kind, n, a->left, &send, &recv);
		put_be32(s->out, send - 4);
		put_be32(s->out + 4, recv - 4);
		a->out_len = 8;
		a->zeros_left = send - 8;
		a->in_len = 4;
		a->in_due = s->out + 4;
		a->reply_left = recv - 4;
		a->left -= n;
	} else {
		uint64_t n = a->data && a->left > PROTO_MAX_DATA ? PROTO_MAX_DATA : a->left;
		struct proto_sizes sz;

		proto_op_sizes(a->proto, a->len0, a->len1, n, a->fails, &sz);
		frame_encode_exchange(a->proto, ++s->seq, sz.request, sz.reply, s->out, s->ok_reply);
		a->out_len = FRAME_HEADER_SIZE;
		a->zeros_left = sz.request;
		a->in_len = FRAME_HEADER_SIZE;
		a->in_due = s->ok_reply;
		a->reply_left = sz.reply;
		a->left -= n;
	}
	if (!a->data || a->left == 0)
		a->kind = -1;	/* no exchange after this one */
	a->out_sent = 0;
	a->in_got = 0;
	return true;
}

/* The pending op failed: the connection is not watched any more (a
 * broken socket would be ready for ever), the client stops. */
static void async_fail(struct client *c, struct sio *s)
{
	source_unwatch(&s->src);
	s->a.op = NULL;
	client_complete(c, STATUS_FATAL);
}

/* Send what the socket takes of the request in flight, in one sendmsg
 * when it takes it all; -1 on an error (c->error set), 0 with EPOLLOUT
 * wanted if some is left. */
static int async_send(struct client *c, struct sio *s, struct sio_shared *sh)
{
	struct sio_async *a = &s->a;

	while (a->out_sent < a->out_len || a->zeros_left > 0) {
		struct iovec iov[1 + SIO_IOV];
		struct msghdr msg = { .msg_iov = iov };
		size_t zeros, asked;
		ssize_t rc;

		if (a->out_sent < a->out_len)
			iov[msg.msg_iovlen++] = (struct iovec){ s->out + a->out_sent, a->out_len - a->out_sent };
		msg.msg_iovlen += (size_t)chunk_iov(iov + msg.msg_iovlen, sh->zeros, a->zeros_left, &zeros);
		asked = a->out_len - a->out_sent + zeros;
		rc = sendmsg(s->fd, &msg, MSG_NOSIGNAL | (a->zeros_left > zeros ? MSG_MORE : 0));
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			io_error(s, -1, errno, "sending a request", c->error, sizeof(c->error));
			return -1;
		}
		client_count_net(c, (uint64_t)rc, 0);
		if (a->out_sent < a->out_len) {
			size_t h = MIN((size_t)rc, (size_t)(a->out_len - a->out_sent));

			a->out_sent += (uint32_t)h;
			a->zeros_left -= (uint64_t)rc - h;
		} else {
			a->zeros_left -= (uint64_t)rc;
		}
		if ((size_t)rc < asked)
			break;	/* the socket is full: the rest when it is writable */
	}
	source_want(&s->src, a->out_sent < a->out_len || a->zeros_left > 0 ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return 0;
}

/* Read what has come of the reply in flight, the whole reply in one readv
 * when it is all there: 1 when it is all in, 0 if more is to come, -1 on
 * an error (c->error set). */
static int async_recv(struct client *c, struct sio *s, struct sio_shared *sh)
{
	struct sio_async *a = &s->a;

	while (a->in_got < a->in_len || a->reply_left > 0) {
		struct iovec iov[1 + SIO_IOV];
		int n = 0;
		size_t asked = 0, payload;
		ssize_t rc;

		if (a->in_got < a->in_len) {
			iov[n++] = (struct iovec){ s->in + a->in_got, a->in_len - a->in_got };
			asked += a->in_len - a->in_got;
		}
		n += chunk_iov(iov + n, sh->drain, a->reply_left, &payload);
		asked += payload;
		rc = readv(s->fd, iov, n);
		if (rc <= 0) {
			if (rc < 0 && errno == EINTR)
				continue;
			if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return 0;
			io_error(s, rc, rc < 0 ? errno : 0, "waiting for a reply", c->error, sizeof(c->error));
			return -1;
		}
		s->received += (uint64_t)rc;
		client_count_net(c, 0, (uint64_t)rc);
		if (a->in_got < a->in_len) {
			size_t h = MIN((size_t)rc, (size_t)(a->in_len - a->in_got));

			a->in_got += (uint32_t)h;
			if (a->in_got == a->in_len && memcmp(s->in, a->in_due, a->in_len) != 0) {
				if (s->classic)
					classic_bad_reply(s, (uint32_t)(a->reply_left + 4), c->error, sizeof(c->error));
				else
					bad_reply(s, c->error, sizeof(c->error));
				return -1;
			}
			a->reply_left -= (uint64_t)rc - h;
		} else {
			a->reply_left -= (uint64_t)rc;
		}
		if ((size_t)rc < asked && (a->in_got < a->in_len || a->reply_left > 0))
			return 0;	/* drained: the rest comes with the next event */
	}
	return 1;
}

/* The connection is ready: move the pending op on; complete it when its
 * last reply is in. */
static void sio_ready(struct source *src, uint32_t revents)
{
	struct sio *s = src->arg;
	struct client *c = s->client;
	struct sio_shared *sh = *engine_shared(c);
	int rc;

	if (!s->a.op) {
		/* nothing pending: the server hung up (or sent what nobody
		 * asked for): stop watching; the next op finds out */
		source_unwatch(src);
		s->a.idle_hup = 1;
		return;
	}
	if ((revents & EPOLLOUT) && async_send(c, s, sh) < 0)
		goto fail;
	for (;;) {
		rc = async_recv(c, s, sh);
		if (rc < 0)
			goto fail;
		if (rc == 0)
			break;
		if (!next_exchange(c, s)) {
			s->a.op = NULL;
			c->bytes = s->a.bytes;
			client_complete(c, s->a.status);
			return;
		}
		if (async_send(c, s, sh) < 0)
			goto fail;
	}
	c->deadline_ns = now_ns() + (uint64_t)s->timeout * NSEC_PER_SEC;
	return;
fail:
	async_fail(c, s);
}

/* Start op's first exchange; its status at once if it sends nothing. */
static uint32_t sio_submit(struct client *c, struct sio *s, const struct op *op, struct wire_op w,
			   uint32_t status, int fails, uint64_t count, uint64_t left)
{
	struct sio_async *a = &s->a;

	if (s->a.idle_hup || s->src.engine == NULL) {
		snprintf(c->error, sizeof(c->error), "server %s closed the connection (between requests)",
			 s->target.label);
		return STATUS_FATAL;
	}
	a->op = op;
	a->status = status;
	a->bytes = w.data && !fails ? count : 0;
	a->fails = (uint8_t)fails;
	a->len0 = op->npaths > 0 ? c->pathlen[0] + 1 : 0;
	a->len1 = op->npaths > 1 ? c->pathlen[1] + 1 : 0;
	a->left = left;
	if (s->classic) {
		a->kind = classic_kind(op);
		a->data = a->kind == OP_READX || a->kind == OP_WRITEX;
		if (a->kind == OP_DELTREE) {	/* 4.0 sends nothing */
			a->op = NULL;
			c->bytes = a->bytes;
			return status;
		}
	} else {
		a->kind = op->id;
		a->proto = w.proto;
		a->data = w.data;
	}
	next_exchange(c, s);
	if (async_send(c, s, *engine_shared(c)) < 0) {
		source_unwatch(&s->src);
		a->op = NULL;
		return STATUS_FATAL;
	}
	c->deadline_ns = now_ns() + (uint64_t)s->timeout * NSEC_PER_SEC;
	return STATUS_PENDING;
}

/* The op's deadline passed (no progress for --server-timeout), or the run
 * gives up on it: close the connection. */
static void sio_expire(struct client *c)
{
	struct sio *s = c->priv;

	source_unwatch(&s->src);
	close(s->fd);
	s->fd = -1;
	s->a.op = NULL;
	snprintf(c->error, sizeof(c->error), "server %s did not answer for %d seconds (waiting for a reply)",
		 s->target.label, s->timeout);
}

static uint32_t sio_op(struct client *c, const struct op *op)
{
	struct sio *s = c->priv;
	struct wire_op w = wire_op_of(op->id);
	uint32_t status = expected_status(op);
	int fails = !status_is_success(op_info[op->id].domain, status);
	size_t len0 = op->npaths > 0 ? c->pathlen[0] + 1 : 0; /* + leading '\' */
	size_t len1 = op->npaths > 1 ? c->pathlen[1] + 1 : 0;
	uint64_t count = data_count(c, op, &w);
	uint64_t left = count;
	struct proto_sizes sz;

	/* Writes carry the size asked for; a large transfer is split. */
	if (op->id == OP_WRITEX)
		left = nonneg(c->num[2]);
	if (c->engine)
		return sio_submit(c, s, op, w, status, fails, count, left);
	if (s->classic) {
		if (classic_op(c, s, op, left) < 0)
			return STATUS_FATAL;
		c->bytes = w.data && !fails ? count : 0;
		return status;
	}
	do {
		uint64_t n = w.data && left > PROTO_MAX_DATA ? PROTO_MAX_DATA : left;

		proto_op_sizes(w.proto, len0, len1, n, fails, &sz);
		if (exchange(c, s, w.proto, sz.request, sz.reply, c->error, sizeof(c->error)) < 0)
			return STATUS_FATAL;
		left -= n;
	} while (w.data && left > 0);
	c->bytes = w.data && !fails ? count : 0;
	return status;
}

const struct backend sockio_backend = {
	.abi = BACKEND_ABI,
	.name = "sockio",
	.description = "tbench: the ops' network load against tbench_srv (port 7003), no file I/O",
	.flags = BACKEND_SERVER | BACKEND_NETWORK | BACKEND_ASYNC,
	.options = sio_options,
	.options_size = sizeof(struct sio_options),
	.init = sio_init,
	.setup = sio_setup,
	.teardown = sio_teardown,
	.remove_tree = sio_remove_tree,
	.exists = sio_exists,
	.expire = sio_expire,
	.op = { [0 ... OP_COUNT - 1] = sio_op },	/* every op */
	.default_server = "localhost",	/* as dbench 4.0's tbench */
};
