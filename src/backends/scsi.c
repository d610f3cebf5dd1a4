/*
 * scsi.c - CDBs of the loadfile's SCSI ops and the decoding of their
 * replies; see scsi.h.  Field layouts are SBC-3 / SPC-4's.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <string.h>

#include "op.h"
#include "scsi.h"

int scsi_sense_decode(const uint8_t *sense, size_t len, uint8_t *key, uint16_t *ascq)
{
	if (!sense || len < 2)
		return -1;
	switch (sense[0] & 0x7F) {
	case 0x70:		/* fixed format, current and deferred */
	case 0x71:
		if (len < 3)
			return -1;
		*key = sense[2] & 0x0F;
		*ascq = len >= 14 ? (uint16_t)(sense[12] << 8 | sense[13]) : 0;
		return 0;
	case 0x72:		/* descriptor format */
	case 0x73:
		if (len < 4)
			return -1;
		*key = sense[1] & 0x0F;
		*ascq = (uint16_t)(sense[2] << 8 | sense[3]);
		return 0;
	default:
		return -1;
	}
}

uint32_t scsi_code(uint8_t status, const uint8_t *sense, size_t sense_len)
{
	uint8_t key;
	uint16_t ascq;

	if (status == SCSI_CHECK_CONDITION && scsi_sense_decode(sense, sense_len, &key, &ascq) == 0)
		return SCSI_CODE(status, key, ascq);
	return status;
}

static void put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/*
 * Keep [lba, lba + *nblocks) inside the LUN and under max_lba (the CDB's
 * limit, exclusive): wrap the LBA, then move a transfer that would run
 * past the end back so that it ends there.  Lengths are cut to what the
 * LUN and one command hold.
 */
static uint64_t place(const struct scsi_lun *lun, uint64_t lba, uint32_t *nblocks, uint64_t max_lba)
{
	uint64_t end = max_lba;
	uint32_t max_blocks = SCSI_MAX_XFER / (lun->block_len ? lun->block_len : 512);

	if (lun->blocks && lun->blocks < end)
		end = lun->blocks;
	if (*nblocks > max_blocks)
		*nblocks = max_blocks;
	if (*nblocks > end)
		*nblocks = (uint32_t)end;
	if (lba >= end)
		lba %= end;
	if (lba + *nblocks > end)
		lba = end - *nblocks;
	return lba;
}

/* A length from the loadfile: negative is 0, huge is cut. */
static uint32_t length_arg(int64_t v)
{
	if (v < 0)
		return 0;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* READ/WRITE (10) and (16): byte 1 is the loadfile's flags (RDPROTECT or
 * WRPROTECT 0xe0, DPO 0x10, FUA 0x08, FUA_NV 0x02); dbench 5.0's WRITE
 * loadfiles asked for FUA with 0x04, a reserved bit, so 0x04 means FUA. */
static uint8_t rw_flags(int64_t v)
{
	uint8_t f = (uint8_t)v;

	if (f & 0x04)
		f = (uint8_t)((f & ~0x04) | 0x08);
	return f & 0xFA;
}

