#!/usr/bin/env bats
# smb.bats - the smb backend against a real server: a private smbd of our
# own (tests/lib/smbd.sh) on 127.0.0.1 and a free port, with a guest share
# `share` and a password-only share `private`, started once for the file
# and stopped afterwards.  Loadfiles run with no mismatch, leave the share
# as they should, bad credentials and shares fail cleanly before any
# client starts, and a server that dies mid-run stops the run at once.
# Runnable by hand:  DBENCH=build/src/dbench bats tests/cli/smb.bats
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

FINAL='^Throughput [0-9.e+]+ MB/sec  [0-9]+ clients  [0-9]+ procs  max_latency=[0-9]+\.[0-9]{3} ms$'

setup_file() {
	"$DBENCH" --help | grep -q -- --smb-share ||
		{ skip_file "dbench was built without the smb backend"; return 0; }
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	file_start_or_skip smbd_start
	export FILE_SMBD_PID=$SMBD_PID FILE_SMBD_PORT=$SMBD_PORT
}

teardown_file() {
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	local pid=${FILE_SMBD_PID:-}
	smbd_stop
	# nothing of our smbd (or of a dbench against it) is left
	! srv_group_alive "$pid" || false
	# (only against our port: other runs may be going on)
	[ -z "$(pgrep -f -- "smb-share //127.0.0.1:${FILE_SMBD_PORT:-x}/" || true)" ]
}

setup() {
	file_skipped
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$DBENCH_SRCDIR/tests/lsan.supp:print_suppressions=0}
	make_tmp
	SHARE=//127.0.0.1:$SMBD_PORT/share
	PRIVATE=//127.0.0.1:$SMBD_PORT/private
	find "$SMBD_SHARE_DIR" "$SMBD_PRIVATE_DIR" -mindepth 1 -delete
}

teardown() {
	[ -n "${OWN_SMBD:-}" ] && smbd_stop
	remove_tmp
}

# Run dbench against the guest share, stderr apart.
run_smb() {
	run --separate-stderr timeout 120 "$DBENCH" -B smb --smb-share "$SHARE" "$@"
	echo "exit $status"
	echo "$output"
	echo "stderr: $stderr"
}

share_empty() {
	local left
	left=$(find "$SMBD_SHARE_DIR" -mindepth 1 | head)
	[ -z "$left" ] || { echo "left on the share: $left" >&2; return 1; }
}

no_dbench_left() {
	wait_for -t 5 "the dbench processes of this share to end" \
		! pgrep -f -- "smb-share //127.0.0.1:$SMBD_PORT/" >/dev/null && return 0
	pgrep -af -- "smb-share //127.0.0.1:$SMBD_PORT/" >&2
	return 1
}

@test "smb: --help lists the backend and its options" {
	run "$DBENCH" --help
	[ "$status" -eq 0 ]
	for opt in --smb-share --smb-user --smb-protocol --smb-timeout "smb backend options (-B smb):" \
		"  smb      a real SMB2/3 server"; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; return 1; }
	done
}

@test "smb: the default client.txt, 2 clients, a few seconds: no mismatch, share left empty" {
	run_smb -t 4 2
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
	[[ "${lines[-1]}" == *" 2 clients  2 procs "* ]]
	# the bytes the connections carried, from the kernel's TCP counters
	[[ "$output" =~ Network:\ [1-9][0-9]*\ bytes\ sent,\ [1-9][0-9]*\ received ]]
	[ -z "$stderr" ]
	share_empty
	no_dbench_left
}

@test "smb: the classic Debian client.txt runs unchanged with no mismatch" {
	sanitizer_pass_skip "its ops are the default client.txt's (the test above) through the same SMB code; dbench.bats reads the classic file"
	[ -f "$CLASSIC" ] || skip "no $CLASSIC (Debian's dbench package)"
	run_smb -c "$CLASSIC" -t 4 2
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	[[ "$output" == *"Qfsinfo"* && "$output" == *"Find"* && "$output" == *"Rename"* ]]
	share_empty
}

@test "smb: loadfiles/smb.load (plain SMB op names) runs with no mismatch" {
	sanitizer_pass_skip "loadfiles/smb.load runs through the same SMB code in the --clients-per-process test"
	run_smb -c "$DBENCH_SRCDIR/loadfiles/smb.load" -t 3 3
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	for op in OPEN READ WRITE CLOSE READDIR STAT Rename Unlink Mkdir Rmdir Deltree; do
		grep -Eq "^ $op +[1-9]" <<<"$output" || { echo "no $op"; return 1; }
	done
	share_empty
}

