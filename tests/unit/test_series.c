/*
 * test_series.c - unit tests of the per-second series (series.c) read
 * from the clients' rings in the shared region (region.h): a second is
 * read whole; a second the client overwrote before the parent read it is
 * counted lost; a second the client overwrites *while* the parent copies
 * it is counted lost too, never reported with the next lap's figures (the
 * client's overwrite is made to happen in the middle of the parent's copy
 * by a page the copy faults on); and the all-op histogram of a slot
 * counts past 2^32 in a bucket.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "options.h"
#include "series.h"
#include "region_atomic.h"
#include "region.h"
#include "util.h"

struct options options = { .progname = "test" };

#define T0 (1000 * NSEC_PER_SEC)	/* the release */
#define SECOND 5			/* the second the tests read */
#define LAP (SECOND + SEC_RING)		/* the second that reuses its entry */

/* A region of one client whose ring entry for SECOND starts its figures
 * (ops, bytes, max_ns) on a page of their own: `figures`. */
struct region {
	struct shared sh;
	char *map;
	size_t maplen;
	char *figures;		/* the page that holds ring entry SECOND's figures */
	long page;
};

static struct region *region_new(void)
{
	struct region *r = xcalloc(1, sizeof(*r));
	size_t slot_size = (sizeof(struct slot) + 63) & ~(size_t)63;
	size_t off = offsetof(struct slot, secs) + (SECOND % SEC_RING) * sizeof(struct sec_stat) +
		     offsetof(struct sec_stat, ops);
	size_t before;

	r->page = sysconf(_SC_PAGESIZE);
	before = (off + (size_t)r->page - 1) / (size_t)r->page * (size_t)r->page;
	r->maplen = before + slot_size + (size_t)r->page;
	r->map = mmap(NULL, r->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(r->map != MAP_FAILED);
	r->sh.slots = r->map + before - off;	/* &secs[SECOND].ops is page-aligned */
	r->figures = r->map + before;
	r->sh.nclients = 1;
	r->sh.slot_size = slot_size;
	r->sh.release_ns = T0;
	r->sh.measure_start_ns = T0;
	r->sh.measure_end_ns = UINT64_MAX;
	return r;
}

static void region_free(struct region *r)
{
	munmap(r->map, r->maplen);
	free(r);
}

/* What a client records for second `sec`: n ops of 1000 bytes, the
 * largest 7 us, through the ring's own entry (sec_stat_enter). */
static void client_records(struct slot *s, uint64_t sec, uint64_t n)
{
	struct sec_stat *ss = sec_stat_enter(s, sec);

	ss->ops += n;
	ss->bytes += 1000 * n;
	ss->max_ns = 7000;
}

static struct series *series_new(struct region *r)
{
	struct series *ser;

	options.json = "-";	/* a series is kept for the document */
	ser = series_create(&r->sh);
	options.json = NULL;
	assert_non_null(ser);
	return ser;
}

/* The parent's tick at the start of second `sec` reads up to sec - 2. */
static void tick(struct series *ser, uint64_t sec)
{
	series_tick(ser, T0 + sec * NSEC_PER_SEC);
}

static const struct series_row *row_of(const struct series *ser, uint64_t second)
{
	for (size_t i = 0; i < ser->nrows; i++)
		if (ser->rows[i].second == second)
			return &ser->rows[i];
	fail_msg("no row for second %llu", (unsigned long long)second);
	return NULL;
}

static void test_second_read_whole(void **state)
{
	struct region *r = region_new();
	struct slot *s = shared_slot(&r->sh, 0);
	struct series *ser = series_new(r);
	const struct series_row *row;

	(void)state;
	client_records(s, SECOND, 100);
	tick(ser, SECOND + 2);
	row = row_of(ser, SECOND);
	assert_int_equal(row->ops, 100);
	assert_int_equal(row->bytes, 100000);
	assert_int_equal(row->max_ns, 7000);
	assert_int_equal(row->clients, 1);
	assert_int_equal(ser->lost, 0);
	series_free(ser);
	region_free(r);
}

/* Second SECOND was lost (overwritten before the parent could read it
 * whole): an empty row, not another lap's figures, and counted lost. */
static void assert_second_lost(const struct series *ser)
{
	const struct series_row *row = row_of(ser, SECOND);

	assert_int_equal(row->ops, 0);
	assert_int_equal(row->bytes, 0);
	assert_int_equal(row->clients, 0);
	assert_int_equal(ser->lost, 1);
}

static void test_second_overwritten_before_read(void **state)
{
	struct region *r = region_new();
	struct slot *s = shared_slot(&r->sh, 0);
	struct series *ser = series_new(r);

	(void)state;
	client_records(s, SECOND, 100);
	client_records(s, LAP, 3);	/* the parent was held up for 8 s */
	tick(ser, LAP);
	assert_second_lost(ser);
	series_free(ser);
	region_free(r);
}

/* The page of entry SECOND's figures is unreadable until the parent's
 * copy touches it; then, before the copy goes on, the client overwrites
 * the entry with second LAP (as a client does when the parent is held up
 * in the middle of its read). */
static struct region *faulting;
static int faults;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	char *addr = si->si_addr;
	struct slot *s;

