#!/usr/bin/env bats
# sweep.bats - --sweep LIST (client-count sweeps: the list syntax, a run per
# count, the table, the JSON document with every point and run) and
# dbench-plot drawing real sweeps with gnuplot (PNG and SVG checked: format,
# size, not blank, well-formed; the data files behind the pictures hold the
# JSON's figures; index.html lists every picture).  Runnable by hand:
#   DBENCH=build/src/dbench bats tests/cli/sweep.bats
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

PLOT=${PLOT:-$(dirname "$DBENCH")/../tools/dbench-plot}
PNG_CHECK="$DBENCH_SRCDIR/tests/cli/png-check.py"

setup() {
	make_tmp
	small_loadfile
	# the runs: slow.txt, whose clients sleep 10 ms a pass instead of
	# spinning a CPU each (a sweep to 6 clients spun 13 CPU-seconds)
	slow_loadfile
}
teardown() { remove_tmp; }

need_gnuplot() {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox)"
}

@test "sweep: --help lists --sweep; bad lists are one line and exit 2" {
	run "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--sweep=LIST"* ]]
	for bad in 0 "1..x" "4..2" "1..8x1" "1,,2" "" "2..4+0" "100001" "1..200000"; do
		run -2 "$DBENCH" -B null -c "$T/small.txt" --sweep "$bad" -t 1
		echo "$bad: $output"
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "dbench: --sweep: "* ]]
	done
	run -2 "$DBENCH" -B null -c "$T/small.txt" --sweep 1,2 -t 1 3
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"give NPROCS or --sweep LIST, not both"* ]]
	run -2 "$DBENCH" -B null -c "$T/small.txt" --sweep 1,2 -t 1 --machine-readable
	[[ "$output" == *"--machine-readable is for one run"* ]]
	run -2 "$DBENCH" -B null -c "$T/small.txt" --sweep 1,2 -t 1 --csv-series "$T/s.csv"
	[[ "$output" == *"--csv-series is for one run"* ]]
}

@test "sweep: 1..4x2,6 on null: a run per count, the table, one JSON with every point" {
	run "$DBENCH" -B null -c "$T/slow.txt" --sweep 1..4x2,6 -t 1 --warmup 0 --json "$T/s.json"
	echo "$output"
	[ "$status" -eq 0 ]
	for n in 1 2 4 6; do
		[[ "$output" =~ Point\ [1-4]\ of\ 4:\ $n\ clients:\ Throughput\ [0-9.e+]+\ MB/sec ]]
		[[ "$output" =~ $'\n'\ +$n\ +$n\ +[0-9.]+\ +-\ +[0-9.]+ ]]
	done
	[[ "$output" == *"Sweep of 4 points of 4 (one run each)"* ]]
	check_schema "$DBENCH_SRCDIR/doc/dbench-sweep.schema.json" "$T/s.json"
	[ "$(jq -c '.sweep.processes' "$T/s.json")" = "[1,2,4,6]" ]
	[ "$(jq -c '[.points[].clients]' "$T/s.json")" = "[1,2,4,6]" ]
	[ "$(jq -c '[.points[] | .runs | length]' "$T/s.json")" = "[1,1,1,1]" ]
	# each point's run is a whole result of that many clients, with its series
	[ "$(jq -c '[.points[] | .runs[0].clients]' "$T/s.json")" = "[1,2,4,6]" ]
	[ "$(jq '[.points[] | .runs[0].series | length > 0] | all' "$T/s.json")" = true ]
	# (one validator for the four: each start imports jsonschema, a CPU-second)
	for i in 0 1 2 3; do
		jq ".points[$i].runs[0]" "$T/s.json" >"$T/run$i.json"
	done
	check_schema "$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T"/run[0-3].json
}

