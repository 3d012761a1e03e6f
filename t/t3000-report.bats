#!/usr/bin/env bats
# t3000-report: varscope report's options, output formats and errors, on
# synthetic traces from gen-trace.

load test-lib
bats_require_minimum_version 1.5.0

GEN=$BUILD/t/helper/gen-trace

# 2 types of 4000 tasks; 4% of type 0 wait 1 ms more (sched.blocked.time)
make_trace() {
	"$GEN" -o "${1:-varscope.data}" --tasks 8000 --types 2 --events 10 \
		--cause sched.blocked.time:0 --cause-frac 0.04 --seed 5 "${@:2}"
}

@test "report prints a table per task type with every column" {
	make_trace
	run "$VARSCOPE" report
	assert_success
	assert_line --regexp '^# Task type 0: [0-9]+ tasks, latency p50 .*, p99 '
	assert_line --regexp '^# Task type 1: '
	assert_line --regexp '^# Rank +Event +Impact +Adjusted +Threshold +pThr +Tasks +High +Slow p50 +Slow p99 +Other p50 +Other p99 +Notes$'
	assert_line --regexp '^ +1  sched\.blocked\.time +[0-9.]+%'
}

@test "report --format json has the documented shape" {
	make_trace
	run python3 -c 'import json, sys
r = json.load(sys.stdin)
assert [t["type"] for t in r["task_types"]] == [0, 1]
for t in r["task_types"]:
    assert t["tasks"] > 3900 and t["ptarget"] == 0.99
    assert t["latency_ptarget_ns"] > 0
    for i, e in enumerate(t["ranking"]):
        assert e["rank"] == i + 1
        for k in ("event", "impact", "adjusted_impact", "threshold", "tasks",
                  "high_tasks", "pthreshold", "threshold_kind", "slow_p50",
                  "slow_p99", "other_p50", "other_p99", "tasks_needed"):
            assert k in e, k
        assert e["ci"] is None
    adj = [e["adjusted_impact"] for e in t["ranking"]]
    assert adj == sorted(adj, reverse=True)
print(r["task_types"][0]["ranking"][0]["event"])' < <("$VARSCOPE" report --format json)
	assert_success
	assert_output sched.blocked.time
}

@test "report --format csv: a header and one row per ranked event" {
	make_trace
	run "$VARSCOPE" report --format csv --top 4
	assert_success
	assert_line --index 0 --regexp '^type,type_name,rank,event,group,unit,impact,adjusted_impact,ci_lo,ci_hi,threshold,'
	assert_line --index 1 --regexp '^0,,1,sched\.blocked\.time,KERNEL,ns,'
	assert_equal "$(grep -c '^0,' <<<"$output")" 4
	assert_equal "$(grep -c '^1,' <<<"$output")" 4
}

@test "report --format csv: the type's name after its number" {
	make_trace t.data --type-names checkout
	run "$VARSCOPE" report -i t.data --format csv --top 1
	assert_success
	assert_line --index 1 --regexp '^0,checkout,1,sched\.blocked\.time,'
	assert_line --index 2 --regexp '^1,,1,'
}

@test "report --top and --type limit what is printed" {
	make_trace
	run "$VARSCOPE" report --type 1 --top 2
	assert_success
	refute_line --partial 'Task type 0'
	assert_line --regexp '^# Task type 1: '
	assert_line --regexp '^ +2  '
	refute_line --regexp '^ +3  '
	assert_line --regexp '^# \.\.\. 8 more events \(--top 0 shows all\)$'
	run "$VARSCOPE" report --type 1 --top 9
	assert_line '# ... 1 more event (--top 0 shows all)'
}

