#!/bin/bash
# bench/tbench.sh - tbench and tbench_srv's speed, side by side with
# Debian's tbench/tbench_srv 4.0 (apt-get install dbench), on loopback,
# both with the same loadfile (/usr/share/dbench/client.txt).  Not a test:
# it prints figures for a human to compare.  Needs root (ip netns).
#
#   bench/tbench.sh [BUILDDIR]     BUILDDIR defaults to build
#   T=SECS ROUNDS=N CLIENTS="1 2 4" PINNING="none split one" bench/tbench.sh
#
# Everything runs in a private network namespace made for the run, so
# that tbench_srv 4.0, which always listens on port 7003, has a free port
# whatever else runs on the machine; ours listens on a port the kernel
# picks.  Both servers are stopped by their PIDs and the namespace is
# removed at the end.
#
# For each pinning (none; server on CPU 0 and client on CPU 1; both on
# CPU 0) and each client count, it runs 4.0 and ours alternately, A B A B,
# ROUNDS times (default 3), -t T (default 6; warmup T/5 for both), and
# prints the medians of:
#   MB/s         the Throughput line;
#   client us/op the client process tree's user CPU (from /usr/bin/time)
#                per op, the op-table counts scaled from the measured
#                window to the warmup and the window together; for ours
#                also "clients only", the client processes' own user CPU
#                per op (its "Client CPU" line), which leaves out the
#                parent's one-time loadfile compile (4.0 parses as it
#                goes, so its figure has no such split);
#   server us/op the server's user+system CPU per op, its connection
#                processes included (the server runs in a cgroup of its
#                own: cgroup v2's cpu.stat; "-" where there is none).
# The targets: our MB/s at least 4.0's, our client user CPU per op at most
# a third of 4.0's.  For scale it also measures the floor: the user CPU of
# a bare loop of 32-byte round trips against our server (the test client's
# bench-rtt: one send and one recv each, nothing else), for each pinning.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
OURS=$BUILD/src/tbench
OURS_SRV=$BUILD/src/tbench_srv
ABUSE=$BUILD/tests/tools/tbench_abuse
THEIRS=/usr/bin/tbench
THEIRS_SRV=/usr/bin/tbench_srv
CLASSIC=/usr/share/dbench/client.txt
T=${T:-6}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-1 2 4}
PINNING=${PINNING:-none split one}
[ -x "$THEIRS" ] && [ -x "$THEIRS_SRV" ] && [ -r "$CLASSIC" ] ||
	{ echo "bench: apt-get install dbench first" >&2; exit 2; }
[ -x "$OURS" ] && [ -x "$OURS_SRV" ] || { echo "bench: build first ($BUILD)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (ip netns)" >&2; exit 2; }

