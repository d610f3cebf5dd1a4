/*
 * mpi.c - the program's side of --mpi (mpi_run.h): loads dbench-mpi.so
 * when --mpi is given and calls into it; without it, each function is
 * what a single-host run needs.  The program links no MPI library.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <string.h>

#include "module.h"
#include "mpi_run.h"
#include "options.h"
#include "util.h"

#define WHAT "the MPI module (--mpi)"

static const struct mpi_module *mpi;	/* loaded by mpi_load, or NULL */
static char mpi_path[PATH_MAX];

/* Every hook is there: a table of another shape is refused by its abi. */
static bool complete(const struct mpi_module *m)
{
	return m->library && m->on && m->rank && m->size && m->start && m->spread && m->max && m->agree && m->same &&
	       m->barrier && m->exchange && m->tick_now && m->gather && m->banner && m->host_lines &&
	       m->json && m->finish;
}

void mpi_load(void)
{
	static const struct mpi_module_abi want = MPI_MODULE_ABI;
	const struct mpi_module *const *sym;
	char why[PATH_MAX + 512];
	void *handle;

	if (mpi)
		return;
#ifndef HAVE_MPI
	die(EXIT_USAGE, "--mpi: this %s was built without MPI (configure --with-mpi, libopenmpi-dev)",
	    options.progname);
#endif
	if (!module_find(MODULE_MPI, mpi_path, sizeof(mpi_path))) {
		module_not_installed(MODULE_MPI, "--mpi: the module", why, sizeof(why));
		die(EXIT_USAGE, "%s", why);
	}
	/* RTLD_GLOBAL: the MPI library's own plugins (Open MPI's mca_*.so)
	 * resolve its symbols in the global scope */
	handle = module_open(MODULE_MPI, WHAT, mpi_path, RTLD_NOW | RTLD_GLOBAL, why, sizeof(why));
	if (!handle)
		die(EXIT_USAGE, "%s", why);
	sym = dlsym(handle, MPI_MODULE_SYMBOL);
	if (!sym || !*sym)
		die(EXIT_USAGE, "%s is not dbench's MPI module (no %s symbol)", mpi_path, MPI_MODULE_SYMBOL);
	if (memcmp(&(*sym)->abi, &want, sizeof(want)) != 0 || !complete(*sym))
		die(EXIT_USAGE, "%s was built for another dbench (MPI module interface %u, sizes %u/%u/%u; this dbench: %u, %u/%u/%u): rebuild or reinstall it",
		    mpi_path, (*sym)->abi.interface, (*sym)->abi.options_size, (*sym)->abi.results_size,
		    (*sym)->abi.figures_size, want.interface, want.options_size, want.results_size,
		    want.figures_size);
	mpi = *sym;	/* never unloaded */
}

void mpi_print_version(FILE *out)
{
	mpi_load();
	fprintf(out, "MPI module: %s\n", mpi_path);
	fprintf(out, "MPI library: %s\n", mpi->library());
}

bool mpi_on(void)
{
	return mpi && mpi->on();
}

int mpi_rank(void)
{
	return mpi ? mpi->rank() : 0;
}

int mpi_size(void)
{
	return mpi ? mpi->size() : 1;
}

void mpi_start(void)
{
	mpi_load();
	mpi->start();
}

void mpi_spread(int nprocs)
{
	if (mpi)
		mpi->spread(nprocs);
}

int mpi_max(int value)
{
	return mpi ? mpi->max(value) : value;
}

int mpi_agree(bool ok, const char *message)
{
	return mpi ? mpi->agree(ok, message) : ok ? 0 : -1;
}

int mpi_same(const struct program *prog, const struct backend *be, char *why, size_t len)
{
	return mpi ? mpi->same(prog, be, why, len) : 0;
}

void mpi_barrier(const char *what)
{
	if (mpi)
		mpi->barrier(what);
}

void mpi_exchange(struct mpi_figures *f)
{
	if (mpi)
		mpi->exchange(f);
}

bool mpi_tick_now(void)
{
	return mpi && mpi->tick_now();
}

void mpi_gather(struct results *r)
{
	if (mpi)
		mpi->gather(r);
}

void mpi_banner(void)
{
	if (mpi)
		mpi->banner();
}

void mpi_host_lines(FILE *out)
{
	if (mpi)
		mpi->host_lines(out);
}

json_t *mpi_json(void)
{
	return mpi ? mpi->json() : NULL;
}

void mpi_json_add(json_t *doc)
{
	json_t *per_rank = mpi_json();

	if (per_rank && doc)
		json_object_set_new(doc, "mpi", per_rank);
	else
		json_decref(per_rank);
}

void mpi_finish(void)
{
	if (mpi)
		mpi->finish();
}
