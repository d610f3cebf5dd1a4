#!/usr/bin/env bats
# repeat.bats - --repeat N and --repeat-until-ci PCT: N runs, a line per
# run, the summary with its 95% interval, the final Throughput line in
# dbench's shape, the JSON document with every run (each valid against the
# result schema), and dbench-compare reading it.  Runnable by hand:
#   DBENCH=build/src/dbench bats tests/cli/repeat.bats
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

COMPARE=${COMPARE:-$(dirname "$DBENCH")/../tools/dbench-compare}
FINAL='^Throughput [0-9.e+]+ MB/sec  [0-9]+ clients  [0-9]+ procs  max_latency=[0-9]+\.[0-9]{3} ms$'

setup() {
	make_tmp
	small_loadfile
}
teardown() { remove_tmp; }

@test "repeat: --help lists --repeat and --repeat-until-ci" {
	run "$DBENCH" --help
	[[ "$output" == *--repeat=N* ]]
	[[ "$output" == *--repeat-until-ci=PCT* ]]
}

@test "repeat: three runs, a line each, the summary, the interval, dbench's final line" {
	run --separate-stderr "$DBENCH" -B null -c "$T/small.txt" --passes 20 -R 20 --repeat 3 \
		--json "$T/r.json" 1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^Run [123] of 3: Throughput [0-9.]* MB/sec  NB [0-9.]* MB/sec  [0-9.]* ops/sec  max_latency=' <<<"$output")" -eq 3 ]
	[[ "$output" == *"Summary of 3 runs: mean, median"* ]]
	# (runs this steady can have a stddev of 5.2067e-05: printed with an exponent)
	grep -Eq '^ Throughput MB/sec +[0-9.]+ +[0-9.]+ +[0-9.e+-]+ +[0-9.]+% ' <<<"$output"
	grep -Eq '^ NTCreateX p99 ms ' <<<"$output"
	grep -Eq '^Mean of 3 runs: [0-9.e+]+ MB/sec ± [0-9.e+-]+ \(95% confidence interval\), CoV [0-9.]+%$' <<<"$output"
	# the last line keeps dbench's shape (LKP, PTS), with the mean
	tail -1 <<<"$output" | grep -Eq "$FINAL"
	# each run prints its progress, not its op table
	[ "$(grep -c 'releasing clients' <<<"$output")" -eq 3 ]
	[[ "$output" != *"Operation      Count"* ]]

	# the document: every run, the summary of them
	[ "$(jq -r '.repeat.runs' "$T/r.json")" -eq 3 ]
	[ "$(jq -r '.repeat.end' "$T/r.json")" = done ]
	[ "$(jq -r '.runs | length' "$T/r.json")" -eq 3 ]
	[ "$(jq -r '.summary.throughput_mb_per_sec.n' "$T/r.json")" -eq 3 ]
	jq -e '(([.runs[].results.throughput_mb_per_sec] | add / 3) - .summary.throughput_mb_per_sec.mean | fabs) < 1e-6' "$T/r.json"
	jq -e '.summary.throughput_mb_per_sec | .ci95_low <= .mean and .mean <= .ci95_high' "$T/r.json"
	jq -e '[.summary.operations[].name] | index("ReadX") != null' "$T/r.json"
	check_schema "$DBENCH_SRCDIR/doc/dbench-repeat.schema.json" "$T/r.json"
	jq -c '.runs[]' "$T/r.json" > "$T/runs.jsonl"
	check_schema "$DBENCH_SRCDIR/doc/dbench-result.schema.json" "$T/runs.jsonl"
}

@test "repeat: each run on fileio cleans up after itself" {
	run "$DBENCH" -D "$T/d" -c "$T/small.txt" --passes 5 --repeat 2 1
	[ "$status" -eq 0 ]
	[ "$(grep -c '^Run [12] of 2: ' <<<"$output")" -eq 2 ]
	assert_empty_target
}

@test "repeat: --repeat-until-ci stops once the interval is narrow enough" {
	# paced runs of fixed work are steady: a few runs give a narrow interval
	# (slow pacing, an op every 16 ms, which a loaded machine keeps)
	run --separate-stderr "$DBENCH" -B null -c "$T/small.txt" --passes 8 -R 4 --repeat 12 \
		--repeat-until-ci 25 --json "$T/ci.json" 1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.repeat.end' "$T/ci.json")" = ci_reached ]
	[ "$(jq -r '.repeat.runs' "$T/ci.json")" -lt 12 ]
	[ "$(jq -r '.repeat.runs' "$T/ci.json")" -ge 3 ]
	[ "$(jq -r '.repeat.until_ci_pct' "$T/ci.json")" = 25 ] || jq -e '.repeat.until_ci_pct == 25' "$T/ci.json"
	[[ "$output" == *"(the interval reached --repeat-until-ci)"* ]]
}

@test "repeat: dbench-compare reads every run of a --repeat document" {
	# seven runs a side, paced slowly, the new at a quarter of the rate: a
	# run whose end the load delays does not hide the slowdown (see
	# compare.bats)
	"$DBENCH" -B null -c "$T/small.txt" --passes 8 -R 4 --repeat 7 --json "$T/base.json" 1 >/dev/null
	"$DBENCH" -B null -c "$T/small.txt" --passes 8 -R 1 --repeat 7 --json "$T/new.json" 1 >/dev/null
	run --separate-stderr "$COMPARE" "$T/base.json" "$T/new.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"base: $T/base.json (7 runs)"* ]]
	[[ "$output" =~ Throughput\ .*\ U\ +regression ]]
	# a repeat document and single runs pool
	"$DBENCH" -B null -c "$T/small.txt" --passes 8 -R 4 --json "$T/one.json" 1 >/dev/null
	run --separate-stderr "$COMPARE" --metrics throughput "$T/base.json" "$T/one.json" -- "$T/base.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(8 runs)"* ]]
}

# first_run_done: the series has told its first run's result.
first_run_done() {
	wait_for -t 60 "the first run's line" grep -q '^Run 1 of 50: ' "$T/out"
}

@test "repeat: SIGINT stops the series: the runs before it are summarized, exit 130" {
	signal_run -m -w first_run_done "$DBENCH" -B null -c "$T/small.txt" -t 1 --warmup 0 \
		--repeat 50 --json "$T/int.json" 1
	[ "$status" -eq 130 ]
	grep -Eq '^Summary of [0-9]+ runs?: ' "$T/out"
	tail -1 "$T/out" | grep -Eq "$FINAL"
	[ "$(jq -r .repeat.end "$T/int.json")" = signal ]
	[ "$(jq -r .exit_status "$T/int.json")" -eq 130 ]
	[ "$(jq -r '.runs | length' "$T/int.json")" -lt 50 ]
	assert_no_procs
}

@test "repeat: bad values and combinations exit 2 with one line" {
	for args in "--repeat 0" "--repeat abc" "--repeat-until-ci 5" "--repeat 3 --repeat-until-ci 0" \
		"--repeat 3 --repeat-until-ci 100" "--repeat 2 --csv-series $T/s.csv" \
		"--repeat 2 --machine-readable"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$DBENCH" -B null -c "$T/small.txt" --passes 1 $args 1
		echo "$args: $status $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	done
}
