#!/usr/bin/env bats
# iscsi.bats - the iscsi backend against a real iSCSI target: tgtd in a
# network namespace of its own with a private /run (tests/lib/tgtd.sh),
# one LUN on a sparse file; dbench runs in that namespace, where the target
# is 127.0.0.1.  Tests skip (with the reason) where the backend is not
# built or the machine cannot run tgtd.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	iscsi_setup
	LOADFILES=$DBENCH_SRCDIR/loadfiles
}

teardown() {
	iscsi_teardown
}

@test "iscsi: random 4 KiB reads, two clients, every status checked" {
	cp "$LOADFILES/iscsi-randread.load" "$T/"
	iscsi_dbench -c "$T/iscsi-randread.load" --run-once 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ10 "+2000" " ]]
	[[ "$output" =~ $'\n'" TESTUNITRDY "+2" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	assert_no_procs
}

@test "iscsi: every SCSI op, writes only with --allow-scsi-writes" {
	cp "$LOADFILES/scsi-example.load" "$T/"
	iscsi_dbench -c "$T/scsi-example.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "WRITE10 changes the LUN: refused without --allow-scsi-writes" ]]
	# nothing was written: the LUN file is still all holes
	[ "$(du -k "$T/lun.img" | cut -f1)" -eq 0 ]
	iscsi_dbench -c "$T/scsi-example.load" --run-once --allow-scsi-writes 1
	[ "$status" -eq 0 ]
	[[ "$output" =~ ", 0 mismatches," ]]
	for op in TESTUNITRDY READ6 READ10 READ16 WRITE10 WRITE16 READCAP10 SYNCCACHE10; do
		[[ "$output" =~ $'\n'" $op "+[12]" " ]]
	done
	[ "$(du -k "$T/lun.img" | cut -f1)" -gt 0 ]
}

@test "iscsi: status and sense are checked like any other status, one client a process or on the event loop" {
	loadfile sense.load <<'EOF'
READ16 0 8 0xe0 0 CHECK_CONDITION/ILLEGAL_REQUEST
READ16 0 8 0xe0 0 0x02
READCAPACITY10 8 0 ERROR
READ10 0 8 0 0 0x00
READ16 0 8 0xe0 0 CHECK_CONDITION/NOT_READY
READ10 0 8 0 0 RESERVATION_CONFLICT
EOF
	iscsi_dbench -c "$T/sense.load" --run-once 1
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ "sense.load:5: READ16 expected CHECK_CONDITION/NOT_READY, got CHECK_CONDITION/ILLEGAL_REQUEST/0x" ]]
	[[ "$stderr" =~ "sense.load:6: READ10 expected RESERVATION_CONFLICT, got GOOD" ]]
	[[ "$output" =~ ", 2 mismatches," ]]
	# the same on the event loop (iscsi_engine.bats), 2 clients in one
	# process, with a session each or one shared
	for mode in client shared; do
		iscsi_dbench -c "$T/sense.load" --run-once --clients-per-process 2 --iscsi-session "$mode" 1
		[ "$status" -eq 1 ]
		[ "$(grep -c "sense.load:5: READ16 expected CHECK_CONDITION/NOT_READY, got CHECK_CONDITION/ILLEGAL_REQUEST/0x" <<<"$stderr")" -eq 2 ]
		[ "$(grep -c "sense.load:6: READ10 expected RESERVATION_CONFLICT, got GOOD" <<<"$stderr")" -eq 2 ]
		[[ "$output" =~ ", 4 mismatches," ]]
	done
}

@test "iscsi: persistent reservations, two clients, conflicts as the loadfile expects" {
	cp "$LOADFILES/iscsi-pr-share.load" "$T/"
	iscsi_dbench -c "$T/iscsi-pr-share.load" --run-once --allow-scsi-writes 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" PROUT "+10" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	# the last one out released it: a second round goes the same way
	iscsi_dbench -c "$T/iscsi-pr-share.load" --run-once --allow-scsi-writes 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ ", 0 mismatches," ]]
}

