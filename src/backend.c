/*
 * backend.c - the registry of backends: the ones built into the program
 * and the ones loaded from modules (dbench-NAME.so, dlopen'ed only when
 * -B NAME asks for one, or for --help's list).
 *
 * Modules are found and opened by module.c.  A backend module exports one
 * symbol, dbench_backend, pointing at its struct backend, whose first
 * field says which interface it was built for; its required hooks and
 * its option table are checked before it is used (as fio checks an
 * engine's ops).  Every failure is one line: unknown backend, module
 * missing (with the package that has it, where configure was told), a
 * file that is not a whole shared object for this machine (checked before
 * dlopen, which would die of SIGBUS on a truncated one), built for another
 * dbench, lacking a required hook, or a library it needs missing (with the
 * Debian package that has it).
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
#include "environment.h"
#include "module.h"
#include "backends/netbench.h"
#include "util.h"

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

/* The bytes an option's value takes in the block. */
static size_t option_size(const struct backend_option *o)
{
	return o->type == BOPT_FLAG ? sizeof(int) : sizeof(const char *);
}

int backend_check(const struct backend *be, char *why, size_t whylen)
{
	static const struct {
		size_t offset;
		const char *name;
	} required[] = {
		{ offsetof(struct backend, setup), "setup" },
		{ offsetof(struct backend, remove_tree), "remove_tree" },
		{ offsetof(struct backend, exists), "exists" },
	};
	int ops = 0, dirs = 0;

	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		void *const *hook = (void *const *)((const char *)be + required[i].offset);

		if (!*hook) {
			snprintf(why, whylen, "the %s backend has no %s hook, which every backend needs",
				 be->name, required[i].name);
			return -1;
		}
	}
	for (int id = 0; id < OP_COUNT; id++)
		ops += be->op[id] != NULL;
	if (!ops) {
		snprintf(why, whylen, "the %s backend has no op handler (op[] is empty)", be->name);
		return -1;
	}
	for (const struct backend_option *o = be->options; o && o->name; o++) {
		if (o->offset + option_size(o) > be->options_size) {
			snprintf(why, whylen, "the %s backend's option --%s lies outside its option block (options_size %zu)",
				 be->name, o->name, be->options_size);
			return -1;
		}
		dirs += o->type == BOPT_DIRECTORY;
	}
	if ((be->flags & BACKEND_ASYNC) && !be->expire) {
		snprintf(why, whylen, "the %s backend is asynchronous (BACKEND_ASYNC) but has no expire hook",
			 be->name);
		return -1;
	}
	if (be->queueable && !(be->flags & BACKEND_ASYNC)) {
		snprintf(why, whylen, "the %s backend has a queue (queueable) but is not asynchronous (BACKEND_ASYNC)",
			 be->name);
		return -1;
	}
	if ((be->flags & BACKEND_FILES) && be->options_size < sizeof(struct nb_options)) {
		snprintf(why, whylen, "the %s backend takes the file options, but its option block is smaller than struct nb_options",
			 be->name);
		return -1;
	}
	if ((be->flags & BACKEND_DIRECTORY) && dirs != 1) {
		snprintf(why, whylen, "the %s backend works in a directory, but has %d BOPT_DIRECTORY options (not 1)",
			 be->name, dirs);
		return -1;
	}
	return 0;
}

static void init_builtin(void)
{
	char why[256];

	if (entries)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		bool ok = backend_check(builtin[i], why, sizeof(why)) == 0;

		add_entry(ok ? builtin[i] : NULL, builtin[i]->name, NULL, ok ? NULL : why);
	}
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

