/*
 * nfs.c - NFSv3 (and MOUNT) calls to loadfile lines.
 *
 * NFSv3 names files by opaque handles; a loadfile names them by path.  So
 * this keeps a tree of the handles the capture has named: the MOUNT reply
 * gives the root handle of the mounted path; LOOKUP, CREATE, MKDIR and
 * SYMLINK replies and the entries of READDIRPLUS replies give a handle a
 * parent and a name; RENAME moves a name, REMOVE and RMDIR drop one.  A
 * handle's path is its chain of names up to a root, the root being the
 * mount path; the part under --root (by default the first mount path)
 * becomes /clients/client1.  A call on a handle the capture never named
 * (the mount happened before the capture) is kept as a comment.
 *
 * Calls and replies pair by RPC xid within their TCP or UDP conversation.
 * Everything happens at render time, in call order (see queue.c).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "t2l.h"

#define PROG_NFS 100003
#define PROG_MOUNT 100005
#define PROG_NLM 100021
#define FH_MAX 64		/* NFSv3 handles are at most 64 bytes */
#define PATH_TEXT_MAX 2000	/* a loadfile path holds up to 2047 bytes */
#define WALK_MAX 512		/* deepest directory tree followed */
#define MAX_ENTRIES 100000	/* READDIRPLUS entries kept from one reply */

enum nfs3_proc {
	NFS3_NULL, NFS3_GETATTR, NFS3_SETATTR, NFS3_LOOKUP, NFS3_ACCESS, NFS3_READLINK,
	NFS3_READ, NFS3_WRITE, NFS3_CREATE, NFS3_MKDIR, NFS3_SYMLINK, NFS3_MKNOD,
	NFS3_REMOVE, NFS3_RMDIR, NFS3_RENAME, NFS3_LINK, NFS3_READDIR, NFS3_READDIRPLUS,
	NFS3_FSSTAT, NFS3_FSINFO, NFS3_PATHCONF, NFS3_COMMIT, NFS3_NPROCS
};

static const char *const nfs3_names[NFS3_NPROCS] = {
	"NULL", "GETATTR3", "SETATTR3", "LOOKUP3", "ACCESS3", "READLINK3",
	"READ3", "WRITE3", "CREATE3", "MKDIR3", "SYMLINK3", "MKNOD3",
	"REMOVE3", "RMDIR3", "RENAME3", "LINK3", "READDIR3", "READDIRPLUS3",
	"FSSTAT3", "FSINFO3", "PATHCONF3", "COMMIT3",
};

static const char *const mount_names[] = {
	"NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT",
};

/* A file handle the capture has named. */
struct fh_entry {
	uint8_t fh[FH_MAX];		/* the handle */
	uint8_t len;			/* its length */
	bool is_root;			/* a mount's root: name is the mount path */
	struct fh_entry *parent;	/* directory it was named in; NULL: unnamed */
	char *name;			/* its name there (or the mount path) */
};

struct nfs_state {
	struct hmap handles;		/* handle bytes -> fh_entry */
	struct hmap names;		/* (parent pointer, name) -> fh_entry */
	char root[1024];		/* server path that becomes /clients/client1 */
	bool have_root;			/* root set (option or first mount) */
	bool saw_mount;			/* a MNT reply was seen */
	uint64_t nfs2, nfs4;		/* calls of other NFS versions */
};

/* One READDIRPLUS entry with a handle. */
struct rdp_entry {
	char *name;			/* the entry's name */
	uint8_t fh[FH_MAX];		/* its handle */
	uint8_t len;			/* handle length */
};

/* A call and, once it came, its reply. */
struct nfs_call {
	uint32_t prog;			/* RPC program */
	uint32_t vers;			/* program version */
	uint32_t proc;			/* procedure */
	uint8_t fh[2][FH_MAX];		/* the handles of the call, in order */
	int fhlen[2];			/* their lengths (0: absent) */
	char *name[2];			/* the names of the call, in order */
	char *target;			/* SYMLINK3 target, MNT path */
	uint64_t offset, count;		/* READ3, WRITE3, COMMIT3 */
	uint64_t stable;		/* WRITE3 stable_how */
	uint64_t access;		/* ACCESS3 bits asked */
	uint64_t createmode;		/* CREATE3 mode */
	uint64_t mode;			/* SETATTR3 mode */
	bool have_mode;			/* SETATTR3 sets the mode */
	uint64_t cookie;		/* READDIRPLUS3 cookie */
	bool exclusive;			/* NLM TEST and LOCK: an exclusive lock */
	/* the reply */
	bool rpc_rejected;		/* MSG_DENIED or accept_stat != SUCCESS */
	uint64_t accept_stat;		/* why, when rejected */
	bool no_status;			/* the reply had no status field */
	uint8_t rfh[FH_MAX];		/* the handle in the reply */
	int rfhlen;			/* its length (0: none) */
	uint64_t granted;		/* ACCESS3 bits granted */
	struct rdp_entry *entries;	/* READDIRPLUS3 entries */
	size_t nentries;
};

