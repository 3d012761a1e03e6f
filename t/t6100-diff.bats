#!/usr/bin/env bats
# t6100-diff: varscope diff on synthetic traces (gen-trace) whose causes
# differ: the event that differs is named at the top, in words and in
# JSON; slices of one trace; the Fig. 8 SVG; errors.

load test-lib
bats_require_minimum_version 1.5.0

GEN=$BUILD/t/helper/gen-trace

# A: blocked time makes 3% of type 0 slow; B: hard interrupts do.
make_pair() {
	"$GEN" -o a.data --tasks 30000 --types 2 --events 12 --seed 31 \
		--cause sched.blocked.time:0 --cause-frac 0.03 --cause-ns 1ms
	"$GEN" -o b.data --tasks 30000 --types 2 --events 12 --seed 32 \
		--cause irq.hard.time:0 --cause-frac 0.03 --cause-ns 1ms
}

@test "the first line names the event whose tail grew most" {
	make_pair
	run "$VARSCOPE" diff a.data b.data
	assert_success
	assert_line --index 0 --regexp '^In B the tail grew most with irq\.hard\.time \(type 0: impact 0\.[0-9]% -> [5-9][0-9]\.[0-9]%, its p99 [0-9.]+ us -> 1\.0[0-9] ms\)'
	# and the other way round, it shrank
	run "$VARSCOPE" diff b.data a.data
	assert_line --index 0 --regexp '^In B the tail grew most with sched\.blocked\.time \(type 0: .*\); shrank most with irq\.hard\.time \(type 0: [^;]*\)$'
}

@test "JSON: the shape of the issue, sorted by |delta|, the differing events on top" {
	make_pair
	"$VARSCOPE" diff a.data b.data --format json --top 0 > d.json
	run python3 -c 'import json
d = json.load(open("d.json"))
types = d["task_types"]
assert [t["type"] for t in types] == [0, 1]
for t in types:
    assert t["a"]["latency_ptarget_ns"] > 0 and t["b"]["latency_ptarget_ns"] > 0
    ev = t["events"]
    for e in ev:
        for k in ("event", "impact_a", "impact_b", "delta", "p50_a", "p99_a", "p50_b", "p99_b"):
            assert k in e, k
        assert abs(e["delta"] - (e["impact_b"] - e["impact_a"])) < 1e-9
    d = [abs(e["delta"]) for e in ev]
    assert d == sorted(d, reverse=True)
ev = types[0]["events"]
print(ev[0]["event"], ev[0]["delta"] > 0.5, ev[1]["event"], ev[1]["delta"] < -0.5)
print(ev[0]["p99_b"] > 10 * ev[0]["p99_a"], ev[1]["p99_a"] > 10 * ev[1]["p99_b"])
# type 1 had no cause in either: nothing changes much
print(max(abs(e["delta"]) for e in types[1]["events"]) < 0.1)'
	assert_output $'irq.hard.time True sched.blocked.time True\nTrue True\nTrue'
}

@test "the text shows both rankings side by side and the changes" {
	make_pair
	run "$VARSCOPE" diff a.data b.data --top 3 --type 0
	assert_success
	assert_line '# varscope diff: A = a.data, B = b.data'
	assert_line --regexp '^# Rank +A: event +Impact +B: event +Impact$'
	assert_line --regexp '^ +1 +sched\.blocked\.time +[5-9][0-9]\.[0-9]% +irq\.hard\.time +[5-9][0-9]\.[0-9]%$'
	assert_line --regexp '^# Event +Impact A +Impact B +Change +p50 A +p50 B +p99 A +p99 B +Note$'
	assert_line --regexp '^irq\.hard\.time +0\.[0-9]% +[5-9][0-9]\.[0-9]% +\+[5-9][0-9]\.[0-9]% '
	refute_line --partial 'Task type 1'
	# --top 3: three rows in each table
	[ "$(grep -c '^ *[0-9] ' <<< "$output")" = 3 ]
}

@test "burstiness: a tail that grows while the median does not is flagged" {
	# B: 2% of the tasks get 1 ms of interrupts; their median is unmoved
	"$GEN" -o a.data --tasks 20000 --types 1 --events 8 --seed 33
	"$GEN" -o b.data --tasks 20000 --types 1 --events 8 --seed 34 \
		--cause irq.hard.time --cause-frac 0.02 --cause-ns 1ms
	run python3 -c 'import json, sys
e = json.load(sys.stdin)["task_types"][0]["events"][0]
print(e["event"], e["burstier"], e["p50_b"] <= e["p50_a"] * 1.05)' < <("$VARSCOPE" diff a.data b.data --format json)
	assert_output 'irq.hard.time True True'
}

