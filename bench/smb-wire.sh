#!/bin/bash
# bench/smb-wire.sh - what each netbench op sends over SMB2 through
# libsmbclient, measured on the wire: a private smbd (tests/lib/smbd.sh),
# dumpcap on lo and tshark (tests/lib/smbwire.sh).  For each op, one
# client replays a loadfile that does the op N times after a prefix;
# the client's SMB2 requests between two marker ops around them, by
# command, divided by N, are what the op sends.  Then one pass of the
# classic loadfile: its op counts (dbench's table) and the requests it
# sent, per op, counted by smbd itself (smbd profiling; a capture of the
# pass would be gigabytes).  The table in dbench(1) (BACKENDS, smb) is this
# output.  Only the requests between two markers in the loadfile count
# (connecting, the parent's check and the clean-up do not).
# Not a test.  Needs root (smbd, capturing on lo) and tshark.
#
#   bench/smb-wire.sh [DBENCH]      DBENCH defaults to build/src/dbench
#   N=20 CLASSIC=/usr/share/dbench/client.txt bench/smb-wire.sh
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
DBENCH=$(realpath "${1:-build/src/dbench}")
N=${N:-20}
CLASSIC=${CLASSIC:-/usr/share/dbench/client.txt}
[ -x "$DBENCH" ] || { echo "bench: build first ($DBENCH)" >&2; exit 2; }

. tests/lib/smbd.sh
. tests/lib/smbwire.sh
# smbd counts the SMB2 requests it serves (smbstatus --profile): the
# classic pass is counted there, a capture of it would be gigabytes
# shellcheck disable=SC2034 # read by smbd_start
SMBD_EXTRA_CONF='[global]
	smbd profiling level = on'
smbd_start || exit 2
W=$(mktemp -d /tmp/dbench-bench-smbwire.XXXXXX)
trap 'smbwire_stop; smbd_stop; rm -rf "$W"' EXIT
# (an EXIT trap does not run when bash is killed by a signal it does not trap)
trap 'exit 130' INT; trap 'exit 143' TERM
SHARE=//127.0.0.1:$SMBD_PORT/share

BEGIN_MARK='QUERY_PATH_INFORMATION "\dbench-mark-begin" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND'
END_MARK='QUERY_PATH_INFORMATION "\dbench-mark-end" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND'

# requests LOADFILE: the SMB2 requests the client sent between the
# loadfile's two markers in one --run-once run, "COUNT COMMAND" lines,
# into $W/req; dbench's output in $W/out.
requests() {
	find "$SMBD_SHARE_DIR" -mindepth 1 -delete
	smbwire_start "$W/cap.pcap" "$SMBD_PORT"
	"$DBENCH" -B smb --smb-share "$SHARE" -c "$1" --run-once --warmup 0 1 >"$W/out" 2>&1 ||
		{ smbwire_stop; cat "$W/out" >&2; exit 1; }
	smbwire_stop
	grep -q ", 0 mismatches," "$W/out" || { cat "$W/out" >&2; exit 1; }
	smbwire_requests "$W/cap.pcap" "$SMBD_PORT" dbench-mark-begin dbench-mark-end >"$W/req"
}

PREFIX='Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
Mkdir "\clients\client1\d" NT_STATUS_OK
NTCreateX "\clients\client1\d\x.txt" 0x40 0x5 2 NT_STATUS_OK
Close 2 NT_STATUS_OK'
SUFFIX='Close 1 NT_STATUS_OK'

# measure NAME SETUP OP: SETUP and OP are loadfile lines with @ for the
# repetition's number; OP is done N times between the markers.  Prints
# "NAME|requests per op by command|requests per op".
measure() {
	local name=$1 setup=$2 op=$3 i
	{
		echo "$PREFIX"
		for (( i = 0; i < N; i++ )); do [ -n "$setup" ] && echo "${setup//@/$i}"; done
		echo "$BEGIN_MARK"
		for (( i = 0; i < N; i++ )); do echo "${op//@/$i}"; done
		echo "$END_MARK"
		echo "$SUFFIX"
	} >"$W/op.txt"
	requests "$W/op.txt"
	awk -v n="$N" -v name="$name" '
		{ text = text sprintf("%s%g %s", text == "" ? "" : ", ", $1 / n, $2); total += $1 / n }
		END { printf "%s|%s|%g\n", name, text == "" ? "nothing" : text, total }' "$W/req"
}

