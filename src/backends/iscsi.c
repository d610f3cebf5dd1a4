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
 * commands on one), its commands queued on it together.  With --iodepth N
 * a client keeps up to N READs and WRITEs in flight (iscsi_queueable says
 * which may go out together), each command with a buffer of its own.
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

/* A command of a client: one at a time, or --iodepth of them in flight
 * (c->tag is its place), each with a buffer of its own. */
struct iscsi_io {
	struct iscsi_client *ic;
	uint32_t tag;		/* its place in the client's queue */
	unsigned char *buf;	/* bufsize bytes, in and out */
	uint32_t bufsize;
	struct iscsi_data out;	/* the data a WRITE sends */
	struct scsi_task *task;	/* the command in flight, or NULL */
	int waiting;		/* 1 while submit or iscsi_wait runs: on_task
				   leaves the result here, not to the engine */
	int done;		/* the result is in: */
	uint32_t status;	/* its status (STATUS_FATAL: error says why) */
	uint32_t moved;		/* bytes in or out */
	uint32_t xfer_len;	/* bytes asked for */
	int dir;		/* SCSI_DIR_* */
	uint64_t lba;		/* a READ or WRITE in flight: its blocks */
	uint32_t nblocks;
};

struct iscsi_client {
	struct iscsi_session *sess;
	struct client *client;	/* NULL in the parent's probe */
	struct iscsi_io *io;	/* c->iodepth commands (1 in the probe) */
	uint32_t nio;
	char error[256];	/* why the last command failed */
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
 * the session failed; the bytes it moved in io->moved. */
static uint32_t task_status(struct iscsi_io *io, struct scsi_task *task)
{
	struct iscsi_client *ic = io->ic;

	if (task->status & ~0xFF) {
		/* a session error (cancelled, timed out), not a SCSI status */
		session_failed(ic->sess, NULL);
		snprintf(ic->error, sizeof(ic->error), "%s", ic->sess->why);
		return STATUS_FATAL;
	}
	io->moved = io->xfer_len;
	if (io->dir == SCSI_DIR_IN && task->residual_status == SCSI_RESIDUAL_UNDERFLOW &&
	    (uint32_t)task->residual <= io->xfer_len)
		io->moved = io->xfer_len - (uint32_t)task->residual;
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
	struct iscsi_io *io = private_data;
	struct scsi_task *task = command_data;
	struct client *c = io->ic->client;
	uint32_t st;

	(void)iscsi;
	(void)status;
	if (task != io->task) {
		scsi_free_scsi_task(task);
		return;
	}
	io->task = NULL;
	st = task_status(io, task);
	scsi_free_scsi_task(task);
	if (io->waiting) {
		io->status = st;
		io->done = 1;
		return;
	}
	/* (the first reason a client fails stays: a session that fails
	 * hands back every command of its queue) */
	if (st == STATUS_FATAL && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", io->ic->error);
	client_complete_io(c, io->tag, st, st == STATUS_FATAL ? 0 : io->moved);
}

/* A buffer of at least len bytes for the command (len <= SCSI_MAX_XFER);
 * most loadfiles move a few KiB a command, not a MiB. */
static void io_buffer(struct iscsi_io *io, uint32_t len)
{
	len = MAX(len, 4096u);
	if (len <= io->bufsize)
		return;
	free(io->buf);
	io->buf = xcalloc(1, len);
	io->bufsize = len;
}

/* Queue cmd on the session (on_task reports its end); 0, or -1 with
 * ic->error set. */
static int iscsi_start(struct iscsi_io *io, const struct scsi_cmd *cmd)
{
	struct iscsi_client *ic = io->ic;
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
	io_buffer(io, cmd->xfer_len);
	if (cmd->dir == SCSI_DIR_IN && scsi_task_add_data_in_buffer(task, (int)cmd->xfer_len, io->buf) < 0) {
		scsi_free_scsi_task(task);
		snprintf(ic->error, sizeof(ic->error), "iscsi: out of memory");
		return -1;
	}
	io->out = (struct iscsi_data){ 0 };
	if (cmd->dir == SCSI_DIR_OUT) {
		io->out.size = cmd->xfer_len;
		io->out.data = io->buf;
	}
	io->dir = cmd->dir;
	io->xfer_len = cmd->xfer_len;
	io->lba = cmd->lba;
	io->nblocks = cmd->nblocks;
	io->moved = 0;
	io->done = 0;
	io->task = task;
	if (iscsi_scsi_command_async(sess->iscsi, sess->lun_number, task, on_task,
				     cmd->dir == SCSI_DIR_OUT ? &io->out : NULL, io) != 0) {
		io->task = NULL;
		scsi_free_scsi_task(task);
		session_failed(sess, NULL);
		snprintf(ic->error, sizeof(ic->error), "%s", sess->why);
		return -1;
	}
	return 0;
}

/*
 * Wait for the command in flight to end (io->done).  libiscsi's own
 * iscsi_scsi_command_sync polls for POLLOUT before every command; the
 * socket is as good as always writable, so the command is written at once
 * and the loop polls only for the reply: one system call less a command.
 */
static void iscsi_wait(struct iscsi_io *io)
{
	struct iscsi_client *ic = io->ic;
	struct iscsi_context *iscsi = ic->sess->iscsi;

	if (iscsi_service(iscsi, POLLOUT) < 0)
		session_failed(ic->sess, NULL);
	while (!io->done && !ic->sess->dead) {
		struct pollfd pfd = { .fd = iscsi_get_fd(iscsi), .events = (short)iscsi_which_events(iscsi) };
		int n = poll(&pfd, 1, 1000);	/* a second: libiscsi's timeouts run */

		if (n < 0 && errno != EINTR) {
			session_failed(ic->sess, strerror(errno));
			break;
		}
		if (iscsi_service(iscsi, n > 0 ? pfd.revents : 0) < 0)
			session_failed(ic->sess, NULL);
	}
	if (!io->done) {
		/* the session failed with the command still queued: libiscsi
		 * hands it back (on_task) as it cancels it */
		iscsi_scsi_cancel_all_tasks(iscsi);
		if (!io->done) {
			io->status = STATUS_FATAL;
			snprintf(ic->error, sizeof(ic->error), "%s", ic->sess->why);
		}
	}
}

/*
 * Send one command and wait for its end.  Returns its status (scsi.h), or
 * STATUS_FATAL with ic->error set when the session failed; io->moved is
 * the bytes of data that went in or out.
 */
static uint32_t iscsi_send(struct iscsi_io *io, const struct scsi_cmd *cmd)
{
	io->waiting = 1;
	if (iscsi_start(io, cmd) < 0) {
		io->waiting = 0;
		return STATUS_FATAL;
	}
	iscsi_wait(io);
	io->waiting = 0;
	return io->status;
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
	status = iscsi_send(&ic->io[0], &cmd);
	if (status == STATUS_FATAL)
		goto out;
	if (status != SCSI_GOOD || ic->io[0].moved < 8 ||
	    scsi_decode_capacity10(ic->io[0].buf, &sess->lun) < 0) {
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
	ic->nio = c && c->iodepth > 1 ? c->iodepth : 1;
	ic->io = xcalloc(ic->nio, sizeof(*ic->io));
	for (uint32_t i = 0; i < ic->nio; i++) {
		ic->io[i].ic = ic;
		ic->io[i].tag = i;
	}
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
	for (uint32_t i = 0; i < ic->nio; i++)
		free(ic->io[i].buf);
	free(ic->io);
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
static uint32_t iscsi_submit(struct client *c, struct iscsi_io *io, const struct scsi_cmd *cmd)
{
	struct iscsi_client *ic = io->ic;
	struct iscsi_session *sess = ic->sess;

	io->waiting = 1;
	if (iscsi_start(io, cmd) < 0) {
		io->waiting = 0;
		snprintf(c->error, sizeof(c->error), "%s", ic->error);
		return STATUS_FATAL;
	}
	if (iscsi_which_events(sess->iscsi) & POLLOUT) {
		if (iscsi_service(sess->iscsi, POLLOUT) < 0) {
			session_failed(sess, NULL);
			iscsi_scsi_cancel_all_tasks(sess->iscsi);
		}
	}
	io->waiting = 0;
	if (io->done) {
		if (io->status == STATUS_FATAL)
			snprintf(c->error, sizeof(c->error), "%s", ic->error);
		else
			c->bytes = io->moved;
		return io->status;
	}
	if (!sess->dead)
		source_want(&sess->src, (uint32_t)iscsi_which_events(sess->iscsi));
	c->deadline_ns = now_ns() + (uint64_t)ISCSI_TIMEOUT * NSEC_PER_SEC;
	return STATUS_PENDING;
}

/* The command's deadline passed, or the run gives up on it (on all the
 * client's commands in flight, with --iodepth): libiscsi forgets them (a
 * late reply is dropped; on_task frees the task), and the session is not
 * logged out at the end (the target may not answer that either). */
static void iscsi_expire(struct client *c)
{
	struct iscsi_client *ic = c->priv;

	ic->sess->stuck = 1;
	for (uint32_t i = 0; i < ic->nio; i++) {
		struct scsi_task *task = ic->io[i].task;

		ic->io[i].task = NULL;
		if (task)
			iscsi_scsi_cancel_task(ic->sess->iscsi, task);
	}
	snprintf(c->error, sizeof(c->error), "iscsi: the target did not answer in %d s", ISCSI_TIMEOUT);
}

/* --iodepth: a READ or WRITE may go out beside the client's commands in
 * flight unless its blocks overlap one of theirs and one of the two writes
 * (the target may run queued commands in any order: SIMPLE tasks).  Every
 * other command waits until none is in flight: it reads or changes what
 * the others depend on (PROUT, SYNCHRONIZE CACHE) or is no block I/O. */
static int iscsi_queueable(struct client *c, const struct op *op)
{
	struct iscsi_client *ic = c->priv;
	int writes = op_is_write(op->id);
	struct scsi_cmd cmd;

	switch (op->id) {
	case OP_READ6:
	case OP_READ10:
	case OP_READ16:
	case OP_WRITE10:
	case OP_WRITE16:
		break;
	default:
		return 0;
	}
	scsi_encode(op->id, c->num, &ic->sess->lun, &cmd);
	for (uint32_t i = 0; i < ic->nio; i++) {
		const struct iscsi_io *io = &ic->io[i];

		if (io->task && (writes || io->dir == SCSI_DIR_OUT) && cmd.lba < io->lba + io->nblocks &&
		    io->lba < cmd.lba + cmd.nblocks)
			return 0;
	}
	return 1;
}

static uint32_t iscsi_op(struct client *c, const struct op *op)
{
	struct iscsi_client *ic = c->priv;
	struct iscsi_io *io = &ic->io[c->tag < ic->nio ? c->tag : 0];
	struct scsi_cmd cmd;
	uint32_t status;

	scsi_encode(op->id, c->num, &ic->sess->lun, &cmd);
	if (op->id == OP_PROUT) {
		io_buffer(io, SCSI_PROUT_PARAM_LEN);
		memcpy(io->buf, cmd.param, SCSI_PROUT_PARAM_LEN);
	}
	if (c->engine)
		return iscsi_submit(c, io, &cmd);
	status = iscsi_send(io, &cmd);
	if (status == STATUS_FATAL)
		snprintf(c->error, sizeof(c->error), "%s", ic->error);
	else if (op_is_read(op->id) || op_is_write(op->id))
		c->bytes = io->moved;
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
	.queueable = iscsi_queueable,
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
