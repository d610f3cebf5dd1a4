/*
 * test_scsi.c - unit tests of the SCSI layer shared by the scsi and iscsi
 * backends: every op's CDB byte by byte, LBA wrapping at the end of the
 * LUN, sense decoding (fixed and descriptor formats), and SCSI statuses in
 * the loadfile (parsing, matching, names).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "op.h"
#include "backends/scsi.h"
#include "status.h"


/* A LUN of 1 GiB in 512-byte blocks. */
static const struct scsi_lun lun = { .blocks = 2097152, .block_len = 512 };

static void encode(int id, int64_t a, int64_t b, int64_t c, int64_t d, struct scsi_cmd *cmd)
{
	int64_t num[MAX_NUMS] = { a, b, c, d };

	assert_int_equal(scsi_encode(id, num, &lun, cmd), 0);
}

#define assert_cdb(cmd, ...)                                                         \
	do {                                                                         \
		static const uint8_t want[] = { __VA_ARGS__ };                       \
		assert_int_equal((cmd)->cdb_len, sizeof(want));                      \
		assert_memory_equal((cmd)->cdb, want, sizeof(want));                 \
	} while (0)

static void test_testunitready(void **state)
{
	struct scsi_cmd cmd;

	(void)state;
	encode(OP_TESTUNITREADY, 0, 0, 0, 0, &cmd);
	assert_cdb(&cmd, 0, 0, 0, 0, 0, 0);
	assert_int_equal(cmd.dir, SCSI_DIR_NONE);
	assert_int_equal(cmd.xfer_len, 0);
}

static void test_read6(void **state)
{
	struct scsi_cmd cmd;

	(void)state;
	encode(OP_READ6, 0x12345, 8, 0, 0, &cmd);
	assert_cdb(&cmd, 0x08, 0x01, 0x23, 0x45, 0x08, 0x00);
	assert_int_equal(cmd.dir, SCSI_DIR_IN);
	assert_int_equal(cmd.xfer_len, 8 * 512);
	/* 256 blocks are a length of 0; 0 means 256 too */
	encode(OP_READ6, 0, 256, 0, 0, &cmd);
	assert_cdb(&cmd, 0x08, 0, 0, 0, 0x00, 0);
	assert_int_equal(cmd.xfer_len, 256 * 512);
	encode(OP_READ6, 0, 0, 0, 0, &cmd);
	assert_int_equal(cmd.xfer_len, 256 * 512);
	/* 21 bits of LBA: larger ones wrap below 2^21 */
	encode(OP_READ6, 0x200001, 1, 0, 0, &cmd);
	assert_cdb(&cmd, 0x08, 0x00, 0x00, 0x01, 0x01, 0x00);
}

static void test_read10_write10(void **state)
{
	struct scsi_cmd cmd;

	(void)state;
	encode(OP_READ10, 0x00102030, 0x0102, 0x10, 0x25, &cmd);
	assert_cdb(&cmd, 0x28, 0x10, 0x00, 0x10, 0x20, 0x30, 0x05, 0x01, 0x02, 0x00);
	assert_int_equal(cmd.dir, SCSI_DIR_IN);
	assert_int_equal(cmd.xfer_len, 0x102 * 512);
	encode(OP_WRITE10, 5000, 1, 0x08, 0, &cmd);
	assert_cdb(&cmd, 0x2A, 0x08, 0x00, 0x00, 0x13, 0x88, 0x00, 0x00, 0x01, 0x00);
	assert_int_equal(cmd.dir, SCSI_DIR_OUT);
	assert_int_equal(cmd.xfer_len, 512);
	/* dbench 5.0's FUA bits 0x06 are FUA (0x04 -> 0x08) and FUA_NV */
	encode(OP_WRITE10, 5000, 1, 0x06, 0, &cmd);
	assert_int_equal(cmd.cdb[1], 0x0A);
	/* reserved bit 0x01 is never sent */
	encode(OP_READ10, 0, 1, 0xFF, 0, &cmd);
	assert_int_equal(cmd.cdb[1], 0xFA);
}

