/*
 * genload_office.c - genload's office client: the applications and their
 * documents, the I/O patterns they use, the user sessions (view, edit,
 * new, browse, copy, delete, database, mail, startup, scratch, cleanup) and
 * the pass made of them.  See genload.h.
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

static const struct app apps[] = {
	{ "Word", { "\\OFFICE\\WORD", "\\OFFICE\\WORD\\LETTERS",
		    "\\OFFICE\\WORD\\REPORTS", NULL },
	  { "DOC", "DOC", "RTF", NULL }, SAVE_WORD, READ_PAGES,
	  20, 220, true, 30 },
	{ "Excel", { "\\OFFICE\\EXCEL", "\\OFFICE\\EXCEL\\BUDGETS", NULL },
	  { "XLS", "XLS", "CSV", NULL }, SAVE_EXCEL, READ_WHOLE,
	  16, 260, true, 24 },
	{ "PowerPoint", { "\\OFFICE\\POWERPNT", NULL },
	  { "PPT", NULL }, SAVE_SLIDES, READ_PAGES, 96, 600, true, 8 },
	{ "Visio", { "\\OFFICE\\VISIO", NULL },
	  { "VSD", NULL }, SAVE_SLIDES, READ_WHOLE, 40, 300, true, 6 },
	{ "Project", { "\\OFFICE\\PROJECT", NULL },
	  { "MPP", NULL }, SAVE_EXCEL, READ_WHOLE, 60, 240, true, 5 },
	{ "Notepad", { "\\OFFICE\\NOTES", NULL },
	  { "TXT", "INI", NULL }, SAVE_REWRITE, READ_WHOLE, 1, 24, false, 8 },
	{ "Access", { "\\OFFICE\\ACCESS", NULL },
	  /* weight 0: its documents are used by session_database() only */
	  { "MDB", NULL }, SAVE_REWRITE, READ_PAGES, 256, 1536, true, 0 },
};

#define APP_COUNT	(sizeof(apps) / sizeof(apps[0]))
#define APP_ACCESS	(APP_COUNT - 1)

/* The folders of the tree, parents first. */
static const char *const folders[] = {
	"\\OFFICE", "\\OFFICE\\TEMPLATE", "\\OFFICE\\WORD",
	"\\OFFICE\\WORD\\LETTERS", "\\OFFICE\\WORD\\REPORTS",
	"\\OFFICE\\EXCEL", "\\OFFICE\\EXCEL\\BUDGETS", "\\OFFICE\\POWERPNT",
	"\\OFFICE\\VISIO", "\\OFFICE\\PROJECT", "\\OFFICE\\NOTES",
	"\\OFFICE\\ACCESS", "\\OFFICE\\OUTLOOK",
};

#define FOLDER_COUNT	(sizeof(folders) / sizeof(folders[0]))
#define OUTLOOK_DIR	"\\OFFICE\\OUTLOOK"
#define TEMPLATE_DIR	"\\OFFICE\\TEMPLATE"

/* ---- picking things ---- */

static const struct app *pick_app(struct gen *gen)
{
	unsigned total = 0, roll;

	for (size_t i = 0; i < APP_COUNT; i++)
		total += apps[i].weight;
	roll = (unsigned)gl_rng_below(gen, total);
	for (size_t i = 0; i < APP_COUNT; i++) {
		if (roll < apps[i].weight)
			return &apps[i];
		roll -= apps[i].weight;
	}
	return &apps[0];
}

static const char *pick_folder(struct gen *gen, const struct app *app)
{
	size_t n = 0;

	while (app->folders[n])
		n++;
	return app->folders[gl_rng_below(gen, n)];
}

static const char *pick_ext(struct gen *gen, const struct app *app)
{
	size_t n = 0;

	while (app->exts[n])
		n++;
	return app->exts[gl_rng_below(gen, n)];
}

