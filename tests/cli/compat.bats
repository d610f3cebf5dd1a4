#!/usr/bin/env bats
# compat.bats - drop-in compatibility with dbench 4.0/5.0: what upstream's
# loadfiles use (our own loadfiles, written for these tests), upstream's
# option meanings, and the output harnesses scrape.

load helpers

setup() { make_tmp; }
teardown() {
	local rc=0
	drop_ns || rc=1
	remove_tmp
	return "$rc"
}

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

@test "a wrong field count says how many arguments it got; upstream's block READ line loads" {
	printf 'ReadX 1 0 4096 NT_STATUS_OK\n' > "$T/short.load"
	run_dbench --check-loadfile -c "$T/short.load"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/short.load:1: ReadX takes 4 arguments and a status, got 3 arguments and a status" ]
	# the line of upstream's block1G4krr.load that once read "got 3 fields"
	printf 'READ */0x1000%%0x40000000 4096 0x00000000\n' > "$T/block.load"
	run_dbench --check-loadfile -B null -c "$T/block.load"
	echo "$output $stderr"
	[ "$status" -eq 0 ]
}

# ---- upstream's option meanings, each by its effect on the system calls

# strace_dbench OUT ARGS...: run dbench under strace (all processes).
strace_dbench() {
	local out=$1
	shift
	command -v strace >/dev/null || skip "strace is not installed"
	# LeakSanitizer cannot run under ptrace (./build.sh sanitize)
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$out" -e trace=mkdir,mkdirat,rmdir,renameat,renameat2,rename,unlink,unlinkat,openat,openat2,pwrite64,pread64,ftruncate,fstat,newfstatat,statx,fsync,fdatasync,setsockopt,fsetxattr,lsetxattr \
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
	[ "$(count "$T/with" '(rmdir|unlinkat)' missing)" -eq 0 ]
	[ "$(count "$T/with" 'rename(at2?)?' gone)" -eq 0 ]
	# CREATE of a file that exists opens it (4.0 turns it into an OPEN)
	[ "$(count "$T/with" 'openat2?' 'file.*O_CREAT')" -eq 0 ]
	[ "$(cat "$T/d/clients/client0/file")" = data ]
	# without the option each of them is tried (and the CREATE collides)
	strace_dbench "$T/without" -c "$T/sc.load" -D "$T/d" --run-once --skip-cleanup --no-resolve --allow-mismatch 1
	[ "$(count "$T/without" 'mkdir(at)?' have)" -eq 1 ]
	[ "$(count "$T/without" '(rmdir|unlinkat)' missing)" -eq 1 ]
	[ "$(count "$T/without" 'rename(at2?)?' gone)" -eq 1 ]
	[ "$(count "$T/without" 'openat2?' 'file.*O_CREAT')" -eq 1 ]
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

@test "--trunc-io N: as dbench 5.0, block READ/WRITE are cut to N; fileio's are not, and one line says so" {
	truncate -s 1M "$T/disk.img"
	# (O_DIRECT: whole blocks of 4096)
	loadfile blk.load <<'L'
WRITE 0 65536 NT_STATUS_OK
READ 65536 16384 NT_STATUS_OK
READ 0 4096 NT_STATUS_OK
L
	strace_dbench "$T/blk" -B block --block="$T/disk.img" -c "$T/blk.load" --run-once --trunc-io 8192 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *" 0 mismatches"* ]]
	[ "$(count "$T/blk" pwrite64 ', 8192, 0)')" -eq 1 ]
	[ "$(count "$T/blk" pread64 ', 8192, 65536)')" -eq 1 ]
	[ "$(count "$T/blk" pread64 ', 4096, 0)')" -eq 1 ]
	! grep -Eq 'p(read|write)64\(.*, (65536|16384), ' "$T/blk" || false
	# the bytes counted are the bytes moved
	run_dbench -B null -c "$T/blk.load" --check-loadfile --trunc-io 8192
	[[ "$output" == *"Bytes read:     12288 "* ]]
	[[ "$output" == *"Bytes written:  8192 "* ]]
	# fileio: 5.0 ignores the option there; so does this dbench, and says so
	loadfile ti.load <<'L'
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
Close 1 NT_STATUS_OK
L
	mkdir -p "$T/d/clients/client0"
	strace_dbench "$T/tr" -c "$T/ti.load" -D "$T/d" --run-once --trunc-io 100 1
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[ "$stderr" = "dbench: --trunc-io has no effect on the fileio backend (as in dbench 5.0, it cuts only the READ3/WRITE3 of the nfs backend and the READ/WRITE of the block backend)" ]
	[ "$(count "$T/tr" pwrite64 ', 65536, 0)')" -eq 1 ]
	[ "$(count "$T/tr" pread64 ', 65536, 0)')" -eq 1 ]
	run_dbench -c "$T/ti.load" -D "$T/d" --trunc-io 0 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--trunc-io: 0 is out of range"* ]]
	# the help says what it does, not "as dbench 4.0" (4.0 has no such option)
	run "$DBENCH" --help
	help=$(tr -s ' \n' '  ' <<<"$output")
	[[ "$help" == *"--trunc-io=N as dbench 5.0: the nfs backend's READ3 and WRITE3"* ]]
	[[ "$help" != *"4.0: no read or write moves"* ]]
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

