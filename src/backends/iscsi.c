/*
 * iscsi.c - the iscsi backend (-B iscsi --iscsi=iscsi://[USER%PASSWORD@]
 * HOST[:PORT]/IQN/LUN): the loadfile's SCSI commands sent to an iSCSI
 * target through libiscsi, one at a time per client, each client with a
 * session of its own (initiator name NAME-N for client N).  The CDBs and
 * the reading of status and sense are scsi.c's, shared with the scsi
 * backend.  A session that breaks is not reconnected: the client stops with
 * libiscsi's message, and commands time out after ISCSI_TIMEOUT seconds.
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
};

static const struct backend_option iscsi_options[] = {
	{ .name = "iscsi", .type = BOPT_STRING, .offset = offsetof(struct iscsi_options, url),
	  .arg_name = "URL", .help = "the LUN, iscsi://[USER%PASSWORD@]HOST[:PORT]/IQN/LUN" },
	{ .name = "iscsi-initiatorname", .type = BOPT_STRING,
	  .offset = offsetof(struct iscsi_options, initiator), .def = "iqn.2026-01.org.dbench:client",
	  .arg_name = "NAME", .help = "client N logs in as NAME-N (default iqn.2026-01.org.dbench:client)" },
	{ .name = NULL },
};

/* libiscsi's messages may span lines: make one. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

struct iscsi_client {
	struct iscsi_context *iscsi;
	int lun_number;
	struct scsi_lun lun;
	unsigned char *buf;	/* SCSI_MAX_XFER bytes, in and out */
};

struct iscsi_done {
	int finished;
};

static void iscsi_done_cb(struct iscsi_context *iscsi, int status, void *command_data, void *private_data)
{
	struct iscsi_done *done = private_data;

	(void)iscsi;
	(void)status;
	(void)command_data;
	done->finished = 1;
}

/*
 * Send a task and wait for its end (task->status).  libiscsi's own
 * iscsi_scsi_command_sync polls for POLLOUT before every command; the
 * socket is as good as always writable, so the command is written at once
 * and the loop polls only for the reply: one system call less a command.
 * Returns 0, or -1 when the session failed.
 */
static int iscsi_wait(struct iscsi_client *ic, struct scsi_task *task, struct iscsi_data *out)
{
	struct iscsi_done done = { 0 };

	if (iscsi_scsi_command_async(ic->iscsi, ic->lun_number, task, iscsi_done_cb, out, &done) != 0)
		return -1;
	if (iscsi_service(ic->iscsi, POLLOUT) < 0)
		return -1;
	while (!done.finished) {
		struct pollfd pfd = {
			.fd = iscsi_get_fd(ic->iscsi),
			.events = (short)iscsi_which_events(ic->iscsi),
		};
		int n = poll(&pfd, 1, 1000);	/* a second: libiscsi's timeouts run */

		if (n < 0 && errno != EINTR)
			return -1;
		if (iscsi_service(ic->iscsi, n > 0 ? pfd.revents : 0) < 0)
			return -1;
	}
	return 0;
}

/*
 * Send one command.  Returns its status (scsi.h), or STATUS_FATAL with
 * `error` set when the session failed.  *moved is the bytes of data that
 * went in or out.
 */
static uint32_t iscsi_send(struct iscsi_client *ic, const struct scsi_cmd *cmd, uint32_t *moved,
			   char *error, size_t errsize)
{
	struct scsi_task *task;
	struct iscsi_data out = { 0 };
	uint32_t status;
	int xfer_dir = cmd->dir == SCSI_DIR_IN ? SCSI_XFER_READ :
		       cmd->dir == SCSI_DIR_OUT ? SCSI_XFER_WRITE : SCSI_XFER_NONE;

	task = scsi_create_task(cmd->cdb_len, (unsigned char *)cmd->cdb, xfer_dir, (int)cmd->xfer_len);
	if (!task) {
		snprintf(error, errsize, "iscsi: out of memory");
		return STATUS_FATAL;
	}
	if (cmd->dir == SCSI_DIR_IN && scsi_task_add_data_in_buffer(task, (int)cmd->xfer_len, ic->buf) < 0) {
		scsi_free_scsi_task(task);
		snprintf(error, errsize, "iscsi: out of memory");
		return STATUS_FATAL;
	}
	if (cmd->dir == SCSI_DIR_OUT) {
		out.size = cmd->xfer_len;
		out.data = ic->buf;
	}
	if (iscsi_wait(ic, task, cmd->dir == SCSI_DIR_OUT ? &out : NULL) < 0 || (task->status & ~0xFF)) {
		/* a session error, not a SCSI status */
		snprintf(error, errsize, "iscsi: the session to the target failed (%s)",
			 iscsi_get_error(ic->iscsi));
		one_line(error);
		/* the session is no use any more; destroying it also hands
		 * back a task it still held */
		iscsi_destroy_context(ic->iscsi);
		ic->iscsi = NULL;
		scsi_free_scsi_task(task);
		return STATUS_FATAL;
	}
	*moved = cmd->xfer_len;
	if (cmd->dir == SCSI_DIR_IN && task->residual_status == SCSI_RESIDUAL_UNDERFLOW &&
	    (uint32_t)task->residual <= cmd->xfer_len)
		*moved = cmd->xfer_len - (uint32_t)task->residual;
	if (task->status == SCSI_STATUS_CHECK_CONDITION) {
		/* libiscsi keeps the sense data behind its 2-byte length */
		if (task->datain.size > 2)
			status = scsi_code(SCSI_CHECK_CONDITION, task->datain.data + 2,
					   (size_t)task->datain.size - 2);
		else
			status = SCSI_CODE(SCSI_CHECK_CONDITION, task->sense.key, task->sense.ascq);
	} else {
		status = (uint32_t)task->status;
	}
	scsi_free_scsi_task(task);
	return status;
}