@test "sweep: with --repeat 2 every point has 2 runs and an interval; exit status kept" {
	run "$DBENCH" -B null -c "$T/slow.txt" --sweep 1,3 --repeat 2 -t 1 --warmup 0 --json "$T/s.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Sweep of 2 points of 2 (each the mean of its runs"* ]]
	[[ "$output" =~ $'\n'\ +3\ +3\ +[0-9.]+\ +[0-9.]+\ +[0-9.]+ ]]
	[ "$(jq -c '[.points[] | .runs | length]' "$T/s.json")" = "[2,2]" ]
	[ "$(jq -c '[.points[] | .summary.throughput_mb_per_sec.n]' "$T/s.json")" = "[2,2]" ]
	check_schema "$DBENCH_SRCDIR/doc/dbench-sweep.schema.json" "$T/s.json"
}

@test "sweep: on fileio each point cleans up; nothing left behind" {
	run "$DBENCH" -D "$T/d" -c "$T/slow.txt" --sweep 1,2 -t 1 --warmup 0
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Point 2 of 2: 2 clients: Throughput"* ]]
	assert_empty_target
	assert_no_procs
}

@test "dbench-plot: a fileio sweep with repeats and a null sweep drawn as PNG" {
	sanitizer_pass_skip "its sweeps are the --repeat and fileio tests' above; dbench-plot draws an input with repeats (error bars) in the data test and two inputs as PNG in the quoting test"
	need_gnuplot
	"$DBENCH" -D "$T/d" -c "$T/slow.txt" --sweep 1,2 --repeat 2 -t 1 --warmup 1 --json "$T/fileio.json" >/dev/null 2>&1
	"$DBENCH" -B null -c "$T/slow.txt" --sweep 1,2,4 -t 1 --warmup 0 --json "$T/null.json" >/dev/null 2>&1
	run "$PLOT" -o "$T/out" "$T/fileio.json" "$T/null.json"
	echo "$output"
	[ "$status" -eq 0 ]
	for p in throughput ops latency cdf-Read cdf-Write cdf-Open-Close cdf-Attributes \
		 timeline-1-1c timeline-1-2c timeline-2-1c timeline-2-2c timeline-2-4c; do
		"$PYTHON" "$PNG_CHECK" "$T/out/$p.png" 1024 768
		grep -q "src=\"$p.png\"" "$T/out/index.html"
	done
	# every picture the page shows exists, and the page parses
	for src in $(grep -o 'src="[^"]*"' "$T/out/index.html" | cut -d'"' -f2); do
		[ -s "$T/out/$src" ]
	done
	xmllint --html --noout "$T/out/index.html"
	grep -q "fileio" "$T/out/index.html"
	grep -q "slow.txt" "$T/out/index.html"
	# the throughput picture: error bars for the input with repeats only
	grep -q 'index 0 using 1:2:3:4 with yerrorlines' "$T/out/throughput.gp"
	grep -q 'index 1 using 1:2 with linespoints' "$T/out/throughput.gp"
}

