/*
 * loadfile.c - the loadfile compiler.
 *
 * The parent reads the whole loadfile once (plain text, or gzip through
 * zlib: loadfile_read.c) and turns each line into a struct op: the op id,
 * its numbers parsed (numexpr.c), its paths normalized and interned as
 * templates with the client-name slot marked, handle numbers mapped to
 * dense per-client indices, the expected status decoded and the optional
 * timestamp in nanoseconds.  Loops are compiled to jumps.  Clients then
 * run the program without ever looking at text again.  The grammar is
 * documented in dbench-loadfile(5).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "backend.h"
#include "hmap.h"
#include "loadfile.h"
#include "loadfile_read.h"
#include "numexpr.h"
#include "sha256.h"
#include "status.h"
#include "util.h"

#define MAX_TOKENS 16
#define MAX_ERRORS 10
#define SHOWN_MAX 48		/* bytes of quoted input a message shows */

struct token {
	const char *s;		/* start, after the opening quote if quoted */
	size_t len;
	bool quoted;
};

/* Open-addressing map from a 64-bit key to a dense index. */
/* A path whose first component holds a random string, and the line of
 * its first use (random_roots()). */
struct random_use {
	uint32_t path;		/* index in program.paths */
	uint64_t line;
};

/* An error message, kept until the end so that they are printed in line
 * order (a LOOP without ENDLOOP is found at the end of the file). */
struct parse_error {
	uint64_t line;
	char msg[512];
};

struct parser {
	const char *name;	/* file name for messages */
	FILE *errors;
	int nerrors;
	struct parse_error shown_err[MAX_ERRORS]; /* the first lines' errors, in line order */
	int nshown_err;
	uint64_t lineno;
	struct program *prog;
	size_t cap_ops, cap_paths, cap_pool, cap_exprs;
	struct hmap paths;	/* interning: path text -> path index + 1 */
	struct hmap handles;	/* loadfile handle number -> handle index + 1 */
	struct hmap path_handles; /* path index -> handle index + 1 */
	uint32_t loop_stack[MAX_LOOP_DEPTH]; /* op index of each open LOOP */
	uint64_t loop_line[MAX_LOOP_DEPTH];
	int depth;
	int repeat_open;	/* a REPEAT waits for its op */
	bool randstr_defined[MAX_RANDSTR];
	bool roots_full;	/* the top-level name limit was reported */
	struct random_use *random_uses; /* paths whose first component is random */
	uint32_t nrandom_uses;
	uint64_t mem;		/* bytes the program's arrays take */
	uint64_t max_mem;	/* and the most they may take */
	jmp_buf bail;		/* out of memory or over max_mem: give up */
	char shown[SHOWN_MAX + 48]; /* shown(): one quoted input per message */
};