/* Why a login failed: when the portal (HOST[:PORT], [V6][:PORT]) does not
 * take a TCP connection, that and its cause (libiscsi says only "Can not
 * reconnect right now"); else libiscsi's text (the target refused us). */
static void login_error(struct iscsi_client *ic, const struct iscsi_options *iopt, const char *portal,
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
		snprintf(error, errsize, "--iscsi %s: login failed: %s", iopt->url, iscsi_get_error(ic->iscsi));
}

/* Log in as client `id` and find the LUN's capacity; 0, or -1 with error
 * set. */
static int iscsi_open(struct iscsi_client *ic, const struct iscsi_options *iopt, int id, char *error,
		      size_t errsize)
{
	static const int64_t none[MAX_NUMS];
	struct iscsi_url *url = NULL;
	struct scsi_cmd cmd;
	char name[512];
	uint32_t status, moved;
	int rc = -1;

	snprintf(name, sizeof(name), "%s-%d", iopt->initiator, id);
	ic->iscsi = iscsi_create_context(name);
	if (!ic->iscsi) {
		snprintf(error, errsize, "iscsi: cannot create a context");
		return -1;
	}
	url = iscsi_parse_full_url(ic->iscsi, iopt->url);
	if (!url) {
		snprintf(error, errsize, "--iscsi %s: not an iSCSI URL (iscsi://[USER%%PASSWORD@]HOST[:PORT]/IQN/LUN)",
			 iopt->url);
		return -1;
	}
	ic->lun_number = url->lun;
	iscsi_set_targetname(ic->iscsi, url->target);
	iscsi_set_session_type(ic->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(ic->iscsi, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_noautoreconnect(ic->iscsi, 1);
	iscsi_set_timeout(ic->iscsi, ISCSI_TIMEOUT);
	if (url->user[0] && iscsi_set_initiator_username_pwd(ic->iscsi, url->user, url->passwd) != 0) {
		snprintf(error, errsize, "--iscsi: %s", iscsi_get_error(ic->iscsi));
		goto out;
	}
	if (iscsi_full_connect_sync(ic->iscsi, url->portal, url->lun) != 0) {
		login_error(ic, iopt, url->portal, error, errsize);
		goto out;
	}
	scsi_encode(OP_READCAPACITY10, none, &ic->lun, &cmd);
	status = iscsi_send(ic, &cmd, &moved, error, errsize);
	if (status == STATUS_FATAL)
		goto out;
	if (status != SCSI_GOOD || moved < 8 || scsi_decode_capacity10(ic->buf, &ic->lun) < 0) {
		char b[STATUS_NAME_SIZE];

		snprintf(error, errsize, "--iscsi %s: READ CAPACITY (10) failed: %s", iopt->url,
			 status_name(DOMAIN_SCSI, status, b));
		goto out;
	}
	rc = 0;
out:
	iscsi_destroy_url(url);
	one_line(error);
	return rc;
}

static struct iscsi_client *iscsi_client_new(void)
{
	struct iscsi_client *ic = xcalloc(1, sizeof(*ic));

	ic->buf = xcalloc(1, SCSI_MAX_XFER);
	return ic;
}

static void iscsi_close(struct iscsi_client *ic)
{
	if (ic->iscsi) {
		if (iscsi_is_logged_in(ic->iscsi))
			iscsi_logout_sync(ic->iscsi);
		iscsi_destroy_context(ic->iscsi);
	}
	free(ic->buf);
	free(ic);
}

/* In the parent: the URL parses, the target lets us in, the LUN answers. */
static int iscsi_init(void *be_opt, const struct run_info *run)
{
	const struct iscsi_options *iopt = be_opt;
	struct iscsi_client *ic;
	char error[512];
	int rc;

	if (!iopt->url) {
		fprintf(stderr, "%s: the iscsi backend needs --iscsi=iscsi://HOST[:PORT]/IQN/LUN\n",
			run->progname);
		return -1;
	}
	ic = iscsi_client_new();
	rc = iscsi_open(ic, iopt, run->nclients, error, sizeof(error));
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", run->progname, error);
	iscsi_close(ic);
	return rc;
}

static int iscsi_setup(struct client *c)
{
	struct iscsi_client *ic = iscsi_client_new();

	c->priv = ic;
	return iscsi_open(ic, c->be_opt, c->id, c->error, sizeof(c->error));
}

static void iscsi_teardown(struct client *c)
{
	if (c->priv)
		iscsi_close(c->priv);
	c->priv = NULL;
}

static uint32_t iscsi_op(struct client *c, const struct op *op)
{
	struct iscsi_client *ic = c->priv;
	struct scsi_cmd cmd;
	uint32_t status, moved = 0;

	scsi_encode(op->id, c->num, &ic->lun, &cmd);
	if (op->id == OP_PROUT)
		memcpy(ic->buf, cmd.param, SCSI_PROUT_PARAM_LEN);
	status = iscsi_send(ic, &cmd, &moved, c->error, sizeof(c->error));
	if (status != STATUS_FATAL && (op_is_read(op->id) || op_is_write(op->id)))
		c->bytes = moved;
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
	.flags = BACKEND_BLOCK,
	.options = iscsi_options,
	.options_size = sizeof(struct iscsi_options),
	.init = iscsi_init,
	.setup = iscsi_setup,
	.teardown = iscsi_teardown,
	.remove_tree = iscsi_remove_tree,
	.exists = iscsi_exists,
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
