/*
 * nfs4_rpc.c - a client's own NFSv4.0 session on libnfs's raw layer: the
 * TCP connection to the server's NFS port, SETCLIENTID and
 * SETCLIENTID_CONFIRM with a client id string of its own, the export's
 * root (PUTROOTFH + LOOKUPs), and COMPOUNDs: built here, queued with the
 * call the libnfs we build against has (nfs4.h: send_compound), waited
 * for in our own poll loop with a deadline (several in flight at once when
 * they carry no seqid).
 *
 * The seqid rules of RFC 7530 9.1.7: an OPEN, OPEN_CONFIRM, CLOSE or a LOCK
 * with a new lock-owner consumes the open-owner's seqid, a LOCK or LOCKU
 * the lock-owner's, whenever the operation was executed, unless it failed
 * with one of the errors the RFC lists (c4_seqid_kept).  The lease is
 * renewed by every operation carrying the client id or a stateid; when
 * none went for a third of the lease, the next COMPOUND starts with a
 * RENEW.  A lost lease (NFS4ERR_EXPIRED, STALE_CLIENTID, ...) fails the
 * client with one line.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs4.h"

#include <sys/utsname.h>

/* A message's " PATH" after the operation's name; nothing for the
 * session's own calls (path NULL). */
#define AT(path) ((path) ? " " : ""), ((path) ? shown(path) : "")

/* ---- building ---- */

void c4_init(struct c4 *b, const char *what, const char *path)
{
	b->n = 1;		/* op[0]: room for a RENEW */
	b->what = what;
	b->path = path;
	b->nattr = 0;
	b->seq_op = -1;
	b->lock_seq_op = -1;
	b->renews = false;
	b->overflow = false;
}

nfs_argop4 *c4_add(struct c4 *b, nfs_opnum4 op)
{
	nfs_argop4 *a;

	if (b->n >= C4_MAX_OPS) {
		b->overflow = true;
		a = &b->op[C4_MAX_OPS - 1];	/* scribbled on; never sent */
	} else {
		a = &b->op[b->n++];
	}
	memset(a, 0, sizeof(*a));
	a->argop = op;
	return a;
}

void c4_putfh(struct c4 *b, const struct fh4 *fh)
{
	nfs_argop4 *a = c4_add(b, OP_PUTFH);

	a->nfs_argop4_u.opputfh.object.nfs_fh4_len = fh->len;
	a->nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)fh->data;
}

void c4_putrootfh(struct c4 *b)
{
	c4_add(b, OP_PUTROOTFH);
}

void c4_lookup(struct c4 *b, const char *name, size_t len)
{
	nfs_argop4 *a = c4_add(b, OP_LOOKUP);

	a->nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)len;
	a->nfs_argop4_u.oplookup.objname.utf8string_val = (char *)name;
}

void c4_lookup_path(struct c4 *b, const char *path, bool last)
{
	const char *p = path;

	while (*p) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (!slash && !last)
			break;
		if (len)
			c4_lookup(b, p, len);
		if (!slash)
			break;
		p = slash + 1;
	}
}

const char *last_name(const char *path, size_t *len)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	*len = strlen(name);
	return name;
}

void c4_getfh(struct c4 *b)
{
	c4_add(b, OP_GETFH);
}

/* A slot for one more bitmap (and fattr4 values) in the builder. */
static unsigned c4_slot(struct c4 *b)
{
	if (b->nattr >= C4_ATTR_SLOTS) {
		b->overflow = true;
		return C4_ATTR_SLOTS - 1;
	}
	return b->nattr++;
}

static bitmap4 c4_bitmap(struct c4 *b, uint32_t w0, uint32_t w1, unsigned slot)
{
	bitmap4 bm;

	b->attrmask[slot][0] = w0;
	b->attrmask[slot][1] = w1;
	bm.bitmap4_len = w1 ? 2 : 1;
	bm.bitmap4_val = b->attrmask[slot];
	return bm;
}

void c4_getattr(struct c4 *b, uint32_t w0, uint32_t w1)
{
	nfs_argop4 *a = c4_add(b, OP_GETATTR);

	a->nfs_argop4_u.opgetattr.attr_request = c4_bitmap(b, w0, w1, c4_slot(b));
}

void c4_savefh(struct c4 *b)
{
	c4_add(b, OP_SAVEFH);
}

void c4_restorefh(struct c4 *b)
{
	c4_add(b, OP_RESTOREFH);
}

static void put32(char **p, uint32_t v)
{
	uint32_t be = htonl(v);

	memcpy(*p, &be, 4);
	*p += 4;
}

