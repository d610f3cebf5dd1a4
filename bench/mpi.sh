#!/bin/bash
# bench/mpi.sh - what --mpi costs: the same total clients in one dbench
# (no MPI) and in 2 ranks (mpirun -np 2 dbench --mpi), for the null backend
# and for tbench against a private tbench_srv.  Not a test: it prints
# figures for a human to compare.
#
#   bench/mpi.sh [BUILDDIR]          BUILDDIR defaults to build
#   T=SECS ROUNDS=N CLIENTS=N NS=0|1 BACKENDS="null tbench" bench/mpi.sh
#
# Each round runs single then 2 ranks (A B A B), ROUNDS times (default 3),
# -t T (default 5, warmup 1), CLIENTS total (default 4), and prints per
# backend the median throughput of each, their ratio (2 ranks / single:
# the target is within 5%), and rank 0's cost of the once-a-second
# exchange: the CPU its main thread spent in it (waiting for the other
# ranks included), per exchange (= per second of the run), from the --json
# document's mpi.exchange_cpu_ns / mpi.exchanges.
#
# NS=0 (default): both ranks run on this machine as plain processes
# (`mpirun --oversubscribe -np 2`), tbench_srv listens on 127.0.0.1.
# NS=1 (root): the ranks run on two "hosts" h2 and h3, network namespaces
# with their own hostnames joined by a bridge (the layout of
# tests/cli/mpi_hosts.bats); mpirun runs on a head namespace h1 and starts
# its daemons through an agent script (`ip netns exec`) instead of ssh;
# tbench_srv runs in a fourth namespace on the bridge, and the single run
# is one dbench on h2 against the same server.  The figures then include
# the veth/bridge path; all namespaces still share this machine's CPUs.
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
NS=${NS:-0}
[ -x "$DBENCH" ] && [ -x "$SRV" ] || { echo "bench: build first ($BUILD)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "bench: mpirun not found (openmpi-bin)" >&2; exit 2; }
"$DBENCH" --mpi --mpi-timeout 0 -B null 1 2>&1 | grep -q 'built without MPI' &&
	{ echo "bench: $DBENCH was built without MPI" >&2; exit 2; }
case $NS in
0) ;;
1)	[ "$(id -u)" = 0 ] || { echo "bench: NS=1 needs root (ip netns)" >&2; exit 2; }
	command -v ip >/dev/null && command -v unshare >/dev/null ||
		{ echo "bench: NS=1 needs ip and unshare" >&2; exit 2; } ;;
*)	echo "bench: NS must be 0 or 1, not '$NS'" >&2; exit 2 ;;
esac

W=$(mktemp -d /tmp/mpi-bench.XXXXXX)
SRV_PID=
NSS=()
# namespace names and subnet of this run only (two runs may overlap)
P=mb$(printf '%04x' $(($$ % 65536)))
NET=10.$((200 + $$ % 50)).$(($$ / 50 % 250)).
cleanup() {
	local ns
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null || true
	for ns in "${NSS[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "$W"
}
trap cleanup EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM

# NS=1: a bridge in ${P}sw; hosts h1 (head), h2, h3 (clients), srv at
# ${NET}1..4; the agent mpirun uses as its remote shell.
make_hosts() {
	local i=1 h
	ip netns add "${P}sw" && NSS+=("${P}sw")
	ip -n "${P}sw" link add br0 type bridge
	ip -n "${P}sw" link set br0 up
	for h in h1 h2 h3 srv; do
		ip netns add "$P$h" && NSS+=("$P$h")
		ip link add "${P}v$i" netns "$P$h" type veth peer name "p$i" netns "${P}sw"
		ip -n "${P}sw" link set "p$i" master br0
		ip -n "${P}sw" link set "p$i" up
		ip -n "$P$h" addr add "$NET$i/24" dev "${P}v$i"
		ip -n "$P$h" link set "${P}v$i" up
		ip -n "$P$h" link set lo up
		i=$((i + 1))
	done
	export NETNS_AGENT_PREFIX=$P
	printf 'h2 slots=1\nh3 slots=1\n' >"$W/hosts"
}

# on_host HOST CMD...: run CMD in HOST's namespace with its hostname
on_host() {
	local host=$1
	shift
	ip netns exec "$P$host" unshare --uts sh -c "hostname $host; exec \"\$@\"" sh "$@"
}

SRV_ADDR=127.0.0.1
if [ "$NS" = 1 ]; then
	make_hosts
	SRV_ADDR=${NET}4
	ip netns exec "${P}srv" "$SRV" -p 0 -b "$SRV_ADDR" -v --pid-file "$W/srv.pid" 2>"$W/srv.log" &
