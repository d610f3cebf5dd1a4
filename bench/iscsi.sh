#!/bin/bash
# bench/iscsi.sh - 4 KiB random reads from one tgtd LUN: dbench -B iscsi
# side by side with libiscsi's own iscsi-perf (libiscsi-bin) at the same
# number of commands in flight.  Not a test: it prints figures for a human
# to compare.  Needs root (tgtd runs in namespaces, tests/lib/tgtd.sh).
#
#   bench/iscsi.sh [DBENCH]       DBENCH defaults to build/src/dbench
#   SECS=10 CLIENTS="1 4 16" REPS=3 bench/iscsi.sh
#
# dbench runs N clients, each with a session of its own and one READ10 in
# flight (loadfiles/iscsi-randread.load: READ10 */8 8, a random 4 KiB-
# aligned LBA anywhere on the LUN); iscsi-perf runs one session with N
# requests in flight (-m N -b 8 -r: random LBAs, 8 blocks), and, as a
# second reference with dbench's shape, N iscsi-perf processes with one
# request in flight each (N sessions, as many initiators as dbench has).  The LUN is a
# 1 GiB file on a tmpfs, so the target serves from memory.  The three
# alternate, REPS rounds for each N; the table gives each one's median
# IOPS, dbench's ratio to both references, and each one's client CPU per
# I/O (user + system of the initiator processes over their whole run:
# dbench's "Client CPU" line, iscsi-perf's /usr/bin/time).  The order in
# each round is iscsi-perf -m N, N x iscsi-perf, dbench.  These 2-core
# machines are shared and noisy: the target and the initiators compete for
# the same cores, so look at medians and ratios, not at single runs; the
# raw figures go to stderr.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-1 4 16}
REPS=${REPS:-3}
LOADFILE=$(realpath loadfiles/iscsi-randread.load)
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }
"$DBENCH" --help | grep -q -- --iscsi= || { echo "bench: $DBENCH has no iscsi backend" >&2; exit 2; }
command -v iscsi-perf >/dev/null || { echo "bench: iscsi-perf is missing (Debian libiscsi-bin)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (Debian time)" >&2; exit 2; }