@test "slices of one trace: the slice with the cause against a quiet one" {
	"$GEN" -o long.data --tasks 100000 --types 1 --events 12 --seed 35 \
		--cause sched.runnable.time --cause-frac 0.03 --cause-ns 500us \
		--cause-from 0.8s --cause-to 1s
	run "$VARSCOPE" diff --length 200ms long.data:2 long.data:5
	assert_success
	assert_line --index 0 --regexp '^In B the tail grew most with sched\.runnable\.time '
	run "$VARSCOPE" diff 'long.data@0.2s..0.4s' 'long.data@0.8s..1s' --format json
	assert_success
	assert_output --partial '"a":"long.data@0.2s..0.4s","b":"long.data@0.8s..1s"'
}

@test "--svg draws the segments sorted by p99 with the top event (Fig. 8)" {
	"$GEN" -o long.data --tasks 100000 --types 1 --events 12 --seed 35 \
		--cause sched.runnable.time --cause-frac 0.03 --cause-ns 500us \
		--cause-from 0.8s --cause-to 1s
	run "$VARSCOPE" diff --length 200ms long.data:2 long.data:5 --svg fig.svg
	assert_success
	grep -q '<svg' fig.svg
	grep -q 'segments sorted by p99 latency' fig.svg
	grep -q 'sched.runnable.time (the top change' fig.svg
	# two panels (latency, event), each with p50 and p99 curves
	[ "$(grep -c '<polyline' fig.svg)" -ge 4 ]
	rsvg-convert -o fig.png fig.svg
	[ -s fig.png ]
}

@test "--svg reads each trace once, with A and B, for 12 slices or 225" {
	"$GEN" -o long.data --tasks 100000 --types 2 --events 12 --seed 35 \
		--cause sched.runnable.time --cause-frac 0.03 --cause-ns 500us \
		--cause-from 0.8s --cause-to 1s
	local alone few many size
	# the diff alone: A's and B's span (chunk index), one read of A..B
	alone=$(opens_of long.data diff --length 10ms long.data:20 long.data:90)
	few=$(opens_of long.data diff --length 200ms long.data:2 long.data:5 \
		--svg few.svg)
	many=$(opens_of long.data diff --length 10ms long.data:20 long.data:90 \
		--svg many.svg)
	grep -q "Task type 1: 225 segments sorted" many.svg
	[ "$few" = "$alone" ]
	[ "$many" = "$alone" ]
	# one read of the file: a second one for the slices would near 2x
	size=$(stat -c %s long.data)
	[ "$(io_bytes io.log long.data)" -lt $((size * 3 / 2)) ]

	# A and B of two files: each file read once
	make_pair
	alone=$(opens_of a.data diff --length 50ms a.data b.data)
	rm -f io.log.*
	$STRACE_IO io.log "$VARSCOPE" diff --length 50ms a.data b.data \
		--svg two.svg > /dev/null
	[ "$(io_opens io.log a.data)" = "$alone" ]
	[ "$(io_opens io.log b.data)" = "$alone" ]
	[ "$(io_bytes io.log a.data)" -lt $(($(stat -c %s a.data) * 3 / 2)) ]
	[ "$(io_bytes io.log b.data)" -lt $(($(stat -c %s b.data) * 3 / 2)) ]
	[ "$(grep -c 'segments sorted by p99' two.svg)" = 2 ]
}

@test "errors: one line naming the problem" {
	make_pair
	run --separate-stderr "$VARSCOPE" diff a.data
	assert_failure 129
	[ "${stderr%%$'\n'*}" = 'varscope diff: needs two segments, SEG1 and SEG2 (1 given)' ]
	run --separate-stderr "$VARSCOPE" diff a.data:0 b.data --length 1s
	assert_failure
	[ "$stderr" = "varscope diff: 'a.data:0': slices are numbered from 1" ]
	run --separate-stderr "$VARSCOPE" diff 'a.data@20s..10s' b.data
	assert_failure
	[ "$stderr" = "varscope diff: 'a.data@20s..10s': the range ends before its start" ]
	run --separate-stderr "$VARSCOPE" diff a.data missing.data
	assert_failure
	[ "$stderr" = "varscope diff: cannot open 'missing.data': No such file or directory" ]
	run --separate-stderr "$VARSCOPE" diff a.data b.data --ptarget 2
	assert_failure 129
	run --separate-stderr "$VARSCOPE" diff a.data b.data --format csv
	assert_failure 129
	run --separate-stderr "$VARSCOPE" diff a.data b.data --type 9
	assert_failure
	[ "$stderr" = "varscope diff: no task type 9 in both segments" ]
}
