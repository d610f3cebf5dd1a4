/*
 * nfs_mount.c - the NFS backend's session: its options (checked once in
 * the parent), mounting the export, the NLM connection, a client's setup
 * and teardown, and the bytes its connections carried.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "nfs.h"

#include <linux/capability.h>
#include <sys/syscall.h>

/* --nfs-version: the table the loadfile is checked against and the run
 * uses, chosen once the options are parsed (NFSv3 and NLM here, NFSv4 in
 * nfs4.c). */
const struct backend *nfs_variant(void *be_opt, char *why, size_t whylen)
{
	struct nfs_options *o = be_opt;

	if (strcmp(o->version_arg, "3") == 0) {
		o->version = 3;
		return &nfs_backend;
	}
	if (strcmp(o->version_arg, "4") == 0) {
		o->version = 4;
		return &nfs4_backend;
	}
	snprintf(why, whylen, "nfs: --nfs-version %s: must be 3 or 4", o->version_arg);
	return NULL;
}

/* Why an op is missing from the NFSv3 table, for the load-time refusal:
 * the NLM ones exist only with a libnfs that has NLM. */
const char *nfsb_why_unsupported(int id)
{
	if (op_info[id].domain == DOMAIN_NLM)
		return "is an NLM operation: this dbench was built with a libnfs without NLM";
	return NULL;
}

#define NFS_OPTION(name_, type_, field_, def_, arg_, help_)                                      \
	{ .name = name_, .type = type_, .offset = offsetof(struct nfs_options, field_),             \
	  .def = def_, .arg_name = arg_, .help = help_ }

const struct backend_option nfs_option_table[] = {
	NFS_OPTION("nfs-version", BOPT_STRING, version_arg, "3", "3|4",
		   "NFS protocol version: 3 (default; MOUNT, NFSv3, NLM) or 4 (NFSv4.0)"),
	NFS_OPTION("export", BOPT_STRING, export, NULL, "PATH", "the export to mount (nfs backend)"),
	NFS_OPTION("nfs", BOPT_STRING, url, NULL, "URL",
		   "server and export as a libnfs URL: nfs://HOST/EXPORT[?nfsport=N&mountport=N]"),
	NFS_OPTION("protocol", BOPT_STRING, protocol, "tcp", "PROTO",
		   "transport: tcp (default; libnfs has no NFS over udp)"),
	NFS_OPTION("mount-port", BOPT_STRING, mount_port, NULL, "PORT",
		   "the server's MOUNT port (default: ask its portmapper)"),
	NFS_OPTION("nfs-port", BOPT_STRING, nfs_port, NULL, "PORT",
		   "the server's NFS port (default: ask its portmapper)"),
	NFS_OPTION("nfs-timeout", BOPT_STRING, timeout, NULL, "SECS",
		   "seconds to wait for a reply before the client fails (default 5)"),
	NFS_OPTION("enable-nlm", BOPT_FLAG, enable_nlm, NULL, NULL,
		   "byte-range locks (LockX, UnlockX, LOCK4, UNLOCK4, TEST4) through the server's NLM"),
	NFS_OPTION("nfs-connection", BOPT_STRING, connection, "client", "MODE",
		   "client (default): a connection (and mount) a client; shared: the clients of a "
		   "process (--clients-per-process) share one, their calls in flight on it together"),
	{ .name = NULL },
};

/* ---- reserved ports ----
 *
 * Run as root (CAP_NET_BIND_SERVICE), libnfs binds each connection to a
 * reserved port (512-1023), as a server with "secure" exports wants: it
 * tries them one after the other, looking each up in the services
 * database, until one is free (every libnfs from 4.0 to 7.0; without the
 * capability the first bind fails and it stops).  With hundreds of
 * connections the free ones are soon gone, and every connection then
 * walks all 500 (1,000 clients took minutes to connect).  So the
 * parent's check mount (nfsb_init) is made without the capability first:
 * if the server takes it, the clients drop it from their effective set
 * too, and connect from ordinary ports; if the server refuses it, a second
 * check mount is made with the capability, and the clients keep it; if
 * nothing answers, the run ends there (one --nfs-timeout, not two).
 */

/* Set CAP_NET_BIND_SERVICE in this process's effective set to on (from
 * its permitted set).  Whether it was set before (1, 0), or -1 if the
 * capabilities cannot be read or changed. */
static int bind_service_cap(bool on)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint32_t bit = 1u << CAP_NET_BIND_SERVICE;
	bool was;

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	was = d[0].effective & bit;
	if (was == on)
		return was;
	if (on)
		d[0].effective |= bit;
	else
		d[0].effective &= ~bit;
	if (syscall(SYS_capset, &h, d) < 0)
		return -1;
	return was;
}

void nfs_port_policy(const struct nfs_options *o)
{
	if (o->any_port)
		bind_service_cap(false);
}

/* ---- setup ---- */

/* Does libnfs's (or our wait's) text say that nothing answered: no
 * connection, or no reply in time? */
static bool no_answer(const char *text)
{
	return strstr(text, "timed out") || strstr(text, "no reply in") ||
	       strcmp(text, "nfs_service failed") == 0;
}