static bool is_document_of(const struct app *app, const struct node *node)
{
	char dir[MAX_PATH_LEN];
	const char *base = gl_base_of(node->path);
	bool in_folder = false;

	if (node->is_dir || base[0] == '~')
		return false;
	gl_parent_of(node->path, dir);
	for (size_t i = 0; app->folders[i]; i++)
		if (strcasecmp(dir, app->folders[i]) == 0)
			in_folder = true;
	if (!in_folder)
		return false;
	for (size_t i = 0; app->exts[i]; i++)
		if (gl_has_ext(node->path, app->exts[i]))
			return true;
	return false;
}

/* A random closed document of the application, or -1. */
static long pick_document(struct gen *gen, const struct app *app)
{
	size_t count = 0, want;

	for (size_t i = 0; i < gen->node_count; i++)
		if (is_document_of(app, &gen->nodes[i]) &&
		    !gen->nodes[i].open_count)
			count++;
	if (!count)
		return -1;
	want = gl_rng_below(gen, count);
	for (size_t i = 0; i < gen->node_count; i++)
		if (is_document_of(app, &gen->nodes[i]) &&
		    !gen->nodes[i].open_count && want-- == 0)
			return (long)i;
	return -1;
}

static size_t count_documents(const struct gen *gen, const struct app *app)
{
	size_t count = 0;

	for (size_t i = 0; i < gen->node_count; i++)
		if (is_document_of(app, &gen->nodes[i]))
			count++;
	return count;
}

/* A document size for the application, whole sectors where it uses them. */
static uint64_t doc_size(struct gen *gen, const struct app *app, const char *path)
{
	uint64_t size = gl_rng_range(gen, app->min_kb * 1024ULL,
				  app->max_kb * 1024ULL);

	/* most documents are small: halve the size most of the time */
	if (gl_chance(gen, 60))
		size /= 2;
	if (app->sectors && !gl_has_ext(path, "CSV") && !gl_has_ext(path, "RTF"))
		size = (size + 511) / 512 * 512;
	return size ? size : 1;
}

/* The size of a document after an edit: a little larger or smaller. */
static uint64_t edited_size(struct gen *gen, const struct app *app,
			    const char *path, uint64_t old)
{
	uint64_t size = old * gl_rng_range(gen, 90, 115) / 100;

	if (size > app->max_kb * 2048ULL)
		size = doc_size(gen, app, path);
	if (app->sectors && !gl_has_ext(path, "CSV") && !gl_has_ext(path, "RTF"))
		size = (size + 511) / 512 * 512;
	return size ? size : 1;
}

/* ---- I/O patterns ---- */

/*
 * Read the whole file from offset in 64 KiB pieces.  The last piece asks
 * for what is left; now and then for a whole piece (a short read), and
 * rarely the reader goes on to hit end of file.
 */
static void read_sequential(struct gen *gen, int h, uint64_t offset,
			    uint64_t chunk)
{
	uint64_t size = gen->nodes[gl_handle_of(gen, h)->node].size;

	while (offset < size) {
		uint64_t want = size - offset < chunk ? size - offset : chunk;

		if (want < chunk && gl_chance(gen, 10))
			want = chunk;
		gl_readx(gen, h, offset, want);
		offset += want;
	}
	if (gl_chance(gen, 3))
		gl_readx(gen, h, offset, chunk);
}

/* A document's header: the first sector, then a small table near it. */
static void read_header(struct gen *gen, int h)
{
	uint64_t size = gen->nodes[gl_handle_of(gen, h)->node].size;

	gl_readx(gen, h, 0, size < 512 ? size : 512);
	if (size > 4608 && gl_chance(gen, 70))
		gl_readx(gen, h, 512, 4096);
}

/* Scattered reads of 4 KiB pages (sometimes 512-byte sectors or 32 KiB). */
static void read_pages(struct gen *gen, int h, unsigned count)
{
	uint64_t size = gen->nodes[gl_handle_of(gen, h)->node].size;

	for (unsigned i = 0; i < count && size > 4096; i++) {
		uint64_t want = gl_chance(gen, 20) ? 512 : 4096;
		uint64_t offset;

		if (gl_chance(gen, 25) && size > 32768)
			want = 32768;
		offset = gl_rng_below(gen, size / 512) * 512;
		if (offset + want > size)
			offset = (size - want) / 512 * 512;
		gl_readx(gen, h, offset, want);
	}
}

