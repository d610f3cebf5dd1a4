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

# ---- upstream's option meanings, each by its effect on the system calls

# strace_dbench OUT ARGS...: run dbench under strace (all processes).
strace_dbench() {
	local out=$1
	shift
	command -v strace >/dev/null || skip "strace is not installed"
	run --separate-stderr strace -f -qq -o "$out" -e trace=mkdir,mkdirat,rmdir,renameat,renameat2,rename,openat,pwrite64,pread64,ftruncate,fstat,newfstatat,statx,setsockopt,fsetxattr,lsetxattr \
		"$DBENCH" "$@"
}

# count FILE SYSCALL PATTERN: calls of SYSCALL whose line matches PATTERN.
count() {
	grep -E "^[0-9]+ +$2\(" "$1" | grep -c -- "$3" || true
}

@test "--stat-check: stat first, no pointless mkdir, rmdir, create or rename (as dbench 4.0)" {
	mkdir -p "$T/d/clients/client0/have"
	echo data > "$T/d/clients/client0/file"
	loadfile sc.load <<'L'
Mkdir "\clients\client1\have" NT_STATUS_OK
Rmdir "\clients\client1\missing" NT_STATUS_OBJECT_NAME_NOT_FOUND
NTCreateX "\clients\client1\file" 0x40 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
Rename "\clients\client1\gone" "\clients\client1\new" NT_STATUS_OBJECT_NAME_NOT_FOUND
L
	strace_dbench "$T/with" -c "$T/sc.load" -D "$T/d" --run-once --skip-cleanup --no-resolve --stat-check 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[ "$(count "$T/with" 'mkdir(at)?' have)" -eq 0 ]
	[ "$(count "$T/with" rmdir missing)" -eq 0 ]
	[ "$(count "$T/with" 'rename(at2?)?' gone)" -eq 0 ]
	# CREATE of a file that exists opens it (4.0 turns it into an OPEN)
	[ "$(count "$T/with" openat 'client0/file.*O_CREAT')" -eq 0 ]
	[ "$(cat "$T/d/clients/client0/file")" = data ]
	# without the option each of them is tried (and the CREATE collides)
	strace_dbench "$T/without" -c "$T/sc.load" -D "$T/d" --run-once --skip-cleanup --no-resolve --allow-mismatch 1
	[ "$(count "$T/without" 'mkdir(at)?' have)" -eq 1 ]
	[ "$(count "$T/without" rmdir missing)" -eq 1 ]
	[ "$(count "$T/without" 'rename(at2?)?' gone)" -eq 1 ]
	[[ "$stderr" == *"sc.load:3: NTCreateX expected NT_STATUS_OK, got NT_STATUS_OBJECT_NAME_COLLISION"* ]]
}

@test "--check-size: an fstat after each write (what --stat-check did before)" {
	loadfile cs.load <<'L'
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 4096 4096 NT_STATUS_OK
WriteX 1 4096 4096 4096 NT_STATUS_OK
WriteX 1 8192 4096 4096 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	mkdir -p "$T/d/clients/client0"
	strace_dbench "$T/with" -c "$T/cs.load" -D "$T/d" --run-once --check-size 1
	[ "$status" -eq 0 ]
	strace_dbench "$T/without" -c "$T/cs.load" -D "$T/d" --run-once 1
	[ "$status" -eq 0 ]
	# the call after each pwrite64 of the client: an fstat of that file
	after() { grep -E '^[0-9]+ +(pwrite64|fstat|newfstatat|statx)\(' "$1" | grep -A1 pwrite64 |
		grep -cE '(fstat\([0-9]+,|newfstatat\([0-9]+, ""|statx\([0-9]+, "")' || true; }
	[ "$(after "$T/with")" -eq 3 ]
	[ "$(after "$T/without")" -eq 0 ]
}

@test "--one-byte-write-fix: zero byte extends by ftruncate, a byte already there is not written (as dbench 4.0)" {
	loadfile ob.load <<'L'
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 65535 1 1 NT_STATUS_OK
WriteX 1 100 1 1 NT_STATUS_OK
WriteX 1 200 2 2 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	mkdir -p "$T/d/clients/client0"
	strace_dbench "$T/with" -c "$T/ob.load" -D "$T/d" --run-once --skip-cleanup --one-byte-write-fix 1
	[ "$status" -eq 0 ]
	[ "$(count "$T/with" ftruncate 65536)" -eq 1 ]
	[ "$(count "$T/with" pwrite64 ', 1, ')" -eq 0 ]
	[ "$(count "$T/with" pread64 ', 1, 100')" -eq 1 ]
	[ "$(count "$T/with" pwrite64 ', 2, 200')" -eq 1 ]
	[ "$(stat -c %s "$T/d/clients/client0/f")" -eq 65536 ]
	strace_dbench "$T/without" -c "$T/ob.load" -D "$T/d" --run-once 1
	[ "$(count "$T/without" pwrite64 ', 1, ')" -eq 2 ]
	[ "$(count "$T/without" ftruncate .)" -eq 0 ]
}

