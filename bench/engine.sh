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
#   SRV_ARGS="--workers 2" bench/engine.sh     (tbench: more tbench_srv options;
#                                               --workers: its connections on event loops)
#
# For each round it runs, one after the other (A B A B), CLIENTS clients as
# CLIENTS processes ("procs") and as PROCS processes of CLIENTS/PROCS
# clients each ("engine"), -t SECS without warmup, the shipped
# loadfiles/client.txt (tbench: Debian's /usr/share/dbench/client.txt when
# there), and prints per run and as medians:
#   ops/s        the report's Operations line;
#   client us/op the client processes' user+system CPU per op, all phases
#                (the report's "Client CPU" line);
#   server us/op tbench_srv's user+system CPU per op (its processes, a
#                connection each, reaped after the run, or its --workers,
#                read live; tbench only);
#   cs/op        context switches (voluntary + involuntary) of dbench and
#                its clients per op, all phases (/usr/bin/time's %w + %c);
#   RSS, PSS, USS/client  the client processes' resident, proportional
#                and private (Private_Clean + Private_Dirty) set size from
#                smaps_rollup, summed over the run's client processes (the
#                dbench children of its dbench, found in the process tree)
#                in the middle of the window, divided by the clients.  RSS
#                counts the pages a process shares (the compiled loadfile,
#                shared with the parent; libc) once for each process; PSS
#                splits them among their sharers; USS leaves them out.  An
#                engine process's figures include its fixed part (the
#                loadfile's pages it touched, the process's buffers): the
#                memory each further client adds is the slope, SLOPE=1;
#   mismatches   the report's count.
#   SLOPE=1      then runs one engine process of 64 and of 512 clients and
#                prints the RSS, PSS and USS each further client adds.
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
	# shellcheck disable=SC2086 # SRV_ARGS: options, a word each
	"$BUILD/src/tbench_srv" -v -p 0 -b 127.0.0.1 --max-clients 65536 --pid-file "$W/srv.pid" ${SRV_ARGS:-} \
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

# clients TOP: the client processes of the run under pid TOP (its
# /usr/bin/time): the dbench processes whose parent is a dbench, found in
# the process tree below TOP (not by command line: two runs' lines differ
# only in numbers).
clients() {
	ps -e -o pid=,ppid=,comm= | awk -v top="$1" '
		{ par[$1] = $2; comm[$1] = $3 }
		END {
			for (p in par) {
				if (comm[p] != "dbench" || comm[par[p]] != "dbench")
					continue
				for (q = par[p]; q in par && q != top && q > 1; q = par[q])
					;
				if (q == top)
					print p
			}
		}'
}

# memory PID...: the processes' summed Rss, Pss and private (Private_Clean
# + Private_Dirty: USS) memory in kB, from smaps_rollup, read by one awk.
# Rss counts every shared page (the compiled loadfile the clients share
# with the parent, libc) once a process; Pss splits shared pages among
# their sharers; USS is the memory that would go with the process.
memory() {
	printf '%s\n' "$@" | awk '
		{
			f = "/proc/" $1 "/smaps_rollup"	# a process gone: skipped
			while ((getline line < f) > 0) {
				split(line, w, " ")
				if (w[1] == "Rss:") r += w[2]
				else if (w[1] == "Pss:") p += w[2]
				else if (w[1] == "Private_Clean:" || w[1] == "Private_Dirty:") u += w[2]
			}
			close(f)
		}
		END { printf "%d %d %d\n", r, p, u }'
}

# sample TOP OUT: the memory of the run's client processes and how many
# there are, sampled once a second from the release (OUT's "releasing
# clients") to half-time: the sample that found the most of them.  The
# caller runs it as a real-time process where it may (root; `prioritize`):
# with 256 busy client processes and as many tbench_srv ones on 2 CPUs, a
# sampler at the default priority (or nice -10) gets a few thousandths of
# a CPU and saw the processes only after they had exited (0 kB).  A sample
# takes a few milliseconds of CPU.
prioritize() {
	chrt -f -p 1 "$BASHPID" >/dev/null 2>&1 || renice -n -10 -p "$BASHPID" >/dev/null 2>&1 || true
}

sample() {
	local pids best="0 0 0 0" m i
	until grep -q "^releasing clients" "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || { echo "$best"; return; }
		sleep 0.05
	done
	# from the 2nd second to half-time, once a second: the sample that
	# found the most processes (a late one may find them leaving)
	for ((i = 1; i <= (SECS + 1) / 2; i++)); do
		sleep 1
		pids=$(clients "$1")
		# shellcheck disable=SC2086 # one pid a word
		m="$(memory $pids) $(wc -w <<<"$pids")"
		if [ "${m##* }" -gt "${best##* }" ] || { [ "${m##* }" -eq "${best##* }" ] &&
			[ "${m%% *}" -gt "${best%% *}" ]; }; then
			best=$m
		fi
	done
	echo "$best"
}

# run LABEL NPROCS CPP [OPTION...] ROUND: one run, a row in $W/rows
# srv_cpu: tbench_srv's CPU time in clock ticks, its reaped children's
# (a process a connection) included; 0 for nfs (ganesha is not measured).
srv_cpu() {
	if [ -n "$SRV_PID" ]; then
		# the server, its reaped children, and its live ones (--workers)
		# shellcheck disable=SC2046 # a path a word
		awk -v top="$SRV_PID" '{ s += $14 + $15; if ($1 == top) s += $16 + $17 } END { print s }' \
			"/proc/$SRV_PID/stat" $(ps -o pid= --ppid "$SRV_PID" | awk '{ print "/proc/" $1 "/stat" }') 2>/dev/null
	else
		echo 0
	fi
}

