#!/bin/bash
# bench/engine.sh - many clients in a few processes (the event loop of an
# asynchronous backend, --clients-per-process) side by side with a process
# per client, against the real server on loopback.  Not a test: it prints
# figures for a human to compare.
#
#   bench/engine.sh [BUILDDIR]                 BUILDDIR defaults to build
#   TARGET=tbench CLIENTS=256 PROCS=2 bench/engine.sh    (the defaults)
#   TARGET=nfs3 CLIENTS=64 bench/engine.sh     nfs-ganesha, NFSv3 (needs root)
#   TARGET=nfs4 CLIENTS=1000 SECS=20 bench/engine.sh
#   SECS=10 ROUNDS=3 NFS_SHARE=1 ... (nfs: --nfs-connection shared as a third variant)
#
# For each round it runs, one after the other (A B A B), CLIENTS clients as
# CLIENTS processes ("procs") and as PROCS processes of CLIENTS/PROCS
# clients each ("engine"), -t SECS without warmup, the shipped
# loadfiles/client.txt (tbench: Debian's /usr/share/dbench/client.txt when
# there), and prints per run and as medians:
#   ops/s        the report's Operations line;
#   client us/op the client processes' user+system CPU per op, all phases
#                (the report's "Client CPU" line);
#   cs/op        context switches (voluntary + involuntary) of dbench and
#                its clients per op, all phases (/usr/bin/time's %w + %c);
#   RSS, PSS/client  the client processes' resident and proportional set
#                size (smaps_rollup), summed in the middle of the window,
#                per client;
#   mismatches   the report's count.
# The issue's targets: tbench 256 clients in 2 processes >= 1.3x the ops/s
# of 256 processes at <= 0.45x their client CPU per op; NFSv3 64 clients in
# 2 processes >= 1.0x at <= 0.6x; 1,000 clients with 0 mismatches.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
DBENCH=$BUILD/src/dbench
TARGET=${TARGET:-tbench}
CLIENTS=${CLIENTS:-256}
PROCS=${PROCS:-2}
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-3}
[ -x "$DBENCH" ] || { echo "bench: build first ($BUILD)" >&2; exit 2; }
[ $((CLIENTS % PROCS)) -eq 0 ] || { echo "bench: CLIENTS must be a multiple of PROCS" >&2; exit 2; }
CPP=$((CLIENTS / PROCS))
LOADFILE=$(realpath loadfiles/client.txt)

W=$(mktemp -d /tmp/dbench-bench-engine.XXXXXX)
SRV_PID=
cleanup() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null
	if [ "$TARGET" != tbench ]; then
		nfs_stop >/dev/null 2>&1 || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

case $TARGET in
tbench)
	[ -r /usr/share/dbench/client.txt ] && LOADFILE=/usr/share/dbench/client.txt
	"$BUILD/src/tbench_srv" -v -p 0 -b 127.0.0.1 --max-clients 65536 --pid-file "$W/srv.pid" \
		2>"$W/srv.log" &
	SRV_PID=$!
	for _ in $(seq 100); do
		PORT=$(sed -n 's/.*listening on .*:\([0-9]*\).*/\1/p' "$W/srv.log" | head -1)
		[ -n "$PORT" ] && break
		sleep 0.05
	done
	[ -n "$PORT" ] || { echo "bench: tbench_srv did not start" >&2; cat "$W/srv.log" >&2; exit 2; }
	RUN=("$DBENCH" -B sockio --server "127.0.0.1:$PORT" -c "$LOADFILE")
	EXEC=()
	;;
nfs3 | nfs4)
	[ "$(id -u)" = 0 ] || { echo "bench: nfs needs root (namespaces)" >&2; exit 2; }
	. tests/lib/nfs.sh
	NFS_PROTOCOLS="3, 4" nfs_ns_start || { echo "bench: cannot start nfs-ganesha: $NFS_ERROR" >&2; exit 2; }
	RUN=("$DBENCH" -B nfs --nfs-version "${TARGET#nfs}" --server 127.0.0.1 --export /export
		--nfs-timeout 60 -c "$LOADFILE")
	EXEC=(nfs_ns_exec)
	;;
*) echo "bench: TARGET: tbench, nfs3 or nfs4" >&2; exit 2 ;;
esac

VARIANTS=("procs $CLIENTS 1" "engine $PROCS $CPP")
if [ "${NFS_SHARE:-0}" = 1 ]; then
	VARIANTS+=("shared $PROCS $CPP --nfs-connection shared")
fi

