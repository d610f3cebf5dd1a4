#!/usr/bin/env bats
# dbench.bats - the dbench command line: options, errors, output shape,
# runs on a temp dir, signals, and nothing left behind.

bats_require_minimum_version 1.5.0
load helpers

setup() { make_tmp; }
teardown() { remove_tmp; }

PROGRESS='^ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2} MB/sec  (warmup|execute) +[0-9]+ sec  latency [0-9]+\.[0-9]{3} ms$'
FINAL='^Throughput [0-9.e+]+ MB/sec  [0-9]+ clients  [0-9]+ procs  max_latency=[0-9]+\.[0-9]{3} ms$'

# Run dbench, with stderr kept apart in $T/err.
run_dbench() {
	run --separate-stderr "$DBENCH" "$@"
}

@test "--help lists the options and exits 0" {
	run "$DBENCH" --help
	[ "$status" -eq 0 ]
	for opt in --timelimit --loadfile --directory --backend --target-rate --sync --sync-dir \
		--fsync --xattr --no-resolve --clients-per-process --one-byte-write-fix --stat-check \
		--fake-io --skip-cleanup --per-client-results --warmup --run-once --machine-readable \
		--tcp-options --version --seed --usage --check-loadfile --passes; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; return 1; }
	done
}

@test "--version prints the version" {
	run "$DBENCH" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^dbench\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "bad values: one line on stderr, exit 2, no client started" {
	local args
	while IFS= read -r args; do
		run --separate-stderr $DBENCH $args
		echo "dbench $args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$output" != *"releasing clients"* ]]
	done <<ARGS
-t abc 4
0
-1
abc
-B nosuch 2
-D /nonexistent/dir 2
-c /nonexistent/loadfile 2
-t 0 2
--warmup -3 2
--clients-per-process 0 2
-R fast 2
--passes 0 2
--seed xyz 2
--no-such-option 2
2 extra-argument
ARGS
	# an empty loadfile name is named as one (before: ": cannot open
	# loadfile: No such file or directory")
	run --separate-stderr "$DBENCH" -c '' 2
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: -c: an empty loadfile name (give a file, or leave -c out for the default) (see dbench --help)" ]
	[ -z "$(ls -A "$T/d")" ]
}

@test "--iodepth: refused with one line and exit 2 where the backend has no queue, or out of range" {
	local args want
	run "$DBENCH" --help
	[[ "$output" == *"--iodepth=N"* ]]
	# the backends that take it (iscsi, when its module is installed)
	want="none installed"
	grep -A1 "^  iscsi " <<<"$output" | grep -q "queue: --iodepth" && want=iscsi
	for args in "-D $T/d" "-B null" "-B sockio --server 127.0.0.1"; do
		run --separate-stderr $DBENCH $args --iodepth 8 -t 1 2
		echo "$args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" =~ ^"dbench: --iodepth 8: the "(fileio|null|sockio)" backend has no queue (one op a client in flight); backends with one: $want (see dbench --help)"$ ]]
	done
	while IFS= read -r args; do
		run --separate-stderr $DBENCH -D "$T/d" $args -t 1 2
		echo "$args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "dbench: --iodepth: "* ]]
	done <<ARGS
--iodepth 0
--iodepth 1025
--iodepth -3
--iodepth many
ARGS
	[ -z "$(ls -A "$T/d")" ]
	# 1 is the default: the same run as without it
	run_dbench -D "$T/d" -c "$DBENCH_SRCDIR/loadfiles/client.txt" --run-once --iodepth 1 1
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
}

@test "a missing NPROCS is a usage error" {
	run "$DBENCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing NPROCS"* ]]
}

@test "a malformed loadfile: FILE:LINE: message, exit 2, nothing touched" {
	loadfile bad.txt <<'L'
Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1\x" 0x40 NT_STATUS_OK
L
	run_dbench -c "$T/bad.txt" -D "$T/d" -t 2 2
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/bad.txt:2: NTCreateX takes 4 arguments and a status, got 2 arguments and a status" ]
	[ -z "$(ls -A "$T/d")" ]
}

