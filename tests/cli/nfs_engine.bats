#!/usr/bin/env bats
# nfs_engine.bats - the NFS backend's asynchronous form: many clients in
# one process (--clients-per-process), each op on its client's fiber, the
# connections on the process's event loop, against one real nfs-ganesha
# (NFSv3 and NFSv4, tests/lib/nfs.sh) shared by the file's tests: results
# and JSON shaped as a process per client, the NFSv3 ops, WRITEPATTERN reads
# checked while the replies of many clients arrive together, a server that
# stops answering (--nfs-timeout; --grace), SIGINT.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	"$DBENCH" --help | grep -q -- '--export' || skip "dbench was built without the nfs backend"
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	NFS_PROTOCOLS="3, 4" srv_start_or_skip nfs_ns_start
}

teardown_file() {
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	nfs_stop
}

setup() {
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	[ -n "${NFS_EXPORT_DIR:-}" ] || skip "no nfs-ganesha"
	make_tmp
	cp "$DBENCH_SRCDIR/loadfiles/client.txt" "$T/client.txt"
}

teardown() {
	local pid
	# a test that froze ganesha (or rpcbind) must not leave it stopped
	pid=$(nfs_server_pid 2>/dev/null) && kill -CONT "$pid" 2>/dev/null
	pid=$(nfs_rpcbind_pid 2>/dev/null) && kill -CONT "$pid" 2>/dev/null
	[ -z "${PROXY_PID:-}" ] || kill "$PROXY_PID" 2>/dev/null || true
	[ -z "${OWN_NFS:-}" ] || nfs_stop
	remove_tmp
}

# the host pid of our server's rpcbind
nfs_rpcbind_pid() {
	[ -n "${NFS_NS_PID:-}" ] && pgrep -P "$NFS_NS_PID" -x rpcbind
}

# The file's tests share the server: after a run against a stopped server
# (which cannot remove its tree), the next tests start on an empty export.
nfs_wipe() {
	printf 'Deltree "\\clients" *\n' >"$T/wipe.txt"
	nfs_ns_exec timeout 60 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		-c "$T/wipe.txt" --run-once 1 >/dev/null 2>&1 || true
	assert_export_empty
}

@test "nfs engine: NFSv3 and NFSv4, 2 processes of 12 clients: sane runs shaped as a process per client" {
	for v in 3 4; do
		nfs_dbench --nfs-version "$v" -c "$T/client.txt" -t 3 --warmup 1 --clients-per-process 12 \
			--json "$T/engine$v.json" 2
		echo "$output"
		echo "$stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *" 0 mismatches"* ]]
		[[ "$output" =~ Throughput\ [0-9.]+\ MB/sec\ +24\ clients\ +2\ procs ]]
		[ "$(jq '.results.idle_clients' "$T/engine$v.json")" -eq 0 ]
		[ "$(jq '.results.failed_clients' "$T/engine$v.json")" -eq 0 ]
		assert_export_empty
		# (a process per client: nfs.bats' and nfs4.bats' runs, under ASan too)
		if ! in_sanitizer_pass; then
			nfs_dbench --nfs-version "$v" -c "$T/client.txt" -t 3 --warmup 1 --json "$T/procs$v.json" 2
			[ "$status" -eq 0 ]
			diff <(json_shape "$T/procs$v.json") <(json_shape "$T/engine$v.json")
		fi
	done
	assert_no_procs
}

# connections from the clients to the NFS port (2049) now
nfs_connections() {
	nfs_ns_exec ss -Htn state established '( dport = :2049 )' | wc -l
}

