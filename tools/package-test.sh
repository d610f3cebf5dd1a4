#!/bin/bash
# tools/package-test.sh - the Debian packages end to end, what CI has no
# time for (tests/cli/packaging.bats checks the quick parts in every run):
#
#  1. dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=nocheck: the suite
#     runs in CI) in a copy of this tree as it is, committed or not;
#  2. lintian on the result: no error and no warning (--fail-on);
#  3. the core package's Depends name no Samba, libnfs, libiscsi or MPI
#     library, and ldd of its dbench names none either;
#  4. in a fresh Debian 12 root (debootstrap, kept in WORK between runs;
#     nothing but the Debian archive is used), installs dbench alone and
#     runs `dbench -B null`, `dbench -B smb --help` (not installed: exit 2,
#     naming the package), `man -w tbench`; installs dbench-smb and
#     tbench-server and runs `dbench -B smb --help` again; removes
#     dbench-smb and checks dbench says so again.
#
#   tools/package-test.sh          (as root: debootstrap, chroot)
#   NOROOT=1 tools/package-test.sh (steps 1-3 only)
#   WORK=/tmp/dir MIRROR=http://deb.debian.org/debian tools/package-test.sh
#
# Prints one line per check ("ok ..." / "FAIL ...") and exits 1 on any
# failure.  The build takes minutes (four modules, eleven packages).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
WORK=${WORK:-/tmp/dbench-package}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
NOROOT=${NOROOT:-0}
ROOT=$WORK/root

for tool in dpkg-buildpackage dpkg-parsechangelog lintian git; do
	command -v "$tool" >/dev/null || { echo "package-test: needs $tool (./build.sh installs it)" >&2; exit 2; }
done

status=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; status=1; }
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds
check() {
	local what=$1
	shift
	if "$@" >>"$WORK/checks.log" 2>&1; then ok "$what"; else fail "$what (see $WORK/checks.log)"; fi
}

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
mkdir -p "$WORK"
: >"$WORK/checks.log"

