# tgtd.sh - a private iSCSI target for the tests and benchmarks: tgtd
# (Debian package tgt) in a network namespace of its own, with a private
# /run (its management socket lives there) in a mount namespace of its own,
# serving one LUN on a sparse file.  Sourced, not executed.
#
#   tgtd_start DIR [SIZE]   start it; the LUN file is DIR/lun.img (SIZE,
#                           default 64M); sets TGTD_NS (run clients with
#                           `ip netns exec "$TGTD_NS" ...`), TGTD_PID,
#                           TGTD_IQN and TGTD_URL (iscsi://127.0.0.1/IQN/1)
#   tgtd_adm ARGS...        run tgtadm against it
#   tgtd_stop               delete the target system, check tgtd is gone,
#                           remove the namespace
#
# tgtd ignores SIGTERM while it has targets: it is stopped with
# `tgtadm --op delete --mode system --force` after its target is taken
# offline and deleted (with targets, tgt 1.0.85 refuses that as an invalid
# request), and killed only if that fails.
# Names are unique per call, so parallel test runs do not meet.  Returns
# SRV_SKIP (77) when this machine cannot run it (no tgt, no namespaces).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# shellcheck source=srvutil.sh
. "$(dirname "${BASH_SOURCE[0]}")/srvutil.sh"

TGTD_NS=
TGTD_PID=
TGTD_IQN=
TGTD_URL=

tgtd_adm() {
	nsenter -t "$TGTD_PID" -m -n tgtadm --lld iscsi "$@"
}

# _tgtd_settled: true once tgtd answers tgtadm or has exited.
_tgtd_settled() {
	srv_alive "$TGTD_PID" || return 0
	tgtd_adm --op show --mode target >/dev/null 2>&1
}

# _tgtd_target_gone: delete target 1 (forced); true once that worked or
# there is no target 1 any more.
_tgtd_target_gone() {
	tgtd_adm --op delete --mode target --tid 1 --force >/dev/null 2>&1 && return 0
	! tgtd_adm --op show --mode target 2>/dev/null | grep -q '^Target 1:'
}

tgtd_start() {
	local dir=$1 size=${2:-64M} missing

	missing=$(srv_missing tgtd tgtadm ip unshare nsenter)
	if [ -n "$missing" ]; then
		echo "tgtd_start: $missing is not installed" >&2
		return $SRV_SKIP
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "tgtd_start: needs root (network and mount namespaces)" >&2
		return $SRV_SKIP
	fi
	TGTD_NS=dbench-tgtd-$$-$RANDOM
	if ! ip netns add "$TGTD_NS" 2>"$dir/tgtd-netns.err"; then
		echo "tgtd_start: cannot make a network namespace: $(cat "$dir/tgtd-netns.err")" >&2
		TGTD_NS=
		return $SRV_SKIP
	fi
	ip -n "$TGTD_NS" link set lo up
	truncate -s "$size" "$dir/lun.img"
	# ip netns exec, unshare and sh all exec: $! is tgtd itself.
	ip netns exec "$TGTD_NS" unshare --mount --propagation private \
		sh -c 'mount -t tmpfs dbench-tgtd-run /run && exec tgtd -f' \
		>"$dir/tgtd.log" 2>&1 </dev/null &
	TGTD_PID=$!
	TGTD_IQN=iqn.2026-01.org.dbench.test:$TGTD_NS
	TGTD_URL=iscsi://127.0.0.1/$TGTD_IQN/1
	if ! wait_for -t 10 "tgtd to answer tgtadm" _tgtd_settled || ! srv_alive "$TGTD_PID"; then
		echo "tgtd_start: tgtd did not come up:" >&2
		cat "$dir/tgtd.log" >&2
		tgtd_stop
		return 1
	fi
	tgtd_adm --op new --mode target --tid 1 -T "$TGTD_IQN" &&
		tgtd_adm --op new --mode logicalunit --tid 1 --lun 1 -b "$dir/lun.img" &&
		tgtd_adm --op bind --mode target --tid 1 -I ALL || {
		echo "tgtd_start: tgtadm could not make the target" >&2
		tgtd_stop
		return 1
	}
}

tgtd_stop() {
	local rc=0

	if [ -n "$TGTD_PID" ] && srv_alive "$TGTD_PID"; then
		# The system goes only without targets, and a target with
		# commands in flight refuses even a forced delete ("logical
		# unit is still active", tgt 1.0.85): take it offline first.
		tgtd_adm --op update --mode target --tid 1 -n state -v offline >/dev/null 2>&1 || true
		# (if it stays, the system delete below fails and tgtd is killed)
		wait_for -q -t 5 "target 1 to be deleted" _tgtd_target_gone || true
		nsenter -t "$TGTD_PID" -m -n tgtadm --op delete --mode system --force \
			>/dev/null 2>&1 || true
		if ! srv_wait_gone 10 "$TGTD_PID"; then
			echo "tgtd_stop: tgtd $TGTD_PID did not stop; killing it" >&2
			srv_is "$TGTD_PID" tgtd && kill -KILL "$TGTD_PID" 2>/dev/null || true
			srv_wait_gone 5 "$TGTD_PID" || true
			rc=1
		fi
	fi
	TGTD_PID=
	if [ -n "$TGTD_NS" ]; then
		ip netns del "$TGTD_NS" 2>/dev/null || true
		TGTD_NS=
	fi
	return $rc
}