static void perror_at(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keep the error (the MAX_ERRORS of the earliest lines are printed, by
 * print_errors, in line order). */
static void perror_at(struct parser *ps, const char *fmt, ...)
{
	struct parse_error *e = ps->shown_err;
	int at = ps->nshown_err;
	va_list ap;

	ps->nerrors++;
	while (at > 0 && e[at - 1].line > ps->lineno)
		at--;
	if (at == MAX_ERRORS)
		return;
	if (ps->nshown_err < MAX_ERRORS)
		ps->nshown_err++;
	memmove(&e[at + 1], &e[at], (size_t)(ps->nshown_err - 1 - at) * sizeof(*e));
	e[at].line = ps->lineno;
	va_start(ap, fmt);
	vsnprintf(e[at].msg, sizeof(e[at].msg), fmt, ap);
	va_end(ap);
}

static void print_errors(struct parser *ps)
{
	for (int i = 0; i < ps->nshown_err; i++)
		fprintf(ps->errors, "%s:%llu: %s\n", ps->name, (unsigned long long)ps->shown_err[i].line,
			ps->shown_err[i].msg);
	if (ps->nerrors > MAX_ERRORS)
		fprintf(ps->errors, "%s: ... and %d more errors\n", ps->name, ps->nerrors - MAX_ERRORS);
	ps->nshown_err = 0;
}

/* Quoted input for a message: in quotes q, cut to SHOWN_MAX bytes with
 * "..." and the whole length after it, so a 1 MB path gives a short line. */
static const char *shown(struct parser *ps, char q, const char *s, size_t len)
{
	if (len <= SHOWN_MAX)
		snprintf(ps->shown, sizeof(ps->shown), "%c%.*s%c", q, (int)len, s, q);
	else
		snprintf(ps->shown, sizeof(ps->shown), "%c%.*s...%c (%zu bytes)", q, SHOWN_MAX, s, q, len);
	return ps->shown;
}

/* Every array of the program grows through here: its memory is counted
 * against max_mem, and running out of either is one message and a jump
 * back to program_compile, which frees what was made. */
/* Take new_bytes instead of old_bytes of the budget (--max-loadfile: twice
 * the text), or fail the parse at this line. */
static void charge(struct parser *ps, size_t old_bytes, size_t new_bytes)
{
	char b[32];

	if (ps->mem - old_bytes + new_bytes > ps->max_mem) {
		perror_at(ps, "the compiled program is larger than %s (--max-loadfile)",
			  loadfile_size_text(ps->max_mem, b, sizeof(b)));
		longjmp(ps->bail, 1);
	}
	ps->mem = ps->mem - old_bytes + new_bytes;
}

static void *grow(struct parser *ps, void *p, size_t old_bytes, size_t new_bytes)
{
	char b[32];
	void *q;

	charge(ps, old_bytes, new_bytes);
	q = realloc(p, new_bytes);
	if (!q) {
		perror_at(ps, "out of memory compiling the loadfile (%s in use)",
			  loadfile_size_text(ps->mem, b, sizeof(b)));
		longjmp(ps->bail, 1);
	}
	return q;
}

/* ---- maps: the project's map (hmap.h), its bytes charged to the budget ---- */

/* The index of key in m: the one it has, or a new one (*next, then
 * incremented). */
static uint32_t index_of(struct parser *ps, struct hmap *m, const void *key, size_t len,
			 uint32_t *next)
{
	uintptr_t v = (uintptr_t)hmap_get(m, key, len);
	size_t before = hmap_bytes(m);

	if (v)
		return (uint32_t)(v - 1);
	hmap_put(m, key, len, (void *)((uintptr_t)*next + 1));
	charge(ps, before, hmap_bytes(m));
	return (*next)++;
}

static void maps_free(struct parser *ps)
{
	hmap_free(&ps->paths, NULL);
	hmap_free(&ps->handles, NULL);
	hmap_free(&ps->path_handles, NULL);
}

/* ---- the string pool and path interning ---- */

static uint32_t pool_add(struct parser *ps, const char *s, size_t len)
{
	struct program *prog = ps->prog;
	uint32_t off;

	if (prog->poolsize + len + 1 > ps->cap_pool) {
		size_t cap = ps->cap_pool;

		while (prog->poolsize + len + 1 > cap)
			cap = cap ? cap * 2 : 65536;
		prog->pool = grow(ps, prog->pool, ps->cap_pool, cap);
		ps->cap_pool = cap;
	}
	off = (uint32_t)prog->poolsize;
	memcpy(prog->pool + off, s, len);
	prog->pool[off + len] = '\0';
	prog->poolsize += len + 1;
	return off;
}

static void note_roots(struct parser *ps, uint32_t path, const char *s, size_t len);

static uint32_t path_intern(struct parser *ps, const char *s, size_t len, uint16_t flags)
{
	struct program *prog = ps->prog;
	uint32_t known = prog->npaths, i = index_of(ps, &ps->paths, s, len, &known);

	if (i < prog->npaths)
		return i;
	if (prog->npaths == ps->cap_paths) {
		size_t cap = ps->cap_paths ? ps->cap_paths * 2 : 1024;

		prog->paths = grow(ps, prog->paths, ps->cap_paths * sizeof(*prog->paths),
				   cap * sizeof(*prog->paths));
		ps->cap_paths = cap;
	}
	prog->paths[prog->npaths] = (struct path_tpl){
		.off = pool_add(ps, s, len),
		.len = (uint16_t)len,
		.flags = flags,
	};
	note_roots(ps, prog->npaths, s, len);
	return prog->npaths++;
}

/*
 * Normalize a loadfile path: '\' and '/' separate components; empty and
 * "." components vanish; ".." removes the previous one and may not climb
 * above the share root; a component "client1" becomes the client slot; "$N"
 * (N a RANDOMSTRING slot defined earlier) becomes a random-string slot.
 * The result is relative to the share root, '/' separated, "" for the root.
 */
static int path_normalize(struct parser *ps, const struct token *t, char *out, size_t *outlen,
			  uint16_t *flags)
{
	const char *p = t->s, *end = t->s + t->len;
	size_t n = 0, expanded = 0;
	size_t starts[PATH_MAX / 2];
	int ncomp = 0;

	*flags = 0;
	if (t->len >= 2 && ((p[0] == '\\' && p[1] == '\\') || (p[0] == '/' && p[1] == '/'))) {
		perror_at(ps, "path %s: UNC paths (\\\\server\\share) are not allowed; paths are relative to the share root",
			  shown(ps, '"', t->s, t->len));
		return -1;
	}
	for (const char *c = p; c < end; c++) {
		unsigned char ch = (unsigned char)*c;

		if (ch < 0x20 || ch == 0x7f) {
			perror_at(ps, "path %s: control character 0x%02x", shown(ps, '"', t->s, t->len), ch);
			return -1;
		}
		if (ch == ':') {
			perror_at(ps, "path %s: ':' is not allowed (drive letters, host:/export prefixes and streams are not paths under the share root; dbench-trace2load --root rewrites a server's export to \\clients\\client1)",
				  shown(ps, '"', t->s, t->len));
			return -1;
		}
	}
	while (p < end) {
		const char *q = p;

		while (q < end && *q != '\\' && *q != '/')
			q++;
		size_t len = (size_t)(q - p);

		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (ncomp == 0) {
				perror_at(ps, "path %s leaves the share root", shown(ps, '"', t->s, t->len));
				return -1;
			}
			n = starts[--ncomp];
			if (n > 0)
				n--;	/* the separator */
		} else {
			if (n + len + 2 >= PATH_MAX / 2 || ncomp >= (int)ARRAY_SIZE(starts)) {
				perror_at(ps, "path %s is too long", shown(ps, '"', t->s, t->len));
				return -1;
			}
			if (n > 0)
				out[n++] = '/';
			starts[ncomp++] = n;
			if (len == 7 && memcmp(p, "client1", 7) == 0) {
				out[n++] = PATH_CLIENT;
				*flags |= PATHF_CLIENT;
				expanded += 16;
			} else {
				for (size_t i = 0; i < len; i++) {
					if (p[i] == '$' && i + 1 < len && p[i + 1] >= '0' && p[i + 1] <= '9') {
						int slot = p[i + 1] - '0';

						if (i + 2 < len && p[i + 2] >= '0' && p[i + 2] <= '9')
							slot = slot * 10 + (p[i + 2] - '0');
						if (slot < MAX_RANDSTR && ps->randstr_defined[slot]) {
							out[n++] = PATH_RANDSTR;
							out[n++] = (char)slot;
							*flags |= PATHF_RANDSTR;
							expanded += 64;
							i += slot >= 10 ? 2 : 1;
							continue;
						}
					}
					out[n++] = p[i];
				}
			}
		}
		p = q + (q < end);
	}
	if (n + expanded + 1 >= PATH_MAX) {
		perror_at(ps, "path %s is too long", shown(ps, '"', t->s, t->len));
		return -1;
	}
	out[n] = '\0';
	*outlen = n;
	return 0;
}

/* ---- numbers ---- */

static int parse_expr(struct parser *ps, const struct token *t, struct numexpr *x)
{
	const char *p = t->s, *end = t->s + t->len;

	memset(x, 0, sizeof(*x));
	if (*p == '*') {
		x->base = NUM_RANDOM;
		p++;
	} else if (*p == '+') {
		x->base = NUM_RELATIVE;
		p++;
		if (!numexpr_parse_operand(&p, end, &x->operand))
			goto bad;
	} else {
		if (!numexpr_parse_operand(&p, end, &x->operand))
			goto bad;
		x->base = x->operand.kind == OPERAND_CHILD ? NUM_CHILD :
			  x->operand.kind == OPERAND_NCHILDREN ? NUM_NCHILDREN : NUM_LITERAL;
	}
	while (p < end) {
		char opc = *p++;

		if (opc != '/' && opc != '%' && opc != '+' && opc != '-')
			goto bad;
		if (x->nqual == MAX_QUALIFIERS) {
			perror_at(ps, "number %s has more than %d qualifiers", shown(ps, '\'', t->s, t->len),
				  MAX_QUALIFIERS);
			return -1;
		}
		x->qual[x->nqual].op = opc;
		if (!numexpr_parse_operand(&p, end, &x->qual[x->nqual].operand))
			goto bad;
		if ((opc == '/' || opc == '%') && x->qual[x->nqual].operand.kind == OPERAND_LITERAL &&
		    x->qual[x->nqual].operand.value <= 0) {
			perror_at(ps, "number %s: '%c' needs a positive operand", shown(ps, '\'', t->s, t->len), opc);
			return -1;
		}
		x->nqual++;
	}
	return 0;
bad:
	perror_at(ps, "bad number %s (expected a number, '*' with /align %%mod +add qualifiers, '+N', 'child' or 'num_children')",
		  shown(ps, '\'', t->s, t->len));
	return -1;
}

