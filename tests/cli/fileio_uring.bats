#!/usr/bin/env bats
# fileio_uring.bats - fileio's data path through io_uring (--ioengine
# io_uring): ReadX, WriteX and Flush go through the ring and not pread,
# pwrite and fsync; one client a process waits on a ring of its own; with
# --clients-per-process a process's clients share a ring on the event
# loop; the results are shaped as psync's; SIGINT; the refusals.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers

# Once: was this dbench built with liburing, and does the kernel let
# io_uring run (kernel.io_uring_disabled, a seccomp filter)?
setup_file() {
	local d out
	export URING_SKIP=
	if ! grep -q HAVE_LIBURING "$DBENCH_BUILDDIR/config.h" 2>/dev/null; then
		URING_SKIP="this dbench was built without liburing"
		return 0
	fi
	d=$(mktemp -d /tmp/dbench-test.XXXXXX)
	printf 'Mkdir "\\clients" *\n' > "$d/probe.txt"
	out=$("$DBENCH" -D "$d" -c "$d/probe.txt" --ioengine io_uring -t 1 --warmup 0 1 2>&1) || true
	rm -rf "$d"
	if [[ "$out" == *"refuses io_uring"* ]]; then
		URING_SKIP="the kernel refuses io_uring here: $out"
	fi
}

setup() {
	[ -z "$URING_SKIP" ] || skip "$URING_SKIP"
	make_tmp
	cp "$DBENCH_SRCDIR/loadfiles/client.txt" "$T/client.txt"
}

teardown() {
	remove_tmp
}

# The data calls (pread64, pwrite64, fsync) a run traced into FILE made on
# files under the target.
data_calls_in_target() {
	grep -E '^[0-9]+ +(pread64|pwrite64|fsync)\([0-9]+<'"$T/d/" "$1" | wc -l
}

@test "fileio_uring: one client a process: the data path is the ring, not pread/pwrite/fsync" {
	# (LeakSanitizer cannot work under ptrace: off for the traced runs in the ASan build)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -o "$T/uring.trace" -e trace=pread64,pwrite64,fsync,io_uring_enter \
		"$DBENCH" -D "$T/d" -c "$T/client.txt" --ioengine io_uring -t 2 --warmup 0 \
		--json "$T/uring.json" 2 > "$T/out" 2>&1 || { cat "$T/out"; false; }
	cat "$T/out"
	grep -q " 0 mismatches" "$T/out"
	[ "$(data_calls_in_target "$T/uring.trace")" -eq 0 ]
	[ "$(grep -c '^[0-9]* *io_uring_enter(' "$T/uring.trace")" -gt 100 ]
	# psync, the default, makes them (the check above can fail)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -o "$T/psync.trace" -e trace=pread64,pwrite64,fsync,io_uring_enter \
		"$DBENCH" -D "$T/d" -c "$T/client.txt" -t 2 --warmup 0 --json "$T/psync.json" 2 \
		> "$T/out" 2>&1 || { cat "$T/out"; false; }
	[ "$(data_calls_in_target "$T/psync.trace")" -gt 100 ]
	[ "$(grep -c '^[0-9]* *io_uring_enter(' "$T/psync.trace")" -eq 0 ]
	# the same report; the environment says which engine ran
	diff <(json_shape "$T/psync.json") <(json_shape "$T/uring.json")
	[ "$(jq -r '.environment.options.ioengine' "$T/uring.json")" = io_uring ]
	[ "$(jq -r '.environment.options.ioengine' "$T/psync.json")" = psync ]
	assert_empty_target
}

@test "fileio_uring: 2 processes of 4 clients: one ring each on the event loop, every client runs" {
	# small.txt: a WriteX and a ReadX in each pass's first 5 ops (under
	# ASan and strace at load 20, client.txt's 8 clients made 191 ops in
	# 3 s, all before its first data op)
	small_loadfile
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$T/trace" -e trace=io_uring_setup,epoll_create1 \
		"$DBENCH" -D "$T/d" -c "$T/small.txt" --ioengine io_uring --clients-per-process 4 \
		-t 3 --warmup 0 --json "$T/r.json" 2 > "$T/out" 2>&1 || { cat "$T/out"; false; }
	cat "$T/out"
	grep -q " 0 mismatches" "$T/out"
	[[ "$(tail -1 "$T/out")" == *" 8 clients  2 procs "* ]]
	[ "$(jq '.results.idle_clients' "$T/r.json")" -eq 0 ]
	[ "$(jq '.results.failed_clients' "$T/r.json")" -eq 0 ]
	[ "$(jq '[.results.operations[] | select(.name == "ReadX" or .name == "WriteX" or .name == "Flush") | .count] | add' "$T/r.json")" -gt 0 ]
	# the parent's check of the kernel, then one ring a process (and for
	# the final cleanup's client, which runs without a loop)
	[ "$(grep -c 'epoll_create1(' "$T/trace")" -eq 2 ]
	rings=$(grep -c 'io_uring_setup(' "$T/trace")
	[ "$rings" -ge 3 ] && [ "$rings" -le 4 ]
	assert_empty_target
}

@test "fileio_uring: data written through a shared ring reads back as written (WRITEPATTERN)" {
	loadfile pattern.txt <<-'LOAD'
	WRITEPATTERN
	Mkdir "\clients" *
	Mkdir "\clients\client1" *
	NTCreateX "\clients\client1\f.dat" 0x0 0x2 1 NT_STATUS_OK
	WriteX 1 0 65536 65536 NT_STATUS_OK
	WriteX 1 65536 4096 4096 NT_STATUS_OK
	Flush 1 NT_STATUS_OK
	ReadX 1 0 65536 65536 NT_STATUS_OK
	ReadX 1 60000 5000 5000 NT_STATUS_OK
	ReadX 1 69632 10 0 NT_STATUS_END_OF_FILE
	Close 1 NT_STATUS_OK
	Unlink "\clients\client1\f.dat" NT_STATUS_OK
	LOAD
	run "$DBENCH" -D "$T/d" -c "$T/pattern.txt" --ioengine io_uring --clients-per-process 8 \
		-t 2 --warmup 0 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[[ "$output" == *"ReadX"* ]]
	assert_empty_target
}

@test "fileio_uring: SIGINT stops a run on the event loop: exit 130, nothing left" {
	signal_run "$DBENCH" -D "$T/d" -c "$T/client.txt" --ioengine io_uring --clients-per-process 4 \
		-t 60 2
	[ "$status" -eq 130 ]
	grep -Eq "^Throughput [0-9.]+ MB/sec +8 clients +2 procs" "$T/out"
	! grep -q "failed" "$T/err"
	assert_no_procs "-D $T/d"
	assert_empty_target
}

@test "fileio_uring: refusals: an unknown engine, another backend's option" {
	run "$DBENCH" -D "$T/d" --ioengine libaio 1
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--ioengine libaio: unknown engine (psync or io_uring)"* ]]
	run "$DBENCH" -B null --ioengine io_uring 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ioengine is an option of the fileio backend"* ]]
	assert_empty_target
}
