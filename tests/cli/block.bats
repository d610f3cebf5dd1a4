#!/usr/bin/env bats
# block.bats - the block backend on a plain file and on a loop device the
# test makes (losetup on a sparse file; skipped, with the reason, where the
# container cannot make one); the scsi backend's checks (this machine has
# no /dev/sg*: its real test skips with that reason); the SCSI write guard
# and SCSI statuses in the compiler.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	make_tmp
	LOOPDEV=
}

teardown() {
	mountpoint -q "$T/mnt" 2>/dev/null && umount "$T/mnt"
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	remove_tmp
}

# make_loop SIZE: a loop device over a sparse file in $T, in LOOPDEV;
# skips the test, with the reason, where the machine cannot make one.
make_loop() {
	local out

	truncate -s "$1" "$T/backing.img"
	out=$(losetup -f --show "$T/backing.img" 2>&1) ||
		skip "losetup cannot make a loop device here: $out"
	LOOPDEV=$out
}

# A read-write loadfile over the first MiB, at aligned random offsets.
rw_loadfile() {
	loadfile rw.load <<'EOF'
LOOP 200
WRITE */0x1000%0x100000 4096 0x00000000
READ */0x1000%0x100000 8192 NT_STATUS_OK
ENDLOOP
FDATASYNC SUCCESS
EOF
}

@test "block: reads, writes and fdatasync on a plain file, two clients" {
	rw_loadfile
	truncate -s 4M "$T/disk.img"
	run --separate-stderr "$DBENCH" -B block --block="$T/disk.img" -c "$T/rw.load" --run-once 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ "+400" " ]]
	[[ "$output" =~ $'\n'" WRITE "+400" " ]]
	[[ "$output" =~ $'\n'" FDATASYNC "+2" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	# it wrote: the file is no longer all zeros, and no larger
	[ "$(stat -c %s "$T/disk.img")" -eq $((4 << 20)) ]
	[ -n "$(od -An -N 1048576 -v "$T/disk.img" | tr -d ' 0\n' | head -c 1)" ]
}

@test "block: offsets past the end wrap, and the device never grows" {
	loadfile wrap.load <<'EOF'
READ 0x7fffffffffff0000 4096 NT_STATUS_OK
WRITE 1048576 4096 NT_STATUS_OK
WRITE 1044480 8192 NT_STATUS_OK
READ * 1048576 NT_STATUS_OK
READ 0 2000000 NT_STATUS_OK
EOF
	truncate -s 1M "$T/disk.img"
	run --separate-stderr "$DBENCH" -B block --block="$T/disk.img" -c "$T/wrap.load" --run-once 1
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ", 0 mismatches," ]]
	[ "$(stat -c %s "$T/disk.img")" -eq 1048576 ]
}

@test "block: a read-only loadfile opens the device read-only" {
	loadfile ro.load <<'EOF'
READ */0x1000 4096 NT_STATUS_OK
EOF
	truncate -s 1M "$T/disk.img"
	# root ignores file modes: look at the open flags instead
	command -v strace >/dev/null || skip "strace is not installed"
	# (LeakSanitizer cannot work under ptrace: off for this run in the ASan build)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run --separate-stderr strace -f -e trace=openat "$DBENCH" -B block --block="$T/disk.img" \
		-c "$T/ro.load" --run-once 1
	[ "$status" -eq 0 ]
	echo "$stderr" | grep "disk.img" >&2
	echo "$stderr" | grep "disk.img" | grep -q O_RDONLY
	! echo "$stderr" | grep "disk.img" | grep -q O_RDWR
}

@test "block: a loop device over a sparse file, O_DIRECT" {
	make_loop 16M
	loadfile rr.load <<'EOF'
LOOP 500
READ */0x1000%0x40000000 4096 0x00000000
ENDLOOP
EOF
	run --separate-stderr "$DBENCH" -B block --block="$LOOPDEV" -c "$T/rr.load" --run-once 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ "+1000" " ]]
	[[ "$output" =~ ", 0 mismatches," ]]
	# a block device takes O_DIRECT: no fallback message
	! [[ "$stderr" =~ "O_DIRECT" ]] || false
	losetup -d "$LOOPDEV"
	LOOPDEV=
	[ -z "$(losetup -j "$T/backing.img")" ]
}

