# helpers.bash - shared by the bats CLI tests.
#
# DBENCH is the dbench binary under test (make check sets it; by hand it
# defaults to build/src/dbench of this source tree); DBENCH_BUILDDIR is its
# build tree.

TOP=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
DBENCH=${DBENCH:-$TOP/build/src/dbench}
TBENCH=${TBENCH:-$(dirname "$DBENCH")/tbench}
DBENCH_BUILDDIR=${DBENCH_BUILDDIR:-$(dirname "$(dirname "$DBENCH")")}
DBENCH_SRCDIR=${DBENCH_SRCDIR:-$TOP}
CLASSIC=/usr/share/dbench/client.txt
# Debian's python3 (build.sh installs it with python3-jsonschema), else any.
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
# wait_for (tests/lib/wait.sh: a test waits for a condition, never a fixed
# time), srv_alive and the other process helpers.
# shellcheck source=tests/lib/srvutil.sh
. "$TOP/tests/lib/srvutil.sh"

# sanitizer_pass_skip WHY: skip this test (in its setup or body) in the
# suite's second pass under ASan+UBSan (build.sh sanitize sets
# DBENCH_SANITIZER_PASS=1).  That pass runs every C program and backend
# again, not every case: a test skipped there runs no C code of ours (a
# shell helper, a Python tool), or runs only C paths that a test kept in
# the pass runs too -- WHY names which.  The first pass runs every test,
# and so does `make check` in a sanitizer build by hand.
sanitizer_pass_skip() {
	[ -n "${DBENCH_SANITIZER_PASS:-}" ] || return 0
	skip "sanitizer pass: $1"
}

# sanitizer_pass_one FIRST [OTHER...]: the values a test loops over where
# the C code is the same path for each (a table lookup, another string
# passed on): all of them, but only FIRST in the sanitizer pass.
sanitizer_pass_one() {
	if [ -n "${DBENCH_SANITIZER_PASS:-}" ]; then
		echo "$1"
	else
		echo "$@"
	fi
}

# in_sanitizer_pass: true in the sanitizer pass.  A test's part that only
# repeats C paths other tests of that pass run (a run in another mode made
# to compare with: a process per client beside the engine's clients) runs
# `if ! in_sanitizer_pass; then ... fi`: the first pass runs all of it.
in_sanitizer_pass() {
	[ -n "${DBENCH_SANITIZER_PASS:-}" ]
}

# skip_file WHY: in setup_file, where bats 1.8 cannot skip (a skip there
# fails the file): every test of the file skips with WHY, as the file's
# setup calls file_skipped first.
skip_file() {
	export DBENCH_FILE_SKIP=$1
}

# file_skipped: in setup: skip the test when setup_file said so.
file_skipped() {
	[ -z "${DBENCH_FILE_SKIP:-}" ] || skip "$DBENCH_FILE_SKIP"
}

# file_start_or_skip START_FUNCTION: srv_start_or_skip for setup_file: start
# the file's shared server; when the machine cannot run it, skip_file with
# the reason.  A failed start fails.
file_start_or_skip() {
	local rc=0

	"$1" || rc=$?
	if [ "$rc" -eq "$SRV_SKIP" ]; then
		skip_file "$SRV_ERROR"
		return 0
	fi
	return "$rc"
}

# A private temp dir per test: $T, with the target directory $T/d.
make_tmp() {
	T=$(mktemp -d /tmp/dbench-test.XXXXXX)
	mkdir "$T/d"
}

remove_tmp() {
	if [ -n "${T:-}" ]; then rm -rf "$T"; fi
}

# No process of ours (its command line names our temp dir, or matches
# the pattern given) is left.
assert_no_procs() {
	local pat=${1:-$T}
	wait_for -t 5 "the processes naming $pat to end" ! pgrep -f -- "$pat" >/dev/null && return 0
	echo "processes left behind:" >&2
	pgrep -af -- "$pat" >&2
	return 1
}

# The largest latency of any op in the --json document FILE is at least
# NS nanoseconds (an op in flight that was given up or killed counts).
assert_max_latency_at_least() {
	"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
mx = max(float(op["max_ns"]) for op in d["results"]["operations"])
assert mx >= float(sys.argv[2]), mx' "$1" "$2"
}

# The target directory holds exactly what it held before the run.
assert_empty_target() {
	local left
	left=$(find "$T/d" -mindepth 1 | head)
	if [ -n "$left" ]; then
		echo "left behind in the target: $left" >&2
		return 1
	fi
}

# Write a loadfile from stdin to $T/$1.
loadfile() {
	cat > "$T/$1"
}

# wait_running OUT: wait until the dbench writing to OUT prints its first
# progress line (its clients are set up and run), up to 120 s: a loaded
# machine, ASan and a big loadfile make start-up slow.  A test that acts on
# a running run waits with this, never with a fixed sleep.
wait_running() {
	wait_for -t 120 "the first progress line in $1" grep -sEq "MB/sec +(warmup|execute)" "$1" &&
		return 0
	cat "$1" >&2
	return 1
}