static void test_read16_write16(void **state)
{
	struct scsi_lun big = { .blocks = 1ull << 40, .block_len = 4096 };
	int64_t num[MAX_NUMS] = { 0x0102030405, 16, 0, 3 };
	struct scsi_cmd cmd;

	(void)state;
	assert_int_equal(scsi_encode(OP_READ16, num, &big, &cmd), 0);
	assert_cdb(&cmd, 0x88, 0x00, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0x05, 0, 0, 0, 16, 0x03, 0);
	assert_int_equal(cmd.xfer_len, 16 * 4096);
	num[2] = 0x10;
	assert_int_equal(scsi_encode(OP_WRITE16, num, &big, &cmd), 0);
	assert_cdb(&cmd, 0x8A, 0x10, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0x05, 0, 0, 0, 16, 0x03, 0);
	assert_int_equal(cmd.dir, SCSI_DIR_OUT);
}

static void test_wrap(void **state)
{
	struct scsi_cmd cmd;

	(void)state;
	/* past the end: the LBA wraps */
	encode(OP_READ10, 2097152 + 7, 1, 0, 0, &cmd);
	assert_cdb(&cmd, 0x28, 0, 0, 0, 0, 7, 0, 0, 1, 0);
	/* running over the end: moved back to end there */
	encode(OP_READ10, 2097150, 8, 0, 0, &cmd);
	assert_cdb(&cmd, 0x28, 0, 0x00, 0x1F, 0xFF, 0xF8, 0, 0, 8, 0);
	/* a random 63-bit LBA lands inside */
	encode(OP_READ16, INT64_MAX, 1, 0, 0, &cmd);
	assert_int_equal(cmd.cdb[9], (uint8_t)(INT64_MAX % 2097152));
	/* more than one command moves is cut to SCSI_MAX_XFER */
	encode(OP_READ10, 0, 0xFFFF, 0, 0, &cmd);
	assert_int_equal(cmd.xfer_len, SCSI_MAX_XFER);
	assert_int_equal(cmd.cdb[7] << 8 | cmd.cdb[8], SCSI_MAX_XFER / 512);
}

