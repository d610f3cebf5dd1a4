#!/bin/bash
# netns-agent.sh - mpirun's remote shell (--mca plm_rsh_agent) for "hosts"
# that are network namespaces: mpirun calls it as ssh (options, HOST,
# command); it runs the command in the namespace $NETNS_AGENT_PREFIX$HOST
# with HOST as its hostname.  Used by tests/cli/mpi_hosts.bats and
# bench/mpi.sh NS=1 (../shared/docs/multi-host.md has the recipe).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
while [[ "$1" == -* ]]; do shift; done
host=$1
shift
exec ip netns exec "${NETNS_AGENT_PREFIX:?netns-agent.sh: NETNS_AGENT_PREFIX is not set}$host" \
	unshare --uts sh -c "hostname $host; $*"
