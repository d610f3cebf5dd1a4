/*
 * util.h - small helpers every part uses: the monotonic clock, a fast
 * per-client random generator, checked allocation, and error exits.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_UTIL_H
#define DBENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Exit statuses. */
#define EXIT_RUN_FAILED 1	/* mismatches, client failures */
#define EXIT_USAGE 2		/* bad options, loadfile, setup */

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Sleep until the CLOCK_MONOTONIC time t (ns); returns early on a signal. */
void sleep_until_ns(uint64_t t);

/* xoroshiro128+: fast, good enough for benchmark parameters. */
static inline uint64_t rng_next(uint64_t s[2])
{
	uint64_t s0 = s[0], s1 = s[1], r = s0 + s1;

	s1 ^= s0;
	s[0] = ((s0 << 24) | (s0 >> 40)) ^ s1 ^ (s1 << 16);
	s[1] = (s1 << 37) | (s1 >> 27);
	return r;
}

/* Seed a generator from a 64-bit seed and a stream number (splitmix64). */
void rng_seed(uint64_t s[2], uint64_t seed, uint64_t stream);

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t len);	/* at most len bytes, NUL-terminated */

/* Called once by die() and by the other exits of dbench with the status
 * and the one-line message (dbench writes its --json error document). */
void set_exit_hook(void (*hook)(int status, const char *message));
void run_exit_hook(int status, const char *message);

/* The program name die() and warnx_() print first ("dbench" until set);
 * name must live until exit. */
void util_set_progname(const char *name);

/* Print "progname: message" to stderr, run the exit hook, exit with status. */
void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* Print "progname: message" to stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse an unsigned/signed decimal or 0x hex number, the whole string. */
int parse_u64(const char *s, uint64_t *out);
int parse_i64(const char *s, int64_t *out);

/* Parse a list of counts (--sweep): comma-separated items, each N, A..B
 * (every count from A to B), A..BxF (A, A*F, A*F*F, ... up to B) or
 * A..B+S (A, A+S, ... up to B).  Every count is 1..max_value, at most
 * max_items in all, in the order given.  Returns the number of counts
 * (*out is malloc'ed), or -1 with a one-line reason in err. */
int parse_count_list(const char *text, int max_value, int max_items, int **out, char *err,
		     size_t errlen);

/* Does name match the pattern, as FIND_FIRST matches: case-insensitive
 * (ASCII), '*' any run of characters, '?' one character? */
bool wildcard_match(const char *pattern, const char *name);

/* Write all of buf to fd, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t len);

#endif