@test "an op the backend lacks is refused at load time" {
	loadfile nfs.txt <<'L'
GETATTR3 "/clients/client1" 0x00000000
L
	run_dbench -c "$T/nfs.txt" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"nfs.txt:1: GETATTR3 is not supported by the fileio backend"* ]]
}

@test "a short run with the default loadfile: output parses, target left empty" {
	cd "$T"
	run_dbench -D "$T/d" -t 4 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^dbench\ version\ [0-9.]+\  ]]
	[[ "$output" == *"releasing clients"* ]]
	local n=0 l
	for l in "${lines[@]}"; do
		[[ "$l" =~ $PROGRESS ]] && n=$((n + 1))
	done
	[ "$n" -ge 3 ]
	[[ "$output" =~ \ Operation\ \ \ \ \ \ Count\ \ \ \ AvgLat\ \ \ \ MaxLat ]]
	[[ "$output" =~ $'\n'\ NTCreateX\ +[0-9]+\ +[0-9]+\.[0-9]{3}\ +[0-9]+\.[0-9]{3} ]]
	# the NB line comes before the op table (harnesses take what follows
	# the table's header for op rows), the Operations line before the last
	[[ "$output" =~ $'\n'Netbench\ scaled:\ NB=[0-9.e+]+\ MB/sec\ \ [0-9.e+]+\ MBit/sec$'\n\n'\ Operation\  ]]
	[[ "${lines[-2]}" =~ ^Operations\ [0-9]+\ in\ [0-9.]+\ sec ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
	[[ "${lines[-1]}" == *" 2 clients  2 procs "* ]]
	assert_empty_target
	assert_no_procs
}

@test "the NB figure is 1.25 times the throughput" {
	run_dbench -D "$T/d" -t 3 1
	[ "$status" -eq 0 ]
	local tp nb
	tp=$(echo "$output" | sed -n 's/^Throughput \([0-9.e+]*\) MB.*/\1/p')
	nb=$(echo "$output" | sed -n 's/^Netbench scaled: NB=\([0-9.e+]*\) MB.*/\1/p')
	awk -v t="$tp" -v n="$nb" 'BEGIN { d = n - 1.25 * t; exit !(d < 0.01 * n + 0.01 && d > -0.01 * n - 0.01) }'
}

@test "the classic Debian client.txt runs unchanged with no status mismatch" {
	[ -r "$CLASSIC" ] || skip "no $CLASSIC (apt-get install dbench)"
	run_dbench -c "$CLASSIC" -D "$T/d" -t 4 2
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
	assert_empty_target
}

@test "--run-once replays the loadfile once per client and stops" {
	loadfile small.txt <<'L'
Deltree "\clients\client1" NT_STATUS_OK
Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	run_dbench -c "$T/small.txt" -D "$T/d" --run-once 3
	echo "$output" "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Running for 600 seconds with load '$T/small.txt' and minimum warmup 0 secs, 1 pass per client"* ]]
	[[ "$output" == *"Operations 21 in "*"passes per client 1..1 (3 in all)"* ]]
	[[ "$output" =~ $'\n'\ WriteX\ +3\  ]]
	assert_empty_target
}

@test "--passes 2 does two passes per client" {
	loadfile small.txt <<'L'
Mkdir "\clients" *
NTCreateX "\clients\client1" 0x1 0x3 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	run_dbench -c "$T/small.txt" -D "$T/d" --passes 2 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"passes per client 2..2 (4 in all)"* ]]
	assert_empty_target
}

@test "--machine-readable prints only machine-readable lines on stdout" {
	run_dbench -D "$T/d" -t 3 --machine-readable 2
	[ "$status" -eq 0 ]
	local l
	for l in "${lines[@]}"; do
		[[ "$l" =~ ^(@[WRC]@|:[A-Za-z0-9_]+:[0-9]+:|\;) ]] || { echo "bad line: $l"; return 1; }
	done
	[[ "$output" =~ @R@2@[0-9]+@[0-9.]+@[0-9]+@[0-9.]+@ ]]
	[[ "${lines[-1]}" =~ ^\;[0-9.e+]+\;2\;2\;[0-9.]+\;$ ]]
	# the real throughput, not 0 as dbench 5 printed
	[[ ! "${lines[-1]}" =~ ^\;0\; ]]
}