static void read_document(struct gen *gen, const struct app *app, int h)
{
	uint64_t size = gen->nodes[gl_handle_of(gen, h)->node].size;

	read_header(gen, h);
	if (app->read == READ_WHOLE || size <= 16384)
		read_sequential(gen, h, size > 4608 ? 4608 : size, CHUNK);
	else
		read_pages(gen, h, (unsigned)gl_rng_range(gen, 2, 6));
}

/*
 * Write a document of the given size: the body in 64 KiB pieces (Word in
 * 32 KiB), the odd-sized tail, then the header patched with small writes
 * and 1-byte writes at odd offsets.
 */
static void write_document(struct gen *gen, const struct app *app, int h,
			   uint64_t size)
{
	uint64_t offset = 0;

	while (offset < size) {
		uint64_t piece = size - offset < CHUNK ? size - offset : CHUNK;

		gl_writex(gen, h, offset, piece);
		offset += piece;
	}
	if (size < 1024)
		return;
	if (gl_chance(gen, 30))
		gl_writex(gen, h, 0, 512);
	if (gl_chance(gen, 50))
		gl_writex(gen, h, gl_rng_range(gen, 0, (size - 1) / 2) * 2 + 1, 1);
	if (gl_chance(gen, 30))
		gl_writex(gen, h, 512 + 2 * gl_rng_below(gen, 100) + 1, 1);
}

/* ---- sessions ---- */

/* Probe the owner file (absent) and open the document; -1 on failure. */
static int open_document(struct gen *gen, const char *doc, bool probe)
{
	char owner[MAX_PATH_LEN], dir[MAX_PATH_LEN];
	int h;

	gl_parent_of(doc, dir);
	if (gl_chance(gen, 40))
		gl_qpathinfo(gen, dir, 1004);
	gl_qpathinfo(gen, doc, gl_chance(gen, 50) ? 1035 : 1004);
	if (probe) {
		gl_owner_name(doc, owner);
		gl_ntcreatex(gen, owner, OPT_NON_DIRECTORY, DISP_OPEN);
	}
	h = gl_ntcreatex(gen, doc, OPT_NON_DIRECTORY, DISP_OPEN);
	if (h < 0)
		return h;
	if (gl_chance(gen, 30))
		gl_qfileinfo(gen, h, gl_chance(gen, 75) ? 258 : 1005);
	return h;
}

/* A quick look into a document: open, a read or two, close. */
static void peek_document(struct gen *gen, const char *doc)
{
	int h = gl_ntcreatex(gen, doc, gl_chance(gen, 30) ? 0 : OPT_NON_DIRECTORY,
			  DISP_OPEN);
	uint64_t size = gen->nodes[gl_handle_of(gen, h)->node].size;

	if (gl_chance(gen, 20))
		gl_qfileinfo(gen, h, 1004);
	read_header(gen, h);
	if (size > 8192 && gl_chance(gen, 50))
		gl_readx(gen, h, size / 2 / 512 * 512, 4096);
	gl_close_handle(gen, h);
}

static void session_view(struct gen *gen, const struct app *app)
{
	long index = pick_document(gen, app);
	char doc[MAX_PATH_LEN], dir[MAX_PATH_LEN];
	int h;

	if (index < 0)
		return;
	strcpy(doc, gen->nodes[index].path);
	gl_parent_of(doc, dir);
	if (gl_chance(gen, 60))
		gl_find_first(gen, dir, "*", FIND_MAX);
	if (gl_chance(gen, 70))
		peek_document(gen, doc);
	h = open_document(gen, doc, true);
	read_document(gen, app, h);
	if (gl_chance(gen, 20))
		gl_qfsinfo(gen, 259);
	gl_close_handle(gen, h);
	if (gl_chance(gen, 30))
		gl_qpathinfo(gen, doc, 1004);
}