/* ---- building ops ---- */

static struct op *op_new(struct parser *ps, uint16_t id, int64_t when_ns)
{
	struct program *prog = ps->prog;
	struct op *op;

	if (prog->nops == ps->cap_ops) {
		size_t cap = ps->cap_ops ? ps->cap_ops * 2 : 1024;

		prog->ops = grow(ps, prog->ops, ps->cap_ops * sizeof(*prog->ops), cap * sizeof(*prog->ops));
		ps->cap_ops = cap;
	}
	op = &prog->ops[prog->nops++];
	memset(op, 0, sizeof(*op));
	op->id = id;
	op->line = ps->lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)ps->lineno;
	op->handle = NO_HANDLE;
	op->path[0] = op->path[1] = NO_PATH;
	op->when_ns = when_ns;
	op->expect.kind = EXPECT_ANY;
	return op;
}

/* Store a number argument; literal fast path, else an expression. */
static int op_set_num(struct parser *ps, struct op *op, int i, const struct token *t)
{
	struct program *prog = ps->prog;
	struct numexpr x;

	if (t->quoted) {
		perror_at(ps, "expected a number, got %s", shown(ps, '"', t->s, t->len));
		return -1;
	}
	if (numexpr_parse_literal(t->s, t->len, &op->num[i]))
		return 0;
	if (parse_expr(ps, t, &x) < 0)
		return -1;
	if (op->expr == 0) {
		if (prog->nexprs + MAX_NUMS > ps->cap_exprs) {
			size_t cap = ps->cap_exprs ? ps->cap_exprs * 2 : 256;

			prog->exprs = grow(ps, prog->exprs, ps->cap_exprs * sizeof(*prog->exprs),
					   cap * sizeof(*prog->exprs));
			ps->cap_exprs = cap;
		}
		for (int k = 0; k < MAX_NUMS; k++) {
			memset(&prog->exprs[prog->nexprs + k], 0, sizeof(struct numexpr));
			prog->exprs[prog->nexprs + k].base = NUM_LITERAL;
		}
		op->expr = prog->nexprs + 1;
		prog->nexprs += MAX_NUMS;
		/* literals parsed so far keep working: they are in num[] and
		 * the literal expressions read num[] at run time */
	}
	prog->exprs[op->expr - 1 + (uint32_t)i] = x;
	return 0;
}

static int op_set_path(struct parser *ps, struct op *op, int i, const struct token *t)
{
	char buf[PATH_MAX];
	size_t len;
	uint16_t flags;

	if (path_normalize(ps, t, buf, &len, &flags) < 0)
		return -1;
	op->path[i] = path_intern(ps, buf, len, flags);
	op->npaths = (uint8_t)(i + 1);
	return 0;
}

static bool is_path_handle_op(int id)
{
	return id == OP_SMB_OPEN || id == OP_SMB_CLOSE || id == OP_SMB_READ || id == OP_SMB_WRITE;
}

/* Destructive ops on the share root itself would wipe the whole target. */
static bool is_destructive(int id)
{
	return id == OP_DELTREE || id == OP_RMDIR || id == OP_UNLINK || id == OP_RENAME ||
	       id == OP_REMOVE3 || id == OP_RMDIR3 || id == OP_RENAME3;
}

static int compile_op(struct parser *ps, int id, const struct token *tok, int ntok, int64_t when)
{
	const struct op_info *info = &op_info[id];
	struct program *prog = ps->prog;
	int nargs = 0, nrequired = -1, given = ntok - 1, ni = 0, pi = 0;
	struct op *op;

	for (const char *a = info->args; *a; a++) {
		if (*a == '?')
			nrequired = nargs;
		else
			nargs++;
	}
	if (nrequired < 0)
		nrequired = nargs;
	if (ntok < 1) {
		perror_at(ps, "%s: missing status", info->name);
		return -1;
	}
	if (given < nrequired || given > nargs) {
		if (nrequired == nargs)
			perror_at(ps, "%s takes %d argument%s and a status, got %d argument%s and a status",
				  info->name, nargs, nargs == 1 ? "" : "s", given, given == 1 ? "" : "s");
		else
			perror_at(ps, "%s takes %d to %d arguments and a status, got %d argument%s and a status",
				  info->name, nrequired, nargs, given, given == 1 ? "" : "s");
		return -1;
	}
	op = op_new(ps, (uint16_t)id, when);
	int k = 0;
	for (const char *a = info->args; *a; a++) {
		if (*a == '?')
			continue;
		if (k >= given) {
			if (*a != 'p')
				ni++;
			k++;
			continue;
		}
		const struct token *t = &tok[k++];

		switch (*a) {
		case 'p':
			if (!t->quoted && t->len && (t->s[0] == '*' || (t->s[0] >= '0' && t->s[0] <= '9'))) {
				perror_at(ps, "%s: expected a path, got %s", info->name, shown(ps, '\'', t->s, t->len));
				return -1;
			}
			if (op_set_path(ps, op, pi++, t) < 0)
				return -1;
			break;
		case 'h': {
			int64_t h;

			if (t->quoted || !numexpr_parse_literal(t->s, t->len, &h)) {
				perror_at(ps, "%s: handle must be a number, got %s", info->name,
					  shown(ps, '\'', t->s, t->len));
				return -1;
			}
			op->num[ni++] = h;
			op->handle = index_of(ps, &ps->handles, &h, sizeof(h), &prog->nhandles);
			break;
		}
		default:
			if (op_set_num(ps, op, ni++, t) < 0)
				return -1;
			break;
		}
	}
	op->nnums = (uint8_t)ni;
	if (is_path_handle_op(id))
		op->handle = index_of(ps, &ps->path_handles, &op->path[0], sizeof(op->path[0]),
				      &prog->nhandles);
	if (is_destructive(id) && op->path[0] != NO_PATH && prog->paths[op->path[0]].len == 0) {
		perror_at(ps, "%s of the share root is not allowed", info->name);
		return -1;
	}
	const struct token *st = &tok[ntok - 1];

	if (st->quoted || status_parse(st->s, st->len, info->domain, &op->expect) < 0) {
		perror_at(ps, "%s: bad status %s (expected %s, 0x hex, SUCCESS, ERROR or *)",
			  info->name, shown(ps, '\'', st->s, st->len),
			  info->domain == DOMAIN_NT ? "an NT_STATUS_* name" :
			  info->domain == DOMAIN_NFS ? "an nfsstat3 name such as NFS3ERR_NOENT" :
			  info->domain == DOMAIN_SCSI ? "a SCSI status such as GOOD or CHECK_CONDITION/ILLEGAL_REQUEST" :
			  "an nlm4_stats name such as NLM4_DENIED");
		return -1;
	}
	prog->count[id]++;
	if (when >= 0)
		prog->timestamps = true;
	return 0;
}

