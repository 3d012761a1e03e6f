#!/usr/bin/env bats
# t3610-report-attached: the analyses add vs_task_attach() intervals to
# the request they serve: examples/crossthread's worker time shows in the
# front thread's requests (run.time, attached.run.time), and no task type
# 0 of intervals appears in report, segments or diff.

load test-lib
load record-lib

# json.py FILE EXPR: EXPR over the JSON document d in FILE
json() {
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	ok = eval(sys.argv[2])
	if not ok:
	    print("failed:", sys.argv[2])
	    print(json.dumps(d, indent=1)[:3000])
	sys.exit(0 if ok else 1)
	PY
}

# tree_holds_cpu N: the variance tree of t.data's N requests (report
# --tree into r.json) holds their CPU time: the sampled time of a request
# (root minus self) is the requests' mean task-clock, the front thread's
# own and the worker's in the attached intervals, within 15%; that CPU
# time is in $cpu
tree_holds_cpu() {
	"$VARSCOPE" report -i t.data --tree --format json --min-tasks 10 > r.json
	"$VARSCOPE" script -i t.data --format json > t.json
	cpu=$(python3 -c '
import json, sys
T = [json.loads(l) for l in open("t.json")]
print(sum(r["values"]["task-clock"] for r in T if r["kind"] == "task") /
      int(sys.argv[1]))' "$1")
	json r.json "(lambda n: abs((n['mean_ns'] - n['self_mean_ns']) - $cpu) <= 0.15 * $cpu)(d['task_types'][0]['variance_tree']['nodes'][0])"
}

@test "report: the worker's time counts for the request it serves" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 120 --work-us 300
	assert_success
	"$VARSCOPE" report -i t.data --format json --min-tasks 50 > r.json
	# one type: the requests; the intervals are not a type of their own
	json r.json '[t["type"] for t in d["task_types"]] == [1]'
	json r.json 'd["task_types"][0]["tasks"] == 120'
	# the attached part of each event is there, as the child of its event
	json r.json 'any(e["event"] == "attached.run.time" and e["parent"] == "run.time" for e in d["task_types"][0]["removed"]) or any(e["event"] == "attached.run.time" for e in d["task_types"][0]["ranking"])'
	# run.time and task-clock hold the worker's 300 us of handle() per
	# request: the front thread alone runs for microseconds (one of the
	# two may be set apart as the other's linear function)
	json r.json '[e["other_p50"] > 250000 for e in d["task_types"][0]["ranking"] if e["event"] in ("run.time", "task-clock")] in ([True], [True, True])'
	"$VARSCOPE" script -i t.data --format json > t.json
	python3 - <<-'PY'
	import json
	recs = [json.loads(l) for l in open("t.json")]
	own = sorted(r["values"]["run.time"] for r in recs
		     if r["kind"] == "task" and r["type"] == 1)
	assert own[len(own) // 2] < 100000, own[len(own) // 2]
	PY
}

@test "segments and diff: no task type 0 of attached intervals" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 120 --work-us 300
	assert_success
	"$VARSCOPE" segments -i t.data --format json --min-tasks 50 > s.json
	json s.json '[t["type"] for t in d["task_types"]] == [1]'
	"$VARSCOPE" diff t.data t.data --format json > d.json
	json d.json '[t["type"] for t in d["task_types"]] == [1]'
}

@test "report --tree: the worker's samples count for the request it serves" {
	require_example crossthread
	run "$VARSCOPE" record --sample -o t.data -- "$EXAMPLES/crossthread" -n 60 --work-us 2000
	assert_success
	# the front thread alone runs for microseconds, the worker for ~2 ms
	tree_holds_cpu 60
	json r.json "$cpu > 0.25 * 2000e3"
	# the worker's functions are in the requests' tree: handle() spins on
	# clock_gettime(), where most samples fall, and the frame-pointer
	# walk from there (the vDSO, and under ASan libasan's interceptor)
	# does not always reach handle()
	json r.json "any(n['function'] in ('worker', 'handle', 'spin_ns', 'clock_gettime') for n in d['task_types'][0]['variance_tree']['nodes'])"
}

@test "report --tree: a worker's time in system calls counts for the request" {
	require_cmd "$VS_CC"
	# each request's worker thread, attached to it, reads /dev/zero in
	# handle() 1 MiB at a time for 2 ms: nearly every sample is deep in
	# the kernel, under handle() (or the libc read it calls).  The
	# frames every request goes through end above the kernel's, which
	# the tree folds into the system call's entry: no sample may fall
	# out of the tree
	cat > served.c <<-'EOF2'
	#include <fcntl.h>
	#include <pthread.h>
	#include <stdint.h>
	#include <time.h>
	#include <unistd.h>
	#include "varscope.h"
	static int zero_fd;
	static uint64_t now_ns(void)
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_sec * 1000000000ull + ts.tv_nsec;
	}
	__attribute__((noinline)) void handle(void)
	{
		static char buf[1 << 20];
		uint64_t end = now_ns() + 2000000;

		while (now_ns() < end)
			if (read(zero_fd, buf, sizeof(buf)) < 0)
				break;
	}
	static void *worker(void *request)
	{
		vs_task_attach(*(uint64_t *)request);
		handle();
		vs_task_detach();
		return NULL;
	}
	int main(void)
	{
		zero_fd = open("/dev/zero", O_RDONLY);
		for (int i = 0; i < 60; i++) {
			uint64_t id;
			pthread_t t;

			vs_task_begin(1);
			id = vs_task_id();
			if (!pthread_create(&t, NULL, worker, &id))
				pthread_join(t, NULL);
			vs_task_end(1);
		}
		return 0;
	}
	EOF2
	RECORD_OPTS=--sample record_app served
	assert_success
	tree_holds_cpu 60
	json r.json "$cpu > 0.25 * 2000e3"
	# the kernel's time is under the system call's entry, and that
	# under the worker's code, not a frame every request goes through
	json r.json "any(n['function'] == 'entry_SYSCALL_64_after_hwframe' and d['task_types'][0]['variance_tree']['nodes'][n['parent']]['function'] != 'latency' for n in d['task_types'][0]['variance_tree']['nodes'])"
}