/* Save as Word does: temp, original -> backup, temp -> original. */
static void save_word(struct gen *gen, const struct app *app, const char *doc,
		      uint64_t size)
{
	char dir[MAX_PATH_LEN], tmp[MAX_PATH_LEN], bak[MAX_PATH_LEN];
	bool existed = gl_exists(gen, doc);
	int h;

	gl_parent_of(doc, dir);
	gl_temp_name(gen, dir, "~WRD", ".TMP", tmp);
	gl_qpathinfo(gen, tmp, 1004);
	h = gl_ntcreatex(gen, tmp, OPT_NON_DIRECTORY, DISP_CREATE);
	write_document(gen, app, h, size);
	if (gl_chance(gen, 70))
		gl_flush(gen, h);
	gl_sfileinfo(gen, h);
	gl_close_handle(gen, h);
	gl_qpathinfo(gen, doc, 1004);
	if (existed) {
		gl_temp_name(gen, dir, "~WRL", ".TMP", bak);
		gl_rename_file(gen, doc, bak);
		gl_rename_file(gen, tmp, doc);
		gl_unlink_file(gen, bak);
	} else {
		gl_rename_file(gen, tmp, doc);
	}
	gl_qpathinfo(gen, doc, 1035);
}

/* Save as Excel does (and PowerPoint, with another temp name). */
static void save_replace(struct gen *gen, const struct app *app,
			 const char *doc, uint64_t size)
{
	char dir[MAX_PATH_LEN], tmp[MAX_PATH_LEN];
	int h;

	gl_parent_of(doc, dir);
	if (app->save == SAVE_EXCEL)
		gl_hex_temp_name(gen, dir, tmp);
	else
		gl_temp_name(gen, dir, "PPT", ".TMP", tmp);
	h = gl_ntcreatex(gen, tmp, OPT_NON_DIRECTORY, DISP_CREATE);
	if (gl_chance(gen, 50))
		gl_qfileinfo(gen, h, 1004);
	write_document(gen, app, h, size);
	if (gl_chance(gen, 60))
		gl_flush(gen, h);
	gl_sfileinfo(gen, h);
	gl_close_handle(gen, h);
	if (gl_qpathinfo(gen, doc, 1004) == ST_OK)
		gl_unlink_file(gen, doc);
	gl_rename_file(gen, tmp, doc);
}

/* Save by overwriting: OVERWRITE_IF, write it all, close. */
static void save_rewrite(struct gen *gen, const struct app *app,
			 const char *doc, uint64_t size)
{
	int h = gl_ntcreatex(gen, doc, OPT_NON_DIRECTORY, DISP_OVERWRITE_IF);

	write_document(gen, app, h, size);
	if (gl_chance(gen, 50))
		gl_flush(gen, h);
	gl_close_handle(gen, h);
}

static void save_document(struct gen *gen, const struct app *app,
			  const char *doc, uint64_t size)
{
	switch (app->save) {
	case SAVE_WORD:
		save_word(gen, app, doc, size);
		break;
	case SAVE_EXCEL:
	case SAVE_SLIDES:
		save_replace(gen, app, doc, size);
		break;
	case SAVE_REWRITE:
		save_rewrite(gen, app, doc, size);
		break;
	}
}

/* A scratch file an editor keeps beside the document, then deletes. */
static void scratch_file(struct gen *gen, const char *doc)
{
	char dir[MAX_PATH_LEN], tmp[MAX_PATH_LEN];
	uint64_t size = gl_rng_range(gen, 1, 6) * 4096;
	int h;

	if (gl_chance(gen, 50))
		size -= 1536;

	gl_parent_of(doc, dir);
	gl_temp_name(gen, dir, "~WRF", ".TMP", tmp);
	gl_qpathinfo(gen, tmp, 1004);
	h = gl_ntcreatex(gen, tmp, OPT_NON_DIRECTORY, DISP_CREATE);
	gl_writex(gen, h, 0, size);
	if (gl_chance(gen, 30))
		gl_writex(gen, h, 2 * gl_rng_below(gen, size / 2) + 1, 1);
	gl_readx(gen, h, 0, size < 4096 ? size : 4096);
	gl_close_handle(gen, h);
	gl_unlink_file(gen, tmp);
}