/* The pending-map key of a call: "R", conversation, xid. */
struct rpc_key {
	char tag;
	struct conversation conv;
	uint32_t xid;
};

void nfs_init(struct t2l *t)
{
	struct nfs_state *s = xcalloc(1, sizeof(*s));

	hmap_init(&s->handles);
	hmap_init(&s->names);
	t->nfs = s;
}

static void free_entry(void *p)
{
	struct fh_entry *e = p;

	free(e->name);
	free(e);
}

void nfs_free(struct t2l *t)
{
	if (!t->nfs)
		return;
	hmap_free(&t->nfs->names, NULL);
	hmap_free(&t->nfs->handles, free_entry);
	free(t->nfs);
	t->nfs = NULL;
}

static void release_call(struct record *rec)
{
	struct nfs_call *c = rec->payload;

	free(c->name[0]);
	free(c->name[1]);
	free(c->target);
	for (size_t i = 0; i < c->nentries; i++)
		free(c->entries[i].name);
	free(c->entries);
}

/* ---- the handle tree ---- */

static uint32_t fh_hash(const uint8_t *fh, int len)
{
	return (uint32_t)crc32(0L, fh, (uInt)len);
}

static struct fh_entry *fh_get(struct nfs_state *s, const uint8_t *fh, int len)
{
	return len > 0 ? hmap_get(&s->handles, fh, (size_t)len) : NULL;
}

static struct fh_entry *fh_get_or_add(struct nfs_state *s, const uint8_t *fh, int len)
{
	struct fh_entry *e = fh_get(s, fh, len);

	if (e)
		return e;
	e = xcalloc(1, sizeof(*e));
	memcpy(e->fh, fh, (size_t)len);
	e->len = (uint8_t)len;
	hmap_put(&s->handles, e->fh, e->len, e);
	return e;
}

/* The key of a name: the parent's address and the name. */
static size_t name_key(const struct fh_entry *parent, const char *name, unsigned char *key, size_t size)
{
	size_t len = strlen(name);

	if (len + sizeof(parent) > size)
		len = size - sizeof(parent);
	memcpy(key, &parent, sizeof(parent));
	memcpy(key + sizeof(parent), name, len);
	return sizeof(parent) + len;
}

/* Take e out of its directory (it keeps no name). */
static void unname(struct nfs_state *s, struct fh_entry *e)
{
	unsigned char key[300];
	size_t klen;

	if (!e->parent || !e->name)
		return;
	klen = name_key(e->parent, e->name, key, sizeof(key));
	if (hmap_get(&s->names, key, klen) == e)
		hmap_del(&s->names, key, klen);
	e->parent = NULL;
	free(e->name);
	e->name = NULL;
}

/* Is dir e itself or below it?  (Naming e in dir would make a cycle.) */
static bool is_below(const struct fh_entry *dir, const struct fh_entry *e)
{
	for (int depth = 0; dir && depth < WALK_MAX; depth++, dir = dir->parent)
		if (dir == e)
			return true;
	return false;
}

/* The capture says: dir/name is the handle fh. */
static void learn(struct nfs_state *s, struct fh_entry *dir, const char *name, const uint8_t *fh, int len)
{
	unsigned char key[300];
	struct fh_entry *e, *old;
	size_t klen;

	if (!dir || len <= 0 || !name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strlen(name) > 255)
		return;
	e = fh_get_or_add(s, fh, len);
	if (e->is_root || is_below(dir, e))
		return;
	if (e->parent == dir && e->name && strcmp(e->name, name) == 0)
		return;
	unname(s, e);
	klen = name_key(dir, name, key, sizeof(key));
	old = hmap_get(&s->names, key, klen);
	if (old && old != e)
		unname(s, old);		/* that name now means another file */
	e->parent = dir;
	e->name = xstrdup(name);
	hmap_put(&s->names, key, klen, e);
}

