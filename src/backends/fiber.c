/*
 * fiber.c - an op on a stack of its own (see fiber.h): ucontext's
 * makecontext/swapcontext, with AddressSanitizer told of every switch.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fiber.h"

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif

#ifdef FIBER_ASAN
#include <sanitizer/asan_interface.h>
#define STACK_SIZE (1024 * 1024)	/* ASan's redzones take room */
#else
#define STACK_SIZE (256 * 1024)		/* mapped: only the pages an op touches are resident */
#endif

#if defined(__x86_64__) && !defined(FIBER_ASAN)
#define FIBER_ASM 1
/* Save the callee-saved registers on this stack, store the stack pointer
 * in *from, load to, restore that stack's registers and return where it
 * left (or, the first time, into the entry its stack was made with). */
void dbench_fiber_switch(void **from, void *to);
__asm__(".text\n"
	".globl dbench_fiber_switch\n"
	".hidden dbench_fiber_switch\n"
	".type dbench_fiber_switch,@function\n"
	"dbench_fiber_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size dbench_fiber_switch, .-dbench_fiber_switch\n");
#endif

/* The fiber running now, or NULL (the event loop).  A process runs one
 * thread: this is its only fiber state. */
static struct fiber *current;
#ifdef FIBER_ASAN
/* The loop's stack, for AddressSanitizer's switch annotations. */
static const void *loop_stack;
static size_t loop_stack_size;
#endif

static void to_fiber(struct fiber *f)
{
#if defined(FIBER_ASM)
	current = f;
	dbench_fiber_switch(&f->back_sp, f->sp);
#elif defined(FIBER_ASAN)
	void *fake = NULL;

	__sanitizer_start_switch_fiber(&fake, (char *)f->stack + f->guard, f->stack_size - f->guard);
	current = f;
	swapcontext(&f->back, &f->ctx);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
	current = f;
	swapcontext(&f->back, &f->ctx);
#endif
	current = NULL;
}

/* From the fiber back to the loop; done: the fiber's op is over. */
static void to_loop(struct fiber *f, bool done)
{
#if defined(FIBER_ASM)
	(void)done;
	dbench_fiber_switch(&f->sp, f->back_sp);
#elif defined(FIBER_ASAN)
	__sanitizer_start_switch_fiber(done ? NULL : &f->fake_stack, loop_stack, loop_stack_size);
	swapcontext(&f->ctx, &f->back);
	__sanitizer_finish_switch_fiber(f->fake_stack, &loop_stack, &loop_stack_size);
#else
	(void)done;
	swapcontext(&f->ctx, &f->back);
#endif
}

static void entry(void)
{
	struct fiber *f = current;

#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(NULL, &loop_stack, &loop_stack_size);
#endif
	f->status = f->handler(f->c, f->op);
	f->running = false;
	to_loop(f, true);
}

int fiber_init(struct fiber *f, struct client *c)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(f, 0, sizeof(*f));
	f->c = c;
	f->stack_size = STACK_SIZE;
	f->stack = mmap(NULL, f->stack_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (f->stack == MAP_FAILED) {
		f->stack = NULL;
		snprintf(c->error, sizeof(c->error), "cannot map an op's stack: %s", strerror(errno));
		return -1;
	}
	f->guard = (size_t)page;
	mprotect(f->stack, f->guard, PROT_NONE);	/* an overflow faults */
	return 0;
}

void fiber_free(struct fiber *f)
{
	if (f->stack)
		munmap(f->stack, f->stack_size);
	f->stack = NULL;
}

uint32_t fiber_submit(struct fiber *f, struct client *c, const struct op *op,
		      uint32_t (*handler)(struct client *c, const struct op *op))
{
	f->handler = handler;
	f->c = c;
	f->op = op;
	f->running = true;
	f->expired = false;
#ifdef FIBER_ASM
	/* the top of the stack: a zero return address for entry (which
	 * never returns), entry for the switch's ret, its 6 registers */
	void **sp = (void **)(((uintptr_t)f->stack + f->stack_size) & ~(uintptr_t)15);

	*--sp = NULL;
	*--sp = (void *)entry;
	for (int i = 0; i < 6; i++)
		*--sp = NULL;
	f->sp = sp;
#else
	getcontext(&f->ctx);
	f->ctx.uc_stack.ss_sp = (char *)f->stack + f->guard;
	f->ctx.uc_stack.ss_size = f->stack_size - f->guard;
	f->ctx.uc_link = NULL;
	makecontext(&f->ctx, entry, 0);
#endif
	to_fiber(f);
	return f->running ? STATUS_PENDING : f->status;
}

int fiber_wait(struct fiber *f)
{
	f->waiting = true;
	to_loop(f, false);
	f->waiting = false;
	return f->expired ? -1 : 0;
}

bool fiber_on(const struct fiber *f)
{
	return f && current == f;
}

bool fiber_resume(struct fiber *f)
{
	if (!f->running || !f->waiting)
		return false;
	to_fiber(f);
	return !f->running;
}

void fiber_expire(struct fiber *f)
{
	f->expired = true;
	while (f->running && f->waiting)
		to_fiber(f);
}