@test "nfs engine: --nfs-connection shared: one connection a process, NFSv3 and NFSv4, sane runs" {
	sanitizer_pass_skip "the shared connection carries every NFSv3 op of nfs.txt in the ops loadfile test, and 8 clients' checked reads over NFSv3 and NFSv4 in the WRITEPATTERN test; a connection a client is every other test's"
	local pid rc n
	for v in 3 4; do
		nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
			--nfs-version "$v" --nfs-timeout 30 -c "$T/client.txt" -t 4 --warmup 1 \
			--clients-per-process 8 --nfs-connection shared --json "$T/r$v.json" 2 \
			>"$T/out" 2>"$T/err" &
		pid=$!
		wait_running "$T/out"
		n=$(nfs_connections)
		rc=0
		wait "$pid" || rc=$?
		cat "$T/out" "$T/err"
		[ "$rc" -eq 0 ]
		# 16 clients on 2 connections
		[ "$n" -eq 2 ]
		grep -q " 0 mismatches" "$T/out"
		grep -q "^Throughput .* 16 clients  2 procs" "$T/out"
		[ "$(jq '.results.idle_clients' "$T/r$v.json")" -eq 0 ]
		assert_export_empty
	done
	# the default: a connection a client
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		--nfs-timeout 30 -c "$T/client.txt" -t 4 --warmup 1 --clients-per-process 8 2 \
		>"$T/out" 2>"$T/err" &
	pid=$!
	wait_running "$T/out"
	n=$(nfs_connections)
	wait "$pid"
	[ "$n" -eq 16 ]
	nfs_dbench -c "$T/client.txt" -t 1 --nfs-connection bogus 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: nfs: --nfs-connection: 'bogus' is not client or shared" ]
	assert_no_procs
}

@test "nfs engine: WRITEPATTERN reads checked with 8 clients a process, both connection modes, NFSv3 and NFSv4" {
	# The pattern bytes and the unchecked reads' target are one copy a
	# process (common.c): a checked read must land in its client's own
	# buffer, or the replies the loop takes in one pass overwrite each
	# other before their clients compare them (offsets 1000 and 1001 read
	# different bytes).
	loadfile wp.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WRITEPATTERN
WriteX 1 1000 70000 70000 NT_STATUS_OK
Flush 1 NT_STATUS_OK
ReadX 1 1000 70000 70000 NT_STATUS_OK
ReadX 1 1001 500 500 NT_STATUS_OK
ReadX 1 1000 70000 70000 NT_STATUS_OK
WRITEPATTERN off
WriteX 1 0 100 100 NT_STATUS_OK
WRITEPATTERN on
ReadX 1 0 100 100 NT_STATUS_FILE_CORRUPT_ERROR
ReadX 1 1001 500 500 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	for v in 3 4; do
		for conn in client shared; do
			nfs_dbench --nfs-version "$v" --nfs-connection "$conn" -c "$T/wp.txt" --run-once \
				--clients-per-process 8 1
			echo "v$v $conn: $output"
			echo "$stderr"
			[ "$status" -eq 0 ]
			[[ "$output" == *"Operations 96 in"*", 0 mismatches,"* ]]
			assert_export_empty
		done
	done
}

@test "nfs engine: the NFSv3 ops loadfile on the event loop, no mismatch" {
	cp "$DBENCH_SRCDIR/loadfiles/nfs.txt" "$T/nfs.txt"
	# (an op's code is the same on either connection: the sanitizer pass
	# runs them on the shared one, the WRITEPATTERN test on both)
	for mode in $(sanitizer_pass_one shared client); do
		nfs_dbench -c "$T/nfs.txt" --passes 2 --clients-per-process 4 --nfs-connection "$mode" 1
		echo "$output"
		echo "$stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *" 0 mismatches"* ]]
		[[ "$output" == *"READ3"* ]]
		assert_export_empty
	done
}