# Block devices are not scratch space: a mounted one is refused (O_EXCL),
# whatever the loadfile does, and the file system on it is left as it was.
@test "block: a mounted device is refused before any client starts, the file system untouched" {
	make_loop 64M
	mkfs.ext4 -q "$LOOPDEV"
	mkdir "$T/mnt"
	mount "$LOOPDEV" "$T/mnt" || skip "cannot mount an ext4 file system here"
	echo precious > "$T/mnt/keep"
	sync
	rw_loadfile
	run --separate-stderr "$DBENCH" -B block --block="$LOOPDEV" -c "$T/rw.load" --run-once \
		--allow-block-writes 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --block $LOOPDEV: the device is mounted (at $T/mnt): refused, it is not scratch space" ]
	[[ "$output" != *"releasing clients"* ]]
	# reading is refused the same way (O_EXCL: the device is held)
	loadfile r.load <<'EOF'
READ 0 4096 NT_STATUS_OK
EOF
	run --separate-stderr "$DBENCH" -B block --block="$LOOPDEV" -c "$T/r.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"the device is mounted"* ]]
	umount "$T/mnt"
	# (on main the WRITEs went into the file system: fsck finds it damaged)
	fsck.ext4 -fn "$LOOPDEV"
	[ "$(debugfs -R 'cat /keep' "$LOOPDEV" 2>/dev/null)" = precious ]
}

@test "block: writes to a block device need --allow-block-writes; a regular file does not" {
	make_loop 16M
	rw_loadfile
	run --separate-stderr "$DBENCH" -B block --block="$LOOPDEV" -c "$T/rw.load" --run-once 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "$T/rw.load:2: WRITE would write to block device $LOOPDEV: refused without --allow-block-writes" ]
	[[ "$output" != *"releasing clients"* ]]
	[ -z "$(od -An -v "$T/backing.img" | tr -d ' 0\n' | head -c 1)" ]	# all zeros still
	run --separate-stderr "$DBENCH" -B block --block="$LOOPDEV" -c "$T/rw.load" --run-once \
		--allow-block-writes 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" WRITE "+400" " ]]
	[ -n "$(od -An -N 1048576 -v "$T/backing.img" | tr -d ' 0\n' | head -c 1)" ]
	# the same loadfile on the regular file under it needs no permission
	losetup -d "$LOOPDEV"
	LOOPDEV=
	run --separate-stderr "$DBENCH" -B block --block="$T/backing.img" -c "$T/rw.load" --run-once 2
	[ "$status" -eq 0 ]
	# --help says so
	run "$DBENCH" --help
	[[ "$output" == *"--allow-block-writes"* ]]
}

@test "block: the shipped loadfile passes --check-loadfile" {
	run "$DBENCH" -B block --block=/dev/null -c "$DBENCH_SRCDIR/loadfiles/block-randread.load" \
		--check-loadfile 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ "Bytes read:     4096000 " ]]
}

@test "block: bad devices get one line and exit status 2" {
	loadfile r.load <<'EOF'
READ 0 4096 NT_STATUS_OK
EOF
	run --separate-stderr "$DBENCH" -B block -c "$T/r.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "needs --block=DEV" ]]
	run --separate-stderr "$DBENCH" -B block --block="$T/nonexistent" -c "$T/r.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "$T/nonexistent: No such file or directory" ]]
	run --separate-stderr "$DBENCH" -B block --block="$T" -c "$T/r.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "not a block device or regular file" ]]
	: > "$T/empty.img"
	run --separate-stderr "$DBENCH" -B block --block="$T/empty.img" -c "$T/r.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "it is empty" ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
}

