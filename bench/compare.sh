#!/bin/bash
# bench/compare.sh - how far dbench-compare's verdict can be trusted on this
# machine: K comparisons of two sets of N runs with identical settings
# (every "regression" is a false alarm), interleaved (A B A B ...) and in
# sequence (all A, then all B: the machine's drift between the sets shows),
# and K comparisons of a real slowdown (the new runs paced at half the
# base rate, -R), which should all be caught.  Not a test: it takes
# minutes and its figures depend on the machine's load.
#
#   bench/compare.sh [K [N]]        (default K=10 comparisons, N=5 runs a side)
#   BUILD=build BACKEND=null DIR=/tmp/x SECS=1 bench/compare.sh
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."

K=${1:-10}
N=${2:-5}
BUILD=${BUILD:-build}
BACKEND=${BACKEND:-null}
SECS=${SECS:-1}
DBENCH=$BUILD/src/dbench
COMPARE=$BUILD/tools/dbench-compare
W=$(mktemp -d /tmp/dbench-bench-compare.XXXXXX)
trap 'rm -rf "$W"' EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
mkdir -p "$W/d"
DIR=${DIR:-$W/d}

failed_runs=0
run() {		# run OUTPUT [dbench options...]; a failed run is counted and its file dropped
	local out=$1 rc=0
	shift
	"$DBENCH" -B "$BACKEND" -D "$DIR" -t "$SECS" --warmup 0 --json "$out" "$@" 2 >"$W/last.log" 2>&1 ||
		rc=$?
	if [ "$rc" -ne 0 ]; then
		failed_runs=$((failed_runs + 1))
		echo "a run failed (exit $rc): $(tail -1 "$W/last.log")" >&2
		rm -f "$out"
	fi
}

# verdicts FILE: how many comparisons exited 1, and how many with the
# throughput alone
false_all=0 false_tput=0 seq_all=0 seq_tput=0 caught=0
for k in $(seq "$K"); do
	rm -f "$W"/*.json
	for i in $(seq "$N"); do	# interleaved
		run "$W/a$i.json"
		run "$W/b$i.json"
	done
	for i in $(seq "$N"); do run "$W/sa$i.json"; done	# in sequence
	for i in $(seq "$N"); do run "$W/sb$i.json"; done
	a=$(ls "$W"/a*.json) b=$(ls "$W"/b*.json) sa=$(ls "$W"/sa*.json) sb=$(ls "$W"/sb*.json)
	# shellcheck disable=SC2086
	{
		"$COMPARE" -q $a -- $b >/dev/null && rc=0 || rc=$?
		[ "$rc" -eq 1 ] && false_all=$((false_all + 1))
		"$COMPARE" -q --metrics throughput $a -- $b >/dev/null && rc=0 || rc=$?
		[ "$rc" -eq 1 ] && false_tput=$((false_tput + 1))
		"$COMPARE" -q $sa -- $sb >/dev/null && rc=0 || rc=$?
		[ "$rc" -eq 1 ] && seq_all=$((seq_all + 1))
		"$COMPARE" -q --metrics throughput $sa -- $sb >/dev/null && rc=0 || rc=$?
		[ "$rc" -eq 1 ] && seq_tput=$((seq_tput + 1))
	}
	# a real slowdown: paced at 40 MB/s a client, then at 20
	rm -f "$W"/p*.json
	for i in $(seq "$N"); do
		run "$W/pa$i.json" -R 40
		run "$W/pb$i.json" -R 20
	done
	# shellcheck disable=SC2086
	"$COMPARE" -q --metrics throughput $(ls "$W"/pa*.json) -- $(ls "$W"/pb*.json) >"$W/slow.txt" && rc=0 || rc=$?
	if [ "$rc" -eq 1 ]; then
		caught=$((caught + 1))
	else
		echo "missed (exit $rc):" >&2
		cat "$W/slow.txt" >&2
	fi
	echo "comparison $k of $K done" >&2
done
echo "backend $BACKEND, $N runs a side of $SECS s, $K comparisons each, threshold 5%, alpha 0.05:"
echo "  same settings, interleaved:  $false_all false regressions (all metrics), $false_tput (throughput)"
echo "  same settings, in sequence:  $seq_all false regressions (all metrics), $seq_tput (throughput)"
echo "  half the rate (-R 40 -> 20): $caught of $K caught (throughput)"
echo "  runs that failed (left out): $failed_runs"
