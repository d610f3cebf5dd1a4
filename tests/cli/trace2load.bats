#!/usr/bin/env bats
# trace2load.bats - tests of dbench-trace2load, the capture-to-loadfile tool.
#
# Two kinds.  Fixed JSON (tests/cli/trace2load-data) fed through a stand-in
# for tshark pins the conversion down line by line, and broken input checks
# that nothing crashes.  Real captures check the whole path: a known
# workload runs against the suite's own ganesha (in its network namespace,
# where dumpcap captures too) or smbd (dumpcap on lo, filtered to its
# port), tshark dissects the capture, and the loadfile must hold every call
# of the workload in order with the status the server returned, and replay
# without a mismatch.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers

# One ganesha (with NLM) for the file's NFS tests: a start and a stop cost
# seconds, and those tests started seven.  Each test empties its export.
# The sanitizer pass skips every test that captures (their time is dumpcap's
# and tshark's, each names where its C paths run there): no server.
setup_file() {
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	if [ -n "${DBENCH_SANITIZER_PASS:-}" ]; then
		export NFS_FILE_SKIP="sanitizer pass: no test here uses the NFS server"
		return 0
	fi
	NFS_ENABLE_NLM=1 nfs_file_start
}

teardown_file() {
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	nfs_stop
}

setup() {
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	T2L=${T2L:-$(dirname "$DBENCH")/../tools/dbench-trace2load}
	DATA=$DBENCH_SRCDIR/tests/cli/trace2load-data
	CAP_PID=
	CAP_FILE=
	CAP_PREFIX=()
	make_tmp
	# a copy that is surely executable (a source tree may be read-only)
	FAKE=$T/fake-tshark
	cp "$DBENCH_SRCDIR/tests/cli/trace2load-fake-tshark.sh" "$FAKE"
	chmod +x "$FAKE"
	nfs_export_clear
}

teardown() {
	cap_stop
	smbd_stop
	remove_tmp
}

# ---- helpers ----

# cap_start FILE FILTER [PREFIX...]: run dumpcap (under PREFIX, e.g. nsenter
# into the NFS namespace) on lo, capturing FILTER or the markers, into FILE;
# return once a marker is in the file: the capture is live.
cap_start() {
	local file=$1 filter=$2

	shift 2
	CAP_FILE=$file
	CAP_PREFIX=("$@")
	"$@" dumpcap -q -B 64 -i lo -f "($filter) or udp port 9" -w "$file" </dev/null >"$file.log" 2>&1 3>&- &
	CAP_PID=$!
	cap_mark start
}

# cap_mark NAME: send UDP datagrams "dbench-trace2load-NAME" to the discard
# port until one is in the capture file (up to 60 s: a loaded machine
# starts dumpcap slowly).  dumpcap writes packets in blocks, late; once the
# marker is in the file, so is everything sent before it.
cap_mark() {
	local text="dbench-trace2load-$1"

	if ! wait_for -q -t 60 "the marker in the capture" cap_marked "$text"; then
		echo "the marker $text did not reach $CAP_FILE within $WAIT_FOR_WAITED: $(cat "$CAP_FILE.log")" >&2
		return 1
	fi
	if ! srv_alive "$CAP_PID"; then
		echo "dumpcap exited: $(cat "$CAP_FILE.log")" >&2
		return 1
	fi
}

# cap_marked TEXT: send TEXT to the discard port; true once it is in the
# capture file, or dumpcap has exited (cap_mark tells which).
cap_marked() {
	srv_alive "$CAP_PID" || return 0
	"${CAP_PREFIX[@]}" bash -c 'printf %s "$1" >/dev/udp/127.0.0.1/9' - "$1" 2>/dev/null || true
	grep -q -a -F "$1" "$CAP_FILE" 2>/dev/null
}

# cap_stop: wait until the capture holds all that was sent, then stop our
# dumpcap (SIGINT: it finishes the file and exits).
cap_stop() {
	[ -n "${CAP_PID:-}" ] || return 0
	cap_mark end || true
	kill -INT "$CAP_PID" 2>/dev/null || true
	srv_wait_gone 10 "$CAP_PID" || kill -KILL "$CAP_PID" 2>/dev/null || true
	CAP_PID=
}