@test "block: READ with a path is still the SMB op, and each backend says which it lacks" {
	loadfile mixed.load <<'EOF'
READ 0 4096 NT_STATUS_OK
READ "\clients\client1\f" 0 4096 NT_STATUS_OK
EOF
	run --separate-stderr "$DBENCH" -B block --block=/dev/null -c "$T/mixed.load" --check-loadfile 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "mixed.load:2: READ is not supported by the block backend" ]]
	run --separate-stderr "$DBENCH" -D "$T/d" -c "$T/mixed.load" --check-loadfile 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "mixed.load:1: READ is not supported by the fileio backend" ]]
}

@test "scsi: writes to a LUN are refused without --allow-scsi-writes" {
	local op

	for op in "WRITE10 0 1 0 0 GOOD" "WRITE16 0 1 0 0 GOOD" "PROUT 0 0 0 0x1 GOOD"; do
		printf 'READ10 0 1 0 0 GOOD\n%s\n' "$op" > "$T/w.load"
		run --separate-stderr "$DBENCH" -B null -c "$T/w.load" --check-loadfile 1
		[ "$status" -eq 2 ]
		[[ "$stderr" =~ "w.load:2: ${op%% *} changes the LUN: refused without --allow-scsi-writes" ]]
		run --separate-stderr "$DBENCH" -B null -c "$T/w.load" --check-loadfile --allow-scsi-writes 1
		[ "$status" -eq 0 ]
	done
}

@test "scsi: statuses, arguments and expressions go through the compiler" {
	loadfile ok.load <<'EOF'
TESTUNITREADY 0x00
READ10 */8%0x100000+16 8 0 0 GOOD
READ6 child 1 CHECK_CONDITION
READ16 * 8 0 0 CHECK_CONDITION/ILLEGAL_REQUEST/0x2100
READCAPACITY10 SUCCESS
SYNCHRONIZECACHE10 *
READ10 0 1 RESERVATION_CONFLICT
EOF
	run --separate-stderr "$DBENCH" -B null -c "$T/ok.load" --check-loadfile 1
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	# SCSI lengths are blocks: 8 + 1 + 8 + 1 blocks of 512 bytes
	[[ "$output" =~ "Bytes read:     9216 " ]]
	loadfile bad.load <<'EOF'
READ10 0 8 0 0 NT_STATUS_OK
READ10 0 8 0 0 CHECK_CONDITION/NOT_A_KEY
READ6 0 GOOD
TESTUNITREADY "x" GOOD
EOF
	run --separate-stderr "$DBENCH" -B null -c "$T/bad.load" --check-loadfile 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "bad.load:1: READ10: bad status 'NT_STATUS_OK' (expected a SCSI status such as GOOD" ]]
	[[ "$stderr" =~ "bad.load:2: READ10: bad status 'CHECK_CONDITION/NOT_A_KEY'" ]]
	[[ "$stderr" =~ "bad.load:3: READ6 takes 2 arguments and a status" ]]
	[[ "$stderr" =~ "bad.load:4: TESTUNITREADY takes 0 arguments and a status" ]]
}

@test "scsi: --scsi must name a SCSI generic device" {
	loadfile t.load <<'EOF'
TESTUNITREADY GOOD
EOF
	run --separate-stderr "$DBENCH" -B scsi -c "$T/t.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "needs --scsi=/dev/sgN" ]]
	run --separate-stderr "$DBENCH" -B scsi --scsi=/dev/null -c "$T/t.load" --run-once 1
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ "--scsi /dev/null: not a SCSI generic (sg) device" ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
}

@test "scsi: reads through SG_IO on a real /dev/sg device" {
	local sg

	for sg in /dev/sg*; do
		[ -c "$sg" ] && break
		sg=
	done
	[ -n "$sg" ] || skip "this machine has no /dev/sg* (no SCSI generic device)"
	loadfile t.load <<'EOF'
TESTUNITREADY *
READCAPACITY10 GOOD
LOOP 10
READ10 */8 8 0 0 GOOD
ENDLOOP
EOF
	run --separate-stderr "$DBENCH" -B scsi --scsi="$sg" -c "$T/t.load" --run-once 1
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" =~ $'\n'" READ10 "+10" " ]]
}