static bool is_token(const char *s, int len, const char *token)
{
	return strlen(token) == (size_t)len && strncmp(s, token, (size_t)len) == 0;
}

/* Why an NFSv4 mount failed, in one line.  NFSv4 has no MOUNT protocol
 * and no portmapper: libnfs connects to the NFS port (2049 unless given)
 * and looks the export up in the server's pseudo file system, and its
 * texts ("NFS4: (path /x) failed with NFS4ERR_NOENT(-2)", "command timed
 * out") are turned into the reason.  Whether the server answered (a
 * refusal; a server that wants reserved ports hides the export from
 * others: NFS4ERR_NOENT), or nothing did (no connection, no reply). */
static bool mount4_error(const struct nfs_options *o, const char *server, const char *export,
			 const char *text, char *err, size_t errlen)
{
	int port = o->nfs_port_num ? o->nfs_port_num : 2049;
	const char *code = strstr(text, "NFS4ERR_");
	const char *q = o->url ? strchr(o->url, '?') : NULL;
	char why[128];

	/* --nfs nfs://HOST/EXPORT?nfsport=N */
	for (const char *arg = q; arg; arg = strchr(arg + 1, '&')) {
		int64_t v;
		char num[8];

		if (strncmp(arg + 1, "nfsport=", 8) != 0)
			continue;
		snprintf(num, sizeof(num), "%.*s", (int)strcspn(arg + 9, "&"), arg + 9);
		if (parse_i64(num, &v) == 0 && v >= 1 && v <= 65535)
			port = (int)v;
	}

	if (code) {
		int len = (int)strspn(code, "NFS4ERR_ABCDEFGHIJKLMNOPQRSTUVWXYZ");

		if (is_token(code, len, "NFS4ERR_NOENT"))
			snprintf(err, errlen, "nfs: cannot mount %s:%s: the server exports no %s over NFSv4 (NFS4ERR_NOENT)",
				 server, export, export);
		else if (is_token(code, len, "NFS4ERR_ACCESS") || is_token(code, len, "NFS4ERR_WRONGSEC") ||
			 is_token(code, len, "NFS4ERR_PERM"))
			snprintf(err, errlen, "nfs: cannot mount %s:%s over NFSv4: %.*s (is it exported to this client?)",
				 server, export, len, code);
		else
			snprintf(err, errlen, "nfs: cannot mount %s:%s over NFSv4: %.*s", server, export, len, code);
		return true;
	}
	tcp_probe(server, port, o->timeout_s * 1000, why, sizeof(why));
	if (why[0])
		snprintf(err, errlen, "nfs: cannot mount %s:%s over NFSv4: no answer on port %d (nfs): %s", server,
			 export, port, why);
	else if (strstr(text, "timed out"))
		snprintf(err, errlen, "nfs: cannot mount %s:%s over NFSv4: no reply in %d s: the server does not answer",
			 server, export, o->timeout_s);
	else if (strstr(text, "(null)") || !text[0])
		/* libnfs 4.0's text when the RPC is refused (PROG_MISMATCH:
		 * a server that speaks NFSv3 only); 6.0 and 7.0 give none */
		snprintf(err, errlen, "nfs: cannot mount %s:%s over NFSv4: the server refused the NFSv4 call (does it serve NFSv4?)",
			 server, export);
	else
		snprintf(err, errlen, "nfs: cannot mount %s:%s over NFSv4: %s", server, export, text);
	return !why[0] && !no_answer(text);
}

/* The answer of a mount or umount (nfs_mount_async's, nfs_umount_async's
 * callback).  It lives as long as the context: a call given up on (our
 * deadline) is answered (cancelled) into it when the context is destroyed. */
struct mount_wait {
	bool done;
	int status;
	char text[256];		/* why it failed: libnfs's words */
};

static void on_mount(int status, struct nfs_context *nfs, void *data, void *private_data)
{
	struct mount_wait *w = private_data;

	w->done = true;
	w->status = status;
	if (status < 0)
		snprintf(w->text, sizeof(w->text), "%s", data ? (const char *)data : nfs_get_error(nfs));
}

/* A connection libnfs is making (a mount, an umount, NLM) on the event
 * loop, for a client's setup or teardown on its fiber: wake the fiber with
 * what came. */
struct mount_source {
	struct source src;
	struct fiber *fiber;
	uint32_t revents;
};

static void mount_ready(struct source *src, uint32_t revents)
{
	struct mount_source *m = src->arg;
	struct fiber *f = m->fiber;	/* m is on the fiber's stack */

	m->revents |= revents;
	if (fiber_resume(f))
		client_complete(f->c, f->status);
}

/* Wait on the event loop, yielding on the client's fiber, until *done:
 * for a connection libnfs is making, which moves from the portmapper to
 * the service (a mount: MOUNT, then NFS), a connection each (the next one
 * often under the number of the last), so the descriptor is watched anew
 * for every wait (a few a mount).  0, or -1 with the reason. */
