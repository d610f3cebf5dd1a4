#!/usr/bin/env bats
# nfs4.bats - -B nfs --nfs-version 4 against a real NFSv4-only server:
# nfs-ganesha with Protocols = 4 (tests/lib/nfs.sh, NFS_PROTOCOLS=4), so a
# run that fell back to NFSv3 would fail to mount.  dbench runs in the
# server's network namespace, where the server is 127.0.0.1.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

# One v4-only server for the file's tests (tests that kill, stop or
# configure a server otherwise start their own: nfs_own_server).
setup_file() {
	"$DBENCH" --help | grep -q -- '--export' ||
		{ skip_file "dbench was built without the nfs backend"; return 0; }
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	export NFS_PROTOCOLS=4
	nfs_file_start
}

teardown_file() {
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	nfs_stop
}

setup() {
	file_skipped
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	make_tmp
	CLIENT=$DBENCH_SRCDIR/loadfiles/client.txt
	nfs_export_clear
}

teardown() {
	# a test that froze ganesha (SIGSTOP) lets it go before stopping it
	[ -z "${GANESHA_STOPPED:-}" ] || kill -CONT "$GANESHA_STOPPED" 2>/dev/null || true
	[ -z "${OWN_NFS:-}" ] || nfs_stop
	remove_tmp
}

nfs4_dbench() {
	nfs_dbench --nfs-version 4 "$@"
}

@test "nfs4: the default loadfile over NFSv4, 1 client, no mismatch" {
	sanitizer_pass_skip "the next test runs the same loadfile through the same code, in 4 clients"
	nfs_shared_server
	cp "$CLIENT" "$T/client.txt"
	nfs4_dbench -c "$T/client.txt" -t 3 --warmup 1 1
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	assert_export_empty
}

@test "nfs4: files a loadfile makes at the share root (random names, as nfs_2.load) are removed at the end; what was there stays" {
	nfs_shared_server
	root_files_loadfiles
	root_files_check "$NFS_EXPORT_DIR" nfs_ns_exec timeout 120 "$DBENCH" -B nfs --nfs-version 4 \
		--server 127.0.0.1 --export /export --nfs-timeout 30 -c "$T/root.txt" --run-once --seed 1 2
}

@test "nfs4: a run that ends at its time limit with byte-range locks held releases them: the next run has no lock denied" {
	# (a server of its own: what it tests is the lock state a run leaves)
	nfs_own_server
	: > "$NFS_EXPORT_DIR/locks.dat"
	loadfile lock.txt <<'EOF'
NTCreateX "\locks.dat" 0x40 0x1 1 NT_STATUS_OK
LockX 1 child 1 NT_STATUS_OK
LOOP 10000000
LockX 1 child+2 1 NT_STATUS_OK
UnlockX 1 child+2 1 NT_STATUS_OK
ENDLOOP
EOF
	local run
	for run in 1 2; do
		nfs4_dbench -c "$T/lock.txt" -t 2 --warmup 0 2
		echo "run $run: $output $stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *", 0 mismatches,"* ]]
	done
	[ "$(ls -A "$NFS_EXPORT_DIR")" = locks.dat ]
}

@test "nfs4: the default loadfile over NFSv4, 4 clients, no mismatch" {
	nfs_shared_server
	cp "$CLIENT" "$T/client.txt"
	nfs4_dbench -c "$T/client.txt" -t 3 --warmup 1 4
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	assert_export_empty
}

@test "nfs4: Debian's client.txt (its first 3000 lines) over NFSv4, 1 and 4 clients, no mismatch" {
	[ -r /usr/share/dbench/client.txt ] || skip "dbench's client.txt is not installed"
	nfs_shared_server
	head -n 3000 /usr/share/dbench/client.txt >"$T/classic.txt"
	# (a client a process: one client's path is each of the four's)
	for n in $(sanitizer_pass_one 4 1); do
		nfs4_dbench -c "$T/classic.txt" -t 3 --warmup 1 "$n"
		echo "$output$stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *", 0 mismatches,"* ]]
	done
	assert_export_empty
}

