# nfs.sh - start and stop a private NFSv3 server (nfs-ganesha) for the tests.
#
# ganesha serves NFSv3 only through rpcbind, and rpcbind takes port 111 on
# every address, so both run inside a private network + mount + pid namespace
# (unshare) where only `lo` exists.  The client runs in the same network
# namespace through nfs_ns_exec and reaches the server at 127.0.0.1.  Sourced
# by bats tests and scripts:
#
#	. tests/lib/nfs.sh
#	nfs_ns_start || exit		# 77 (SRV_SKIP): cannot run here
#	nfs_ns_exec nfs-ls "$NFS_URL"
#	nfs_stop
#
# Return codes: 0 done; 1 failed (message on stderr and in NFS_ERROR);
# 77 cannot run here: a tool is missing or the kernel refuses namespaces
# (reason in NFS_ERROR).  Set NFS_ENABLE_NLM=1 before nfs_ns_start to have
# ganesha serve NLM (byte-range locks) too, with rpc.statd beside it.
#
# On a bridge, for clients in other namespaces (tests/cli/mpi_hosts.bats):
# set NFS_NETNS to a network namespace the caller made with `ip netns add`
# and joined to its bridge, and NFS_ADDR to that namespace's address there.
# rpcbind and ganesha then run in that namespace (still in a private mount
# and pid namespace), NFS_URL is nfs://$NFS_ADDR/export, and every host on
# the bridge reaches the server at NFS_ADDR.  The namespace stays the
# caller's to delete; nfs_stop ends every process in it, so it should hold
# nothing else.
#
#	ip netns add t1srv; ...veth to the bridge, 10.9.0.5/24 on it...
#	NFS_NETNS=t1srv NFS_ADDR=10.9.0.5 nfs_ns_start || exit
#	ip netns exec t1h2 nfs-ls "$NFS_URL"
#	nfs_stop; ip netns del t1srv
#
# One server for a whole bats file (each start and stop costs seconds):
# start it in setup_file (its variables are exported to the tests), stop it
# in teardown_file.  A test that needs a server of its own (one it kills,
# stops or configures otherwise) calls nfs_forget, then nfs_ns_start: the
# variables name its server from then on, nfs_stop in its teardown stops
# that one, and the file's server is left to teardown_file.
#
#	setup_file() { . tests/lib/nfs.sh; nfs_file_start; }
#	teardown_file() { nfs_stop; }
#	setup() { . tests/lib/nfs.sh; nfs_export_clear; }
#	teardown() { [ -z "${OWN_NFS:-}" ] || nfs_stop; }
#	@test ... { nfs_shared_server; ... }
#	@test ... { nfs_own_server; ... }	# nfs_forget, then nfs_ns_start
#
# Call the start function directly, not under bats' `run` (a subshell would
# lose the variables it sets).  In bats: `srv_start_or_skip nfs_ns_start` skips the
# test, with the reason, when the machine cannot run the server.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# Where this file is (no external tools: the missing-tool check comes later).
_SRV_LIB_DIR=${BASH_SOURCE[0]%/*}
[ "$_SRV_LIB_DIR" = "${BASH_SOURCE[0]}" ] && _SRV_LIB_DIR=.
_SRV_LIB_DIR=$(cd "$_SRV_LIB_DIR" && pwd)
# shellcheck source=tests/lib/srvutil.sh
. "$_SRV_LIB_DIR/srvutil.sh"

NFS_READY_SECONDS=15	# give up waiting for a starting server after this
NFS_STOP_SECONDS=5	# after this, the namespace is killed outright

# _nfs_error MESSAGE: report why and remember it (in NFS_ERROR, SRV_ERROR).
_nfs_error() {
	NFS_ERROR="nfs: $1"
	# shellcheck disable=SC2034 # read by srv_start_or_skip and tests
	SRV_ERROR=$NFS_ERROR
	echo "$NFS_ERROR" >&2
}

# _nfs_write_conf DIR: ganesha.conf for a VFS export of DIR/export at
# /export, NFSv3 only (NFS_PROTOCOLS=4: NFSv4 only, no v3 mount; NFS_LEASE=N:
# an NFSv4 lease of N seconds instead of ganesha's 60; NFS_PRIVILEGED_PORT=1:
# the export served only to clients on reserved ports, below 1024).  Bind_addr
# stays out: it does not resolve inside the namespace.  No directory-entry
# cache and attributes always fetched anew: the tests that share a server
# empty the export directly between tests (nfs_export_clear), and a cached
# entry of what a test before left would answer NOENT for the next
# test's new tree (seen: a Deltree expected OK, got NOT_FOUND).
_nfs_write_conf() {
	local nlm=false privileged=false protocols=${NFS_PROTOCOLS:-3}

	[ "${NFS_ENABLE_NLM:-0}" = 1 ] && nlm=true
	[ "${NFS_PRIVILEGED_PORT:-0}" = 1 ] && privileged=true
	cat >"$1/ganesha.conf" <<EOF
# Private nfs-ganesha for the dbench test suite (tests/lib/nfs.sh).
NFS_CORE_PARAM {
	NFS_Port = 2049;
	MNT_Port = 20048;
	Enable_NLM = $nlm;
	Enable_RQUOTA = false;
	Enable_UDP = false;
	Protocols = $protocols;
	mount_path_pseudo = true;
}
NFS_KRB5 { Active_krb5 = false; }
NFSV4 { Graceless = true; RecoveryRoot = "$1/recov";${NFS_LEASE:+ Lease_Lifetime = $NFS_LEASE;} }
MDCACHE { Dir_Chunk = 0; }
EXPORT {
	Export_Id = 1;
	Attr_Expiration_Time = 0;
	Path = "$1/export";
	Pseudo = "/export";
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
	Protocols = $protocols;
	Transports = TCP;
	PrivilegedPort = $privileged;
	FSAL { Name = VFS; }
}
EOF
}

# _nfs_probe_namespaces: can this machine create the namespaces we need?
_nfs_probe_namespaces() {
	local out

	out=$(unshare --net --mount --propagation private --pid --fork \
		--kill-child --mount-proc true 2>&1 </dev/null) && return 0
	_nfs_error "cannot create private namespaces here (${out:-unshare failed})"
	return "$SRV_SKIP"
}

# _nfs_netns_check: with NFS_NETNS set, check the caller's namespace and
# address; sets _NFS_UNSHARE, the command that makes the server's namespaces
# (a new network namespace, or the caller's named one).
_nfs_netns_check() {
	_NFS_UNSHARE=(unshare --net --mount --propagation private --pid --fork
		--kill-child --mount-proc)
	[ -n "${NFS_NETNS:-}" ] || return 0
	[ -n "${NFS_ADDR:-}" ] ||
		{ _nfs_error "NFS_NETNS=$NFS_NETNS needs NFS_ADDR (the server's address there)"; return 1; }
	ip netns exec "$NFS_NETNS" true 2>/dev/null </dev/null ||
		{ _nfs_error "no network namespace '$NFS_NETNS' (make it with ip netns add)"; return 1; }
	ip -n "$NFS_NETNS" -o addr show 2>/dev/null | grep -q " inet $NFS_ADDR/" ||
		{ _nfs_error "namespace $NFS_NETNS has no address $NFS_ADDR"; return 1; }
	_NFS_UNSHARE=(ip netns exec "$NFS_NETNS" unshare --mount --propagation private
		--pid --fork --kill-child --mount-proc)
}

# _nfs_pin_netns: note the namespace's identity (_NFS_NETNS, its inode
# number, how srv_netns_procs finds every process in it) and hold it open
# until nfs_stop is done: the kernel gives a freed number to the next
# namespace made at once, and without the hold nfs_stop could take the
# processes of a namespace a parallel test made for ours, and kill them.
_nfs_pin_netns() {
	_NFS_NETNS=$(readlink "/proc/$NFS_NS_PID/ns/net") || return 0
	exec {_NFS_NETNS_PIN}<"/proc/$NFS_NS_PID/ns/net" || _NFS_NETNS_PIN=
}

# _nfs_holder_settled: true once unshare has exited or pid 1 of the namespace
# has reported in ns-state; notes NFS_NS_PID (and pins the namespace) as soon
# as that process is there.
_nfs_holder_settled() {
	srv_alive "$_NFS_UNSHARE_PID" || return 0
	if [ -z "${NFS_NS_PID:-}" ]; then
		NFS_NS_PID=$(pgrep -P "$_NFS_UNSHARE_PID" | head -n 1)
		[ -z "$NFS_NS_PID" ] || _nfs_pin_netns
	fi
	case $(cat "$NFS_DIR/ns-state" 2>/dev/null) in
	started) [ -n "$NFS_NS_PID" ] ;;
	failed*) return 0 ;;
	*) return 1 ;;
	esac
}

# _nfs_wait_holder: wait for unshare's child (pid 1 of the namespace) and for
# its report in ns-state.  Sets NFS_NS_PID and _NFS_NETNS (the namespace's
# identity, to find every process in it at the end).
_nfs_wait_holder() {
	local state

	wait_for -q -t 20 "the namespace to start rpcbind and ganesha" _nfs_holder_settled ||
		{ _nfs_error "the namespace did not start rpcbind and ganesha within $WAIT_FOR_WAITED"; return 1; }
	srv_alive "$_NFS_UNSHARE_PID" ||
		{ _nfs_error "unshare exited: $(tail -n 2 "$NFS_DIR/ns.out" 2>/dev/null)"; return 1; }
	state=$(cat "$NFS_DIR/ns-state" 2>/dev/null)
	case $state in
	failed*) _nfs_error "namespace setup ${state}"; return 1 ;;
	esac
	return 0
}

# _nfs_export_settled: true once the export answers nfs-ls, or the namespace
# or ganesha has ended.
_nfs_export_settled() {
	srv_alive "$NFS_NS_PID" && pgrep -P "$NFS_NS_PID" -x ganesha.nfsd >/dev/null || return 0
	nfs_ns_exec timeout 5 nfs-ls "$NFS_URL$_NFS_LS_QUERY" >/dev/null 2>&1
}

# _nfs_wait_ready: poll with nfs-ls until the export answers.
_nfs_wait_ready() {
	wait_for -q -t "$NFS_READY_SECONDS" "the export to answer" _nfs_export_settled ||
		{ _nfs_error "export not ready after $WAIT_FOR_WAITED; log in $NFS_DIR/ganesha.log"; return 1; }
	srv_alive "$NFS_NS_PID" ||
		{ _nfs_error "the namespace ended while starting: $(tail -n 2 "$NFS_DIR/ns.out" 2>/dev/null | tr '\n' ' ')"; return 1; }
	pgrep -P "$NFS_NS_PID" -x ganesha.nfsd >/dev/null ||
		{ _nfs_error "ganesha exited while starting: $(tail -n 3 "$NFS_DIR/ganesha.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
	return 0
}

# nfs_ns_start: start rpcbind and ganesha in a private namespace; export
# NFS_DIR NFS_EXPORT_DIR NFS_URL NFS_NS_PID.  NFS_PROTOCOLS=4: a v4-only server.
# NFS_NETNS and NFS_ADDR: in the caller's namespace on a bridge (see above).
nfs_ns_start() {
	local missing first

	NFS_ERROR=
	missing=$(srv_missing unshare nsenter ip rpcbind rpcinfo ganesha.nfsd \
		nfs-ls pgrep timeout)
	[ -n "$missing" ] || [ "${NFS_ENABLE_NLM:-0}" != 1 ] ||
		missing=$(srv_missing rpc.statd)
	[ -z "$missing" ] ||
		{ _nfs_error "$missing is not installed"; return "$SRV_SKIP"; }
	[ "$(id -u)" = 0 ] ||
		{ _nfs_error "needs root (namespaces, rpcbind)"; return "$SRV_SKIP"; }
	if srv_alive "${NFS_NS_PID:-}"; then
		_nfs_error "already running (namespace pid $NFS_NS_PID); call nfs_stop first"
		return 1
	fi
	_nfs_probe_namespaces || return
	_nfs_netns_check || return

	# Under load the namespace (or ganesha in it) has died while starting,
	# once in a few hundred starts: one more try, saying so, before failing.
	_nfs_start_once 2>/dev/null && return 0	# its one line is the next one's
	first=${NFS_ERROR#nfs: }
	echo "nfs: the first start failed ($first); starting once more" >&2
	if _nfs_start_once; then
		NFS_ERROR=
		return 0
	fi
	_nfs_error "ganesha failed to start twice: first: $first; then: ${NFS_ERROR#nfs: }"
	return 1
}

# _nfs_start_once: one try of nfs_ns_start (a fresh directory, namespace and
# server); on failure everything it made is stopped and removed.
# _NFS_TEST_FAIL_START=1 (the test of the retry): this try's namespace is
# killed as soon as it is up, as the failures seen under load did.
_nfs_start_once() {
	NFS_DIR=$(mktemp -d -t dbench-nfs.XXXXXX) ||
		{ _nfs_error "cannot create a temporary directory"; return 1; }
	mkdir -p "$NFS_DIR/export" "$NFS_DIR/recov"
	NFS_EXPORT_DIR=$NFS_DIR/export
	NFS_URL=nfs://127.0.0.1/export
	[ -n "${NFS_NETNS:-}" ] && NFS_URL=nfs://$NFS_ADDR/export
	_NFS_LS_QUERY=
	[ "${NFS_PROTOCOLS:-3}" = 4 ] && _NFS_LS_QUERY="?version=4"
	NFS_NS_PID=
	_NFS_NETNS=
	_nfs_write_conf "$NFS_DIR"

	# --kill-child: when unshare dies, pid 1 inside dies, and with it the
	# whole namespace.  fd 3 is closed for bats.
	# (ip netns exec execs unshare: $! is unshare's pid either way.)
	"${_NFS_UNSHARE[@]}" bash "$_SRV_LIB_DIR/nfs-ns-init.sh" "$NFS_DIR" \
		"$([ "${NFS_ENABLE_NLM:-0}" = 1 ] && echo nlm)" \
		</dev/null >"$NFS_DIR/ns.out" 2>&1 3>&- &
	_NFS_UNSHARE_PID=$!
	export NFS_DIR NFS_EXPORT_DIR NFS_URL _NFS_UNSHARE_PID

	if _nfs_wait_holder; then
		if [ "${_NFS_TEST_FAIL_START:-0}" = 1 ]; then
			_NFS_TEST_FAIL_START=0
			kill -KILL "$NFS_NS_PID" 2>/dev/null
			srv_wait_gone 5 "$NFS_NS_PID" || true
		fi
		if _nfs_wait_ready; then
			export NFS_NS_PID _NFS_NETNS
			return 0
		fi
	fi
	nfs_stop 2>/dev/null || true
	return 1
}

# nfs_forget: forget the server the NFS_* variables name (the bats file's
# shared one), without stopping it, so that nfs_ns_start starts another and
# nfs_stop stops only that other one.
nfs_forget() {
	unset NFS_DIR NFS_EXPORT_DIR NFS_URL NFS_NS_PID _NFS_UNSHARE_PID _NFS_NETNS _NFS_NETNS_PIN
}

# nfs_file_start: for a bats setup_file (which bats 1.8 cannot skip): start
# the file's shared server; when the machine cannot run it, export
# NFS_FILE_SKIP, the reason, and return 0: nfs_shared_server then skips the
# tests that need the server, and the others run.
nfs_file_start() {
	local rc=0

	nfs_ns_start || rc=$?
	if [ "$rc" -eq "$SRV_SKIP" ]; then
		export NFS_FILE_SKIP=$NFS_ERROR
		return 0
	fi
	return "$rc"
}

# nfs_shared_server: for a bats test: the file's server is still there (a
# test before may have brought it down: then say so, and fail); skip the
# test when nfs_file_start could not start it here.
nfs_shared_server() {
	[ -z "${NFS_FILE_SKIP:-}" ] || skip "$NFS_FILE_SKIP"
	srv_alive "${NFS_NS_PID:-}" && [ -n "$(nfs_server_pid)" ] && return 0
	echo "the file's shared ganesha is gone (namespace pid ${NFS_NS_PID:-none})" >&2
	return 1
}

# nfs_own_server: for a bats test: a server of the test's own, beside the
# file's (nfs_forget, then nfs_ns_start as the environment says: NFS_PROTOCOLS,
# NFS_LEASE, NFS_ENABLE_NLM, NFS_PRIVILEGED_PORT); sets OWN_NFS=1, for the test's teardown to
# stop it with nfs_stop.  Skips the test when the machine cannot run it.
nfs_own_server() {
	nfs_forget
	# shellcheck disable=SC2034 # read by the test's teardown
	OWN_NFS=1
	srv_start_or_skip nfs_ns_start
}

# nfs_export_clear: empty the export (between the tests sharing a server).
nfs_export_clear() {
	[ -n "${NFS_EXPORT_DIR:-}" ] && [ -d "$NFS_EXPORT_DIR" ] || return 0
	find "$NFS_EXPORT_DIR" -mindepth 1 -delete
}

# nfs_ns_exec CMD [ARG...]: run an external command in the server's network
# namespace, where the server is 127.0.0.1 (and NFS_ADDR on a bridge).  Only
# the network namespace is entered: the command sees the host's files and
# /proc (ASan needs its own /proc/self), and NFS_EXPORT_DIR is the same path
# there.
nfs_ns_exec() {
	[ -n "${NFS_NS_PID:-}" ] ||
		{ _nfs_error "no namespace of ours (call nfs_ns_start)"; return 1; }
	nsenter -t "$NFS_NS_PID" -n -- "$@"
}

# nfs_server_pid: print the host pid of our ganesha (nothing when it is gone).
nfs_server_pid() {
	[ -n "${NFS_NS_PID:-}" ] || return 1
	pgrep -P "$NFS_NS_PID" -x ganesha.nfsd
}

# nfs_kill_server: SIGKILL our ganesha only, as a crash would; rpcbind and
# the namespace stay until nfs_stop.
nfs_kill_server() {
	local pid

	pid=$(nfs_server_pid) ||
		{ _nfs_error "no ganesha of ours to kill"; return 1; }
	kill -KILL "$pid" 2>/dev/null || true
	srv_wait_gone 5 "$pid" ||
		{ _nfs_error "ganesha $pid survived SIGKILL"; return 1; }
}

# nfs_stop: stop ganesha and rpcbind, end the namespace, wait until every
# process in it is gone, remove the temporary directory.  Safe to call twice
# or after a failed start.
nfs_stop() {
	local left

	if srv_alive "${NFS_NS_PID:-}"; then
		# Graceful: pid 1 there stops ganesha, then rpcbind (nfs-ns-init.sh).
		kill -TERM "$NFS_NS_PID" 2>/dev/null || true
	fi
	if [ -n "${_NFS_UNSHARE_PID:-}" ] &&
		! srv_wait_gone "$NFS_STOP_SECONDS" "$_NFS_UNSHARE_PID"; then
		# only if it is still our unshare, not a process that got its pid
		srv_is "$_NFS_UNSHARE_PID" unshare && kill -KILL "$_NFS_UNSHARE_PID" 2>/dev/null || true
		srv_wait_gone 5 "$_NFS_UNSHARE_PID" || true
	fi
	srv_wait_gone 5 ${NFS_NS_PID:+"$NFS_NS_PID"} || true
	left=$(srv_netns_procs "${_NFS_NETNS:-}")
	if [ -n "$left" ]; then
		# --kill-child failed us: kill what is left of the namespace.
		# shellcheck disable=SC2086 # $left is a list of pids
		kill -KILL $left 2>/dev/null || true
		# shellcheck disable=SC2086
		srv_wait_gone 5 $left || true
		left=$(srv_netns_procs "${_NFS_NETNS:-}")
	fi
	if [ -n "$left" ] || srv_alive "${_NFS_UNSHARE_PID:-}"; then
		_nfs_error "processes would not stop: ${left:-$_NFS_UNSHARE_PID}; $NFS_DIR left in place"
		return 1
	fi
	case ${NFS_DIR:-} in
	*/dbench-nfs.*) rm -rf -- "$NFS_DIR" ;;
	esac
	if [ -n "${_NFS_NETNS_PIN:-}" ]; then
		exec {_NFS_NETNS_PIN}<&-
	fi
	unset NFS_DIR NFS_EXPORT_DIR NFS_URL NFS_NS_PID _NFS_UNSHARE_PID _NFS_NETNS _NFS_NETNS_PIN
	return 0
}