/* ---- directives ---- */

/* Directive words, in any case (upstream compares op names so). */
static bool word_is(const struct token *t, const char *w)
{
	return !t->quoted && strlen(w) == t->len && strncasecmp(t->s, w, t->len) == 0;
}

static int compile_randomstring(struct parser *ps, const struct token *tok, int ntok, int64_t when)
{
	int64_t slot;
	struct op *op;

	if (ntok != 2 || !tok[1].quoted) {
		perror_at(ps, "RANDOMSTRING takes a slot number and a quoted pattern");
		return -1;
	}
	if (tok[0].quoted || !numexpr_parse_literal(tok[0].s, tok[0].len, &slot) || slot < 0 ||
	    slot >= MAX_RANDSTR) {
		perror_at(ps, "RANDOMSTRING slot must be 0..%d", MAX_RANDSTR - 1);
		return -1;
	}
	/* validate the pattern: literal characters and [set] classes; '/' and
	 * '\\' separate path components (the client normalizes the expanded
	 * path and keeps it inside its directory) */
	size_t outlen = 0;

	for (size_t i = 0; i < tok[1].len; i++) {
		unsigned char ch = (unsigned char)tok[1].s[i];

		if (ch == ':' || ch < 0x20 || ch == 0x7f) {
			perror_at(ps, ch == ':' ? "RANDOMSTRING pattern may not contain ':'" :
				  "RANDOMSTRING pattern may not contain control characters");
			return -1;
		}
		if (ch == '[') {
			size_t j = i + 1;

			while (j < tok[1].len && tok[1].s[j] != ']')
				j++;
			if (j == tok[1].len || j == i + 1) {
				perror_at(ps, "RANDOMSTRING pattern: unterminated or empty [set]");
				return -1;
			}
			for (size_t k = i + 1; k < j; k++) {
				if (tok[1].s[k] == ':' || (unsigned char)tok[1].s[k] < 0x20) {
					perror_at(ps, "RANDOMSTRING pattern may not contain ':' or control characters");
					return -1;
				}
			}
			i = j;
		}
		outlen++;
	}
	if (outlen == 0 || outlen > 63) {
		perror_at(ps, "RANDOMSTRING pattern must make 1 to 63 characters");
		return -1;
	}
	op = op_new(ps, DIR_RANDOMSTRING, when);
	op->num[0] = slot;
	op->num[1] = pool_add(ps, tok[1].s, tok[1].len);
	op->num[2] = (int64_t)tok[1].len;
	op->nnums = 3;
	ps->randstr_defined[slot] = true;
	return 0;
}

/* A directive with numeric arguments only. */
static int compile_numeric_directive(struct parser *ps, uint16_t id, const char *name,
				     const struct token *tok, int ntok, int nwant, int64_t when)
{
	struct op *op;

	if (ntok != nwant) {
		perror_at(ps, "%s takes %d number%s", name, nwant, nwant == 1 ? "" : "s");
		return -1;
	}
	op = op_new(ps, id, when);
	for (int i = 0; i < ntok; i++)
		if (op_set_num(ps, op, i, &tok[i]) < 0)
			return -1;
	op->nnums = (uint8_t)ntok;
	return 0;
}

static int open_loop(struct parser *ps, const struct token *count, int64_t when)
{
	if (ps->depth == MAX_LOOP_DEPTH) {
		perror_at(ps, "loops nested deeper than %d", MAX_LOOP_DEPTH);
		return -1;
	}
	if (compile_numeric_directive(ps, DIR_LOOP, "LOOP", count, 1, 1, when) < 0)
		return -1;
	ps->loop_stack[ps->depth] = ps->prog->nops - 1;
	ps->loop_line[ps->depth] = ps->lineno;
	ps->depth++;
	return 0;
}

static void close_loop(struct parser *ps)
{
	struct program *prog = ps->prog;
	uint32_t start = ps->loop_stack[--ps->depth];
	struct op *end = op_new(ps, DIR_ENDLOOP, -1);

	end->num[1] = start;
	prog->ops[start].num[1] = prog->nops;	/* the index after ENDLOOP */
}

