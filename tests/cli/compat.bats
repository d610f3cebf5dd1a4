#!/usr/bin/env bats
# compat.bats - drop-in compatibility with dbench 4.0/5.0: what upstream's
# loadfiles use (our own loadfiles, written for these tests), upstream's
# option meanings, and the output harnesses scrape.

load helpers

setup() { make_tmp; }
teardown() { remove_tmp; }

run_dbench() {
	run --separate-stderr "$DBENCH" "$@"
}

# A loadfile with each upstream feature: names in upstream's other cases,
# RANDOMSTRING patterns that build paths, WRITEPATTERN <text>.
upstream_features() {
	loadfile up.load <<'L'
# our own test loadfile, in the style of upstream's nfs_2/nfs_3 loadfiles
RANDOMSTRING 0 "[ab]/[cd]"
RANDOMSTRING 1 "sub\[xy]"
WRITEPATTERN The quick brown fox
DELTREE "\clients\client1" *
mkdir "\clients" *
MKDIR "\clients\client1" NT_STATUS_OK
MkDir "\clients\client1\a" *
MkDir "\clients\client1\b" *
MKDIR "\clients\client1\$0" NT_STATUS_OK
mkdir "\clients\client1\sub" NT_STATUS_OK
mkdir "\clients\client1\$1" NT_STATUS_OK
ntcreatex "\clients\client1\$0\data" 0x40 0x5 1 NT_STATUS_OK
WRITEX 1 0 100 100 NT_STATUS_OK
close 1 NT_STATUS_OK
query_path_information "\clients\client1\$0\data" 1004 NT_STATUS_OK
deltree "\clients\client1" NT_STATUS_OK
L
}

@test "upstream loadfile features run on the fileio backend" {
	upstream_features
	run_dbench -c "$T/up.load" -D "$T/d" --run-once --skip-cleanup 2
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	# Deltree at the end removed it all; run again without it to look
	sed -i '/^deltree/d' "$T/up.load"
	run_dbench -c "$T/up.load" -D "$T/d" --run-once --skip-cleanup 1
	[ "$status" -eq 0 ]
	# RANDOMSTRING's '/' made a two-level path: a/c, a/d, b/c or b/d
	f=$(cd "$T/d" && echo clients/client0/[ab]/[cd]/data)
	[ -f "$T/d/$f" ]
	[ -d "$T/d/clients/client0/sub/x" ] || [ -d "$T/d/clients/client0/sub/y" ]
	# WRITEPATTERN <text>: the text and its newline, repeated from the start
	printf 'The quick brown fox\n%.0s' 1 2 3 4 5 > "$T/expected"
	cmp "$T/expected" "$T/d/$f"
	[ "$(stat -c %s "$T/d/$f")" -eq 100 ]
}

@test "upstream loadfile features run on the null backend and check" {
	upstream_features
	run_dbench -B null -c "$T/up.load" --run-once 3
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations 39 "*" 0 mismatches"* ]]
	run_dbench --check-loadfile -c "$T/up.load"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Backend fileio: every operation is supported"* ]]
	[[ "$output" == *"sha256 $(sha256sum "$T/up.load" | cut -c1-64)"* ]]
}

@test "--check-loadfile needs no NPROCS; a run still does" {
	run_dbench --check-loadfile -c "$DBENCH_SRCDIR/loadfiles/client.txt"
	[ "$status" -eq 0 ]
	[[ "$output" == *"One pass of client 0"* ]]
	run_dbench -c "$DBENCH_SRCDIR/loadfiles/client.txt" -D "$T/d"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"missing NPROCS"* ]]
}

@test "a RANDOMSTRING that climbs out of its directory stops the client, nothing outside is touched" {
	mkdir "$T/d/clients"
	loadfile esc.load <<'L'
RANDOMSTRING 1 "../../[x]"
Mkdir "\clients\client1" *
Mkdir "\clients\client1\$1" *
L
	run_dbench -c "$T/esc.load" -D "$T/d" --run-once 1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"esc.load:3: Mkdir: after RANDOMSTRING expansion the path leaves the directory it names before the random string"* ]]
	[ ! -e "$T/d/x" ] && [ ! -e "$T/x" ]
	loadfile root.load <<'L'
RANDOMSTRING 1 "/"
Deltree "\$1" *
L
	touch "$T/d/keep"
	run_dbench -c "$T/root.load" -D "$T/d" --run-once 1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"root.load:2: Deltree: after RANDOMSTRING expansion"* ]]
	[ -e "$T/d/keep" ]
	loadfile colon.load <<'L'
RANDOMSTRING 1 "a[:b]"
L
	run_dbench --check-loadfile -c "$T/colon.load"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/colon.load:1: RANDOMSTRING pattern may not contain ':' or control characters" ]
}

@test "a wrong field count says how many arguments it got" {
	printf 'READ */0x1000%%0x40000000 4096 0x00000000\n' > "$T/block.load"
	run_dbench --check-loadfile -c "$T/block.load"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/block.load:1: READ takes 3 arguments and a status, got 2 arguments and a status" ]
}