# pcapng_blocks FILE: "offset type length" of each block of a pcapng file
# (6: a packet); fails on a block shorter than 12 bytes or cut short.  (One
# process for the walk: a shell loop of two od's a block took 90 s for 117
# blocks under bats, whose DEBUG trap runs for every command of a test.)
pcapng_blocks() {
	"$PYTHON" - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
off = 0
while off < len(data):
    if off + 8 > len(data):
        sys.exit(1)
    kind, length = struct.unpack_from("=II", data, off)
    if length < 12:
        sys.exit(1)
    print(off, kind, length)
    off += length
PY
}

need_capture_tools() {
	local missing

	missing=$(srv_missing dumpcap tshark editcap)
	[ -z "$missing" ] || skip "$missing is not installed"
	[ "$(id -u)" = 0 ] || skip "capturing needs root"
}

# The operation lines of a loadfile (no comments, no prologue).
ops_of() {
	grep -v '^#' "$1" | grep -v -e ' Deltree "' -e ' MKDIR3 "/clients"' -e ' Mkdir "\\clients' \
		-e '^Deltree "' -e '^MKDIR3 "/clients"' -e '^Mkdir "\\clients' || true
}

# assert_in_order FILE REGEX...: each extended regex matches a line of FILE,
# each on a later line than the one before.
assert_in_order() {
	local file=$1 line=0 n

	shift
	for re in "$@"; do
		n=$(tail -n "+$((line + 1))" "$file" | grep -n -E -m 1 -- "$re" | cut -d: -f1)
		if [ -z "$n" ]; then
			echo "not found after line $line of $file: $re" >&2
			cat "$file" >&2
			return 1
		fi
		line=$((line + n))
	done
}

# backend_built NAME: can this dbench replay on backend NAME?  (-B is
# checked before --version: it fails when the backend cannot be had)
backend_built() {
	"$DBENCH" -B "$1" --version >/dev/null 2>&1
}

fake() {
	"$T2L" --tshark "$FAKE" "$@"
}

# ---- options and bad input ----

@test "trace2load: --help names every option, --version the version" {
	run "$T2L" --help
	[ "$status" -eq 0 ]
	for o in --output --client --server --root --zero-timestamps --header --no-header --gzip \
		--protocol --nfs-port --smb-port --max-waiting --tshark --quiet; do
		[[ "$output" == *"$o"* ]]
	done
	run "$T2L" --version
	[ "$status" -eq 0 ]
	[[ "$output" == dbench-trace2load* ]]
}

@test "trace2load: bad options are one line and exit status 2" {
	local cap=$DATA/nfs-synthetic.json

	for args in "" "$cap $cap" "--client 10.0.0.300 $cap" "--server nohost $cap" \
		"--nfs-port 0 $cap" "--smb-port 70000 $cap" "--protocol ftp $cap" "--nosuch $cap"; do
		# shellcheck disable=SC2086 # split on purpose
		run "$T2L" $args
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == dbench-trace2load:* ]]
	done
	run "$T2L" --root host:relative "$cap"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--root"* ]]
}

@test "trace2load: a missing, empty or directory capture is a clear error" {
	run "$T2L" "$T/nosuch.pcap"
	[ "$status" -eq 2 ]
	[[ "$output" == *"nosuch.pcap: No such file or directory"* ]]
	: >"$T/empty.pcap"
	run "$T2L" "$T/empty.pcap"
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty.pcap: is empty, not a capture file"* ]]
	run "$T2L" "$T"
	[ "$status" -eq 2 ]
	[[ "$output" == *"is a directory"* ]]
}

@test "trace2load: without tshark it says so and how to install it" {
	run env PATH=/nonexistent "$T2L" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"tshark is not installed"*"apt-get install tshark"* ]]
	run "$T2L" --tshark "$T/nosuch" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not an executable program"* ]]
}

@test "trace2load: a file that is not a capture: tshark's reason, status 1" {
	sanitizer_pass_skip "tshark's failure goes through the C path the fake-tshark failure test runs"
	command -v tshark >/dev/null || skip "tshark is not installed"
	printf 'this is a text file, not a packet capture\n%.0s' 1 2 3 4 5 >"$T/junk.pcap"
	run "$T2L" "$T/junk.pcap"
	[ "$status" -eq 1 ]
	[[ "$output" == *"junk.pcap: The file"*"isn't a capture file"* ]]
	[[ "$output" != *"Running as user"* ]]
}

