/*
 * test_paths.c - unit tests of install_dir_for (paths.c): an install
 * directory seen from where the program runs, under /usr, /usr/local, a
 * DESTDIR or a copied root, and a build tree.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "paths.h"

static void expect_dir(const char *progdir, const char *bindir, const char *dir, bool installed,
		       const char *want)
{
	char buf[256];

	assert_int_equal(install_dir_for(progdir, bindir, dir, buf, sizeof(buf)), installed);
	assert_string_equal(buf, want);
}

static void test_installed(void **state)
{
	(void)state;
	/* where it was configured to be */
	expect_dir("/usr/bin", "/usr/bin", "/usr/lib/x86_64-linux-gnu/dbench", true,
		   "/usr/lib/x86_64-linux-gnu/dbench");
	expect_dir("/usr/bin", "/usr/bin", "/usr/share/dbench", true, "/usr/share/dbench");
	/* under a DESTDIR, or a root made with dpkg --root */
	expect_dir("/tmp/root/usr/bin", "/usr/bin", "/usr/lib/x86_64-linux-gnu/dbench", true,
		   "/tmp/root/usr/lib/x86_64-linux-gnu/dbench");
	/* moved to another prefix */
	expect_dir("/opt/dbench/bin", "/usr/local/bin", "/usr/local/lib/dbench", true, "/opt/dbench/lib/dbench");
	expect_dir("/opt/dbench/bin/", "/usr/local/bin", "/usr/local/share/dbench", true,
		   "/opt/dbench/share/dbench");
	/* prefixes that share no component but the root */
	expect_dir("/x/bin", "/bin", "/usr/share/dbench", true, "/x/usr/share/dbench");
}

static void test_build_tree(void **state)
{
	(void)state;
	/* not a bin directory: the program's own directory */
	expect_dir("/home/u/dbench/build/src", "/usr/bin", "/usr/lib/dbench", false, "/home/u/dbench/build/src");
	/* a directory that only ends in "bin" */
	expect_dir("/home/u/sbin", "/usr/bin", "/usr/lib/dbench", false, "/home/u/sbin");
	expect_dir("/usr/bin2", "/usr/bin", "/usr/lib/dbench", false, "/usr/bin2");
	/* no /proc: where it was configured to be */
	expect_dir("", "/usr/bin", "/usr/lib/dbench", true, "/usr/lib/dbench");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_installed),
		cmocka_unit_test(test_build_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