/* Returns 1 if the line was a directive (compiled or in error), 0 if not. */
static int compile_directive(struct parser *ps, const struct token *tok, int ntok, int64_t when,
			     int *rc)
{
	const struct token *w = &tok[0];
	struct program *prog = ps->prog;

	*rc = 0;
	if (word_is(w, "LOOP")) {
		*rc = ntok == 2 ? open_loop(ps, &tok[1], when) : -1;
		if (ntok != 2)
			perror_at(ps, "LOOP takes one number (the count)");
	} else if (word_is(w, "ENDLOOP")) {
		if (ntok != 1) {
			perror_at(ps, "ENDLOOP takes no arguments");
			*rc = -1;
		} else if (ps->depth == 0 || ps->repeat_open) {
			perror_at(ps, "ENDLOOP without LOOP");
			*rc = -1;
		} else {
			close_loop(ps);
		}
	} else if (word_is(w, "REPEAT")) {
		if (ntok != 2) {
			perror_at(ps, "REPEAT takes one number (the count)");
			*rc = -1;
		} else if (ps->repeat_open) {
			perror_at(ps, "REPEAT must be followed by an operation");
			*rc = -1;
		} else if ((*rc = open_loop(ps, &tok[1], when)) == 0) {
			ps->repeat_open = 1;
		}
	} else if (word_is(w, "SLEEP") || word_is(w, "Sleep")) {
		/* dbench's "Sleep usec [status]" form: the status is ignored */
		*rc = compile_numeric_directive(ps, DIR_SLEEP, "SLEEP", tok + 1, ntok == 3 ? 1 : ntok - 1,
						1, when);
	} else if (word_is(w, "SETSP")) {
		*rc = compile_numeric_directive(ps, DIR_SETSP, "SETSP", tok + 1, ntok - 1, 1, when);
	} else if (word_is(w, "WAITSP")) {
		*rc = compile_numeric_directive(ps, DIR_WAITSP, "WAITSP", tok + 1, ntok - 1, 2, when);
	} else if (word_is(w, "RANDOMSTRING")) {
		*rc = compile_randomstring(ps, tok + 1, ntok - 1, when);
	} else if (word_is(w, "WRITEPATTERN")) {
		struct op *op;

		if (ntok == 1 || (ntok == 2 && word_is(&tok[1], "on"))) {
			op = op_new(ps, DIR_WRITEPATTERN, when);
			op->num[0] = WRITEPATTERN_ON;
		} else if (ntok == 2 && word_is(&tok[1], "off")) {
			op = op_new(ps, DIR_WRITEPATTERN, when);
			op->num[0] = WRITEPATTERN_OFF;
		} else {
			/* upstream's WRITEPATTERN <text>: the rest of the line as
			 * written, and its newline, fill the write buffers */
			const struct token *last = &tok[ntok - 1];
			const char *from = tok[1].s - tok[1].quoted;
			const char *to = last->s + last->len + last->quoted;
			size_t len = (size_t)(to - from);
			char *text = xmalloc(len + 1);

			memcpy(text, from, len);
			text[len] = '\n';
			op = op_new(ps, DIR_WRITEPATTERN, when);
			op->num[0] = WRITEPATTERN_TEXT;
			op->num[1] = pool_add(ps, text, len + 1);
			op->num[2] = (int64_t)len + 1;
			free(text);
		}
		op->nnums = 1;
	} else if (word_is(w, "NBSCALE")) {
		char buf[64];
		char *end;
		double v;

		if (ntok != 2 || tok[1].len >= sizeof(buf)) {
			perror_at(ps, "NBSCALE takes one number (the netbench scale factor)");
			*rc = -1;
			return 1;
		}
		memcpy(buf, tok[1].s, tok[1].len);
		buf[tok[1].len] = '\0';
		v = strtod(buf, &end);
		if (*end || !(v > 0 && v < 1e6)) {
			perror_at(ps, "NBSCALE: '%s' is not a positive number", buf);
			*rc = -1;
			return 1;
		}
		prog->nbscale = v;
	} else {
		return 0;
	}
	return 1;
}

/* ---- lines ---- */

static int tokenize(struct parser *ps, const char *p, const char *end, struct token *tok)
{
	int n = 0;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end)
			return n;
		if (n == MAX_TOKENS) {
			perror_at(ps, "too many fields (more than %d)", MAX_TOKENS);
			return -1;
		}
		if (*p == '"') {
			const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));

			if (!q) {
				perror_at(ps, "unterminated quoted path");
				return -1;
			}
			tok[n++] = (struct token){ .s = p + 1, .len = (size_t)(q - p - 1), .quoted = true };
			p = q + 1;
			if (p < end && *p != ' ' && *p != '\t' && *p != '\r') {
				perror_at(ps, "missing space after quoted path");
				return -1;
			}
		} else {
			const char *q = p;

			while (q < end && *q != ' ' && *q != '\t' && *q != '\r')
				q++;
			tok[n++] = (struct token){ .s = p, .len = (size_t)(q - p), .quoted = false };
			p = q;
		}
	}
}

/* "12.345678" seconds -> ns; false if not a timestamp. */
static bool parse_timestamp(const struct token *t, int64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = NSEC_PER_SEC;
	size_t i = 0;

	for (; i < t->len && t->s[i] >= '0' && t->s[i] <= '9'; i++) {
		if (sec > 1000000000ULL)
			return false;
		sec = sec * 10 + (uint64_t)(t->s[i] - '0');
	}
	if (i < t->len && t->s[i] == '.') {
		for (i++; i < t->len && t->s[i] >= '0' && t->s[i] <= '9'; i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(t->s[i] - '0') * scale;
			}
		}
	}
	if (i != t->len || t->len == 0)
		return false;
	*ns = (int64_t)(sec * NSEC_PER_SEC + frac);
	return true;
}

static void compile_line(struct parser *ps, const char *p, const char *end)
{
	struct token tok[MAX_TOKENS];
	int ntok, id, rc;
	int64_t when = -1;
	uint32_t before = ps->prog->nops;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p == end || *p == '#')
		return;
	ntok = tokenize(ps, p, end, tok);
	if (ntok <= 0)
		return;
	if (!tok[0].quoted && tok[0].s[0] >= '0' && tok[0].s[0] <= '9') {
		if (!parse_timestamp(&tok[0], &when)) {
			perror_at(ps, "bad timestamp %s", shown(ps, '\'', tok[0].s, tok[0].len));
			return;
		}
		if (ntok == 1) {
			perror_at(ps, "timestamp without an operation");
			return;
		}
		memmove(tok, tok + 1, (size_t)(ntok - 1) * sizeof(tok[0]));
		ntok--;
	}
	if (tok[0].quoted) {
		perror_at(ps, "expected an operation, got a quoted path");
		return;
	}
	if (compile_directive(ps, tok, ntok, when, &rc))
		goto out;
	id = op_lookup(tok[0].s, tok[0].len);
	if (id < 0) {
		if (tok[0].len >= 3 && memcmp(tok[0].s, "SMB", 3) == 0)
			perror_at(ps, "%s: this is a dbench 1 loadfile, which is not supported",
				  shown(ps, '\'', tok[0].s, tok[0].len));
		else
			perror_at(ps, "unknown operation %s", shown(ps, '\'', tok[0].s, tok[0].len));
		return;
	}
	if (ntok > 1 && (op_info[id].args[0] == 'p') != tok[1].quoted) {
		/* READ "path" ... (SMB) or READ offset ... (block); close 1
		 * (netbench) or close "path" (SMB) */
		int other = op_overload(id, tok[1].quoted);

		if (other >= 0)
			id = other;
	}
	rc = compile_op(ps, id, tok + 1, ntok - 1, when);
	if (rc == 0 && ps->repeat_open) {
		ps->repeat_open = 0;
		close_loop(ps);
	}
	return;
