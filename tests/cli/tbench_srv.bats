#!/usr/bin/env bats
# tbench_srv.bats - the tbench server: options, IPv4 and IPv6, every kind of
# bad client, connection storms, limits, and clean stops.
#
# tbench_srv_workers.bats is this file under another name: there every test
# runs against `tbench_srv --workers 2` (connections multiplexed on two
# event loops) instead of a process per connection.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

case ${BATS_TEST_FILENAME##*/} in
*_workers.bats) export TB_WORKERS=2 ;;
esac

load ../lib/tbench

setup() {
	tb_setup
}

# same_in_both_modes WHAT: in the sanitizer pass, the fork mode (this file
# as tbench_srv.bats) skips a test whose C code is the same with --workers
# (WHAT): tbench_srv_workers.bats runs the test under ASan.  The fork
# mode's own code (a process a connection: serve_connection, its receive
# timeouts, hand-off, reaping, stopping) keeps its tests there.
same_in_both_modes() {
	[ -n "${TB_WORKERS:-}" ] ||
		sanitizer_pass_skip "$1 is the same code with --workers: tbench_srv_workers.bats runs this test"
}

teardown() {
	tb_teardown
}

@test "tbench_srv: --help lists the options, --version names the protocol" {
	same_in_both_modes "--help and --version"
	run "$TBENCH_SRV" --help
	[ "$status" -eq 0 ]
	for o in --port --bind --socket-options --max-clients --timeout --daemon --workers \
		 --foreground --pid-file --verbose --version --request-timeout --idle-timeout; do
		[[ "$output" == *"$o"* ]]
	done
	run "$TBENCH_SRV" --version
	[ "$status" -eq 0 ]
	[[ "$output" == *"protocol version 1"* ]]
}

@test "tbench_srv: bad command lines get one line and exit 2" {
	same_in_both_modes "the option parser"
	for args in "--port 70000" "--port x" "--bogus" "extra" "--max-clients 0" \
		    "--timeout -1" "--request-timeout x" "--idle-timeout -1" "-t FOO" "-T SO_SNDBUF" "-t SO_RCVBUF=abc" \
		    "-t TCP_NODELAY=2" "--daemon --foreground" "--workers 257" "--workers -1"; do
		# shellcheck disable=SC2086
		run "$TBENCH_SRV" $args
		echo "$args -> $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == tbench_srv:* ]]
	done
}

@test "tbench_srv: an address it cannot use is one line and exit 1" {
	same_in_both_modes "opening the listeners"
	run "$TBENCH_SRV" -b no.such.host.invalid -p 0
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cannot resolve bind address"* ]]
	start_srv -b 127.0.0.1
	run "$TBENCH_SRV" -b 127.0.0.1 -p "$PORT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot listen on 127.0.0.1:$PORT: Address already in use"* ]]
	stop_srv
}

@test "tbench_srv: serves on 127.0.0.1" {
	start_srv -b 127.0.0.1
	grep -q "listening on 127.0.0.1:$PORT" "$T/srv.log"
	run abuse 127.0.0.1 ping 100 100 1000
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 ops
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: serves on ::1" {
	same_in_both_modes "an IPv6 listener (a connection is served as in the 127.0.0.1 test)"
	have_ipv6 || skip "no IPv6 loopback"
	start_srv -b ::1
	grep -q "listening on \[::1\]:$PORT" "$T/srv.log"
	run abuse ::1 ping 100 100 1000
	[ "$status" -eq 0 ]
	run abuse ::1 ops
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: without -b it serves IPv4 and IPv6 on one port" {
	same_in_both_modes "opening the listeners"
	start_srv
	run abuse 127.0.0.1 ping 5
	echo "$output"
	[ "$status" -eq 0 ]
	if have_ipv6; then
		run abuse ::1 ping 5
		echo "$output"
		[ "$status" -eq 0 ]
	fi
	stop_srv
	grep -q "127.0.0.1:[0-9]*: connected" "$T/srv.log"
}