. tests/lib/tgtd.sh
W=$(mktemp -d /tmp/dbench-bench-iscsi.XXXXXX)
cleanup() {
	tgtd_stop >/dev/null 2>&1 || true
	umount "$W/fs" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
mkdir "$W/fs"
mount -t tmpfs -o size=1200m tmpfs "$W/fs"
tgtd_start "$W/fs" 1G || { echo "bench: cannot start tgtd" >&2; exit 2; }
# fill the LUN, so that reads are of data, not of holes
dd if=/dev/urandom of="$W/fs/lun.img" bs=1M count=1024 conv=notrunc status=none

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one dbench run: "IOPS CPU-us-per-IO"
run_dbench() {
	ip netns exec "$TGTD_NS" "$DBENCH" -B iscsi --iscsi="$TGTD_URL" -c "$LOADFILE" \
		-t "$SECS" --warmup 1 "$1" >"$W/dbench.out" 2>&1 || {
		cat "$W/dbench.out" >&2
		return 1
	}
	awk '/^Client CPU:/ { cpu = $4 + $7; ops = $10 }
	     /^Operations / { rate = $6; sub(/^\(/, "", rate) }
	     END { printf "%s %.2f\n", rate, ops ? cpu / ops * 1e6 : 0 }' "$W/dbench.out"
}

# one iscsi-perf run: "IOPS CPU-us-per-IO" (iops average at the end; CPU
# from /usr/bin/time, over iops average x seconds)
run_perf() {
	ip netns exec "$TGTD_NS" /usr/bin/time -f "CPU %U %S" -o "$W/perf.time" \
		timeout -s INT "$((SECS + 1))" iscsi-perf -m "$1" -b 8 -r "$TGTD_URL" \
		>"$W/perf.out" 2>&1 || true
	tr '\r' '\n' <"$W/perf.out" | awk -v secs="$((SECS + 1))" -v tf="$W/perf.time" '
		/iops average/ { for (i = 1; i <= NF; i++) if ($i == "average") iops = $(i + 1); n++ }
		END {
			while ((getline line < tf) > 0)
				if (split(line, f, " ") == 3 && f[1] == "CPU") cpu = f[2] + f[3]
			printf "%s %.2f\n", iops, iops ? cpu / (iops * n) * 1e6 : 0
		}'
}

# N iscsi-perf processes with one request in flight each, N sessions as
# dbench has: "IOPS CPU-us-per-IO" summed over them
run_perf_sessions() {
	local i pids=()

	for (( i = 0; i < $1; i++ )); do
		ip netns exec "$TGTD_NS" /usr/bin/time -f "CPU %U %S" -o "$W/perf.time.$i" \
			timeout -s INT "$((SECS + 1))" iscsi-perf -i "iqn.2026-01.org.dbench.bench:perf-$i" \
			-m 1 -b 8 -r "$TGTD_URL" >"$W/perf.out.$i" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	for (( i = 0; i < $1; i++ )); do
		tr '\r' '\n' <"$W/perf.out.$i" | awk -v tf="$W/perf.time.$i" '
			/iops average/ { for (k = 1; k <= NF; k++) if ($k == "average") iops = $(k + 1); n++ }
			END {
				while ((getline line < tf) > 0)
					if (split(line, f, " ") == 3 && f[1] == "CPU") cpu = f[2] + f[3]
				print iops + 0, cpu + 0, iops * n
			}'
	done | awk '{ iops += $1; cpu += $2; ios += $3 } END { printf "%.0f %.2f\n", iops, ios ? cpu / ios * 1e6 : 0 }'
}

echo "4 KiB random reads (READ10, 8 x 512-byte blocks) from a 1 GiB tgtd LUN on tmpfs; ${SECS} s a run, $REPS rounds"
echo "tgtd $(tgtd --version 2>/dev/null | head -1), $(iscsi-perf 2>&1 | grep -o 'iscsi-perf version [0-9.]*'); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
printf "\n%9s  %15s %15s %12s %7s %7s  %9s %9s %9s\n" "in flight" "iscsi-perf -m N" "N x iscsi-perf" "dbench N" \
	"ratio" "ratio" "us/IO" "us/IO" "us/IO"
printf "%9s  %15s %15s %12s %7s %7s  %9s %9s %9s\n" "" "(1 session)" "(N sessions)" "(N sess.)" "d/-m N" "d/N x" \
	"-m N" "N x" "dbench"
for n in $CLIENTS; do
	: >"$W/a"
	: >"$W/b"
	: >"$W/c"
	for (( r = 0; r < REPS; r++ )); do
		run_perf "$n" >>"$W/a"
		run_perf_sessions "$n" >>"$W/c"
		run_dbench "$n" >>"$W/b"
	done
	{
		echo "raw $n iscsi-perf -m $n: $(cut -d' ' -f1 "$W/a" | tr '\n' ' ')"
		echo "raw $n $n x iscsi-perf -m 1: $(cut -d' ' -f1 "$W/c" | tr '\n' ' ')"
		echo "raw $n dbench: $(cut -d' ' -f1 "$W/b" | tr '\n' ' ')"
	} >&2
	a=$(cut -d' ' -f1 "$W/a" | median)
	b=$(cut -d' ' -f1 "$W/b" | median)
	c=$(cut -d' ' -f1 "$W/c" | median)
	printf "%9d  %15.0f %15.0f %12.0f %7.2f %7.2f  %9.1f %9.1f %9.1f\n" "$n" "$a" "$c" "$b" \
		"$(echo "$b / $a" | bc -l)" "$(echo "$b / $c" | bc -l)" \
		"$(cut -d' ' -f2 "$W/a" | median)" "$(cut -d' ' -f2 "$W/c" | median)" \
		"$(cut -d' ' -f2 "$W/b" | median)"
done
