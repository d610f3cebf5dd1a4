/*
 * tbench_abuse.c - a test client for tbench_srv: normal exchanges, every
 * kind of bad frame, half frames, connection storms, and quick loopback
 * measurements.  The bats tests (tests/cli/tbench_srv.bats) drive it.
 *
 *   tbench_abuse free-port [HOST]        print a free TCP port on HOST
 *   tbench_abuse imposter HOST S FILE    a server of another protocol
 *   tbench_abuse HOST PORT TEST [ARGS]   run one test, exit 0 if the
 *                                        server behaved as it should
 *
 * Every socket has a 5-second receive/send timeout: nothing hangs.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tbench_wire.h"

#define IO_TIMEOUT_S 5
#define MAX_STORM 4000

struct target {
	const char *host;	/* as given */
	const char *port;	/* as given */
	struct addrinfo *ai;	/* resolved */
};

static void __attribute__((format(printf, 1, 2), noreturn)) fail(const char *fmt, ...)
{
	va_list ap;

	fputs("tbench_abuse: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_timeouts(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Connect; -1 with errno on failure (the caller decides). */
static int try_connect(const struct target *t)
{
	int one = 1;
	int fd;

	fd = socket(t->ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	set_timeouts(fd, IO_TIMEOUT_S);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, t->ai->ai_addr, t->ai->ai_addrlen) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static int connect_or_fail(const struct target *t)
{
	int fd = try_connect(t);

	if (fd < 0)
		fail("connect to %s port %s: %s", t->host, t->port, strerror(errno));
	return fd;
}

static void send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t rc = send(fd, p, len, MSG_NOSIGNAL);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			fail("send: %s", rc < 0 ? strerror(errno) : "sent nothing");
		p += rc;
		len -= (size_t)rc;
	}
}

/* Read exactly len bytes: len, 0 at EOF before any, -1 with errno. */
static ssize_t recv_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t rc = recv(fd, p + done, len - done, 0);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (done == 0)
				return 0;
			errno = EPROTO;
			return -1;
		}
		done += (size_t)rc;
	}
	return (ssize_t)done;
}

/* Send a request header and `length` zero bytes of payload; a small
 * request goes out in one send. */
static void send_request(int fd, const struct frame_header *req)
{
	static const uint8_t zeros[64 * 1024];
	uint8_t wire[FRAME_HEADER_SIZE + 4096] = { 0 };
	uint32_t left = req->length;
	uint32_t first = left <= 4096 ? left : 0;

	frame_encode(req, wire);
	send_all(fd, wire, FRAME_HEADER_SIZE + first);
	left -= first;
	while (left > 0) {
		uint32_t n = left < sizeof(zeros) ? left : (uint32_t)sizeof(zeros);

		send_all(fd, zeros, n);
		left -= n;
	}
}

/* Read a reply header, check it, check it answers `req`, drain payload. */
static void read_reply(int fd, const struct frame_header *req, struct frame_header *reply)
{
	static uint8_t sink[64 * 1024];
	uint8_t wire[FRAME_HEADER_SIZE];
	uint32_t left;
	char why[256];
	ssize_t rc;

	rc = recv_all(fd, wire, sizeof(wire));
	if (rc <= 0)
		fail("reading reply to seq %u: %s", req->seq, rc == 0 ? "connection closed" :
		     strerror(errno));
	frame_decode(wire, reply);
	if (frame_check(reply, FRAME_REPLY, why, sizeof(why)) != PROTO_OK)
		fail("reply to seq %u: %s", req->seq, why);
	if (frame_check_reply(reply, req, why, sizeof(why)) < 0)
		fail("reply to seq %u: %s", req->seq, why);
	for (left = reply->length; left > 0;) {
		uint32_t n = left < sizeof(sink) ? left : (uint32_t)sizeof(sink);

		if (recv_all(fd, sink, n) != (ssize_t)n)
			fail("reply payload of seq %u: %s", req->seq, strerror(errno));
		left -= n;
	}
}

static void exchange(int fd, uint16_t op, uint32_t seq, uint32_t length, uint32_t want,
		     uint32_t expect_status)
{
	struct frame_header req, reply;

	frame_request(&req, op, seq, length, want);
	send_request(fd, &req);
	read_reply(fd, &req, &reply);
	if (reply.status != expect_status)
		fail("seq %u: status %s, expected %s", seq, proto_status_name(reply.status),
		     proto_status_name(expect_status));
}

