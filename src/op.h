/*
 * op.h - the operations a loadfile can name, and the compiled program the
 * parser makes of a loadfile: an array of ops, shared copy-on-write by all
 * clients and never re-parsed.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#ifndef DBENCH_OP_H
#define DBENCH_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum op_id {
#define OP(sym, name, display, group, args, domain) OP_##sym,
#include "ops.def"
#undef OP
	OP_COUNT,
	/* Directives: entries of a program that are not timed operations. */
	DIR_LOOP = OP_COUNT,	/* num[0] = count, num[1] = index after ENDLOOP */
	DIR_ENDLOOP,		/* num[1] = index of the matching LOOP */
	DIR_SLEEP,		/* num[0] = microseconds */
	DIR_SETSP,		/* num[0] = sync point */
	DIR_WAITSP,		/* num[0] = client, num[1] = sync point */
	DIR_RANDOMSTRING,	/* num[0] = slot, num[1] = pool offset, num[2] = length */
	DIR_WRITEPATTERN,	/* num[0] = WRITEPATTERN_*; text: num[1] = pool
				   offset, num[2] = length */
	DIR_COUNT
};

/* What WRITEPATTERN sets. */
enum writepattern {
	WRITEPATTERN_OFF,	/* random, incompressible data */
	WRITEPATTERN_ON,	/* a known pattern by file offset, verified by reads */
	WRITEPATTERN_TEXT,	/* upstream's WRITEPATTERN <text>: the text (and its
				   newline) repeated from the start of every write */
};

/* Response-time groups, for the grouped latency report. */
enum op_group {
	GROUP_READ,
	GROUP_WRITE,
	GROUP_OPENCLOSE,
	GROUP_ATTRIBUTES,
	GROUP_DIRECTORY,
	GROUP_LOCKING,
	GROUP_COUNT
};

/* What an expected status means. */
enum status_domain {
	DOMAIN_NT,		/* NT_STATUS_* codes */
	DOMAIN_NFS,		/* nfsstat3 */
	DOMAIN_NLM,		/* nlm4_stats */
	DOMAIN_SCSI,		/* SCSI status, sense key, ASC/ASCQ (scsi.h) */
};

struct op_info {
	const char *name;	/* loadfile word */
	const char *display;	/* op table name */
	const char *args;	/* argument signature, see ops.def */
	enum op_group group;
	enum status_domain domain;
};

extern const struct op_info op_info[OP_COUNT];
extern const char *const group_name[GROUP_COUNT];

/* Expected status of an op. */
enum expect_kind {
	EXPECT_EXACT,		/* exactly code */
	EXPECT_ANY,		/* '*': anything */
	EXPECT_SUCCESS,		/* 'SUCCESS': any success code */
	EXPECT_ERROR,		/* 'ERROR': any failure code */
};

struct expect {
	uint32_t code;
	uint8_t kind;		/* enum expect_kind */
};

#define MAX_NUMS 4
#define MAX_PATHS 2
#define NO_PATH UINT32_MAX
#define NO_HANDLE UINT32_MAX
#define MAX_RANDSTR 16
#define MAX_LOOP_DEPTH 16

/* One compiled loadfile line. */
struct op {
	uint16_t id;		/* enum op_id, or a directive */
	uint8_t nnums;		/* numbers in num[] */
	uint8_t npaths;		/* paths in path[] */
	uint32_t line;		/* line in the loadfile, for messages */
	struct expect expect;
	uint32_t handle;	/* dense per-client handle index, or NO_HANDLE */
	uint32_t path[MAX_PATHS]; /* index into program.paths, or NO_PATH */
	uint32_t expr;		/* 0: all numbers literal; else 1 + index of
				   MAX_NUMS entries in program.exprs */
	int64_t when_ns;	/* timestamp from the pass start, -1 if none */
	int64_t num[MAX_NUMS];	/* literal values of the 'n'/'h' arguments */
};

/*
 * A number that is not a literal: base, then qualifiers applied in the
 * order written (see dbench-loadfile(5)).
 */
enum num_base {
	NUM_LITERAL,		/* value */
	NUM_RANDOM,		/* '*': a random 64-bit number */
	NUM_RELATIVE,		/* '+x': this field's previous value plus x */
	NUM_CHILD,		/* 'child': the client's number */
	NUM_NCHILDREN,		/* 'num_children': the number of clients */
};

enum operand_kind {
	OPERAND_LITERAL,
	OPERAND_CHILD,
	OPERAND_NCHILDREN,
};

struct operand {
	uint8_t kind;		/* enum operand_kind */
	int64_t value;
};

#define MAX_QUALIFIERS 4
struct numexpr {
	uint8_t base;		/* enum num_base */
	uint8_t nqual;
	struct operand operand;	/* NUM_LITERAL value, NUM_RELATIVE addend */
	struct {
		char op;	/* '/' align, '%' modulo, '+' add, '-' subtract */
		struct operand operand;
	} qual[MAX_QUALIFIERS];
};