W=$(mktemp -d /tmp/tbench-bench.XXXXXX)
NS=tbench-bench-${W##*.}
CG=
SRV_PIDS=()
cleanup() {
	local pid i
	for pid in "${SRV_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	# Anything else still in the namespace was started by this script.
	for pid in $(ip netns pids "$NS" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	ip netns del "$NS" 2>/dev/null || true
	for i in $(seq 20); do
		[ -n "$CG" ] && [ -d "$CG" ] || break
		rmdir "$CG"/* "$CG" 2>/dev/null || sleep 0.1
	done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$NS"
ip -n "$NS" link set lo up
# The servers' CPU, connection processes included: a cgroup v2 each.
for root in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ -e "$root/cgroup.procs" ] && [ ! -e "$root/cgroup.type" ] &&
		mkdir "$root/$NS" "$root/$NS/ours" "$root/$NS/theirs" 2>/dev/null; then
		CG=$root/$NS
		break
	fi
done
# tbench 4.0 writes nothing, but runs where it is started.
cd "$W"

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Sum of an op table's counts (tbench 4.0 prints no total).
table_ops() { awk '/^ -----/ { t = 1; next } t && NF == 4 && $2 ~ /^[0-9]+$/ { s += $2 } t && NF == 0 { t = 0 } END { print s + 0 }'; }

# CPU seconds (user + system) used in the cgroup of a server: ours|theirs.
server_cpu() {
	if [ -z "$CG" ]; then
		echo 0
		return
	fi
	awk '$1 == "usage_usec" { print $2 / 1e6 }' "$CG/$1/cpu.stat"
}

# pin_server MODE / pin_client MODE: the taskset prefix, or nothing.
pin_server() { case $1 in split|one) echo "taskset -c 0" ;; esac; }
pin_client() { case $1 in split) echo "taskset -c 1" ;; one) echo "taskset -c 0" ;; esac; }

# start_servers MODE: both servers in the namespace, pinned as MODE says;
# sets OURS_PID, OURS_PORT, THEIRS_PID.
start_servers() {
	local _
	rm -f "$W/srv.pid" "$W/srv.log"
	# shellcheck disable=SC2046
	ip netns exec "$NS" $(pin_server "$1") "$OURS_SRV" -v -p 0 -b 127.0.0.1 \
		--pid-file "$W/srv.pid" 2>"$W/srv.log" &
	# shellcheck disable=SC2046
	ip netns exec "$NS" $(pin_server "$1") "$THEIRS_SRV" >"$W/srv4.log" 2>&1 &
	THEIRS_PID=$!
	SRV_PIDS+=("$THEIRS_PID")
	for _ in $(seq 100); do
		[ -s "$W/srv.pid" ] && grep -q listening "$W/srv.log" && break
		sleep 0.05
	done
	OURS_PID=$(cat "$W/srv.pid")
	SRV_PIDS+=("$OURS_PID")
	OURS_PORT=$(sed -n 's/.*listening on .*:\([0-9]*\).*/\1/p' "$W/srv.log" | head -1)
	if [ -n "$CG" ]; then
		echo "$OURS_PID" >"$CG/ours/cgroup.procs"
		echo "$THEIRS_PID" >"$CG/theirs/cgroup.procs"
	fi
	for _ in $(seq 100); do
		ip netns exec "$NS" ss -Hltn 'sport = :7003' | grep -q LISTEN && break
		sleep 0.05
	done
}

stop_servers() {
	local pid
	for pid in "${SRV_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	SRV_PIDS=()
}

# floor MODE: user CPU us per bare round trip (or "-" without the test client).
floor() {
	local out
	if [ ! -x "$ABUSE" ]; then
		echo "-"
		return
	fi
	# shellcheck disable=SC2046
	out=$(ip netns exec "$NS" $(pin_client "$1") /usr/bin/time -f "TIME %U" \
		"$ABUSE" 127.0.0.1 "$OURS_PORT" bench-rtt 3 2>&1)
	echo "$out" | awk '/^rtt:/ { n = $2 } /^TIME/ { u = $2 } END { if (n) printf "%.3f\n", u / n * 1e6; else print "-" }'
}

# run_one ours|theirs MODE NCLIENTS: prints
# "MB/s client_us_per_op server_us_per_op clients_only_us_per_op"
run_one() {
	local who=$1 mode=$2 n=$3 out ops user mbs srv0 srv1 own warm=$((T / 5))
	local -a cmd
	if [ "$who" = ours ]; then
		cmd=("$OURS" -c "$CLASSIC" -t "$T" "$n" "127.0.0.1:$OURS_PORT")
	else
		cmd=("$THEIRS" -c "$CLASSIC" -t "$T" "$n" 127.0.0.1)
	fi
	srv0=$(server_cpu "$who")
	# shellcheck disable=SC2046
	out=$(ip netns exec "$NS" $(pin_client "$mode") /usr/bin/time -f "TIME %U" "${cmd[@]}" 2>&1)
	sleep 0.2	# let the connection processes end
	srv1=$(server_cpu "$who")
	ops=$(echo "$out" | table_ops)
	user=$(echo "$out" | awk '/^TIME/ { print $2 }')
	mbs=$(echo "$out" | awk '/^Throughput/ { print $2 }')
	if [ -z "$mbs" ] || [ "$ops" = 0 ]; then
		echo "bench: $who run failed:" >&2
		echo "$out" | tail -5 >&2
		echo "0 0 0 0"
		return
	fi
	own=$(echo "$out" | sed -n 's/^Client CPU: .*(\([0-9.]*\) + .*/\1/p')
	# CPU covers warmup + window (+ set-up); the window's ops scaled to both.
	awk -v o="$ops" -v u="$user" -v t="$T" -v w="$warm" -v m="$mbs" -v s0="$srv0" -v s1="$srv1" \
		-v own="${own:-0}" \
		'BEGIN { all = o * (t + w) / t; printf "%.1f %.3f %.3f %.3f\n", m, u / all * 1e6, (s1 - s0) / all * 1e6, own }'
}

col() { awk -v c="$1" '{ print $c }' | median; }

echo "tbench 4.0 ($THEIRS) against ours ($OURS), loopback in namespace $NS,"
echo "loadfile $CLASSIC, -t $T (warmup $((T / 5))), $ROUNDS rounds A B A B, medians"
echo "$(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"

declare -A RESULT FLOOR
for mode in $PINNING; do
	case $mode in
	none) title="not pinned" ;;
	split) title="server on CPU 0, client on CPU 1" ;;
	one) title="server and client both on CPU 0" ;;
	*) echo "bench: unknown pinning '$mode'" >&2; exit 2 ;;
	esac
	echo
	echo "== $title"
	start_servers "$mode"
	for n in $CLIENTS; do
		: >"$W/theirs" ; : >"$W/ours"
		for _ in $(seq "$ROUNDS"); do
			run_one theirs "$mode" "$n" >>"$W/theirs"
			run_one ours "$mode" "$n" >>"$W/ours"
		done
		RESULT[$mode,$n,theirs]="$(col 1 <"$W/theirs") $(col 2 <"$W/theirs") $(col 3 <"$W/theirs")"
		RESULT[$mode,$n,ours]="$(col 1 <"$W/ours") $(col 2 <"$W/ours") $(col 3 <"$W/ours") $(col 4 <"$W/ours")"
		echo "$n client(s): rounds (MB/s client-us/op server-us/op [ours: clients-only-us/op]):"
		cut -d' ' -f1-3 "$W/theirs" | paste -d'|' - "$W/ours" | sed 's/^/    4.0 /; s/|/   ours /'
	done
	FLOOR[$mode]=$(floor "$mode")
	echo "floor (bare 32-byte round trips, user us each): ${FLOOR[$mode]}"
	stop_servers
