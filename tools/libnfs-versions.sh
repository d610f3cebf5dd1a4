#!/bin/bash
# tools/libnfs-versions.sh - the nfs module against each libnfs from 4.0 to
# 7.0: for every version, build libnfs from its release tag into a prefix
# under WORK (never into this tree), configure dbench against it
# (PKG_CONFIG_PATH, an rpath to the prefix) with --enable-werror, build
# dbench and its nfs module, and run tests/cli/nfs.bats and nfs4.bats with
# that build.  Prints one line per version and a table at the end:
#
#   libnfs   API (configure)           build -Werror  nfs.bats   nfs4.bats
#
#   tools/libnfs-versions.sh [VERSION...]  (default: debian 4.0.0 5.0.3 6.0.2 7.0.0)
#   LIBNFS_GIT=/path/to/libnfs.git tools/libnfs-versions.sh
#   TESTS=0 tools/libnfs-versions.sh           (builds only)
#
# LIBNFS_GIT is a clone of https://github.com/sahlberg/libnfs (bare or not;
# default: cloned into WORK).  WORK (default /tmp/dbench-libnfs) keeps the
# libnfs builds between runs.  The version "debian" is the system's
# libnfs-dev (Debian 12: 4.0.0), which CI tests in every run.  libnfs is
# built without TLS (its 6.0.2 autotools build leaves libgnutls out of
# libnfs.so when it finds it; dbench does not use RPC-over-TLS).  Not part
# of `make check` or CI: four libnfs builds and four runs of the NFS tests
# take longer than CI's budget (the figures are in the README).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
WORK=${WORK:-/tmp/dbench-libnfs}
LIBNFS_GIT=${LIBNFS_GIT:-}
TESTS=${TESTS:-1}
JOBS=${JOBS:-$(nproc)}
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(debian 4.0.0 5.0.3 6.0.2 7.0.0)

for tool in git autoreconf libtoolize make bats pkg-config; do
	command -v "$tool" >/dev/null || { echo "libnfs-versions: needs $tool" >&2; exit 2; }
done
mkdir -p "$WORK"

if [ -z "$LIBNFS_GIT" ]; then
	LIBNFS_GIT=$WORK/libnfs.git
	[ -d "$LIBNFS_GIT" ] || git clone -q --bare https://github.com/sahlberg/libnfs "$LIBNFS_GIT"
fi
git_dir=$LIBNFS_GIT
[ -d "$git_dir/.git" ] && git_dir=$git_dir/.git

log() { printf '%s\n' "$*" >&2; }

# Build libnfs VERSION into WORK/prefix-VERSION (once).
build_libnfs() {
	local v=$1 src=$WORK/src-$1 prefix=$WORK/prefix-$1
	[ -e "$prefix/.built" ] && return 0
	log "libnfs $v: building into $prefix"
	rm -rf "$src" "$prefix"
	mkdir -p "$src"
	git --git-dir="$git_dir" archive "libnfs-$v" | tar -x -C "$src"
	(cd "$src" && autoreconf -fi && ./configure --prefix="$prefix" --without-libkrb5 --disable-utils \
		--disable-examples --disable-werror libnfs_cv_HAVE_TLS=no &&
		make -j"$JOBS" && make install) >"$WORK/libnfs-$v.log" 2>&1 ||
		{ log "libnfs $v: build failed, see $WORK/libnfs-$v.log"; return 1; }
	touch "$prefix/.built"
}

# Configure and build dbench in WORK/dbench-VERSION against that libnfs;
# echo the API configure found.
build_dbench() {
	local v=$1 dir=$WORK/dbench-$1 env=()
	if [ "$v" != debian ]; then
		env=(PKG_CONFIG_PATH="$WORK/prefix-$v/lib/pkgconfig" LDFLAGS="-Wl,-rpath,$WORK/prefix-$v/lib")
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && env "${env[@]}" "$TOP/configure" --enable-werror --with-nfs=yes --without-smb \
		--without-iscsi --without-mpi && make -j"$JOBS" src/dbench src/tbench src/dbench-nfs.so) \
		>"$WORK/dbench-$v.log" 2>&1 || return 1
}

api_of() {
	local h=$WORK/dbench-$1/config.h
	if grep -q '^#define HAVE_RPC_NFS4_WRITE_TASK 1' "$h"; then
		echo "_task, v4 read/write_task"
	elif grep -q '^#define HAVE_RPC_NFS4_COMPOUND_ASYNC2 1' "$h"; then
		echo "_async, v4 compound_async2"
	else
		echo "_async, v4 compound_async"
	fi
}

# Run one bats file with that build: "P/N" (passed of run), "+S skipped".
run_tests() {
	local v=$1 file=$2 out=$WORK/$2-$1.tap pass fail skip
	DBENCH=$WORK/dbench-$v/src/dbench TBENCH=$WORK/dbench-$v/src/tbench DBENCH_SRCDIR=$TOP \
		DBENCH_BUILDDIR=$WORK/dbench-$v bats --tap "$TOP/tests/cli/$file.bats" >"$out" 2>&1 || true
	pass=$(grep -c '^ok .*' "$out" | tr -d ' ') || true
	skip=$(grep -c '^ok .* # skip' "$out") || true
	fail=$(grep -c '^not ok' "$out") || true
	pass=$((pass - skip))
	if [ "$fail" -eq 0 ] && [ "$skip" -eq 0 ] && [ "$pass" -gt 0 ]; then
		echo "pass $pass/$pass"
	elif [ "$skip" -gt 0 ]; then
		echo "FAIL $pass/$((pass + fail + skip)) ($skip skip)"
	else
		echo "FAIL $pass/$((pass + fail))"
	fi
}

declare -A row
status=0
for v in "${VERSIONS[@]}"; do
	start=$SECONDS
	if [ "$v" != debian ] && ! build_libnfs "$v"; then
		row[$v]="$(printf '%-8s %-28s %-14s' "$v" "-" "libnfs failed")"
		status=1
		continue
	fi
	if ! build_dbench "$v"; then
		grep -E 'error|warning' "$WORK/dbench-$v.log" | head -5 >&2 || true
		row[$v]="$(printf '%-8s %-28s %-14s' "$v" "$(api_of "$v" 2>/dev/null || echo -)" "FAIL")"
		status=1
		continue
	fi
	lib=$(ldd "$WORK/dbench-$v/src/dbench-nfs.so" | sed -n 's/.*libnfs\.so[^ ]* => \([^ ]*\).*/\1/p')
	log "libnfs $v: dbench built with --enable-werror against $lib"
	nfs=- nfs4=-
	if [ "$TESTS" = 1 ]; then
		nfs=$(run_tests "$v" nfs)
		nfs4=$(run_tests "$v" nfs4)
		case "$nfs $nfs4" in *FAIL*) status=1 ;; esac
	fi
	row[$v]="$(printf '%-8s %-28s %-14s %-16s %-16s %4d s' "$v" "$(api_of "$v")" "ok" "$nfs" "$nfs4" \
		$((SECONDS - start)))"
	log "${row[$v]}"
done

printf '\n%-8s %-28s %-14s %-16s %-16s %s\n' libnfs "API (configure)" "build -Werror" nfs.bats nfs4.bats time
for v in "${VERSIONS[@]}"; do
	printf '%s\n' "${row[$v]}"
done
exit "$status"
