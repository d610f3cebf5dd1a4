/*
 * region_atomic.h - the protocol of the shared region (region.h has its layout):
 * every read and write one process makes of what another process writes
 * while the run goes on, each with its memory order and why.  Nothing
 * else touches those fields while the run goes on, and no file but this
 * one writes __atomic_: a reader finds here every promise the writers
 * keep (Redis's atomicvar.h is the model).  The accessors are many small
 * functions of one shape on purpose (duplicates: a repeated shape kept by
 * choice): each names one field's operation and says why its order holds.
 *
 * Who writes what:
 *   the header (struct shared)  the parent: the window, the stop flag;
 *                               every client: the message ticket, the
 *                               count of processes left
 *   a slot (struct slot)        its client alone (the parent only after
 *                               the process is gone, or killed)
 *
 * The orders, and the rule behind each:
 *   relaxed   a value read for itself (a counter, a flag polled every op or
 *             every second): a stale read costs one more op or a late
 *             figure, never a wrong one.  64-bit fields are aligned, so a
 *             relaxed access is never torn.
 *   release / acquire   a value that tells the reader other fields are
 *             ready (a slot's state, a second's number, the op in flight):
 *             the writer stores it last with release, the reader loads it
 *             first with acquire, then reads the fields it vouches for.
 *   acq_rel   a count that decides who goes last (processes left): the
 *             last one out sees what every other did before it left.
 *
 * Not covered, by design: what is written before the clients are forked
 * (fork orders it) or released (the release pipe orders it: the parent
 * writes the window, then closes the pipe; a client reads it after its
 * read() returned); and everything read after the writer's process was
 * reaped (waitpid orders it): the measured op figures, the error texts of
 * killed clients, the final counters.  Those are plain accesses.
 * The all-op histogram (slot.every) is read by the parent's per-second
 * percentiles while its client adds to it, without atomics: its counts
 * are aligned words, and a count one op behind is what a relaxed read
 * would give.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_REGION_ATOMIC_H
#define DBENCH_REGION_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "region.h"
#include "util.h"

/* The only spellings of the orders; #undef'd at the end of this file. */
#define LOAD_RELAXED(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE_RELAXED(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define LOAD_ACQUIRE(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE_RELEASE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* ---- the header: the parent writes, the clients read ---- */

/* The parent, before the release: the window.  The release pipe
 * publishes it (the parent closes the pipe after these stores, a client
 * reads them after its read() of the pipe returned); the end is stored
 * atomically, relaxed, as every later change of it is (region_end_now). */
static inline void region_set_window(struct shared *sh, uint64_t release_ns,
				     uint64_t measure_start_ns, uint64_t measure_end_ns)
{
	sh->release_ns = release_ns;
	sh->measure_start_ns = measure_start_ns;
	STORE_RELAXED(sh->measure_end_ns, measure_end_ns);
}

/* The end of the measured window, as a client (every op) or the parent
 * (every second) sees it now.  Relaxed: it only ever comes earlier, and
 * together with the stop flag, which ends the run anyway. */
static inline uint64_t region_end(const struct shared *sh)
{
	return LOAD_RELAXED(sh->measure_end_ns);
}

/* The parent: the run ends now (a signal, a client died on another rank):
 * the window ends at now (not before its start), and the clients are
 * asked to stop.  Relaxed: see region_end and region_stopping. */
static inline void region_end_now(struct shared *sh, uint64_t now)
{
	uint64_t end = LOAD_RELAXED(sh->measure_end_ns);

	STORE_RELAXED(sh->measure_end_ns, MIN(end, MAX(now, sh->measure_start_ns)));
	STORE_RELAXED(sh->stop, 1);
}

/* The parent: the clients are asked to stop (setup failed; nothing was
 * measured, so the window stays). */
static inline void region_stop(struct shared *sh)
{
	STORE_RELAXED(sh->stop, 1);
}

/* Are the clients asked to stop?  Polled before every op and in a
 * backend's waits: relaxed, a stale read costs one more op. */
static inline bool region_stopping(const struct shared *sh)
{
	return LOAD_RELAXED(sh->stop) != 0;
}

/* ---- the header: every client writes ---- */

/* A client about to print a status mismatch: its ticket (how many were
 * printed before it), so that only the first --show-mismatches are.
 * Relaxed: a ticket publishes nothing. */
static inline int region_message_ticket(struct shared *sh)
{
	return __atomic_fetch_add(&sh->mismatch_printed, 1, __ATOMIC_RELAXED);
}

/* A client process done with its clients' cleanup: how many processes are
 * still at work.  Acquire-release: the last one out (0) removes the shared
 * directories and must see every other process's cleanup finished. */
static inline int region_process_done(struct shared *sh)
{
	return __atomic_sub_fetch(&sh->procs_left, 1, __ATOMIC_ACQ_REL);
}

/* ---- a slot: its client writes, the parent and other clients read ---- */

/* The client: its state.  Release: a FAILED state publishes the error text
 * written before it, READY the shared directories its setup found
 * (root_existed). */
static inline void slot_set_state(struct slot *s, int state)
{
	STORE_RELEASE(s->state, state);
}

/* The parent (progress, waiting for READY, the grace) or a client waiting
 * at a sync point: a slot's state.  Acquire: see slot_set_state. */
static inline int slot_state(const struct slot *s)
{
	return LOAD_ACQUIRE(s->state);
}

/* The client: add n to one of its counters (ops_all, bytes_all, ...).  It
 * is the only writer, so it reads its own value plainly; the store is
 * relaxed so that the parent's relaxed read of it is never torn. */
static inline void slot_count(uint64_t *counter, uint64_t n)
{
	STORE_RELAXED(*counter, *counter + n);
}

