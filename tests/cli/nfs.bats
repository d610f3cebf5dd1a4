#!/usr/bin/env bats
# nfs.bats - the NFS backend against a real NFSv3 server: nfs-ganesha (FSAL
# VFS) with rpcbind in a private network/mount/pid namespace
# (tests/lib/nfs.sh); dbench runs in that network namespace, where the
# server is 127.0.0.1.  Tests skip (with the reason) where the backend is
# not built or the machine cannot run the server.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

# One server for the file's tests (tests that kill, stop or configure a
# server otherwise start their own: nfs_own_server).
setup_file() {
	"$DBENCH" --help | grep -q -- '--export' ||
		{ skip_file "dbench was built without the nfs backend"; return 0; }
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
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
	nfs_export_clear
	EXAMPLE=$DBENCH_SRCDIR/loadfiles/nfs-example.txt
	NFSLOAD=$DBENCH_SRCDIR/loadfiles/nfs.txt
	CLIENT=$DBENCH_SRCDIR/loadfiles/client.txt
}

teardown() {
	local pid

	# a test that froze ganesha must not leave it stopped
	pid=$(nfs_server_pid 2>/dev/null) && kill -CONT "$pid" 2>/dev/null
	[ -z "${OWN_NFS:-}" ] || nfs_stop
	remove_tmp
}

# the op table of $output has the op, with a count of at least 1
has_op() {
	local re=$'\n '"$1"' +[1-9][0-9]* '

	[[ "$output" =~ $re ]] || { echo "no $1 in the op table"; return 1; }
}

# the op table of $output has the op with exactly this count
op_count() {
	local re=$'\n '"$1"' +'"$2"' '

	[[ "$output" =~ $re ]] || { echo "$1 is not counted $2 times"; return 1; }
}

# names, types and sizes under a directory, sorted
tree_of() {
	(cd "$1" && find . -mindepth 1 -printf '%P %y %s\n' | sed 's/ d [0-9]*$/ d/' | sort)
}

@test "nfs: the example loadfile runs as it stands, 3 clients, no mismatch" {
	nfs_shared_server
	cp "$EXAMPLE" "$T/example.txt"
	nfs_dbench -c "$T/example.txt" -t 2 --warmup 1 3
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	for op in Deltree MKDIR3 FSINFO3 GETATTR3 ACCESS3 READDIRPLUS3 LOOKUP3 CREATE3 WRITE3 READ3; do
		has_op "$op"
	done
	[[ "$output" == *"3 clients  3 procs"* ]]
	assert_export_empty
	assert_no_procs
}

@test "nfs: the larger NFS loadfile, 2 passes of 3 clients, no mismatch" {
	nfs_shared_server
	cp "$NFSLOAD" "$T/nfs.txt"
	nfs_dbench -c "$T/nfs.txt" --passes 2 3
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches, passes per client 2..2 (6 in all)"* ]]
	for op in RENAME3 SYMLINK3 READLINK3 LINK3 COMMIT3 SETATTR3 REMOVE3 RMDIR3 FSSTAT3 PATHCONF3; do
		has_op "$op"
	done
	assert_export_empty
	assert_no_procs
}

@test "nfs: the default client.txt (netbench ops) over NFS for a few seconds, no mismatch" {
	nfs_shared_server
	cp "$CLIENT" "$T/client.txt"
	nfs_dbench -c "$T/client.txt" -t 3 --warmup 1 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	for op in NTCreateX Close ReadX WriteX Qpathinfo Find Rename Unlink; do
		has_op "$op"
	done
	assert_export_empty
	assert_no_procs
}

@test "nfs: a wrong export is one line and exit 2, before any client starts" {
	nfs_shared_server
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --server 127.0.0.1 \
		--export /no/such/export -c "$EXAMPLE" 3
	echo "$output"; echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "dbench: nfs: cannot mount 127.0.0.1:/no/such/export: "* ]]
	[[ "$output" != *"releasing clients"* ]]
	assert_export_empty
}