@test "a status mismatch is named with FILE:LINE, counted, and fails the run" {
	loadfile mm.txt <<'L'
Mkdir "\clients" *
Unlink "\clients\client1\nosuch" NT_STATUS_OK
Unlink "\clients\client1\nosuch" NT_STATUS_OBJECT_PATH_NOT_FOUND
L
	run_dbench -c "$T/mm.txt" -D "$T/d" --run-once 2
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"mm.txt:2: Unlink expected NT_STATUS_OK, got NT_STATUS_OBJECT_PATH_NOT_FOUND (client "* ]]
	[[ "$stderr" != *"mm.txt:3:"* ]]
	[[ "$output" == *", 2 mismatches,"* ]]
	run_dbench -c "$T/mm.txt" -D "$T/d" --run-once --allow-mismatch 2
	[ "$status" -eq 0 ]
	assert_empty_target
}

@test "an op on a handle whose open failed is a counted error, not a crash" {
	loadfile h.txt <<'L'
NTCreateX "\nosuch\f" 0x40 0x1 5 NT_STATUS_OBJECT_PATH_NOT_FOUND
ReadX 5 0 10 10 NT_STATUS_OK
Close 5 NT_STATUS_INVALID_HANDLE
L
	run_dbench -c "$T/h.txt" -D "$T/d" --run-once 1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"h.txt:2: ReadX expected NT_STATUS_OK, got NT_STATUS_INVALID_HANDLE"* ]]
	[[ "$output" == *", 1 mismatches,"* ]]
}

@test "a gzip-compressed loadfile runs" {
	printf 'Mkdir "\\clients" *\nNTCreateX "\\clients\\client1" 0x1 0x3 1 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' | gzip > "$T/l.gz"
	run_dbench -c "$T/l.gz" -D "$T/d" --run-once 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations 6 in"* ]]
}

@test "--check-loadfile prints one pass's ops, bytes and files" {
	run_dbench --check-loadfile -c "$DBENCH_SRCDIR/loadfiles/client.txt" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"One pass of client 0:"* ]]
	[[ "$output" =~ Bytes\ read:\ +[0-9]+ ]]
	[[ "$output" =~ Files\ touched:\ +[0-9]+\ distinct\ paths ]]
}

# The pass figures come from the client interpreter itself (on the null
# backend), so they are what a run does: the random sizes after a
# RANDOMSTRING are drawn as the client draws them.
@test "--check-loadfile and the JSON per-pass figures are what one pass moves" {
	cat > "$T/drift.load" <<'EOF2'
RANDOMSTRING 0 "[a-z][a-z][a-z]"
NTCreateX "\clients\client1\f$0" 0x40 0x2 1 *
LOOP 20
WriteX 1 +0 *%4096+1 -1 *
ReadX 1 *%8192 *%2048+1 -1 *
ENDLOOP
WAITSP 1 1
SLEEP 100000
0.25 Close 1 *
EOF2
	run_dbench -B null --run-once --seed 7 -c "$T/drift.load" --json "$T/r.json" 2
	[ "$status" -eq 0 ]
	# client 0's pass against what clients 0 and 1 moved: compare client 0's
	read -r per_pass ops <<<"$(jq -r '[.loadfile.bytes_written_per_pass + .loadfile.bytes_read_per_pass, .loadfile.ops_per_pass] | @tsv' "$T/r.json")"
	run_dbench -B null --run-once --seed 7 -c "$T/drift.load" --json "$T/r1.json" 1
	[ "$status" -eq 0 ]
	[ "$(jq '.results.bytes' "$T/r1.json")" -eq "$per_pass" ]
	[ "$(jq '.results.ops' "$T/r1.json")" -eq "$ops" ]
	[ "$ops" -eq 42 ]
	run_dbench --check-loadfile --seed 7 -c "$T/drift.load" 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ Bytes\ written:\ +$(jq '.loadfile.bytes_written_per_pass' "$T/r.json")\  ]]
	[[ "$output" =~ Bytes\ read:\ +$(jq '.loadfile.bytes_read_per_pass' "$T/r.json")\  ]]
	[[ "$output" == *"Duration:       0.250 sec"* ]]
}

