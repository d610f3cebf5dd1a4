#!/usr/bin/env bats
# safety.bats - hostile loadfiles and targets: nothing outside the target
# directory is ever touched.

load helpers

setup() {
	make_tmp
	mkdir "$T/outside"
	echo precious > "$T/outside/keep"
}
teardown() {
	# a run left waiting at its gate (a test that failed half way)
	if [ -n "${RUN_PID:-}" ] && kill -0 "$RUN_PID" 2>/dev/null; then
		kill "$RUN_PID"
		open_gate "$T/d.old/gate" || open_gate "$T/d/gate" || true
		wait "$RUN_PID" || true
	fi
	remove_tmp
}

outside_untouched() {
	[ "$(cat "$T/outside/keep")" = precious ]
	[ "$(ls -A "$T/outside")" = keep ]
}

@test "Deltree of \\clients\\..\\.. is refused at load time" {
	printf 'Deltree "\\clients\\..\\.." NT_STATUS_OK\n' > "$T/l.txt"
	run "$DBENCH" -c "$T/l.txt" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"l.txt:1: path \"\\clients\\..\\..\" leaves the share root"* ]]
	outside_untouched
}

@test "Rename to outside the target is refused at load time" {
	printf 'Mkdir "\\clients" *\nRename "\\clients\\client1\\a" "\\..\\outside\\keep" NT_STATUS_OK\n' > "$T/l.txt"
	run "$DBENCH" -c "$T/l.txt" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"l.txt:2: path"*"leaves the share root"* ]]
	outside_untouched
}

@test "a symlink in the target leading outside: the run refuses" {
	ln -s "$T/outside" "$T/d/clients"
	run "$DBENCH" -D "$T/d" -t 2 2
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"is a symbolic link"* ]]
	outside_untouched
	[ -L "$T/d/clients" ]
}

@test "a symlink deep in a client's tree: the run refuses" {
	mkdir -p "$T/d/clients/client0"
	ln -s "$T/outside" "$T/d/clients/client0/~dmtmp"
	run "$DBENCH" -D "$T/d" -t 2 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"clients/client0/~dmtmp is a symbolic link"* ]]
	outside_untouched
}

@test "an absolute-looking path stays inside the target" {
	printf 'Mkdir "\\etc" *\nNTCreateX "\\etc\\passwd" 0x40 0x5 1 NT_STATUS_OK\nWriteX 1 0 100 100 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' > "$T/l.txt"
	local before=$(md5sum /etc/passwd)
	run "$DBENCH" -c "$T/l.txt" -D "$T/d" --run-once --skip-cleanup 1
	[ "$status" -eq 0 ]
	[ "$(md5sum /etc/passwd)" = "$before" ]
	[ "$(stat -c %s "$T/d/etc/passwd")" = 100 ]
}

