#!/usr/bin/env bats
# t2620-record-wakeup: wake-up edges (VS_REC_WAKEUP) into the recorded
# threads, from sched:sched_waking opened per CPU on the command: exact
# on a program that makes a known number of wake-ups, and the worker's
# wake-up of the front thread in examples/crossthread; an engine ring
# that overflows counts every record it lost.

load test-lib

# check EXPR: EXPR over the trace's wake-up records W, switch records S
# and tasks T (from t.json, script's) and, when r.json (report's) is
# there, the type-1 wait blame B
check() {
	python3 - "$1" <<-'PY'
	import json, os, sys
	recs = [json.loads(l) for l in open("t.json")]
	W = [r for r in recs if r["kind"] == "wakeup"]
	S = [r for r in recs if r["kind"] == "switch"]
	T = [r for r in recs if r["kind"] == "task"]
	B = None
	if os.path.exists("r.json"):
	    d = json.load(open("r.json"))["task_types"]
	    B = [t for t in d if t["type"] == 1][0]["wait_blame"]
	ok = eval(sys.argv[1])
	if not ok:
	    print("failed:", sys.argv[1])
	    print(json.dumps({"W": W[:6], "T": len(T), "B": B}, indent=1))
	sys.exit(0 if ok else 1)
	PY
}

# wakeping_edges OPTION...: record wakeping -n 300 OPTION..., whose
# writer wrote only when the reader slept in read (ground truth): each of
# its 300 wake-ups of the reader is an edge, the writer's; sets waker and
# wakee
wakeping_edges() {
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 300 "$@"
	assert_success
	read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
	assert_equal "$n" 300
	"$VARSCOPE" script -i t.data --format json > t.json
	check "len([w for w in W if w['wakee_tid'] == $wakee]) == 300"
	check "all(w['waker_tid'] == $waker for w in W if w['wakee_tid'] == $wakee)"
}

@test "every wake-up of a recorded thread is an edge, exactly" {
	require_example wakeping
	wakeping_edges
	# each ends a wait inside one of the reader's requests
	check "all(any(t['start_ns'] <= w['time_ns'] <= t['end_ns'] for t in T if t['tid'] == $wakee) for w in W)"
}

@test "with two CPU hogs beside the recording, every wake-up is an edge" {
	require_example wakeping
	local hogs=() i
	for i in 1 2; do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 300 -s
	kill "${hogs[@]}"
	assert_success
	read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
	assert_equal "$n" 300
	"$VARSCOPE" script -i t.data --format json > t.json
	check "len([w for w in W if w['wakee_tid'] == $wakee and w['waker_tid'] == $waker]) == 300"
	refute_line --partial "lost (the engine's ring full)"
}

@test "a timer's wake-up is the interrupt's, whatever thread it hit" {
	require_example interfere
	require_cmd taskset
	# the sleeps run on CPU 0 beside a hog that spins there: the timer
	# interrupt that ends each sleep mostly hits the hog, and the
	# wake-up is the interrupt's (waker 0) all the same
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	run "$VARSCOPE" record -o t.data -- taskset -c 0 "$EXAMPLES/interfere" \
		-n 50 --types sleep --sleep-us 2000
	kill $hog
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check "len(W) == 50 and all(w['waker_tid'] == 0 for w in W)"
}

@test "a loopback sender's wake-ups are its own: it runs the network's softirq" {
	require_example wakeping
	# each byte a UDP datagram on 127.0.0.1, received in the softirq the
	# writer's send runs at its local_bh_enable(): the writer woke the
	# reader, never the interrupt (waker 0)
	wakeping_edges -u
}

@test "the kernel passes the wake-ups of recorded threads alone" {
	require_example wakeping
	require_example pingpong
	# a busy pipe ping-pong outside the recording: ~2 wake-ups a request;
	# the writer's added waits (0 to 5 ms) make the recording last about
	# a second, and the wake-ups are counted over the time both ran
	local tb=$(date +%s%N)
	"$EXAMPLES/pingpong" -n 100M -d 6 --json > busy.out &
	busy=$!
	local t0=$(date +%s%N)
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 300 -d 5000
	local t1=$(date +%s%N)
	assert_success
	wait $busy
	"$VARSCOPE" script -i t.data --format json > t.json
	check "len(W) >= 300"
	# what reached the recorder: the wake-ups of the recorded thread
	# (the writer's, and under ASan its runtime's lock hand-overs, 1758
	# in all once), not the busy ones of the other process, about two a
	# request over the recording's time
	python3 - "$tb" "$t0" "$t1" <<-'PY'
	import json, sys
	tb, t0, t1 = (int(a) / 1e9 for a in sys.argv[1:])
	busy = json.loads([l for l in open("busy.out") if l.startswith("{")][-1])
	rate = busy["requests"] / busy["seconds"]
	recs = [json.loads(l) for l in open("t.json")]
	n_read = int([r["value"] for r in recs if r["kind"] == "meta" and r["key"] == "wakeups_read"][0])
	both = min(t1, tb + busy["seconds"]) - t0
	busy_wakeups = 2 * rate * both
	print("wakeups_read %d, busy wake-ups in the recording's time ~%d" % (n_read, busy_wakeups))
	assert busy_wakeups >= 20000, "the ping-pong was not busy"
	assert 300 <= n_read < busy_wakeups / 10
	PY
}

