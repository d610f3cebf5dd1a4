/*
 * test_loadfile.c - unit tests of the loadfile compiler: the classic
 * syntax, every directive, numbers with their random and relative forms,
 * path normalization and safety, and the FILE:LINE errors.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h"
#include "loadfile.h"
#include "numexpr.h"
#include "options.h"
#include "pass.h"
#include "status.h"


/* One pass of client 0 of n clients, as --check-loadfile runs it. */
static void one_pass(const struct program *prog, int nclients, uint64_t seed, struct pass_stats *ps)
{
	struct options opt = { .progname = "test", .nclients = nclients, .nprocs = nclients,
			       .clients_per_process = 1, .seed = seed, .show_mismatches = 10 };

	pass_run(prog, &opt, PASS_MAX_STEPS, ps);
	assert_false(ps->truncated);
}

/* Compile text; returns the program, or NULL with the errors in *err. */
static struct program *compile(const char *text, char *err, size_t errlen)
{
	FILE *f = fmemopen(err, errlen, "w");
	struct program *prog;

	memset(err, 0, errlen);
	prog = program_compile("t.txt", text, strlen(text), f);
	fclose(f);
	return prog;
}

static struct program *must_compile(const char *text)
{
	char err[2048];
	struct program *prog = compile(text, err, sizeof(err));

	if (!prog)
		fail_msg("unexpected error: %s", err);
	return prog;
}

static void must_fail(const char *text, const char *expect)
{
	char err[2048];
	struct program *prog = compile(text, err, sizeof(err));

	if (prog)
		fail_msg("compiled, but expected error '%s'", expect);
	if (!strstr(err, expect))
		fail_msg("error '%s' does not contain '%s'", err, expect);
}

static void test_classic_lines(void **state)
{
	struct program *prog = must_compile(
		"# a comment\n"
		"\n"
		"Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
		"NTCreateX \"\\clients\\client1\\~dmtmp\\A.DOC\" 0x40 0x2 16385 NT_STATUS_OK\r\n"
		"WriteX 16385 65534 1 1 NT_STATUS_OK\n"
		"ReadX 16385 0 4096 4096 NT_STATUS_OK\n"
		"  Close 16385 NT_STATUS_OK  \n"
		"FIND_FIRST \"\\clients\\client1\\*.DOC\" 260 1366 1 NT_STATUS_NO_SUCH_FILE\n");

	(void)state;
	assert_int_equal(prog->nops, 6);
	assert_int_equal(prog->ops[0].id, OP_DELTREE);
	assert_int_equal(prog->ops[0].line, 3);
	assert_string_equal(path_text(prog, prog->ops[0].path[0]), "clients/\001");
	assert_int_equal(prog->ops[1].id, OP_NTCREATEX);
	assert_int_equal(prog->ops[1].num[0], 0x40);
	assert_int_equal(prog->ops[1].num[1], 2);
	assert_int_equal(prog->ops[1].num[2], 16385);
	assert_string_equal(path_text(prog, prog->ops[1].path[0]), "clients/\001/~dmtmp/A.DOC");
	assert_int_equal(prog->ops[1].handle, 0);
	assert_int_equal(prog->ops[2].handle, 0);
	assert_int_equal(prog->ops[2].num[1], 65534);
	assert_int_equal(prog->ops[4].id, OP_CLOSE);
	assert_int_equal(prog->ops[5].expect.code, NT_STATUS_NO_SUCH_FILE);
	assert_int_equal(prog->ops[5].expect.kind, EXPECT_EXACT);
	assert_int_equal(prog->nhandles, 1);
	assert_int_equal(prog->count[OP_READX], 1);
	assert_true(prog->statidx[OP_READX] >= 0);
	assert_int_equal(prog->statidx[OP_RENAME], -1);
	assert_false(prog->timestamps);
	program_free(prog);
}

