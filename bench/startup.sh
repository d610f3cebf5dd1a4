#!/bin/bash
# bench/startup.sh - what it costs to start dbench: CPU (user + system) and
# wall time per invocation and the shared libraries loaded, of `dbench
# --version`, `dbench --help` (which loads every module, to list it), and
# a minimal run from start to end (a 3-line loadfile, --run-once, 1 client:
# parse, fork, set up, release, 3 ops, clean up, report) on fileio (in a
# directory on tmpfs, RUNDIR, so that the file system's cost does not
# hide the program's) and on null, side by
# side with /bin/true, for two builds: BEFORE (by default main before the
# backends became modules, commit 6937d2c, built in a temp dir) and AFTER
# (build/src/dbench).  Not a test: it prints figures for a human.
#
#   bench/startup.sh [AFTER_DBENCH [BEFORE_DBENCH]]
#   BEFORE_REV=6937d2c ROUNDS=7 RUNS=40 bench/startup.sh
#
# The variants alternate A B A B within every round (these 2-core machines
# are noisy); each round takes the median of RUNS invocations, and the
# figures are the medians over ROUNDS rounds.  CPU comes from wait4's
# rusage, which counts the run's client processes too.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
AFTER=$(realpath "${1:-build/src/dbench}")
BEFORE=${2:-}
BEFORE_REV=${BEFORE_REV:-6937d2c}
ROUNDS=${ROUNDS:-7}
RUNDIR=${RUNDIR:-/dev/shm}
RUNS=${RUNS:-40}
[ -x "$AFTER" ] || { echo "bench: build first ($AFTER)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench: needs python3" >&2; exit 2; }

W=$(mktemp -d /tmp/dbench-startup.XXXXXX)
trap 'rm -rf "$W"' EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM

if [ -z "$BEFORE" ]; then
	echo "building $BEFORE_REV in $W/before ..." >&2
	mkdir "$W/before"
	git -C "$TOP" archive "$BEFORE_REV" | tar -x -C "$W/before"
	(cd "$W/before" && ./autogen.sh >/dev/null 2>&1 && mkdir build && cd build &&
		../configure >/dev/null && make -j"$(nproc)" src/dbench >/dev/null 2>&1)
	BEFORE=$W/before/build/src/dbench
fi
BEFORE=$(realpath "$BEFORE")

printf 'Mkdir "\\clients" *\nMkdir "\\clients\\client1" NT_STATUS_OK\nRmdir "\\clients\\client1" NT_STATUS_OK\n' \
	> "$W/tiny.txt"
D=$(mktemp -d "$RUNDIR/dbench-startup.XXXXXX")
trap 'rm -rf "$W" "$D"' EXIT

echo "before: $BEFORE ($(ldd "$BEFORE" | wc -l) libraries in ldd)"
echo "after:  $AFTER ($(ldd "$AFTER" | wc -l) libraries in ldd)"
echo "$ROUNDS rounds x $RUNS invocations, A B A B; medians per invocation"
echo "load before:$(uptime | sed 's/.*load average//')"
echo

python3 - "$BEFORE" "$AFTER" "$W" "$ROUNDS" "$RUNS" "$D" <<'EOF'
import os, statistics, sys, time

before, after, w, rounds, runs, rundir = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
tiny = f"{w}/tiny.txt"
cases = [
    ("--version", ["--version"]),
    ("--help", ["--help"]),
    ("fileio run", ["-D", rundir, "-c", tiny, "--run-once", "1"]),
    ("null run", ["-B", "null", "-c", tiny, "--run-once", "1"]),
]
devnull = os.open(os.devnull, os.O_RDWR)

def once(argv):
    t0 = time.monotonic()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
        (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(argv)} failed ({status})")
    return ru.ru_utime + ru.ru_stime, wall

def measure(argv):
    cpu, wall = zip(*(once(argv) for _ in range(runs)))
    return statistics.median(cpu), statistics.median(wall)

print(f"{'':12} {'variant':8} {'CPU ms':>8} {'wall ms':>8}")
for name, args in cases:
    variants = [("true", ["/bin/true"]), ("before", [before] + args), ("after", [after] + args)]
    got = {v: [] for v, _ in variants}
    for r in range(rounds):
        order = variants if r % 2 == 0 else variants[::-1]
        for v, argv in order:
            got[v].append(measure(argv))
    med, medw = {}, {}
    for v, _ in variants:
        cpu = statistics.median(x[0] for x in got[v]) * 1e3
        wall = statistics.median(x[1] for x in got[v]) * 1e3
        med[v], medw[v] = cpu, wall
        print(f"{name:12} {v:8} {cpu:8.2f} {wall:8.2f}")
    ratio = med["before"] / med["after"] if med["after"] else float("inf")
    print(f"{name:12} {'':8} before/after CPU: {ratio:.1f}x; after - /bin/true: {med['after'] - med['true']:.2f} ms")
    print(f"{name:12} {'':8} after / /bin/true: CPU {med['after'] / max(med['true'], 1e-3):.2f}x, "
          f"wall {medw['after'] / medw['true']:.2f}x\n")
EOF
echo "load after:$(uptime | sed 's/.*load average//')"