/* ---- loading ---- */

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
	char problem[256];
	const struct backend *const *sym;
	const struct backend *be;
	void *handle;
	char what[96];

	if (check_module_file(path, why, whylen) < 0) {
		char reason[256];

		snprintf(reason, sizeof(reason), "%s", why);
		snprintf(why, whylen, "cannot load the %s backend from %s: %s: reinstall it", name, path,
			 reason);
		return NULL;
	}
	/* RTLD_LOCAL: two modules may use the same names; a module still
	 * finds its own libraries with dlsym(RTLD_DEFAULT, ...) */
	snprintf(what, sizeof(what), "the %s backend", name);
	handle = module_open(name, what, path, RTLD_LAZY | RTLD_LOCAL, why, whylen);
	if (!handle)
		return NULL;
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
			 path, be->abi.interface, be->abi.backend_size, be->abi.client_size, be->abi.run_info_size,
			 want.interface, want.backend_size, want.client_size, want.run_info_size);
		dlclose(handle);
		return NULL;
	}
	if (!be->name || strcmp(be->name, name) != 0) {
		snprintf(why, whylen, "%s is the module of backend '%s', not '%s'", path,
			 be->name ? be->name : "(no name)", name);
		dlclose(handle);
		return NULL;
	}
	if (backend_check(be, problem, sizeof(problem)) < 0) {
		snprintf(why, whylen, "%s: %s: rebuild or fix the module", path, problem);
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
	char path[PATH_MAX];
	struct entry *e;
	char names[512];

	init_builtin();
	e = entry_named(name);
	if (!e && module_is_backend(name) && module_find(name, path, sizeof(path)))
		e = load_named(name, path);
	if (e) {
		if (!e->be)
			snprintf(why, whylen, "%s", e->why);
		return e->be;
	}

	struct module_hint h = module_is_backend(name) ? module_hint(name) : (struct module_hint){ 0 };

	if (h.known && !h.built) {
		snprintf(why, whylen, "this dbench was built without the %s backend: install %s and rebuild", name,
			 h.dev);
		return NULL;
	}
	if (h.known) {
		char what[96];

		snprintf(what, sizeof(what), "the %s backend's module", name);
		module_not_installed(name, what, why, whylen);
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
			if (module_valid_name(name) && module_is_backend(name) && !entry_named(name))
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
	module_each_dir(load_dir, NULL);
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
		{ BACKEND_ASYNC, "asynchronous" },
	};
	const char *sep = "";

	fprintf(out, "  %-8s (", "");
	for (size_t i = 0; i < ARRAY_SIZE(traits); i++) {
		if (e->be->flags & traits[i].flag) {
			fprintf(out, "%s%s", sep, traits[i].name);
			sep = ", ";
		}
	}
	if (e->be->queueable) {
		fprintf(out, "%squeue: --iodepth", sep);
		sep = ", ";
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

/* A module this dbench was built with, whose package is not installed. */
static void print_not_installed(const char *name, void *arg)
{
	struct module_hint h = module_hint(name);

	if (module_is_backend(name) && h.package[0] && !entry_named(name))
		fprintf(arg, "  %-8s not installed: apt install %s\n", name, h.package);
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
	module_each_built(print_not_installed, out);
	fprintf(out, "Modules (" MODULE_PREFIX "NAME" MODULE_SUFFIX ") are looked for in %s%s\n", module_path(),
		module_path_from_env() ? " ($DBENCH_MODULE_PATH)" : " (set DBENCH_MODULE_PATH to change)");
}

void backend_queue_names(char *buf, size_t len)
{
	size_t n = 0;

	backend_load_all();
	buf[0] = '\0';
	for (size_t i = 0; i < nentries && n < len; i++)
		if (entries[i].be && entries[i].be->queueable)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", entries[i].name);
	if (!buf[0])
		snprintf(buf, len, "none installed");
}

const char *backend_directory(const struct backend *be, const void *be_opt)
{
	for (const struct backend_option *o = be->options; be_opt && o && o->name; o++)
		if (o->type == BOPT_DIRECTORY)
			return *(const char *const *)((const char *)be_opt + o->offset);
	return NULL;
}

void backend_set_directory(const struct backend *be, void *be_opt, const char *dir)
{
	for (const struct backend_option *o = be->options; be_opt && o && o->name; o++)
		if (o->type == BOPT_DIRECTORY)
			*(const char **)((char *)be_opt + o->offset) = dir;
}

static void options_to_environment(const struct backend_option *table, const void *block,
				   struct environment *env)
{
	for (const struct backend_option *o = table; o && o->name; o++) {
		const char *value;

		if (!o->result_name)
			continue;
		if (o->type == BOPT_FLAG)
			value = *(const int *)((const char *)block + o->offset) ? "yes" : "no";
		else
			value = *(const char *const *)((const char *)block + o->offset);
		environment_add_option(env, o->result_name, value ? value : "");
	}
}

void backend_options_to_environment(const struct backend *be, const void *be_opt,
				    struct environment *env)
{
	if (!be_opt)
		return;
	if (be->flags & BACKEND_FILES)
		options_to_environment(nb_file_options, be_opt, env);
	options_to_environment(be->options, be_opt, env);
}
