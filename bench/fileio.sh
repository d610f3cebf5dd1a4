#!/bin/bash
# bench/fileio.sh - the dbench core's speed and memory figures, side by side
# with Debian's dbench 4.0 (apt-get install dbench), on a private tmpfs with
# the same loadfile (/usr/share/dbench/client.txt).  Not a test: it prints
# figures for a human to compare.  Needs root (to mount the tmpfs).
#
#   bench/fileio.sh [DBENCH]      DBENCH defaults to build/src/dbench
#   BASE=old/dbench SECTIONS=6 bench/fileio.sh
#                                 ours against an older build of ours
#
# It measures, alternating A B A B (these 2-core machines are noisy; the
# medians and ratios are what count):
#   1. loading the classic 26 MB client.txt (--check-loadfile), 5 times;
#   2. 2 clients on tmpfs, -t 10: ops/s and user CPU per million ops, ours
#      and dbench 4.0's, 3 rounds each;
#   3. the harness's own cost: user CPU per million ops with the null
#      backend (no I/O at all), and instructions per op from callgrind;
#   4. equal work: strace -c -f of both over the same 40,000-line slice of
#      the classic loadfile, syscalls per 1,000 ops;
#   5. 1,000 clients: start, run 10 s, stop; memory per client (PSS);
#   6. with BASE=DBENCH (another build of ours, e.g. main before a change):
#      ours against it, A B A B, 2 clients on tmpfs, -t 10: user, system
#      and total CPU per op, medians and ratios; and syscalls per op of
#      each over the same 40,000-line slice (strace -c -f), side by side;
#      and instructions per op of each from callgrind (load-independent).
#      This is how the cost of fileio's safe path resolution (openat2
#      beneath -D) was measured.
#   7. --ioengine io_uring against psync (ours both): the classic loadfile
#      on tmpfs, -t 10, A B A B, as 2 processes of 1 client and as 2
#      processes of 8 clients (--clients-per-process 8: one ring a process
#      on the event loop, against 8 clients taking turns): ops/s and CPU
#      per op, medians and ratios.  ROUNDS (default 3).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
OURS=$(realpath "${1:-build/src/dbench}")
THEIRS=/usr/bin/dbench
CLASSIC=/usr/share/dbench/client.txt
[ -x "$THEIRS" ] && [ -r "$CLASSIC" ] || { echo "bench: apt-get install dbench first" >&2; exit 2; }
[ -x "$OURS" ] || { echo "bench: build first ($OURS)" >&2; exit 2; }

