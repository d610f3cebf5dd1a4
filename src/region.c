/*
 * region.c - the shared region and merging; see region.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "region.h"
#include "util.h"

size_t slot_size_for(const struct program *prog)
{
	size_t size = sizeof(struct slot) + prog->nstats * sizeof(struct op_stats);

	return (size + 63) & ~(size_t)63;
}

/* The header: struct shared, then root_existed, to a page boundary. */
static size_t header_size(uint32_t nroots)
{
	return (sizeof(struct shared) + nroots + 4095) & ~(size_t)4095;
}

struct shared *shared_create(const struct program *prog, int nclients)
{
	size_t slot_size = slot_size_for(prog);
	size_t header = header_size(prog->nshared_roots);
	size_t len = header + slot_size * (size_t)nclients;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0);
	struct shared *sh;

	if (base == MAP_FAILED)
		die(EXIT_USAGE, "cannot map %zu bytes of shared memory for %d clients: %s", len, nclients,
		    strerror(errno));	/* nothing ran */
	sh = (struct shared *)base;
	sh->nclients = nclients;
	sh->slot_size = slot_size;
	sh->nroots = prog->nshared_roots;
	sh->root_existed = (uint8_t *)(base + sizeof(struct shared));
	sh->slots = base + header;
	for (int i = 0; i < nclients; i++) {
		struct slot *s = shared_slot(sh, i);

		op_stats_init(&s->lag);
		op_stats_init(&s->response);
		for (unsigned k = 0; k < prog->nstats; k++)
			op_stats_init(&s->ops[k]);
	}
	return sh;
}

void shared_destroy(struct shared *sh)
{
	size_t header = header_size(sh->nroots);

	munmap(sh, header + sh->slot_size * (size_t)sh->nclients);
}

void op_total_init(struct op_total *t)
{
	memset(t, 0, sizeof(*t));
	t->min_ns = UINT64_MAX;
}

void op_total_add(struct op_total *t, const struct op_stats *s)
{
	t->count += s->count;
	t->mismatches += s->mismatches;
	t->errors += s->errors;
	t->bytes += s->bytes;
	t->total_ns += s->total_ns;
	t->min_ns = MIN(t->min_ns, s->min_ns);
	t->max_ns = MAX(t->max_ns, s->max_ns);
	t->sumsq_ns += s->sumsq_ns;
	for (int i = 0; i < DECADES; i++)
		t->decade[i] += s->decade[i];
	hist_total_add(&t->hist, &s->hist);
}

void op_total_merge(struct op_total *t, const struct op_total *o)
{
	t->count += o->count;
	t->mismatches += o->mismatches;
	t->errors += o->errors;
	t->bytes += o->bytes;
	t->total_ns += o->total_ns;
	t->min_ns = MIN(t->min_ns, o->min_ns);
	t->max_ns = MAX(t->max_ns, o->max_ns);
	t->sumsq_ns += o->sumsq_ns;
	for (int i = 0; i < DECADES; i++)
		t->decade[i] += o->decade[i];
	hist_total_merge(&t->hist, &o->hist);
}
