/*
 * backend.c - the registry of backends: the ones built into the program
 * and the ones loaded from modules (dbench-NAME.so, dlopen'ed only when
 * -B NAME asks for one, or for --help's list).
 *
 * A module is looked for in the directories of $DBENCH_MODULE_PATH
 * (colon-separated) when it is set, else next to the running program (a
 * build tree runs without installing), under the same prefix as the
 * running program (an install under DESTDIR), and in PKGLIBDIR.  A module
 * exports one symbol, dbench_backend, pointing at its struct backend,
 * whose first field says which interface it was built for.  Every failure
 * is one line: unknown backend, module missing, a file that is not a whole
 * shared object for this machine (checked before dlopen, which would die of
 * SIGBUS on a truncated one), built for another dbench, or a library it
 * needs missing (with the Debian package that has it).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "util.h"

#ifndef PKGLIBDIR
#define PKGLIBDIR "/usr/local/lib/dbench"
#endif
#ifndef BINDIR
#define BINDIR "/usr/local/bin"
#endif
/* What configure knew about each module: "NAME:BUILT:RUNTIME-PACKAGE:
 * DEV-PACKAGE" entries separated by spaces (BUILT is yes or no). */
#ifndef MODULE_PACKAGES
#define MODULE_PACKAGES ""
#endif

#define MODULE_PREFIX "dbench-"
#define MODULE_SUFFIX ".so"

extern const struct backend fileio_backend;
extern const struct backend sockio_backend;
extern const struct backend null_backend;
extern const struct backend block_backend;
extern const struct backend scsi_backend;

static const struct backend *const builtin[] = {
	&fileio_backend,
	&sockio_backend,
	&null_backend,
	&block_backend,
	&scsi_backend,
};

/* A backend known to the registry: built in (path NULL), loaded from
 * path, or a module that failed to load (be NULL, why set). */
struct entry {
	const struct backend *be;
	char *name;
	char *path;
	char *why;
};

static struct entry *entries;
static size_t nentries, capacity;
static const struct backend **list;	/* the loaded ones, NULL-terminated */
static bool all_loaded;

static void add_entry(const struct backend *be, const char *name, const char *path, const char *why)
{
	size_t n = 0;

	if (nentries == capacity) {
		capacity = capacity ? 2 * capacity : 16;
		entries = xrealloc(entries, capacity * sizeof(*entries));
	}
	entries[nentries++] = (struct entry){
		.be = be,
		.name = xstrdup(name),
		.path = path ? xstrdup(path) : NULL,
		.why = why ? xstrdup(why) : NULL,
	};
	list = xrealloc(list, (nentries + 1) * sizeof(*list));
	for (size_t i = 0; i < nentries; i++)
		if (entries[i].be)
			list[n++] = entries[i].be;
	list[n] = NULL;
}

static void init_builtin(void)
{
	if (entries)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		add_entry(builtin[i], builtin[i]->name, NULL, NULL);
}

static struct entry *entry_named(const char *name)
{
	for (size_t i = 0; i < nentries; i++)
		if (strcmp(entries[i].name, name) == 0)
			return &entries[i];
	return NULL;
}

const struct backend *const *backend_list(void)
{
	init_builtin();
	return list;
}

const char *backend_default(int as_tbench)
{
	return as_tbench ? sockio_backend.name : fileio_backend.name;
}

/* ---- where modules are ---- */

/* The directory of the running program, or "" if unknown. */
static const char *program_dir(void)
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

/* The directories to look in, colon-separated, in order. */
static const char *module_path(void)
{
	static char path[3 * PATH_MAX + 8];
	const char *env = getenv("DBENCH_MODULE_PATH");
	const char *dir = program_dir();
	size_t dlen = strlen(dir), blen = strlen(BINDIR);

	if (env)
		return env;
	if (path[0])
		return path;
	if (!*dir || strcmp(dir, BINDIR) == 0) {
		snprintf(path, sizeof(path), "%s", PKGLIBDIR);
	} else if (dlen > blen && strcmp(dir + dlen - blen, BINDIR) == 0) {
		/* installed under DESTDIR (or a copied root): DESTDIR/PKGLIBDIR */
		snprintf(path, sizeof(path), "%.*s%s:%s", (int)(dlen - blen), dir, PKGLIBDIR, PKGLIBDIR);
	} else {
		snprintf(path, sizeof(path), "%s:%s", dir, PKGLIBDIR);
	}
	return path;
}