W=$(mktemp -d /tmp/dbench-bench.XXXXXX)
mkdir "$W/fs"
mount -t tmpfs -o size=8g tmpfs "$W/fs"
cleanup() { umount "$W/fs" 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM

# Sum of an op table's counts (dbench 4.0 prints no total).
table_ops() { awk '/^ -----/ { t = 1; next } t && NF == 4 && $2 ~ /^[0-9]+$/ { s += $2 } t && NF == 0 { t = 0 } END { print s + 0 }'; }

want() { [[ " ${SECTIONS:-1 2 3 4 5 6 7} " == *" $1 "* ]]; }

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# strace_run NAME DBENCH ARGS...: strace -c -f of DBENCH ARGS running the
# classic loadfile's first 40,000 lines in the emptied tmpfs: the counts
# in $W/strace.NAME, its output in $W/out.NAME.
strace_run() {
	local name=$1 bin=$2
	shift 2
	[ -s "$W/slice40k.txt" ] ||
		{ head -40000 "$CLASSIC"; echo 'Deltree "\clients\client1" NT_STATUS_OK'; } > "$W/slice40k.txt"
	rm -rf "$W/fs"/* 2>/dev/null || true
	(cd "$W/fs" && strace -f -c -o "$W/strace.$name" "$bin" -c "$W/slice40k.txt" -D "$W/fs" "$@" \
		> "$W/out.$name" 2>&1) || true
}

if want 1; then
echo "== 1. loading $CLASSIC ($(stat -c %s "$CLASSIC") bytes)"
for i in 1 2 3 4 5; do
	/usr/bin/time -f "%e" "$OURS" --check-loadfile -c "$CLASSIC" 1 2>&1 >/dev/null | tail -1
done > "$W/load"
echo "wall seconds, 5 runs: $(tr '\n' ' ' < "$W/load")-> median $(median < "$W/load") s"

run_one() {	# $1 = ours|theirs, $2 = seconds; prints "ops/s user_s_per_Mops"
	local bin=$OURS out
	[ "$1" = theirs ] && bin=$THEIRS
	out=$(cd "$W/fs" && /usr/bin/time -f "TIME %U %S" "$bin" -c "$CLASSIC" -D "$W/fs" -t "$2" 2 2>&1)
	local ops user warm
	ops=$(echo "$out" | table_ops)
	user=$(echo "$out" | awk '/^TIME/ { print $2 }')
	warm=$(($2 / 5))
	# user CPU covers warmup + window; scale the window's ops to the whole run
	awk -v o="$ops" -v u="$user" -v t="$2" -v w="$warm" \
		'BEGIN { printf "%.0f %.3f\n", o / t, u / (o * (t + w) / t / 1e6) }'
}
fi

if want 2; then
echo
echo "== 2. 2 clients, tmpfs, -t 10, classic client.txt (A B A B A B)"
for round in 1 2 3; do
	run_one theirs 10 >> "$W/theirs"
	run_one ours 10 >> "$W/ours"
	echo "round $round: dbench 4.0 $(tail -1 "$W/theirs")   ours $(tail -1 "$W/ours")   (ops/s, user s per Mops)"
done
t_ops=$(awk '{ print $1 }' "$W/theirs" | median)
o_ops=$(awk '{ print $1 }' "$W/ours" | median)
t_cpu=$(awk '{ print $2 }' "$W/theirs" | median)
o_cpu=$(awk '{ print $2 }' "$W/ours" | median)
echo "median ops/s: dbench 4.0 $t_ops, ours $o_ops, ratio $(awk -v a="$o_ops" -v b="$t_ops" 'BEGIN { printf "%.2f", a / b }')"
echo "median user CPU s per million ops: dbench 4.0 $t_cpu, ours $o_cpu"
fi

if want 3; then
echo
echo "== 3. harness cost (null backend: no I/O), 2 clients, 10 s"
for i in 1 2 3; do
	out=$(/usr/bin/time -f "TIME %U" "$OURS" -B null -c "$CLASSIC" -t 10 --warmup 0 2 2>&1)
	ops=$(echo "$out" | sed -n 's/^Operations \([0-9]*\) in.*/\1/p')
	user=$(echo "$out" | awk '/^TIME/ { print $2 }')
	awk -v o="$ops" -v u="$user" 'BEGIN { printf "%.4f\n", u / (o / 1e6) }'
done > "$W/null"
echo "user CPU s per million ops, 3 runs: $(tr '\n' ' ' < "$W/null")-> median $(median < "$W/null")"
if command -v valgrind >/dev/null; then
	head -20000 "$CLASSIC" > "$W/slice.txt"
	for n in 1 6; do
		rm -f "$W"/cg.*
		valgrind --tool=callgrind --callgrind-out-file="$W/cg.%p" "$OURS" -B null \
			-c "$W/slice.txt" --passes $n --seed 1 1 > /dev/null 2>&1 || true
		cat "$W"/cg.* | sed -n 's/^summary: *//p' | awk '{ s += $1 } END { print s }' > "$W/ir.$n"
	done
	echo "callgrind, null backend, 20,000-op slice: 1 pass $(cat "$W/ir.1") instructions, 6 passes $(cat "$W/ir.6");"
	echo "  $(awk -v a="$(cat "$W/ir.6")" -v b="$(cat "$W/ir.1")" 'BEGIN { printf "%.0f", (a - b) / 100000 }') instructions per op (parent, clients, every process)"
fi
fi

if want 4; then
echo
echo "== 4. equal work: strace -c -f over the same 40,000 lines, 1 client"
strace_run theirs "$THEIRS" -t 8 1
strace_run ours "$OURS" -t 8 1
for who in theirs ours; do
	echo "$(table_ops < "$W/out.$who") $((8 + 8 / 5))" > "$W/ops.$who"
done
# per 1000 ops (the window's ops scaled to the whole run, warmup included)
awk -v fo="$(cat "$W/ops.theirs")" -v fu="$(cat "$W/ops.ours")" '
	FNR == 1 { f++ }
	$4 ~ /^[0-9]+$/ && $1 ~ /^[0-9.]+$/ && $NF != "total" { calls[f, $NF] = $4; names[$NF] = 1 }
	END {
		split(fo, a, " "); split(fu, b, " ")
		ta = a[1] * a[2] / 8; tb = b[1] * b[2] / 8
		for (n in names) {
			x = calls[1, n] / ta * 1000; y = calls[2, n] / tb * 1000
			if (x >= 1 || y >= 1) printf "%-18s %14.1f %14.1f\n", n, x, y
		}
	}' "$W/strace.theirs" "$W/strace.ours" | sort -k2 -g -r | head -25 |
	(printf "%-18s %14s %14s\n" "syscall" "dbench 4.0" "ours"; cat)
echo "(calls per 1,000 loadfile ops; the harness's own calls -- kill/getppid per op in dbench 4.0,"
echo " clock_nanosleep/wait4 in ours -- differ by design)"
fi

if want 5; then
echo
echo "== 5. 1,000 clients on tmpfs, default loadfile, -t 10"
rm -rf "$W/fs"/* 2>/dev/null || true
start=$(date +%s.%N)
"$OURS" -D "$W/fs" -t 10 1000 > "$W/out1000" 2>&1 &
pid=$!
for i in $(seq 600); do
	grep -q "releasing clients" "$W/out1000" && break
	sleep 0.1
done
ready=$(date +%s.%N)
sleep 5
nchild=$(pgrep -c -P $pid || true)
pss=$( (for p in $(pgrep -P $pid | head -50); do awk '/^Pss:/ { print $2 }' /proc/$p/smaps_rollup 2>/dev/null || true; done) | median)
parent_pss=$(ps -o rss= -p $pid 2>/dev/null || echo "?")
rc=0
wait $pid || rc=$?
end=$(date +%s.%N)
echo "exit status $rc; set-up of 1,000 clients $(awk -v a="$start" -v b="$ready" 'BEGIN { printf "%.1f", b - a }') s;" \
	"$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s wall in all for 10 s + 2 s warmup"
grep -E "^(Operations|Throughput)" "$W/out1000" || tail -5 "$W/out1000"
echo "memory: median PSS per client process $pss KiB (50 of $nchild sampled), parent RSS $parent_pss KiB"
left=$(find "$W/fs" -mindepth 1 | wc -l)
echo "left in the target afterwards: $left entries; processes left: $(pgrep -c -f "$W/fs" || true)"
fi

if want 6 && [ -n "${BASE:-}" ]; then
BASE=$(realpath "$BASE")
ROUNDS=${ROUNDS:-5}
echo
echo "== 6. ours against BASE=$BASE: 2 clients, tmpfs, -t 10, classic client.txt ($ROUNDS rounds, A B A B)"
echo "load before: $(uptime)"
cpu_one() {	# $1 binary; prints "ops user_us_per_op sys_us_per_op total_us_per_op"
	local out
	rm -rf "$W/fs"/* 2>/dev/null || true
	out=$(cd "$W/fs" && /usr/bin/time -f "TIME %U %S" "$1" -c "$CLASSIC" -D "$W/fs" -t 10 --warmup 0 2 2>&1)
	echo "$out" | awk '/^Operations/ { ops = $2 } /^TIME/ { u = $2; s = $3 }
		END { printf "%d %.3f %.3f %.3f\n", ops, u / ops * 1e6, s / ops * 1e6, (u + s) / ops * 1e6 }'
}
: > "$W/cpu.base"; : > "$W/cpu.ours"
for round in $(seq "$ROUNDS"); do
	cpu_one "$BASE" >> "$W/cpu.base"
	cpu_one "$OURS" >> "$W/cpu.ours"
	echo "round $round: base $(tail -1 "$W/cpu.base")   ours $(tail -1 "$W/cpu.ours")   (ops, user/sys/total us per op)"
done
for col in 2 3 4; do
	b=$(awk -v c=$col '{ print $c }' "$W/cpu.base" | median)
	o=$(awk -v c=$col '{ print $c }' "$W/cpu.ours" | median)
	name=$(echo "x user system total" | cut -d' ' -f$col)
	echo "median $name CPU per op: base $b us, ours $o us, ratio $(awk -v a="$o" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
done
b=$(awk '{ print $1 }' "$W/cpu.base" | median)
o=$(awk '{ print $1 }' "$W/cpu.ours" | median)
echo "median ops in 10 s: base $b, ours $o, ratio $(awk -v a="$o" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
echo "load after: $(uptime)"
strace_run base6 "$BASE" --run-once 1
strace_run ours6 "$OURS" --run-once 1
for who in base6 ours6; do
	sed -n 's/^Operations \([0-9]*\) in.*/\1/p' "$W/out.$who" > "$W/ops.$who"
done
echo "syscalls per op over the same 40,000 lines, 1 client, --run-once (the whole process tree):"
awk -v ob="$(cat "$W/ops.base6")" -v oo="$(cat "$W/ops.ours6")" '
	FNR == 1 { f++ }
	$4 ~ /^[0-9]+$/ && $NF != "total" { calls[f, $NF] = $4; names[$NF] = 1 }
	$NF == "total" { total[f] = $4 }
	END {
		for (n in names) {
			x = calls[1, n] / ob; y = calls[2, n] / oo
			if (x >= 0.005 || y >= 0.005) printf "%-16s %10.3f %10.3f\n", n, x, y
		}
		printf "%-16s %10.3f %10.3f  ratio %.3f\n", "TOTAL", total[1] / ob, total[2] / oo, (total[2] / oo) / (total[1] / ob)
	}' "$W/strace.base6" "$W/strace.ours6" | sort -k2 -g -r | (printf "%-16s %10s %10s\n" syscall base ours; cat)
# user-space instructions per op: what CPU time cannot show on a loaded
# machine (the same count whatever else runs)
if command -v valgrind >/dev/null; then
	{ head -20000 "$CLASSIC"; echo 'Deltree "\clients\client1" NT_STATUS_OK'; } > "$W/slice20k.txt"
	for who in base6 ours6; do
		bin=$OURS
		[ "$who" = base6 ] && bin=$BASE
		rm -rf "$W/fs"/* "$W"/cg.* 2>/dev/null || true
		(cd "$W/fs" && valgrind --tool=callgrind --callgrind-out-file="$W/cg.%p" "$bin" \
			-c "$W/slice20k.txt" -D "$W/fs" --run-once 1 > "$W/cgout.$who" 2>&1) || true
		ops=$(sed -n 's/^Operations \([0-9]*\) in.*/\1/p' "$W/cgout.$who")
		cat "$W"/cg.* | sed -n 's/^summary: *//p' |
			awk -v o="$ops" '{ s += $1 } END { printf "%.0f\n", s / o }' > "$W/ir.$who"
	done
	echo "callgrind, the classic loadfile's first 20,000 lines, 1 client, --run-once: instructions per op" \
		"(every process): base $(cat "$W/ir.base6"), ours $(cat "$W/ir.ours6")," \
		"ratio $(awk -v a="$(cat "$W/ir.ours6")" -v b="$(cat "$W/ir.base6")" 'BEGIN { printf "%.3f", a / b }')"
fi
fi

if want 7; then
ROUNDS=${ROUNDS:-3}
echo
echo "== 7. --ioengine io_uring against psync: tmpfs, -t 10, classic client.txt ($ROUNDS rounds, A B A B)"
echo "load before: $(uptime)"
engine_one() {	# $1 engine, $2 clients per process; prints "ops_per_s total_us_per_op"
	local out
	rm -rf "$W/fs"/* 2>/dev/null || true
	out=$(cd "$W/fs" && /usr/bin/time -f "TIME %U %S" "$OURS" -c "$CLASSIC" -D "$W/fs" -t 10 \
		--warmup 0 --ioengine "$1" --clients-per-process "$2" 2 2>&1)
	echo "$out" | awk '/^Operations/ { ops = $2; rate = $6; sub(/^\(/, "", rate) }
		/^TIME/ { u = $2; s = $3 } END { printf "%.0f %.3f\n", rate, (u + s) / ops * 1e6 }'
}
for cpp in 1 8; do
	: > "$W/eng.psync"; : > "$W/eng.uring"
	for round in $(seq "$ROUNDS"); do
		engine_one psync "$cpp" >> "$W/eng.psync"
		engine_one io_uring "$cpp" >> "$W/eng.uring"
		echo "2 x $cpp clients, round $round: psync $(tail -1 "$W/eng.psync")   io_uring $(tail -1 "$W/eng.uring")   (ops/s, CPU us per op)"
	done
	for col in 1 2; do
		p=$(awk -v c=$col '{ print $c }' "$W/eng.psync" | median)
		u=$(awk -v c=$col '{ print $c }' "$W/eng.uring" | median)
		name=$(echo "x ops/s CPU_us/op" | cut -d' ' -f$((col + 1)))
		echo "2 x $cpp clients, median $name: psync $p, io_uring $u, ratio $(awk -v a="$u" -v b="$p" 'BEGIN { printf "%.3f", a / b }')"
	done
done
echo "load after: $(uptime)"
fi