# 1. the build, in WORK/dbench-VERSION (the .debs land in WORK)
src=$WORK/dbench-$version
rm -rf "$src" "$WORK"/*.deb "$WORK"/*.changes "$WORK"/*.buildinfo
mkdir -p "$src"
git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
	[ -e "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$src"
start=$SECONDS
if (cd "$src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) >"$WORK/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b ($((SECONDS - start)) s)"
else
	fail "dpkg-buildpackage (see $WORK/build.log)"
	exit 1
fi
changes=$WORK/dbench_${version}_${arch}.changes
deb() { echo "$WORK/${1}_${version}_${arch}.deb"; }

# 2. lintian: nothing at error or warning level (overrides: debian/*.lintian-overrides)
if lintian --fail-on error,warning --tag-display-limit 0 "$changes" >"$WORK/lintian.log" 2>&1; then
	ok "lintian: $(grep -c '^[EW]:' "$WORK/lintian.log" || true) errors and warnings"
else
	fail "lintian:"
	grep '^[EW]:' "$WORK/lintian.log" | sed 's/^/     /'
fi

# 3. the core carries no protocol or MPI library
protocol_libs='smbclient|samba|libnfs|libiscsi|mpi|open-rte|open-pal|hwloc'
depends=$(dpkg-deb -f "$(deb dbench)" Depends)
if grep -Eiq "$protocol_libs" <<<"$depends"; then
	fail "dbench Depends: $depends"
else
	ok "dbench Depends: $depends"
fi
rm -rf "$WORK/x" && dpkg-deb -x "$(deb dbench)" "$WORK/x"
if ldd "$WORK/x/usr/bin/dbench" | grep -Ei "$protocol_libs"; then
	fail "ldd dbench names a protocol or MPI library"
else
	ok "ldd dbench: $(ldd "$WORK/x/usr/bin/dbench" | awk '/=>/ { print $1 }' | tr '\n' ' ')"
fi
for p in dbench-smb:libsmbclient dbench-nfs:libnfs dbench-iscsi:libiscsi dbench-mpi:libopenmpi; do
	d=$(dpkg-deb -f "$(deb "${p%%:*}")" Depends)
	if [[ "$d" == *"${p#*:}"* && "$d" == *"dbench (= $version)"* ]]; then
		ok "${p%%:*} Depends: $d"
	else
		fail "${p%%:*} Depends: $d"
	fi
done

[ "$NOROOT" = 1 ] && exit "$status"

# 4. a fresh Debian 12 root
[ "$(id -u)" = 0 ] || { echo "package-test: the install test needs root (NOROOT=1 skips it)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "package-test: needs debootstrap" >&2; exit 2; }
if [ ! -e "$ROOT/.complete" ]; then
	rm -rf "$ROOT"
	debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
		{ fail "debootstrap (see $WORK/debootstrap.log)"; exit 1; }
	touch "$ROOT/.complete"
fi
# the root is used on a copy, so that every run starts from the same one
run_root=$WORK/run-root
rm -rf "$run_root"
cp -a "$ROOT" "$run_root"
cp /etc/resolv.conf "$run_root/etc/resolv.conf"
mkdir -p "$run_root/debs"
cp "$WORK"/*.deb "$run_root/debs/"
rm -f "$run_root"/debs/*-dbgsym_*.deb
mount -t proc proc "$run_root/proc"
trap 'umount "$run_root/proc" 2>/dev/null || true' EXIT
in_root() { chroot "$run_root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
apt_root() { in_root apt-get -q -y -o APT::Install-Recommends=false "$@"; }

check "apt-get update in the root" apt_root update
check "apt-get install dbench" apt_root install /debs/dbench_"${version}_${arch}".deb
check "dbench -B null --run-once 2" in_root sh -c 'cd /tmp && dbench -B null --run-once 2'
check "tbench is dbench" in_root test "$(readlink "$run_root/usr/bin/tbench")" = dbench
check "man tbench is dbench(1)" in_root test "$(readlink "$run_root/usr/share/man/man1/tbench.1.gz")" = dbench.1.gz
in_root dbench -B smb --help >"$WORK/smb-help.out" 2>&1 && s=0 || s=$?
if [ "$s" = 2 ] && grep -q 'not installed: apt install dbench-smb' "$WORK/smb-help.out"; then
	ok "without dbench-smb: $(head -1 "$WORK/smb-help.out") (exit $s)"
else
	fail "without dbench-smb: exit $s: $(head -3 "$WORK/smb-help.out")"
fi
check "apt-get install dbench-smb tbench-server" \
	apt_root install /debs/dbench-smb_"${version}_${arch}".deb /debs/tbench-server_"${version}_${arch}".deb
check "dbench -B smb --help with dbench-smb" in_root sh -c 'dbench -B smb --help | grep -q -- --smb-signing'
check "tbench_srv --help" in_root tbench_srv --help
check "tbench-server.service installed, not enabled" \
	sh -c "test -f '$run_root/lib/systemd/system/tbench-server.service' &&
		! test -e '$run_root/etc/systemd/system/multi-user.target.wants/tbench-server.service'"
check "apt-get remove dbench-smb" apt_root remove dbench-smb
in_root dbench -B smb --help >"$WORK/smb-help.out" 2>&1 && s=0 || s=$?
if [ "$s" = 2 ] && grep -q 'not installed: apt install dbench-smb' "$WORK/smb-help.out"; then
	ok "dbench-smb removed: $(head -1 "$WORK/smb-help.out") (exit $s)"
else
	fail "dbench-smb removed: exit $s: $(head -3 "$WORK/smb-help.out")"
fi
check "dbench -B null after the removal" in_root sh -c 'cd /tmp && dbench -B null --run-once 1'
exit "$status"
