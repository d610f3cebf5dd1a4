/*
 * genload_model.c - genload's in-memory model of the client's tree
 * (directories, files with sizes, open handles, locks), the seeded random
 * stream, and the operations it emits, each with the status the model
 * predicts; names of documents and temporary files.  See genload.h.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "genload.h"

const char *const gl_op_names[K_COUNT] = {
	"ReadX", "NTCreateX", "QUERY_PATH_INFORMATION", "Close", "WriteX",
	"FIND_FIRST", "Unlink", "QUERY_FS_INFORMATION",
	"QUERY_FILE_INFORMATION", "SET_FILE_INFORMATION", "Flush", "Rename",
	"LockX", "UnlockX", "Mkdir", "Rmdir", "Deltree",
};

const char *const gl_status_names[ST_COUNT] = {
	"NT_STATUS_OK", "NT_STATUS_OBJECT_NAME_NOT_FOUND",
	"NT_STATUS_OBJECT_PATH_NOT_FOUND", "NT_STATUS_NO_SUCH_FILE",
	"NT_STATUS_END_OF_FILE",
};

/* Stems of document names (8.3 names with two digits): none is a prefix of
 * another, so `?` patterns match what they seem to. */
static const char *const stems[] = {
	"REPORT", "BUDGET", "MEMO", "AGENDA", "MINUTE", "FCAST", "INVOIC",
	"PROPSL", "ROADMP", "SUMMRY", "PAYROL", "SALES", "PLAN", "CONTRC",
	"NEWSLT", "BROCHR", "ORGCHT", "NETWRK", "SCHED", "INVENT", "CUSTMR",
	"ORDERS", "TIMESH", "EXPENS", "QUOTE", "LETTER", "PRICES", "STAFF",
	"TRAIN", "AUDIT",
};

/* A stem for a document name, at random. */
const char *gl_pick_stem(struct gen *gen)
{
	return stems[gl_rng_below(gen, sizeof(stems) / sizeof(stems[0]))];
}

