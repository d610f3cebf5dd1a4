/*
 * module.h - finding and opening dbench's modules: the protocol backends
 * (dbench-smb.so, dbench-nfs.so, dbench-iscsi.so; backend.c) and --mpi
 * (dbench-mpi.so; mpi.c).  A module is dlopen'ed only when asked for, so
 * that the program links none of their libraries.
 *
 * A module is looked for in the directories of $DBENCH_MODULE_PATH
 * (colon-separated) when it is set, else in module_dir() (paths.h: the
 * install's, found from where the program is, or the build tree's).  Every
 * failure is one line: not built, not installed (with the package that has
 * it, when configure was told: --with-module-packages), a library it needs
 * missing (with the Debian package that has the library).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_MODULE_H
#define DBENCH_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define MODULE_PREFIX "dbench-"
#define MODULE_SUFFIX ".so"

/* The module of --mpi (mpi.c); the others are backends. */
#define MODULE_MPI "mpi"

static inline bool module_is_backend(const char *name)
{
	return strcmp(name, MODULE_MPI) != 0;
}

/* The directories modules are looked for in, colon-separated. */
const char *module_path(void);

/* Is $DBENCH_MODULE_PATH what module_path() is? */
bool module_path_from_env(void);

/* Call fn(dir, arg) for each directory of module_path() until it returns
 * non-zero; returns that value, or 0. */
int module_each_dir(int (*fn)(const char *dir, void *arg), void *arg);

/* A module name is a word: letters, digits, '_' and '-', at most 64. */
bool module_valid_name(const char *name);

/* Look for dbench-NAME.so in module_path(): true with its path in path. */
bool module_find(const char *name, char *path, size_t len);

/* dlopen path (the module of name; what: "the smb backend", "the MPI
 * module (--mpi)") with flags; NULL with one line in why: a library it
 * needs that is missing names its Debian package. */
void *module_open(const char *name, const char *what, const char *path, int flags, char *why,
		  size_t whylen);

/* What configure knew of module name: its name in configure's list
 * (smb, nfs, iscsi, mpi), whether it was built, the package of the
 * library it needs, the -dev package to build it, and the package that
 * has the module itself ("" if configure was not told). */
struct module_hint {
	bool known;		/* configure knew of this module */
	bool built;		/* ... and built it */
	char runtime[64];	/* the Debian package of the library it needs */
	char dev[64];		/* the one to build it */
	char package[80];	/* the package that has the module, or "" */
};

struct module_hint module_hint(const char *name);

/* Why module name cannot be used when module_find() did not find it:
 * "WHAT dbench-NAME.so is not installed" and the package to install, or
 * where it was looked for.  what: "the smb backend's module", "--mpi: the
 * module". */
void module_not_installed(const char *name, const char *what, char *why, size_t whylen);

/* Call fn(name, arg) for each module configure built (for --help's list
 * of the ones not installed). */
void module_each_built(void (*fn)(const char *name, void *arg), void *arg);

#endif
