#!/usr/bin/env bats
# latency.bats - the response-time report (--latency), the JSON result
# document (--json), the per-second series (--csv-series) and that the
# classic output stays as it was.  Runnable by hand:
#   DBENCH=build/src/dbench bats tests/cli/latency.bats
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

bats_require_minimum_version 1.5.0
load helpers

SCHEMA="$DBENCH_SRCDIR/doc/dbench-result.schema.json"
CHECK_SCHEMA="$DBENCH_SRCDIR/tests/cli/check-json-schema.py"
OPLINE='^ [A-Za-z0-9_]{1,12} +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$'
FINAL='^Throughput [0-9.e+]+ MB/sec  [0-9]+ clients  [0-9]+ procs  max_latency=[0-9]+\.[0-9]{3} ms$'

setup() {
	make_tmp
	# ops of every group: 15 ops a pass, 2 of them failing as expected; and
	# a 10 ms SLEEP (no op), so that a client of a timed run sleeps most of
	# its time instead of spinning a CPU (the figures are about counts and
	# their shapes, not speed)
	loadfile mix.txt <<'L'
Mkdir "\clients" *
Mkdir "\clients\client1" *
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
Flush 1 NT_STATUS_OK
SLEEP 10000
ReadX 1 0 65536 65536 NT_STATUS_OK
LockX 1 0 1 NT_STATUS_OK
UnlockX 1 0 1 NT_STATUS_OK
QUERY_FILE_INFORMATION 1 1004 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\f" 1004 NT_STATUS_OK
FIND_FIRST "\clients\client1\*" 1 0 4 NT_STATUS_OK
Rename "\clients\client1\f" "\clients\client1\g" NT_STATUS_OK
Unlink "\clients\client1\g" NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\nothere" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
L
}
teardown() { remove_tmp; }

run_dbench() {
	run --separate-stderr "$DBENCH" "$@"
}

# Validate JSON documents against the shipped schema.
check_schema() {
	local rc=0
	"$PYTHON" "$CHECK_SCHEMA" "$SCHEMA" "$@" || rc=$?
	[ "$rc" -eq 77 ] && skip "python3-jsonschema is not installed"
	[ "$rc" -eq 0 ]
}

# The classic op table lines of an output: " Name  count avg max".
classic_ops() {
	sed -n '/^ Operation      Count    AvgLat    MaxLat$/,/^$/p' | grep -E "$OPLINE"
}

@test "--help lists --latency, --json and --csv-series" {
	run "$DBENCH" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *--latency* ]]
	[[ "$output" == *"--json=FILE"* ]]
	[[ "$output" == *"--csv-series=FILE"* ]]
}