@test "nfs4: NFSv3 ops under --nfs-version 4 are refused at load time, saying why" {
	run --separate-stderr "$DBENCH" -B nfs --nfs-version 4 --server 127.0.0.1 \
		--export /export -c "$DBENCH_SRCDIR/loadfiles/nfs-example.txt" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"nfs-example.txt:17: READ3 is an NFSv3 operation: not available with --nfs-version 4"* ]]
	printf '%s\n' 'NTCreateX "/a" 0x0 0x0 1 NT_STATUS_OK' 'READ3 "/a" 0 10 0x00000000' >"$T/v3.txt"
	run --separate-stderr "$DBENCH" -B nfs --nfs-version 4 --server 127.0.0.1 \
		--export /export -c "$T/v3.txt" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/v3.txt:2: READ3 is an NFSv3 operation: not available with --nfs-version 4" ]
	printf '%s\n' 'LOCK4 "/a" 0 10 NLM4_GRANTED' >"$T/nlm.txt"
	run --separate-stderr "$DBENCH" -B nfs --nfs-version 4 --server 127.0.0.1 \
		--export /export -c "$T/nlm.txt" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/nlm.txt:1: LOCK4 is an NLM (NFSv3 byte-range lock) operation: not available with --nfs-version 4" ]
	# the same loadfile under NFSv3 passes the check
	run --separate-stderr "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		-c "$T/v3.txt" --check-loadfile 1
	[ "$status" -eq 0 ]
}

@test "nfs4: --nfs-version 5 is one line, exit 2" {
	run --separate-stderr "$DBENCH" -B nfs --nfs-version 5 --server 127.0.0.1 --export /export 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--nfs-version 5: must be 3 or 4"* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
}

@test "nfs4: a v4-only server asked for NFSv3 is one line, exit 2" {
	nfs_shared_server
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --server 127.0.0.1 \
		--export /export --nfs-timeout 5 -c "$CLIENT" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"cannot mount"* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
}

@test "nfs4: a v3-only server asked for NFSv4 is one line, exit 2" {
	export NFS_PROTOCOLS=3
	nfs_own_server
	nfs4_dbench -c "$CLIENT" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"cannot mount 127.0.0.1:/export over NFSv4: the server refused the NFSv4 call (does it serve NFSv4?)"* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
}

# ---- error cases over NFSv4: one line each, no hang, nothing left ----

@test "nfs4: an export the server does not have is one line naming it, exit 2, at once" {
	local t0
	nfs_shared_server
	t0=$SECONDS
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --nfs-version 4 \
		--server 127.0.0.1 --export /dbench-no-such-export --nfs-timeout 30 -c "$CLIENT" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: nfs: cannot mount 127.0.0.1:/dbench-no-such-export: the server exports no /dbench-no-such-export over NFSv4 (NFS4ERR_NOENT)" ]
	[ $((SECONDS - t0)) -lt 20 ]
	# a path under the export is not an export either (the pseudo file
	# system ends at /export); the URL form says the same
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --nfs-version 4 \
		--nfs nfs://127.0.0.1/dbench-no-such-export --nfs-timeout 30 -c "$CLIENT" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "dbench: nfs: cannot mount 127.0.0.1:/dbench-no-such-export: the server exports no "* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
}

@test "nfs4: no server on the port is one line naming the port, exit 2" {
	nfs_own_server
	nfs_kill_server		# the namespace stays: nothing answers on 2049
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --nfs-version 4 \
		--server 127.0.0.1 --export /export --nfs-timeout 30 -c "$CLIENT" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: nfs: cannot mount 127.0.0.1:/export over NFSv4: no answer on port 2049 (nfs): Connection refused" ]
}