@test "report --ci: intervals around the impact, the same for the same seed" {
	make_trace
	a=$("$VARSCOPE" report --ci --seed 3 --format json)
	b=$("$VARSCOPE" report --ci --seed 3 --format json)
	c=$("$VARSCOPE" report --ci --seed 4 --format json)
	assert_equal "$a" "$b"
	[ "$a" != "$c" ]
	run python3 -c 'import json, sys
r = json.load(sys.stdin)
for t in r["task_types"]:
    for e in t["ranking"]:
        lo, hi = e["ci"]
        assert lo <= e["impact"] + 1e-9 and e["impact"] <= hi + 1e-9, e
top = r["task_types"][0]["ranking"][0]
print(top["ci"][0] > 0.3)' <<<"$a"
	assert_success
	assert_output True
	run "$VARSCOPE" report --ci
	assert_line --regexp '^# Rank +Event +Impact +Adjusted +CI '
	assert_line --regexp 'sched\.blocked\.time .*\[[0-9.]+%, [0-9.]+%\]'
}

@test "report --pthreshold fixes the threshold percentile" {
	make_trace
	run python3 -c 'import json, sys
r = json.load(sys.stdin)
kinds = {e["threshold_kind"] for t in r["task_types"] for e in t["ranking"]}
ps = {e["pthreshold"] for t in r["task_types"] for e in t["ranking"]}
print(sorted(kinds), sorted(ps))' < <("$VARSCOPE" report --pthreshold 0.9 --format json)
	assert_success
	assert_output "['given'] [0.9]"
}

@test "report --ptarget changes the tail that is explained" {
	make_trace
	p99=$("$VARSCOPE" report --format csv --top 1 | sed -n 2p | cut -d, -f20)
	p50=$("$VARSCOPE" report --ptarget 0.5 --format csv --top 1 | sed -n 2p | cut -d, -f20)
	[ "$p50" -lt "$p99" ]
	run "$VARSCOPE" report --ptarget 0.5
	assert_line --regexp '^# Task type 0: .*, latency p50 .*, p50 '
}

@test "report --min-tasks leaves rare events out, and says so" {
	make_trace
	run "$VARSCOPE" report --type 0 --min-tasks 5000
	assert_success
	assert_line --regexp '^# no event recorded by at least 5000 tasks$'
	assert_line --regexp '^# not ranked: sched\.blocked\.time, recorded by [0-9]+ tasks? \(--min-tasks 5000\)$'
}

@test "report warns with an estimate when too few tasks are high" {
	# ~20 of 2000 tasks wait 1 ms: they make the p99.5 tail, but are few
	"$GEN" --tasks 2000 --types 1 --events 4 --cause sched.blocked.time \
		--cause-frac 0.01 --seed 2
	run python3 -c 'import json, sys
e = json.load(sys.stdin)["task_types"][0]["ranking"][0]
assert e["event"] == "sched.blocked.time", e
# 5.3: 20 high of 2000, 30 needed: 2000 * 30 / 20 - 2000 = 1000 more
assert e["high_tasks"] == 20 and e["tasks_needed"] == 1000, e
print("ok")' < <("$VARSCOPE" report --ptarget 0.995 --format json)
	assert_output ok
	run "$VARSCOPE" report --ptarget 0.995
	assert_line --regexp 'sched\.blocked\.time .*only 20 high-value tasks: record ~1000 more tasks to trust it$'
}

@test "report --svg draws the latency CDF and each top event's CDF" {
	make_trace
	run "$VARSCOPE" report --svg plot.svg --top 3
	assert_success
	run xmllint --noout plot.svg
	assert_success
	# per type: latency + 3 events
	assert_equal "$(grep -c '<polyline' plot.svg)" 8
	grep -q '>#1 sched.blocked.time: impact 78.2%<' plot.svg
	# the panels follow the adjusted impact: shown where it differs
	grep -q '>#3 irq.hard.count: impact 0.4%, adjusted 0.0%<' plot.svg
	grep -Eq '>threshold [0-9.]+ [mun]?s \(p9[0-9.]+\)<' plot.svg
	grep -q '>p99 = ' plot.svg
}