static int connecting_wait(struct client *c, struct fiber *f, struct rpc_context *rpc,
			   const bool *done, int timeout_s, char *text, size_t len)
{
	struct mount_source m = { .src = { .fd = -1, .ready = mount_ready }, .fiber = f };
	int rc = 0;

	m.src.arg = &m;
	while (!*done) {
		m.src.fd = rpc_get_fd(rpc);
		m.src.events = (uint32_t)rpc_which_events(rpc);
		if (m.src.fd < 0 || engine_watch(c, &m.src) < 0) {
			snprintf(text, len, "nfs_service failed");
			rc = -1;
			break;
		}
		m.revents = 0;
		/* as the poll loop's: the deadline counts only while nothing comes */
		c->deadline_ns = now_ns() + (uint64_t)timeout_s * NSEC_PER_SEC;
		if (fiber_wait(f) < 0) {
			snprintf(text, len, "no reply in %d s: the server stopped answering", timeout_s);
			rc = -1;
			break;
		}
		source_unwatch(&m.src);
		if (rpc_service(rpc, (int)m.revents) < 0 && !*done) {
			snprintf(text, len, "nfs_service failed");
			rc = -1;
			break;
		}
	}
	source_unwatch(&m.src);	/* (a no-op if not watched) */
	c->deadline_ns = 0;
	return rc;
}

/* Wait for the mount or umount queued on nfs to be answered (into w).  On
 * c's fiber (a client's setup or teardown on the event loop; c is NULL in
 * the parent) the wait is the loop's; else a poll loop, bounded by
 * libnfs's timeout.  0, or -1 with the reason in text. */
static int mount_wait(struct client *c, struct nfs_context *nfs, struct mount_wait *w, int timeout_s,
		      char *text, size_t len)
{
	struct fiber *f = c && c->engine ? engine_fiber(c) : NULL;

	if (f && fiber_on(f) &&
	    connecting_wait(c, f, nfs_get_rpc_context(nfs), &w->done, timeout_s, text, len) < 0)
		return -1;
	while (!w->done) {
		struct pollfd pfd = { .fd = nfs_get_fd(nfs), .events = (short)nfs_which_events(nfs) };

		/* a tenth of a second at most: libnfs checks its timeouts
		 * when serviced */
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			pfd.revents = POLLERR;
		if (nfs_service(nfs, pfd.revents) < 0 && !w->done) {
			snprintf(text, len, "nfs_service failed");
			return -1;
		}
	}
	if (w->status < 0) {
		snprintf(text, len, "%s", w->text);
		return -1;
	}
	return 0;
}

/* Connect a second RPC context to the server's NLM v4 service. */
#if NLM_BUILT
static void on_connect(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct nfsb *nb = private_data;

	(void)rpc;
	nb->r.rpc_status = status;
	if (status != RPC_STATUS_SUCCESS && data)
		snprintf(nb->r.error, sizeof(nb->r.error), "%s", (const char *)data);
	nb->r.status = status == RPC_STATUS_SUCCESS ? NLM4_GRANTED : NLM4_FAILED;
	nb->r.done = true;
}

static int nlm_connect(struct client *c, struct nfsb *nb)
{
	nb->nlm = rpc_init_context();
	if (!nb->nlm) {
		snprintf(c->error, sizeof(c->error), "nfs: cannot create an RPC context for NLM");
		return -1;
	}
	/* our calls have their own deadline (wait_reply): libnfs 6.0.2 gives a
	 * new context a major timeout of "now", so its once-a-second scan
	 * timed out whatever LOCK was pending then (as on the NFSv4 context) */
	rpc_set_timeout(nb->nlm, -1);
	snprintf(nb->nlm_host, sizeof(nb->nlm_host), "dbench");
	snprintf(nb->nlm_owner, sizeof(nb->nlm_owner), "dbench.%d.%d", (int)getpid(), c->id);
	reply_reset(nb, NULL);
	if (rpc_connect_program_async(nb->nlm, nfs_opt(c)->server, NLM_PROGRAM, NLM_V4, on_connect, nb) != 0) {
		snprintf(c->error, sizeof(c->error), "nfs: NLM on %s: %s", nfs_opt(c)->server,
			 rpc_get_error(nb->nlm));
		return -1;
	}
	/* on the client's fiber (the setup of all but the first) the wait is
	 * the loop's, the other clients' connects beside it: through the
	 * portmapper, a connection that moves (connecting_wait) */
	if (c->engine && fiber_on(engine_fiber(c))) {
		char why[sizeof(c->error)];

		if (connecting_wait(c, engine_fiber(c), nb->nlm, &nb->r.done, nfs_opt(c)->timeout_s, why,
				    sizeof(why)) < 0) {
			fail(c, nb, "NLM (byte-range locks) connect: %s", why);
			return -1;
		}
	}
	/* (answered already, on the loop: its status) */
	return wait_reply(c, nb, nb->nlm, "NLM (byte-range locks) connect") == NLM4_GRANTED ? 0 : -1;
}
#endif

/*
 * nfs_mount, with libnfs's own words for a failure: its synchronous
 * nfs_mount keeps them in libnfs 4.0 and 5, but from 6.0 ends by
 * replacing them with the RPC layer's last error, which is empty after a
 * refusal (and from 6.0 a mount without a version set falls back to
 * NFSv4: we always set one).  The callback's text is the same in every
 * version.  0, or -1 with the reason in text.
 */
