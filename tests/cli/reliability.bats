#!/usr/bin/env bats
# reliability.bats - every run ends, tells the truth and stays small:
# endless loops, huge and hostile inputs, stuck clients, a killed parent.
# Each test bounds the program under test with timeout(1), so a hang is a
# failure, not a stuck suite.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	make_tmp
	# (the runs that only need to run use slow.txt: a client that sleeps)
	slow_loadfile
}
teardown() {
	[ -n "${T:-}" ] && pkill -KILL -f -- "$T" 2>/dev/null
	remove_tmp
}

run_dbench() {
	run --separate-stderr timeout -s KILL "${RELIABILITY_TIMEOUT:-120}" "$DBENCH" "$@"
}

# A loop of directives with no operation in it (item 1 of issue 17).
directive_loop() {
	printf 'Mkdir "\\clients" *\nLOOP 4000000000\nLOOP 4000000000\n%s\nENDLOOP\nENDLOOP\nQUERY_FS_INFORMATION 3 NT_STATUS_OK\n' "$1" \
		> "$T/loop.txt"
}

@test "a loop of directives honours the time limit (SETSP, SLEEP 0, REPEAT 0)" {
	local body
	for body in 'SETSP 1' 'SLEEP 0' 'REPEAT 0
Mkdir "\clients\x" *'; do
		directive_loop "$body"
		run_dbench -B null -t 1 -c "$T/loop.txt" 1
		echo "$body -> $status: $stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *"Throughput"* ]]
	done
}

@test "--check-loadfile on a loop of directives ends at once, the pass counted from its loop counts" {
	directive_loop 'SETSP 1'
	run_dbench -B null --check-loadfile -c "$T/loop.txt" 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	# a pass is counted from the loop counts, not walked: its 2 ops, at once
	grep -Eq '^ *total +2$' <<<"$output"
}

@test "a 4 GiB run of zeros in a .gz is refused at once, exit 2" {
	head -c 8M /dev/zero | gzip -1 > "$T/zeros.gz"
	run_dbench -B null -c "$T/zeros.gz" -t 1 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/zeros.gz:1: binary data (byte 0x00), not loadfile text" ]
}

@test "random bytes as a loadfile: refused at the first bad line" {
	head -c 20M /dev/urandom > "$T/random.bin"
	run_dbench -B null -c "$T/random.bin" -t 1 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" =~ random\.bin:[0-9]+:\ binary\ data ]]
}

@test "a loadfile larger than --max-loadfile: one line, exit 2; raising it accepts it" {
	# (yes | head, seq | sed: a shell loop of thousands of echo's under bats'
	# DEBUG trap took seconds)
	{ echo 'Mkdir "\clients" *'; yes 'QUERY_FS_INFORMATION 3 NT_STATUS_OK' | head -n 2000; } \
		> "$T/big.txt"
	gzip -c "$T/big.txt" > "$T/big.gz"
	for f in big.txt big.gz; do
		run_dbench -B null --max-loadfile 32K --check-loadfile -c "$T/$f" 1
		echo "$stderr"
		[ "$status" -eq 2 ]
		[ "$stderr" = "$T/$f: the loadfile text is larger than 32 KiB (--max-loadfile)" ]
		run_dbench -B null --max-loadfile 1M --check-loadfile -c "$T/$f" 1
		[ "$status" -eq 0 ]
	done
	run_dbench -B null --max-loadfile 12x --check-loadfile -c "$T/big.txt" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--max-loadfile"* ]]
}

@test "a compiled program larger than --max-loadfile allows: FILE:LINE, exit 2" {
	{ echo 'Mkdir "\clients" *'; seq 3000 | sed 's|.*|Mkdir "\\clients\\client1\\d&" *|'; } \
		> "$T/many.txt"
	run_dbench -B null --max-loadfile 100K --check-loadfile -c "$T/many.txt" 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" =~ many\.txt:[0-9]+:\ the\ compiled\ program\ is\ larger\ than\ 200\ KiB ]]
}

@test "a gzip bomb of valid lines is refused after --max-loadfile bytes, not read to the end" {
	# 64 MiB of valid text, 128 KiB compressed: read only up to 4 MiB
	yes 'QUERY_FS_INFORMATION 3 NT_STATUS_OK' | head -c 64M | gzip -9 > "$T/bomb.gz"
	run_dbench -B null --max-loadfile 4M --check-loadfile -c "$T/bomb.gz" 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/bomb.gz: the loadfile text is larger than 4 MiB (--max-loadfile)" ]
}

