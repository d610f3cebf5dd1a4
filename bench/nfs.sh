#!/bin/bash
# bench/nfs.sh - speed figures of the nfs backend over NFSv3 and NFSv4
# against one local nfs-ganesha serving both (FSAL VFS on a tmpfs, in its
# private namespace, tests/lib/nfs.sh).  Not a test: it prints figures for a
# human to compare.  Needs root (namespaces).
#
#   bench/nfs.sh [DBENCH]        DBENCH defaults to build/src/dbench
#   SECS=10 CLIENTS="1 4" ROUNDS=2 VERSIONS="3 4" bench/nfs.sh
#   DBENCH_OLD=/tmp/old/build/src/dbench bench/nfs.sh   # a second build's v4
#                                                       # rows beside (v4-old)
#   LOADFILE=loadfiles/nfs.txt VERSIONS=3 bench/nfs.sh  # NFSv3 ops: v3 only
#
# The same loadfile (default loadfiles/client.txt, netbench ops, which both
# versions run) goes to every variant: v3 (--nfs-version 3), v4
# (--nfs-version 4) and, with DBENCH_OLD, v4-old (that build, NFSv4).  For
# each client count the variants alternate, ROUNDS times (A B A B), each a
# run of -t SECS without warmup; each run is one line, and the summary gives
# each variant's medians: ops/s, and the CPU each side spent per op: the
# clients' (the report's "Client CPU" line: user and system of the client
# processes, all phases) and ganesha's (/proc/PID/stat from the release to
# the end of the window).  The issue's goal: the client at most half the
# server's CPU per op (client/ganesha <= 0.50).  These 2-core machines are
# shared and noisy: trust medians and ratios, not single runs.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-1 4}
ROUNDS=${ROUNDS:-2}
VERSIONS=${VERSIONS:-3 4}
LOADFILE=$(realpath "${LOADFILE:-loadfiles/client.txt}")
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }
"$DBENCH" --help | grep -q -- --export || { echo "bench: $DBENCH has no nfs backend" >&2; exit 2; }

# the variants: label, NFS version, program
VARIANTS=()
for v in $VERSIONS; do
	case $v in
	3 | 4) VARIANTS+=("v$v $v $DBENCH") ;;
	*) echo "bench: VERSIONS: '$v' is not 3 or 4" >&2; exit 2 ;;
	esac
done
if [ -n "${DBENCH_OLD:-}" ]; then
	DBENCH_OLD=$(realpath "$DBENCH_OLD")
	[ -x "$DBENCH_OLD" ] || { echo "bench: DBENCH_OLD $DBENCH_OLD is not a program" >&2; exit 2; }
	VARIANTS+=("v4-old 4 $DBENCH_OLD")
fi

