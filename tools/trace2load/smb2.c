/*
 * smb2.c - SMB2/SMB3 requests to the netbench ops the SMB backend replays.
 *
 * The mapping (information classes become SMB1 pass-through levels,
 * 1000 + class, as classic loadfiles write them: FileBasicInformation is
 * 1004, FileDispositionInformation 1013):
 *
 *   CREATE          NTCreateX "path" create_options disposition handle
 *   CLOSE           Close handle
 *   READ / WRITE    ReadX / WriteX handle offset length count (count: what
 *                   the server returned / wrote)
 *   FLUSH           Flush handle
 *   LOCK            LockX / UnlockX handle offset length, one line a range
 *                   (exclusive ranges; shared ones have no op)
 *   QUERY_INFO      QUERY_FILE_INFORMATION handle level (file class),
 *                   QUERY_FS_INFORMATION level (file system class)
 *   SET_INFO        Rename "old" "new" (FileRenameInformation),
 *                   SET_FILE_INFORMATION handle level (other file classes)
 *   QUERY_DIRECTORY FIND_FIRST "dir\pattern" level max_count count (the
 *                   first query on a handle, or one that restarts the scan;
 *                   the rest of a listing is a comment)
 *
 * Deletes are the client's own: CREATE with FILE_DELETE_ON_CLOSE (0x1000)
 * or SET_INFO FileDispositionInformation, then CLOSE, and replay as such.
 * Requests and responses pair by MessageId within the TCP connection (the
 * SessionId changes during session set-up); interim (STATUS_PENDING)
 * responses are passed over.  SMB2 file ids become small handle numbers,
 * the smallest free one at each open, taken and freed in call order.
 * Paths are relative to the tree connect's share; the share (or --root)
 * becomes \clients\client1.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "status.h"
#include "t2l.h"

#define STATUS_PENDING 0x00000103u
#define SMB2_NOTIFICATION_ID UINT64_MAX	/* oplock breaks from the server */
#define PATH_TEXT_MAX 2000
#define MAX_LOCKS 64			/* ranges read from one LOCK */
#define MAX_SHARED 16			/* skipped shared ranges kept per open */
#define FIND_MAX_COUNT 65535		/* FIND_FIRST max_count (SMB2 has none) */

enum smb2_cmd {
	SMB2_NEGOTIATE, SMB2_SESSION_SETUP, SMB2_LOGOFF, SMB2_TREE_CONNECT,
	SMB2_TREE_DISCONNECT, SMB2_CREATE, SMB2_CLOSE, SMB2_FLUSH, SMB2_READ,
	SMB2_WRITE, SMB2_LOCK, SMB2_IOCTL, SMB2_CANCEL, SMB2_ECHO,
	SMB2_QUERY_DIRECTORY, SMB2_CHANGE_NOTIFY, SMB2_QUERY_INFO, SMB2_SET_INFO,
	SMB2_OPLOCK_BREAK, SMB2_NCMDS
};

static const char *const cmd_names[SMB2_NCMDS] = {
	"NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT",
	"CREATE", "CLOSE", "FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL",
	"ECHO", "QUERY_DIRECTORY", "CHANGE_NOTIFY", "QUERY_INFO", "SET_INFO",
	"OPLOCK_BREAK",
};

#define DISP_CREATE 2
#define DISP_OPEN_IF 3
#define INFO_FILE 1
#define INFO_FS 2
#define FILE_RENAME_INFORMATION 10
#define FILE_LINK_INFORMATION 11
#define FILE_DISPOSITION_INFORMATION 13
#define FIND_RESTART_SCANS 0x01
#define FIND_REOPEN 0x10
#define LOCK_SHARED 0x1
#define LOCK_EXCLUSIVE 0x2
#define LOCK_UNLOCK 0x4

/* A byte range of a LOCK request. */
struct lock_range {
	uint64_t offset;	/* first byte */
	uint64_t length;	/* bytes */
	uint64_t flags;		/* SMB2_LOCKFLAG_* */
};

/* An open file, from its CREATE being written to its CLOSE. */
struct smb_open {
	uint8_t key[sizeof(struct conversation) + 16]; /* conversation + fid */
	int handle;		/* loadfile handle number; 0: the open was skipped */
	char *path;		/* loadfile path (NULL when skipped) */
	char *why;		/* why the open was skipped */
	enum skip_reason reason; /* and the reason's class */
	bool listed;		/* a FIND_FIRST was written for it */
	struct lock_range shared[MAX_SHARED]; /* shared ranges not written */
	int nshared;
};

/* A tree connect: the share a TreeId names. */
struct smb_tree {
	char *share;		/* share name ("share" of \\server\share) */
	bool ipc;		/* IPC$ */
};

struct smb_state {
	struct hmap opens;	/* conversation + fid -> smb_open (also + ff..ff: the last open) */
	struct hmap trees;	/* conversation + tid -> smb_tree */
	bool *used;		/* handle numbers taken */
	int nused;		/* size of used[] */
	char root_share[256];	/* the share that holds the root */
	char root_sub[1024];	/* the directory in it, '\' separated, "" for the share */
	bool have_root;		/* root decided */
	uint64_t encrypted;	/* SMB3 encrypted messages (unreadable) */
	uint64_t unknown_tree;	/* calls on trees whose connect was not seen */
};