@test "--per-client-results shows each client" {
	run_dbench -D "$T/d" -t 3 --per-client-results 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ Client\ 0\ did\ [0-9]+\ lines ]]
	[[ "$output" =~ Client\ 1\ did\ [0-9]+\ lines ]]
}

@test "--clients-per-process runs several clients in one process" {
	run_dbench -D "$T/d" -t 3 --clients-per-process 3 2
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" 6 clients  2 procs "* ]]
	assert_empty_target
}

@test "SIGINT stops the run: partial report, exit 130, nothing left" {
	signal_run "$DBENCH" -D "$T/d" -t 60 3
	[ "$status" -eq 130 ]
	grep -Eq "$FINAL" "$T/out"
	assert_empty_target
	assert_no_procs
}

@test "SIGTERM stops the run with exit 143" {
	signal_run -s TERM "$DBENCH" -D "$T/d" -t 60 2
	[ "$status" -eq 143 ]
	grep -Eq "$FINAL" "$T/out"
	assert_empty_target
	assert_no_procs
}

@test "clients leave by themselves when the parent is killed" {
	signal_run -s KILL -m "$DBENCH" -D "$T/d" -t 60 3
	[ "$status" -eq 137 ]
	assert_no_procs
	# each client removed its own tree
	[ -z "$(find "$T/d" -mindepth 2 -name 'client*')" ]
}

@test "timestamps pace the ops: a 1.5 s schedule takes about 1.5 s" {
	loadfile paced.txt <<'L'
0.000 Mkdir "\clients" *
0.500 NTCreateX "\clients\client1" 0x1 0x3 1 NT_STATUS_OK
1.500 Close 1 NT_STATUS_OK
L
	local t0=$(date +%s%N)
	run_dbench -c "$T/paced.txt" -D "$T/d" --run-once 2
	local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$status" -eq 0 ]
	[ "$ms" -ge 1500 ]
	# start-up and cleanup included: the bound grows as wait_for's limits do
	# (under ASan at load 23 it took over 6 s)
	wait_scale
	[ "$ms" -lt $((6000 * _WAIT_SCALE)) ]
}

@test "WAITSP waits for another client's SETSP" {
	loadfile sp.txt <<'L'
Mkdir "\clients" *
NTCreateX "\clients\client1" 0x1 0x3 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
SETSP 1
WAITSP child+1%num_children 1
SLEEP 1000
SETSP 2
WAITSP child+2%num_children 2
L
	run_dbench -c "$T/sp.txt" -D "$T/d" --run-once 3
	[ "$status" -eq 0 ]
	[[ "$output" == *"passes per client 1..1 (3 in all)"* ]]
}

@test "WAITSP never hangs on a finished client; a circular wait ends with the time limit" {
	loadfile never.txt <<'L'
Mkdir "\clients" *
WAITSP child+1%num_children 99
L
	run timeout 20 "$DBENCH" -c "$T/never.txt" -D "$T/d" -t 2 --warmup 0 3
	[ "$status" -eq 0 ]
	[[ "$output" == *"Throughput"* ]]
	assert_no_procs
}

@test "the default loadfile is found as ./client.txt first" {
	printf 'Mkdir "\\clients" *\nMkdir "\\clients\\client1" NT_STATUS_OK\n' > "$T/client.txt"
	cd "$T"
	run_dbench -D "$T/d" --run-once 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"load 'client.txt'"* ]]
	[[ "$output" == *"Operations 2 in"* ]]
}