static int mount_export(struct client *c, struct nfs_context *nfs, struct mount_wait *w,
			const char *server, const char *export, int timeout_s, char *text, size_t len)
{
	if (nfs_mount_async(nfs, server, export, on_mount, w) != 0) {
		snprintf(text, len, "%s", nfs_get_error(nfs));
		return -1;
	}
	return mount_wait(c, nfs, w, timeout_s, text, len);
}

/* A libnfs context with our settings, mounted.  On failure, NULL, one
 * line in err, and (if answered is not NULL) whether the server answered
 * (a refusal) or nothing did (no connection, no reply in time). */
struct nfs_context *nfs_mount_export(const struct nfs_options *o, struct client *c, char *err,
				     size_t errlen, bool *answered)
{
	struct nfs_context *nfs = nfs_init_context();
	const char *server = o->server, *export = o->export_path;
	struct nfs_url *url = NULL;
	struct mount_wait w = { 0 };	/* until the context is destroyed */
	char text[256];

	if (!nfs) {
		snprintf(err, errlen, "nfs: cannot create a libnfs context");
		return NULL;
	}
	if (o->url || o->port_url[0]) {
		url = o->url ? nfs_parse_url_dir(nfs, o->url) :
				    nfs_parse_url_incomplete(nfs, o->port_url);
		if (!url) {
			snprintf(err, errlen, "nfs: bad URL '%s': %s",
				 o->url ? o->url : o->port_url, nfs_get_error(nfs));
			goto fail;
		}
		if (o->url) {
			server = url->server;
			export = url->path;
		}
	}
	/* always a timeout (libnfs waits forever without one) and no
	 * reconnecting, so a dead server fails at once */
	nfs_set_timeout(nfs, o->timeout_s * 1000);
	nfs_set_autoreconnect(nfs, 0);
	nfs_set_version(nfs, o->version == 4 ? 4 : NFS_V3);	/* NFS_V4 is in libnfs-raw-nfs4.h */
	if (mount_export(c, nfs, &w, server, export, o->timeout_s, text, sizeof(text)) < 0) {
		const char *hint = "";
		int port = o->mount_port_num ? o->mount_port_num : 111;
		char why[128] = "";
		bool ignored;

		if (!answered)
			answered = &ignored;
		if (o->version == 4) {
			*answered = mount4_error(o, server, export, text, err, errlen);
			goto fail;
		}

		/* libnfs says "nfs_service failed" when it cannot connect:
		 * find out why */
		if (!strstr(text, "MNT3ERR")) {
			tcp_probe(server, port, o->timeout_s * 1000, why, sizeof(why));
			if (!why[0] && o->nfs_port_num) {
				port = o->nfs_port_num;
				tcp_probe(server, port, o->timeout_s * 1000, why, sizeof(why));
			}
		} else {
			hint = " (is it exported to this client?)";
		}
		*answered = !why[0] && !no_answer(text);
		if (why[0])
			snprintf(err, errlen, "nfs: cannot mount %s:%s: no answer on port %d (%s): %s",
				 server, export, port,
				 port == o->nfs_port_num ? "nfs" : port == 111 ? "portmapper" : "mount",
				 why);
		else if (strcmp(text, "nfs_service failed") == 0)
			snprintf(err, errlen, "nfs: cannot mount %s:%s: the server's NFS or MOUNT service does not answer",
				 server, export);
		else
			snprintf(err, errlen, "nfs: cannot mount %s:%s: %s%s", server, export, text, hint);
		goto fail;
	}
	if (url)
		nfs_destroy_url(url);
	return nfs;
fail:
	if (url)
		nfs_destroy_url(url);
	nfs_destroy_context(nfs);
	return NULL;
}

void nfs_unmount(struct client *c, struct nfs_context *nfs, bool umount)
{
#ifdef HAVE_NFS_UMOUNT
	struct mount_wait w = { 0 };	/* until the context is destroyed */
	char text[256];

	if (umount) {
		/* libnfs's timeout again, for the poll loop (not on the event
		 * loop); whether the server took it, nobody asks */
		nfs_set_timeout(nfs, nfs_opt(c)->timeout_s * 1000);
		if (nfs_umount_async(nfs, on_mount, &w) == 0)
			mount_wait(c, nfs, &w, nfs_opt(c)->timeout_s, text, sizeof(text));
	}
#else
	(void)umount;
#endif
	nfs_destroy_context(nfs);
}

uint32_t nfs_fail(struct client *c, bool *dead, const char *fmt, ...)
{
	int n = snprintf(c->error, sizeof(c->error), "nfs %s: ", nfs_opt(c)->server);
	va_list ap;

	*dead = true;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(c->error))
		vsnprintf(c->error + n, sizeof(c->error) - (size_t)n, fmt, ap);
	va_end(ap);
	return STATUS_FATAL;
}

/* The bytes a connection carried (TCP payload, both ways), for the
 * report's network line: the kernel counts them, so the client does no
 * work per op for it. */