static void put64(char **p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p, (uint32_t)v);
}

/* VERIFY that the current object is of type: the COMPOUND stops with
 * NFS4ERR_NOT_SAME when it is not. */
void c4_verify_type(struct c4 *b, uint32_t type)
{
	nfs_argop4 *a = c4_add(b, OP_VERIFY);
	unsigned slot = c4_slot(b);
	char *p = b->attrval[slot];

	a->nfs_argop4_u.opverify.obj_attributes.attrmask = c4_bitmap(b, 1u << FATTR4_TYPE, 0, slot);
	put32(&p, type);
	a->nfs_argop4_u.opverify.obj_attributes.attr_vals.attrlist4_len = 4;
	a->nfs_argop4_u.opverify.obj_attributes.attr_vals.attrlist4_val = b->attrval[slot];
}

void c4_fattr(struct c4 *b, fattr4 *fa, int64_t size, uint32_t mode, bool times)
{
	unsigned slot = c4_slot(b);
	uint32_t w0 = 0, w1 = 0;
	char *p = b->attrval[slot];

	/* values in the order of their attribute numbers */
	if (size >= 0) {
		w0 |= 1u << FATTR4_SIZE;
		put64(&p, (uint64_t)size);
	}
	if (mode) {
		w1 |= 1u << (FATTR4_MODE - 32);
		put32(&p, mode);
	}
	if (times) {
		w1 |= 1u << (FATTR4_TIME_ACCESS_SET - 32) | 1u << (FATTR4_TIME_MODIFY_SET - 32);
		put32(&p, SET_TO_SERVER_TIME4);
		put32(&p, SET_TO_SERVER_TIME4);
	}
	fa->attrmask = c4_bitmap(b, w0, w1, slot);
	fa->attrmask.bitmap4_len = 2;
	fa->attr_vals.attrlist4_len = (u_int)(p - b->attrval[slot]);
	fa->attr_vals.attrlist4_val = b->attrval[slot];
}

/* ---- replies ---- */

static bool get32(const char **p, const char *end, uint32_t *v)
{
	uint32_t be;

	if (end - *p < 4)
		return false;
	memcpy(&be, *p, 4);
	*v = ntohl(be);
	*p += 4;
	return true;
}