@test "trace2load: broken JSON from tshark is an error naming the place, never a crash" {
	local deep

	deep=$(printf '[%.0s' $(seq 300))
	for bad in '[' '[{' '{"a":"b"}' '[{"a":"\q"}]' '[{"a":"\ud800x"}]' '[1]' '[{"a":[1,{"b":}]}]' \
		'[{"a":"b"} {"c":"d"}]' "[$deep" '[{"_source":{"layers":{"rpc":{"rpc.xid":"0x1"'; do
		printf '%s' "$bad" >"$T/bad.json"
		T2L_FAKE_JSON=$T/bad.json run fake "$DATA/nfs-synthetic.json"
		[ "$status" -eq 1 ]
		[[ "$output" == *"tshark's output is not valid JSON at byte"* ]]
	done
}

@test "trace2load: tshark failing or killed is reported with its message" {
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json T2L_FAKE_STATUS=2 \
		T2L_FAKE_STDERR='tshark: The file "x" appears to have been cut short in the middle of a packet.' \
		run fake -o "$T/out.load" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *'nfs-synthetic.json: The file "x" appears to have been cut short'* ]]
	# what came before the damage is kept, and says so
	grep -q '^0.150000 READ3 "/clients/client1/dir2/c" 0 100 NFS3_OK$' "$T/out.load"
	tail -n 1 "$T/out.load" | grep -q '^# ERROR: the capture could not be read to its end'
	T2L_FAKE_KILL=SEGV run fake "$DATA/nfs-synthetic.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"killed by signal"* ]]
}

@test "trace2load: nothing to convert is status 1 with a hint about ports" {
	printf '[]\n' >"$T/none.json"
	T2L_FAKE_JSON=$T/none.json run fake "$DATA/nfs-synthetic.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no NFS or SMB2 calls found"*"--nfs-port or --smb-port"* ]]
}

# ---- the conversion, on fixed input ----

@test "trace2load: NFSv3 conversion of fixed input matches, line for line" {
	cd "$DATA"
	T2L_FAKE_JSON=nfs-synthetic.json run fake -q -o "$T/nfs.load" nfs-synthetic.json
	[ "$status" -eq 0 ]
	diff -u nfs-synthetic.expected "$T/nfs.load"
	"$DBENCH" --check-loadfile -B null -c "$T/nfs.load" 1 >/dev/null
}

@test "trace2load: SMB2 conversion of fixed input matches, line for line" {
	cd "$DATA"
	T2L_FAKE_JSON=smb-synthetic.json run fake -q --root '\\srv\data\proj' -o "$T/smb.load" smb-synthetic.json
	[ "$status" -eq 0 ]
	diff -u smb-synthetic.expected "$T/smb.load"
	"$DBENCH" --check-loadfile -B null -c "$T/smb.load" 1 >/dev/null
}

@test "trace2load: the summary counts what was written, skipped and dropped" {
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json run fake -o "$T/nfs.load" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"NFSv3, 27 calls: 15 loadfile operations, 11 skipped as comments; dropped 1 NULL calls, 1 unmatched replies"* ]]
	[[ "$output" == *"2 on handles never named in the capture"* ]]
	[[ "$output" == *"root: /gpfs/nfsshare -> /clients/client1"* ]]
	T2L_FAKE_JSON=$DATA/smb-synthetic.json run fake -o "$T/smb.load" "$DATA/smb-synthetic.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 interim responses, 1 server notifications"* ]]
	[[ "$output" == *"1 SMB1 messages were not converted"* ]]
}

@test "trace2load: a reply that never comes holds --max-waiting calls, not the rest of the capture" {
	sanitizer_pass_skip "giving up a reply past --max-waiting is the next test's C path (--max-waiting 4); the memory bound is the first pass's (ASan's shadow and quarantine blur the RSS), 210,000 calls under ASan are not"
	# one GETATTR without a reply, then N answered at once, all within the
	# reply timeout: the memory must not grow with N once N passes the
	# default --max-waiting (65536); before, each call behind the lost one
	# was held (500,000: 252 MB).  ASan's quarantine would hold the freed
	# calls: made small.
	local n rss=() maxrss='import os, sys, resource
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(st), ru.ru_maxrss)'
	echo x >"$T/cap.pcap"
	for n in 70000 140000; do
		T2L_FAKE_CMD="$PYTHON $DBENCH_SRCDIR/tests/cli/trace2load-lost-reply.py $n" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1" \
			run "$PYTHON" -c "$maxrss" "$T2L" -q --tshark "$FAKE" -o "$T/$n.load" "$T/cap.pcap"
		echo "$n answered calls: exit status, max RSS in KiB: $output"
		[ "${output%% *}" = 0 ]
		rss+=("${output##* }")
		# the lost call is written first, as a comment; then every answered one
		[ "$(grep -c '^[0-9.]* GETATTR3 "/clients/client1" NFS3_OK$' "$T/$n.load")" -eq "$n" ]
		[ -z "$(grep -v '^#' "$T/$n.load" | grep -v ' GETATTR3 \| Deltree \| MKDIR3 ')" ]
		grep -q '^# 0.000200 skipped (frame 3): GETATTR3: no reply in the capture$' "$T/$n.load"
	done
	# twice the calls, the same memory (within 8 MiB; before: +35 MiB)
	[ "$((rss[1] - rss[0]))" -lt 8192 ]
}