# signal_run [-s SIG] [-p PATTERN | -g] [-w READY] [-m] COMMAND [ARG...]
#
# A run stopped by a signal (the Ctrl-C tests), written once.  Start
# COMMAND in the background, stdout to $T/out, stderr to $T/err (with -m
# to $T/out too), fd 3 closed (bats waits for whoever holds it); RUN_PID
# is its pid.  Wait until it runs: its first progress line (wait_running),
# or with -w until READY returns 0 (a function, run once in this shell
# with RUN_PID set: it waits with wait_for for what the test needs, and
# may act first).  Send SIG (default INT) to COMMAND; with -p to the run's
# parent dbench whose command line names PATTERN (COMMAND runs dbench
# under timeout, ip netns exec, ...: run_parent); with -g to COMMAND's
# process group (a terminal's Ctrl-C: COMMAND starts one, setsid).  Wait
# for COMMAND, set status to its exit status (as bats' run does) and print
# $T/out and $T/err for the log.  Return 0; the test checks status and the
# files.  If COMMAND never got where READY waits for it, or the signal
# found no process, kill it, print its output and return 1: the test
# fails there, and nothing is left running.
signal_run() {
	local sig=INT pattern='' group='' ready=wait_running_out merge='' target='' rc=0

	while [ $# -gt 0 ]; do
		case $1 in
		-s) sig=$2; shift 2 ;;
		-p) pattern=$2; shift 2 ;;
		-g) group=1; shift ;;
		-w) ready=$2; shift 2 ;;
		-m) merge=1; shift ;;
		*) break ;;
		esac
	done
	if [ -n "$merge" ]; then
		"$@" >"$T/out" 2>&1 3>&- &
	else
		"$@" >"$T/out" 2>"$T/err" 3>&- &
	fi
	RUN_PID=$!
	"$ready" || rc=$?
	if [ "$rc" -eq 0 ]; then
		if [ -n "$pattern" ]; then
			target=$(run_parent "$pattern") || rc=$?
		elif [ -n "$group" ]; then
			target=-$(ps -o pgid= -p "$RUN_PID" | tr -d ' ')
		else
			target=$RUN_PID
		fi
	fi
	[ "$rc" -ne 0 ] || kill -s "$sig" -- "$target" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "signal_run: SIG$sig not sent (status $rc, target '$target'): $*" >&2
		kill_tree "$RUN_PID"
	fi
	status=0
	wait "$RUN_PID" || status=$?
	cat "$T/out"
	[ -n "$merge" ] || cat "$T/err"
	return "$rc"
}

# kill_tree PID: SIGKILL PID and every process below it (dbench under
# timeout, ip netns exec, mpirun, and its clients), all at once.
kill_tree() {
	local pids=$1 all=''

	while [ -n "$pids" ]; do
		all="$all $pids"
		pids=$(pgrep -d , -P "$pids") || pids=''
	done
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL ${all//,/ } 2>/dev/null || :	# (some may have ended)
}

# The run of signal_run has printed its first progress line.
wait_running_out() {
	wait_running "$T/out"
}

# tbench_srv_listening: the tbench_srv started with --pid-file $T/srv.pid and
# -v 2>$T/srv.log has written its pid file and logged the port it listens
# on; sets PORT.  (wait_for "tbench_srv to listen" tbench_srv_listening)
tbench_srv_listening() {
	[ -s "$T/srv.pid" ] || return 1
	PORT=$(sed -n 's/.*listening on .*:\([0-9]*\).*/\1/p' "$T/srv.log" | head -1)
	[ -n "$PORT" ]
}

# Validate JSON documents against a schema: check_schema SCHEMA DOC...
# (skips the test when python3-jsonschema is missing).
check_schema() {
	local rc=0
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" "$@" || rc=$?
	[ "$rc" -eq 77 ] && skip "python3-jsonschema is not installed"
	[ "$rc" -eq 0 ]
}

# $T/small.txt: 8 ops, 128 KiB a pass, one file per client.
small_loadfile() {
	loadfile small.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
QUERY_FILE_INFORMATION 1 1004 NT_STATUS_OK
Close 1 NT_STATUS_OK
Unlink "\clients\client1\f" NT_STATUS_OK
L
}

# $T/slow.txt: small.txt's 8 ops with a 10 ms SLEEP while the file is open
# (written, not yet read, closed or removed).  For a test that needs a run
# going -- to signal, stop or kill it, to count its clients and progress
# lines, to merge or draw its figures -- and not its speed: each client
# sleeps most of its time instead of spinning a CPU for the whole run (CI
# runs 6 jobs on 2 CPUs), and a client stopped or signalled mid-pass most
# likely holds an open file in its tree.
slow_loadfile() {
	loadfile slow.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
SLEEP 10000
ReadX 1 0 65536 65536 NT_STATUS_OK
QUERY_FILE_INFORMATION 1 1004 NT_STATUS_OK
Close 1 NT_STATUS_OK
Unlink "\clients\client1\f" NT_STATUS_OK
L
}

# Files a loadfile makes at the share root, outside clients/: random names,
# as upstream's nfs_2.load makes them.  $T/root.txt with netbench ops,
# $T/root3.txt with NFSv3 ops (that file's shape).
root_files_loadfiles() {
	loadfile root.txt <<'L'
RANDOMSTRING 1 "/test[0123456789][01234567890].file"
LOOP 5
NTCreateX $1 0x0 0x3 1 NT_STATUS_OK
WriteX 1 0 1024 1024 NT_STATUS_OK
Close 1 NT_STATUS_OK
ENDLOOP
L
	loadfile root3.txt <<'L'
RANDOMSTRING 1 "/test[0123456789][01234567890].file"
LOOP 5
CREATE3 $1 *
LOOKUP3 $1 0x00000000
WRITE3 $1 0 1024 0 0x00000000
WRITE3 $1 1024 1024 0 0x00000000
ENDLOOP
L
}

# root_files_check DIR DBENCH-COMMAND...: DIR is where the run's share root
# is; the command runs one of those loadfiles once (--run-once --seed 1).
# The files it makes at the root go at the end, and what was there before
# the run (a file the loadfile may write to, a directory) stays; with
# --skip-cleanup the same run leaves the files it made (so there were some).
# (Nothing in DIR is changed behind a server's back between the runs.)
root_files_check() {
	local dir=$1 made
	shift
	echo mine > "$dir/test07.file"
	mkdir "$dir/keep.d"
	run "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cd "$dir" && ls -A | sort | tr '\n' ' ')" = "keep.d test07.file " ]
	run "$@" --skip-cleanup
	echo "$output"
	[ "$status" -eq 0 ]
	made=$(cd "$dir" && find . -maxdepth 1 -name 'test*.file' ! -name test07.file | wc -l)
	[ "$made" -gt 0 ]
}