static void session_edit(struct gen *gen, const struct app *app)
{
	char doc[MAX_PATH_LEN], owner[MAX_PATH_LEN];
	long index = pick_document(gen, app);
	bool owned = app->save != SAVE_REWRITE;
	uint64_t size;
	int h, o = -1;

	if (index < 0)
		return;
	strcpy(doc, gen->nodes[index].path);
	h = open_document(gen, doc, owned);
	read_document(gen, app, h);
	size = gen->nodes[gl_handle_of(gen, h)->node].size;
	if (owned) {
		gl_owner_name(doc, owner);
		o = gl_ntcreatex(gen, owner, OPT_NON_DIRECTORY, DISP_CREATE);
		gl_writex(gen, o, 0, 162);
		gl_close_handle(gen, o);
	}
	if (gl_chance(gen, 40))
		read_pages(gen, h, 2);
	if (owned && gl_chance(gen, 50)) {
		char dir[MAX_PATH_LEN];

		gl_parent_of(doc, dir);
		gl_find_first(gen, dir, "~$*", 1);
	}
	for (unsigned i = (unsigned)gl_rng_below(gen, 4); i > 0; i--)
		scratch_file(gen, doc);
	gl_close_handle(gen, h);
	if (gl_chance(gen, 50))
		save_document(gen, app, doc, edited_size(gen, app, doc, size));
	if (owned)
		gl_unlink_file(gen, owner);
}

static void session_new(struct gen *gen, const struct app *app)
{
	const char *dir = pick_folder(gen, app);
	char doc[MAX_PATH_LEN];
	const char *ext = pick_ext(gen, app);
	char pattern[32];

	gl_new_doc_name(gen, dir, ext, doc);
	gl_qpathinfo(gen, doc, 1004);
	snprintf(pattern, sizeof(pattern), "*.%s", ext);
	gl_find_first(gen, dir, pattern, FIND_MAX);
	save_document(gen, app, doc, doc_size(gen, app, doc));
}

/* Explorer copies a file in from elsewhere. */
static void session_copy(struct gen *gen, const struct app *app)
{
	const char *dir = pick_folder(gen, app);
	char doc[MAX_PATH_LEN];
	uint64_t size, offset = 0;
	int h;

	gl_new_doc_name(gen, dir, pick_ext(gen, app), doc);
	gl_qpathinfo(gen, doc, 1004);
	gl_qfsinfo(gen, 259);
	h = gl_ntcreatex(gen, doc, OPT_NON_DIRECTORY, DISP_CREATE);
	size = doc_size(gen, app, doc);
	while (offset < size) {
		uint64_t piece = size - offset < CHUNK ? size - offset : CHUNK;

		gl_writex(gen, h, offset, piece);
		offset += piece;
	}
	gl_sfileinfo(gen, h);
	gl_close_handle(gen, h);
	gl_qpathinfo(gen, doc, 1035);
}

/* Explorer shows a folder: list it, query entries, peek into a file. */
static void session_browse(struct gen *gen, const struct app *app)
{
	const char *dir = pick_folder(gen, app);
	char path[MAX_PATH_LEN];
	long index;
	int d, h;

	gl_qpathinfo(gen, dir, 1004);
	d = gl_ntcreatex(gen, dir, OPT_DIRECTORY, DISP_OPEN);
	if (gl_chance(gen, 50))
		gl_qfileinfo(gen, d, 1004);
	gl_find_first(gen, dir, "*", FIND_MAX);
	gl_join(path, dir, "DESKTOP.INI");
	gl_qpathinfo(gen, path, 1004);
	gl_qfsinfo(gen, 259);
	gl_qfsinfo(gen, 1);
	for (int i = 0; i < 3; i++) {
		index = pick_document(gen, app);
		if (index >= 0)
			gl_qpathinfo(gen, gen->nodes[index].path,
				  gl_chance(gen, 50) ? 1004 : 1035);
	}
	for (int i = (int)gl_rng_below(gen, 3); i > 0; i--) {
		index = pick_document(gen, app);
		if (index < 0)
			break;
		h = gl_ntcreatex(gen, gen->nodes[index].path, 0, DISP_OPEN);
		if (gl_chance(gen, 40))
			gl_sfileinfo(gen, h);
		gl_close_handle(gen, h);
	}
	index = pick_document(gen, app);
	if (index >= 0 && gl_chance(gen, 60)) {
		strcpy(path, gen->nodes[index].path);
		h = gl_ntcreatex(gen, path, 0, DISP_OPEN);
		gl_qfileinfo(gen, h, 1004);
		gl_readx(gen, h, 0, gen->nodes[index].size < 4096 ?
		      gen->nodes[index].size : 4096);
		gl_close_handle(gen, h);
	}
	gl_close_handle(gen, d);
}