static bool get64(const char **p, const char *end, uint64_t *v)
{
	uint32_t hi, lo;

	if (!get32(p, end, &hi) || !get32(p, end, &lo))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/* The attributes we ask for, in attribute number order; an attribute we
 * do not know ends the decoding (we never ask for one). */
static void decode_attrs(const fattr4 *fa, struct attr4 *at)
{
	const char *p = fa->attr_vals.attrlist4_val;
	const char *end = p + fa->attr_vals.attrlist4_len;

	memset(at, 0, sizeof(*at));
	for (unsigned bit = 0; bit < 32 * fa->attrmask.bitmap4_len && bit < 64; bit++) {
		uint32_t u32;

		if (!(fa->attrmask.bitmap4_val[bit / 32] & (1u << (bit % 32))))
			continue;
		switch (bit) {
		case FATTR4_TYPE:
			if (!get32(&p, end, &at->type))
				return;
			break;
		case FATTR4_SIZE:
			if (!get64(&p, end, &at->size))
				return;
			break;
		case FATTR4_LEASE_TIME:
			if (!get32(&p, end, &at->lease_time))
				return;
			break;
		case FATTR4_MAXREAD:
			if (!get64(&p, end, &at->maxread))
				return;
			break;
		case FATTR4_MAXWRITE:
			if (!get64(&p, end, &at->maxwrite))
				return;
			break;
		case FATTR4_MODE:
			if (!get32(&p, end, &u32))
				return;
			break;
		case FATTR4_SPACE_AVAIL:
			if (!get64(&p, end, &at->space_avail))
				return;
			break;
		default:
			return;
		}
	}
}

static void copy_fh(struct fh4 *dst, const nfs_fh4 *src, bool *ok)
{
	if (src->nfs_fh4_len == 0 || src->nfs_fh4_len > FH4_MAX || !src->nfs_fh4_val)
		return;
	dst->len = src->nfs_fh4_len;
	memcpy(dst->data, src->nfs_fh4_val, dst->len);
	*ok = true;
}

static void on_entries(struct call4 *r, const READDIR4resok *ok)
{
	const void *p;

	memcpy(r->cookieverf, ok->cookieverf, sizeof(r->cookieverf));
	r->eof = ok->reply.eof;
	for (p = ok->reply.entries; p;) {
		char name[NAME_MAX + 1];
		struct attr4 at;
		entry4 e;
		size_t len;

		/* an aligned copy (libnfs 4.0 decodes at 4-byte alignment) */
		memcpy(&e, p, sizeof(e));
		p = e.nextentry;
		len = e.name.utf8string_len;
		r->entries++;
		r->cookie = e.cookie;
		if (!r->entry_fn || len == 0 || len > NAME_MAX)
			continue;
		memcpy(name, e.name.utf8string_val, len);
		name[len] = '\0';
		decode_attrs(&e.attrs, &at);
		r->entry_fn(r->entry_arg, name, at.type);
	}
}

/* One answered operation: its status, and what the adapter needs of it. */
static void on_result(struct call4 *r, const nfs_resop4 *res, uint32_t st)
{
	const void *u = &res->nfs_resop4_u;

	if (st != NFS4_OK)
		return;
	switch (res->resop) {
	case OP_GETFH:
		copy_fh(&r->fh, &((const GETFH4res *)u)->GETFH4res_u.resok4.object, &r->have_fh);
		break;
	case OP_GETATTR:
		decode_attrs(&((const GETATTR4res *)u)->GETATTR4res_u.resok4.obj_attributes, &r->attr);
		r->have_attr = true;
		break;
	case OP_OPEN:
		r->stateid = ((const OPEN4res *)u)->OPEN4res_u.resok4.stateid;
		r->rflags = ((const OPEN4res *)u)->OPEN4res_u.resok4.rflags;
		break;
	case OP_OPEN_CONFIRM:
		r->stateid = ((const OPEN_CONFIRM4res *)u)->OPEN_CONFIRM4res_u.resok4.open_stateid;
		break;
	case OP_CLOSE:
		r->stateid = ((const CLOSE4res *)u)->CLOSE4res_u.open_stateid;
		break;
	case OP_LOCK:
		r->stateid = ((const LOCK4res *)u)->LOCK4res_u.resok4.lock_stateid;
		break;
	case OP_LOCKU:
		r->stateid = ((const LOCKU4res *)u)->LOCKU4res_u.lock_stateid;
		break;
	case OP_READ: {
		const READ4resok *ok = &((const READ4res *)u)->READ4res_u.resok4;
		uint32_t n = MIN(ok->data.data_len, r->read_max);

		/* libnfs >= 6 has read the data into read_dst already */
		if (!NFS4_DATA_OUTSIDE_XDR && n && r->read_dst && ok->data.data_val)
			memcpy(r->read_dst, ok->data.data_val, n);
		r->count = n;
		r->eof = ok->eof;
		break;
	}
	case OP_WRITE:
		r->count = ((const WRITE4res *)u)->WRITE4res_u.resok4.count;
		break;
	case OP_SETCLIENTID: {
		const SETCLIENTID4resok *ok = &((const SETCLIENTID4res *)u)->SETCLIENTID4res_u.resok4;

		r->clientid = ok->clientid;
		memcpy(r->confirm, ok->setclientid_confirm, sizeof(r->confirm));
		break;
	}
	case OP_READDIR:
		on_entries(r, &((const READDIR4res *)u)->READDIR4res_u.resok4);
		break;
	default:
		break;
	}
}

static void on_compound(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct call4 *r = private_data;
	unsigned base = r->nres;	/* set by send: the builder index of reply op 0 */

	(void)rpc;
	r->rpc_status = status;
	r->nres = 0;
	if (status == RPC_STATUS_SUCCESS && data) {
		/* libnfs 4.0 decodes at 4-byte alignment: reading its 64-bit
		 * members in place is undefined behaviour (UBSan says so), so
		 * the reply and each result are copied to aligned ones first */
		COMPOUND4res res;

		memcpy(&res, data, sizeof(res));
		r->status = res.status;
		for (u_int i = 0; i < res.resarray.resarray_len && i + base < C4_MAX_OPS; i++) {
			nfs_resop4 op;
			uint32_t st;

			memcpy(&op, (const char *)res.resarray.resarray_val + i * sizeof(op), sizeof(op));
			/* every *4res starts with its nfsstat4 */
			memcpy(&st, &op.nfs_resop4_u, sizeof(st));
			r->op_status[i + base] = st;
			r->nres = i + base + 1;
			on_result(r, &op, st);
		}
	} else if (status == RPC_STATUS_ERROR && data) {
		snprintf(r->error, sizeof(r->error), "%s", (const char *)data);
	}
	r->done = true;
	if (r->waker)
		nfs_async_wake(r->waker);
}

/* ---- sending and waiting ---- */

static void call_reset(struct call4 *r, char *read_dst, uint32_t read_max)
{
	void (*fn)(void *, const char *, uint32_t) = r->entry_fn;
	void *arg = r->entry_arg;

	memset(r, 0, sizeof(*r));
	r->rpc_status = RPC_STATUS_ERROR;
	r->status = NFS4ERR_SERVERFAULT;
	r->read_dst = read_dst;
	r->read_max = read_max;
	r->entry_fn = fn;
	r->entry_arg = arg;
}

/* Queue the COMPOUND args with the libnfs call for it (nfs4.h): true if
 * queued.  READ and WRITE are the last operation of theirs. */
static bool send_compound(struct rpc_context *rpc, COMPOUND4args *args, struct call4 *r)
{
	const nfs_argop4 *last = &args->argarray.argarray_val[args->argarray.argarray_len - 1];

#if defined(HAVE_RPC_NFS4_WRITE_TASK)
	if (last->argop == OP_READ)
		return rpc_nfs4_read_task(rpc, on_compound, r->read_dst, r->read_max, args, r) != NULL;
	if (last->argop == OP_WRITE)
		return rpc_nfs4_write_task(rpc, on_compound, last->nfs_argop4_u.opwrite.data.data_val,
					   last->nfs_argop4_u.opwrite.data.data_len, args, r) != NULL;
	return rpc_nfs4_compound_task(rpc, on_compound, args, r) != NULL;
#elif defined(HAVE_RPC_NFS4_COMPOUND_ASYNC2)
	size_t room = last->argop == OP_WRITE ? last->nfs_argop4_u.opwrite.data.data_len : 0;

	return rpc_nfs4_compound_async2(rpc, on_compound, args, r, room) == 0;
#else
	(void)last;
	return rpc_nfs4_compound_async(rpc, on_compound, args, r) == 0;
#endif
}

static uint32_t queue(struct client *c, struct c4 *b, struct call4 *r, bool renew)
{
	struct nfs4b *nb = c->priv;
	COMPOUND4args args;
	unsigned base = 1;

	if (nb->dead)
		return STATUS_FATAL;
	if (b->overflow)
		return nfs4_fail(c, "NFSv4 %s%s%s: more than %d operations in one COMPOUND", b->what,
				 AT(b->path), C4_MAX_OPS);
	if (renew) {
		memset(&b->op[0], 0, sizeof(b->op[0]));
		b->op[0].argop = OP_RENEW;
		b->op[0].nfs_argop4_u.oprenew.clientid = nb->clientid;
		base = 0;
	}
	call_reset(r, r->read_dst, r->read_max);
	r->waker = nb->as;
	r->nres = base;		/* on_compound reads it as the base */
	memset(&args, 0, sizeof(args));
	args.minorversion = 0;
	args.argarray.argarray_len = b->n - base;
	args.argarray.argarray_val = &b->op[base];
	if (!send_compound(nb->rpc, &args, r))
		return nfs4_fail(c, "NFSv4 %s%s%s: cannot send: %s", b->what, AT(b->path),
				 rpc_get_error(nb->rpc));
	return NFS4_OK;
}

static bool all_done(const struct call4 *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!r[i].done)
			return false;
	return true;
}