@test "--trunc-io N: no read or write moves more than N bytes" {
	loadfile ti.load <<'L'
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 10 10 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	mkdir -p "$T/d/clients/client0"
	strace_dbench "$T/tr" -c "$T/ti.load" -D "$T/d" --run-once --skip-cleanup --trunc-io 100 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[ "$(count "$T/tr" pwrite64 ', 100, 0)')" -eq 1 ]
	[ "$(count "$T/tr" pread64 ', 100, 0)')" -eq 1 ]
	[ "$(count "$T/tr" pread64 ', 10, 0)')" -eq 1 ]
	[ "$(stat -c %s "$T/d/clients/client0/f")" -eq 100 ]
	run_dbench -c "$T/ti.load" -D "$T/d" --trunc-io 0 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--trunc-io: 0 is out of range"* ]]
}

@test "-x writes Samba's user.DOSATTRIB (NDR xattr_DOSATTRIB version 5) on files and directories" {
	loadfile x.load <<'L'
Mkdir "\clients\client1\dir" NT_STATUS_OK
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	mkdir -p "$T/d/clients/client0"
	run_dbench -c "$T/x.load" -D "$T/d" --run-once --skip-cleanup -x 1
	[ "$status" -eq 0 ] || skip "no user xattrs here: $stderr"
	run "$PYTHON" -c '
import os, struct, sys, time
for path, attrib in ((sys.argv[1], 0x20), (sys.argv[2], 0x10)):
    blob = os.getxattr(path, "user.DOSATTRIB")
    assert len(blob) == 24, blob
    hexstr, pad1, version, level, pad, flags, attr, nttime = struct.unpack("<BBHHHIIQ", blob)
    assert (hexstr, version, level, flags, attr) == (0, 5, 5, 0x11, attrib), blob.hex()
    age = time.time() - (nttime / 1e7 - 11644473600)
    assert -5 < age < 600, age
print("ok")' "$T/d/clients/client0/f" "$T/d/clients/client0/dir"
	echo "$output"
	[ "$output" = ok ]
}

@test "--show-execute-time: mmtests' line per client and pass, sortable on field 8" {
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --passes 3 --show-execute-time 2
	[ "$status" -eq 0 ]
	lines=$(grep "completed in" <<<"$output")
	[ "$(wc -l <<<"$lines")" -eq 6 ]
	grep -Eqv '^ *[0-9]+ completed in [0-9]+ ms at time [0-9]+ ms$' <<<"$lines" && return 1
	[ "$(grep -c '^   0 completed' <<<"$lines")" -eq 3 ]
	[ "$(grep -c '^   1 completed' <<<"$lines")" -eq 3 ]
	# mmtests: grep "completed in" | sort -n -k 8
	sort -n -k 8 <<<"$lines" | awk '{ if ($8 < last) exit 1; last = $8 }'
}

@test "-T takes all of dbench 4.0's socket options and sets them" {
	. "$DBENCH_SRCDIR/tests/lib/tbench.bash"
	start_srv -b 127.0.0.1
	strace_dbench "$T/so" -B sockio --server "127.0.0.1:$PORT" -c "$DBENCH_SRCDIR/loadfiles/client.txt" \
		--run-once -T "TCP_NODELAY SO_KEEPALIVE SO_REUSEADDR SO_BROADCAST IPTOS_LOWDELAY IPTOS_THROUGHPUT SO_SNDBUF=65536 SO_RCVBUF=65536 SO_SNDLOWAT=1 SO_RCVLOWAT=1 SO_SNDTIMEO=30000 SO_RCVTIMEO=30000" 1
	kill "$SRV_PID"
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	for o in TCP_NODELAY SO_KEEPALIVE SO_REUSEADDR SO_BROADCAST IP_TOS SO_SNDBUF SO_RCVBUF SO_SNDLOWAT SO_RCVLOWAT SO_SNDTIMEO SO_RCVTIMEO; do
		grep -q "setsockopt(.*$o" "$T/so" || { echo "no $o"; return 1; }
	done
	grep -q 'IP_TOS, \[8\]' "$T/so"
	run_dbench -B sockio --server 127.0.0.1 -T IPTOS_LOWDELAY=1 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"socket option IPTOS_LOWDELAY takes no value"* ]]
}