# ---- the classic tbench wire, both ways, with Debian's dbench 4.0 package

DEB_TBENCH=/usr/bin/tbench
DEB_TBENCH_SRV=/usr/bin/tbench_srv
OUR_TBENCH_SRV=$(dirname "$DBENCH")/tbench_srv

# A private network namespace: the classic tbench and tbench_srv always use
# port 7003, which must not meet another test's.  Sets NS.
make_ns() {
	[ -x "$DEB_TBENCH" ] && [ -x "$DEB_TBENCH_SRV" ] || skip "Debian's dbench package is not installed"
	[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
	NS="dbench-compat-$$-${BATS_TEST_NUMBER}"
	ip netns add "$NS" 2>"$T/ns.err" || skip "no network namespaces here: $(cat "$T/ns.err")"
	ip -n "$NS" link set lo up
}

# ns_emptied: SIGKILL what is left in $NS; true once nothing is.
ns_emptied() {
	local pids
	pids=$(ip netns pids "$NS" 2>/dev/null)
	[ -z "$pids" ] && return 0
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $pids 2>/dev/null
	return 1
}

drop_ns() {
	local rc=0
	[ -n "${NS:-}" ] || return 0
	wait_for -t 5 "the processes in namespace $NS to end" ns_emptied || rc=1
	ip netns del "$NS" 2>/dev/null || true
	return "$rc"
}

# listens_on PORT: something listens on PORT in $NS.
listens_on() {
	ip netns exec "$NS" ss -ltn 2>/dev/null | grep -q ":$1 "
}

# wait_port PORT: until something in $NS listens on PORT (up to 60 s).
wait_port() {
	wait_for -t 60 "something in $NS to listen on port $1" listens_on "$1"
}

# A short loadfile of every netbench op both tbench versions know.
classic_loadfile() {
	loadfile small.load <<'L'
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 4096 4096 NT_STATUS_OK
QUERY_FILE_INFORMATION 1 258 NT_STATUS_OK
SET_FILE_INFORMATION 1 1004 NT_STATUS_OK
LockX 1 0 1 NT_STATUS_OK
UnlockX 1 0 1 NT_STATUS_OK
Flush 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\f" 1004 NT_STATUS_OK
FIND_FIRST "\clients\client1\*" 260 1366 3 NT_STATUS_OK
QUERY_FS_INFORMATION 259 NT_STATUS_OK
Rename "\clients\client1\f" "\clients\client1\g" NT_STATUS_OK
Unlink "\clients\client1\g" 0x6 NT_STATUS_OK
Mkdir "\clients\client1\d" NT_STATUS_OK
Rmdir "\clients\client1\d" NT_STATUS_OK
L
}

# classic_ends N: N connections' ends logged with the wire they spoke
classic_ends() {
	[ "$(grep -c "disconnected.*(classic wire)" "$T/srv.log")" -ge "$1" ]
}

@test "Debian's tbench 4.0 runs against our tbench_srv (classic wire on the same port)" {
	sanitizer_pass_skip "tbench_srv's classic-wire path runs in the no-server and --wire classic tests; the client is Debian's"
	classic_loadfile
	# a process per connection, and connections multiplexed by workers
	for mode in "" "--workers 2"; do
		make_ns
		# shellcheck disable=SC2086 # options, a word each
		ip netns exec "$NS" "$OUR_TBENCH_SRV" -v -b 127.0.0.1 --pid-file "$T/srv.pid" $mode \
			2>"$T/srv.log" &
		wait_port 7003
		wait_for -t 5 "tbench_srv's pid file" test -s "$T/srv.pid"
		run timeout 60 ip netns exec "$NS" "$DEB_TBENCH" -t 3 -c "$T/small.load" 2 127.0.0.1
		# each connection's end is logged with the wire it spoke
		wait_for "the server to log both connections' ends" classic_ends 2
		drop_ns
		echo "mode '$mode': $output"
		cat "$T/srv.log"
		[ "$status" -eq 0 ]
		[[ "$output" == *"Throughput "*" MB/sec"*"2 procs"* ]]
		! grep -q "protocol error" "$T/srv.log"
		rm -f "$T/srv.pid"	# the server was killed with its namespace
	done
}

@test "tbench and -B sockio without --wire run against Debian's tbench_srv 4.0: the classic wire is detected, one line says so" {
	make_ns
	classic_loadfile
	ip netns exec "$NS" "$DEB_TBENCH_SRV" >"$T/srv.log" 2>&1 &
	wait_port 7003
	# tbench N with no server: localhost, as 4.0's tbench
	run --separate-stderr timeout 60 ip netns exec "$NS" "$TBENCH" -c "$T/small.load" -t 2 --warmup 0 2
	tb_status=$status tb_output=$output tb_stderr=$stderr
	run --separate-stderr timeout 60 ip netns exec "$NS" "$DBENCH" -B sockio --server 127.0.0.1 \
		-c "$T/small.load" --run-once 1
	sock_status=$status sock_output=$output sock_stderr=$stderr
	# --wire tbench still forces our wire: the old server drops it
	run --separate-stderr timeout 60 ip netns exec "$NS" "$TBENCH" --wire tbench -c "$T/small.load" \
		-t 2 1 127.0.0.1
	drop_ns
	echo "$tb_output $tb_stderr"
	[ "$tb_status" -eq 0 ]
	[[ "$tb_output" == *" 0 mismatches"* ]]
	[[ "$tb_output" == *$'\n'"Throughput "*" MB/sec  2 clients  2 procs  max_latency="* ]]
	[ "$tb_stderr" = "tbench: server localhost:7003 speaks the classic tbench wire of dbench 4.0/5.0 (it dropped this tbench's opening): using it, as --wire classic" ]
	echo "$sock_output $sock_stderr"
	[ "$sock_status" -eq 0 ]
	[[ "$sock_output" == *"Operations 16 "*" 0 mismatches"* ]]
	[ "$sock_stderr" = "dbench: server 127.0.0.1:7003 speaks the classic tbench wire of dbench 4.0/5.0 (it dropped this tbench's opening): using it, as --wire classic" ]
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "tbench: server 127.0.0.1:7003 dropped the connection at the first request (as a tbench_srv of dbench 4.0/5.0 does): for such a server use --wire classic, or no --wire" ]
}

