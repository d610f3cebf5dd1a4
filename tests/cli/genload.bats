#!/usr/bin/env bats
# genload.bats - the default loadfile generator and the file it made:
# regenerating gives the shipped loadfiles/client.txt byte for byte, the pass
# starts and ends as the classic one does, handles are used only while open,
# and the op mix stays within a few points of the classic netbench trace's.
#
# GENLOAD is the generator under test (make check sets DBENCH_BUILDDIR; by
# hand it defaults to build/tools/genload of this source tree).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0

TOP=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
DBENCH_SRCDIR=${DBENCH_SRCDIR:-$TOP}
GENLOAD=${GENLOAD:-${DBENCH_BUILDDIR:-$TOP/build}/tools/genload}
SHIPPED=$DBENCH_SRCDIR/loadfiles/client.txt

setup() {
	T=$(mktemp -d /tmp/genload-test.XXXXXX)
}

teardown() {
	[ -n "${T:-}" ] && rm -rf "$T"
}

# The classic trace's share of each op, percent (see docs/classic-loadfile.md).
TARGETS='ReadX 27.10
NTCreateX 17.29
QUERY_PATH_INFORMATION 15.67
Close 12.70
WriteX 8.62
FIND_FIRST 6.06
Unlink 3.49
QUERY_FS_INFORMATION 2.87
QUERY_FILE_INFORMATION 2.75
SET_FILE_INFORMATION 1.41
Flush 1.21
Rename 0.73'

# mix_check FILE POINTS: every target op within POINTS of its share, locks
# present but rare, 4-7 KB moved an op, reads 1.2-1.8x writes by bytes.
mix_check() {
	printf '%s\n' "$TARGETS" | awk -v points="$2" '
	FNR == NR { target[$1] = $2; next }
	/^#/ || NF == 0 { next }
	{ count[$1]++; ops++ }
	$1 == "ReadX" { rbytes += $5 }
	$1 == "WriteX" { wbytes += $5 }
	END {
		bad = 0
		for (op in target) {
			share = 100 * count[op] / ops
			d = share - target[op]
			if (d < 0) d = -d
			printf "%-24s %6.2f%% target %6.2f%%\n", op, share, target[op]
			if (d > points) { print "  off by more than " points " points"; bad = 1 }
		}
		lock = 100 * count["LockX"] / ops
		if (count["LockX"] < 1 || lock > 0.3 || count["LockX"] != count["UnlockX"]) {
			print "LockX/UnlockX: " count["LockX"] "/" count["UnlockX"]; bad = 1
		}
		per_op = (rbytes + wbytes) / ops
		printf "ops %d, read %d, written %d, %.0f bytes/op, read/write %.2f\n",
			ops, rbytes, wbytes, per_op, rbytes / wbytes
		if (per_op < 4000 || per_op > 7000) { print "bytes/op out of range"; bad = 1 }
		if (rbytes / wbytes < 1.2 || rbytes / wbytes > 1.8) { print "read/write out of range"; bad = 1 }
		exit bad
	}' - "$1"
}

@test "regenerating gives the shipped loadfiles/client.txt byte for byte" {
	local cmd
	cmd=$(sed -n '1s/^# dbench loadfile made by: genload //p' "$SHIPPED")
	[[ "$cmd" =~ ^--seed\ [0-9]+\ --ops\ [0-9]+$ ]]
	"$GENLOAD" $cmd > "$T/again.txt"
	cmp "$T/again.txt" "$SHIPPED"
	# the defaults are the shipped seed and size
	"$GENLOAD" | cmp - "$SHIPPED"
}

@test "the same seed gives the same file, another seed another file" {
	"$GENLOAD" --seed 7 --ops 2000 > "$T/a.txt"
	"$GENLOAD" -s 7 -n 2000 > "$T/b.txt"
	cmp "$T/a.txt" "$T/b.txt"
	"$GENLOAD" --seed 8 --ops 2000 > "$T/c.txt"
	! cmp -s "$T/a.txt" "$T/c.txt"
}