@test "smb: --skip-cleanup leaves on the share exactly what fileio leaves on a disk" {
	loadfile made.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" NT_STATUS_OK
Mkdir "\clients\client1\docs" NT_STATUS_OK
NTCreateX "\clients\client1\docs\a.doc" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 70000 70000 NT_STATUS_OK
WriteX 1 100000 5 5 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\clients\client1\docs\b.tmp" 0x40 0x5 2 NT_STATUS_OK
WriteX 2 0 1234 1234 NT_STATUS_OK
Close 2 NT_STATUS_OK
Rename "\clients\client1\docs\b.tmp" "\clients\client1\docs\b.txt" NT_STATUS_OK
NTCreateX "\clients\client1\docs\gone" 0x1040 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK
NTCreateX "\clients\client1\sub" 0x1 0x2 4 NT_STATUS_OK
Close 4 NT_STATUS_OK
NTCreateX "\clients\client1\sub\c.dat" 0x40 0x2 5 NT_STATUS_OK
WriteX 5 4096 4096 4096 NT_STATUS_OK
SET_FILE_INFORMATION 5 1004 NT_STATUS_OK
Close 5 NT_STATUS_OK
NTCreateX "\clients\client1\docs\odd name #1 %41+$&'é.txt" 0x40 0x2 6 NT_STATUS_OK
WriteX 6 0 7 7 NT_STATUS_OK
Close 6 NT_STATUS_OK
L
	run "$DBENCH" -D "$T/d" -c "$T/made.txt" --run-once --skip-cleanup 2
	[ "$status" -eq 0 ]
	run_smb -c "$T/made.txt" --run-once --skip-cleanup 2
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	(cd "$T/d" && find . -mindepth 1 -printf '%y %s %p\n' | sed 's/^d [0-9]*/d/' | sort) >"$T/fileio.tree"
	(cd "$SMBD_SHARE_DIR" && find . -mindepth 1 -printf '%y %s %p\n' | sed 's/^d [0-9]*/d/' | sort) >"$T/smb.tree"
	cat "$T/smb.tree"
	diff "$T/fileio.tree" "$T/smb.tree"
	grep -qx 'f 100005 ./clients/client1/docs/a.doc' "$T/smb.tree"
	grep -qx 'f 1234 ./clients/client1/docs/b.txt' "$T/smb.tree"
	grep -qxF "f 7 ./clients/client1/docs/odd name #1 %41+\$&'é.txt" "$T/smb.tree"
	# a run whose loadfile Deltrees the client trees cleans them up
	loadfile clean.txt <<'L'
Deltree "\clients\client1" NT_STATUS_OK
L
	run_smb -c "$T/clean.txt" --run-once 2
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$SMBD_SHARE_DIR/clients")" ]
}

@test "smb: files a loadfile makes at the share root (random names, as nfs_2.load) are removed at the end; what was there stays" {
	root_files_loadfiles
	root_files_check "$SMBD_SHARE_DIR" timeout 120 "$DBENCH" -B smb --smb-share "$SHARE" \
		-c "$T/root.txt" --run-once --seed 1 2
}

