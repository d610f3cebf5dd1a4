#!/usr/bin/env bats
# compare.bats - dbench-compare on real runs: runs with the same settings
# compare clean, a real slowdown (pacing at a quarter of the rate, -R) is a
# regression with exit status 1 and a JUnit failure (checked against the
# JUnit schema with xmllint), unusable input exits 2 with one line; two
# sets of --sweep documents compare point by point.
# Runnable by hand:
#   DBENCH=build/src/dbench bats tests/cli/compare.bats
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

COMPARE=${COMPARE:-$(dirname "$DBENCH")/../tools/dbench-compare}
XSD="$DBENCH_SRCDIR/tests/cli/junit.xsd"

# The runs every test compares, made once: on the null backend seven of 8
# passes paced at 4 MB/s (base), seven more the same (same), seven at a
# quarter of the rate (slow), interleaved so that the machine's load falls
# on all alike; the same on the fileio backend. A run takes a quarter of a
# second (slow: one second). The pacing is slow (an op every 16 ms) so
# that a loaded machine still keeps it, and there are seven runs a side:
# the U test reaches p < 0.05 even when the load stalls one run for a
# second (one such run among five was enough to miss it). A paced run
# catches up after a stall, except at its end: its window ends with its
# last op, so a late last wake-up (or a write the kernel throttles)
# lengthens it. At load 10, two or three base runs of seven lost half
# their throughput that way, with 4 passes (0.13 s) and with 8 (0.26 s),
# and a half-rate slow side no longer stood apart. A base run now falls
# below the slow ones only if its end is late by 0.8 s. Then sweeps of 1
# and 2 clients, two files a side of three runs a point (pooled: six runs
# a point a side), at the same pace (base, same) and at a quarter (slow).
setup_file() {
	R=$(mktemp -d /tmp/dbench-compare.XXXXXX)
	export R
	mkdir "$R/d"
	T=$R small_loadfile	# helpers.bash: $R/small.txt, 8 ops, 128 KiB a pass
	printf 'Deltree "\\clients" *\n' > "$R/other.txt"
	local i run="-c $R/small.txt --passes 8"
	for i in 1 2 3 4 5 6 7; do
		"$DBENCH" -B null $run -R 4 --json "$R/base$i.json" 1 >/dev/null
		"$DBENCH" -B null $run -R 4 --json "$R/same$i.json" 1 >/dev/null
		"$DBENCH" -B null $run -R 1 --json "$R/slow$i.json" 1 >/dev/null
	done
	for i in 1 2 3 4 5 6 7; do
		"$DBENCH" -D "$R/d" $run -R 4 --json "$R/fbase$i.json" 1 >/dev/null
		"$DBENCH" -D "$R/d" $run -R 1 --json "$R/fslow$i.json" 1 >/dev/null
	done
	"$DBENCH" -B null -c "$R/other.txt" --run-once --json "$R/other.json" 1 >/dev/null
	for i in a b; do
		run="-B null -c $R/small.txt --passes 8 --sweep 1,2 --repeat 3"
		"$DBENCH" $run -R 4 --json "$R/sweep-base-$i.json" >/dev/null
		"$DBENCH" $run -R 4 --json "$R/sweep-same-$i.json" >/dev/null
		"$DBENCH" $run -R 1 --json "$R/sweep-slow-$i.json" >/dev/null
		# the new build got slower with 2 clients only: the point of 1 client
		# from the same pace, the point of 2 from the slow one
		jq -s '.[0].points[1] = .[1].points[1] | .[0]' "$R/sweep-same-$i.json" \
			"$R/sweep-slow-$i.json" > "$R/sweep-slow2-$i.json"
	done
}

teardown_file() {
	[ -n "${R:-}" ] && rm -rf "$R"
}

setup() {
	cd "$R"
	BASE="base1.json base2.json base3.json base4.json base5.json base6.json base7.json"
	SAME="same1.json same2.json same3.json same4.json same5.json same6.json same7.json"
	SLOW="slow1.json slow2.json slow3.json slow4.json slow5.json slow6.json slow7.json"
	FBASE="fbase1.json fbase2.json fbase3.json fbase4.json fbase5.json fbase6.json fbase7.json"
	FSLOW="fslow1.json fslow2.json fslow3.json fslow4.json fslow5.json fslow6.json fslow7.json"
}