static long arg_long(int argc, char **argv, int i, long dflt)
{
	return i < argc ? strtol(argv[i], NULL, 0) : dflt;
}

/* ping [N [LENGTH [WANT]]]: N exchanges on one connection. */
static int test_ping(const struct target *t, int argc, char **argv)
{
	long n = arg_long(argc, argv, 0, 10);
	uint32_t length = (uint32_t)arg_long(argc, argv, 1, 100);
	uint32_t want = (uint32_t)arg_long(argc, argv, 2, 1000);
	int fd = connect_or_fail(t);

	for (long i = 0; i < n; i++)
		exchange(fd, PROTO_OP_PING, (uint32_t)i + 1, length, want, PROTO_OK);
	close(fd);
	printf("ok: %ld exchanges of %u/%u payload bytes\n", n, length, want);
	return 0;
}

/* ops: one exchange per known op, at its documented sizes. */
static int test_ops(const struct target *t)
{
	int fd = connect_or_fail(t);
	int n = 0;

	for (uint32_t op = 1; op <= PROTO_OP_MAX; op++) {
		struct proto_sizes sz;

		if (!proto_op_known(op))
			continue;
		proto_op_sizes(op, 40, 40, 65536, 0, &sz);
		exchange(fd, (uint16_t)op, op, sz.request, sz.reply, PROTO_OK);
		n++;
	}
	/* The largest legal frame, both ways. */
	exchange(fd, PROTO_OP_PING, 999, FRAME_MAX_PAYLOAD, FRAME_MAX_PAYLOAD, PROTO_OK);
	close(fd);
	printf("ok: %d ops and one %u-byte frame each way\n", n, FRAME_MAX_PAYLOAD);
	return 0;
}

/* bad-op: an unknown op gets PROTO_ERR_OP, and the connection goes on. */
static int test_bad_op(const struct target *t)
{
	int fd = connect_or_fail(t);

	exchange(fd, 999, 1, 50, 50, PROTO_ERR_OP);
	exchange(fd, 0, 2, 0, 0, PROTO_ERR_OP);
	exchange(fd, PROTO_OP_PING, 3, 10, 10, PROTO_OK);
	close(fd);
	printf("ok: unknown ops refused, connection kept\n");
	return 0;
}

/*
 * After a bad frame: expect an error reply with `status` (if `strict`;
 * otherwise it may be lost to a reset), then the end of the connection.
 */
static void expect_reject(int fd, uint32_t status, int strict, const char *what)
{
	uint8_t wire[FRAME_HEADER_SIZE];
	struct frame_header reply;
	char why[256];
	ssize_t rc;

	rc = recv_all(fd, wire, sizeof(wire));
	if (rc == (ssize_t)sizeof(wire)) {
		frame_decode(wire, &reply);
		if (frame_check(&reply, FRAME_REPLY, why, sizeof(why)) != PROTO_OK)
			fail("%s: the error reply is malformed: %s", what, why);
		if (reply.status != status)
			fail("%s: status %s, expected %s", what, proto_status_name(reply.status),
			     proto_status_name(status));
		rc = recv_all(fd, wire, 1);
		if (rc > 0)
			fail("%s: the server sent more after the error reply", what);
	} else if (strict) {
		fail("%s: no error reply (%s)", what, rc == 0 ? "closed" : strerror(errno));
	}
	if (rc < 0 && errno != ECONNRESET)
		fail("%s: the server did not close the connection: %s", what, strerror(errno));
	close(fd);
	printf("ok: %s rejected\n", what);
}

static void send_header(int fd, const struct frame_header *h)
{
	uint8_t wire[FRAME_HEADER_SIZE];

	frame_encode(h, wire);
	send_all(fd, wire, sizeof(wire));
}

