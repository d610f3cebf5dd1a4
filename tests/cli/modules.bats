#!/usr/bin/env bats
# modules.bats - backends as loadable modules (dbench-NAME.so), and --mpi
# (dbench-mpi.so): the core program links no protocol or MPI library; a
# module is found next to the program, through DBENCH_MODULE_PATH, or where
# `make install` put it; a module or library that is missing, or a module
# built for another dbench, is one line and exit status 2.
# tests/modules/testmod.c is the module these tests build (make check);
# smb, nfs, iscsi and mpi are checked where built.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	make_tmp
	BUILD=${DBENCH_BUILDDIR:-$TOP/build}
	MODS=$BUILD/tests/modules
	printf 'Mkdir "\\clients" *\nMkdir "\\clients\\client1" NT_STATUS_OK\nReadX 1 0 4096 4096 *\n' > "$T/tiny.txt"
	mkdir "$T/m" "$T/empty"
}
teardown() { remove_tmp; }

# The backend modules this build has, next to dbench (not --mpi's).
built_modules() {
	local f
	for f in "$(dirname "$DBENCH")"/dbench-*.so; do
		[ -e "$f" ] && basename "$f" .so | sed 's/^dbench-//' | grep -vx mpi
	done
}

MPI_MODULE() { echo "$(dirname "$DBENCH")/dbench-mpi.so"; }
need_mpi_module() {
	! "$DBENCH" --mpi --version 2>&1 | grep -q 'built without MPI' || skip "dbench was built without MPI"
}

needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

need_testmod() {
	[ -e "$MODS/dbench-testmod.so" ] || skip "tests/modules not built (make check builds them)"
}

@test "the core program links no protocol library; each module links its own" {
	local libs name
	libs=$(needed "$DBENCH")
	echo "$libs"
	! grep -Eq 'smbclient|libnfs|libiscsi|libtevent|libtalloc|libmpi|open-rte|open-pal|hwloc|libevent|libudev' <<<"$libs" || false
	[ "$(wc -l <<<"$libs")" -le 8 ]
	for name in $(built_modules); do
		libs=$(needed "$(dirname "$DBENCH")/dbench-$name.so")
		echo "$name: $libs"
		case $name in
		smb) grep -q '^libsmbclient\.so' <<<"$libs" ;;
		nfs) grep -q '^libnfs\.so' <<<"$libs" ;;
		iscsi) grep -q '^libiscsi\.so' <<<"$libs" ;;
		esac
	done
}

@test "every module resolves all its symbols against dbench (LD_BIND_NOW)" {
	local name
	for name in $(built_modules); do
		LD_BIND_NOW=1 run --separate-stderr "$DBENCH" -B "$name" --version
		echo "$name: $status $stderr"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
	done
	need_testmod
	DBENCH_MODULE_PATH=$MODS LD_BIND_NOW=1 run --separate-stderr "$DBENCH" -B testmod --version
	[ "$status" -eq 0 ]
}

@test "a module's options, help, init and ops reach the core" {
	need_testmod
	DBENCH_MODULE_PATH=$MODS run --separate-stderr "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"testmod backend options (-B testmod):"* ]]
	[[ "$output" == *"--testmod-greeting=TEXT"* ]]
	[[ "$output" == *"  testmod  a module for the tests"* ]]
	[[ "$output" == *"(file options, module $MODS/dbench-testmod.so)"* ]]
	[[ "$output" == *"Modules (dbench-NAME.so) are looked for in $MODS (\$DBENCH_MODULE_PATH)"* ]]
	# the file options are titled with the module too
	grep -Eqx 'File options \(fileio(, [a-z]+)*, testmod(, [a-z]+)*\):' <<<"$output"
	# the one built for another interface is listed as unusable; --help still works
	[[ "$output" == *"  oldabi   cannot be used: $MODS/dbench-oldabi.so was built for another dbench"* ]]

	DBENCH_MODULE_PATH=$MODS run --separate-stderr "$DBENCH" -B testmod --testmod-greeting hello \
		-c "$T/tiny.txt" --run-once 2
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[ "$stderr" = "dbench: testmod says hello" ]
	[[ "$output" == *"ReadX"* ]]
	# a module's option without the module is unknown
	DBENCH_MODULE_PATH=$MODS run --separate-stderr "$DBENCH" --testmod-greeting x -B null -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--testmod-greeting: unknown option"* ]]
}

@test "DBENCH_MODULE_PATH: modules are looked for there and only there, in order" {
	need_testmod
	cp "$MODS/dbench-testmod.so" "$T/m/"
	DBENCH_MODULE_PATH="$T/empty:$T/m" run --separate-stderr "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"(file options, module $T/m/dbench-testmod.so)"* ]]
	[[ "$output" != *"oldabi"* ]]
	[[ "$output" == *"looked for in $T/empty:$T/m (\$DBENCH_MODULE_PATH)"* ]]
	# the build's own modules are not seen
	for name in $(built_modules); do
		[[ "$output" != *"  $name "* ]]
	done
	DBENCH_MODULE_PATH="$T/m" run --separate-stderr "$DBENCH" -B testmod --check-loadfile -c "$T/tiny.txt" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"Backend testmod: every operation is supported"* ]]
}

