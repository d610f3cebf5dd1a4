/*
 * status.h - status names and codes: NT_STATUS_* for the netbench ops,
 * nfsstat3 for NFSv3 ops, nlm4_stats for NLM locks; parsing an expected
 * status from a loadfile, comparing, and mapping errno values.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_STATUS_H
#define DBENCH_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op.h"
#include "backends/scsi.h"

#define NT_STATUS_OK 0x00000000u
#define NT_STATUS_UNSUCCESSFUL 0xC0000001u
#define NT_STATUS_NOT_IMPLEMENTED 0xC0000002u
#define NT_STATUS_INVALID_INFO_CLASS 0xC0000003u
#define NT_STATUS_INVALID_HANDLE 0xC0000008u
#define NT_STATUS_INVALID_PARAMETER 0xC000000Du
#define NT_STATUS_NO_SUCH_FILE 0xC000000Fu
#define NT_STATUS_INVALID_DEVICE_REQUEST 0xC0000010u
#define NT_STATUS_END_OF_FILE 0xC0000011u
#define NT_STATUS_NO_MEMORY 0xC0000017u
#define NT_STATUS_ACCESS_DENIED 0xC0000022u
#define NT_STATUS_OBJECT_NAME_INVALID 0xC0000033u
#define NT_STATUS_OBJECT_NAME_NOT_FOUND 0xC0000034u
#define NT_STATUS_OBJECT_NAME_COLLISION 0xC0000035u
#define NT_STATUS_OBJECT_PATH_INVALID 0xC0000039u
#define NT_STATUS_OBJECT_PATH_NOT_FOUND 0xC000003Au
#define NT_STATUS_SHARING_VIOLATION 0xC0000043u
#define NT_STATUS_QUOTA_EXCEEDED 0xC0000044u
#define NT_STATUS_EAS_NOT_SUPPORTED 0xC000004Fu
#define NT_STATUS_FILE_LOCK_CONFLICT 0xC0000054u
#define NT_STATUS_LOCK_NOT_GRANTED 0xC0000055u
#define NT_STATUS_DELETE_PENDING 0xC0000056u
#define NT_STATUS_LOGON_FAILURE 0xC000006Du
#define NT_STATUS_RANGE_NOT_LOCKED 0xC000007Eu
#define NT_STATUS_DISK_FULL 0xC000007Fu
#define NT_STATUS_FILE_INVALID 0xC0000098u
#define NT_STATUS_MEDIA_WRITE_PROTECTED 0xC00000A2u
#define NT_STATUS_IO_TIMEOUT 0xC00000B5u
#define NT_STATUS_FILE_IS_A_DIRECTORY 0xC00000BAu
#define NT_STATUS_NOT_SUPPORTED 0xC00000BBu
#define NT_STATUS_BAD_NETWORK_NAME 0xC00000CCu
#define NT_STATUS_NOT_SAME_DEVICE 0xC00000D4u
#define NT_STATUS_DIRECTORY_NOT_EMPTY 0xC0000101u
#define NT_STATUS_FILE_CORRUPT_ERROR 0xC0000102u
#define NT_STATUS_NOT_A_DIRECTORY 0xC0000103u
#define NT_STATUS_NAME_TOO_LONG 0xC0000106u
#define NT_STATUS_TOO_MANY_OPENED_FILES 0xC000011Fu
#define NT_STATUS_CANNOT_DELETE 0xC0000121u
#define NT_STATUS_FILE_CLOSED 0xC0000128u
#define NT_STATUS_IO_DEVICE_ERROR 0xC0000185u
#define NT_STATUS_INVALID_LOCK_RANGE 0xC00001A1u
#define NT_STATUS_CONNECTION_DISCONNECTED 0xC000020Cu
#define NT_STATUS_CONNECTION_RESET 0xC000020Du
#define NT_STATUS_CONNECTION_REFUSED 0xC0000236u
#define NT_STATUS_TOO_MANY_LINKS 0xC0000265u
#define NT_STATUS_FILE_TOO_LARGE 0xC0000904u
#define NT_STATUS_NO_MORE_FILES 0x80000006u

#define NFS3_OK 0u
#define NFS3ERR_PERM 1u
#define NFS3ERR_NOENT 2u
#define NFS3ERR_IO 5u
#define NFS3ERR_NXIO 6u
#define NFS3ERR_ACCES 13u
#define NFS3ERR_EXIST 17u
#define NFS3ERR_XDEV 18u
#define NFS3ERR_NODEV 19u
#define NFS3ERR_NOTDIR 20u
#define NFS3ERR_ISDIR 21u
#define NFS3ERR_INVAL 22u
#define NFS3ERR_FBIG 27u
#define NFS3ERR_NOSPC 28u
#define NFS3ERR_ROFS 30u
#define NFS3ERR_MLINK 31u
#define NFS3ERR_NAMETOOLONG 63u
#define NFS3ERR_NOTEMPTY 66u
#define NFS3ERR_DQUOT 69u
#define NFS3ERR_STALE 70u
#define NFS3ERR_REMOTE 71u
#define NFS3ERR_BADHANDLE 10001u
#define NFS3ERR_NOT_SYNC 10002u
#define NFS3ERR_BAD_COOKIE 10003u
#define NFS3ERR_NOTSUPP 10004u
#define NFS3ERR_TOOSMALL 10005u
#define NFS3ERR_SERVERFAULT 10006u
#define NFS3ERR_BADTYPE 10007u
#define NFS3ERR_JUKEBOX 10008u

#define NLM4_GRANTED 0u
#define NLM4_DENIED 1u
#define NLM4_DENIED_NOLOCKS 2u
#define NLM4_BLOCKED 3u
#define NLM4_DENIED_GRACE_PERIOD 4u
#define NLM4_DEADLCK 5u
#define NLM4_ROFS 6u
#define NLM4_STALE_FH 7u
#define NLM4_FBIG 8u
#define NLM4_FAILED 9u

/* Parse an expected status word (a name, 0x hex, SUCCESS, ERROR or *; in
 * the SCSI domain STATUS[/KEY[/0xASCQ]], see scsi.h).
 * Returns 0, or -1 if the word is not a status of that domain. */