@test "smb: NT statuses: name vs path not found, collisions, directories, locks" {
	loadfile st.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
QUERY_PATH_INFORMATION "\clients\client1\nofile" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
QUERY_PATH_INFORMATION "\clients\client1\nodir\nofile" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
NTCreateX "\clients\client1\nodir\f" 0x40 0x2 1 NT_STATUS_OBJECT_PATH_NOT_FOUND
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
NTCreateX "\clients\client1\f" 0x40 0x2 2 NT_STATUS_OBJECT_NAME_COLLISION
NTCreateX "\clients\client1\f\x" 0x40 0x1 2 NT_STATUS_OBJECT_PATH_NOT_FOUND
NTCreateX "\clients\client1\f" 0x1 0x1 2 NT_STATUS_NOT_A_DIRECTORY
LockX 1 0 10 NT_STATUS_OK
LockX 1 5 10 NT_STATUS_LOCK_NOT_GRANTED
UnlockX 1 0 10 NT_STATUS_OK
UnlockX 1 0 10 NT_STATUS_RANGE_NOT_LOCKED
ReadX 1 0 10 0 NT_STATUS_END_OF_FILE
Close 1 NT_STATUS_OK
Close 1 NT_STATUS_INVALID_HANDLE
Mkdir "\clients\client1\d" NT_STATUS_OK
NTCreateX "\clients\client1\d\g" 0x40 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK
NTCreateX "\clients\client1\d" 0x40 0x1 3 NT_STATUS_FILE_IS_A_DIRECTORY
Unlink "\clients\client1\d" NT_STATUS_FILE_IS_A_DIRECTORY
Rmdir "\clients\client1\d" NT_STATUS_DIRECTORY_NOT_EMPTY
Rmdir "\clients\client1\f" NT_STATUS_NOT_A_DIRECTORY
Rename "\clients\client1\f" "\clients\client1\d\g" NT_STATUS_OBJECT_NAME_COLLISION
Rename "\clients\client1\f" "\clients\client1\d" NT_STATUS_OBJECT_NAME_COLLISION
Rename "\clients\client1\f" "\clients\client1\nodir\f" NT_STATUS_OBJECT_PATH_NOT_FOUND
Rename "\clients\client1\f" "\clients\client1\F" NT_STATUS_OK
Unlink "\clients\client1\nofile" NT_STATUS_OBJECT_NAME_NOT_FOUND
Unlink "\clients\client1\nodir\nofile" NT_STATUS_OBJECT_PATH_NOT_FOUND
FIND_FIRST "\clients\client1\d\*" 260 1366 0 NT_STATUS_OK
FIND_FIRST "\clients\client1\d\*.doc" 260 1366 0 NT_STATUS_NO_SUCH_FILE
FIND_FIRST "\clients\client1\nodir\*" 260 1366 0 NT_STATUS_OBJECT_PATH_NOT_FOUND
FIND_FIRST "\clients\client1\d\G" 260 1366 0 NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\a*b" 1004 NT_STATUS_OBJECT_NAME_INVALID
QUERY_PATH_INFORMATION "\clients\client1\a*b" 1004 NT_STATUS_INVALID_PARAMETER
Deltree "\clients\client1\d" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\d\g" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
Mkdir "\clients\client1\d2" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\d2\x" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
Rename "\clients\client1\d2" "\clients\client1\d3" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\d2\x" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
QUERY_PATH_INFORMATION "\clients\client1\d3\x" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
Rmdir "\clients\client1\D3" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\d3\x" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
L
	run_smb -c "$T/st.txt" --run-once 1
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	share_empty
}

@test "smb: a wrong expectation is a counted mismatch naming the status seen" {
	loadfile bad.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
QUERY_PATH_INFORMATION "\clients\client1\nodir\nofile" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
QUERY_PATH_INFORMATION "\clients\client1\nofile" 1004 NT_STATUS_OK
L
	run_smb -c "$T/bad.txt" --run-once 1
	[ "$status" -eq 1 ]
	[[ "$output" == *", 2 mismatches,"* ]]
	[[ "$stderr" == *"bad.txt:3: "*"expected NT_STATUS_OBJECT_NAME_NOT_FOUND, got NT_STATUS_OBJECT_PATH_NOT_FOUND"* ]]
	[[ "$stderr" == *"bad.txt:4: "*"expected NT_STATUS_OK, got NT_STATUS_OBJECT_NAME_NOT_FOUND"* ]]
	share_empty
}

# user_session_seen: smbstatus lists a session of $SMBD_USER on SMB2_10
# (sets seen to its line) and the clients are running (a progress line: the
# setup's own probe session is seen before any client starts, and a SIGINT
# then ends the run with no report), or the run ($RUN_PID) has ended.
user_session_seen() {
	! srv_alive "$RUN_PID" && return 0
	grep -q " execute " "$T/out" || return 1
	seen=$(smbstatus -s "$SMBD_CONF" -b 2>/dev/null | grep -E "^[0-9]+ +$SMBD_USER .* SMB2_10 ")
	[ -n "$seen" ]
}

user_session_up() {
	wait_for -t 60 "a progress line and smbstatus to show $SMBD_USER on SMB2_10, or the run to end" \
		user_session_seen
}