@test "--rate 0.1: only the wake-ups that end a wait in a selected task" {
	require_example wakeping
	# every request of the reader blocks once in read(2) and is woken
	# by the writer; the kernel passes all 1000 wake-ups of the reader,
	# the recorder writes those of the selected requests alone
	run "$VARSCOPE" record --rate 0.1 -o t.data -- "$EXAMPLES/wakeping" -n 1000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check "len(T) >= 30 and len(W) == sum(t['values']['sched.blocked.count'] for t in T)"
	check "all(any(t['start_ns'] <= w['time_ns'] <= t['end_ns'] for t in T) for w in W)"
}

@test "threads registering while others are woken: each wake-up once" {
	require_example interfere
	# 300 threads in waves of 100 register while the others are woken
	# from their 50 us sleeps: the wake-up filter is replaced at each
	# registration, the new event enabled before the old one is closed
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/interfere" -n 20 --types sleep --sleep-us 50 --threads 300 --wave 100
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check "len(W) >= 1000"
	# a thread woken twice within 1 us by the same waker on the same
	# CPU is one wake-up read from both events (~0.6 us apart)
	check "not any(a['wakee_tid'] == b['wakee_tid'] and a['waker_tid'] == b['waker_tid'] and a['cpu'] == b['cpu'] and abs(a['time_ns'] - b['time_ns']) < 1000 for i, a in enumerate(W) for b in W[i + 1:i + 8])"
}