@test "iscsi: a reservation held by one run meets the next run from another initiator" {
	cp "$LOADFILES/iscsi-pr-hold.load" "$LOADFILES/iscsi-pr-take.load" "$T/"
	iscsi_dbench -c "$T/iscsi-pr-hold.load" --run-once --allow-scsi-writes 1
	[ "$status" -eq 0 ]
	[[ "$output" =~ ", 0 mismatches," ]]
	iscsi_dbench -c "$T/iscsi-pr-take.load" --run-once --allow-scsi-writes \
		--iscsi-initiatorname iqn.2026-01.org.dbench.test:other 1
	[ "$status" -eq 0 ]
	[[ "$output" =~ ", 0 mismatches," ]]
	# the LUN is free again: the holder's part runs once more
	iscsi_dbench -c "$T/iscsi-pr-hold.load" --run-once --allow-scsi-writes 1
	[ "$status" -eq 0 ]
	iscsi_dbench -c "$T/iscsi-pr-take.load" --run-once --allow-scsi-writes 1
	[ "$status" -eq 0 ]
	[[ "$output" =~ ", 0 mismatches," ]]
}

@test "iscsi: a target that goes away mid-run gives a clear error, not a hang" {
	local pid rc=0

	cp "$LOADFILES/iscsi-randread.load" "$T/"
	ip netns exec "$TGTD_NS" timeout 120 "$DBENCH" -B iscsi --iscsi="$TGTD_URL" \
		-c "$T/iscsi-randread.load" -t 100 --warmup 0 2 >"$T/out" 2>"$T/err" &
	pid=$!
	# wait for the clients to run (the progress line), then take the target away
	wait_running "$T/out"
	tgtd_stop
	SECONDS=0
	# (not `run wait`: run's subshell cannot wait for it, and said 127)
	wait "$pid" || rc=$?
	cat "$T/out" "$T/err"
	[ "$rc" -eq 1 ]
	[ "$SECONDS" -lt 60 ]
	grep -q "client [01] failed: iscsi: the session to the target failed" "$T/err"
	assert_no_procs
}

@test "iscsi: a bad URL or an absent target is one line and exit status 2" {
	loadfile t.load <<'EOF'
TESTUNITREADY GOOD
EOF
	run --separate-stderr ip netns exec "$TGTD_NS" "$DBENCH" -B iscsi -c "$T/t.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "the iscsi backend needs --iscsi=" ]]
	run --separate-stderr ip netns exec "$TGTD_NS" "$DBENCH" -B iscsi --iscsi=http://x/y \
		-c "$T/t.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "--iscsi http://x/y: " ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	# nothing listens on port 1 in the namespace: the line names the portal
	# and the cause (before: "login failed: iscsi_service failed with :
	# iscsi_service_reconnect_if_loggedin. Can not reconnect right now.")
	run --separate-stderr ip netns exec "$TGTD_NS" timeout 60 "$DBENCH" -B iscsi \
		--iscsi="iscsi://127.0.0.1:1/$TGTD_IQN/1" -c "$T/t.load" --run-once 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --iscsi iscsi://127.0.0.1:1/$TGTD_IQN/1: cannot connect to 127.0.0.1:1: Connection refused" ]
	# a host that does not resolve, on the default port
	run --separate-stderr ip netns exec "$TGTD_NS" timeout 60 "$DBENCH" -B iscsi \
		--iscsi="iscsi://nosuch.invalid/$TGTD_IQN/1" -c "$T/t.load" --run-once 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ ^"dbench: --iscsi iscsi://nosuch.invalid/$TGTD_IQN/1: cannot connect to nosuch.invalid:3260: "[A-Z][a-z\ ]+$ ]]
	# a LUN the target does not have
	run --separate-stderr ip netns exec "$TGTD_NS" timeout 60 "$DBENCH" -B iscsi \
		--iscsi="iscsi://127.0.0.1/$TGTD_IQN/7" -c "$T/t.load" --run-once 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
}