@test "trace2load: --max-waiting gives up a reply after that many later calls" {
	echo x >"$T/cap.pcap"
	T2L_FAKE_CMD="$PYTHON $DBENCH_SRCDIR/tests/cli/trace2load-lost-reply.py 10" \
		run "$T2L" --max-waiting 4 --tshark "$FAKE" -o "$T/out.load" "$T/cap.pcap"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 without a reply"* ]]
	[ "$(grep -c ' GETATTR3 ' "$T/out.load")" -eq 10 ]
	for v in 0 x -1 100000001; do
		run "$T2L" --max-waiting "$v" "$T/cap.pcap"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"--max-waiting: '$v' is not a number of calls"* ]]
	done
}

@test "trace2load: a name with a newline stays inside its comment" {
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json run fake -q -o "$T/nfs.load" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 0 ]
	grep -q '^# .*the name "bad?name" cannot be written' "$T/nfs.load"
	! grep -q '^name' "$T/nfs.load"
}

@test "trace2load: --root, --zero-timestamps, --no-header, --gzip" {
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json run fake -q --root 10.0.0.21:/gpfs/nfsshare/dir2 \
		--zero-timestamps --no-header -z -o "$T/nfs.load.gz" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 0 ]
	gzip -t "$T/nfs.load.gz"
	gzip -dc "$T/nfs.load.gz" >"$T/nfs.load"
	! grep -q Deltree "$T/nfs.load" || false
	! grep -q '^[0-9]' "$T/nfs.load" || false
	grep -q '^# root: /gpfs/nfsshare/dir2 (on the server, --root) is /clients/client1$' "$T/nfs.load"
	grep -q '^WRITE3 "/clients/client1/a" 4096 512 2 NFS3_OK$' "$T/nfs.load"
	grep -q 'skipped.*: /gpfs/nfsshare is outside the root /gpfs/nfsshare/dir2' "$T/nfs.load"
	# dbench reads the gzip file as it is
	"$DBENCH" --check-loadfile -B null -c "$T/nfs.load.gz" 1 >/dev/null
}

@test "trace2load: with the prologue, calls on the root itself expect any status" {
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json run fake -q --root /gpfs/nfsshare/dir -o "$T/nfs.load" \
		"$DATA/nfs-synthetic.json"
	[ "$status" -eq 0 ]
	grep -q '^# LOOKUP3 of the root itself, which the prologue makes: any status (it was NFS3_OK)$' "$T/nfs.load"
	grep -q '^0.030000 LOOKUP3 "/clients/client1" \*$' "$T/nfs.load"
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json run fake -q --no-header --root /gpfs/nfsshare/dir \
		-o "$T/nfs.load" "$DATA/nfs-synthetic.json"
	[ "$status" -eq 0 ]
	grep -q '^0.030000 LOOKUP3 "/clients/client1" NFS3_OK$' "$T/nfs.load"
}

@test "trace2load: the tshark command line: ports, filter, no shell" {
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json T2L_FAKE_ARGS=$T/args run fake -q --nfs-port 12049 \
		--smb-port 4455 --client 10.0.0.5 --server 10.0.0.21 -o /dev/null "$DATA/nfs-synthetic.json"
	[ "$status" -eq 0 ]
	grep -qx -- "$DATA/nfs-synthetic.json" "$T/args"
	grep -qx 'tcp.port==12049,rpc' "$T/args"
	grep -qx 'udp.port==12049,rpc' "$T/args"
	grep -qx 'tcp.port==4455,nbss' "$T/args"
	grep -qx '(rpc || smb2 || smb || tcp.analysis.lost_segment) && (ip.addr == 10.0.0.5) && (ip.addr == 10.0.0.21)' "$T/args"
	# --client with another address keeps nothing
	T2L_FAKE_JSON=$DATA/nfs-synthetic.json run fake --client 10.0.0.6 -o /dev/null "$DATA/nfs-synthetic.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no NFS or SMB2 calls found for --client/--server"* ]]
}

