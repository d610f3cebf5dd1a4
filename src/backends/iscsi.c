/*
 * iscsi.c - the iscsi backend (-B iscsi --iscsi=iscsi://[USER%PASSWORD@]
 * HOST[:PORT]/IQN/LUN): the loadfile's SCSI commands sent to an iSCSI
 * target through libiscsi, one at a time per client, each client with a
 * session of its own (initiator name NAME-N for client N).  The CDBs and
 * the reading of status and sense are scsi.c's, shared with the scsi
 * backend.  A session that breaks is not reconnected: the client stops with
 * libiscsi's message, and commands time out after ISCSI_TIMEOUT seconds.
 *
 * Every command goes through libiscsi's asynchronous call
 * (iscsi_scsi_command_async) and ends in one callback (on_task).  A client
 * of its own process waits for it in a poll loop (iscsi_wait); with
 * --clients-per-process N the process's clients run on the event loop
 * (backend.h, "the asynchronous form"): a session is a source, its
 * iscsi_service() runs when its socket is ready, and the callback completes
 * the client whose command ended, so that the process keeps a command of
 * each client in flight.  --iscsi-session shared gives the process's
 * clients one session (one login, as a real initiator multiplexes its
 * commands on one), its commands queued on it together.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "backend.h"
#include "backends/common.h"
#include "scsi.h"
#include "status.h"
#include "util.h"

#define ISCSI_TIMEOUT 30	/* seconds a command may take */

/* The iscsi backend's option block. */
struct iscsi_options {
	const char *url;		/* --iscsi */
	const char *initiator;		/* --iscsi-initiatorname */
	const char *session;		/* --iscsi-session client|shared */
	int shared;			/* derived: --iscsi-session shared */
};

static const struct backend_option iscsi_options[] = {
	{ .name = "iscsi", .type = BOPT_STRING, .offset = offsetof(struct iscsi_options, url),
	  .arg_name = "URL", .help = "the LUN, iscsi://[USER%PASSWORD@]HOST[:PORT]/IQN/LUN" },
	{ .name = "iscsi-initiatorname", .type = BOPT_STRING,
	  .offset = offsetof(struct iscsi_options, initiator), .def = "iqn.2026-01.org.dbench:client",
	  .arg_name = "NAME", .help = "client N logs in as NAME-N (default iqn.2026-01.org.dbench:client)" },
	{ .name = "iscsi-session", .type = BOPT_STRING, .offset = offsetof(struct iscsi_options, session),
	  .def = "client", .arg_name = "MODE",
	  .help = "client (default): a session a client; shared: the clients of a process "
		  "(--clients-per-process) share one, their commands in flight on it together" },
	{ .name = NULL },
};

/* libiscsi's messages may span lines: make one. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

/* A logged-in session: a client's own, or the one its process's clients
 * share (--iscsi-session shared, engine_shared()). */
struct iscsi_session {
	struct iscsi_context *iscsi;
	int lun_number;
	struct scsi_lun lun;
	struct source src;	/* on the event loop (c->engine) */
	int users;		/* clients on it */
	int dead;		/* failed: nothing more is sent on it */
	int stuck;		/* a command of it was given up (expire): no
				   logout, the target may not answer one */
	char why[200];		/* why it failed */
};

struct iscsi_client {
	struct iscsi_session *sess;
	struct client *client;	/* NULL in the parent's probe */
	unsigned char *buf;	/* SCSI_MAX_XFER bytes, in and out */
	struct iscsi_data out;	/* the data a WRITE sends */
	struct scsi_task *task;	/* the command in flight, or NULL */
	int waiting;		/* 1 while submit or iscsi_wait runs: on_task
				   leaves the result here, not to the engine */
	int done;		/* the result is in: */
	uint32_t status;	/* its status (STATUS_FATAL: error says why) */
	uint32_t moved;		/* bytes in or out */
	uint32_t xfer_len;	/* bytes asked for */
	int dir;		/* SCSI_DIR_* */
	char error[256];
};

/* The session failed (libiscsi's error, or why): nothing more is sent on
 * it; the source is off the loop (a broken socket would be ready for
 * ever). */
static void session_failed(struct iscsi_session *sess, const char *why)
{
	if (!sess->dead)
		snprintf(sess->why, sizeof(sess->why), "iscsi: the session to the target failed (%s)",
			 why ? why : iscsi_get_error(sess->iscsi));
	one_line(sess->why);
	sess->dead = 1;
	if (sess->src.engine)
		source_unwatch(&sess->src);
}

