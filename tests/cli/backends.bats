#!/usr/bin/env bats
# backends.bats - self-describing backends: --help built from the backends
# present, -B errors in one line, the flags the core goes by (a server
# argument, the -D check) instead of backend names.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	make_tmp
	printf 'Mkdir "\\clients" *\nMkdir "\\clients\\client1" NT_STATUS_OK\n' > "$T/tiny.txt"
}
teardown() { remove_tmp; }

@test "--help lists every backend with what it is, and each one's options under its name" {
	run --separate-stderr "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nBackends (-B NAME):\n'* ]]
	for line in "  fileio   the local file system under -D" \
		"(works in -D, file options, dbench's default, built in)" \
		"  sockio   tbench: " "(takes a server, network, tbench's default, built in)" \
		"  null     does nothing" \
		"fileio backend options (-B fileio):" "sockio backend options (-B sockio):" \
		"Modules (dbench-NAME.so) are looked for in "; do
		[[ "$output" == *"$line"* ]] || { echo "missing: $line"; return 1; }
	done
	# the shared tables are titled with the backends that take them
	grep -Eqx 'File options \(fileio(, [a-z]+)*\):' <<<"$output"
	grep -Eqx 'Server options \(sockio(, [a-z]+)*\):' <<<"$output"
	# every option is listed once
	[ "$(grep -c -- '--sync-dir' <<<"$output")" -eq 1 ]
	[ "$(grep -c -- '--server=' <<<"$output")" -eq 1 ]
	[ -z "$stderr" ]
}

@test "--usage and -? exit 0" {
	run "$DBENCH" --usage
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: dbench "* ]]
	run "$DBENCH" "-?"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Backends (-B NAME):"* ]]
}

@test "an unknown backend: one line naming the known ones, exit 2" {
	local name
	for name in nosuch ../fileio 'a b' ''; do
		run --separate-stderr "$DBENCH" -B "$name" -c "$T/tiny.txt" 1
		echo "-B '$name' -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "dbench: unknown backend '$name' (known: fileio, sockio, null"* ]]
		[ -z "$output" ]
	done
}

@test "a server argument: refused by a backend that takes none, with the -D hint where it works in -D" {
	run --separate-stderr "$DBENCH" -c "$T/tiny.txt" -D "$T/d" 1 somehost
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unexpected argument 'somehost' (the fileio backend takes no server; did you mean -D somehost?)"* ]]
	run --separate-stderr "$DBENCH" -B null -c "$T/tiny.txt" 1 somehost
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unexpected argument 'somehost' (the null backend takes no server)"* ]]
}

@test "-D is checked for the backend that works in it, not for the others" {
	run --separate-stderr "$DBENCH" -c "$T/tiny.txt" -D "$T/nosuch" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"directory '$T/nosuch': No such file or directory"* ]]
	run --separate-stderr "$DBENCH" -B null -c "$T/tiny.txt" -D "$T/nosuch" --run-once 1
	[ "$status" -eq 0 ]
}

@test "-B in every spelling, also inside a cluster of short options" {
	local args
	for args in "-B null" "-Bnull" "--backend null" "--backend=null" "-sBnull"; do
		run --separate-stderr "$DBENCH" $args --check-loadfile -c "$T/tiny.txt" 1
		echo "$args -> $status: $output $stderr"
		[ "$status" -eq 0 ]
		[[ "$output" == *"Backend null: every operation is supported"* ]]
	done
}

@test "an option of a backend that is not the one chosen: one line naming it and its backends, exit 2" {
	local args out
	# a server for a backend that takes none
	run --separate-stderr "$DBENCH" -B fileio -D "$T/d" -c "$T/tiny.txt" --check-loadfile --server h 2
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" =~ ^"dbench: --server is an option of the sockio"(, [a-z]+)*( and [a-z]+)?" backend"s?", not of the fileio backend (see dbench --help)"$ ]]
	[[ "$stderr" != *smb* ]]	# smb takes its server from --smb-share
	while IFS='|' read -r args out; do
		run --separate-stderr "$DBENCH" $args -c "$T/tiny.txt" --check-loadfile --json "$T/err.json" 1
		echo "dbench $args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ "$stderr" = "dbench: $out (see dbench --help)" ]
		# the --json error document says the same
		[ "$(jq -r .error "$T/err.json")" = "$out" ]
	done <<EOF_CASES
-B null --block /dev/null|--block is an option of the block backend, not of the null backend
-B block --block /dev/null --scsi /dev/sg0|--scsi is an option of the scsi backend, not of the block backend
-B scsi --wire classic|--wire is an option of the sockio backend, not of the scsi backend
-B null --server-timeout 5|--server-timeout is an option of the sockio backend, not of the null backend
EOF_CASES
	# --port is also a network backend's default port (smb's --smb-share)
	run --separate-stderr "$DBENCH" -B null --port 7003 -c "$T/tiny.txt" --check-loadfile 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ ^"dbench: --port is an option of the sockio"(, [a-z]+)*( and [a-z]+)?" backend"s?", not of the null backend (see dbench --help)"$ ]]
}

@test "dbench 4.0's options: every backend takes them, and one that has no use for them ignores them" {
	local be
	# 4.0 built dbench and tbench from one option table: dbench took -T,
	# tbench took -D, -x, -s, ...; neither did anything with the other's
	run --separate-stderr "$DBENCH" -D "$T/d" -T "TCP_NODELAY SO_KEEPALIVE" --check-loadfile -c "$T/tiny.txt" 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	for be in sockio null; do
		run --separate-stderr "$DBENCH" -B "$be" -D "$T/nosuch" -x --no-resolve -T TCP_NODELAY -s -S -F \
			--one-byte-write-fix --stat-check --fake-io --check-loadfile -c "$T/tiny.txt" 1
		echo "$be: $status $stderr"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"Backend $be: every operation is supported"* ]]
	done
	# an option 4.0 did not have is not among them
	run --separate-stderr "$TBENCH" --check-size --check-loadfile -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "tbench: --check-size is an option of the fileio"*", not of the sockio backend (see tbench --help)" ]]
}

@test "tbench runs on sockio by default and lists its server argument" {
	run "$TBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: tbench [OPTION...] NPROCS [SERVER[:PORT]]"* ]]
	run --separate-stderr "$TBENCH" --check-loadfile -c "$T/tiny.txt" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"Backend sockio: every operation is supported"* ]]
}