@test "trace2load: NFS over UDP and IPv6; a reused xid after its reply is a new call" {
	T2L_FAKE_JSON=$DATA/nfs-udp-ipv6.json T2L_FAKE_ARGS=$T/args run fake --client fd00::5 \
		--zero-timestamps -o "$T/nfs.load" "$DATA/nfs-udp-ipv6.json"
	[ "$status" -eq 0 ]
	grep -qx '(rpc || smb2 || smb || tcp.analysis.lost_segment) && (ipv6.addr == fd00::5)' "$T/args"
	[ "$(grep -v '^#' "$T/nfs.load" | tail -n 3)" = 'LOOKUP3 "/clients/client1/x" NFS3_OK
READ3 "/clients/client1/x" 0 4096 NFS3_OK
READ3 "/clients/client1/x" 0 4096 NFS3_OK' ]
	grep -q '^# root: /srv/nfs (on the server) is /clients/client1$' "$T/nfs.load"
}

# ---- real captures ----

@test "trace2load: NFSv3 capture of nfs-cp, nfs-ls, nfs-cat: every call in order, right status" {
	sanitizer_pass_skip "the time is dumpcap's and tshark's; the NFS reader is the fixed-input tests' and fuzz_trace_json's, the nfs replay nfs.bats's"
	need_capture_tools
	nfs_shared_server
	printf 'dbench trace2load test\n' >"$T/in.txt"		# 23 bytes
	cap_start "$T/nfs.pcapng" "tcp port 2049 or tcp port 20048 or port 111" \
		nsenter -t "$NFS_NS_PID" -n
	nfs_ns_exec timeout 20 nfs-cp "$T/in.txt" "$NFS_URL/in.txt"
	nfs_ns_exec timeout 20 nfs-ls "$NFS_URL" >/dev/null
	nfs_ns_exec timeout 20 nfs-cat "$NFS_URL/in.txt" >/dev/null
	! nfs_ns_exec timeout 20 nfs-cat "$NFS_URL/missing.txt" 2>/dev/null || false
	cap_stop

	# ganesha's mountd is on 20048; the portmap exchange in the capture
	# tells tshark too, --nfs-port makes sure
	run "$T2L" --nfs-port 20048 -o "$T/nfs.load" "$T/nfs.pcapng"
	[ "$status" -eq 0 ]
	[[ "$output" == *"root: /export -> /clients/client1"* ]]
	[[ "$output" != *"never named"* ]]
	ops_of "$T/nfs.load" >"$T/ops"
	assert_in_order "$T/ops" \
		'^[0-9.]+ FSINFO3 NFS3_OK$' \
		'^[0-9.]+ GETATTR3 "/clients/client1" NFS3_OK$' \
		'^[0-9.]+ CREATE3 "/clients/client1/in.txt" 1 NFS3_OK$' \
		'^[0-9.]+ WRITE3 "/clients/client1/in.txt" 0 23 [0-2] NFS3_OK$' \
		'^[0-9.]+ READDIRPLUS3 "/clients/client1" NFS3_OK$' \
		'^[0-9.]+ LOOKUP3 "/clients/client1/in.txt" NFS3_OK$' \
		'^[0-9.]+ READ3 "/clients/client1/in.txt" 0 [0-9]+ NFS3_OK$' \
		'^[0-9.]+ LOOKUP3 "/clients/client1/missing.txt" NFS3ERR_NOENT$'
	grep -q '^# [0-9.]* skipped (frame [0-9]*): MOUNT v3 MNT /export (status 0)' "$T/nfs.load"
	"$DBENCH" --check-loadfile -B null -c "$T/nfs.load" 1 >/dev/null
	"$DBENCH" -B null --run-once -c "$T/nfs.load" 3 >/dev/null

	# the replay: the same loadfile against a fresh export
	backend_built nfs || skip "the nfs backend is not built"
	nfs_export_clear
	run nfs_ns_exec "$DBENCH" -B nfs --server 127.0.0.1 --export /export --run-once -c "$T/nfs.load" 3
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
}

@test "trace2load: round trip: dbench -B nfs captured, converted, replayed with no mismatch" {
	local load=$DBENCH_SRCDIR/loadfiles/nfs.txt

	sanitizer_pass_skip "the time is dumpcap's and tshark's; the NFS reader is the fixed-input tests', -B nfs on loadfiles/nfs.txt nfs.bats's"
	need_capture_tools
	backend_built nfs || skip "the nfs backend is not built"
	[ -f "$load" ] || skip "no loadfiles/nfs.txt"
	nfs_shared_server
	cap_start "$T/rt.pcapng" "tcp port 2049 or tcp port 20048 or port 111" nsenter -t "$NFS_NS_PID" -n
	run nfs_ns_exec "$DBENCH" -B nfs --server 127.0.0.1 --export /export --run-once -c "$load" 1
	[ "$status" -eq 0 ]
	cap_stop

	# dbench worked in /export/clients/client0: that is the root
	run "$T2L" --nfs-port 20048 --root /export/clients/client0 -o "$T/rt.load" "$T/rt.pcapng"
	[ "$status" -eq 0 ]
	[[ "$output" != *"gaps in TCP"* ]]
	[[ "$output" != *"never named"* ]]
	# every NFSv3 op of the loadfile, in the same order (the backend adds
	# LOOKUP3s where its handle cache is cold, and mounts once more)
	grep -v -e '^#' -e '^Deltree' -e '^MKDIR3 "/clients"' "$load" | grep -v '^$' |
		awk '{ print $1 }' | grep -v -e LOOKUP3 -e FSINFO3 >"$T/want"
	grep -v '^#' "$T/rt.load" | awk '{ print $2 }' |
		grep -v -e LOOKUP3 -e FSINFO3 -e Deltree | tail -n +3 >"$T/got"
	diff "$T/want" "$T/got"
	nfs_export_clear
	run nfs_ns_exec "$DBENCH" -B nfs --server 127.0.0.1 --export /export --run-once -c "$T/rt.load" 3
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
}

@test "trace2load: NLM locks captured become LOCK4, TEST4, UNLOCK4 and replay" {
	sanitizer_pass_skip "the time is dumpcap's and tshark's; NLM conversion is the fixed NFSv3 input's, --enable-nlm replay nfs.bats's"
	need_capture_tools
	backend_built nfs || skip "the nfs backend is not built"
	nfs_shared_server	# with NLM
	loadfile nlm.load <<'EOF'
Deltree "/clients/client1" NT_STATUS_OK
MKDIR3 "/clients" *
MKDIR3 "/clients/client1" *
CREATE3 "/clients/client1/f" 0 NFS3_OK
WRITE3 "/clients/client1/f" 0 4096 2 NFS3_OK
LOCK4 "/clients/client1/f" 0 100 NLM4_GRANTED
TEST4 "/clients/client1/f" 0 10 NLM4_GRANTED
UNLOCK4 "/clients/client1/f" 100 100 NLM4_GRANTED
UNLOCK4 "/clients/client1/f" 0 100 NLM4_GRANTED
EOF
	# NLM's port comes from the portmapper: everything in the namespace
	cap_start "$T/nlm.pcapng" "tcp or udp" nsenter -t "$NFS_NS_PID" -n
	run nfs_ns_exec "$DBENCH" -B nfs --server 127.0.0.1 --export /export --enable-nlm --run-once \
		-c "$T/nlm.load" 1
	[ "$status" -eq 0 ]
	cap_stop

	run "$T2L" --nfs-port 20048 --root /export/clients/client0 --zero-timestamps -o "$T/rt.load" "$T/nlm.pcapng"
	[ "$status" -eq 0 ]
	grep -v '^#' "$T/rt.load" | grep -E '^(LOCK4|TEST4|UNLOCK4) ' >"$T/got"
	diff - "$T/got" <<'EOF'
LOCK4 "/clients/client1/f" 0 100 NLM4_GRANTED
TEST4 "/clients/client1/f" 0 10 NLM4_GRANTED
UNLOCK4 "/clients/client1/f" 100 100 NLM4_GRANTED
UNLOCK4 "/clients/client1/f" 0 100 NLM4_GRANTED
EOF
	# NLM listens where the portmapper says, and the client calls from a
	# reserved port: on one that tshark knows as another protocol's (853,
	# DNS over TLS), the calls are still found, through the portmapper's
	# reply in the capture.
	nlmport=$(nfs_ns_exec rpcinfo -p 127.0.0.1 | awk '$1 == 100021 && $2 == 4 && $3 == "tcp" { print $4; exit }')
	[ -n "$nlmport" ]
	cport=$(tshark -r "$T/nlm.pcapng" -n -T fields -e tcp.srcport \
		-Y "tcp.dstport == $nlmport && tcp.flags.syn == 1 && tcp.flags.ack == 0" 2>/dev/null | head -1)
	[ -n "$cport" ]
	python3 "$DBENCH_SRCDIR/tests/cli/trace2load-repoint.py" "$T/nlm.pcapng" "$T/nlm853.pcapng" "$cport" 853
	run "$T2L" --nfs-port 20048 --root /export/clients/client0 --zero-timestamps -o "$T/rt853.load" "$T/nlm853.pcapng"
	[ "$status" -eq 0 ]
	grep -v '^#' "$T/rt853.load" | grep -E '^(LOCK4|TEST4|UNLOCK4) ' | diff "$T/got" -
	nfs_export_clear
	run nfs_ns_exec "$DBENCH" -B nfs --server 127.0.0.1 --export /export --enable-nlm --run-once \
		-c "$T/rt.load" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
}

@test "trace2load: a truncated or corrupt NFS capture is a clear error, not a crash" {
	sanitizer_pass_skip "the time is dumpcap's and tshark's; a tshark that fails mid-capture is the fake-tshark failure test's C path"
	need_capture_tools
	nfs_shared_server
	printf 'dbench trace2load test\n' >"$T/in.txt"
	cap_start "$T/nfs.pcapng" "tcp port 2049 or tcp port 20048 or port 111" \
		nsenter -t "$NFS_NS_PID" -n
	nfs_ns_exec timeout 20 nfs-cp "$T/in.txt" "$NFS_URL/in.txt"
	nfs_ns_exec timeout 20 nfs-cat "$NFS_URL/in.txt" >/dev/null
	cap_stop

	local cut block

	# cut inside the last packet
	pcapng_blocks "$T/nfs.pcapng" >"$T/blocks"
	cut=$(awk '$2 == 6 { last = $1 } END { print last + 20 }' "$T/blocks")
	head -c "$cut" "$T/nfs.pcapng" >"$T/cut.pcapng"
	run "$T2L" --nfs-port 20048 -o "$T/cut.load" "$T/cut.pcapng"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"cut.pcapng: The file"*"cut short in the middle of a packet"* ]]
	grep -q '^[0-9.]* CREATE3 "/clients/client1/in.txt" 1 NFS3_OK$' "$T/cut.load"
	tail -n 1 "$T/cut.load" | grep -q '^# ERROR: the capture could not be read to its end'
	"$DBENCH" --check-loadfile -B null -c "$T/cut.load" 1 >/dev/null

	# a packet block in the middle whose trailing length is wrong
	cp "$T/nfs.pcapng" "$T/bad.pcapng"
	block=$(awk '$2 == 6 { n++; off[n] = $1; len[n] = $3 } END { m = int(n / 2); print off[m] + len[m] - 4 }' "$T/blocks")
	printf '\1\2\3\4' | dd of="$T/bad.pcapng" bs=1 seek="$block" conv=notrunc 2>/dev/null
	run "$T2L" --nfs-port 20048 -o "$T/bad.load" "$T/bad.pcapng"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"bad.pcapng: The file"*"damaged or corrupt"* ]]
}

