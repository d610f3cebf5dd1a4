#!/usr/bin/env bats
# endings.bats - every ending is told, and told truly (issue 22): a stop
# signal to dbench at any time (partial report, error document, cleanup,
# 128 + the signal), a signal to one client (a failed client), a report
# that cannot be written, set-up failures (exit 2), --clients-per-process
# set-up failures, FIFOs as loadfiles and block devices, and --json /
# --csv-series never written through a symbolic link.  Each run is bounded
# with timeout(1), so a hang is a failure, not a stuck suite.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	make_tmp
	small_loadfile
	# (the runs a test signals use slow.txt: their clients sleep, not spin)
	slow_loadfile
}
teardown() {
	# (the FIFO's writer has no $T in its command line)
	[ -z "${WRITER:-}" ] || kill "$WRITER" 2>/dev/null || :
	[ -n "${T:-}" ] && pkill -KILL -f -- "$T" 2>/dev/null
	remove_tmp
}

run_dbench() {
	run --separate-stderr timeout -s KILL 120 "$DBENCH" "$@"
}

# dbench with every signal at its default (a shell's background job
# ignores SIGINT and SIGQUIT), bounded by timeout: what start_dbench and
# the signal_run tests (-p "$T/": the signal goes to dbench) run.
bounded_dbench() {
	timeout -s KILL 120 env --default-signal "$DBENCH" "$@"
}

# Start bounded_dbench in the background, stdout $T/out, stderr $T/err;
# sets DB_PID (dbench itself, timeout's child).
start_dbench() {
	bounded_dbench "$@" > "$T/out" 2> "$T/err" &
	TO_PID=$!
	DB_PID=
	wait_for "dbench to start" dbench_started_or_ended
	[ -n "$DB_PID" ] && return 0
	# it ended before it was seen running: say how, not only that
	wait_dbench
	echo "start_dbench: dbench ended (status $rc) before it was seen running" >&2
	return 1
}

# dbench_started: the run's dbench (timeout's child) is there; sets DB_PID.
dbench_started() {
	DB_PID=$(run_parent "$T/")
}

# dbench_started_or_ended: dbench_started, or start_dbench's job is over.
dbench_started_or_ended() {
	dbench_started || ! kill -0 "$TO_PID" 2>/dev/null
}

# first_client: dbench (DB_PID) has a client; victim is the first one's pid.
first_client() {
	victim=$(pgrep -P "$DB_PID" | head -1)
	[ -n "$victim" ]
}

# progress_lines_over N: $T/out has more than N progress lines.
progress_lines_over() {
	[ "$(grep -c "MB/sec" "$T/out")" -gt "$1" ]
}

# fifo_open: the dbench of start_dbench has $T/fifo open.
fifo_open() {
	local fd
	for fd in "/proc/$DB_PID/fd/"*; do
		[ "$fd" -ef "$T/fifo" ] && return 0
	done
	return 1
}

# clients_forked N: dbench has at least N children.
clients_forked() {
	[ "$(pgrep -P "$DB_PID" | wc -l)" -ge "$1" ]
}

# Wait for the dbench started by start_dbench; its exit status in $rc.
wait_dbench() {
	rc=0
	wait "$TO_PID" || rc=$?
	cat "$T/out" "$T/err"
}

json() {
	jq -r "$1" "$T/r.json"
}

@test "SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTERM, SIGINT to dbench: partial report, the document, cleanup, exit 128 + N" {
	local sig num
	# (run.c stops on each through one table and one handler: under ASan, one;
	# TERM and INT run there in the tests below too)
	for sig in $(sanitizer_pass_one HUP QUIT USR1 USR2 ALRM PIPE TERM INT); do
		num=$(kill -l "$sig")
		echo '{"stale": "an older run"}' > "$T/r.json"
		signal_run -s "$sig" -p "$T/" bounded_dbench -D "$T/d" -c "$T/slow.txt" -t 60 \
			--json "$T/r.json" 2
		echo "$sig -> $status"
		[ "$status" -eq $((128 + num)) ]
		grep -q '^Throughput ' "$T/out"	# the partial report
		[ "$(json .exit_status)" -eq $((128 + num)) ]
		[ "$(json .signal)" -eq "$num" ]
		[ "$(json .results.failed_clients)" -eq 0 ]
		assert_empty_target
	done
	assert_no_procs
}

# hup_ignored: the run is going; SIGHUP to dbench and its clients, and it
# goes on (the next progress line comes).
hup_ignored() {
	local lines
	wait_running "$T/out" && dbench_started || return 1
	# shellcheck disable=SC2046 # a list of pids
	kill -HUP "$DB_PID" $(pgrep -P "$DB_PID") || return 1
	lines=$(grep -c "MB/sec" "$T/out")
	wait_for "the next progress line" progress_lines_over "$lines" && kill -0 "$DB_PID"
}

