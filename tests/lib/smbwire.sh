# shellcheck shell=bash
# smbwire.sh - what went over the wire to a private smbd (tests/lib/smbd.sh):
# dumpcap captures its port on lo, tshark decodes the SMB2 messages.  For the
# tests that check a session really is signed or encrypted, and for the
# per-op request table (bench/smb-wire.sh).  Sourced:
#
#	. tests/lib/smbwire.sh
#	smbwire_start "$T/cap.pcap" "$SMBD_PORT" || exit	# 77: no dumpcap/tshark
#	... run a client ...
#	smbwire_stop
#	smbwire_kinds "$T/cap.pcap" "$SMBD_PORT"	# "plain N signed N encrypted N"
#
# Needs root (capturing on lo) and wireshark's dumpcap and tshark.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# shellcheck source=tests/lib/wait.sh
. "${BASH_SOURCE[0]%/*}/wait.sh"

SMBWIRE_READY_SECONDS=10

# _smbwire_ready_or_dead: dumpcap says it captures, or it has exited.
_smbwire_ready_or_dead() {
	grep -q "Capturing on" "$SMBWIRE_LOG" 2>/dev/null || ! kill -0 "$SMBWIRE_PID" 2>/dev/null
}

# smbwire_start PCAP PORT: capture TCP PORT on lo into PCAP; returns once
# dumpcap is capturing.  0 ok, 1 failed, 77 cannot capture here.
smbwire_start() {
	command -v dumpcap >/dev/null && command -v tshark >/dev/null ||
		{ echo "smbwire: dumpcap/tshark are not installed" >&2; return 77; }
	[ "$(id -u)" = 0 ] || { echo "smbwire: capturing needs root" >&2; return 77; }
	SMBWIRE_LOG=$1.log
	dumpcap -q -i lo -f "tcp port $2" -w "$1" </dev/null >"$SMBWIRE_LOG" 2>&1 3>&- &
	SMBWIRE_PID=$!
	wait_for -q -t "$SMBWIRE_READY_SECONDS" "dumpcap to capture" _smbwire_ready_or_dead &&
		grep -q "Capturing on" "$SMBWIRE_LOG" 2>/dev/null && return 0
	echo "smbwire: dumpcap did not start: $(cat "$SMBWIRE_LOG")" >&2
	smbwire_stop
	return 1
}

# smbwire_stop: stop our dumpcap; what it captured is in the file.
smbwire_stop() {
	[ -n "${SMBWIRE_PID:-}" ] || return 0
	kill -INT "$SMBWIRE_PID" 2>/dev/null || true
	wait "$SMBWIRE_PID" 2>/dev/null || true
	unset SMBWIRE_PID
}

# _smbwire_fields PCAP PORT FIELD...: one line per frame with SMB2 in it,
# the fields tab-separated (several messages of a compound: comma-separated).
_smbwire_fields() {
	local pcap=$1 port=$2 args=() f
	shift 2
	for f; do args+=(-e "$f"); done
	tshark -r "$pcap" -d "tcp.port==$port,nbss" -Y smb2 -T fields -E occurrence=a \
		-E aggregator=, "${args[@]}" 2>/dev/null
}

# smbwire_kinds PCAP PORT: of the file operations' messages (CREATE, CLOSE,
# FLUSH, READ, WRITE, LOCK, IOCTL, QUERY_DIRECTORY, QUERY_INFO, SET_INFO;
# not ECHO, which libsmbclient sends unsigned to see the server is there,
# nor the server's interim STATUS_PENDING answers, which SMB2 never signs),
# how many went plain, how many signed (the signed flag and a non-zero
# signature), and how many frames were SMB2 TRANSFORM (encrypted: their
# commands cannot be read without the keys).  Prints
# "plain N signed N encrypted N".
smbwire_kinds() {
	_smbwire_fields "$1" "$2" smb2.cmd smb2.flags.signature smb2.signature \
		smb2.header.transform.flags.encrypted smb2.nt_status |
	awk -F'\t' '
	{
		if ($4 != "") { enc++; next }
		n = split($1, cmd, ","); split($2, flag, ","); split($3, sig, ",")
		split($5, st, ",")
		for (i = 1; i <= n; i++) {
			if (cmd[i] < 5 || cmd[i] > 17 || cmd[i] == 12 || cmd[i] == 13 || cmd[i] == 15)
				continue
			if (st[i] == "0x00000103")
				continue
			if (flag[i] == "1" && sig[i] !~ /^0*$/) signed++
			else plain++
		}
	}
	END { printf "plain %d signed %d encrypted %d\n", plain, signed, enc }'
}

# smbwire_requests PCAP PORT [BEGIN END]: the client's SMB2 requests by
# command name, "COUNT NAME" lines (a compound's messages each count); with
# BEGIN and END, only those after the CREATE request of a name ending in
# BEGIN and before the one of a name ending in END (markers a loadfile
# puts around what is measured: QUERY_PATH_INFORMATION of a missing name
# at the share's root is that one CREATE).  ECHO, which libsmbclient sends
# when the connection was idle, is left out.
smbwire_requests() {
	_smbwire_fields "$1" "$2" smb2.cmd smb2.flags.response smb2.filename |
	awk -F'\t' -v begin="${3:-}" -v end="${4:-}" '
	BEGIN {
		split("NEGOTIATE SESSION_SETUP LOGOFF TREE_CONNECT TREE_DISCONNECT CREATE CLOSE FLUSH READ WRITE LOCK IOCTL CANCEL ECHO QUERY_DIRECTORY CHANGE_NOTIFY QUERY_INFO SET_INFO OPLOCK_BREAK", name, " ")
		on = begin == ""
	}
	{
		n = split($1, cmd, ","); split($2, resp, ",")
		if (begin != "" && $3 ~ (begin "$") && $2 ~ /^0/) { on = 1; next }
		if (end != "" && $3 ~ (end "$") && $2 ~ /^0/) { on = 0; next }
		if (!on)
			next
		for (i = 1; i <= n; i++)
			if (resp[i] == "0" && cmd[i] != 13) count[name[cmd[i] + 1]]++
	}
	END { for (c in count) print count[c], c }' | sort -k2
}