/* The client: set one of its values (a pass count, its CPU time). */
static inline void slot_put(uint64_t *value, uint64_t v)
{
	STORE_RELAXED(*value, v);
}

/* The parent: one of a slot's counters or values, now.  Relaxed: a
 * progress figure, one op behind at worst. */
static inline uint64_t slot_get(const uint64_t *value)
{
	return LOAD_RELAXED(*value);
}

/* The client: op id starts at t0 (the grace tells what a stuck client was
 * doing).  Release: the id is there for whoever sees the start. */
static inline void slot_op_begin(struct slot *s, uint32_t id, uint64_t t0)
{
	STORE_RELAXED(s->op_id, id);
	STORE_RELEASE(s->op_start_ns, t0);
}

/* The client: the op is over.  Relaxed: 0 vouches for nothing. */
static inline void slot_op_end(struct slot *s)
{
	STORE_RELAXED(s->op_start_ns, 0);
}

/* The parent: when the op in flight started (0: none) and, if one is, its
 * id.  Acquire: see slot_op_begin. */
static inline uint64_t slot_op_in_flight(const struct slot *s, uint32_t *id)
{
	uint64_t t0 = LOAD_ACQUIRE(s->op_start_ns);

	*id = t0 ? LOAD_RELAXED(s->op_id) : 0;
	return t0;
}

/* The client: its last SETSP (pass << 32 | sync point).  Relaxed: a sync
 * point publishes nothing; a client waiting for it looks again 200 us
 * later. */
static inline void slot_set_sync_point(struct slot *s, int64_t sp)
{
	STORE_RELAXED(s->sp64, sp);
}

/* Another client, at WAITSP: the last sync point of slot s. */
static inline int64_t slot_sync_point(const struct slot *s)
{
	return LOAD_RELAXED(s->sp64);
}

/* The client, after its passes (fixed-work runs): when it finished.  Read
 * by the parent once the process is reaped. */
static inline void slot_finish_work(struct slot *s, uint64_t now)
{
	STORE_RELAXED(s->work_end_ns, now);
	STORE_RELAXED(s->finished_work, 1);
}

/* Has the client done its --passes?  Relaxed, read by its own process. */
static inline bool slot_work_finished(const struct slot *s)
{
	return LOAD_RELAXED(s->finished_work) != 0;
}

/* ---- a slot's per-second ring: its client writes, the parent reads ---- */

/* The client: the ring entry of second sec, reset first if it held an
 * earlier second.  The reset is published as a seqlock's write: the entry
 * is marked SEC_CHANGING before its figures are zeroed and gets its new
 * second (release) after, so a reader that finds the same second before
 * and after its copy knows the copy is of that second alone. */
static inline struct sec_stat *sec_stat_enter(struct slot *s, uint64_t sec)
{
	struct sec_stat *ss = &s->secs[sec % SEC_RING];

	if (ss->sec != sec) {
		STORE_RELAXED(ss->sec, SEC_CHANGING);
		__atomic_thread_fence(__ATOMIC_RELEASE);	/* the mark before the zeroes */
		STORE_RELAXED(ss->ops, 0);
		STORE_RELAXED(ss->bytes, 0);
		STORE_RELAXED(ss->max_ns, 0);
		STORE_RELEASE(ss->sec, sec);
	}
	return ss;
}

/* The client: an op of lat ns that moved bytes completed in the entry's
 * second.  Relaxed: the parent reads a second once it is over. */
static inline void sec_stat_add(struct sec_stat *ss, uint64_t bytes, uint64_t lat)
{
	STORE_RELAXED(ss->ops, ss->ops + 1);
	STORE_RELAXED(ss->bytes, ss->bytes + bytes);
	if (lat > ss->max_ns)
		STORE_RELAXED(ss->max_ns, lat);
}

/* The parent: copy second's figures from its ring entry into *out.  True
 * if the entry held that second before and after the copy; false if it
 * holds another (out->sec says which: a later one, or SEC_CHANGING, means
 * the second was overwritten before or while it was read, and the copy
 * must not be used).  Acquire, then a fence before the re-check: see
 * sec_stat_enter. */
static inline bool sec_stat_read(const struct sec_stat *ss, uint64_t second, struct sec_stat *out)
{
	out->sec = LOAD_ACQUIRE(ss->sec);
	if (out->sec != second)
		return false;
	out->ops = LOAD_RELAXED(ss->ops);
	out->bytes = LOAD_RELAXED(ss->bytes);
	out->max_ns = LOAD_RELAXED(ss->max_ns);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* the copy before the re-check */
	out->sec = LOAD_RELAXED(ss->sec);
	return out->sec == second;
}

/* ---- --mpi: the parent's sign of life ---- */

/* The parent: it is alive now (every tick, and while it waits for the
 * other ranks).  Relaxed: a client compares it with --mpi-timeout. */
static inline void region_parent_alive(struct shared *sh, uint64_t now)
{
	STORE_RELAXED(sh->parent_alive_ns, now);
}

/* A client: when the parent was last alive. */
static inline uint64_t region_parent_alive_ns(const struct shared *sh)
{
	return LOAD_RELAXED(sh->parent_alive_ns);
}

/* ---- a slot: a stop signal of its own process ---- */

/* The client process: a stop signal of its own cut this client short. */
static inline void slot_set_signal(struct slot *s, int sig)
{
	STORE_RELAXED(s->signal, sig);
}

/* The parent, once every client has exited: that signal, or 0. */
static inline int slot_signal(const struct slot *s)
{
	return LOAD_RELAXED(s->signal);
}

#undef LOAD_RELAXED
#undef STORE_RELAXED
#undef LOAD_ACQUIRE
#undef STORE_RELEASE

#endif