static struct fh_entry *lookup_name(struct nfs_state *s, struct fh_entry *dir, const char *name)
{
	unsigned char key[300];

	if (!dir || !name)
		return NULL;
	return hmap_get(&s->names, key, name_key(dir, name, key, sizeof(key)));
}

/* A server path with a trailing slash removed and "//" collapsed. */
static void normalize_server_path(const char *in, char *out, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (; *in && n + 1 < size; in++) {
		if (*in == '/' && n > 0 && out[n - 1] == '/')
			continue;
		out[n++] = *in;
	}
	while (n > 1 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
}

/* The loadfile path of a handle (and a name in it, when name is set), or a
 * skip reason with its explanation in why. */
static int nfs_path(struct t2l *t, const uint8_t *fh, int len, const char *name, char *out, size_t size,
		    char *why, size_t whysize)
{
	struct nfs_state *s = t->nfs;
	const struct fh_entry *chain[WALK_MAX];
	const struct fh_entry *e = fh_get(s, fh, len);
	char server[4096], normal[4096];
	size_t n = 0, rootlen;
	int depth = 0;

	if (len <= 0) {
		snprintf(why, whysize, "the call has no file handle");
		return SKIP_UNKNOWN_HANDLE;
	}
	for (; e && !e->is_root; e = e->parent) {
		if (depth == WALK_MAX || !e->parent) {
			snprintf(why, whysize, "file handle 0x%08x %s", fh_hash(fh, len),
				 e == fh_get(s, fh, len) ? "was removed or renamed over" : "is in a removed directory");
			return SKIP_UNKNOWN_HANDLE;
		}
		chain[depth++] = e;
	}
	if (!e) {
		snprintf(why, whysize, "file handle 0x%08x has no known name%s", fh_hash(fh, len),
			 s->saw_mount ? "" : " (the capture has no MOUNT: start capturing before the client mounts)");
		return SKIP_UNKNOWN_HANDLE;
	}
	/* server path: mount path / names... */
	n = (size_t)snprintf(server, sizeof(server), "%s", e->name);
	for (int i = depth - 1; i >= 0 && n < sizeof(server); i--)
		n += (size_t)snprintf(server + n, sizeof(server) - n, "/%s", chain[i]->name);
	if (name && n < sizeof(server))
		n += (size_t)snprintf(server + n, sizeof(server) - n, "/%s", name);
	if (n >= sizeof(server)) {
		snprintf(why, whysize, "a path longer than a loadfile holds");
		return SKIP_BAD_NAME;
	}
	normalize_server_path(server, normal, sizeof(normal));
	memcpy(server, normal, sizeof(server));
	rootlen = strlen(s->root);
	if (!s->have_root || strncmp(server, s->root, rootlen) != 0 ||
	    (server[rootlen] != '/' && server[rootlen] != '\0' && strcmp(s->root, "/") != 0)) {
		snprintf(why, whysize, "%s is outside the root %s", server, s->have_root ? s->root : "(none)");
		return SKIP_OUTSIDE_ROOT;
	}
	/* check the names below the root */
	for (int i = depth - 1; i >= 0; i--) {
		if (!name_is_safe(chain[i]->name)) {
			snprintf(why, whysize, "the name \"%s\" cannot be written in a loadfile", chain[i]->name);
			return SKIP_BAD_NAME;
		}
	}
	if (name && !name_is_safe(name)) {
		snprintf(why, whysize, "the name \"%s\" cannot be written in a loadfile", name);
		return SKIP_BAD_NAME;
	}
	const char *rest = server + (strcmp(s->root, "/") == 0 ? 0 : rootlen);

	if (strlen(rest) + 18 > PATH_TEXT_MAX || (size_t)snprintf(out, size, "/clients/client1%s", rest) >= size) {
		snprintf(why, whysize, "a path longer than a loadfile holds");
		return SKIP_BAD_NAME;
	}
	return -1;
}

/* ---- rendering ---- */

static const char *nfs_status(uint32_t code, char *buf)
{
	return status_name(DOMAIN_NFS, code, buf);
}

static void set_root(struct t2l *t, const char *path)
{
	struct nfs_state *s = t->nfs;

	normalize_server_path(path, s->root, sizeof(s->root));
	s->have_root = true;
	out_comment(t, "root: %s (on the server) is /clients/client1", s->root);
}

static void render_mount(struct record *rec, struct t2l *t)
{
	struct nfs_call *c = rec->payload;
	struct nfs_state *s = t->nfs;
	const char *what = c->proc < T2L_ARRAY_SIZE(mount_names) ? mount_names[c->proc] : "?";

	if (c->proc == 0) {
		t->n.null_calls++;
		return;
	}
	if (c->proc == 1 && rec->replied && !c->rpc_rejected && rec->status == 0 && c->rfhlen > 0 && c->target) {
		struct fh_entry *root = fh_get_or_add(s, c->rfh, c->rfhlen);
		char path[1024];

		unname(s, root);
		normalize_server_path(c->target, path, sizeof(path));
		root->is_root = true;
		free(root->name);
		root->name = xstrdup(path);
		s->saw_mount = true;
		if (!s->have_root)
			set_root(t, path);
	}
	if (!rec->replied)
		out_skip(t, rec, SKIP_NO_REPLY, "MOUNT %s %s: no reply in the capture", what, c->target ? c->target : "");
	else
		out_skip(t, rec, SKIP_SESSION, "MOUNT v%u %s%s%s (status %u): the nfs backend mounts the export itself",
			 c->vers, what, c->target ? " " : "", c->target ? c->target : "", rec->status);
}

/* A call that has a path argument: its path, or write the skip comment. */
static bool path_or_skip(struct t2l *t, struct record *rec, const char *op, const uint8_t *fh, int len,
			 const char *name, char *out, size_t size)
{
	char why[1024];
	int reason = nfs_path(t, fh, len, name, out, size, why, sizeof(why));

	if (reason < 0)
		return true;
	out_skip(t, rec, (enum skip_reason)reason, "%s: %s", op, why);
	return false;
}

/* A symlink target the loader accepts: a relative path that stays below
 * the share root, no ':', quote or control character. */
static bool target_is_safe(const char *target)
{
	int depth = 0;
	const char *p = target;

	if (!*target || strlen(target) > PATH_TEXT_MAX || target[0] == '/' || target[0] == '\\')
		return false;
	for (const unsigned char *q = (const unsigned char *)target; *q; q++)
		if (*q < 0x20 || *q == 0x7f || *q == '"' || *q == ':')
			return false;
	while (*p) {
		size_t len = strcspn(p, "/\\");

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return false;
		} else if (len > 0 && !(len == 1 && p[0] == '.')) {
			depth++;
		}
		p += len + (p[len] != '\0');
	}
	return true;
}

