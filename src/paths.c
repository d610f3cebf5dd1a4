/*
 * paths.c - see paths.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"

#ifndef BINDIR
#define BINDIR "/usr/local/bin"
#endif
#ifndef PKGLIBDIR
#define PKGLIBDIR "/usr/local/lib/dbench"
#endif
#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/dbench"
#endif

const char *program_dir(void)
{
	static char dir[PATH_MAX];
	static bool done;
	ssize_t n;
	char *slash;

	if (done)
		return dir;
	done = true;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		dir[0] = '\0';
		return dir;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	return dir;
}

/* The length of the leading whole path components a and b share ("/usr"
 * of "/usr/bin" and "/usr/lib/dbench"). */
static size_t common_components(const char *a, const char *b)
{
	size_t cut = 0;

	for (size_t i = 0;; i++) {
		if ((a[i] == '/' || !a[i]) && (b[i] == '/' || !b[i]))
			cut = i;
		if (a[i] != b[i] || !a[i])
			return cut;
	}
}

bool install_dir_for(const char *progdir, const char *bindir, const char *dir, char *buf, size_t len)
{
	size_t cut = common_components(bindir, dir);
	const char *bintail = bindir + cut, *dirtail = dir + cut;
	size_t plen = strlen(progdir), blen = strlen(bintail);

	if (!*progdir) {	/* no /proc: where it was configured to be */
		snprintf(buf, len, "%s", dir);
		return true;
	}
	while (plen > 1 && progdir[plen - 1] == '/')
		plen--;
	while (blen > 0 && bintail[blen - 1] == '/')
		blen--;
	if (plen < blen || strncmp(progdir + plen - blen, bintail, blen) != 0) {
		snprintf(buf, len, "%s", progdir);
		return false;
	}
	snprintf(buf, len, "%.*s%s", (int)(plen - blen), progdir, dirtail);
	return true;
}

bool install_dir(const char *dir, char *buf, size_t len)
{
	return install_dir_for(program_dir(), BINDIR, dir, buf, len);
}

const char *module_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0])
		install_dir(PKGLIBDIR, dir, sizeof(dir));
	return dir;
}

const char *data_dir(void)
{
	static char dir[PATH_MAX];
	char *slash;

	if (dir[0] || install_dir(PKGDATADIR, dir, sizeof(dir)))
		return dir;
	/* a build tree: BUILD/src -> BUILD/loadfiles */
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (strlen(dir) + sizeof("/loadfiles") <= sizeof(dir))
		strcat(dir, "/loadfiles");
	return dir;
}
