#!/usr/bin/env bats
# servers.bats - tests of the private-server helpers in tests/lib.
#
# The SMB and NFS backend tests trust smbd.sh and nfs.sh to give them a
# working server and to leave nothing behind; these tests check exactly
# that: start, move a file both ways with the stock clients, stop, and no
# process of ours or temporary directory is left -- twice in a row.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers

setup() {
	sanitizer_pass_skip "the helpers are shell; no C code of ours runs here"
	source "$BATS_TEST_DIRNAME/../lib/smbd.sh"
	source "$BATS_TEST_DIRNAME/../lib/nfs.sh"
	WORK=$(mktemp -d -t dbench-servers-test.XXXXXX)
	printf 'dbench helper test %s\n' "$BATS_TEST_NUMBER" >"$WORK/in.txt"
}

teardown() {
	smbd_stop
	nfs_stop
	unpin_netns
	rm -rf -- "$WORK"
}

# smbclient against our smbd, guest on `share`.
smb_guest() {
	timeout 20 smbclient -s "$SMBD_CONF" -p "$SMBD_PORT" -N \
		//127.0.0.1/share -c "$1"
}

# assert_smbd_gone PID DIR: no process of that smbd is left, DIR is removed.
assert_smbd_gone() {
	! srv_alive "$1" || false
	! srv_group_alive "$1" || false
	[ -z "$(pgrep -f -- "$2")" ]
	[ ! -e "$2" ]
}

# pin_netns: hold the server's network namespace open until the test is
# over.  srv_netns_procs finds its processes by the namespace's inode number,
# and the kernel gives a freed number to the next namespace made at once:
# without the pin, a namespace a parallel test makes (tbench_link.bats, a
# benchmark) after nfs_stop would count as this one, its processes as left.
pin_netns() {
	exec {NETNS_PIN}<"/proc/$NFS_NS_PID/ns/net"
}

unpin_netns() {
	if [ -n "${NETNS_PIN:-}" ]; then
		exec {NETNS_PIN}<&-
		NETNS_PIN=
	fi
}

# assert_nfs_gone NETNS UNSHARE_PID DIR: the namespace is empty, DIR removed.
assert_nfs_gone() {
	[ -z "$(srv_netns_procs "$1")" ]
	! srv_alive "$2" || false
	[ -z "$(pgrep -f -- "$3")" ]
	[ ! -e "$3" ]
}

smbd_round_trip() {
	local pid dir

	srv_start_or_skip smbd_start
	pid=$SMBD_PID
	dir=$SMBD_DIR
	[ -f "$SMBD_CONF" ] && [ -d "$SMBD_SHARE_DIR" ] && [ "$SMBD_PORT" -gt 0 ]

	run smb_guest "put $WORK/in.txt in.txt; ls"
	[ "$status" -eq 0 ]
	[[ "$output" == *in.txt* ]]
	cmp "$WORK/in.txt" "$SMBD_SHARE_DIR/in.txt"
	run smb_guest "get in.txt $WORK/out.txt"
	[ "$status" -eq 0 ]
	cmp "$WORK/in.txt" "$WORK/out.txt"

	smbd_stop
	assert_smbd_gone "$pid" "$dir"
	[ -z "${SMBD_PID:-}" ]
}

@test "smbd: start, put, list, get, stop, nothing left (1st)" {
	smbd_round_trip
}

@test "smbd: start, put, list, get, stop, nothing left (2nd)" {
	smbd_round_trip
}

@test "smbd: share private needs the password user" {
	srv_start_or_skip smbd_start
	run timeout 20 smbclient -s "$SMBD_CONF" -p "$SMBD_PORT" \
		-U "$SMBD_USER%$SMBD_PASS" //127.0.0.1/private -c "put $WORK/in.txt p.txt"
	[ "$status" -eq 0 ]
	cmp "$WORK/in.txt" "$SMBD_PRIVATE_DIR/p.txt"
	run timeout 20 smbclient -s "$SMBD_CONF" -p "$SMBD_PORT" -N \
		//127.0.0.1/private -c ls
	[ "$status" -ne 0 ]
	[[ "$output" == *NT_STATUS_ACCESS_DENIED* ]]
}

@test "smbd: stopping one smbd leaves another running" {
	local pid dir

	srv_start_or_skip smbd_start
	pid=$SMBD_PID
	dir=$SMBD_DIR
	# A second private smbd, started and stopped in a subshell.
	(
		unset SMBD_PID
		smbd_start && smbd_stop
	)
	srv_alive "$pid"
	[ -d "$dir" ]
	run smb_guest ls
	[ "$status" -eq 0 ]
}

@test "smbd: smbd_kill kills every smbd process, smbd_stop cleans up" {
	local pid dir

	srv_start_or_skip smbd_start
	pid=$SMBD_PID
	dir=$SMBD_DIR
	smbd_kill
	! srv_alive "$pid" || false
	! srv_group_alive "$pid" || false
	run smb_guest ls
	[ "$status" -ne 0 ]
	smbd_stop
	assert_smbd_gone "$pid" "$dir"
}

@test "smbd: a missing tool is a skip (code 77) with the reason" {
	run env PATH=/nonexistent /bin/bash -c \
		". '$BATS_TEST_DIRNAME/../lib/smbd.sh'; smbd_start"
	[ "$status" -eq 77 ]
	[[ "$output" == *"is not installed"* ]]
}