/* Explorer deletes a document. */
static void session_delete(struct gen *gen, const struct app *app)
{
	char doc[MAX_PATH_LEN], dir[MAX_PATH_LEN];
	unsigned count = (unsigned)gl_rng_range(gen, 1, 2);
	long index;

	for (unsigned i = 0; i < count; i++) {
		index = pick_document(gen, app);
		if (index < 0 || count_documents(gen, app) < 8)
			return;
		strcpy(doc, gen->nodes[index].path);
		gl_qpathinfo(gen, doc, 1004);
		gl_qpathinfo(gen, doc, 1035);
		gl_unlink_file(gen, doc);
		gl_qpathinfo(gen, doc, 1004);
	}
	gl_parent_of(doc, dir);
	gl_find_first(gen, dir, "*", FIND_MAX);
}

/* Access: lock file, page reads and writes, sometimes a record lock. */
static void session_database(struct gen *gen)
{
	const struct app *app = &apps[APP_ACCESS];
	char mdb[MAX_PATH_LEN], ldb[MAX_PATH_LEN];
	long index = pick_document(gen, app);
	uint64_t size;
	int h, l;

	if (index < 0)
		return;
	strcpy(mdb, gen->nodes[index].path);
	gl_with_ext(mdb, "LDB", ldb);
	gl_qpathinfo(gen, mdb, 1004);
	gl_ntcreatex(gen, ldb, OPT_NON_DIRECTORY, DISP_OPEN);
	l = gl_ntcreatex(gen, ldb, OPT_NON_DIRECTORY, DISP_CREATE);
	gl_writex(gen, l, 0, 64);
	h = gl_ntcreatex(gen, mdb, OPT_NON_DIRECTORY, DISP_OPEN);
	gl_qfileinfo(gen, h, 258);
	size = gen->nodes[gl_handle_of(gen, h)->node].size;
	gl_readx(gen, h, 0, 4096);
	read_pages(gen, h, (unsigned)gl_rng_range(gen, 4, 10));
	if (gl_chance(gen, 30)) {
		uint64_t page = gl_rng_below(gen, size / 4096) * 4096;

		gl_lockx(gen, h, LOCK_BASE + gl_rng_below(gen, 200), 1);
		gl_readx(gen, h, page, 4096);
		gl_writex(gen, h, page, 4096);
		gl_unlockx(gen, h);
	}
	for (unsigned i = (unsigned)gl_rng_range(gen, 1, 2); i > 0; i--)
		gl_writex(gen, h, gl_rng_below(gen, size / 4096 + 1) * 4096, 4096);
	gl_writex(gen, h, 2 * gl_rng_below(gen, 256) + 1, 1);
	gl_flush(gen, h);
	gl_close_handle(gen, h);
	gl_close_handle(gen, l);
	gl_unlink_file(gen, ldb);
}