@test "tbench_srv: -p takes a fixed port; two -b share it" {
	same_in_both_modes "opening the listeners"
	have_ipv6 || skip "no IPv6 loopback"
	port=$("$TBENCH_ABUSE" free-port 127.0.0.1)
	start_srv -b 127.0.0.1 -b ::1 -p "$port"
	[ "$PORT" -eq "$port" ]
	run abuse 127.0.0.1 ping 3
	[ "$status" -eq 0 ]
	run abuse ::1 ping 3
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: socket options are applied and logged nowhere as errors" {
	same_in_both_modes "the socket options (sockopts_apply)"
	start_srv -b 127.0.0.1 -t "TCP_NODELAY,SO_SNDBUF=65536" -T "SO_RCVBUF=131072 SO_KEEPALIVE"
	run abuse 127.0.0.1 ping 20 100 200000
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: every bad frame ends that connection only, with a logged reason" {
	start_srv -b 127.0.0.1
	for t in magic version oversize oversize-max want-oversize flags \
		 reply-as-request reserved status; do
		run abuse 127.0.0.1 "$t"
		echo "$t: $output"
		[ "$status" -eq 0 ]
	done
	run abuse 127.0.0.1 bad-op
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 garbage 100000
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 half-header
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 half-payload
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 no-read
	[ "$status" -eq 0 ]
	# Still up, and still right.
	kill -0 "$SRV_PID"
	run abuse 127.0.0.1 ping 50 60 65536
	[ "$status" -eq 0 ]
	# each connection's process logs its end, then exits
	wait_children 0
	grep -q "disconnected (protocol error): bad magic" "$T/srv.log"
	grep -q "disconnected (protocol error): protocol version 99" "$T/srv.log"
	grep -q "disconnected (protocol error): payload length 16777217 over the limit" "$T/srv.log"
	grep -q "disconnected (cut): connection cut mid-frame: 13 of 32 header bytes" "$T/srv.log"
	grep -q "disconnected (cut): connection cut mid-frame: 5000 of 100000 request payload" "$T/srv.log"
	stop_srv
}

@test "tbench_srv: protocol errors are logged without -v too" {
	same_in_both_modes "the end-of-connection log line (log_end)"
	"$TBENCH_SRV" -b 127.0.0.1 -p 0 --pid-file "$T/srv.pid" 2>"$T/srv.log" 3>&- &
	wait_for -t 5 "tbench_srv's pid file" test -s "$T/srv.pid"
	SRV_PID=$(cat "$T/srv.pid")
	PORT=$(ss -Hltnp | sed -n "s/.*127.0.0.1:\([0-9]*\) .*pid=$SRV_PID,.*/\1/p")
	[ -n "$PORT" ]
	run abuse 127.0.0.1 magic
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 ping 3
	[ "$status" -eq 0 ]
	stop_srv
	[ "$(wc -l <"$T/srv.log")" -eq 1 ]
	grep -q "disconnected (protocol error): bad magic" "$T/srv.log"
}

@test "tbench_srv: 200 connections at once, then business as usual" {
	start_srv -b 127.0.0.1
	run abuse 127.0.0.1 storm 200
	echo "$output"
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 ping 10
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: --max-clients refuses connections over the limit" {
	start_srv -b 127.0.0.1 --max-clients 2
	# two held connections (60 s: the test ends them once it is done with
	# them; started without the function, so that $! is the client's pid)
	"$TBENCH_ABUSE" 127.0.0.1 "$PORT" hold 60 >"$T/hold1" 3>&- &
	h1=$!
	"$TBENCH_ABUSE" 127.0.0.1 "$PORT" hold 60 >"$T/hold2" 3>&- &
	h2=$!
	wait_children 2
	run abuse 127.0.0.1 busy
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "refused: 2 connections already (--max-clients)" "$T/srv.log"
	kill "$h1" "$h2"
	wait "$h1" "$h2" || true
	# their connection processes see them go, and room is made
	wait_children 0
	run abuse 127.0.0.1 ping 3
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: --timeout drops a connection stalled inside a frame" {
	start_srv -b 127.0.0.1 --timeout 1
	run abuse 127.0.0.1 stall 4
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "disconnected (timeout): timed out in the header after 2 of 32 bytes" "$T/srv.log"
	stop_srv
}

