#!/usr/bin/env bats
# t3400-report-many-types: report, segments and diff on traces of tens of
# thousands of task types (a server that types each request by its URL or
# query): every type is there with its own tasks, and the memory grows with
# the tasks, not with the types times a fixed cost per type.

load test-lib

GEN=$BUILD/t/helper/gen-trace

# The tasks of each type as the records say (varscope script), as
# "type tasks p50 p99" lines with report's nearest-rank percentiles.
truth() {
	"$VARSCOPE" script -i "$1" --format json | python3 -c '
import json, math, sys
by = {}
for line in sys.stdin:
    r = json.loads(line)
    if r["kind"] == "task":
        by.setdefault(r["type"], []).append(r["latency_ns"])
def pct(v, p):
    return v[max(1, min(len(v), math.ceil(p * len(v) - 1e-9))) - 1]
for t in sorted(by):
    v = sorted(by[t])
    print(t, len(v), pct(v, 0.5), pct(v, 0.99))'
}

@test "report: each of 3000 types with its own tasks and latencies" {
	"$GEN" -o t.data --tasks 6000 --types 3000 --events 12 --seed 7
	truth t.data > want
	[ "$(wc -l < want)" -gt 2500 ]
	"$VARSCOPE" report -i t.data --format json > r.json
	python3 -c '
import json
for t in json.load(open("r.json"))["task_types"]:
    assert t["ranking"] == [], t["type"]	# under --min-tasks
    print(t["type"], t["tasks"], t["latency_p50_ns"], t["latency_ptarget_ns"])' > got
	diff want got
	# the text says why nothing is ranked, for every type
	"$VARSCOPE" report -i t.data > r.txt
	[ "$(grep -c '^# Task type ' r.txt)" = "$(wc -l < want)" ]
	[ "$(grep -c '^# no event recorded by at least 100 tasks' r.txt)" = "$(wc -l < want)" ]
}

@test "report: the cause of one type among 40 is ranked first there" {
	"$GEN" -o t.data --tasks 40000 --types 40 --events 12 --seed 3 \
		--cause sched.blocked.time:17 --cause-frac 0.05 --cause-ns 20ms
	run "$VARSCOPE" report -i t.data --format csv --top 1
	assert_success
	assert_line --regexp '^17,,1,sched\.blocked\.time,'
	[ "$(grep -c '^[0-9]*,,1,' <<< "$output")" = 40 ]
}

@test "segments and diff list every one of 3000 types" {
	"$GEN" -o t.data --tasks 6000 --types 3000 --events 12 --seed 7
	truth t.data > want
	"$VARSCOPE" segments -i t.data --min-tasks 1 --format csv > s.csv
	[ "$(grep -c ',t.data,' s.csv)" = "$(wc -l < want)" ]
	"$VARSCOPE" diff --format json --min-tasks 1 t.data t.data > d.json
	run python3 -c '
import json
print(len(json.load(open("d.json"))["task_types"]))'
	assert_output "$(wc -l < want)"
}

# peak_kb TRACE: report's peak resident size on TRACE, in KB (ASan's
# quarantine, which keeps freed memory, off)
peak_kb() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
	/usr/bin/time -f %M -o peak "$VARSCOPE" report -i "$1" > out
	tail -1 peak
}

@test "report of 40000 tasks of 25000 types peaks under 15 times one type's" {
	# before the fix, 25000 types took 30 times the peak of one type with
	# the same tasks (320 MB against 10.5): 4 KB of latency CDF and 250
	# bytes per event and type in the rankings, all kept to the end, and
	# columns that started at 1024 tasks.  Now 8 times (85 MB), and 6.4
	# under ASan (148 MB against 23).
	"$GEN" -o one.data --tasks 40000 --types 1 --events 12 --seed 3
	one=$(peak_kb one.data)
	"$GEN" -o t.data --tasks 40000 --types 40000 --events 12 --seed 3
	many=$(peak_kb t.data)
	[ "$(grep -c '^# Task type ' out)" -gt 20000 ]
	echo "peak ${one} KB for one type, ${many} KB for many"
	[ "$many" -lt $((15 * one)) ]
}
