/*
 * smb_session.c - the SMB backend's session: its options (parsed once in
 * the parent), the URLs libsmbclient is given, a client's libsmbclient
 * context and connection, and the bytes its connection moved.  The
 * netbench adapter is smb.c.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "smb.h"
#include "status.h"
#include "util.h"

/* The SMB dialects libsmbclient can be limited to, oldest first. */
static const char *const smb_dialects[] = { "SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02", "SMB3_11" };

#define SMB_OPTION(name_, field_, arg_, help_)                                                 \
	{ .name = name_, .type = BOPT_STRING, .offset = offsetof(struct smb_options, field_),        \
	  .arg_name = arg_, .help = help_ }

const struct backend_option smb_option_table[] = {
	SMB_OPTION("smb-share", share_arg, "URL", "the share to load (smb): //SERVER[:PORT]/SHARE[/DIR]"),
	SMB_OPTION("smb-user", user_arg, "USER",
		   "log on as [DOMAIN/]USER; the password comes from $" SMB_PASSWORD_ENV
		   " or is asked on the terminal (default: guest)"),
	SMB_OPTION("smb-protocol", protocol_arg, "PROTO",
		   "the dialects to allow, MIN[:MAX] of SMB2_02 SMB2_10 SMB3_00 SMB3_02 SMB3_11 (default SMB2_02:SMB3_11)"),
	SMB_OPTION("smb-timeout", timeout_arg, "SECS",
		   "seconds to wait for the server's answer before the client gives up (default 10)"),
	SMB_OPTION("smb-signing", signing_arg, "MODE",
		   "SMB signing, as Samba's `client signing`: off, if_required, desired, required "
		   "(default: libsmbclient's smb.conf)"),
	SMB_OPTION("smb-encrypt", encrypt_arg, "MODE",
		   "SMB3 encryption, as Samba's `client smb encrypt`: off, if_required, desired, required "
		   "(default: libsmbclient's smb.conf)"),
	SMB_OPTION("smb-signing-algorithms", signing_algos_arg, "LIST",
		   "SMB3.1.1 signing algorithms to offer, in order: AES-128-GMAC,AES-128-CMAC,HMAC-SHA256"),
	SMB_OPTION("smb-encryption-algorithms", cipher_algos_arg, "LIST",
		   "SMB3.1.1 ciphers to offer, in order: AES-128-GCM,AES-128-CCM,AES-256-GCM,AES-256-CCM"),
	{ .name = NULL },
};

/* ---- URLs ---- */

/* libsmbclient decodes %XX and cuts a URL at '?': everything but a few
 * plain characters is encoded. */
static bool url_plain(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '/' || ch == '.' || ch == '_' || ch == '-' || ch == '~';
}

/* Append the encoding of text to dst (which has room for 3 bytes a byte). */
size_t url_encode(char *dst, const char *text)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (url_plain(*p)) {
			dst[n++] = (char)*p;
		} else {
			dst[n++] = '%';
			dst[n++] = hex[*p >> 4];
			dst[n++] = hex[*p & 15];
		}
	}
	dst[n] = '\0';
	return n;
}

/* The URL of a path relative to the share root (and --smb-share's DIR). */
const char *url_in(const struct smb_options *o, char *buf, const char *path)
{
	memcpy(buf, o->base_url, o->base_len);
	buf[o->base_len] = '\0';
	if (*path) {
		buf[o->base_len] = '/';
		url_encode(buf + o->base_len + 1, path);
	}
	return buf;
}

/* ---- bytes on the wire: libsmbclient does not count them, the kernel
 * does (TCP_INFO of the connection's socket) ---- */

/* The inodes of the sockets this process has open; how many (at most max). */
int open_sockets(int *fds, ino_t *inos, int max)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	struct stat st;
	int n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		int fd = atoi(d->d_name);

		if (d->d_name[0] == '.' || fd == dirfd(dir) || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		fds[n] = fd;
		inos[n++] = st.st_ino;
	}
	closedir(dir);
	return n;
}

/* After connecting: the one socket that was not open before (the
 * inodes in before[]) is this client's connection. */
