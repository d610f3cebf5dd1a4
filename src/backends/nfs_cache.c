/*
 * nfs_cache.c - the NFS backend's paths: a per-client cache of path ->
 * file handle (the project's map, hmap.h), filled by the replies that
 * carry handles and emptied by the ops that remove or move names;
 * resolving a path with one LOOKUP3 per component missing from it; and
 * removing a tree.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

/* ---- the handle cache: path -> struct cache_entry (hmap.h) ---- */

static struct cache_entry *cache_find(struct nfsb *nb, const char *path, size_t len)
{
	return hmap_get(&nb->cache, path, len);
}

void cache_clear(struct nfsb *nb)
{
	hmap_clear(&nb->cache, free);
}

void cache_put(struct nfsb *nb, const char *path, size_t len, const struct fhandle *fh,
		      uint8_t type)
{
	struct cache_entry *e = cache_find(nb, path, len);

	if (!e) {
		if (nb->cache.count >= CACHE_MAX_ENTRIES)
			cache_clear(nb);
		e = xmalloc(sizeof(*e));
		hmap_put(&nb->cache, path, len, e);
	}
	e->fh = *fh;
	e->type = type;
}

void cache_del(struct nfsb *nb, const char *path)
{
	free(hmap_del(&nb->cache, path, strlen(path)));
}

/*
 * Forget a path and everything under it.  A path is only cached when its
 * directory is (resolve() caches every component, new objects are cached
 * under a resolved directory), so when the path is not cached, nothing
 * under it is; and nothing is under a file.
 */
void cache_del_tree(struct nfsb *nb, const char *path)
{
	size_t len = strlen(path), n = 0, pos = 0;
	struct cache_entry *top;
	const void *key;
	char **gone;

	if (len == 0) {
		cache_clear(nb);
		return;
	}
	top = cache_find(nb, path, len);
	if (!top)
		return;
	if (top->type && top->type != NF3DIR) {
		cache_del(nb, path);
		return;
	}
	gone = xmalloc(nb->cache.count * sizeof(*gone));
	while (hmap_next(&nb->cache, &pos, &key, NULL)) {
		const char *k = key;

		if (strncmp(k, path, len) == 0 && (k[len] == '\0' || k[len] == '/'))
			gone[n++] = xstrdup(k);
	}
	for (size_t i = 0; i < n; i++) {
		cache_del(nb, gone[i]);
		free(gone[i]);
	}
	free(gone);
}

/* ---- paths ---- */

/*
 * The handle of path: from the cache, or by LOOKUP3 of each component from
 * the nearest cached directory (caching each).  Returns NFS3_OK, the
 * failing LOOKUP3's status, or STATUS_FATAL.
 */
uint32_t resolve(struct client *c, struct nfsb *nb, const char *path, size_t len, struct lookup *lk)
{
	struct cache_entry *e;
	char name[PATH_MAX];
	size_t start = 0;
	uint32_t st;

	memset(lk, 0, sizeof(*lk));
	lk->fh = nb->root;
	lk->type = NF3DIR;
	lk->cached = true;
	if (len == 0)
		return NFS3_OK;
	e = cache_find(nb, path, len);
	if (e) {
		lk->fh = e->fh;
		lk->type = e->type;
		return NFS3_OK;
	}
	lk->cached = false;
	for (size_t i = len; i-- > 0;) {
		if (path[i] != '/')
			continue;
		e = cache_find(nb, path, i);
		if (e) {
			lk->fh = e->fh;
			start = i + 1;
			break;
		}
	}
	while (start < len) {
		size_t end = start;

		while (end < len && path[end] != '/')
			end++;
		memcpy(name, path + start, end - start);
		name[end - start] = '\0';
		st = rpc_lookup(c, nb, &lk->fh, name);
		if (st == NFS3_OK && !nb->r.have_fh)
			st = NFS3ERR_SERVERFAULT;
		if (st != NFS3_OK) {
			lk->in_parent = end < len;
			return st;
		}
		lk->fh = nb->r.fh;
		lk->type = nb->r.type;
		cache_put(nb, path, end, &lk->fh, lk->type);
		start = end + 1;
	}
	return NFS3_OK;
}

