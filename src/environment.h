/*
 * environment.h - what a comparison of two runs needs to know besides the
 * figures: the build (git describe), the kernel, the CPU, its cores, the
 * memory, the file system under -D (type, mount source, mount options),
 * the server of a network backend, and the options that shape the
 * figures.  Collected once per run into the results (results.h), written
 * as the "environment" object of the --json document; dbench-compare warns
 * about every member that differs.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_ENVIRONMENT_H
#define DBENCH_ENVIRONMENT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

struct options;

/* Every string is NULL when unknown. */
struct environment {
	char *git_describe;	/* `git describe` of the source tree at configure time */
	char *kernel;		/* uname: "Linux 6.1.0-18-amd64 #1 SMP ... x86_64" */
	char *cpu_model;	/* /proc/cpuinfo's model name */
	int cpus;		/* processors online */
	uint64_t memory_bytes;	/* physical memory */
	char *directory;	/* -D, resolved (the fileio backend), else NULL */
	char *fs_type;		/* its file system (/proc/self/mountinfo) */
	char *fs_magic;		/* statfs f_type, "0x..." */
	char *mount_point;	/* the mount it is under */
	char *mount_source;	/* the device or export mounted there */
	char *mount_options;	/* per-mount options */
	char *super_options;	/* the file system's own (super block) options */
	char *server;		/* network backends: --server (with --port) */
	int noptions;		/* the options that shape the figures, as text */
	char **option_name;
	char **option_value;
	int nsession;		/* what the backend negotiated with its server */
	char **session_name;	/* (smb: dialect, signed, ...), 0 if nothing */
	char **session_value;
};

/* Collect the environment of a run with these options on a backend with
 * these flags (enum backend_flags): the file system of the directory of a
 * BACKEND_DIRECTORY backend, the server of a BACKEND_SERVER one, and the
 * core's options that shape the figures.  The backend's own add theirs
 * (backend_options_to_environment, backend.h). */
void environment_collect(struct environment *env, const struct options *opt, unsigned backend_flags,
			 const char *directory);
/* Record an option that shapes the figures, as text. */
void environment_add_option(struct environment *env, const char *name, const char *value);
void environment_free(struct environment *env);

/* In the parent, before the run: a fact a backend's init learned from its
 * server, as its client library tells it (the SMB dialect, whether the
 * session is signed or encrypted, with which algorithms).  Every run's
 * environment carries them as its "session" object, and the banner shows
 * them (environment_print_session). */
void environment_note_session(const char *name, const char *value);
/* "Session: NAME VALUE, ..." and a newline, if a backend noted any. */
void environment_print_session(FILE *out);
/* A deep copy. */
void environment_copy(struct environment *to, const struct environment *from);

/* The "environment" object, and back (members missing in an older
 * document stay unknown; 0 or -1 with a reason in err). */
json_t *environment_to_json(const struct environment *env);
int environment_from_json(struct environment *env, const json_t *obj, char *err, size_t errlen);

/* Find the mount that holds path in a mountinfo text (the format of
 * /proc/self/mountinfo): the entry of device dev ("major:minor", or NULL
 * for any) whose mount point is the longest prefix of path (the last such
 * entry: a later mount hides an earlier one).  Fills the mount fields of
 * env; returns 0, or -1 if none matches.  For the tests. */
int environment_find_mount(struct environment *env, const char *mountinfo, const char *path,
			   const char *dev);

#endif