/* The status a finished task ended with (scsi.h), or STATUS_FATAL when
 * the session failed; the bytes it moved in ic->moved. */
static uint32_t task_status(struct iscsi_client *ic, struct scsi_task *task)
{
	if (task->status & ~0xFF) {
		/* a session error (cancelled, timed out), not a SCSI status */
		session_failed(ic->sess, NULL);
		snprintf(ic->error, sizeof(ic->error), "%s", ic->sess->why);
		return STATUS_FATAL;
	}
	ic->moved = ic->xfer_len;
	if (ic->dir == SCSI_DIR_IN && task->residual_status == SCSI_RESIDUAL_UNDERFLOW &&
	    (uint32_t)task->residual <= ic->xfer_len)
		ic->moved = ic->xfer_len - (uint32_t)task->residual;
	if (task->status == SCSI_STATUS_CHECK_CONDITION) {
		/* libiscsi keeps the sense data behind its 2-byte length */
		if (task->datain.size > 2)
			return scsi_code(SCSI_CHECK_CONDITION, task->datain.data + 2,
					 (size_t)task->datain.size - 2);
		return SCSI_CODE(SCSI_CHECK_CONDITION, task->sense.key, task->sense.ascq);
	}
	return (uint32_t)task->status;
}

/* libiscsi's callback, for every command: its result goes to whoever
 * waits for it (submit, iscsi_wait), or completes the client's op on the
 * event loop.  A task the client no longer waits for (expired) is only
 * freed. */
static void on_task(struct iscsi_context *iscsi, int status, void *command_data, void *private_data)
{
	struct iscsi_client *ic = private_data;
	struct scsi_task *task = command_data;
	uint32_t st;

	(void)iscsi;
	(void)status;
	if (task != ic->task) {
		scsi_free_scsi_task(task);
		return;
	}
	ic->task = NULL;
	st = task_status(ic, task);
	scsi_free_scsi_task(task);
	if (ic->waiting) {
		ic->status = st;
		ic->done = 1;
		return;
	}
	if (st == STATUS_FATAL)
		snprintf(ic->client->error, sizeof(ic->client->error), "%s", ic->error);
	else
		ic->client->bytes = ic->moved;
	client_complete(ic->client, st);
}

/* Queue cmd on the session (on_task reports its end); 0, or -1 with
 * ic->error set. */
static int iscsi_start(struct iscsi_client *ic, const struct scsi_cmd *cmd)
{
	struct iscsi_session *sess = ic->sess;
	struct scsi_task *task;
	int xfer_dir = cmd->dir == SCSI_DIR_IN ? SCSI_XFER_READ :
		       cmd->dir == SCSI_DIR_OUT ? SCSI_XFER_WRITE : SCSI_XFER_NONE;

	if (sess->dead) {
		snprintf(ic->error, sizeof(ic->error), "%s", sess->why);
		return -1;
	}
	task = scsi_create_task(cmd->cdb_len, (unsigned char *)cmd->cdb, xfer_dir, (int)cmd->xfer_len);
	if (!task) {
		snprintf(ic->error, sizeof(ic->error), "iscsi: out of memory");
		return -1;
	}
	if (cmd->dir == SCSI_DIR_IN && scsi_task_add_data_in_buffer(task, (int)cmd->xfer_len, ic->buf) < 0) {
		scsi_free_scsi_task(task);
		snprintf(ic->error, sizeof(ic->error), "iscsi: out of memory");
		return -1;
	}
	ic->out = (struct iscsi_data){ 0 };
	if (cmd->dir == SCSI_DIR_OUT) {
		ic->out.size = cmd->xfer_len;
		ic->out.data = ic->buf;
	}
	ic->dir = cmd->dir;
	ic->xfer_len = cmd->xfer_len;
	ic->moved = 0;
	ic->done = 0;
	ic->task = task;
	if (iscsi_scsi_command_async(sess->iscsi, sess->lun_number, task, on_task,
				     cmd->dir == SCSI_DIR_OUT ? &ic->out : NULL, ic) != 0) {
		ic->task = NULL;
		scsi_free_scsi_task(task);
		session_failed(sess, NULL);
		snprintf(ic->error, sizeof(ic->error), "%s", sess->why);
		return -1;
	}
	return 0;
}

/*
 * Wait for the command in flight to end (ic->done).  libiscsi's own
 * iscsi_scsi_command_sync polls for POLLOUT before every command; the
 * socket is as good as always writable, so the command is written at once
 * and the loop polls only for the reply: one system call less a command.
 */