struct smb_call {
	uint16_t cmd;			/* SMB2 command */
	struct conversation conv;	/* the connection */
	uint32_t tid;			/* TreeId */
	char *share;			/* the tree's share when known (header) */
	uint8_t fid[16];		/* the file id of the request */
	bool have_fid;
	char *name;			/* CREATE name, rename target, find pattern, tree path */
	bool dfs;			/* the name has a \server\share prefix */
	uint64_t access;		/* CREATE: access mask */
	bool folded;			/* part of a rename or delete written as one line */
	uint32_t fold_status;		/* SET_INFO folded: the status of the whole */
	bool fold_dir;			/* SET_INFO folded: the file is a directory */
	uint64_t attributes;		/* CREATE response: file attributes */
	uint64_t create_options;	/* CREATE */
	uint64_t disposition;		/* CREATE */
	uint64_t offset, length;	/* READ, WRITE */
	uint64_t info_class, level;	/* QUERY_INFO, SET_INFO, QUERY_DIRECTORY level */
	uint64_t find_flags;		/* QUERY_DIRECTORY */
	uint64_t ioctl;			/* IOCTL function */
	bool delete_on_close;		/* FileDispositionInformation */
	bool replace_if;		/* FileRenameInformation */
	struct lock_range *locks;	/* LOCK */
	size_t nlocks;
	/* the response */
	uint8_t rfid[16];		/* CREATE: the new file id */
	bool have_rfid;
	uint32_t rtid;			/* TREE_CONNECT: the new TreeId */
	uint64_t count;			/* bytes read or written, entries found */
};

/* The pending-map key of a request: "S", connection, MessageId. */
struct smb_key {
	char tag;
	struct conversation conv;
	uint64_t msg_id;
};

void smb2_init(struct t2l *t)
{
	struct smb_state *s = xcalloc(1, sizeof(*s));

	hmap_init(&s->opens);
	hmap_init(&s->trees);
	t->smb = s;
}

static void free_tree(void *p)
{
	struct smb_tree *tr = p;

	free(tr->share);
	free(tr);
}

void smb2_free(struct t2l *t)
{
	struct smb_state *s = t->smb;

	if (!s)
		return;
	/* an open may be under two keys: collect each once */
	for (size_t pos = 0;;) {
		const void *key;
		struct smb_open *o = hmap_next(&s->opens, &pos, &key, NULL);

		if (!o)
			break;
		if (memcmp(key, o->key, sizeof(o->key)) == 0) {
			free(o->path);
			free(o->why);
			free(o);
		}
	}
	hmap_free(&s->opens, NULL);
	hmap_free(&s->trees, free_tree);
	free(s->used);
	free(s);
	t->smb = NULL;
}

static void release_call(struct record *rec)
{
	struct smb_call *c = rec->payload;

	free(c->share);
	free(c->name);
	free(c->locks);
}

/* ---- handle numbers ---- */

static int handle_take(struct smb_state *s)
{
	for (int i = 1; i < s->nused; i++) {
		if (!s->used[i]) {
			s->used[i] = true;
			return i;
		}
	}
	int n = s->nused ? s->nused * 2 : 64;
	int h = s->nused ? s->nused : 1;

	s->used = xrealloc(s->used, (size_t)n * sizeof(*s->used));
	memset(s->used + s->nused, 0, (size_t)(n - s->nused) * sizeof(*s->used));
	s->nused = n;
	s->used[h] = true;
	return h;
}

/* A number not open now, for a failed open (which takes none). */
static int handle_peek(struct smb_state *s)
{
	for (int i = 1; i < s->nused; i++)
		if (!s->used[i])
			return i;
	return s->nused ? s->nused : 1;
}

static void handle_free(struct smb_state *s, int h)
{
	if (h > 0 && h < s->nused)
		s->used[h] = false;
}

/* ---- file ids and trees ---- */

static size_t fid_key(uint8_t *key, const struct conversation *conv, const uint8_t fid[16])
{
	memcpy(key, conv, sizeof(*conv));
	memcpy(key + sizeof(*conv), fid, 16);
	return sizeof(*conv) + 16;
}

static const uint8_t last_open_fid[16] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* The open a request's file id names (all ones: the last CREATE of a
 * compound, which is also the last one written on the connection). */
static struct smb_open *open_of(struct smb_state *s, const struct smb_call *c)
{
	uint8_t key[sizeof(struct conversation) + 16];

	if (!c->have_fid)
		return NULL;
	return hmap_get(&s->opens, key, fid_key(key, &c->conv, c->fid));
}

static void open_forget(struct smb_state *s, struct smb_open *o)
{
	uint8_t key[sizeof(struct conversation) + 16];

	hmap_del(&s->opens, o->key, sizeof(o->key));
	memcpy(key, o->key, sizeof(struct conversation));
	memcpy(key + sizeof(struct conversation), last_open_fid, 16);
	if (hmap_get(&s->opens, key, sizeof(key)) == o)
		hmap_del(&s->opens, key, sizeof(key));
	handle_free(s, o->handle);
	free(o->path);
	free(o->why);
	free(o);
}

static size_t tree_key(uint8_t *key, const struct conversation *conv, uint32_t tid)
{
	memcpy(key, conv, sizeof(*conv));
	memcpy(key + sizeof(*conv), &tid, sizeof(tid));
	return sizeof(*conv) + sizeof(tid);
}

/* The share name of a UNC path: "share" of "\\server\share". */
static void share_of(const char *unc, char *out, size_t size)
{
	const char *p = unc;

	while (*p == '\\' || *p == '/')
		p++;
	if (p != unc) {			/* skip the server */
		p += strcspn(p, "\\/");
		while (*p == '\\' || *p == '/')
			p++;
	}
	snprintf(out, size, "%.*s", (int)strcspn(p, "\\/"), p);
}

static void set_root_from_share(struct t2l *t, const char *share, const char *unc)
{
	struct smb_state *s = t->smb;

	snprintf(s->root_share, sizeof(s->root_share), "%s", share);
	s->root_sub[0] = '\0';
	s->have_root = true;
	out_comment(t, "root: %s (the share) is \\clients\\client1", unc ? unc : share);
}

