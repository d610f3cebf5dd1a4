#!/bin/bash
# bench/smb.sh - what SMB signing and encryption cost, against a private
# local smbd (tests/lib/smbd.sh): ops/s, the client's CPU per op (dbench and
# its children, from /usr/bin/time) and smbd's CPU per op (every process of
# its group, children it reaped included, from /proc/PID/stat) for
#   plain      SMB3.1.1, neither signed nor encrypted
#   sign-X     SMB3.1.1 signed with each algorithm X the pair can use
#   enc-X      SMB3.1.1 encrypted with each cipher X the pair can use
#   smb2.02    SMB2.02 (plain)
#   epoll      plain with libsmbclient's default tevent backend instead of
#              the poll one the backend picks (DBENCH_SMB_TEVENT_DEFAULT=1;
#              not in the default MODES: add it to see what poll saves)
# at 1 and 4 clients, each with its ratio to plain at the same client
# count.  Every run's Session line must say the mode it asked for (else the
# bench stops).  Not a test: it prints figures for a human.  Needs root.
#
#   bench/smb.sh [DBENCH]        DBENCH defaults to build/src/dbench
#   SECS=5 CLIENTS="1 4" ROUNDS=3 MODES="plain enc-AES-128-GCM" bench/smb.sh
#
# The runs go A B A B: each round runs every mode at every client count, in
# order, and the table shows the medians of the rounds (these 2-core
# machines are noisy).  Client and server share the machine's cores, on
# loopback, so the figures are the pair's; CPU per op covers the whole run
# (set-up and clean-up included).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
SECS=${SECS:-5}
CLIENTS=${CLIENTS:-1 4}
ROUNDS=${ROUNDS:-3}
LOADFILE=${LOADFILE:-loadfiles/client.txt}
MODES=${MODES:-plain sign-AES-128-GMAC sign-AES-128-CMAC sign-HMAC-SHA256 enc-AES-128-GCM enc-AES-128-CCM enc-AES-256-GCM enc-AES-256-CCM smb2.02}
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }
"$DBENCH" --help | grep -- --smb-signing >/dev/null || { echo "bench: $DBENCH has no smb backend with --smb-signing" >&2; exit 2; }

. tests/lib/smbd.sh
smbd_start || exit 2
W=$(mktemp -d /tmp/dbench-bench-smb.XXXXXX)
trap 'smbd_stop; rm -rf "$W"' EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
HZ=$(getconf CLK_TCK)
export DBENCH_SMB_PASSWORD=$SMBD_PASS

# mode_of MODE: the options of a mode (MODE_ARGS) and the Session line it
# must give (MODE_SESSION, a regular expression).
mode_of() {
	case $1 in
	plain|epoll)
		MODE_ARGS="--smb-signing off --smb-encrypt off"
		MODE_SESSION="dialect SMB3_11, signed no, .* encrypted no," ;;
	sign-*)	MODE_ARGS="--smb-signing required --smb-encrypt off --smb-signing-algorithms ${1#sign-}"
		MODE_SESSION="dialect SMB3_11, signed yes, signing_algorithm ${1#sign-}, encrypted no," ;;
	enc-*)	MODE_ARGS="--smb-encrypt required --smb-encryption-algorithms ${1#enc-}"
		MODE_SESSION="dialect SMB3_11, signed no, .* encrypted yes, cipher ${1#enc-}\$" ;;
	smb2.02) MODE_ARGS="--smb-protocol SMB2_02 --smb-signing off --smb-encrypt off"
		MODE_SESSION="dialect SMB2_02, signed no, .* encrypted no," ;;
	*)	echo "bench: unknown mode $1" >&2; exit 2 ;;
	esac
}

# CPU ticks (user + system) of every process of smbd's group, with the
# children they reaped (each connection is a child smbd).
smbd_ticks() {
	local p t=0 f
	for p in $(pgrep -g "$SMBD_PID"); do
		f=$(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null) || continue
		set -- $f
		t=$((t + $1 + $2 + $3 + $4))
	done
	echo "$t"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# One run: prints "MODE CLIENTS ops/s client_us/op smbd_us/op".
run_one() {
	local mode=$1 n=$2 out before after ops secs cu cs
	mode_of "$mode"
	before=$(smbd_ticks)
	# shellcheck disable=SC2086 # the mode's options are words
	out=$([ "$mode" != epoll ] || export DBENCH_SMB_TEVENT_DEFAULT=1
		/usr/bin/time -f "TIME %U %S" "$DBENCH" -B smb --smb-share "//127.0.0.1:$SMBD_PORT/private" \
		--smb-user "$SMBD_USER" $MODE_ARGS -c "$LOADFILE" -t "$SECS" --warmup 0 "$n" 2>&1)
	# smbd reaps the connection children: wait until only the master is left
	for _ in $(seq 100); do
		[ "$(pgrep -c -g "$SMBD_PID")" -le 1 ] && break
		sleep 0.05
	done
	after=$(smbd_ticks)
	grep -q ", 0 mismatches," <<<"$out" || { echo "bench: $mode: mismatches or a failure:" >&2; echo "$out" >&2; exit 1; }
	grep -Eq "^Session: $MODE_SESSION" <<<"$out" ||
		{ echo "bench: $mode did not get what it asked for:" >&2; grep -E '^Session' <<<"$out" >&2; exit 1; }
	ops=$(awk '/^Operations / { print $2 }' <<<"$out")
	secs=$(awk '/^Operations / { print $4 }' <<<"$out")
	read -r cu cs < <(awk '/^TIME/ { print $2, $3 }' <<<"$out")
	awk -v m="$mode" -v n="$n" -v o="$ops" -v t="$secs" -v cu="$cu" -v cs="$cs" \
		-v st="$((after - before))" -v hz="$HZ" 'BEGIN {
		printf "%s %d %.0f %.1f %.1f\n", m, n, o / t, (cu + cs) * 1e6 / o, st / hz * 1e6 / o }'
}

echo "== SMB signing and encryption against a private smbd on 127.0.0.1:$SMBD_PORT ($(smbd -V))"
echo "   loadfile $LOADFILE, -t $SECS --warmup 0, $ROUNDS rounds A B A B, $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$ROUNDS"); do
	for n in $CLIENTS; do
		for m in $MODES; do
			run_one "$m" "$n" | tee -a "$W/runs"
		done
	done
done >/dev/null
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
col() { awk -v m="$1" -v n="$2" -v c="$3" '$1 == m && $2 == n { print $c }' "$W/runs" | median; }
printf "\n%-18s %7s %9s %7s %12s %7s %12s %7s\n" mode clients ops/s ratio "client us/op" ratio "smbd us/op" ratio
for n in $CLIENTS; do
	p_ops=$(col plain "$n" 3) p_cli=$(col plain "$n" 4) p_srv=$(col plain "$n" 5)
	for m in $MODES; do
		awk -v m="$m" -v n="$n" -v o="$(col "$m" "$n" 3)" -v c="$(col "$m" "$n" 4)" -v s="$(col "$m" "$n" 5)" \
			-v po="$p_ops" -v pc="$p_cli" -v ps="$p_srv" 'BEGIN {
			printf "%-18s %7d %9.0f %7.2f %12.1f %7.2f %12.1f %7.2f\n", m, n, o, o / po, c, c / pc, s, s / ps }'
	done
done
echo
echo "medians of $ROUNDS rounds; ratios are to plain SMB3.1.1 at the same client count"
