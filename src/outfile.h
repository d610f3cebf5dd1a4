/*
 * outfile.h - writing a machine output file (--json, --csv-series) so
 * that nobody else can redirect the write.
 *
 * The destination's name is never followed as a symbolic link: a
 * predictable name in /tmp that another user made a link to the victim's
 * file must not let them choose what dbench overwrites.  By what is at the
 * name (looked at without following it):
 *
 *   nothing, or a regular file   a new file is made beside it in the same
 *                                directory (O_CREAT | O_EXCL | O_NOFOLLOW,
 *                                opened relative to the directory's
 *                                descriptor) and renamed over the name
 *                                (renameat): a reader sees the whole old file
 *                                or the whole new one, and a hard link to
 *                                someone's file is replaced, not written
 *   a character device, a FIFO   written in place (/dev/null, /dev/full, a
 *   or a socket                  FIFO a reader waits on), opened O_NOFOLLOW
 *   a symbolic link              refused, unless the path names one of the
 *                                process's own descriptors: /dev/stdout,
 *                                /dev/stderr, /dev/fd/N, /proc/self/fd/N
 *                                (a shell's >(...) too) are written through
 *                                that descriptor
 *   a directory, a block device  refused
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_OUTFILE_H
#define DBENCH_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* A file being written. */
struct outfile {
	int fd;			/* what is written to */
	int dirfd;		/* the destination's directory, -1 if in place */
	char base[NAME_MAX + 1]; /* the destination's name in it */
	char tmp[NAME_MAX + 1];	/* the new file's name there, "" once renamed */
};

/* Can path be written as above?  Nothing is created.  0, or -1 with a
 * one-line reason in why (for the options check before the run). */
int outfile_check(const char *path, char *why, size_t whylen);

/* Open path for writing; with replace_now the new file is renamed over
 * the name at once (a file written as the run goes: its rows show there
 * while it grows) and only o->fd is left to close, else outfile_commit()
 * or outfile_abort() ends it.  0, or -1 with errno set and a reason in why. */
int outfile_open(struct outfile *o, const char *path, bool replace_now, char *why, size_t whylen);

/* Close o->fd (the caller may have fdopen'ed it and closed the stream:
 * then pass closed) and put the new file in place.  0, or -1 with errno
 * set: then the new file is removed and the old one is left as it was. */
int outfile_commit(struct outfile *o, bool closed);

/* Give up: close (unless closed) and remove the new file if not renamed. */
void outfile_abort(struct outfile *o, bool closed);

#endif