nfs_round_trip() {
	local ns unshare_pid dir

	srv_start_or_skip nfs_ns_start
	ns=$_NFS_NETNS
	unshare_pid=$_NFS_UNSHARE_PID
	pin_netns
	dir=$NFS_DIR
	[ "$NFS_URL" = nfs://127.0.0.1/export ] && [ -d "$NFS_EXPORT_DIR" ]

	run nfs_ns_exec timeout 20 nfs-cp "$WORK/in.txt" "$NFS_URL/in.txt"
	[ "$status" -eq 0 ]
	cmp "$WORK/in.txt" "$NFS_EXPORT_DIR/in.txt"
	run nfs_ns_exec timeout 20 nfs-ls "$NFS_URL"
	[ "$status" -eq 0 ]
	[[ "$output" == *in.txt* ]]
	run nfs_ns_exec timeout 20 nfs-cp "$NFS_URL/in.txt" "$WORK/out.txt"
	[ "$status" -eq 0 ]
	cmp "$WORK/in.txt" "$WORK/out.txt"

	nfs_stop
	assert_nfs_gone "$ns" "$unshare_pid" "$dir"
	[ -z "${NFS_NS_PID:-}" ]
}

@test "nfs: start, put, list, get, stop, nothing left (1st)" {
	nfs_round_trip
}

@test "nfs: start, put, list, get, stop, nothing left (2nd)" {
	nfs_round_trip
}

@test "nfs: the server is not reachable from outside the namespace" {
	srv_start_or_skip nfs_ns_start
	run timeout 20 nfs-ls "$NFS_URL"
	[ "$status" -ne 0 ]
}

@test "nfs: nfs_kill_server kills ganesha only, nfs_stop cleans up" {
	local ns unshare_pid dir

	srv_start_or_skip nfs_ns_start
	ns=$_NFS_NETNS
	unshare_pid=$_NFS_UNSHARE_PID
	pin_netns
	dir=$NFS_DIR
	nfs_kill_server
	[ -z "$(nfs_server_pid)" ]
	pgrep -P "$NFS_NS_PID" -x rpcbind
	run nfs_ns_exec timeout 20 nfs-ls "$NFS_URL"
	[ "$status" -ne 0 ]
	nfs_stop
	assert_nfs_gone "$ns" "$unshare_pid" "$dir"
}

@test "nfs: NFS_ENABLE_NLM=1 serves NLM v4 (with rpc.statd), nothing left" {
	local ns unshare_pid dir

	NFS_ENABLE_NLM=1 srv_start_or_skip nfs_ns_start
	ns=$_NFS_NETNS
	unshare_pid=$_NFS_UNSHARE_PID
	pin_netns
	dir=$NFS_DIR
	run nfs_ns_exec rpcinfo -p 127.0.0.1
	[ "$status" -eq 0 ]
	[[ "$output" == *nlockmgr* ]]
	[[ "$output" == *status* ]]
	nfs_stop
	assert_nfs_gone "$ns" "$unshare_pid" "$dir"
}

@test "nfs: a missing tool is a skip (code 77) with the reason" {
	run env PATH=/nonexistent /bin/bash -c \
		". '$BATS_TEST_DIRNAME/../lib/nfs.sh'; nfs_ns_start"
	[ "$status" -eq 77 ]
	[[ "$output" == *"is not installed"* ]]
}

@test "nfs: a kernel that refuses namespaces is a skip (code 77) with the reason" {
	mkdir "$WORK/bin"
	printf '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n' \
		>"$WORK/bin/unshare"
	chmod +x "$WORK/bin/unshare"
	run env PATH="$WORK/bin:$PATH" /bin/bash -c \
		". '$BATS_TEST_DIRNAME/../lib/nfs.sh'; nfs_ns_start"
	[ "$status" -eq 77 ]
	[[ "$output" == *"cannot create private namespaces here"*"Operation not permitted"* ]]
}

@test "nfs: a ganesha that dies at every start fails after the retry, naming both reasons, leaving nothing" {
	mkdir "$WORK/bin"
	printf '#!/bin/sh\necho "fake ganesha: cannot start" >>"$5"\nexit 1\n' \
		>"$WORK/bin/ganesha.nfsd"
	chmod +x "$WORK/bin/ganesha.nfsd"
	run --separate-stderr env PATH="$WORK/bin:$PATH" /bin/bash -c \
		". '$BATS_TEST_DIRNAME/../lib/nfs.sh'; nfs_ns_start; rc=\$?; echo \"NFS_DIR=\${NFS_DIR:-}\"; exit \$rc"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ "$(echo "$stderr" | grep -c "^nfs: the first start failed (ganesha exited while starting: fake ganesha: cannot start *); starting once more$")" -eq 1 ]
	echo "$stderr" | grep -q "^nfs: ganesha failed to start twice: first: ganesha exited while starting: fake ganesha: cannot start *; then: ganesha exited while starting: fake ganesha: cannot start *$"
	# both tries cleaned up after themselves
	[ "$output" = "NFS_DIR=" ]
	[ -z "$(grep -l "fake ganesha" /tmp/dbench-nfs.*/ganesha.log 2>/dev/null)" ]
}