@test "nfs engine: a server that stops answering: each client gives up after --nfs-timeout, exit 1" {
	local pid gpid rc mode
	for mode in client shared; do
		nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
			--nfs-timeout 1 -c "$T/client.txt" -t 60 --warmup 0 --clients-per-process 4 \
			--nfs-connection "$mode" 2 >"$T/out" 2>"$T/err" &
		pid=$!
		wait_running "$T/out"
		gpid=$(nfs_server_pid)
		kill -STOP "$gpid"
		SECONDS=0
		rc=0
		wait "$pid" || rc=$?
		kill -CONT "$gpid"
		cat "$T/out" "$T/err"
		[ "$rc" -eq 1 ]
		[ "$SECONDS" -lt 20 ]
		[ "$(grep -c "^dbench: client [0-9] failed: nfs 127.0.0.1: .*no reply in 1 s: the server stopped answering" "$T/err")" -eq 8 ]
		grep -q "^Throughput .* 8 clients  2 procs" "$T/out"
		assert_no_procs
		nfs_wipe
	done
}

@test "nfs engine: a server stopped past the end: its clients' ops are given up after --grace, counted, reported" {
	local pid gpid rc=0 i
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		--nfs-timeout 60 -c "$T/client.txt" -t 4 --warmup 0 --grace 2 --clients-per-process 4 \
		--json "$T/r.json" 1 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_running "$T/out"
	gpid=$(nfs_server_pid)
	kill -STOP "$gpid"
	# the clients are given up (no client runs: the cleanup line); the
	# server comes back for the cleanup
	for i in $(seq 600); do
		grep -q "^ *0  cleanup" "$T/out" && break
		sleep 0.1
	done
	kill -CONT "$gpid"
	wait "$pid" || rc=$?
	cat "$T/out" "$T/err"
	[ "$rc" -eq 1 ]
	[ "$(grep -c "failed: no progress for [0-9]* s: [A-Za-z_0-9]* in flight; given up [0-9]* s after the end of the run (--grace 2)" "$T/err")" -eq 4 ]
	[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 4 ]
	assert_max_latency_at_least "$T/r.json" 2e9
	# the given-up clients' trees go with the final cleanup
	assert_export_empty
	assert_no_procs
}

@test "nfs engine: SIGINT stops the event loop's clients: exit 130, the export left empty" {
	signal_run -p "$T/client.txt" nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 \
		--export /export --nfs-timeout 30 -c "$T/client.txt" -t 60 --clients-per-process 8 2
	[ "$status" -eq 130 ]
	grep -q "^Throughput .* 16 clients  2 procs" "$T/out"
	! grep -q "failed" "$T/err"
	assert_export_empty
	assert_no_procs
}

@test "nfs engine: the cleanup of many clients a process runs on the event loop: nothing left, both connection modes" {
	local mode
	# (the sanitizer pass: a connection a client; the shared connection's
	# cleanup ends the ops loadfile and WRITEPATTERN tests' runs)
	for mode in $(sanitizer_pass_one client shared); do
		nfs_dbench -c "$T/client.txt" -t 2 --warmup 0 --clients-per-process 40 \
			--nfs-connection "$mode" --json "$T/r.json" 2
		echo "$output"
		echo "$stderr"
		[ "$status" -eq 0 ]
		[[ "$output" =~ Throughput\ [0-9.]+\ MB/sec\ +80\ clients\ +2\ procs ]]
		[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 0 ]
		# nothing said of any client (ASan may warn of the fibers' switch)
		! grep -q "^dbench" <<<"$stderr"
		assert_export_empty
	done
	assert_no_procs
}