static int test_bad_header(const struct target *t, const char *name)
{
	struct frame_header h;
	uint32_t status = PROTO_ERR_FRAME;
	int fd = connect_or_fail(t);

	frame_request(&h, PROTO_OP_PING, 7, 0, 0);
	if (strcmp(name, "magic") == 0) {
		h.magic = 0x12345678;
	} else if (strcmp(name, "version") == 0) {
		h.version = 99;
		status = PROTO_ERR_VERSION;
	} else if (strcmp(name, "oversize") == 0) {
		h.length = FRAME_MAX_PAYLOAD + 1;
	} else if (strcmp(name, "oversize-max") == 0) {
		h.length = UINT32_MAX;
	} else if (strcmp(name, "want-oversize") == 0) {
		h.want = UINT32_MAX;
	} else if (strcmp(name, "flags") == 0) {
		h.flags = 0x80;
	} else if (strcmp(name, "reply-as-request") == 0) {
		h.flags = FRAME_F_REPLY;
	} else if (strcmp(name, "reserved") == 0) {
		h.reserved = 1;
	} else if (strcmp(name, "status") == 0) {
		h.status = 5;
	} else {
		fail("unknown header test '%s'", name);
	}
	/* A good exchange first: the bad frame comes mid-connection. */
	exchange(fd, PROTO_OP_PING, 1, 10, 10, PROTO_OK);
	send_header(fd, &h);
	expect_reject(fd, status, 1, name);
	if (status == PROTO_ERR_VERSION)
		printf("ok: the error reply carried the server's version\n");
	return 0;
}

/* garbage [BYTES]: random bytes instead of frames. */
static int test_garbage(const struct target *t, int argc, char **argv)
{
	size_t len = (size_t)arg_long(argc, argv, 0, 4096);
	uint8_t *buf = malloc(len);
	int fd = connect_or_fail(t);
	unsigned seed = (unsigned)time(NULL);

	if (!buf)
		fail("out of memory");
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rand_r(&seed);
	if (len >= 4)
		memcpy(buf, "GET ", 4);	/* never a valid magic */
	send_all(fd, buf, len);
	free(buf);
	expect_reject(fd, PROTO_ERR_FRAME, 0, "garbage");
	return 0;
}

/* half-header: part of a header, then disconnect. */
static int test_half_header(const struct target *t)
{
	struct frame_header h;
	uint8_t wire[FRAME_HEADER_SIZE];
	int fd = connect_or_fail(t);

	frame_request(&h, PROTO_OP_PING, 1, 0, 0);
	frame_encode(&h, wire);
	send_all(fd, wire, 13);
	close(fd);
	printf("ok: sent 13 of %d header bytes and disconnected\n", FRAME_HEADER_SIZE);
	return 0;
}

/* half-payload: a header announcing a payload, part of it, disconnect. */
static int test_half_payload(const struct target *t)
{
	static const uint8_t part[5000];
	struct frame_header h;
	int fd = connect_or_fail(t);

	frame_request(&h, PROTO_OP_WRITEX, 1, 100000, 15);
	send_header(fd, &h);
	send_all(fd, part, sizeof(part));
	close(fd);
	printf("ok: sent %zu of 100000 payload bytes and disconnected\n", sizeof(part));
	return 0;
}

/* no-read [MS]: ask for big replies, never read them, disconnect after
 * MS milliseconds (default 300). */
static int test_no_read(const struct target *t, int argc, char **argv)
{
	long ms = arg_long(argc, argv, 0, 300);
	struct frame_header h;
	int fd = connect_or_fail(t);

	for (uint32_t i = 1; i <= 4; i++) {
		frame_request(&h, PROTO_OP_READX, i, 0, FRAME_MAX_PAYLOAD);
		send_header(fd, &h);
	}
	usleep((useconds_t)ms * 1000);
	close(fd);
	printf("ok: asked for 64 MiB, read none, disconnected after %ld ms\n", ms);
	return 0;
}

/* stall SECONDS: half a header, then wait: the server must hang up. */
static int test_stall(const struct target *t, int argc, char **argv)
{
	long seconds = arg_long(argc, argv, 0, 3);
	uint8_t wire[FRAME_HEADER_SIZE] = { 0x74, 0x62 };
	double t0 = now_s();
	int fd = connect_or_fail(t);
	ssize_t rc;

	set_timeouts(fd, (int)seconds);
	send_all(fd, wire, 2);
	printf("ok: 2 header bytes sent\n");
	fflush(stdout);
	rc = recv_all(fd, wire, 1);
	if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		fail("stall: the server kept a stalled connection for %ld s", seconds);
	close(fd);
	printf("ok: the server hung up on a stalled frame after %.1f s\n", now_s() - t0);
	return 0;
}

