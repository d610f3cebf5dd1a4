/*
 * trace2load.c - dbench-trace2load: make a dbench loadfile from a capture
 * of NFSv3 or SMB2 traffic.
 *
 * Users used to make NFS loadfiles with an unmaintained script over tshark's
 * text output and then edit the result by hand: delete what the script did
 * not understand, replace server:/export with /clients/client1, add the
 * Deltree/MKDIR prologue.  This program does all of it.  It runs tshark
 * (never a shell) to dissect the capture into JSON, pairs each call with
 * its reply, and writes one loadfile line per call with the status the
 * server returned.  What it cannot express stays in the file as a comment
 * and is counted in the summary on stderr.
 *
 * Exit status: 0 done; 1 tshark failed (a truncated or corrupt capture: the
 * loadfile holds what came before the damage) or no call was found;
 * 2 bad options, a missing capture or a missing tshark.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <popt.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2l.h"

#define PROGNAME "dbench-trace2load"
#define DEFAULT_REPLY_TIMEOUT_NS (300ULL * 1000000000ULL)
#define DEFAULT_MAX_WAITING 65536	/* calls queued behind one without a reply */
#define MAX_MESSAGES 256	/* RPC or SMB2 messages in one frame */

extern char **environ;

/* ---- small helpers ---- */

bool parse_addr(const char *text, uint8_t addr[16])
{
	struct in_addr a4;

	memset(addr, 0, 16);
	if (!text)
		return false;
	if (inet_pton(AF_INET, text, &a4) == 1) {
		addr[10] = addr[11] = 0xff;
		memcpy(addr + 12, &a4, 4);
		return true;
	}
	return inet_pton(AF_INET6, text, addr) == 1;
}

const char *endpoint_addr_text(const struct endpoint *e, char *buf)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(e->addr, mapped, 12) == 0)
		inet_ntop(AF_INET, e->addr + 12, buf, 64);
	else
		inet_ntop(AF_INET6, e->addr, buf, 64);
	return buf;
}

/* ---- which calls ---- */

bool conversation_wanted(struct t2l *t, const struct conversation *c)
{
	const struct t2l_options *o = t->opt;

	if (o->have_client && memcmp(c->client.addr, o->client, 16) != 0)
		return false;
	if (o->have_server && memcmp(c->server.addr, o->server, 16) != 0)
		return false;
	if (!t->have_first_client) {
		t->first_client = c->client;
		t->have_first_client = true;
	} else if (memcmp(t->first_client.addr, c->client.addr, 16) != 0) {
		t->multiple_clients = true;
	}
	return true;
}

bool protocol_wanted(struct t2l *t, enum t2l_protocol p)
{
	if (t->protocol == PROTO_AUTO)
		t->protocol = p;
	if (t->protocol == p)
		return true;
	t->n.skipped[SKIP_OTHER_PROTOCOL]++;
	return false;
}

/* ---- options ---- */

enum opt_code {
	OPT_NFS_PORT = 1, OPT_SMB_PORT, OPT_CLIENT, OPT_SERVER, OPT_PROTOCOL, OPT_VERSION,
	OPT_MAX_WAITING,
};

static void usage_error(poptContext pc, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void usage_error(poptContext pc, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROGNAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s --help)\n", PROGNAME);
	poptFreeContext(pc);
	exit(2);
}

static int parse_port(poptContext pc, const char *opt, const char *arg)
{
	uint64_t v;

	if (!parse_number(arg, &v) || v == 0 || v > 65535)
		usage_error(pc, "%s: '%s' is not a TCP/UDP port (1-65535)", opt, arg ? arg : "");
	return (int)v;
}

