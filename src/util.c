/*
 * util.c - see util.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void sleep_until_ns(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / NSEC_PER_SEC),
		.tv_nsec = (long)(t % NSEC_PER_SEC),
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(uint64_t s[2], uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);

	s[0] = splitmix64(&x);
	s[1] = splitmix64(&x);
	if (s[0] == 0 && s[1] == 0)
		s[1] = 1;
}

static void (*exit_hook)(int status, const char *message);
static const char *progname = "dbench";	/* util_set_progname() */

void util_set_progname(const char *name)
{
	progname = name;
}

void set_exit_hook(void (*hook)(int status, const char *message))
{
	exit_hook = hook;
}

void run_exit_hook(int status, const char *message)
{
	void (*hook)(int, const char *) = exit_hook;

	exit_hook = NULL;	/* once, and never from inside itself */
	if (hook)
		hook(status, message);
}

static void __attribute__((format(printf, 2, 0))) vmessage(char *buf, const char *fmt, va_list ap)
{
	vsnprintf(buf, 1024, fmt, ap);
	fprintf(stderr, "%s: %s\n", progname, buf);
}

void die(int status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vmessage(buf, fmt, ap);
	va_end(ap);
	run_exit_hook(status, buf);
	exit(status);
}

void warnx_(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vmessage(buf, fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die(EXIT_RUN_FAILED, "out of memory (%zu bytes)", size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die(EXIT_RUN_FAILED, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die(EXIT_RUN_FAILED, "out of memory (%zu bytes)", size);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *xstrndup(const char *s, size_t len)
{
	size_t n = strnlen(s, len);
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* One count of a list: digits only, 1..max; the end of it in *end. */
static int list_count(const char *s, const char **end, int max, int64_t *v)
{
	int64_t n = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (*p++ - '0');
		if (n > max)
			return -1;
	}
	if (p == s || n < 1)
		return -1;
	*end = p;
	*v = n;
	return 0;
}

int parse_count_list(const char *text, int max_value, int max_items, int **out, char *err,
		     size_t errlen)
{
	int *v = NULL;
	int n = 0;
	const char *p = text;

	*out = NULL;
	if (!text || !*text) {
		snprintf(err, errlen, "an empty list");
		return -1;
	}
	for (;;) {
		const char *item = p, *e;
		int64_t a, b, step = 1;
		char how = '+';
		int len = (int)strcspn(item, ",");

		if (list_count(p, &e, max_value, &a) < 0)
			goto bad;
		p = e;
		b = a;
		if (p[0] == '.' && p[1] == '.') {
			if (list_count(p + 2, &e, max_value, &b) < 0 || b < a)
				goto bad;
			p = e;
			if (*p == 'x' || *p == '+') {
				how = *p;
				if (list_count(p + 1, &e, max_value, &step) < 0 || (how == 'x' && step < 2))
					goto bad;
				p = e;
			}
		}
		if (*p != ',' && *p)
			goto bad;
		for (int64_t c = a; c <= b; c = how == 'x' ? c * step : c + step) {
			if (n == max_items) {
				snprintf(err, errlen, "more than %d counts", max_items);
				free(v);
				return -1;
			}
			v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
			v[n++] = (int)c;
		}
		if (!*p)
			break;
		p++;
		continue;
bad:
		snprintf(err, errlen, "'%.*s' is not a count from 1 to %d, nor a range A..B, A..BxF or A..B+S",
			 len > 40 ? 40 : len, item, max_value);
		free(v);
		return -1;
	}
	*out = v;
	return n;
}

int parse_i64(const char *s, int64_t *out)
{
	char *end;

	if (!s || !*s || *s == ' ')
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

bool wildcard_match(const char *pat, const char *name)
{
	const char *star = NULL, *resume = NULL;

	while (*name) {
		if (*pat == '*') {
			star = pat++;
			resume = name;
		} else if (*pat == '?' || (*pat && (*pat | 0x20) == (*name | 0x20) &&
					    ((*pat >= 'A' && *pat <= 'Z') || (*pat >= 'a' && *pat <= 'z')))) {
			pat++;
			name++;
		} else if (*pat && *pat == *name) {
			pat++;
			name++;
		} else if (star) {
			pat = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}