@test "--latency: classic lines unchanged, the tables between the op table and the final lines" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 --latency 2
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	# the classic table, in dbench 4.0's format, first
	[[ "$output" == *$'\n Operation      Count    AvgLat    MaxLat\n ----------------------------------------\n NTCreateX '* ]]
	[ "$(classic_ops <<<"$output" | wc -l)" -eq 13 ]
	# the last two lines as without --latency (the NB line comes before the op table)
	[[ "${lines[-2]}" =~ ^Operations\ [0-9]+\ in\ [0-9.]+\ sec ]]
	[[ "$output" =~ $'\n'Netbench\ scaled:\ NB=[0-9.e+]+\ MB/sec\ \ [0-9.e+]+\ MBit/sec$'\n\n'\ Operation\  ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
	# the new tables come after the classic one
	local classic latency
	classic=$(grep -n '^ Operation      Count    AvgLat' <<<"$output" | cut -d: -f1)
	latency=$(grep -n '^Response times in ms, measured window:$' <<<"$output" | cut -d: -f1)
	[ "$latency" -gt "$classic" ]
	# every op of the classic table has a row with the same count
	local name count
	while read -r name count _; do
		grep -Eq "^ $name +$count +[0-9.]+ " <<<"$(sed -n '/^Response times/,/^$/p' <<<"$output")" ||
			{ echo "no latency row for $name $count"; return 1; }
	done < <(classic_ops <<<"$output")
	for g in Read Write Open/Close Attributes Directory Locking All; do
		grep -Eq "^ $g +[0-9]+ +[0-9.]+ " <<<"$output" || { echo "no group $g"; return 1; }
	done
	[[ "$output" == *$'\n  ReadX:\n    <'* ]]
	[[ "$output" =~ $'\n'\ \ \ \ \<[0-9.]+\ ms\ +[0-9]+\ +[0-9.]+%\ +[0-9.]+%\ \ \*+ ]]
	# the expected failures are errors, not mismatches
	grep -Eq '^ Qpathinfo( +[0-9.]+){10} +0 +[1-9][0-9]*$' <<<"$output"
	assert_empty_target
}

@test "without --latency the output is the classic one" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 2
	[ "$status" -eq 0 ]
	[[ "$output" != *"Response times"* ]]
	[[ "$output" != *"Distribution"* ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
}

@test "--machine-readable stays machine-readable with --latency" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 --machine-readable --latency 2
	[ "$status" -eq 0 ]
	local l
	for l in "${lines[@]}"; do
		[[ "$l" =~ ^(@[WRC]@|:[A-Za-z0-9_]+:[0-9]+:|\;) ]] || { echo "bad line: $l"; return 1; }
	done
}

@test "--json: valid against the schema, and the counts add up" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 3 --warmup 1 --json "$T/r.json" --per-client-results 2
	echo "$stderr"
	[ "$status" -eq 0 ]
	check_schema "$T/r.json"
	local j="$T/r.json"
	[ "$(jq .schema_version "$j")" -eq 1 ]
	[ "$(jq -r .backend "$j")" = fileio ]
	[ "$(jq -r .loadfile.ops_per_pass "$j")" -eq 15 ]
	[ "$(jq -r .loadfile.crc32 "$j")" = "$(gzip -c "$T/mix.txt" | tail -c8 | od -An -tx4 -N4 | tr -d ' ')" ]
	[ "$(jq -r '.command_line[-1]' "$j")" = 2 ]
	[ "$(jq .clients "$j")" -eq 2 ]
	[ "$(jq .window.warmup_sec "$j")" -eq 1 ]
	# sum over ops = total; each group = the sum of its ops; decades and
	# histogram buckets = the count
	jq -e '.results as $r | ([$r.operations[].count] | add) == $r.ops and $r.all.count == $r.ops' "$j"
	jq -e '.results as $r | all($r.groups[]; . as $g |
		([$r.operations[] | select(.group == $g.name) | .count] | add // 0) == $g.count)' "$j"
	jq -e '.results as $r | ([$r.groups[].count] | add) == $r.ops' "$j"
	jq -e '[.results.operations[], .results.groups[], .results.all] |
		all(.count == ([.decades[].count] | add) and .count == ([.histogram[][3]] | add // 0))' "$j"
	jq -e '.results.operations[] | select(.name == "Qpathinfo") | .errors > 0 and .mismatches == 0' "$j"
	jq -e '[.results.groups[].name] == ["Read","Write","Open/Close","Attributes","Directory","Locking"]' "$j"
	jq -e '.results.groups[] | select(.name == "Write") | .operations == ["WriteX","Flush"]' "$j"
	# the per-second series: the execute seconds hold exactly the measured ops
	jq -e '([.series[] | select(.phase == "execute") | .ops] | add) == .results.ops' "$j"
	jq -e '[.series[] | select(.phase == "execute")] | length == 3' "$j"
	# per client: lines and op counts add up to the totals
	jq -e '([.per_client[].lines] | add) == .results.ops' "$j"
	jq -e '([.per_client[].operations[] | select(.name == "ReadX") | .count] | add) ==
		(.results.operations[] | select(.name == "ReadX") | .count)' "$j"
	jq -e '.results.passes.per_client | length == 2' "$j"
	# the same figures as the human report
	local tput maxlat
	tput=$(sed -n 's/^Throughput \([0-9.e+]*\) MB.*/\1/p' <<<"$output")
	maxlat=$(sed -n 's/.*max_latency=\([0-9.]*\) ms$/\1/p' <<<"$output")
	jq -e --arg t "$tput" --arg m "$maxlat" '(.results.throughput_mb_per_sec - ($t | tonumber)) | fabs < 0.001 * ($t | tonumber) + 0.001' "$j"
	jq -e --arg m "$maxlat" '(.results.max_latency_ms - ($m | tonumber)) | fabs <= 0.0005' "$j"
	grep -Eq "^Operations $(jq .results.ops "$j") in " <<<"$output"
	assert_empty_target
}

@test "--json with --run-once: exact counts" {
	run_dbench -c "$T/mix.txt" -D "$T/d" --run-once --json "$T/r.json" 3
	[ "$status" -eq 0 ]
	check_schema "$T/r.json"
	jq -e '.results.ops == 45 and .results.errors == 3 and .results.mismatches == 0' "$T/r.json"
	jq -e '.results.operations[] | select(.name == "Mkdir") | .count == 6 and .group == "Directory"' "$T/r.json"
	jq -e '.results.groups[] | select(.name == "Locking") | .count == 6' "$T/r.json"
	jq -e '.window.passes_per_client == 1 and .window.timelimit_sec == 600' "$T/r.json"
	jq -e '.results.passes.total == 3 and .exit_status == 0 and .paced == false' "$T/r.json"
	jq -e '.results.schedule_lag == null and .results.latency_kind == "response"' "$T/r.json"
	jq -e '([.series[].ops] | add) == 45' "$T/r.json"
}

@test "--json -: stdout holds only the JSON, the human report goes to stderr" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 --latency --json - 2
	[ "$status" -eq 0 ]
	jq -e '.schema_version == 1' <<<"$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$stderr" == *"Response times in ms"* ]]
	[[ "$stderr" =~ Throughput\ [0-9.e+]+\ MB/sec ]]
	check_schema - <<<"$output"
}