@test "a FIFO with no writer: refused after a bounded wait, exit 2" {
	mkfifo "$T/fifo"
	run_dbench -B null -c "$T/fifo" -t 1 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/fifo: no writer opened the FIFO within 5 s" ]
}

# dbench is running with the FIFO as its loadfile (it waits for a writer in
# open(2), so the FIFO is not among its descriptors yet).
fifo_open_by_dbench() {
	pgrep -f -- "-c $T/fifo" >/dev/null
}

@test "a FIFO with a writer is read" {
	mkfifo "$T/fifo"
	printf 'Mkdir "\\clients" *\nQUERY_FS_INFORMATION 3 NT_STATUS_OK\n' > "$T/l.txt"
	# the writer comes while dbench waits for one: once dbench has the FIFO open
	(wait_for "dbench to open the FIFO" fifo_open_by_dbench && cat "$T/l.txt" > "$T/fifo") &
	run_dbench -B null --check-loadfile -c "$T/fifo" 1
	wait
	[ "$status" -eq 0 ]
}

@test "more than 64 top-level names: found at once, with the line that crossed the limit" {
	seq 150000 | sed 's|.*|Mkdir "/d&" NT_STATUS_OK|' > "$T/roots.txt"
	SECONDS=0
	run_dbench -B null --check-loadfile -c "$T/roots.txt" 1
	echo "$stderr ($SECONDS s)"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/roots.txt:65: more than 64 distinct top-level names; put the files under a directory such as \\clients\\client1" ]
	# a quadratic scan of 150,000 lines takes minutes; a linear one about
	# 1 s (21 s was seen under ASan on a machine at load 65)
	[ "$SECONDS" -lt 60 ]
}

@test "a 1 MB path gives a short error line" {
	{ printf 'Mkdir "\\clients\\'; head -c 1000000 /dev/zero | tr '\0' a; printf ':x" *\n'; } > "$T/long.txt"
	run_dbench -B null -c "$T/long.txt" -t 1 1
	echo "${stderr:0:400}"
	[ "$status" -eq 2 ]
	[ "${#stderr}" -lt 400 ]
	[[ "$stderr" == *'path "\clients\aaaa'*'..." (1000011 bytes)'* ]]
}

# Start dbench in the background (stdout $T/out, stderr $T/err); wait until
# it executes (up to 100 s: loading the classic loadfile under ASan on a
# loaded machine takes tens of seconds).  Sets DB_PID.
start_dbench() {
	timeout -s KILL "${RELIABILITY_TIMEOUT:-120}" "$DBENCH" "$@" > "$T/out" 2> "$T/err" &
	DB_PID=$!
	wait_for -t 100 "dbench to execute" grep -q "execute" "$T/out" && return 0
	cat "$T/out" "$T/err" >&2
	return 1
}

# The client processes of the dbench started by start_dbench (timeout's
# child is dbench).
client_pids() {
	local db
	db=$(pgrep -P "$DB_PID" -x dbench)
	pgrep -P "$db"
}

@test "a stopped client is killed after --grace, counted as failed with the reason, exit 1" {
	local victim rc=0
	# -t 10: the victim must still run when it is stopped, about a second
	# after the first "execute" line; a loaded machine needs the margin.
	# --warmup 0: that line comes with the first tick, not after a 2 s
	# warmup; slow.txt: the client that is not stopped sleeps through the
	# 10 s instead of spinning a CPU
	start_dbench -D "$T/d" -c "$T/slow.txt" -t 10 --warmup 0 --grace 2 --json "$T/r.json" 2
	victim=$(client_pids | head -1)
	[ -n "$victim" ]
	kill -STOP "$victim"
	SECONDS=0
	wait "$DB_PID" || rc=$?
	cat "$T/out" "$T/err"
	[ "$rc" -eq 1 ]
	[ "$SECONDS" -lt 30 ]
	grep -Eq "client [01] failed: stopped \(SIGSTOP or a debugger\); killed [0-9]+ s after the end of the run \(--grace 2\)" "$T/err"
	$PYTHON -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["results"]["failures"]) == 1, d["results"]["failures"]' "$T/r.json"
	assert_empty_target
	assert_no_procs
}