@test "smb: a password user on the private share; the server sees that user" {
	# the run goes on until smbstatus has seen the session, then SIGINT
	# ends it (a run of 4 s ended at load 30 before smbstatus answered)
	local seen=
	signal_run -w user_session_up env DBENCH_SMB_PASSWORD="$SMBD_PASS" timeout 120 "$DBENCH" \
		-B smb --smb-share "$PRIVATE" --smb-user "$SMBD_USER" --smb-protocol SMB2_10 -t 60 \
		--warmup 0 1
	echo "smbstatus: $seen"
	[ -n "$seen" ]
	[ "$status" -eq 130 ]
	grep -q ", 0 mismatches," "$T/out"
	[ -z "$(find "$SMBD_PRIVATE_DIR" -mindepth 1)" ]
}

@test "smb: USER%PASSWORD and DOMAIN/USER forms work too" {
	run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$PRIVATE" \
		--smb-user "WORKGROUP/$SMBD_USER%$SMBD_PASS" -c "$DBENCH_SRCDIR/loadfiles/smb.load" --run-once 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
}

@test "smb: a wrong password fails at setup: one line, exit 2, no guest fall-back" {
	local share
	for share in "$PRIVATE" "$SHARE"; do
		run --separate-stderr env DBENCH_SMB_PASSWORD=wrong timeout 60 "$DBENCH" -B smb \
			--smb-share "$share" --smb-user "$SMBD_USER" -t 2 2
		echo "$share: $status: $output / $stderr"
		[ "$status" -eq 2 ]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		[[ "$stderr" == *"access denied for user $SMBD_USER"* ]]
		[[ "$output" != *"releasing clients"* ]]
	done
	share_empty
}

@test "smb: guest on the password-only share is refused the same way" {
	run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$PRIVATE" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"access denied for guest"* ]]
}

@test "smb: no password and no terminal: one line, exit 2" {
	run --separate-stderr env -u DBENCH_SMB_PASSWORD setsid timeout 60 "$DBENCH" -B smb \
		--smb-share "$PRIVATE" --smb-user "$SMBD_USER" -t 2 1 </dev/null
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no password"*DBENCH_SMB_PASSWORD* ]]
}

@test "smb: an empty password is one line saying so, not 'Invalid argument'" {
	# libsmbclient answers a logon with an empty password with EINVAL:
	# before, "cannot connect to //...: Invalid argument"
	run --separate-stderr env DBENCH_SMB_PASSWORD= timeout 60 "$DBENCH" -B smb \
		--smb-share "$PRIVATE" --smb-user "$SMBD_USER" -t 2 1
	echo "$status: $stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $PRIVATE: cannot log on as $SMBD_USER with an empty password (\$DBENCH_SMB_PASSWORD is empty): give the password" ]
	run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$PRIVATE" --smb-user "WORKGROUP/$SMBD_USER%" -t 2 1
	echo "$status: $stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $PRIVATE: cannot log on as WORKGROUP/$SMBD_USER with an empty password (the text after % in --smb-user is empty): give the password" ]
	[[ "$output" != *"releasing clients"* ]]
}

@test "smb: unknown share, missing directory, nothing listening: one line, exit 2" {
	local port
	port=$(srv_free_port)
	while IFS='|' read -r url want; do
		run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$url" -t 2 2
		echo "$url: $status: $stderr"
		[ "$status" -eq 2 ]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		[[ "$stderr" == *"$want"* ]]
		[[ "$output" != *"releasing clients"* ]]
	done <<EOF
//127.0.0.1:$SMBD_PORT/nosuchshare|no such share
//127.0.0.1:$SMBD_PORT/share/no/such/dir|no such directory
//127.0.0.1:$port/share|connection refused
//nosuchhost.invalid/share|unknown host
EOF
}

@test "smb: bad backend options: one line, exit 2" {
	local args
	while IFS= read -r args; do
		run --separate-stderr $DBENCH -B smb $args 1
		echo "dbench -B smb $args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
	done <<EOF
-t 2
--smb-share share
--smb-share //h
--smb-share //h/s/../x
--smb-share //h:0/s
--smb-share //h:99999/s
--smb-share //127.0.0.1:$SMBD_PORT/share --smb-protocol SMB1
--smb-share //127.0.0.1:$SMBD_PORT/share --smb-protocol SMB3_11:SMB2_02
--smb-share //127.0.0.1:$SMBD_PORT/share --smb-timeout 0
--smb-share //127.0.0.1:$SMBD_PORT/share --smb-timeout x
--smb-share //127.0.0.1:$SMBD_PORT/share --smb-user %pw
--smb-share //127.0.0.1:$SMBD_PORT/share -F
--smb-share //127.0.0.1:$SMBD_PORT/share -s
EOF
}