static void learn_reply(struct t2l *t, struct nfs_call *c, uint32_t status)
{
	struct nfs_state *s = t->nfs;
	struct fh_entry *dir;

	if (status != 0)
		return;
	switch (c->proc) {
	case NFS3_LOOKUP:
	case NFS3_CREATE:
	case NFS3_MKDIR:
	case NFS3_SYMLINK:
	case NFS3_MKNOD:
		if (c->rfhlen > 0)
			learn(s, fh_get(s, c->fh[0], c->fhlen[0]), c->name[0], c->rfh, c->rfhlen);
		break;
	case NFS3_READDIRPLUS:
		dir = fh_get(s, c->fh[0], c->fhlen[0]);
		for (size_t i = 0; i < c->nentries; i++)
			learn(s, dir, c->entries[i].name, c->entries[i].fh, c->entries[i].len);
		break;
	case NFS3_REMOVE:
	case NFS3_RMDIR: {
		struct fh_entry *e = lookup_name(s, fh_get(s, c->fh[0], c->fhlen[0]), c->name[0]);

		if (e)
			unname(s, e);
		break;
	}
	case NFS3_RENAME: {
		struct fh_entry *from = fh_get(s, c->fh[0], c->fhlen[0]);
		struct fh_entry *to = fh_get(s, c->fh[1], c->fhlen[1]);
		struct fh_entry *e = lookup_name(s, from, c->name[0]);

		if (e && to)
			learn(s, to, c->name[1], e->fh, e->len);
		else if (e)
			unname(s, e);
		break;
	}
	default:
		break;
	}
}

/*
 * A capture that starts before its root existed looks the root up (NOENT)
 * and makes it.  With the prologue, the root exists when the loadfile
 * replays: such calls on the root itself expect any status.
 */