# median_run FILE...: the run with the median throughput (not one that the
# load stalled, unless it stalled most of them).
median_run() {
	local f
	for f in "$@"; do
		echo "$(jq -r .results.throughput_mb_per_sec "$f") $f"
	done | sort -g | sed -n "$(( ($# + 1) / 2 ))s/.* //p"
}

@test "compare: --help and --version" {
	run "$COMPARE" --help
	[ "$status" -eq 0 ]
	for o in --threshold --alpha --test --per-op --metrics --json --markdown --junit --force; do
		[[ "$output" == *"$o"* ]] || { echo "missing $o"; false; }
	done
	[[ "$output" == *"--sweep: sweeps compare point by point"* ]]
	run "$COMPARE" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "dbench-compare "[0-9]* ]]
}

@test "compare: runs with the same settings compare clean with a generous threshold" {
	# the paced throughput is what these runs fix; the null backend's latencies are
	# nanoseconds of scheduling noise that a loaded machine moves by more than 50%
	run --separate-stderr "$COMPARE" --threshold 50% --metrics 'throughput,ops_per_sec' $BASE -- $SAME
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"base: base1.json, base2.json, base3.json, base4.json, base5.json, base6.json, base7.json (7 runs)"* ]]
	[[ "$output" == *"0 regressions"* ]]
	[[ "$output" =~ Throughput\ +[0-9.]+\ MB/s ]]
	[[ "$output" != *regression\ * ]]
	[ -z "$stderr" ]	# same settings: no warning
}

@test "compare: a quarter of the rate is a regression: exit 1, JUnit failure valid against the schema" {
	run --separate-stderr "$COMPARE" --junit "$R/junit.xml" $BASE -- $SLOW
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" =~ Throughput\ .*-[6-9][0-9]\.[0-9]+%\ .*regression ]]
	[[ "$output" =~ Operations\ .*regression ]]
	# the rate differs: a warning, on stderr only
	[[ "$stderr" == *"warning: target_rate_mb_per_sec differs: 4"*"1"* ]]
	[[ "$output" != *warning* ]]
	xmllint --noout --schema "$XSD" "$R/junit.xml"
	[ "$(xmllint --xpath 'count(//testcase)' "$R/junit.xml")" -eq 4 ]
	[ "$(xmllint --xpath 'string(//testsuite/@failures)' "$R/junit.xml")" -ge 2 ]
	xmllint --xpath '//testcase[@name="Throughput (MB/s)"]/failure/@message' "$R/junit.xml" |
		grep -Eq 'Throughput -[6-9][0-9]\.'
}

@test "compare: the slowdown on the fileio backend; Welch's t; too few runs for the U test" {
	run --separate-stderr "$COMPARE" --metrics throughput,ops_per_sec $FBASE -- $FSLOW
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" =~ Throughput\ .*\ U\ +regression ]]
	run --separate-stderr "$COMPARE" --test welch --metrics throughput $BASE -- $SLOW
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" =~ Throughput\ .*\ t\ +regression ]]
	# two runs a side: the U test cannot reach 0.05, and says so
	run --separate-stderr "$COMPARE" --test utest --metrics throughput fbase1.json fbase2.json -- \
		fslow1.json fslow2.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"too few runs for the U test"* ]]
}

@test "compare: --json, --markdown" {
	run --separate-stderr "$COMPARE" --json $BASE -- $SLOW
	[ "$status" -eq 1 ]
	[ "$(echo "$output" | jq -r '.metrics[] | select(.key == "throughput") | .verdict')" = regression ]
	[ "$(echo "$output" | jq -r '.metrics[0].base.n')" -eq 7 ]
	[ "$(echo "$output" | jq -r '.exit_status')" -eq 1 ]
	[ "$(echo "$output" | jq -r '.warnings | length')" -ge 1 ]
	echo "$output" | jq -e '.metrics[0].change_pct < -30 and .metrics[0].p < 0.05'

	run --separate-stderr "$COMPARE" --markdown $BASE -- $SLOW
	[ "$status" -eq 1 ]
	[[ "$output" == *"| Metric | Base | New | Change | p | Verdict |"* ]]
	[[ "$output" == *"| Throughput | "*" MB/s ±"*"**regression**"* ]]
	[[ "$output" == *"target\\_rate\\_mb\\_per\\_sec differs"* ]]
}