/* Split path into its directory (length) and last component. */
size_t split_path(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');

	*name = slash ? slash + 1 : path;
	return slash ? (size_t)(slash - path) : 0;
}

/* The handle of path's directory; *name its last component.  A failure
 * there is always "in the parent". */
uint32_t resolve_parent(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk,
			       const char **name)
{
	size_t dirlen = split_path(path, name);
	uint32_t st;

	if (!**name) {		/* the export root has no parent */
		memset(lk, 0, sizeof(*lk));
		return NFS3ERR_INVAL;
	}
	st = resolve(c, nb, path, dirlen, lk);
	lk->in_parent = true;
	return st;
}

/* A cached handle came back stale (another client removed the object):
 * forget it and what is under it, and resolve the path afresh. */
static bool stale_retry(struct nfsb *nb, uint32_t st, const struct lookup *lk, const char *path, size_t len)
{
	char buf[PATH_MAX];

	if (st != NFS3ERR_STALE || !lk->cached || len == 0)
		return false;
	memcpy(buf, path, len);
	buf[len] = '\0';
	cache_del_tree(nb, buf);
	return true;
}

/* The object at path, up to date: a cached handle is revalidated with
 * GETATTR3 (close-to-open, as NFS clients do), an uncached path costs its
 * LOOKUP3s.  lk->type is then known. */
uint32_t revalidate(struct client *c, struct nfsb *nb, const char *path, struct lookup *lk)
{
	size_t len = strlen(path);
	uint32_t st = resolve(c, nb, path, len, lk);

	if (st != NFS3_OK || !lk->cached)
		return st;
	st = rpc_getattr(c, nb, &lk->fh);
	if (stale_retry(nb, st, lk, path, len)) {
		st = resolve(c, nb, path, len, lk);
		if (st != NFS3_OK || !lk->cached)
			return st;
		st = rpc_getattr(c, nb, &lk->fh);
	}
	if (st == NFS3_OK)
		lk->type = nb->r.type;
	if (st == NFS3ERR_STALE)
		st = NFS3ERR_NOENT;
	return st;
}

/* ---- the NFSv3 ops: each the one procedure it names ---- */

/* Run fn on the handle of path; on a stale cached handle, resolve again
 * and retry once. */
uint32_t on_object(struct client *c, const char *path, on_fh_fn fn, struct lookup *lk)
{
	struct nfsb *nb = c->priv;
	size_t len = strlen(path);
	uint32_t st = resolve(c, nb, path, len, lk);

	if (st != NFS3_OK)
		return st;
	st = fn(c, nb, &lk->fh);
	if (stale_retry(nb, st, lk, path, len)) {
		st = resolve(c, nb, path, len, lk);
		if (st == NFS3_OK)
			st = fn(c, nb, &lk->fh);
	}
	return st;
}

/* Run fn on the handle of the directory of path and its last name. */
uint32_t on_parent(struct client *c, const char *path, on_dir_fn fn, struct lookup *lk)
{
	struct nfsb *nb = c->priv;
	const char *name;
	size_t dirlen = split_path(path, &name);
	uint32_t st = resolve_parent(c, nb, path, lk, &name);

	if (st != NFS3_OK)
		return st;
	st = fn(c, nb, &lk->fh, name, path);
	if (stale_retry(nb, st, lk, path, dirlen)) {
		st = resolve_parent(c, nb, path, lk, &name);
		if (st != NFS3_OK)
			return st;
		st = fn(c, nb, &lk->fh, name, path);
	}
	lk->in_parent = false;
	return st;
}

/* ---- removing trees: READDIRPLUS3, REMOVE3, RMDIR3; never follows a
 * symlink (NFS never does: LOOKUP3 and REMOVE3 act on the link itself) ---- */

static uint32_t remove_entries(struct client *c, struct nfsb *nb, const struct fhandle *dir, int depth);

static uint32_t remove_entry(struct client *c, struct nfsb *nb, const struct fhandle *dir,
			     struct dir_entry *e, int depth)
{
	uint32_t st;