@test "a module that is missing: one line, exit 2" {
	local name
	for name in $(built_modules); do
		DBENCH_MODULE_PATH=$T/empty run --separate-stderr "$DBENCH" -B "$name" -c "$T/tiny.txt" 1
		echo "$name: $status $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ "$stderr" = "dbench: the $name backend's module dbench-$name.so is not installed (looked in $T/empty)" ]
		[ -z "$output" ]
	done
	# configure knows the smb and nfs modules: one that was not built names the -dev package
	if ! built_modules | grep -qx smb; then
		run --separate-stderr "$DBENCH" -B smb -c "$T/tiny.txt" 1
		[ "$status" -eq 2 ]
		[ "$stderr" = "dbench: this dbench was built without the smb backend: install libsmbclient-dev and rebuild" ]
	fi
}

@test "a library a module needs is missing: one line naming the Debian package, exit 2" {
	local name lib gone n=0
	for name in $(built_modules); do
		# the module's protocol library under a soname that does not exist
		lib=$(needed "$(dirname "$DBENCH")/dbench-$name.so" | grep -v '^libc\.so' | head -1)
		gone=${lib%?}X
		LC_ALL=C perl -0777 -pe "s/\Q$lib\E\0/$gone\0/g" "$(dirname "$DBENCH")/dbench-$name.so" \
			> "$T/m/dbench-$name.so"
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B "$name" -c "$T/tiny.txt" 1
		echo "$name: $status $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" =~ ^"dbench: the $name backend needs $gone, which is missing: install the Debian package "[a-z0-9.+-]+$ ]]
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no protocol module built"
	# the package is the one that has the library
	if [ -e "$T/m/dbench-smb.so" ] && command -v dpkg-query >/dev/null; then
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B smb -c "$T/tiny.txt" 1
		[[ "$stderr" == *" install the Debian package $(dpkg-query -S "$(readlink -f /usr/lib/*/libsmbclient.so.0)" | sed 's/:.*//')" ]]
	fi
}

@test "a module built for another dbench, or not a module at all: one line, exit 2" {
	need_testmod
	cp "$MODS/dbench-oldabi.so" "$T/m/"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B oldabi -c "$T/tiny.txt" 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "dbench: $T/m/dbench-oldabi.so was built for another dbench (backend interface 0, "*"): rebuild or reinstall it" ]]

	# a shared library without the dbench_backend symbol
	cp "$(ldd "$DBENCH" | sed -n 's/.*libz\.so[^ ]* => \([^ ]*\).*/\1/p')" "$T/m/dbench-zlib.so"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B zlib -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $T/m/dbench-zlib.so is not a dbench backend module (no dbench_backend symbol)" ]

	# not even a shared object
	echo junk > "$T/m/dbench-junk.so"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B junk -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "dbench: cannot load the junk backend from $T/m/dbench-junk.so: "* ]]

	# a module under another module's name
	cp "$MODS/dbench-testmod.so" "$T/m/dbench-other.so"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B other -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $T/m/dbench-other.so is the module of backend 'testmod', not 'other'" ]
}

@test "a module lacking a required hook: refused when loaded, one line naming the module and the hook, exit 2" {
	local name hook
	need_testmod
	for name in nosetup noexists; do
		hook=${name#no}
		cp "$MODS/dbench-$name.so" "$T/m/"
		# a run (it would have crashed in the client), and --check-loadfile
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B "$name" -c "$T/tiny.txt" 1
		echo "$name: $status $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ "$stderr" = "dbench: $T/m/dbench-$name.so: the $name backend has no $hook hook, which every backend needs: rebuild or fix the module" ]
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B "$name" --check-loadfile -c "$T/tiny.txt" 1
		[ "$status" -eq 2 ]
		# --help lists it as unusable and still works
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" --help
		[ "$status" -eq 0 ]
		[[ "$output" == *"  $name "*"cannot be used: $T/m/dbench-$name.so: the $name backend has no $hook hook"* ]]
	done
}

@test "a truncated module (an interrupted install): one line naming the file, exit 2; --help lists it as not loadable" {
	need_testmod
	local size full sizes
	full=$(stat -c %s "$MODS/dbench-testmod.so")
	# cut in the ELF header, in the program headers, in a loaded segment,
	# in the section header table at the end; and an empty file
	sizes="0 40 100 $((full / 3)) $((full - 100))"
	for size in $sizes; do
		head -c "$size" "$MODS/dbench-testmod.so" > "$T/m/dbench-testmod.so"
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B testmod -c "$T/tiny.txt" -t 1 1
		echo "$size: $status $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "dbench: cannot load the testmod backend from $T/m/dbench-testmod.so: "*": reinstall it" ]]
		[ "$size" -lt 64 ] || [[ "$stderr" == *"truncated"* ]]
		# --help still works and says why the backend cannot be used
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" --help
		[ "$status" -eq 0 ]
		[[ "$output" == *"testmod  cannot be used: cannot load the testmod backend from $T/m/dbench-testmod.so: "* ]]
		# the error document says so too
		DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B testmod --json "$T/r.json" -c "$T/tiny.txt" -t 1 1
		[ "$status" -eq 2 ]
		[ "$(jq -r .exit_status "$T/r.json")" = 2 ]
		[[ "$(jq -r .error "$T/r.json")" == "cannot load the testmod backend from "* ]]
	done
	# an ELF file of another class (a 32-bit object) is not loaded either
	printf '\177ELF\001\001\001' > "$T/m/dbench-testmod.so"
	head -c 100 /dev/zero >> "$T/m/dbench-testmod.so"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" -B testmod -c "$T/tiny.txt" -t 1 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *": an ELF file for another machine (class 1,"* ]]
}

@test "make install DESTDIR=...: the installed dbench finds its installed modules" {
	[ -f "$BUILD/Makefile" ] || skip "no build tree"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$BUILD" install DESTDIR="$T/inst" >"$T/install.log" 2>&1 ||
		{ cat "$T/install.log"; return 1; }
	local bin name
	bin=$(find "$T/inst" -path '*/bin/dbench' -type f | head -1)
	[ -x "$bin" ]
	! needed "$bin" | grep -Eq 'smbclient|libnfs' || false
	run --separate-stderr "$bin" --help
	[ "$status" -eq 0 ]
	for name in $(built_modules); do
		[[ "$output" =~ "module $T/inst/"[^\)]*"/lib/"[^\)]*"dbench-$name.so)" ]]
		run --separate-stderr "$bin" -B "$name" --help
		[ "$status" -eq 0 ]
		[[ "$output" == *"$name backend options (-B $name):"* ]]
	done
	# tbench is the same program
	[ -L "$(dirname "$bin")/tbench" ]
	run "$(dirname "$bin")/tbench" --version
	[ "$status" -eq 0 ]
}