@test "report errors: missing file, no tasks, unknown type" {
	run --separate-stderr "$VARSCOPE" report -i nothing.data
	assert_failure 1
	assert_equal "$stderr" "varscope report: cannot open 'nothing.data': No such file or directory"
	"$GEN" -o empty.data --tasks 0
	run --separate-stderr "$VARSCOPE" report -i empty.data
	assert_failure 1
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$stderr" "varscope report: empty.data: no tasks (mark them with vs_task_begin/vs_task_end or record with --task-func)"
	make_trace
	run --separate-stderr "$VARSCOPE" report --type 7
	assert_failure 1
	assert_equal "$stderr" "varscope report: varscope.data: no tasks of type 7"
}

@test "report --time: the tasks that end in the range, the cause of that time first" {
	# 3% of the tasks that start between 0.8 s and 1 s wait 500 us more
	"$GEN" -o long.data --tasks 100000 --types 1 --events 12 --seed 35 \
		--cause sched.runnable.time --cause-frac 0.03 --cause-ns 500us \
		--cause-from 0.8s --cause-to 1s
	"$VARSCOPE" script -i long.data --format json > all.json
	# ends(FROM, TO): the tasks that end in [FROM, TO) s after the start
	ends() {
		python3 -c 'import json, sys
recs = [json.loads(l) for l in open("all.json")]
t0 = recs[0]["start_ns"]
lo, hi = (t0 + float(x) * 1e9 for x in sys.argv[1:])
print(sum(r["kind"] == "task" and lo <= r["end_ns"] < hi for r in recs))' "$@"
	}
	run "$VARSCOPE" report -i long.data --time 0.8s,1s --format json
	assert_success
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"][0]
assert t["tasks"] == '"$(ends 0.8 1)"', t["tasks"]
assert t["ranking"][0]["event"] == "sched.runnable.time", t["ranking"][0]' <<<"$output"
	# as segments counts FILE@START..END
	run "$VARSCOPE" segments --format json long.data@0.8s..1s
	python3 -c 'import json, sys
s = json.load(sys.stdin)["task_types"][0]["segments"][0]
assert s["tasks"] == '"$(ends 0.8 1)"', s' <<<"$output"
	# before the cause, and an open end
	run "$VARSCOPE" report -i long.data --time ,0.6s --format json
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"][0]
assert t["tasks"] == '"$(ends 0 0.6)"', t["tasks"]
assert t["ranking"][0]["event"] != "sched.runnable.time", t["ranking"][0]' <<<"$output"
	run "$VARSCOPE" report -i long.data --time 1.5s, --format json
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"][0]
assert t["tasks"] == '"$(ends 1.5 1e9)"', t["tasks"]' <<<"$output"
}

@test "report --time: no blame, said in one line; bad ranges and empty ones" {
	"$GEN" -o w.data --tasks 3000 --types 1 --wakeups
	run --separate-stderr "$VARSCOPE" report -i w.data --time 10ms,
	assert_success
	assert_equal "$stderr" "varscope report: with --time, neither the waits blamed along wake-up edges nor who ran instead of the slow tasks: both need the whole recording"
	refute_output --partial "blocked waits woken by"
	run --separate-stderr "$VARSCOPE" report -i w.data
	assert_equal "$stderr" ""
	assert_output --partial "blocked waits woken by"
	run --separate-stderr "$VARSCOPE" report -i w.data --time 1h,2h
	assert_failure 1
	assert_equal "$stderr" "varscope report: w.data: no tasks that end in --time 1h,2h"
	for bad in 1s 2s,1s x,; do
		run --separate-stderr "$VARSCOPE" report -i w.data --time "$bad"
		assert_failure 129
		assert_equal "${#stderr_lines[@]}" 1
		[[ $stderr == "varscope report: option \`--time': "* ]]
	done
}