/* Outlook: PST page I/O, attachments saved and deleted. */
static void session_mail(struct gen *gen)
{
	static const struct app msg = {
		"Outlook", { OUTLOOK_DIR, NULL }, { "MSG", NULL },
		SAVE_REWRITE, READ_WHOLE, 4, 160, false, 0,
	};
	uint64_t size = gen->nodes[gl_handle_of(gen, gen->pst)->node].size;
	char path[MAX_PATH_LEN];
	long index;
	int h;

	read_pages(gen, gen->pst, (unsigned)gl_rng_range(gen, 2, 6));
	if (gl_chance(gen, 50))
		gl_writex(gen, gen->pst, gl_rng_below(gen, size / 4096) * 4096, 4096);
	if (gl_chance(gen, 60))
		gl_flush(gen, gen->pst);
	if (gl_chance(gen, 50)) {
		gl_new_doc_name(gen, OUTLOOK_DIR, "MSG", path);
		gl_qpathinfo(gen, path, 1004);
		h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_CREATE);
		write_document(gen, &msg, h, doc_size(gen, &msg, path));
		gl_close_handle(gen, h);
	}
	index = pick_document(gen, &msg);
	if (index >= 0 && count_documents(gen, &msg) > 6) {
		strcpy(path, gen->nodes[index].path);
		gl_unlink_file(gen, path);
	}
}

/* An application starts: reads its template, probes what is not there. */
static void session_startup(struct gen *gen, const struct app *app)
{
	char path[MAX_PATH_LEN];
	int h;

	gl_qfsinfo(gen, 1);
	gl_join(path, TEMPLATE_DIR, app->save == SAVE_WORD ? "NORMAL.DOT" : "BOOK.XLT");
	gl_qpathinfo(gen, path, 1004);
	h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_OPEN);
	if (h >= 0) {
		gl_qfileinfo(gen, h, 258);
		read_sequential(gen, h, 0, CHUNK);
		gl_close_handle(gen, h);
	}
	gl_join(path, TEMPLATE_DIR, "CUSTOM.DIC");
	gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_OPEN);
	gl_qpathinfo(gen, "\\OFFICE\\STARTUP", 1004);
	gl_qpathinfo(gen, "\\OFFICE\\STARTUP\\PERSONAL.XLS", 1004);
	if (gl_chance(gen, 30))
		gl_find_first(gen, "\\OFFICE\\STARTUP", "*", FIND_MAX);
	gl_join(path, pick_folder(gen, app), "DESKTOP.INI");
	gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_OPEN);
}

/* A temporary folder used and removed, and a delete-on-close file. */
static void session_scratch(struct gen *gen, const struct app *app)
{
	char dir[MAX_PATH_LEN], path[MAX_PATH_LEN], name[16];
	uint64_t size;
	int h;

	snprintf(name, sizeof(name), "OLK%X", ++gen->serial & 0xfff);
	gl_join(dir, OUTLOOK_DIR, name);
	if (gl_exists(gen, dir))
		return;
	gl_make_dir(gen, dir);
	gl_join(path, dir, "ATTACH01.DOC");
	h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_CREATE);
	size = doc_size(gen, &apps[0], path);
	write_document(gen, &apps[0], h, size);
	gl_close_handle(gen, h);
	h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_OPEN);
	read_sequential(gen, h, 0, CHUNK);
	gl_close_handle(gen, h);
	gl_unlink_file(gen, path);
	gl_remove_dir(gen, dir);

	gl_temp_name(gen, pick_folder(gen, app), "~DF", ".TMP", path);
	h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY | OPT_DELETE_ON_CLOSE,
		      DISP_CREATE);
	gl_writex(gen, h, 0, 8192);
	gl_readx(gen, h, 0, 8192);
	gl_close_handle(gen, h);
	gl_qpathinfo(gen, path, 1004);
}

/* Searches for leftovers: usually there are none. */
static void session_cleanup(struct gen *gen, const struct app *app)
{
	const char *dir = pick_folder(gen, app);

	gl_find_first(gen, dir, "~$*", 1);
	gl_find_first(gen, dir, "*.TMP", FIND_MAX);
	gl_find_first(gen, dir, "~WR?????.TMP", FIND_MAX);
	if (gl_chance(gen, 50))
		gl_find_first(gen, dir, "*.BAK", FIND_MAX);
	if (gl_chance(gen, 50)) {
		char pattern[32];

		snprintf(pattern, sizeof(pattern), "%s??.*",
			 gl_pick_stem(gen));
		gl_find_first(gen, dir, pattern, FIND_MAX);
	}
}

