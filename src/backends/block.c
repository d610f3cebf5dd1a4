/*
 * block.c - the block backend (-B block --block=DEV): READ and WRITE at a
 * byte offset and FDATASYNC on a block device or a regular file, as dbench
 * 5.0's block backend does.  Each client opens DEV itself with O_DIRECT
 * where the device or file system allows it (the parent says once when it
 * does not and buffered I/O is used), reads into and writes from a
 * page-aligned buffer of its own, and keeps every access inside DEV:
 * offsets past the end wrap, and an access that would run past the end
 * moves back to end there.
 *
 * Block devices are not scratch space.  The parent opens a block device
 * with O_EXCL and holds it for the whole run: a device that is mounted, or
 * held by another program (LVM, RAID, swap, another dbench), is refused
 * with one line before any client starts, and nothing can mount it while
 * the run goes on; each client checks that the device it opened is that
 * one.  A loadfile that writes to a block device (a regular file is fine)
 * needs --allow-block-writes, as SCSI writes need --allow-scsi-writes.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backend.h"
#include "status.h"
#include "util.h"

#define BLOCK_ALIGN 4096	/* buffer alignment, enough for O_DIRECT */
#define BLOCK_MAX_IO (64u << 20) /* the largest READ or WRITE */

/* The block backend's option block: its options, then what the parent
 * found out about DEV, for every client. */
struct block_options {
	const char *dev;	/* --block */
	int allow_writes;	/* --allow-block-writes */
	uint64_t size;		/* bytes */
	int direct;		/* O_DIRECT works */
	int claim;		/* a block device: the parent's O_EXCL descriptor, else -1 */
	dev_t rdev;		/* and its device number */
	int64_t trunc_io;	/* --trunc-io (run_info) */
};

struct block_client {
	int fd;
	char *buf[2];		/* BLOCK_ALIGN-aligned: read into, write from */
	size_t bufsize[2];
};

static const struct backend_option block_options[] = {
	{ .name = "block", .type = BOPT_STRING, .offset = offsetof(struct block_options, dev),
	  .arg_name = "DEV",
	  .help = "the block device or regular file to read and write (a device is opened O_EXCL: a mounted or held one is refused)" },
	{ .name = "allow-block-writes", .type = BOPT_FLAG,
	  .offset = offsetof(struct block_options, allow_writes),
	  .help = "let the loadfile's WRITEs change a block device (a regular file needs no permission)" },
	{ .name = NULL },
};

/* The size of an open block device or regular file, 0 if it has none. */
static uint64_t dev_size(int fd, const struct stat *st)
{
	uint64_t size = 0;

	if (S_ISBLK(st->st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) < 0)
			return 0;
		return size;
	}
	return (uint64_t)st->st_size;
}