# reply_timed_out: the server logged that it dropped a client not reading
reply_timed_out() {
	grep -q "disconnected (timeout): timed out in the reply after [0-9]* of 16777248 bytes" "$T/srv.log"
}

@test "tbench_srv: --timeout drops a connection that does not read its replies" {
	start_srv -b 127.0.0.1 --timeout 1
	# four 16 MiB replies asked for, none read; the client hangs up only
	# after 30 s, long after the server should have
	abuse 127.0.0.1 no-read 30000 >"$T/noread.out" 3>&- &
	reader=$!
	wait_for -t 25 "the server to drop the client that does not read" reply_timed_out
	cat "$T/srv.log"
	kill "$reader"
	wait "$reader" || true
	stop_srv
}

@test "tbench_srv: SIGTERM stops it and every connection, nothing left behind" {
	start_srv -b 127.0.0.1
	holders=
	for i in 1 2 3; do
		abuse 127.0.0.1 hold 30 >/dev/null 3>&- &
		holders="$holders $!"
	done
	wait_children 3
	kids=$(srv_children)
	[ "$(echo "$kids" | wc -l)" -eq "${TB_WORKERS:-3}" ]
	stop_srv TERM
	for k in $kids; do
		! kill -0 "$k" 2>/dev/null || false
	done
	grep -q "stopped by Terminated; 3 connections ended" "$T/srv.log"
	# Each connection's end was logged (by its process or its worker), with
	# its counts.
	cat "$T/srv.log"
	[ "$(grep -c "disconnected (stopped): stopped by Terminated between requests; 1 requests, " \
		"$T/srv.log")" -eq 3 ]
	# The held clients see the connection end and exit on their own.
	# shellcheck disable=SC2086
	wait $holders
}

# two_bytes_read: the staller has sent its two header bytes, the server's
# socket acknowledged them (none in the client's send queue) and the
# connection's process read them (none in the server's receive queue).
two_bytes_read() {
	grep -q "2 header bytes sent" "$T/stall.out" &&
		[ "$(ss -Htn state established "( dport = :$PORT )" | awk '{print $2}')" = 0 ] &&
		[ "$(ss -Htn state established "( sport = :$PORT )" | awk '{print $1}')" = 0 ]
}

@test "tbench_srv: a connection stopped inside a frame logs where it stood" {
	start_srv -b 127.0.0.1
	# two bytes of a header, then nothing (the server has no --timeout)
	abuse 127.0.0.1 stall 60 >"$T/stall.out" 3>&- &
	staller=$!
	wait_children 1
	# the two bytes have reached the server: sent, none left unacknowledged
	# by the server's socket, none left unread in it
	wait_for -t 30 "the two header bytes read by the server" two_bytes_read
	ss -Htn state established "( sport = :$PORT or dport = :$PORT )"
	if [ -n "$TB_WORKERS" ]; then
		# a worker serves many: the server's stop stops it, and it logs
		# where each of its connections stood
		stop_srv TERM
		cat "$T/srv.log"
		grep -q "tbench_srv\[[0-9]*\]: 127.0.0.1:[0-9]*: disconnected (stopped): stopped by Terminated inside a frame; 0 requests, 2 bytes in, 0 bytes out" "$T/srv.log"
		wait "$staller"
		grep -q "the server hung up" "$T/stall.out"
		return
	fi
	kid=$(srv_children)
	[ -n "$kid" ]
	# the child gets the signal itself, as from a kill of its own: it logs and
	# exits, the server goes on
	kill -TERM "$kid"
	wait_for "the connection's process to log its end" grep -q "disconnected (stopped)" "$T/srv.log"
	cat "$T/srv.log"
	grep -q "tbench_srv\[$kid\]: 127.0.0.1:[0-9]*: disconnected (stopped): stopped by Terminated inside a frame; 0 requests, 2 bytes in, 0 bytes out" "$T/srv.log"
	wait "$staller"
	grep -q "the server hung up" "$T/stall.out"
	kill -0 "$SRV_PID"
	run abuse 127.0.0.1 ping 3
	[ "$status" -eq 0 ]
	stop_srv
}

