#!/bin/sh
# run.sh [TARGET...] - build libFuzzer targets and run each for a bounded
# time (FUZZ_TIME seconds each, default 20).  Targets:
#   frame        the tbench frame parser and server side (fuzz_frame.c)
#   loadfile     the loadfile compiler on text (fuzz_loadfile.c)
#   loadfile_gz  reading a loadfile file, gzip or not (fuzz_loadfile_gz.c)
#   trace_json   dbench-trace2load's JSON reader (fuzz_trace_json.c)
# Default: all of them.  Each starts from its corpus in tests/fuzz/corpus/
# (copied: the tree is not written) and stops at the first crash, sanitizer
# report, leak, or input that runs longer than FUZZ_TIMEOUT seconds
# (default 10): that is a failure, exit 1, with the log's tail on stderr
# and the input kept in a fuzz-finding.* directory under $TMPDIR.
# Needs clang with libFuzzer (exit 77 without).  Leaves nothing behind
# unless FUZZ_KEEP names a directory for the builds, logs and corpora.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
time_limit=${FUZZ_TIME:-20}
input_timeout=${FUZZ_TIMEOUT:-10}
cc=${FUZZ_CC:-clang}
targets=${*:-frame loadfile loadfile_gz trace_json}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "run.sh: $cc not found: install clang to fuzz" >&2
	exit 77
fi

if [ -n "${FUZZ_KEEP:-}" ]; then
	work=$FUZZ_KEEP
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")
	trap 'rm -rf "$work"' EXIT INT TERM
fi

# The sources include config.h; a configured tree has one, else make one.
if [ -f "${BUILDDIR:-$top}/config.h" ]; then
	cp "${BUILDDIR:-$top}/config.h" "$work/config.h"
else
	printf '#define _GNU_SOURCE 1\n#define PACKAGE_VERSION "fuzz"\n' \
		>"$work/config.h"
fi

build() {	# target sources...
	name=$1
	shift
	"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-DPKGDATADIR='"/nonexistent"' -DABS_SRCDIR='"/nonexistent"' \
		-I"$work" -I"$top/src" -I"$top/tools/trace2load" -o "$work/fuzz_$name" "$@" -lz
}

# Seeds of the frame parser: a ping, a write with payload, a read, two frames.
frame_seeds() {
	hdr() {	# op flags seq length want: one request header, network order
		printf '\164\142\145\156\000\001'
		printf "$(printf '\\%03o\\%03o' $(($1 >> 8 & 255)) $(($1 & 255)))"
		for v in "$2" "$3" "$4" "$5" 0 0; do
			printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v >> 24 & 255)) $((v >> 16 & 255)) \
				$((v >> 8 & 255)) $((v & 255)))"
		done
	}
	hdr 1 0 1 0 0 >"$1/ping"
	{ hdr 28 0 2 40 15; head -c 40 /dev/zero; } >"$1/writex"
	hdr 29 0 3 27 65536 >"$1/readx_header_only"
	{ hdr 29 0 3 27 4096; head -c 27 /dev/zero; hdr 16 0 4 0 71; } >"$1/two_frames"
}

lib="$top/src/loadfile.c $top/src/loadfile_read.c $top/src/sha256.c $top/src/util.c $top/src/numexpr.c
	$top/src/status.c $top/src/op.c $top/src/paths.c $top/src/hmap.c"
rc=0
for t in $targets; do
	corpus=$work/corpus-$t
	rm -rf "$corpus"
	mkdir -p "$corpus"
	case $t in
	frame)
		build frame "$here/fuzz_frame.c" "$top/src/tbench_wire.c" "$top/src/server/serve.c"
		frame_seeds "$corpus" ;;
	loadfile)
		# shellcheck disable=SC2086
		build loadfile "$here/fuzz_loadfile.c" $lib ;;
	loadfile_gz)
		# shellcheck disable=SC2086
		build loadfile_gz "$here/fuzz_loadfile_gz.c" $lib ;;
	trace_json)
		build trace_json "$here/fuzz_trace_json.c" "$top/tools/trace2load/json.c" "$top/src/util.c" ;;
	*)
		echo "run.sh: unknown target '$t' (frame, loadfile, loadfile_gz, trace_json)" >&2
		exit 2 ;;
	esac
	if [ -d "$here/corpus/$t" ]; then
		cp "$here/corpus/$t"/* "$corpus"/ 2>/dev/null || true
	fi
	if "$work/fuzz_$t" -max_total_time="$time_limit" -timeout="$input_timeout" \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$t-" "$corpus" >"$work/$t.log" 2>&1; then
		grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$work/$t.log" | tr '\n' ' ' || true
		echo
		echo "run.sh: fuzz_$t ran ${time_limit}s without a finding"
	else
		tail -40 "$work/$t.log" >&2
		keep=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-finding.XXXXXX")
		cp "$work/$t"-* "$work/$t.log" "$keep"/ 2>/dev/null || true
		echo "run.sh: fuzz_$t found a problem (log above; the input and log kept in $keep)" >&2
		rc=1
	fi
done
exit $rc
