/*
 * environment.c - the environment of a run (see environment.h): uname,
 * /proc/cpuinfo, sysconf, statfs and /proc/self/mountinfo for the
 * directory of the fileio backend.  Anything that cannot be read stays
 * unknown (NULL, 0): the environment never fails a run.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backend.h"
#include "environment.h"
#include "options.h"
#include "util.h"

#ifndef DBENCH_GIT_DESCRIBE
#define DBENCH_GIT_DESCRIBE ""
#endif

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The whole of a small file (under /proc: its size says 0), or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 0, n;
	char *text = NULL;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 16384;
			text = xrealloc(text, cap + 1);
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0 && len < (size_t)16 << 20);
	fclose(f);
	text[len] = 0;
	return text;
}

/* The value of the first "key<spaces>: value" line of /proc/cpuinfo. */
static char *cpuinfo_model(void)
{
	static const char *const keys[] = { "model name", "Processor", "cpu model", "cpu", "Hardware" };
	char *text = read_text("/proc/cpuinfo"), *model = NULL;

	for (size_t k = 0; text && !model && k < ARRAY_SIZE(keys); k++) {
		for (char *line = text; line && *line && !model;) {
			char *next = strchr(line, '\n'), *colon;
			size_t klen = strlen(keys[k]);

			if (next)
				*next = 0;
			colon = strchr(line, ':');
			if (colon && strncmp(line, keys[k], klen) == 0 &&
			    strspn(line + klen, " \t") == (size_t)(colon - line) - klen) {
				char *v = colon + 1 + strspn(colon + 1, " \t");

				if (*v)
					model = xstrdup(v);
			}
			if (next)
				*next = '\n';
			line = next ? next + 1 : NULL;
		}
	}
	free(text);
	return model;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *to = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*to++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*to++ = *s;
		}
	}
	*to = 0;
}

/* Is mount point m a prefix of path, on a component boundary? */
static size_t prefix_len(const char *m, const char *path)
{
	size_t len = strlen(m);

	if (strcmp(m, "/") == 0)
		return 1;
	if (strncmp(m, path, len) != 0 || (path[len] && path[len] != '/'))
		return 0;
	return len;
}

int environment_find_mount(struct environment *env, const char *mountinfo, const char *path,
			   const char *dev)
{
	char *text = xstrdup(mountinfo), *line, *save = NULL;
	size_t best = 0;
	int found = -1;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
		char *field[6], *sep, *rest[3], *p = line, *save2 = NULL;
		size_t len;
		int n = 0;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = 0;
		for (char *t = strtok_r(p, " ", &save2); t && n < 6; t = strtok_r(NULL, " ", &save2))
			field[n++] = t;
		if (n < 6)
			continue;
		n = 0;
		save2 = NULL;
		for (char *t = strtok_r(sep + 3, " ", &save2); t && n < 3; t = strtok_r(NULL, " ", &save2))
			rest[n++] = t;
		if (n < 3)
			continue;
		if (dev && strcmp(field[2], dev) != 0)
			continue;
		unescape(field[4]);
		len = prefix_len(field[4], path);
		if (!len || len < best)
			continue;
		best = len;
		found = 0;
		free(env->mount_point);
		free(env->fs_type);
		free(env->mount_source);
		free(env->mount_options);
		free(env->super_options);
		unescape(rest[1]);
		env->mount_point = xstrdup(field[4]);
		env->mount_options = xstrdup(field[5]);
		env->fs_type = xstrdup(rest[0]);
		env->mount_source = xstrdup(rest[1]);
		env->super_options = xstrdup(rest[2]);
	}
	free(text);
	return found;
}

/* The directory -D names: opened once, and every fact read from that one
 * descriptor (its path, its file system, its device), so that they all
 * describe the same directory even if the name changes meanwhile. */