void nfs_count_wire_bytes(struct client *c, struct rpc_context *rpc)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int fd = rpc ? rpc_get_fd(rpc) : -1;

	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		return;
	client_count_net(c, ti.tcpi_bytes_acked, ti.tcpi_bytes_received);
}

/* A client's state, once nothing can reply into it. */
static void nfsb_free(void *state)
{
	struct nfsb *nb = state;

	nfs_async_free(&nb->as);
	cache_clear(nb);
	free(nb->cache.slot);
	free(nb);
}

void nfsb_teardown(struct client *c)
{
	struct nfsb *nb = c->priv;

	if (!nb)
		return;
	/* files left open are closed (their locks released, their unstable
	 * writes committed) while the connections are there (and on the
	 * loop: the teardown runs on the client's fiber, beside the others') */
	nb_client_free(c, &nb->nbc);
#if NLM_BUILT
	nlm_release_all(c, nb);
#endif
	nfs_async_stop(nb->as);	/* before the descriptors close */
	if (nb->shared) {
		/* the last client of the process closes the connection; the
		 * states are freed after it (late replies land in them) */
		nfs_count_wire_bytes(c, nb->nlm);
#if NLM_BUILT
		if (nb->nlm)
			rpc_destroy_context(nb->nlm);
		nb->nlm = NULL;
#endif
		nfs_proc_leave(c, nb, nfsb_free);
		c->priv = NULL;
		return;
	}
	if (nfs_async_lost(nb->as, nb->rpc))
		nb->dead = true;	/* given up on: no umount on it */
	nfs_async_free(&nb->as);
	nfs_count_wire_bytes(c, nb->rpc);
	nfs_count_wire_bytes(c, nb->nlm);
#if NLM_BUILT
	if (nb->nlm)
		rpc_destroy_context(nb->nlm);
#endif
	if (nb->nfs)
		nfs_unmount(c, nb->nfs, !nb->dead);
	hmap_free(&nb->cache, free);
	free(nb);
	c->priv = NULL;
}

static bool uses_nlm_ops(const struct program *prog)
{
	return prog->count[OP_LOCK4] || prog->count[OP_UNLOCK4] || prog->count[OP_TEST4];
}

int nfsb_setup(struct client *c)
{
	struct nfsb *nb = xcalloc(1, sizeof(*nb));
	const struct nfs_fh3 *root;
	uint64_t max;

	c->priv = nb;
	nfs_port_policy(nfs_opt(c));
	if (c->id == 0 && !c->cleanup_only && uses_nlm_ops(c->prog) && !nfs_opt(c)->enable_nlm) {
		snprintf(c->error, sizeof(c->error),
			 "nfs: the loadfile has NLM lock operations (LOCK4, UNLOCK4, TEST4): run with --enable-nlm");
		goto fail;
	}
	if (c->engine && nfs_opt(c)->shared) {
		/* the process's clients share one mount and connection */
		struct nfs_proc *proc = nfs_proc_get(c);

		nb->shared = true;
		if (!proc->nfs) {
			proc->nfs = nfs_mount_export(nfs_opt(c), c, c->error, sizeof(c->error), NULL);
			if (!proc->nfs)
				goto fail;
			proc->rpc = nfs_get_rpc_context(proc->nfs);
		}
		nb->nfs = proc->nfs;
	} else {
		nb->nfs = nfs_mount_export(nfs_opt(c), c, c->error, sizeof(c->error), NULL);
	}
	if (!nb->nfs)
		goto fail;
	nb->rpc = nfs_get_rpc_context(nb->nfs);
	/*
	 * Our calls have their own deadline (wait_reply); libnfs's timeout
	 * served the synchronous mount and comes back for the umount.  (Either
	 * way libnfs 4.x scans all its 1024 lists of pending calls on every
	 * rpc_service(): about half the client's instructions per op, which
	 * libnfs >= 5 cuts to one scan a second.)
	 */
	nfs_set_timeout(nb->nfs, -1);
	root = nfs_get_rootfh(nb->nfs);
	{
		struct nfs_fh3 r;

		/* a { length, bytes } pair in every libnfs, whatever it is called */
		memcpy(&r, root, sizeof(r));
		if (!fh_copy(&nb->root, &r)) {
			snprintf(c->error, sizeof(c->error), "nfs: the server gave no usable root handle");
			goto fail;
		}
	}
	max = nfs_get_readmax(nb->nfs);
	nb->rsize = (uint32_t)(max && max < NB_IO_MAX ? max : NB_IO_MAX);
	max = nfs_get_writemax(nb->nfs);
	nb->wsize = (uint32_t)(max && max < NB_IO_MAX ? max : NB_IO_MAX);
	if (nb_client_init(c, &nb->nbc, &nfsb_adapter, &nfs_opt(c)->files) < 0)
		goto fail;
#if NLM_BUILT
	if (nfs_opt(c)->enable_nlm && !c->cleanup_only && nlm_connect(c, nb) < 0)
		goto fail;
#endif
	if (c->engine && nfs_async_setup(c, &nb->as, nb->rpc, nb->shared) < 0)
		goto fail;
	if (nb->as && nb->nlm && nfs_async_watch_nlm(c, nb->as, nb->nlm) < 0)
		goto fail;
	return 0;
fail:
	nfsb_teardown(c);
	return -1;
}

