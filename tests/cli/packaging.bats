#!/usr/bin/env bats
# packaging.bats - what a packager checks that is quick to check: the man
# pages pass `mandoc -T lint` with nothing to say, tbench-server.service
# passes `systemd-analyze verify` and keeps its hardening, and no path of
# the build tree is compiled into the programs or modules.  The packages
# themselves (dpkg-buildpackage, lintian, installing them into a clean
# root) take longer than CI's budget: tools/package-test.sh.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers

setup() {
	make_tmp
	BUILD=${DBENCH_BUILDDIR:-$TOP/build}
}
teardown() { remove_tmp; }

@test "packaging: mandoc -T lint has nothing to say about the man pages" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	local pages=("$DBENCH_SRCDIR"/man/*.[15])
	[ "${#pages[@]}" -ge 6 ]
	# the dbench(1) that is installed is made from man/dbench.1
	[ -f "$BUILD/gen/dbench.1" ] && pages+=("$BUILD/gen/dbench.1")
	run mandoc -T lint "${pages[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# and it finds what it should: a line starting with a dot is a macro
	printf '.TH X 1 2026-01-01\n.SH NAME\nx \\- y\n.SH DESCRIPTION\n./dbench -D /mnt 1\n' >"$T/x.1"
	run mandoc -T lint "$T/x.1"
	[[ "$output" == *"skipping unknown macro"* ]]
}

# A root with the unit, the program it runs and the host's targets, for
# systemd-analyze verify --root.
unit_root() {
	mkdir -p "$T/root/lib/systemd/system" "$T/root/usr/bin" "$T/root/etc/default"
	cp /lib/systemd/system/*.target "$T/root/lib/systemd/system/" 2>/dev/null || true
	cp "$DBENCH_SRCDIR/debian/tbench-server.service" "$T/root/lib/systemd/system/"
	cp "$DBENCH_SRCDIR/debian/tbench-server.default" "$T/root/etc/default/tbench-server"
	cp "$(dirname "$DBENCH")/tbench_srv" "$T/root/usr/bin/"
}

@test "packaging: man renders every page without a warning, as lintian renders it" {
	command -v man >/dev/null || skip "man is not installed"
	local pages=("$DBENCH_SRCDIR"/man/*.[15]) page width out
	[ -f "$BUILD/gen/dbench.1" ] && pages+=("$BUILD/gen/dbench.1")
	# lintian's groff-message check: these options, 120 columns; tables
	# break pages differently at other widths, so 80 too
	for page in "${pages[@]}"; do
		for width in 80 120; do
			out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=$width \
				man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
			echo "$page at $width columns: ${out:-no warning}"
			[ -z "$out" ]
		done
	done
}

@test "packaging: tbench-server.service passes systemd-analyze verify, unprivileged and hardened" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	local unit=$DBENCH_SRCDIR/debian/tbench-server.service key
	unit_root
	run systemd-analyze verify --root="$T/root" tbench-server.service
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	for key in DynamicUser=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes PrivateDevices=yes \
		NoNewPrivileges=yes 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE' RestrictNamespaces=yes \
		SystemCallFilter=@system-service 'EnvironmentFile=-/etc/default/tbench-server'; do
		grep -qx -- "$key" "$unit" || { echo "missing: $key"; false; }
	done
	# the options file is what ExecStart passes, and tbench_srv takes it
	grep -q '^ExecStart=/usr/bin/tbench_srv --foreground \$TBENCH_SRV_OPTS$' "$unit"
	grep -q '^TBENCH_SRV_OPTS=' "$DBENCH_SRCDIR/debian/tbench-server.default"
	# systemd's own score of the sandbox: OK or better (below 4)
	run systemd-analyze security --offline=yes --root="$T/root" tbench-server.service
	echo "${lines[-1]}"
	[[ "${lines[-1]}" =~ "Overall exposure level for tbench-server.service: "([0-9.]+)" " ]]
	awk -v x="${BASH_REMATCH[1]}" 'BEGIN { exit !(x < 4) }'
	# a unit it cannot run, or a key it does not know, is reported
	rm "$T/root/usr/bin/tbench_srv"
	run systemd-analyze verify --root="$T/root" tbench-server.service
	[[ "$output" == *"/usr/bin/tbench_srv is not executable"* ]]
}

@test "packaging: no path of the source or build tree is compiled into the programs and modules" {
	local src bld f n=0
	src=$(cd "$DBENCH_SRCDIR" && pwd -P)
	bld=$(cd "$BUILD" && pwd -P)
	for f in "$BUILD"/src/dbench "$BUILD"/src/tbench_srv "$BUILD"/src/dbench-*.so "$BUILD"/tools/dbench-*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		if grep -aqF -e "$src/" -e "$bld/" "$f"; then
			echo "$f: $(grep -aoF -e "$src/" -e "$bld/" "$f" | sort | uniq -c)"
			false
		fi
		n=$((n + 1))
	done
	[ "$n" -ge 5 ]
}