/* Read-only unless the loadfile writes. */
static int block_open(const struct block_options *blk, const struct program *prog, int flags)
{
	bool writes = prog && (prog->count[OP_BLOCK_WRITE] || prog->count[OP_FDATASYNC]);

	return open(blk->dev, (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC | flags);
}

/* Where the block device dev is mounted, from /proc/self/mountinfo (its
 * third field is the device's major:minor): the mount point in buf, or
 * false. */
static bool mounted_at(dev_t dev, char *buf, size_t len)
{
	char want[32], line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	while (!found && fgets(line, sizeof(line), f)) {
		char id[32], point[4096];

		if (sscanf(line, "%*s %*s %31s %*s %4095s", id, point) == 2 && strcmp(id, want) == 0) {
			snprintf(buf, len, "%s", point);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* A block device: claim it for the run (O_EXCL), or say why not. */
static int claim_device(struct block_options *blk, const struct run_info *opt, const struct stat *st)
{
	char where[512];

	blk->claim = open(blk->dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (blk->claim >= 0) {
		blk->rdev = st->st_rdev;
		return 0;
	}
	if (errno != EBUSY)
		fprintf(stderr, "%s: --block %s: %s\n", opt->progname, blk->dev, strerror(errno));
	else if (mounted_at(st->st_rdev, where, sizeof(where)))
		fprintf(stderr, "%s: --block %s: the device is mounted (at %s): refused, it is not scratch space\n",
			opt->progname, blk->dev, where);
	else
		fprintf(stderr, "%s: --block %s: the device is in use (held by another program: a mount, LVM, RAID, swap, another dbench): refused\n",
			opt->progname, blk->dev);
	return -1;
}

static int block_init(void *be_opt, const struct run_info *run)
{
	struct block_options *blk = be_opt;
	const struct run_info *opt = run;
	struct stat st;
	int fd;

	blk->claim = -1;
	blk->trunc_io = run->trunc_io;
	if (!blk->dev) {
		fprintf(stderr, "%s: the block backend needs --block=DEV\n", opt->progname);
		return -1;
	}
	fd = block_open(blk, NULL, O_NONBLOCK);	/* a FIFO must not block the open */
	if (fd < 0) {
		fprintf(stderr, "%s: --block %s: %s\n", opt->progname, blk->dev, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))) {
		fprintf(stderr, "%s: --block %s: not a block device or regular file\n", opt->progname,
			blk->dev);
		close(fd);
		return -1;
	}
	blk->size = dev_size(fd, &st);
	close(fd);
	if (blk->size == 0) {
		fprintf(stderr, "%s: --block %s: it is empty\n", opt->progname, blk->dev);
		return -1;
	}
	if (S_ISBLK(st.st_mode) && claim_device(blk, run, &st) < 0)
		return -1;
	fd = block_open(blk, NULL, O_DIRECT);
	if (fd >= 0) {
		blk->direct = 1;
		close(fd);
	} else {
		fprintf(stderr, "%s: --block %s: O_DIRECT is not possible here (%s): using buffered I/O\n",
			opt->progname, blk->dev, strerror(errno));
	}
	return 0;
}

/* A loadfile that writes to a block device needs --allow-block-writes. */
static int block_check_program(const struct program *prog, const void *be_opt,
			       const struct run_info *run)
{
	const struct block_options *blk = be_opt;

	(void)run;	/* the message is FILE:LINE, as the compiler's */
	if (blk->claim < 0 || blk->allow_writes)
		return 0;
	for (uint32_t i = 0; i < prog->nops; i++) {
		const struct op *op = &prog->ops[i];

		if (op->id == OP_BLOCK_WRITE) {
			fprintf(stderr, "%s:%u: %s would write to block device %s: refused without --allow-block-writes\n",
				prog->filename, op->line, op_info[op->id].name, blk->dev);
			return -1;
		}
	}
	return 0;
}

static int block_setup(struct client *c)
{
	const struct block_options *blk = c->be_opt;
	struct block_client *bc = xcalloc(1, sizeof(*bc));
	struct stat st;

	c->priv = bc;
	bc->fd = block_open(blk, c->prog, blk->direct ? O_DIRECT : 0);
	if (bc->fd < 0) {
		snprintf(c->error, sizeof(c->error), "--block %s: %s", blk->dev, strerror(errno));
		return -1;
	}
	/* the device the parent holds, and not another one the name leads
	 * to now (or a device where the parent checked a file) */
	if (fstat(bc->fd, &st) < 0 || S_ISBLK(st.st_mode) != (blk->claim >= 0) ||
	    (S_ISBLK(st.st_mode) && st.st_rdev != blk->rdev)) {
		snprintf(c->error, sizeof(c->error),
			 "--block %s: not the device the run checked and holds (it changed since the start): refused",
			 blk->dev);
		return -1;
	}
	return 0;
}

static void block_teardown(struct client *c)
{
	struct block_client *bc = c->priv;

	if (!bc)
		return;
	if (bc->fd >= 0)
		close(bc->fd);
	free(bc->buf[0]);
	free(bc->buf[1]);
	free(bc);
	c->priv = NULL;
}

/* The read buffer, or the write buffer (random bytes, never read into),
 * of at least len bytes. */
static char *block_buffer(struct client *c, struct block_client *bc, bool write, size_t len)
{
	void *p;

	if (len <= bc->bufsize[write])
		return bc->buf[write];
	if (posix_memalign(&p, BLOCK_ALIGN, len ? len : 1) != 0)
		return NULL;
	for (size_t i = 0; write && i < len; i += 8) {
		uint64_t r = rng_next(c->nc.rng);

		memcpy((char *)p + i, &r, len - i < 8 ? len - i : 8);
	}
	free(bc->buf[write]);
	bc->buf[write] = p;
	bc->bufsize[write] = len;
	return p;
}

/* Where an access of *len bytes at offset lands inside DEV. */
static uint64_t block_place(const struct block_options *blk, int64_t offset, int64_t *len)
{
	uint64_t off = (uint64_t)offset;

	if (*len < 0)
		*len = 0;
	if ((uint64_t)*len > blk->size)
		*len = (int64_t)blk->size;
	if (off >= blk->size)
		off %= blk->size;
	if (off + (uint64_t)*len > blk->size)
		off = blk->size - (uint64_t)*len;
	return off;
}

static uint32_t block_rw(struct client *c, bool write)
{
	const struct block_options *blk = c->be_opt;
	struct block_client *bc = c->priv;
	int64_t len = c->num[1];
	uint64_t off;
	char *buf;
	size_t done = 0;

	if (blk->trunc_io > 0 && len > blk->trunc_io)
		len = blk->trunc_io;	/* --trunc-io, as dbench 5.0 */
	off = block_place(blk, c->num[0], &len);

	if ((uint64_t)len > BLOCK_MAX_IO)
		return NT_STATUS_INVALID_PARAMETER;
	buf = block_buffer(c, bc, write, (size_t)len);
	if (!buf)
		return NT_STATUS_NO_MEMORY;
	while (done < (size_t)len) {
		ssize_t n = write ? pwrite(bc->fd, buf + done, (size_t)len - done, (off_t)(off + done))
				  : pread(bc->fd, buf + done, (size_t)len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return nt_from_errno(errno);
		}
		if (n == 0)
			return NT_STATUS_END_OF_FILE;
		done += (size_t)n;
	}
	c->bytes = done;
	return NT_STATUS_OK;
}

static uint32_t block_read(struct client *c, const struct op *op)
{
	(void)op;
	return block_rw(c, false);
}

static uint32_t block_write(struct client *c, const struct op *op)
{
	(void)op;
	return block_rw(c, true);
}

static uint32_t block_fdatasync(struct client *c, const struct op *op)
{
	struct block_client *bc = c->priv;

	(void)op;
	return fdatasync(bc->fd) < 0 ? nt_from_errno(errno) : NT_STATUS_OK;
}

/* No paths: nothing to clean up. */
static int block_remove_tree(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

static int block_exists(struct client *c, const char *path)
{
	(void)c;
	(void)path;
	return 0;
}

const struct backend block_backend = {
	.abi = BACKEND_ABI,
	.name = "block",
	.description = "READ/WRITE at byte offsets of a block device or file (--block=DEV)",
	.flags = BACKEND_BLOCK,
	.options = block_options,
	.options_size = sizeof(struct block_options),
	.init = block_init,
	.check_program = block_check_program,
	.setup = block_setup,
	.teardown = block_teardown,
	.remove_tree = block_remove_tree,
	.exists = block_exists,
	.op = {
		[OP_BLOCK_READ] = block_read,
		[OP_BLOCK_WRITE] = block_write,
		[OP_FDATASYNC] = block_fdatasync,
	},
};