@test "compare: one run a side is judged by the threshold alone, and says so" {
	local b s
	b=$(median_run $BASE)
	s=$(median_run $SLOW)
	run --separate-stderr "$COMPARE" "$b" "$s"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"one run on a side: no test, judged by the threshold alone"* ]]
	run --separate-stderr "$COMPARE" --threshold 90 --metrics throughput "$b" "$s"
	[ "$status" -eq 0 ]
}

@test "compare: --per-op and --metrics choose the metrics" {
	run --separate-stderr "$COMPARE" --per-op base1.json base2.json -- same1.json same2.json
	[[ "$output" == *"ReadX p99"* ]]
	[[ "$output" == *"Close mean"* ]]
	run --separate-stderr "$COMPARE" --json --metrics 'throughput,op.ReadX.*' base1.json same1.json
	[ "$(echo "$output" | jq -r '[.metrics[].key] | join(" ")')" = "throughput op.ReadX.mean op.ReadX.p99" ]
	run --separate-stderr "$COMPARE" --metrics nosuch base1.json same1.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--metrics nosuch: no metric of the runs matches"* ]]
}

@test "compare: a garbage file, a JSON that is not dbench's, a missing file: exit 2, one line" {
	head -c 300 /dev/urandom > garbage.json
	echo '{"hello": "world"}' > other-tool.json
	for f in garbage.json other-tool.json nosuch.json; do
		run --separate-stderr "$COMPARE" base1.json "$f"
		echo "$f: $status $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(echo "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "dbench-compare: $f: "* ]]
	done
	run --separate-stderr "$COMPARE" garbage.json -- base1.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"not a dbench result"* ]]
	# a sweep compares with sweeps only
	run --separate-stderr "$COMPARE" sweep-base-a.json base1.json
	[ "$status" -eq 2 ]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == "dbench-compare: sweep-base-a.json: a --sweep document, but base1.json is not: "* ]]
	jq -c '{schema_version, program, sweep: {}, points: [], exit_status}' base1.json > sweep.json
	run --separate-stderr "$COMPARE" sweep.json sweep-base-a.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == "dbench-compare: sweep.json: a --sweep document with no point" ]]
}

@test "compare: another loadfile's result exits 2 unless --force" {
	run --separate-stderr "$COMPARE" base1.json base2.json -- other.json
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "dbench-compare: other.json ran another loadfile than base1.json"*"--force"* ]]
	run --separate-stderr "$COMPARE" --force base1.json base2.json -- other.json
	[ "$status" -ne 2 ]
	[[ "$stderr" == *"warning: other.json ran another loadfile"* ]]
}

@test "compare: bad options exit 2 with one line" {
	for args in "--threshold abc" "--threshold -3" "--alpha 0" "--alpha 1.5" "--test nosuch" \
		"--json --markdown" "--nosuch"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$COMPARE" $args base1.json same1.json
		echo "$args: $status $stderr"
		[ "$status" -eq 2 ]
		[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	done
	run --separate-stderr "$COMPARE" base1.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no new file"* ]]
	run --separate-stderr "$COMPARE" base1.json base2.json same1.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"put -- between"* ]]
	run --separate-stderr "$COMPARE" -- same1.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no base file"* ]]
	# 5 and 5% are the same threshold
	run --separate-stderr "$COMPARE" --json --threshold 5% base1.json same1.json
	echo "$output" | jq -e ".threshold_pct == 5"
}

@test "compare: differences in settings are warnings" {
	"$DBENCH" -B null -c small.txt --passes 8 -R 4 --json two.json 2 >/dev/null
	run --separate-stderr "$COMPARE" base1.json base2.json -- two.json
	[[ "$stderr" == *"warning: clients differs: 1 in base1.json, 2 in two.json"* ]]
	[[ "$stderr" == *"warning: processes differs"* ]]
	run --separate-stderr "$COMPARE" -q base1.json base2.json -- two.json
	[ -z "$stderr" ]
}