	if (!e->type || (e->type == NF3DIR && !e->have_fh)) {
		st = rpc_lookup(c, nb, dir, e->name);
		if (st == NFS3ERR_NOENT)
			return NFS3_OK;
		if (st != NFS3_OK)
			return st;
		e->type = nb->r.type;
		e->have_fh = nb->r.have_fh;
		e->fh = nb->r.fh;
	}
	if (e->type != NF3DIR) {
		st = rpc_remove(c, nb, dir, e->name);
		return st == NFS3ERR_NOENT ? NFS3_OK : st;
	}
	if (!e->have_fh)
		return NFS3ERR_SERVERFAULT;
	st = remove_entries(c, nb, &e->fh, depth + 1);
	if (st != NFS3_OK)
		return st;
	st = rpc_rmdir(c, nb, dir, e->name);
	return st == NFS3ERR_NOENT ? NFS3_OK : st;
}

/* Empty a directory.  Listed once whole, then emptied; listed again in case
 * names appeared meanwhile (another client), until nothing is left. */
static uint32_t remove_entries(struct client *c, struct nfsb *nb, const struct fhandle *dir, int depth)
{
	uint32_t st = NFS3_OK;

	if (depth > REMOVE_DEPTH_MAX)
		return NFS3ERR_NAMETOOLONG;
	for (int pass = 0; pass < 8; pass++) {
		struct dir_list dl = { 0 };

		nb->collect = &dl;
		st = list_dir(c, nb, dir);
		nb->collect = NULL;
		if (st == NFS3_OK && dl.n == 0) {
			dir_list_free(&dl);
			return NFS3_OK;
		}
		for (size_t i = 0; i < dl.n && st == NFS3_OK; i++)
			st = remove_entry(c, nb, dir, &dl.e[i], depth);
		dir_list_free(&dl);
		if (st != NFS3_OK)
			return st;
	}
	return NFS3ERR_NOTEMPTY;
}

/* Remove path and everything under it; NFS3_OK if it is gone (or was never
 * there). */
uint32_t remove_path(struct client *c, struct nfsb *nb, const char *path)
{
	struct lookup lk, dir;
	const char *name;
	uint32_t st;

	st = revalidate(c, nb, path, &lk);
	if (st == NFS3ERR_NOENT || (st == NFS3ERR_NOTDIR && lk.in_parent))
		return NFS3_OK;
	if (st != NFS3_OK)
		return st;
	if (lk.type == NF3DIR)
		st = remove_entries(c, nb, &lk.fh, 0);
	if (st == NFS3_OK && *path) {
		st = resolve_parent(c, nb, path, &dir, &name);
		if (st == NFS3_OK)
			st = lk.type == NF3DIR ? rpc_rmdir(c, nb, &dir.fh, name) :
						 rpc_remove(c, nb, &dir.fh, name);
		if (st == NFS3ERR_NOENT)
			st = NFS3_OK;
	}
	if (st != STATUS_FATAL)
		cache_del_tree(nb, path);
	return st;
}

int nfsb_remove_tree(struct client *c, const char *path)
{
	struct nfsb *nb = c->priv;
	uint32_t st;
	char b[16];

	if (nb->dead)
		return -1;
	st = remove_path(c, nb, path);
	if (st == NFS3_OK)
		return 0;
	if (st != STATUS_FATAL)
		snprintf(c->error, sizeof(c->error), "nfs: cannot remove %s: %s", shown(path),
			 status_name(DOMAIN_NFS, st, b));
	return -1;
}

int nfsb_exists(struct client *c, const char *path)
{
	struct nfsb *nb = c->priv;
	struct lookup lk;
	uint32_t st = resolve(c, nb, path, strlen(path), &lk);
	char b[16];

	if (st == NFS3_OK)
		return 1;
	if (st == NFS3ERR_NOENT || st == NFS3ERR_NOTDIR)
		return 0;
	if (st != STATUS_FATAL)
		snprintf(c->error, sizeof(c->error), "nfs: cannot look up %s: %s", shown(path),
			 status_name(DOMAIN_NFS, st, b));
	return -1;
}