static const char *root_status(struct t2l *t, const char *op, const char *path, const char *st)
{
	if (!t->opt->header || strcmp(path, "/clients/client1") != 0)
		return st;
	out_comment(t, "%s of the root itself, which the prologue makes: any status (it was %s)", op, st);
	return "*";
}

static void render_nfs3(struct record *rec, struct t2l *t)
{
	struct nfs_call *c = rec->payload;
	const char *op = nfs3_names[c->proc];
	char p1[PATH_TEXT_MAX + 64], p2[PATH_TEXT_MAX + 64], sb[16];
	const char *st;

	if (c->proc == NFS3_NULL) {
		t->n.null_calls++;
		return;
	}
	if (!rec->replied) {
		out_skip(t, rec, SKIP_NO_REPLY, "%s: no reply in the capture", op);
		return;
	}
	if (c->rpc_rejected || c->no_status) {
		out_skip(t, rec, SKIP_REJECTED, "%s: the server's RPC layer rejected the call (accept_stat %llu)",
			 op, (unsigned long long)c->accept_stat);
		return;
	}
	st = nfs_status(rec->status, sb);
	switch (c->proc) {
	case NFS3_GETATTR:
	case NFS3_READLINK:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %s", op, p1, st);
		break;
	case NFS3_SETATTR:
		if (!path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			break;
		if (c->have_mode)
			out_line(t, rec, "%s \"%s\" %#llx %s", op, p1, (unsigned long long)c->mode, st);
		else
			out_line(t, rec, "%s \"%s\" %s", op, p1, st);
		break;
	case NFS3_ACCESS:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %#llx %#llx %s", op, p1, (unsigned long long)c->access,
				 (unsigned long long)(rec->status == 0 ? c->granted : 0), st);
		break;
	case NFS3_READ:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %llu %llu %s", op, p1, (unsigned long long)c->offset,
				 (unsigned long long)c->count, st);
		break;
	case NFS3_WRITE:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %llu %llu %llu %s", op, p1, (unsigned long long)c->offset,
				 (unsigned long long)c->count, (unsigned long long)c->stable, st);
		break;
	case NFS3_COMMIT:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %llu %llu %s", op, p1, (unsigned long long)c->offset,
				 (unsigned long long)c->count, st);
		break;
	case NFS3_LOOKUP:
		if (c->name[0] && (strcmp(c->name[0], "..") == 0 || strcmp(c->name[0], ".") == 0)) {
			out_skip(t, rec, SKIP_NO_OP, "%s of \"%s\": a loadfile path cannot name it", op, c->name[0]);
			break;
		}
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], c->name[0] ? c->name[0] : "", p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %s", op, p1, root_status(t, op, p1, st));
		break;
	case NFS3_CREATE:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], c->name[0] ? c->name[0] : "", p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %llu %s", op, p1, (unsigned long long)c->createmode,
				 root_status(t, op, p1, st));
		break;
	case NFS3_MKDIR:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], c->name[0] ? c->name[0] : "", p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %s", op, p1, root_status(t, op, p1, st));
		break;
	case NFS3_REMOVE:
	case NFS3_RMDIR:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], c->name[0] ? c->name[0] : "", p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %s", op, p1, st);
		break;
	case NFS3_SYMLINK:
		if (!path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], c->name[0] ? c->name[0] : "", p1, sizeof(p1)))
			break;
		if (!c->target || !target_is_safe(c->target)) {
			out_skip(t, rec, SKIP_BAD_NAME, "%s %s: the target \"%s\" cannot be written in a loadfile",
				 op, p1, c->target ? c->target : "");
			break;
		}
		out_line(t, rec, "%s \"%s\" \"%s\" %s", op, p1, c->target, st);
		break;
	case NFS3_RENAME:
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], c->name[0] ? c->name[0] : "", p1, sizeof(p1)) &&
		    path_or_skip(t, rec, op, c->fh[1], c->fhlen[1], c->name[1] ? c->name[1] : "", p2, sizeof(p2)))
			out_line(t, rec, "%s \"%s\" \"%s\" %s", op, p1, p2, st);
		break;
	case NFS3_LINK:
		/* LINK3 new-name existing-file */
		if (path_or_skip(t, rec, op, c->fh[1], c->fhlen[1], c->name[0] ? c->name[0] : "", p1, sizeof(p1)) &&
		    path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p2, sizeof(p2)))
			out_line(t, rec, "%s \"%s\" \"%s\" %s", op, p1, p2, st);
		break;
	case NFS3_READDIRPLUS:
		if (c->cookie != 0) {
			out_skip(t, rec, SKIP_CONTINUATION, "%s: continues a listing (cookie %llu); the op lists the whole directory",
				 op, (unsigned long long)c->cookie);
			break;
		}
		if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
			out_line(t, rec, "%s \"%s\" %s", op, p1, st);
		break;
	case NFS3_FSSTAT:
	case NFS3_FSINFO:
		out_line(t, rec, "%s %s", op, st);
		break;
	case NFS3_PATHCONF: {
		char why[1024];

		if (nfs_path(t, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1), why, sizeof(why)) < 0)
			out_line(t, rec, "%s \"%s\" %s", op, p1, st);
		else
			out_line(t, rec, "%s %s", op, st);
		break;
	}
	case NFS3_MKNOD:
	case NFS3_READDIR:
		out_skip(t, rec, SKIP_NO_OP, "%s: the loadfile has no such op%s", op,
			 c->proc == NFS3_READDIR ? " (READDIRPLUS3 is the listing op)" : "");
		break;
	default:
		out_skip(t, rec, SKIP_NO_OP, "NFSv3 procedure %u: the loadfile has no such op", c->proc);
		break;
	}
	learn_reply(t, c, rec->status);
}

