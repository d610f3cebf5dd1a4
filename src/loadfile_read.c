/*
 * loadfile_read.c - reading a loadfile from disk for the compiler in
 * loadfile.c: opening it (a FIFO waits a bounded time for a writer to
 * open it, then as long as the writer takes),
 * reading it whole, gzip or plain, within the --max-loadfile bound and
 * refusing binary data as it comes; and finding the default loadfile.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "loadfile.h"
#include "loadfile_read.h"
#include "paths.h"
#include "util.h"

#define FIFO_WAIT_MS 5000	/* how long a FIFO waits for a writer to open it */

/* "256 MiB": a byte count for messages. */
const char *loadfile_size_text(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && n >= 1024 && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)n, unit[u]);
	return buf;
}

/* Is c a byte loadfile text never holds?  Control characters other than
 * tab, CR, LF, VT and FF: NUL runs of a gzip bomb, random data. */
static inline bool is_binary_byte(unsigned char c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f';
}

/* Check text for binary data, counting lines from *lineno (the line the
 * text starts in); 0, or -1 after "FILE:LINE: binary data". */
int loadfile_check_text(const char *name, const char *text, size_t len, uint64_t *lineno,
			FILE *errors)
{
	uint64_t line = *lineno;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n') {
			line++;
		} else if (is_binary_byte(c)) {
			fprintf(errors, "%s:%llu: binary data (byte 0x%02x), not loadfile text\n", name,
				(unsigned long long)line, c);
			return -1;
		}
	}
	*lineno = line;
	return 0;
}

static void on_fifo_timer(int sig)
{
	(void)sig;	/* only cuts the open short */
}

/*
 * A FIFO: a writer has FIFO_WAIT_MS to open it (a FIFO nobody writes to
 * would block the open for ever); once one has, it may take as long as it
 * likes to write (a slow generator, `-c <(sleep 7; cat f)`): the reads
 * block as cat's do, and a stop signal (Ctrl-C) cuts them short.  The open
 * blocks until a writer comes, cut short by a timer signal (SIGRTMIN, which
 * nothing else uses; not SIGALRM, which stops dbench).  An anonymous pipe
 * has its writer already.  Returns the fd, or -1 after a message.
 */
static int open_fifo(const char *filename, FILE *errors)
{
	struct sigaction sa, old;
	struct sigevent sev;
	struct itimerspec its = { .it_value = { .tv_sec = FIFO_WAIT_MS / 1000,
						.tv_nsec = FIFO_WAIT_MS % 1000 * 1000000L } };
	timer_t timer;
	int fd, e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fifo_timer;	/* no SA_RESTART: the open returns EINTR */
	sigemptyset(&sa.sa_mask);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN;
	if (sigaction(SIGRTMIN, &sa, &old) < 0 || timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0) {
		fprintf(errors, "%s: cannot wait for the FIFO's writer: %s\n", filename, strerror(errno));
		return -1;
	}
	timer_settime(timer, 0, &its, NULL);
	fd = open(filename, O_RDONLY | O_CLOEXEC);
	e = errno;
	timer_gettime(timer, &its);
	timer_delete(timer);
	sigaction(SIGRTMIN, &old, NULL);
	if (fd >= 0)
		return fd;
	if (e == EINTR && its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		fprintf(errors, "%s: no writer opened the FIFO within %d s\n", filename, FIFO_WAIT_MS / 1000);
	else
		fprintf(errors, "%s: cannot open loadfile: %s\n", filename, strerror(e));
	return -1;
}

static int open_loadfile(const char *filename, FILE *errors)
{
	struct stat st;
	int fd;

	if (stat(filename, &st) == 0 && S_ISFIFO(st.st_mode))
		return open_fifo(filename, errors);
	fd = open(filename, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fprintf(errors, "%s: cannot open loadfile: %s\n", filename, strerror(errno));
	return -1;
}

/* Read a whole file, decompressing gzip (by its magic bytes): at most max
 * bytes of text, checked for binary data as it comes, so a gzip bomb or
 * /dev/urandom is refused after the first chunk. */
char *loadfile_read(const char *filename, uint64_t max, size_t *lenp, FILE *errors)
{
	gzFile gz;
	char *buf = NULL, b[32];
	size_t len = 0, cap = 0;
	uint64_t line = 1;
	struct stat st;
	int fd = open_loadfile(filename, errors);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(errors, "%s: is a directory, not a loadfile\n", filename);
		close(fd);
		return NULL;
	}
	gz = gzdopen(fd, "rb");
	if (!gz) {
		fprintf(errors, "%s: cannot read loadfile\n", filename);
		close(fd);
		return NULL;
	}
	gzbuffer(gz, 1 << 17);
	if (gzdirect(gz) && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		goto too_large;
	/* a plain file in one read; else grown as text comes: little for a bomb */
	cap = gzdirect(gz) && S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : (size_t)1 << 20;
	buf = malloc(cap);
	if (!buf)
		goto nomem;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap * 2 > max + 1 ? (size_t)max + 1 : cap * 2;
			char *nbuf;

			if (len > max)
				goto too_large;
			nbuf = realloc(buf, ncap);
			if (!nbuf)
				goto nomem;
			buf = nbuf;
			cap = ncap;
		}
		unsigned want = (unsigned)MIN(cap - len, (size_t)1 << 30);
		int n = gzread(gz, buf + len, want);

		if (n < 0) {
			int zerr;
			const char *msg = gzerror(gz, &zerr);

			if (zerr == Z_ERRNO)
				fprintf(errors, "%s: cannot read loadfile: %s\n", filename, strerror(errno));
			else
				fprintf(errors, "%s: truncated or corrupt compressed loadfile (%s)\n", filename,
					strstr(msg, ": ") ? strstr(msg, ": ") + 2 : msg);
			goto fail;
		}
		if (n == 0)
			break;
		if (loadfile_check_text(filename, buf + len, (size_t)n, &line, errors) < 0)
			goto fail;
		len += (size_t)n;
		if (len > max)
			goto too_large;
	}
	{
		int zerr;
		const char *msg = gzerror(gz, &zerr);

		if (!gzeof(gz) || (zerr != Z_OK && zerr != Z_STREAM_END)) {
			if (strstr(msg, ": "))	/* zlib prefixes "<fd:3>: " */
				msg = strstr(msg, ": ") + 2;
			fprintf(errors, "%s: truncated or corrupt compressed loadfile (%s)\n", filename, msg);
			goto fail;
		}
	}
	gzclose(gz);
	*lenp = len;
	return buf;
too_large:
	fprintf(errors, "%s: the loadfile text is larger than %s (--max-loadfile)\n", filename,
		loadfile_size_text(max, b, sizeof(b)));
	goto fail;
nomem:
	fprintf(errors, "%s: out of memory reading the loadfile (%s read)\n", filename,
		loadfile_size_text(len, b, sizeof(b)));
fail:
	gzclose(gz);
	free(buf);
	return NULL;
}

const char *loadfile_default(void)
{
	static char path[PATH_MAX + 16];

	if (access("client.txt", R_OK) == 0)
		return "client.txt";
	snprintf(path, sizeof(path), "%s/client.txt", data_dir());
	return access(path, R_OK) == 0 ? path : NULL;
}