@test "nfs4: a server that does not answer the mount is one line within --nfs-timeout, exit 2" {
	local t0
	nfs_own_server
	GANESHA_STOPPED=$(nfs_server_pid)
	kill -STOP "$GANESHA_STOPPED"
	t0=$SECONDS
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --nfs-version 4 \
		--server 127.0.0.1 --export /export --nfs-timeout 2 -c "$CLIENT" 1
	echo "$output$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: nfs: cannot mount 127.0.0.1:/export over NFSv4: no reply in 2 s: the server does not answer" ]
	[ $((SECONDS - t0)) -lt 20 ]
}

@test "nfs4: a server that stops answering mid-run: each client fails with one line, the run ends, exit 1" {
	local pid t0 rc
	nfs_own_server
	cp "$CLIENT" "$T/client.txt"
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --nfs-version 4 --server 127.0.0.1 --export /export \
		--nfs-timeout 2 -c "$T/client.txt" -t 60 --warmup 0 2 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_running "$T/out"
	GANESHA_STOPPED=$(nfs_server_pid)
	kill -STOP "$GANESHA_STOPPED"
	t0=$SECONDS
	wait "$pid" || rc=$?
	cat "$T/out" "$T/err"
	[ "${rc:-0}" -eq 1 ]
	# --nfs-timeout for the call, again for the cleanup's mount, and slack
	[ $((SECONDS - t0)) -lt 20 ]
	[ "$(grep -Ec "^dbench: client [01] failed: nfs 127\.0\.0\.1: .*(no reply in 2 s|timed out)" "$T/err")" -eq 2 ]
	grep -q "^Throughput " "$T/out"
	assert_no_procs
}

# Two clients, one file (a shared root): each locks its own byte (child),
# then tries the other's: the server says no (LOCK_NOT_GRANTED); an UnlockX
# of it is RANGE_NOT_LOCKED (the layer's table); after the other unlocked,
# the same LockX succeeds; a Close with that lock still held releases it
# (the other client then gets its own byte back).  The netbench layer's
# table is per handle, so only the server can refuse a LockX here.
lock_loadfile() {
	cat <<'LOAD'
Mkdir "\lockshare" NT_STATUS_OK
NTCreateX "\lockshare\lock.dat" 0x40 0x3 1 NT_STATUS_OK
LockX 1 child 1 NT_STATUS_OK
SETSP 1
WAITSP child+1 1
LockX 1 child+1%num_children 1 NT_STATUS_LOCK_NOT_GRANTED
UnlockX 1 child+1%num_children 1 NT_STATUS_RANGE_NOT_LOCKED
SETSP 2
WAITSP child+1 2
UnlockX 1 child 1 NT_STATUS_OK
SETSP 3
WAITSP child+1 3
LockX 1 child+1%num_children 1 NT_STATUS_OK
SETSP 4
WAITSP child+1 4
Close 1 NT_STATUS_OK
SETSP 5
WAITSP child+1 5
NTCreateX "\lockshare\lock.dat" 0x40 0x1 2 NT_STATUS_OK
LockX 2 child 1 NT_STATUS_OK
UnlockX 2 child 1 NT_STATUS_OK
Close 2 NT_STATUS_OK
SETSP 6
WAITSP child+1 6
LOAD
}

@test "nfs4: LockX of a byte another client holds is LOCK_NOT_GRANTED; granted after its UnlockX or Close" {
	nfs_shared_server
	lock_loadfile >"$T/lock.txt"
	nfs4_dbench -c "$T/lock.txt" --passes 3 2
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	[[ "$output" == *"passes per client 3..3"* ]]
	# 4 LockX per client and pass reached the op table
	[[ "$output" =~ LockX\ +24\  ]]
	assert_export_empty
}

@test "nfs4: a wrong expected status for the conflicting LockX is a mismatch" {
	nfs_shared_server
	lock_loadfile | sed 's/NT_STATUS_LOCK_NOT_GRANTED/NT_STATUS_OK/' >"$T/lock.txt"
	nfs4_dbench -c "$T/lock.txt" --passes 1 2
	echo "$output$stderr"
	[ "$status" -ne 0 ]
	[[ "$output$stderr" == *"LockX expected NT_STATUS_OK, got NT_STATUS_LOCK_NOT_GRANTED"* ]]
	[[ "$output" == *", 2 mismatches,"* ]]
}