out:
	if (rc == 0 && ps->repeat_open && ps->prog->nops > before &&
	    ps->prog->ops[ps->prog->nops - 1].id != DIR_LOOP) {
		/* REPEAT of a directive (SLEEP, SETSP ...) is fine too */
		ps->repeat_open = 0;
		close_loop(ps);
	}
}

/* ---- roots: what the run creates, for cleanup ---- */

/* Add a root to a list of at most max (so the search is short); false if
 * it is new and the list is full. */
static bool add_root(char ***list, uint32_t *n, uint32_t max, const char *s, size_t len)
{
	for (uint32_t i = 0; i < *n; i++)
		if (strlen((*list)[i]) == len && memcmp((*list)[i], s, len) == 0)
			return true;
	if (*n == max)
		return false;
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[*n] = xmalloc(len + 1);
	memcpy((*list)[*n], s, len);
	(*list)[*n][len] = '\0';
	(*n)++;
	return true;
}

/*
 * Client roots: the prefix of a path up to and including its first client
 * component ("clients/<client>"), removed by each client at the end.
 * Shared roots: the first component of paths that do not start in a client
 * root ("clients"), removed at the very end if the run created them; when
 * that component holds a random string, every name it can make (see
 * random_roots()).
 */
static bool covers(const char *tree, const char *root)
{
	size_t n = strlen(tree);

	return strncmp(tree, root, n) == 0 && (root[n] == '\0' || root[n] == '/' || n == 0);
}

/* The first client component marker of a template in s[0..len): the
 * byte after a PATH_RANDSTR is its slot number, not a marker. */
static const char *client_marker(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == PATH_CLIENT)
			return s + i;
		if (s[i] == PATH_RANDSTR)
			i++;
	}
	return NULL;
}

/* The roots of a path seen for the first time, at the line that uses it:
 * so crossing the limit names that line. */
static void note_roots(struct parser *ps, uint32_t path, const char *s, size_t len)
{
	struct program *prog = ps->prog;
	const char *slash = memchr(s, '/', len);
	size_t first = slash ? (size_t)(slash - s) : len;
	const char *c = client_marker(s, len);
	bool ok = true;

	if (len == 0 || ps->roots_full)
		return;
	if (c && !memchr(s, PATH_RANDSTR, (size_t)(c - s)))	/* else a random root covers it */
		ok = add_root(&prog->client_roots, &prog->nclient_roots, MAX_ROOTS, s, (size_t)(c - s) + 1);
	if (ok && !(c && c == s) && !memchr(s, PATH_RANDSTR, first))
		ok = add_root(&prog->shared_roots, &prog->nshared_roots, MAX_ROOTS, s, first);
	if (!ok) {
		perror_at(ps, "more than %d distinct top-level names; put the files under a directory such as \\clients\\client1",
			  MAX_ROOTS);
		ps->roots_full = true;
		return;
	}
	if (memchr(s, PATH_RANDSTR, first) && !(c && c < s + first)) {
		ps->random_uses = xrealloc(ps->random_uses,
					   (ps->nrandom_uses + 1) * sizeof(*ps->random_uses));
		ps->random_uses[ps->nrandom_uses++] = (struct random_use){ path, ps->lineno };
	}
}

/* ---- random roots ---- */

/*
 * A path whose first component holds a random string (upstream's
 * nfs_2.load: RANDOMSTRING 1 "/test[0-9][0-9].file", then CREATE3 $1) makes
 * names at the share root that no literal root covers.  Every name it can
 * make -- its random strings taking every value of every pattern given to
 * their slots, and "" (a slot no RANDOMSTRING has set yet), normalized as
 * the client normalizes them -- becomes a shared root: looked for before
 * the run, removed after it when the run made it.  Bounded: a path that can
 * make more names than can be looked for is refused.
 */
#define MAX_RANDOM_EXPANSIONS 65536	/* values tried for one path */

/* One pattern taken apart: the choices for each character it makes. */
struct rs_pattern {
	uint16_t nchars;
	uint16_t nchoices[63];
	char choice[63][256];
	uint64_t values;	/* product of nchoices (capped) */
};

static void rs_parse(const char *pat, size_t len, struct rs_pattern *p)
{
	p->nchars = 0;
	p->values = 1;
	for (size_t i = 0; i < len && p->nchars < 63; i++) {
		char members[256];
		size_t m = 0;

		if (pat[i] == '[') {
			bool seen[256] = { false };
			size_t all = randstr_set(pat, i, members, &i);

			for (size_t k = 0; k < all; k++) {	/* each member once */
				if (!seen[(unsigned char)members[k]]) {
					seen[(unsigned char)members[k]] = true;
					members[m++] = members[k];
				}
			}
		} else {
			members[m++] = pat[i];
		}
		if (!m)
			continue;
		memcpy(p->choice[p->nchars], members, m);
		p->nchoices[p->nchars++] = (uint16_t)m;
		p->values = MIN(p->values * m, (uint64_t)MAX_RANDOM_EXPANSIONS + 1);
	}
}

/* The value of a pattern number idx (0 .. values-1) into out; its length. */
static size_t rs_value(const struct rs_pattern *p, uint64_t idx, char *out)
{
	for (unsigned k = p->nchars; k-- > 0;) {
		out[k] = p->choice[k][idx % p->nchoices[k]];
		idx /= p->nchoices[k];
	}
	return p->nchars;
}

/* The values a slot can hold: "", then each pattern's. */
#define MAX_RS_PATTERNS 64	/* distinct patterns of one slot looked at */
struct rs_slot {
	struct rs_pattern *pat;	/* taken apart */
	const char *text[MAX_RS_PATTERNS]; /* as written */
	size_t text_len[MAX_RS_PATTERNS];
	uint32_t npat;
	uint64_t values;	/* 1 + the patterns' values (capped) */
};

static size_t slot_value(const struct rs_slot *sl, uint64_t idx, char *out)
{
	if (idx-- == 0)
		return 0;
	for (uint32_t i = 0; i < sl->npat; i++) {
		if (idx < sl->pat[i].values)
			return rs_value(&sl->pat[i], idx, out);
		idx -= sl->pat[i].values;
	}
	return 0;
}

/* A path template as the loadfile wrote it (client1, $N), for messages. */
static const char *tpl_shown(struct parser *ps, uint32_t path)
{
	const struct path_tpl *t = &ps->prog->paths[path];
	const char *tpl = ps->prog->pool + t->off;
	char text[PATH_MAX];
	size_t n = 0;

	text[n++] = '\\';
	for (size_t i = 0; i < t->len && n + 16 < sizeof(text); i++) {
		if (tpl[i] == PATH_CLIENT)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "client1");
		else if (tpl[i] == PATH_RANDSTR)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "$%d", tpl[++i]);
		else
			text[n++] = tpl[i] == '/' ? '\\' : tpl[i];
	}
	text[n] = '\0';
	return shown(ps, '"', text, n);
}