@test "nfs: a server that is not there is one line and exit 2, at once" {
	local t0=$SECONDS

	# outside the namespace nothing of ours serves NFS on 127.0.0.1 (a
	# system rpcbind may answer there, so the reason may vary)
	run --separate-stderr timeout 60 "$DBENCH" -B nfs --server 127.0.0.1 \
		--export /dbench-no-such-export -c "$EXAMPLE" 3
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "dbench: nfs: cannot mount 127.0.0.1:/dbench-no-such-export: "* ]]
	[[ "$output" != *"releasing clients"* ]]
	[ $((SECONDS - t0)) -lt 10 ]
	# a port nothing listens on: the reason is named
	run --separate-stderr timeout 60 "$DBENCH" -B nfs --server 127.0.0.1 --mount-port 1 \
		--export /export -c "$EXAMPLE" 3
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no answer on port 1 (mount): Connection refused"* ]]
}

@test "nfs: ganesha killed mid-run: the clients fail at once, a report, exit 1, no hang" {
	local pid t0 rc

	nfs_own_server
	cp "$CLIENT" "$T/client.txt"
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		-c "$T/client.txt" -t 60 --warmup 0 3 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_running "$T/out"
	nfs_kill_server
	t0=$SECONDS
	wait "$pid" || rc=$?
	cat "$T/out" "$T/err"
	[ "${rc:-0}" -eq 1 ]
	[ $((SECONDS - t0)) -lt 20 ]
	grep -q "^dbench: client [0-9] failed: nfs 127.0.0.1: .*connection to the server lost" "$T/err"
	grep -q "^Throughput " "$T/out"
	grep -q "^ NTCreateX " "$T/out"
	assert_no_procs
}

@test "nfs: a server that stops answering: clients time out (--nfs-timeout 1), report, exit 1" {
	local pid t0 gpid rc

	nfs_own_server
	cp "$CLIENT" "$T/client.txt"
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		--nfs-timeout 1 -c "$T/client.txt" -t 60 --warmup 0 2 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_running "$T/out"
	gpid=$(nfs_server_pid)
	kill -STOP "$gpid"
	t0=$SECONDS
	wait "$pid" || rc=$?
	kill -CONT "$gpid"
	cat "$T/out" "$T/err"
	[ "${rc:-0}" -eq 1 ]
	[ $((SECONDS - t0)) -lt 20 ]
	grep -q "^dbench: client [0-9] failed: nfs 127.0.0.1: .*no reply in 1 s: the server stopped answering" "$T/err"
	grep -q "^Throughput " "$T/out"
	assert_no_procs
}

@test "nfs: a client stopped longer than --nfs-timeout and continued goes on: the deadline counts only while nothing comes, as with NFSv4" {
	local pid procs rc i

	nfs_own_server		# its namespace's sockets are made small below
	# sockets of 64 KiB in our namespace: a 1 MiB READ3 reply waits at
	# the server while the client is stopped, and comes in parts once it
	# is continued (a WRITE3 goes out in parts the same way)
	nfs_ns_exec sh -c 'echo "4096 65536 65536" >/proc/sys/net/ipv4/tcp_rmem'
	{
		echo '0.000 Deltree "/clients/client1" 0x00000000'
		echo '0.000 MKDIR3 "/clients" *'
		echo '0.000 MKDIR3 "/clients/client1" *'
		echo '0.000 CREATE3 "/clients/client1/big" 0 0x00000000'
		echo '0.000 WRITE3 "/clients/client1/big" 0 1048576 2 0x00000000'
		for (( i = 0; i < 20; i++ )); do
			echo '0.000 READ3 "/clients/client1/big" 0 1048576 0x00000000'
		done
	} >"$T/big.txt"
	# -t 10: the stop below (4 s) falls in the run, which goes on after it
	# (a time limit passed during the stop ends the run only once the read
	# in flight has come in: the case still); 20 s kept client and ganesha
	# reading 1 MiB after 1 MiB for 15 s more
	nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		--nfs-timeout 2 -c "$T/big.txt" -t 10 --warmup 0 1 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_running "$T/out"
	# every process of ours: timeout, dbench and its client process
	procs=$(pgrep -f -- "-c $T/big.txt") || { cat "$T/out" "$T/err"; false; }
	# shellcheck disable=SC2086 # a list of pids
	kill -STOP $procs
	sleep 4		# the stop is the case: twice --nfs-timeout
	# shellcheck disable=SC2086
	kill -CONT $procs
	wait "$pid" || rc=$?
	cat "$T/out" "$T/err"
	[ "${rc:-0}" -eq 0 ]
	run grep -c "no reply" "$T/err"
	[ "$output" = 0 ]
	grep -q "^ READ3 " "$T/out"
	assert_export_empty
	assert_no_procs
}