@test "a client stuck in an operation (the server stopped answering): killed after --grace, its operation's time counted" {
	load ../lib/tbench
	local rc=0 conn
	start_srv -b 127.0.0.1
	# -t 10: the run must still be going when the server is stopped
	# (--warmup 0: the first "execute" line without a 2 s warmup first)
	start_dbench -B sockio --server "127.0.0.1:$PORT" --server-timeout 300 -t 10 --warmup 0 --grace 2 \
		--json "$T/r.json" -c "$DBENCH_SRCDIR/loadfiles/client.txt" 1
	for conn in $(pgrep -P "$SRV_PID"); do kill -STOP "$conn"; done
	SECONDS=0
	wait "$DB_PID" || rc=$?
	cat "$T/out" "$T/err"
	for conn in $(pgrep -P "$SRV_PID"); do kill -CONT "$conn"; done
	stop_srv
	[ "$rc" -eq 1 ]
	[ "$SECONDS" -lt 60 ]
	grep -Eq "client 0 failed: no progress for [0-9]+ s: [A-Za-z_]+ in flight; killed [0-9]+ s after the end of the run \(--grace 2\)" "$T/err"
	# the operation in flight counts: the largest latency is at least the grace
	$PYTHON -c '
import json, sys
d = json.load(open(sys.argv[1]))
mx = max(float(op["max_ns"]) for op in d["results"]["operations"])
assert mx >= 2e9, mx' "$T/r.json"
}

@test "after the parent is SIGKILLed nothing is left: no process, no clients/ directory" {
	# (--warmup 0: the first "execute" line at once, not after 12 s of
	# warmup with three clients spinning)
	start_dbench -D "$T/d" -t 60 --warmup 0 3
	local db
	db=$(pgrep -P "$DB_PID" -x dbench)
	kill -KILL "$db"
	wait "$DB_PID" || true
	assert_no_procs
	wait_for "the target to be emptied" target_empty
	assert_empty_target
}

# target_empty: nothing is left in the target directory $T/d.
target_empty() {
	[ -z "$(ls -A "$T/d")" ]
}

# Client 1 sleeps through the whole window, client 0 works: an overload in
# miniature (5000 clients on 2 cores leave many at 0 operations).
idle_loadfile() {
	printf 'LOOP child\nSLEEP 100000000\nENDLOOP\nQUERY_FS_INFORMATION 3 NT_STATUS_OK\n' > "$T/idle.txt"
}

@test "clients that completed no operation are reported (text, JSON); --strict fails the run" {
	idle_loadfile
	run_dbench -B null -c "$T/idle.txt" -t 2 --json "$T/r.json" 2
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"overloaded: 1 of 2 clients completed no operation in the measured window (passes per client min 0, median 0, max "*"); --strict makes this a failure"* ]]
	$PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert r["idle_clients"] == 1, r["idle_clients"]; assert r["passes"]["median"] == 0' "$T/r.json"
	run_dbench -B null -c "$T/idle.txt" -t 2 --strict --json "$T/r.json" 2
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"overloaded: 1 of 2 clients"* ]]
	$PYTHON -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exit_status"] == 1 and d["strict"] is True' "$T/r.json"
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" "$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T/r.json"
}

# The --json document at $1 is an error document with exit status $2 and
# an error message containing $3.
assert_error_doc() {
	$PYTHON - "$@" <<'PY'
import json, sys
path, status, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.load(open(path))
assert d["exit_status"] == status, d
assert text in d["error"], d
assert d["schema_version"] == 1 and d["program"]["name"] == "dbench" and d["command_line"], d
assert "results" not in d, d
PY
}