@test "nfs engine: a server that freezes during the cleanup: the cleanup is given up after --grace, the process not killed" {
	local pid gpid rc v mode
	# each client makes its tree, then sleeps to the end of the run: no
	# op is in flight when the server stops, only the cleanup is
	loadfile sleep.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 4096 4096 NT_STATUS_OK
Close 1 NT_STATUS_OK
SLEEP 600000000
L
	for v in "3 client" "4 shared"; do
		read -r v mode <<<"$v"
		nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
			--nfs-version "$v" --nfs-connection "$mode" --nfs-timeout 60 -c "$T/sleep.txt" \
			-t 8 --warmup 0 --grace 2 --clients-per-process 8 --json "$T/r.json" 2 \
			>"$T/out" 2>"$T/err" &
		pid=$!
		# all 16 clients' 5 ops done (the progress line's ops a client)
		wait_for -t 120 "the clients' ops to be done" grep -Eq "^ +16 +5 +[0-9.]+ MB/sec" "$T/out"
		gpid=$(nfs_server_pid)
		kill -STOP "$gpid"
		# every client process ended (its cleanup given up, or killed);
		# the server comes back for the final cleanup
		wait_for -t 100 "the clients to end" grep -q "^ *0  cleanup" "$T/out"
		kill -CONT "$gpid"
		rc=0
		wait "$pid" || rc=$?
		cat "$T/out" "$T/err"
		[ "$rc" -eq 1 ]
		[ "$(grep -c "failed: cleanup: no progress for [0-9]* s; given up [0-9]* s after the end of the run (--grace 2)$" "$T/err")" -eq 16 ]
		! grep -q "killed" "$T/err"
		[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 16 ]
		assert_export_empty
	done
	assert_no_procs
}

@test "nfs engine: the clients' NFSv3 umounts wait side by side: a MOUNT service gone after the start costs one --nfs-timeout, not one a client" {
	local pid rpcb rc t0 ms mode
	sanitizer_pass_skip "a wall-clock comparison; the teardown phase on the fibers runs at the end of every test of this file"
	# trees of the clients' own (no shared root: no final cleanup, which
	# would mount anew); each client then sleeps to the end of the run
	loadfile own.txt <<'L'
Mkdir "\client1" *
NTCreateX "\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 4096 4096 NT_STATUS_OK
Close 1 NT_STATUS_OK
SLEEP 600000000
L
	rpcb=$(nfs_rpcbind_pid)
	for mode in client shared; do
		nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
			--nfs-timeout 4 -c "$T/own.txt" -t 3 --warmup 0 --clients-per-process 8 \
			--nfs-connection "$mode" 2 >"$T/out" 2>"$T/err" &
		pid=$!
		wait_for -t 60 "the release" grep -q "^releasing clients" "$T/out"
		# the mounts are made: the umounts ask the portmapper for
		# MOUNT's port, and get no answer
		kill -STOP "$rpcb"
		t0=$(date +%s%N)
		rc=0
		wait "$pid" || rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		kill -CONT "$rpcb"
		echo "--nfs-connection $mode: release to exit $ms ms"
		cat "$T/out" "$T/err"
		[ "$rc" -eq 0 ]
		[[ "$(cat "$T/out")" =~ Throughput\ [0-9.]+\ MB/sec\ +16\ clients\ +2\ procs ]]
		! grep -q "^dbench" "$T/err"
		# the run (3 s), the cleanup, 4 s for the umounts a process (7.6 s
		# at load 20 with 2 s): 8 clients' one after another would be 32 s
		[ "$ms" -lt 20000 ]
		assert_export_empty
	done
	assert_no_procs
}

@test "nfs engine: NFSv4 sessions start side by side: 24 clients behind a server 400 ms away set up in a few round trips" {
	local pid port t0 ms rc=0
	sanitizer_pass_skip "a wall-clock comparison; NFSv4 sessions start on the fibers in every NFSv4 test of this file"
	# every reply 400 ms late: a session (SETCLIENTID, its CONFIRM, the
	# export's LOOKUP) is 1.2 s; 23 of them one after another 28 s
	nfs_ns_exec python3 "$BATS_TEST_DIRNAME/../lib/delay_proxy.py" 127.0.0.1 2049 400 >"$T/proxy" &
	PROXY_PID=$!
	wait_for -t 30 "the proxy to listen" test -s "$T/proxy"
	port=$(cat "$T/proxy")
	t0=$(date +%s%N)
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export --nfs-version 4 \
		--nfs-port "$port" --nfs-timeout 30 -c "$T/client.txt" -t 1 --warmup 0 \
		--clients-per-process 24 1 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_for -t 60 "the release" grep -q "^releasing clients" "$T/out"
	ms=$((($(date +%s%N) - t0) / 1000000))
	wait "$pid" || rc=$?
	echo "start to release: $ms ms"
	cat "$T/out" "$T/err"
	[ "$rc" -eq 0 ]
	[[ "$(cat "$T/out")" =~ Throughput\ [0-9.]+\ MB/sec\ +24\ clients\ +1\ procs ]]
	# the check mount, the first client, then the others together: ~4 s
	# (4.8 s at load 20 with 200 ms; one after another: 38 s)
	[ "$ms" -lt 20000 ]
	assert_export_empty
	assert_no_procs
}

