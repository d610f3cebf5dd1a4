/*
 * backend.c - the table of backends built into this program.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <string.h>

#include "backend.h"

const struct backend *const backends[] = {
	&fileio_backend,
	&sockio_backend,
#ifdef HAVE_SMB
	&smb_backend,
#endif
#ifdef HAVE_NFS
	&nfs_backend,
#endif
	&block_backend,
	&scsi_backend,
#ifdef HAVE_ISCSI
	&iscsi_backend,
#endif
	&null_backend,
	NULL,
};

const struct backend *backend_find(const char *name)
{
	for (int i = 0; backends[i]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
