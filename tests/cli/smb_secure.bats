#!/usr/bin/env bats
# smb_secure.bats - SMB signing and encryption (--smb-signing, --smb-encrypt,
# the SMB3 algorithm lists) against a real smbd of our own: each mode against
# a server that requires it, what the session negotiated as dbench reports it
# (the banner's Session line, the JSON environment) cross-checked with the
# server's smbstatus, and on the wire (dumpcap + tshark on lo): signed
# messages carry the signed flag and a signature, encrypted ones travel in
# SMB2 TRANSFORM headers.  A mode the server cannot give is one line and
# exit 2 before any client starts.
#
# The file's smbd has `server signing = disabled` (which SMB2 treats as
# auto: signing cannot be turned off there), a guest share, a password
# share, and a share with `server smb encrypt = required`.  Two tests start
# a second one with `server signing = mandatory` and `server smb encrypt = off`.
# Runnable by hand:  DBENCH=build/src/dbench bats tests/cli/smb_secure.bats
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	"$DBENCH" --help | grep -q -- --smb-signing ||
		{ skip_file "dbench was built without the smb backend"; return 0; }
	command -v tshark >/dev/null && command -v dumpcap >/dev/null ||
		{ skip_file "tshark/dumpcap are not installed"; return 0; }
	command -v jq >/dev/null || { skip_file "jq is not installed"; return 0; }
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	SMBD_EXTRA_CONF='[global]
	server signing = disabled
[enc]
	path = %ENC%
	read only = no
	guest ok = no
	valid users = root
	server smb encrypt = required'
	export SMBD_EXTRA_CONF
	SMBD_EXTRA_CONF=${SMBD_EXTRA_CONF/\%ENC\%/$(mktemp -d /tmp/dbench-smbenc.XXXXXX)}
	file_start_or_skip smbd_start
	export FILE_SMBD_PID=$SMBD_PID ENC_DIR=${SMBD_EXTRA_CONF##*path = }
	ENC_DIR=${ENC_DIR%%$'\n'*}
	export ENC_DIR
}

teardown_file() {
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	local pid=${FILE_SMBD_PID:-}
	smbd_stop
	! srv_group_alive "$pid" || false
	case ${ENC_DIR:-} in /tmp/dbench-smbenc.*) rm -rf -- "$ENC_DIR" ;; esac
}

setup() {
	file_skipped
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	source "$BATS_TEST_DIRNAME/../lib/smbwire.sh"
	export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$DBENCH_SRCDIR/tests/lsan.supp:print_suppressions=0}
	make_tmp
	export DBENCH_SMB_PASSWORD=$SMBD_PASS
	SRV=//127.0.0.1:$SMBD_PORT
	# The wire (dumpcap, then tshark decoding it) is checked in the first
	# pass: in the sanitizer pass that time is theirs, none is our C code's,
	# which the same runs and session checks exercise without the capture.
	WIRE=1
	[ -z "${DBENCH_SANITIZER_PASS:-}" ] || WIRE=
}

teardown() {
	smbwire_stop
	[ -n "${OWN_SMBD:-}" ] && smbd_stop
	remove_tmp
}

# two_sessions: smbstatus (into $T/status) lists the two clients' sessions.
two_sessions() {
	smbstatus -s "$SMBD_CONF" --json >"$T/status" 2>/dev/null &&
		[ "$(jq '.sessions | length' "$T/status")" -ge 2 ]
}

# sessions_listed: the run is going and smbstatus lists both clients'
# sessions (in $T/status).
sessions_listed() {
	wait_running "$T/out" || return 1
	wait_for -t 60 "smbd to list both clients' sessions" two_sessions && return 0
	cat "$T/status"
	return 1
}

# run_mode SHARE ARGS...: 2 clients on SHARE under dumpcap (unless WIRE is
# empty: a run whose wire is not checked, or the sanitizer pass), paced (-R 2)
# so that the capture stays small; once smbstatus shows both clients'
# sessions the run is stopped (SIGINT: its partial report and --json).
# Leaves $T/out, $T/err, $T/json, $T/status (smbstatus --json, the
# clients' sessions) and $T/wire ("plain N signed N encrypted N").
run_mode() {
	local share=$1
	shift
	[ -z "$WIRE" ] || smbwire_start "$T/cap.pcap" "$SMBD_PORT"
	# (--smb-timeout 60: under ASan at load 70 smbd, beside dumpcap and
	# smbstatus, once took over the default 10 s to answer)
	signal_run -w sessions_listed timeout 120 "$DBENCH" -B smb --smb-share "$SRV/$share" "$@" \
		-t 60 --warmup 0 -R 2 --smb-timeout 60 --json "$T/json" 2
	if [ -n "$WIRE" ]; then
		smbwire_stop
		smbwire_kinds "$T/cap.pcap" "$SMBD_PORT" >"$T/wire"
	else
		echo "not captured" >"$T/wire"
	fi
	echo "exit $status"
	echo "wire: $(cat "$T/wire")"
	jq -c '[.sessions[] | {session_dialect, encryption, signing}]' "$T/status"
	[ "$status" -eq 130 ]
	grep -q ", 0 mismatches," "$T/out"
}