@test "--csv-series: a header and one row per second; the execute rows hold the measured ops" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 3 --warmup 1 --csv-series "$T/s.csv" --json "$T/r.json" 2
	[ "$status" -eq 0 ]
	cat "$T/s.csv"
	[ "$(head -1 "$T/s.csv")" = "elapsed_sec,phase,clients,ops,bytes,mb_per_sec,max_latency_ms,p99_latency_ms" ]
	local re='^[0-9]+,(warmup|execute|cleanup),[0-9]+,[0-9]+,[0-9]+,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3}$'
	[ "$(tail -n +2 "$T/s.csv" | grep -Evc "$re")" -eq 0 ]
	# seconds 1, 2, 3, ... in order; the first is warmup, then 3 execute
	tail -n +2 "$T/s.csv" | awk -F, '$1 != NR { exit 1 }'
	[ "$(sed -n 2p "$T/s.csv" | cut -d, -f2)" = warmup ]
	[ "$(grep -c ',execute,' "$T/s.csv")" -eq 3 ]
	local sum
	sum=$(awk -F, '$2 == "execute" { s += $4 } END { print s }' "$T/s.csv")
	[ "$sum" -eq "$(jq .results.ops "$T/r.json")" ]
	# p99 is never above the max of its second; the max never above the run's
	awk -F, 'NR > 1 && $8 > $7 { exit 1 }' "$T/s.csv"
	# the CSV and the JSON series are the same rows
	[ "$(jq -r '.series[] | [.elapsed_sec, .phase, .ops, .bytes] | @csv' "$T/r.json" | tr -d '"')" = \
	  "$(tail -n +2 "$T/s.csv" | cut -d, -f1,2,4,5)" ]
}

@test "--csv-series FILE.jsonl writes JSON Lines" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 --csv-series "$T/s.jsonl" 1
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$T/s.jsonl")" -ge 2 ]
	jq -e -s 'all(.[]; has("elapsed_sec") and has("p99_latency_ms") and (.phase | type == "string"))' "$T/s.jsonl"
	jq -e -s '[.[] | select(.phase == "execute") | .ops] | add > 0' "$T/s.jsonl"
}

@test "a paced run reports service time, schedule lag and response time apart" {
	loadfile paced.txt <<'L'
0.000 Mkdir "\clients" *
0.000 Mkdir "\clients\client1" *
0.050 NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
0.100 WriteX 1 0 65536 65536 NT_STATUS_OK
0.150 ReadX 1 0 65536 65536 NT_STATUS_OK
0.200 Close 1 NT_STATUS_OK
0.250 Unlink "\clients\client1\f" NT_STATUS_OK
L
	run_dbench -c "$T/paced.txt" -D "$T/d" --passes 2 --latency --json "$T/r.json" 2
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Service times in ms, measured window:"* ]]
	grep -Eq '^ Lag +28 +100\.00 ' <<<"$output"
	grep -Eq '^ Response +28 +100\.00 ' <<<"$output"
	# before the op table, with the other summary lines
	[[ "$output" =~ $'\n'Paced\ run:\ max_latency\ is\ service\ time\;\ schedule\ lag\ p99\ [0-9.]+\ ms,\ max\ [0-9.]+\ ms$'\n'Client\ CPU: ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
	check_schema "$T/r.json"
	jq -e '.paced and .results.latency_kind == "service"' "$T/r.json"
	jq -e '.results.schedule_lag.count == 28 and .results.response_from_schedule.count == 28' "$T/r.json"
	# response = lag + service, op by op, so its mean is the sum of theirs
	jq -e '.results as $r | ($r.response_from_schedule.avg_ms - $r.schedule_lag.avg_ms - $r.all.avg_ms) | fabs < 0.001' "$T/r.json"
	jq -e '.results.response_from_schedule.max_ms >= .results.max_latency_ms' "$T/r.json"
}

@test "-R paces too: lag and response are reported" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 -R 1 --json "$T/r.json" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"Paced run: max_latency is service time"* ]]
	jq -e '.paced and .target_rate_mb_per_sec == 1 and .results.schedule_lag.count == .results.ops' "$T/r.json"
}