void gl_die(const char *fmt, ...)
{
	va_list ap;

	fputs("genload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* splitmix64: small, fast, and the same sequence everywhere. */
static uint64_t rng_next(struct gen *gen)
{
	uint64_t z = (gen->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n). */
uint64_t gl_rng_below(struct gen *gen, uint64_t n)
{
	return n ? rng_next(gen) % n : 0;
}

/* A number in [lo, hi]. */
uint64_t gl_rng_range(struct gen *gen, uint64_t lo, uint64_t hi)
{
	return lo + gl_rng_below(gen, hi - lo + 1);
}

/* True with the given chance in percent. */
bool gl_chance(struct gen *gen, unsigned percent)
{
	return gl_rng_below(gen, 100) < percent;
}

/* ---- the model of the tree ---- */

static long node_find(const struct gen *gen, const char *path)
{
	for (size_t i = 0; i < gen->node_count; i++)
		if (strcasecmp(gen->nodes[i].path, path) == 0)
			return (long)i;
	return -1;
}

size_t gl_node_add(struct gen *gen, const char *path, bool is_dir)
{
	struct node *node;

	if (strlen(path) >= MAX_PATH_LEN)
		gl_die("internal error: path too long: %s", path);
	if (gen->node_count == gen->node_cap) {
		gen->node_cap = gen->node_cap ? gen->node_cap * 2 : 256;
		gen->nodes = realloc(gen->nodes,
				     gen->node_cap * sizeof(*gen->nodes));
		if (!gen->nodes)
			gl_die("out of memory");
	}
	node = &gen->nodes[gen->node_count];
	memset(node, 0, sizeof(*node));
	strcpy(node->path, path);
	node->is_dir = is_dir;
	return gen->node_count++;
}

/* Remove a node: the last one takes its slot, handles follow it. */
static void node_remove(struct gen *gen, size_t index)
{
	size_t last = gen->node_count - 1;

	if (gen->nodes[index].open_count)
		gl_die("internal error: removing open %s", gen->nodes[index].path);
	gen->nodes[index] = gen->nodes[last];
	gen->node_count--;
	for (int h = 0; h < MAX_HANDLES; h++)
		if (gen->handles[h].in_use && gen->handles[h].node == last)
			gen->handles[h].node = index;
}

/* The directory part of a path ("" for a top-level name). */
void gl_parent_of(const char *path, char *parent)
{
	const char *slash = strrchr(path, '\\');
	size_t len = slash ? (size_t)(slash - path) : 0;

	memcpy(parent, path, len);
	parent[len] = '\0';
}

const char *gl_base_of(const char *path)
{
	const char *slash = strrchr(path, '\\');

	return slash ? slash + 1 : path;
}

/*
 * Look a path up as the server would: OK and its index, NAME_NOT_FOUND when
 * the parent directory exists but the name does not, PATH_NOT_FOUND when the
 * parent does not exist (or is a file).
 */
static enum status lookup(const struct gen *gen, const char *path, long *index)
{
	char parent[MAX_PATH_LEN];
	long p;

	*index = node_find(gen, path);
	if (*index >= 0)
		return ST_OK;
	gl_parent_of(path, parent);
	p = node_find(gen, parent);
	if (p < 0 || !gen->nodes[p].is_dir)
		return ST_PATH_NOT_FOUND;
	return ST_NAME_NOT_FOUND;
}

bool gl_exists(const struct gen *gen, const char *path)
{
	return node_find(gen, path) >= 0;
}

/* Case-insensitive match of `*` and `?` against one name. */
static bool wild_match(const char *pattern, const char *name)
{
	for (; *pattern; pattern++, name++) {
		if (*pattern == '*') {
			for (;; name++) {
				if (wild_match(pattern + 1, name))
					return true;
				if (!*name)
					return false;
			}
		}
		if (!*name)
			return false;
		if (*pattern != '?' &&
		    tolower((unsigned char)*pattern) != tolower((unsigned char)*name))
			return false;
	}
	return !*name;
}

/* Entries of a directory that match a pattern. */
static unsigned count_matches(const struct gen *gen, const char *dir,
			      const char *pattern)
{
	char parent[MAX_PATH_LEN];
	unsigned count = 0;

	for (size_t i = 0; i < gen->node_count; i++) {
		if (!gen->nodes[i].path[0])
			continue;
		gl_parent_of(gen->nodes[i].path, parent);
		if (strcasecmp(parent, dir) == 0 &&
		    wild_match(pattern, gl_base_of(gen->nodes[i].path)))
			count++;
	}
	return count;
}

/* ---- emitting operations ---- */

void gl_emit(struct gen *gen, enum op_kind kind, enum status status,
	  const char *fmt, ...)
{
	va_list ap;

	fputs(gl_op_names[kind], gen->out);
	fputc(' ', gen->out);
	va_start(ap, fmt);
	vfprintf(gen->out, fmt, ap);
	va_end(ap);
	fprintf(gen->out, " %s\n", gl_status_names[status]);
	gen->op_count[kind]++;
	gen->status_count[status]++;
	gen->total_ops++;
}

/* The lowest handle number not open now. */
unsigned gl_free_fnum(const struct gen *gen)
{
	for (unsigned fnum = FNUM_BASE;; fnum++) {
		bool taken = false;

		for (int h = 0; h < MAX_HANDLES; h++)
			if (gen->handles[h].in_use && gen->handles[h].fnum == fnum)
				taken = true;
		if (!taken)
			return fnum;
	}
}

int gl_take_handle(struct gen *gen, size_t node, unsigned fnum)
{
	for (int h = 0; h < MAX_HANDLES; h++) {
		struct handle *handle = &gen->handles[h];

		if (handle->in_use)
			continue;
		memset(handle, 0, sizeof(*handle));
		handle->in_use = true;
		handle->fnum = fnum;
		handle->node = node;
		gen->nodes[node].open_count++;
		return h;
	}
	gl_die("internal error: too many open handles");
}

struct handle *gl_handle_of(struct gen *gen, int h)
{
	if (h < 0 || h >= MAX_HANDLES || !gen->handles[h].in_use)
		gl_die("internal error: use of a handle that is not open");
	return &gen->handles[h];
}

/*
 * NTCreateX.  Returns the handle slot, or -1 when the open fails (with the
 * status the model says).  Only cases without ambiguity are allowed.
 */
int gl_ntcreatex(struct gen *gen, const char *path, unsigned options,
	      unsigned disposition)
{
	unsigned fnum = gl_free_fnum(gen);
	bool want_dir = options & OPT_DIRECTORY;
	enum status status;
	struct node *node;
	long index;
	int h;

	/* dbench 4.0 creates only with CREATE and OVERWRITE_IF: keep to those */
	if (disposition != DISP_OPEN && disposition != DISP_CREATE &&
	    disposition != DISP_OVERWRITE_IF)
		gl_die("internal error: disposition %u", disposition);
	status = lookup(gen, path, &index);
	if (status == ST_NAME_NOT_FOUND &&
	    (disposition == DISP_CREATE || disposition == DISP_OVERWRITE_IF)) {
		if (want_dir && disposition != DISP_CREATE)
			gl_die("internal error: directory made by OVERWRITE_IF");
		index = (long)gl_node_add(gen, path, want_dir);
		status = ST_OK;
	} else if (status == ST_OK) {
		node = &gen->nodes[index];
		if (disposition == DISP_CREATE)
			gl_die("internal error: CREATE of existing %s", path);
		if (want_dir && !node->is_dir)
			gl_die("internal error: directory open of file %s", path);
		if ((options & OPT_NON_DIRECTORY) && node->is_dir)
			gl_die("internal error: file open of directory %s", path);
		if (disposition == DISP_OVERWRITE_IF)
			node->size = 0;
	}
	gl_emit(gen, K_NTCREATEX, status, "\"%s%s\" 0x%x 0x%x %u", CLIENT_DIR,
	     path, options, disposition, fnum);
	if (status != ST_OK)
		return -1;
	h = gl_take_handle(gen, (size_t)index, fnum);
	gen->handles[h].delete_on_close = options & OPT_DELETE_ON_CLOSE;
	return h;
}

void gl_close_handle(struct gen *gen, int h)
{
	struct handle *handle = gl_handle_of(gen, h);
	size_t node = handle->node;

	if (handle->locked)
		gl_die("internal error: close with a lock held");
	gl_emit(gen, K_CLOSE, ST_OK, "%u", handle->fnum);
	handle->in_use = false;
	gen->nodes[node].open_count--;
	if (handle->delete_on_close && gen->nodes[node].open_count == 0)
		node_remove(gen, node);
}

/* ReadX: the model says how many bytes come back. */
void gl_readx(struct gen *gen, int h, uint64_t offset, uint64_t size)
{
	struct handle *handle = gl_handle_of(gen, h);
	uint64_t file_size = gen->nodes[handle->node].size;
	uint64_t returned = 0;
	enum status status = ST_OK;

	if (size == 0 || size > CHUNK)
		gl_die("internal error: read of %" PRIu64 " bytes", size);
	if (offset >= file_size)
		status = ST_END_OF_FILE;
	else
		returned = file_size - offset < size ? file_size - offset : size;
	gl_emit(gen, K_READX, status, "%u %" PRIu64 " %" PRIu64 " %" PRIu64,
	     handle->fnum, offset, size, returned);
	gen->bytes_read += returned;
}

void gl_writex(struct gen *gen, int h, uint64_t offset, uint64_t size)
{
	struct handle *handle = gl_handle_of(gen, h);
	struct node *node = &gen->nodes[handle->node];

	if (size == 0 || size > CHUNK)
		gl_die("internal error: write of %" PRIu64 " bytes", size);
	gl_emit(gen, K_WRITEX, ST_OK, "%u %" PRIu64 " %" PRIu64 " %" PRIu64,
	     handle->fnum, offset, size, size);
	if (offset + size > node->size)
		node->size = offset + size;
	gen->bytes_written += size;
}

void gl_flush(struct gen *gen, int h)
{
	gl_emit(gen, K_FLUSH, ST_OK, "%u", gl_handle_of(gen, h)->fnum);
}

void gl_lockx(struct gen *gen, int h, uint64_t offset, uint64_t length)
{
	struct handle *handle = gl_handle_of(gen, h);

	if (handle->locked)
		gl_die("internal error: second lock on a handle");
	gl_emit(gen, K_LOCKX, ST_OK, "%u %" PRIu64 " %" PRIu64, handle->fnum,
	     offset, length);
	handle->locked = true;
	handle->lock_offset = offset;
	handle->lock_length = length;
}

void gl_unlockx(struct gen *gen, int h)
{
	struct handle *handle = gl_handle_of(gen, h);

	if (!handle->locked)
		gl_die("internal error: unlock without a lock");
	gl_emit(gen, K_UNLOCKX, ST_OK, "%u %" PRIu64 " %" PRIu64, handle->fnum,
	     handle->lock_offset, handle->lock_length);
	handle->locked = false;
}

void gl_qfileinfo(struct gen *gen, int h, unsigned level)
{
	gl_emit(gen, K_QFILE, ST_OK, "%u %u", gl_handle_of(gen, h)->fnum, level);
}

void gl_sfileinfo(struct gen *gen, int h)
{
	gl_emit(gen, K_SFILE, ST_OK, "%u 1004", gl_handle_of(gen, h)->fnum);
}

void gl_qfsinfo(struct gen *gen, unsigned level)
{
	gl_emit(gen, K_QFS, ST_OK, "%u", level);
}

enum status gl_qpathinfo(struct gen *gen, const char *path, unsigned level)
{
	long index;
	enum status status = lookup(gen, path, &index);

	gl_emit(gen, K_QPATH, status, "\"%s%s\" %u", CLIENT_DIR, path, level);
	return status;
}

/* FIND_FIRST of dir\pattern; returns the number of entries found. */
unsigned gl_find_first(struct gen *gen, const char *dir,
		    const char *pattern, unsigned max_count)
{
	enum status status;
	unsigned count = 0;
	long index;

	status = lookup(gen, dir, &index);
	if (status == ST_OK && !gen->nodes[index].is_dir)
		gl_die("internal error: search in file %s", dir);
	if (status != ST_OK) {
		status = ST_PATH_NOT_FOUND;
	} else {
		count = count_matches(gen, dir, pattern);
		if (count > max_count)
			count = max_count;
		if (count == 0)
			status = ST_NO_SUCH_FILE;
	}
	gl_emit(gen, K_FIND, status, "\"%s%s\\%s\" %u %u %u", CLIENT_DIR, dir,
	     pattern, FIND_LEVEL, max_count, count);
	return count;
}

void gl_rename_file(struct gen *gen, const char *from, const char *to)
{
	long index = node_find(gen, from);

	if (index < 0 || gen->nodes[index].is_dir ||
	    gen->nodes[index].open_count || gl_exists(gen, to))
		gl_die("internal error: bad rename %s -> %s", from, to);
	if (strlen(to) >= MAX_PATH_LEN)
		gl_die("internal error: path too long: %s", to);
	gl_emit(gen, K_RENAME, ST_OK, "\"%s%s\" \"%s%s\"", CLIENT_DIR, from,
	     CLIENT_DIR, to);
	strcpy(gen->nodes[index].path, to);
}

void gl_unlink_file(struct gen *gen, const char *path)
{
	long index;
	enum status status = lookup(gen, path, &index);

	if (status == ST_OK &&
	    (gen->nodes[index].is_dir || gen->nodes[index].open_count))
		gl_die("internal error: bad unlink of %s", path);
	gl_emit(gen, K_UNLINK, status, "\"%s%s\" 0x6", CLIENT_DIR, path);
	if (status == ST_OK)
		node_remove(gen, (size_t)index);
}

void gl_make_dir(struct gen *gen, const char *path)
{
	long index;
	enum status status = lookup(gen, path, &index);

	if (status == ST_OK && !gen->nodes[index].is_dir)
		gl_die("internal error: mkdir over file %s", path);
	if (status == ST_PATH_NOT_FOUND)
		gl_die("internal error: mkdir without parent %s", path);
	gl_emit(gen, K_MKDIR, ST_OK, "\"%s%s\"", CLIENT_DIR, path);
	if (status == ST_NAME_NOT_FOUND)
		gl_node_add(gen, path, true);
}

void gl_remove_dir(struct gen *gen, const char *path)
{
	long index = node_find(gen, path);

	if (index < 0 || !gen->nodes[index].is_dir ||
	    gen->nodes[index].open_count || count_matches(gen, path, "*"))
		gl_die("internal error: bad rmdir of %s", path);
	gl_emit(gen, K_RMDIR, ST_OK, "\"%s%s\"", CLIENT_DIR, path);
	node_remove(gen, (size_t)index);
}

/* Deltree: everything at and below path goes; fine if it is missing. */
void gl_deltree(struct gen *gen, const char *path)
{
	size_t len = strlen(path);

	gl_emit(gen, K_DELTREE, ST_OK, "\"%s%s\"", CLIENT_DIR, path);
	for (size_t i = gen->node_count; i-- > 0;) {
		const char *p = gen->nodes[i].path;

		if (strncasecmp(p, path, len) == 0 &&
		    (p[len] == '\0' || p[len] == '\\'))
			node_remove(gen, i);
	}
}

/* ---- names ---- */

void gl_join(char *out, const char *dir, const char *name)
{
	if (strlen(dir) + 1 + strlen(name) >= MAX_PATH_LEN)
		gl_die("internal error: path too long: %s\\%s", dir, name);
	sprintf(out, "%s\\%s", dir, name);
}

/* A document name not in use in the folder: STEM + two digits + ext. */
void gl_new_doc_name(struct gen *gen, const char *dir, const char *ext,
		  char *path)
{
	char name[32];

	/* one random draw a statement: argument order is unspecified */
	for (int tries = 0; tries < 1000; tries++) {
		const char *stem = gl_pick_stem(gen);
		unsigned number = (unsigned)gl_rng_below(gen, 100);

		snprintf(name, sizeof(name), "%s%02u.%s", stem, number, ext);
		gl_join(path, dir, name);
		if (!gl_exists(gen, path))
			return;
	}
	gl_die("internal error: no free document name in %s", dir);
}

/* A temp name: prefix, a fresh serial in hex, suffix; free in the folder. */
void gl_temp_name(struct gen *gen, const char *dir, const char *prefix,
	       const char *suffix, char *path)
{
	char name[32];

	do {
		snprintf(name, sizeof(name), "%s%04X%s", prefix,
			 ++gen->serial & 0xffff, suffix);
		gl_join(path, dir, name);
	} while (gl_exists(gen, path));
}

/* Excel's temp: eight hex digits, no extension. */
void gl_hex_temp_name(struct gen *gen, const char *dir, char *path)
{
	char name[16];

	do {
		snprintf(name, sizeof(name), "%08" PRIX32,
			 (uint32_t)rng_next(gen));
		gl_join(path, dir, name);
	} while (gl_exists(gen, path));
}

/*
 * Word's owner file: ~$ in place of the first two letters of a base name of
 * seven letters or more, in front of a shorter one.
 */
void gl_owner_name(const char *doc, char *path)
{
	char dir[MAX_PATH_LEN], name[48];
	const char *base = gl_base_of(doc);
	const char *dot = strchr(base, '.');
	size_t stem_len = dot ? (size_t)(dot - base) : strlen(base);

	gl_parent_of(doc, dir);
	snprintf(name, sizeof(name), "~$%s", stem_len >= 7 ? base + 2 : base);
	gl_join(path, dir, name);
}

/* The same name with another extension. */
void gl_with_ext(const char *path, const char *ext, char *out)
{
	const char *dot = strrchr(path, '.');
	size_t len = dot ? (size_t)(dot - path) : strlen(path);

	if (len + 1 + strlen(ext) >= MAX_PATH_LEN)
		gl_die("internal error: path too long: %s", path);
	sprintf(out, "%.*s.%s", (int)len, path, ext);
}

bool gl_has_ext(const char *path, const char *ext)
{
	const char *dot = strrchr(gl_base_of(path), '.');

	return dot && strcasecmp(dot + 1, ext) == 0;
}