else
	"$SRV" -p 0 -b 127.0.0.1 -v --pid-file "$W/srv.pid" 2>"$W/srv.log" &
fi
for _ in $(seq 100); do
	[ -s "$W/srv.pid" ] && grep -q listening "$W/srv.log" && break
	sleep 0.05
done
SRV_PID=$(cat "$W/srv.pid")
PORT=$(sed -n 's/.*listening on .*:\([0-9]*\).*/\1/p' "$W/srv.log" | head -1)
[ -n "$PORT" ] || { echo "bench: tbench_srv did not start: $(cat "$W/srv.log")" >&2; exit 1; }

# single CMD...: one dbench, no MPI; ranks CMD...: the same as 2 ranks
if [ "$NS" = 1 ]; then
	single() { on_host h2 "$@"; }
	ranks() {
		on_host h1 mpirun --allow-run-as-root --mca plm_rsh_agent "$PWD/tests/lib/netns-agent.sh" \
			--mca btl tcp,self --mca btl_tcp_if_include "${NET}0/24" \
			--mca oob_tcp_if_include "${NET}0/24" --hostfile "$W/hosts" -np 2 "$@"
	}
else
	single() { "$@"; }
	ranks() { mpirun --allow-run-as-root --oversubscribe -np 2 "$@"; }
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

bench() {
	local name=$1 i
	shift
	: >"$W/$name.single"
	: >"$W/$name.mpi"
	: >"$W/$name.cpu"
	: >"$W/$name.hosts"
	for i in $(seq "$ROUNDS"); do
		rm -f "$W/s.json" "$W/m.json"
		single "$@" -t "$T" --warmup 1 --json "$W/s.json" "$CLIENTS" >"$W/s.out" 2>&1 ||
			{ echo "bench: single $name run failed:" >&2; tail -n 5 "$W/s.out" >&2; exit 1; }
		field "$W/s.json" 'd["results"]["throughput_mb_per_sec"]' >>"$W/$name.single"
		ranks "$@" --mpi -t "$T" --warmup 1 --json "$W/m.json" "$CLIENTS" >"$W/m.out" 2>&1 ||
			{ echo "bench: 2-rank $name run failed:" >&2; tail -n 5 "$W/m.out" >&2; exit 1; }
		field "$W/m.json" 'd["results"]["throughput_mb_per_sec"]' >>"$W/$name.mpi"
		# the per-host lines of each 2-rank run
		field "$W/m.json" '"; ".join("%s %.1f" % (r["host"], r["mb_per_sec"]) for r in d["mpi"]["per_rank"])' \
			>>"$W/$name.hosts"
		field "$W/m.json" 'd["mpi"]["exchange_cpu_ns"] / max(d["mpi"]["exchanges"], 1) / 1e3' >>"$W/$name.cpu"
	done
	local s m c
	s=$(median <"$W/$name.single")
	m=$(median <"$W/$name.mpi")
	c=$(median <"$W/$name.cpu")
	printf '%-8s %12.2f %12.2f %8.3f %16.1f\n' "$name" "$s" "$m" "$(echo "$m / $s" | bc -l)" "$c"
	printf '         single: %s\n         2 ranks: %s\n         per host: %s\n         rank0 us/exch: %s\n' \
		"$(tr '\n' ' ' <"$W/$name.single")" "$(tr '\n' ' ' <"$W/$name.mpi")" \
		"$(tr '\n' '|' <"$W/$name.hosts")" "$(tr '\n' ' ' <"$W/$name.cpu")"
}

if [ "$NS" = 1 ]; then
	echo "NS=1: ranks on namespace hosts h2 h3 (bridge ${NET}0/24), tbench_srv on $SRV_ADDR; single run on h2"
else
	echo "NS=0: both ranks on this machine, tbench_srv on 127.0.0.1"
fi
echo "$CLIENTS clients in all, -t $T, $ROUNDS rounds (A B A B), medians; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %12s %12s %8s %16s\n' backend "single MB/s" "2 ranks MB/s" ratio "rank0 us/exch"
for b in ${BACKENDS:-null tbench}; do
	case $b in
	null) bench null "$DBENCH" -B null -D "$W" ;;
	tbench) bench tbench "$TBENCH" --server "$SRV_ADDR" --port "$PORT" ;;
	*) echo "bench: BACKENDS: null or tbench, not '$b'" >&2; exit 2 ;;
	esac
done
