#!/usr/bin/env bats
# --mpi: several ranks, one run, one report (src/mpi_run.c).  On one
# machine: mpirun -np 2 --oversubscribe.  Skipped when dbench was built
# without MPI or mpirun is not installed.

load helpers

setup() {
	# a dbench without MPI refuses --mpi before it looks at the timeout
	"$DBENCH" --mpi --mpi-timeout 0 -B null 1 2>&1 | grep -q 'built without MPI' &&
		skip "dbench was built without MPI (configure found no OpenMPI)"
	command -v mpirun >/dev/null || skip "mpirun is not installed (openmpi-bin)"
	make_tmp
	# under ASan (build.sh sanitize): OpenMPI's own allocations outlive
	# MPI_Finalize in components it has unloaded, so LeakSanitizer cannot
	# name them for a suppression; memory errors are still caught
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
}

teardown() {
	[ -n "${T:-}" ] && pkill -KILL -f -- "$T" 2>/dev/null || true
	declare -F nfs_stop >/dev/null && nfs_stop
	remove_tmp
}

mpi() {
	local np=$1
	shift
	timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" "$@"
}

# The pid of rank R's dbench (or tbench) parent (not a client: its parent is
# no dbench),
# or with "client" as $2, of one of rank R's client processes.
rank_pid() {
	local p comm stat pcomm client
	# (/proc with the read builtin, not three ps a process: at load 50 the
	# forks took long enough for processes to come and go in between)
	for p in $(pgrep -f -- "$T/d"); do
		{ read -r comm <"/proc/$p/comm" && read -r stat <"/proc/$p/stat"; } 2>/dev/null || continue
		case $comm in dbench | tbench) ;; *) continue ;; esac
		stat=${stat##*) }	# "STATE PPID ...", after the comm
		stat=${stat#* }
		{ read -r pcomm <"/proc/${stat%% *}/comm"; } 2>/dev/null || pcomm=
		client=
		case $pcomm in dbench | tbench) client=client ;; esac
		[ "$client" = "${2:-}" ] || continue
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && {
			echo "$p"
			return 0
		}
	done
	return 1
}

# rank_found R [client]: rank_pid R [client] is there; sets pid.
rank_found() {
	pid=$(rank_pid "$@")
}

# clients_execute: the job's clients execute (a loaded machine starts
# slowly).
clients_execute() {
	wait_for -t 60 "the clients to execute" grep -q 'execute' "$T/out"
}

# Start an mpirun of 2 ranks in the background (output in $T/out, its pid in
# $job) and wait until the clients execute.
mpi_start_bg() {
	mpi 2 "$@" >"$T/out" 2>&1 &
	job=$!
	clients_execute && return 0
	cat "$T/out"
	return 1
}

@test "mpi: 2 ranks, null backend: one report, clients spread, results merged exactly, JSON per rank" {
	# -t 4: several execute lines, so that one falls while all 5 clients run
	# even when a loaded machine delays rank 0's ticks (slow.txt, here and
	# in the null runs below: the clients sleep through the run instead of
	# spinning a CPU each)
	slow_loadfile
	run mpi 2 "$DBENCH" --mpi -B null -c "$T/slow.txt" -D "$T/d" -t 4 --warmup 1 --latency --json "$T/r.json" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^Throughput' <<<"$output")" -eq 1 ]
	grep -q '^Throughput .* 5 clients  5 procs' <<<"$output"
	grep -q '^MPI: 5 clients over 2 ranks' <<<"$output"
	grep -Eq '^ 0 +[^ ]+ +3 ' <<<"$output"		# the first rank gets the remainder
	grep -Eq '^ 1 +[^ ]+ +2 ' <<<"$output"
	# rank 0's progress counts all 5 (in warmup or execute: under ASan at
	# load 25 a 3 s execute phase once got no tick of rank 0's)
	grep -Eq '^ +5 +[0-9]+ +[0-9.]+ MB/sec +(warmup|execute)' <<<"$output"
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" \
		"$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T/r.json"
	"$PYTHON" - "$T/r.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ranks = d["mpi"]["per_rank"]
assert d["mpi"]["ranks"] == 2 and [r["clients"] for r in ranks] == [3, 2], ranks
assert d["clients"] == 5
# exact merge: counts and byte totals of the ranks add up to the whole run's
assert d["results"]["ops"] == sum(r["result"]["results"]["ops"] for r in ranks)
assert d["results"]["bytes"] == sum(r["result"]["results"]["bytes"] for r in ranks)
assert all(r["host"] for r in ranks)
EOF
}