/* Call fn(dir, arg) for each directory of the module path until it
 * returns non-zero; returns that value, or 0. */
static int each_module_dir(int (*fn)(const char *dir, void *arg), void *arg)
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

/* A backend name is a word: letters, digits, '_' and '-'. */
static bool valid_name(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	for (const char *s = name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return false;
	return true;
}

/* ---- what configure knew: the packages ---- */

struct package_hint {
	bool known;		/* configure knew of this module */
	bool built;		/* ... and built it */
	char runtime[64];	/* the Debian package of the library it needs */
	char dev[64];		/* the one to build it */
};

static struct package_hint package_hint(const char *name)
{
	struct package_hint h = { 0 };
	const char *p = MODULE_PACKAGES;
	size_t nlen = strlen(name);

	while (*p) {
		size_t len = strcspn(p, " ");

		if (len > nlen && strncmp(p, name, nlen) == 0 && p[nlen] == ':') {
			char built[8] = "";

			if (sscanf(p + nlen + 1, "%7[^:]:%63[^:]:%63[^: ]", built, h.runtime, h.dev) == 3) {
				h.known = true;
				h.built = strcmp(built, "yes") == 0;
			}
			break;
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	return h;
}

/* ---- loading ---- */

struct lookup {
	const char *name;
	char path[PATH_MAX];
	bool found;
};

static int look_in(const char *dir, void *arg)
{
	struct lookup *l = arg;

	snprintf(l->path, sizeof(l->path), "%s/" MODULE_PREFIX "%s" MODULE_SUFFIX, dir, l->name);
	if (access(l->path, F_OK) == 0) {
		l->found = true;
		return 1;
	}
	return 0;
}

/* Why dlopen failed, in one line: a missing library names its package. */
static void explain_dlerror(const char *name, const char *path, const char *err, char *why, size_t whylen)
{
	const char *colon = strchr(err, ':');
	static const char missing[] = ": cannot open shared object file";
	struct package_hint h = package_hint(name);

	if (colon && strncmp(colon, missing, sizeof(missing) - 1) == 0 &&
	    strncmp(err, path, (size_t)(colon - err)) != 0) {
		int liblen = (int)(colon - err);

		if (h.known && h.runtime[0])
			snprintf(why, whylen, "the %s backend needs %.*s, which is missing: install the Debian package %s",
				 name, liblen, err, h.runtime);
		else
			snprintf(why, whylen, "the %s backend needs %.*s, which is missing: install the package that has it",
				 name, liblen, err);
		return;
	}
	snprintf(why, whylen, "cannot load the %s backend from %s: %s", name, path, err);
}

/* The ELF header of the running program (GNU ld and lld define it): a
 * module must be of the same class, byte order and machine. */
extern const ElfW(Ehdr) __ehdr_start __attribute__((weak));

#if __ELF_NATIVE_CLASS == 64
#define ELF_NATIVE_CLASS ELFCLASS64
#else
#define ELF_NATIVE_CLASS ELFCLASS32
#endif

/* Does the table of n entries of size entsize at offset off lie within a
 * file of size bytes? */
static bool table_within(uint64_t off, uint64_t n, uint64_t entsize, uint64_t size)
{
	return off <= size && n <= (size - off) / (entsize ? entsize : 1);
}

/*
 * Is the file at path a whole shared object that dlopen can map?  dlopen
 * maps the segments a program header names without checking that the file
 * holds them, and a truncated module (an interrupted install) then dies of
 * SIGBUS at the first page past its end.  The file is read with pread (not
 * mapped): its ELF header, class, byte order, type and machine, and that its
 * program header table, each loaded segment and its section header table end
 * within the file.  Returns 0, or -1 with the reason in why.
 */
static int check_module_file(const char *path, char *why, size_t whylen)
{
	const ElfW(Ehdr) *self = &__ehdr_start;	/* NULL if the linker has none */
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	struct stat st;
	uint64_t size, shnum;
	ssize_t n;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file");
		goto out;
	}
	size = (uint64_t)st.st_size;
	n = pread(fd, &eh, sizeof(eh), 0);
	if (n < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto out;
	}
	if ((size_t)n < EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		snprintf(why, whylen, "not an ELF file%s", size == 0 ? " (it is empty)" : "");
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELF_NATIVE_CLASS ||
	    (self && (eh.e_ident[EI_DATA] != self->e_ident[EI_DATA] ||
		      ((size_t)n == sizeof(eh) && eh.e_machine != self->e_machine)))) {
		snprintf(why, whylen, "an ELF file for another machine (class %u, byte order %u, machine %u; "
			 "this program: %u, %u, %u)", eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA],
			 (size_t)n == sizeof(eh) ? eh.e_machine : 0, ELF_NATIVE_CLASS,
			 self ? self->e_ident[EI_DATA] : 0, self ? self->e_machine : 0);
		goto out;
	}
	if ((size_t)n < sizeof(eh)) {
		snprintf(why, whylen, "the file is truncated (%llu bytes: not even its ELF header)",
			 (unsigned long long)size);
		goto out;
	}
	if (eh.e_type != ET_DYN) {
		snprintf(why, whylen, "not a shared object (ELF type %u)", eh.e_type);
		goto out;
	}
	if (eh.e_phentsize != sizeof(ph) || eh.e_phnum == 0 ||
	    !table_within(eh.e_phoff, eh.e_phnum, sizeof(ph), size)) {
		snprintf(why, whylen, "the file is truncated or damaged (its program header table, "
			 "%u entries at byte %llu, is not within its %llu bytes)", eh.e_phnum,
			 (unsigned long long)eh.e_phoff, (unsigned long long)size);
		goto out;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph)) {
			snprintf(why, whylen, "cannot read its program header %u", i);
			goto out;
		}
		if ((ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) &&
		    !table_within(ph.p_offset, ph.p_filesz, 1, size)) {
			snprintf(why, whylen, "the file is truncated (a segment ends at byte %llu, "
				 "the file has %llu bytes)",
				 (unsigned long long)(ph.p_offset + ph.p_filesz), (unsigned long long)size);
			goto out;
		}
	}
	/* e_shnum 0 with a table: the count is in the first entry's sh_size */
	shnum = eh.e_shnum;
	if (eh.e_shoff && shnum == 0 && eh.e_shentsize == sizeof(ElfW(Shdr)) &&
	    table_within(eh.e_shoff, 1, sizeof(ElfW(Shdr)), size)) {
		ElfW(Shdr) sh0;

		if (pread(fd, &sh0, sizeof(sh0), (off_t)eh.e_shoff) == (ssize_t)sizeof(sh0))
			shnum = sh0.sh_size;
	}
	if (eh.e_shoff && (eh.e_shentsize != sizeof(ElfW(Shdr)) ||
			   !table_within(eh.e_shoff, shnum, sizeof(ElfW(Shdr)), size))) {
		snprintf(why, whylen, "the file is truncated (its section header table ends at byte %llu, "
			 "the file has %llu bytes)",
			 (unsigned long long)(eh.e_shoff + shnum * eh.e_shentsize), (unsigned long long)size);
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static const struct backend *load_module(const char *name, const char *path, char *why, size_t whylen)
{
	static const struct backend_abi want = BACKEND_ABI;
	const struct backend *const *sym;
	const struct backend *be;
	void *handle;
	const char *err;

	if (check_module_file(path, why, whylen) < 0) {
		char reason[256];

		snprintf(reason, sizeof(reason), "%s", why);
		snprintf(why, whylen, "cannot load the %s backend from %s: %s: reinstall it", name, path,
			 reason);
		return NULL;
	}
	/* RTLD_LOCAL: two modules may use the same names; a module still
	 * finds its own libraries with dlsym(RTLD_DEFAULT, ...) */
	dlerror();
	handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!handle) {
		err = dlerror();
		explain_dlerror(name, path, err ? err : "unknown error", why, whylen);
		return NULL;
	}
	sym = dlsym(handle, BACKEND_MODULE_SYMBOL);
	if (!sym || !*sym) {
		snprintf(why, whylen, "%s is not a dbench backend module (no %s symbol)", path,
			 BACKEND_MODULE_SYMBOL);
		dlclose(handle);
		return NULL;
	}
	be = *sym;
	if (memcmp(&be->abi, &want, sizeof(want)) != 0) {
		snprintf(why, whylen,
			 "%s was built for another dbench (backend interface %u, sizes %u/%u/%u; this dbench: %u, %u/%u/%u): rebuild or reinstall it",
			 path, be->abi.interface, be->abi.backend_size, be->abi.client_size, be->abi.options_size,
			 want.interface, want.backend_size, want.client_size, want.options_size);
		dlclose(handle);
		return NULL;
	}
	if (!be->name || strcmp(be->name, name) != 0) {
		snprintf(why, whylen, "%s is the module of backend '%s', not '%s'", path,
			 be->name ? be->name : "(no name)", name);
		dlclose(handle);
		return NULL;
	}
	return be;		/* never unloaded: its code runs until exit */
}