/* The calls c4_wait_all waits for. */
struct calls {
	const struct call4 *r;
	unsigned n;
};

static bool calls_done(const void *arg)
{
	const struct calls *k = arg;

	return all_done(k->r, k->n);
}

uint32_t c4_wait_all(struct client *c, struct call4 *r, unsigned n, const char *what,
		     const char *path)
{
	struct nfs4b *nb = c->priv;
	int timeout_s = nfs_opt(c)->timeout_s;
	struct calls k = { r, n };
	char why[sizeof(c->error)];

	if (nfs_wait(nb->rpc, nb->as, timeout_s, calls_done, &k, why, sizeof(why)) < 0) {
		uint32_t st = nfs4_fail(c, "NFSv4 %s%s%s: %s", what, AT(path), why);

		/* the calls still pending answer now (RPC_STATUS_ERROR), while
		 * the replies they write into are still there: not later, from
		 * the teardown's rpc_destroy_context, into a stack long gone */
		if (!all_done(r, n) && !nb->shared)
			rpc_disconnect(nb->rpc, "dbench: the NFSv4 session failed");
		/* (a shared connection stays for the other clients: their
		 * replies land in the fiber's stack, kept until it is closed) */
		return st;
	}
	for (unsigned i = 0; i < n; i++)
		if (nfs_rpc_failure(r[i].rpc_status, r[i].error, timeout_s, why, sizeof(why)))
			return nfs4_fail(c, "NFSv4 %s%s%s: %s", what, AT(path), why);
	return NFS4_OK;
}

