/*
 * testmod.c - a backend module for the tests (tests/cli/modules.bats):
 * built as tests/modules/dbench-testmod.so, it proves that a module's
 * options, help and init reach the core, and that its ops run.  Every op
 * returns the status the loadfile expects, as the null backend does.
 * Built with -DTESTMOD_INTERFACE=N (as dbench-oldabi.so), it claims
 * another backend interface and must be refused; built with
 * -DTESTMOD_WITHOUT=HOOK (as dbench-nosetup.so and dbench-noexists.so), it
 * lacks that required hook and must be refused when it is loaded.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>

#include "backend.h"
#include "backends/netbench.h"
#include "status.h"

#ifndef TESTMOD_NAME
#define TESTMOD_NAME "testmod"
#endif

/* The module's option block: the file options (it is BACKEND_FILES),
 * then its own. */
struct testmod_options {
	struct nb_options files;
	const char *greeting;	/* --testmod-greeting */
};

static const struct backend_option testmod_options[] = {
	{ .name = "testmod-greeting", .type = BOPT_STRING,
	  .offset = offsetof(struct testmod_options, greeting), .arg_name = "TEXT",
	  .help = "print TEXT on stderr when the backend starts" },
	{ .name = NULL },
};

static int testmod_init(void *be_opt, const struct run_info *run)
{
	const struct testmod_options *o = be_opt;

	if (o->greeting)
		fprintf(stderr, "%s: testmod says %s\n", run->progname, o->greeting);
	return 0;
}

static int testmod_setup(struct client *c)
{
	(void)c;
	return 0;
}

static int testmod_remove_tree(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static int testmod_exists(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static uint32_t testmod_op(struct client *c, const struct op *op)
{
	if ((op->id == OP_READX || op->id == OP_WRITEX) && c->num[3] >= 0)
		c->bytes = (uint64_t)c->num[3];
	if (op->expect.kind == EXPECT_EXACT)
		return op->expect.code;
	if (op->expect.kind == EXPECT_ERROR)
		return op_info[op->id].domain == DOMAIN_NT ? NT_STATUS_UNSUCCESSFUL : NFS3ERR_IO;
	return 0;
}

#ifdef TESTMOD_WITHOUT
/* the table sets every hook, then takes one away */
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

static const struct backend testmod_backend = {
#ifdef TESTMOD_INTERFACE
	.abi = { TESTMOD_INTERFACE, sizeof(struct backend), sizeof(struct client), sizeof(struct run_info) },
#else
	.abi = BACKEND_ABI,
#endif
	.name = TESTMOD_NAME,
	.description = "a module for the tests: every op returns the expected status",
	.flags = BACKEND_FILES,
	.options = testmod_options,
	.options_size = sizeof(struct testmod_options),
	.init = testmod_init,
	.setup = testmod_setup,
	.remove_tree = testmod_remove_tree,
	.exists = testmod_exists,
#ifdef TESTMOD_WITHOUT
	.TESTMOD_WITHOUT = NULL,	/* the hook this build lacks */
#endif
	.op = {
#define OP(sym, name, display, group, args, domain) [OP_##sym] = testmod_op,
#include "ops.def"
#undef OP
	},
};

BACKEND_MODULE(testmod_backend);