@test "tbench N with no server uses localhost, as 4.0's: ours and Debian's tbench against our tbench_srv" {
	make_ns
	classic_loadfile
	ip netns exec "$NS" "$OUR_TBENCH_SRV" -v --pid-file "$T/srv.pid" 2>"$T/srv.log" &
	wait_port 7003
	run --separate-stderr timeout 60 ip netns exec "$NS" "$TBENCH" -c "$T/small.load" --run-once \
		--json "$T/r.json" 2
	ours_status=$status ours_output=$output ours_stderr=$stderr
	run timeout 60 ip netns exec "$NS" "$DEB_TBENCH" -t 2 -c "$T/small.load" 1
	drop_ns
	echo "$ours_output $ours_stderr"
	[ "$ours_status" -eq 0 ]
	[ -z "$ours_stderr" ]	# our wire: no notice
	[[ "$ours_output" == *"Operations 32 "*" 0 mismatches"* ]]
	[ "$(jq -r .environment.server "$T/r.json")" = localhost ]
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"Throughput "*" MB/sec  1 clients  1 procs  max_latency="* ]]
	grep -q "classic wire" "$T/srv.log"
}

@test "our tbench --wire classic against our tbench_srv; a bad --wire is one line" {
	. "$DBENCH_SRCDIR/tests/lib/tbench.bash"
	start_srv -b 127.0.0.1
	classic_loadfile
	run_dbench -B sockio --wire classic --server "127.0.0.1:$PORT" -c "$T/small.load" --run-once 2
	kill "$SRV_PID"
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations 32 "*" 0 mismatches"* ]]
	grep -q "classic wire" "$T/srv.log"
	run_dbench -B sockio --wire smb1 --server "127.0.0.1:$PORT" -c "$T/small.load" 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --wire: 'smb1' is not a wire format (tbench or classic)" ]
}

# ---- the output harnesses scrape, applied to our real output

