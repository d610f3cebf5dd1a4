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
		strace -f -qq -o "$out" -e trace=mkdir,mkdirat,rmdir,renameat,renameat2,rename,openat,pwrite64,pread64,ftruncate,fstat,newfstatat,statx,setsockopt,fsetxattr,lsetxattr \
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

# ---- the classic tbench wire, both ways, with Debian's dbench 4.0 package

DEB_TBENCH=/usr/bin/tbench
DEB_TBENCH_SRV=/usr/bin/tbench_srv

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

# listens_7003: something listens on port 7003 in $NS.
listens_7003() {
	ip netns exec "$NS" ss -ltn 2>/dev/null | grep -q ':7003 '
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

@test "Debian's tbench 4.0 runs against our tbench_srv (classic wire on the same port)" {
	make_ns
	classic_loadfile
	ip netns exec "$NS" "$DBENCH_BUILDDIR/src/tbench_srv" -v -b 127.0.0.1 --pid-file "$T/srv.pid" \
		2>"$T/srv.log" &
	wait_for -t 5 "tbench_srv's pid file" test -s "$T/srv.pid"
	run timeout 60 ip netns exec "$NS" "$DEB_TBENCH" -t 3 -c "$T/small.load" 2 127.0.0.1
	# each connection's process logs its end (the wire it spoke), then exits
	wait_for "the server's connection processes to end" ! pgrep -P "$(cat "$T/srv.pid")" >/dev/null
	drop_ns
	echo "$output"
	cat "$T/srv.log"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Throughput "*" MB/sec"*"2 procs"* ]]
	grep -q "classic wire" "$T/srv.log"
	! grep -q "protocol error" "$T/srv.log"
}

@test "tbench --wire classic runs against Debian's tbench_srv 4.0; our wire names --wire classic" {
	make_ns
	classic_loadfile
	ip netns exec "$NS" "$DEB_TBENCH_SRV" >"$T/srv.log" 2>&1 &
	wait_for -t 5 "Debian's tbench_srv to listen on port 7003" listens_7003
	run --separate-stderr timeout 60 ip netns exec "$NS" "$TBENCH" --wire classic -c "$T/small.load" \
		-t 2 --warmup 0 2 127.0.0.1
	first_status=$status first_output=$output
	run --separate-stderr timeout 60 ip netns exec "$NS" "$TBENCH" -c "$T/small.load" -t 2 1 127.0.0.1
	drop_ns
	echo "$first_output"
	[ "$first_status" -eq 0 ]
	[[ "$first_output" == *" 0 mismatches"* ]]
	[[ "$first_output" == *"Throughput "*" MB/sec  2 clients  2 procs"* ]]
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "tbench: server 127.0.0.1:7003 dropped the connection at the first request (as a tbench_srv of dbench 4.0/5.0 does): for such a server use --wire classic" ]
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
	[ "$(jq -r .loadfile.sha256 "$T/z.json")" = "$sha" ]
}
