/*
 * status.c - status names, parsing and errno mapping; see status.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "status.h"
#include "util.h"

struct status_name {
	const char *name;
	uint32_t code;
};

#define S(x) { #x, x }
static const struct status_name nt_names[] = {
	S(NT_STATUS_OK),
	S(NT_STATUS_UNSUCCESSFUL),
	S(NT_STATUS_NOT_IMPLEMENTED),
	S(NT_STATUS_INVALID_INFO_CLASS),
	S(NT_STATUS_INVALID_HANDLE),
	S(NT_STATUS_INVALID_PARAMETER),
	S(NT_STATUS_NO_SUCH_FILE),
	S(NT_STATUS_INVALID_DEVICE_REQUEST),
	S(NT_STATUS_END_OF_FILE),
	S(NT_STATUS_NO_MEMORY),
	S(NT_STATUS_ACCESS_DENIED),
	S(NT_STATUS_OBJECT_NAME_INVALID),
	S(NT_STATUS_OBJECT_NAME_NOT_FOUND),
	S(NT_STATUS_OBJECT_NAME_COLLISION),
	S(NT_STATUS_OBJECT_PATH_INVALID),
	S(NT_STATUS_OBJECT_PATH_NOT_FOUND),
	S(NT_STATUS_SHARING_VIOLATION),
	S(NT_STATUS_QUOTA_EXCEEDED),
	S(NT_STATUS_EAS_NOT_SUPPORTED),
	S(NT_STATUS_FILE_LOCK_CONFLICT),
	S(NT_STATUS_LOCK_NOT_GRANTED),
	S(NT_STATUS_DELETE_PENDING),
	S(NT_STATUS_LOGON_FAILURE),
	S(NT_STATUS_RANGE_NOT_LOCKED),
	S(NT_STATUS_DISK_FULL),
	S(NT_STATUS_FILE_INVALID),
	S(NT_STATUS_MEDIA_WRITE_PROTECTED),
	S(NT_STATUS_IO_TIMEOUT),
	S(NT_STATUS_FILE_IS_A_DIRECTORY),
	S(NT_STATUS_NOT_SUPPORTED),
	S(NT_STATUS_BAD_NETWORK_NAME),
	S(NT_STATUS_NOT_SAME_DEVICE),
	S(NT_STATUS_DIRECTORY_NOT_EMPTY),
	S(NT_STATUS_FILE_CORRUPT_ERROR),
	S(NT_STATUS_NOT_A_DIRECTORY),
	S(NT_STATUS_NAME_TOO_LONG),
	S(NT_STATUS_TOO_MANY_OPENED_FILES),
	S(NT_STATUS_CANNOT_DELETE),
	S(NT_STATUS_FILE_CLOSED),
	S(NT_STATUS_IO_DEVICE_ERROR),
	S(NT_STATUS_INVALID_LOCK_RANGE),
	S(NT_STATUS_CONNECTION_DISCONNECTED),
	S(NT_STATUS_CONNECTION_RESET),
	S(NT_STATUS_CONNECTION_REFUSED),
	S(NT_STATUS_TOO_MANY_LINKS),
	S(NT_STATUS_FILE_TOO_LARGE),
	S(NT_STATUS_NO_MORE_FILES),
};

static const struct status_name nfs_names[] = {
	S(NFS3_OK),
	S(NFS3ERR_PERM),
	S(NFS3ERR_NOENT),
	S(NFS3ERR_IO),
	S(NFS3ERR_NXIO),
	S(NFS3ERR_ACCES),
	S(NFS3ERR_EXIST),
	S(NFS3ERR_XDEV),
	S(NFS3ERR_NODEV),
	S(NFS3ERR_NOTDIR),
	S(NFS3ERR_ISDIR),
	S(NFS3ERR_INVAL),
	S(NFS3ERR_FBIG),
	S(NFS3ERR_NOSPC),
	S(NFS3ERR_ROFS),
	S(NFS3ERR_MLINK),
	S(NFS3ERR_NAMETOOLONG),
	S(NFS3ERR_NOTEMPTY),
	S(NFS3ERR_DQUOT),
	S(NFS3ERR_STALE),
	S(NFS3ERR_REMOTE),
	S(NFS3ERR_BADHANDLE),
	S(NFS3ERR_NOT_SYNC),
	S(NFS3ERR_BAD_COOKIE),
	S(NFS3ERR_NOTSUPP),
	S(NFS3ERR_TOOSMALL),
	S(NFS3ERR_SERVERFAULT),
	S(NFS3ERR_BADTYPE),
	S(NFS3ERR_JUKEBOX),
};

static const struct status_name nlm_names[] = {
	S(NLM4_GRANTED),
	S(NLM4_DENIED),
	S(NLM4_DENIED_NOLOCKS),
	S(NLM4_BLOCKED),
	S(NLM4_DENIED_GRACE_PERIOD),
	S(NLM4_DEADLCK),
	S(NLM4_ROFS),
	S(NLM4_STALE_FH),
	S(NLM4_FBIG),
	S(NLM4_FAILED),
};

/* SCSI status bytes and sense keys, without their SCSI_ / SCSI_SENSE_
 * prefixes: "CHECK_CONDITION/ILLEGAL_REQUEST". */