static void render_nlm(struct record *rec, struct t2l *t)
{
	struct nfs_call *c = rec->payload;
	static const char *const ops[] = { [1] = "TEST4", [2] = "LOCK4", [4] = "UNLOCK4" };
	const char *op = ops[c->proc];
	char p1[PATH_TEXT_MAX + 64], sb[16];

	if (!rec->replied) {
		out_skip(t, rec, SKIP_NO_REPLY, "NLM %s: no reply in the capture", op);
		return;
	}
	if (c->rpc_rejected || c->no_status) {
		out_skip(t, rec, SKIP_REJECTED, "NLM %s: the server's RPC layer rejected the call (accept_stat %llu)",
			 op, (unsigned long long)c->accept_stat);
		return;
	}
	if (c->proc != 4 && !c->exclusive) {
		out_skip(t, rec, SKIP_NO_OP, "NLM %s of a shared range (%llu, %llu): %s is exclusive", op,
			 (unsigned long long)c->offset, (unsigned long long)c->count, op);
		return;
	}
	if (path_or_skip(t, rec, op, c->fh[0], c->fhlen[0], NULL, p1, sizeof(p1)))
		out_line(t, rec, "%s \"%s\" %llu %llu %s", op, p1, (unsigned long long)c->offset,
			 (unsigned long long)c->count, status_name(DOMAIN_NLM, rec->status, sb));
}

static void render_other(struct record *rec, struct t2l *t)
{
	struct nfs_call *c = rec->payload;

	if (c->proc == 0) {
		t->n.null_calls++;
		return;
	}
	if (c->prog == PROG_NLM)
		out_skip(t, rec, SKIP_NO_OP, "NLM version %u procedure %u: only the synchronous NLMv4 TEST, LOCK and UNLOCK are converted",
			 c->vers, c->proc);
	else
		out_skip(t, rec, SKIP_NO_OP, "NFS version %u procedure %u: only NFSv3 is converted", c->vers, c->proc);
}

/* ---- reading calls and replies ---- */

/* The handles and names of a call tree, in document order. */
static void collect(const struct jnode *n, struct nfs_call *c, int *nfh, int *nname)
{
	for (const struct jnode *k = n->first; k; k = k->next) {
		if (strcmp(k->key, "nfs.fhandle") == 0 && k->value && *nfh < 2) {
			int len = parse_hex_bytes(k->value, c->fh[*nfh], FH_MAX);

			if (len > 0)
				c->fhlen[(*nfh)++] = len;
		} else if (strcmp(k->key, "nfs.name") == 0 && k->value && !k->truncated && *nname < 2) {
			c->name[(*nname)++] = xstrdup(k->value);
		} else if (k->first) {
			collect(k, c, nfh, nname);
		}
	}
}

