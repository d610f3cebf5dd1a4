/*
 * op.c - the op table built from ops.def, and op lookup by name.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "op.h"

const struct op_info op_info[OP_COUNT] = {
#define OP(sym, name_, display_, group_, args_, domain_) \
	[OP_##sym] = { .name = name_, .display = display_, .args = args_, \
		       .group = GROUP_##group_, .domain = DOMAIN_##domain_ },
#include "ops.def"
#undef OP
};

const char *const group_name[GROUP_COUNT] = {
	[GROUP_READ] = "Read",
	[GROUP_WRITE] = "Write",
	[GROUP_OPENCLOSE] = "Open/Close",
	[GROUP_ATTRIBUTES] = "Attributes",
	[GROUP_DIRECTORY] = "Directory",
	[GROUP_LOCKING] = "Locking",
};

/* Words that name the same op as another (SMB capture spellings). */
static const struct {
	const char *word;
	enum op_id id;
} aliases[] = {
	{ "MKDIR", OP_MKDIR },
	{ "RMDIR", OP_RMDIR },
	{ "UNLINK", OP_UNLINK },
	{ "RENAME", OP_RENAME },
	{ "DELTREE", OP_DELTREE },
	{ "FLUSH", OP_FLUSH },
};

/* Is the NUL-terminated `name` the word[0..len)?  Once per loadfile line
 * and table entry: most names differ in the first byte, so no strlen. */
static bool name_is(const char *name, const char *word, size_t len)
{
	return name[0] == word[0] && strncmp(name, word, len) == 0 && name[len] == '\0';
}

static bool name_is_nocase(const char *name, const char *word, size_t len)
{
	return strncasecmp(name, word, len) == 0 && name[len] == '\0';
}

uint64_t op_nominal_bytes(int id, const int64_t *num, int64_t trunc_io)
{
	uint64_t bytes;
	int64_t size;

	if (!op_is_read(id) && !op_is_write(id))
		return 0;
	size = num[op_size_arg(id)];
	bytes = size > 0 ? (uint64_t)size * (uint64_t)op_size_unit(id) : 0;
	if ((id == OP_READX || id == OP_WRITEX) && num[3] >= 0)
		bytes = (uint64_t)num[3];
	if (trunc_io > 0 && bytes > (uint64_t)trunc_io &&
	    (id == OP_READ3 || id == OP_WRITE3 || id == OP_BLOCK_READ || id == OP_BLOCK_WRITE))
		bytes = (uint64_t)trunc_io;
	return bytes;
}

int op_lookup(const char *word, size_t len)
{
	if (len == 0)
		return -1;
	for (int i = 0; i < OP_COUNT; i++)
		if (name_is(op_info[i].name, word, len))
			return i;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (name_is(aliases[i].word, word, len))
			return aliases[i].id;
	for (int i = 0; i < OP_COUNT; i++)
		if (name_is_nocase(op_info[i].name, word, len))
			return i;
	return -1;
}

int op_overload(int id, bool path)
{
	for (int i = 0; i < OP_COUNT; i++)
		if (i != id && strcasecmp(op_info[i].name, op_info[id].name) == 0 &&
		    (op_info[i].args[0] == 'p') == path)
			return i;
	return -1;
}

size_t path_normalize_tail(char *dst, size_t fixed, size_t n)
{
	size_t in = fixed, out = fixed;

	while (in < n) {
		size_t start, len;

		while (in < n && (dst[in] == '/' || dst[in] == '\\'))
			in++;
		start = in;
		while (in < n && dst[in] != '/' && dst[in] != '\\')
			in++;
		len = in - start;
		if (len == 0 || (len == 1 && dst[start] == '.'))
			continue;
		if (len == 2 && dst[start] == '.' && dst[start + 1] == '.') {
			if (out == fixed)
				return SIZE_MAX;
			while (out > fixed && dst[out - 1] != '/')
				out--;
			if (out > fixed)
				out--;	/* the separator */
			continue;
		}
		if (out > fixed)
			dst[out++] = '/';
		memmove(dst + out, dst + start, len);
		out += len;
	}
	if (out == fixed && fixed > 0)
		out--;		/* "dir/" -> "dir" */
	if (out == 0)
		return SIZE_MAX;
	dst[out] = '\0';
	return out;
}

size_t randstr_set(const char *pat, size_t i, char members[256], size_t *close)
{
	size_t m = 0, j = i + 1;

	for (; pat[j] != ']'; j++) {
		if (pat[j + 1] == '-' && pat[j + 2] != ']' &&
		    (unsigned char)pat[j + 2] >= (unsigned char)pat[j]) {
			for (int ch = (unsigned char)pat[j]; ch <= (unsigned char)pat[j + 2] && m < 256; ch++)
				members[m++] = (char)ch;
			j += 2;
		} else if (m < 256) {
			members[m++] = pat[j];
		}
	}
	*close = j;
	return m;
}