@test "nfs: --skip-cleanup leaves on the export what the loadfile made" {
	nfs_shared_server
	nfs_dbench -c "$EXAMPLE" --run-once --skip-cleanup 2
	[ "$status" -eq 0 ]
	[ "$(tree_of "$NFS_EXPORT_DIR")" = "$(printf '%s\n' 'clients d' 'clients/client0 d' \
		'clients/client0/small-file f 10240' 'clients/client1 d' 'clients/client1/small-file f 10240')" ]
}

@test "nfs: files a loadfile makes at the share root (nfs_2.load's shape) are removed at the end; what was there stays" {
	nfs_shared_server
	root_files_loadfiles
	root_files_check "$NFS_EXPORT_DIR" nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 \
		--export /export --nfs-timeout 30 -c "$T/root3.txt" --run-once --seed 1 2
}

@test "nfs: one netbench loadfile leaves the same tree over fileio and over NFS" {
	nfs_shared_server
	loadfile tree.txt <<'EOF'
Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
Mkdir "\clients\client1\docs" NT_STATUS_OK
NTCreateX "\clients\client1\docs\a.doc" 0x40 2 100 NT_STATUS_OK
WriteX 100 0 70000 70000 NT_STATUS_OK
WriteX 100 100000 1 1 NT_STATUS_OK
Close 100 NT_STATUS_OK
NTCreateX "\clients\client1\docs\a.doc" 0x40 2 101 NT_STATUS_OBJECT_NAME_COLLISION
NTCreateX "\clients\client1\nodir\x" 0x40 2 101 NT_STATUS_OBJECT_PATH_NOT_FOUND
NTCreateX "\clients\client1\docs\b.tmp" 0x40 5 102 NT_STATUS_OK
WriteX 102 0 5000 5000 NT_STATUS_OK
Close 102 NT_STATUS_OK
Rename "\clients\client1\docs\b.tmp" "\clients\client1\docs\a.doc" NT_STATUS_OBJECT_NAME_COLLISION
Rename "\clients\client1\docs\b.tmp" "\clients\client1\b.doc" NT_STATUS_OK
NTCreateX "\clients\client1\docs\a.doc" 0x40 1 103 NT_STATUS_OK
ReadX 103 0 65536 65536 NT_STATUS_OK
ReadX 103 100001 10 0 NT_STATUS_END_OF_FILE
QUERY_FILE_INFORMATION 103 1005 NT_STATUS_OK
Close 103 NT_STATUS_OK
NTCreateX "\clients\client1\gone.tmp" 0x1040 2 104 NT_STATUS_OK
Close 104 NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\gone.tmp" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
FIND_FIRST "\clients\client1\docs\*.doc" 260 100 1 NT_STATUS_OK
FIND_FIRST "\clients\client1\docs\*.xls" 260 100 0 NT_STATUS_NO_SUCH_FILE
Unlink "\clients\client1\docs" NT_STATUS_FILE_IS_A_DIRECTORY
Rmdir "\clients\client1\docs" NT_STATUS_DIRECTORY_NOT_EMPTY
Mkdir "\clients\client1\empty" NT_STATUS_OK
Mkdir "\clients\client1\old" NT_STATUS_OK
Rmdir "\clients\client1\old" NT_STATUS_OK
EOF
	run --separate-stderr "$DBENCH" -D "$T/d" -c "$T/tree.txt" --run-once --skip-cleanup 2
	echo "fileio: $output $stderr"
	[ "$status" -eq 0 ]
	nfs_dbench -c "$T/tree.txt" --run-once --skip-cleanup 2
	echo "nfs: $output $stderr"
	[ "$status" -eq 0 ]
	echo "fileio:"; tree_of "$T/d"
	echo "nfs:"; tree_of "$NFS_EXPORT_DIR"
	[ "$(tree_of "$T/d")" = "$(tree_of "$NFS_EXPORT_DIR")" ]
	[ -n "$(tree_of "$T/d")" ]
}