. tests/lib/nfs.sh
W=$(mktemp -d /tmp/dbench-bench-nfs.XXXXXX)
cleanup() {
	nfs_stop >/dev/null 2>&1 || true
	umount "$W/fs" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
# The export on a tmpfs (ON_DISK=1: on /tmp's file system), so that the
# figures are the server's and the client's, not the disk's.
if [ "${ON_DISK:-0}" != 1 ]; then
	mkdir "$W/fs"
	mount -t tmpfs -o size=2g tmpfs "$W/fs"
	export TMPDIR=$W/fs
fi
# one ganesha for both versions (v4 mounts the pseudo path /export, v3
# the same through mount_path_pseudo)
NFS_PROTOCOLS="3, 4" nfs_ns_start || { echo "bench: cannot start nfs-ganesha: $NFS_ERROR" >&2; exit 2; }
unset TMPDIR
GPID=$(nfs_server_pid)
TCK=$(getconf CLK_TCK)

# ganesha's user and system CPU seconds so far
server_cpu() { awk -v t="$TCK" '{ sub(/^.*\) /, ""); printf "%.3f %.3f\n", $12 / t, $13 / t }' "/proc/$GPID/stat"; }

echo "loadfile $LOADFILE, -t $SECS, no warmup, $ROUNDS rounds; server nfs-ganesha $(timeout 5 ganesha.nfsd -v 2>&1 | sed -n "s/.*Release = //p" | head -1) (NFSv3 and NFSv4.0, FSAL VFS on $(df --output=fstype "$NFS_EXPORT_DIR" | tail -1))"
echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
for var in "${VARIANTS[@]}"; do
	read -r label version prog <<<"$var"
	echo "  $label: $prog --nfs-version $version"
done

# run LABEL VERSION PROG N ROUND: one run; appends a row to $W/rows:
# label n round ops/s client-us/op ganesha-us/op (user+sys) mismatches bytes/op
run() {
	local label=$1 version=$2 prog=$3 n=$4 round=$5 out=$W/out.$1.$4.$5 pid su0 ss0 su1 ss1

	nfs_ns_exec "$prog" -B nfs --nfs-version "$version" --server 127.0.0.1 --export /export \
		--nfs-timeout 60 -c "$LOADFILE" -t "$SECS" --warmup 0 "$n" >"$out" 2>&1 &
	pid=$!
	# ganesha's CPU over the same interval as the clients' (the window)
	until grep -q "^releasing clients" "$out" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	read -r su0 ss0 < <(server_cpu)
	sleep "$SECS"
	read -r su1 ss1 < <(server_cpu)
	wait "$pid" || true
	awk -v label="$label" -v n="$n" -v r="$round" -v su="$(echo "$su1 - $su0" | bc)" \
		-v ss="$(echo "$ss1 - $ss0" | bc)" '
		/^Client CPU:/ { cu = $4; cs = $7; allops = $10 }
		/^Network:/ { sent = $2; recvd = $5 }
		/^Operations / { ops = $2; rate = $6; sub(/^\(/, "", rate) }
		/mismatches,/ { for (i = 1; i <= NF; i++) if ($i == "mismatches,") mm = $(i - 1) }
		END {
			if (!allops || !ops) {
				printf "%s %d %d failed\n", label, n, r
				exit
			}
			printf "%s %d %d %.1f %.2f %.2f %s %.0f\n", label, n, r, rate,
				(cu + cs) / allops * 1e6, (su + ss) / ops * 1e6, mm, (sent + recvd) / allops
		}' "$out" >>"$W/rows"
	tail -n 1 "$W/rows" | awk '$4 == "failed" { printf "   %-7s %d client%s round %d: FAILED\n", $1, $2, ($2 > 1 ? "s" : ""), $3; exit }
		{ printf "   %-7s %d client%s round %d: %9.1f ops/s  CPU per op: client %6.2f us, ganesha %6.2f us (ratio %.2f)  %s mismatches  %s bytes/op\n",
			$1, $2, ($2 > 1 ? "s" : ""), $3, $4, $5, $6, ($6 > 0 ? $5 / $6 : 0), $7, ($8 > 0 ? $8 : "(not counted)") }'
	if ! grep -q ", 0 mismatches," "$out"; then
		echo "   (mismatches or a failure:)"
		grep -E "mismatch|failed|not supported|not available|cannot" "$out" | head -5 | sed 's/^/     /'
	fi
}

: >"$W/rows"
for n in $CLIENTS; do
	echo
	echo "== $n client$([ "$n" -gt 1 ] && echo s)"
	for (( r = 1; r <= ROUNDS; r++ )); do
		for var in "${VARIANTS[@]}"; do
			# shellcheck disable=SC2086 # label version program
			run $var "$n" "$r"
		done
	done
done

echo
echo "== medians over $ROUNDS rounds (CPU per op: user+sys, microseconds)"
printf "   %-7s %7s %10s %12s %12s %14s\n" variant clients "ops/s" "client us" "ganesha us" "client/ganesha"
for n in $CLIENTS; do
	for var in "${VARIANTS[@]}"; do
		read -r label _ _ <<<"$var"
		awk -v l="$label" -v n="$n" '$1 == l && $2 == n && $4 != "failed" { print $4, $5, $6 }' "$W/rows" |
			awk -v l="$label" -v n="$n" '
			function median(a, k,   i, j, t) {
				for (i = 2; i <= k; i++)
					for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
				return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
			}
			{ k++; ops[k] = $1; cl[k] = $2; sv[k] = $3 }
			END {
				if (!k) { printf "   %-7s %7d %10s\n", l, n, "failed"; exit }
				o = median(ops, k); c = median(cl, k); s = median(sv, k)
				printf "   %-7s %7d %10.1f %12.2f %12.2f %14.2f\n", l, n, o, c, s, (s > 0 ? c / s : 0)
			}'
	done
done
