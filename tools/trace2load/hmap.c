/*
 * hmap.c - a chained hash map with byte-string keys, for the converter's
 * state: calls waiting for replies, NFS file handles, SMB2 file ids and
 * trees.  FNV-1a over the key bytes; the table doubles when it holds more
 * entries than buckets.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "t2l.h"

#define HMAP_INITIAL 64

static uint64_t hash_bytes(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 29;
	return h;
}

void hmap_init(struct hmap *m)
{
	m->nbuckets = HMAP_INITIAL;
	m->buckets = t2l_alloc(m->nbuckets * sizeof(*m->buckets));
	m->count = 0;
}

void hmap_free(struct hmap *m, void (*free_value)(void *))
{
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct hmap_entry *e = m->buckets[i];

		while (e) {
			struct hmap_entry *next = e->next;

			if (free_value)
				free_value(e->value);
			free(e);
			e = next;
		}
	}
	free(m->buckets);
	m->buckets = NULL;
	m->nbuckets = m->count = 0;
}

static struct hmap_entry **find_slot(const struct hmap *m, uint64_t h, const void *key, size_t keylen)
{
	struct hmap_entry **slot = &m->buckets[h & (m->nbuckets - 1)];

	for (; *slot; slot = &(*slot)->next)
		if ((*slot)->hash == h && (*slot)->keylen == keylen &&
		    memcmp((*slot)->key, key, keylen) == 0)
			break;
	return slot;
}

static void grow(struct hmap *m)
{
	size_t n = m->nbuckets * 2;
	struct hmap_entry **b = t2l_alloc(n * sizeof(*b));

	for (size_t i = 0; i < m->nbuckets; i++) {
		struct hmap_entry *e = m->buckets[i];

		while (e) {
			struct hmap_entry *next = e->next;
			size_t j = e->hash & (n - 1);

			e->next = b[j];
			b[j] = e;
			e = next;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
}

void *hmap_get(const struct hmap *m, const void *key, size_t keylen)
{
	struct hmap_entry **slot = find_slot(m, hash_bytes(key, keylen), key, keylen);

	return *slot ? (*slot)->value : NULL;
}

void *hmap_put(struct hmap *m, const void *key, size_t keylen, void *value)
{
	uint64_t h = hash_bytes(key, keylen);
	struct hmap_entry **slot = find_slot(m, h, key, keylen);
	struct hmap_entry *e;
	void *old;

	if (*slot) {
		old = (*slot)->value;
		(*slot)->value = value;
		return old;
	}
	e = t2l_alloc(sizeof(*e) + keylen);
	e->hash = h;
	e->value = value;
	e->keylen = keylen;
	memcpy(e->key, key, keylen);
	*slot = e;
	if (++m->count > m->nbuckets)
		grow(m);
	return NULL;
}

void *hmap_del(struct hmap *m, const void *key, size_t keylen)
{
	struct hmap_entry **slot = find_slot(m, hash_bytes(key, keylen), key, keylen);
	struct hmap_entry *e = *slot;
	void *value;

	if (!e)
		return NULL;
	*slot = e->next;
	value = e->value;
	free(e);
	m->count--;
	return value;
}