@test "smb: smbd killed mid-run: clients stop at once, report, non-zero exit, nothing left" {
	local pid dir start rc=0
	unset SMBD_PID
	srv_start_or_skip smbd_start
	OWN_SMBD=1
	pid=$SMBD_PID
	dir=$SMBD_DIR
	"$DBENCH" -B smb --smb-share "//127.0.0.1:$SMBD_PORT/share" -t 60 --warmup 0 2 \
		>"$T/out" 2>"$T/err" &
	local dbench=$!
	wait_running "$T/out"
	smbd_kill
	start=$SECONDS
	wait "$dbench" || rc=$?
	cat "$T/out" "$T/err"
	echo "stopped after $((SECONDS - start)) s, exit $rc"
	[ "$rc" -eq 1 ]
	[ $((SECONDS - start)) -le 20 ]	# "at once": the run had 60 s to go
	grep -Eq "$FINAL" "$T/out"
	grep -q "client 0 failed: lost the connection to //127.0.0.1:$SMBD_PORT/share" "$T/err"
	grep -q "client 1 failed: lost the connection" "$T/err"
	no_dbench_left
	smbd_stop
	OWN_SMBD=
	! srv_group_alive "$pid" || false
	[ ! -e "$dir" ]
}

@test "smb: SIGINT stops a run: partial report, exit 130, share left empty" {
	signal_run timeout 60 "$DBENCH" -B smb --smb-share "$SHARE" -t 60 2
	[ "$status" -eq 130 ]
	grep -Eq "$FINAL" "$T/out"
	share_empty
	no_dbench_left
}

@test "smb: --clients-per-process: several contexts in one process" {
	run_smb -c "$DBENCH_SRCDIR/loadfiles/smb.load" -t 2 --clients-per-process 2 2
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	[[ "${lines[-1]}" == *" 4 clients  2 procs "* ]]
	share_empty
}

# Upstream's smb.load works at the share root ("/foo", "/test.txt": every
# client's), and its smb_2.load opens "/client1/test.txt" without making the
# directory.  dbench 5.0 maps them the same way (its paths are the share's,
# "client1" becomes the client's name), so with two clients its run fails at
# the first collision ("ERROR: child 1 failed at line 49"), and smb_2.load
# fails with any number of clients unless an earlier run made the
# directories (LKP runs smb_3.load --skip-cleanup first).  Our own loadfiles
# of those shapes do the same here: one client runs clean, two mismatch where
# they collide, exit 1, and a line names the shared paths.
@test "smb: upstream's smb.load and smb_2.load shapes: one client clean, two collide as on dbench 5.0 and a line says why" {
	loadfile shared.load <<'L'
MKDIR "/foo" SUCCESS
RMDIR "/foo" SUCCESS
RMDIR "/foo" ERROR
OPEN "/test.txt" 0x0c SUCCESS
WRITE "/test.txt" 0 4096 SUCCESS
READ "/test.txt" 0 4096 SUCCESS
CLOSE "/test.txt" SUCCESS
UNLINK "/test.txt" SUCCESS
L
	run_smb -c "$T/shared.load" -t 2 --warmup 0 1
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
	share_empty
	run_smb -c "$T/shared.load" -t 2 --warmup 0 2
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"dbench: the 2 clients share the loadfile's paths without a client in them (/foo, /test.txt): where they collide, a loadfile written for one client mismatches"* ]]
	share_empty
	# smb_2.load's shape: the client's directory is not made
	loadfile perclient.load <<'L'
OPEN "/client1/test.txt" 0x0c SUCCESS
WRITE "/client1/test.txt" 0 4096 SUCCESS
CLOSE "/client1/test.txt" SUCCESS
L
	run_smb -c "$T/perclient.load" --run-once 2
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"perclient.load:1: OPEN expected SUCCESS, got NT_STATUS_OBJECT_PATH_NOT_FOUND"* ]]
	[[ "$stderr" != *"share the loadfile's paths"* ]]
	# made by an earlier run (smb_3.load's MKDIR "/client1" *), it runs
	loadfile mkdir.load <<'L'
MKDIR "/client1" *
L
	run_smb -c "$T/mkdir.load" --run-once --skip-cleanup 2
	[ "$status" -eq 0 ]
	[ -d "$SMBD_SHARE_DIR/client0" ] && [ -d "$SMBD_SHARE_DIR/client1" ]
	run_smb -c "$T/perclient.load" --run-once 2
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 mismatches,"* ]]
}
