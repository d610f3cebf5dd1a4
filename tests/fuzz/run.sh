#!/bin/sh
# run.sh - build the libFuzzer target for the tbench frame parser and run it
# for a bounded time (FUZZ_TIME seconds, default 20).  Needs clang with
# libFuzzer.  Leaves nothing behind: it builds and keeps its corpus in a
# temporary directory, unless FUZZ_CORPUS names a directory to keep.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
time_limit=${FUZZ_TIME:-20}
cc=${FUZZ_CC:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "run.sh: $cc not found: install clang to fuzz" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_frame.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The sources include config.h; a configured tree has one, else make one.
if [ -f "${BUILDDIR:-$top}/config.h" ]; then
	cp "${BUILDDIR:-$top}/config.h" "$work/config.h"
else
	printf '#define _GNU_SOURCE 1\n#define PACKAGE_VERSION "fuzz"\n' >"$work/config.h"
fi

"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$work" -I"$top/src" -o "$work/fuzz_frame" \
	"$here/fuzz_frame.c" "$top/src/proto.c" "$top/src/serve.c"

# Seeds: a ping, a write with payload, a read, a bad version, two frames.
corpus=${FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus"
hdr() {	# op flags seq length want: one request header, network order
	printf '\164\142\145\156\000\001'
	printf "$(printf '\\%03o\\%03o' $(($1 >> 8 & 255)) $(($1 & 255)))"
	for v in "$2" "$3" "$4" "$5" 0 0; do
		printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v >> 24 & 255)) $((v >> 16 & 255)) \
			$((v >> 8 & 255)) $((v & 255)))"
	done
}
hdr 1 0 1 0 0 >"$corpus/ping"
{ hdr 28 0 2 40 15; head -c 40 /dev/zero; } >"$corpus/writex"
hdr 29 0 3 27 65536 >"$corpus/readx_header_only"
{ hdr 29 0 3 27 4096; head -c 27 /dev/zero; hdr 16 0 4 0 71; } >"$corpus/two_frames"

"$work/fuzz_frame" -max_total_time="$time_limit" -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 "$corpus" 2>"$work/log" || {
	tail -40 "$work/log" >&2
	echo "run.sh: the fuzzer found a problem (log above)" >&2
	exit 1
}
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+.*DONE' "$work/log" || true
echo "run.sh: fuzz_frame ran ${time_limit}s without a finding"
