#!/usr/bin/env bats
# wait.bats - wait_for (tests/lib/wait.sh), the one way the tests wait: it
# returns once its condition holds, fails after its limit (scaled) with a
# line naming what it waited for, and stops at once on a condition that
# cannot run.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	sanitizer_pass_skip "wait_for is shell; no C code of ours runs here"
	make_tmp
	export WAIT_FOR_SCALE=1
}

teardown() { remove_tmp; }

# elapsed_ms START: milliseconds since START (an EPOCHREALTIME value).
elapsed_ms() {
	local now=${EPOCHREALTIME//[!0-9]/} start=${1//[!0-9]/}
	echo $(( (now - start) / 1000 ))
}

@test "wait_for: returns once the condition holds" {
	(sleep 0.3; touch "$T/flag") &
	wait_for -t 30 "the flag file" test -e "$T/flag"
	[ -e "$T/flag" ]
	wait
}

@test "wait_for: after the limit, status 1 and a line naming what it waited for" {
	local t0=$EPOCHREALTIME ms
	run --separate-stderr wait_for -t 0.4 "the flag file" test -e "$T/flag"
	ms=$(elapsed_ms "$t0")
	echo "$stderr ($ms ms)"
	[ "$status" -eq 1 ]
	[ "$ms" -ge 400 ]
	[[ "$stderr" =~ ^"wait_for: gave up waiting for the flag file after "[0-9]+\.[0-9]" s (limit 0.4 s x1: WAIT_FOR_SCALE)"$ ]]
}

@test "wait_for: the limit scales (WAIT_FOR_SCALE, sanitizers, load)" {
	local t0=$EPOCHREALTIME ms
	WAIT_FOR_SCALE=3 run --separate-stderr wait_for -t 0.2 "nothing" false
	ms=$(elapsed_ms "$t0")
	echo "$stderr ($ms ms)"
	[ "$status" -eq 1 ]
	[ "$ms" -ge 600 ]
	[[ "$stderr" == *"(limit 0.2 s x3: WAIT_FOR_SCALE)" ]]
	# without WAIT_FOR_SCALE: x3 under sanitizers, then the load per CPU
	unset WAIT_FOR_SCALE
	ASAN_OPTIONS=detect_leaks=1 source "$TOP/tests/lib/wait.sh"
	wait_scale
	echo "$_WAIT_SCALE: $_WAIT_WHY"
	[[ "$_WAIT_WHY" == "sanitizer build"* ]]
	[ $(( _WAIT_SCALE % 3 )) -eq 0 ] || [ "$_WAIT_SCALE" -eq 8 ]
}

@test "wait_for: the condition is tried anew each time (a function), and ! waits for failure" {
	tries=0
	three_tries() { tries=$((tries + 1)); [ "$tries" -ge 3 ]; }
	wait_for -t 30 "the third try" three_tries
	[ "$tries" -eq 3 ]
	sleep 0.2 &
	local pid=$!
	wait_for -t 30 "the sleep to end" ! srv_alive "$pid"
	run srv_alive "$pid"
	[ "$status" -eq 1 ]
}

@test "wait_for: -q says nothing and leaves WAIT_FOR_WAITED for the caller's own line" {
	run --separate-stderr wait_for -q -t 0.2 "nothing" false
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
	local rc=0
	wait_for -q -t 0.2 "nothing" false || rc=$?	# (in this shell: the variable)
	[ "$rc" -eq 1 ]
	[[ "$WAIT_FOR_WAITED" =~ ^[0-9]+\.[0-9]" s (limit 0.2 s x1: WAIT_FOR_SCALE)"$ ]]
}

@test "wait_for: a condition that cannot run stops the wait at once" {
	local t0=$EPOCHREALTIME ms
	run --separate-stderr wait_for -t 30 "a typo" no-such-command-here
	ms=$(elapsed_ms "$t0")
	[ "$status" -eq 2 ]
	[ "$ms" -lt 20000 ]
	[[ "$stderr" == *'wait_for: cannot run "no-such-command-here" (status 127) waiting for a typo' ]]
	run --separate-stderr wait_for "no command"
	[ "$status" -eq 2 ]
	[ "$stderr" = "wait_for: no command to wait for (no command)" ]
}
