#!/usr/bin/env bats
# t2620-record-wakeup: wake-up edges (VS_REC_WAKEUP) into the recorded
# threads, from sched:sched_waking opened per CPU on the command: exact
# on a program that makes a known number of wake-ups, and the worker's
# wake-up of the front thread in examples/crossthread.

load test-lib

# wakeups.py EXPR: EXPR over the trace's wake-up records W and tasks T
wakeups() {
	python3 - "$1" <<-'PY'
	import json, sys
	recs = [json.loads(l) for l in open("t.json")]
	W = [r for r in recs if r["kind"] == "wakeup"]
	T = [r for r in recs if r["kind"] == "task"]
	ok = eval(sys.argv[1])
	if not ok:
	    print("failed:", sys.argv[1])
	    print(json.dumps({"W": W[:6], "T": len(T)}, indent=1))
	sys.exit(0 if ok else 1)
	PY
}

@test "every wake-up of a recorded thread is an edge, exactly" {
	require_example wakeping
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 300
	assert_success
	# ground truth: the program wrote only when the reader slept in read
	read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
	assert_equal "$n" 300
	"$VARSCOPE" script -i t.data --format json > t.json
	wakeups "len([w for w in W if w['wakee_tid'] == $wakee]) == 300"
	wakeups "all(w['waker_tid'] == $waker for w in W if w['wakee_tid'] == $wakee)"
	# each ends a wait inside one of the reader's requests
	wakeups "all(any(t['start_ns'] <= w['time_ns'] <= t['end_ns'] for t in T if t['tid'] == $wakee) for w in W)"
}

@test "--lock: the front thread's waits are woken by the worker" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 60 --work-us 300 --lock --hold-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	# the worker is the thread of the attached intervals (type 0), the
	# front thread that of the requests (type 1)
	wakeups 'len({t["tid"] for t in T if t["type"] == 0}) == 1'
	wakeups 'sum(1 for w in W if w["waker_tid"] in {t["tid"] for t in T if t["type"] == 0} and w["wakee_tid"] in {t["tid"] for t in T if t["type"] == 1}) >= 60'
	# nearly every request's wait is ended by another thread, inside it
	wakeups 'sum(1 for r in T if r["type"] == 1 and any(w["wakee_tid"] == r["tid"] and r["start_ns"] <= w["time_ns"] <= r["end_ns"] and w["waker_tid"] != r["tid"] for w in W)) >= 55'
}

@test "report: who woke the requests' blocked waits" {
	require_example crossthread
	require_example wakeping
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 60 --work-us 300 --lock --hold-us 2000
	assert_success
	"$VARSCOPE" report -i t.data --format json > r.json
	# the worker, attached to the request, ends the front thread's wait
	python3 -c 'import json; w = json.load(open("r.json"))["task_types"][0]["woken_by"]; assert w["same_task"] >= 60, w'
	run "$VARSCOPE" report -i t.data
	assert_line --regexp '^# blocked waits woken by: the same task.s threads [0-9]+, '
	# wakeping's writer is in no task: all 300 edges are "outside tasks"
	"$VARSCOPE" record -o p.data -- "$EXAMPLES/wakeping" -n 300 > /dev/null
	"$VARSCOPE" report -i p.data --format json > p.json
	python3 -c 'import json; w = json.load(open("p.json"))["task_types"][0]["woken_by"]; assert w == {"same_task": 0, "other_task": 0, "outside_tasks": 300, "interrupt": 0}, w'
}