@test "nfs: --nfs URL with nfsport and mountport, and --server HOST:PORT" {
	nfs_shared_server
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs \
		--nfs "nfs://127.0.0.1/export?nfsport=2049&mountport=20048" -c "$EXAMPLE" --run-once 2
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	nfs_dbench -c "$EXAMPLE" --run-once --mount-port 20048 --nfs-port 2049 --protocol tcp 2
	[ "$status" -eq 0 ]
	# the wrong NFS port: one line naming it
	run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --server 127.0.0.1:1 \
		--export /export -c "$EXAMPLE" 2
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"no answer on port 1 (nfs): Connection refused"* ]]
	# every URL value is checked: libnfs 4.x and 5.x read them with atoi()
	# and ignore keys they do not know, so these ran against this server,
	# the port left to the portmapper (exit 0), and 6.0 and later refused an
	# unknown key only when each client mounted ("bad URL", after the start
	# line); now one line naming the value, before any client, with each
	local url args=(
		'nfsport=abc' "nfsport 'abc' is not a port (1 to 65535)"
		'nfsport=99999' "nfsport '99999' is not a port (1 to 65535)"
		'nfsport=2049&mountport=' "mountport '' is not a port (1 to 65535)"
		'nfsport' 'nfsport has no value (give nfsport=VALUE)'
		'nfsprot=2049' "unknown argument 'nfsprot' (this libnfs knows nfsport, mountport, "
		'version=5' "version '5' is not 3 or 4"
		'uid=root' "uid 'root' is not a number (0 or more)"
	)
	for (( k = 0; k < ${#args[@]}; k += 2 )); do
		url="nfs://127.0.0.1/export?${args[k]}"
		run --separate-stderr nfs_ns_exec timeout 60 "$DBENCH" -B nfs --nfs "$url" -c "$EXAMPLE" --run-once 1
		echo "$url -> $status: $output $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "dbench: nfs: --nfs $url: ${args[k + 1]}"* ]]
		[[ "$output" != *"releasing clients"* ]]
	done
	run --separate-stderr "$DBENCH" -B nfs --nfs nfs://127.0.0.1:99999/export -c "$EXAMPLE" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "dbench: nfs: --nfs nfs://127.0.0.1:99999/export: the port after the host, '99999', is not a port (1 to 65535)" ]]
	assert_export_empty
}

@test "nfs: NLM locks with --enable-nlm; LOCK4 without it is refused before the release" {
	NFS_ENABLE_NLM=1 nfs_own_server
	# each client locks byte <child> of a shared file, and once both hold
	# theirs, finds the other's byte locked
	loadfile locks.txt <<'EOF'
MKDIR3 "/clients" *
MKDIR3 "/clients/client1" *
CREATE3 "/clients/shared.lck" 0 NFS3_OK
LOCK4 "/clients/shared.lck" child 1 NLM4_GRANTED
SETSP 1
WAITSP child+1 1
TEST4 "/clients/shared.lck" child+1%num_children 1 NLM4_DENIED
LOCK4 "/clients/shared.lck" child+1%num_children 1 NLM4_DENIED
TEST4 "/clients/shared.lck" child 1 NLM4_GRANTED
SETSP 2
WAITSP child+1 2
UNLOCK4 "/clients/shared.lck" child 1 NLM4_GRANTED
NTCreateX "\clients\client1\f" 0x40 2 1 NT_STATUS_OK
LockX 1 0 10 NT_STATUS_OK
LockX 1 5 10 NT_STATUS_LOCK_NOT_GRANTED
UnlockX 1 0 10 NT_STATUS_OK
UnlockX 1 0 10 NT_STATUS_RANGE_NOT_LOCKED
Close 1 NT_STATUS_OK
EOF
	nfs_dbench --enable-nlm -c "$T/locks.txt" --run-once 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	op_count LOCK4 4
	op_count TEST4 4
	nfs_dbench -c "$T/locks.txt" --run-once 2
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"NLM lock operations"*"--enable-nlm"* ]]
	[[ "$output" != *"releasing clients"* ]]
	assert_export_empty
}