@test "the pass starts and ends like the classic one" {
	grep -v '^#' "$SHIPPED" > "$T/ops.txt"
	run sed -n 1,4p "$T/ops.txt"
	[ "${lines[0]}" = 'Deltree "\clients\client1" NT_STATUS_OK' ]
	[ "${lines[1]}" = 'Mkdir "\clients" NT_STATUS_OK' ]
	[[ "${lines[2]}" =~ ^NTCreateX\ \"\\clients\\client1\"\ 0x1\ 0x2\ ([0-9]+)\ NT_STATUS_OK$ ]]
	[ "${lines[3]}" = "Close ${BASH_REMATCH[1]} NT_STATUS_OK" ]
	[ "$(tail -n 1 "$T/ops.txt")" = 'Deltree "\clients\client1" NT_STATUS_OK' ]
	# the header is one comment block at the top
	[ "$(grep -c '^#' "$SHIPPED")" -eq "$(awk '!/^#/ { print NR - 1; exit }' "$SHIPPED")" ]
}

@test "every line is well formed and its status one a correct server returns" {
	run awk '
	/^#/ { next }
	{
		n["NTCreateX"] = 6; n["Close"] = 3; n["ReadX"] = 6; n["WriteX"] = 6
		n["LockX"] = 5; n["UnlockX"] = 5; n["Flush"] = 3; n["Rename"] = 4
		n["Unlink"] = 4; n["Mkdir"] = 3; n["Rmdir"] = 3; n["Deltree"] = 3
		n["FIND_FIRST"] = 6; n["QUERY_PATH_INFORMATION"] = 4
		n["QUERY_FILE_INFORMATION"] = 4; n["SET_FILE_INFORMATION"] = 4
		n["QUERY_FS_INFORMATION"] = 3
		if (!($1 in n) || NF != n[$1] || $NF !~ /^NT_STATUS_(OK|OBJECT_NAME_NOT_FOUND|OBJECT_PATH_NOT_FOUND|NO_SUCH_FILE|END_OF_FILE)$/) {
			print NR ": " $0; bad = 1
		}
		if ($0 ~ /"/ && $0 !~ /"\\clients(\\[^"\\ ]+)*"/) { print NR ": path: " $0; bad = 1 }
	}
	END { exit bad }' "$SHIPPED"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "handles are used only while open and all are closed at the end" {
	run awk '
	/^#/ { next }
	$1 == "NTCreateX" {
		if ($5 in open) { print NR ": fnum " $5 " already open"; bad = 1 }
		if ($6 == "NT_STATUS_OK") open[$5] = 1
		next
	}
	$1 ~ /^(Close|ReadX|WriteX|LockX|UnlockX|Flush|QUERY_FILE_INFORMATION|SET_FILE_INFORMATION)$/ {
		if (!($2 in open)) { print NR ": fnum " $2 " not open"; bad = 1 }
		if ($1 == "Close") delete open[$2]
	}
	END { for (h in open) { print "left open: " h; bad = 1 } exit bad }' "$SHIPPED"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the shipped mix is within 1.5 points of the classic trace's" {
	run mix_check "$SHIPPED" 1.5
	echo "$output"
	[ "$status" -eq 0 ]
	# tens of MB a pass, some thousands of ops
	local ops
	ops=$(grep -vc '^#' "$SHIPPED")
	[ "$ops" -ge 6000 ] && [ "$ops" -le 10000 ]
}

@test "the mix holds for other seeds (the model, not the seed, makes it)" {
	local seed
	for seed in 1 2 3; do
		"$GENLOAD" --seed $seed > "$T/s$seed.txt"
		run mix_check "$T/s$seed.txt" 2.5
		echo "seed $seed:"; echo "$output"
		[ "$status" -eq 0 ]
	done
}

@test "-o writes the same file as stdout; -v reports the mix on stderr" {
	"$GENLOAD" --seed 5 --ops 1000 > "$T/out.txt"
	run --separate-stderr "$GENLOAD" --seed 5 --ops 1000 -o "$T/o.txt" -v
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	cmp "$T/out.txt" "$T/o.txt"
	[[ "$stderr" == *"ReadX"*"operations "*" bytes"* ]]
}

@test "bad options: one line on stderr, non-zero exit, no file left" {
	local args
	for args in "--seed" "--seed x" "--seed -1" "--ops 10" "--ops 5k" "--bogus" "extra" \
		"-o $T/nodir/x.txt"; do
		run --separate-stderr "$GENLOAD" $args
		echo "genload $args -> $status: $stderr"
		[ "$status" -ne 0 ]
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == genload:* ]]
	done
	[ ! -e "$T/nodir" ]
}