@test "files that were in the target before the run stay, the run's go" {
	echo mine > "$T/d/keep.txt"
	mkdir "$T/d/mydir"
	run "$DBENCH" -D "$T/d" -t 2 2
	[ "$status" -eq 0 ]
	[ "$(cat "$T/d/keep.txt")" = mine ]
	[ "$(ls -A "$T/d")" = "keep.txt
mydir" ]
}

# The target is the boundary for the whole run, cleanup included: -D is
# opened once and every path is resolved beneath it, never through a
# symlink planted later.  Each case runs both ways: openat2, and the
# O_NOFOLLOW walk of kernels before 5.6 (DBENCH_TEST_NO_OPENAT2).
#
# A loadfile that stops at a gate: a FIFO at the share root, whose open
# blocks until the test opens it for writing, so that the test changes the
# target while the run is between two ops, and the ops after the gate
# certainly run after the change.  The last lookup comes after a SLEEP
# longer than DIR_CHECK_NS (100 ms): a directory fileio keeps open for
# lookups and uses that long after it last found it in place is looked for
# again first.
gate_loadfile() {
	mkfifo "$1/gate"
	loadfile swap.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
Mkdir "\clients\client1\sub" NT_STATUS_OK
NTCreateX "\clients\client1\sub\victim" 0x0 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
SLEEP 100000
OPEN "\gate" 0x01 SUCCESS
CLOSE "\gate" SUCCESS
Unlink "\clients\client1\sub\victim" NT_STATUS_OK
NTCreateX "\clients\client1\sub\new" 0x0 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\clients\client1\after" 0x0 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
SLEEP 200000
QUERY_PATH_INFORMATION "\clients\client1\sub\victim" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
L
}

# open_gate GATE: let the run waiting at it go on (not waiting more than
# 10 s for a reader: a run that is not there).
open_gate() {
	timeout 10 sh -c ': > "$1"' sh "$1"
}

# wait_file PATH: until the run has made it (up to 120 s, as wait_running).
wait_file() {
	wait_for -t 120 "the run to make $1" test -e "$1"
}

# start_gated_run: the gate loadfile in $T/d, one client, in the
# background (output in $T/out), until it has made its victim file: from
# then on it waits at the gate.  finish_gated_run GATE: open the gate, wait
# for the run to end (its exit status in RUN_RC), show its output.
start_gated_run() {
	gate_loadfile "$T/d"
	"$DBENCH" -c "$T/swap.txt" -D "$T/d" --run-once 1 > "$T/out" 2>&1 &
	RUN_PID=$!
	wait_file "$T/d/clients/client0/sub/victim"
}

finish_gated_run() {
	open_gate "$1"
	RUN_RC=0
	wait "$RUN_PID" || RUN_RC=$?
	cat "$T/out"
}

# -D renamed and replaced by a symlink to another directory that holds
# files, while the run goes on: nothing at the symlink's destination is
# touched, the run's own tree (now at d.old) is removed, and the run says
# what happened.
swap_target() {
	mkdir -p "$T/x/clients"
	echo precious > "$T/x/clients/keep"
	echo precious > "$T/x/keep"
	start_gated_run
	mv "$T/d" "$T/d.old"
	ln -s "$T/x" "$T/d"
	finish_gated_run "$T/d.old/gate"
	[ "$RUN_RC" -eq 0 ]
	[ "$(cat "$T/x/clients/keep")" = precious ]
	[ "$(cat "$T/x/keep")" = precious ]
	[ "$(cd "$T/x" && find . | sort | tr '\n' ' ')" = ". ./clients ./clients/keep ./keep " ]
	# the run's tree was removed where it really is; the gate was there before
	[ "$(ls -A "$T/d.old")" = gate ]
	grep -q "$T/d was renamed or replaced during the run: the run worked, and cleans up, in the directory it opened at the start (now $T/d.old); nothing at $T/d is touched" "$T/out"
	outside_untouched
}

@test "-D renamed and replaced by a symlink mid-run: nothing at the destination is touched, the run's tree is removed where it is" {
	swap_target
}

@test "-D renamed and replaced by a symlink mid-run, without openat2: the same" {
	DBENCH_TEST_NO_OPENAT2=1 swap_target
}

# A directory inside a client's tree swapped for a symlink during the run:
# the later Unlink and NTCreateX do not follow it (they fail, said once),
# and the cleanup removes the symlink, not what it leads to.
swap_subdir() {
	echo precious > "$T/outside/victim"
	start_gated_run
	mv "$T/d/clients/client0/sub" "$T/moved"
	ln -s "$T/outside" "$T/d/clients/client0/sub"
	finish_gated_run "$T/d/gate"
	[ "$RUN_RC" -eq 1 ]	# the mismatches
	[ "$(cat "$T/outside/victim")" = precious ]
	[ "$(cat "$T/outside/keep")" = precious ]
	[ "$(ls -A "$T/outside" | sort | tr '\n' ' ')" = "keep victim " ]
	[ "$(ls -A "$T/moved")" = victim ]
	grep -q "client 0: $T/d/clients/client0/sub is a symbolic link (made during the run): not followed" "$T/out"
	grep -q "swap.txt:9: Unlink expected NT_STATUS_OK, got NT_STATUS_ACCESS_DENIED" "$T/out"
	grep -q "swap.txt:10: NTCreateX expected NT_STATUS_OK, got NT_STATUS_ACCESS_DENIED" "$T/out"
	# the op beside the symlink went on
	! grep -q "swap.txt:12" "$T/out" || false
	# a lookup too: the directory kept open for lookups, used 100 ms after
	# it was last found in place (the SLEEP), is looked for again, found moved
	grep -q "swap.txt:15: QUERY_PATH_INFORMATION expected NT_STATUS_OBJECT_NAME_NOT_FOUND, got NT_STATUS_ACCESS_DENIED" "$T/out"
	[ "$(ls -A "$T/d")" = gate ]
}

@test "a directory in a client's tree swapped for a symlink mid-run: Unlink and NTCreateX do not follow it" {
	swap_subdir
}

@test "a directory in a client's tree swapped for a symlink mid-run, without openat2: the same" {
	DBENCH_TEST_NO_OPENAT2=1 swap_subdir
}

@test "files a loadfile makes at the share root (random names, as nfs_2.load) are removed at the end; what was there stays" {
	root_files_loadfiles
	root_files_check "$T/d" "$DBENCH" -D "$T/d" -c "$T/root.txt" --run-once --seed 1 2
}

# fileio keeps the directories of a client's own tree open for lookups:
# a directory the loadfile renames, removes or makes again is looked up
# where it is now (each step's status is the one a fresh lookup gives).
@test "lookups follow the loadfile's own renames, removals and re-creations of directories" {
	loadfile dirs.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
Mkdir "\clients\client1\a" NT_STATUS_OK
Mkdir "\clients\client1\a\sub" NT_STATUS_OK
NTCreateX "\clients\client1\a\sub\f" 0x40 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\a\sub\f" 1004 NT_STATUS_OK
FIND_FIRST "\clients\client1\a\sub\*" 260 100 1 NT_STATUS_OK
Rename "\clients\client1\a" "\clients\client1\b" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\a\sub\f" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
FIND_FIRST "\clients\client1\a\sub\*" 260 100 0 NT_STATUS_OBJECT_PATH_NOT_FOUND
QUERY_PATH_INFORMATION "\clients\client1\b\sub\f" 1004 NT_STATUS_OK
Mkdir "\clients\client1\a" NT_STATUS_OK
Mkdir "\clients\client1\a\sub" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\a\sub\f" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
FIND_FIRST "\clients\client1\a\sub\*" 260 100 0 NT_STATUS_NO_SUCH_FILE
Rmdir "\clients\client1\a\sub" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\a\sub\f" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
Deltree "\clients\client1\b" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\b\sub\f" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND
Mkdir "\clients\client1\b" NT_STATUS_OK
Mkdir "\clients\client1\b\sub" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\b\sub\f" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
L
	for walk in "" 1; do
		DBENCH_TEST_NO_OPENAT2=$walk run "$DBENCH" -c "$T/dirs.txt" -D "$T/d" --run-once 2
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *", 0 mismatches,"* ]]
		assert_empty_target
	done
}