uint32_t c4_send(struct client *c, struct c4 *b, struct call4 *r)
{
	return queue(c, b, r, false);
}

/* RFC 7530 9.1.7: the errors after which a seqid is not consumed. */
static bool c4_seqid_kept(uint32_t st)
{
	switch (st) {
	case NFS4ERR_STALE_CLIENTID:
	case NFS4ERR_STALE_STATEID:
	case NFS4ERR_BAD_STATEID:
	case NFS4ERR_BAD_SEQID:
	case NFS4ERR_BADZDR:
	case NFS4ERR_RESOURCE:
	case NFS4ERR_NOFILEHANDLE:
	case NFS4ERR_MOVED:
		return true;
	default:
		return false;
	}
}

static bool executed(const struct call4 *r, int idx)
{
	return idx >= 0 && (uint32_t)idx < r->nres;
}

uint32_t c4_call(struct client *c, struct c4 *b, struct call4 *r, uint32_t *lock_seqid)
{
	struct nfs4b *nb = c->priv;
	uint64_t sent = now_ns();
	bool renew = nb->lease_s && sent - nb->renewed_ns > (uint64_t)nb->lease_s * NSEC_PER_SEC / 3;
	uint32_t st = queue(c, b, r, renew);

	if (st == NFS4_OK)
		st = c4_wait_all(c, r, 1, b->what, b->path);
	if (st == STATUS_FATAL)
		return st;
	if (executed(r, b->seq_op) && !c4_seqid_kept(r->op_status[b->seq_op]))
		nb->open_seqid++;
	if (lock_seqid && executed(r, b->lock_seq_op) && !c4_seqid_kept(r->op_status[b->lock_seq_op]))
		(*lock_seqid)++;
	if ((renew && r->nres > 0 && r->op_status[0] == NFS4_OK) ||
	    (b->renews && r->status != NFS4ERR_EXPIRED && r->status != NFS4ERR_STALE_CLIENTID &&
	     r->status != NFS4ERR_STALE_STATEID && r->status != NFS4ERR_BAD_STATEID))
		nb->renewed_ns = sent;
	if (renew && r->nres > 0 && r->op_status[0] != NFS4_OK)
		return nt4_checked(c, r->op_status[0], "RENEW", NULL);
	return r->status;
}

/* ---- statuses ---- */

/* nfsstat4 -> NT status, as nt_from_nfs maps nfsstat3: the names a
 * Windows client would see for the same failure.  The not-found pair and
 * NOT_SAME (our VERIFY of a type) depend on where in the COMPOUND the
 * error came: the adapter decides those. */