@test "every exit writes a --json document: the error, its status and message (no stale file is left)" {
	echo '{"stale": "an old result"}' > "$T/r.json"
	run_dbench -B null -t abc --json "$T/r.json" 1
	[ "$status" -eq 2 ]
	assert_error_doc "$T/r.json" 2 "-t: 'abc' is not a number"
	printf 'Bogus "\\x" *\n' > "$T/bad.txt"
	run_dbench -B null -c "$T/bad.txt" -t 1 --json "$T/r.json" 1
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	assert_error_doc "$T/r.json" 2 "bad.txt:1: unknown operation 'Bogus'"
	run_dbench -B sockio --server 127.0.0.1:1 -t 1 --json "$T/r.json" 1
	[ "$status" -eq 2 ]
	assert_error_doc "$T/r.json" 2 "127.0.0.1"
	run_dbench -B null -c "$T/slow.txt" -t 1 --json "$T/r.json" 1
	[ "$status" -eq 0 ]
	$PYTHON -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "results" in d and "error" not in d' "$T/r.json"
	# a document reader names the failure
	run_dbench -B null -t abc --json "$T/e.json" 1
	[ "$status" -eq 2 ]
	assert_error_doc "$T/e.json" 2 "-t: 'abc' is not a number"
	check_schema "$DBENCH_SRCDIR/doc/dbench-error.schema.json" "$T/e.json"
}

@test "--json is written atomically: a new file renamed over the old one, no temporary file left" {
	echo '{"stale": "an old result"}' > "$T/r.json"
	local before after
	before=$(stat -c %i "$T/r.json")
	exec 7< "$T/r.json"	# a reader that opened the old document
	run_dbench -B null -c "$T/slow.txt" -t 1 --json "$T/r.json" 1
	[ "$status" -eq 0 ]
	after=$(stat -c %i "$T/r.json")
	# a rename replaced the file: the reader still has the whole old one,
	# a new reader the whole new one; never a truncated mixture
	[ "$before" != "$after" ]
	[ "$(cat <&7)" = '{"stale": "an old result"}' ]
	exec 7<&-
	$PYTHON -c 'import json,sys; json.load(open(sys.argv[1]))["results"]' "$T/r.json"
	[ "$(ls "$T" | grep -c 'r\.json')" -eq 1 ]
	# a device is written in place, never replaced (/dev/full stays a
	# device: the write error is the run's); a symbolic link is never
	# written through (endings.bats); /dev/stdout is the descriptor
	run_dbench -B null -c "$T/slow.txt" -t 1 --json /dev/full 1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"--json /dev/full: write error: No space left on device"* ]]
	run_dbench -B null -c "$T/slow.txt" -t 1 --json /dev/stdout 1
	[ "$status" -eq 0 ]
	$PYTHON -c 'import json,sys; d=sys.stdin.read(); json.loads(d[d.index("{"):])["results"]' <<<"$output"
}

@test "a client that cannot set up: exit 2 and an error document naming it" {
	run_dbench -D "$T/d" -t 1 --json "$T/r.json" --clients-per-process 2 1 -c "$DBENCH_SRCDIR/loadfiles/client.txt"
	[ "$status" -eq 0 ]
	ln -s /nonexistent "$T/d/clients"
	local cpp
	for cpp in 1 2; do	# with 2, the second client of the process never sets up
		run_dbench -D "$T/d" -t 1 --json "$T/r.json" --clients-per-process "$cpp" 1
		echo "$stderr"
		[ "$status" -eq 2 ]
		[[ "$stderr" != *"signal"* ]]
		assert_error_doc "$T/r.json" 2 "no client was started: client 0: $T/d/clients is a symbolic link"
	done
	rm "$T/d/clients"
}

@test "a client that fails in its cleanup names the cleanup and the path (Too many open files)" {
	# 40 files held open: with 30 descriptors the opens run out (counted
	# mismatches), and so does the cleanup's walk of the client's tree;
	# before, the client's line was only "client 0 failed: Too many open files"
	{
		printf 'Mkdir "\\clients" *\nMkdir "\\clients\\client1" *\nMkdir "\\clients\\client1\\dir" NT_STATUS_OK\n'
		for i in $(seq 40); do
			printf 'NTCreateX "\\clients\\client1\\dir\\f%d" 0x0 0x2 %d NT_STATUS_OK\n' "$i" "$((1000 + i))"
		done
	} >"$T/many.txt"
	mkdir -p "$T/d"
	run --separate-stderr bash -c 'ulimit -n 30 && exec "$@"' - "$DBENCH" -D "$T/d" -c "$T/many.txt" --run-once 1
	echo "$status: $stderr"
	[ "$status" -eq 1 ]
	grep -qx "dbench: client 0 failed: cleanup: cannot remove $T/d/clients/client0: Too many open files" <<<"$stderr"
	# the parent's own cleanup removes what the client could not
	[ -z "$(ls -A "$T/d")" ]
}
