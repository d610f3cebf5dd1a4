/*
 * scsi.h - SCSI commands as the scsi (SG_IO) and iscsi (libiscsi) backends
 * send them: the CDB of each loadfile op, built from its numbers, and the
 * status and sense data of the reply, folded into one 32-bit status that
 * the loadfile's expected status is compared with.  One copy for both
 * transports, tested byte by byte (tests/unit/test_scsi.c).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SCSI_H
#define DBENCH_SCSI_H

#include <stddef.h>
#include <stdint.h>

/* SCSI status bytes (SAM-5). */
#define SCSI_GOOD 0x00u
#define SCSI_CHECK_CONDITION 0x02u
#define SCSI_CONDITION_MET 0x04u
#define SCSI_BUSY 0x08u
#define SCSI_RESERVATION_CONFLICT 0x18u
#define SCSI_TASK_SET_FULL 0x28u
#define SCSI_ACA_ACTIVE 0x30u
#define SCSI_TASK_ABORTED 0x40u

/* Sense keys (SPC-4). */
#define SCSI_SENSE_NO_SENSE 0x0u
#define SCSI_SENSE_RECOVERED_ERROR 0x1u
#define SCSI_SENSE_NOT_READY 0x2u
#define SCSI_SENSE_MEDIUM_ERROR 0x3u
#define SCSI_SENSE_HARDWARE_ERROR 0x4u
#define SCSI_SENSE_ILLEGAL_REQUEST 0x5u
#define SCSI_SENSE_UNIT_ATTENTION 0x6u
#define SCSI_SENSE_DATA_PROTECT 0x7u
#define SCSI_SENSE_BLANK_CHECK 0x8u
#define SCSI_SENSE_VENDOR_SPECIFIC 0x9u
#define SCSI_SENSE_COPY_ABORTED 0xAu
#define SCSI_SENSE_ABORTED_COMMAND 0xBu
#define SCSI_SENSE_VOLUME_OVERFLOW 0xDu
#define SCSI_SENSE_MISCOMPARE 0xEu

/*
 * A status in the SCSI domain: bits 0-7 the status byte, bits 8-11 the
 * sense key, bits 16-31 the additional sense code and qualifier (ASC << 8
 * | ASCQ); the sense fields are 0 without sense data.  An expected status
 * also says how much of it the loadfile gave: SCSI_EXPECT_KEY when the
 * sense key was given, SCSI_EXPECT_ASC when ASC/ASCQ were too; the parts
 * not given match anything ("0x02" is any CHECK CONDITION).
 */
#define SCSI_CODE(status, key, ascq) \
	((uint32_t)(status) | ((uint32_t)(key) & 0xFu) << 8 | ((uint32_t)(ascq) & 0xFFFFu) << 16)
#define SCSI_CODE_STATUS(code) ((code) & 0xFFu)
#define SCSI_CODE_KEY(code) (((code) >> 8) & 0xFu)
#define SCSI_CODE_ASCQ(code) ((code) >> 16)
#define SCSI_EXPECT_KEY 0x1000u
#define SCSI_EXPECT_ASC 0x2000u

/* Does an actual status match an expected one given in parts? */
static inline int scsi_code_matches(uint32_t expected, uint32_t actual)
{
	uint32_t mask = 0xFFu;

	if (expected & SCSI_EXPECT_KEY)
		mask |= 0xF00u;
	if (expected & SCSI_EXPECT_ASC)
		mask |= 0xFFFF0F00u;
	return (expected & mask) == (actual & mask);
}

/* Fold a reply into a status: the status byte, and the sense key and
 * ASC/ASCQ decoded from the sense data (fixed or descriptor format) when
 * there are any. */
uint32_t scsi_code(uint8_t status, const uint8_t *sense, size_t sense_len);

/* Decode sense data: 0 with *key and *ascq set, -1 if it is not sense
 * data (unknown response code, too short). */
int scsi_sense_decode(const uint8_t *sense, size_t len, uint8_t *key, uint16_t *ascq);

enum scsi_dir {
	SCSI_DIR_NONE,
	SCSI_DIR_IN,		/* data from the device */
	SCSI_DIR_OUT,		/* data to the device */
};

#define SCSI_PROUT_PARAM_LEN 24	/* the basic PROUT parameter list */
#define SCSI_MAX_XFER (1u << 20) /* bytes a command moves at most */

/* The LUN the commands go to: its size, to keep LBAs inside it. */
struct scsi_lun {
	uint64_t blocks;	/* logical blocks (0: unknown, no wrapping) */
	uint32_t block_len;	/* bytes per block */
};

/* One command to send. */
struct scsi_cmd {
	uint8_t cdb[16];
	uint8_t cdb_len;
	uint8_t dir;		/* enum scsi_dir */
	uint32_t xfer_len;	/* bytes in or out */
	uint8_t param[SCSI_PROUT_PARAM_LEN]; /* data out of PROUT */
	uint64_t lba;		/* READ and WRITE: the blocks they move, */
	uint32_t nblocks;	/* as sent (0 for other commands) */
};

/*
 * Build the command of a loadfile op (an OP_* id of the SCSI domain) from
 * its evaluated numbers, as dbench-loadfile(5) describes them.  LBAs past
 * the end of the LUN wrap, and a transfer that would run past the end
 * moves back to end there, as dbench 5.0 does with loadfiles made for
 * larger LUNs; transfers are cut to SCSI_MAX_XFER.  Returns 0, or -1 for
 * an op that is no SCSI command.
 */
int scsi_encode(int op_id, const int64_t *num, const struct scsi_lun *lun, struct scsi_cmd *cmd);

/* The capacity from READ CAPACITY (10) data (8 bytes): 0, or -1 if it
 * makes no sense (a block length of 0). */
int scsi_decode_capacity10(const uint8_t *data, struct scsi_lun *lun);

#endif