@test "nfs: a run that ends at its time limit with NLM locks held releases them: the next run has no lock denied" {
	# (a server of its own: what it tests is the lock state a run leaves)
	NFS_ENABLE_NLM=1 nfs_own_server
	# as upstream's nfs_lock.load: a file that is there before the run;
	# each client holds its byte (child) all along, and locks and unlocks
	# another until the time limit, which comes with locks held
	: > "$NFS_EXPORT_DIR/locks.dat"
	loadfile lock.txt <<'EOF'
LOCK4 "/locks.dat" child 1 NLM4_GRANTED
LOOP 10000000
LOCK4 "/locks.dat" child+num_children 1 NLM4_GRANTED
UNLOCK4 "/locks.dat" child+num_children 1 NLM4_GRANTED
ENDLOOP
EOF
	local run args
	# a process a client, then 4 clients on one process's event loop
	# (their NLM connections made and their locks released side by side)
	for run in "1 2" "2 2" "3 --clients-per-process 4 4" "4 --clients-per-process 4 4"; do
		read -r run args <<<"$run"
		# shellcheck disable=SC2086 # args: options, a word each
		nfs_dbench --enable-nlm -c "$T/lock.txt" -t 2 --warmup 0 $args
		echo "run $run: $output $stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *", 0 mismatches,"* ]]
		has_op LOCK4
	done
	[ "$(ls -A "$NFS_EXPORT_DIR")" = locks.dat ]
}

@test "nfs: bad NFS options are one line on stderr and exit 2" {
	local args

	while IFS= read -r args; do
		run --separate-stderr $DBENCH -B nfs -c "$EXAMPLE" $args
		echo "dbench $args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "dbench: "* ]]
		[[ "$output" != *"releasing clients"* ]]
	done <<ARGS
--export /export 2
--server 127.0.0.1 2
--server 127.0.0.1 --export relative 2
--server 127.0.0.1 --export /e --protocol udp 2
--server 127.0.0.1 --export /e --protocol sctp 2
--server 127.0.0.1 --export /e --nfs-port 0 2
--server 127.0.0.1 --export /e --mount-port 70000 2
--server 127.0.0.1 --export /e --nfs-timeout 0 2
--server 127.0.0.1 --export /e --nfs-timeout x 2
--server 127.0.0.1:x --export /e 2
--nfs http://127.0.0.1/export 2
--nfs nfs://127.0.0.1/export --export /e 2
ARGS
}

@test "nfs: tools/nfsload.py makes loadfiles/nfs.txt again, byte for byte" {
	sanitizer_pass_skip "a Python tool; no C code of ours runs here"
	command -v "$PYTHON" >/dev/null || skip "python3 is not installed"
	"$PYTHON" "$DBENCH_SRCDIR/tools/nfsload.py" >"$T/nfs.txt"
	cmp "$T/nfs.txt" "$NFSLOAD"
}

@test "tests/lib/nfs.sh: a start whose namespace dies is retried once, saying so" {
	sanitizer_pass_skip "a test of the shell helper; no C code of ours runs here"
	_NFS_TEST_FAIL_START=1 nfs_own_server 2>"$T/start.err"
	cat "$T/start.err"
	grep -q "^nfs: the first start failed (the namespace ended while starting.*); starting once more$" "$T/start.err"
	[ "$(wc -l <"$T/start.err")" -eq 1 ]
	[ -z "$NFS_ERROR" ]
	nfs_ns_exec timeout 10 nfs-ls "$NFS_URL" >/dev/null
}

@test "nfs: --trunc-io N cuts READ3 and WRITE3 to N bytes, as dbench 5.0" {
	nfs_shared_server
	loadfile cut.txt <<'L'
MKDIR3 "/clients" *
MKDIR3 "/clients/client1" *
CREATE3 "/clients/client1/f" 0 0x00000000
WRITE3 "/clients/client1/f" 0 65536 2 0x00000000
READ3 "/clients/client1/f" 0 65536 0x00000000
L
	nfs_dbench -c "$T/cut.txt" --run-once --skip-cleanup --trunc-io 4096 --json "$T/r.json" 1
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *", 0 mismatches,"* ]]
	[ "$(stat -c %s "$NFS_EXPORT_DIR/clients/client0/f")" -eq 4096 ]
	[ "$(jq .results.bytes "$T/r.json")" -eq 8192 ]
	[ "$(jq .loadfile.bytes_written_per_pass "$T/r.json")" -eq 4096 ]
	rm -rf "$NFS_EXPORT_DIR/clients"
}