done

echo
echo "== summary (medians): MB/s; client user CPU us per op (whole tree; ours also clients"
echo "   only, without the one-time loadfile compile); server CPU us per op"
printf "%-7s %3s | %9s %9s %6s | %8s %8s %6s %8s | %8s %8s\n" pinning n "4.0 MB/s" "ours" ratio \
	"4.0 cl" "ours cl" ratio "ours own" "4.0 srv" "ours srv"
for mode in $PINNING; do
	for n in $CLIENTS; do
		read -r tm tc ts <<<"${RESULT[$mode,$n,theirs]}"
		read -r om oc os oo <<<"${RESULT[$mode,$n,ours]}"
		awk -v m="$mode" -v n="$n" -v tm="$tm" -v tc="$tc" -v ts="$ts" -v om="$om" -v oc="$oc" -v os="$os" \
			-v oo="$oo" \
			'BEGIN { printf "%-7s %3d | %9.1f %9.1f %6.2f | %8.3f %8.3f %6.2f %8.3f | %8.3f %8.3f\n",
				m, n, tm, om, (tm > 0 ? om / tm : 0), tc, oc, (tc > 0 ? oc / tc : 0), oo, ts, os }'
	done
done

for mode in $PINNING; do
	echo "floor, $mode: ${FLOOR[$mode]} user us per bare round trip"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ " $PINNING " == *" none "* ]]; then
	echo
	echo "== what pinning changes (MB/s pinned / MB/s not pinned)"
	for mode in $PINNING; do
		[ "$mode" = none ] && continue
		for n in $CLIENTS; do
			read -r tm _ _ <<<"${RESULT[none,$n,theirs]}"
			read -r om _ _ _ <<<"${RESULT[none,$n,ours]}"
			read -r tp _ _ <<<"${RESULT[$mode,$n,theirs]}"
			read -r op _ _ _ <<<"${RESULT[$mode,$n,ours]}"
			awk -v m="$mode" -v n="$n" -v tm="$tm" -v om="$om" -v tp="$tp" -v op="$op" \
				'BEGIN { printf "%-5s %d client(s): 4.0 x%.2f, ours x%.2f\n", m, n,
					(tm > 0 ? tp / tm : 0), (om > 0 ? op / om : 0) }'
		done
	done
fi