static void iscsi_wait(struct iscsi_client *ic)
{
	struct iscsi_context *iscsi = ic->sess->iscsi;

	if (iscsi_service(iscsi, POLLOUT) < 0)
		session_failed(ic->sess, NULL);
	while (!ic->done && !ic->sess->dead) {
		struct pollfd pfd = { .fd = iscsi_get_fd(iscsi), .events = (short)iscsi_which_events(iscsi) };
		int n = poll(&pfd, 1, 1000);	/* a second: libiscsi's timeouts run */

		if (n < 0 && errno != EINTR) {
			session_failed(ic->sess, strerror(errno));
			break;
		}
		if (iscsi_service(iscsi, n > 0 ? pfd.revents : 0) < 0)
			session_failed(ic->sess, NULL);
	}
	if (!ic->done) {
		/* the session failed with the command still queued: libiscsi
		 * hands it back (on_task) as it cancels it */
		iscsi_scsi_cancel_all_tasks(iscsi);
		if (!ic->done) {
			ic->status = STATUS_FATAL;
			snprintf(ic->error, sizeof(ic->error), "%s", ic->sess->why);
		}
	}
}

/*
 * Send one command and wait for its end.  Returns its status (scsi.h), or
 * STATUS_FATAL with ic->error set when the session failed; ic->moved is
 * the bytes of data that went in or out.
 */
static uint32_t iscsi_send(struct iscsi_client *ic, const struct scsi_cmd *cmd)
{
	ic->waiting = 1;
	if (iscsi_start(ic, cmd) < 0) {
		ic->waiting = 0;
		return STATUS_FATAL;
	}
	iscsi_wait(ic);
	ic->waiting = 0;
	return ic->status;
}

/* Why a login failed: when the portal (HOST[:PORT], [V6][:PORT]) does not
 * take a TCP connection, that and its cause (libiscsi says only "Can not
 * reconnect right now"); else libiscsi's text (the target refused us). */
static void login_error(struct iscsi_context *iscsi, const struct iscsi_options *iopt, const char *portal,
			char *error, size_t errsize)
{
	char host[256], why[128];
	const char *colon, *end = NULL;
	int port = 3260;

	if (portal[0] == '[' && (end = strchr(portal, ']'))) {
		snprintf(host, sizeof(host), "%.*s", (int)(end - portal - 1), portal + 1);
		colon = end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strrchr(portal, ':');
		snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - portal) : (int)strlen(portal), portal);
	}
	if (colon)
		port = atoi(colon + 1);
	tcp_probe(host, port, ISCSI_TIMEOUT * 1000, why, sizeof(why));
	if (why[0])
		snprintf(error, errsize, "--iscsi %s: cannot connect to %s%s%s:%d: %s", iopt->url,
			 end ? "[" : "", host, end ? "]" : "", port, why);
	else
		snprintf(error, errsize, "--iscsi %s: login failed: %s", iopt->url, iscsi_get_error(iscsi));
}

static void session_close(struct iscsi_session *sess)
{
	if (!sess)
		return;
	if (sess->src.engine)
		source_unwatch(&sess->src);
	if (sess->iscsi) {
		if (!sess->dead && !sess->stuck && iscsi_is_logged_in(sess->iscsi))
			iscsi_logout_sync(sess->iscsi);
		iscsi_destroy_context(sess->iscsi);
	}
	free(sess);
}

/* Log in as client `id` (ic->sess, a new session) and find the LUN's
 * capacity; 0, or -1 with ic->error set. */