/* Load the module of backend name, once; failures are remembered. */
static struct entry *load_named(const char *name, const char *path)
{
	char why[PATH_MAX + 512];
	const struct backend *be = load_module(name, path, why, sizeof(why));

	add_entry(be, name, path, be ? NULL : why);
	return &entries[nentries - 1];
}

/* The names of the backends known, for the unknown-backend message. */
static void known_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nentries && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", entries[i].name);
}

const struct backend *backend_find(const char *name, char *why, size_t whylen)
{
	struct lookup l = { .name = name };
	struct entry *e;
	char names[512];

	init_builtin();
	e = entry_named(name);
	if (!e && valid_name(name) && each_module_dir(look_in, &l))
		e = load_named(name, l.path);
	if (e) {
		if (!e->be)
			snprintf(why, whylen, "%s", e->why);
		return e->be;
	}

	struct package_hint h = package_hint(name);

	if (h.known && !h.built) {
		snprintf(why, whylen, "this dbench was built without the %s backend: install %s and rebuild", name,
			 h.dev);
		return NULL;
	}
	if (h.known) {
		snprintf(why, whylen, "the %s backend's module " MODULE_PREFIX "%s" MODULE_SUFFIX
			 " is not installed (looked in %s)", name, name, module_path());
		return NULL;
	}
	backend_load_all();
	known_names(names, sizeof(names));
	snprintf(why, whylen, "unknown backend '%s' (known: %s)", name, names);
	return NULL;
}