# session_is DIALECT SIGNED SIGNING_ALGO ENCRYPTED CIPHER: what the banner,
# the JSON environment and smbstatus (for every client session) all say.
session_is() {
	local want="Session: dialect $1, signed $2, signing_algorithm $3, encrypted $4, cipher $5"
	grep -qxF "$want" "$T/out" || { echo "banner: want '$want'"; return 1; }
	[ "$(jq -c .environment.session "$T/json")" = \
	  "{\"dialect\":\"$1\",\"signed\":\"$2\",\"signing_algorithm\":\"$3\",\"encrypted\":\"$4\",\"cipher\":\"$5\"}" ]
	check_schema "$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T/json"
	# the server's view of each client's session
	[ "$(jq '.sessions | length' "$T/status")" -ge 2 ]
	[ -z "$(jq -r --arg d "$1" '.sessions[] | select(.session_dialect != $d) | .session_id' "$T/status")" ]
	if [ "$4" = yes ]; then
		[ -z "$(jq -r --arg c "$5" '.sessions[] | select(.encryption.cipher != $c) | .session_id' "$T/status")" ]
	else
		[ -z "$(jq -r '.sessions[] | select(.encryption.cipher != "-") | .session_id' "$T/status")" ]
		if [ "$2" = yes ]; then
			[ -z "$(jq -r --arg a "$3" '.sessions[] | select(.signing.cipher != $a or .signing.degree != "full") | .session_id' "$T/status")" ]
		else
			[ -z "$(jq -r '.sessions[] | select(.signing.degree == "full") | .session_id' "$T/status")" ]
		fi
	fi
}

# wire_is plain|signed|encrypted: every file operation's message went so
# (the first pass: not captured in the sanitizer pass, see setup).
wire_is() {
	local plain signed encrypted
	[ -n "$WIRE" ] || return 0
	read -r _ plain _ signed _ encrypted <"$T/wire"
	case $1 in
	plain)	[ "$plain" -gt 20 ] && [ "$signed" -eq 0 ] && [ "$encrypted" -eq 0 ] ;;
	signed)	[ "$signed" -gt 20 ] && [ "$plain" -eq 0 ] && [ "$encrypted" -eq 0 ] ;;
	encrypted) [ "$encrypted" -gt 20 ] && [ "$plain" -eq 0 ] && [ "$signed" -eq 0 ] ;;
	esac
}

@test "smb_secure: --help lists the options; bad values are one line, exit 2" {
	run "$DBENCH" --help
	for opt in --smb-signing --smb-encrypt --smb-signing-algorithms --smb-encryption-algorithms; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; return 1; }
	done
	while IFS='|' read -r args want; do
		run --separate-stderr "$DBENCH" -B smb --smb-share "$SRV/share" $args -t 1 1
		echo "$args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		[[ "$stderr" == *"$want"* ]]
	done <<'EOF'
--smb-signing sometimes|--smb-signing 'sometimes': expected off, if_required, desired or required
--smb-encrypt maybe|--smb-encrypt 'maybe': expected off, if_required, desired or required
--smb-signing-algorithms AES-256-GMAC|unknown algorithm 'AES-256-GMAC'
--smb-signing-algorithms HMAC-SHA256,hmac-sha256|HMAC-SHA256 is given twice
--smb-encryption-algorithms ,|expected a list of algorithm names
--smb-encryption-algorithms AES-128-GMAC|unknown algorithm 'AES-128-GMAC'
EOF
}

@test "smb_secure: plain SMB3.1.1 as guest: neither signed nor encrypted, on the wire too" {
	run_mode share
	session_is SMB3_11 no AES-128-GMAC no AES-128-GCM
	wire_is plain
}

@test "smb_secure: --smb-signing required, each SMB3.1.1 signing algorithm: signed on the wire" {
	local algo
	# (smb_secure.c passes each name on from one table: under ASan, one)
	for algo in $(sanitizer_pass_one AES-128-GMAC AES-128-CMAC HMAC-SHA256); do
		run_mode private --smb-user root --smb-signing required --smb-signing-algorithms "$algo"
		session_is SMB3_11 yes "$algo" no AES-128-GCM
		wire_is signed
	done
}