static void read_call_fields(struct nfs_call *c, const struct jnode *prog)
{
	int nfh = 0, nname = 0;
	const char *s;

	if (!prog)
		return;
	if (c->prog == PROG_MOUNT) {
		if ((s = jstr(prog, "mount.path")))
			c->target = xstrndup(s, 1000);
		return;
	}
	collect(prog, c, &nfh, &nname);
	if (c->prog == PROG_NLM) {
		uint64_t v;

		jnum(prog, "nlm.lock.l_offset64", &c->offset);
		jnum(prog, "nlm.lock.l_len64", &c->count);
		c->exclusive = jnum(prog, "nlm.exclusive", &v) && v != 0;
		return;
	}
	jnum(prog, "nfs.offset3", &c->offset);
	jnum(prog, "nfs.count3", &c->count);
	jnum(prog, "nfs.write.stable", &c->stable);
	jnum(prog, "nfs.access_check", &c->access);
	jnum(prog, "nfs.createmode", &c->createmode);
	jnum(prog, "nfs.cookie3", &c->cookie);
	if (c->proc == NFS3_SETATTR && jnum(prog, "nfs.mode3", &c->mode)) {
		c->have_mode = true;
		c->mode &= 07777;
	}
	if (c->proc == NFS3_SYMLINK && (s = jstr(prog, "nfs.symlink.to")))
		c->target = xstrdup(s);
}

static void read_entries(struct nfs_call *c, const struct jnode *prog)
{
	size_t cap = 0;

	for (const struct jnode *k = prog->first; k; k = k->next) {
		const char *name, *fh;
		uint8_t buf[FH_MAX];
		int len;

		if (strcmp(k->key, "nfs.readdir.entry") != 0 || !k->first)
			continue;
		name = jstr(k, "nfs.readdirplus.entry.name");
		fh = jstr(k, "nfs.fhandle");
		if (!name || !fh || (len = parse_hex_bytes(fh, buf, FH_MAX)) <= 0)
			continue;
		if (c->nentries == MAX_ENTRIES)
			break;
		if (c->nentries == cap) {
			cap = cap ? cap * 2 : 16;
			c->entries = xrealloc(c->entries, cap * sizeof(*c->entries));
		}
		c->entries[c->nentries].name = xstrndup(name, 300);
		memcpy(c->entries[c->nentries].fh, buf, (size_t)len);
		c->entries[c->nentries].len = (uint8_t)len;
		c->nentries++;
	}
}

static void read_reply_fields(struct nfs_call *c, const struct jnode *prog, uint64_t *status)
{
	const char *fh;

	if (!prog) {
		c->no_status = true;
		return;
	}
	if (c->prog == PROG_NLM) {
		if (!jnum(prog, "nlm.test_stat.stat", status) && !jnum(prog, "nlm.stat", status))
			c->no_status = true;
		return;
	}
	if (c->prog == PROG_MOUNT) {
		if (!jnum(prog, "mount.status", status))
			*status = 0;
		if ((fh = jstr(prog, "nfs.fhandle")))
			c->rfhlen = parse_hex_bytes(fh, c->rfh, FH_MAX);
		return;
	}
	if (c->proc == NFS3_NULL)
		return;
	if (!jnum(prog, "nfs.status", status) || *status > UINT32_MAX) {
		c->no_status = true;
		return;
	}
	jnum(prog, "nfs.access_rights", &c->granted);
	if (c->proc == NFS3_READDIRPLUS) {
		read_entries(c, prog);
	} else if (c->proc != NFS3_RENAME && c->proc != NFS3_LINK && (fh = jstr(prog, "nfs.fhandle"))) {
		c->rfhlen = parse_hex_bytes(fh, c->rfh, FH_MAX);
		if (c->rfhlen < 0)
			c->rfhlen = 0;
	}
}

static void make_key(struct rpc_key *k, const struct conversation *conv, uint32_t xid)
{
	memset(k, 0, sizeof(*k));
	k->tag = 'R';
	k->conv = *conv;
	k->xid = xid;
}

