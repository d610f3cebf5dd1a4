#!/bin/bash
# bench/nfs.sh - speed figures of the nfs backend against a local
# nfs-ganesha (FSAL VFS, in its private namespace, tests/lib/nfs.sh).  Not a
# test: it prints figures for a human to compare.  Needs root (namespaces).
#
#   bench/nfs.sh [DBENCH]        DBENCH defaults to build/src/dbench
#   SECS=10 CLIENTS="1 2 4" LOADFILE=loadfiles/nfs.txt ON_DISK=0 bench/nfs.sh
#
# For each client count, one run of -t SECS without warmup prints ops/s and
# the per-op average and largest response times, the bytes on the wire per
# op, and the CPU each side spent in the window, per op: the clients' (the
# report's "Client CPU" line: user and system of the client processes from
# the release to the end of their runs) and ganesha's (/proc/PID/stat from
# the release to the end of the window).  The client must not be the
# bottleneck: its CPU per op should be well under the server's.  These
# 2-core machines are noisy: run it twice and compare.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-1 2 4}
LOADFILE=$(realpath "${LOADFILE:-loadfiles/nfs.txt}")
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }
"$DBENCH" --help | grep -q -- --export || { echo "bench: $DBENCH has no nfs backend" >&2; exit 2; }

. tests/lib/nfs.sh
W=$(mktemp -d /tmp/dbench-bench-nfs.XXXXXX)
cleanup() {
	nfs_stop >/dev/null 2>&1 || true
	umount "$W/fs" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
# The export on a tmpfs (ON_DISK=1: on /tmp's file system), so that the
# figures are the server's and the client's, not the disk's.
if [ "${ON_DISK:-0}" != 1 ]; then
	mkdir "$W/fs"
	mount -t tmpfs -o size=2g tmpfs "$W/fs"
	export TMPDIR=$W/fs
fi
nfs_ns_start || { echo "bench: cannot start nfs-ganesha: $NFS_ERROR" >&2; exit 2; }
unset TMPDIR
GPID=$(nfs_server_pid)
TCK=$(getconf CLK_TCK)

# ganesha's user and system CPU seconds so far
server_cpu() { awk -v t="$TCK" '{ sub(/^.*\) /, ""); printf "%.3f %.3f\n", $12 / t, $13 / t }' "/proc/$GPID/stat"; }

echo "loadfile $LOADFILE, -t $SECS, no warmup; server nfs-ganesha $(timeout 5 ganesha.nfsd -v 2>&1 | sed -n "s/.*Release = //p" | head -1) (FSAL VFS on $(df --output=fstype "$NFS_EXPORT_DIR" | tail -1))"
echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
for n in $CLIENTS; do
	nfs_ns_exec "$DBENCH" -B nfs --server 127.0.0.1 --export /export \
		-c "$LOADFILE" -t "$SECS" --warmup 0 "$n" >"$W/out.$n" 2>&1 &
	pid=$!
	# ganesha's CPU over the same interval as the clients' (the window)
	until grep -q "^releasing clients" "$W/out.$n" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	read -r su0 ss0 < <(server_cpu)
	sleep "$SECS"
	read -r su1 ss1 < <(server_cpu)
	wait "$pid" || true
	awk -v n="$n" -v su="$(echo "$su1 - $su0" | bc)" -v ss="$(echo "$ss1 - $ss0" | bc)" '
		/^Client CPU:/ { cu = $4; cs = $7; allops = $10 }
		/^Network:/ { sent = $2; recvd = $5 }
		/^Operations / { ops = $2; rate = $6; sub(/^\(/, "", rate) }
		/^ -----/ { t = 1; next }
		t && NF == 4 && $2 ~ /^[0-9]+$/ { name[++k] = $1; avg[k] = $3; max[k] = $4; cnt[k] = $2 }
		t && NF == 0 { t = 0 }
		END {
			printf "\n== %d client%s: %s ops/s (%d ops)\n", n, (n > 1 ? "s" : ""), rate, ops
			printf "   %-14s %8s %9s %9s\n", "operation", "count", "avg ms", "max ms"
			for (i = 1; i <= k; i++)
				printf "   %-14s %8d %9.3f %9.3f\n", name[i], cnt[i], avg[i], max[i]
			if (!allops)
				exit
			printf "   wire: %.0f bytes sent, %.0f received per op\n", sent / allops, recvd / allops
			printf "   CPU per op (us): client user %.1f sys %.1f | ganesha user %.1f sys %.1f | client/ganesha user %.2f, user+sys %.2f\n",
				cu / allops * 1e6, cs / allops * 1e6, su / allops * 1e6, ss / allops * 1e6,
				(su > 0 ? cu / su : 0), ((su + ss) > 0 ? (cu + cs) / (su + ss) : 0)
		}' "$W/out.$n"
	grep -q ", 0 mismatches," "$W/out.$n" || { echo "   (mismatches or a failure:)"; grep -E "mismatch|failed" "$W/out.$n" | head -5; }
done
