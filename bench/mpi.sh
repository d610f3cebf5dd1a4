#!/bin/bash
# bench/mpi.sh - what --mpi costs: the same total clients in one dbench
# (no MPI) and in 2 ranks (mpirun -np 2 dbench --mpi), on this machine,
# for the null backend and for tbench against a private tbench_srv on
# 127.0.0.1.  Not a test: it prints figures for a human to compare.
#
#   bench/mpi.sh [BUILDDIR]          BUILDDIR defaults to build
#   T=SECS ROUNDS=N CLIENTS=N bench/mpi.sh
#
# Each round runs single then 2 ranks (A B A B), ROUNDS times (default 3),
# -t T (default 5, warmup 1), CLIENTS total (default 4), and prints per
# backend the median throughput of each, their ratio (2 ranks / single:
# the target is within 5%), and rank 0's cost of the once-a-second
# exchange: the CPU its main thread spent in it (waiting for the other
# ranks included), per exchange, from the --json document's
# mpi.exchange_cpu_ns / mpi.exchanges.
#
# Both ranks run on this machine (one CPU pair), so the 2-rank figure
# includes the second parent process and MPI's own progress threads on the
# same cores as the clients.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
DBENCH=$BUILD/src/dbench
TBENCH=$BUILD/src/tbench
SRV=$BUILD/src/tbench_srv
T=${T:-5}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-4}
[ -x "$DBENCH" ] && [ -x "$SRV" ] || { echo "bench: build first ($BUILD)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "bench: mpirun not found (openmpi-bin)" >&2; exit 2; }
"$DBENCH" --mpi --mpi-timeout 0 -B null 1 2>&1 | grep -q 'built without MPI' &&
	{ echo "bench: $DBENCH was built without MPI" >&2; exit 2; }

W=$(mktemp -d /tmp/mpi-bench.XXXXXX)
SRV_PID=
cleanup() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT

"$SRV" -p 0 -b 127.0.0.1 -v --pid-file "$W/srv.pid" 2>"$W/srv.log" &
for _ in $(seq 100); do
	[ -s "$W/srv.pid" ] && grep -q listening "$W/srv.log" && break
	sleep 0.05
done
SRV_PID=$(cat "$W/srv.pid")
PORT=$(sed -n 's/.*listening on .*:\([0-9]*\).*/\1/p' "$W/srv.log" | head -1)
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np 2)

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

bench() {
	local name=$1 i
	shift
	: >"$W/$name.single"
	: >"$W/$name.mpi"
	: >"$W/$name.cpu"
	for i in $(seq "$ROUNDS"); do
		"$@" -t "$T" --warmup 1 --json "$W/s.json" "$CLIENTS" >/dev/null 2>&1
		field "$W/s.json" 'd["results"]["throughput_mb_per_sec"]' >>"$W/$name.single"
		"${MPIRUN[@]}" "$@" --mpi -t "$T" --warmup 1 --json "$W/m.json" "$CLIENTS" >/dev/null 2>&1
		field "$W/m.json" 'd["results"]["throughput_mb_per_sec"]' >>"$W/$name.mpi"
		field "$W/m.json" 'd["mpi"]["exchange_cpu_ns"] / max(d["mpi"]["exchanges"], 1) / 1e3' >>"$W/$name.cpu"
	done
	local s m c
	s=$(median <"$W/$name.single")
	m=$(median <"$W/$name.mpi")
	c=$(median <"$W/$name.cpu")
	printf '%-8s %12.2f %12.2f %8.3f %16.1f\n' "$name" "$s" "$m" "$(echo "$m / $s" | bc -l)" "$c"
	printf '         single: %s\n         2 ranks: %s\n' "$(tr '\n' ' ' <"$W/$name.single")" \
		"$(tr '\n' ' ' <"$W/$name.mpi")"
}

echo "$CLIENTS clients in all, -t $T, $ROUNDS rounds (A B A B), medians"
printf '%-8s %12s %12s %8s %16s\n' backend "single MB/s" "2 ranks MB/s" ratio "rank0 us/exch"
bench null "$DBENCH" -B null -D "$W"
bench tbench "$TBENCH" --server 127.0.0.1 --port "$PORT"
