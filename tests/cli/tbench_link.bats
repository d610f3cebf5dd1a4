#!/usr/bin/env bats
# tbench_link.bats - tbench over a real link rather than loopback: two
# network namespaces joined by a veth pair, tbench_srv in one, tbench in
# the other, over IPv4 (a /30) and IPv6 (a /64), plain, rate-limited by
# tbf, and delayed by netem where the kernel has it.  Checks a short run's
# output, that its bytes crossed the link, and that the link's shaping
# shows in the figures.
#
# Every test makes its own namespaces and veth pair, named after its temp
# dir, so parallel runs do not collide; teardown kills what runs in them,
# deletes them, and fails the test if anything is left.  Skipped, with the
# reason, where the machine refuses network namespaces (not root, or
# `ip netns add` fails).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load ../lib/tbench

CLASSIC=/usr/share/dbench/client.txt

# The pair's addresses (private; only ever inside the two namespaces).
SRV4=10.200.71.1
CLI4=10.200.71.2
SRV6=fd00:7462:656e::1
CLI6=fd00:7462:656e::2

setup() {
	tb_setup
	if [ -r "$CLASSIC" ]; then
		ln -s "$CLASSIC" "$T/client.txt"
	fi
	local id=${T##*.}
	NS_SRV=tbench-link-$id-srv
	NS_CLI=tbench-link-$id-cli
	VETH_SRV=tbl${id}s
	VETH_CLI=tbl${id}c
	LINK_MADE=
}

teardown() {
	local pid ns left=
	if [ -n "$LINK_MADE" ]; then
		for ns in "$NS_SRV" "$NS_CLI"; do
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null || true
			done
			ip netns del "$ns" 2>/dev/null || true
		done
		ip link del "$VETH_SRV" 2>/dev/null || true
		if ip netns list | grep -Eq "^($NS_SRV|$NS_CLI)( |\$)"; then
			left="namespaces"
		fi
		if ip -o link show | grep -Eq ": ($VETH_SRV|$VETH_CLI)[@:]"; then
			left="$left veth"
		fi
	fi
	tb_teardown
	if [ -n "$left" ]; then
		echo "left behind: $left" >&2
		return 1
	fi
}

need_classic() {
	[ -r "$CLASSIC" ] || skip "no $CLASSIC (Debian's dbench package)"
}

# make_link: the two namespaces, the veth pair between them, both
# addresses on each end, everything up.  Skips where namespaces are
# refused; any later failure is the test's.
make_link() {
	[ "$(id -u)" = 0 ] || skip "network namespaces need root"
	command -v ip >/dev/null || skip "no ip (iproute2)"
	if ! ip netns add "$NS_SRV" 2>"$T/netns.err"; then
		skip "this machine refuses network namespaces: $(head -1 "$T/netns.err")"
	fi
	LINK_MADE=1
	ip netns add "$NS_CLI"
	ip link add "$VETH_SRV" netns "$NS_SRV" type veth peer name "$VETH_CLI" netns "$NS_CLI"
	ip -n "$NS_SRV" addr add "$SRV4/30" dev "$VETH_SRV"
	ip -n "$NS_CLI" addr add "$CLI4/30" dev "$VETH_CLI"
	HAVE_V6=
	if ip -n "$NS_SRV" -6 addr add "$SRV6/64" dev "$VETH_SRV" nodad 2>/dev/null &&
	   ip -n "$NS_CLI" -6 addr add "$CLI6/64" dev "$VETH_CLI" nodad 2>/dev/null; then
		HAVE_V6=1
	fi
	for ns in "$NS_SRV" "$NS_CLI"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$NS_SRV" link set "$VETH_SRV" up
	ip -n "$NS_CLI" link set "$VETH_CLI" up
	# The server starts in its namespace through this wrapper (its
	# command line names $T, as the helpers expect).
	printf '#!/bin/sh\nexec ip netns exec %q %q "$@"\n' "$NS_SRV" "$TBENCH_SRV" >"$T/srv-in-ns"
	chmod +x "$T/srv-in-ns"
}

start_srv_in_ns() {
	TBENCH_SRV=$T/srv-in-ns start_srv "$@"
}

# run_client ARGS...: tbench in the client's namespace.
run_client() {
	run ip netns exec "$NS_CLI" "$TBENCH" "$@"
}

# Bytes the client's end of the link sent and received.  (Sums of byte
# counts pass 2^31: mawk, Debian's awk, prints those as 2.5e+09 with
# `print` and clamps them with %d, so they are printed with %.0f.)
link_bytes() {
	local dir=/sys/class/net/$VETH_CLI/statistics
	ip netns exec "$NS_CLI" cat "$dir/rx_bytes" "$dir/tx_bytes" |
		awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# assert_sane_run NCLIENTS: exit 0, no mismatch, the classic ops of the
# first seconds, a positive throughput; sets MBS to it.
assert_sane_run() {
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 mismatches"* ]]
	[[ "$output" == *"NTCreateX"* ]]
	[[ "$output" == *"WriteX"* ]]
	[[ "$output" =~ Throughput\ ([0-9.e+]+)\ MB/sec\ +$1\ clients ]]
	MBS=${BASH_REMATCH[1]}
	awk -v t="$MBS" 'BEGIN { exit !(t > 0) }'
}

# assert_crossed_link CLIENT_ADDR BYTES_BEFORE: the server saw its
# connections come from CLIENT_ADDR, and the veth carried at least the
# bytes the server read and wrote (and those at least the data bytes
# the measured window counted: MBS x 3 s).
assert_crossed_link() {
	local peer=$1 before=$2 wire served
	cat "$T/srv.log"
	grep -Eq "^tbench_srv\[[0-9]+\]: \[?$peer\]?:[0-9]+: connected" "$T/srv.log"
	# shellcheck disable=SC2143 # (bats: a `! cmd` does not fail a test)
	[ -z "$(grep ': connected' "$T/srv.log" | grep -Ev "\]: \[?$peer\]?:[0-9]+: connected")" ]
	wire=$(($(link_bytes) - before))
	served=$(sed -n 's/.* \([0-9]*\) bytes in, \([0-9]*\) bytes out$/\1 \2/p' "$T/srv.log" |
		awk '{ s += $1 + $2 } END { printf "%.0f\n", s }')
	echo "link carried $wire bytes; the server read and wrote $served; window $MBS MB/sec x 3 s"
	[ "$served" -gt 0 ]
	[ "$wire" -ge "$served" ]
	awk -v s="$served" -v m="$MBS" 'BEGIN { exit !(s >= m * 1e6 * 3) }'
}

@test "tbench over a veth link, IPv4: -t 3 completes, 0 mismatches, the bytes cross the link" {
	need_classic
	make_link
	start_srv_in_ns -b "$SRV4"
	before=$(link_bytes)
	run_client -c "$T/client.txt" -t 3 2 "$SRV4:$PORT"
	assert_sane_run 2
	stop_srv
	assert_crossed_link "$CLI4" "$before"
}

@test "tbench over a veth link, IPv6: -t 3 completes, 0 mismatches, the bytes cross the link" {
	sanitizer_pass_skip "tbench over IPv6 is tbench.bats' ::1 test's C path; the link is the kernel's"
	need_classic
	make_link
	[ -n "$HAVE_V6" ] || skip "no IPv6 in network namespaces here"
	start_srv_in_ns -b "$SRV6"
	before=$(link_bytes)
	run_client -c "$T/client.txt" -t 3 2 "[$SRV6]:$PORT"
	assert_sane_run 2
	stop_srv
	assert_crossed_link "$CLI6" "$before"
}

@test "tbench over a veth link limited by tbf to 100 Mbit/s: throughput and ReadX times follow the rate" {
	sanitizer_pass_skip "tbench's C path over the link is the IPv4 test's; tbf shapes in the kernel"
	need_classic
	make_link
	# Both directions, so that reads and writes are limited alike.
	ip netns exec "$NS_SRV" tc qdisc add dev "$VETH_SRV" root tbf rate 100mbit burst 32kb latency 100ms
	ip netns exec "$NS_CLI" tc qdisc add dev "$VETH_CLI" root tbf rate 100mbit burst 32kb latency 100ms
	start_srv_in_ns -b "$SRV4"
	before=$(link_bytes)
	run_client -c "$T/client.txt" -t 3 2 "$SRV4:$PORT"
	assert_sane_run 2
	# 100 Mbit/s is 12.5 MB/s each way; data is most of what goes over
	# the wire, so the run gets well over a quarter of that, and cannot
	# get more than both directions together.
	awk -v t="$MBS" 'BEGIN { exit !(t > 3 && t <= 25) }'
	# 50 reads of 64 KiB, one after the other: once the 32 KiB burst is
	# spent, each reply waits for its bytes to pass at 12.5 MB/s (5.2 ms),
	# so none takes less than (65536 - 32768) / 12.5e6 s = 2.6 ms.
	{
		printf '%s\n' 'NTCreateX "\clients\client1\f" 0x0 0x2 1 NT_STATUS_OK'
		for _ in $(seq 50); do
			printf '%s\n' 'ReadX 1 0 65536 65536 NT_STATUS_OK'
		done
		printf '%s\n' 'Close 1 NT_STATUS_OK'
	} >"$T/reads.txt"
	run_client -c "$T/reads.txt" --run-once --latency 1 "$SRV4:$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	stop_srv
	assert_crossed_link "$CLI4" "$before"
	read -r count min avg < <(echo "$output" | awk '$1 == "ReadX" && NF > 10 { print $2, $4, $6; exit }')
	echo "ReadX: $count, min $min ms, avg $avg ms"
	[ "$count" -eq 50 ]
	awk -v m="$min" -v a="$avg" 'BEGIN { exit !(m >= 2.6 && a >= 4.0) }'
}

@test "tbench over a veth link delayed 1 ms each way by netem: every op takes a round trip" {
	sanitizer_pass_skip "tbench's C path over the link is the IPv4 test's; netem delays in the kernel"
	need_classic
	make_link
	if ! ip netns exec "$NS_SRV" tc qdisc add dev "$VETH_SRV" root netem delay 1ms 2>"$T/tc.err"; then
		skip "no netem qdisc in this kernel: $(head -1 "$T/tc.err")"
	fi
	ip netns exec "$NS_CLI" tc qdisc add dev "$VETH_CLI" root netem delay 1ms
	start_srv_in_ns -b "$SRV4"
	run_client -c "$T/client.txt" -t 3 --latency 2 "$SRV4:$PORT"
	assert_sane_run 2
	stop_srv
	# The "All" row of --latency: Count % Min Median Avg ...; every op is
	# at least one exchange, so at least the 2 ms round trip.
	read -r min avg < <(echo "$output" | awk '$1 == "All" { print $4, $6; exit }')
	echo "all ops: min $min ms, avg $avg ms"
	awk -v m="$min" -v a="$avg" 'BEGIN { exit !(m >= 2.0 && a >= 2.0 && a < 50) }'
}
