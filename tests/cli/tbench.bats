#!/usr/bin/env bats
# tbench.bats - tbench (the sockio backend) against tbench_srv: runs over
# IPv4 and IPv6, exact wire sizes, a server that dies or stalls mid-run,
# bad server arguments, and nothing left behind.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load ../lib/tbench

CLASSIC=/usr/share/dbench/client.txt

setup() {
	tb_setup
	# Through a link in $T, so that every process of the run names $T.
	if [ -r "$CLASSIC" ]; then
		ln -s "$CLASSIC" "$T/client.txt"
	fi
}

teardown() {
	tb_teardown
}

need_classic() {
	[ -r "$CLASSIC" ] || skip "no $CLASSIC (Debian's dbench package)"
}

# A run's output is sane: exit 0, no mismatch, the classic ops, a positive
# throughput for the given number of clients.
assert_sane_run() {
	local nclients=$1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[[ "$output" == *"NTCreateX"* ]]
	[[ "$output" == *"ReadX"* ]]
	[[ "$output" =~ Throughput\ ([0-9.]+)\ MB/sec\ +$nclients\ clients ]]
	awk -v t="${BASH_REMATCH[1]}" 'BEGIN { exit !(t > 0) }'
}

@test "tbench: -t 3 2 127.0.0.1:PORT completes with sane output" {
	need_classic
	start_srv -b 127.0.0.1
	run "$TBENCH" -c "$T/client.txt" -t 3 2 "127.0.0.1:$PORT"
	assert_sane_run 2
	stop_srv
	assert_no_procs
}

@test "tbench: over ::1, as [::1]:PORT, as ::1 with --port" {
	need_classic
	have_ipv6 || skip "no IPv6 loopback"
	start_srv -b ::1
	run "$TBENCH" -c "$T/client.txt" -t 2 2 "[::1]:$PORT"
	assert_sane_run 2
	run "$TBENCH" -c "$T/client.txt" -t 1 1 ::1 --port "$PORT"
	assert_sane_run 1
	stop_srv
	assert_no_procs
}

@test "tbench: two runs in a row against one server" {
	sanitizer_pass_skip "the second run's connections are new ones (a server process each), served as the first run's and the -t 3 test's"
	need_classic
	start_srv -b 127.0.0.1
	run "$TBENCH" -c "$T/client.txt" -t 2 2 "127.0.0.1:$PORT"
	assert_sane_run 2
	run "$TBENCH" -c "$T/client.txt" -t 2 2 "127.0.0.1:$PORT"
	assert_sane_run 2
	stop_srv
	assert_no_procs
}

@test "tbench: every op is one exchange of the documented size" {
	cat >"$T/load.txt" <<-'LOAD'
	NTCreateX "\clients\client1\f" 0x0 0x2 1 NT_STATUS_OK
	WriteX 1 0 65536 65536 NT_STATUS_OK
	ReadX 1 0 4096 4096 NT_STATUS_OK
	QUERY_PATH_INFORMATION "\clients\client1\nofile" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
	Close 1 NT_STATUS_OK
	LOAD
	start_srv -b 127.0.0.1
	run "$TBENCH" -c "$T/load.txt" --run-once 1 "127.0.0.1:$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	stop_srv
	cat "$T/srv.log"
	# Ping, then the five ops; 32-byte headers.  Requests: NTCreateX 52 +
	# UTF-16 "\clients\client0\f" (2 x 19), WriteX 32 + 65536, ReadX 27,
	# QUERY_PATH 42 + 2 x 24, Close 9.  Replies: 71, 15, 28 + 4096, an
	# error reply of 3 (the expected status is a failure), 3.
	grep -q "6 requests, 65976 bytes in, 4408 bytes out" "$T/srv.log"
}

@test "tbench: a large ReadX is split into frames of at most 16 MiB" {
	cat >"$T/load.txt" <<-'LOAD'
	NTCreateX "\clients\client1\f" 0x0 0x2 1 NT_STATUS_OK
	ReadX 1 0 40000000 40000000 NT_STATUS_OK
	Close 1 NT_STATUS_OK
	LOAD
	start_srv -b 127.0.0.1
	run "$TBENCH" -c "$T/load.txt" --run-once 1 "127.0.0.1:$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	stop_srv
	# Ping, NTCreateX, three ReadX frames, Close.
	grep -q "6 requests, " "$T/srv.log"
	! grep -q "protocol error" "$T/srv.log"
}

# A loadfile of a few ops that a run repeats until its time is up.  The
# classic client.txt (458k lines) takes a loaded machine tens of seconds
# to load under ASan, which a test that must catch the run in the middle
# cannot afford.
short_loadfile() {
	cat >"$T/short.txt" <<-'LOAD'
	NTCreateX "\clients\client1\f" 0x0 0x2 1 NT_STATUS_OK
	WriteX 1 0 65536 65536 NT_STATUS_OK
	ReadX 1 0 65536 65536 NT_STATUS_OK
	Close 1 NT_STATUS_OK
	LOAD
}

