/*
 * hmap.h - the one hash map of the project: byte-string keys (copied in),
 * pointer values, FNV-1a over the key, open addressing with linear
 * probing (at most half full), deletion by moving the rest of the probe
 * run back (no tombstones).  The loadfile compiler interns paths with it,
 * the nfs backend caches file handles by path, dbench-trace2load pairs
 * calls and replies and follows handles.
 *
 * Memory: allocated with util.h's x* functions (out of memory is fatal);
 * hmap_bytes() tells what a map holds, for a caller that keeps a budget.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_HMAP_H
#define DBENCH_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot;

struct hmap {
	struct hmap_slot *slot;	/* cap slots, NULL before the first put */
	size_t cap;		/* 0 or a power of two */
	size_t count;		/* entries */
	size_t bytes;		/* what the slots and entries take */
};

/* FNV-1a of the bytes, with its high bits folded into the low ones (the
 * map indexes by the low bits). */
uint64_t hmap_hash(const void *key, size_t len);

/* An empty map (a zeroed struct hmap is one too). */
void hmap_init(struct hmap *m);

/* The value of key, or NULL. */
void *hmap_get(const struct hmap *m, const void *key, size_t keylen);

/* Set key to value (not NULL); returns the previous value, or NULL. */
void *hmap_put(struct hmap *m, const void *key, size_t keylen, void *value);

/* Remove key; returns its value, or NULL if it was not there. */
void *hmap_del(struct hmap *m, const void *key, size_t keylen);

/* Walk the entries, in no order: start with *pos = 0; each call returns
 * the next entry's value (and its key, which a NUL follows, if key is
 * not NULL), or NULL at the end.  The map may not change during a walk. */
void *hmap_next(const struct hmap *m, size_t *pos, const void **key, size_t *keylen);

/* Remove every entry (free_value, if not NULL, on each value). */
void hmap_clear(struct hmap *m, void (*free_value)(void *));

/* Remove every entry and the table. */
void hmap_free(struct hmap *m, void (*free_value)(void *));

/* Bytes the map holds now (slots, entries and their keys). */
static inline size_t hmap_bytes(const struct hmap *m)
{
	return m->bytes;
}

#endif