/* ---- options, checked once in the parent ---- */

static int port_option(const char *name, const char *text, int *port)
{
	int64_t v;

	if (!text)
		return 0;
	if (parse_i64(text, &v) < 0 || v < 1 || v > 65535) {
		warnx_("%s: '%s' is not a port (1 to 65535)", name, text);
		return -1;
	}
	*port = (int)v;
	return 0;
}

/* --server HOST[:PORT] (or tbench's SERVER argument); a PORT is the NFS port. */
static int split_server(struct nfs_options *o, const char *server, int *port)
{
	const char *colon = strrchr(server, ':');
	size_t len = strlen(server);

	if (colon && strchr(server, ':') == colon && server[0] != '[') {
		int64_t v;

		if (parse_i64(colon + 1, &v) < 0 || v < 1 || v > 65535) {
			warnx_("nfs: --server %s: '%s' is not a port", server, colon + 1);
			return -1;
		}
		*port = (int)v;
		len = (size_t)(colon - server);
	}
	if (len == 0 || len >= sizeof(o->server)) {
		warnx_("nfs: --server '%s' is not a host name", server);
		return -1;
	}
	memcpy(o->server, server, len);
	o->server[len] = '\0';
	return 0;
}

/* A URL's ?version=N (libnfs reads it) must be --nfs-version's: the
 * operations the loadfile was checked against are that version's. */
static bool url_version_differs(const struct nfs_options *o, const char *url)
{
	const char *q = strchr(url, '?');
	char want[4];

	snprintf(want, sizeof(want), "%d", o->version);
	for (const char *arg = q; arg; arg = strchr(arg + 1, '&')) {
		const char *v = arg + 1;
		size_t len;

		if (strncmp(v, "version=", 8) != 0)
			continue;
		v += 8;
		len = strcspn(v, "&");
		if (len == strlen(want) && strncmp(v, want, len) == 0)
			continue;
		warnx_("nfs: --nfs %s asks for NFS version %.*s, but --nfs-version is %d: give --nfs-version %.*s (or leave version= out)",
		       url, (int)len, v, o->version, (int)len, v);
		return true;
	}
	return false;
}

/*
 * The arguments of a --nfs URL (?KEY=VALUE&...).  libnfs 4.x and 5.x read
 * every number with atoi() and ignore a key they do not know, so that
 * nfsport=abc, nfsport=99999 or nfsprot=2049 would silently mount through
 * the portmapper instead: each value is checked here.  libnfs 6.0 and later
 * refuse a key they do not know themselves (6.0 also drops readahead and
 * pagecache, and knows sec= only when built with Kerberos), but only when a
 * client mounts: with those, each argument is put to libnfs here, before
 * any client starts, so that a bad one is the same line with every libnfs.
 */
enum url_value { URL_PORT, URL_INT, URL_UINT, URL_VERSION, URL_TEXT, URL_PAIR };

/* the libnfs (major version) this module is built against, for a libnfs
 * that does not say which keys it knows (4.x, 5.x) */
#if defined(HAVE_RPC_NFS3_GETATTR_TASK)
#define LIBNFS_MAJOR 6
#elif defined(HAVE_RPC_NFS4_COMPOUND_ASYNC2)
#define LIBNFS_MAJOR 5
#else
#define LIBNFS_MAJOR 4
#endif

static const struct url_key {
	const char *name;
	enum url_value value;
	int since;		/* the first libnfs major version that knows it */
	const char *sample;	/* a value libnfs takes, to ask whether it knows the key */
} url_keys[] = {
	{ "nfsport", URL_PORT, 4, "2049" },		{ "mountport", URL_PORT, 4, "2049" },
	{ "version", URL_VERSION, 4, "3" },		{ "uid", URL_UINT, 4, "0" },
	{ "gid", URL_UINT, 4, "0" },			{ "tcp-syncnt", URL_UINT, 4, "1" },
	{ "readahead", URL_UINT, 4, "0" },		{ "pagecache", URL_UINT, 4, "0" },
	{ "debug", URL_UINT, 4, "0" },			{ "auto-traverse-mounts", URL_UINT, 4, "0" },
	{ "dircache", URL_UINT, 4, "0" },		{ "autoreconnect", URL_INT, 4, "0" },
	{ "if", URL_TEXT, 4, "lo" },			{ "readdir-buffer", URL_PAIR, 5, "8192" },
	{ "rsize", URL_UINT, 6, "65536" },		{ "wsize", URL_UINT, 6, "65536" },
	{ "timeo", URL_UINT, 6, "600" },		{ "retrans", URL_UINT, 6, "2" },
	{ "xprtsec", URL_TEXT, 6, "none" },		{ "sec", URL_TEXT, 6, "krb5" },
};

/* Does the libnfs we run with take this URL argument (KEY=VALUE, len
 * bytes)?  If not, false and its words in why. */
