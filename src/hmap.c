/*
 * hmap.c - the one hash map (hmap.h): FNV-1a, open addressing.
 *
 * A slot holds the key's hash and its entry (the value and a copy of the
 * key); a free slot has no entry.  The table grows to twice its size
 * before it is more than half full, so a probe run stays short.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "util.h"

#define HMAP_INITIAL 64		/* slots of a new table */

struct hmap_entry {
	void *value;
	size_t keylen;
	unsigned char key[];	/* keylen bytes and a NUL */
};

struct hmap_slot {
	uint64_t hash;
	struct hmap_entry *e;	/* NULL: free */
};

uint64_t hmap_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

void hmap_init(struct hmap *m)
{
	memset(m, 0, sizeof(*m));
}

/* The slot of key, or the free slot where it would go. */
static struct hmap_slot *find(const struct hmap *m, uint64_t h, const void *key, size_t keylen)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct hmap_slot *s = &m->slot[i];

		if (!s->e || (s->hash == h && s->e->keylen == keylen &&
			      memcmp(s->e->key, key, keylen) == 0))
			return s;
	}
}

static void grow(struct hmap *m)
{
	struct hmap_slot *old = m->slot;
	size_t oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : HMAP_INITIAL;
	m->slot = xcalloc(m->cap, sizeof(*m->slot));
	m->bytes += (m->cap - oldcap) * sizeof(*m->slot);
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].e)
			continue;
		for (j = old[i].hash & (m->cap - 1); m->slot[j].e; j = (j + 1) & (m->cap - 1))
			;
		m->slot[j] = old[i];
	}
	free(old);
}

void *hmap_get(const struct hmap *m, const void *key, size_t keylen)
{
	struct hmap_slot *s;

	if (!m->count)
		return NULL;
	s = find(m, hmap_hash(key, keylen), key, keylen);
	return s->e ? s->e->value : NULL;
}

void *hmap_put(struct hmap *m, const void *key, size_t keylen, void *value)
{
	uint64_t h = hmap_hash(key, keylen);
	struct hmap_slot *s;
	void *old;

	if ((m->count + 1) * 2 > m->cap)
		grow(m);
	s = find(m, h, key, keylen);
	if (s->e) {
		old = s->e->value;
		s->e->value = value;
		return old;
	}
	s->e = xmalloc(sizeof(*s->e) + keylen + 1);
	s->e->value = value;
	s->e->keylen = keylen;
	memcpy(s->e->key, key, keylen);
	s->e->key[keylen] = '\0';
	s->hash = h;
	m->count++;
	m->bytes += sizeof(*s->e) + keylen + 1;
	return NULL;
}

void *hmap_del(struct hmap *m, const void *key, size_t keylen)
{
	size_t mask = m->cap - 1, i, j;
	struct hmap_slot *s;
	void *value;

	if (!m->count)
		return NULL;
	s = find(m, hmap_hash(key, keylen), key, keylen);
	if (!s->e)
		return NULL;
	value = s->e->value;
	m->bytes -= sizeof(*s->e) + s->e->keylen + 1;
	free(s->e);
	s->e = NULL;
	m->count--;
	/* linear probing: move the later entries of the run that may live
	 * in the hole back into it */
	i = (size_t)(s - m->slot);
	for (j = (i + 1) & mask; m->slot[j].e; j = (j + 1) & mask) {
		size_t home = m->slot[j].hash & mask;

		/* is home cyclically outside (i, j]? then j may move to i */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->slot[i] = m->slot[j];
			m->slot[j].e = NULL;
			i = j;
		}
	}
	return value;
}

void *hmap_next(const struct hmap *m, size_t *pos, const void **key, size_t *keylen)
{
	for (; *pos < m->cap; (*pos)++) {
		const struct hmap_entry *e = m->slot[*pos].e;

		if (!e)
			continue;
		(*pos)++;
		if (key)
			*key = e->key;
		if (keylen)
			*keylen = e->keylen;
		return e->value;
	}
	return NULL;
}

void hmap_clear(struct hmap *m, void (*free_value)(void *))
{
	for (size_t i = 0; i < m->cap; i++) {
		struct hmap_entry *e = m->slot[i].e;

		if (!e)
			continue;
		if (free_value)
			free_value(e->value);
		free(e);
		m->slot[i].e = NULL;
	}
	m->count = 0;
	m->bytes = m->cap * sizeof(*m->slot);
}

void hmap_free(struct hmap *m, void (*free_value)(void *))
{
	hmap_clear(m, free_value);
	free(m->slot);
	hmap_init(m);
}