void find_connection(struct smb *s, const ino_t *before, int nbefore)
{
	int fds[MAX_SOCKETS], n, found = 0;
	ino_t inos[MAX_SOCKETS];

	s->sock_fd = -1;
	n = open_sockets(fds, inos, MAX_SOCKETS);
	for (int i = 0; i < n; i++) {
		bool old = false;

		for (int j = 0; j < nbefore && !old; j++)
			old = inos[i] == before[j];
		if (old)
			continue;
		s->sock_fd = fds[i];
		s->sock_ino = inos[i];
		found++;
	}
	if (found != 1)
		s->sock_fd = -1;
}

/* Give the core the bytes the connection sent and received, all phases. */
void count_wire(struct client *c)
{
	struct smb *s = c->priv;
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	struct stat st;

	if (s->sock_fd < 0 || fstat(s->sock_fd, &st) < 0 || st.st_ino != s->sock_ino)
		return;	/* gone with the connection */
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(s->sock_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	    len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		client_count_net(c, ti.tcpi_bytes_acked, ti.tcpi_bytes_received);
	s->sock_fd = -1;
}

/* ---- setup ---- */

static void smb_auth(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen, char *un,
		     int unlen, char *pw, int pwlen)
{
	const struct smb_options *o = smbc_getOptionUserData(ctx);

	(void)srv;
	(void)shr;
	if (o->domain[0])
		snprintf(wg, (size_t)wglen, "%s", o->domain);
	snprintf(un, (size_t)unlen, "%s", o->user);
	snprintf(pw, (size_t)pwlen, "%s", o->password);
}

/*
 * libsmbclient runs every request in a new tevent context; with tevent's
 * default epoll backend that is an epoll_create, two epoll_ctl and a close
 * per request on top of the send and receive, half the client's system
 * calls.  The poll backend needs none of them (nothing changes on the
 * wire).  tevent_set_default_backend is libtevent's public API, looked up
 * at run time so that dbench does not link libtevent itself.
 */
static void prefer_poll_events(void)
{
	void *sym = dlsym(RTLD_DEFAULT, "tevent_set_default_backend");
	void (*set_default_backend)(const char *);

	/* DBENCH_SMB_TEVENT_DEFAULT keeps the default, for bench/smb.sh */
	if (!sym || getenv("DBENCH_SMB_TEVENT_DEFAULT"))
		return;
	memcpy(&set_default_backend, &sym, sizeof(sym));
	set_default_backend("poll");
}

SMBCCTX *smb_new_context(const struct smb_options *o, char *error, size_t len)
{
	SMBCCTX *ctx = smbc_new_context();

	if (!ctx) {
		snprintf(error, len, "cannot create a libsmbclient context: %s", strerror(errno));
		return NULL;
	}
	smbc_setDebug(ctx, 0);
	smbc_setOptionDebugToStderr(ctx, 1);
	smbc_setOptionUserData(ctx, (void *)o);	/* for smb_auth */
	smbc_setFunctionAuthDataWithContext(ctx, smb_auth);
	smbc_setTimeout(ctx, o->timeout_ms);
	if (o->port)
		smbc_setPort(ctx, (uint16_t)o->port);
	/* with a user, a refused logon must fail, not become a guest logon */
	smbc_setOptionNoAutoAnonymousLogin(ctx, o->user[0] != '\0');
	smbc_setOptionProtocols(ctx, o->min_proto, o->max_proto);
	smb_secure_context(o, ctx);
	if (smb_secure_apply(o, ctx, error, len) < 0) {
		smbc_free_context(ctx, 1);
		return NULL;
	}
	if (!smbc_init_context(ctx)) {
		snprintf(error, len, "cannot set up libsmbclient: %s", strerror(errno));
		smbc_free_context(ctx, 1);
		return NULL;
	}
	return ctx;
}

static bool host_known(const char *host)
{
	struct addrinfo *ai;

	if (getaddrinfo(host, NULL, NULL, &ai) != 0)
		return false;
	freeaddrinfo(ai);
	return true;
}

/* Why connecting to the share failed, in words. */
static void connect_error(const struct smb_options *o, SMBCCTX *ctx, int err, char *error, size_t len)
{
	char url[8 + sizeof(o->server) + 3 * sizeof(o->share)];
	struct stat st;

	if (o->user[0] && !o->password[0] && (err == EINVAL || err == EACCES || err == EPERM)) {
		/* libsmbclient's word for a logon with an empty password is
		 * "Invalid argument" */
		snprintf(error, len, "%s: cannot log on as %s%s%s with an empty password (%s is empty): give the password",
			 o->display, o->domain, o->domain[0] ? "/" : "", o->user,
			 o->password_from);
		return;
	}
	if (err != EACCES && err != EPERM && err != ECONNREFUSED && !host_known(o->server)) {
		snprintf(error, len, "cannot connect to %s: unknown host %s", o->display,
			 o->server);
		return;
	}
	switch (err) {
	case EACCES:
	case EPERM:
		if (o->user[0])
			snprintf(error, len, "%s: access denied for user %s%s%s (wrong user or password, or not allowed on the share)",
				 o->display, o->domain, o->domain[0] ? "/" : "", o->user);
		else
			snprintf(error, len, "%s: access denied for guest (give a user with --smb-user)",
				 o->display);
		return;
	case ECONNREFUSED:
		snprintf(error, len, "cannot connect to %s: connection refused (no SMB server on that port?)",
			 o->display);
		return;
	case ETIMEDOUT:
		snprintf(error, len, "cannot connect to %s: no answer within %d s", o->display,
			 o->timeout_ms / 1000);
		return;
	case ENOENT:
	case ENODEV:
		if (o->subdir[0]) {
			snprintf(url, sizeof(url), "smb://%s/", o->server);
			url_encode(url + strlen(url), o->share);
			if (smbc_getFunctionStat(ctx)(ctx, url, &st) == 0) {
				snprintf(error, len, "%s: no such directory on the share", o->display);
				return;
			}
		}
		snprintf(error, len, "%s: no such share on %s", o->display, o->server);
		return;
	default:
		snprintf(error, len, "cannot connect to %s: %s", o->display, strerror(err));
		return;
	}
}

int smb_connect_share(const struct smb_options *o, SMBCCTX *ctx, struct smb_facts *facts,
		      char *error, size_t len)
{
	struct smb_facts own;
	struct stat st;

	if (smbc_getFunctionStat(ctx)(ctx, o->base_url, &st) < 0) {
		connect_error(o, ctx, errno, error, len);
		return -1;
	}
	if (smb_secure_check(o, facts ? facts : &own, error, len) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(error, len, "%s is not a directory", o->display);
		return -1;
	}
	return 0;
}


/* ---- options, in the parent ---- */

/* //SERVER[:PORT]/SHARE[/DIR] (also smb://..., and backslashes). */
static int parse_share(struct smb_options *o, const char *arg, int default_port)
{
	char text[2048], *p, *server, *share, *dir, *colon;
	size_t n = 0;

	if (strlen(arg) >= sizeof(text))
		goto bad;
	for (const char *q = arg; *q; q++)
		text[n++] = *q == '\\' ? '/' : *q;
	text[n] = '\0';
	p = text;
	if (strncasecmp(p, "smb:", 4) == 0)
		p += 4;
	if (strncmp(p, "//", 2) != 0)
		goto bad;
	server = p + 2;
	share = strchr(server, '/');
	if (!share)
		goto bad;
	*share++ = '\0';
	dir = strchr(share, '/');
	if (dir)
		*dir++ = '\0';
	colon = strchr(server, ':');
	o->port = default_port;
	if (colon) {
		int64_t port;

		*colon = '\0';
		if (parse_i64(colon + 1, &port) < 0 || port < 1 || port > 65535) {
			warnx_("--smb-share '%s': '%s' is not a port", arg, colon + 1);
			return -1;
		}
		o->port = (int)port;
	}
	if (!*server || !*share || strpbrk(server, "@?%# \t"))
		goto bad;
	if (strlen(server) >= sizeof(o->server) || strlen(share) >= sizeof(o->share))
		goto bad;
	strcpy(o->server, server);
	strcpy(o->share, share);
	/* the directory: components joined by '/', no '.' or '..' */
	n = 0;
	for (char *save, *comp = dir ? strtok_r(dir, "/", &save) : NULL; comp;
	     comp = strtok_r(NULL, "/", &save)) {
		size_t len = strlen(comp);

		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			warnx_("--smb-share '%s': '.' and '..' are not allowed in the directory", arg);
			return -1;
		}
		if (n + len + 2 > sizeof(o->subdir))
			goto bad;
		if (n)
			o->subdir[n++] = '/';
		memcpy(o->subdir + n, comp, len + 1);
		n += len;
	}
	return 0;
bad:
	warnx_("--smb-share '%s': expected //SERVER[:PORT]/SHARE[/DIR]", arg);
	return -1;
}