echo "target $TARGET, $CLIENTS clients, loadfile $LOADFILE, -t $SECS, no warmup, $ROUNDS rounds"
echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# memory PATTERN: sum of the client processes' Rss and Pss (kB) now: the
# dbench processes whose parent is a dbench whose command line ends with
# PATTERN
memory() {
	local pid rss=0 pss=0 r p
	for pid in $(ps -e -o pid=,ppid=,comm=,args= | awk -v pat="$1" '
		{ comm[$1] = $3; par[$1] = $2; a = $0; sub(/^ *[0-9]+ +[0-9]+ +[^ ]+ +/, "", a); args[$1] = a }
		END { for (p in comm) if (comm[p] == "dbench" && comm[par[p]] == "dbench" && args[par[p]] ~ pat) print p }'); do
		r=$(awk '/^Rss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
		p=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
		rss=$((rss + ${r:-0}))
		pss=$((pss + ${p:-0}))
	done
	echo "$rss $pss"
}

# run LABEL NPROCS CPP [OPTION...] ROUND: one run, a row in $W/rows
run() {
	local label=$1 np=$2 cpp=$3 round=${!#} out=$W/out tpid mem
	local extra=("${@:4:$#-4}")

	"${EXEC[@]}" /usr/bin/time -f "TIME %w %c" -o "$W/time" "${RUN[@]}" "${extra[@]}" \
		--clients-per-process "$cpp" -t "$SECS" --warmup 0 "$np" >"$out" 2>&1 &
	tpid=$!
	sleep 0.2
	until grep -q "^releasing clients" "$out" 2>/dev/null; do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.05
	done
	sleep "$((SECS / 2))"
	mem=$(memory "clients-per-process $cpp -t $SECS --warmup 0 $np\$")
	wait "$tpid" || true
	awk -v label="$label" -v r="$round" -v n="$CLIENTS" -v mem="$mem" '
		/^TIME / { cs = $2 + $3 }
		/^Client CPU:/ { cu = $4; cs_ = $7; allops = $10 }
		/^Operations / { rate = $6; sub(/^\(/, "", rate) }
		/mismatches,/ { for (i = 1; i <= NF; i++) if ($i == "mismatches,") mm = $(i - 1) }
		END {
			split(mem, m, " ")
			if (!allops || !rate) { printf "%s %d failed\n", label, r; exit }
			printf "%s %d %.1f %.2f %.3f %.1f %.1f %s\n", label, r, rate, (cu + cs_) / allops * 1e6,
				cs / allops, m[1] / n, m[2] / n, mm
		}' "$out" "$W/time" >>"$W/rows"
	tail -n 1 "$W/rows" | awk '$3 == "failed" { printf "   %-7s round %d: FAILED\n", $1, $2; exit }
		{ printf "   %-7s round %d: %9.1f ops/s  client %6.2f us/op  %6.3f cs/op  RSS %7.1f kB/client  PSS %7.1f kB/client  %s mismatches\n",
			$1, $2, $3, $4, $5, $6, $7, $8 }'
	if ! grep -q ", 0 mismatches," "$out" || grep -q "failed" "$out"; then
		grep -E "mismatch|failed|cannot|error" "$out" | head -5 | sed 's/^/     /'  || true
	fi
}

: >"$W/rows"
for ((r = 1; r <= ROUNDS; r++)); do
	for v in "${VARIANTS[@]}"; do
		# shellcheck disable=SC2086 # label nprocs cpp options
		run $v "$r"
	done
done

echo
echo "== medians over $ROUNDS rounds; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "   %-7s %10s %10s %8s %12s %12s %8s %8s\n" variant "ops/s" "client us" "cs/op" "RSS kB/cl" "PSS kB/cl" "x ops" "x CPU"
for v in "${VARIANTS[@]}"; do
	read -r label _ <<<"$v"
	awk -v l="$label" '$1 == l && $3 != "failed" { print $3, $4, $5, $6, $7 }' "$W/rows"
done >/dev/null
awk -v labels="$(for v in "${VARIANTS[@]}"; do read -r l _ <<<"$v"; printf '%s ' "$l"; done)" '
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	$3 != "failed" { k = ++cnt[$1]; for (f = 3; f <= 7; f++) v[$1, f, k] = $f }
	END {
		nl = split(labels, L, " ")
		for (i = 1; i <= nl; i++) {
			l = L[i]; k = cnt[l]
			if (!k) { printf "   %-7s failed\n", l; continue }
			for (f = 3; f <= 7; f++) { delete a; for (j = 1; j <= k; j++) a[j] = v[l, f, j]; med[l, f] = median(a, k) }
			printf "   %-7s %10.1f %10.2f %8.3f %12.1f %12.1f %8.2f %8.2f\n", l, med[l, 3], med[l, 4], med[l, 5],
				med[l, 6], med[l, 7], med[l, 3] / med[L[1], 3], med[l, 4] / med[L[1], 4]
		}
	}' "$W/rows"