@test "bad machine output paths: one line, exit 2, nothing run or made" {
	local args
	while IFS= read -r args; do
		run --separate-stderr $DBENCH -c "$T/mix.txt" -D "$T/d" -t 2 $args 1
		echo "$args -> $status: $stderr"
		[ "$status" -eq 2 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$output" != *"releasing clients"* ]]
	done <<ARGS
--json /nonexistent/dir/r.json
--json $T
--csv-series /nonexistent/s.csv
--json - --csv-series -
ARGS
	[ -z "$(ls -A "$T/d")" ]
	[ ! -e /nonexistent ]
}

@test "a machine output that cannot be written: named on stderr, exit 1" {
	[ -w /dev/full ] || skip "no /dev/full"
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 1 --json /dev/full 1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"--json /dev/full: write error"* ]]
	[[ "${lines[-1]}" =~ $FINAL ]]
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 1 --csv-series /dev/full 1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"--csv-series /dev/full: write error"* ]]
	assert_empty_target
}

@test "--csv-series -: stdout holds only the series" {
	run_dbench -c "$T/mix.txt" -D "$T/d" -t 2 --csv-series - 1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "elapsed_sec,phase,clients,ops,bytes,mb_per_sec,max_latency_ms,p99_latency_ms" ]
	[ "$(printf '%s\n' "${lines[@]:1}" | grep -Evc '^[0-9]+,(warmup|execute|cleanup),')" -eq 0 ]
	[[ "$stderr" =~ Throughput\ [0-9.e+]+\ MB/sec ]]
}

# A document read back (results_from_json) is the run's result: rendered
# again it prints the report the run printed, and written again it is the
# same document, byte for byte (histograms, sums of squares and all).
# $1: the flags of results_render; the rest: dbench's options.
same_when_read_back() {
	local flags=$1
	shift
	run_dbench -D "$T/d" --json "$T/r.json" "$@"
	[ "$status" -le 1 ]
	printf '%s\n' "$output" > "$T/run.out"
	printf '%s\n' "$stderr" | grep 'status mismatch' > "$T/run.err" || true
	"$DBENCH_BUILDDIR/tests/tools/results_render" $flags "$T/r.json" "$T/back.json" \
		> "$T/back.out" 2> "$T/back.err.all"
	grep 'status mismatch' "$T/back.err.all" > "$T/back.err" || true
	if [[ "$flags" == *--machine-readable* ]]; then
		grep -E '^(:|;)' "$T/run.out" > "$T/run.report"
		cp "$T/back.out" "$T/back.report"
	else
		sed -n '/^ Operation      Count/,$p' "$T/run.out" > "$T/run.report"
		sed -n '/^ Operation      Count/,$p' "$T/back.out" > "$T/back.report"
	fi
	[ -s "$T/run.report" ]
	diff "$T/run.report" "$T/back.report"
	diff "$T/run.err" "$T/back.err"
	cmp "$T/r.json" "$T/back.json"
}

@test "a result read back from its JSON renders the same report and the same JSON" {
	same_when_read_back "--latency --per-client" -c "$T/mix.txt" --run-once --latency \
		--per-client-results 3
	same_when_read_back "--latency" -c "$T/mix.txt" -t 2 --warmup 0 -R 2 --latency 2
	sed 's/^Unlink \(.*\) NT_STATUS_OK$/Unlink \1 NT_STATUS_ACCESS_DENIED/' "$T/mix.txt" > "$T/mm.txt"
	same_when_read_back "" -c "$T/mm.txt" --passes 2 2
	[ -s "$T/run.err" ]
	same_when_read_back "--machine-readable" -c "$T/mm.txt" --passes 2 --machine-readable \
		--allow-mismatch 2
}