	(void)sig;
	(void)ctx;
	if (!faulting || addr < faulting->figures || addr >= faulting->figures + faulting->page)
		abort();
	faults++;
	mprotect(faulting->figures, (size_t)faulting->page, PROT_READ | PROT_WRITE);
	s = shared_slot(&faulting->sh, 0);
	client_records(s, LAP, 3);
}

static void test_second_overwritten_while_read(void **state)
{
	struct region *r = region_new();
	struct slot *s = shared_slot(&r->sh, 0);
	struct series *ser = series_new(r);
	struct sigaction sa, old;

	(void)state;
	client_records(s, SECOND, 100);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGSEGV, &sa, &old), 0);
	faulting = r;
	faults = 0;
	assert_int_equal(mprotect(r->figures, (size_t)r->page, PROT_NONE), 0);
	tick(ser, SECOND + 2);	/* the read of SECOND is cut by the overwrite */
	faulting = NULL;
	sigaction(SIGSEGV, &old, NULL);
	assert_int_equal(faults, 1);
	/* not the 3 ops of the next lap reported as this second's */
	assert_second_lost(ser);
	series_free(ser);
	region_free(r);
}

/* A client's all-op histogram counts past 2^32 in one bucket (a null run
 * gets there in about an hour), and the per-second p99 made from it is
 * right across the wrap a 32-bit counter would make. */
static void test_every_past_32_bits(void **state)
{
	struct region *r = region_new();
	struct slot *s = shared_slot(&r->sh, 0);
	struct series *ser;
	unsigned fast = hist_index(100), slow = hist_index(1000000);
	struct hist_total t;

	(void)state;
	s->every.count[fast] = UINT32_MAX;
	s->every.count[fast] += 1;	/* as hist64_add does it */
	assert_true(s->every.count[fast] == (uint64_t)UINT32_MAX + 1);
	hist64_add(&s->every, 100);
	memset(&t, 0, sizeof(t));
	hist_total_add64(&t, &s->every);
	assert_true(t.count[fast] == (uint64_t)UINT32_MAX + 2);
	assert_true(t.n == (uint64_t)UINT32_MAX + 2);

	/* the series: at the tick of second 1 the slot holds 2^32 - 10 fast
	 * ops; in second 1 another 20 fast ones and 1000 slow ones come (the
	 * fast bucket crosses 2^32): second 1's p99 is a slow one */
	memset(&s->every, 0, sizeof(s->every));
	s->every.count[fast] = UINT32_MAX - 10;
	ser = series_new(r);
	tick(ser, 1);
	s->every.count[fast] += 20;
	s->every.count[slow] += 1000;
	client_records(s, 1, 1020);
	s->secs[1].max_ns = 1200000;
	tick(ser, 2);
	tick(ser, 3);
	assert_int_equal(row_of(ser, 1)->ops, 1020);
	assert_true(row_of(ser, 1)->p99_ns >= 1000000 * 63 / 64);
	assert_true(row_of(ser, 1)->p99_ns <= 1000000 * 65 / 64);
	series_free(ser);
	region_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_read_whole),
		cmocka_unit_test(test_second_overwritten_before_read),
		cmocka_unit_test(test_second_overwritten_while_read),
		cmocka_unit_test(test_every_past_32_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