@test "--lock: the front thread's waits are woken by the worker" {
	require_example crossthread
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/crossthread" -n 60 --work-us 300 --lock --hold-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	# the worker is the thread of the attached intervals (type 0), the
	# front thread that of the requests (type 1)
	check 'len({t["tid"] for t in T if t["type"] == 0}) == 1'
	check 'sum(1 for w in W if w["waker_tid"] in {t["tid"] for t in T if t["type"] == 0} and w["wakee_tid"] in {t["tid"] for t in T if t["type"] == 1}) >= 60'
	# nearly every request blocks (under ASan a few found the work done
	# and never slept), and every wait is ended by another thread, inside
	# the request
	check 'sum(1 for r in T if r["type"] == 1 and r["values"]["sched.blocked.count"]) >= 45'
	check 'all(any(w["wakee_tid"] == r["tid"] and r["start_ns"] <= w["time_ns"] <= r["end_ns"] and w["waker_tid"] != r["tid"] for w in W) for r in T if r["type"] == 1 and r["values"]["sched.blocked.count"])'
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

@test "blame: every wait of wakeping's reader moves to the writer" {
	require_example wakeping
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 300
	assert_success
	read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
	"$VARSCOPE" report -i t.data --format json > r.json
	"$VARSCOPE" script -i t.data --format json > t.json
	# ground truth: one blocked wait per request, ended by the writer,
	# which is in no task (so the chain ends there)
	check "[(w['tid'], w['kind'], w['depth'], w['waits']) for w in B['wakers']] == [($waker, 'outside_tasks', 1, 300)]"
	check "B['tasks'] == 300 and B['wakers'][0]['ns'] == B['wait_ns']"
	# the waits blamed are each from the reader's switch out to the
	# writer's wake-up, exactly, by the trace's own records; the blocked
	# time the accounting measured holds them and the run-queue time
	# after each wake-up (as long as the machine makes it)
	check "B['wait_ns'] == sum(w['time_ns'] - max((s['time_ns'] for s in S if s['tid'] == w['wakee_tid'] and s['out'] and not s['preempt'] and s['time_ns'] <= w['time_ns']), default=w['time_ns']) for w in W)"
	check "B['wait_ns'] <= sum(t['values']['sched.blocked.time'] for t in T)"
	run "$VARSCOPE" report -i t.data
	assert_line --regexp "^#   [0-9.]+ [mu]?s wakeping \(tid $waker, outside_tasks, 1 edge deep\), 300 waits$"
}

@test "blame: crossthread's requests wait on the worker, its samples name what it ran" {
	require_example crossthread
	run "$VARSCOPE" record --sample -o t.data -- "$EXAMPLES/crossthread" -n 60 --work-us 300 --lock --hold-us 2000
	assert_success
	"$VARSCOPE" report -i t.data --format json > r.json
	"$VARSCOPE" script -i t.data --format json > t.json
	worker=$(python3 -c 'import json; print({json.loads(l)["tid"] for l in open("t.json") if "\"type\":0" in l and "\"kind\":\"task\"" in l}.pop())')
	# the front thread waits for each request's 300 us of the worker's
	# work: the worker, attached to the request, ends the waits (the
	# holder's share, the worker's lock waits, goes by chance)
	check "[(w['kind'], w['depth']) for w in B['wakers'] if w['tid'] == $worker] == [('same_task', 1)]"
	check "[w['ns'] for w in B['wakers'] if w['tid'] == $worker][0] >= 60 * 300e3 * 0.5"
	check "sum(w['ns'] for w in B['wakers']) == B['wait_ns']"
	# the lock holder woke the worker only along the chain
	check "all(w['depth'] == 2 for w in B['wakers'] if w['tid'] not in ($worker, 0))"
	check "any(f['name'] in ('spin_ns', 'handle') or 'clock_gettime' in f['name'] for w in B['wakers'] if w['tid'] == $worker for f in w['functions'])"
}

@test "report --tree: the waits blamed on a thread outside the task are a node" {
	require_example wakeping
	# waits that vary by design (-d, as in the --probe test below)
	run "$VARSCOPE" record --sample -o t.data -- "$EXAMPLES/wakeping" -n 100 -d 20000
	assert_success
	read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
	"$VARSCOPE" report -i t.data --tree --format json > r.json
	"$VARSCOPE" script -i t.data --format json > t.json
	# the writer's node holds exactly the time blamed on it, per task
	python3 - "$waker" <<-'PY'
	import json, sys
	d = json.load(open("r.json"))["task_types"][0]
	t, b = d["variance_tree"], d["wait_blame"]
	nodes = [n for n in t["nodes"] if n["function"] == "[wait] wakeping/" + sys.argv[1]]
	assert len(nodes) == 1 and nodes[0]["parent"] == 0, [n["function"] for n in t["nodes"]]
	total = nodes[0]["mean_ns"] * t["tasks"]
	assert abs(total - b["wakers"][0]["ns"]) <= 1e-6 * total, (total, b)
	# the waits are what varies by design: a factor of at least the
	# variance the writer's uniform 0-20 ms adds ((20 ms)^2 / 12); the
	# load adds its own, to the waits (the writer's wake-up from its
	# sleep: twice that variance in one run) and to reader(); never a
	# --probe
	wait = [f for f in t["factors"] if f["factor"] == "Var([wait] wakeping/%s)" % sys.argv[1]]
	assert wait and wait[0]["value"] > 0.6 * 20e6 ** 2 / 12, t["factors"][:3]
	assert "[wait]" not in t["next_probe"], t["next_probe"]
	PY
}

@test "report --tree from --probe: a wait is a node under the call it blocked in" {
	require_example wakeping
	require_uprobes
	# the reader blocks in read(2) inside reader(), probed: exact times;
	# the writer waits 0 to 20 ms more before it writes (-d), a variance
	# by design that the wait's factor measures; the run-queue delay
	# after each wake-up stays reader()'s own, and on a loaded machine
	# it varied by up to 17 ms (std)
	run "$VARSCOPE" record --probe reader -o t.data -- "$EXAMPLES/wakeping" -n 100 -d 20000
	assert_success
	read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
	"$VARSCOPE" report -i t.data --tree --format json > r.json
	python3 - "$waker" <<-'PY'
	import json, sys
	d = json.load(open("r.json"))["task_types"][0]
	t, b = d["variance_tree"], d["wait_blame"]
	assert not t["sampled"], t
	names = [n["function"] for n in t["nodes"]]
	reader = names.index("reader")
	nodes = [n for n in t["nodes"] if n["function"] == "[wait] wakeping/" + sys.argv[1]]
	assert len(nodes) == 1 and nodes[0]["parent"] == reader, names
	# exactly the time blamed on the writer; reader's time still holds it
	total = nodes[0]["mean_ns"] * t["tasks"]
	assert abs(total - b["wakers"][0]["ns"]) <= 1e-6 * total, (total, b)
	assert t["nodes"][reader]["mean_ns"] >= nodes[0]["mean_ns"], t["nodes"]
	# a factor is named by its call path: the wait under reader()
	wait = [f for f in t["factors"] if f["factor"] == "Var(reader → [wait] wakeping/%s)" % sys.argv[1]]
	assert wait and wait[0]["value"] > 0.6 * 20e6 ** 2 / 12, t["factors"][:3]
	PY
}

@test "short runs: the reader's exit does not hide its last wake-ups" {
	require_example wakeping
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	# -s: the writer's wake-ups go to the last CPU's tracking ring, the
	# reader's exit to CPU 0's, read first; in a run shorter than one
	# poll of the recorder the exit dropped the reader before its
	# wake-ups were read (0 of 20, every time)
	for i in 1 2 3; do
		run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 20 -s
		assert_success
		read -r _ waker _ wakee _ n < <(grep '^waker ' <<<"$output")
		"$VARSCOPE" script -i t.data --format json > t.json
		check "len([w for w in W if w['wakee_tid'] == $wakee and w['waker_tid'] == $waker]) == 20"
	done
}

@test "without sched_waking's format: the engine's edges need none, --sample's neither" {
	require_root
	require_unshare -m
	require_example wakeping
	# in a mount namespace of its own, the format hidden under a tmpfs:
	# the engine's program takes sched_waking from the kernel's BTF,
	# with --sample too (its samples go through the engine's filter)
	for opt in "" --sample; do
		run --separate-stderr unshare -m sh -c '
			mount -t tmpfs none /sys/kernel/tracing/events/sched/sched_waking &&
			"$0" record $2 -o t.data -- "$1" -n 30' "$VARSCOPE" "$EXAMPLES/wakeping" $opt
		assert_success
		run grep -c "sched_waking" <<< "$stderr"
		assert_output 0
		"$VARSCOPE" script -i t.data --format json > t.json
		check 'len(W) >= 30 and len(T) == 31'
	done
}

# the voluntary switches of thread $1 of process $2 (one a request of
# wakeping's reader: it blocks once in each)
switches_of() {
	sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' \
		"/proc/$2/task/$1/status" 2>/dev/null || echo 0
}

@test "the engine's ring full: every edge and switch is written or counted lost" {
	require_example wakeping
	# the recorder stopped while wakeping's reader makes 3000 requests,
	# three times: each request emits its wake-up edge and the switches
	# that begin and end its wait, 9000 records, more than the engine's
	# 256 KiB ring holds (3000 tasks fit the task ring: none dropped)
	"$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 60000 \
		> out 2> err &
	local rec=$! app="" reader="" i k from
	for i in $(seq 200); do
		app=$(pgrep -P $rec) && reader=$(ls "/proc/$app/task" | grep -vx "$app" | head -1)
		[ -n "$reader" ] && [ "$(switches_of "$reader" "$app")" -gt 10 ] && break
		sleep 0.05
	done
	[ -n "$reader" ] || fail "no reader thread"
	for k in 1 2 3; do
		kill -STOP $rec
		from=$(switches_of "$reader" "$app")
		for i in $(seq 600); do
			[ "$(switches_of "$reader" "$app")" -ge $((from + 3000)) ] && break
			sleep 0.01
		done
		kill -CONT $rec
		sleep 0.2
	done
	wait $rec
	read -r _ waker _ wakee _ n < out
	assert_equal "$n" 60000
	lost=$(sed -n "s/^varscope record: \([0-9]*\) wake-up and switch records lost (the engine's ring full)$/\1/p" err)
	[ -n "$lost" ] && [ "$lost" -gt 0 ] || { cat err; fail "the ring never overflowed"; }
	"$VARSCOPE" script -i t.data --format json > t.json
	# each of the n requests: one edge, one switch out and one in, but
	# for a wait closed by the library at the task's end (its switch-in
	# unseen, the task flagged 1024), which emits no switch-in; and a
	# task dropped in a full task ring hides one such wait at most
	dropped=$(sed -n 's/^varscope record: \([0-9]*\) tasks\{0,1\} dropped (task ring full)$/\1/p' err)
	python3 - "$n" "$wakee" "$lost" "${dropped:-0}" <<-'PY'
	import json, sys
	n, wakee, lost, dropped = map(int, sys.argv[1:])
	R = [json.loads(l) for l in open("t.json")]
	W = [r for r in R if r["kind"] == "wakeup" and r["wakee_tid"] == wakee]
	S = [r for r in R if r["kind"] == "switch" and r["tid"] == wakee]
	T = [r for r in R if r["kind"] == "task" and r["tid"] == wakee]
	unseen = sum(1 for t in T if t["flags"] & 1024)
	total = len(W) + len(S) + lost
	print("edges %d switches %d lost %d tasks %d unseen %d dropped %d" %
	      (len(W), len(S), lost, len(T), unseen, dropped))
	assert 3 * n - unseen - dropped <= total <= 3 * n, total
	PY
}