@test "trace2load: SMB2 capture of smbclient: every call in order, right status, replays" {
	sanitizer_pass_skip "the time is dumpcap's, tshark's and smbclient's; the SMB2 reader is the fixed-input tests' and fuzz_trace_json's, -B smb smb.bats's"
	need_capture_tools
	srv_start_or_skip smbd_start
	printf 'dbench trace2load smb test\n' >"$T/f.txt"		# 27 bytes
	cap_start "$T/smb.pcapng" "tcp port $SMBD_PORT"
	timeout 20 smbclient -s "$SMBD_CONF" -p "$SMBD_PORT" -N //127.0.0.1/share -c \
		"mkdir d; put $T/f.txt d\\f; get d\\f $T/g.txt; rename d\\f d\\g; get d\\nothere $T/x; rm d\\g; rmdir d" \
		>/dev/null 2>&1 || true
	cap_stop
	cmp "$T/f.txt" "$T/g.txt"

	run "$T2L" --smb-port "$SMBD_PORT" -o "$T/smb.load" "$T/smb.pcapng"
	[ "$status" -eq 0 ]
	[[ "$output" == *"root: share share -> \\clients\\client1"* ]]
	ops_of "$T/smb.load" >"$T/ops"
	assert_in_order "$T/ops" \
		'^[0-9.]+ NTCreateX "\\clients\\client1\\d" 0x1 2 [0-9]+ NT_STATUS_OK$' \
		'^[0-9.]+ NTCreateX "\\clients\\client1\\d\\f" 0x[0-9a-f]+ 5 [0-9]+ NT_STATUS_OK$' \
		'^[0-9.]+ WriteX [0-9]+ 0 27 27 NT_STATUS_OK$' \
		'^[0-9.]+ Close [0-9]+ NT_STATUS_OK$' \
		'^[0-9.]+ ReadX [0-9]+ 0 27 27 NT_STATUS_OK$' \
		'^[0-9.]+ Rename "\\clients\\client1\\d\\f" "\\clients\\client1\\d\\g" NT_STATUS_OK$' \
		'^[0-9.]+ NTCreateX "\\clients\\client1\\d\\nothere" 0x[0-9a-f]+ 1 [0-9]+ NT_STATUS_OBJECT_NAME_NOT_FOUND$' \
		'^[0-9.]+ NTCreateX "\\clients\\client1\\d\\g" 0x1[0-9a-f]{3} 1 [0-9]+ NT_STATUS_OK$' \
		'^[0-9.]+ Rmdir "\\clients\\client1\\d" NT_STATUS_OK$'
	grep -q '^# .*SMB2 TREE_CONNECT \\\\127.0.0.1\\share (NT_STATUS_OK)' "$T/smb.load"

	# replays on the local file system with no mismatch, twice in a row
	run "$DBENCH" -D "$T/d" --passes 2 -c "$T/smb.load" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	assert_empty_target

	# a capture that lost packets says so
	editcap "$T/smb.pcapng" "$T/gap.pcapng" 30-32
	run "$T2L" --smb-port "$SMBD_PORT" -o "$T/gap.load" "$T/gap.pcapng"
	[[ "$output" == *"gaps in TCP connections (segments the capture lost)"* ]]

	# and against a fresh smbd
	backend_built smb || skip "the smb backend is not built"
	smbd_stop
	srv_start_or_skip smbd_start
	run "$DBENCH" -B smb --smb-share "//127.0.0.1:$SMBD_PORT/share" --run-once -c "$T/smb.load" 3
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
}

