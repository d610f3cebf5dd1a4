#!/bin/bash
# build.sh - install what the build and the tests need (Debian packages,
# when missing), then configure and build in ./build.
#
#   ./build.sh            set up and build
#   ./build.sh check      ... and run the whole test suite (make check)
#   ./build.sh sanitize   build in ./build-asan with AddressSanitizer and
#                         UndefinedBehaviorSanitizer and run the test suite
#                         again: every C program and backend, the tests
#                         that repeat another's C paths skipped
#                         (DBENCH_SANITIZER_PASS, tests/cli/helpers.bash)
#   ./build.sh sanitize-build   only build ./build-asan (for .ci/run, which
#                         builds it while the first pass's tests run)
#   ./build.sh sanitize-unit    the sanitizer pass's unit tests only (log:
#                         build-asan/test-suite-unit.log), after sanitize-build
#   ./build.sh sanitize-cli     the sanitizer pass's command-line tests only
#                         (build-asan/test-suite.log), after sanitize-build:
#                         sanitize-unit and sanitize-cli are sanitize in two
#                         parts, for .ci/run to run the first beside the
#                         first pass
#   ./build.sh package    build the Debian packages, lintian them, install
#                         them into a fresh Debian 12 root (tools/package-test.sh)
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -euo pipefail
cd "$(dirname "$0")"

# Every tool a test or a bench/ script runs, so that a fresh Debian 12 skips
# nothing: smbd (samba), ganesha.nfsd, rpcbind, rpc.statd (nfs-common),
# nfs-cp (libnfs-utils), tshark/editcap/dumpcap (wireshark-common), ip/tc/ss,
# unshare/nsenter/losetup (util-linux, mount), mkfs.ext4/fsck/debugfs for a
# mounted loop device (e2fsprogs), tgtd/tgtadm (tgt), iscsi-perf
# (libiscsi-bin), mpirun, strace, xmllint, gnuplot, fio and sg3-utils
# (bench/block.sh), clang with libFuzzer (libclang-rt-14-dev, only a
# Recommends of clang-14, which --no-install-recommends leaves out),
# bash-completion (completion.bats), mandoc and systemd-analyze (systemd) for
# packaging.bats; the Debian package's build (debhelper, dpkg-dev, fakeroot)
# and tools/libnfs-versions.sh (libtool).  What only `./build.sh package`
# uses (lintian, debootstrap) is installed by it, not for CI.
build_pkgs="build-essential autoconf automake libtool pkg-config libpopt-dev zlib1g-dev libjansson-dev
	libsmbclient-dev libnfs-dev libiscsi-dev liburing-dev libopenmpi-dev debhelper dpkg-dev fakeroot"
test_pkgs="libcmocka-dev bats jq python3 python3-jsonschema dbench samba smbclient nfs-ganesha
	nfs-ganesha-vfs rpcbind nfs-common libnfs-utils iproute2 util-linux mount e2fsprogs tshark
	wireshark-common clang libclang-rt-14-dev procps psmisc openmpi-bin tgt libiscsi-bin strace
	libxml2-utils gnuplot-nox fio sg3-utils bash-completion mandoc systemd"
package_pkgs=""

install_missing() {
	local missing=() p
	for p in $build_pkgs $test_pkgs $package_pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "build.sh: missing packages: ${missing[*]} (run as root, or install them)" >&2
		return 1
	fi
	echo "build.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# tshark asks whether non-root users may capture; the default (no) is fine
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# make_jobs N: make's -jN; nothing under a make's jobserver (.ci/run runs its
# phases as one make, .ci/jobs.mk): the make joins it and shares its slots.
make_jobs() {
	case " ${MAKEFLAGS:-} " in
	*jobserver*) ;;
	*) echo "-j$1" ;;
	esac
}

configure_and_make() {
	local dir=$1
	shift
	[ -x configure ] || ./autogen.sh
	mkdir -p "$dir"
	# shellcheck disable=SC2046 # make_jobs prints one word or none
	(cd "$dir" && { [ -f Makefile ] || ../configure --enable-werror "$@"; } && make $(make_jobs "$(nproc)"))
}

# Test files mostly wait (on a server, on a time-limited run): twice as
# many run at once as there are CPUs.  CHECK_JOBS=N sets the number.
check_jobs=${CHECK_JOBS:-$(( $(nproc) * 2 ))}

# build-asan: the programs, and what `make check` would build (the unit
# tests, the test modules and tools) without running a test.
sanitizer_build() {
	local san="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

	configure_and_make build-asan CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined"
	# shellcheck disable=SC2046
	make -C build-asan check TESTS= $(make_jobs "$(nproc)") >/dev/null
}

# make check in build-asan under the sanitizers' options; "$@" are more
# make arguments (TESTS=, TEST_SUITE_LOG=).  DBENCH_SANITIZER_PASS: the tests
# that only repeat C paths other tests of this pass run are skipped
# (sanitizer_pass_skip, tests/cli/helpers.bash).
sanitizer_check() {
	# shellcheck disable=SC2046
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0" \
		DBENCH_SANITIZER_PASS=1 make -C build-asan check $(make_jobs "$check_jobs") "$@"
}

[ "${1:-}" = package ] && package_pkgs="lintian debootstrap"
install_missing
case "${1:-}" in
"")
	configure_and_make build
	;;
check)
	configure_and_make build
	# shellcheck disable=SC2046
	make -C build check $(make_jobs "$check_jobs")
	;;
sanitize-build)
	sanitizer_build
	;;
sanitize)
	sanitizer_build
	sanitizer_check
	;;
sanitize-unit)
	# shellcheck disable=SC2016 # make expands $(UNIT_TESTS)
	sanitizer_check TESTS='$(UNIT_TESTS)' TEST_SUITE_LOG=test-suite-unit.log
	;;
sanitize-cli)
	# shellcheck disable=SC2016 # make expands $(CLI_TESTS)
	sanitizer_check TESTS='$(CLI_TESTS)'
	;;
package)
	tools/package-test.sh
	;;
*)
	echo "usage: $0 [check|sanitize|sanitize-build|sanitize-unit|sanitize-cli|package]" >&2
	exit 2
	;;
esac