@test "compare: two sweeps compare point by point: a verdict per point, exit 1 if one regressed" {
	# the same pace at both points: clean
	run --separate-stderr "$COMPARE" --threshold 25% --metrics throughput,ops_per_sec \
		sweep-base-a.json sweep-base-b.json -- sweep-same-a.json sweep-same-b.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"base: sweep-base-a.json, sweep-base-b.json (2 points: 1, 2 clients; 12 runs)"* ]]
	[[ "$output" == *"1 client (base 6 runs, new 6 runs)"* ]]
	[[ "$output" == *"2 clients (base 6 runs, new 6 runs)"* ]]
	[[ "$output" == *"2 points: 0 with a regression, 0 with an improvement; 0 regressions"* ]]
	[ -z "$stderr" ]
	# slower with 2 clients only: that point regressed, the other did not
	run --separate-stderr "$COMPARE" --threshold 25% --metrics throughput,ops_per_sec \
		sweep-base-a.json sweep-base-b.json -- sweep-slow2-a.json sweep-slow2-b.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" =~ $'\n'"1 client "\ +"no significant change"$'\n' ]]
	[[ "$output" =~ $'\n'"2 clients "\ +"regression (Throughput, Operations)"$'\n' ]]
	[[ "$output" == *"2 points: 1 with a regression, 0 with an improvement; 2 regressions, 0 improvements, 2 without significant change"* ]]
	# the slow pace is a warning, once although two files and a point have it
	[ "$(echo "$stderr" | grep -c "warning: target_rate_mb_per_sec differs: 4")" -eq 1 ]
	# the whole sweep at the slow pace: both points
	run --separate-stderr "$COMPARE" --threshold 25% --metrics throughput \
		sweep-base-a.json sweep-base-b.json -- sweep-slow-a.json sweep-slow-b.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"2 points: 2 with a regression"* ]]
}

@test "compare: two sweeps: --json, --markdown and --junit have every point" {
	local args="--threshold 25% --metrics throughput,ops_per_sec sweep-base-a.json sweep-base-b.json -- sweep-slow2-a.json sweep-slow2-b.json"
	# shellcheck disable=SC2086
	run --separate-stderr "$COMPARE" --json --junit "$R/sweep-junit.xml" $args
	echo "$output"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.exit_status == 1 and .regressions == 2 and .regressed_points == 1'
	echo "$output" | jq -e '[.points[].clients] == [1, 2]'
	echo "$output" | jq -e '[.points[].verdict] == ["same", "regression"]'
	echo "$output" | jq -e '[.points[] | .base.runs, .new.runs] == [6, 6, 6, 6]'
	echo "$output" | jq -e '.points[1].metrics[0] | .key == "throughput" and .verdict == "regression" and .base.n == 6 and .change_pct < -30 and .p < 0.05'
	echo "$output" | jq -e '.points[0].metrics[0] | .verdict == "same" and .base.n == 6'
	echo "$output" | jq -e '.base.runs == 12 and (.warnings | length) >= 1 and has("metrics") == false'

	xmllint --noout --schema "$XSD" "$R/sweep-junit.xml"
	[ "$(xmllint --xpath 'count(//testsuite)' "$R/sweep-junit.xml")" -eq 2 ]
	[ "$(xmllint --xpath 'count(//testcase)' "$R/sweep-junit.xml")" -eq 4 ]
	[ "$(xmllint --xpath 'string(/testsuites/@failures)' "$R/sweep-junit.xml")" -eq 2 ]
	[ "$(xmllint --xpath 'count(//testcase[@name="2 clients: Throughput (MB/s)"]/failure)' "$R/sweep-junit.xml")" -eq 1 ]
	[ "$(xmllint --xpath 'count(//testcase[@name="1 client: Throughput (MB/s)"]/failure)' "$R/sweep-junit.xml")" -eq 0 ]
	[ "$(xmllint --xpath 'string(//testsuite[2]/@name)' "$R/sweep-junit.xml")" = "dbench-compare: 2 clients" ]

	# shellcheck disable=SC2086
	run --separate-stderr "$COMPARE" --markdown $args
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"| Clients | Metric | Base | New | Change | p | Verdict |"* ]]
	[[ "$output" =~ "| 1 | Throughput | "[^$'\n']*" | no significant change |" ]]
	[[ "$output" =~ "| 2 | Throughput | "[^$'\n']*" | **regression** |" ]]
	[[ "$output" == *"- 1 client: no significant change"* ]]
	[[ "$output" == *"- 2 clients: **regression**"* ]]
}

@test "compare: sweeps of other client counts: exit 2 with one line" {
	"$DBENCH" -B null -c small.txt --passes 1 --sweep 1,3 --json sweep13.json >/dev/null
	run --separate-stderr "$COMPARE" sweep-base-a.json sweep-base-b.json -- sweep13.json
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "dbench-compare: the sweeps' client counts differ: sweep-base-a.json has 1,2, sweep13.json has 1,3 (sweeps compare point by point: sweep the same counts)" ]
	# on one side too
	run --separate-stderr "$COMPARE" sweep13.json sweep-base-a.json -- sweep-same-a.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"client counts differ: sweep13.json has 1,3, sweep-base-a.json has 1,2"* ]]
	# a count the list names twice is one point: its runs pool
	jq '.points += [.points[1]]' sweep-base-a.json > sweep-122.json
	run --separate-stderr "$COMPARE" --json sweep-122.json sweep-same-a.json
	echo "$output" | jq -e '[.points[] | .clients, .base.runs] == [1, 3, 2, 6]'
}