@test "trace2load: round trip: dbench -B smb captured, converted, replayed with no mismatch" {
	sanitizer_pass_skip "the time is dumpcap's and tshark's; the SMB2 reader is the fixed-input tests', -B smb on loadfiles/smb.load smb.bats's"
	need_capture_tools
	backend_built smb || skip "the smb backend is not built"
	srv_start_or_skip smbd_start
	cap_start "$T/rt.pcapng" "tcp port $SMBD_PORT"
	run "$DBENCH" -B smb --smb-share "//127.0.0.1:$SMBD_PORT/share" --run-once \
		-c "$DBENCH_SRCDIR/loadfiles/smb.load" 1
	[ "$status" -eq 0 ]
	cap_stop

	run "$T2L" --smb-port "$SMBD_PORT" --zero-timestamps -o "$T/rt.load" "$T/rt.pcapng"
	[ "$status" -eq 0 ]
	[[ "$output" != *"gaps in TCP"* ]]
	# the loadfile's renames, deletes and listings came through
	grep -q '^Rename "\\clients\\client1\\' "$T/rt.load"
	grep -q '^Rmdir "\\clients\\client1\\' "$T/rt.load"
	grep -q '^FIND_FIRST "\\clients\\client1\\' "$T/rt.load"
	smbd_stop
	srv_start_or_skip smbd_start
	run "$DBENCH" -B smb --smb-share "//127.0.0.1:$SMBD_PORT/share" --run-once -c "$T/rt.load" 3
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	run "$DBENCH" -D "$T/d" --run-once -c "$T/rt.load" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
}