#define T(prefix, x) { #x, prefix##x }
static const struct status_name scsi_names[] = {
	T(SCSI_, GOOD),
	T(SCSI_, CHECK_CONDITION),
	T(SCSI_, CONDITION_MET),
	T(SCSI_, BUSY),
	T(SCSI_, RESERVATION_CONFLICT),
	T(SCSI_, TASK_SET_FULL),
	T(SCSI_, ACA_ACTIVE),
	T(SCSI_, TASK_ABORTED),
};

static const struct status_name sense_key_names[] = {
	T(SCSI_SENSE_, NO_SENSE),
	T(SCSI_SENSE_, RECOVERED_ERROR),
	T(SCSI_SENSE_, NOT_READY),
	T(SCSI_SENSE_, MEDIUM_ERROR),
	T(SCSI_SENSE_, HARDWARE_ERROR),
	T(SCSI_SENSE_, ILLEGAL_REQUEST),
	T(SCSI_SENSE_, UNIT_ATTENTION),
	T(SCSI_SENSE_, DATA_PROTECT),
	T(SCSI_SENSE_, BLANK_CHECK),
	T(SCSI_SENSE_, VENDOR_SPECIFIC),
	T(SCSI_SENSE_, COPY_ABORTED),
	T(SCSI_SENSE_, ABORTED_COMMAND),
	T(SCSI_SENSE_, VOLUME_OVERFLOW),
	T(SCSI_SENSE_, MISCOMPARE),
};
#undef T
#undef S

static const struct status_name *domain_table(enum status_domain domain, size_t *n)
{
	switch (domain) {
	case DOMAIN_NFS:
		*n = ARRAY_SIZE(nfs_names);
		return nfs_names;
	case DOMAIN_NLM:
		*n = ARRAY_SIZE(nlm_names);
		return nlm_names;
	case DOMAIN_SCSI:
		*n = ARRAY_SIZE(scsi_names);
		return scsi_names;
	default:
		*n = ARRAY_SIZE(nt_names);
		return nt_names;
	}
}

/* Is word[0..len) the NUL-terminated s?  (No strlen: once per loadfile
 * line and table entry, and most names differ early.) */
static bool word_is(const char *word, size_t len, const char *s)
{
	return len > 0 && s[0] == word[0] && strncmp(s, word, len) == 0 && s[len] == '\0';
}