static int load_dir(const char *dir, void *arg)
{
	static const size_t plen = sizeof(MODULE_PREFIX) - 1, slen = sizeof(MODULE_SUFFIX) - 1;
	struct dirent **names;
	int n;

	(void)arg;
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		size_t len = strlen(f);
		char name[PATH_MAX], path[PATH_MAX + 2];

		if (len > plen + slen && strncmp(f, MODULE_PREFIX, plen) == 0 &&
		    strcmp(f + len - slen, MODULE_SUFFIX) == 0) {
			snprintf(name, sizeof(name), "%.*s", (int)(len - plen - slen), f + plen);
			snprintf(path, sizeof(path), "%s/%s", dir, f);
			if (valid_name(name) && !entry_named(name))
				load_named(name, path);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

void backend_load_all(void)
{
	init_builtin();
	if (all_loaded)
		return;
	all_loaded = true;
	each_module_dir(load_dir, NULL);
}

static void print_traits(FILE *out, const struct entry *e)
{
	static const struct {
		unsigned flag;
		const char *name;
	} traits[] = {
		{ BACKEND_DIRECTORY, "works in -D" },
		{ BACKEND_SERVER, "takes a server" },
		{ BACKEND_NETWORK, "network" },
		{ BACKEND_FILES, "file options" },
		{ BACKEND_NFS_OPS, "NFS ops" },
		{ BACKEND_BLOCK, "block storage" },
	};
	const char *sep = "";

	fprintf(out, "  %-8s (", "");
	for (size_t i = 0; i < ARRAY_SIZE(traits); i++) {
		if (e->be->flags & traits[i].flag) {
			fprintf(out, "%s%s", sep, traits[i].name);
			sep = ", ";
		}
	}
	if (e->be == &fileio_backend || e->be == &sockio_backend) {
		fprintf(out, "%s%s's default", sep, e->be == &fileio_backend ? "dbench" : "tbench");
		sep = ", ";
	}
	if (e->path)
		fprintf(out, "%smodule %s", sep, e->path);
	else
		fprintf(out, "%sbuilt in", sep);
	fprintf(out, ")\n");
}

void backend_print_help(FILE *out)
{
	backend_load_all();
	fprintf(out, "\nBackends (-B NAME):\n");
	for (size_t i = 0; i < nentries; i++) {
		const struct entry *e = &entries[i];

		if (!e->be) {
			fprintf(out, "  %-8s cannot be used: %s\n", e->name, e->why);
			continue;
		}
		fprintf(out, "  %-8s %s\n", e->name, e->be->description ? e->be->description : "");
		print_traits(out, e);
	}
	fprintf(out, "Modules (" MODULE_PREFIX "NAME" MODULE_SUFFIX ") are looked for in %s%s\n", module_path(),
		getenv("DBENCH_MODULE_PATH") ? " ($DBENCH_MODULE_PATH)" : " (set DBENCH_MODULE_PATH to change)");
}
