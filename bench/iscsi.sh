#!/bin/bash
# bench/iscsi.sh - 4 KiB random reads from one tgtd LUN: dbench -B iscsi
# side by side with libiscsi's own iscsi-perf (libiscsi-bin) at the same
# number of commands in flight.  Not a test: it prints figures for a human
# to compare.  Needs root (tgtd runs in namespaces, tests/lib/tgtd.sh).
#
#   bench/iscsi.sh [DBENCH]       DBENCH defaults to build/src/dbench
#   SECS=10 INFLIGHT="4 16 32" REPS=3 bench/iscsi.sh
#   VARIANTS="a e" bench/iscsi.sh   only iscsi-perf and --iodepth
#
# For each N (commands in flight), each round runs, in this order:
#   A  iscsi-perf -m N -b 8 -r: one session, N requests queued on it;
#   B  dbench, one process of N clients on its event loop sharing one
#      session (--clients-per-process N --iscsi-session shared 1): the
#      shape of A;
#   C  the same with a session a client (--iscsi-session client, the
#      default);
#   D  dbench, N processes of one client each (a process per command in
#      flight, as before the event loop);
#   E  dbench, one client keeping N commands in flight (--iodepth N 1):
#      one process, one session, one interpreter, as iscsi-perf.
# dbench's clients run loadfiles/iscsi-randread.load (READ10 */8 8: a
# random 4 KiB-aligned LBA anywhere on the LUN), each with one READ10 in
# flight (E: N in flight).  The LUN is a 1 GiB file on a tmpfs, so the target serves from
# memory.  The rounds alternate (A B C D A B C D ...); the table gives each
# one's median IOPS, dbench's ratios to A, and each one's client CPU per
# I/O (user + system of the initiator processes over their whole run:
# dbench's "Client CPU" line, iscsi-perf's /usr/bin/time).  The load
# (uptime) before and after is printed: these 2-core machines are shared
# and noisy, the target and the initiators compete for the same cores, so
# look at medians and ratios, not at single runs; the raw figures go to
# stderr.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-10}
INFLIGHT=${INFLIGHT:-${CLIENTS:-4 16 32}}
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

# one dbench run, its arguments after the loadfile's: "IOPS CPU-us-per-IO"
run_dbench() {
	ip netns exec "$TGTD_NS" "$DBENCH" -B iscsi --iscsi="$TGTD_URL" -c "$LOADFILE" \
		-t "$SECS" --warmup 1 "$@" >"$W/dbench.out" 2>&1 || {
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
	tr '\r' '\n' <"$W/perf.out" | awk -v tf="$W/perf.time" '
		/iops average/ { for (i = 1; i <= NF; i++) if ($i == "average") iops = $(i + 1); n++ }
		END {
			while ((getline line < tf) > 0)
				if (split(line, f, " ") == 3 && f[1] == "CPU") cpu = f[2] + f[3]
			printf "%s %.2f\n", iops, iops ? cpu / (iops * n) * 1e6 : 0
		}'
}

col() { cut -d' ' -f"$2" "$W/$1" | median; }

echo "4 KiB random reads (READ10, 8 x 512-byte blocks) from a 1 GiB tgtd LUN on tmpfs; ${SECS} s a run, $REPS rounds (A B C D ...)"
echo "tgtd $(tgtd --version 2>/dev/null | head -1), $(iscsi-perf 2>&1 | grep -o 'iscsi-perf version [0-9.]*'); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "load before: $(uptime)"
echo "A: iscsi-perf -m N (1 session); B: dbench 1 process x N clients, 1 shared session;"
echo "C: dbench 1 process x N clients, a session each; D: dbench N processes;"
echo "E: dbench 1 client, --iodepth N (VARIANTS=\"a e\" runs only A and E)"
VARIANTS=${VARIANTS:-a b c d e}
printf "\n%9s  %8s %8s %8s %8s %8s  %6s %6s %6s %6s  %7s %7s %7s %7s %7s\n" "in flight" "A IOPS" "B IOPS" \
	"C IOPS" "D IOPS" "E IOPS" "B/A" "C/A" "D/A" "E/A" "A us/IO" "B us/IO" "C us/IO" "D us/IO" "E us/IO"
on() { [[ " $VARIANTS " == *" $1 "* ]]; }
ratio() { if [ -s "$W/$1" ] && [ -s "$W/a" ]; then echo "$(col "$1" 1) / $(col a 1)" | bc -l; else echo 0; fi; }
cell() { if [ -s "$W/$1" ]; then col "$1" "$2"; else echo 0; fi; }
for n in $INFLIGHT; do
	for f in a b c d e; do : >"$W/$f"; done
	for (( r = 0; r < REPS; r++ )); do
		on a && run_perf "$n" >>"$W/a"
		on b && run_dbench --clients-per-process "$n" --iscsi-session shared 1 >>"$W/b"
		on c && run_dbench --clients-per-process "$n" 1 >>"$W/c"
		on d && run_dbench "$n" >>"$W/d"
		on e && run_dbench --iodepth "$n" 1 >>"$W/e"
	done
	for f in a b c d e; do
		echo "raw $n $f: IOPS $(cut -d' ' -f1 "$W/$f" | tr '\n' ' ')us/IO $(cut -d' ' -f2 "$W/$f" | tr '\n' ' ')"
	done >&2
	printf "%9d  %8.0f %8.0f %8.0f %8.0f %8.0f  %6.2f %6.2f %6.2f %6.2f  %7.1f %7.1f %7.1f %7.1f %7.1f\n" "$n" \
		"$(cell a 1)" "$(cell b 1)" "$(cell c 1)" "$(cell d 1)" "$(cell e 1)" \
		"$(ratio b)" "$(ratio c)" "$(ratio d)" "$(ratio e)" \
		"$(cell a 2)" "$(cell b 2)" "$(cell c 2)" "$(cell d 2)" "$(cell e 2)"
done
echo
echo "load after: $(uptime)"
