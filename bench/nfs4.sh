#!/bin/bash
# bench/nfs4.sh - the NFSv4 adapter (-B nfs --nfs-version 4) against a
# private v4-only nfs-ganesha (tests/lib/nfs.sh): RPCs per operation and
# ops/s, optionally side by side with another dbench (A B A B).  Not a test:
# it prints figures for a human to compare.  Needs root (namespaces).
#
#   bench/nfs4.sh [NEW [OLD]]     NEW defaults to build/src/dbench
#   SECS=10 ROUNDS=2 CLIENTS="1 4" LOADS="default classic" bench/nfs4.sh
#   FULL=1 bench/nfs4.sh          also the whole of Debian's client.txt, once
#                                 per client (--run-once), 1 and 4 clients
#   PARTS="rpcs speed full"       which parts to run (default: rpcs speed)
#
# 1. RPCs: one --run-once pass of each loadfile with 1 client while dumpcap
#    records the namespace's lo; tshark counts the NFSv4 COMPOUND calls
#    (RPC calls, rpc.msgtyp == 0) and prints them per dbench op, and the
#    COMPOUNDs by their operations (PUTFH and the like left out).
#    "classic" is the first CLASSIC_LINES (default 20000) lines of
#    /usr/share/dbench/client.txt for this part.
# 2. ops/s: -t SECS runs, for each client count, NEW then OLD, ROUNDS times
#    (A B A B); medians.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
NEW=$(realpath "${1:-build/src/dbench}")
OLD=${2:+$(realpath "$2")}
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-2}
CLIENTS=${CLIENTS:-1 4}
LOADS=${LOADS:-default classic}
CLASSIC=/usr/share/dbench/client.txt
for d in "$NEW" ${OLD:+"$OLD"}; do
	[ -x "$d" ] || { echo "bench: no dbench at $d" >&2; exit 2; }
	"$d" --help | grep -- --export >/dev/null || { echo "bench: $d has no nfs backend" >&2; exit 2; }
done
if ! command -v tshark >/dev/null || ! command -v dumpcap >/dev/null; then
	echo "bench: needs tshark and dumpcap (wireshark-common)" >&2
	exit 2
fi

. tests/lib/nfs.sh
W=$(mktemp -d /tmp/dbench-bench-nfs4.XXXXXX)
cleanup() {
	nfs_stop >/dev/null 2>&1 || true
	rm -rf "$W"
}
trap cleanup EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
export NFS_PROTOCOLS=4
nfs_ns_start >/dev/null || { echo "bench: cannot start ganesha: $NFS_ERROR" >&2; exit 2; }

loadfile() {
	case $1 in
	default) echo "$PWD/loadfiles/client.txt" ;;
	classic) echo "$CLASSIC" ;;
	*) realpath "$1" ;;
	esac
}

run() {	# DBENCH ARGS...: the report on stdout
	nfs_ns_exec timeout 900 "$1" -B nfs --nfs-version 4 --server 127.0.0.1 \
		--export /export --nfs-timeout 30 "${@:2}" 2>&1
}

ops_of() {	# REPORT: the op count of the "Operations N in" line
	sed -n 's/^Operations \([0-9]*\) in .*/\1/p' "$1"
}