/* 0x followed by 1 to 16 hex digits; -1 otherwise. */
static int parse_hex(const char *word, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len <= 2 || len > 18 || word[0] != '0' || (word[1] != 'x' && word[1] != 'X'))
		return -1;
	for (size_t i = 2; i < len; i++) {
		char c = word[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* A name of the table or 0x hex up to max. */
static int parse_part(const char *word, size_t len, const struct status_name *table, size_t n,
		      uint64_t max, uint32_t *out)
{
	uint64_t v;

	if (parse_hex(word, len, &v) == 0) {
		if (v > max)
			return -1;
		*out = (uint32_t)v;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (word_is(word, len, table[i].name)) {
			*out = table[i].code;
			return 0;
		}
	}
	return -1;
}

/* STATUS[/KEY[/0xASCQ]]: dbench 5.0's loadfiles give the status byte in
 * hex ("0x00", "0x18"); the sense key and ASC/ASCQ narrow a CHECK
 * CONDITION down. */
static int scsi_parse(const char *word, size_t len, struct expect *e)
{
	const char *end = word + len, *p = word, *q;
	uint32_t status, key, ascq;

	q = memchr(p, '/', len);
	if (!q)
		q = end;
	if (parse_part(p, (size_t)(q - p), scsi_names, ARRAY_SIZE(scsi_names), 0xFF, &status) < 0)
		return -1;
	e->code = status;
	if (q == end)
		return 0;
	p = q + 1;
	q = memchr(p, '/', (size_t)(end - p));
	if (!q)
		q = end;
	if (parse_part(p, (size_t)(q - p), sense_key_names, ARRAY_SIZE(sense_key_names), 0xF, &key) < 0)
		return -1;
	e->code = SCSI_CODE(status, key, 0) | SCSI_EXPECT_KEY;
	if (q == end)
		return 0;
	p = q + 1;
	if (parse_part(p, (size_t)(end - p), NULL, 0, 0xFFFF, &ascq) < 0)
		return -1;
	e->code = SCSI_CODE(status, key, ascq) | SCSI_EXPECT_KEY | SCSI_EXPECT_ASC;
	return 0;
}

int status_parse(const char *word, size_t len, enum status_domain domain, struct expect *e)
{
	size_t n;
	const struct status_name *table = domain_table(domain, &n);

	e->code = 0;
	if (word_is(word, len, "*")) {
		e->kind = EXPECT_ANY;
		return 0;
	}
	if (word_is(word, len, "SUCCESS")) {
		e->kind = EXPECT_SUCCESS;
		return 0;
	}
	if (word_is(word, len, "ERROR")) {
		e->kind = EXPECT_ERROR;
		return 0;
	}
	e->kind = EXPECT_EXACT;
	if (domain == DOMAIN_SCSI)
		return scsi_parse(word, len, e);
	if (len > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) {
		uint64_t v;

		if (parse_hex(word, len, &v) < 0 || v > UINT32_MAX)
			return -1;
		e->code = (uint32_t)v;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (word_is(word, len, table[i].name)) {
			e->code = table[i].code;
			return 0;
		}
	}
	return -1;
}

static const char *table_name(const struct status_name *table, size_t n, uint32_t code)
{
	for (size_t i = 0; i < n; i++)
		if (table[i].code == code)
			return table[i].name;
	return NULL;
}

/* STATUS[/KEY[/0xASCQ]], as much as the code holds (an expected code: as
 * much as was given). */
static const char *scsi_name(uint32_t code, bool expected, char *buf)
{
	const char *st = table_name(scsi_names, ARRAY_SIZE(scsi_names), SCSI_CODE_STATUS(code));
	const char *key = table_name(sense_key_names, ARRAY_SIZE(sense_key_names), SCSI_CODE_KEY(code));
	bool has_key = expected ? (code & SCSI_EXPECT_KEY) != 0 : (code & 0xFFFF0F00u) != 0;
	bool has_ascq = expected ? (code & SCSI_EXPECT_ASC) != 0 : SCSI_CODE_ASCQ(code) != 0;
	char stbuf[8], keybuf[8];
	int n;

	if (!st) {
		snprintf(stbuf, sizeof(stbuf), "0x%02x", SCSI_CODE_STATUS(code));
		st = stbuf;
	}
	if (!has_key && !has_ascq && st != stbuf)
		return st;
	if (!key) {
		snprintf(keybuf, sizeof(keybuf), "0x%x", SCSI_CODE_KEY(code));
		key = keybuf;
	}
	if (!has_key && !has_ascq)
		n = snprintf(buf, STATUS_NAME_SIZE, "%s", st);
	else if (!has_ascq)
		n = snprintf(buf, STATUS_NAME_SIZE, "%s/%s", st, key);
	else
		n = snprintf(buf, STATUS_NAME_SIZE, "%s/%s/0x%04x", st, key, SCSI_CODE_ASCQ(code));
	(void)n;
	return buf;
}

const char *status_name(enum status_domain domain, uint32_t code, char *buf)
{
	size_t n;
	const struct status_name *table = domain_table(domain, &n);

	if (domain == DOMAIN_SCSI)
		return scsi_name(code, false, buf);
	for (size_t i = 0; i < n; i++)
		if (table[i].code == code)
			return table[i].name;
	snprintf(buf, 16, "0x%08x", code);
	return buf;
}

const char *expect_name(enum status_domain domain, const struct expect *e, char *buf)
{
	switch (e->kind) {
	case EXPECT_ANY:
		return "*";
	case EXPECT_SUCCESS:
		return "SUCCESS";
	case EXPECT_ERROR:
		return "ERROR";
	default:
		if (domain == DOMAIN_SCSI)
			return scsi_name(e->code, true, buf);
		return status_name(domain, e->code, buf);
	}
}

uint32_t nt_from_errno(int err)
{
	switch (err) {
	case 0:
		return NT_STATUS_OK;
	case ENOENT:
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	case EEXIST:
		return NT_STATUS_OBJECT_NAME_COLLISION;
	case EACCES:
	case EPERM:
	case ELOOP:
		return NT_STATUS_ACCESS_DENIED;
	case ENOTDIR:
		return NT_STATUS_NOT_A_DIRECTORY;
	case EISDIR:
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	case ENOTEMPTY:
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	case ENOSPC:
	case EDQUOT:
		return NT_STATUS_DISK_FULL;
	case EBADF:
		return NT_STATUS_INVALID_HANDLE;
	case ENAMETOOLONG:
		return NT_STATUS_NAME_TOO_LONG;
	case EROFS:
		return NT_STATUS_MEDIA_WRITE_PROTECTED;
	case EMFILE:
	case ENFILE:
		return NT_STATUS_TOO_MANY_OPENED_FILES;
	case EXDEV:
		return NT_STATUS_NOT_SAME_DEVICE;
	case EFBIG:
		return NT_STATUS_FILE_TOO_LARGE;
	case EMLINK:
		return NT_STATUS_TOO_MANY_LINKS;
	case EINVAL:
		return NT_STATUS_INVALID_PARAMETER;
	case ENOTSUP:
		return NT_STATUS_NOT_SUPPORTED;
	case ENOMEM:
		return NT_STATUS_NO_MEMORY;
	case EIO:
		return NT_STATUS_IO_DEVICE_ERROR;
	case EAGAIN:
		return NT_STATUS_LOCK_NOT_GRANTED;
	case ETIMEDOUT:
		return NT_STATUS_IO_TIMEOUT;
	case ECONNREFUSED:
		return NT_STATUS_CONNECTION_REFUSED;
	case ECONNRESET:
		return NT_STATUS_CONNECTION_RESET;
	case EPIPE:
	case ENOTCONN:
		return NT_STATUS_CONNECTION_DISCONNECTED;
	case EBUSY:
	case ETXTBSY:
		return NT_STATUS_SHARING_VIOLATION;
	default:
		return NT_STATUS_UNSUCCESSFUL;
	}
}

uint32_t nfs_from_errno(int err)
{
	switch (err) {
	case 0:
		return NFS3_OK;
	case EPERM:
		return NFS3ERR_PERM;
	case ENOENT:
		return NFS3ERR_NOENT;
	case EIO:
		return NFS3ERR_IO;
	case ENXIO:
		return NFS3ERR_NXIO;
	case EACCES:
		return NFS3ERR_ACCES;
	case EEXIST:
		return NFS3ERR_EXIST;
	case EXDEV:
		return NFS3ERR_XDEV;
	case ENODEV:
		return NFS3ERR_NODEV;
	case ENOTDIR:
		return NFS3ERR_NOTDIR;
	case EISDIR:
		return NFS3ERR_ISDIR;
	case EINVAL:
		return NFS3ERR_INVAL;
	case EFBIG:
		return NFS3ERR_FBIG;
	case ENOSPC:
		return NFS3ERR_NOSPC;
	case EROFS:
		return NFS3ERR_ROFS;
	case EMLINK:
		return NFS3ERR_MLINK;
	case ENAMETOOLONG:
		return NFS3ERR_NAMETOOLONG;
	case ENOTEMPTY:
		return NFS3ERR_NOTEMPTY;
	case EDQUOT:
		return NFS3ERR_DQUOT;
	case ESTALE:
		return NFS3ERR_STALE;
	case ENOTSUP:
		return NFS3ERR_NOTSUPP;
	default:
		return NFS3ERR_SERVERFAULT;
	}
}

uint32_t nt_from_nfs(uint32_t nfsstat)
{
	switch (nfsstat) {
	case NFS3_OK:
		return NT_STATUS_OK;
	case NFS3ERR_PERM:
	case NFS3ERR_ACCES:
		return NT_STATUS_ACCESS_DENIED;
	case NFS3ERR_NOENT:
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	case NFS3ERR_EXIST:
		return NT_STATUS_OBJECT_NAME_COLLISION;
	case NFS3ERR_NOTDIR:
		return NT_STATUS_NOT_A_DIRECTORY;
	case NFS3ERR_ISDIR:
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	case NFS3ERR_NOTEMPTY:
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	case NFS3ERR_NOSPC:
	case NFS3ERR_DQUOT:
		return NT_STATUS_DISK_FULL;
	case NFS3ERR_ROFS:
		return NT_STATUS_MEDIA_WRITE_PROTECTED;
	case NFS3ERR_NAMETOOLONG:
		return NT_STATUS_NAME_TOO_LONG;
	case NFS3ERR_FBIG:
		return NT_STATUS_FILE_TOO_LARGE;
	case NFS3ERR_INVAL:
		return NT_STATUS_INVALID_PARAMETER;
	case NFS3ERR_STALE:
	case NFS3ERR_BADHANDLE:
		return NT_STATUS_INVALID_HANDLE;
	case NFS3ERR_NOTSUPP:
		return NT_STATUS_NOT_SUPPORTED;
	case NFS3ERR_IO:
		return NT_STATUS_IO_DEVICE_ERROR;
	default:
		return NT_STATUS_UNSUCCESSFUL;
	}
}
