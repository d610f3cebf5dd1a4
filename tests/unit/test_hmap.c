/*
 * test_hmap.c - unit tests of src/hmap.c, the project's one hash map:
 * put, get, replace and delete against a plain array that holds the same
 * entries, through growth and through deletions in long probe runs (keys
 * that share their home slot), keys with NUL bytes and the empty key, the
 * walk, clear and the bytes it reports.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hmap.h"

#define N 5000

static void *val(size_t i)
{
	return (void *)(uintptr_t)(i + 1);
}

static size_t key_of(char *buf, size_t len, size_t i)
{
	return (size_t)snprintf(buf, len, "/clients/client%zu/file", i);
}

/* Every key in [0, N) that is marked present has its value; the others
 * are absent. */
static void check_all(const struct hmap *m, const bool *present)
{
	size_t count = 0;

	for (size_t i = 0; i < N; i++) {
		char k[64];
		size_t len = key_of(k, sizeof(k), i);

		if (present[i]) {
			assert_ptr_equal(hmap_get(m, k, len), val(i));
			count++;
		} else {
			assert_null(hmap_get(m, k, len));
		}
	}
	assert_int_equal(m->count, count);
}

static void test_put_get_del(void **state)
{
	struct hmap m;
	static bool present[N];
	char k[64];

	(void)state;
	hmap_init(&m);
	assert_null(hmap_get(&m, "x", 1));
	assert_null(hmap_del(&m, "x", 1));
	for (size_t i = 0; i < N; i++) {
		assert_null(hmap_put(&m, k, key_of(k, sizeof(k), i), val(i)));
		present[i] = true;
	}
	check_all(&m, present);
	/* a replaced value is handed back */
	assert_ptr_equal(hmap_put(&m, k, key_of(k, sizeof(k), 7), val(7)), val(7));
	assert_int_equal(m.count, N);
	/* delete every third, then every other of the rest: the probe runs
	 * are closed up behind each deletion */
	for (size_t i = 0; i < N; i += 3) {
		assert_ptr_equal(hmap_del(&m, k, key_of(k, sizeof(k), i)), val(i));
		present[i] = false;
	}
	check_all(&m, present);
	for (size_t i = 1; i < N; i += 2) {
		void *v = hmap_del(&m, k, key_of(k, sizeof(k), i));

		assert_ptr_equal(v, present[i] ? val(i) : NULL);
		present[i] = false;
	}
	check_all(&m, present);
	hmap_free(&m, NULL);
	assert_int_equal(m.count, 0);
	assert_int_equal(hmap_bytes(&m), 0);
}

/* Keys are bytes: a NUL inside, and the empty key, are keys like others;
 * a key and its prefix are different keys. */
static void test_bytes_keys(void **state)
{
	struct hmap m = { 0 };

	(void)state;
	assert_null(hmap_put(&m, "a\0b", 3, val(1)));
	assert_null(hmap_put(&m, "a\0c", 3, val(2)));
	assert_null(hmap_put(&m, "a", 1, val(3)));
	assert_null(hmap_put(&m, "", 0, val(4)));
	assert_ptr_equal(hmap_get(&m, "a\0b", 3), val(1));
	assert_ptr_equal(hmap_get(&m, "a\0c", 3), val(2));
	assert_ptr_equal(hmap_get(&m, "a", 1), val(3));
	assert_ptr_equal(hmap_get(&m, "", 0), val(4));
	assert_null(hmap_get(&m, "a\0", 2));
	hmap_free(&m, NULL);
}

/* The walk sees every entry once, with its key (NUL-terminated) and
 * length; clear frees the values it is given. */
static void test_walk_clear(void **state)
{
	struct hmap m;
	static bool seen[N];
	size_t pos = 0, n = 0, len;
	const void *key;
	void *v;
	char k[64];

	(void)state;
	hmap_init(&m);
	for (size_t i = 0; i < N; i++)
		hmap_put(&m, k, key_of(k, sizeof(k), i), val(i));
	while ((v = hmap_next(&m, &pos, &key, &len))) {
		size_t i = (size_t)(uintptr_t)v - 1;

		assert_false(seen[i]);
		seen[i] = true;
		assert_int_equal(len, key_of(k, sizeof(k), i));
		assert_string_equal(key, k);
		n++;
	}
	assert_int_equal(n, N);
	assert_true(hmap_bytes(&m) > N * (sizeof(void *) + 20));
	hmap_free(&m, NULL);

	hmap_init(&m);
	for (size_t i = 0; i < 100; i++) {
		char *owned = malloc(8);

		hmap_put(&m, k, key_of(k, sizeof(k), i), owned);
	}
	hmap_clear(&m, free);	/* the sanitizers' leak check sees the rest */
	assert_int_equal(m.count, 0);
	assert_null(hmap_get(&m, k, key_of(k, sizeof(k), 3)));
	hmap_put(&m, "again", 5, val(1));
	assert_ptr_equal(hmap_get(&m, "again", 5), val(1));
	hmap_free(&m, NULL);
}

/* FNV-1a of a known string, folded: a change of the hash is a change of
 * every map's layout, made on purpose. */
static void test_hash(void **state)
{
	uint64_t h = 0xaf63dc4c8601ec8cULL;	/* FNV-1a 64 of "a" */

	(void)state;
	assert_true(hmap_hash("a", 1) == (h ^ (h >> 29)));
	assert_true(hmap_hash("", 0) == (0xcbf29ce484222325ULL ^ (0xcbf29ce484222325ULL >> 29)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_del),
		cmocka_unit_test(test_bytes_keys),
		cmocka_unit_test(test_walk_clear),
		cmocka_unit_test(test_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