bool smb2_set_root_option(struct t2l *t, const char *root)
{
	struct smb_state *s = t->smb;
	const char *p = root, *sub;
	size_t n;

	if (*p == '\\' || *p == '/') {
		while (*p == '\\' || *p == '/')
			p++;
		p += strcspn(p, "\\/");		/* the server */
		while (*p == '\\' || *p == '/')
			p++;
	}
	n = strcspn(p, "\\/");
	if (n == 0 || n >= sizeof(s->root_share) || memchr(p, ':', n))
		return false;
	snprintf(s->root_share, sizeof(s->root_share), "%.*s", (int)n, p);
	sub = p + n;
	n = 0;
	while (*sub && n + 1 < sizeof(s->root_sub)) {
		while (*sub == '\\' || *sub == '/')
			sub++;
		size_t len = strcspn(sub, "\\/");

		if (len == 0)
			break;
		if (n + len + 2 >= sizeof(s->root_sub) || memchr(sub, ':', len))
			return false;
		if (n)
			s->root_sub[n++] = '\\';
		memcpy(s->root_sub + n, sub, len);
		n += len;
		sub += len;
	}
	s->root_sub[n] = '\0';
	s->have_root = true;
	snprintf(t->smb_root_text, sizeof(t->smb_root_text), "root: share %s%s%s (--root) is \\clients\\client1",
		 s->root_share, s->root_sub[0] ? "\\" : "", s->root_sub);
	return true;
}

/* The share a request's tree names, or NULL when the tree connect is not in
 * the capture (the header's tree name, from tshark, then). */
static const char *share_of_call(struct smb_state *s, const struct smb_call *c)
{
	uint8_t key[sizeof(struct conversation) + 4];
	struct smb_tree *tr = hmap_get(&s->trees, key, tree_key(key, &c->conv, c->tid));

	if (tr)
		return tr->share;
	return c->share;
}

/*
 * The loadfile path of a share-relative name (components separated by '\'),
 * or a skip reason with its explanation.
 */