/* drip SECONDS [MS]: a header one byte every MS ms (default 500), each
 * just inside a stall timeout: the server must hang up within SECONDS. */
static int test_drip(const struct target *t, int argc, char **argv)
{
	long seconds = arg_long(argc, argv, 0, 5), ms = arg_long(argc, argv, 1, 500);
	uint8_t wire[FRAME_HEADER_SIZE];
	struct frame_header req;
	double t0 = now_s();
	int fd = connect_or_fail(t);

	frame_request(&req, PROTO_OP_PING, 1, 0, 0);
	frame_encode(&req, wire);
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; now_s() - t0 < seconds; i = (i + 1) % sizeof(wire)) {
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

		if (send(fd, wire + i, 1, MSG_NOSIGNAL) < 0) {
			close(fd);
			printf("ok: the server hung up on a dripping frame after %.1f s\n", now_s() - t0);
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	fail("drip: the server kept a frame dripping one byte per %ld ms for %ld s", ms, seconds);
}

/* deadline S: a frame's first byte, then one more every S/4 seconds (the
 * magic is complete after 3S/4, the rest of the header drips on and never
 * completes): with --request-timeout S the server must hang up S seconds
 * after the first byte (within 1.5 s: a loaded CI machine was seen 1.1 s
 * late), not S after some later part of the frame, nor up to a receive
 * timeout later (the old server: 3S/4 + S at the earliest, 5.25 s for S=3). */
static int test_deadline(const struct target *t, int argc, char **argv)
{
	double limit = (double)arg_long(argc, argv, 0, 2), step = limit / 4, t0, elapsed;
	uint8_t wire[FRAME_HEADER_SIZE], byte;
	struct frame_header req;
	int fd = connect_or_fail(t);

	frame_request(&req, PROTO_OP_PING, 1, 0, 0);
	frame_encode(&req, wire);
	signal(SIGPIPE, SIG_IGN);
	t0 = now_s();
	for (size_t i = 0;; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double wait = t0 + (double)i * step - now_s();

		/* until the next byte is due: has the server hung up? */
		if (wait > 0 && poll(&p, 1, (int)(wait * 1000) + 1) > 0)
			break;
		if (i >= sizeof(wire) || now_s() - t0 > limit + 5)
			fail("deadline: the server kept a frame for %.1f s (--request-timeout %.0f)",
			     now_s() - t0, limit);
		if (send(fd, wire + i, 1, MSG_NOSIGNAL) < 0)
			break;
	}
	elapsed = now_s() - t0;
	if (recv(fd, &byte, 1, 0) > 0)
		fail("deadline: the server sent a byte for a frame it never had");
	close(fd);
	if (elapsed < limit - 0.05 || elapsed > limit + 1.5)
		fail("deadline: the server hung up %.2f s after the frame's first byte, not %.0f s", elapsed,
		     limit);
	printf("ok: the server hung up %.2f s after the frame's first byte\n", elapsed);
	return 0;
}

/* busy: the server is at --max-clients: refused with PROTO_ERR_BUSY. */
static int test_busy(const struct target *t)
{
	int fd = connect_or_fail(t);

	expect_reject(fd, PROTO_ERR_BUSY, 1, "connection over --max-clients");
	return 0;
}

/* hold SECONDS: one connection, one exchange, then idle until SECONDS
 * pass or the server hangs up. */
static int test_hold(const struct target *t, int argc, char **argv)
{
	long seconds = arg_long(argc, argv, 0, 5);
	int fd = connect_or_fail(t);
	uint8_t byte;
	ssize_t rc;

	exchange(fd, PROTO_OP_PING, 1, 0, 0, PROTO_OK);
	printf("ok: holding\n");
	fflush(stdout);
	set_timeouts(fd, (int)seconds);
	rc = recv(fd, &byte, 1, 0);
	if (rc > 0)
		fail("hold: the server sent an unasked byte");
	printf("ok: %s\n", rc == 0 ? "the server hung up" : "held");
	close(fd);
	return 0;
}

/* storm N: N connections at once, one exchange on each, all open. */
static int test_storm(const struct target *t, int argc, char **argv)
{
	long n = arg_long(argc, argv, 0, 200);
	int *fds;
	struct frame_header req, reply;

	if (n < 1 || n > MAX_STORM)
		fail("storm: N must be 1..%d", MAX_STORM);
	fds = calloc((size_t)n, sizeof(*fds));
	if (!fds)
		fail("out of memory");
	for (long i = 0; i < n; i++)
		fds[i] = connect_or_fail(t);
	for (long i = 0; i < n; i++) {
		frame_request(&req, PROTO_OP_NTCREATEX, (uint32_t)i, 120, 71);
		send_request(fds[i], &req);
	}
	for (long i = 0; i < n; i++) {
		frame_request(&req, PROTO_OP_NTCREATEX, (uint32_t)i, 120, 71);
		read_reply(fds[i], &req, &reply);
		if (reply.status != PROTO_OK)
			fail("storm: connection %ld: %s", i, proto_status_name(reply.status));
	}
	for (long i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	printf("ok: %ld connections at once, each answered\n", n);
	return 0;
}

/* bench-rtt SECONDS [LENGTH WANT]: round trips per second. */
static int bench_rtt(const struct target *t, int argc, char **argv)
{
	double seconds = (double)arg_long(argc, argv, 0, 3);
	uint32_t length = (uint32_t)arg_long(argc, argv, 1, 0);
	uint32_t want = (uint32_t)arg_long(argc, argv, 2, 0);
	int fd = connect_or_fail(t);
	double t0 = now_s(), t1;
	uint32_t n = 0;

	do {
		for (int i = 0; i < 256; i++)
			exchange(fd, PROTO_OP_PING, ++n, length, want, PROTO_OK);
		t1 = now_s();
	} while (t1 - t0 < seconds);
	close(fd);
	printf("rtt: %u round trips of %u/%u payload bytes in %.2f s: %.0f/s, %.1f us each\n",
	       n, length, want, t1 - t0, n / (t1 - t0), (t1 - t0) / n * 1e6);
	return 0;
}

/* bench-read SECONDS SIZE / bench-write SECONDS SIZE: MB/s. */
static int bench_xfer(const struct target *t, int argc, char **argv, int write)
{
	double seconds = (double)arg_long(argc, argv, 0, 3);
	uint32_t size = (uint32_t)arg_long(argc, argv, 1, 65536);
	int fd = connect_or_fail(t);
	double t0 = now_s(), t1;
	uint32_t n = 0;

	if (size > FRAME_MAX_PAYLOAD)
		fail("size over %u", FRAME_MAX_PAYLOAD);
	do {
		for (int i = 0; i < 16; i++) {
			++n;
			if (write)
				exchange(fd, PROTO_OP_WRITEX, n, size, 15, PROTO_OK);
			else
				exchange(fd, PROTO_OP_READX, n, 27, size, PROTO_OK);
		}
		t1 = now_s();
	} while (t1 - t0 < seconds);
	close(fd);
	printf("%s: %u x %u bytes in %.2f s: %.1f MB/s, %.0f ops/s\n", write ? "write" : "read",
	       n, size, t1 - t0, (double)n * size / 1e6 / (t1 - t0), n / (t1 - t0));
	return 0;
}

/* free-port [HOST]: bind port 0 and print what the kernel chose. */
static int free_port(const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd, port;

	if (getaddrinfo(host, "0", &hints, &ai) != 0)
		fail("cannot resolve %s", host ? host : "(any)");
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		fail("bind port 0: %s", strerror(errno));
	port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
					: ntohs(((struct sockaddr_in *)&ss)->sin_port);
	printf("%d\n", port);
	close(fd);
	freeaddrinfo(ai);
	return 0;
}

/*
 * imposter HOST SECONDS PORTFILE: a server of another protocol.  Listens
 * on a free port (written to PORTFILE), answers every connection with a
 * line of SSH banner and junk, and quits after SECONDS.
 */
static int imposter(const char *host, long seconds, const char *portfile)
{
	static const char junk[] = "SSH-2.0-imposter\r\nthis is not the tbench protocol, "
				   "and these are more than 32 bytes\r\n";
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct addrinfo *ai;
	double end = now_s() + (double)seconds;
	FILE *f;
	int lfd, port;

	if (getaddrinfo(host, "0", &hints, &ai) != 0)
		fail("cannot resolve %s", host);
	lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&ss, &len) < 0)
		fail("imposter: %s", strerror(errno));
	freeaddrinfo(ai);
	port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
					: ntohs(((struct sockaddr_in *)&ss)->sin_port);
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0)
		fail("imposter: cannot write %s", portfile);
	set_timeouts(lfd, 1);
	while (now_s() < end) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;	/* the 1 s timeout: look at the clock */
		if (send(fd, junk, sizeof(junk) - 1, MSG_NOSIGNAL) < 0)
			errno = 0;
		close(fd);
	}
	close(lfd);
	return 0;
}