static void test_readcapacity_sync(void **state)
{
	static const uint8_t data[8] = { 0x00, 0x1F, 0xFF, 0xFF, 0x00, 0x00, 0x02, 0x00 };
	struct scsi_lun got;
	struct scsi_cmd cmd;

	(void)state;
	encode(OP_READCAPACITY10, 0x01020304, 1, 0, 0, &cmd);
	assert_cdb(&cmd, 0x25, 0, 0x01, 0x02, 0x03, 0x04, 0, 0, 0x01, 0);
	assert_int_equal(cmd.dir, SCSI_DIR_IN);
	assert_int_equal(cmd.xfer_len, 8);
	assert_int_equal(scsi_decode_capacity10(data, &got), 0);
	assert_int_equal(got.blocks, 0x200000);
	assert_int_equal(got.block_len, 512);
	assert_int_equal(scsi_decode_capacity10((const uint8_t[8]){ 0 }, &got), -1);

	encode(OP_SYNCHRONIZECACHE10, 0x1000, 0x20, 1, 1, &cmd);
	assert_cdb(&cmd, 0x35, 0x06, 0, 0, 0x10, 0x00, 0, 0x00, 0x20, 0);
	assert_int_equal(cmd.dir, SCSI_DIR_NONE);
	encode(OP_SYNCHRONIZECACHE10, 0, 0, 0, 0, &cmd);
	assert_cdb(&cmd, 0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

static void test_prout(void **state)
{
	static const uint8_t param[24] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF };
	static const uint8_t param2[24] = { 0, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF };
	struct scsi_cmd cmd;

	(void)state;
	/* REGISTER key 0xdeadbeef */
	encode(OP_PROUT, 0, 0, 0, 0xdeadbeef, &cmd);
	assert_cdb(&cmd, 0x5F, 0x00, 0x00, 0, 0, 0, 0, 0, 24, 0);
	assert_int_equal(cmd.dir, SCSI_DIR_OUT);
	assert_int_equal(cmd.xfer_len, 24);
	assert_memory_equal(cmd.param, param, 24);
	/* RESERVE, type 1 (write exclusive), with key 0xdeadbeef */
	encode(OP_PROUT, 1, 1, 0xdeadbeef, 0, &cmd);
	assert_cdb(&cmd, 0x5F, 0x01, 0x01, 0, 0, 0, 0, 0, 24, 0);
	assert_memory_equal(cmd.param, param2, 24);
	/* only the low bits of service action and type count */
	encode(OP_PROUT, 0x27, 0x13, 0, 0, &cmd);
	assert_int_equal(cmd.cdb[1], 0x07);
	assert_int_equal(cmd.cdb[2], 0x03);
}

static void test_not_scsi(void **state)
{
	int64_t num[MAX_NUMS] = { 0 };
	struct scsi_cmd cmd;

	(void)state;
	assert_int_equal(scsi_encode(OP_BLOCK_READ, num, &lun, &cmd), -1);
	assert_int_equal(scsi_encode(OP_NTCREATEX, num, &lun, &cmd), -1);
}

static void test_sense(void **state)
{
	/* fixed format: ILLEGAL REQUEST, LBA OUT OF RANGE (0x21/0x00) */
	static const uint8_t fixed[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0x00 };
	/* descriptor format: UNIT ATTENTION, POWER ON OR RESET (0x29/0x00) */
	static const uint8_t desc[8] = { 0x72, 0x06, 0x29, 0x00, 0, 0, 0, 0 };
	/* deferred fixed format, with a short additional part */
	static const uint8_t short_fixed[8] = { 0xF1, 0, 0x03, 0, 0, 0, 0, 0 };
	uint8_t key;
	uint16_t ascq;

	(void)state;
	assert_int_equal(scsi_sense_decode(fixed, sizeof(fixed), &key, &ascq), 0);
	assert_int_equal(key, 5);
	assert_int_equal(ascq, 0x2100);
	assert_int_equal(scsi_sense_decode(desc, sizeof(desc), &key, &ascq), 0);
	assert_int_equal(key, 6);
	assert_int_equal(ascq, 0x2900);
	assert_int_equal(scsi_sense_decode(short_fixed, sizeof(short_fixed), &key, &ascq), 0);
	assert_int_equal(key, 3);
	assert_int_equal(ascq, 0);
	assert_int_equal(scsi_sense_decode((const uint8_t[4]){ 0x00, 1, 2, 3 }, 4, &key, &ascq), -1);
	assert_int_equal(scsi_sense_decode(fixed, 1, &key, &ascq), -1);
	assert_int_equal(scsi_sense_decode(NULL, 0, &key, &ascq), -1);

	assert_int_equal(scsi_code(SCSI_CHECK_CONDITION, fixed, sizeof(fixed)), 0x21000502u);
	assert_int_equal(scsi_code(SCSI_GOOD, NULL, 0), 0);
	assert_int_equal(scsi_code(SCSI_RESERVATION_CONFLICT, NULL, 0), 0x18);
	/* sense data only counts with CHECK CONDITION */
	assert_int_equal(scsi_code(SCSI_BUSY, fixed, sizeof(fixed)), 0x08);
	assert_int_equal(scsi_code(SCSI_CHECK_CONDITION, NULL, 0), 0x02);
}

static void parse(const char *w, struct expect *e)
{
	assert_int_equal(status_parse(w, strlen(w), DOMAIN_SCSI, e), 0);
}

static void bad_status(const char *w)
{
	struct expect e;

	assert_int_equal(status_parse(w, strlen(w), DOMAIN_SCSI, &e), -1);
}

static void test_status(void **state)
{
	uint32_t lba_range = SCSI_CODE(SCSI_CHECK_CONDITION, SCSI_SENSE_ILLEGAL_REQUEST, 0x2100);
	uint32_t ua = SCSI_CODE(SCSI_CHECK_CONDITION, SCSI_SENSE_UNIT_ATTENTION, 0x2900);
	char buf[STATUS_NAME_SIZE];
	struct expect e;

	(void)state;
	/* dbench 5.0's loadfiles: the status byte in hex */
	parse("0x00", &e);
	assert_int_equal(e.kind, EXPECT_EXACT);
	assert_true(status_matches(&e, DOMAIN_SCSI, SCSI_GOOD));
	assert_false(status_matches(&e, DOMAIN_SCSI, SCSI_RESERVATION_CONFLICT));
	parse("0x18", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, SCSI_RESERVATION_CONFLICT));
	assert_string_equal(expect_name(DOMAIN_SCSI, &e, buf), "RESERVATION_CONFLICT");
	/* a status byte alone matches any sense */
	parse("CHECK_CONDITION", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, lba_range));
	assert_true(status_matches(&e, DOMAIN_SCSI, ua));
	assert_false(status_matches(&e, DOMAIN_SCSI, SCSI_GOOD));
	/* the key narrows it down */
	parse("CHECK_CONDITION/ILLEGAL_REQUEST", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, lba_range));
	assert_false(status_matches(&e, DOMAIN_SCSI, ua));
	assert_string_equal(expect_name(DOMAIN_SCSI, &e, buf), "CHECK_CONDITION/ILLEGAL_REQUEST");
	/* and ASC/ASCQ to one condition */
	parse("0x02/0x5/0x2100", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, lba_range));
	assert_false(status_matches(&e, DOMAIN_SCSI, SCSI_CODE(2, 5, 0x2400)));
	assert_string_equal(expect_name(DOMAIN_SCSI, &e, buf), "CHECK_CONDITION/ILLEGAL_REQUEST/0x2100");
	parse("CHECK_CONDITION/NO_SENSE/0x0000", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, SCSI_CHECK_CONDITION));
	assert_false(status_matches(&e, DOMAIN_SCSI, ua));
	/* generic words */
	parse("SUCCESS", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, SCSI_CONDITION_MET));
	assert_false(status_matches(&e, DOMAIN_SCSI, SCSI_BUSY));
	parse("ERROR", &e);
	assert_true(status_matches(&e, DOMAIN_SCSI, lba_range));
	parse("*", &e);
	assert_int_equal(e.kind, EXPECT_ANY);
	/* not SCSI statuses */
	bad_status("0x100");
	bad_status("NT_STATUS_OK");
	bad_status("GOOD/");
	bad_status("CHECK_CONDITION/0x10");
	bad_status("CHECK_CONDITION/ILLEGAL_REQUEST/0x10000");
	bad_status("CHECK_CONDITION/ILLEGAL_REQUEST/2100");
	bad_status("GOOD/NOT_READY/0x0400/x");
	/* names of actual statuses */
	assert_string_equal(status_name(DOMAIN_SCSI, SCSI_GOOD, buf), "GOOD");
	assert_string_equal(status_name(DOMAIN_SCSI, lba_range, buf), "CHECK_CONDITION/ILLEGAL_REQUEST/0x2100");
	assert_string_equal(status_name(DOMAIN_SCSI, SCSI_CODE(2, 6, 0), buf), "CHECK_CONDITION/UNIT_ATTENTION");
	assert_string_equal(status_name(DOMAIN_SCSI, 0x22, buf), "0x22");
	assert_string_equal(status_name(DOMAIN_SCSI, SCSI_CODE(2, 0xC, 0xFFFF), buf),
			    "CHECK_CONDITION/0xc/0xffff");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_testunitready),
		cmocka_unit_test(test_read6),
		cmocka_unit_test(test_read10_write10),
		cmocka_unit_test(test_read16_write16),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_readcapacity_sync),
		cmocka_unit_test(test_prout),
		cmocka_unit_test(test_not_scsi),
		cmocka_unit_test(test_sense),
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