static void directory_collect(struct environment *env, const char *dir)
{
	char fdpath[64], real[PATH_MAX], dev[32], magic[32], *mountinfo = NULL;
	struct statfs sfs;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	n = readlink(fdpath, real, sizeof(real) - 1);
	if (n > 0)
		real[n] = '\0';
	else if (!realpath(dir, real))	/* no /proc */
		goto out;
	if (real[0] != '/')
		goto out;	/* removed meanwhile */
	env->directory = xstrdup(real);
	if (fstatfs(fd, &sfs) == 0) {
		snprintf(magic, sizeof(magic), "0x%llx", (unsigned long long)sfs.f_type);
		env->fs_magic = xstrdup(magic);
	}
	mountinfo = read_text("/proc/self/mountinfo");
	if (!mountinfo)
		goto out;
	if (fstat(fd, &st) == 0) {
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
		if (environment_find_mount(env, mountinfo, real, dev) == 0)
			goto out;
	}
	environment_find_mount(env, mountinfo, real, NULL);
out:
	free(mountinfo);
	close(fd);
}

/* Append a name and its value to a list of n. */
static void add_pair(char ***names, char ***values, int *n, const char *name, const char *value)
{
	*names = xrealloc(*names, (size_t)(*n + 1) * sizeof(char *));
	*values = xrealloc(*values, (size_t)(*n + 1) * sizeof(char *));
	(*names)[*n] = xstrdup(name);
	(*values)[(*n)++] = xstrdup(value);
}

static void free_pairs(char **names, char **values, int n)
{
	for (int i = 0; i < n; i++) {
		free(names[i]);
		free(values[i]);
	}
	free(names);
	free(values);
}

void environment_add_option(struct environment *env, const char *name, const char *value)
{
	add_pair(&env->option_name, &env->option_value, &env->noptions, name, value);
}

static void add_session(struct environment *env, const char *name, const char *value)
{
	add_pair(&env->session_name, &env->session_value, &env->nsession, name, value);
}

/* What the backend noted in init: the parent's, copied into each run's
 * environment (a process has one backend and one init). */
static struct environment noted;

void environment_note_session(const char *name, const char *value)
{
	add_session(&noted, name, value);
}

void environment_print_session(FILE *out)
{
	if (!noted.nsession)
		return;
	fprintf(out, "Session:");
	for (int i = 0; i < noted.nsession; i++)
		fprintf(out, "%s %s %s", i ? "," : "", noted.session_name[i], noted.session_value[i]);
	fprintf(out, "\n");
}

void environment_collect(struct environment *env, const struct options *opt, unsigned backend_flags,
			 const char *directory)
{
	struct utsname u;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	char buf[512];

	memset(env, 0, sizeof(*env));
	if (DBENCH_GIT_DESCRIBE[0])
		env->git_describe = xstrdup(DBENCH_GIT_DESCRIBE);
	if (uname(&u) == 0) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		env->kernel = xstrdup(buf);
	}
	env->cpu_model = cpuinfo_model();
	env->cpus = (int)MAX(sysconf(_SC_NPROCESSORS_ONLN), 0);
	env->memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	if ((backend_flags & BACKEND_DIRECTORY) && directory)
		directory_collect(env, directory);
	if ((backend_flags & BACKEND_SERVER) && opt->server) {
		if (opt->port)
			snprintf(buf, sizeof(buf), "%s port %d", opt->server, opt->port);
		else
			snprintf(buf, sizeof(buf), "%s", opt->server);
		env->server = xstrdup(buf);
	}
	snprintf(buf, sizeof(buf), "%d", opt->clients_per_process);
	environment_add_option(env, "clients_per_process", buf);
	if (opt->iodepth > 1) {
		snprintf(buf, sizeof(buf), "%d", opt->iodepth);
		environment_add_option(env, "iodepth", buf);
	}
	for (int i = 0; i < noted.nsession; i++)
		add_session(env, noted.session_name[i], noted.session_value[i]);
}

void environment_free(struct environment *env)
{
	free(env->git_describe);
	free(env->kernel);
	free(env->cpu_model);
	free(env->directory);
	free(env->fs_type);
	free(env->fs_magic);
	free(env->mount_point);
	free(env->mount_source);
	free(env->mount_options);
	free(env->super_options);
	free(env->server);
	free_pairs(env->option_name, env->option_value, env->noptions);
	free_pairs(env->session_name, env->session_value, env->nsession);
	memset(env, 0, sizeof(*env));
}