@test "dbench-plot: the data behind the pictures hold the JSON's figures" {
	need_gnuplot
	"$DBENCH" -B null -c "$T/slow.txt" --sweep 1,2 --repeat 2 -t 1 --warmup 0 --json "$T/s.json" >/dev/null 2>&1
	run "$PLOT" -o "$T/out" "$T/s.json"
	[ "$status" -eq 0 ]
	# points.dat: clients, mean MB/s, interval, mean ops/s as the summary has them
	jq -r '.points[] | "\(.clients) \(.summary.throughput_mb_per_sec.mean) \(.summary.throughput_mb_per_sec.ci95_low) \(.summary.throughput_mb_per_sec.ci95_high) \(.summary.ops_per_sec.mean)"' \
		"$T/s.json" >"$T/want"
	grep -v '^#' "$T/out/data/points.dat" | awk 'NF { print $1, $2, $3, $4, $5 }' >"$T/got"
	paste "$T/want" "$T/got"
	"$PYTHON" - "$T/want" "$T/got" <<'PY'
import sys
want = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
got = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
assert len(want) == len(got) == 2, (want, got)
for w, g in zip(want, got):
    for a, b in zip(w, g):
        assert abs(a - b) <= 1e-3 * max(1.0, abs(a)), (w, g)
PY
	# a timeline row per second of the first run, bytes as MB
	jq -r '.points[0].runs[0].series[] | "\(.elapsed_sec - 1) \(.mb_per_sec)"' "$T/s.json" >"$T/want"
	grep -v '^#' "$T/out/data/timeline-1-1c.dat" | awk '{ print $1, $3 }' >"$T/got"
	"$PYTHON" - "$T/want" "$T/got" <<'PY'
import sys
want = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
got = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
assert len(want) == len(got) > 0, (want, got)
for w, g in zip(want, got):
    assert w[0] == g[0] and abs(w[1] - g[1]) <= 1e-6 * max(1.0, w[1]), (w, g)
PY
	# each CDF curve rises to exactly 1 and never falls
	"$PYTHON" - "$T/out/data/cdf-Read.dat" <<'PY'
import sys
blocks = [b for b in open(sys.argv[1]).read().split("\n\n\n")]
curves = 0
for b in blocks:
    rows = [list(map(float, l.split())) for l in b.splitlines() if l and not l.startswith("#")]
    if not rows:
        continue
    curves += 1
    ys = [r[1] for r in rows]
    xs = [r[0] for r in rows]
    assert ys == sorted(ys) and xs == sorted(xs) and abs(ys[-1] - 1) < 1e-9, rows[-3:]
assert curves == 2, curves
PY
}

@test "dbench-plot: SVG output is well-formed at the asked size" {
	need_gnuplot
	"$DBENCH" -B null -c "$T/slow.txt" --sweep 1,2 -t 1 --warmup 0 --json "$T/s.json" >/dev/null 2>&1
	run "$PLOT" -o "$T/out" --format svg --size 800x600 "$T/s.json"
	echo "$output"
	[ "$status" -eq 0 ]
	for p in throughput ops latency cdf-Read timeline-1-2c; do
		xmllint --noout "$T/out/$p.svg"
		grep -q 'width="800" height="600"' "$T/out/$p.svg"
		[ "$(grep -c '<path' "$T/out/$p.svg")" -gt 5 ]
	done
	grep -q 'src="throughput.svg"' "$T/out/index.html"
}

@test "dbench-plot: a single run's and a --repeat document are one point each" {
	need_gnuplot
	"$DBENCH" -B null -c "$T/slow.txt" -t 1 --warmup 0 --json "$T/one.json" 2 >/dev/null 2>&1
	"$DBENCH" -B null -c "$T/slow.txt" -t 1 --warmup 0 --repeat 2 --json "$T/rep.json" 3 >/dev/null 2>&1
	run "$PLOT" -o "$T/out" "$T/one.json" "$T/rep.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -v '^#' "$T/out/data/points.dat" | awk 'NF { print $1, $12 }' | tr '\n' ' ')" = "2 1 3 2 " ]
}

@test "dbench-plot: bad input and options are one line and exit 2" {
	echo "not json" >"$T/garbage.json"
	run -2 "$PLOT" -o "$T/out" "$T/garbage.json"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"garbage.json: not a dbench result"* ]]
	echo '{"a": 1}' >"$T/other.json"
	run -2 "$PLOT" -o "$T/out" "$T/other.json"
	[[ "$output" == *"other.json: not a dbench result"* ]]
	run -2 "$PLOT" -o "$T/out" "$T/missing.json"
	[[ "$output" == *"missing.json: cannot read it"* ]]
	# a run that failed wrote an error document: it has nothing to draw
	run -2 "$DBENCH" -B null -c "$T/nosuch.txt" -t 1 --json "$T/err.json" 1
	run -2 "$PLOT" -o "$T/out" "$T/err.json"
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	run -2 "$PLOT" "$T/err.json"
	[[ "$output" == *"give one with -o DIR"* ]]
	run -2 "$PLOT" -o "$T/out" --format gif "$T/err.json"
	[[ "$output" == *"--format: 'gif' is not png or svg"* ]]
	run -2 "$PLOT" -o "$T/out" --size 10x10 "$T/err.json"
	[[ "$output" == *"--size"* ]]
	run -2 "$PLOT" -o "$T/out"
	[[ "$output" == *"no input"* ]]
}