@test "mmtests' scrape of the op table sees only op rows; LKP and PTS read the right numbers" {
	run_dbench -D "$T/d" -c "$DBENCH_SRCDIR/loadfiles/client.txt" -t 3 --warmup 1 2
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/out"
	# mmtests (shellpack extract for dbench4): every remaining line is "name count avg max"
	grep -A 99 Operation "$T/out" | sed -e '/-----/d' -e '/^$/d' -e '/Throughput/d' -e '/Operation/d' >"$T/rows"
	cat "$T/rows"
	# exactly the table's rows: from the line after the dashes to the blank line
	sed -n '/^ -----/,/^$/p' "$T/out" | sed -e '1d' -e '$d' >"$T/table"
	diff "$T/table" "$T/rows"
	! grep -Ev '^ [A-Za-z_]+ +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$' "$T/rows" || false
	# the rows are the op table's: their counts add up to the Operations line
	total=$(awk '{ s += $2 } END { print s }' "$T/rows")
	grep -q "^Operations $total in " "$T/out"
	# LKP: the last line's fields by position (dbench 4.0's line, no "(sync open)")
	run_dbench -D "$T/d" -c "$DBENCH_SRCDIR/loadfiles/client.txt" -t 2 --warmup 0 -s -S 2
	last=$(tail -1 <<<"$output")
	read -r word tput unit nclients w1 nprocs w2 maxlat ms <<<"$last"
	[ "$word $unit $w1 $w2 $ms" = "Throughput MB/sec clients procs ms" ]
	[ "$nclients $nprocs" = "2 2" ]
	[[ "$maxlat" =~ ^max_latency=[0-9]+\.[0-9]{3}$ ]]
	# PTS: the last "Throughput N MB/sec" line
	[ "$(grep -Eo 'Throughput [0-9.e+]+ MB/sec' <<<"$output" | tail -1)" = "Throughput $tput MB/sec" ]
}

@test "--machine-readable: upstream's five fields on @W@, @R@ and @C@; the last @C@ has the real seconds" {
	# -t 6: an @R@ line needs a progress tick in the execute phase, and under
	# ASan at load 25 the parent was once not scheduled from 1 s to 5 s
	# (a 2 s execute phase had none).  --warmup 2: a tick counts as warmup
	# until half a second after the warmup, so with --warmup 1 a first tick
	# that came 0.5 s late (ASan, load 14) printed no @W@ line
	run_dbench -D "$T/d" -c "$DBENCH_SRCDIR/loadfiles/client.txt" -t 6 --warmup 2 --machine-readable 2
	echo "$output"
	[ "$status" -eq 0 ]
	# dbench 4.0: "@%c@%d@%d@%.2f@%u@%.03f@" (active, lines, MB/sec, seconds, latency)
	five='^@[WRC]@[0-9]+@[0-9]+@[0-9]+\.[0-9]{2}@[0-9]+@[0-9]+\.[0-9]{3}@$'
	grep -q '^@W@' <<<"$output"
	grep -q '^@R@' <<<"$output"
	grep -q '^@C@' <<<"$output"
	! grep '^@' <<<"$output" | grep -Ev "$five" || false
	last=$(grep '^@C@' <<<"$output" | tail -1)
	secs=$(cut -d@ -f6 <<<"$last")
	[ "$secs" -ge 3 ]
	# and nothing else but the op rows and the final line
	! grep -Ev "$five"'|^:[A-Za-z_]+:[0-9]+:[0-9.]+:[0-9.]+:$|^;[0-9.e+]+;2;2;[0-9.]+;$' <<<"$output"
}

@test "the header and the JSON name the loadfile: path, operations per pass, sha256" {
	run_dbench -D "$T/d" -c "$DBENCH_SRCDIR/loadfiles/client.txt" -t 1 --warmup 0 --json "$T/r.json" 1
	[ "$status" -eq 0 ]
	sha=$(sha256sum "$DBENCH_SRCDIR/loadfiles/client.txt" | cut -c1-64)
	[[ "$output" == *$'\n'"Loadfile $DBENCH_SRCDIR/loadfiles/client.txt: 8020 operations per pass, sha256 $sha"$'\n'* ]]
	[ "$(jq -r .loadfile.sha256 "$T/r.json")" = "$sha" ]
	[ "$(jq -r .loadfile.ops_per_pass "$T/r.json")" = 8020 ]
	# a gzip'ed loadfile: the digest of its text
	gzip -c "$DBENCH_SRCDIR/loadfiles/client.txt" >"$T/c.gz"
	run_dbench -B null -c "$T/c.gz" --run-once --json "$T/z.json" 1
	[ "$status" -eq 0 ]
	[ "$(jq -r .loadfile.sha256 "$T/z.json")" = "$sha" ]
}

# ---- issue 24: what harnesses and habits still tripped on

HARNESS=("$PYTHON" "$DBENCH_SRCDIR/tests/cli/harness-parse.py")

# harness NAME [PART] < LOG: what that harness reads (tests/cli/harness-parse.py)
harness() {
	"${HARNESS[@]}" "$@"
}

DEB_DBENCH=/usr/bin/dbench

