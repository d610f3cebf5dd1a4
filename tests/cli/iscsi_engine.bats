#!/usr/bin/env bats
# iscsi_engine.bats - the iscsi backend's asynchronous form
# (--clients-per-process N: the clients of a process on one event loop,
# each with a command in flight; backend.h "the asynchronous form") against
# a real tgtd (tests/lib/tgtd.sh, as iscsi.bats): results shaped as a
# process per client, a session a client or one a process
# (--iscsi-session shared), a target that goes away mid-run or stops
# answering, SIGINT.  (iscsi.bats checks statuses and sense on both paths.)
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	iscsi_setup
	cp "$DBENCH_SRCDIR/loadfiles/iscsi-randread.load" "$T/"
}

teardown() {
	iscsi_teardown
}

# The sessions (I_T nexuses) the target has now.
sessions() {
	tgtd_adm --op show --mode target | grep -c 'I_T nexus:' || true
}

# sessions_are N: the target has N sessions.
sessions_are() {
	[ "$(sessions)" -eq "$1" ]
}

# A run of -t 100 on the target, in its namespace.
long_run() {
	ip netns exec "$TGTD_NS" timeout 120 "$DBENCH" -B iscsi --iscsi="$TGTD_URL" \
		-c "$T/iscsi-randread.load" -t 100 --warmup 0 "$@"
}

# long_run in the background (output in $T/out, $T/err), its pid in BG;
# waits for its first progress line.
start_bg_run() {
	long_run "$@" >"$T/out" 2>"$T/err" &
	BG=$!
	wait_running "$T/out"
}

# sessions_up: the run is going and the target has $want sessions.
sessions_up() {
	wait_running "$T/out" && wait_for -t 10 "$want sessions on the target" sessions_are "$want"
}