static int smb_path(struct t2l *t, const struct smb_call *c, const char *name, char *out, size_t size,
		    char *why, size_t whysize)
{
	struct smb_state *s = t->smb;
	const char *share = share_of_call(s, c);
	const char *p = name ? name : "", *sub = s->root_sub;
	size_t n;

	if (!share) {
		/* the tree connect is not in the capture: take it as the root share */
		s->unknown_tree++;
		if (!s->have_root) {
			s->have_root = true;
			out_comment(t, "root: the share of tree %#x (its tree connect is not in the capture) is \\clients\\client1",
				    c->tid);
		}
	} else if (!s->have_root) {
		set_root_from_share(t, share, NULL);
	}
	if (share && s->root_share[0] && strcasecmp(share, s->root_share) != 0) {
		snprintf(why, whysize, "share %s is not the root share %s", share, s->root_share);
		return SKIP_OUTSIDE_ROOT;
	}
	if (c->dfs) {			/* \server\share\path */
		for (int i = 0; i < 2 && *p; i++) {
			while (*p == '\\')
				p++;
			p += strcspn(p, "\\");
		}
	}
	/* the root directory inside the share */
	while (*sub) {
		size_t len = strcspn(sub, "\\");

		while (*p == '\\')
			p++;
		if (strncasecmp(p, sub, len) != 0 || (p[len] != '\\' && p[len] != '\0')) {
			snprintf(why, whysize, "\\%s is outside the root \\%s", name ? name : "", s->root_sub);
			return SKIP_OUTSIDE_ROOT;
		}
		p += len;
		sub += len;
		while (*sub == '\\')
			sub++;
	}
	n = (size_t)snprintf(out, size, "\\clients\\client1");
	while (*p) {
		char comp[300];
		size_t len;

		while (*p == '\\')
			p++;
		len = strcspn(p, "\\");
		if (len == 0)
			break;
		if (len >= sizeof(comp)) {
			snprintf(why, whysize, "a name longer than 255 bytes");
			return SKIP_BAD_NAME;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		if (!name_is_safe(comp)) {
			snprintf(why, whysize, strchr(comp, ':') ? "\"%s\" names a stream, which a loadfile cannot" :
				 "the name \"%s\" cannot be written in a loadfile", comp);
			return SKIP_BAD_NAME;
		}
		if (n + len + 1 >= PATH_TEXT_MAX || n + len + 1 >= size) {
			snprintf(why, whysize, "a path longer than a loadfile holds");
			return SKIP_BAD_NAME;
		}
		out[n++] = '\\';
		memcpy(out + n, comp, len);
		n += len;
		p += len;
	}
	out[n] = '\0';
	return -1;
}

/* ---- rendering ---- */

static const char *nt(uint32_t code, char *buf)
{
	return status_name(DOMAIN_NT, code, buf);
}

/* The open of a handle request, or write why it is skipped. */
static struct smb_open *open_or_skip(struct t2l *t, struct record *rec, const char *what)
{
	struct smb_call *c = rec->payload;
	struct smb_open *o = open_of(t->smb, c);

	if (!o) {
		out_skip(t, rec, SKIP_UNKNOWN_HANDLE, "SMB2 %s: a file id whose CREATE is not in the capture", what);
		return NULL;
	}
	if (!o->handle) {
		out_skip(t, rec, o->reason, "SMB2 %s: its CREATE was skipped (%s)", what, o->why ? o->why : "");
		return NULL;
	}
	return o;
}

/*
 * netbench's Rename, Unlink and Rmdir are one path operation each; over
 * SMB2 they are three requests: a CREATE with DELETE access, a SET_INFO
 * (FileRenameInformation, or FileDispositionInformation with delete set)
 * on that handle, and the CLOSE that carries the delete out.  Replaying the
 * three as they are would hold the file open against its rename, and mark
 * it delete-on-close where the server refuses at once (a directory that is
 * not empty).  So an open without data access that is used for one such
 * SET_INFO (and queries) and closed is written as the path operation alone,
 * at the SET_INFO, with its status (or, for a delete, the CLOSE's); the
 * CREATE, the queries and the CLOSE become comments.  How the handle is
 * used is known only from the requests after the CREATE: it waits in the
 * queue until they are in.
 */
#define ACCESS_DATA 0xD2000007u	/* read/write/append data, GENERIC_*, MAXIMUM_ALLOWED */
#define ACCESS_DELETE 0x00010000u
#define FILE_DIRECTORY_FILE 0x1u
#define FILE_DELETE_ON_CLOSE 0x1000u
#define ATTRIBUTE_DIRECTORY 0x10u
#define FOLD_SCAN_MAX 2000	/* requests looked at after the CREATE: no fold beyond */

enum fold { FOLD_UNKNOWN, FOLD_NO, FOLD_YES };

static void render_smb2(struct record *rec, struct t2l *t);

static bool fold_candidate(const struct record *rec)
{
	const struct smb_call *c = rec->payload;

	return c->cmd == SMB2_CREATE && rec->replied && rec->status == 0 && c->have_rfid &&
	       (c->access & ACCESS_DELETE) && !(c->access & ACCESS_DATA) &&
	       !(c->create_options & FILE_DELETE_ON_CLOSE);
}

/* Does the request use the file id of the open?  All ones: the last
 * CREATE's on the connection. */
static bool uses_open(const struct smb_call *open, const struct smb_call *c, bool last_is_ours)
{
	if (!c->have_fid || memcmp(&c->conv, &open->conv, sizeof(c->conv)) != 0)
		return false;
	if (memcmp(c->fid, open->rfid, 16) == 0)
		return true;
	return last_is_ours && memcmp(c->fid, last_open_fid, 16) == 0;
}

static bool is_path_action(const struct smb_call *c)
{
	return c->cmd == SMB2_SET_INFO && c->info_class == INFO_FILE &&
	       (c->level == FILE_RENAME_INFORMATION ||
		(c->level == FILE_DISPOSITION_INFORMATION && c->delete_on_close));
}

/* Is the open of rec used for one rename or delete and then closed?  With
 * mark, note it in the requests that are folded. */
static enum fold fold_scan(struct record *rec, bool mark)
{
	const struct smb_call *open = rec->payload;
	struct record *action = NULL;
	bool last_is_ours = true;
	int n = 0;

	if (!fold_candidate(rec))
		return FOLD_NO;
	for (struct record *r = rec->next; r; r = r->next) {
		struct smb_call *c = r->payload;

		if (r->render != render_smb2)
			continue;
		if (++n > FOLD_SCAN_MAX)
			return FOLD_NO;
		if (c->cmd == SMB2_CREATE && memcmp(&c->conv, &open->conv, sizeof(c->conv)) == 0)
			last_is_ours = false;
		if (!uses_open(open, c, last_is_ours))
			continue;
		if (!r->done)
			return FOLD_UNKNOWN;
		if (mark)
			c->folded = true;
		if (c->cmd == SMB2_QUERY_INFO)
			continue;
		if (is_path_action(c) && !action) {
			action = r;
			continue;
		}
		if (c->cmd != SMB2_CLOSE || !action)
			return FOLD_NO;
		if (mark) {
			struct smb_call *a = action->payload;

			/* a delete is done at the close: its status, unless
			 * the server refused the SET_INFO already */
			a->fold_status = action->status == 0 && a->level == FILE_DISPOSITION_INFORMATION ?
					 r->status : action->status;
			a->fold_dir = (open->create_options & FILE_DIRECTORY_FILE) ||
				      (open->attributes & ATTRIBUTE_DIRECTORY);
		}
		return FOLD_YES;
	}
	return FOLD_UNKNOWN;
}

static bool create_ready(struct record *rec, struct t2l *t)
{
	(void)t;
	return fold_scan(rec, false) != FOLD_UNKNOWN;
}

static void render_create(struct t2l *t, struct record *rec, const char *st)
{
	struct smb_state *s = t->smb;
	struct smb_call *c = rec->payload;
	char path[PATH_TEXT_MAX + 64], why[1024];
	uint8_t key[sizeof(struct conversation) + 16];
	int reason = smb_path(t, c, c->name, path, sizeof(path), why, sizeof(why));
	struct smb_open *o;

	/*
	 * A capture that starts before its root existed probes the root (not
	 * found) and makes it (disposition CREATE).  With the prologue the root
	 * exists when the loadfile replays: the probe expects any status, the
	 * creation opens it (OPEN_IF) instead.
	 */
	if (reason < 0 && t->opt->header && strcmp(path, "\\clients\\client1") == 0) {
		if (rec->status == NT_STATUS_OBJECT_NAME_NOT_FOUND || rec->status == NT_STATUS_OBJECT_PATH_NOT_FOUND) {
			out_comment(t, "the root itself, which the prologue makes: any status (it was %s)", st);
			st = "*";
		} else if (c->disposition == DISP_CREATE && rec->status == 0) {
			out_comment(t, "the root itself, which the prologue makes: opened (OPEN_IF), not created");
			c->disposition = DISP_OPEN_IF;
		}
	}
	if (rec->status != 0 || !c->have_rfid) {
		/* a failed open takes no handle; forget the compound's last open */
		memcpy(key, &c->conv, sizeof(c->conv));
		memcpy(key + sizeof(c->conv), last_open_fid, 16);
		hmap_del(&s->opens, key, sizeof(key));
		if (reason >= 0)
			out_skip(t, rec, (enum skip_reason)reason, "SMB2 CREATE: %s", why);
		else
			out_line(t, rec, "NTCreateX \"%s\" %#llx %llu %d %s", path,
				 (unsigned long long)c->create_options, (unsigned long long)c->disposition,
				 handle_peek(s), st);
		return;
	}
	o = xcalloc(1, sizeof(*o));
	fid_key(o->key, &c->conv, c->rfid);
	if (reason < 0 && fold_scan(rec, false) == FOLD_YES) {
		fold_scan(rec, true);
		o->handle = -1;
		o->path = xstrdup(path);
		out_skip(t, rec, SKIP_FOLDED, "SMB2 CREATE of %s to rename or delete it: written as one line below", path);
	} else if (reason >= 0) {
		o->why = xstrdup(why);
		o->reason = (enum skip_reason)reason;
		out_skip(t, rec, (enum skip_reason)reason, "SMB2 CREATE: %s", why);
	} else {
		o->handle = handle_take(s);
		o->path = xstrdup(path);
		out_line(t, rec, "NTCreateX \"%s\" %#llx %llu %d %s", path, (unsigned long long)c->create_options,
			 (unsigned long long)c->disposition, o->handle, st);
	}
	struct smb_open *old = hmap_put(&s->opens, o->key, sizeof(o->key), o);

	if (old && old != o) {
		/* the server reused a file id we never saw closed */
		if (hmap_get(&s->opens, key, fid_key(key, &c->conv, last_open_fid)) == old)
			hmap_del(&s->opens, key, sizeof(key));
		handle_free(s, old->handle);
		free(old->path);
		free(old->why);
		free(old);
	}
	hmap_put(&s->opens, key, fid_key(key, &c->conv, last_open_fid), o);
}

static void render_lock(struct t2l *t, struct record *rec, struct smb_open *o, const char *st)
{
	struct smb_call *c = rec->payload;

	if (c->nlocks == 0) {
		out_skip(t, rec, SKIP_NO_OP, "SMB2 LOCK without ranges");
		return;
	}
	if (c->nlocks > 1 && rec->status != 0) {
		out_skip(t, rec, SKIP_NO_OP, "SMB2 LOCK of %zu ranges failed as a whole: which range failed is not known",
			 c->nlocks);
		return;
	}
	for (size_t i = 0; i < c->nlocks; i++) {
		struct lock_range *l = &c->locks[i];
		bool skipped_shared = false;

		if (l->flags & LOCK_UNLOCK) {
			for (int j = 0; j < o->nshared; j++) {
				if (o->shared[j].offset == l->offset && o->shared[j].length == l->length) {
					o->shared[j] = o->shared[--o->nshared];
					skipped_shared = true;
					break;
				}
			}
			if (skipped_shared)
				out_skip(t, rec, SKIP_NO_OP, "SMB2 unlock of a shared range (%llu, %llu)",
					 (unsigned long long)l->offset, (unsigned long long)l->length);
			else
				out_line(t, rec, "UnlockX %d %llu %llu %s", o->handle, (unsigned long long)l->offset,
					 (unsigned long long)l->length, st);
		} else if (l->flags & LOCK_SHARED) {
			if (rec->status == 0 && o->nshared < MAX_SHARED)
				o->shared[o->nshared++] = *l;
			out_skip(t, rec, SKIP_NO_OP, "SMB2 shared lock (%llu, %llu): LockX locks exclusively",
				 (unsigned long long)l->offset, (unsigned long long)l->length);
		} else {
			out_line(t, rec, "LockX %d %llu %llu %s", o->handle, (unsigned long long)l->offset,
				 (unsigned long long)l->length, st);
		}
	}
}

static void render_set_info(struct t2l *t, struct record *rec, struct smb_open *o, const char *st)
{
	struct smb_call *c = rec->payload;
	char path[PATH_TEXT_MAX + 64], why[1024];
	int reason;

	if (c->info_class != INFO_FILE) {
		out_skip(t, rec, SKIP_NO_OP, "SMB2 SET_INFO class %llu: only file information has an op",
			 (unsigned long long)c->info_class);
		return;
	}
	switch (c->level) {
	case FILE_RENAME_INFORMATION:
		reason = smb_path(t, c, c->name, path, sizeof(path), why, sizeof(why));
		if (reason >= 0) {
			out_skip(t, rec, (enum skip_reason)reason, "SMB2 rename of %s: %s", o->path, why);
			return;
		}
		out_line(t, rec, "Rename \"%s\" \"%s\" %s", o->path, path, st);
		if (rec->status == 0) {
			free(o->path);
			o->path = xstrdup(path);
		}
		return;
	case FILE_LINK_INFORMATION:
		out_skip(t, rec, SKIP_NO_OP, "SMB2 hard link of %s: the loadfile has no SMB link op", o->path);
		return;
	case FILE_DISPOSITION_INFORMATION:
		if (!c->delete_on_close) {
			out_skip(t, rec, SKIP_NO_OP, "SMB2 SET_INFO clearing delete-on-close of %s", o->path);
			return;
		}
		break;
	default:
		break;
	}
	out_line(t, rec, "SET_FILE_INFORMATION %d %llu %s", o->handle, 1000 + (unsigned long long)c->level, st);
}

static void render_find(struct t2l *t, struct record *rec, struct smb_open *o, const char *st)
{
	struct smb_call *c = rec->payload;
	const char *pattern = c->name && *c->name ? c->name : "*";

	if (o->listed && !(c->find_flags & (FIND_RESTART_SCANS | FIND_REOPEN))) {
		out_skip(t, rec, SKIP_CONTINUATION, "SMB2 QUERY_DIRECTORY of %s continues a listing (%s)", o->path, st);
		return;
	}
	if (!name_is_safe(pattern)) {
		out_skip(t, rec, SKIP_BAD_NAME, "SMB2 QUERY_DIRECTORY: the pattern \"%s\" cannot be written in a loadfile",
			 pattern);
		return;
	}
	o->listed = true;
	/* FIND_FIRST counts no "." and "..": a listing of only them found nothing */
	if (rec->status == 0 && c->count == 0)
		st = "NT_STATUS_NO_SUCH_FILE";
	out_line(t, rec, "FIND_FIRST \"%s\\%s\" %llu %d %llu %s", o->path, pattern, 1000 + (unsigned long long)c->level,
		 FIND_MAX_COUNT, (unsigned long long)c->count, st);
}

static void render_session(struct t2l *t, struct record *rec, const char *st)
{
	struct smb_state *s = t->smb;
	struct smb_call *c = rec->payload;

	if (c->cmd == SMB2_TREE_CONNECT && rec->status == 0 && c->name) {
		struct smb_tree *tr = xcalloc(1, sizeof(*tr));
		uint8_t key[sizeof(struct conversation) + 4];
		char share[256];

		share_of(c->name, share, sizeof(share));
		tr->share = xstrdup(share);
		tr->ipc = strcasecmp(share, "IPC$") == 0;
		struct smb_tree *old = hmap_put(&s->trees, key, tree_key(key, &c->conv, c->rtid), tr);

		if (old)
			free_tree(old);
		if (!s->have_root && !tr->ipc)
			set_root_from_share(t, share, c->name);
	}
	out_skip(t, rec, SKIP_SESSION, "SMB2 %s%s%s (%s): the smb backend connects itself", cmd_names[c->cmd],
		 c->name ? " " : "", c->name ? c->name : "", st);
}

/* The SET_INFO of a folded open: the path operation. */
static void render_folded(struct t2l *t, struct record *rec, struct smb_open *o)
{
	struct smb_call *c = rec->payload;
	char path[PATH_TEXT_MAX + 64], why[1024], sb[16];
	int reason;

	if (c->level != FILE_RENAME_INFORMATION) {
		out_line(t, rec, "%s \"%s\" %s", c->fold_dir ? "Rmdir" : "Unlink", o->path,
			 nt(c->fold_status, sb));
		return;
	}
	reason = smb_path(t, c, c->name, path, sizeof(path), why, sizeof(why));
	if (reason >= 0) {
		out_skip(t, rec, (enum skip_reason)reason, "SMB2 rename of %s: %s", o->path, why);
		return;
	}
	out_line(t, rec, "Rename \"%s\" \"%s\" %s", o->path, path, nt(c->fold_status, sb));
	if (rec->status == 0) {
		free(o->path);
		o->path = xstrdup(path);
	}
}

static void render_smb2(struct record *rec, struct t2l *t)
{
	struct smb_state *s = t->smb;
	struct smb_call *c = rec->payload;
	const char *what = c->cmd < SMB2_NCMDS ? cmd_names[c->cmd] : "?";
	struct smb_open *o;
	char sb[16];
	const char *st = nt(rec->status, sb);

	if (!rec->replied && c->cmd != SMB2_CANCEL) {
		out_skip(t, rec, SKIP_NO_REPLY, "SMB2 %s: no response in the capture", what);
		return;
	}
	switch (c->cmd) {
	case SMB2_NEGOTIATE:
	case SMB2_SESSION_SETUP:
	case SMB2_LOGOFF:
	case SMB2_TREE_CONNECT:
	case SMB2_TREE_DISCONNECT:
	case SMB2_ECHO:
		render_session(t, rec, st);
		return;
	case SMB2_CREATE:
		render_create(t, rec, st);
		return;
	case SMB2_QUERY_INFO:
		if (c->info_class == INFO_FS) {
			out_line(t, rec, "QUERY_FS_INFORMATION %llu %s", 1000 + (unsigned long long)c->level, st);
			return;
		}
		if (c->info_class != INFO_FILE) {
			out_skip(t, rec, SKIP_NO_OP, "SMB2 QUERY_INFO class %llu (security or quota) has no op",
				 (unsigned long long)c->info_class);
			return;
		}
		break;
	case SMB2_IOCTL:
		out_skip(t, rec, SKIP_NO_OP, "SMB2 IOCTL %#llx (%s) has no op", (unsigned long long)c->ioctl, st);
		return;
	case SMB2_CANCEL:
	case SMB2_CHANGE_NOTIFY:
	case SMB2_OPLOCK_BREAK:
		out_skip(t, rec, SKIP_NO_OP, "SMB2 %s has no op", what);
		return;
	case SMB2_CLOSE:
	case SMB2_FLUSH:
	case SMB2_READ:
	case SMB2_WRITE:
	case SMB2_LOCK:
	case SMB2_QUERY_DIRECTORY:
	case SMB2_SET_INFO:
		break;
	default:
		out_skip(t, rec, SKIP_NO_OP, "SMB2 command %u has no op", c->cmd);
		return;
	}
	o = open_or_skip(t, rec, what);
	if (!o) {
		if (c->cmd == SMB2_CLOSE && (o = open_of(s, c)))
			open_forget(s, o);
		return;
	}
	if (o->handle < 0 && c->cmd == SMB2_SET_INFO && c->folded) {
		render_folded(t, rec, o);
		return;
	}
	if (o->handle < 0) {
		out_skip(t, rec, SKIP_FOLDED, "SMB2 %s on the open of %s for its rename or delete", what, o->path);
		if (c->cmd == SMB2_CLOSE)
			open_forget(s, o);
		return;
	}
	switch (c->cmd) {
	case SMB2_CLOSE:
		out_line(t, rec, "Close %d %s", o->handle, st);
		open_forget(s, o);
		break;
	case SMB2_FLUSH:
		out_line(t, rec, "Flush %d %s", o->handle, st);
		break;
	case SMB2_READ:
		out_line(t, rec, "ReadX %d %llu %llu %llu %s", o->handle, (unsigned long long)c->offset,
			 (unsigned long long)c->length, (unsigned long long)(rec->status == 0 ? c->count : 0), st);
		break;
	case SMB2_WRITE:
		out_line(t, rec, "WriteX %d %llu %llu %llu %s", o->handle, (unsigned long long)c->offset,
			 (unsigned long long)c->length, (unsigned long long)(rec->status == 0 ? c->count : 0), st);
		break;
	case SMB2_LOCK:
		render_lock(t, rec, o, st);
		break;
	case SMB2_QUERY_DIRECTORY:
		render_find(t, rec, o, st);
		break;
	case SMB2_QUERY_INFO:
		out_line(t, rec, "QUERY_FILE_INFORMATION %d %llu %s", o->handle, 1000 + (unsigned long long)c->level, st);
		break;
	case SMB2_SET_INFO:
		render_set_info(t, rec, o, st);
		break;
	default:
		break;
	}
}

/* ---- reading requests and responses ---- */

/* A GUID "11564a5c-0000-0000-9efb-c64a00000000" into 16 bytes. */
static bool parse_guid(const char *s, uint8_t out[16])
{
	int n = 0;

	if (!s)
		return false;
	for (; *s; s++) {
		int hi, lo;

		if (*s == '-')
			continue;
		if (n == 16 || !s[1])
			return false;
		hi = (*s >= '0' && *s <= '9') ? *s - '0' : (*s | 0x20) >= 'a' && (*s | 0x20) <= 'f' ? (*s | 0x20) - 'a' + 10 : -1;
		s++;
		lo = (*s >= '0' && *s <= '9') ? *s - '0' : (*s | 0x20) >= 'a' && (*s | 0x20) <= 'f' ? (*s | 0x20) - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return false;
		out[n++] = (uint8_t)(hi * 16 + lo);
	}
	return n == 16;
}

/* The body of an SMB2 message: the member after the header. */
static const struct jnode *body_of(const struct jnode *smb2, const struct jnode *header)
{
	for (const struct jnode *k = smb2->first; k; k = k->next)
		if (k != header && k->first)
			return k;
	return NULL;
}

static void read_locks(struct smb_call *c, const struct jnode *body)
{
	size_t ninfo = 0, noff = 0;

	c->locks = xcalloc(1, MAX_LOCKS * sizeof(*c->locks));
	/* each range is a "smb2.lock_info" subtree followed by its offset */
	for (const struct jnode *k = body->first; k; k = k->next) {
		if (strcmp(k->key, "smb2.lock_info") == 0 && ninfo < MAX_LOCKS) {
			jnum(k, "smb2.lock_length", &c->locks[ninfo].length);
			jnum(k, "smb2.lock_flags", &c->locks[ninfo].flags);
			ninfo++;
		} else if (strcmp(k->key, "smb2.file_offset") == 0 && k->value && noff < MAX_LOCKS) {
			parse_number(k->value, &c->locks[noff].offset);
			noff++;
		}
	}
	c->nlocks = ninfo < noff ? ninfo : noff;
}

static void read_request(struct smb_call *c, const struct jnode *header, const struct jnode *body)
{
	const char *s;
	uint64_t v;

	if ((s = jstr(header, "smb2.tree")))
		c->share = xstrndup(s, 255);
	if (c->share) {
		char share[256];

		share_of(c->share, share, sizeof(share));
		free(c->share);
		c->share = xstrdup(share);
	}
	if (jnum(header, "smb2.flags", &v))
		c->dfs = (v & 0x10000000) != 0;
	if (!body)
		return;
	c->have_fid = parse_guid(jstr(body, "smb2.fid"), c->fid);
	switch (c->cmd) {
	case SMB2_TREE_CONNECT:
		if ((s = jstr(body, "smb2.tree")))
			c->name = xstrndup(s, 1000);
		break;
	case SMB2_CREATE: {
		const struct jnode *n = jchild(body, "smb2.filename");

		c->name = xstrndup(n && n->value && !n->truncated ? n->value : "", 3000);
		jnum(body, "smb.create_options", &c->create_options);
		jnum(body, "smb.access_mask", &c->access);
		jnum(body, "smb2.create.disposition", &c->disposition);
		break;
	}
	case SMB2_READ:
		jnum(body, "smb2.read_length", &c->length);
		jnum(body, "smb2.file_offset", &c->offset);
		break;
	case SMB2_WRITE:
		jnum(body, "smb2.write_length", &c->length);
		jnum(body, "smb2.file_offset", &c->offset);
		break;
	case SMB2_LOCK:
		read_locks(c, body);
		break;
	case SMB2_QUERY_DIRECTORY:
		jnum(body, "smb2.find.infolevel", &c->level);
		jnum(body, "smb2.find.flags", &c->find_flags);
		if ((s = jstr(body, "smb2.find.pattern")))
			c->name = xstrndup(s, 300);
		break;
	case SMB2_QUERY_INFO:
	case SMB2_SET_INFO:
		jnum(body, "smb2.class", &c->info_class);
		if (!jnum(body, "smb2.file_info.infolevel", &c->level) &&
		    !jnum(body, "smb2.fs_info.infolevel", &c->level))
			jnum(body, "smb2.infolevel", &c->level);
		if (jnum(body, "smb2.disposition.delete_on_close", &v))
			c->delete_on_close = v != 0;
		if (jnum(body, "smb2.rename.replace_if", &v))
			c->replace_if = v != 0;
		if (c->cmd == SMB2_SET_INFO && c->level == FILE_RENAME_INFORMATION) {
			const struct jnode *info = jfind(body, "smb2.file_rename_info");

			if ((s = jstr(info, "smb2.filename")))
				c->name = xstrndup(s, 3000);
		}
		break;
	case SMB2_IOCTL:
		jnum(body, "smb2.ioctl.function", &c->ioctl);
		break;
	default:
		break;
	}
}

/* The entries of a directory listing other than "." and "..". */
static uint64_t count_names(const struct jnode *n)
{
	uint64_t count = 0;

	for (const struct jnode *k = n ? n->first : NULL; k; k = k->next) {
		if (strcmp(k->key, "smb2.filename") == 0 && k->value && strcmp(k->value, ".") != 0 &&
		    strcmp(k->value, "..") != 0)
			count++;
		if (k->first)
			count += count_names(k);
	}
	return count;
}

static void read_response(struct smb_call *c, const struct jnode *header, const struct jnode *body, uint32_t status)
{
	uint64_t v;
	const struct jnode *n;

	if (c->cmd == SMB2_TREE_CONNECT && jnum(header, "smb2.tid", &v))
		c->rtid = (uint32_t)v;
	if (!body || status != 0)
		return;
	switch (c->cmd) {
	case SMB2_CREATE:
		c->have_rfid = parse_guid(jstr(body, "smb2.fid"), c->rfid);
		n = jchild(body, "smb2.file_attribute");
		if (n && n->value)
			parse_number(n->value, &c->attributes);
		break;
	case SMB2_READ:
		/* the data length: the response's offset/length pair */
		n = jfind(body, "smb2.olb.length");
		if (n && n->value)
			parse_number(n->value, &c->count);
		break;
	case SMB2_WRITE:
		jnum(body, "smb2.write.count", &c->count);
		break;
	case SMB2_QUERY_DIRECTORY:
		c->count = count_names(body);
		break;
	default:
		break;
	}
}

static void make_key(struct smb_key *k, const struct conversation *conv, uint64_t msg_id)
{
	memset(k, 0, sizeof(*k));
	k->tag = 'S';
	k->conv = *conv;
	k->msg_id = msg_id;
}

static void on_request(struct t2l *t, const struct packet *pkt, const struct jnode *header,
		       const struct jnode *body, uint64_t cmd, uint64_t msg_id)
{
	struct conversation conv = { .client = pkt->src, .server = pkt->dst };
	struct smb_call *c;
	struct smb_key key;
	struct record *rec;
	uint64_t tid = 0;

	if (!conversation_wanted(t, &conv)) {
		t->n.filtered++;
		return;
	}
	if (!protocol_wanted(t, PROTO_SMB2))
		return;
	make_key(&key, &conv, msg_id);
	if (cmd != SMB2_CANCEL && queue_pending(t, &key, sizeof(key))) {
		t->n.retransmissions++;
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->cmd = (uint16_t)cmd;
	c->conv = conv;
	jnum(header, "smb2.tid", &tid);
	c->tid = (uint32_t)tid;
	read_request(c, header, body);
	rec = queue_call(t, pkt, cmd == SMB2_CANCEL ? NULL : &key, cmd == SMB2_CANCEL ? 0 : sizeof(key),
			 render_smb2, release_call, c);
	if (cmd == SMB2_CREATE)
		rec->ready = create_ready;
	if (cmd == SMB2_CANCEL)
		rec->done = true;	/* CANCEL has no response */
}

static void on_response(struct t2l *t, const struct packet *pkt, const struct jnode *header,
			const struct jnode *body, uint64_t msg_id)
{
	struct conversation conv = { .client = pkt->dst, .server = pkt->src };
	uint64_t status = 0, flags = 0;
	struct smb_key key;
	struct record *rec;

	if (msg_id == SMB2_NOTIFICATION_ID) {
		t->n.notifications++;
		return;
	}
	if (!conversation_wanted(t, &conv)) {
		t->n.filtered++;
		return;
	}
	jnum(header, "smb2.nt_status", &status);
	jnum(header, "smb2.flags", &flags);
	if (status == STATUS_PENDING && (flags & 0x2)) {
		t->n.interim++;
		return;
	}
	make_key(&key, &conv, msg_id);
	rec = queue_pending(t, &key, sizeof(key));
	if (!rec) {
		if (protocol_wanted(t, PROTO_SMB2))
			t->n.unmatched_replies++;
		return;
	}
	read_response(rec->payload, header, body, (uint32_t)status);
	queue_complete(t, rec, (uint32_t)status);
}

void smb2_message(struct t2l *t, const struct packet *pkt, const struct jnode *smb2)
{
	const struct jnode *header = jchild(smb2, "SMB2 Header");
	const char *proto_id = jstr(smb2, "smb2.protocol_id");
	uint64_t cmd, msg_id, flags;

	if (proto_id && strcmp(proto_id, "0xfe534d42") != 0) {
		t->smb->encrypted++;	/* transform (encrypted) or compressed */
		return;
	}
	if (!pkt->have_addr || !header || !jnum(header, "smb2.cmd", &cmd) || cmd > 0xffff ||
	    !jnum(header, "smb2.msg_id", &msg_id) || !jnum(header, "smb2.flags", &flags))
		return;
	if (flags & 0x1)
		on_response(t, pkt, header, body_of(smb2, header), msg_id);
	else
		on_request(t, pkt, header, body_of(smb2, header), cmd, msg_id);
}

void smb2_summary(struct t2l *t, FILE *f)
{
	struct smb_state *s = t->smb;

	if (!s)
		return;
	if (s->encrypted)
		fprintf(f, "  note: %llu encrypted or compressed SMB3 messages could not be read (capture with encryption off, or give tshark the session keys)\n",
			(unsigned long long)s->encrypted);
	if (s->unknown_tree)
		fprintf(f, "  note: %llu calls on trees whose tree connect is not in the capture were taken as on the root share\n",
			(unsigned long long)s->unknown_tree);
	if (s->have_root)
		fprintf(f, "  root: share %s%s%s -> \\clients\\client1\n", s->root_share[0] ? s->root_share : "(unknown)",
			s->root_sub[0] ? "\\" : "", s->root_sub);
}
