#!/bin/bash
# tools/reproducible.sh - two builds of this tree in two directories give
# the same binaries: copies the tree (as it is, committed or not) to two
# paths of different lengths, configures and builds each out of tree with
# the same options (--enable-werror, every module configure finds), and
# compares dbench, tbench_srv, every module and every tool byte for byte
# (the debug information included: PREFIX_MAP_CFLAGS maps both
# directories to ".").  Then checks neither directory's path is in them.
#
#   tools/reproducible.sh              (WORK=/tmp/dbench-repro by default)
#
# Prints "same FILE" or "DIFFERENT FILE" per binary, and exits 1 if any
# differs.  Not in CI (two full builds); tests/cli/packaging.bats checks
# in every run that no build-tree path is in the binaries.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/tmp/dbench-repro}
JOBS=${JOBS:-2}
a=$WORK/a
b=$WORK/second-build-dir
rm -rf "$a" "$b"
for d in "$a" "$b"; do
	mkdir -p "$d/src"
	git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"
	done | xargs -0 cp --parents -t "$d/src"
	(cd "$d/src" && ./autogen.sh && mkdir ../build && cd ../build &&
		../src/configure --enable-werror && make -j"$JOBS") >"$d.log" 2>&1 ||
		{ echo "reproducible: the build in $d failed, see $d.log" >&2; exit 2; }
done

status=0 n=0
for f in src/dbench src/tbench_srv src/dbench-smb.so src/dbench-nfs.so src/dbench-iscsi.so \
	src/dbench-mpi.so tools/dbench-compare tools/dbench-plot tools/dbench-trace2load; do
	[ -f "$a/build/$f" ] || continue
	n=$((n + 1))
	if cmp -s "$a/build/$f" "$b/build/$f"; then
		echo "same      $f ($(stat -c %s "$a/build/$f") bytes)"
	else
		echo "DIFFERENT $f"
		status=1
	fi
	if grep -aqF -e "$a" -e "$b" "$a/build/$f" "$b/build/$f"; then
		echo "          $f names its build directory"
		status=1
	fi
done
[ "$n" -ge 5 ] || { echo "reproducible: only $n binaries built" >&2; status=1; }
[ "$status" = 0 ] && rm -rf "$a" "$b"
exit "$status"