@test "report errors: a corrupt trace is one line naming the byte, exit 2" {
	make_trace t.data
	cp t.data magic.data
	printf 'XXXX' | dd of=magic.data bs=1 conv=notrunc 2>/dev/null
	run --separate-stderr "$VARSCOPE" report -i magic.data
	assert_failure 2
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$stderr" "varscope report: magic.data: not a varscope trace (bad magic) at byte 0"
	cp t.data flip.data
	printf '\377\377' | dd of=flip.data bs=1 seek=5000 conv=notrunc 2>/dev/null
	run --separate-stderr "$VARSCOPE" report -i flip.data
	assert_failure 2
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" '^varscope report: flip\.data: .* at byte [0-9]+$'
}

@test "report of a truncated trace ranks what is whole and warns" {
	make_trace t.data --chunk-records 1000
	head -c $(( $(stat -c %s t.data) * 2 / 3 )) t.data > cut.data
	run --separate-stderr "$VARSCOPE" report -i cut.data --format csv
	assert_success
	assert_regex "$stderr" '^varscope report: warning: cut\.data: truncated at byte [0-9]+'
	assert_line --index 1 --regexp '^0,,1,sched\.blocked\.time,'
}

@test "report rejects bad option values with one line naming the option" {
	for bad in "--ptarget 1" "--ptarget 0" "--ptarget x" "--pthreshold 1.5" \
		   "--top -1" "--min-tasks 0" "--ci-rounds 3" "--format xml" \
		   "--type x" "--type -1"; do
		run --separate-stderr "$VARSCOPE" report $bad
		assert_failure 129
		assert_equal "${#stderr_lines[@]}" 1
		assert_regex "$stderr" "^varscope report: option \`${bad%% *}'"
	done
}

@test "report prints no progress line when stderr is not a terminal" {
	make_trace
	run --separate-stderr "$VARSCOPE" report
	assert_success
	assert_equal "$stderr" ""
}

@test "report of gen-trace --wakeups blames each wait on its waker" {
	# every task blocks from a quarter to half of its time, woken by one
	# of four threads outside tasks (waker/0..3), in turn
	"$GEN" --tasks 2000 --types 1 --events 4 --wakeups
	"$VARSCOPE" report --format json > r.json
	run python3 -c 'import json
t = json.load(open("r.json"))["task_types"][0]
w = t["wait_blame"]
print(t["woken_by"]["outside_tasks"] >= 1900, w["tasks"] >= 1900,
      sorted(x["comm"] for x in w["wakers"]),
      {x["kind"] for x in w["wakers"]}, {x["depth"] for x in w["wakers"]},
      all(450 <= x["waits"] <= 550 for x in w["wakers"]))'
	assert_output "True True ['waker/0', 'waker/1', 'waker/2', 'waker/3'] {'outside_tasks'} {1} True"
}

@test "report blames the same in one pass (META wakeups) as in two" {
	local seed

	# chunks of 9 records: the parallel readers' parts (one per CPU)
	# begin inside chunks, after wait records of their first task (a
	# part that left them out changed the blame with these seeds);
	# without the META (an older recorder) the blame reads the file again
	for seed in 1 2; do
		"$GEN" -o one.data --tasks 3000 --types 3 --events 4 \
			--seed $seed --wakeups --chunk-records 9
		"$GEN" -o two.data --tasks 3000 --types 3 --events 4 \
			--seed $seed --wakeups --chunk-records 9 --no-wakeups-meta
		"$VARSCOPE" script -i one.data |
			grep -q 'key="wakeups" value="recorded"'
		! "$VARSCOPE" script -i two.data | grep -q 'key="wakeups"'
		"$VARSCOPE" report -i one.data --tree --format json > one.json
		"$VARSCOPE" report -i two.data --tree --format json > two.json
		grep -q '"wait_blame"' one.json
		cmp one.json two.json
		"$VARSCOPE" report -i one.data > one.txt
		"$VARSCOPE" report -i two.data > two.txt
		grep -q 'waits blamed along wake-up edges' one.txt
		# the first line names the file
		diff <(tail -n +2 one.txt) <(tail -n +2 two.txt)
	done
}