@test "mmtests' calibration: --machine-readable --show-execute-time prints the gormanm fork's @E@ lines, nothing human on stdout" {
	loadfile pass.load <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 4096 4096 NT_STATUS_OK
Sleep 200000
Close 1 NT_STATUS_OK
Unlink "\clients\client1\f" 0x6 NT_STATUS_OK
L
	# mmtests' calibration run (shellpack dbench-bench, 2016 to 2025)
	run_dbench --show-execute-time --run-once -D "$T/d" --loadfile "$T/pass.load" --machine-readable \
		-t 10000 3
	echo "$output"
	[ "$status" -eq 0 ]
	# every line on stdout is a machine line
	! grep -Ev '^@[WRC]@[0-9]+@[0-9]+@[0-9]+\.[0-9]{2}@[0-9]+@[0-9]+\.[0-9]{3}@$|^@E@[0-9]+@[0-9]+$|^:[A-Za-z_]+:[0-9]+:[0-9.]+:[0-9.]+:$|^;[0-9.e+]+;3;3;[0-9.]+;$' <<<"$output" || false
	# the fork's "@E@%d@%u": a line per client and pass, the client and the pass in ms
	[ "$(grep -c '^@E@' <<<"$output")" -eq 3 ]
	[ "$(grep '^@E@' <<<"$output" | cut -d@ -f3 | sort -n | tr '\n' ' ')" = "0 1 2 " ]
	grep '^@E@' <<<"$output" | cut -d@ -f4 | awk '$1 < 200 || $1 > 120000 { exit 1 }'
	# FACTOR=$(... | grep "^@E@" | cut -d '@' -f 4 | head -n 1): a pass sleeps 200 ms
	factor=$(harness mmtests calibrate <<<"$output" | tr -d '"')
	[ "$factor" -ge 200 ]
	[[ "$stderr" != *"completed in"* ]]
	# without --machine-readable: the fork's sentence, which mmtests greps
	run_dbench --show-execute-time --run-once -D "$T/d" -c "$T/pass.load" 2
	[ "$status" -eq 0 ]
	[ "$(grep -cE '^ +[01] completed in [0-9]+ ms at time [0-9]+ ms$' <<<"$output")" -eq 2 ]
	! grep -q '^@E@' <<<"$output" || false
	[ "$(harness mmtests loadfile <<<"$output" | jq length)" -eq 2 ]
}

@test "--stagger N: client process i starts i x 10 ms after the release, as the mmtests patch's option" {
	loadfile s.load <<'L'
Sleep 100000
QUERY_FS_INFORMATION 259 NT_STATUS_OK
L
	run_dbench -B null -c "$T/s.load" --run-once --show-execute-time --stagger 1 6
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'completed in' <<<"$output")" -eq 6 ]
	# "at time" counts from the release, "completed in" from the client's start:
	# client i ends no sooner than 10 i + 100 ms after the release, and its
	# pass starts 10 i ms after it
	grep 'completed in' <<<"$output" | awk '{ if ($8 < 10 * $1 + 99 || $8 - $4 < 10 * $1 - 1 || $8 - $4 > 10 * $1 + 1) { print "client " $1 ": " $0; bad = 1 } } END { exit bad }'
	# --stagger 0 is off: every client starts at the release
	run_dbench -B null -c "$T/s.load" --run-once --show-execute-time --stagger 0 3
	[ "$status" -eq 0 ]
	grep 'completed in' <<<"$output" | awk '{ if ($8 - $4 > 1) bad = 1 } END { exit bad }'
	run_dbench -B null -c "$T/s.load" --run-once --stagger yes 3
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --stagger: 'yes' is not a number (see dbench --help)" ]
}

@test "a Sleep at the end of the loadfile is part of the pass: the pass ends when it is over" {
	loadfile tail.load <<'L'
QUERY_FS_INFORMATION 259 NT_STATUS_OK
Sleep 150000
L
	run_dbench -B null -c "$T/tail.load" --passes 3 -t 60 --warmup 0 --show-execute-time 2
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'completed in' <<<"$output")" -eq 6 ]
	# each pass lasts the sleep: a client's k-th pass ends k sleeps after the release
	grep 'completed in' <<<"$output" | awk '{ k = ++n[$1] } $4 < 149 || $8 < 150 * k - 1 { bad = 1 } END { exit bad }'
	[[ "$output" == *"Operations 6 "* ]]
}

@test "the mismatch summary comes before the op table (4.0 prints its errors first): mmtests' op scrape gets only op rows" {
	loadfile mm.load <<'L'
NTCreateX "\clients\client1\nofile" 0x0 0x1 1 NT_STATUS_OK
QUERY_FS_INFORMATION 259 NT_STATUS_OK
L
	# mmtests keeps stdout and stderr in one log (&> dbench-N.log)
	run bash -c '"$0" -D "$1" -c "$2" -t 2 --warmup 0 2 2>&1' "$DBENCH" "$T/d" "$T/mm.load"
	echo "$output"
	[ "$status" -eq 1 ]
	summary=$(grep -n 'status mismatches in the measured window' <<<"$output" | cut -d: -f1)
	header=$(grep -n '^ Operation ' <<<"$output" | cut -d: -f1)
	[ -n "$summary" ] && [ -n "$header" ] && [ "$summary" -lt "$header" ]
	harness mmtests op <<<"$output" >"$T/ops.json"
	cat "$T/ops.json"
	[ "$(jq -r '[.[].metric] | sort | join(" ")' "$T/ops.json")" = "op-NTCreateX op-Qfsinfo" ]
	jq -r '.[].line' "$T/ops.json" | grep -Ev '^ [A-Za-z_]+ +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$' && return 1
	return 0
}

