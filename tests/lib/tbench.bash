# tbench.bash - bats helpers for the tbench tests: a private tbench_srv on
# a free port, the test client, and checks that nothing is left behind.
#
# DBENCH_BUILDDIR is the build tree (make check sets it; by hand it
# defaults to build/ of this source tree, then the source tree itself).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

TB_TOP=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
if [ -z "${DBENCH_BUILDDIR:-}" ]; then
	if [ -x "$TB_TOP/build/src/tbench_srv" ]; then
		DBENCH_BUILDDIR=$TB_TOP/build
	else
		DBENCH_BUILDDIR=$TB_TOP
	fi
fi
TBENCH_SRV=${TBENCH_SRV:-$DBENCH_BUILDDIR/src/tbench_srv}
TBENCH_ABUSE=${TBENCH_ABUSE:-$DBENCH_BUILDDIR/tests/tools/tbench_abuse}
TBENCH=${TBENCH:-$DBENCH_BUILDDIR/src/tbench}
# assert_no_procs, wait_running, wait_for and the process helpers
# shellcheck source=tests/cli/helpers.bash
. "$TB_TOP/tests/cli/helpers.bash"

# A private temp dir per test: $T.  Every server started here has $T in
# its command line (the pid file), which is how leftovers are found.
tb_setup() {
	T=$(mktemp -d /tmp/tbench-test.XXXXXX)
	SRV_PID=
	PORT=
}

tb_teardown() {
	local pid
	[ -n "${T:-}" ] || return 0
	for pid in $(pgrep -f -- "$T"); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	rm -rf "$T"
}

# Is IPv6 loopback usable here?
have_ipv6() {
	"$TBENCH_ABUSE" free-port ::1 >/dev/null 2>&1
}

# TB_WORKERS=N: start_srv runs the server with --workers N (connections
# multiplexed on N event loops) instead of a process per connection; the
# helpers below count connections from its log then.
TB_WORKERS=${TB_WORKERS:-}

# start_srv [OPTION...]: start tbench_srv -v -p 0 (unless -p is given) with
# a pid file in $T; wait until it listens; set SRV_PID and PORT.
start_srv() {
	local port_opt="-p 0" workers_opt= a
	for a in "$@"; do
		case $a in -p|--port|--port=*) port_opt= ;; esac
	done
	[ -n "$TB_WORKERS" ] && workers_opt="--workers $TB_WORKERS"
	# shellcheck disable=SC2086
	"$TBENCH_SRV" -v $port_opt $workers_opt --pid-file "$T/srv.pid" "$@" 2>"$T/srv.log" 3>&- &
	if wait_for -t 5 "tbench_srv to listen" tbench_srv_listening; then
		SRV_PID=$(cat "$T/srv.pid")
		return 0
	fi
	cat "$T/srv.log" >&2
	return 1
}

# The server's processes: one a connection, or its workers (TB_WORKERS).
srv_children() {
	pgrep -P "$SRV_PID" || true
}

# srv_conns: the connections the server holds: its connection processes,
# or (TB_WORKERS) those its log says were taken and have not ended.
srv_conns() {
	if [ -n "$TB_WORKERS" ]; then
		awk '/: connected \(/ { n++ } /: disconnected \(/ { n-- } END { print n + 0 }' "$T/srv.log"
	else
		srv_children | wc -l
	fi
}

# srv_has_children N: true when the server holds N connections.
srv_has_children() {
	[ "$(srv_conns)" -eq "$1" ]
}

# wait_children N: wait until the server holds N connections, up to 30 s
# (a loaded machine is slow to connect and fork); fails loudly if not.
wait_children() {
	wait_for -t 30 "the server to hold $1 connections" srv_has_children "$1" &&
		return 0
	echo "the server holds $(srv_conns) connections, not $1" >&2
	return 1
}

# stop_srv [SIGNAL]: stop the server; it must exit 0 within 5 s and leave
# no process and no pid file behind.
stop_srv() {
	local sig=${1:-TERM}
	kill -"$sig" "$SRV_PID"
	wait_for -t 5 "tbench_srv to exit after SIG$sig" ! srv_alive "$SRV_PID" || return 1
	# its exit status, when it is this shell's child (127: it is not)
	local rc=0
	wait "$SRV_PID" 2>/dev/null || rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 127 ]; then
		echo "tbench_srv exited $rc after SIG$sig, not 0" >&2
		return 1
	fi
	assert_no_procs
	if [ -e "$T/srv.pid" ]; then
		echo "pid file left behind" >&2
		return 1
	fi
}

# abuse HOST TEST [ARGS]: run the test client against the server.
abuse() {
	local host=$1
	shift
	"$TBENCH_ABUSE" "$host" "$PORT" "$@"
}