int scsi_encode(int op_id, const int64_t *num, const struct scsi_lun *lun, struct scsi_cmd *cmd)
{
	uint32_t block_len = lun->block_len ? lun->block_len : 512;
	uint32_t nblocks;
	uint64_t lba = (uint64_t)num[0];

	memset(cmd, 0, sizeof(*cmd));
	switch (op_id) {
	case OP_TESTUNITREADY:
		cmd->cdb_len = 6;	/* all zero: opcode 0x00 */
		return 0;
	case OP_READ6:
		/* a 21-bit LBA; a length of 0 in the CDB means 256 blocks */
		nblocks = length_arg(num[1]);
		if (nblocks == 0 || nblocks > 256)
			nblocks = 256;
		lba = place(lun, lba, &nblocks, 1u << 21);
		cmd->cdb[0] = 0x08;
		cmd->cdb[1] = (uint8_t)(lba >> 16) & 0x1F;
		put_be16(cmd->cdb + 2, (uint32_t)lba);
		cmd->cdb[4] = (uint8_t)nblocks;	/* 256 is 0 */
		cmd->cdb_len = 6;
		cmd->dir = SCSI_DIR_IN;
		cmd->xfer_len = nblocks * block_len;
		cmd->lba = lba;
		cmd->nblocks = nblocks;
		return 0;
	case OP_READ10:
	case OP_WRITE10:
		nblocks = length_arg(num[1]);
		if (nblocks > 0xFFFF)
			nblocks = 0xFFFF;
		lba = place(lun, lba, &nblocks, 1ull << 32);
		cmd->cdb[0] = op_id == OP_READ10 ? 0x28 : 0x2A;
		cmd->cdb[1] = rw_flags(num[2]);
		put_be32(cmd->cdb + 2, (uint32_t)lba);
		cmd->cdb[6] = (uint8_t)num[3] & 0x1F;
		put_be16(cmd->cdb + 7, nblocks);
		cmd->cdb_len = 10;
		cmd->dir = op_id == OP_READ10 ? SCSI_DIR_IN : SCSI_DIR_OUT;
		cmd->xfer_len = nblocks * block_len;
		cmd->lba = lba;
		cmd->nblocks = nblocks;
		return 0;
	case OP_READ16:
	case OP_WRITE16:
		nblocks = length_arg(num[1]);
		lba = place(lun, lba, &nblocks, UINT64_MAX);
		cmd->cdb[0] = op_id == OP_READ16 ? 0x88 : 0x8A;
		cmd->cdb[1] = rw_flags(num[2]);
		put_be64(cmd->cdb + 2, lba);
		put_be32(cmd->cdb + 10, nblocks);
		cmd->cdb[14] = (uint8_t)num[3] & 0x1F;
		cmd->cdb_len = 16;
		cmd->dir = op_id == OP_READ16 ? SCSI_DIR_IN : SCSI_DIR_OUT;
		cmd->xfer_len = nblocks * block_len;
		cmd->lba = lba;
		cmd->nblocks = nblocks;
		return 0;
	case OP_READCAPACITY10:
		cmd->cdb[0] = 0x25;
		put_be32(cmd->cdb + 2, (uint32_t)lba);
		cmd->cdb[8] = num[1] ? 1 : 0;	/* PMI */
		cmd->cdb_len = 10;
		cmd->dir = SCSI_DIR_IN;
		cmd->xfer_len = 8;
		return 0;
	case OP_SYNCHRONIZECACHE10:
		/* lba, blocks (0: to the end), SYNC_NV, IMMED */
		cmd->cdb[0] = 0x35;
		cmd->cdb[1] = (uint8_t)((num[2] ? 0x04 : 0) | (num[3] ? 0x02 : 0));
		put_be32(cmd->cdb + 2, (uint32_t)lba);
		put_be16(cmd->cdb + 7, length_arg(num[1]) > 0xFFFF ? 0xFFFF : length_arg(num[1]));
		cmd->cdb_len = 10;
		return 0;
	case OP_PROUT:
		/* service action, type, reservation key, service action
		 * reservation key; scope: the logical unit */
		cmd->cdb[0] = 0x5F;
		cmd->cdb[1] = (uint8_t)num[0] & 0x1F;
		cmd->cdb[2] = (uint8_t)num[1] & 0x0F;
		put_be32(cmd->cdb + 5, SCSI_PROUT_PARAM_LEN);
		cmd->cdb_len = 10;
		cmd->dir = SCSI_DIR_OUT;
		cmd->xfer_len = SCSI_PROUT_PARAM_LEN;
		put_be64(cmd->param, (uint64_t)num[2]);
		put_be64(cmd->param + 8, (uint64_t)num[3]);
		return 0;
	default:
		return -1;
	}
}

int scsi_decode_capacity10(const uint8_t *data, struct scsi_lun *lun)
{
	uint32_t last = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
	uint32_t len = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 | data[7];

	if (len == 0)
		return -1;
	lun->blocks = (uint64_t)last + 1;
	lun->block_len = len;
	return 0;
}
