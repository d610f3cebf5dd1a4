/*
 * null.c - a backend that does nothing: every op returns at once with the
 * status the loadfile expects (success where any is allowed).  It measures
 * the harness's own cost per op (bench/harness-cost.sh) and lets a loadfile
 * be dry-run on any machine.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include "backend.h"
#include "options.h"	/* built in: --trunc-io for the nominal bytes, as the interpreter */
#include "status.h"

static int null_setup(struct client *c)
{
	(void)c;
	return 0;
}

static int null_remove_tree(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static int null_exists(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static uint32_t null_op(struct client *c, const struct op *op)
{
	c->bytes = op_nominal_bytes(op->id, c->num, c->opt->trunc_io);
	if (op->expect.kind == EXPECT_EXACT)	/* (without SCSI_EXPECT_* bits) */
		return op->expect.code & ~(op_info[op->id].domain == DOMAIN_SCSI ?
					   SCSI_EXPECT_KEY | SCSI_EXPECT_ASC : 0u);
	if (op->expect.kind == EXPECT_ERROR)
		return op_info[op->id].domain == DOMAIN_NT ? NT_STATUS_UNSUCCESSFUL :
		       op_info[op->id].domain == DOMAIN_SCSI ? SCSI_CHECK_CONDITION : NFS3ERR_IO;
	return 0;
}

const struct backend null_backend = {
	.abi = BACKEND_ABI,
	.name = "null",
	.description = "does nothing; every op returns the expected status (harness cost)",
	.setup = null_setup,
	.remove_tree = null_remove_tree,
	.exists = null_exists,
	.op = { [0 ... OP_COUNT - 1] = null_op },	/* every op */
};
