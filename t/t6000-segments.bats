#!/usr/bin/env bats
# t6000-segments: varscope segments cuts synthetic traces (gen-trace) into
# segments and finds the slice where a cause was injected as the max
# segment; segment names, formats and errors.

load test-lib
bats_require_minimum_version 1.5.0

GEN=$BUILD/t/helper/gen-trace

# Tasks start ~15 us apart (gen-trace: latency / 4 + 1 us), so 100000
# tasks of one type last ~1.8 s; irq.hard.time is raised by 400 us in 3%
# of the tasks that start in [1.0 s, 1.2 s): slice 6 of 200 ms.
make_trace() {
	"$GEN" -o long.data --tasks 100000 --types 2 --events 12 --seed 21 \
		--cause irq.hard.time:0 --cause-frac 0.03 --cause-ns 400us \
		--cause-from 1s --cause-to 1.2s
}

# "segment p99_ns" of the max, median or min segment ($2) of type $1.
pick() {
	python3 -c 'import json, sys
t = [t for t in json.load(sys.stdin)["task_types"] if t["type"] == int(sys.argv[1])][0]
p = t[sys.argv[2]]
print(p["segment"], p["p99_ns"])' "$1" "$2"
}

@test "the slice with the injected cause is the max segment, only for its type" {
	make_trace
	"$VARSCOPE" segments --length 200ms long.data --format json > s.json
	run pick 0 max < s.json
	assert_output --regexp '^long\.data:6 '
	# the other type had no cause: its max is elsewhere or barely higher
	run python3 -c 'import json, sys
t = [t for t in json.load(sys.stdin)["task_types"] if t["type"] == 1][0]
print(t["p99_cov"] < 0.1, t["max"]["segment"] != "long.data:6" or t["p99_cov"] < 0.1)' < s.json
	assert_output "True True"
}

@test "the text table marks max, median and min and gives the p99 across segments" {
	make_trace
	run "$VARSCOPE" segments --length 200ms long.data --type 0
	assert_success
	assert_line --regexp '^# Task type 0: [0-9]+ of [0-9]+ segments with at least 100 tasks$'
	assert_line --regexp '^# Segment +From +To +Tasks +p50 +p99 +CoV$'
	assert_line --regexp '^long\.data:6 +1\.00 s +1\.20 s +[0-9]+ .* max$'
	assert_line --regexp '^# p99 across segments: max .* \(long\.data:6\), median .*, min .*, CoV [0-9.]+%$'
	[ "$(grep -c ' median$' <<< "$output")" = 1 ]
	[ "$(grep -c ' min$' <<< "$output")" = 1 ]
	refute_line --partial 'Task type 1'
}

@test "slices hold every task once: their counts add up to the file's" {
	make_trace
	"$VARSCOPE" segments --length 300ms long.data --format json > s.json
	"$VARSCOPE" segments long.data --format json > whole.json
	run python3 -c 'import json
s = json.load(open("s.json")); w = json.load(open("whole.json"))
for a, b in zip(s["task_types"], w["task_types"]):
    print(sum(x["tasks"] for x in a["segments"]) == b["segments"][0]["tasks"])' 
	assert_output $'True\nTrue'
}

@test "named segments: FILE:N, FILE@START..END and several files" {
	make_trace
	cp long.data other.data
	run "$VARSCOPE" segments --length 200ms --format csv long.data:6 \
		'long.data@1s..1.2s' 'long.data@..200ms' 'long.data@1.6s..' \
		-i other.data --type 0
	assert_success
	assert_line --index 0 'type,type_name,segment,file,from_ns,to_ns,tasks,p50_ns,p99_ns,mean_ns,cov,counted,mark'
	# the -i file is cut into its slices, then the named segments follow
	assert_line --regexp '^0,,other\.data:1,other\.data,0,200000000,'
	assert_line --regexp '^0,,long\.data:6,long\.data,1000000000,1200000000,'
	assert_line --regexp '^0,,long\.data@\.\.200ms,long\.data,0,200000000,'
	assert_line --regexp '^0,,long\.data@1\.6s\.\.,long\.data,1600000000,,'
	# the slice and the range of the same time are the same tasks
	local a b
	a=$(grep '^0,,long.data:6,' <<< "$output" | cut -d, -f7-9)
	b=$(grep '^0,,long.data@1s..1.2s,' <<< "$output" | cut -d, -f7-9)
	[ -n "$a" ]
	[ "$a" = "$b" ]
}

@test "CSV names the type after its number" {
	"$GEN" -o n.data --tasks 2000 --types 2 --events 2 \
		--type-names 'checkout' >/dev/null
	run "$VARSCOPE" segments --length 10s --format csv n.data
	assert_success
	assert_line --index 1 --regexp '^0,checkout,n\.data:1,n\.data,'
	assert_line --index 2 --regexp '^1,,n\.data:1,n\.data,'
}