static const struct {
	uint32_t nfs;
	uint32_t nt;
} nfs4_nt[] = {
	{ NFS4_OK, NT_STATUS_OK },
	{ NFS4ERR_PERM, NT_STATUS_ACCESS_DENIED },
	{ NFS4ERR_ACCESS, NT_STATUS_ACCESS_DENIED },
	{ NFS4ERR_OPENMODE, NT_STATUS_ACCESS_DENIED },
	{ NFS4ERR_WRONGSEC, NT_STATUS_ACCESS_DENIED },
	{ NFS4ERR_NOENT, NT_STATUS_OBJECT_NAME_NOT_FOUND },
	{ NFS4ERR_EXIST, NT_STATUS_OBJECT_NAME_COLLISION },
	{ NFS4ERR_NOTDIR, NT_STATUS_NOT_A_DIRECTORY },
	{ NFS4ERR_ISDIR, NT_STATUS_FILE_IS_A_DIRECTORY },
	{ NFS4ERR_NOTEMPTY, NT_STATUS_DIRECTORY_NOT_EMPTY },
	{ NFS4ERR_NOSPC, NT_STATUS_DISK_FULL },
	{ NFS4ERR_DQUOT, NT_STATUS_DISK_FULL },
	{ NFS4ERR_ROFS, NT_STATUS_MEDIA_WRITE_PROTECTED },
	{ NFS4ERR_NAMETOOLONG, NT_STATUS_NAME_TOO_LONG },
	{ NFS4ERR_FBIG, NT_STATUS_FILE_TOO_LARGE },
	{ NFS4ERR_MLINK, NT_STATUS_TOO_MANY_LINKS },
	{ NFS4ERR_XDEV, NT_STATUS_NOT_SAME_DEVICE },
	{ NFS4ERR_INVAL, NT_STATUS_INVALID_PARAMETER },
	{ NFS4ERR_BADTYPE, NT_STATUS_INVALID_PARAMETER },
	{ NFS4ERR_BADNAME, NT_STATUS_OBJECT_NAME_INVALID },
	{ NFS4ERR_BADCHAR, NT_STATUS_OBJECT_NAME_INVALID },
	{ NFS4ERR_STALE, NT_STATUS_INVALID_HANDLE },
	{ NFS4ERR_BADHANDLE, NT_STATUS_INVALID_HANDLE },
	{ NFS4ERR_FHEXPIRED, NT_STATUS_INVALID_HANDLE },
	{ NFS4ERR_NOTSUPP, NT_STATUS_NOT_SUPPORTED },
	{ NFS4ERR_ATTRNOTSUPP, NT_STATUS_NOT_SUPPORTED },
	{ NFS4ERR_LOCK_NOTSUPP, NT_STATUS_NOT_SUPPORTED },
	{ NFS4ERR_IO, NT_STATUS_IO_DEVICE_ERROR },
	{ NFS4ERR_NXIO, NT_STATUS_IO_DEVICE_ERROR },
	{ NFS4ERR_DENIED, NT_STATUS_LOCK_NOT_GRANTED },
	{ NFS4ERR_DEADLOCK, NT_STATUS_LOCK_NOT_GRANTED },
	{ NFS4ERR_LOCKED, NT_STATUS_FILE_LOCK_CONFLICT },
	{ NFS4ERR_LOCK_RANGE, NT_STATUS_INVALID_LOCK_RANGE },
	{ NFS4ERR_BAD_RANGE, NT_STATUS_INVALID_LOCK_RANGE },
	{ NFS4ERR_LOCKS_HELD, NT_STATUS_FILE_LOCK_CONFLICT },
	{ NFS4ERR_SHARE_DENIED, NT_STATUS_SHARING_VIOLATION },
	{ NFS4ERR_FILE_OPEN, NT_STATUS_SHARING_VIOLATION },
	{ NFS4ERR_DELAY, NT_STATUS_IO_TIMEOUT },
	{ NFS4ERR_GRACE, NT_STATUS_IO_TIMEOUT },
};

/* Statuses after which the session is gone: the client cannot go on. */
static const struct {
	uint32_t nfs;
	const char *why;
} nfs4_fatal[] = {
	{ NFS4ERR_EXPIRED, "the client's lease expired" },
	{ NFS4ERR_STALE_CLIENTID, "the server no longer knows the client id (lease expired or server restarted)" },
	{ NFS4ERR_STALE_STATEID, "the server no longer knows the stateid (lease expired or server restarted)" },
	{ NFS4ERR_BAD_STATEID, "the server no longer knows the stateid (its lease expired?)" },
	{ NFS4ERR_ADMIN_REVOKED, "the server revoked the client's state" },
	{ NFS4ERR_LEASE_MOVED, "the lease moved to another server" },
	{ NFS4ERR_BAD_SEQID, "the open-owner or lock-owner seqid is out of step (a bug)" },
	{ NFS4ERR_OLD_STATEID, "a stateid is out of step (a bug)" },
	{ NFS4ERR_BADZDR, "the server could not decode the request" },
	{ NFS4ERR_RESOURCE, "the COMPOUND was too large for the server" },
	{ NFS4ERR_MINOR_VERS_MISMATCH, "the server does not speak NFSv4.0" },
	{ NFS4ERR_OP_ILLEGAL, "the server does not know an operation" },
	{ NFS4ERR_NOFILEHANDLE, "no current filehandle (a bug)" },
};

static const char *nfs4_name(uint32_t st)
{
	static const struct {
		uint32_t nfs;
		const char *name;
	} names[] = {
		{ NFS4ERR_EXPIRED, "NFS4ERR_EXPIRED" },
		{ NFS4ERR_STALE_CLIENTID, "NFS4ERR_STALE_CLIENTID" },
		{ NFS4ERR_STALE_STATEID, "NFS4ERR_STALE_STATEID" },
		{ NFS4ERR_BAD_STATEID, "NFS4ERR_BAD_STATEID" },
		{ NFS4ERR_ADMIN_REVOKED, "NFS4ERR_ADMIN_REVOKED" },
		{ NFS4ERR_LEASE_MOVED, "NFS4ERR_LEASE_MOVED" },
		{ NFS4ERR_BAD_SEQID, "NFS4ERR_BAD_SEQID" },
		{ NFS4ERR_OLD_STATEID, "NFS4ERR_OLD_STATEID" },
		{ NFS4ERR_BADZDR, "NFS4ERR_BADXDR" },
		{ NFS4ERR_RESOURCE, "NFS4ERR_RESOURCE" },
		{ NFS4ERR_MINOR_VERS_MISMATCH, "NFS4ERR_MINOR_VERS_MISMATCH" },
		{ NFS4ERR_OP_ILLEGAL, "NFS4ERR_OP_ILLEGAL" },
		{ NFS4ERR_NOFILEHANDLE, "NFS4ERR_NOFILEHANDLE" },
		{ NFS4ERR_CLID_INUSE, "NFS4ERR_CLID_INUSE" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].nfs == st)
			return names[i].name;
	return "an NFSv4 error";
}