static void parse_options(int argc, const char **argv, struct t2l_options *o)
{
	char *output = NULL, *root = NULL, *tshark = NULL, *arg = NULL;
	int zero = 0, header = 1, gz = 0, quiet = 0;
	struct poptOption table[] = {
		{ "output", 'o', POPT_ARG_STRING, &output, 0,
		  "write the loadfile to FILE (default: standard output)", "FILE" },
		{ "client", 0, POPT_ARG_STRING, &arg, OPT_CLIENT,
		  "convert only the calls of this client address", "IP" },
		{ "server", 0, POPT_ARG_STRING, &arg, OPT_SERVER,
		  "convert only the calls to this server address", "IP" },
		{ "root", 0, POPT_ARG_STRING, &root, 0,
		  "the server path that becomes /clients/client1: [host:]/export[/dir] for NFS, "
		  "[\\\\server\\]share[\\dir] for SMB (default: the mounted export, the tree-connected share)", "PATH" },
		{ "zero-timestamps", 0, POPT_ARG_NONE, &zero, 0,
		  "write no timestamps: replay as fast as the server answers", NULL },
		{ "header", 0, POPT_ARG_VAL, &header, 1,
		  "start with the Deltree/MKDIR prologue that makes the file re-runnable (default)", NULL },
		{ "no-header", 0, POPT_ARG_VAL, &header, 0,
		  "no prologue (for a loadfile that works on data prepared on the server)", NULL },
		{ "gzip", 'z', POPT_ARG_NONE, &gz, 0, "compress the loadfile with gzip", NULL },
		{ "protocol", 0, POPT_ARG_STRING, &arg, OPT_PROTOCOL,
		  "nfs or smb: which to convert when a capture has both (default: the first seen)", "PROTO" },
		{ "nfs-port", 0, POPT_ARG_STRING, &arg, OPT_NFS_PORT,
		  "the NFS server listens on this non-standard TCP/UDP port (repeatable)", "PORT" },
		{ "smb-port", 0, POPT_ARG_STRING, &arg, OPT_SMB_PORT,
		  "the SMB server listens on this non-standard TCP port (repeatable)", "PORT" },
		{ "max-waiting", 0, POPT_ARG_STRING, &arg, OPT_MAX_WAITING,
		  "give up the reply of a call once this many later calls wait behind it to be written "
		  "in call order (default 65536; bounds the memory a lost reply holds)", "CALLS" },
		{ "tshark", 0, POPT_ARG_STRING, &tshark, 0, "the tshark program (default: tshark in PATH)", "PROGRAM" },
		{ "quiet", 'q', POPT_ARG_NONE, &quiet, 0, "no summary on stderr", NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "print the version and exit", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc = poptGetContext(PROGNAME, argc, argv, table, 0);
	const char *capture, *extra;
	int rc;

	poptSetOtherOptionHelp(pc, "[OPTION...] CAPTURE.pcap[ng] > LOADFILE");
	o->header = true;
	o->reply_timeout_ns = DEFAULT_REPLY_TIMEOUT_NS;
	o->max_waiting = DEFAULT_MAX_WAITING;
	while ((rc = poptGetNextOpt(pc)) > 0) {
		switch (rc) {
		case OPT_CLIENT:
			o->client_text = xstrdup(arg);
			if (!parse_addr(arg, o->client))
				usage_error(pc, "--client: '%s' is not an IPv4 or IPv6 address", arg);
			o->have_client = true;
			break;
		case OPT_SERVER:
			o->server_text = xstrdup(arg);
			if (!parse_addr(arg, o->server))
				usage_error(pc, "--server: '%s' is not an IPv4 or IPv6 address", arg);
			o->have_server = true;
			break;
		case OPT_PROTOCOL:
			if (strcmp(arg, "nfs") == 0)
				o->protocol = PROTO_NFS;
			else if (strcmp(arg, "smb") == 0 || strcmp(arg, "smb2") == 0)
				o->protocol = PROTO_SMB2;
			else if (strcmp(arg, "auto") == 0)
				o->protocol = PROTO_AUTO;
			else
				usage_error(pc, "--protocol: '%s' is not nfs, smb or auto", arg);
			break;
		case OPT_NFS_PORT:
			if (o->n_nfs_ports == (int)T2L_ARRAY_SIZE(o->nfs_ports))
				usage_error(pc, "--nfs-port: at most %zu ports", T2L_ARRAY_SIZE(o->nfs_ports));
			o->nfs_ports[o->n_nfs_ports++] = parse_port(pc, "--nfs-port", arg);
			break;
		case OPT_SMB_PORT:
			if (o->n_smb_ports == (int)T2L_ARRAY_SIZE(o->smb_ports))
				usage_error(pc, "--smb-port: at most %zu ports", T2L_ARRAY_SIZE(o->smb_ports));
			o->smb_ports[o->n_smb_ports++] = parse_port(pc, "--smb-port", arg);
			break;
		case OPT_MAX_WAITING: {
			uint64_t v;

			if (!parse_number(arg, &v) || v < 1 || v > 100000000)
				usage_error(pc, "--max-waiting: '%s' is not a number of calls (1-100000000)",
					    arg ? arg : "");
			o->max_waiting = v;
			break;
		}
		case OPT_VERSION:
			printf("%s (dbench) %s\n", PROGNAME, PACKAGE_VERSION);
			poptFreeContext(pc);
			exit(0);
		default:
			break;
		}
		free(arg);
		arg = NULL;
	}
	if (rc < -1)
		usage_error(pc, "%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
	capture = poptGetArg(pc);
	if (!capture)
		usage_error(pc, "no capture file given");
	if ((extra = poptGetArg(pc)))
		usage_error(pc, "one capture file at a time ('%s' is one too many)", extra);
	o->capture = xstrdup(capture);
	if (root) {
		if (!*root || strlen(root) > 1000)
			usage_error(pc, "--root: an empty or overlong path");
		for (const unsigned char *p = (const unsigned char *)root; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				usage_error(pc, "--root: a control character in the path");
		o->root = xstrdup(root);
	}
	if (output) {
		if (!*output)
			usage_error(pc, "--output: an empty file name");
		o->output = xstrdup(output);
	}
	o->tshark = xstrdup(tshark ? tshark : "tshark");
	o->zero_timestamps = zero;
	o->header = header;
	o->gzip = gz;
	o->quiet = quiet;
	free(output);
	free(root);
	free(tshark);
	poptFreeContext(pc);
}

static void free_options(struct t2l_options *o)
{
	free((char *)o->capture);
	free((char *)o->output);
	free((char *)o->tshark);
	free((char *)o->root);
	free((char *)o->client_text);
	free((char *)o->server_text);
}

/* ---- tshark ---- */

/* The tshark program to run: the name searched in PATH, or NULL. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len > 0 && (size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return xstrdup(buf);
		path += len + (path[len] == ':');
	}
	return NULL;
}

struct tshark {
	pid_t pid;		/* the child */
	int out;		/* its stdout (read end) */
	FILE *err;		/* its stderr (a temporary file) */
	char *argv[160];	/* its arguments */
	int argc;
};

static void add_arg(struct tshark *ts, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_arg(struct tshark *ts, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (ts->argc + 1 >= (int)T2L_ARRAY_SIZE(ts->argv))
		die(EXIT_USAGE, "too many tshark arguments");
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ts->argv[ts->argc++] = xstrdup(buf);
}

static void build_filter(const struct t2l_options *o, char *buf, size_t size)
{
	char a[64];
	size_t n = (size_t)snprintf(buf, size, "(rpc || smb2 || smb || tcp.analysis.lost_segment)");

	/* the addresses are parsed ones, printed again: nothing else gets in */
	if (o->have_client) {
		struct endpoint e;

		memcpy(e.addr, o->client, 16);
		endpoint_addr_text(&e, a);
		n += (size_t)snprintf(buf + n, size - n, " && (%s.addr == %s)", strchr(a, ':') ? "ipv6" : "ip", a);
	}
	if (o->have_server && n < size) {
		struct endpoint e;

		memcpy(e.addr, o->server, 16);
		endpoint_addr_text(&e, a);
		snprintf(buf + n, size - n, " && (%s.addr == %s)", strchr(a, ':') ? "ipv6" : "ip", a);
	}
}

static void tshark_spawn(struct tshark *ts, const char *program);

static void tshark_start(struct tshark *ts, const struct t2l_options *o, const char *program)
{
	char filter[512];

	ts->argc = 0;
	add_arg(ts, "%s", o->tshark);
	add_arg(ts, "-r");
	ts->argv[ts->argc++] = xstrdup(o->capture);
	add_arg(ts, "-n");
	add_arg(ts, "-T");
	add_arg(ts, "json");
	add_arg(ts, "-J");
	add_arg(ts, "frame ip ipv6 tcp udp rpc nfs mount nlm smb2 smb");
	/*
	 * The well-known ports, decoded as such whatever the other end's port:
	 * NFS clients call from reserved ports, and tshark would otherwise
	 * dissect a connection from port 705 as AgentX (SNMP), say.
	 */
	add_arg(ts, "-d");
	add_arg(ts, "tcp.port==2049,rpc");
	add_arg(ts, "-d");
	add_arg(ts, "udp.port==2049,rpc");
	add_arg(ts, "-d");
	add_arg(ts, "tcp.port==445,nbss");
	/* a capture's segments out of order still make whole messages */
	add_arg(ts, "-o");
	add_arg(ts, "tcp.reassemble_out_of_order:TRUE");
	for (int i = 0; i < o->n_nfs_ports; i++) {
		add_arg(ts, "-d");
		add_arg(ts, "tcp.port==%d,rpc", o->nfs_ports[i]);
		add_arg(ts, "-d");
		add_arg(ts, "udp.port==%d,rpc", o->nfs_ports[i]);
	}
	for (int i = 0; i < o->n_rpc_ports; i++) {
		add_arg(ts, "-d");
		add_arg(ts, "tcp.port==%d,rpc", o->rpc_ports[i]);
		add_arg(ts, "-d");
		add_arg(ts, "udp.port==%d,rpc", o->rpc_ports[i]);
	}
	for (int i = 0; i < o->n_smb_ports; i++) {
		add_arg(ts, "-d");
		add_arg(ts, "tcp.port==%d,nbss", o->smb_ports[i]);
	}
	build_filter(o, filter, sizeof(filter));
	add_arg(ts, "-Y");
	add_arg(ts, "%s", filter);
	tshark_spawn(ts, program);
}

/* Run tshark with the arguments in ts->argv: its stdout in ts->out. */
static void tshark_spawn(struct tshark *ts, const char *program)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], rc;

	ts->argv[ts->argc] = NULL;
	ts->err = tmpfile();
	if (!ts->err)
		die(EXIT_USAGE, "cannot make a temporary file for tshark's messages: %s", strerror(errno));
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die(EXIT_USAGE, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fileno(ts->err), 2);
	rc = posix_spawn(&ts->pid, program, &fa, NULL, ts->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0)
		die(EXIT_USAGE, "cannot run %s: %s", program, strerror(rc));
	ts->out = pipefd[0];
}

/* tshark's messages, without the warning about running as root, joined on
 * one line (at most size bytes). */
static void tshark_messages(struct tshark *ts, char *buf, size_t size)
{
	char line[1024];
	size_t n = 0;

	buf[0] = '\0';
	rewind(ts->err);
	while (fgets(line, sizeof(line), ts->err) && n + 2 < size) {
		char *p = line;

		line[strcspn(line, "\r\n")] = '\0';
		if (!*line || strstr(line, "This could be dangerous"))
			continue;
		if (strncmp(p, "tshark: ", 8) == 0)
			p += 8;
		for (unsigned char *q = (unsigned char *)p; *q; q++)
			if (*q < 0x20 || *q == 0x7f)
				*q = '?';
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", p);
	}
}

/* Wait for tshark; 0 when it exited 0, else -1 with its complaint in msg. */
static int tshark_finish(struct tshark *ts, bool kill_it, char *msg, size_t size)
{
	int status, rc = 0;

	close(ts->out);
	if (kill_it)
		kill(ts->pid, SIGTERM);
	while (waitpid(ts->pid, &status, 0) < 0)
		if (errno != EINTR)
			die(EXIT_USAGE, "waitpid: %s", strerror(errno));
	tshark_messages(ts, msg, size);
	if (kill_it)
		rc = -1;
	else if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0)
		rc = -1;
	if (rc < 0 && !msg[0] && !kill_it)
		snprintf(msg, size, WIFSIGNALED(status) ? "killed by signal %d" : "exited with status %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	fclose(ts->err);
	for (int i = 0; i < ts->argc; i++)
		free(ts->argv[i]);
	return rc;
}

/* A port of a portmapper reply: "2049" (GETPORT) or a universal address
 * "h1.h2.h3.h4.p1.p2" / "::1.p1.p2" (rpcbind GETADDR); 0 if neither. */
static int portmap_port(const char *tok)
{
	const char *lo, *hi;
	long a, b;

	if (!*tok)
		return 0;
	if (strspn(tok, "0123456789") == strlen(tok))
		return strlen(tok) <= 5 && atol(tok) < 65536 ? (int)atol(tok) : 0;
	lo = strrchr(tok, '.');
	if (!lo || lo == tok)
		return 0;
	for (hi = lo - 1; hi > tok && hi[-1] != '.'; hi--)
		;
	if (hi == tok || lo - hi < 1 || lo - hi > 3 || strlen(lo + 1) < 1 || strlen(lo + 1) > 3 ||
	    strspn(hi, "0123456789") != (size_t)(lo - hi) || strspn(lo + 1, "0123456789") != strlen(lo + 1))
		return 0;
	a = atol(hi);
	b = atol(lo + 1);
	return a < 256 && b < 256 ? (int)(a * 256 + b) : 0;
}

static void add_rpc_port(struct t2l_options *o, int port)
{
	if (port <= 0 || port == 2049 || port == 111 || port == 445 || port == 139 ||
	    o->n_rpc_ports == (int)T2L_ARRAY_SIZE(o->rpc_ports))
		return;
	for (int i = 0; i < o->n_nfs_ports; i++)
		if (o->nfs_ports[i] == port)
			return;
	for (int i = 0; i < o->n_smb_ports; i++)
		if (o->smb_ports[i] == port)
			return;
	for (int i = 0; i < o->n_rpc_ports; i++)
		if (o->rpc_ports[i] == port)
			return;
	o->rpc_ports[o->n_rpc_ports++] = port;
}

/*
 * The ports the capture's portmapper replies (GETPORT, GETADDR) gave out:
 * NLM, MOUNT, NSM and the like listen where the portmapper says, and a
 * connection to such a port from a reserved port that tshark knows (802,
 * 853, 873, ...) is otherwise dissected as that port's protocol, and its
 * calls are lost.  Decoding the server's port as RPC settles it (tshark
 * tries the port the SYN went to first).  A failure here is not an
 * error: the main pass reports what is wrong with the capture.
 */
static void learn_rpc_ports(struct t2l_options *o, const char *program)
{
	struct tshark ts = { 0 };
	char line[1024], msg[256];
	FILE *f;

	add_arg(&ts, "%s", o->tshark);
	add_arg(&ts, "-r");
	ts.argv[ts.argc++] = xstrdup(o->capture);
	add_arg(&ts, "-n");
	add_arg(&ts, "-T");
	add_arg(&ts, "fields");
	add_arg(&ts, "-e");
	add_arg(&ts, "portmap.port");
	add_arg(&ts, "-e");
	add_arg(&ts, "portmap.uaddr");
	add_arg(&ts, "-Y");
	add_arg(&ts, "portmap && rpc.msgtyp == 1");
	tshark_spawn(&ts, program);
	f = fdopen(dup(ts.out), "r");
	while (f && fgets(line, sizeof(line), f)) {
		for (char *save = NULL, *tok = strtok_r(line, "\t,\r\n", &save); tok;
		     tok = strtok_r(NULL, "\t,\r\n", &save))
			add_rpc_port(o, portmap_port(tok));
	}
	if (f)
		fclose(f);
	tshark_finish(&ts, false, msg, sizeof(msg));
}

/* ---- packets ---- */

static bool parse_epoch(const char *s, int64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	size_t i = 0;

	if (!s || !*s)
		return false;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > 100000000000ULL)
			return false;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (s[i] == '.') {
		for (i++; s[i] >= '0' && s[i] <= '9'; i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
		}
	}
	if (s[i])
		return false;
	*ns = (int64_t)(sec * 1000000000ULL + frac);
	return true;
}

static void read_ports(const struct jnode *layer, const char *src, const char *dst, struct packet *p)
{
	uint64_t a, b;

	if (jnum(layer, src, &a) && jnum(layer, dst, &b) && a <= 65535 && b <= 65535) {
		p->src.port = (uint16_t)a;
		p->dst.port = (uint16_t)b;
	}
}

/* An RPC message of a frame and its program's tree. */
struct message {
	const struct jnode *node;	/* the rpc or smb2 layer */
	const struct jnode *prog;	/* rpc: the nfs/mount/nlm layer after it */
};

static void process_packet(struct t2l *t, const struct jnode *pkt, int64_t *last_ns)
{
	const struct jnode *layers = jchild(jchild(pkt, "_source"), "layers");
	struct message msgs[MAX_MESSAGES];
	struct packet p = { .t_ns = *last_ns };
	bool have_src = false, have_dst = false;
	int n = 0;

	if (!layers)
		return;
	t->n.packets++;
	for (const struct jnode *l = layers->first; l; l = l->next) {
		if (strcmp(l->key, "frame") == 0) {
			jnum(l, "frame.number", &p.frame);
			parse_epoch(jstr(l, "frame.time_epoch"), &p.t_ns);
		} else if (strcmp(l->key, "ip") == 0) {
			have_src = parse_addr(jstr(l, "ip.src"), p.src.addr);
			have_dst = parse_addr(jstr(l, "ip.dst"), p.dst.addr);
		} else if (strcmp(l->key, "ipv6") == 0) {
			have_src = parse_addr(jstr(l, "ipv6.src"), p.src.addr);
			have_dst = parse_addr(jstr(l, "ipv6.dst"), p.dst.addr);
		} else if (strcmp(l->key, "tcp") == 0) {
			read_ports(l, "tcp.srcport", "tcp.dstport", &p);
			if (jfind(l, "tcp.analysis.lost_segment"))
				t->n.lost_segments++;
		} else if (strcmp(l->key, "udp") == 0) {
			read_ports(l, "udp.srcport", "udp.dstport", &p);
		} else if ((strcmp(l->key, "rpc") == 0 || strcmp(l->key, "smb2") == 0) && n < MAX_MESSAGES) {
			msgs[n++] = (struct message){ .node = l };
		} else if ((strcmp(l->key, "nfs") == 0 || strcmp(l->key, "mount") == 0 || strcmp(l->key, "nlm") == 0) &&
			   n > 0 && strcmp(msgs[n - 1].node->key, "rpc") == 0 && !msgs[n - 1].prog) {
			msgs[n - 1].prog = l;
		} else if (strcmp(l->key, "smb") == 0) {
			t->n.smb1++;
		}
	}
	p.have_addr = have_src && have_dst;
	*last_ns = p.t_ns;
	for (int i = 0; i < n; i++) {
		if (strcmp(msgs[i].node->key, "rpc") == 0)
			nfs_message(t, &p, msgs[i].node, msgs[i].prog);
		else
			smb2_message(t, &p, msgs[i].node);
	}
	queue_flush(t, p.t_ns);
}

/* ---- output and summary ---- */

static void open_output(struct t2l *t, const struct t2l_options *o)
{
	int fd = 1;

	if (o->output) {
		fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die(EXIT_USAGE, "%s: %s", o->output, strerror(errno));
	}
	if (o->gzip) {
		t->gz = gzdopen(fd, "wb6");
		if (!t->gz)
			die(EXIT_USAGE, "cannot start gzip output");
	} else {
		t->out = fd == 1 ? stdout : fdopen(fd, "w");
		if (!t->out)
			die(EXIT_USAGE, "%s: %s", o->output, strerror(errno));
	}
}

static int close_output(struct t2l *t)
{
	int rc = 0;

	if (t->gz)
		rc = gzclose(t->gz) == Z_OK ? 0 : -1;
	else if (t->out)
		rc = fclose(t->out) == 0 ? 0 : -1;
	return t->out_error ? -1 : rc;
}

static void summary(struct t2l *t, FILE *f)
{
	const struct t2l_counts *n = &t->n;
	uint64_t skipped = 0;
	const char *sep = "";

	for (int i = 0; i < SKIP_REASONS; i++)
		if (i != SKIP_OTHER_PROTOCOL)
			skipped += n->skipped[i];
	fprintf(f, "%s: %s: %s, %llu calls: %llu loadfile operations, %llu skipped as comments; dropped %llu NULL calls, %llu unmatched replies\n",
		PROGNAME, t->opt->capture,
		t->protocol == PROTO_SMB2 ? "SMB2" : t->protocol == PROTO_NFS ? "NFSv3" : "no NFS or SMB2",
		(unsigned long long)n->calls, (unsigned long long)n->lines, (unsigned long long)skipped,
		(unsigned long long)n->null_calls, (unsigned long long)n->unmatched_replies);
	if (skipped) {
		fprintf(f, "  skipped:");
		for (int i = 0; i < SKIP_REASONS; i++) {
			if (i == SKIP_OTHER_PROTOCOL || !n->skipped[i])
				continue;
			fprintf(f, "%s %llu %s", sep, (unsigned long long)n->skipped[i], skip_reason_text(i));
			sep = ",";
		}
		fputc('\n', f);
	}
	if (n->retransmissions || n->interim || n->notifications)
		fprintf(f, "  also passed over: %llu retransmitted calls, %llu interim responses, %llu server notifications\n",
			(unsigned long long)n->retransmissions, (unsigned long long)n->interim,
			(unsigned long long)n->notifications);
	if (n->skipped[SKIP_OTHER_PROTOCOL])
		fprintf(f, "  note: %llu %s calls were left out: one protocol a loadfile (choose with --protocol)\n",
			(unsigned long long)n->skipped[SKIP_OTHER_PROTOCOL], t->protocol == PROTO_NFS ? "SMB2" : "NFS");
	if (n->smb1)
		fprintf(f, "  note: %llu SMB1 messages were not converted (only SMB2/3 is)\n", (unsigned long long)n->smb1);
	if (n->filtered)
		fprintf(f, "  note: %llu messages of other hosts were left out (--client/--server)\n",
			(unsigned long long)n->filtered);
	if (n->lost_segments)
		fprintf(f, "  warning: %llu gaps in TCP connections (segments the capture lost): the calls after a gap in its connection are missing; capture with a larger buffer (dumpcap -B 256)\n",
			(unsigned long long)n->lost_segments);
	if (t->multiple_clients)
		fprintf(f, "  note: the calls come from more than one client, merged in time order; pick one with --client\n");
	if (t->protocol == PROTO_NFS)
		nfs_summary(t, f);
	else if (t->protocol == PROTO_SMB2)
		smb2_summary(t, f);
}

static void apply_root(struct t2l *t, const struct t2l_options *o)
{
	bool nfs_ok, smb_ok;

	if (!o->root)
		return;
	smb_ok = o->protocol != PROTO_NFS && smb2_set_root_option(t, o->root);
	nfs_ok = o->protocol != PROTO_SMB2 && nfs_set_root_option(t, o->root);
	if (!nfs_ok && !smb_ok)
		die(EXIT_USAGE, "--root: '%s' is neither [host:]/export[/dir] (NFS) nor [\\\\server\\]share[\\dir] (SMB)", o->root);
}

static void check_capture(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(EXIT_USAGE, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		die(EXIT_USAGE, "%s: %s", path, strerror(errno));
	close(fd);
	if (S_ISDIR(st.st_mode))
		die(EXIT_USAGE, "%s: is a directory, not a capture file", path);
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		die(EXIT_USAGE, "%s: is empty, not a capture file", path);
}

int main(int argc, const char **argv)
{
	struct t2l_options o = { 0 };
	struct t2l t = { .opt = &o };
	struct json_reader *jr;
	struct tshark ts = { 0 };
	const struct jnode *pkt;
	char *program, msg[2048];
	int64_t last_ns = 0;
	int rc, status = 0;

	util_set_progname(PROGNAME);
	signal(SIGPIPE, SIG_DFL);
	parse_options(argc, argv, &o);
	check_capture(o.capture);
	program = find_program(o.tshark);
	if (!program) {
		if (strcmp(o.tshark, "tshark") == 0)
			die(EXIT_USAGE, "tshark is not installed; %s reads captures through it (Debian: apt-get install tshark)",
			    PROGNAME);
		die(EXIT_USAGE, "--tshark: %s is not an executable program", o.tshark);
	}
	t.protocol = o.protocol;
	hmap_init(&t.pending);
	nfs_init(&t);
	smb2_init(&t);
	apply_root(&t, &o);
	open_output(&t, &o);

	learn_rpc_ports(&o, program);
	tshark_start(&ts, &o, program);
	jr = json_open(ts.out);
	while ((rc = json_next(jr, &pkt)) > 0)
		process_packet(&t, pkt, &last_ns);
	if (rc < 0) {
		char tmsg[1024];

		tshark_finish(&ts, true, tmsg, sizeof(tmsg));
		snprintf(msg, sizeof(msg), "%s%s%s", json_error(jr), tmsg[0] ? "; tshark: " : "", tmsg);
		status = 1;
	} else if (tshark_finish(&ts, false, msg, sizeof(msg)) < 0) {
		status = 1;
	}
	json_close(jr);
	queue_drain(&t);
	if (status) {
		if (t.started)
			out_comment(&t, "ERROR: the capture could not be read to its end; the calls above are those before the damage.");
		fprintf(stderr, "%s: %s: %s%s\n", PROGNAME, o.capture, msg[0] ? "" : "tshark failed",
			msg[0] ? msg : "");
	} else if (t.n.calls == 0) {
		fprintf(stderr, "%s: %s: no NFS or SMB2 calls found%s (a server on a non-standard port needs --nfs-port or --smb-port)\n",
			PROGNAME, o.capture, o.have_client || o.have_server ? " for --client/--server" : "");
		status = 1;
	}
	if (close_output(&t) < 0) {
		fprintf(stderr, "%s: writing %s failed\n", PROGNAME, o.output ? o.output : "standard output");
		status = status ? status : 1;
	}
	if (!o.quiet && t.n.calls)
		summary(&t, stderr);
	nfs_free(&t);
	smb2_free(&t);
	hmap_free(&t.pending, NULL);
	free(program);
	free_options(&o);
	return status;
}