@test "a signal ignored when dbench starts stays ignored (nohup); SIGTERM still stops it" {
	# dbench started with SIGHUP ignored, as nohup does
	signal_run -s TERM -p "$T/" -w hup_ignored timeout -s KILL 120 env --default-signal \
		--ignore-signal=HUP "$DBENCH" -D "$T/d" -c "$T/slow.txt" -t 60 --json "$T/r.json" 1
	[ "$status" -eq 143 ]
	[ "$(json .signal)" -eq 15 ]
	[ "$(json .results.failed_clients)" -eq 0 ]
	assert_empty_target
}

# fifo_opened: dbench has started and opened $T/fifo.
fifo_opened() {
	wait_for "dbench to start" dbench_started &&
		wait_for -t 30 "dbench to open the FIFO" fifo_open
}

@test "a signal while the loadfile is read: one line, the error document, exit 128 + N" {
	mkfifo "$T/fifo"
	# a writer that opens the FIFO and never writes (teardown ends it)
	sleep 100 > "$T/fifo" &
	WRITER=$!
	echo '{"stale": "an older run"}' > "$T/r.json"
	signal_run -s USR1 -p "$T/" -w fifo_opened bounded_dbench -B null -c "$T/fifo" -t 1 \
		--json "$T/r.json" 1
	[ "$status" -eq 138 ]
	[ "$(cat "$T/err")" = "dbench: stopped by signal 10 (User defined signal 1) before the run started" ]
	[ "$(json .exit_status)" -eq 138 ]
	[ "$(json .error)" = "stopped by signal 10 (User defined signal 1) before the run started" ]
}

# twenty_forked: dbench has forked 20 of its clients; the clock starts
# (SECONDS).
twenty_forked() {
	wait_for "dbench to start" dbench_started &&
		wait_for -t 60 "dbench to fork 20 clients" clients_forked 20 && SECONDS=0
}

@test "Ctrl-C while thousands of clients start: no more are forked, those forked are reaped, exit 130 at once" {
	echo '{"stale": "an older run"}' > "$T/r.json"
	signal_run -p "$T/" -w twenty_forked bounded_dbench -B null -c "$T/small.txt" -t 60 \
		--json "$T/r.json" 3000
	echo "$SECONDS s"
	[ "$status" -eq 130 ]
	[ "$SECONDS" -lt 20 ]
	[ "$(tail -1 "$T/err")" = "dbench: stopped by signal 2 (Interrupt) before the clients were released" ]
	[ "$(json .exit_status)" -eq 130 ]
	[ "$(json .error)" = "stopped by signal 2 (Interrupt) before the clients were released" ]
	# it stopped forking: far fewer than 3000 were started
	! grep -q "^3000 of 3000 processes" "$T/out" || false
	assert_no_procs
}

@test "a stop signal to one client: that client failed, named with the signal, exit 1; a Ctrl-C to the whole group is not a client failure" {
	local sig num victim
	# (a client's death is told the same way whatever the signal)
	for sig in $(sanitizer_pass_one TERM INT); do
		num=$(kill -l "$sig")
		# -t 10: the victim must still run when the signal comes, on a
		# loaded machine too (the other client ends the run at -t)
		start_dbench -D "$T/d" -c "$T/slow.txt" -t 10 --json "$T/r.json" 2
		wait_running "$T/out"
		wait_for "a client of dbench $DB_PID" first_client
		kill -"$sig" "$victim"
		wait_dbench
		[ "$rc" -eq 1 ]
		grep -Eq "^dbench: client [01] failed: stopped by signal $num \([A-Za-z ]+\) before the end of the run$" "$T/err"
		[ "$(json .results.failed_clients)" -eq 1 ]
		[[ "$(json '.results.failures[0].error')" == "stopped by signal $num "* ]]
		assert_empty_target
	done
	# the terminal's Ctrl-C reaches dbench and every client: a stop, 130
	signal_run -g setsid env --default-signal "$DBENCH" -D "$T/d" -c "$T/slow.txt" -t 60 \
		--json "$T/r.json" 2
	[ "$status" -eq 130 ]
	[ "$(json .results.failed_clients)" -eq 0 ]
	! grep -q "failed" "$T/err" || false
	assert_empty_target
	assert_no_procs
}

