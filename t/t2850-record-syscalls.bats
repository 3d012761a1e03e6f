#!/usr/bin/env bats
# t2850-record-syscalls: varscope record --syscalls stores the enter and
# the exit of every system call of the command (checked against a known
# count) and its context switches.

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
}

# Count the syscall records of number $2 and direction $3 in trace $1.
count_calls() {
	"$VARSCOPE" script -i "$1" --format json | python3 -c 'import json, sys
nr, d = int(sys.argv[1]), int(sys.argv[2])
print(sum(1 for l in sys.stdin
          if (r := json.loads(l))["kind"] == "syscall" and r["nr"] == nr
          and r["dir"] == d))' "$2" "$3"
}

@test "record --syscalls: every umask enters and exits, in 2 threads" {
	run "$VARSCOPE" record --syscalls -o s.data -- python3 -c '
import os, threading
t = threading.Thread(target=lambda: [os.umask(0o22) for _ in range(700)])
t.start()
for _ in range(1300):
    os.umask(0o22)
t.join()'
	assert_success
	assert_equal "$(count_calls s.data 95 0)" 2000
	assert_equal "$(count_calls s.data 95 1)" 2000
	run python3 -c 'import json, subprocess, sys
out = subprocess.run([sys.argv[1], "script", "-i", "s.data",
                      "--format", "json"], capture_output=True, text=True)
tids = {r["tid"] for l in out.stdout.splitlines()
        if (r := json.loads(l))["kind"] == "syscall" and r["nr"] == 95}
print(len(tids))' "$VARSCOPE"
	assert_output 2
}

@test "record --syscalls: context switches of the command's threads" {
	run "$VARSCOPE" record --syscalls -o s.data -- python3 -c '
import time
for _ in range(20):
    time.sleep(0.002)'
	assert_success
	run python3 -c 'import json, subprocess, sys
out = subprocess.run([sys.argv[1], "script", "-i", "s.data",
                      "--format", "json"], capture_output=True, text=True)
sw = [r for l in out.stdout.splitlines()
      if (r := json.loads(l))["kind"] == "switch"]
outs = sum(r["out"] for r in sw)
print(outs >= 20, len(sw) - outs >= 20)' "$VARSCOPE"
	assert_output "True True"
}

@test "record without --syscalls stores no system call" {
	"$VARSCOPE" record -o n.data -- true
	assert_equal "$(count_calls n.data 231 0)" 0
	run "$VARSCOPE" script -i n.data
	refute_line --partial " syscall "
}

@test "record --syscalls -p: the calls of the present children and threads" {
	require_uprobes
	require_example interfere
	IF=$EXAMPLES/interfere
	# sh waits; its child, there before the attach, sleeps in a worker
	# thread of its own: one clock_nanosleep (230) in each one_task call.
	# (A call begun between the probes' attach and its thread's system
	# call tracing lacked its enter: the tracing now comes first.)
	# (the "; true" keeps sh from exec'ing the program in its own place)
	sh -c '"$0" -n 100000 --types sleep --sleep-us 1000 > /dev/null; true' "$IF" &
	parent=$!
	sleep 0.5
	run "$VARSCOPE" record --syscalls -o s.data --task-func "one_task@$IF" \
		-p $parent --duration 1s
	pkill -P $parent
	wait $parent || true
	assert_success
	"$VARSCOPE" script -i s.data --format json > s.json
	python3 - <<-'PY'
	import json
	recs = [json.loads(l) for l in open("s.json")]
	# (a call open when the recording ends is written TRUNCATED: its
	# sleep's exit may come after the end)
	tasks = [r for r in recs if r["kind"] == "task" and not r["flags"] & 128]
	sleeps = [r for r in recs if r["kind"] == "syscall" and r["nr"] == 230]
	assert len(tasks) > 300, len(tasks)
	enters = [s for s in sleeps if s["dir"] == 0]
	exits = [s for s in sleeps if s["dir"] == 1]
	# every call has its sleep's enter and exit inside, on its thread
	for t in tasks:
	    inside = [s for s in sleeps if s["tid"] == t["tid"] and
	              t["start_ns"] <= s["time_ns"] <= t["end_ns"]]
	    assert [s["dir"] for s in inside] == [0, 1], (t, inside)
	# and no other sleep between a thread's first call and its last (its
	# system calls are traced from just before its calls, so sleeps may
	# come before the first)
	spans = {}
	for t in tasks:
	    first, last = spans.get(t["tid"], (t["start_ns"], t["end_ns"]))
	    spans[t["tid"]] = (min(first, t["start_ns"]), max(last, t["end_ns"]))
	within = [s for s in sleeps if s["tid"] in spans and
	          spans[s["tid"]][0] <= s["time_ns"] <= spans[s["tid"]][1]]
	assert len(within) == 2 * len(tasks), (len(within), len(tasks))
	assert len(enters) >= len(tasks) and len(exits) >= len(tasks)
	PY
}

@test "record --syscalls --task-func: the probes' own trampoline calls are left out" {
	require_uprobes
	require_example interfere
	IF=$EXAMPLES/interfere
	# each one_task call returns through the kernel's uretprobe
	# trampoline, a system call (335) of its own since Linux 6.11 whose
	# exit carries id -1: neither is the program's
	run "$VARSCOPE" record --syscalls -o s.data --task-func "one_task@$IF" \
		-- "$IF" -n 50 --types sleep --sleep-us 1000
	assert_success
	"$VARSCOPE" script -i s.data --format json > s.json
	python3 - <<-'PY'
	import json
	recs = [json.loads(l) for l in open("s.json")]
	calls = [r for r in recs if r["kind"] == "syscall"]
	tasks = [r for r in recs if r["kind"] == "task"]
	assert len(tasks) == 50, len(tasks)
	nrs = {r["nr"] for r in calls}
	assert 230 in nrs, sorted(nrs)
	assert not nrs & {335, 336, 65535}, sorted(nrs)
	# and every call's enter is followed by its exit on its thread
	open_ = {}
	for r in calls:
	    if r["dir"] == 0:
	        open_[r["tid"]] = r["nr"]
	    elif r["tid"] in open_:
	        assert open_.pop(r["tid"]) == r["nr"], r
	PY
}