# srv_reaped: wait (at most 10 s) until tbench_srv has reaped the
# processes of the run's connections, so that their CPU time is counted.
srv_reaped() {
	local i
	[ -n "$SRV_PID" ] || return 0
	[[ "${SRV_ARGS:-}" == *--workers* ]] && return 0	# workers live on
	for ((i = 0; i < 200; i++)); do
		[ -z "$(ps -o pid= --ppid "$SRV_PID")" ] && return 0
		sleep 0.05
	done
}

run() {
	local label=$1 np=$2 cpp=$3 round=${!#} out=$W/out tpid mem srv0 srv1
	local extra=("${@:4:$#-4}")

	srv_reaped
	srv0=$(srv_cpu)
	: >"$out"	# the sampler must not see the last run's "releasing clients"
	"${EXEC[@]}" /usr/bin/time -f "TIME %w %c" -o "$W/time" "${RUN[@]}" "${extra[@]}" \
		--clients-per-process "$cpp" -t "$SECS" --warmup 0 "$np" >"$out" 2>&1 &
	tpid=$!
	(
		prioritize
		sample "$tpid" "$out" >"$W/mem"
	) &
	wait "$tpid" || true
	wait $! || true
	mem=$(cat "$W/mem")
	srv_reaped
	srv1=$(srv_cpu)
	awk -v label="$label" -v r="$round" -v n="$CLIENTS" -v mem="$mem" -v srv="$((srv1 - srv0))" \
		-v hz="$(getconf CLK_TCK)" '
		/^TIME / { cs = $2 + $3 }
		/^Client CPU:/ { cu = $4; cs_ = $7; allops = $10 }
		/^Operations / { rate = $6; sub(/^\(/, "", rate) }
		/mismatches,/ { for (i = 1; i <= NF; i++) if ($i == "mismatches,") mm = $(i - 1) }
		END {
			split(mem, m, " ")
			if (!allops || !rate) { printf "%s %d failed\n", label, r; exit }
			printf "%s %d %.1f %.2f %.3f %.1f %.1f %.1f %s %d %.2f\n", label, r, rate, (cu + cs_) / allops * 1e6,
				cs / allops, m[1] / n, m[2] / n, m[3] / n, mm, m[4], srv / hz / allops * 1e6
		}' "$out" "$W/time" >>"$W/rows"
	tail -n 1 "$W/rows" | awk '$3 == "failed" { printf "   %-7s round %d: FAILED\n", $1, $2; exit }
		{ printf "   %-7s round %d: %9.1f ops/s  client %6.2f us/op  server %6.2f us/op  %6.3f cs/op  RSS %6.1f PSS %6.1f USS %6.1f kB/client (%d processes sampled)  %s mismatches\n",
			$1, $2, $3, $4, $11, $5, $6, $7, $8, $10, $9 }'
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
printf "   %-7s %10s %10s %10s %8s %10s %10s %10s %8s %8s\n" variant "ops/s" "client us" "server us" "cs/op" "RSS kB/cl" "PSS kB/cl" "USS kB/cl" "x ops" "x CPU"
awk -v labels="$(for v in "${VARIANTS[@]}"; do read -r l _ <<<"$v"; printf '%s ' "$l"; done)" '
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	$3 != "failed" { k = ++cnt[$1]; for (f = 3; f <= 11; f++) v[$1, f, k] = $f }
	END {
		nl = split(labels, L, " ")
		for (i = 1; i <= nl; i++) {
			l = L[i]; k = cnt[l]
			if (!k) { printf "   %-7s failed\n", l; continue }
			for (f = 3; f <= 11; f++) { delete a; for (j = 1; j <= k; j++) a[j] = v[l, f, j]; med[l, f] = median(a, k) }
			printf "   %-7s %10.1f %10.2f %10.2f %8.3f %10.1f %10.1f %10.1f %8.2f %8.2f\n", l, med[l, 3], med[l, 4],
				med[l, 11], med[l, 5], med[l, 6], med[l, 7], med[l, 8], med[l, 3] / med[L[1], 3],
				med[l, 4] / med[L[1], 4]
		}
	}' "$W/rows"

# The memory each further client of an engine process adds: one process of
# LO and of HI clients (-t SECS), sampled as above; the slope between them.
if [ "${SLOPE:-0}" = 1 ]; then
	LO=64 HI=512
	for n in "$LO" "$HI"; do
		: >"$W/out"
		"${EXEC[@]}" "${RUN[@]}" --clients-per-process "$n" -t "$SECS" --warmup 0 1 >"$W/out" 2>&1 &
		tpid=$!
		(
			prioritize
			sample "$tpid" "$W/out" >"$W/mem.$n"
		) &
		wait "$tpid" || true
		wait $! || true
	done
	echo
	read -r r1 p1 u1 n1 <"$W/mem.$LO"
	read -r r2 p2 u2 n2 <"$W/mem.$HI"
	if [ "$n1" = 1 ] && [ "$n2" = 1 ] && [ "$r1" -gt 0 ] && [ "$r2" -gt 0 ]; then
		awk -v r1="$r1" -v p1="$p1" -v u1="$u1" -v r2="$r2" -v p2="$p2" -v u2="$u2" -v lo="$LO" -v hi="$HI" 'BEGIN {
			printf "== one engine process, %d -> %d clients: RSS %d -> %d kB, PSS %d -> %d kB, USS %d -> %d kB\n", lo, hi, r1, r2, p1, p2, u1, u2
			printf "   each further client: RSS %.2f kB, PSS %.2f kB, USS %.2f kB\n", (r2 - r1) / (hi - lo), (p2 - p1) / (hi - lo), (u2 - u1) / (hi - lo)
		}'
	else
		echo "== slope: the client process was not sampled (found $n1 and $n2, $r1 and $r2 kB)"
	fi
fi