static void test_statuses(void **state)
{
	struct program *prog = must_compile(
		"Mkdir \"\\a\" 0xC0000034\n"
		"Mkdir \"\\a\" SUCCESS\n"
		"Mkdir \"\\a\" ERROR\n"
		"Mkdir \"\\a\" *\n"
		"GETATTR3 \"/a\" 0x00000002\n"
		"GETATTR3 \"/a\" NFS3ERR_NOENT\n");

	(void)state;
	assert_int_equal(prog->ops[0].expect.code, NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(prog->ops[1].expect.kind, EXPECT_SUCCESS);
	assert_int_equal(prog->ops[2].expect.kind, EXPECT_ERROR);
	assert_int_equal(prog->ops[3].expect.kind, EXPECT_ANY);
	assert_int_equal(prog->ops[4].expect.code, NFS3ERR_NOENT);
	assert_int_equal(prog->ops[5].expect.code, NFS3ERR_NOENT);
	program_free(prog);
	must_fail("Mkdir \"\\a\" NT_STATUS_BOGUS\n", "t.txt:1: Mkdir: bad status 'NT_STATUS_BOGUS'");
	must_fail("Mkdir \"\\a\" 0xZZ\n", "bad status");
	must_fail("GETATTR3 \"/a\" NT_STATUS_OK\n", "bad status");
}

static void test_timestamps(void **state)
{
	struct program *prog = must_compile(
		"0.000 Deltree \"/clients/client1\" 0x00000000\n"
		"35.087310000 LOOKUP3 \"/clients/client1/small-file\" 0x00000002\n"
		"WRITE3 \"/clients/client1/f\" 0 10240 2 0x00000000\n");

	(void)state;
	assert_true(prog->timestamps);
	assert_int_equal(prog->ops[0].when_ns, 0);
	assert_int_equal(prog->ops[1].when_ns, 35087310000LL);
	assert_int_equal(prog->ops[2].when_ns, -1);
	assert_int_equal(prog->ops[2].num[2], 2);
	program_free(prog);
	must_fail("1.2.3 Close 1 NT_STATUS_OK\n", "bad timestamp");
	must_fail("5.0\n", "timestamp without an operation");
}

static void test_paths(void **state)
{
	struct program *prog = must_compile(
		"Mkdir \"\\clients\\.\\client1\\x\\..\\y\" *\n"
		"Mkdir \"/clients//client1/\" *\n"
		"Mkdir \"\\clients\\client10\" *\n"
		"Rename \"\\a b\\c\" \"\\d\" *\n");

	(void)state;
	assert_string_equal(path_text(prog, prog->ops[0].path[0]), "clients/\001/y");
	assert_string_equal(path_text(prog, prog->ops[1].path[0]), "clients/\001");
	assert_string_equal(path_text(prog, prog->ops[2].path[0]), "clients/client10");
	assert_string_equal(path_text(prog, prog->ops[3].path[0]), "a b/c");
	assert_string_equal(path_text(prog, prog->ops[3].path[1]), "d");
	/* interned: the same text is the same template */
	assert_int_equal(prog->ops[1].path[0], prog->paths[prog->ops[1].path[0]].off ?
						       prog->ops[1].path[0] : prog->ops[1].path[0]);
	assert_int_equal(prog->nclient_roots, 1);
	assert_string_equal(prog->client_roots[0], "clients/\001");
	program_free(prog);
}

static void test_path_safety(void **state)
{
	(void)state;
	must_fail("Deltree \"\\clients\\..\\..\" NT_STATUS_OK\n", "t.txt:1: path \"\\clients\\..\\..\" leaves the share root");
	must_fail("Rename \"\\clients\\client1\\a\" \"\\..\\outside\" NT_STATUS_OK\n", "leaves the share root");
	must_fail("Mkdir \"C:\\Windows\" NT_STATUS_OK\n", "':' is not allowed");
	must_fail("GETATTR3 \"10.0.0.21:/gpfs/nfsshare\" 0x00000000\n", "':' is not allowed");
	must_fail("Mkdir \"\\\\server\\share\" NT_STATUS_OK\n", "UNC paths");
	must_fail("Deltree \"\\\" NT_STATUS_OK\n", "Deltree of the share root is not allowed");
	must_fail("Deltree \"\\a\\..\" NT_STATUS_OK\n", "Deltree of the share root is not allowed");
	must_fail("Mkdir \"\\a\tb\" NT_STATUS_OK\n", "control character");
}

static void test_syntax_errors(void **state)
{
	(void)state;
	must_fail("Mkdir \"\\a\" NT_STATUS_OK\nFrobnicate 1 2 NT_STATUS_OK\n", "t.txt:2: unknown operation 'Frobnicate'");
	must_fail("Close NT_STATUS_OK\n", "t.txt:1: Close takes 1 argument and a status, got 0 arguments and a status");
	must_fail("ReadX 1 0 4096 NT_STATUS_OK\n", "ReadX takes 4 arguments");
	must_fail("Mkdir \"\\a NT_STATUS_OK\n", "unterminated quoted path");
	must_fail("ReadX x 0 1 1 NT_STATUS_OK\n", "handle must be a number");
	must_fail("ReadX 1 abc 1 1 NT_STATUS_OK\n", "bad number 'abc'");
	must_fail("LockX \"\\a\" 0 1 NT_STATUS_OK\n", "handle must be a number");
	must_fail("Mkdir 12 NT_STATUS_OK\n", "expected a path");
	must_fail("SMBopenX 1 NT_STATUS_OK\n", "dbench 1 loadfile");
	must_fail("# nothing\n\n", "no operations");
	{
		static const char bin[] = "Mkdir \"\\a\" NT_STATUS_OK\n\0junk\n";
		char err[256] = "";
		FILE *f = fmemopen(err, sizeof(err), "w");

		assert_null(program_compile("t.txt", bin, sizeof(bin) - 1, f));
		fclose(f);
		assert_non_null(strstr(err, "binary data"));
	}
}

static void test_too_many_errors(void **state)
{
	char text[4096] = "";
	char err[8192];

	(void)state;
	for (int i = 0; i < 15; i++)
		strcat(text, "Bogus 1 NT_STATUS_OK\n");
	assert_null(compile(text, err, sizeof(err)));
	assert_non_null(strstr(err, "t.txt:10: unknown"));
	assert_null(strstr(err, "t.txt:11: unknown"));
	assert_non_null(strstr(err, "and 5 more errors"));
}

static void test_loops(void **state)
{
	struct program *prog = must_compile(
		"LOOP 3\n"
		"  Mkdir \"\\a\" *\n"
		"  LOOP 2\n"
		"    Mkdir \"\\b\" *\n"
		"  ENDLOOP\n"
		"ENDLOOP\n"
		"REPEAT 4\n"
		"Mkdir \"\\c\" *\n"
		"Mkdir \"\\d\" *\n");
	struct pass_stats ps;

	(void)state;
	assert_int_equal(prog->ops[0].id, DIR_LOOP);
	assert_int_equal(prog->ops[0].num[0], 3);
	assert_int_equal(prog->ops[0].num[1], 6);	/* after its ENDLOOP */
	assert_int_equal(prog->ops[5].id, DIR_ENDLOOP);
	assert_int_equal(prog->ops[5].num[1], 0);
	assert_int_equal(prog->ops[6].id, DIR_LOOP);	/* REPEAT */
	assert_int_equal(prog->ops[8].id, DIR_ENDLOOP);
	one_pass(prog, 1, 1, &ps);
	assert_int_equal(ps.ops[OP_MKDIR], 3 + 3 * 2 + 4 + 1);
	program_free(prog);

	must_fail("LOOP 2\nMkdir \"\\a\" *\n", "t.txt:1: LOOP without ENDLOOP");
	must_fail("ENDLOOP\n", "ENDLOOP without LOOP");
	must_fail("REPEAT 2\n", "REPEAT at the end");
	must_fail("REPEAT 2\nREPEAT 3\nMkdir \"\\a\" *\n", "REPEAT must be followed by an operation");
	must_fail("LOOP\n", "LOOP takes one number");
	must_fail("LOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\n"
		  "LOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\nLOOP 1\n", "nested deeper");
}

static void test_zero_loop(void **state)
{
	struct program *prog = must_compile("LOOP 0\nMkdir \"\\a\" *\nENDLOOP\nMkdir \"\\b\" *\n");
	struct pass_stats ps;

	(void)state;
	one_pass(prog, 1, 1, &ps);
	assert_int_equal(ps.ops[OP_MKDIR], 1);
	program_free(prog);
}

static void test_directives(void **state)
{
	struct program *prog = must_compile(
		"SLEEP 1000\n"
		"Sleep 500 NT_STATUS_OK\n"
		"SETSP 3\n"
		"WAITSP child+1 3\n"
		"RANDOMSTRING 2 \"f[0-9][a-c]x\"\n"
		"Mkdir \"\\clients\\client1\\$2\" *\n"
		"Mkdir \"\\clients\\client1\\~$9doc\" *\n"
		"WRITEPATTERN\n"
		"WRITEPATTERN off\n"
		"NBSCALE 1.0\n");

	(void)state;
	assert_int_equal(prog->ops[0].id, DIR_SLEEP);
	assert_int_equal(prog->ops[0].num[0], 1000);
	assert_int_equal(prog->ops[1].num[0], 500);
	assert_int_equal(prog->ops[2].id, DIR_SETSP);
	assert_int_equal(prog->ops[3].id, DIR_WAITSP);
	assert_int_not_equal(prog->ops[3].expr, 0);
	assert_int_equal(prog->ops[4].id, DIR_RANDOMSTRING);
	assert_int_equal(prog->ops[4].num[0], 2);
	assert_string_equal(path_text(prog, prog->ops[5].path[0]), "clients/\001/\002\002");
	assert_true(prog->paths[prog->ops[5].path[0]].flags & PATHF_RANDSTR);
	/* $9 was never defined: literal */
	assert_string_equal(path_text(prog, prog->ops[6].path[0]), "clients/\001/~$9doc");
	assert_int_equal(prog->ops[7].num[0], 1);
	assert_int_equal(prog->ops[8].num[0], 0);
	assert_true(prog->nbscale > 0.99 && prog->nbscale < 1.01);
	program_free(prog);

	must_fail("RANDOMSTRING 16 \"a\"\n", "slot must be 0..15");
	must_fail("RANDOMSTRING 1 \"a[b\"\n", "unterminated or empty [set]");
	must_fail("RANDOMSTRING 1 \"a:b\"\n", "may not contain ':'");
	must_fail("RANDOMSTRING 1 \"a[:b]\"\n", "may not contain ':'");
	must_fail("WAITSP 1\n", "WAITSP takes 2 numbers");
	must_fail("NBSCALE -1\n", "NBSCALE");
}

/* Upstream dbench's loadfile features: op and directive names in any case,
 * RANDOMSTRING patterns with separators, WRITEPATTERN <text>. */
static void test_upstream_features(void **state)
{
	struct program *prog = must_compile(
		"mkdir \"\\clients\" *\n"
		"NTCREATEX \"\\clients\\client1\\f\" 0x40 0x5 1 *\n"
		"close 1 *\n"
		"close \"\\clients\\client1\\f\" *\n"
		"Close 1 *\n"
		"randomstring 3 \"[ab]/[cd]\\x\"\n"
		"MkDir \"\\clients\\client1\\$3\" *\n"
		"WRITEPATTERN  Hello, world  again \n"
		"loop 2\n"
		"Sleep 1\n"
		"endloop\n");

	(void)state;
	assert_int_equal(prog->ops[0].id, OP_MKDIR);
	assert_int_equal(prog->ops[1].id, OP_NTCREATEX);
	assert_int_equal(prog->ops[2].id, OP_CLOSE);
	assert_int_equal(prog->ops[3].id, OP_SMB_CLOSE);
	assert_int_equal(prog->ops[4].id, OP_CLOSE);
	assert_int_equal(prog->ops[5].id, DIR_RANDOMSTRING);
	assert_int_equal(prog->ops[6].id, OP_MKDIR);
	assert_int_equal(prog->ops[7].id, DIR_WRITEPATTERN);
	assert_int_equal(prog->ops[7].num[0], WRITEPATTERN_TEXT);
	assert_int_equal(prog->ops[7].num[2], 20);
	assert_memory_equal(prog->pool + prog->ops[7].num[1], "Hello, world  again\n", 20);
	assert_int_equal(prog->ops[8].id, DIR_LOOP);
	assert_int_equal(strlen(prog->sha256), 64);
	program_free(prog);

	must_fail("ReadX 1 0 4096 NT_STATUS_OK\n",
		  "t.txt:1: ReadX takes 4 arguments and a status, got 3 arguments and a status");
	must_fail("OPEN \"\\a\" 1 2 3 NT_STATUS_OK\n",
		  "t.txt:1: OPEN takes 1 to 2 arguments and a status, got 4 arguments and a status");
}

static int64_t eval(const struct program *prog, uint32_t op, int i, struct numctx *ctx, int64_t *last)
{
	int64_t num[MAX_NUMS];

	numexpr_eval_all(prog, &prog->ops[op], ctx, last, num);
	return num[i];
}

static void test_numbers(void **state)
{
	struct program *prog = must_compile(
		"ReadX 1 * 4096 4096 *\n"
		"ReadX 1 */4096%1048576 4096 4096 *\n"
		"ReadX 1 *%100+25 4096 4096 *\n"
		"ReadX 1 child 4096 4096 *\n"
		"ReadX 1 num_children 4096 4096 *\n"
		"ReadX 1 +4096 4096 4096 *\n"
		"ReadX 1 +child 4096 4096 *\n"
		"ReadX 1 child+1%num_children 4096 4096 *\n"
		"ReadX 1 10-3 4096 4096 *\n"
		"ReadX 1 0x10 -5 4096 *\n");
	struct numctx ctx = { .child = 3, .nchildren = 4 };
	int64_t last[MAX_NUMS] = { 0 };

	(void)state;
	rng_seed(ctx.rng, 42, 1);
	for (int k = 0; k < 1000; k++) {
		int64_t v = eval(prog, 0, 1, &ctx, last);

		assert_true(v >= 0);
		v = eval(prog, 1, 1, &ctx, last);
		assert_true(v >= 0 && v < 1048576 && v % 4096 == 0);
		v = eval(prog, 2, 1, &ctx, last);
		assert_true(v >= 25 && v < 125);
	}
	assert_int_equal(eval(prog, 3, 1, &ctx, last), 3);
	assert_int_equal(eval(prog, 4, 1, &ctx, last), 4);
	/* relative: the field's previous value (4) plus 4096, then again */
	assert_int_equal(eval(prog, 5, 1, &ctx, last), 4100);
	assert_int_equal(eval(prog, 5, 1, &ctx, last), 8196);
	assert_int_equal(eval(prog, 6, 1, &ctx, last), 8199);
	assert_int_equal(eval(prog, 7, 1, &ctx, last), 0);	/* (3 + 1) % 4 */
	assert_int_equal(eval(prog, 8, 1, &ctx, last), 7);
	assert_int_equal(eval(prog, 9, 1, &ctx, last), 16);
	assert_int_equal(eval(prog, 9, 2, &ctx, last), -5);
	/* literal fields of an op with an expression keep their values */
	assert_int_equal(eval(prog, 0, 2, &ctx, last), 4096);
	assert_int_equal(eval(prog, 0, 0, &ctx, last), 1);
	program_free(prog);

	must_fail("ReadX 1 */0 1 1 *\n", "'/' needs a positive operand");
	must_fail("ReadX 1 *%-3 1 1 *\n", "bad number");
	must_fail("ReadX 1 *^3 1 1 *\n", "bad number");
	must_fail("ReadX 1 99999999999999999999999 1 1 *\n", "bad number");
}

static void test_random_reproducible(void **state)
{
	struct program *prog = must_compile("ReadX 1 * 1 1 *\n");
	struct numctx a = { 0 }, b = { 0 };
	int64_t la[MAX_NUMS] = { 0 }, lb[MAX_NUMS] = { 0 };

	(void)state;
	rng_seed(a.rng, 7, 3);
	rng_seed(b.rng, 7, 3);
	for (int i = 0; i < 100; i++)
		assert_int_equal(eval(prog, 0, 1, &a, la), eval(prog, 0, 1, &b, lb));
	rng_seed(b.rng, 8, 3);
	assert_int_not_equal(eval(prog, 0, 1, &a, la), eval(prog, 0, 1, &b, lb));
	program_free(prog);
}

static void test_handles_and_roots(void **state)
{
	struct program *prog = must_compile(
		"Deltree \"\\clients\\client1\" *\n"
		"Mkdir \"\\clients\" *\n"
		"Mkdir \"\\shared\" *\n"
		"NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 7 *\n"
		"NTCreateX \"\\clients\\client1\\g\" 0x40 0x2 99999 *\n"
		"Close 7 *\n"
		"OPEN \"\\clients\\client1\\h\" 0x0c *\n"
		"WRITE \"\\clients\\client1\\h\" 0 10 *\n"
		"CLOSE \"\\clients\\client1\\h\" *\n");

	(void)state;
	assert_int_equal(prog->nhandles, 3);
	assert_int_equal(prog->ops[3].handle, 0);
	assert_int_equal(prog->ops[4].handle, 1);
	assert_int_equal(prog->ops[5].handle, 0);
	assert_int_equal(prog->ops[6].handle, 2);
	assert_int_equal(prog->ops[7].handle, 2);
	assert_int_equal(prog->ops[8].handle, 2);
	assert_int_equal(prog->nclient_roots, 1);
	assert_int_equal(prog->nshared_roots, 2);
	assert_string_equal(prog->shared_roots[0], "clients");
	assert_string_equal(prog->shared_roots[1], "shared");
	assert_true(prog->client_root_deltreed & 1);
	assert_false(prog->shared_root_deltreed & 1);
	program_free(prog);
}

static bool has_shared_root(const struct program *prog, const char *name)
{
	for (uint32_t r = 0; r < prog->nshared_roots; r++)
		if (strcmp(prog->shared_roots[r], name) == 0)
			return true;
	return false;
}

/* A random first component (upstream's nfs_2.load): every name it can
 * make at the share root is a shared root, found and removed after the run. */
static void test_random_roots(void **state)
{
	struct program *prog = must_compile(
		"RANDOMSTRING 1 \"/test[0123456789][01234567890].file\"\n"
		"LOOP 5\n"
		"CREATE3 $1 *\n"
		"LOOKUP3 $1 0x00000000\n"
		"ENDLOOP\n"
		"RANDOMSTRING 2 \"d[ab]\"\n"
		"RANDOMSTRING 2 \"e\"\n"
		"NTCreateX \"\\x$2\\f$1\" 0x40 0x2 1 *\n"
		"RANDOMSTRING 3 \"../[xy]\"\n"
		"NTCreateX \"\\clients\\client1\\$3\" 0x40 0x2 2 *\n"
		"NTCreateX \"\\$3\\z\" 0x40 0x2 3 *\n");

	(void)state;
	/* test00.file .. test99.file, xda xdb xe x ("" not set yet), y z:
	 * "../x/z" normalizes to x/z, "../y/z" to y/z */
	assert_true(has_shared_root(prog, "test00.file"));
	assert_true(has_shared_root(prog, "test99.file"));
	assert_true(has_shared_root(prog, "test50.file"));
	assert_true(has_shared_root(prog, "xda"));
	assert_true(has_shared_root(prog, "xdb"));
	assert_true(has_shared_root(prog, "xe"));
	assert_true(has_shared_root(prog, "x"));
	assert_false(has_shared_root(prog, "xd"));
	/* a random string inside a client's tree stays in it */
	assert_true(has_shared_root(prog, "clients"));
	assert_int_equal(prog->nclient_roots, 1);
	assert_int_equal(prog->nshared_roots, 100 + 4 + 1 + 1);
	program_free(prog);
	/* the slot number 1 is not a client component (it was: "\2\1" was
	 * taken for a client root and nothing was cleaned up) */
	prog = must_compile("RANDOMSTRING 1 \"[ab]\"\nMkdir \"\\$1\" *\n");
	assert_int_equal(prog->nclient_roots, 0);
	assert_int_equal(prog->nshared_roots, 2);
	program_free(prog);
	/* too many names to look for: refused, naming the line */
	must_fail("RANDOMSTRING 1 \"[a-z][a-z][a-z][a-z]\"\nMkdir \"\\$1\" *\n",
		  "t.txt:2: path \"\\$1\": its first component is random and can take more than 65536 values");
	must_fail("RANDOMSTRING 1 \"[a-z][a-z][a-z]\"\nMkdir \"\\$1\" *\n",
		  "t.txt:2: path \"\\$1\": with the names its random first component can take, more than 4096 top-level names");
	/* under a directory, any number */
	prog = must_compile("RANDOMSTRING 1 \"[a-z][a-z][a-z][a-z][a-z]\"\nMkdir \"\\d\\$1\" *\n");
	assert_int_equal(prog->nshared_roots, 1);
	program_free(prog);
}

static void test_optional_args(void **state)
{
	struct program *prog = must_compile(
		"CREATE3 \"/clients/client1/f\" 0x00000000\n"
		"CREATE3 \"/clients/client1/f\" 1 0x00000000\n"
		"ACCESS3 \"/clients/client1\" 0 0 0x00000000\n"
		"FSINFO3 0x00000000\n"
		"Unlink \"\\a\" NT_STATUS_OK\n"
		"Unlink \"\\a\" 0x6 NT_STATUS_OK\n");

	(void)state;
	assert_int_equal(prog->ops[0].num[0], 0);
	assert_int_equal(prog->ops[1].num[0], 1);
	assert_int_equal(prog->ops[5].num[0], 6);
	program_free(prog);
	must_fail("CREATE3 \"/a\" 1 2 0x00000000\n", "CREATE3 takes 1 to 2 arguments");
}

static void test_pass_stats(void **state)
{
	struct program *prog = must_compile(
		"0.5 NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 1 *\n"
		"REPEAT 10\n"
		"WriteX 1 +4096 4096 4096 *\n"
		"ReadX 1 0 1000 1000 *\n"
		"2.5 Close 1 *\n");
	struct pass_stats ps;

	(void)state;
	one_pass(prog, 2, 1, &ps);
	assert_int_equal(ps.total_ops, 13);
	assert_int_equal(ps.bytes_written, 40960);
	assert_int_equal(ps.bytes_read, 1000);
	assert_int_equal(ps.paths, 1);
	assert_true(ps.duration_ns == 2500000000ULL);
	program_free(prog);
}

/* Fixed loop counts: the pass is counted, not walked, however long
 * (upstream's nfs_lock.load repeats a LOCK4 10,000,000 times); a random
 * count is walked, and a pass longer than the walk is said to be cut. */
static void test_pass_counted(void **state)
{
	struct program *prog = must_compile(
		"UNLOCK4 \"/foo\" 0 0 *\n"
		"LOOP 3\n"
		"REPEAT 20000000\n"
		"LOCK4 \"/foo\" +child 1 *\n"
		"READ3 \"/foo\" * 4096 *\n"
		"ENDLOOP\n"
		"LOOP 0\n"
		"WRITE3 \"/bar\" 0 4096 0 *\n"
		"ENDLOOP\n");
	struct options opt = { .progname = "test", .nclients = 2, .nprocs = 2,
			       .clients_per_process = 1, .seed = 1 };
	struct pass_stats ps;

	(void)state;
	pass_run(prog, &opt, PASS_MAX_STEPS, &ps);
	assert_true(ps.counted);
	assert_false(ps.truncated);
	assert_true(ps.ops[OP_LOCK4] == 60000000);
	assert_int_equal(ps.ops[OP_READ3], 3);
	assert_int_equal(ps.ops[OP_WRITE3], 0);
	assert_true(ps.total_ops == 60000004);
	assert_int_equal(ps.bytes_read, 3 * 4096);
	assert_int_equal(ps.bytes_written, 0);
	assert_int_equal(ps.paths, 1);	/* /bar never runs */
	opt.trunc_io = 1000;		/* --trunc-io cuts READ3 */
	pass_run(prog, &opt, PASS_MAX_STEPS, &ps);
	assert_int_equal(ps.bytes_read, 3 * 1000);
	program_free(prog);

	prog = must_compile("LOOP *%3+20000000\nMkdir \"\\a\" *\nENDLOOP\n");
	pass_run(prog, &opt, 1000, &ps);
	assert_false(ps.counted);
	assert_true(ps.truncated);
	program_free(prog);
}

/* Errors come in the order of their lines, also one found at the end. */
static void test_errors_in_line_order(void **state)
{
	char err[2048];

	(void)state;
	assert_null(compile("LOOP 2\nMkdir \"\\a\" *\nBogusOp 1\n", err, sizeof(err)));
	assert_string_equal(err, "t.txt:1: LOOP without ENDLOOP\nt.txt:3: unknown operation 'BogusOp'\n");
}

static void test_gzip_and_missing(void **state)
{
	char err[1024];
	FILE *f = fmemopen(err, sizeof(err), "w");
	char tmpl[] = "/tmp/dbench-test-XXXXXX";
	int fd = mkstemp(tmpl);
	char cmd[256];
	struct program *prog;

	(void)state;
	assert_true(fd >= 0);
	for (int i = 0; i < 300; i++)
		assert_int_equal(write(fd, "Mkdir \"\\a\" *\n", 13), 13);
	close(fd);
	snprintf(cmd, sizeof(cmd), "gzip -n -9 -f %s", tmpl);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s.gz", tmpl);
	prog = program_load(cmd, f);
	assert_non_null(prog);
	assert_int_equal(prog->nops, 300);
	program_free(prog);
	/* a truncated gzip file is an error, not a short program */
	snprintf(cmd, sizeof(cmd), "head -c 30 %s.gz > %s.cut.gz", tmpl, tmpl);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s.cut.gz", tmpl);
	assert_null(program_load(cmd, f));
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s.gz", tmpl);
	unlink(cmd);
	assert_null(program_load("/nonexistent/loadfile", f));
	fclose(f);
	assert_non_null(strstr(err, "truncated or corrupt"));
	assert_non_null(strstr(err, "/nonexistent/loadfile: cannot open loadfile"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classic_lines),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_path_safety),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_too_many_errors),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_zero_loop),
		cmocka_unit_test(test_directives),
		cmocka_unit_test(test_upstream_features),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_random_reproducible),
		cmocka_unit_test(test_handles_and_roots),
		cmocka_unit_test(test_random_roots),
		cmocka_unit_test(test_optional_args),
		cmocka_unit_test(test_pass_stats),
		cmocka_unit_test(test_pass_counted),
		cmocka_unit_test(test_errors_in_line_order),
		cmocka_unit_test(test_gzip_and_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
