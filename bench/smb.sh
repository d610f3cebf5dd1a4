#!/bin/bash
# bench/smb.sh - the smb backend's speed against a private local smbd
# (tests/lib/smbd.sh): ops/s and MB/s for 1, 2 and 4 clients, and the CPU
# each side spends per operation -- the client processes (dbench and its
# children, from /usr/bin/time) and smbd (every process of its group, from
# /proc/PID/stat, children it reaped included).  The client must not be
# the bottleneck: its CPU per op should be at most half of smbd's.  Not a
# test: it prints figures for a human.  Needs root (smbd).
#
#   bench/smb.sh [DBENCH]        DBENCH defaults to build/src/dbench
#   SECS=10 CLIENTS="1 2 4" ROUNDS=2 LOADFILE=... bench/smb.sh
#
# A last row repeats 2 clients with libsmbclient's default tevent backend
# (epoll, DBENCH_SMB_TEVENT_DEFAULT=1) instead of the poll backend the smb
# backend picks, to show what that choice saves on the client.
#
# Rounds alternate over the client counts (1 2 4 1 2 4 ...): these 2-core
# machines are noisy, so the medians are what count.  Client and server
# share the machine's 2 cores, so the figures are the pair's, on loopback.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-1 2 4}
ROUNDS=${ROUNDS:-2}
LOADFILE=${LOADFILE:-loadfiles/client.txt}
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }
"$DBENCH" --help | grep -- --smb-share >/dev/null || { echo "bench: $DBENCH has no smb backend" >&2; exit 2; }

. tests/lib/smbd.sh
smbd_start || exit 2
W=$(mktemp -d /tmp/dbench-bench-smb.XXXXXX)
trap 'smbd_stop; rm -rf "$W"' EXIT
HZ=$(getconf CLK_TCK)

# CPU ticks (user, system) of every process of smbd's group, with the
# children they reaped (each connection is a child smbd).
smbd_ticks() {
	local p u=0 s=0 f
	for p in $(pgrep -g "$SMBD_PID"); do
		f=$(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null) || continue
		set -- $f
		u=$((u + $1 + $3))
		s=$((s + $2 + $4))
	done
	echo "$u $s"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# One run: prints "clients ops ops/s MB/s client_user_us client_sys_us smbd_user_us smbd_sys_us" (per op).
run_one() {
	local n=$1 tag=${2:-} out before after ops secs mbs cu cs
	before=$(smbd_ticks)
	out=$(/usr/bin/time -f "TIME %U %S" "$DBENCH" -B smb --smb-share "//127.0.0.1:$SMBD_PORT/share" \
		-c "$LOADFILE" -t "$SECS" --warmup 0 "$n" 2>&1)
	sleep 1	# smbd reaps the connection children
	after=$(smbd_ticks)
	ops=$(awk '/^Operations / { print $2 }' <<<"$out")
	secs=$(awk '/^Operations / { print $4 }' <<<"$out")
	mbs=$(awk '/^Throughput / { print $2 }' <<<"$out")
	read -r cu cs < <(awk '/^TIME/ { print $2, $3 }' <<<"$out")
	grep -q ", 0 mismatches," <<<"$out" || { echo "bench: mismatches or a failure:" >&2; echo "$out" >&2; exit 1; }
	set -- $before $after
	awk -v n="$n" -v o="$ops" -v t="$secs" -v m="$mbs" -v cu="$cu" -v cs="$cs" \
		-v su="$(($3 - $1))" -v ss="$(($4 - $2))" -v hz="$HZ" -v tag="$tag" 'BEGIN {
		printf "%s%d %d %.0f %.2f %.1f %.1f %.1f %.1f\n", tag, n, o, o / t, m,
			cu * 1e6 / o, cs * 1e6 / o, su / hz * 1e6 / o, ss / hz * 1e6 / o }'
}

echo "== smb backend against a private smbd on 127.0.0.1:$SMBD_PORT ($(smbd -V))"
echo "   loadfile $LOADFILE, -t $SECS --warmup 0, $ROUNDS rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
	for n in $CLIENTS; do
		run_one "$n" | tee -a "$W/runs"
	done
	DBENCH_SMB_TEVENT_DEFAULT=1 run_one 2 e | tee -a "$W/runs"
done >/dev/null
printf "\n%7s %9s %8s %10s %10s %10s %10s %10s %7s\n" clients ops/s MB/s "cli usr" "cli sys" "smbd usr" "smbd sys" "cli/smbd" ""
printf "%7s %9s %8s %10s %10s %10s %10s %10s\n" "" "" "" "us/op" "us/op" "us/op" "us/op" "(usr+sys)"
for n in $CLIENTS e2; do
	col() { awk -v n="$n" -v c="$1" '$1 == n { print $c }' "$W/runs" | median; }
	printf "%7s %9.0f %8.2f %10.1f %10.1f %10.1f %10.1f %10.2f\n" "$n" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" \
		"$(col 7)" "$(col 8)" "$(awk -v a="$(col 5)" -v b="$(col 6)" -v c="$(col 7)" -v d="$(col 8)" 'BEGIN { print (a + b) / (c + d) }')"
done
echo
echo "medians of $ROUNDS rounds; CPU per op covers the whole run (set-up and clean-up included);"
echo "e2: 2 clients with libsmbclient's default (epoll) tevent backend"
