/*
 * test_status.c - unit tests of status names, parsing, comparison and the
 * errno mappings.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "status.h"


static void parse_ok(const char *w, enum status_domain d, uint32_t code, int kind)
{
	struct expect e;

	assert_int_equal(status_parse(w, strlen(w), d, &e), 0);
	assert_int_equal(e.kind, kind);
	assert_int_equal(e.code, code);
}

static void test_parse(void **state)
{
	struct expect e;

	(void)state;
	parse_ok("NT_STATUS_OK", DOMAIN_NT, 0, EXPECT_EXACT);
	parse_ok("NT_STATUS_OBJECT_PATH_NOT_FOUND", DOMAIN_NT, 0xC000003A, EXPECT_EXACT);
	parse_ok("NT_STATUS_NO_MORE_FILES", DOMAIN_NT, 0x80000006, EXPECT_EXACT);
	parse_ok("0xc0000034", DOMAIN_NT, 0xC0000034, EXPECT_EXACT);
	parse_ok("0x00000002", DOMAIN_NFS, 2, EXPECT_EXACT);
	parse_ok("NFS3ERR_NOTEMPTY", DOMAIN_NFS, 66, EXPECT_EXACT);
	parse_ok("NLM4_DENIED", DOMAIN_NLM, 1, EXPECT_EXACT);
	parse_ok("*", DOMAIN_NT, 0, EXPECT_ANY);
	parse_ok("SUCCESS", DOMAIN_NFS, 0, EXPECT_SUCCESS);
	parse_ok("ERROR", DOMAIN_NT, 0, EXPECT_ERROR);
	assert_int_equal(status_parse("NFS3ERR_NOENT", 13, DOMAIN_NT, &e), -1);
	assert_int_equal(status_parse("0x1ffffffff", 11, DOMAIN_NT, &e), -1);
	assert_int_equal(status_parse("0x", 2, DOMAIN_NT, &e), -1);
	assert_int_equal(status_parse("12", 2, DOMAIN_NT, &e), -1);
	assert_int_equal(status_parse("NT_STATUS_OKAY", 14, DOMAIN_NT, &e), -1);
}

static void test_match(void **state)
{
	struct expect ok = { .kind = EXPECT_EXACT, .code = 0 };
	struct expect any = { .kind = EXPECT_ANY };
	struct expect succ = { .kind = EXPECT_SUCCESS };
	struct expect err = { .kind = EXPECT_ERROR };

	(void)state;
	assert_true(status_matches(&ok, DOMAIN_NT, NT_STATUS_OK));
	assert_false(status_matches(&ok, DOMAIN_NT, NT_STATUS_OBJECT_NAME_NOT_FOUND));
	assert_true(status_matches(&any, DOMAIN_NT, NT_STATUS_DISK_FULL));
	assert_true(status_matches(&succ, DOMAIN_NT, NT_STATUS_OK));
	/* warnings (0x8...) are not failures */
	assert_true(status_matches(&succ, DOMAIN_NT, NT_STATUS_NO_MORE_FILES));
	assert_false(status_matches(&succ, DOMAIN_NT, NT_STATUS_ACCESS_DENIED));
	assert_true(status_matches(&err, DOMAIN_NT, NT_STATUS_ACCESS_DENIED));
	assert_true(status_matches(&err, DOMAIN_NFS, NFS3ERR_NOENT));
	assert_false(status_matches(&err, DOMAIN_NFS, NFS3_OK));
}

static void test_names(void **state)
{
	char buf[16];
	struct expect e = { .kind = EXPECT_SUCCESS };

	(void)state;
	assert_string_equal(status_name(DOMAIN_NT, 0xC0000034, buf), "NT_STATUS_OBJECT_NAME_NOT_FOUND");
	assert_string_equal(status_name(DOMAIN_NFS, 2, buf), "NFS3ERR_NOENT");
	assert_string_equal(status_name(DOMAIN_NT, 0xC0DEF00D, buf), "0xc0def00d");
	assert_string_equal(expect_name(DOMAIN_NT, &e, buf), "SUCCESS");
}

static void test_errno(void **state)
{
	(void)state;
	assert_int_equal(nt_from_errno(0), NT_STATUS_OK);
	assert_int_equal(nt_from_errno(ENOENT), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(nt_from_errno(EEXIST), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(nt_from_errno(ENOTEMPTY), NT_STATUS_DIRECTORY_NOT_EMPTY);
	assert_int_equal(nt_from_errno(EISDIR), NT_STATUS_FILE_IS_A_DIRECTORY);
	assert_int_equal(nt_from_errno(ENOTDIR), NT_STATUS_NOT_A_DIRECTORY);
	assert_int_equal(nt_from_errno(EACCES), NT_STATUS_ACCESS_DENIED);
	assert_int_equal(nt_from_errno(ENOSPC), NT_STATUS_DISK_FULL);
	assert_int_equal(nt_from_errno(EBADF), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(nt_from_errno(EAGAIN), NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(nt_from_errno(ECONNRESET), NT_STATUS_CONNECTION_RESET);
	assert_int_equal(nt_from_errno(12345), NT_STATUS_UNSUCCESSFUL);
	assert_int_equal(nfs_from_errno(ENOENT), NFS3ERR_NOENT);
	assert_int_equal(nfs_from_errno(ENOTEMPTY), NFS3ERR_NOTEMPTY);
	assert_int_equal(nfs_from_errno(ESTALE), NFS3ERR_STALE);
	assert_int_equal(nt_from_nfs(NFS3ERR_NOENT), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(nt_from_nfs(NFS3ERR_EXIST), NT_STATUS_OBJECT_NAME_COLLISION);
	assert_int_equal(nt_from_nfs(NFS3_OK), NT_STATUS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