@test "tbench: the server stopped mid-run ends the run non-zero within seconds" {
	short_loadfile
	start_srv -b 127.0.0.1
	"$TBENCH" -c "$T/short.txt" -t 120 2 "127.0.0.1:$PORT" >"$T/out" 2>"$T/err" 3>&- &
	tb=$!
	wait_running "$T/out"
	t0=$(date +%s)
	kill -TERM "$SRV_PID"
	# the run would go on for 120 s; it must end within seconds (20 s is
	# generous on a loaded machine)
	rc=0
	wait_for -t 20 "tbench to end after its server stopped" ! srv_alive "$tb" ||
		kill -KILL "$tb"
	wait "$tb" || rc=$?
	t1=$(date +%s)
	cat "$T/err"
	[ "$rc" -ne 0 ]
	[ "$rc" -ne 137 ]	# not the test's own kill
	[ $((t1 - t0)) -le 20 ]
	# a client learns it as an orderly close, a reset or (sending after
	# the reset) a broken pipe
	grep -Eq "client [01] failed: (server 127.0.0.1:$PORT closed the connection|connection to server 127.0.0.1:$PORT: (Connection reset by peer|Broken pipe))" "$T/err"
	# the server is gone, with its pid file, and nothing is left
	wait_for "tbench_srv to exit" ! srv_alive "$SRV_PID"
	[ ! -e "$T/srv.pid" ]
	assert_no_procs
}

@test "tbench: a server that stops answering is given up after --server-timeout" {
	short_loadfile
	start_srv -b 127.0.0.1
	"$TBENCH" -c "$T/short.txt" --server-timeout 2 -t 120 1 "127.0.0.1:$PORT" \
		>"$T/out" 2>"$T/err" 3>&- &
	tb=$!
	wait_running "$T/out"
	kids=$(srv_children)
	[ -n "$kids" ]
	# shellcheck disable=SC2086
	kill -STOP $kids
	t0=$(date +%s)
	# the run would go on for 120 s; 2 s without an answer must end it
	# (20 s is generous on a loaded machine)
	rc=0
	wait_for -t 20 "tbench to give its silent server up" ! srv_alive "$tb" ||
		kill -KILL "$tb"
	wait "$tb" || rc=$?
	t1=$(date +%s)
	# shellcheck disable=SC2086
	kill -CONT $kids
	cat "$T/err"
	[ "$rc" -ne 0 ]
	[ "$rc" -ne 137 ]	# not the test's own kill
	[ $((t1 - t0)) -le 20 ]
	# the line says where in the loadfile the client was
	grep -Eq "client 0 failed: server 127.0.0.1:$PORT did not answer for 2 seconds .*\($T/short.txt:[0-9]+: [A-Za-z_]+( [^)]+)?\)$" "$T/err"
	stop_srv
}

@test "tbench: a port nobody listens on is one clear line, exit 2" {
	echo 'Close 1 NT_STATUS_OK' >"$T/load.txt"
	port=$("$TBENCH_ABUSE" free-port 127.0.0.1)
	run "$TBENCH" -c "$T/load.txt" -t 2 2 "127.0.0.1:$port"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "${lines[0]}" = "tbench: cannot connect to 127.0.0.1:$port: Connection refused" ]
	assert_no_procs
}

@test "tbench: bad server arguments are one clear line, exit 2" {
	echo 'Close 1 NT_STATUS_OK' >"$T/load.txt"
	for args in "" "no.such.host.invalid" "127.0.0.1:0" "127.0.0.1:x" "[::1" \
		    "127.0.0.1:7003 --port 7004" "127.0.0.1 -T NO_SUCH_OPT" \
		    "127.0.0.1 --server-timeout 0"; do
		# shellcheck disable=SC2086
		run "$TBENCH" -c "$T/load.txt" -t 2 2 $args
		echo "$args -> $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == tbench:* ]]
	done
}

@test "tbench: a server at --max-clients is named as the reason" {
	need_classic
	start_srv -b 127.0.0.1 --max-clients 1
	run "$TBENCH" -c "$T/client.txt" -t 2 3 "127.0.0.1:$PORT"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"refused the connection: it serves its maximum of clients (tbench_srv --max-clients)"* ]]
	stop_srv
	assert_no_procs
}

@test "tbench: a peer that is not tbench_srv is one clear line" {
	echo 'Close 1 NT_STATUS_OK' >"$T/load.txt"
	"$TBENCH_ABUSE" imposter 127.0.0.1 10 "$T/imposter.port" 3>&- &
	imp=$!
	wait_for -t 5 "the imposter's port file" test -s "$T/imposter.port"
	port=$(cat "$T/imposter.port")
	run "$TBENCH" -c "$T/load.txt" -t 2 1 "127.0.0.1:$port"
	echo "$output"
	kill "$imp" 2>/dev/null || true
	wait "$imp" || true
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "tbench: bad reply from server 127.0.0.1:$port: bad magic 0x5353482d"*"not a tbench peer" ]]
}
