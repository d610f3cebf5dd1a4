#!/usr/bin/env bats
# engine.bats - many clients in one process on the event loop of an
# asynchronous backend (--clients-per-process N, backend.h "the
# asynchronous form"): tbench (sockio) against a real tbench_srv: the same
# results and JSON as a process per client, a server connection that stops
# answering stalls only its client, --server-timeout, --grace, SIGINT.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load ../lib/tbench
load helpers

setup() {
	tb_setup
	start_srv -b 127.0.0.1
	cp "$DBENCH_SRCDIR/loadfiles/client.txt" "$T/client.txt"
}

teardown() {
	tb_teardown
}

# No process of the run is left (the server, started per test, is).
assert_run_gone() {
	assert_no_procs "-c $T/"
}

# The ops count of the last progress line in FILE (0 if none).
last_ops() {
	awk '/MB\/sec +execute/ { n = $2 } END { print n + 0 }' "$1"
}

@test "engine: --help and the backend list say which backends run asynchronously" {
	run "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--clients-per-process"*"asynchronous"* ]]
	grep -A1 "^  sockio " <<<"$output" | grep -q "asynchronous"
	grep -A1 "^  fileio " <<<"$output" | grep -vq "asynchronous"
}

@test "engine: 2 processes of 8 tbench clients: a sane run, results and JSON shaped as 16 processes" {
	run "$TBENCH" -c "$T/client.txt" -t 3 --clients-per-process 8 --json "$T/engine.json" 2 "127.0.0.1:$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[[ "${lines[-1]}" == *" 16 clients  2 procs "* ]]
	[[ "$output" == *"ReadX"* ]]
	# every client ran ops (none idle), on 16 connections
	[ "$(jq '.results.idle_clients' "$T/engine.json")" -eq 0 ]
	[ "$(jq '.results.failed_clients' "$T/engine.json")" -eq 0 ]
	[ "$(jq '.results.ops' "$T/engine.json")" -gt 0 ]
	# (16 processes of a client each: tbench.bats' runs, under ASan too)
	if ! in_sanitizer_pass; then
		run "$TBENCH" -c "$T/client.txt" -t 3 --json "$T/procs.json" 16 "127.0.0.1:$PORT"
		[ "$status" -eq 0 ]
		diff <(json_shape "$T/procs.json") <(json_shape "$T/engine.json")
	fi
	assert_run_gone
}

@test "engine: the classic wire, and large ReadX/WriteX split over frames, on the event loop" {
	loadfile big.txt <<-'LOAD'
	NTCreateX "\clients\client1\f" 0x0 0x2 1 NT_STATUS_OK
	WriteX 1 0 300000 300000 NT_STATUS_OK
	ReadX 1 0 300000 300000 NT_STATUS_OK
	Deltree "\clients\client1" NT_STATUS_OK
	Close 1 NT_STATUS_OK
	LOAD
	for wire in classic tbench; do
		run "$TBENCH" -c "$T/big.txt" --wire "$wire" --passes 3 --clients-per-process 4 \
			--json "$T/$wire.json" 1 "127.0.0.1:$PORT"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *" 0 mismatches"* ]]
		# 4 clients x 3 passes x (300000 written + 300000 read)
		[ "$(jq '.results.bytes' "$T/$wire.json")" -eq 7200000 ]
		[ "$(jq '[.results.operations[] | select(.name == "ReadX") | .count] | add' "$T/$wire.json")" -eq 12 ]
	done
}

@test "engine: connections that stop answering: only their clients fail after --grace, the others run on" {
	local rc=0 stopped before after
	"$TBENCH" -c "$T/client.txt" --server-timeout 300 -t 8 --grace 2 --clients-per-process 6 \
		--json "$T/r.json" 1 "127.0.0.1:$PORT" >"$T/out" 2>"$T/err" 3>&- &
	tb=$!
	wait_running "$T/out"
	wait_children 6
	# the server's processes for 2 of the 6 connections stop answering
	stopped=$(srv_children | head -2)
	# shellcheck disable=SC2086
	kill -STOP $stopped
	before=$(last_ops "$T/out")
	SECONDS=0
	wait "$tb" || rc=$?
	# shellcheck disable=SC2086
	kill -CONT $stopped
	cat "$T/out" "$T/err"
	after=$(last_ops "$T/out")
	[ "$rc" -eq 1 ]
	[ "$SECONDS" -lt 60 ]
	# the 4 others went on in the same process: ops kept coming
	[ "$after" -gt $((before + 1000)) ]
	[ "$(grep -c "failed: no progress for [0-9]* s: [A-Za-z_]* in flight; given up [0-9]* s after the end of the run (--grace 2)" "$T/err")" -eq 2 ]
	[ "$(jq '.results.failures | length' "$T/r.json")" -eq 2 ]
	[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 2 ]
	# the ops in flight count, with the time they had taken (>= the grace)
	assert_max_latency_at_least "$T/r.json" 2e9
	assert_run_gone
}

# clients_running N: the last progress line counts N clients running.
clients_running() {
	[ "$(awk '/MB\/sec +(warmup|execute)/ { n = $1 } END { print n + 0 }' "$T/out")" -eq "$1" ]
}

# one_stalled: the run's 4 connections are up; the server's process for
# one of them is stopped (sets stopped); the three others run on, and the
# stalled client has failed (the progress line counts 3 clients running).
one_stalled() {
	wait_running "$T/out" && wait_children 4 || return 1
	stopped=$(srv_children | head -1)
	kill -STOP "$stopped" || return 1
	wait_for -t 30 "the progress line to count 3 clients running" clients_running 3
}

@test "engine: --server-timeout fails the client whose connection stopped answering, during the run" {
	local stopped
	signal_run -w one_stalled "$TBENCH" -c "$T/client.txt" --server-timeout 2 -t 120 \
		--clients-per-process 4 --json "$T/r.json" 1 "127.0.0.1:$PORT"
	kill -CONT "$stopped"
	[ "$status" -eq 130 ]
	[ "$(grep -c "failed: server 127.0.0.1:$PORT did not answer for 2 seconds" "$T/err")" -eq 1 ]
	[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 1 ]
	assert_run_gone
}

@test "engine: SIGINT stops the event loop's clients: partial report, exit 130, nothing left" {
	signal_run "$TBENCH" -c "$T/client.txt" -t 60 --clients-per-process 8 2 "127.0.0.1:$PORT"
	[ "$status" -eq 130 ]
	grep -Eq "^Throughput [0-9.]+ MB/sec +16 clients +2 procs" "$T/out"
	! grep -q "failed" "$T/err"
	assert_run_gone
}