int status_parse(const char *word, size_t len, enum status_domain domain, struct expect *e);

/* Does the actual status satisfy the expectation? */
static inline bool status_is_success(enum status_domain domain, uint32_t code)
{
	if (domain == DOMAIN_NT)
		return (code & 0xC0000000u) != 0xC0000000u;
	if (domain == DOMAIN_SCSI)	/* GOOD or CONDITION MET */
		return code == 0 || code == 0x04;
	return code == 0;
}

static inline bool status_matches(const struct expect *e, enum status_domain domain, uint32_t code)
{
	switch (e->kind) {
	case EXPECT_EXACT:
		if (domain == DOMAIN_SCSI)
			return scsi_code_matches(e->code, code);
		return code == e->code;
	case EXPECT_ANY:
		return true;
	case EXPECT_SUCCESS:
		return status_is_success(domain, code);
	default:
		return !status_is_success(domain, code);
	}
}

/* The name of a status ("NT_STATUS_OK", "NFS3ERR_NOENT",
 * "CHECK_CONDITION/ILLEGAL_REQUEST/0x2400"), or its hex value in buf when
 * it has no name.  buf must hold STATUS_NAME_SIZE bytes (16 do outside the
 * SCSI domain). */
#define STATUS_NAME_SIZE 48
const char *status_name(enum status_domain domain, uint32_t code, char *buf);

/* The text of an expectation ("NT_STATUS_OK", "SUCCESS", "*"). */
const char *expect_name(enum status_domain domain, const struct expect *e, char *buf);

/* Map an errno value to the nearest status of the domain. */
uint32_t nt_from_errno(int err);
uint32_t nfs_from_errno(int err);
/* nfsstat3 -> NT status, for netbench ops over NFS. */
uint32_t nt_from_nfs(uint32_t nfsstat);

#endif
