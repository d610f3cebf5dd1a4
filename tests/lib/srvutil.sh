# srvutil.sh - small process and port helpers shared by smbd.sh and nfs.sh.
#
# The server helpers start real daemons for the test suite; these functions
# let them wait for a process to go away without ever touching one they did
# not start, and find a free TCP port on 127.0.0.1.  Sourced, not executed.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# wait_for, beside this file.
_SRVUTIL_DIR=${BASH_SOURCE[0]%/*}
[ "$_SRVUTIL_DIR" = "${BASH_SOURCE[0]}" ] && _SRVUTIL_DIR=.
# shellcheck source=tests/lib/wait.sh
. "$_SRVUTIL_DIR/wait.sh"

# The return code of a helper that cannot run here (a tool is missing, the
# kernel refuses namespaces): tests turn it into a bats `skip`.  77 is the
# automake "skipped" code.
SRV_SKIP=77

# srv_alive PID: true while PID exists and is not a zombie.
# No fork (it runs in every wait loop): read /proc/PID/stat, the state is
# the field after the command name's closing parenthesis.
srv_alive() {
	local stat

	[ -n "$1" ] || return 1
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ -n "$stat" ] && [ "${stat%% *}" != Z ]
}

# srv_is PID NAME: true while PID is alive and runs NAME (its comm).  A pid
# kept for minutes may be another process by now: pids wrap within minutes
# on a machine that runs the test suites of several people (pid_max 32768),
# so a helper checks this before it kills a pid it noted long ago.
srv_is() {
	srv_alive "$1" && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

# srv_group_alive PGID: true while any live process is in process group PGID.
srv_group_alive() {
	local pid

	[ -n "$1" ] || return 1
	for pid in $(pgrep -g "$1" 2>/dev/null); do
		srv_alive "$pid" && return 0
	done
	return 1
}

# srv_gone PID...: true when none of the PIDs is alive.
srv_gone() {
	local pid

	for pid in "$@"; do
		srv_alive "$pid" && return 1
	done
	return 0
}

# srv_wait_gone SECONDS PID...: wait until none of the PIDs is alive.  Reaps
# them when they are children of this shell.  Returns 1 on timeout, quietly
# (the caller says what it does about it).
srv_wait_gone() {
	local secs=$1 pid rc=0
	shift

	wait_for -q -t "$secs" "processes $* to end" srv_gone "$@" || rc=1
	for pid in "$@"; do
		# Reap only what is gone: `wait` on a live child would block.
		# The braces also silence bash's "Killed" notice for the job.
		srv_alive "$pid" || { wait "$pid"; } 2>/dev/null || true
	done
	return "$rc"
}

# srv_wait_group_gone SECONDS PGID: wait until process group PGID is empty.
srv_wait_group_gone() {
	wait_for -q -t "$1" "process group $2 to end" ! srv_group_alive "$2"
}

# srv_port_free PORT: true when a TCP socket can bind 127.0.0.1:PORT now.
srv_port_free() {
	perl -MSocket -e '
		socket(my $s, PF_INET, SOCK_STREAM, 0) or exit 2;
		bind($s, pack_sockaddr_in($ARGV[0], inet_aton("127.0.0.1")))
			or exit 1;
		exit 0;' "$1" 2>/dev/null
}

# srv_free_port: print a TCP port that is free on 127.0.0.1, picked at random
# below the kernel's ephemeral range so outgoing connections do not take it.
srv_free_port() {
	local i port

	for (( i = 0; i < 100; i++ )); do
		port=$(( 20000 + RANDOM % 12000 ))
		if srv_port_free "$port"; then
			echo "$port"
			return 0
		fi
	done
	echo "no free TCP port found on 127.0.0.1 after 100 tries" >&2
	return 1
}

# srv_missing TOOL...: print the first of the tools that is not installed
# (nothing when all are); the caller turns it into a SRV_SKIP.
srv_missing() {
	local tool

	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "$tool"
			return 0
		fi
	done
}

# srv_own_pgid: print the process group of this shell (never to be signalled).
srv_own_pgid() {
	ps -o pgid= -p "$$" | tr -d ' '
}

# srv_netns_procs NETNS: print the live processes whose network namespace is
# NETNS (as readlink /proc/PID/ns/net prints it, e.g. net:[4026532247]).
# One find over /proc, not a readlink a process: on a loaded machine a fork
# a process of the host took minutes.
srv_netns_procs() {
	local p

	[ -n "$1" ] || return 0
	# never the namespace of the caller (every process of the host)
	[ "$1" != "$(readlink /proc/self/ns/net 2>/dev/null)" ] || return 0
	find /proc/[0-9]*/ns/net -maxdepth 0 \
		-lname "$(printf '%s' "$1" | sed 's/[][*?\\]/\\&/g')" 2>/dev/null |
		while IFS= read -r p; do
			p=${p#/proc/}
			p=${p%%/*}
			srv_alive "$p" && echo "$p"
		done
	return 0
}

# srv_start_or_skip START_FUNCTION: for bats tests: run smbd_start or
# nfs_ns_start; when the machine cannot run the server, `skip` the test with
# the reason; when it fails, fail the test.
srv_start_or_skip() {
	local rc=0

	"$1" || rc=$?
	[ "$rc" -eq "$SRV_SKIP" ] && skip "$SRV_ERROR"
	return "$rc"
}