static void on_call(struct t2l *t, const struct packet *pkt, const struct jnode *rpc, const struct jnode *prog,
		    uint32_t xid)
{
	struct nfs_state *s = t->nfs;
	struct conversation conv = { .client = pkt->src, .server = pkt->dst };
	uint64_t program, vers, proc;
	struct nfs_call *c;
	struct rpc_key key;
	render_fn render;

	if (!jnum(rpc, "rpc.program", &program) || !jnum(rpc, "rpc.programversion", &vers) ||
	    !jnum(rpc, "rpc.procedure", &proc) || vers > UINT32_MAX || proc > UINT32_MAX)
		return;
	if (program != PROG_NFS && program != PROG_MOUNT && program != PROG_NLM)
		return;		/* portmap and the like */
	if (!conversation_wanted(t, &conv)) {
		t->n.filtered++;
		return;
	}
	if (!protocol_wanted(t, PROTO_NFS))
		return;
	make_key(&key, &conv, xid);
	if (queue_pending(t, &key, sizeof(key))) {
		t->n.retransmissions++;
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->prog = (uint32_t)program;
	c->vers = (uint32_t)vers;
	c->proc = (uint32_t)proc;
	if (program == PROG_MOUNT) {
		render = render_mount;
	} else if (program == PROG_NFS && vers == 3 && proc < NFS3_NPROCS) {
		render = render_nfs3;
	} else if (program == PROG_NLM && vers == 4 && (proc == 1 || proc == 2 || proc == 4)) {
		render = render_nlm;
	} else {
		if (program == PROG_NFS && vers == 2)
			s->nfs2++;
		else if (program == PROG_NFS && vers == 4)
			s->nfs4++;
		render = render_other;
	}
	if (render != render_other)
		read_call_fields(c, prog);
	queue_call(t, pkt, &key, sizeof(key), render, release_call, c);
}

static void on_reply(struct t2l *t, const struct packet *pkt, const struct jnode *rpc, const struct jnode *prog,
		     uint32_t xid)
{
	struct conversation conv = { .client = pkt->dst, .server = pkt->src };
	uint64_t program = 0, replystat = 0, accept = 0, status = 0;
	struct record *rec;
	struct nfs_call *c;
	struct rpc_key key;

	if (jnum(rpc, "rpc.program", &program) && program != PROG_NFS && program != PROG_MOUNT &&
	    program != PROG_NLM)
		return;
	if (!conversation_wanted(t, &conv)) {
		t->n.filtered++;
		return;
	}
	make_key(&key, &conv, xid);
	rec = queue_pending(t, &key, sizeof(key));
	if (!rec) {
		if (protocol_wanted(t, PROTO_NFS))
			t->n.unmatched_replies++;
		return;
	}
	c = rec->payload;
	jnum(rpc, "rpc.replystat", &replystat);
	jnum(rpc, "rpc.state_accept", &accept);
	if (replystat != 0 || accept != 0) {
		c->rpc_rejected = true;
		c->accept_stat = replystat ? 1000 + replystat : accept;
	} else if (c->proc != 0) {
		read_reply_fields(c, prog, &status);
	}
	queue_complete(t, rec, (uint32_t)status);
}

void nfs_message(struct t2l *t, const struct packet *pkt, const struct jnode *rpc, const struct jnode *prog)
{
	uint64_t xid, msgtyp;

	if (!pkt->have_addr || !jnum(rpc, "rpc.xid", &xid) || xid > UINT32_MAX ||
	    !jnum(rpc, "rpc.msgtyp", &msgtyp))
		return;
	if (msgtyp == 0)
		on_call(t, pkt, rpc, prog, (uint32_t)xid);
	else if (msgtyp == 1)
		on_reply(t, pkt, rpc, prog, (uint32_t)xid);
}

bool nfs_set_root_option(struct t2l *t, const char *root)
{
	const char *colon = strchr(root, ':');
	const char *path = colon && colon[1] == '/' ? colon + 1 : root;

	if (path[0] != '/')
		return false;
	normalize_server_path(path, t->nfs->root, sizeof(t->nfs->root));
	t->nfs->have_root = true;
	snprintf(t->nfs_root_text, sizeof(t->nfs_root_text), "root: %s (on the server, --root) is /clients/client1",
		 t->nfs->root);
	return true;
}

void nfs_summary(struct t2l *t, FILE *f)
{
	struct nfs_state *s = t->nfs;

	if (!s)
		return;
	if (!s->saw_mount && t->n.skipped[SKIP_UNKNOWN_HANDLE])
		fprintf(f, "  note: the capture has no MOUNT reply, so the root handle is unknown: start the capture before the client mounts\n");
	if (s->nfs2 || s->nfs4)
		fprintf(f, "  note: %llu NFSv2 and %llu NFSv4 calls were not converted (only NFSv3 is)\n",
			(unsigned long long)s->nfs2, (unsigned long long)s->nfs4);
	if (s->have_root)
		fprintf(f, "  root: %s -> /clients/client1\n", s->root);
}