/* Path template: normalized, relative to the share root, '/' separated.
 * The byte PATH_CLIENT stands for the client's name ("client7"); the two
 * bytes PATH_RANDSTR, n stand for random string n. */
#define PATH_CLIENT '\001'
#define PATH_RANDSTR '\002'

/* Normalize dst[fixed..n) -- the part of an expanded path that random
 * strings made -- as the compiler normalizes loadfile paths: '/' and '\\'
 * separate, empty and "." components vanish, ".." removes the one before.
 * Returns the new length (dst NUL-terminated), or SIZE_MAX if the path
 * would climb above dst[0..fixed) or be the share root itself. */
size_t path_normalize_tail(char *dst, size_t fixed, size_t n);

/* The members of the [set] of a RANDOMSTRING pattern that opens at
 * pat[i] ('['): ranges such as a-z expanded, a member may come twice.
 * Returns their number; *close is left at the ']'. */
size_t randstr_set(const char *pat, size_t i, char members[256], size_t *close);

struct path_tpl {
	uint32_t off;		/* in program.pool */
	uint16_t len;
	uint16_t flags;		/* PATHF_* */
};
#define PATHF_CLIENT 0x1	/* has a client component */
#define PATHF_RANDSTR 0x2	/* uses a random string */

struct program {
	char *filename;		/* as given */
	struct op *ops;
	uint32_t nops;
	struct path_tpl *paths;
	uint32_t npaths;
	char *pool;		/* path and string text */
	size_t poolsize;
	struct numexpr *exprs;
	uint32_t nexprs;
	uint32_t nhandles;	/* dense handle indices in use */
	uint32_t count[OP_COUNT]; /* static count of each op */
	int16_t statidx[OP_COUNT]; /* per-client stats index, -1 if unused */
	uint16_t nstats;	/* ops the program uses */
	uint16_t stat_op[OP_COUNT]; /* statidx -> op id */
	double nbscale;		/* netbench scale factor (default 1.25) */
	bool timestamps;	/* some op has a timestamp */
	uint32_t crc32;		/* CRC-32 of the loadfile text (decompressed) */
	char sha256[65];	/* SHA-256 of the loadfile text (decompressed), hex */
	uint64_t lines;		/* lines in the file */
	char **client_roots;	/* per-client trees ("clients/<client>") */
	uint32_t nclient_roots;
	char **shared_roots;	/* first components shared by clients */
	uint32_t nshared_roots;
	uint64_t client_root_deltreed; /* bit i: a Deltree covers client root i */
	uint64_t shared_root_deltreed; /* bit i: a Deltree covers shared root i */
};

#define MAX_ROOTS 64	/* literal top-level names and client roots */
#define MAX_SHARED_ROOTS 4096	/* shared roots, the names random ones make included */

/* The argument index holding the size of a read or write op. */
static inline int op_size_arg(int id)
{
	return (id == OP_READX || id == OP_WRITEX) ? 2 : 1;
}

/* Bytes per unit of that size: SCSI lengths count logical blocks (512
 * bytes nominally; the backends use the LUN's real block length). */
static inline int64_t op_size_unit(int id)
{
	return (id >= OP_READ6 && id <= OP_WRITE16) ? 512 : 1;
}

static inline bool op_is_read(int id)
{
	return id == OP_READX || id == OP_SMB_READ || id == OP_READ3 || id == OP_BLOCK_READ ||
	       id == OP_READ6 || id == OP_READ10 || id == OP_READ16;
}

static inline bool op_is_write(int id)
{
	return id == OP_WRITEX || id == OP_SMB_WRITE || id == OP_WRITE3 || id == OP_BLOCK_WRITE ||
	       id == OP_WRITE10 || id == OP_WRITE16;
}

/* The bytes a read or write op with these numbers moves when the target
 * does what the loadfile says (the null backend, a pass's figures): the
 * size asked for (in blocks for SCSI), for ReadX/WriteX the size the
 * loadfile expects back; --trunc-io cuts nfs's and block's (trunc_io > 0).
 * 0 for other ops. */
uint64_t op_nominal_bytes(int id, const int64_t *num, int64_t trunc_io);

/* Ops that change the data or the reservations of a SCSI LUN: refused at
 * load time without --allow-scsi-writes. */
static inline bool op_is_scsi_write(int id)
{
	return id == OP_WRITE10 || id == OP_WRITE16 || id == OP_PROUT;
}

/* Look up an op by its loadfile word; -1 if unknown.  The exact spelling
 * first, then any case (as upstream dbench compares names).  Where two ops
 * share the word, the first one in ops.def. */
int op_lookup(const char *word, size_t len);

/* The other op with the same word (in any case) as `id` whose first
 * argument is (path true) or is not (false) a path; -1 if there is none:
 * READ of SMB and of the block backends, Close and the SMB CLOSE. */
int op_overload(int id, bool path);

static inline const char *path_text(const struct program *prog, uint32_t path)
{
	return prog->pool + prog->paths[path].off;
}

#endif