echo "== what each op sends over SMB2 through libsmbclient ($(smbd -V), N=$N, one client)"
if [ -z "${CLASSIC_ONLY:-}" ]; then
{
measure "NTCreateX of a file + Close" "" 'NTCreateX "\clients\client1\f" 0x0 0x1 3 NT_STATUS_OK
Close 3 NT_STATUS_OK'
measure "NTCreateX creating a file + Close" "" 'NTCreateX "\clients\client1\n@" 0x40 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK'
measure "NTCreateX of a directory (0x1) + Close" "" 'NTCreateX "\clients\client1\d" 0x1 0x1 3 NT_STATUS_OK
Close 3 NT_STATUS_OK'
measure "ReadX" "" 'ReadX 1 0 4096 4096 NT_STATUS_OK'
measure "WriteX" "" 'WriteX 1 4096 4096 4096 NT_STATUS_OK'
measure "QUERY_PATH_INFORMATION, name found" "" 'QUERY_PATH_INFORMATION "\clients\client1\f" 1004 NT_STATUS_OK'
measure "QUERY_PATH_INFORMATION, name not found" "" 'QUERY_PATH_INFORMATION "\clients\client1\d\no@" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND'
measure "QUERY_FILE_INFORMATION" "" 'QUERY_FILE_INFORMATION 1 1004 NT_STATUS_OK'
measure "QUERY_FS_INFORMATION" "" 'QUERY_FS_INFORMATION 1 NT_STATUS_OK'
measure "SET_FILE_INFORMATION 1004" "" 'SET_FILE_INFORMATION 1 1004 NT_STATUS_OK'
measure "FIND_FIRST" "" 'FIND_FIRST "\clients\client1\d\*" 260 1366 0 NT_STATUS_OK'
measure "Rename" 'NTCreateX "\clients\client1\r@" 0x40 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK' 'Rename "\clients\client1\r@" "\clients\client1\s@" NT_STATUS_OK'
measure "Unlink" 'NTCreateX "\clients\client1\u@" 0x40 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK' 'Unlink "\clients\client1\u@" 0x6 NT_STATUS_OK'
measure "Mkdir" "" 'Mkdir "\clients\client1\m@" NT_STATUS_OK'
measure "Rmdir" 'Mkdir "\clients\client1\x@" NT_STATUS_OK' 'Rmdir "\clients\client1\x@" NT_STATUS_OK'
measure "Deltree of a directory with one file" 'Mkdir "\clients\client1\t@" NT_STATUS_OK
NTCreateX "\clients\client1\t@\f" 0x40 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK' 'Deltree "\clients\client1\t@" NT_STATUS_OK'
measure "LockX + UnlockX" "" 'LockX 1 0 10 NT_STATUS_OK
UnlockX 1 0 10 NT_STATUS_OK'
measure "Flush" "" 'Flush 1 NT_STATUS_OK'
} | awk -F'|' '{ printf "  %-42s %6s  %s\n", $1, $3, $2 }'
fi

[ -f "$CLASSIC" ] || { echo "(no $CLASSIC: no classic pass)"; exit 0; }

# served: the SMB2 requests smbd counted so far, "COUNT NAME" lines.
served() {
	smbstatus -s "$SMBD_CONF" --profile |
		awk '/^smb2_[a-z]+_count:/ { n = $1; sub(/^smb2_/, "", n); sub(/_count:$/, "", n); print $2, n }'
}

# counted LOADFILE: what one --run-once run of it made smbd serve, into
# $W/served.NAME (NAME: the loadfile's file name); dbench's output in $W/out.
counted() {
	local name
	name=$(basename "$1")
	find "$SMBD_SHARE_DIR" -mindepth 1 -delete
	served >"$W/before"
	"$DBENCH" -B smb --smb-share "$SHARE" -c "$1" --run-once --warmup 0 1 >"$W/out" 2>&1 ||
		{ cat "$W/out" >&2; exit 1; }
	grep -q ", 0 mismatches," "$W/out" || { cat "$W/out" >&2; exit 1; }
	served >"$W/after"
	awk 'FNR == NR { b[$2] = $1; next } { print $1 - b[$2], $2 }' "$W/before" "$W/after" >"$W/served.$name"
}

echo
echo "== one pass of $CLASSIC, one client (the SMB2 requests smbd served for the pass:"
echo "   a run of it less a run of the two markers alone, echo left out)"
{ echo "$BEGIN_MARK"; echo "$END_MARK"; } >"$W/empty.txt"
counted "$W/empty.txt"
{ echo "$BEGIN_MARK"; cat "$CLASSIC"; echo "$END_MARK"; } >"$W/classic.txt"
counted "$W/classic.txt"
ops=$(awk '/^Operations / { print $2 - 2 }' "$W/out")	# less the markers
sed -n '/^ *Operation  *Count/,/^$/p' "$W/out" |
	awk 'NF == 4 && $2 ~ /^[0-9]+$/ { printf "  %-12s %7d\n", $1, $2 - ($1 == "Qpathinfo" ? 2 : 0) }'
echo "  SMB2 requests by command:"
awk 'FNR == NR { b[$2] = $1; next } $2 != "keepalive" && $1 - b[$2] != 0 { printf "    %-12s %7d\n", $2, $1 - b[$2] }' \
	"$W/served.empty.txt" "$W/served.classic.txt"
total=$(awk 'FNR == NR { b[$2] = $1; next } $2 != "keepalive" { s += $1 - b[$2] } END { print s }' \
	"$W/served.empty.txt" "$W/served.classic.txt")
awk -v o="$ops" -v t="$total" 'BEGIN { printf "  %d ops, %d SMB2 requests: %.3f requests per op\n", o, t, t / o }'
