/*
 * common.h - what several backends need the same way: the netbench
 * constants (NTCreateX options and dispositions, OPEN flags), the data
 * buffers (random write data, the WRITEPATTERN bytes, the read target),
 * and an SMB-style byte-range lock table kept per handle.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_BACKENDS_COMMON_H
#define DBENCH_BACKENDS_COMMON_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* NTCreateX create options and dispositions (MS-SMB). */
#define FILE_DIRECTORY_FILE 0x1
#define FILE_NON_DIRECTORY_FILE 0x40
#define FILE_DELETE_ON_CLOSE 0x1000
enum { DISP_SUPERSEDE, DISP_OPEN, DISP_CREATE, DISP_OPEN_IF, DISP_OVERWRITE, DISP_OVERWRITE_IF };

/* OPEN flags of the plain SMB ops (ops.def). */
#define SMB_OPEN_READ 0x01
#define SMB_OPEN_WRITE 0x02
#define SMB_OPEN_CREATE 0x04
#define SMB_OPEN_TRUNCATE 0x08
#define SMB_OPEN_EXCL 0x10

#define PATTERN_PERIOD 4096	/* WRITEPATTERN data repeats every 4 KiB */
#define MAX_IO_SIZE (64u << 20)	/* the largest read or write an op may ask */

/* The data a client writes and reads.  The WRITEPATTERN bytes and the
 * target of reads nobody checks are the same for every client: one copy a
 * process (common.c), however many clients it runs. */
struct iobuf {
	char *data;		/* write data: random, incompressible bytes */
	char *readbuf;		/* read target of checked reads (WRITEPATTERN on),
				   made at the first one; else NULL */
	size_t readbuf_size;	/* its bytes */
	size_t size;		/* bytes in data; reads up to this size */
	char *text;		/* WRITEPATTERN <text> data: the text repeated */
	size_t text_size;	/* bytes in text */
	const char *text_of;	/* the text it was filled with */
};

struct client;

/* What a write of size bytes at a file offset writes: with WRITEPATTERN
 * <text>, the text repeated from its start (upstream's buffer); else what
 * iobuf_source() says.  NULL when memory is short. */
const char *iobuf_write_source(struct iobuf *b, const struct client *c, uint64_t offset, size_t size);

/* Make the buffers hold size bytes (random data from the client's
 * generator); 0, or -1 when size is over MAX_IO_SIZE or memory is short. */
int iobuf_grow(struct iobuf *b, uint64_t rng[2], size_t size);
void iobuf_free(struct iobuf *b);

/* What to write at a file offset: the pattern's bytes for that offset
 * while WRITEPATTERN is on, else random data. */
const char *iobuf_source(const struct iobuf *b, int pattern, uint64_t offset);

/* Where a read of up to b->size bytes lands: the client's own buffer if
 * check (the data is compared after), else the process's scratch, which
 * never moves (a read in flight may point into it).  NULL when memory is
 * short. */
char *iobuf_read_target(struct iobuf *b, bool check);

/* Are n bytes read at offset what WRITEPATTERN wrote there? */
bool iobuf_pattern_ok(const struct iobuf *b, const char *got, uint64_t offset, size_t n);

/* Byte ranges a handle holds; SMB locks do not stack or overlap. */
struct lock_range {
	uint64_t offset;
	uint64_t length;
};

struct lock_table {
	struct lock_range *r;	/* held ranges */
	uint16_t n;		/* in r */
	uint16_t cap;		/* allocated in r */
};

/* Does the range overlap one already held? */
bool lock_table_overlaps(const struct lock_table *t, uint64_t offset, uint64_t length);
/* Record a held range; false when the table is full. */
bool lock_table_add(struct lock_table *t, uint64_t offset, uint64_t length);
/* Drop the range held with exactly this offset and length; false if none. */
bool lock_table_remove(struct lock_table *t, uint64_t offset, uint64_t length);
void lock_table_free(struct lock_table *t);

/* Why a server does not answer on a TCP port: "" if it accepts a
 * connection within timeout_ms, else the reason (the host unknown, the
 * connection refused, unreachable, timed out). */
void tcp_probe(const char *host, int port, int timeout_ms, char *why, size_t len);

static inline bool is_dot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

#endif