rpcs() {	# NAME DBENCH LOADFILE
	local name=$1 db=$2 load=$3 cap pid calls ops i
	cap=$W/$name.$(basename "$load").pcapng
	# a large capture buffer: a dropped frame is a COMPOUND not counted
	nfs_ns_exec dumpcap -q -B 256 -i lo -f "tcp port 2049" -w "$cap" 2>"$W/dumpcap.err" &
	pid=$!
	for (( i = 0; i < 100; i++ )); do
		[ -s "$cap" ] && break
		sleep 0.1
	done
	sleep 0.5
	run "$db" -c "$load" --run-once 1 >"$W/report" || true
	sleep 1
	# dumpcap itself (a SIGINT to the subshell would make this script
	# act as if interrupted)
	# shellcheck disable=SC2046 # a list of pids
	kill -TERM $(pgrep -P "$pid") 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ops=$(ops_of "$W/report")
	grep -q ", 0 mismatches," "$W/report" ||
		echo "  $name: mismatches or failure: $(grep -m1 'mismatch\|failed' "$W/report")"
	[ ! -s "$W/dumpcap.err" ] || grep -i "drop" "$W/dumpcap.err" | sed 's/^/  dumpcap: /' || true
	# tshark -V lists each RPC of a frame with its operations: one line
	# per COMPOUND call, its operations without the walk (PUTFH,
	# PUTROOTFH, LOOKUP, GETFH, SAVEFH, RESTOREFH) and without a GETATTR
	# that follows another operation
	tshark -r "$cap" -Y "rpc.msgtyp == 0" -V 2>/dev/null | awk '
		function flush() { if (incall) print (s == "" ? (look ? "LOOKUP" : "(walk only)") : s); incall = 0 }
		/^Remote Procedure Call, Type:Call/ { flush(); incall = 1; s = ""; look = 0; next }
		/^Remote Procedure Call, Type:Reply/ { flush(); next }
		incall && /^ *Opcode: [A-Z_]+ \(/ {
			op = $2
			if (op ~ /^(PUTFH|PUTROOTFH|GETFH|SAVEFH|RESTOREFH)$/) next
			if (op == "LOOKUP") { look = 1; next }
			if (op == "GETATTR" && s != "") next
			s = s (s == "" ? "" : "+") op
		}
		END { flush() }' >"$W/calls"
	calls=$(wc -l <"$W/calls")
	printf '%-8s %-22s ops %7s  COMPOUNDs %7s  per op %s\n' "$name" "$(basename "$load")" \
		"$ops" "$calls" "$(awk -v c="$calls" -v o="$ops" 'BEGIN { printf "%.2f", o ? c / o : 0 }')"
	# WRITE+WRITE+... in one line are several calls in one TCP segment:
	# counted per call above; here by kind
	sed 's/\(WRITE+\)*WRITE/WRITE/' "$W/calls" | sort | uniq -c | sort -rn | sed 's/^/   /'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

PARTS=${PARTS:-rpcs speed}
[ "${FULL:-0}" = 1 ] && PARTS="$PARTS full"
[[ " $PARTS " == *" rpcs "* ]] && echo "== RPCs (one pass, 1 client)"
[[ " $PARTS " == *" rpcs "* ]] && for l in $LOADS; do
	load=$(loadfile "$l")
	if [ "$l" = classic ]; then
		head -n "${CLASSIC_LINES:-20000}" "$CLASSIC" >"$W/classic.txt"
		load=$W/classic.txt
	fi
	rpcs new "$NEW" "$load"
	[ -z "$OLD" ] || rpcs old "$OLD" "$load"
done

[[ " $PARTS " == *" speed "* ]] && echo "== ops/s (-t $SECS, medians of $ROUNDS, A B A B)"
[[ " $PARTS " == *" speed "* ]] && for l in $LOADS; do
	load=$(loadfile "$l")
	for n in $CLIENTS; do
		: >"$W/new.ops"
		: >"$W/old.ops"
		for (( r = 0; r < ROUNDS; r++ )); do
			run "$NEW" -c "$load" -t "$SECS" --warmup 1 "$n" >"$W/report" || true
			sed -n 's/.*(\([0-9.]*\) ops\/sec).*/\1/p' "$W/report" >>"$W/new.ops"
			grep -q ", 0 mismatches," "$W/report" || echo "  new: mismatches or failure: $(grep -m1 'mismatch\|failed' "$W/report")"
			if [ -n "$OLD" ]; then
				run "$OLD" -c "$load" -t "$SECS" --warmup 1 "$n" >"$W/report" || true
				sed -n 's/.*(\([0-9.]*\) ops\/sec).*/\1/p' "$W/report" >>"$W/old.ops"
			fi
		done
		printf '%-8s %2s clients  new %9s ops/s (%s)' "$l" "$n" "$(median <"$W/new.ops")" \
			"$(tr '\n' ' ' <"$W/new.ops")"
		[ -z "$OLD" ] || printf '  old %9s ops/s (%s)' "$(median <"$W/old.ops")" "$(tr '\n' ' ' <"$W/old.ops")"
		echo
	done
done

if [[ " $PARTS " == *" full "* ]]; then
	echo "== the whole of $CLASSIC, once per client"
	for n in 1 4; do
		s=$(date +%s)
		run "$NEW" -c "$CLASSIC" --run-once "$n" >"$W/report" || true
		printf '%2s clients: %s s, %s\n' "$n" "$(( $(date +%s) - s ))" \
			"$(grep '^Operations' "$W/report")"
	done
fi