/* Read a password from the terminal without echo; -1 if there is none. */
static int ask_password(const char *prompt, char *buf, size_t len)
{
	struct termios old, quiet;
	size_t n = 0;
	char ch;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &old) < 0) {
		close(fd);
		return -1;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	if (write_all(fd, prompt, strlen(prompt)) < 0 || tcsetattr(fd, TCSAFLUSH, &quiet) < 0) {
		close(fd);
		return -1;
	}
	while (read(fd, &ch, 1) == 1 && ch != '\n' && ch != '\r')
		if (n + 1 < len)
			buf[n++] = ch;
	buf[n] = '\0';
	tcsetattr(fd, TCSAFLUSH, &old);
	write_all(fd, "\n", 1);
	close(fd);
	return 0;
}

/* [DOMAIN/]USER[%PASSWORD] (DOMAIN\USER too); the password from the
 * argument, else the environment, else the terminal. */
static int parse_user(struct smb_options *o, const char *arg)
{
	char text[sizeof(o->domain) + sizeof(o->user) + sizeof(o->password)];
	char *user, *pass, *sep;
	const char *env;

	if (strlen(arg) >= sizeof(text)) {
		warnx_("--smb-user: too long");
		return -1;
	}
	strcpy(text, arg);
	pass = strchr(text, '%');
	if (pass)
		*pass++ = '\0';
	user = text;
	sep = strpbrk(text, "/\\");
	if (sep) {
		*sep = '\0';
		if (strlen(text) >= sizeof(o->domain))
			goto toolong;
		strcpy(o->domain, text);
		user = sep + 1;
	}
	if (!*user) {
		warnx_("--smb-user '%s': no user name", arg);
		return -1;
	}
	if (strlen(user) >= sizeof(o->user) || (pass && strlen(pass) >= sizeof(o->password)))
		goto toolong;
	strcpy(o->user, user);
	if (pass) {
		strcpy(o->password, pass);
		o->password_from = "the text after % in --smb-user";
		return 0;
	}
	env = getenv(SMB_PASSWORD_ENV);
	if (env) {
		if (strlen(env) >= sizeof(o->password))
			goto toolong;
		strcpy(o->password, env);
		o->password_from = "$" SMB_PASSWORD_ENV;
		return 0;
	}
	o->password_from = "the password typed";
	snprintf(text, sizeof(text), "Password for %s%s%s on %s: ", o->domain,
		 o->domain[0] ? "/" : "", o->user, o->server);
	if (ask_password(text, o->password, sizeof(o->password)) < 0) {
		warnx_("--smb-user %s: no password: set %s (or run on a terminal to be asked)", arg,
		       SMB_PASSWORD_ENV);
		return -1;
	}
	return 0;
toolong:
	warnx_("--smb-user: a name or the password is too long");
	return -1;
}