@test "--repeat: one line starts with Throughput, 4.0's, with the mean; the spread on a line LKP and PTS do not read" {
	small_loadfile
	run_dbench -B null -c "$T/small.txt" --passes 20 -R 20 --repeat 3 --json "$T/r.json" 1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^Throughpu' <<<"$output")" -eq 1 ]
	tail -1 <<<"$output" | grep -Eq '^Throughput [0-9.e+]+ MB/sec  1 clients  1 procs  max_latency=[0-9]+\.[0-9]{3} ms$'
	grep -Eq '^Mean of 3 runs: [0-9.e+]+ MB/sec ± [0-9.e+-]+ \(95% confidence interval\), CoV [0-9.]+%$' <<<"$output"
	mean=$(jq .summary.throughput_mb_per_sec.mean "$T/r.json")
	maxlat=$(jq '[.runs[].results.max_latency_ms] | max' "$T/r.json")
	harness lkp <<<"$output" >"$T/lkp.json"
	cat "$T/lkp.json"
	jq -e --argjson m "$mean" --argjson l "$maxlat" \
		'.lines == 1 and .clients == 1 and .procs == 1 and ((."throughput_MB/s" - $m) | fabs) < 0.006 and ((.max_latency - $l) | fabs) < 0.006' "$T/lkp.json"
	pts=$(harness pts <<<"$output")
	"$PYTHON" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(abs(a - b) > 1e-5 * b)' "$pts" "$mean"
}

# syncs_by_op TRACE: from an strace of -S runs, each directory sync
# (fsync, fdatasync) charged to the call before it in the same process,
# for the calls on the loadfile's directory (client0/d): "kind calls syncs".
syncs_by_op() {
	"$PYTHON" - "$1" <<'PY'
import re, sys
calls, syncs, last = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'(\d+) +(\w+)\((.*)', line)
    if not m:
        continue
    pid, name, rest = m.groups()
    if name in ('fsync', 'fdatasync'):
        if last.get(pid):
            syncs[last[pid]] = syncs.get(last[pid], 0) + 1
        last[pid] = None
        continue
    kind = {'unlink': 'unlink', 'unlinkat': 'unlink', 'rmdir': 'rmdir', 'rename': 'rename',
            'renameat': 'rename', 'renameat2': 'rename', 'mkdir': 'mkdir', 'mkdirat': 'mkdir'}.get(name)
    if name == 'unlinkat' and 'AT_REMOVEDIR' in rest:
        kind = 'rmdir'
    # a name relative to a descriptor strace -y shows (5</x/client0>, "d")
    # is the path it names (/x/client0/d)
    rest = re.sub(r'\d+<([^>]*)>, "([^"]*)"', r'"\1/\2"', rest)
    if name in ('openat', 'openat2') and 'O_CREAT' in rest:
        kind = 'create'
    if kind and 'client0/d' in rest:
        calls[kind] = calls.get(kind, 0) + 1
        last[pid] = kind
for kind in sorted(calls):
    print(kind, calls[kind], syncs.get(kind, 0))
PY
}

