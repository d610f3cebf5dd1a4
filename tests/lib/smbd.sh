# smbd.sh - start and stop a private smbd for the test suite.
#
# The SMB backend is tested against a real Samba server, but never against
# the machine's own: smbd_start runs an smbd of its own from a temporary
# directory, on 127.0.0.1 and a free port, and smbd_stop / smbd_kill stop
# only that smbd (its process group) and what it started.  Sourced by bats
# tests and scripts:
#
#	. tests/lib/smbd.sh
#	smbd_start || exit		# 77 (SRV_SKIP): cannot run here
#	smbclient -s "$SMBD_CONF" -p "$SMBD_PORT" -N //127.0.0.1/share -c ls
#	smbd_stop
#
# Return codes: 0 done; 1 failed (message on stderr and in SMBD_ERROR);
# 77 cannot run here, e.g. samba is not installed (reason in SMBD_ERROR).
#
# Call the start function directly, not under bats' `run` (a subshell would
# lose the variables it sets).  In bats: `srv_start_or_skip smbd_start` skips the
# test, with the reason, when the machine cannot run the server.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# Where this file is (no external tools: the missing-tool check comes later).
_SRV_LIB_DIR=${BASH_SOURCE[0]%/*}
[ "$_SRV_LIB_DIR" = "${BASH_SOURCE[0]}" ] && _SRV_LIB_DIR=.
_SRV_LIB_DIR=$(cd "$_SRV_LIB_DIR" && pwd)
# shellcheck source=tests/lib/srvutil.sh
. "$_SRV_LIB_DIR/srvutil.sh"

SMBD_READY_SECONDS=15	# give up waiting for a starting smbd after this
SMBD_STOP_SECONDS=10	# after this, SIGTERM becomes SIGKILL

# _smbd_error MESSAGE: report why and remember it (in SMBD_ERROR, SRV_ERROR).
_smbd_error() {
	SMBD_ERROR="smbd: $1"
	# shellcheck disable=SC2034 # read by srv_start_or_skip and tests
	SRV_ERROR=$SMBD_ERROR
	echo "$SMBD_ERROR" >&2
}

# _smbd_write_conf DIR PORT: the smb.conf of a private, loopback-only smbd.
# Every path it writes lives under DIR; it never starts RPC helpers.
# SMBD_EXTRA_CONF, if set, is appended as it is: more shares, or a second
# [global] section with settings of the test's own (smb.conf merges them).
_smbd_write_conf() {
	cat >"$1/smb.conf" <<EOF
# Private smbd for the dbench test suite (tests/lib/smbd.sh).
[global]
	server role = standalone server
	workgroup = WORKGROUP
	netbios name = DBTEST
	smb ports = $2
	interfaces = 127.0.0.1
	bind interfaces only = yes
	disable netbios = yes
	pid directory = $1/run
	lock directory = $1/lock
	state directory = $1/state
	cache directory = $1/cache
	private dir = $1/private
	ncalrpc dir = $1/ncalrpc
	passdb backend = tdbsam:$1/private/passdb.tdb
	log file = $1/log/log.%m
	log level = 1
	map to guest = Bad User
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes
	usershare path =
	rpc start on demand helpers = no
[share]
	path = $1/share
	read only = no
	guest ok = yes
	force user = root
	create mask = 0644
	directory mask = 0755
[private]
	path = $1/private-share
	read only = no
	guest ok = no
	valid users = root
	create mask = 0644
	directory mask = 0755
${SMBD_EXTRA_CONF:-}
EOF
}

# _smbd_settled: true once the share answers or the smbd has died.
_smbd_settled() {
	srv_alive "$SMBD_PID" || return 0
	timeout 5 smbclient -s "$SMBD_CONF" -p "$SMBD_PORT" -N \
		//127.0.0.1/share -c ls </dev/null >/dev/null 2>&1
}

# _smbd_ready: poll until the share answers, the smbd dies, or time runs out.
# Returns 0 ready, 1 died, 2 timed out (WAIT_FOR_WAITED says after how long).
_smbd_ready() {
	wait_for -q -t "$SMBD_READY_SECONDS" "smbd to serve the share" _smbd_settled || return 2
	srv_alive "$SMBD_PID" || return 1
	return 0
}

# _smbd_launch: write the config for a fresh port, start smbd, wait for it.
# Returns like _smbd_ready.
_smbd_launch() {
	SMBD_PORT=$(srv_free_port) || return 2
	_smbd_write_conf "$SMBD_DIR" "$SMBD_PORT" || return 2
	# -F keeps smbd in the foreground (its pid is $!), and smbd makes itself
	# a session and process group leader.  fd 3 is closed for bats.
	smbd -F -l "$SMBD_DIR/log" -s "$SMBD_CONF" </dev/null \
		>"$SMBD_DIR/log/smbd.out" 2>&1 3>&- &
	SMBD_PID=$!
	_smbd_ready
}

# smbd_start: start a private smbd; export SMBD_PORT SMBD_DIR SMBD_PID
# SMBD_CONF SMBD_SHARE_DIR SMBD_PRIVATE_DIR SMBD_USER SMBD_PASS.
# Share `share` is open to guests; share `private` needs SMBD_USER.
smbd_start() {
	local missing try rc=1

	SMBD_ERROR=
	missing=$(srv_missing smbd smbclient smbpasswd perl pgrep timeout)
	[ -z "$missing" ] ||
		{ _smbd_error "$missing is not installed"; return "$SRV_SKIP"; }
	[ "$(id -u)" = 0 ] ||
		{ _smbd_error "needs root (the share is served as root)"; return "$SRV_SKIP"; }
	if srv_alive "${SMBD_PID:-}"; then
		_smbd_error "already running (pid $SMBD_PID); call smbd_stop first"
		return 1
	fi
	SMBD_DIR=$(mktemp -d -t dbench-smbd.XXXXXX) ||
		{ _smbd_error "cannot create a temporary directory"; return 1; }
	mkdir -p "$SMBD_DIR"/{share,private-share,run,lock,state,cache,private,log,ncalrpc}
	SMBD_CONF=$SMBD_DIR/smb.conf
	SMBD_SHARE_DIR=$SMBD_DIR/share
	SMBD_PRIVATE_DIR=$SMBD_DIR/private-share
	SMBD_USER=root
	SMBD_PASS=dbench-test-pw
	export SMBD_DIR SMBD_CONF SMBD_SHARE_DIR SMBD_PRIVATE_DIR SMBD_USER SMBD_PASS

	# The port may be taken between the probe and smbd's bind: try again.
	for (( try = 0; try < 3; try++ )); do
		rc=0
		_smbd_launch || rc=$?
		[ "$rc" -eq 1 ] || break
		wait "$SMBD_PID" 2>/dev/null || true
	done
	export SMBD_PORT SMBD_PID
	case $rc in
	0)	;;
	1)	_smbd_error "smbd exited while starting: $(tail -n 3 "$SMBD_DIR/log/smbd.out" 2>/dev/null | tr '\n' ' ')"
		smbd_stop 2>/dev/null || true
		return 1 ;;
	*)	_smbd_error "not ready after ${WAIT_FOR_WAITED:-${SMBD_READY_SECONDS}s} on port ${SMBD_PORT:-?}; log in $SMBD_DIR/log"
		smbd_stop 2>/dev/null || true
		return 1 ;;
	esac

	# Samba needs a Unix account behind a password user: root is there.
	if ! printf '%s\n%s\n' "$SMBD_PASS" "$SMBD_PASS" |
		smbpasswd -c "$SMBD_CONF" -s -a "$SMBD_USER" >/dev/null 2>&1; then
		_smbd_error "smbpasswd could not add user $SMBD_USER"
		smbd_stop 2>/dev/null || true
		return 1
	fi
	return 0
}

# _smbd_signal_all SIGNAL: signal our smbd's process group, or only its pid
# when it is (unexpectedly) not a group leader, and the samba-dcerpcd it
# started (its pid file is in our run directory).
_smbd_signal_all() {
	local pgid dcerpcd

	# a pid that is no longer smbd is not ours any more (pids wrap): leave it
	if srv_alive "$SMBD_PID" && ! srv_is "$SMBD_PID" smbd; then
		:
	elif srv_alive "$SMBD_PID"; then
		pgid=$(ps -o pgid= -p "$SMBD_PID" | tr -d ' ')
		if [ "$pgid" = "$SMBD_PID" ] && [ "$pgid" != "$(srv_own_pgid)" ]; then
			kill "-$1" -- "-$pgid" 2>/dev/null || true
			# A stopped (SIGSTOP) smbd acts on SIGTERM only once continued.
			kill -CONT -- "-$pgid" 2>/dev/null || true
		else
			kill "-$1" "$SMBD_PID" 2>/dev/null || true
			kill -CONT "$SMBD_PID" 2>/dev/null || true
		fi
	elif [ "$1" = KILL ] && [ -n "$SMBD_PID" ] &&
		[ "$SMBD_PID" != "$(srv_own_pgid)" ]; then
		kill -KILL -- "-$SMBD_PID" 2>/dev/null || true # orphans
	fi
	dcerpcd=$(cat "$SMBD_DIR/run/samba-dcerpcd.pid" 2>/dev/null) || dcerpcd=
	if [ -n "$dcerpcd" ] && srv_alive "$dcerpcd" &&
		[ "$(cat "/proc/$dcerpcd/comm" 2>/dev/null)" = samba-dcerpcd ]; then
		kill "-$1" "$dcerpcd" 2>/dev/null || true
		kill -CONT "$dcerpcd" 2>/dev/null || true
		_SMBD_DCERPCD=$dcerpcd
	fi
}

# _smbd_gone SECONDS: wait until smbd, its group and samba-dcerpcd are gone.
_smbd_gone() {
	srv_wait_gone "$1" "$SMBD_PID" ${_SMBD_DCERPCD:+"$_SMBD_DCERPCD"} &&
		srv_wait_group_gone "$1" "$SMBD_PID"
}

# smbd_stop: stop our smbd and all it started, wait until they are gone,
# remove the temporary directory.  Safe to call twice or after a failed start.
smbd_stop() {
	local rc=0

	if [ -n "${SMBD_PID:-}" ]; then
		_smbd_signal_all TERM
		if ! _smbd_gone "$SMBD_STOP_SECONDS"; then
			_smbd_signal_all KILL
			_smbd_gone 5 || rc=1
		fi
	fi
	if [ "$rc" -ne 0 ]; then
		_smbd_error "smbd $SMBD_PID would not stop; $SMBD_DIR left in place"
		return 1
	fi
	case ${SMBD_DIR:-} in
	*/dbench-smbd.*) rm -rf -- "$SMBD_DIR" ;;
	esac
	unset SMBD_PID SMBD_DIR SMBD_CONF SMBD_PORT SMBD_SHARE_DIR \
		SMBD_PRIVATE_DIR SMBD_USER SMBD_PASS _SMBD_DCERPCD
	return 0
}

# smbd_kill: SIGKILL our smbd and all its processes at once, as a crash
# would, and wait until they are gone.  The directory stays for smbd_stop.
smbd_kill() {
	[ -n "${SMBD_PID:-}" ] || { _smbd_error "no smbd of ours to kill"; return 1; }
	_smbd_signal_all KILL
	_smbd_gone 5 || { _smbd_error "smbd $SMBD_PID survived SIGKILL"; return 1; }
}