@test "compare: impossible figures (zero-length window, negative or NaN values, counts that do not add up): exit 2, one line" {
	# op: the first operation that ran
	local op='(.results.operations | map(.count > 0) | index(true)) as $i | .results.operations[$i]'
	local cases=(
		'.window.duration_ns = 0'
			'base1.json: not a dbench result: [0-9]+ ops in a zero-length measured window'
		'.window.duration_ns = 0 | .results.operations |= map(.count = 0 | .bytes = 0 | .sum_ns = 0 | .max_ns = 0 | .min_ns = null | .sumsq_ns = "0" | .histogram = [] | .decades |= map(.count = 0) | .mismatches = 0 | .errors = 0) | .results |= (.ops = 0 | .bytes = 0 | .errors = 0 | .mismatches = 0)'
			'base1.json: a zero-length measured window \("duration_ns": 0\): no rate to compare'
		"$op.count = -5"
			'base1.json: not a dbench result: "count" is negative'
		'.results.ops = -1'
			'base1.json: not a dbench result: "ops" is negative'
		"$op.sumsq_ns = \"nan\""
			'base1.json: not a dbench result: [A-Za-z_]+: "sumsq_ns" is nan, not a sum of squares'
		"$op.sumsq_ns = \"-1\""
			'base1.json: not a dbench result: [A-Za-z_]+: "sumsq_ns" is -1, not a sum of squares'
		"$op.count += 1"
			'base1.json: not a dbench result: [A-Za-z_]+: [0-9]+ ops, but its histogram holds [0-9]+'
		"$op.decades[0].count += 1"
			'base1.json: not a dbench result: [A-Za-z_]+: [0-9]+ ops, but its decades hold [0-9]+'
		"$op.errors = $op.count + 1"
			'base1.json: not a dbench result: [A-Za-z_]+: more mismatches or errors \(0, [0-9]+\) than ops \([0-9]+\)'
		"$op.min_ns = $op.max_ns + 1"
			'base1.json: not a dbench result: [A-Za-z_]+: the latencies do not add up \(min [0-9]+ ns, max [0-9]+ ns, [0-9]+ ops, sum [0-9]+ ns\)'
		'.results.ops += 1'
			"base1.json: not a dbench result: \"ops\" is not the sum of the operations' \\([0-9]+\\)"
		'.results.client_resources.ops_all_phases = 0'
			'base1.json: not a dbench result: fewer ops in all phases \(0\) than in the measured window \([0-9]+\)'
		'.loadfile.nbscale = -1'
			'base1.json: not a dbench result: "nbscale" is -1, not a positive number'
	)
	mkdir bad
	local c	# (not i: bats's run sets i)
	for (( c = 0; c < ${#cases[@]}; c += 2 )); do
		jq "${cases[c]}" base1.json >bad/base1.json
		run --separate-stderr "$COMPARE" bad/base1.json base2.json
		echo "${cases[c]} -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(echo "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" =~ ^dbench-compare:\ bad/${cases[c + 1]}$ ]]
	done
	rm -r bad
}

@test "compare: a directory is named as one; a FIFO nobody writes to is not waited for; a pipe is read" {
	mkdir dir.json
	run --separate-stderr "$COMPARE" dir.json base2.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench-compare: dir.json: is a directory, not a document" ]
	rmdir dir.json
	mkfifo fifo.json
	run --separate-stderr timeout 60 "$COMPARE" base1.json fifo.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "dbench-compare: fifo.json: a FIFO that nobody opened for writing in 5 s" ]
	# a slow writer is a writer: the FIFO's, and a pipe's
	(sleep 1; cat base2.json >fifo.json) &
	run --separate-stderr "$COMPARE" --threshold 50% --metrics throughput <(sleep 6; cat base1.json) fifo.json
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"base: /dev/fd/"*" (1 run)"* ]]
	[[ "$output" == *"new:  fifo.json (1 run)"* ]]
	rm fifo.json
}
