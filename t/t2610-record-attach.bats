#!/usr/bin/env bats
# t2610-record-attach: vs_task_attach()/vs_task_detach() on real
# recordings of examples/crossthread: the worker's time for a request is
# recorded between VS_REC_ATTACH records naming the request, with its own
# kernel events (run time, lock waits), and odd call orders are said.

load test-lib

# attached.py EXPR: EXPR over the trace's JSON lines (t.json): tasks T by
# id, attached intervals A (task records of type 0 with their attach
# record's task_id as "for"), attach records R
attached() {
	PYTHONPATH=$SRC/t/helper python3 - "$1" <<-'PY'
	import json, sys
	from latency_parts import parts
	recs = [json.loads(l) for l in open("t.json")]
	R = [r for r in recs if r["kind"] == "attach"]
	T = {r["id"]: r for r in recs if r["kind"] == "task" and r["type"] != 0}
	start = {(r["tid"], r["time_ns"]): r["task_id"] for r in R if r["what"] == 0}
	A = []
	for r in recs:
	    if r["kind"] == "task" and r["type"] == 0:
	        r["for"] = start.get((r["tid"], r["start_ns"]))
	        A.append(r)
	ok = eval(sys.argv[1])
	if not ok:
	    print("failed:", sys.argv[1])
	    print(json.dumps({"T": len(T), "A": A[:3], "R": R[:6]}, indent=1))
	sys.exit(0 if ok else 1)
	PY
}

@test "the worker's time for a request is attached to it" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 50 --work-us 300
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	attached 'len(T) == 50 and len(A) == 50'
	# every interval serves a request of the trace, once, within it
	attached 'sorted(a["for"] for a in A) == sorted(T)'
	attached 'all(T[a["for"]]["start_ns"] <= a["start_ns"] <= a["end_ns"] <= T[a["for"]]["end_ns"] for a in A)'
	attached 'all(a["flags"] & ~1024 == 256 and a["tid"] != T[a["for"]]["tid"] for a in A)'
	# one attach and one detach per request
	attached 'sorted((r["what"], r["task_id"]) for r in R) == sorted([(0, i) for i in T] + [(1, i) for i in T])'
	# the worker's run time is the 300 us of handle() (the front thread's
	# task is blocked meanwhile: the worker's time is not its own)
	# (handle() spins on the clock: at least 300 us each, on the CPU or
	# waiting for it when the loaded VM preempts the worker, never asleep;
	# a page fault may wait uninterruptibly for a page, as one of the
	# first intervals did under ASan: iowait, the kernel's, not a sleep)
	attached 'all(a["latency_ns"] >= 300000 for a in A)'
	attached 'all(parts(a["values"], leave_out=("sched.blocked.time",)) >= 0.95 * a["latency_ns"] for a in A)'
	attached 'sum(a["values"]["run.time"] for a in A) >= 50 * 150000'
	# nothing blocks handle() without --lock (the next test's contrast)
	attached 'sum(a["values"]["sched.blocked.time"] for a in A) < 1000000'
	attached 'sum(T[i]["values"]["run.time"] for i in T) < sum(a["values"]["run.time"] for a in A)'
}

@test "--lock: the worker's lock waits are in its attached intervals" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 150 --work-us 300 --lock --hold-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	attached 'len(A) == 150'
	# every third request, the holder has the lock before the worker's
	# handle() and keeps it 2 ms once the worker sleeps on it: those 50
	# intervals, and no other, have a blocked wait of 2 ms at least
	attached 'sum(a["values"]["sched.blocked.time"] >= 2000000 for a in A) == 50'
	attached 'all(a["values"]["sched.blocked.count"] >= 1 for a in A if a["values"]["sched.blocked.time"] >= 2000000)'
}

@test "--corunner: the worker's run-queue waits are in its attached intervals" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 30 --work-us 5000 --corunner
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	attached 'len(A) == 30'
	# a busy thread shares CPU 0 with the worker: 5 ms of handle() is
	# longer than a scheduler slice, so most intervals wait for the CPU
	attached 'sum(a["values"]["sched.runnable.time"] > 100000 for a in A) >= 10'
}

@test "odd call orders do not crash and are said in the trace" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 3 --odd
	assert_success
	# detach without attach: an unmatched end
	assert_line "varscope record: 1 vs_task_end() without begin ignored"
	"$VARSCOPE" script -i t.data --format json > t.json
	# attach to an id no task has: recorded, the id is not a task's
	attached 'any(a["for"] == 12345 and 12345 not in T for a in A)'
	# a thread that exits attached: its interval ends with the thread,
	# flagged THREAD_EXIT, and no detach follows its attach
	id=$(sed -n 's/^odd: exited attached to //p' <<<"$output")
	attached "[a['flags'] for a in A if a['for'] == $id] == [4]"
	attached "[r['what'] for r in R if r['task_id'] == $id] == [0]"
	attached 'len(T) == 4'
}