@test "smb_secure: --smb-encrypt required on a share that requires it, each cipher: TRANSFORM headers only" {
	local cipher
	# (smb_secure.c passes each name on from one table: under ASan, one)
	for cipher in $(sanitizer_pass_one AES-128-GCM AES-128-CCM AES-256-GCM AES-256-CCM); do
		run_mode enc --smb-user root --smb-encrypt required --smb-encryption-algorithms "$cipher"
		session_is SMB3_11 no AES-128-GMAC yes "$cipher"
		wire_is encrypted
	done
	[ -z "$(find "$ENC_DIR" -mindepth 1)" ]
}

@test "smb_secure: --smb-encrypt desired on a share that does not require it: libsmbclient encrypts" {
	sanitizer_pass_skip "--smb-encrypt desired is set as the required test's; the mandatory-signing test runs desired too"
	run_mode private --smb-user root --smb-encrypt desired
	session_is SMB3_11 no AES-128-GMAC yes AES-128-GCM
	wire_is encrypted
}

@test "smb_secure: SMB2_02 signed: HMAC-SHA256, no cipher" {
	run_mode private --smb-user root --smb-protocol SMB2_02 --smb-signing required
	session_is SMB2_02 yes HMAC-SHA256 no none
	wire_is signed
}

@test "smb_secure: server signing = disabled does not stop SMB2 signing; a guest session cannot be signed: one line, exit 2" {
	grep -q 'server signing = disabled' "$SMBD_CONF"
	run_mode private --smb-user root --smb-signing required
	session_is SMB3_11 yes AES-128-GMAC no AES-128-GCM
	wire_is signed
	run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$SRV/share" --smb-signing required -t 2 2
	echo "$status: $output / $stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $SRV/share: --smb-signing required, but the SMB3_11 session is not signed (a guest session has no key to sign with: give --smb-user)" ]
	[[ "$output" != *"releasing clients"* ]]
	# a dialect without encryption cannot be encrypted
	run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$SRV/private" --smb-user root \
		--smb-protocol SMB2_10 --smb-encrypt required -t 2 2
	echo "$status: $stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--smb-encrypt required, but the SMB2_10 session is not encrypted (SMB2 dialects have no encryption"* ]]
}

@test "smb_secure: a server with mandatory signing and encryption off: signed unasked, encryption refused" {
	local file_conf=$SMBD_CONF
	unset SMBD_PID
	SMBD_EXTRA_CONF='[global]
	server signing = mandatory
	server smb encrypt = off' srv_start_or_skip smbd_start
	OWN_SMBD=1
	[ "$SMBD_CONF" != "$file_conf" ]
	SRV=//127.0.0.1:$SMBD_PORT
	# nothing asked: the server's mandatory signing is what the session got
	run_mode private --smb-user root
	session_is SMB3_11 yes AES-128-GMAC no none
	wire_is signed
	# required encryption the server does not offer: one line, no client
	run --separate-stderr timeout 60 "$DBENCH" -B smb --smb-share "$SRV/private" --smb-user root \
		--smb-encrypt required -t 2 2
	echo "$status: $output / $stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $SRV/private: --smb-encrypt required, but the SMB3_11 session is not encrypted (the server negotiated no cipher: it does not offer encryption)" ]
	[[ "$output" != *"releasing clients"* ]]
	# desired: carries on in clear, and says so (the wire: as above)
	WIRE= run_mode private --smb-user root --smb-encrypt desired
	session_is SMB3_11 yes AES-128-GMAC no none
}

@test "smb_secure: the user's own smb.conf counts where no option overrides it, and is not written" {
	mkdir -p "$T/home/.smb"
	printf '[global]\n\tclient signing = required\n\tclient smb3 signing algorithms = AES-128-CMAC\n' \
		>"$T/home/.smb/smb.conf"
	cp "$T/home/.smb/smb.conf" "$T/before"
	# (what was negotiated is what counts here: the wire is not captured)
	HOME=$T/home WIRE= run_mode private --smb-user root
	session_is SMB3_11 yes AES-128-CMAC no AES-128-GCM
	# an option overrides the one setting it names, the rest still counts
	HOME=$T/home WIRE= run_mode private --smb-user root --smb-signing-algorithms HMAC-SHA256
	session_is SMB3_11 yes HMAC-SHA256 no AES-128-GCM
	cmp "$T/before" "$T/home/.smb/smb.conf"
	[ "$(ls -A "$T/home/.smb")" = smb.conf ]
	# and dbench's own file is gone
	[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'dbench-smb.*' -newer "$T/before" 2>/dev/null)" ]
}
