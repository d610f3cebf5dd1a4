/*
 * paths.h - where the running program's files are: its own directory
 * (from /proc/self/exe) and, under the same prefix, its modules and its
 * data.  Nothing here is a path of the build tree: an installed dbench
 * (under /usr, /usr/local, a DESTDIR, a copied root) finds its files
 * relative to where it is, so that two builds in two directories give the
 * same binary.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_PATHS_H
#define DBENCH_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The directory of the running program ("" if /proc is not there). */
const char *program_dir(void);

/*
 * The install directory dir (one of the configured ones: PKGLIBDIR,
 * PKGDATADIR), as seen from the running program: if the program is in a
 * bin directory ending as the configured BINDIR does below the prefix they
 * share (e.g. BINDIR /usr/bin, dir /usr/share/dbench: "/bin" and
 * "/share/dbench"), dir's tail under the program's prefix.  Returns false
 * (buf: the program's directory) when the program does not run from such
 * a bin directory: a build tree.
 */
bool install_dir(const char *dir, char *buf, size_t len);

/* Where the backend modules (dbench-NAME.so) are: PKGLIBDIR as seen from
 * the program; in a build tree, the program's own directory. */
const char *module_dir(void);

/* Where the default loadfile (client.txt) is: PKGDATADIR as seen from the
 * program; in a build tree (BUILD/src/dbench), BUILD/loadfiles, a copy
 * that make keeps of the source's. */
const char *data_dir(void);

/* install_dir with the configured paths given (for the unit test). */
bool install_dir_for(const char *program_dir, const char *bindir, const char *dir, char *buf,
		     size_t len);

#endif