static int dialect_index(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(smb_dialects); i++)
		if (strlen(smb_dialects[i]) == len && strncasecmp(smb_dialects[i], name, len) == 0)
			return (int)i;
	return -1;
}

/* MIN[:MAX]: one name alone is both. */
static int parse_protocol(struct smb_options *o, const char *arg)
{
	const char *colon = arg ? strchr(arg, ':') : NULL;
	int lo, hi;

	if (!arg) {
		o->min_proto = smb_dialects[0];
		o->max_proto = smb_dialects[ARRAY_SIZE(smb_dialects) - 1];
		return 0;
	}
	lo = dialect_index(arg, colon ? (size_t)(colon - arg) : strlen(arg));
	hi = colon ? dialect_index(colon + 1, strlen(colon + 1)) : lo;
	if (lo < 0 || hi < 0) {
		warnx_("--smb-protocol '%s': expected MIN[:MAX] of SMB2_02 SMB2_10 SMB3_00 SMB3_02 SMB3_11",
		       arg);
		return -1;
	}
	if (lo > hi) {
		warnx_("--smb-protocol '%s': %s is newer than %s", arg, smb_dialects[lo], smb_dialects[hi]);
		return -1;
	}
	o->min_proto = smb_dialects[lo];
	o->max_proto = smb_dialects[hi];
	return 0;
}