# the local ports of the connections to the NFS port (2049) now
nfs_client_ports() {
	nfs_ns_exec ss -Htn state established '( dport = :2049 )' | awk '{ sub(/.*:/, "", $3); print $3 }'
}

@test "nfs engine: run as root, the clients connect from ordinary ports, from reserved ones when the server wants them" {
	local pid server v
	[ "$(id -u)" = 0 ] || skip "needs root (the reserved ports)"
	# libnfs walks the reserved ports for a free one, every connection:
	# only when the server refuses others (the start's check mount says)
	local servers="file own"
	# (ordinary ports are every other test's: the sanitizer pass runs the
	# server that wants reserved ones)
	if in_sanitizer_pass; then servers=own; fi
	for server in $servers; do
		[ "$server" = file ] || NFS_PRIVILEGED_PORT=1 NFS_PROTOCOLS="3, 4" nfs_own_server
		for v in 3 4; do
			nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
				--nfs-version "$v" --nfs-timeout 30 -c "$T/client.txt" -t 3 --warmup 0 \
				--clients-per-process 4 2 >"$T/out" 2>"$T/err" &
			pid=$!
			wait_running "$T/out"
			nfs_client_ports >"$T/ports"
			wait "$pid"
			cat "$T/ports"
			[ "$(wc -l <"$T/ports")" -eq 8 ]
			if [ "$server" = file ]; then
				[ "$(awk '$1 < 1024' "$T/ports" | wc -l)" -eq 0 ]
			else
				[ "$(awk '$1 >= 1024' "$T/ports" | wc -l)" -eq 0 ]
			fi
			assert_export_empty
		done
	done
	assert_no_procs
}

@test "nfs engine: run as root, a server that does not answer: the start fails after one --nfs-timeout, not two" {
	local gpid v t0 ms
	[ "$(id -u)" = 0 ] || skip "needs root (the reserved ports)"
	command -v strace >/dev/null || skip "no strace"
	# the check mount from an ordinary port times out; from a reserved one
	# it would only time out again (tried only when the server refuses)
	gpid=$(nfs_server_pid)
	kill -STOP "$gpid"
	for v in 3 4; do
		t0=$(date +%s%N)
		# (LeakSanitizer cannot work under ptrace: off for this run in the ASan build)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			run --separate-stderr nfs_ns_exec timeout 60 strace -f --seccomp-bpf -e trace=bind \
			-e status=successful -o "$T/binds" "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
			--nfs-version "$v" --nfs-timeout 4 -c "$T/client.txt" -t 3 --warmup 0 1
		ms=$((($(date +%s%N) - t0) / 1000000))
		echo "NFSv$v: $ms ms: $stderr"
		cat "$T/binds"
		[ "$status" -eq 2 ]
		[[ "$stderr" =~ ^dbench:\ nfs:\ cannot\ mount\ 127.0.0.1:/export ]]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		# no connection from a reserved port (below 1024) was made
		[ "$(grep -Eo 'sin_port=htons\([0-9]+\)' "$T/binds" | tr -dc '0-9\n' | awk '$1 > 0 && $1 < 1024' | wc -l)" -eq 0 ]
		# the wait is kept (no second one from a reserved port: above)
		[ "$ms" -ge 4000 ]
	done
	kill -CONT "$gpid"
	assert_no_procs
}