uint32_t nt4_status(uint32_t st)
{
	if (st == STATUS_FATAL)
		return st;
	for (size_t i = 0; i < ARRAY_SIZE(nfs4_nt); i++)
		if (nfs4_nt[i].nfs == st)
			return nfs4_nt[i].nt;
	return NT_STATUS_UNSUCCESSFUL;
}

uint32_t nt4_checked(struct client *c, uint32_t st, const char *what, const char *path)
{
	struct nfs4b *nb = c->priv;

	for (size_t i = 0; i < ARRAY_SIZE(nfs4_fatal); i++) {
		if (nfs4_fatal[i].nfs != st)
			continue;
		if (st == NFS4ERR_EXPIRED || st == NFS4ERR_STALE_CLIENTID)
			return nfs4_fail(c, "NFSv4 lease lost: %s got %s: %s; was the client stopped longer than the lease (%u s)?",
					 what, nfs4_name(st), nfs4_fatal[i].why,
					 nb->lease_s);
		return nfs4_fail(c, "NFSv4 %s%s%s: %s: %s", what, AT(path), nfs4_name(st),
				 nfs4_fatal[i].why);
	}
	return nt4_status(st);
}

/* ---- the session ---- */

static void on_connect(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct call4 *r = private_data;

	(void)rpc;
	r->rpc_status = status;
	if (status != RPC_STATUS_SUCCESS && data)
		snprintf(r->error, sizeof(r->error), "%s", (const char *)data);
	r->done = true;
}

/* The export path and NFS port of --nfs URL (nfs://HOST[:PORT]/PATH?nfsport=N),
 * or of --export and --nfs-port. */
static void target(const struct nfs_options *o, char *path, size_t len, int *port)
{
	const char *u = o->url;

	*port = o->nfs_port_num ? o->nfs_port_num : 2049;
	if (!u) {
		snprintf(path, len, "%s", o->export_path);
		return;
	}
	u += strlen("nfs://");
	u += strcspn(u, "/?");
	snprintf(path, len, "%.*s", (int)strcspn(u, "?"), u);
	if ((u = strstr(u, "nfsport=")))
		*port = atoi(u + strlen("nfsport="));
}

static uint32_t setclientid(struct client *c, struct nfs4b *nb)
{
	struct c4 b;
	struct call4 r = { 0 };
	nfs_argop4 *a;
	uint64_t verf = ((uint64_t)getpid() << 32) ^ now_ns();
	uint32_t st;

	c4_init(&b, "SETCLIENTID", NULL);
	a = c4_add(&b, OP_SETCLIENTID);
	memcpy(a->nfs_argop4_u.opsetclientid.client.verifier, &verf, sizeof(verifier4));
	a->nfs_argop4_u.opsetclientid.client.id.id_len = (u_int)strlen(nb->owner);
	a->nfs_argop4_u.opsetclientid.client.id.id_val = nb->owner;
	/* no callback service: the server grants no delegations */
	a->nfs_argop4_u.opsetclientid.callback.cb_program = 0;
	a->nfs_argop4_u.opsetclientid.callback.cb_location.r_netid = (char *)"tcp";
	a->nfs_argop4_u.opsetclientid.callback.cb_location.r_addr = (char *)"0.0.0.0.0.0";
	a->nfs_argop4_u.opsetclientid.callback_ident = 0;
	st = c4_call(c, &b, &r, NULL);
	if (st != NFS4_OK)
		return st;
	nb->clientid = r.clientid;
	c4_init(&b, "SETCLIENTID_CONFIRM", NULL);
	a = c4_add(&b, OP_SETCLIENTID_CONFIRM);
	a->nfs_argop4_u.opsetclientid_confirm.clientid = r.clientid;
	memcpy(a->nfs_argop4_u.opsetclientid_confirm.setclientid_confirm, r.confirm, sizeof(verifier4));
	return c4_call(c, &b, &r, NULL);
}