@test "dbench-plot: no gnuplot is one line naming the package" {
	"$DBENCH" -B null -c "$T/slow.txt" -t 1 --warmup 0 --json "$T/one.json" 1 >/dev/null 2>&1
	GNUPLOT=/nonexistent/gnuplot run -2 "$PLOT" -o "$T/out" "$T/one.json"
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"gnuplot-nox"* ]]
}

@test "dbench-plot: backticks, quotes, newlines and \$(...) in names and titles run nothing; the pictures are drawn" {
	need_gnuplot
	"$DBENCH" -B null -c "$T/slow.txt" -t 1 --warmup 0 --json "$T/one.json" 1 >/dev/null 2>&1
	# gnuplot runs in the output directory: a command that ran leaves pwned* there
	local a=$'a`touch pwned1`$(touch pwned2)\'q"x\nsystem "touch pwned3"; `touch pwned3`.json'
	local b=$'b@x_{y}^z&~\\\'\'\n\'\n.json'
	local title=$'T`touch pwned4`\'"$(touch pwned5)\nsystem "touch pwned6"'
	cp "$T/one.json" "$T/$a"
	cp "$T/one.json" "$T/$b"
	cd "$T"
	run "$PLOT" -o out -t "$title" "$a" "$b"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(find "$T" -name 'pwned*')" ]
	for p in throughput ops latency timeline-1-1c timeline-2-1c cdf-Read; do
		"$PYTHON" "$PNG_CHECK" "out/$p.png" 1024 768
	done
	# one data row per input: a newline in a name stays in its comment line
	[ "$(grep -vc '^#\|^$' out/data/points.dat)" -eq 2 ]
	grep -q $'^# input 0: a`touch pwned1`$(touch pwned2)\'q"x?system "touch pwned3"; `touch pwned3`.json$' \
		out/data/points.dat
	# every user string is in single-quoted gnuplot strings, on one line
	# (a ' is concatenated: 'it'."'".'s')
	cat >"$T/expected" <<-'EOF'
	set title 'T`touch pwned4`'."'".'"$(touch pwned5)?system "touch pwned6": Throughput against clients' noenhanced font ",14"
	title 'a`touch pwned1`$(touch pwned2)'."'".'q"x?system "touch pwned3"; `touc' noenhanced, \
	title 'b@x_{y}^z&~\'."'".''."'".'?'."'".'?' noenhanced
	EOF
	[ "$(grep -oFf "$T/expected" out/throughput.gp | wc -l)" -eq 3 ]
	grep -qF '<tr><th>File</th><td>a`touch pwned1`$(touch pwned2)'"'"'q&quot;x?system &quot;touch pwned3&quot;; `touch pwned3`.json</td></tr>' out/index.html
}

@test "dbench-plot: a directory is named as one, a FIFO nobody writes to is not waited for" {
	sanitizer_pass_skip "the document reader (json_report.c) meets a directory, a FIFO without a writer, a late writer and a pipe in compare.bats' test of the same"
	"$DBENCH" -B null -c "$T/slow.txt" -t 1 --warmup 0 --json "$T/one.json" 1 >/dev/null 2>&1
	mkdir "$T/dir.json"
	run -2 "$PLOT" -o "$T/out" "$T/dir.json"
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "dbench-plot: $T/dir.json: is a directory, not a document" ]
	mkfifo "$T/fifo.json"
	run -2 timeout 60 "$PLOT" -o "$T/out" "$T/fifo.json"
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "dbench-plot: $T/fifo.json: a FIFO that nobody opened for writing in 5 s" ]
	# a writer that comes late, and a pipe, are read
	need_gnuplot
	(sleep 1; cat "$T/one.json" >"$T/fifo.json") &
	run "$PLOT" -o "$T/out" "$T/fifo.json" <(sleep 1; cat "$T/one.json")
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -vc '^#\|^$' "$T/out/data/points.dat")" -eq 2 ]
}