/* The slots' values, for the slots the random roots use. */
static void random_slots(struct parser *ps, struct rs_slot slots[MAX_RANDSTR])
{
	const struct program *prog = ps->prog;
	bool need[MAX_RANDSTR] = { false };

	for (uint32_t u = 0; u < ps->nrandom_uses; u++) {
		const struct path_tpl *t = &prog->paths[ps->random_uses[u].path];
		const char *tpl = prog->pool + t->off;

		for (size_t i = 0; i < t->len; i++)
			if (tpl[i] == PATH_RANDSTR)
				need[(int)tpl[++i]] = true;
	}
	for (uint32_t i = 0; i < prog->nops; i++) {
		const struct op *op = &prog->ops[i];
		const char *text = prog->pool + op->num[1];
		struct rs_slot *sl;
		bool dup = false;

		if (op->id != DIR_RANDOMSTRING || !need[op->num[0]])
			continue;
		sl = &slots[op->num[0]];
		for (uint32_t k = 0; k < sl->npat && !dup; k++)	/* each pattern once */
			dup = sl->text_len[k] == (size_t)op->num[2] &&
			      memcmp(sl->text[k], text, (size_t)op->num[2]) == 0;
		if (dup)
			continue;
		if (sl->npat == MAX_RS_PATTERNS) {
			ps->lineno = op->line;
			perror_at(ps, "RANDOMSTRING %d: more than %d patterns for a slot whose value starts a path at the share root; put the files under a directory such as \\clients\\client1",
				  (int)op->num[0], MAX_RS_PATTERNS);
			return;
		}
		sl->text[sl->npat] = text;
		sl->text_len[sl->npat] = (size_t)op->num[2];
		sl->pat = xrealloc(sl->pat, (sl->npat + 1) * sizeof(*sl->pat));
		rs_parse(text, (size_t)op->num[2], &sl->pat[sl->npat++]);
	}
	for (int k = 0; k < MAX_RANDSTR; k++) {
		slots[k].values = 1;
		for (uint32_t i = 0; i < slots[k].npat; i++)
			slots[k].values = MIN(slots[k].values + slots[k].pat[i].values,
					      (uint64_t)MAX_RANDOM_EXPANSIONS + 1);
	}
}

/* Every name one path can make at the share root becomes a shared root;
 * false (said) if there are too many. */
static bool random_path_roots(struct parser *ps, const struct random_use *use,
			      const struct rs_slot slots[MAX_RANDSTR])
{
	struct program *prog = ps->prog;
	const struct path_tpl *t = &prog->paths[use->path];
	const char *tpl = prog->pool + t->off;
	int used[MAX_RANDSTR], nused = 0;
	uint64_t idx[MAX_RANDSTR] = { 0 }, total = 1;

	/* the slots the path uses, each once */
	for (size_t i = 0; i < t->len; i++) {
		if (tpl[i] != PATH_RANDSTR)
			continue;
		int slot = tpl[++i];
		bool seen = false;

		for (int k = 0; k < nused; k++)
			seen |= used[k] == slot;
		if (!seen) {
			used[nused++] = slot;
			total = MIN(total * slots[slot].values, (uint64_t)MAX_RANDOM_EXPANSIONS + 1);
		}
	}
	ps->lineno = use->line;
	if (total > MAX_RANDOM_EXPANSIONS) {
		perror_at(ps, "path %s: its first component is random and can take more than %d values, too many names at the share root to find and remove after the run; put the files under a directory such as \\clients\\client1",
			  tpl_shown(ps, use->path), MAX_RANDOM_EXPANSIONS);
		return false;
	}
	/* every combination of the slots' values, as an odometer */
	for (;;) {
		char value[MAX_RANDSTR][64], buf[PATH_MAX];
		size_t vlen[MAX_RANDSTR], n = 0, fixed = SIZE_MAX, out;
		int k;

		for (k = 0; k < nused; k++)
			vlen[k] = slot_value(&slots[used[k]], idx[k], value[k]);
		for (size_t i = 0; i < t->len && n + 64 < sizeof(buf); i++) {
			if (tpl[i] == PATH_RANDSTR) {
				int slot = tpl[++i];

				for (k = 0; used[k] != slot; k++)
					;
				if (fixed == SIZE_MAX) {	/* as client.c's expand_path */
					fixed = n;
					while (fixed > 0 && buf[fixed - 1] != '/')
						fixed--;
				}
				memcpy(buf + n, value[k], vlen[k]);
				n += vlen[k];
			} else if (tpl[i] == PATH_CLIENT) {
				memcpy(buf + n, "client0", 7);
				n += 7;
			} else {
				buf[n++] = tpl[i];
			}
		}
		out = path_normalize_tail(buf, fixed, n);
		if (out != SIZE_MAX) {	/* else the client would stop there */
			const char *slash = memchr(buf, '/', out);
			size_t first = slash ? (size_t)(slash - buf) : out;

			if (!add_root(&prog->shared_roots, &prog->nshared_roots, MAX_SHARED_ROOTS, buf,
				      first)) {
				perror_at(ps, "path %s: with the names its random first component can take, more than %d top-level names to find and remove after the run; put the files under a directory such as \\clients\\client1",
					  tpl_shown(ps, use->path), MAX_SHARED_ROOTS);
				return false;
			}
		}
		for (k = 0; k < nused && ++idx[k] == slots[used[k]].values; k++)
			idx[k] = 0;
		if (k == nused)
			return true;
	}
}

static void random_roots(struct parser *ps)
{
	struct rs_slot slots[MAX_RANDSTR];

	if (!ps->nrandom_uses)
		return;
	memset(slots, 0, sizeof(slots));
	random_slots(ps, slots);
	for (uint32_t u = 0; u < ps->nrandom_uses && !ps->nerrors; u++)
		if (!random_path_roots(ps, &ps->random_uses[u], slots))
			break;
	for (int k = 0; k < MAX_RANDSTR; k++)
		free(slots[k].pat);
}