static int parse_timeout(struct smb_options *o, const char *arg)
{
	int64_t secs = SMB_TIMEOUT_DEFAULT;

	if (arg && (parse_i64(arg, &secs) < 0 || secs < 1 || secs > 3600)) {
		warnx_("--smb-timeout '%s': expected seconds from 1 to 3600", arg);
		return -1;
	}
	o->timeout_ms = (int)secs * 1000;
	return 0;
}

/* File options that have no meaning over libsmbclient. */
static int refuse_local_options(const struct nb_options *files)
{
	const char *what = files->sync_open ? "-s (libsmbclient does not ask for write-through)" :
			   files->sync_dirs ? "-S (there is no directory to fsync over SMB)" :
			   files->do_fsync ? "-F (libsmbclient has no flush call)" : NULL;

	if (!what)
		return 0;
	warnx_("the smb backend cannot do %s", what);
	return -1;
}

static void build_urls(struct smb_options *o)
{
	size_t n;

	n = (size_t)snprintf(o->base_url, sizeof(o->base_url), "smb://%s/", o->server);
	n += url_encode(o->base_url + n, o->share);
	if (o->subdir[0]) {
		o->base_url[n++] = '/';
		n += url_encode(o->base_url + n, o->subdir);
	}
	o->base_len = n;
	if (o->port)
		snprintf(o->display, sizeof(o->display), "//%s:%d/%s%s%s", o->server,
			 o->port, o->share, o->subdir[0] ? "/" : "", o->subdir);
	else
		snprintf(o->display, sizeof(o->display), "//%s/%s%s%s", o->server,
			 o->share, o->subdir[0] ? "/" : "", o->subdir);
}

int smb_init(void *be_opt, const struct run_info *run)
{
	struct smb_options *o = be_opt;
	struct smb_facts facts;
	char error[512];
	SMBCCTX *ctx;
	int rc;

	if (!o->share_arg) {
		warnx_("the smb backend needs --smb-share //SERVER[:PORT]/SHARE[/DIR]");
		return -1;
	}
	if (parse_share(o, o->share_arg, run->port) < 0 || parse_protocol(o, o->protocol_arg) < 0 ||
	    parse_timeout(o, o->timeout_arg) < 0 || smb_secure_parse(o) < 0 ||
	    refuse_local_options(&o->files) < 0)
		return -1;
	if (o->user_arg && parse_user(o, o->user_arg) < 0)
		return -1;
	build_urls(o);
	prefer_poll_events();
	/* one connection now: a wrong password or share is one line here,
	 * before any client starts */
	ctx = smb_new_context(o, error, sizeof(error));
	if (!ctx) {
		warnx_("%s", error);
		return -1;
	}
	/* ... which also tells what the session negotiated, for the banner
	 * and the JSON environment, and refuses a mode required but not
	 * in force */
	rc = smb_connect_share(o, ctx, &facts, error, sizeof(error));
	smbc_free_context(ctx, 1);
	if (rc < 0)
		warnx_("%s", error);
	else
		smb_secure_note(&facts);
	return rc;
}
