#!/usr/bin/env bats
# reliability.bats - every run ends, tells the truth and stays small:
# endless loops, huge and hostile inputs, stuck clients, a killed parent.
# Each test bounds the program under test with timeout(1), so a hang is a
# failure, not a stuck suite.

bats_require_minimum_version 1.5.0
load helpers

setup() { make_tmp; }
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
		run_dbench -B null -t 2 -c "$T/loop.txt" 1
		echo "$body -> $status: $stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *"Throughput"* ]]
	done
}

@test "--check-loadfile on a loop of directives ends and says the pass was cut" {
	directive_loop 'SETSP 1'
	run_dbench -B null --check-loadfile -c "$T/loop.txt" 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"walk stopped after"* ]]
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
	local i
	{ echo 'Mkdir "\clients" *'; for i in $(seq 2000); do echo 'QUERY_FS_INFORMATION 3 NT_STATUS_OK'; done; } \
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
	local i
	{ echo 'Mkdir "\clients" *'; for i in $(seq 3000); do echo "Mkdir \"\\clients\\client1\\d$i\" *"; done; } \
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
	[[ "$stderr" == *"fifo: no writer on the FIFO after 5 s"* ]]
}

@test "a FIFO with a writer is read" {
	mkfifo "$T/fifo"
	printf 'Mkdir "\\clients" *\nQUERY_FS_INFORMATION 3 NT_STATUS_OK\n' > "$T/l.txt"
	(sleep 1; cat "$T/l.txt" > "$T/fifo") &
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
	[ "$SECONDS" -lt 20 ]
}

@test "a 1 MB path gives a short error line" {
	{ printf 'Mkdir "\\clients\\'; head -c 1000000 /dev/zero | tr '\0' a; printf ':x" *\n'; } > "$T/long.txt"
	run_dbench -B null -c "$T/long.txt" -t 1 1
	echo "${stderr:0:400}"
	[ "$status" -eq 2 ]
	[ "${#stderr}" -lt 400 ]
	[[ "$stderr" == *'path "\clients\aaaa'*'..." (1000011 bytes)'* ]]
}
