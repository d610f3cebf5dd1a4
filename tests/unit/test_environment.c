/*
 * test_environment.c - unit tests of src/environment.c: the mount that
 * holds a directory, found in a mountinfo text (longest mount point on a
 * component boundary, the device when given, later mounts hiding earlier
 * ones, octal escapes); the environment of this machine; and the
 * "environment" object written and read back.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "environment.h"
#include "options.h"


static const char mountinfo[] =
	"21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"22 21 0:20 / /proc rw,nosuid,nodev,noexec,relatime shared:2 - proc proc rw\n"
	"30 21 0:30 / /mnt/test rw,noatime shared:5 - xfs /dev/sdb1 rw,attr2,inode64,noquota\n"
	"31 21 0:31 / /mnt/test2 rw,relatime - tmpfs tmpfs rw,size=1024k\n"
	"32 21 0:32 / /mnt/with\\040space rw master:7 - nfs4 srv:/export rw,vers=4.2,proto=tcp\n"
	"33 30 0:33 / /mnt/test rw,sync - tmpfs none rw\n"
	"bad line without a separator\n";

static void test_find_mount(void **state)
{
	struct environment env;

	(void)state;
	memset(&env, 0, sizeof(env));
	/* /mnt/test2 is not under /mnt/test; the later mount on /mnt/test wins */
	assert_int_equal(environment_find_mount(&env, mountinfo, "/mnt/test/dir", NULL), 0);
	assert_string_equal(env.fs_type, "tmpfs");
	assert_string_equal(env.mount_options, "rw,sync");
	assert_int_equal(environment_find_mount(&env, mountinfo, "/mnt/test2", NULL), 0);
	assert_string_equal(env.mount_point, "/mnt/test2");
	assert_string_equal(env.super_options, "rw,size=1024k");
	/* by device: the xfs mount hidden under the tmpfs one */
	assert_int_equal(environment_find_mount(&env, mountinfo, "/mnt/test/d", "0:30"), 0);
	assert_string_equal(env.fs_type, "xfs");
	assert_string_equal(env.mount_source, "/dev/sdb1");
	assert_string_equal(env.mount_options, "rw,noatime");
	assert_string_equal(env.super_options, "rw,attr2,inode64,noquota");
	/* escapes */
	assert_int_equal(environment_find_mount(&env, mountinfo, "/mnt/with space/x", NULL), 0);
	assert_string_equal(env.fs_type, "nfs4");
	assert_string_equal(env.mount_source, "srv:/export");
	/* the root holds everything else */
	assert_int_equal(environment_find_mount(&env, mountinfo, "/home/user", NULL), 0);
	assert_string_equal(env.fs_type, "ext4");
	assert_int_equal(environment_find_mount(&env, mountinfo, "/home", "9:9"), -1);
	environment_free(&env);
}

static void test_collect_and_round_trip(void **state)
{
	struct options opt = { .server = "10.0.0.1", .port = 2049, .clients_per_process = 2 };
	struct environment env, back;
	char err[128] = "";
	json_t *obj;

	(void)state;
	environment_collect(&env, &opt, BACKEND_DIRECTORY | BACKEND_FILES | BACKEND_SERVER, "/tmp");
	environment_add_option(&env, "fsync", "yes");	/* a backend's (backend.c) */
	assert_non_null(env.kernel);
	assert_true(env.cpus >= 1);
	assert_true(env.memory_bytes > 0);
	assert_string_equal(env.directory, "/tmp");
	assert_non_null(env.fs_type);	/* /tmp is on some mount */
	assert_non_null(env.mount_options);
	assert_string_equal(env.server, "10.0.0.1 port 2049");

	obj = environment_to_json(&env);
	assert_string_equal(json_string_value(json_object_get(json_object_get(obj, "options"), "fsync")),
			    "yes");
	assert_int_equal(environment_from_json(&back, obj, err, sizeof(err)), 0);
	{
		json_t *again = environment_to_json(&back);

		assert_true(json_equal(obj, again));
		json_decref(again);
	}
	json_decref(obj);
	environment_free(&back);
	environment_free(&env);

	/* a backend without a directory or a server records neither */
	environment_collect(&env, &opt, 0, "/tmp");
	assert_null(env.directory);
	assert_null(env.server);
	assert_int_equal(env.noptions, 1);	/* clients_per_process */
	environment_free(&env);

	/* an older document without the object: unknown, not an error */
	assert_int_equal(environment_from_json(&back, NULL, err, sizeof(err)), 0);
	assert_null(back.kernel);
	obj = json_string("x");
	assert_int_equal(environment_from_json(&back, obj, err, sizeof(err)), -1);
	json_decref(obj);
}

/* What a backend noted about its session: in every environment collected
 * after, in the JSON and back, copied, and absent when nothing was noted. */
static void test_session(void **state)
{
	struct options opt = { .clients_per_process = 1 };
	struct environment env, back, copy;
	char err[128] = "", *text = NULL;
	size_t len = 0;
	json_t *obj;
	FILE *out;

	(void)state;
	environment_collect(&env, &opt, 0, NULL);
	assert_int_equal(env.nsession, 0);
	obj = environment_to_json(&env);
	assert_null(json_object_get(obj, "session"));
	json_decref(obj);
	environment_free(&env);
	out = open_memstream(&text, &len);
	environment_print_session(out);
	fclose(out);
	assert_string_equal(text, "");	/* no line when nothing was noted */
	free(text);

	environment_note_session("dialect", "SMB3_11");
	environment_note_session("encrypted", "yes");
	environment_collect(&env, &opt, 0, NULL);
	assert_int_equal(env.nsession, 2);
	obj = environment_to_json(&env);
	assert_string_equal(json_string_value(json_object_get(json_object_get(obj, "session"), "dialect")),
			    "SMB3_11");
	assert_int_equal(environment_from_json(&back, obj, err, sizeof(err)), 0);
	assert_int_equal(back.nsession, 2);
	assert_string_equal(back.session_name[1], "encrypted");
	assert_string_equal(back.session_value[1], "yes");
	environment_copy(&copy, &back);
	{
		json_t *again = environment_to_json(&copy);

		assert_true(json_equal(obj, again));
		json_decref(again);
	}
	json_decref(obj);
	environment_free(&copy);
	environment_free(&back);
	environment_free(&env);
	out = open_memstream(&text, &len);
	environment_print_session(out);
	fclose(out);
	assert_string_equal(text, "Session: dialect SMB3_11, encrypted yes\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_mount),
		cmocka_unit_test(test_collect_and_round_trip),
		cmocka_unit_test(test_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