int nfs4_session_start(struct client *c, struct nfs4b *nb)
{
	char path[PATH_MAX], what[32];
	struct utsname un;
	struct call4 r = { 0 };
	struct c4 b;
	int port;
	uint32_t st;

	target(nfs_opt(c), path, sizeof(path), &port);
	if (uname(&un) < 0)
		snprintf(un.nodename, sizeof(un.nodename), "localhost");
	/* unique per dbench client: host, process, client number, time */
	snprintf(nb->owner, sizeof(nb->owner), "dbench.%.40s.%d.%d.%llx", un.nodename, (int)getpid(),
		 c->id, (unsigned long long)(now_ns() & 0xffffffffffULL));
	if (c->engine && nfs_opt(c)->shared) {
		/* the process's clients share one connection, each with its
		 * own client id, owners and lease on it */
		struct nfs_proc *proc = nfs_proc_get(c);

		nb->shared = true;
		if (proc->rpc) {
			nb->rpc = proc->rpc;
			/* on the loop from here on (the session's calls too) */
			if (nfs_async_setup(c, &nb->as, nb->rpc, true) < 0)
				return -1;
			goto connected;
		}
	}
	nb->rpc = rpc_init_context();
	if (!nb->rpc) {
		snprintf(c->error, sizeof(c->error), "nfs: cannot create an RPC context");
		return -1;
	}
	if (nb->shared)
		((struct nfs_proc *)*engine_shared(c))->rpc = nb->rpc;
	/* our calls have their own deadline (c4_wait_all).  libnfs >= 6 gives
	 * a new context a 60 s timeout and no retransmits, and then times out
	 * every call still pending at its next once-a-second scan
	 * (major_timeout = now + timeout * retrans = now): with -1, none. */
	rpc_set_timeout(nb->rpc, -1);
	call_reset(&nb->connect, NULL, 0);
	if (rpc_connect_async(nb->rpc, nfs_opt(c)->server, port, on_connect, &nb->connect) != 0) {
		snprintf(c->error, sizeof(c->error), "nfs: NFSv4 connect to %s port %d: %s",
			 nfs_opt(c)->server, port, rpc_get_error(nb->rpc));
		return -1;
	}
	/* the connection on the loop (c->engine) from its start: on the
	 * client's fiber (the setup of all but the first) the connect and
	 * the session's calls wait there, the other clients' beside them */
	if (nfs_async_setup(c, &nb->as, nb->rpc, nb->shared) < 0)
		return -1;
	snprintf(what, sizeof(what), "connect to port %d", port);
	if (c4_wait_all(c, &nb->connect, 1, what, NULL) != NFS4_OK)
		return -1;
connected:
	st = setclientid(c, nb);
	if (st != NFS4_OK) {
		if (st != STATUS_FATAL)
			nfs4_fail(c, "NFSv4 SETCLIENTID: %s", nfs4_name(st));
		return -1;
	}
	nb->renewed_ns = now_ns();
	/* the export's root: PUTROOTFH, LOOKUP each component, GETFH, and the
	 * lease time and transfer sizes */
	c4_init(&b, "LOOKUP (the export)", path);
	c4_putrootfh(&b);
	c4_lookup_path(&b, path[0] == '/' ? path + 1 : path, true);
	c4_getfh(&b);
	c4_getattr(&b, 1u << FATTR4_TYPE | 1u << FATTR4_LEASE_TIME | 1u << FATTR4_MAXREAD |
			       1u << FATTR4_MAXWRITE, 0);
	st = c4_call(c, &b, &r, NULL);
	if (st != NFS4_OK || !r.have_fh) {
		if (st != STATUS_FATAL)
			nfs4_fail(c, "NFSv4: cannot look up the export %s: %s", path,
				  st == NFS4ERR_NOENT ? "no such export" : nfs4_name(st));
		return -1;
	}
	nb->root = r.fh;
	nb->lease_s = r.attr.lease_time ? r.attr.lease_time : 60;
	nb->rsize = (uint32_t)MIN(r.attr.maxread ? r.attr.maxread : NFS4_READ_MAX, NFS4_READ_MAX);
	nb->wsize = (uint32_t)MIN(r.attr.maxwrite ? r.attr.maxwrite : NFS4_WRITE_MAX, NFS4_WRITE_MAX);
	return 0;
}

void nfs4_session_end(struct client *c, struct nfs4b *nb)
{
	(void)c;
	if (nb->rpc && !nb->shared)
		rpc_destroy_context(nb->rpc);
	nb->rpc = NULL;
}
