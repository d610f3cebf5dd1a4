/*
 * sha256.h - SHA-256 (FIPS 180-4), for the loadfile's identity in the
 * report and the JSON: two runs compare only when their loadfiles' digests
 * are equal.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_SHA256_H
#define DBENCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];		/* the chaining state */
	uint64_t len;		/* bytes hashed so far */
	uint8_t block[64];	/* a partial block */
	size_t fill;		/* bytes in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t digest[32]);

/* The digest of len bytes as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