/* Which roots a Deltree of the loadfile removes (and so remakes). */
static void find_deltreed_roots(struct program *prog)
{
	for (uint32_t i = 0; i < prog->nops; i++) {
		const struct op *op = &prog->ops[i];
		const char *tree;

		if (op->id != OP_DELTREE)
			continue;
		tree = path_text(prog, op->path[0]);
		for (uint32_t r = 0; r < prog->nclient_roots; r++)
			if (covers(tree, prog->client_roots[r]))
				prog->client_root_deltreed |= 1ULL << r;
		for (uint32_t r = 0; r < prog->nshared_roots && r < 64; r++)
			if (covers(tree, prog->shared_roots[r]))
				prog->shared_root_deltreed |= 1ULL << r;
	}
}

/* ---- entry points ---- */

static void compile_all_lines(struct parser *ps, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		ps->lineno++;
		compile_line(ps, p, eol);
		p = nl ? nl + 1 : end;
	}
}

/* Compile every line; -1 if grow() gave up (out of memory, too large). */
static int compile_lines(struct parser *ps, const char *text, size_t len)
{
	if (setjmp(ps->bail))
		return -1;
	compile_all_lines(ps, text, len);
	return 0;
}

static struct program *compile_text(const char *name, const char *text, size_t len, uint64_t max,
				    bool checked, FILE *errors)
{
	struct parser *ps = xcalloc(1, sizeof(*ps));
	struct program *prog = xcalloc(1, sizeof(*prog));
	uint64_t line = 1;

	ps->name = name;
	ps->errors = errors;
	ps->prog = prog;
	ps->max_mem = max > UINT64_MAX / 2 ? UINT64_MAX : 2 * max;
	prog->filename = xstrdup(name);
	prog->nbscale = 1.25;
	prog->crc32 = (uint32_t)crc32(0L, (const Bytef *)text, (uInt)0);
	for (size_t off = 0; off < len;) {
		uInt chunk = (uInt)MIN(len - off, (size_t)1 << 30);

		prog->crc32 = (uint32_t)crc32(prog->crc32, (const Bytef *)text + off, chunk);
		off += chunk;
	}
	sha256_hex(text, len, prog->sha256);
	if (!checked && loadfile_check_text(name, text, len, &line, errors) < 0)
		goto fail;
	if (compile_lines(ps, text, len) < 0) {
		print_errors(ps);	/* with grow()'s why */
		goto fail;
	}
	prog->lines = ps->lineno;
	if (ps->repeat_open) {
		perror_at(ps, "REPEAT at the end of the file has no operation to repeat");
	} else if (ps->depth > 0) {
		ps->lineno = ps->loop_line[ps->depth - 1];
		perror_at(ps, "LOOP without ENDLOOP");
	}
	if (ps->nerrors == 0) {
		bool any = false;

		for (uint32_t i = 0; i < prog->nops; i++)
			if (prog->ops[i].id < OP_COUNT)
				any = true;
		if (!any) {
			fprintf(errors, "%s: no operations in the loadfile\n", name);
			goto fail;
		}
	}
	if (ps->nerrors == 0)
		random_roots(ps);
	print_errors(ps);
	if (ps->nerrors)
		goto fail;
	for (int i = 0; i < OP_COUNT; i++)
		prog->statidx[i] = -1;
	for (int i = 0; i < OP_COUNT; i++) {
		if (prog->count[i]) {
			prog->statidx[i] = (int16_t)prog->nstats;
			prog->stat_op[prog->nstats++] = (uint16_t)i;
		}
	}
	find_deltreed_roots(prog);
	maps_free(ps);
	free(ps->random_uses);
	free(ps);
	return prog;
fail:
	maps_free(ps);
	free(ps->random_uses);
	free(ps);
	program_free(prog);
	return NULL;
}

struct program *program_compile_max(const char *name, const char *text, size_t len, uint64_t max,
				    FILE *errors)
{
	char b[32];

	if (len > max) {
		fprintf(errors, "%s: the loadfile text is larger than %s (--max-loadfile)\n", name,
			loadfile_size_text(max, b, sizeof(b)));
		return NULL;
	}
	return compile_text(name, text, len, max, false, errors);
}

struct program *program_compile(const char *name, const char *text, size_t len, FILE *errors)
{
	return program_compile_max(name, text, len, LOADFILE_MAX_DEFAULT, errors);
}

struct program *program_load_max(const char *filename, uint64_t max, FILE *errors)
{
	size_t len;
	char *text = loadfile_read(filename, max, &len, errors);
	struct program *prog;

	if (!text)
		return NULL;
	prog = compile_text(filename, text, len, max, true, errors);
	free(text);
	return prog;
}

struct program *program_load(const char *filename, FILE *errors)
{
	return program_load_max(filename, LOADFILE_MAX_DEFAULT, errors);
}

/* Each op the backend lacks, at its first line, in line order. */
int program_check_backend(const struct program *prog, const struct backend *be, FILE *errors)
{
	bool said[OP_COUNT] = { false };
	int bad = 0;

	for (uint32_t i = 0; i < prog->nops; i++) {
		int id = prog->ops[i].id;
		const char *why;

		if (id >= OP_COUNT || be->op[id] || said[id])
			continue;
		said[id] = true;
		why = be->why_unsupported ? be->why_unsupported(id) : NULL;
		if (why)
			fprintf(errors, "%s:%u: %s %s\n", prog->filename, prog->ops[i].line,
				op_info[id].name, why);
		else
			fprintf(errors, "%s:%u: %s is not supported by the %s backend\n",
				prog->filename, prog->ops[i].line, op_info[id].name, be->name);
		bad = -1;
	}
	return bad;
}

int program_check_scsi_writes(const struct program *prog, bool allowed, FILE *errors)
{
	if (allowed)
		return 0;
	for (uint32_t i = 0; i < prog->nops; i++) {
		const struct op *op = &prog->ops[i];

		if (op->id < OP_COUNT && op_is_scsi_write(op->id)) {
			fprintf(errors, "%s:%u: %s changes the LUN: refused without --allow-scsi-writes\n",
				prog->filename, op->line, op_info[op->id].name);
			return -1;
		}
	}
	return 0;
}

void program_free(struct program *prog)
{
	if (!prog)
		return;
	for (uint32_t i = 0; i < prog->nclient_roots; i++)
		free(prog->client_roots[i]);
	for (uint32_t i = 0; i < prog->nshared_roots; i++)
		free(prog->shared_roots[i]);
	free(prog->client_roots);
	free(prog->shared_roots);
	free(prog->filename);
	free(prog->ops);
	free(prog->paths);
	free(prog->pool);
	free(prog->exprs);
	free(prog);
}