@test "-S syncs the directory after the ops 4.0's -S does, as often: strace side by side with Debian's dbench 4.0" {
	[ -x "$DEB_DBENCH" ] || skip "Debian's dbench package is not installed"
	command -v strace >/dev/null || skip "strace is not installed"
	# (a WriteX: 4.0's warmup waits for every client to move data)
	loadfile s.load <<'L'
Mkdir "\clients\client1\d" NT_STATUS_OK
NTCreateX "\clients\client1\d\f" 0x0 0x2 1 NT_STATUS_OK
WriteX 1 0 100 100 NT_STATUS_OK
Close 1 NT_STATUS_OK
Rename "\clients\client1\d\f" "\clients\client1\d\g" NT_STATUS_OK
Unlink "\clients\client1\d\g" 0x6 NT_STATUS_OK
Unlink "\clients\client1\d\nothere" 0x6 NT_STATUS_OBJECT_NAME_NOT_FOUND
Rmdir "\clients\client1\d" NT_STATUS_OK
L
	mkdir -p "$T/d4/clients/client0" "$T/d/clients/client0"
	run timeout 120 strace -f -qq -o "$T/s4" -e trace=fsync,fdatasync,unlink,unlinkat,rmdir,rename,renameat,renameat2,mkdir,mkdirat,openat \
		"$DEB_DBENCH" -S -D "$T/d4" -c "$T/s.load" -t 1 1
	[ "$status" -eq 0 ]
	# (-y: ours names paths relative to directories it holds open, as
	# unlinkat(5</.../client0/d>, "g", 0): strace shows each descriptor's path)
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -y -o "$T/s" -e trace=fsync,fdatasync,unlink,unlinkat,rmdir,rename,renameat,renameat2,mkdir,mkdirat,openat,openat2 \
		"$DBENCH" -S -D "$T/d" -c "$T/s.load" --passes 3 1
	[ "$status" -eq 0 ]
	syncs_by_op "$T/s4" >"$T/by4"
	syncs_by_op "$T/s" >"$T/by"
	echo "4.0:"; cat "$T/by4"; echo "ours:"; cat "$T/by"
	# 4.0: a sync after every Rename, Unlink (failed or not) and Rmdir, none
	# after Mkdir and creates (but for one call of its cleanup, which removes
	# what the pass the time limit cut left in d)
	awk '{ if ($1 == "mkdir" || $1 == "create") bad += $3 != 0 || $2 == 0; else bad += $2 - $3 > 1 || $3 > $2 || $3 == 0 } END { exit bad }' "$T/by4"
	[ "$(cut -d' ' -f1 "$T/by4" | tr '\n' ' ')" = "create mkdir rename rmdir unlink " ]
	# ours: the same, 4 a pass
	[ "$(cat "$T/by")" = "$(printf 'create 3 0\nmkdir 3 0\nrename 3 3\nrmdir 3 3\nunlink 6 6')" ]
	[ "$(grep -cE '^[0-9]+ +fdatasync\(' "$T/s")" -eq 12 ]
}

@test "op names: 4.0's by default; --loadfile-op-names prints the loadfile's (dbench 5.0's, mmtests'), in the table and the machine lines" {
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --run-once 1
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'" Operation      Count    AvgLat    MaxLat"$'\n'" ----------------------------------------"$'\n'* ]]
	harness mmtests op <<<"$output" | jq -r '.[].metric' >"$T/short"
	grep -qx 'op-Qpathinfo' "$T/short" && grep -qx 'op-Find' "$T/short"
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --run-once --loadfile-op-names --json "$T/r.json" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'" Operation                Count    AvgLat    MaxLat"$'\n'" --------------------------------------------------"$'\n'* ]]
	grep -Eq '^ QUERY_PATH_INFORMATION +[0-9]+ +[0-9.]+ +[0-9.]+$' <<<"$output"
	harness mmtests op <<<"$output" | jq -r '.[].metric' >"$T/long"
	for op in FIND_FIRST QUERY_PATH_INFORMATION QUERY_FILE_INFORMATION QUERY_FS_INFORMATION SET_FILE_INFORMATION NTCreateX ReadX; do
		grep -qx "op-$op" "$T/long" || { echo "no op-$op"; return 1; }
	done
	! grep -Eq 'op-(Qpathinfo|Qfileinfo|Qfsinfo|Sfileinfo|Find)$' "$T/long" || false
	[ "$(wc -l <"$T/long")" -eq "$(wc -l <"$T/short")" ]
	# the JSON keeps its names (dbench-compare compares by them)
	[ "$(jq -r '.results.operations[] | select(.loadfile_name == "FIND_FIRST") | .name' "$T/r.json")" = Find ]
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --run-once --loadfile-op-names --machine-readable 1
	grep -q '^:QUERY_PATH_INFORMATION:[0-9]*:' <<<"$output"
	! grep -q '^:Qpathinfo:' <<<"$output" || false
	run "$DBENCH" --help
	[[ "$output" == *"--loadfile-op-names"* ]]
}