@test "mpi: 2 ranks on one fileio directory: global client ids, one tree each, cleaned up" {
	# a loadfile that never removes the client's directory: with --skip-cleanup every
	# client's tree is there however the time limit cuts its pass (the default loadfile
	# Deltrees it at the end of each pass)
	# (--mpi-timeout 60: under ASan at a high load a rank's parent can go 10 s
	# without getting the CPU; this test is about the directories)
	small_loadfile
	run mpi 2 "$DBENCH" --mpi --mpi-timeout 60 -B fileio -D "$T/d" -c "$T/small.txt" -t 1 --warmup 0 --skip-cleanup 4
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(ls "$T/d/clients" | sort | tr '\n' ' ')" = "client0 client1 client2 client3 " ]
	rm -rf "$T/d/clients"
	run mpi 2 "$DBENCH" --mpi --mpi-timeout 60 -B fileio -D "$T/d" -t 1 --warmup 0 3
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q '^Throughput .* 3 clients' <<<"$output"
	[ -z "$(ls -A "$T/d")" ]
}

@test "mpi: a loadfile error on one rank stops every rank with that rank's message" {
	printf 'NTCreateX "\\\\clients\\\\client0" 0x1 0x2 0x3 0x4 NT_STATUS_OK\n' >"$T/bad.txt"
	run timeout 120 mpirun --allow-run-as-root --oversubscribe \
		-np 1 "$DBENCH" --mpi -B null -D "$T/d" -t 1 2 : \
		-np 1 "$DBENCH" --mpi -B null -D "$T/d" -c "$T/bad.txt" -t 1 2
	[ "$status" -ne 0 ]
	grep -q "^dbench: rank 1 on [^ ]*: $T/bad.txt:1: " <<<"$output"
	[ "$(grep -c '^Throughput' <<<"$output")" -eq 0 ]
	assert_no_procs
}

@test "mpi: a rank that cannot reach its server stops every rank with one line naming host and cause" {
	# rank 0 has a server; rank 1 is given a port nobody listens on
	"$(dirname "$DBENCH")/tbench_srv" -p 0 -b 127.0.0.1 -v --pid-file "$T/srv.pid" 2>"$T/srv.log" &
	local port= closed
	wait_for "tbench_srv to listen" tbench_srv_listening
	port=$PORT
	closed=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	run timeout 120 mpirun --allow-run-as-root --oversubscribe \
		-np 1 "$TBENCH" --mpi -D "$T/d" --json "$T/r.json" -t 30 2 "127.0.0.1:$port" : \
		-np 1 "$TBENCH" --mpi -D "$T/d" --json "$T/r.json" -t 30 2 "127.0.0.1:$closed"
	kill "$(cat "$T/srv.pid")" 2>/dev/null || true
	[ "$status" -ne 0 ] || { echo "$output"; false; }
	grep -Eq "^tbench: rank 1 on [^ ]+: cannot connect to 127\.0\.0\.1:$closed: Connection refused$" <<<"$output" ||
		{ echo "$output"; false; }
	[ "$(grep -c '^tbench: ' <<<"$output")" -eq 1 ]
	[ "$(grep -c '^Throughput' <<<"$output")" -eq 0 ]
	# rank 0 wrote the error document; nobody ran
	jq -e '.exit_status == 2 and (.error | length > 0)' "$T/r.json" >/dev/null
	assert_no_procs
}