static int iscsi_open(struct iscsi_client *ic, const struct iscsi_options *iopt, int id)
{
	static const int64_t none[MAX_NUMS];
	struct iscsi_session *sess = xcalloc(1, sizeof(*sess));
	struct iscsi_url *url = NULL;
	struct scsi_cmd cmd;
	char name[512];
	uint32_t status;
	int rc = -1;

	ic->sess = sess;
	sess->users = 1;
	snprintf(name, sizeof(name), "%s-%d", iopt->initiator, id);
	sess->iscsi = iscsi_create_context(name);
	if (!sess->iscsi) {
		snprintf(ic->error, sizeof(ic->error), "iscsi: cannot create a context");
		return -1;
	}
	url = iscsi_parse_full_url(sess->iscsi, iopt->url);
	if (!url) {
		snprintf(ic->error, sizeof(ic->error),
			 "--iscsi %s: not an iSCSI URL (iscsi://[USER%%PASSWORD@]HOST[:PORT]/IQN/LUN)", iopt->url);
		return -1;
	}
	sess->lun_number = url->lun;
	iscsi_set_targetname(sess->iscsi, url->target);
	iscsi_set_session_type(sess->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(sess->iscsi, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_noautoreconnect(sess->iscsi, 1);
	iscsi_set_timeout(sess->iscsi, ISCSI_TIMEOUT);
	if (url->user[0] && iscsi_set_initiator_username_pwd(sess->iscsi, url->user, url->passwd) != 0) {
		snprintf(ic->error, sizeof(ic->error), "--iscsi: %s", iscsi_get_error(sess->iscsi));
		goto out;
	}
	if (iscsi_full_connect_sync(sess->iscsi, url->portal, url->lun) != 0) {
		login_error(sess->iscsi, iopt, url->portal, ic->error, sizeof(ic->error));
		goto out;
	}
	scsi_encode(OP_READCAPACITY10, none, &sess->lun, &cmd);
	status = iscsi_send(ic, &cmd);
	if (status == STATUS_FATAL)
		goto out;
	if (status != SCSI_GOOD || ic->moved < 8 || scsi_decode_capacity10(ic->buf, &sess->lun) < 0) {
		char b[STATUS_NAME_SIZE];

		snprintf(ic->error, sizeof(ic->error), "--iscsi %s: READ CAPACITY (10) failed: %s", iopt->url,
			 status_name(DOMAIN_SCSI, status, b));
		goto out;
	}
	rc = 0;
out:
	iscsi_destroy_url(url);
	one_line(ic->error);
	return rc;
}

static struct iscsi_client *iscsi_client_new(struct client *c)
{
	struct iscsi_client *ic = xcalloc(1, sizeof(*ic));

	ic->client = c;
	ic->buf = xcalloc(1, SCSI_MAX_XFER);
	return ic;
}

/* A client leaves its session: the last one out logs it out. */
static void iscsi_close(struct iscsi_client *ic, void **shared)
{
	struct iscsi_session *sess = ic->sess;

	if (sess && --sess->users == 0) {
		session_close(sess);
		if (shared && *shared == sess)
			*shared = NULL;
	}
	free(ic->buf);
	free(ic);
}

/* In the parent: the URL parses, the target lets us in, the LUN answers. */
static int iscsi_init(void *be_opt, const struct run_info *run)
{
	struct iscsi_options *iopt = be_opt;
	struct iscsi_client *ic;
	int rc;

	if (!iopt->url) {
		fprintf(stderr, "%s: the iscsi backend needs --iscsi=iscsi://HOST[:PORT]/IQN/LUN\n",
			run->progname);
		return -1;
	}
	if (strcmp(iopt->session, "client") != 0 && strcmp(iopt->session, "shared") != 0) {
		fprintf(stderr, "%s: --iscsi-session: '%s' is not client or shared\n", run->progname,
			iopt->session);
		return -1;
	}
	iopt->shared = strcmp(iopt->session, "shared") == 0;
	ic = iscsi_client_new(NULL);
	rc = iscsi_open(ic, iopt, run->nclients);
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", run->progname, ic->error);
	iscsi_close(ic, NULL);
	return rc;
}

/* A session on the event loop is ready: service it; the commands that
 * ended complete their clients (on_task). */
static void session_ready(struct source *src, uint32_t revents)
{
	struct iscsi_session *sess = src->arg;

	/* EPOLLIN, EPOLLOUT, EPOLLERR and EPOLLHUP are poll's values */
	if (iscsi_service(sess->iscsi, (int)revents) < 0) {
		session_failed(sess, NULL);
		/* the clients still waiting hear of it (on_task) */
		iscsi_scsi_cancel_all_tasks(sess->iscsi);
		return;
	}
	if (sess->dead) {
		iscsi_scsi_cancel_all_tasks(sess->iscsi);
		return;
	}
	source_want(src, (uint32_t)iscsi_which_events(sess->iscsi));
}

static int iscsi_setup(struct client *c)
{
	const struct iscsi_options *iopt = c->be_opt;
	struct iscsi_client *ic = iscsi_client_new(c);
	void **shared = c->engine && iopt->shared ? engine_shared(c) : NULL;
	struct iscsi_session *sess;

	c->priv = ic;
	if (shared && *shared) {
		/* the process's session, which its first client opened */
		ic->sess = *shared;
		ic->sess->users++;
		return 0;
	}
	if (iscsi_open(ic, iopt, c->id) < 0) {
		snprintf(c->error, sizeof(c->error), "%s", ic->error);
		return -1;
	}
	if (!c->engine)
		return 0;
	sess = ic->sess;
	sess->src = (struct source){ .fd = iscsi_get_fd(sess->iscsi),
				     .events = (uint32_t)iscsi_which_events(sess->iscsi),
				     .ready = session_ready, .arg = sess };
	if (engine_watch(c, &sess->src) < 0)
		return -1;
	if (shared)
		*shared = sess;
	return 0;
}

static void iscsi_teardown(struct client *c)
{
	const struct iscsi_options *iopt = c->be_opt;

	if (c->priv)
		iscsi_close(c->priv, c->engine && iopt->shared ? engine_shared(c) : NULL);
	c->priv = NULL;
}

/* On the event loop: queue the command and write it; its end completes
 * the op (on_task), or it ended already (an error, or a quick reply). */
static uint32_t iscsi_submit(struct client *c, struct iscsi_client *ic, const struct scsi_cmd *cmd)
{
	struct iscsi_session *sess = ic->sess;

	ic->waiting = 1;
	if (iscsi_start(ic, cmd) < 0) {
		ic->waiting = 0;
		snprintf(c->error, sizeof(c->error), "%s", ic->error);
		return STATUS_FATAL;
	}
	if (iscsi_which_events(sess->iscsi) & POLLOUT) {
		if (iscsi_service(sess->iscsi, POLLOUT) < 0) {
			session_failed(sess, NULL);
			iscsi_scsi_cancel_all_tasks(sess->iscsi);
		}
	}
	ic->waiting = 0;
	if (ic->done) {
		if (ic->status == STATUS_FATAL)
			snprintf(c->error, sizeof(c->error), "%s", ic->error);
		return ic->status;
	}
	if (!sess->dead)
		source_want(&sess->src, (uint32_t)iscsi_which_events(sess->iscsi));
	c->deadline_ns = now_ns() + (uint64_t)ISCSI_TIMEOUT * NSEC_PER_SEC;
	return STATUS_PENDING;
}

/* The command's deadline passed, or the run gives up on it: libiscsi
 * forgets it (a late reply to it is dropped; on_task frees the task), and
 * the session is not logged out at the end (the target may not answer
 * that either). */
static void iscsi_expire(struct client *c)
{
	struct iscsi_client *ic = c->priv;
	struct scsi_task *task = ic->task;

	ic->task = NULL;
	ic->sess->stuck = 1;
	if (task)
		iscsi_scsi_cancel_task(ic->sess->iscsi, task);
	snprintf(c->error, sizeof(c->error), "iscsi: the target did not answer in %d s", ISCSI_TIMEOUT);
}

static uint32_t iscsi_op(struct client *c, const struct op *op)
{
	struct iscsi_client *ic = c->priv;
	struct scsi_cmd cmd;
	uint32_t status;

	scsi_encode(op->id, c->num, &ic->sess->lun, &cmd);
	if (op->id == OP_PROUT)
		memcpy(ic->buf, cmd.param, SCSI_PROUT_PARAM_LEN);
	if (c->engine)
		return iscsi_submit(c, ic, &cmd);
	status = iscsi_send(ic, &cmd);
	if (status == STATUS_FATAL)
		snprintf(c->error, sizeof(c->error), "%s", ic->error);
	else if (op_is_read(op->id) || op_is_write(op->id))
		c->bytes = ic->moved;
	return status;
}

static int iscsi_remove_tree(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static int iscsi_exists(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

const struct backend iscsi_backend = {
	.abi = BACKEND_ABI,
	.name = "iscsi",
	.description = "SCSI commands to an iSCSI LUN through libiscsi (--iscsi=URL)",
	.flags = BACKEND_BLOCK | BACKEND_ASYNC,
	.options = iscsi_options,
	.options_size = sizeof(struct iscsi_options),
	.init = iscsi_init,
	.setup = iscsi_setup,
	.teardown = iscsi_teardown,
	.remove_tree = iscsi_remove_tree,
	.exists = iscsi_exists,
	.expire = iscsi_expire,
	.op = {
		[OP_TESTUNITREADY] = iscsi_op,
		[OP_READ6] = iscsi_op,
		[OP_READ10] = iscsi_op,
		[OP_READ16] = iscsi_op,
		[OP_WRITE10] = iscsi_op,
		[OP_WRITE16] = iscsi_op,
		[OP_READCAPACITY10] = iscsi_op,
		[OP_SYNCHRONIZECACHE10] = iscsi_op,
		[OP_PROUT] = iscsi_op,
	},
};

BACKEND_MODULE(iscsi_backend);