@test "tbench_srv: SIGINT stops it as SIGTERM does" {
	same_in_both_modes "the parent's signal handling (the SIGTERM test stops the connection processes)"
	start_srv -b 127.0.0.1
	run abuse 127.0.0.1 ping 3
	[ "$status" -eq 0 ]
	stop_srv INT
}

@test "tbench_srv: connection processes die with a killed server" {
	start_srv -b 127.0.0.1
	abuse 127.0.0.1 hold 30 >/dev/null 3>&- &
	holder=$!
	wait_children 1
	kids=$(srv_children)
	[ -n "$kids" ]
	kill -KILL "$SRV_PID"
	for kid in $kids; do
		wait_for -t 5 "process $kid to die with its server" ! srv_alive "$kid"
	done
	rm -f "$T/srv.pid"	# a killed server cannot remove it
	assert_no_procs
	wait "$holder" || true
}

@test "tbench_srv: --daemon detaches, writes its pid file, stops on SIGTERM" {
	same_in_both_modes "--daemon and the pid file"
	mkdir "$T/cwd"
	cd "$T/cwd"
	# Its stderr (kept for the log) must not be bats's pipe.
	"$TBENCH_SRV" --daemon -b 127.0.0.1 -p 0 --pid-file "$T/srv.pid" 2>"$T/srv.log" 3>&-
	[ -s "$T/srv.pid" ]
	SRV_PID=$(cat "$T/srv.pid")
	kill -0 "$SRV_PID"
	# Detached: a session of its own.
	[ "$(ps -o sid= -p "$SRV_PID" | tr -d ' ')" -eq "$SRV_PID" ]
	PORT=$(ss -Hltnp | sed -n "s/.*127.0.0.1:\([0-9]*\) .*pid=$SRV_PID,.*/\1/p")
	run abuse 127.0.0.1 ping 3
	[ "$status" -eq 0 ]
	kill -TERM "$SRV_PID"
	wait_for -t 5 "the daemon to exit after SIGTERM" ! srv_alive "$SRV_PID"
	[ ! -e "$T/srv.pid" ]
	assert_no_procs
	# It wrote nothing but its pid file.
	[ -z "$(ls -A "$T/cwd")" ]
}

@test "tbench_srv: it writes no file but its pid file" {
	same_in_both_modes "the pid file"
	mkdir "$T/cwd"
	cd "$T/cwd"
	start_srv -b 127.0.0.1
	run abuse 127.0.0.1 ops
	[ "$status" -eq 0 ]
	run abuse 127.0.0.1 garbage
	stop_srv
	[ -z "$(ls -A "$T/cwd")" ]
	[ "$(ls -A "$T" | sort | tr '\n' ' ')" = "cwd srv.log " ]
}

@test "tbench_srv: --request-timeout drops a frame that drips in just inside --timeout" {
	start_srv -b 127.0.0.1 --timeout 2 --request-timeout 2
	run abuse 127.0.0.1 drip 20 200
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "disconnected (timeout): request not complete within the request timeout" "$T/srv.log"
	stop_srv
}

@test "tbench_srv: --request-timeout S hangs up S seconds after the frame's first byte, not later" {
	# the client drips a header (a byte every 0.75 s: the magic is complete
	# after 2.25 s) and times the hang-up from the first byte; before, the
	# deadline began again when the first 4 bytes were in and was checked only
	# when a receive timeout of S seconds ended: 11-23 s for S=8
	start_srv -b 127.0.0.1 --request-timeout 3
	run abuse 127.0.0.1 deadline 3
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok: the server hung up "*" s after the frame's first byte"* ]]
	grep -q "disconnected (timeout): request not complete within the request timeout: [0-9]* of 32 header bytes" "$T/srv.log"
	stop_srv
}