static bool libnfs_takes(const char *arg, size_t len, char *why, size_t whylen)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char text[320];

	if (!nfs) {
		snprintf(why, whylen, "cannot create a libnfs context");
		return false;
	}
	snprintf(text, sizeof(text), "nfs://localhost/x?%.*s", (int)len, arg);
	url = nfs_parse_url_dir(nfs, text);
	if (url)
		nfs_destroy_url(url);
	else
		snprintf(why, whylen, "%s", nfs_get_error(nfs));
	nfs_destroy_context(nfs);
	return url != NULL;
}

/* Does the libnfs we run with refuse a URL argument it does not know? */
static bool libnfs_checks_keys(void)
{
	char why[8];

	return !libnfs_takes("dbench-probe=1", 14, why, sizeof(why));
}

/* One line for an argument that is no key of this libnfs, with the keys it
 * has. */
static void unknown_key(const char *url, const char *key, size_t keylen, bool strict)
{
	char list[320] = "", why[8], arg[64];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(url_keys) / sizeof(url_keys[0]); i++) {
		const struct url_key *k = &url_keys[i];
		int w;

		snprintf(arg, sizeof(arg), "%s=%s", k->name, k->sample);
		if (strict ? !libnfs_takes(arg, strlen(arg), why, sizeof(why)) : k->since > LIBNFS_MAJOR)
			continue;
		w = snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", k->name);
		if (w < 0 || (size_t)w >= sizeof(list) - n)
			break;
		n += (size_t)w;
	}
	warnx_("nfs: --nfs %s: unknown argument '%.*s' (this libnfs knows %s)", url, (int)keylen, key, list);
}

static bool url_value_ok(enum url_value kind, const char *v, size_t len)
{
	char text[32];
	int64_t n;

	if (kind == URL_TEXT)
		return len > 0;
	if (kind == URL_PAIR) {
		size_t comma = strcspn(v, ",");

		return comma < len ? url_value_ok(URL_UINT, v, comma) &&
					     url_value_ok(URL_UINT, v + comma + 1, len - comma - 1) :
				     url_value_ok(URL_UINT, v, len);
	}
	if (len == 0 || len >= sizeof(text))
		return false;
	memcpy(text, v, len);
	text[len] = '\0';
	if (parse_i64(text, &n) < 0)
		return false;
	switch (kind) {
	case URL_PORT:
		return n >= 1 && n <= 65535;
	case URL_VERSION:
		return n == 3 || n == 4;
	case URL_INT:
		return n >= INT_MIN && n <= INT_MAX;
	default:
		return n >= 0 && n <= INT_MAX;
	}
}

static const char *const url_value_what[] = {
	[URL_PORT] = "a port (1 to 65535)", [URL_INT] = "a number",
	[URL_UINT] = "a number (0 or more)", [URL_VERSION] = "3 or 4",
	[URL_TEXT] = "a name", [URL_PAIR] = "a number or two (N or N,M)",
};

/* One line and -1 for the first argument of url that is not good. */
static int check_url(const char *url)
{
	const char *host = url + 6, *q = strchr(url, '?');
	size_t hostlen = strcspn(host, "/?");
	const char *colon = memchr(host, ':', hostlen);
	bool strict = q && q[1] && libnfs_checks_keys();
	char why[160];

	if (colon && host[0] != '[' &&
	    !url_value_ok(URL_PORT, colon + 1, hostlen - (size_t)(colon + 1 - host))) {
		warnx_("nfs: --nfs %s: the port after the host, '%.*s', is not a port (1 to 65535)", url,
		       (int)(hostlen - (size_t)(colon + 1 - host)), colon + 1);
		return -1;
	}
	for (const char *arg = q; arg && arg[1]; arg = strchr(arg + 1, '&')) {
		const char *key = arg + 1, *eq;
		size_t len = strcspn(key, "&"), keylen;
		const struct url_key *k = NULL;

		eq = memchr(key, '=', len);
		keylen = eq ? (size_t)(eq - key) : len;
		for (size_t i = 0; i < sizeof(url_keys) / sizeof(url_keys[0]); i++)
			if (strlen(url_keys[i].name) == keylen && !strncmp(url_keys[i].name, key, keylen))
				k = &url_keys[i];
		if (!eq) {
			if (k)
				warnx_("nfs: --nfs %s: %s has no value (give %s=VALUE)", url, k->name, k->name);
			else
				unknown_key(url, key, keylen, strict);
			return -1;
		}
		if (k && !url_value_ok(k->value, eq + 1, len - keylen - 1)) {
			warnx_("nfs: --nfs %s: %s '%.*s' is not %s", url, k->name,
			       (int)(len - keylen - 1), eq + 1, url_value_what[k->value]);
			return -1;
		}
		if (strict) {
			/* libnfs >= 6.0: what it takes now it takes when a client mounts */
			if (libnfs_takes(key, len, why, sizeof(why)))
				continue;
			if (k)
				warnx_("nfs: --nfs %s: libnfs refuses %.*s: %s", url, (int)len, key, why);
			else
				unknown_key(url, key, keylen, true);
			return -1;
		}
		if (k && k->since <= LIBNFS_MAJOR)
			continue;
		if (k)
			warnx_("nfs: --nfs %s: %s is not known to this libnfs (libnfs %d.x ignores it)", url, k->name,
			       LIBNFS_MAJOR);
		else
			unknown_key(url, key, keylen, false);
		return -1;
	}
	return 0;
}