@test "iscsi engine: 2 processes of 8 clients, every READ10 checked, results and JSON shaped as 16 processes" {
	iscsi_dbench -c "$T/iscsi-randread.load" --run-once --clients-per-process 8 \
		--json "$T/engine.json" 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ10 "+16000" " ]]
	[[ "$output" =~ $'\n'" TESTUNITRDY "+16" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	[[ "${lines[-1]}" == *" 16 clients  2 procs "* ]]
	[ "$(jq '.results.idle_clients' "$T/engine.json")" -eq 0 ]
	[ "$(jq '.results.failed_clients' "$T/engine.json")" -eq 0 ]
	# the latency runs from submit to completion: it is there, and sane
	assert_max_latency_at_least "$T/engine.json" 1
	# (16 processes of a client each: iscsi.bats' runs, under ASan too)
	if ! in_sanitizer_pass; then
		iscsi_dbench -c "$T/iscsi-randread.load" --run-once --json "$T/procs.json" 16
		[ "$status" -eq 0 ]
		diff <(json_shape "$T/procs.json") <(json_shape "$T/engine.json")
	fi
	assert_no_procs
}

@test "iscsi engine: a session a client by default, one a process with --iscsi-session shared" {
	local want
	# 16 clients, 16 sessions (and the parent's probe logged out)
	want=16
	signal_run -p "$T/iscsi-randread.load" -w sessions_up long_run --clients-per-process 8 2
	[ "$status" -eq 130 ]
	wait_for -t 10 "the sessions to end" sessions_are 0
	want=2
	signal_run -p "$T/iscsi-randread.load" -w sessions_up long_run --clients-per-process 8 \
		--iscsi-session shared 2
	[ "$status" -eq 130 ]
	# the clients ran their commands on the 2 sessions together
	grep -q "16 clients  2 procs" "$T/out"
	wait_for -t 10 "the sessions to end" sessions_are 0
	assert_no_procs
}

@test "iscsi engine: shared sessions, every READ10 checked, 0 mismatches" {
	sanitizer_pass_skip "a shared session's READ10s are checked in the --iodepth test (2 x 4 clients a shared session); one command at a time on it is the session-mode test's"
	iscsi_dbench -c "$T/iscsi-randread.load" --run-once --clients-per-process 16 \
		--iscsi-session shared --json "$T/shared.json" 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ10 "+32000" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	[ "$(jq '.results.idle_clients' "$T/shared.json")" -eq 0 ]
	[ "$(jq '.results.failed_clients' "$T/shared.json")" -eq 0 ]
	assert_no_procs
}

@test "iscsi engine: a target that goes away mid-run ends the run non-zero within seconds, both session modes" {
	local rc
	for mode in client shared; do
		start_bg_run --clients-per-process 4 --iscsi-session "$mode" 2
		tgtd_stop
		SECONDS=0
		rc=0
		wait "$BG" || rc=$?
		cat "$T/out" "$T/err"
		[ "$rc" -eq 1 ]
		[ "$SECONDS" -lt 20 ]
		grep -q "client [0-7] failed: iscsi: the session to the target failed" "$T/err"
		assert_no_procs
		[ "$mode" = shared ] && break
		rc=0
		tgtd_start "$T" || rc=$?
		[ "$rc" -eq 0 ]
	done
}

@test "iscsi engine: a target that stops answering: the commands in flight are given up after --grace, counted, reported" {
	local rc=0
	ip netns exec "$TGTD_NS" timeout 120 "$DBENCH" -B iscsi --iscsi="$TGTD_URL" \
		-c "$T/iscsi-randread.load" -t 4 --warmup 0 --grace 2 --clients-per-process 4 \
		--json "$T/r.json" 2 >"$T/out" 2>"$T/err" &
	BG=$!
	wait_running "$T/out"
	kill -STOP "$TGTD_PID"
	SECONDS=0
	wait "$BG" || rc=$?
	kill -CONT "$TGTD_PID"
	cat "$T/out" "$T/err"
	[ "$rc" -eq 1 ]
	[ "$SECONDS" -lt 30 ]
	# each of the 8 clients had a READ10 in flight: given up, counted
	[ "$(grep -c "given up [0-9]* s after the end of the run (--grace 2)" "$T/err")" -eq 8 ]
	[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 8 ]
	assert_max_latency_at_least "$T/r.json" 2e9
	assert_no_procs
}

@test "iscsi --iodepth 8: one client keeps 8 READ10 in flight, every one checked, results shaped as depth 1" {
	iscsi_dbench -c "$T/iscsi-randread.load" --run-once --iodepth 8 --json "$T/depth.json" 1
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ10 "+1000" " ]]
	[[ "$output" =~ $'\n'" TESTUNITRDY "+1" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	[[ "${lines[-1]}" == *" 1 clients  1 procs "* ]]
	[ "$(jq -r '.environment.options.iodepth' "$T/depth.json")" = 8 ]
	[ "$(jq '.results.failed_clients' "$T/depth.json")" -eq 0 ]
	assert_max_latency_at_least "$T/depth.json" 1
	# (a client at depth 1: iscsi.bats' runs, under ASan too)
	if ! in_sanitizer_pass; then
		iscsi_dbench -c "$T/iscsi-randread.load" --run-once --json "$T/one.json" 1
		[ "$status" -eq 0 ]
		diff <(json_shape "$T/one.json") <(json_shape "$T/depth.json" | grep -vx 'environment.options.iodepth')
	fi
	# per client, with --clients-per-process: 2 x 4 clients, 8 each
	iscsi_dbench -c "$T/iscsi-randread.load" --run-once --clients-per-process 4 --iscsi-session shared \
		--iodepth 8 2
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ10 "+8000" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	assert_no_procs
}

# run_frozen LOADFILE ARGS...: a run that tgtd stops answering (SIGSTOP)
# once it runs; its commands in flight are given up at the end of --grace.
run_frozen() {
	local rc=0 load=$1
	shift
	ip netns exec "$TGTD_NS" timeout 120 "$DBENCH" -B iscsi --iscsi="$TGTD_URL" \
		-c "$load" -t 4 --warmup 0 --grace 2 --json "$T/r.json" "$@" >"$T/out" 2>"$T/err" &
	BG=$!
	wait_running "$T/out"
	kill -STOP "$TGTD_PID"
	wait "$BG" || rc=$?
	kill -CONT "$TGTD_PID"
	cat "$T/out" "$T/err"
	[ "$rc" -eq 1 ]
	[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 1 ]
	assert_no_procs
	# a fresh target for the next run: the session left stuck on this one
	# may hold up a new login with the same initiator name for long
	tgtd_stop
	rc=0
	tgtd_start "$T" || rc=$?
	[ "$rc" -eq 0 ]
}

@test "iscsi --iodepth 8: a target that stops answering has exactly 8 commands of the client to give up; overlapping writes go one at a time" {
	# random 4 KiB reads and no barrier in the pass: the queue is full
	printf 'LOOP 10000000\nREAD10 */8 8 0 0 GOOD\nENDLOOP\n' >"$T/reads.load"
	run_frozen "$T/reads.load" --iodepth 8 1
	grep -q "client 0 failed: no progress for [0-9]* s: 8 ops (the oldest a READ10) in flight; given up [0-9]* s after the end of the run (--grace 2)" "$T/err"
	assert_max_latency_at_least "$T/r.json" 2e9
	# each command overlaps the one before, and one of the two writes:
	# never two in flight, whatever the depth
	printf 'LOOP 10000000\nWRITE10 0 8 0 0 GOOD\nREAD10 4 8 0 0 GOOD\nENDLOOP\n' >"$T/overlap.load"
	run_frozen "$T/overlap.load" --allow-scsi-writes --iodepth 8 1
	grep -Eq "client 0 failed: no progress for [0-9]* s: 1 op \(the oldest a (WRITE10|READ10)\) in flight; given up" "$T/err"
	# a barrier (TESTUNITREADY) every 3 reads: never more than 3 in flight
	printf 'LOOP 10000000\nREAD10 */8 8 0 0 GOOD\nREAD10 */8 8 0 0 GOOD\nREAD10 */8 8 0 0 GOOD\nTESTUNITREADY GOOD\nENDLOOP\n' >"$T/barrier.load"
	run_frozen "$T/barrier.load" --iodepth 8 1
	grep -Eq "client 0 failed: no progress for [0-9]* s: ([123] ops? \(the oldest a READ10\)|1 op \(the oldest a TESTUNITREADY\)) in flight; given up" "$T/err"
}

@test "iscsi engine: --help says iscsi is asynchronous and has --iscsi-session; a mode other than client or shared is one line, exit 2" {
	run "$DBENCH" --help
	[ "$status" -eq 0 ]
	grep -A1 "^  iscsi " <<<"$output" | grep -q "asynchronous"
	[[ "$output" == *"--iscsi-session=MODE"* ]]
	iscsi_dbench -c "$T/iscsi-randread.load" --run-once --iscsi-session many 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --iscsi-session: 'many' is not client or shared" ]
}