@test "nfs4: SET_FILE_INFORMATION sets the file's times on the server" {
	nfs_shared_server
	mkdir "$NFS_EXPORT_DIR/times"
	touch -d '2001-02-03 04:05:06' "$NFS_EXPORT_DIR/times/t.dat" "$NFS_EXPORT_DIR/times/u.dat"
	cat >"$T/times.txt" <<'LOAD'
NTCreateX "\times\t.dat" 0x40 0x1 1 NT_STATUS_OK
SET_FILE_INFORMATION 1 1004 NT_STATUS_OK
QUERY_FILE_INFORMATION 1 1004 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\times\u.dat" 0x40 0x1 2 NT_STATUS_OK
QUERY_FILE_INFORMATION 2 1004 NT_STATUS_OK
Close 2 NT_STATUS_OK
LOAD
	local start
	start=$(date +%s)
	nfs4_dbench -c "$T/times.txt" --run-once 1
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	# t.dat's times are the server's clock now; u.dat was only opened
	[ "$(stat -c %Y "$NFS_EXPORT_DIR/times/t.dat")" -ge $(( start - 5 )) ]
	[ "$(stat -c %X "$NFS_EXPORT_DIR/times/t.dat")" -ge $(( start - 5 )) ]
	[ "$(date -u -r "$NFS_EXPORT_DIR/times/u.dat" +%Y)" = 2001 ]
}

descendants() {
	local p

	for p in $(pgrep -P "$1"); do
		echo "$p"
		descendants "$p"
	done
}

@test "nfs4: a client stopped longer than the lease fails with one line naming it and the cause, exit 1" {
	export NFS_LEASE=2
	nfs_own_server
	cp "$CLIENT" "$T/client.txt"
	nfs_ns_exec timeout 60 "$DBENCH" -B nfs --nfs-version 4 --server 127.0.0.1 \
		--export /export --nfs-timeout 10 -c "$T/client.txt" -t 25 --warmup 0 1 \
		>"$T/out" 2>"$T/err" &
	local pid=$! kids
	# the client has mounted and runs: it holds a lease and open files
	wait_running "$T/out"
	# every process under the background job: dbench and its client
	kids=$(descendants "$pid")
	[ -n "$kids" ] || { cat "$T/out" "$T/err"; false; }
	# shellcheck disable=SC2086 # a list of pids
	kill -STOP $kids
	# The thing tested is a client stopped longer than its lease (2 s): a
	# fixed time.  5 s, as the server counts in whole seconds and a loaded
	# one may process the last RENEW before the stop late; no reaper is
	# needed: the next RENEW or WRITE finds the lease expired.
	sleep 5
	# shellcheck disable=SC2086
	kill -CONT $kids
	wait_for -t 30 "the run to end after SIGCONT" ! srv_alive "$pid"
	run wait "$pid"
	cat "$T/out" "$T/err"
	[ "$status" -eq 1 ]
	grep -q "client 0.*NFSv4 lease lost: .* got NFS4ERR_\(EXPIRED\|STALE_CLIENTID\|BAD_STATEID\|STALE_STATEID\)" "$T/err"
}

@test "nfs4: a --nfs URL whose version= is not --nfs-version's is one line, exit 2" {
	run --separate-stderr "$DBENCH" -B nfs --nfs "nfs://127.0.0.1/export?version=4" -c "$CLIENT" 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: nfs: --nfs nfs://127.0.0.1/export?version=4 asks for NFS version 4, but --nfs-version is 3: give --nfs-version 4 (or leave version= out)" ]
	run --separate-stderr "$DBENCH" -B nfs --nfs-version 4 \
		--nfs "nfs://127.0.0.1/export?nfsport=2049&version=3" -c "$CLIENT" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"asks for NFS version 3, but --nfs-version is 4"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}