@test "mpi: NPROCS fewer than the ranks is refused" {
	run mpi 2 "$DBENCH" --mpi -B null -D "$T/d" -t 1 1
	[ "$status" -ne 0 ]
	grep -q 'NPROCS (1) is fewer than the ranks (2)' <<<"$output"
}

# ranks_refused COMMON ["A|B" REGEX]...: for each pair, the job of rank 0
# with the arguments COMMON A and rank 1 with COMMON B (words) is refused
# before any client starts: exit 2, one line "dbench: --mpi: the ranks do
# not run the same benchmark: " REGEX, the error document, nothing left in
# $T/d (nor $T/d2).
ranks_refused() {
	local common=$1 a b
	shift
	while [ $# -ge 2 ]; do
		IFS='|' read -r a b <<<"$1"
		# shellcheck disable=SC2086 # words
		run timeout 120 mpirun --allow-run-as-root --oversubscribe \
			-np 1 "$DBENCH" $common --json "$T/r.json" $a : -np 1 "$DBENCH" $common $b
		echo "$a | $b -> $status: $output"
		[ "$status" -eq 2 ]
		[ "$(grep -c '^dbench: ' <<<"$output")" -eq 1 ]
		grep -Eq "^dbench: --mpi: the ranks do not run the same benchmark: $2$" <<<"$output"
		[[ "$output" != *"releasing clients"* ]]
		jq -e '.exit_status == 2 and (.error | startswith("--mpi: the ranks do not run the same benchmark: rank 1 on "))' "$T/r.json"
		[ -z "$(ls -A "$T/d")$(ls -A "$T/d2" 2>/dev/null)" ]
		shift 2
	done
	[ $# -eq 0 ]
	assert_no_procs
}

@test "mpi: ranks that disagree (loadfile, NPROCS, -t, backend, target) are refused before any client starts, naming the rank" {
	# mpirun's MPMD form gives each rank its own command line; before, each
	# rank ran its own benchmark and rank 0 merged them into one report
	printf 'Mkdir "\\clients" *\n' >"$T/a.txt"
	mkdir "$T/other" "$T/d2"
	printf 'Mkdir "\\clients" *\nMkdir "\\clients\\x" *\n' >"$T/other/a.txt"
	local cases=(
		"-B null -c $T/a.txt -t 2 2|-B null -c $T/other/a.txt -t 2 2"
		"rank 1 on [^ ]+ has the loadfile $T/other/a.txt \\(sha256 [0-9a-f]{12}\\.\\.\\.; rank 0 on [^ ]+: $T/a.txt, sha256 [0-9a-f]{12}\\.\\.\\.\\)"
		"-B null -t 2 2|-B null -t 2 3"
		"rank 1 on [^ ]+ has NPROCS 3 \\(rank 0 on [^ ]+: NPROCS 2\\)"
		"-B null -t 2 2|-B null -t 3 2"
		"rank 1 on [^ ]+ has -t 3 --warmup 0 \\(rank 0 on [^ ]+: -t 2 --warmup 0\\)"
		"-B null -t 2 2|-B fileio -t 2 2"
		"rank 1 on [^ ]+ has -B fileio \\(rank 0 on [^ ]+: -B null\\)"
		"-B fileio -t 2 2|-B fileio -D $T/d2 -t 2 2"
		"rank 1 on [^ ]+ has -D $T/d2 \\(rank 0 on [^ ]+: $T/d\\)"
	)
	ranks_refused "--mpi --mpi-timeout 60 -D $T/d --warmup 0" "${cases[@]}"
}

@test "mpi: ranks that disagree on how the run goes (--iodepth, -R, --stagger, --trunc-io, --repeat, --ioengine) are refused before any client starts" {
	sanitizer_pass_skip "the refusal (mpi_same, run_difference, refuse) is the test above's; these cases differ only in which field of the ranks' run_id differs"
	# before: each rank ran its own pace and depth into one merged report;
	# with --repeat 3 on rank 0 only, rank 0 waited for a second run rank
	# 1 never made, until mpirun was killed.  (--iodepth needs a backend
	# with a queue: iscsi, whose target --check-loadfile does not reach.)
	local iscsi=(-B iscsi --iscsi=iscsi://127.0.0.1/iqn.2026-01.org.dbench:none/0
		-c "$DBENCH_SRCDIR/loadfiles/iscsi-randread.load" --check-loadfile)
	local cases=(
		"${iscsi[*]} 2|${iscsi[*]} --iodepth 4 2"
		"rank 1 on [^ ]+ has --iodepth 4 \\(rank 0 on [^ ]+: 1\\)"
		"-B null -D $T/d -t 2 2|-B null -D $T/d -t 2 -R 2.5 2"
		"rank 1 on [^ ]+ has -R 2.5 \\(rank 0 on [^ ]+: 0\\)"
		"-B null -D $T/d -t 2 --stagger 100 2|-B null -D $T/d -t 2 2"
		"rank 1 on [^ ]+ has --stagger 0 \\(rank 0 on [^ ]+: 100\\)"
		"-B null -D $T/d -t 2 2|-B null -D $T/d -t 2 --trunc-io 4096 2"
		"rank 1 on [^ ]+ has --trunc-io 4096 \\(rank 0 on [^ ]+: 0\\)"
		"-B null -D $T/d -t 1 --repeat 3 2|-B null -D $T/d -t 1 2"
		"rank 1 on [^ ]+ has --repeat 1 \\(rank 0 on [^ ]+: 3\\)"
		"-B null -D $T/d -t 1 --repeat 3 --repeat-until-ci 5 2|-B null -D $T/d -t 1 --repeat 3 2"
		"rank 1 on [^ ]+ has --repeat-until-ci 0 \\(rank 0 on [^ ]+: 5\\)"
		"-B fileio -D $T/d --ioengine io_uring -t 2 2|-B fileio -D $T/d -t 2 2"
		"rank 1 on [^ ]+ has --ioengine psync \\(rank 0 on [^ ]+: io_uring\\)"
	)
	ranks_refused "--mpi --mpi-timeout 60 --warmup 0" "${cases[@]}"
}

@test "mpi: an --mpi-timeout abort still removes the clients' trees (a rank stopped mid-run on a shared fileio target)" {
	# before: rank 1's clients ran on after their parent stopped and were
	# SIGKILLed by mpirun with their trees (and clients/) left in the target;
	# now they stop once their parent is silent for --mpi-timeout and remove
	# their trees, and rank 0 stops its own and removes the rest before it
	# ends the job
	mpi_start_bg "$DBENCH" --mpi --mpi-timeout 4 -B fileio -D "$T/d" -t 60 --warmup 0 2
	local pid st=0
	pid=$(rank_pid 1)
	[ -n "$pid" ] || { ps -ef | grep -- "$T" | grep -v grep; false; }
	[ -n "$(ls -A "$T/d")" ]
	kill -STOP "$pid"
	wait "$job" || st=$?
	cat "$T/out"
	[ "$st" -ne 0 ]
	grep -q "^dbench: rank 1 on [^ ]*: no progress report for 4 s (--mpi-timeout): ending the run on every host" "$T/out"
	[ "$(grep -c '^dbench: ' "$T/out")" -eq 1 ]
	assert_no_procs
	[ -z "$(ls -A "$T/d")" ] || { find "$T/d" | head; false; }
}

@test "mpi: a rank killed mid-run: one dbench line naming it, every rank ends, no client left" {
	local job pid st=0
	# --mpi-timeout 120 (here and below): at load 29 a rank went 10 s (the
	# default) without a progress report and the run ended before the test
	# killed anything; these tests are about the kill
	mpi_start_bg "$DBENCH" --mpi --mpi-timeout 120 -B fileio -D "$T/d" -t 60 --warmup 0 --json "$T/r.json" 4
	wait_for -t 30 "rank 1's process" rank_found 1 ||
		{ ps -ef | grep -- "$T" | grep -v grep; false; }
	kill -KILL "$pid"
	local t0=$SECONDS
	wait "$job" || st=$?
	cat "$T/out"
	[ "$st" -ne 0 ]
	[ $((SECONDS - t0)) -lt 30 ]
	# rank 0 names it (mpirun's SIGCONT/SIGTERM, its report missing) ...
	grep -Eq "^dbench: rank 1 on [^ ]+: its process ended \(no progress report for [0-9.]+ s, and mpirun is ending the job\): ending the run on every host$" "$T/out"
	[ "$(grep -c '^dbench: ' "$T/out")" -eq 1 ]
	# ... and mpirun the signal
	grep -q 'rank 1 .* on node [^ ]* exited on signal 9' "$T/out"
	jq -e '.exit_status == 1 and (.error | startswith("rank 1 on "))' "$T/r.json"
	assert_no_procs
}

@test "mpi: rank 0 killed mid-run: rank 1 names it, every rank ends (mpirun -q: that line only)" {
	sanitizer_pass_skip "a rank that ended is named by end_gone, as in the rank-1-killed test (there from rank 0's wait, here from rank 1's)"
	local job pid st=0
	slow_loadfile
	mpi_start_bg -q "$DBENCH" --mpi --mpi-timeout 120 -B null -c "$T/slow.txt" -D "$T/d" -t 60 --warmup 0 4
	wait_for -t 30 "rank 0's process" rank_found 0 ||
		{ ps -ef | grep -- "$T" | grep -v grep; false; }
	kill -KILL "$pid"
	local t0=$SECONDS
	wait "$job" || st=$?
	cat "$T/out"
	[ "$st" -ne 0 ]
	[ $((SECONDS - t0)) -lt 30 ]
	grep -Eq "^dbench: rank 0 on [^ ]+: its process ended \(no progress from rank 0 for [0-9.]+ s, and mpirun is ending the job\): ending the run on every host$" "$T/out"
	# -q: mpirun prints no banner
	[ "$(grep -c 'mpirun noticed' "$T/out")" -eq 0 ]
	[ "$(grep -c '^dbench: ' "$T/out")" -eq 1 ]
	assert_no_procs
}

# rank1_and_rank0_ready: rank 1's process is there (sets pid) and rank 0's
# start-up probe of its server is over (connected, answered, closed: the
# server logged its end), so rank 0 now waits for the other ranks to report
# that they are ready; or the job ($job) has ended (the test says so).
rank1_and_rank0_ready() {
	srv_alive "$job" || return 0
	pid=$(rank_pid 1) && [ -n "$pid" ] && grep -q ": disconnected (closed): " "$T/srv.log"
}

@test "mpi: a rank killed while rank 0 waits for it to be ready: rank 0 names it" {
	sanitizer_pass_skip "a rank that ended is named by end_gone, as in the rank-1-killed test (here from mpi_agree's wait)"
	# rank 0's tbench has a server; rank 1's server accepts and then sends a
	# byte a second, 31 in all, never a whole reply, so rank 1 is still
	# starting when rank 0 waits for it; rank 1's --server-timeout 300 (the
	# default 30 s of silence after the last byte ran out at load 50 before
	# rank 0 was ready) keeps it waiting until it is killed
	"$(dirname "$DBENCH")/tbench_srv" -p 0 -b 127.0.0.1 -v --pid-file "$T/srv.pid" 2>"$T/srv.log" &
	"$PYTHON" - "$T/silent.port" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conns, end, drip = [], time.time() + 120, time.time()
s.settimeout(0.5)
while time.time() < end:
    try:
        conns.append([s.accept()[0], 0])
    except OSError:
        pass
    if time.time() >= drip:
        drip += 1
        for c in conns:
            if c[1] < 31:
                try:
                    c[0].send(b"\0")
                    c[1] += 1
                except OSError:
                    pass
EOF
	local silent_job=$! port= silent= job pid= st=0
	wait_for "tbench_srv to listen" tbench_srv_listening
	port=$PORT
	wait_for "the silent server's port file" test -s "$T/silent.port"
	silent=$(cat "$T/silent.port")
	[ -n "$port" ] && [ -n "$silent" ]
	timeout 120 mpirun --allow-run-as-root --oversubscribe \
		-np 1 "$TBENCH" --mpi -D "$T/d" -t 30 2 "127.0.0.1:$port" : \
		-np 1 "$TBENCH" --mpi -D "$T/d" -t 30 --server-timeout 300 2 "127.0.0.1:$silent" >"$T/out" 2>&1 &
	job=$!
	wait_for -t 60 "rank 1's process, and rank 0's probe of its server done" rank1_and_rank0_ready
	srv_alive "$job" && [ -n "$pid" ] || { cat "$T/out" "$T/srv.log"; false; }
	kill -KILL "$pid"
	wait "$job" || st=$?
	kill "$silent_job" 2>/dev/null || true
	kill "$(cat "$T/srv.pid")" 2>/dev/null || true
	cat "$T/out"
	[ "$st" -ne 0 ]
	grep -Eq "^tbench: rank 1 on [^ ]+: its process ended \(no report that it is ready for [0-9.]+ s, and mpirun is ending the job\): ending the run on every host$" "$T/out"
	[ "$(grep -c '^tbench: ' "$T/out")" -eq 1 ]
	assert_no_procs
}

@test "mpi: a client process killed on rank 1: one line naming host, client and signal, the run ends on every host with its report" {
	local job pid st=0
	mpi_start_bg -q "$DBENCH" --mpi --mpi-timeout 120 -B fileio -D "$T/d" -t 60 --warmup 0 --json "$T/r.json" 4
	wait_for -t 30 "rank 1's client process" rank_found 1 client ||
		{ ps -ef | grep -- "$T" | grep -v grep; false; }
	kill -KILL "$pid"
	local t0=$SECONDS
	wait "$job" || st=$?
	cat "$T/out"
	[ "$st" -eq 1 ]
	[ $((SECONDS - t0)) -lt 30 ]
	grep -Eq "^dbench: rank 1 on [^ ]+: client [23] died on signal 9 \(Killed\): ending the run on every host$" "$T/out"
	[ "$(grep -c 'died on signal' "$T/out")" -eq 1 ]
	# the run ended early on both ranks, cleanly: the report of what ran
	grep -q '^Throughput .* 4 clients  4 procs' "$T/out"
	grep -Eq '^ 1 +[^ ]+ +2 ' "$T/out"
	"$PYTHON" - "$T/r.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 1, d["exit_status"]
assert d["window"]["duration_sec"] < 50, d["window"]	# not the 60 s asked for
failed = [f["client"] for f in d["results"]["failures"]]
assert len(failed) == 1 and failed[0] in (2, 3), failed
EOF
	[ -z "$(ls -A "$T/d")" ] || { find "$T/d" | head; false; }
	assert_no_procs
}

@test "mpi: Ctrl-C on mpirun with a longer odls_base_sigkill_timeout: no rank named, every rank stops, one report" {
	# mpirun: SIGCONT, SIGTERM 10 s later, SIGKILL 10 s after that; the
	# live ranks report at once on the SIGCONT, so nobody is named (with
	# 3 s, under ASan at load 40, rank 0's cleanup was still going when
	# the SIGKILL came: no report)
	slow_loadfile
	signal_run -m -w clients_execute mpirun --allow-run-as-root --oversubscribe \
		--mca odls_base_sigkill_timeout 10 -np 2 "$DBENCH" --mpi -B null -c "$T/slow.txt" -D "$T/d" \
		-t 60 --warmup 0 2
	[ "$status" -ne 0 ]
	[ "$(grep -c 'its process ended' "$T/out")" -eq 0 ]
	grep -q '^Throughput .* 2 clients  2 procs' "$T/out"
	grep -Eq '^ 1 +[^ ]+ +1 ' "$T/out"
	assert_no_procs
}

# rank1_executes: the clients execute and rank 1's process is there (sets pid).
rank1_executes() {
	grep -q 'execute' "$T/out" && pid=$(rank_pid 1)
}

@test "mpi: a rank that stops reporting (SIGSTOP) ends the run after --mpi-timeout, naming its host" {
	sanitizer_pass_skip "the --mpi-timeout path (a rank SIGSTOPped, 4 s) is the shared-fileio abort test's, which also cleans up"
	# 2 clients and 4 s: null clients spin, and on a loaded machine a rank's
	# parent may wait its turn for a second or two
	slow_loadfile
	mpi 2 "$DBENCH" --mpi --mpi-timeout 4 -B null -c "$T/slow.txt" -D "$T/d" -t 60 --warmup 0 2 >"$T/out" 2>&1 &
	local job=$! pid=
	# a loaded machine starts slowly
	wait_for -t 60 "the clients to execute, and rank 1's process" rank1_executes ||
		{ cat "$T/out"; ps -ef | grep -- "$T" | grep -v grep; false; }
	kill -STOP "$pid"
	local st=0
	wait "$job" || st=$?
	[ "$st" -ne 0 ]
	grep -q "^dbench: rank 1 on [^ ]*: no progress report for 4 s (--mpi-timeout): ending the run on every host" "$T/out"
	[ "$(grep -c '^dbench: ' "$T/out")" -eq 1 ] || { cat "$T/out"; false; }
	assert_no_procs
}

@test "mpi: --repeat across ranks: each run merged, per-rank lines and JSON for every run" {
	sanitizer_pass_skip "each run of a series merged across ranks runs in the --sweep across ranks test (2 runs a point); the --repeat document is repeat.bats'"
	slow_loadfile
	run mpi 2 "$DBENCH" --mpi -B null -c "$T/slow.txt" -D "$T/d" -t 1 --warmup 0 --repeat 2 --json "$T/rep.json" 3
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^Run 2 of 2: Throughput' <<<"$output"
	grep -q '^Per rank, each run:' <<<"$output"
	local host
	host=$(hostname)
	# Run Rank Host Clients MB/sec ops/sec p99: each run, each rank
	grep -Eq "^ 1 +0 +$host +2 +[0-9.]+ +[0-9.]+ +[0-9.]+\$" <<<"$output"
	grep -Eq "^ 1 +1 +$host +1 " <<<"$output"
	grep -Eq "^ 2 +0 +$host +2 " <<<"$output"
	grep -Eq "^ 2 +1 +$host +1 " <<<"$output"
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" \
		"$DBENCH_SRCDIR/doc/dbench-repeat.schema.json" "$T/rep.json"
	"$PYTHON" - "$T/rep.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["clients"] for r in d["runs"]] == [3, 3]
for run in d["runs"]:
    ranks = run["mpi"]["per_rank"]
    assert [r["clients"] for r in ranks] == [2, 1], ranks
    assert run["results"]["ops"] == sum(r["result"]["results"]["ops"] for r in ranks)
    assert all(r["host"] and r["mb_per_sec"] > 0 for r in ranks)
EOF
	jq '.runs[1]' "$T/rep.json" >"$T/run2.json"
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" \
		"$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T/run2.json"
}

@test "mpi: --mpi-timeout without --mpi is refused" {
	run "$DBENCH" -B null --mpi-timeout 3 -t 1 1
	[ "$status" -eq 2 ]
	grep -q -- '--mpi-timeout is for --mpi runs' <<<"$output"
}

@test "mpi: --sweep across ranks: each point spread over the ranks and merged, one table, one document, drawn" {
	slow_loadfile
	run mpi 2 "$DBENCH" --mpi -B null -c "$T/slow.txt" -D "$T/d" -t 1 --warmup 0 --sweep 2,3 --repeat 2 --json "$T/s.json"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^MPI: each point's client processes over 2 ranks" <<<"$output"
	grep -q '^Point 1 of 2: 2 clients in 2 processes' <<<"$output"
	grep -q '^Point 2 of 2: 3 clients: Throughput' <<<"$output"
	grep -Eq '^ +2 +2 +[0-9.]+ ' <<<"$output"	# the table: clients, procs, ...
	grep -Eq '^ +3 +3 +[0-9.]+ ' <<<"$output"
	grep -q '^Per rank, each point and run:' <<<"$output"
	local host
	host=$(hostname)
	# Point Run Rank Host Clients ...: point 1 is 1 + 1, point 2 (3 processes) 2 + 1
	grep -Eq "^ 1 +2 +1 +$host +1 " <<<"$output"
	grep -Eq "^ 2 +1 +0 +$host +2 " <<<"$output"
	grep -Eq "^ 2 +2 +1 +$host +1 " <<<"$output"
	[ "$(grep -Ec "^ [12] +[12] +[01] +$host +[12] " <<<"$output")" -eq 8 ]
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" \
		"$DBENCH_SRCDIR/doc/dbench-sweep.schema.json" "$T/s.json"
	"$PYTHON" - "$T/s.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sweep"]["processes"] == [2, 3] and d["sweep"]["points"] == 2
for point, want in zip(d["points"], ([1, 1], [2, 1])):
    assert len(point["runs"]) == 2
    for run in point["runs"]:
        ranks = run["mpi"]["per_rank"]
        assert [r["clients"] for r in ranks] == want, ranks
        assert run["clients"] == sum(want)
        # merged exactly: the whole run's counts are the sum of the ranks'
        assert run["results"]["ops"] == sum(r["result"]["results"]["ops"] for r in ranks)
        assert run["results"]["bytes"] == sum(r["result"]["results"]["bytes"] for r in ranks)
EOF
	jq '.points[1].runs[0]' "$T/s.json" >"$T/run.json"
	"$PYTHON" "$DBENCH_SRCDIR/tests/cli/check-json-schema.py" \
		"$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T/run.json"
	if command -v gnuplot >/dev/null; then
		"$(dirname "$DBENCH")/../tools/dbench-plot" -o "$T/plot" "$T/s.json"
		[ -s "$T/plot/throughput.png" ] && [ -s "$T/plot/index.html" ]
	fi
	assert_no_procs
}

@test "mpi: a --sweep point with fewer processes than ranks is refused with one line naming it" {
	run mpi 2 "$DBENCH" --mpi -B null -D "$T/d" -t 1 --sweep 2,1,4 --json "$T/e.json"
	echo "$output"
	[ "$status" -eq 2 ]
	grep -q '^dbench: --mpi: --sweep point 2 (1 process) is fewer than the ranks (2)' <<<"$output"
	[ "$(grep -c '^dbench: ' <<<"$output")" -eq 1 ]
	jq -e '.exit_status == 2' "$T/e.json"
	! grep -q 'Point 1' <<<"$output"
}

@test "mpi: 2 ranks -B nfs against one ganesha export: unique client directories, one report, export left empty" {
	"$DBENCH" --help | grep -q -- '--export' || skip "dbench was built without the nfs backend"
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	srv_start_or_skip nfs_ns_start
	cp "$DBENCH_SRCDIR/loadfiles/nfs-example.txt" "$T/example.txt"
	run nfs_ns_exec timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 \
		"$DBENCH" --mpi -B nfs --server 127.0.0.1 --export /export --nfs-timeout 30 \
		-c "$T/example.txt" -D "$T/d" -t 2 --warmup 1 4
	local st=$status out=$output
	[ -z "$(find "$NFS_EXPORT_DIR" -mindepth 1 | head)" ] || { find "$NFS_EXPORT_DIR" | head; false; }
	nfs_stop
	[ "$st" -eq 0 ] || { echo "$out"; false; }
	grep -q ', 0 mismatches,' <<<"$out"
	grep -q '^Throughput .* 4 clients  4 procs' <<<"$out"
	grep -Eq '^ 1 +[^ ]+ +2 ' <<<"$out"
}
