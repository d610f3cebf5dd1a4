#!/bin/bash
# bench/block.sh - 4 KiB random reads from a loop device over a tmpfs file:
# dbench -B block side by side with fio (--ioengine=psync, the same
# pattern, clients as jobs).  Not a test: it prints figures for a human to
# compare.  Needs root (losetup, a tmpfs mount).
#
#   bench/block.sh [DBENCH]       DBENCH defaults to build/src/dbench
#   SECS=10 CLIENTS="1 2 4" REPS=3 bench/block.sh
#
# Both read 4 KiB at random 4 KiB-aligned offsets of the whole 1 GiB
# device with O_DIRECT (dbench: READ */0x1000%SIZE 4096; fio: --rw=randread
# --bs=4k --direct=1 --numjobs=N).  The two alternate, A B A B, REPS times
# for each N; the table gives each side's median IOPS, the ratio dbench/fio
# and each side's CPU per I/O (dbench's "Client CPU" line over all its
# operations; fio's usr_cpu + sys_cpu of its jobs over the runtime).  These
# 2-core machines are shared and noisy: look at medians and ratios.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-1 2 4}
REPS=${REPS:-3}
SIZE=$((1 << 30))
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }
command -v fio >/dev/null || { echo "bench: fio is missing (Debian fio)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench: jq is missing (Debian jq)" >&2; exit 2; }

W=$(mktemp -d /tmp/dbench-bench-block.XXXXXX)
LOOPDEV=
cleanup() {
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	umount "$W/fs" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
mkdir "$W/fs"
mount -t tmpfs -o size=1100m tmpfs "$W/fs"
dd if=/dev/urandom of="$W/fs/disk.img" bs=1M count=$((SIZE >> 20)) status=none
LOOPDEV=$(losetup -f --show "$W/fs/disk.img") || { echo "bench: losetup cannot make a loop device here" >&2; exit 2; }
printf 'LOOP 10000\nREAD */0x1000%%%d 4096 0x00000000\nENDLOOP\n' "$SIZE" >"$W/randread.load"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one dbench run: "IOPS CPU-us-per-IO"
run_dbench() {
	"$DBENCH" -B block --block="$LOOPDEV" -c "$W/randread.load" -t "$SECS" --warmup 1 "$1" \
		>"$W/dbench.out" 2>&1 || {
		cat "$W/dbench.out" >&2
		return 1
	}
	awk '/^Client CPU:/ { cpu = $4 + $7; ops = $10 }
	     /^Operations / { rate = $6; sub(/^\(/, "", rate) }
	     END { printf "%s %.2f\n", rate, ops ? cpu / ops * 1e6 : 0 }' "$W/dbench.out"
}

# one fio run: "IOPS CPU-us-per-IO"
run_fio() {
	fio --name=randread --filename="$LOOPDEV" --ioengine=psync --rw=randread --bs=4k \
		--direct=1 --numjobs="$1" --group_reporting --time_based --runtime="$SECS" \
		--ramp_time=1 --randrepeat=0 --output-format=json >"$W/fio.json" 2>"$W/fio.err" || {
		cat "$W/fio.err" >&2
		return 1
	}
	jq -r --argjson n "$1" --argjson secs "$SECS" '.jobs[0] |
		"\(.read.iops) \((.usr_cpu + .sys_cpu) / 100 * $n * $secs / (.read.iops * $secs) * 1e6)"' \
		"$W/fio.json" | awk '{ printf "%.1f %.2f\n", $1, $2 }'
}

echo "4 KiB random O_DIRECT reads of a 1 GiB loop device over a tmpfs file ($LOOPDEV); ${SECS} s a run, $REPS x A B"
echo "$(fio --version); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
printf "\n%8s  %12s %12s %7s  %12s %12s\n" "clients" "fio IOPS" "dbench IOPS" "ratio" "fio us/IO" "dbench us/IO"
for n in $CLIENTS; do
	: >"$W/a"
	: >"$W/b"
	for (( r = 0; r < REPS; r++ )); do
		run_fio "$n" >>"$W/a"
		run_dbench "$n" >>"$W/b"
	done
	{ echo "raw $n fio: $(cut -d' ' -f1 "$W/a" | tr '\n' ' ')"; echo "raw $n dbench: $(cut -d' ' -f1 "$W/b" | tr '\n' ' ')"; } >&2
	a=$(cut -d' ' -f1 "$W/a" | median)
	b=$(cut -d' ' -f1 "$W/b" | median)
	ac=$(cut -d' ' -f2 "$W/a" | median)
	bc=$(cut -d' ' -f2 "$W/b" | median)
	printf "%8d  %12.0f %12.0f %7.2f  %12.1f %12.1f\n" "$n" "$a" "$b" "$(echo "$b / $a" | bc -l)" "$ac" "$bc"
done