@test "tbench_srv: --idle-timeout drops a connection that sends nothing" {
	start_srv -b 127.0.0.1 --idle-timeout 1
	run abuse 127.0.0.1 hold 20
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the server hung up"* ]]
	grep -q "disconnected (timeout): idle for longer than the idle timeout" "$T/srv.log"
	stop_srv
}

@test "tbench_srv: dbench's clients, a process each and many a process, on both wires: 0 mismatches" {
	same_in_both_modes "the frame state machine (serve.c; a process's request loop runs in the 127.0.0.1 and bad-frame tests)"
	start_srv -b 127.0.0.1
	for args in "4" "--clients-per-process 8 2" "--wire classic 3" \
		    "--wire classic --clients-per-process 4 2"; do
		# shellcheck disable=SC2086 # options, a word each
		run "$DBENCH" -B sockio --server "127.0.0.1:$PORT" -c "$TB_TOP/loadfiles/client.txt" \
			-t 2 --warmup 0 $args
		echo "$args -> $status: ${lines[*]: -3}"
		[ "$status" -eq 0 ]
		[[ "$output" == *", 0 mismatches,"* ]]
	done
	grep -q "(classic wire)" "$T/srv.log"
	stop_srv
}

@test "tbench_srv --workers: a worker that dies stops the server, which says so and exits 1" {
	[ -n "$TB_WORKERS" ] || skip "runs in tbench_srv_workers.bats"
	start_srv -b 127.0.0.1
	abuse 127.0.0.1 hold 30 >/dev/null 3>&- &
	holder=$!
	wait_children 1
	victim=$(srv_children | head -1)
	kill -KILL "$victim"
	wait_for -t 5 "tbench_srv to stop after losing a worker" ! srv_alive "$SRV_PID"
	rc=0
	wait "$SRV_PID" || rc=$?
	cat "$T/srv.log"
	[ "$rc" -eq 1 ]
	grep -q "worker $victim killed by Killed" "$T/srv.log"
	grep -q "stopped by an error; [0-9]* connections ended" "$T/srv.log"
	[ ! -e "$T/srv.pid" ]
	assert_no_procs
	wait "$holder" || true
}

@test "tbench_srv --workers: each connection goes to the worker with the fewest" {
	[ -n "$TB_WORKERS" ] || skip "runs in tbench_srv_workers.bats"
	start_srv -b 127.0.0.1
	holders=
	for i in 1 2 3 4 5 6; do
		abuse 127.0.0.1 hold 30 >/dev/null 3>&- &
		holders="$holders $!"
		wait_children "$i"
	done
	cat "$T/srv.log"
	# "connected (worker PID, N connections)": three each
	run sh -c "grep -o 'connected (worker [0-9]*' '$T/srv.log' | sort | uniq -c | awk '{ print \$1 }' | tr '\n' ' '"
	[ "$output" = "3 3 " ]
	stop_srv TERM
	# shellcheck disable=SC2086
	wait $holders
}

@test "tbench_srv --workers: a connection ended before the parent closed its copy leaves no stale event" {
	[ -n "$TB_WORKERS" ] || skip "runs in tbench_srv_workers.bats"
	command -v strace >/dev/null || skip "strace is not installed"
	start_srv -b 127.0.0.1
	# the parent's close() of each handed-over descriptor delayed 0.3 s: the
	# worker serves and ends the connection first; a worker that only closed
	# its descriptor kept it in its epoll set (the parent's copy held the
	# socket open) with the freed connection as its data, and aborted
	strace -o /dev/null -e trace=close -e inject=close:delay_enter=300000 -p "$SRV_PID" 3>&- &
	tracer=$!
	wait_for -t 10 "strace to attach" grep -q "^TracerPid:[[:space:]]*$tracer\$" "/proc/$SRV_PID/status"
	for i in 1 2 3 4 5; do
		run abuse 127.0.0.1 ping 3
		echo "$i: $output"
		[ "$status" -eq 0 ]
	done
	kill "$tracer"
	wait "$tracer" || true
	cat "$T/srv.log"
	! grep -q "killed by\|exited with" "$T/srv.log" || false
	stop_srv
}