@test "a report that cannot be written is an error: exit 1 and one line, as coreutils (>/dev/full, stdout closed)" {
	run bash -c '"$0" -B null -c "$1" -t 1 --json "$2" 1 >/dev/full' "$DBENCH" "$T/slow.txt" "$T/r.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "dbench: write error: No space left on device" ]
	[ "$(json .exit_status)" -eq 1 ]	# the document says so too
	run bash -c '"$0" -B null -c "$1" -t 1 1 >&-' "$DBENCH" "$T/slow.txt"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "dbench: write error: Bad file descriptor" ]
	run bash -c '"$0" --help >/dev/full' "$DBENCH"
	[ "$status" -eq 1 ]
	[ "$output" = "dbench: write error: No space left on device" ]
	# a reader that goes away (| head) stops the run: SIGPIPE, 141, no
	# write error
	run bash -c 'env --default-signal "$0" -B null -c "$1" -t 60 1 2>"$2" | head -1; exit "${PIPESTATUS[0]}"' \
		"$DBENCH" "$T/slow.txt" "$T/pipe.err"
	echo "$output"
	cat "$T/pipe.err"
	[ "$status" -eq 141 ]
	[[ "$output" == "dbench version "*" - a netbench emulator (GPL-3.0-or-later)" ]]
	! grep -q "write error" "$T/pipe.err"
}

@test "set-up failures where nothing ran exit 2: too few descriptors for the release pipe, no shared memory" {
	# (only 0, 1 and 2 open, and one more for the loadfile)
	run --separate-stderr bash -c 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
		ulimit -n 4; exec "$0" -B null -c "$1" -t 1 1' "$DBENCH" "$T/small.txt"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: cannot start the clients: pipe: Too many open files" ]
	if ldd "$DBENCH" | grep -q libasan; then
		skip "ulimit -v and AddressSanitizer's shadow memory do not mix"
	fi
	# 100000 clients' stats are about 9 GB: more than ulimit -v allows
	run --separate-stderr bash -c 'ulimit -v 400000; exec "$0" -B null -c "$1" -t 1 --clients-per-process 1000 100' \
		"$DBENCH" "$T/small.txt"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "dbench: cannot map "*" bytes of shared memory for 100000 clients: Cannot allocate memory" ]]
}

@test "--clients-per-process 2: a client that cannot set up is named, the next one does not crash" {
	ln -s /nonexistent "$T/d/clients"
	run_dbench -D "$T/d" -c "$T/small.txt" -t 1 --clients-per-process 2 --json "$T/r.json" 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ "${stderr_lines[0]}" == "dbench: client 0: $T/d/clients is a symbolic link: "* ]]
	[ "${stderr_lines[1]}" = "dbench: no client was started" ]
	[[ "$(json .error)" == "no client was started: client 0: "* ]]
	rm "$T/d/clients"
}

@test "--clients-per-process 2 with a relative -D: every client runs, as in dbench 4.0" {
	cd "$T"
	run_dbench -D d -c "$T/small.txt" -t 2 --clients-per-process 2 --json "$T/r.json" 2
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(json .clients)" -eq 4 ]
	[ "$(json .results.failed_clients)" -eq 0 ]
	[ "$(json .results.idle_clients)" -eq 0 ]
	assert_empty_target
}

@test "a slow FIFO writer is not 'no writer': the writer opens in time and writes when it likes" {
	# the issue's case: -c <(sleep 7; cat f), and a named FIFO whose writer
	# opened it at once and writes after longer than the 5 s wait for one
	mkfifo "$T/fifo"
	(exec 3> "$T/fifo"; sleep 6; cat "$T/small.txt" >&3) &
	timeout -s KILL 60 "$DBENCH" -B null --check-loadfile -c "$T/fifo" > "$T/named.out" 2>&1 &
	local named=$! rc=0
	run_dbench -B null --check-loadfile -c <(sleep 6; cat "$T/small.txt")
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *": 8 lines, "* ]]
	wait "$named" || rc=$?
	cat "$T/named.out"
	[ "$rc" -eq 0 ]
	grep -q ": 8 lines, " "$T/named.out"
}

@test "--block naming a FIFO is refused at once, not waited on" {
	mkfifo "$T/fifo"
	printf 'READ 0 4096 *\n' > "$T/b.txt"
	run --separate-stderr timeout -s KILL 20 "$DBENCH" -B block --block "$T/fifo" -c "$T/b.txt" -t 1 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --block $T/fifo: not a block device or regular file" ]
}