@test "JSON lists the segments with their ranges" {
	make_trace
	run python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["length_ns"] == 500000000
s = d["segments"]
assert [x["segment"] for x in s] == ["long.data:%d" % i for i in range(1, len(s) + 1)]
assert s[1]["from_ns"] == 500000000 and s[1]["to_ns"] == 1000000000
t = d["task_types"][0]
assert set(t) >= {"type", "segments", "max", "median", "min", "p99_cov", "counted"}
x = t["segments"][0]
assert set(x) >= {"segment", "tasks", "p50_ns", "p99_ns", "cov", "counted"}
assert x["p50_ns"] <= x["p99_ns"]
print("ok")' < <("$VARSCOPE" segments --length 0.5s long.data --format json)
	assert_output ok
}

@test "segments with too few tasks are shown but not counted" {
	make_trace
	run "$VARSCOPE" segments --length 200ms --min-tasks 5000 long.data --type 0
	assert_success
	# the last slice holds what is left after 1.8 s: a few tasks
	assert_line --regexp '^long\.data:[0-9]+ .*\(too few tasks\)$'
}

@test "bad segment names fail with one line naming the problem" {
	make_trace
	run --separate-stderr "$VARSCOPE" segments long.data:0 --length 1s
	assert_failure
	[ "$stderr" = "varscope segments: 'long.data:0': slices are numbered from 1" ]
	run --separate-stderr "$VARSCOPE" segments 'long.data@20s..10s'
	assert_failure
	[ "$stderr" = "varscope segments: 'long.data@20s..10s': the range ends before its start" ]
	run --separate-stderr "$VARSCOPE" segments missing.data
	assert_failure
	[ "$stderr" = "varscope segments: cannot open 'missing.data': No such file or directory" ]
	run --separate-stderr "$VARSCOPE" segments long.data:3
	assert_failure
	[ "$stderr" = "varscope segments: 'long.data:3': a slice number needs --length" ]
	run --separate-stderr "$VARSCOPE" segments long.data:99 --length 1s
	assert_failure
	assert_regex "$stderr" "^varscope segments: 'long\.data:99': long\.data has [0-9]+ slices of that length\$"
	run --separate-stderr "$VARSCOPE" segments 'long.data@9s..'
	assert_failure
	assert_equal "$(wc -l <<< "$stderr")" 1
	assert_equal "${stderr%%:*}" "varscope segments"
	run --separate-stderr "$VARSCOPE" segments --format xml long.data
	assert_failure 129
	run --separate-stderr "$VARSCOPE" segments --length 1s --type 7 long.data
	assert_failure
	[ "$stderr" = "varscope segments: no tasks of type 7 in the segments" ]
}

@test "many slices read the trace as often as one: once for all of them" {
	make_trace
	local one many
	one=$(opens_of long.data segments --length 2s long.data)
	many=$(opens_of long.data segments --length 10ms long.data)
	# the span of the recording, then its tasks: 2 opens whatever the slices
	[ "$one" -le 2 ]
	[ "$many" = "$one" ]
	# one type, latencies alone: the same
	many=$(opens_of long.data segments --length 10ms --type 0 long.data)
	[ "$many" = "$one" ]
}

@test "slices read together hold what each holds read alone" {
	make_trace
	"$VARSCOPE" segments --length 10ms long.data --format csv > all.csv
	[ "$(grep -c '^0,,long\.data:' all.csv)" -ge 180 ]
	# each alone: a read of its own time range; type to cov must match
	local n
	for n in 1 2 37 99 100 101 150 170; do
		"$VARSCOPE" segments --length 10ms long.data:$n --format csv \
			--min-tasks 1 | sed 1d | cut -d, -f1-11 > alone.csv
		[ "$(wc -l < alone.csv)" = 2 ]
		grep "^[01],,long\.data:$n," all.csv | cut -d, -f1-11 |
			diff - alone.csv
	done
}

@test "a --length too short for the recording: one line, at once" {
	make_trace
	# ~1.8 s in slices of 1 ns would be 1.8e9 task sets and rows
	run --separate-stderr timeout 20 "$VARSCOPE" segments --length 1ns long.data
	assert_failure 1
	assert_regex "$stderr" "^varscope segments: long\.data: --length cuts it into [0-9]{10} slices, more than 10000: choose a longer one\$"
}

@test "a corrupt trace: one line and exit status 2" {
	make_trace
	cp long.data bad.data
	printf 'XXXX' | dd of=bad.data bs=1 seek=0 conv=notrunc 2>/dev/null
	run --separate-stderr "$VARSCOPE" segments bad.data
	assert_failure 2
	assert_equal "$(wc -l <<< "$stderr")" 1
}
