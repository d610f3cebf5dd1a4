/*
 * module.c - see module.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module.h"
#include "paths.h"

/* What configure knew about each module: "NAME:BUILT:RUNTIME-PACKAGE:
 * DEV-PACKAGE" entries separated by spaces (BUILT is yes or no). */
#ifndef MODULE_PACKAGES
#define MODULE_PACKAGES ""
#endif
/* The package of module NAME is MODULE_PACKAGE_PREFIX NAME (configure
 * --with-module-packages=PREFIX, e.g. dbench- in debian/rules), or not
 * known (""). */
#ifndef MODULE_PACKAGE_PREFIX
#define MODULE_PACKAGE_PREFIX ""
#endif

const char *module_path(void)
{
	const char *env = getenv("DBENCH_MODULE_PATH");

	return env ? env : module_dir();
}

bool module_path_from_env(void)
{
	return getenv("DBENCH_MODULE_PATH") != NULL;
}

int module_each_dir(int (*fn)(const char *dir, void *arg), void *arg)
{
	const char *p = module_path();
	char dir[PATH_MAX];

	while (*p) {
		size_t len = strcspn(p, ":");
		int rc;

		if (len > 0 && len < sizeof(dir)) {
			memcpy(dir, p, len);
			dir[len] = '\0';
			rc = fn(dir, arg);
			if (rc)
				return rc;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

bool module_valid_name(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	for (const char *s = name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return false;
	return true;
}

struct lookup {
	const char *name;
	char *path;
	size_t len;
};

static int look_in(const char *dir, void *arg)
{
	struct lookup *l = arg;

	snprintf(l->path, l->len, "%s/" MODULE_PREFIX "%s" MODULE_SUFFIX, dir, l->name);
	return access(l->path, F_OK) == 0;
}

bool module_find(const char *name, char *path, size_t len)
{
	struct lookup l = { .name = name, .path = path, .len = len };

	return module_valid_name(name) && module_each_dir(look_in, &l);
}

struct module_hint module_hint(const char *name)
{
	struct module_hint h = { 0 };
	const char *p = MODULE_PACKAGES;
	size_t nlen = strlen(name);

	while (*p) {
		size_t len = strcspn(p, " ");

		if (len > nlen && strncmp(p, name, nlen) == 0 && p[nlen] == ':') {
			char built[8] = "";

			if (sscanf(p + nlen + 1, "%7[^:]:%63[^:]:%63[^: ]", built, h.runtime, h.dev) == 3) {
				h.known = true;
				h.built = strcmp(built, "yes") == 0;
				if (MODULE_PACKAGE_PREFIX[0])
					snprintf(h.package, sizeof(h.package), "%s%s", MODULE_PACKAGE_PREFIX, name);
			}
			break;
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	return h;
}

void module_each_built(void (*fn)(const char *name, void *arg), void *arg)
{
	const char *p = MODULE_PACKAGES;

	while (*p) {
		size_t len = strcspn(p, " "), nlen = strcspn(p, ":");
		char name[72];

		if (nlen < len && nlen < sizeof(name) && strncmp(p + nlen, ":yes:", 5) == 0) {
			memcpy(name, p, nlen);
			name[nlen] = '\0';
			fn(name, arg);
		}
		p += len;
		while (*p == ' ')
			p++;
	}
}

void module_not_installed(const char *name, const char *what, char *why, size_t whylen)
{
	struct module_hint h = module_hint(name);

	if (h.package[0])
		snprintf(why, whylen, "%s " MODULE_PREFIX "%s" MODULE_SUFFIX " is not installed: apt install %s",
			 what, name, h.package);
	else
		snprintf(why, whylen, "%s " MODULE_PREFIX "%s" MODULE_SUFFIX " is not installed (looked in %s)",
			 what, name, module_path());
}

/* Why dlopen failed, in one line: a missing library names its package. */
static void explain_dlerror(const char *name, const char *what, const char *path, const char *err, char *why,
			    size_t whylen)
{
	const char *colon = strchr(err, ':');
	static const char missing[] = ": cannot open shared object file";
	struct module_hint h = module_hint(name);

	if (colon && strncmp(colon, missing, sizeof(missing) - 1) == 0 &&
	    strncmp(err, path, (size_t)(colon - err)) != 0) {
		int liblen = (int)(colon - err);

		if (h.known && h.runtime[0])
			snprintf(why, whylen, "%s needs %.*s, which is missing: install the Debian package %s",
				 what, liblen, err, h.runtime);
		else
			snprintf(why, whylen, "%s needs %.*s, which is missing: install the package that has it",
				 what, liblen, err);
		return;
	}
	snprintf(why, whylen, "cannot load %s from %s: %s", what, path, err);
}

void *module_open(const char *name, const char *what, const char *path, int flags, char *why, size_t whylen)
{
	void *handle;
	const char *err;

	dlerror();
	handle = dlopen(path, flags);
	if (!handle) {
		err = dlerror();
		explain_dlerror(name, what, path, err ? err : "unknown error", why, whylen);
	}
	return handle;
}