void environment_copy(struct environment *to, const struct environment *from)
{
	*to = *from;
	to->git_describe = dup_or_null(from->git_describe);
	to->kernel = dup_or_null(from->kernel);
	to->cpu_model = dup_or_null(from->cpu_model);
	to->directory = dup_or_null(from->directory);
	to->fs_type = dup_or_null(from->fs_type);
	to->fs_magic = dup_or_null(from->fs_magic);
	to->mount_point = dup_or_null(from->mount_point);
	to->mount_source = dup_or_null(from->mount_source);
	to->mount_options = dup_or_null(from->mount_options);
	to->super_options = dup_or_null(from->super_options);
	to->server = dup_or_null(from->server);
	to->noptions = 0;
	to->option_name = to->option_value = NULL;
	for (int i = 0; i < from->noptions; i++)
		environment_add_option(to, from->option_name[i], from->option_value[i]);
	to->nsession = 0;
	to->session_name = to->session_value = NULL;
	for (int i = 0; i < from->nsession; i++)
		add_session(to, from->session_name[i], from->session_value[i]);
}

static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *environment_to_json(const struct environment *env)
{
	json_t *obj = json_object(), *opts = json_object();

	json_object_set_new(obj, "git_describe", string_or_null(env->git_describe));
	json_object_set_new(obj, "kernel", string_or_null(env->kernel));
	json_object_set_new(obj, "cpu_model", string_or_null(env->cpu_model));
	json_object_set_new(obj, "cpus", json_integer(env->cpus));
	json_object_set_new(obj, "memory_bytes", json_integer((json_int_t)env->memory_bytes));
	if (env->directory)
		json_object_set_new(obj, "directory", json_pack("{s:s s:o s:o s:o s:o s:o s:o}",
			"path", env->directory,
			"fs_type", string_or_null(env->fs_type),
			"fs_magic", string_or_null(env->fs_magic),
			"mount_point", string_or_null(env->mount_point),
			"mount_source", string_or_null(env->mount_source),
			"mount_options", string_or_null(env->mount_options),
			"super_options", string_or_null(env->super_options)));
	else
		json_object_set_new(obj, "directory", json_null());
	json_object_set_new(obj, "server", string_or_null(env->server));
	for (int i = 0; i < env->noptions; i++)
		json_object_set_new(opts, env->option_name[i], json_string(env->option_value[i]));
	json_object_set_new(obj, "options", opts);
	if (env->nsession) {
		json_t *session = json_object();

		for (int i = 0; i < env->nsession; i++)
			json_object_set_new(session, env->session_name[i],
					    json_string(env->session_value[i]));
		json_object_set_new(obj, "session", session);
	}	/* else none: a document of a backend that tells nothing is as before */
	return obj;
}

/* A string member, or NULL. */
static char *string_of(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

int environment_from_json(struct environment *env, const json_t *obj, char *err, size_t errlen)
{
	const json_t *dir, *opts, *session, *v;
	const char *key;

	memset(env, 0, sizeof(*env));
	if (!obj || json_is_null(obj))
		return 0;
	if (!json_is_object(obj)) {
		snprintf(err, errlen, "environment is not an object");
		return -1;
	}
	env->git_describe = string_of(obj, "git_describe");
	env->kernel = string_of(obj, "kernel");
	env->cpu_model = string_of(obj, "cpu_model");
	env->cpus = (int)json_integer_value(json_object_get(obj, "cpus"));
	env->memory_bytes = (uint64_t)json_integer_value(json_object_get(obj, "memory_bytes"));
	dir = json_object_get(obj, "directory");
	if (json_is_object(dir)) {
		env->directory = string_of(dir, "path");
		env->fs_type = string_of(dir, "fs_type");
		env->fs_magic = string_of(dir, "fs_magic");
		env->mount_point = string_of(dir, "mount_point");
		env->mount_source = string_of(dir, "mount_source");
		env->mount_options = string_of(dir, "mount_options");
		env->super_options = string_of(dir, "super_options");
	}
	env->server = string_of(obj, "server");
	opts = json_object_get(obj, "options");
	if (json_is_object(opts))
		json_object_foreach((json_t *)opts, key, v)
			if (json_is_string(v))
				environment_add_option(env, key, json_string_value(v));
	session = json_object_get(obj, "session");
	if (json_is_object(session))
		json_object_foreach((json_t *)session, key, v)
			if (json_is_string(v))
				add_session(env, key, json_string_value(v));
	return 0;
}
