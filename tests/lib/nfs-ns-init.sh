# nfs-ns-init.sh - pid 1 of the private namespace that nfs.sh starts.
#
# rpcbind always listens on port 111 of every address, so the test NFS server
# runs in a network namespace of its own (only `lo`), with a private /run.
# This script, run by `unshare` as pid 1 there, starts rpcbind and ganesha,
# reports in DIR/ns-state, then holds the namespace open and reaps.  On
# SIGTERM it stops ganesha and rpcbind and exits; its death ends the
# namespace.  Usage: bash nfs-ns-init.sh DIR [nlm]
# With `nlm`, rpc.statd runs too: ganesha's NLM needs it to grant locks.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# shellcheck source=tests/lib/wait.sh
. "${BASH_SOURCE[0]%/*}/wait.sh"

dir=$1
nlm=${2:-}
rpcbind_pid=
statd_pid=
ganesha_pid=

fail() {
	echo "failed: $*" >"$dir/ns-state"
	exit 1
}

stop_all() {
	# SIGCONT too: a test may have stopped ganesha to play a hung server.
	[ -n "$ganesha_pid" ] && kill -TERM "$ganesha_pid" 2>/dev/null
	[ -n "$ganesha_pid" ] && kill -CONT "$ganesha_pid" 2>/dev/null
	[ -n "$ganesha_pid" ] && wait "$ganesha_pid" 2>/dev/null
	[ -n "$statd_pid" ] && kill -TERM "$statd_pid" 2>/dev/null
	[ -n "$statd_pid" ] && wait "$statd_pid" 2>/dev/null
	[ -n "$rpcbind_pid" ] && kill -TERM "$rpcbind_pid" 2>/dev/null
	[ -n "$rpcbind_pid" ] && wait "$rpcbind_pid" 2>/dev/null
	exit 0
}

# Without a handler, pid 1 of a namespace ignores SIGTERM.
trap stop_all TERM INT

[ -d "$dir" ] || fail "no directory $dir"
mount -n -t tmpfs -o mode=755 tmpfs /run || fail "cannot mount a private /run"
mkdir -p /run/rpcbind
# Anything ganesha writes under /var/lib/nfs stays in the namespace too.
# (-n: no utab, which would create /run/mount on the host first.)
mount -n -t tmpfs -o mode=755 tmpfs /var/lib/nfs 2>/dev/null
ip link set lo up || fail "cannot bring up lo in the namespace"

# answers: true once CMD... succeeds or process $1 has exited (the caller
# tells which).
answers() {
	local pid=$1
	shift
	kill -0 "$pid" 2>/dev/null || return 0
	"$@" >/dev/null 2>&1
}

statd_registered() {
	rpcinfo -p 127.0.0.1 2>/dev/null | grep -q ' status$'
}

rpcbind -f </dev/null >"$dir/rpcbind.out" 2>&1 &
rpcbind_pid=$!
wait_for -q -t 15 "rpcbind to answer" answers "$rpcbind_pid" rpcinfo -p 127.0.0.1 ||
	fail "rpcbind did not answer within $WAIT_FOR_WAITED"
kill -0 "$rpcbind_pid" 2>/dev/null || fail "rpcbind exited: $(tail -n 2 "$dir/rpcbind.out")"

if [ "$nlm" = nlm ]; then
	mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak
	rpc.statd -F -L </dev/null >"$dir/statd.out" 2>&1 &
	statd_pid=$!
	wait_for -q -t 5 "rpc.statd to register" answers "$statd_pid" statd_registered ||
		fail "rpc.statd did not register within $WAIT_FOR_WAITED"
	kill -0 "$statd_pid" 2>/dev/null || fail "rpc.statd exited: $(tail -n 2 "$dir/statd.out")"
fi

ganesha.nfsd -F -f "$dir/ganesha.conf" -L "$dir/ganesha.log" \
	-p "$dir/ganesha.pid" </dev/null >"$dir/ganesha.out" 2>&1 &
ganesha_pid=$!
echo started >"$dir/ns-state"

# Hold the namespace: `wait` returns when a signal arrives (the trap runs)
# and reaps ganesha if a test kills it.
sleep infinity &
while :; do
	wait
done