@test "--json and --csv-series never write through a symbolic link at their name" {
	echo "the victim's file" > "$T/victim"
	# planted before the run: refused before anything runs
	ln -s victim "$T/r.json"
	run_dbench -B null -c "$T/small.txt" -t 1 --json "$T/r.json" 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --json $T/r.json: is a symbolic link: dbench does not write through one (give the file it points to) (see dbench --help)" ]
	[ "$(cat "$T/victim")" = "the victim's file" ]
	[ -L "$T/r.json" ]
	ln -s victim "$T/s.csv"
	run_dbench -B null -c "$T/small.txt" -t 1 --csv-series "$T/s.csv" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "dbench: --csv-series $T/s.csv: is a symbolic link: "* ]]
	[ "$(cat "$T/victim")" = "the victim's file" ]
	# a dangling link does not create its target either
	rm "$T/r.json"
	ln -s made-by-dbench "$T/r.json"
	run_dbench -B null -c "$T/small.txt" -t 1 --json "$T/r.json" 1
	[ "$status" -eq 2 ]
	[ ! -e "$T/made-by-dbench" ]
	rm "$T/r.json" "$T/s.csv"

	# planted while the run goes: the document is refused, not written there
	start_dbench -D "$T/d" -c "$T/slow.txt" -t 6 --json "$T/r.json" --csv-series "$T/s.csv" 1
	wait_running "$T/out"
	# (the parent, which writes both at the end, held while they are
	# planted: at load 20 the three commands took longer than what was
	# left of the run)
	kill -STOP "$DB_PID"
	ln -s victim "$T/r.json"
	rm "$T/s.csv"
	ln -s victim "$T/s.csv"	# the series goes on into the file it made
	kill -CONT "$DB_PID"
	wait_dbench
	[ "$rc" -eq 1 ]
	grep -q "^dbench: --json $T/r.json: cannot open: is a symbolic link" "$T/err"
	[ "$(cat "$T/victim")" = "the victim's file" ]
	[ -L "$T/r.json" ]
	rm "$T/r.json" "$T/s.csv"

	# a hard link is replaced, not written through: the other name keeps
	# its content; the new file is made with the umask's mode, no temporary left
	ln "$T/victim" "$T/r.json"
	ln "$T/victim" "$T/s.csv"
	run_dbench -B null -c "$T/slow.txt" -t 1 --json "$T/r.json" --csv-series "$T/s.csv" 1
	[ "$status" -eq 0 ]
	[ "$(cat "$T/victim")" = "the victim's file" ]
	[ "$(stat -c %h "$T/victim")" -eq 1 ]
	[ "$(json .exit_status)" -eq 0 ]
	head -1 "$T/s.csv" | grep -q '^elapsed_sec,'
	[ "$(stat -c %a "$T/r.json")" = "$(printf '%o' $((0666 & ~$(umask))))" ]
	[ "$(ls "$T" | grep -c 'r\.json\|s\.csv')" -eq 2 ]

	# --help says so
	run "$DBENCH" --help
	[[ "$(tr -s ' \n' ' ' <<<"$output")" == *"--json=FILE write the results as JSON to FILE, replaced atomically, never through a symlink"* ]]
	[[ "$(tr -s ' \n' ' ' <<<"$output")" == *"JSON Lines if it ends in .jsonl; never through a symlink"* ]]

	# the process's own descriptors: /dev/fd/N (a shell's >(...) too)
	run bash -c '"$0" -B null -c "$1" -t 1 --json /dev/fd/3 1 3>"$2" >/dev/null' "$DBENCH" "$T/slow.txt" "$T/fd.json"
	[ "$status" -eq 0 ]
	[ "$(jq -r .exit_status "$T/fd.json")" -eq 0 ]
}

@test "the error document is written for failures before and while the options are read" {
	echo '{"stale": "an older run"}' > "$T/r.json"
	# an unknown option before --json
	run_dbench -B null --no-such-option --json "$T/r.json" -t 1 1
	[ "$status" -eq 2 ]
	[ "$(json .error)" = "--no-such-option: unknown option" ]
	# a backend that does not exist (no module)
	echo '{"stale": "an older run"}' > "$T/r.json"
	DBENCH_MODULE_PATH=$T run_dbench -B nosuch --json="$T/r.json" -t 1 1
	[ "$status" -eq 2 ]
	[ "$(json .exit_status)" -eq 2 ]
	[[ "$(json .error)" == "unknown backend 'nosuch' "* ]]
	# a module's option callback (nfs --nfs-version), when nfs is built
	if [ -e "$(dirname "$DBENCH")/dbench-nfs.so" ]; then
		echo '{"stale": "an older run"}' > "$T/r.json"
		run_dbench -B nfs --nfs-version 5 --json "$T/r.json" -t 1 1
		[ "$status" -eq 2 ]
		[ "$(json .error)" = "nfs: --nfs-version 5: must be 3 or 4" ]
	fi
}