static void __attribute__((noreturn)) usage(void)
{
	fputs("usage: tbench_abuse free-port [HOST]\n"
	      "       tbench_abuse imposter HOST SECONDS PORTFILE\n"
	      "       tbench_abuse HOST PORT TEST [ARGS]\n"
	      "tests: ping [N [LEN [WANT]]], ops, bad-op, magic, version, oversize,\n"
	      "       oversize-max, want-oversize, flags, reply-as-request, reserved, status,\n"
	      "       garbage [BYTES], half-header, half-payload, no-read [MS], stall [S], drip [S [MS]],\n"
	      "       deadline [S], busy,"
	      "       hold [S], storm [N], bench-rtt [S [LEN WANT]], bench-read [S [SIZE]],\n"
	      "       bench-write [S [SIZE]]\n", stderr);
	exit(2);
}

static int run_test(const struct target *t, const char *test, int argc, char **argv)
{
	static const char *const header_tests[] = {
		"magic", "version", "oversize", "oversize-max", "want-oversize",
		"flags", "reply-as-request", "reserved", "status",
	};

	for (size_t i = 0; i < sizeof(header_tests) / sizeof(header_tests[0]); i++)
		if (strcmp(test, header_tests[i]) == 0)
			return test_bad_header(t, test);
	if (strcmp(test, "ping") == 0)
		return test_ping(t, argc, argv);
	if (strcmp(test, "ops") == 0)
		return test_ops(t);
	if (strcmp(test, "bad-op") == 0)
		return test_bad_op(t);
	if (strcmp(test, "garbage") == 0)
		return test_garbage(t, argc, argv);
	if (strcmp(test, "half-header") == 0)
		return test_half_header(t);
	if (strcmp(test, "half-payload") == 0)
		return test_half_payload(t);
	if (strcmp(test, "no-read") == 0)
		return test_no_read(t, argc, argv);
	if (strcmp(test, "stall") == 0)
		return test_stall(t, argc, argv);
	if (strcmp(test, "drip") == 0)
		return test_drip(t, argc, argv);
	if (strcmp(test, "deadline") == 0)
		return test_deadline(t, argc, argv);
	if (strcmp(test, "busy") == 0)
		return test_busy(t);
	if (strcmp(test, "hold") == 0)
		return test_hold(t, argc, argv);
	if (strcmp(test, "storm") == 0)
		return test_storm(t, argc, argv);
	if (strcmp(test, "bench-rtt") == 0)
		return bench_rtt(t, argc, argv);
	if (strcmp(test, "bench-read") == 0)
		return bench_xfer(t, argc, argv, 0);
	if (strcmp(test, "bench-write") == 0)
		return bench_xfer(t, argc, argv, 1);
	usage();
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct target t;
	int rc;

	if (argc >= 2 && strcmp(argv[1], "free-port") == 0)
		return free_port(argc > 2 ? argv[2] : NULL);
	if (argc == 5 && strcmp(argv[1], "imposter") == 0)
		return imposter(argv[2], strtol(argv[3], NULL, 10), argv[4]);
	if (argc < 4)
		usage();
	t.host = argv[1];
	t.port = argv[2];
	rc = getaddrinfo(t.host, t.port, &hints, &t.ai);
	if (rc != 0)
		fail("cannot resolve %s port %s: %s", t.host, t.port, gai_strerror(rc));
	rc = run_test(&t, argv[3], argc - 4, argv + 4);
	freeaddrinfo(t.ai);
	return rc;
}