@test "--mpi is the module dbench-mpi.so: it links MPI, dbench does not, and only --mpi loads it" {
	need_mpi_module
	needed "$(MPI_MODULE)" | grep -q '^libmpi\.so'
	! needed "$DBENCH" | grep -Eq 'libmpi|open-rte|open-pal' || false
	# every symbol it needs is in dbench (-rdynamic) or its libraries
	LD_BIND_NOW=1 run --separate-stderr "$DBENCH" --mpi --version
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[1]}" = "MPI module: $(MPI_MODULE)" ]
	[[ "${lines[2]}" =~ ^"MPI library: Open MPI v"[0-9] ]]
	# without --mpi it is never opened, neither by a run nor by --help
	LD_DEBUG=files run --separate-stderr "$DBENCH" -B null -c "$T/tiny.txt" --run-once 1
	[ "$status" -eq 0 ]
	! grep -E 'dbench-mpi|libmpi' <<<"$stderr" || false
	LD_DEBUG=files run --separate-stderr "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$stderr" == *dbench-nfs.so* || ! -e "$(dirname "$DBENCH")/dbench-nfs.so" ]]
	! grep -E 'dbench-mpi|libmpi' <<<"$stderr" || false
	# and -B does not take it for a backend
	run --separate-stderr "$DBENCH" -B mpi -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "dbench: unknown backend 'mpi' (known: "* ]]
}

@test "--mpi without its module, without its library, or with another file: one line, exit 2, the error document" {
	local lib gone
	need_mpi_module
	DBENCH_MODULE_PATH=$T/empty run --separate-stderr "$DBENCH" --mpi -B null -c "$T/tiny.txt" \
		--json "$T/e.json" 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: --mpi: the module dbench-mpi.so is not installed (looked in $T/empty)" ]
	[ -z "$output" ]
	[ "$(jq -r .error "$T/e.json")" = "--mpi: the module dbench-mpi.so is not installed (looked in $T/empty)" ]

	# the MPI library under a soname that does not exist
	lib=$(needed "$(MPI_MODULE)" | grep '^libmpi\.so')
	gone=${lib%?}X
	LC_ALL=C perl -0777 -pe "s/\Q$lib\E\0/$gone\0/g" "$(MPI_MODULE)" >"$T/m/dbench-mpi.so"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" --mpi -B null -c "$T/tiny.txt" 1
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" =~ ^"dbench: the MPI module (--mpi) needs $gone, which is missing: install the Debian package "[a-z0-9.+-]+$ ]]
	if command -v dpkg-query >/dev/null && [ -e /usr/lib/x86_64-linux-gnu/libmpi.so.40 ]; then
		[[ "$stderr" == *" $(dpkg-query -S "$(readlink -f /usr/lib/x86_64-linux-gnu/libmpi.so.40)" | sed 's/:.*//')" ]]
	fi

	# a shared library that is not the MPI module
	cp "$(ldd "$DBENCH" | sed -n 's/.*libz\.so[^ ]* => \([^ ]*\).*/\1/p')" "$T/m/dbench-mpi.so"
	DBENCH_MODULE_PATH=$T/m run --separate-stderr "$DBENCH" --mpi -B null -c "$T/tiny.txt" 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench: $T/m/dbench-mpi.so is not dbench's MPI module (no dbench_mpi symbol)" ]
}