@test "headers tell the truth: a REPEAT of 10,000,000 counted whole, --run-once keeps 4.0's sentence, errors in line order" {
	# our own loadfile of the shape of upstream's nfs_lock.load
	loadfile lock.load <<'L'
UNLOCK4 "/foo.dbench" 0 0 0x00000000
LOCK4 "/foo.dbench" +child 1 0x00000000
REPEAT 10000000
LOCK4 "/foo.dbench" +num_children 1 0x00000000
UNLOCK4 "/foo.dbench" 0 0 0x00000000
L
	run_dbench --check-loadfile -B null -c "$T/lock.load"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -Eq '^ LOCK4 +10000001 ' <<<"$output"
	grep -Eq '^ UNLOCK4 +2 ' <<<"$output"
	grep -Eq '^ total +10000003$' <<<"$output"
	[[ "$output" != *"the walk stopped"* ]]
	run_dbench -B null -c "$T/lock.load" -t 1 --warmup 0 1
	[[ "$output" == *$'\n'"Loadfile $T/lock.load: 10000003 operations per pass, sha256 "* ]]
	# a pass that random counts make too long to walk: "at least"
	loadfile long.load <<'L'
LOOP *%10+20000000
QUERY_FS_INFORMATION 259 NT_STATUS_OK
ENDLOOP
L
	run_dbench -B null -c "$T/long.load" -t 1 --warmup 0 1
	[[ "$output" == *$'\n'"Loadfile $T/long.load: at least "*" operations per pass, sha256 "* ]]
	# --run-once: 4.0's sentence (scripts match "Running for N seconds"), then the passes
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --run-once 1
	[[ "$output" == *$'\n'"Running for 600 seconds with load '$DBENCH_SRCDIR/loadfiles/client.txt' and minimum warmup 0 secs, 1 pass per client"$'\n'* ]]
	run_dbench -B null -c "$DBENCH_SRCDIR/loadfiles/client.txt" --passes 2 -t 50 1
	grep -Eq '^Running for 50 seconds with load .* and minimum warmup 0 secs, 2 passes per client$' <<<"$output"
	# the time limit ends fixed work too (as 5.0's --run-once), and says so
	run_dbench -B null -c "$T/lock.load" --run-once -t 1 1
	[ "$status" -eq 0 ]
	[ "$stderr" = "dbench: the time limit (-t 1) ended the run before 1 of 1 clients made their 1 pass" ]
	# --check-loadfile: errors in line order
	printf 'LOOP 3\nClose 1 NT_STATUS_OK\nBogusOp 1\n' >"$T/bad.load"
	run_dbench --check-loadfile -c "$T/bad.load"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$(printf '%s\n' "$T/bad.load:1: LOOP without ENDLOOP" "$T/bad.load:3: unknown operation 'BogusOp'")" ]
	printf 'Close 1 NT_STATUS_OK\nREAD3 "/x" 0 10 NFS3_OK\nLOCK4 "/x" 0 10 0x0\nGETATTR3 "/x" NFS3_OK\n' >"$T/nfs.load"
	run_dbench --check-loadfile -c "$T/nfs.load"
	[ "$status" -eq 2 ]
	[ "$(cut -d: -f2 <<<"$stderr" | tr '\n' ' ')" = "2 3 4 " ]
}

@test "each harness reads the same kind of figures from our output as from Debian's dbench 4.0's: mmtests, LKP, PTS side by side" {
	sanitizer_pass_skip "our output comes from the C code the mmtests/LKP/PTS scrape test runs; the rest is Debian's dbench and Python"
	[ -x "$DEB_DBENCH" ] || skip "Debian's dbench package is not installed"
	mkdir "$T/d4"
	for who in 4.0 ours; do
		if [ "$who" = 4.0 ]; then
			timeout 120 "$DEB_DBENCH" -D "$T/d4" -c "$DBENCH_SRCDIR/loadfiles/client.txt" -t 3 2 >"$T/log-$who" 2>&1
		else
			timeout 120 "$DBENCH" -D "$T/d" -c "$DBENCH_SRCDIR/loadfiles/client.txt" -t 3 2 >"$T/log-$who" 2>&1
		fi
		harness mmtests op <"$T/log-$who" >"$T/op-$who"
		harness mmtests tput <"$T/log-$who" >"$T/tput-$who"
		harness lkp <"$T/log-$who" >"$T/lkp-$who"
		harness pts <"$T/log-$who" >"$T/pts-$who"
		echo "$who: mmtests $(jq length "$T/op-$who") op rows, $(jq length "$T/tput-$who") tput rows (last $(jq -r '.[-1].value' "$T/tput-$who") MB/sec); LKP $(cat "$T/lkp-$who"); PTS $(cat "$T/pts-$who")"
		# every op row is an op: name, count, average, max
		jq -r '.[].line' "$T/op-$who" | grep -Ev '^ [A-Za-z_]+ +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$' && return 1
		jq -e '.clients == 2 and .procs == 2 and .lines == 1 and ."throughput_MB/s" > 0 and .max_latency > 0' "$T/lkp-$who"
		jq -e --slurpfile p "$T/pts-$who" '((."throughput_MB/s" - $p[0]) | fabs) < 0.01' "$T/lkp-$who"
		jq -e 'length > 0 and all(.[]; .value | test("^[0-9]+\\.[0-9]{2}$"))' "$T/tput-$who"
	done
	# the same op rows under the same names
	[ "$(jq -r '[.[].metric] | sort | join(" ")' "$T/op-ours")" = "$(jq -r '[.[].metric] | sort | join(" ")' "$T/op-4.0")" ]
}
