/*
 * sg.c - the scsi backend (-B scsi --scsi=/dev/sgN): the loadfile's SCSI
 * commands sent to a Linux SCSI generic device with the SG_IO ioctl, one
 * at a time per client.  The CDBs and the reading of status and sense are
 * scsi.c's, shared with the iscsi backend.  Each client opens the device
 * itself and asks its capacity once (READ CAPACITY (10)) to keep LBAs
 * inside it.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <scsi/sg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend.h"
#include "scsi.h"
#include "status.h"
#include "util.h"

#define SG_TIMEOUT_MS 30000	/* a command that takes longer fails the client */

/* The scsi backend's option block. */
struct sg_options {
	const char *dev;	/* --scsi */
};

static const struct backend_option sg_options[] = {
	{ .name = "scsi", .type = BOPT_STRING, .offset = offsetof(struct sg_options, dev),
	  .arg_name = "/dev/sgN", .help = "the SCSI generic device to send the commands to" },
	{ .name = NULL },
};

struct sg_client {
	int fd;
	struct scsi_lun lun;
	unsigned char *buf;	/* SCSI_MAX_XFER bytes, in and out */
};

/*
 * Send one command.  Returns its status (scsi.h), or STATUS_FATAL with
 * `error` set when it could not be sent or the transport failed.  *moved
 * is the bytes of data that went in or out.
 */
static uint32_t sg_send(int fd, const struct scsi_cmd *cmd, unsigned char *buf, uint32_t *moved,
			char *error, size_t errsize)
{
	unsigned char sense[64];
	struct sg_io_hdr io;

	memset(&io, 0, sizeof(io));
	io.interface_id = 'S';
	io.cmdp = (unsigned char *)cmd->cdb;
	io.cmd_len = cmd->cdb_len;
	io.sbp = sense;
	io.mx_sb_len = sizeof(sense);
	io.timeout = SG_TIMEOUT_MS;
	io.dxfer_direction = cmd->dir == SCSI_DIR_IN ? SG_DXFER_FROM_DEV :
			     cmd->dir == SCSI_DIR_OUT ? SG_DXFER_TO_DEV : SG_DXFER_NONE;
	if (cmd->dir != SCSI_DIR_NONE) {
		io.dxferp = buf;
		io.dxfer_len = cmd->xfer_len;
	}
	if (ioctl(fd, SG_IO, &io) < 0) {
		snprintf(error, errsize, "SG_IO: %s", strerror(errno));
		return STATUS_FATAL;
	}
	if (io.host_status || (io.driver_status & ~0x08u /* DRIVER_SENSE */)) {
		snprintf(error, errsize, "SG_IO: transport failed (host status 0x%x, driver status 0x%x)",
			 io.host_status, io.driver_status);
		return STATUS_FATAL;
	}
	*moved = cmd->dir == SCSI_DIR_NONE ? 0 :
		 io.resid > 0 && (uint32_t)io.resid <= cmd->xfer_len ? cmd->xfer_len - (uint32_t)io.resid :
		 cmd->xfer_len;
	return scsi_code(io.status, sense, io.sb_len_wr);
}

/* Open the device and find its capacity; 0, or -1 with error set. */
static int sg_open(struct sg_client *sc, const char *sg_dev, char *error, size_t errsize)
{
	static const int64_t none[MAX_NUMS];
	struct scsi_cmd cmd;
	uint32_t status, moved;
	int version;

	sc->fd = open(sg_dev, O_RDWR | O_CLOEXEC);
	if (sc->fd < 0) {
		snprintf(error, errsize, "--scsi %s: %s", sg_dev, strerror(errno));
		return -1;
	}
	if (ioctl(sc->fd, SG_GET_VERSION_NUM, &version) < 0 || version < 30000) {
		snprintf(error, errsize, "--scsi %s: not a SCSI generic (sg) device", sg_dev);
		return -1;
	}
	scsi_encode(OP_READCAPACITY10, none, &sc->lun, &cmd);
	status = sg_send(sc->fd, &cmd, sc->buf, &moved, error, errsize);
	if (status == STATUS_FATAL)
		return -1;
	if (status != SCSI_GOOD || moved < 8 || scsi_decode_capacity10(sc->buf, &sc->lun) < 0) {
		char b[STATUS_NAME_SIZE];

		snprintf(error, errsize, "--scsi %s: READ CAPACITY (10) failed: %s", sg_dev,
			 status_name(DOMAIN_SCSI, status, b));
		return -1;
	}
	return 0;
}

static void sg_close(struct sg_client *sc)
{
	if (sc->fd >= 0)
		close(sc->fd);
	free(sc->buf);
	free(sc);
}

static struct sg_client *sg_client_new(void)
{
	struct sg_client *sc = xcalloc(1, sizeof(*sc));

	sc->fd = -1;
	sc->buf = xcalloc(1, SCSI_MAX_XFER);
	return sc;
}

static int sg_init(void *be_opt, const struct run_info *run)
{
	const struct sg_options *o = be_opt;
	struct sg_client *sc;
	char error[256];
	int rc;

	if (!o->dev) {
		fprintf(stderr, "%s: the scsi backend needs --scsi=/dev/sgN\n", run->progname);
		return -1;
	}
	sc = sg_client_new();
	rc = sg_open(sc, o->dev, error, sizeof(error));
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", run->progname, error);
	sg_close(sc);
	return rc;
}

static int sg_setup(struct client *c)
{
	const struct sg_options *o = c->be_opt;
	struct sg_client *sc = sg_client_new();

	c->priv = sc;
	return sg_open(sc, o->dev, c->error, sizeof(c->error));
}

static void sg_teardown(struct client *c)
{
	if (c->priv)
		sg_close(c->priv);
	c->priv = NULL;
}

static uint32_t sg_op(struct client *c, const struct op *op)
{
	struct sg_client *sc = c->priv;
	struct scsi_cmd cmd;
	uint32_t status, moved = 0;

	scsi_encode(op->id, c->num, &sc->lun, &cmd);
	if (cmd.dir == SCSI_DIR_OUT && op->id == OP_PROUT)
		memcpy(sc->buf, cmd.param, SCSI_PROUT_PARAM_LEN);
	status = sg_send(sc->fd, &cmd, sc->buf, &moved, c->error, sizeof(c->error));
	if (status != STATUS_FATAL && (op_is_read(op->id) || op_is_write(op->id)))
		c->bytes = moved;
	return status;
}

static int sg_remove_tree(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static int sg_exists(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

const struct backend scsi_backend = {
	.abi = BACKEND_ABI,
	.name = "scsi",
	.description = "SCSI commands through SG_IO on a SCSI generic device (--scsi=/dev/sgN)",
	.flags = BACKEND_BLOCK,
	.options = sg_options,
	.options_size = sizeof(struct sg_options),
	.init = sg_init,
	.setup = sg_setup,
	.teardown = sg_teardown,
	.remove_tree = sg_remove_tree,
	.exists = sg_exists,
	.op = {
		[OP_TESTUNITREADY] = sg_op,
		[OP_READ6] = sg_op,
		[OP_READ10] = sg_op,
		[OP_READ16] = sg_op,
		[OP_WRITE10] = sg_op,
		[OP_WRITE16] = sg_op,
		[OP_READCAPACITY10] = sg_op,
		[OP_SYNCHRONIZECACHE10] = sg_op,
		[OP_PROUT] = sg_op,
	},
};