/* ---- the pass ---- */

static void build_tree(struct gen *gen)
{
	char path[MAX_PATH_LEN];
	int h;

	for (size_t i = 0; i < FOLDER_COUNT; i++) {
		gl_qpathinfo(gen, folders[i], 1004);
		if (i % 4 == 3) {
			h = gl_ntcreatex(gen, folders[i], OPT_DIRECTORY, DISP_CREATE);
			gl_close_handle(gen, h);
		} else {
			gl_make_dir(gen, folders[i]);
		}
	}
	gl_join(path, TEMPLATE_DIR, "NORMAL.DOT");
	h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_CREATE);
	write_document(gen, &apps[0], h, 41984);
	gl_close_handle(gen, h);
	gl_join(path, TEMPLATE_DIR, "BOOK.XLT");
	h = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_CREATE);
	write_document(gen, &apps[1], h, 17408);
	gl_close_handle(gen, h);
}

/* The first documents: a few per application, the PST and a database. */
static void populate(struct gen *gen)
{
	char path[MAX_PATH_LEN];

	for (size_t i = 0; i < APP_COUNT; i++) {
		unsigned n = i == APP_ACCESS ? 2 : 4;

		for (unsigned k = 0; k < n; k++)
			session_copy(gen, &apps[i]);
	}
	gl_join(path, OUTLOOK_DIR, "OUTLOOK.PST");
	gen->pst = gl_ntcreatex(gen, path, OPT_NON_DIRECTORY, DISP_CREATE);
	for (uint64_t offset = 0; offset < 1048576; offset += CHUNK)
		gl_writex(gen, gen->pst, offset, CHUNK);
	gl_flush(gen, gen->pst);
	gen->watch = gl_ntcreatex(gen, "\\OFFICE", OPT_DIRECTORY, DISP_OPEN);
}

/* One session, chosen by weight. */
static void session(struct gen *gen)
{
	const struct app *app = pick_app(gen);
	unsigned roll = (unsigned)gl_rng_below(gen, 100);

	if (roll < 36)
		session_view(gen, app);
	else if (roll < 48)
		session_edit(gen, app);
	else if (roll < 52)
		session_new(gen, app);
	else if (roll < 62)
		session_browse(gen, app);
	else if (roll < 65)
		session_copy(gen, app);
	else if (roll < 69)
		session_delete(gen, app);
	else if (roll < 74)
		session_database(gen);
	else if (roll < 81)
		session_mail(gen);
	else if (roll < 87)
		session_startup(gen, app);
	else if (roll < 89)
		session_scratch(gen, app);
	else
		session_cleanup(gen, app);
}

void gl_generate_pass(struct gen *gen, unsigned long target_ops)
{
	unsigned fnum;
	int h;

	/* start clean; the model starts empty, so this removes nothing */
	gl_deltree(gen, "");

	/* \clients and the client directory sit outside the modelled tree */
	gl_emit(gen, K_MKDIR, ST_OK, "\"\\clients\"");
	fnum = gl_free_fnum(gen);
	gl_emit(gen, K_NTCREATEX, ST_OK, "\"%s\" 0x%x 0x%x %u", CLIENT_DIR,
	     OPT_DIRECTORY, DISP_CREATE, fnum);
	h = gl_take_handle(gen, gl_node_add(gen, "", true), fnum);
	gl_close_handle(gen, h);

	build_tree(gen);
	populate(gen);
	while (gen->total_ops < target_ops)
		session(gen);

	gl_find_first(gen, "\\OFFICE", "*", FIND_MAX);
	gl_close_handle(gen, gen->watch);
	gl_flush(gen, gen->pst);
	gl_close_handle(gen, gen->pst);
	for (int i = 0; i < MAX_HANDLES; i++)
		if (gen->handles[i].in_use)
			gl_die("internal error: handle %u left open",
			    gen->handles[i].fnum);
	gl_deltree(gen, "");
}