static int check_options(struct nfs_options *o, const struct run_info *run)
{
	int nfs_port = 0, mount_port = 0, server_port = 0;
	int64_t t = DEFAULT_TIMEOUT_S;

	if (strcmp(o->protocol, "udp") == 0) {
		warnx_("nfs: --protocol udp: libnfs speaks NFS over TCP only; use --protocol tcp");
		return -1;
	}
	if (strcmp(o->protocol, "tcp") != 0) {
		warnx_("nfs: --protocol '%s': expected tcp", o->protocol);
		return -1;
	}
	if (o->timeout && (parse_i64(o->timeout, &t) < 0 || t < 1 || t > 3600)) {
		warnx_("nfs: --nfs-timeout '%s' is not a number of seconds (1 to 3600)", o->timeout);
		return -1;
	}
	o->timeout_s = (int)t;
	if (port_option("--nfs-port", o->nfs_port, &nfs_port) < 0 ||
	    port_option("--mount-port", o->mount_port, &mount_port) < 0)
		return -1;
	o->mount_port_num = mount_port;
	if (o->url) {
		if (strncmp(o->url, "nfs://", 6) != 0) {
			warnx_("nfs: --nfs '%s' is not an nfs:// URL", o->url);
			return -1;
		}
		if (o->export || nfs_port || mount_port) {
			warnx_("nfs: --nfs names the export and ports itself; leave out --export, --nfs-port and --mount-port");
			return -1;
		}
		if (check_url(o->url) < 0 || url_version_differs(o, o->url))
			return -1;
		/* the server, for messages and NLM */
		snprintf(o->server, sizeof(o->server), "%.*s",
			 (int)strcspn(o->url + 6, "/?:"), o->url + 6);
		return 0;
	}
	if (!run->server) {
		warnx_("nfs: no server: give --server HOST (or --nfs nfs://HOST/EXPORT)");
		return -1;
	}
	if (!o->export) {
		warnx_("nfs: no export: give --export /PATH (or --nfs nfs://HOST/EXPORT)");
		return -1;
	}
	if (o->export[0] != '/' || strlen(o->export) >= sizeof(o->export_path)) {
		warnx_("nfs: --export '%s' is not an absolute path", o->export);
		return -1;
	}
	snprintf(o->export_path, sizeof(o->export_path), "%s", o->export);
	if (split_server(o, run->server, &server_port) < 0)
		return -1;
	if (!nfs_port)
		nfs_port = server_port ? server_port : run->port;
	o->nfs_port_num = nfs_port;
	if (nfs_port || mount_port) {
		int n = snprintf(o->port_url, sizeof(o->port_url), "nfs://%s/", o->server);
		const char *sep = "?";

		if (nfs_port) {
			n += snprintf(o->port_url + n, sizeof(o->port_url) - (size_t)n,
				      "%snfsport=%d", sep, nfs_port);
			sep = "&";
		}
		if (mount_port)
			snprintf(o->port_url + n, sizeof(o->port_url) - (size_t)n,
				 "%smountport=%d", sep, mount_port);
	}
	return 0;
}

/* In the parent: check the options, then mount once, so that a wrong
 * export or a server that is not there is one line before any client
 * starts. */
int nfsb_init(void *be_opt, const struct run_info *run)
{
	struct nfs_options *o = be_opt;
	char err[512];
	struct nfs_context *nfs;

	o->trunc_io = run->trunc_io;
	if (check_options(o, run) < 0)
		return -1;
	if (strcmp(o->connection, "client") == 0) {
		o->shared = 0;
	} else if (strcmp(o->connection, "shared") == 0) {
		o->shared = 1;
	} else {
		warnx_("nfs: --nfs-connection: '%s' is not client or shared", o->connection);
		return -1;
	}
#if !NLM_BUILT
	if (o->enable_nlm) {
		warnx_("nfs: --enable-nlm: this dbench was built with a libnfs without NLM");
		return -1;
	}
#endif
	/* from an ordinary port first (see "reserved ports"), and from a
	 * reserved one only if the server refused that: a server that does
	 * not answer is waited for once (--nfs-timeout), not twice.  NLM
	 * keeps the reserved ports (the check mount does not try it). */
	if (!o->enable_nlm && bind_service_cap(false) == 1) {
		bool answered = false;

		nfs = nfs_mount_export(o, NULL, err, sizeof(err), &answered);
		bind_service_cap(true);
		if (nfs) {
			o->any_port = 1;
			nfs_destroy_context(nfs);
			return 0;
		}
		if (!answered) {
			warnx_("%s", err);
			return -1;
		}
	}
	nfs = nfs_mount_export(o, NULL, err, sizeof(err), NULL);
	if (!nfs) {
		warnx_("%s", err);
		return -1;
	}
	nfs_destroy_context(nfs);
	return 0;
}

