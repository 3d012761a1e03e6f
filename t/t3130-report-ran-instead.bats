#!/usr/bin/env bats
# t3130-report-ran-instead: who ran while the slow tasks waited in the run
# queue.  A program's tasks spin on CPU 0 beside a real-time co-runner on
# the same CPU (t/t3130/corun.c): report names that co-runner first, in
# text under the ranking and in JSON on sched.runnable.time, with the
# sums of the trace's own ran_instead records over the slow tasks.
# varscope-test: exclusive

load test-lib
load record-lib

@test "report: a real-time co-runner is named first in ran_instead" {
	record_corun t.data
	hog=$HOG
	"$VARSCOPE" script -i t.data --format json > t.json
	run "$VARSCOPE" report -i t.data --min-tasks 10 --format json
	assert_success
	python3 -c 'import json, struct, sys
t = json.load(sys.stdin)["task_types"][0]
e = [e for e in t["ranking"] if e["event"] == "sched.runnable.time"][0]
r = e["ran_instead"]
assert r and r[0]["comm"] == "hogger" and r[0]["tid"] == '"$hog"', r
assert r[0]["pid"] == '"$hog"' and r[0]["tasks"] >= 1, r
named = [x["time_ns"] for x in r if x["tid"]]
assert named == sorted(named, reverse=True), r
assert all(x["tid"] for x in r[:len(named)]), r   # the others last
# the sums over the tasks above the threshold, as the records of the
# trace say (script prints them on each task); values as the task
# set keeps them, in floats
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
thr = e["threshold"]
want = {}
for l in open("t.json"):
    x = json.loads(l)
    if x["kind"] != "task" or x["type"] != t["type"] or \
       f32(x["values"].get("sched.runnable.time", 0)) <= thr:
        continue
    for w in x.get("ran_instead", []):
        k = (w["pid"], w["tid"], w["comm"])
        n, s = want.get(k, (0, 0))
        want[k] = (n + 1, s + w["time_ns"])
got = {(x["pid"], x["tid"], x["comm"]): (x["tasks"], x["time_ns"]) for x in r}
assert got == want, (got, want)' <<<"$output"
	run "$VARSCOPE" report -i t.data --min-tasks 10
	assert_line --regexp "^# run-queue waits of the slow tasks: [0-9.]+ [mu]?s; hogger/$hog [0-9.]+ [mu]?s"
}