@test "--seed makes random parameters reproducible" {
	loadfile rnd.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
RANDOMSTRING 0 "f[0-9][0-9][0-9]"
NTCreateX "\clients\client1\$0" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 */512%65536 100 100 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	run_dbench -c "$T/rnd.txt" -D "$T/d" --run-once --skip-cleanup --seed 1234 1
	[ "$status" -eq 0 ]
	local first=$(cd "$T/d" && find . -type f -printf '%p %s\n')
	rm -rf "$T/d"/*
	run_dbench -c "$T/rnd.txt" -D "$T/d" --run-once --skip-cleanup --seed 1234 1
	local second=$(cd "$T/d" && find . -type f -printf '%p %s\n')
	[ -n "$first" ]
	[ "$first" = "$second" ]
}

@test "--skip-cleanup leaves the files; a later run cleans them" {
	loadfile keep.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 100 100 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	run_dbench -c "$T/keep.txt" -D "$T/d" --run-once --skip-cleanup 2
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$T/d/clients/client1/f")" = 100 ]
	[ -f "$T/d/clients/client0/f" ]
	run_dbench -c "$T/keep.txt" -D "$T/d" --run-once 2
	[ "$status" -eq 0 ]
	# clients/ was there before the second run and stays; the client
	# trees it found and did not Deltree stay too (prepared data)
	[ -d "$T/d/clients" ]
	[ -f "$T/d/clients/client0/f" ]
	rm -rf "$T/d/clients"
	run_dbench -c "$T/keep.txt" -D "$T/d" --run-once 2
	[ "$status" -eq 0 ]
	assert_empty_target
}

@test "the null backend runs any loadfile with no mismatch (harness cost)" {
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --passes 3 --seed 1 4
	[ "$status" -eq 0 ]
	[[ "$output" == *"passes per client 3..3 (12 in all)"* ]]
	[[ "$output" == *"Operations 96240 in"* ]]
}

# Byte-range locks on fileio are SMB's: per handle, across clients, in one
# process or several.  Client c holds [4c, 4c+4) on handle 1; an unlock of
# a range it does not hold (byte 4c+1) must not release that byte; then
# each client probes the other's byte.  $1: lines run before the probe.
lock_loadfile() {
	{
		cat <<'L'
Mkdir "\lk" *
NTCreateX "\lk\f" 0x40 0x3 1 NT_STATUS_OK
LockX 1 child+child+child+child 4 NT_STATUS_OK
UnlockX 1 child+child+child+child+1 1 NT_STATUS_RANGE_NOT_LOCKED
L
		printf '%s\n' "$1"
		cat <<'L'
SETSP 1
WAITSP child+1 1
LockX 1 5-child-child-child-child 1 NT_STATUS_LOCK_NOT_GRANTED
SETSP 2
WAITSP child+1 2
Close 1 NT_STATUS_OK
L
	} > "$T/locks.txt"
}

@test "fileio locks: an unlock of a range not held releases nothing" {
	lock_loadfile ""
	run_dbench -c "$T/locks.txt" -D "$T/d" --run-once --show-mismatches=10 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations 12 in"*", 0 mismatches,"* ]]
	assert_empty_target
}

# Open-file-description locks, not POSIX process locks: two clients of one
# process conflict; closing another handle on the file keeps the lock; a
# lock of length 0 locks nothing (not "to the end of the file").
@test "fileio locks: per handle, not per process (clients of one process, close, length 0)" {
	lock_loadfile 'NTCreateX "\lk\f" 0x40 0x1 2 NT_STATUS_OK
Close 2 NT_STATUS_OK
LockX 1 child+100 0 NT_STATUS_OK
LockX 1 1000+child 1 NT_STATUS_OK'
	run_dbench -c "$T/locks.txt" -D "$T/d" --run-once --show-mismatches=10 --clients-per-process 2 1
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations 20 in"*", 0 mismatches,"* ]]
	assert_empty_target
}

@test "WRITEPATTERN data reads back verified; SMB lock semantics on fileio" {
	loadfile wp.txt <<'L'
WRITEPATTERN
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 1000 70000 70000 NT_STATUS_OK
ReadX 1 1000 70000 70000 NT_STATUS_OK
ReadX 1 1001 500 500 NT_STATUS_OK
LockX 1 0 10 NT_STATUS_OK
LockX 1 5 10 NT_STATUS_LOCK_NOT_GRANTED
UnlockX 1 0 10 NT_STATUS_OK
UnlockX 1 0 10 NT_STATUS_RANGE_NOT_LOCKED
WRITEPATTERN off
WriteX 1 0 100 100 NT_STATUS_OK
WRITEPATTERN on
ReadX 1 0 100 100 NT_STATUS_FILE_CORRUPT_ERROR
Close 1 NT_STATUS_OK
L
	run_dbench -c "$T/wp.txt" -D "$T/d" --run-once 2
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations 26 in"*", 0 mismatches,"* ]]
	assert_empty_target
}