# The JSON document's shape: every key path, array indices left out (a
# run of many clients a process and one of a process a client compare).
json_shape() {
	jq -r '[paths | map(if type == "number" then "[]" else . end) | join(".")] | unique | .[]' "$1"
}

# The run's parent: the dbench (its command line naming $1) whose parent
# is not a dbench (a test runs it under timeout, ip netns exec, ...).
# (/proc read with builtins, one pgrep a try: at load 20 each program
# started took a second, and three ps a process let a 6 s run go by unseen)
run_parent() {
	local p comm stat pcomm
	for p in $(pgrep -f -- "$1"); do
		{ read -r comm <"/proc/$p/comm" && read -r stat <"/proc/$p/stat"; } 2>/dev/null || continue
		[ "$comm" = dbench ] || continue
		stat=${stat##*) }	# "STATE PPID ...", after the comm
		stat=${stat#* }
		{ read -r pcomm <"/proc/${stat%% *}/comm"; } 2>/dev/null || continue
		[ "$pcomm" != dbench ] || continue
		echo "$p"
		return 0
	done
	return 1
}

# The NFS test files (nfs.bats, nfs4.bats, nfs_engine.bats; the server is
# tests/lib/nfs.sh's):
# dbench -B nfs against the file's server, in its network namespace.  A
# long reply timeout: a loaded machine (CI runs tests in parallel) can make
# ganesha's COMMIT3 take seconds; the tests of a dead or frozen server set
# their own.
nfs_dbench() {
	run --separate-stderr nfs_ns_exec timeout 120 "$DBENCH" -B nfs --server 127.0.0.1 \
		--export /export --nfs-timeout 30 "$@"
}

# The export holds nothing (the run removed what it made).
assert_export_empty() {
	local left

	left=$(find "$NFS_EXPORT_DIR" -mindepth 1 | head)
	[ -z "$left" ] || { echo "left on the export: $left"; return 1; }
}

# The iSCSI test files (iscsi.bats, iscsi_engine.bats): each test its own
# tgtd (tests/lib/tgtd.sh) in a network namespace, with $T.
iscsi_setup() {
	source "$BATS_TEST_DIRNAME/../lib/tgtd.sh"
	make_tmp
	"$DBENCH" --help | grep -q -- '--iscsi=' || skip "dbench was built without the iscsi backend"
	local rc=0
	tgtd_start "$T" || rc=$?
	[ "$rc" -eq "$SRV_SKIP" ] && skip "cannot run tgtd here (see the output)"
	[ "$rc" -eq 0 ]
}

iscsi_teardown() {
	local pid=$TGTD_PID

	# a test that froze tgtd must not leave it stopped
	if [ -n "$pid" ]; then kill -CONT "$pid" 2>/dev/null || true; fi
	tgtd_stop
	if [ -n "$pid" ] && srv_alive "$pid"; then
		echo "tgtd $pid is still running" >&2
		return 1
	fi
	remove_tmp
}

# dbench -B iscsi against the test's target, inside its network namespace
# (the loadfile is in $T, so assert_no_procs finds the run's processes).
iscsi_dbench() {
	run --separate-stderr ip netns exec "$TGTD_NS" timeout 120 "$DBENCH" -B iscsi \
		--iscsi="$TGTD_URL" "$@"
	echo "$output"
	echo "$stderr"
}
