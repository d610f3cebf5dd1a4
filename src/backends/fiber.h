/*
 * fiber.h - an op of an asynchronous client on a stack of its own, for a
 * backend whose ops are chains of calls written to block (the NFS
 * backend: LOOKUP, then CREATE, then ...).  Where the op would block on
 * the server's reply, it yields; the event loop serves the other clients;
 * the source's ready() resumes it when the reply is in.  One fiber per
 * client, made at setup, reused for every op; its stack is mapped, not
 * touched, so a client costs the few pages its ops use.  On x86-64 a
 * switch saves and restores the callee-saved registers and the stack
 * pointer, nothing else (ucontext's swapcontext also sets the signal mask:
 * a system call each way, a sixth of a client's CPU on NFS); elsewhere,
 * and under AddressSanitizer, it is ucontext.
 *
 *   submit:  fiber_submit(f, c, op, handler): STATUS_PENDING or the status
 *   wait:    in the op, fiber_wait(f): the loop runs; 0 when resumed, -1
 *            when the op is given up (expire): the op then fails
 *   ready:   fiber_resume(f): the op goes on; true when it finished
 *            (f->status), and the backend calls client_complete()
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_FIBER_H
#define DBENCH_BACKENDS_FIBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "backend.h"

struct fiber {
	ucontext_t ctx;		/* the op's (the portable switch) */
	ucontext_t back;	/* whoever started or resumed it */
	void *sp;		/* the op's stack pointer (the x86-64 switch) */
	void *back_sp;		/* and whoever started or resumed it */
	void *stack;		/* the mapping, a guard page first */
	size_t stack_size;
	size_t guard;		/* its first bytes: no access (an overflow faults) */
	uint32_t (*handler)(struct client *c, const struct op *op);
	struct client *c;
	const struct op *op;
	uint32_t status;	/* the handler's, once finished */
	bool running;		/* an op started and not finished */
	bool waiting;		/* yielded in fiber_wait */
	bool expired;		/* the op was given up: fiber_wait fails */
	void *fake_stack;	/* AddressSanitizer's, across a switch */
};

/* Map f's stack; 0, or -1 with c->error set. */
int fiber_init(struct fiber *f, struct client *c);
void fiber_free(struct fiber *f);

/* Run handler(c, op) on f: its status if it finished without waiting,
 * STATUS_PENDING if it waits (fiber_resume goes on with it). */
uint32_t fiber_submit(struct fiber *f, struct client *c, const struct op *op,
		      uint32_t (*handler)(struct client *c, const struct op *op));

/* In f's op: yield to the event loop until resumed.  0, or -1 if the op
 * was given up (f->expired). */
int fiber_wait(struct fiber *f);

/* Is the caller running on f (an op of f's client, on the event loop)? */
bool fiber_on(const struct fiber *f);

/* From the loop: go on with f's op if it waits.  True when it finished
 * (its status in f->status). */
bool fiber_resume(struct fiber *f);

/* From expire(): the op is given up: its wait fails and it unwinds to
 * its end (its status is dropped: the engine fails the client). */
void fiber_expire(struct fiber *f);

#endif
