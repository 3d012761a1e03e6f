#!/usr/bin/env bats
# t3200-report-interfere: report on real recordings of examples/interfere,
# whose causes of slow tasks are known: each injected cause ranks first
# (or, for page faults, among the first two) for its task type, and a type
# with no injected cause has no event with a large impact.
#
# The cause is injected into 15% of the tasks of a type (two runs of
# interfere in one recording: 170 tasks with a little of it, 30 with a
# lot), so that it is what sets the tail apart from the median, and it is
# made large (milliseconds).  The report explains the p90: a busy machine
# delays a few tasks by more than any cause now and then, and those few
# are the p99 of 200 tasks, but not their p90.
# The other tasks do the same kind of thing on a small scale: a task that
# did nothing at all would make every event of the others look like a
# cause (a woken task runs longer on cold caches, for one).

load test-lib
bats_require_minimum_version 1.5.0

IF=$EXAMPLES/interfere

setup() {
	vs_setup
	require_root
	require_tracefs
	require_example interfere
}

# record_mixed ARGS-WITHOUT -- ARGS-WITH: 170 tasks, then 30 tasks
record_mixed() {
	local without=() with=()

	while [ "$1" != -- ]; do
		without+=("$1")
		shift
	done
	shift
	with=("$@")
	# a 1 MB ring per thread holds the 4096 faults of a fault storm task
	# whatever the recorder's pace: with the default 128 kB, the sanitizer
	# build lost some of them, and the ranking needs them all
	"$VARSCOPE" record --mmap-pages 256 -o t.data -- sh -c \
		"'$IF' -n 170 ${without[*]} && '$IF' -n 30 ${with[*]}" \
		> truth 2> err
	if grep -q 'events\? lost' err; then
		fail "$(cat err)"
	fi
	"$VARSCOPE" report -i t.data --ptarget 0.9 --format json > r.json
}

# first_or_tied TYPE EVENT...: one of the EVENTs ranks first, or has the
# first's impact (events of the same high-value tasks tie; the order of
# ties says nothing), with at least 5% impact
first_or_tied() {
	python3 -c 'import json, sys
t = [t for t in json.load(open("r.json"))["task_types"] if t["type"] == int(sys.argv[1])][0]
r = t["ranking"]
best = max((e["impact"] for e in r if e["event"] in sys.argv[2:]), default=-1)
assert best >= 0.05 and best >= r[0]["impact"] - 0.005, \
    [(e["event"], round(e["impact"], 3)) for e in r[:5]]' "$@"
}

# The ranked events of type $1, "event impact" per line, best first.
ranking() {
	python3 -c 'import json, sys
t = [t for t in json.load(open("r.json"))["task_types"] if t["type"] == int(sys.argv[1])][0]
for e in t["ranking"]:
    print(e["event"], round(e["impact"], 3))' "$1"
}

@test "sleeping tasks: blocked time ranks first" {
	record_mixed --types sleep --sleep-us 2000 -- --types sleep --sleep-us 20000
	run first_or_tied 1 sched.blocked.time
	assert_success
}

@test "tasks that share their CPU with a co-runner: run-queue time ranks first" {
	# SCHED_FIFO when root: the co-runner of higher priority, woken
	# half-way through each corun task (--burst-us), preempts it for
	# exactly its burst: 0.2 ms in most tasks, 4 ms in the 15% that make
	# the p90, whatever else delays tasks on a busy machine (a periodic
	# co-runner would make the tail depend on the phase of its bursts)
	record_mixed --types corun --work-us 2000 --burst-us 200 -- \
		--types corun --work-us 2000 --burst-us 4000
	# the number of preemptions is the same in all tasks: time decides
	run first_or_tied 3 sched.runnable.time
	assert_success
	run ranking 3
	assert_line --regexp '^sched\.runnable\.time 0\.([2-9])'
}

@test "a fault storm: page faults rank among the first two" {
	# untimed faults (a kernel that refuses function tracing, this one)
	# count as run time: run.time
	# goes with the fault count, and may rank first; the fault count ranks
	# second at worst, or ties with the second (the long tasks also take
	# more timer ticks and preemptions: those counts tie with it)
	record_mixed --types fault --pages 16 -- --types fault --pages 4096
	run python3 -c 'import json
t = [t for t in json.load(open("r.json"))["task_types"] if t["type"] == 2][0]
r = t["ranking"]
rank = [e["event"] for e in r].index("fault.page.count")
tied = r[rank]["impact"] >= r[1]["impact"] - 0.005
print((rank < 2 or tied) and r[rank]["impact"] >= 0.05,
      [(e["event"], round(e["impact"], 3)) for e in r[:4]])'
	assert_output --regexp '^True '
}

@test "plain computation, no injected cause: no event has a large impact" {
	# run.time is the work itself: on a VM, time the host takes while
	# the task runs is run time, which no guest event sees
	"$VARSCOPE" record -o t.data -- "$IF" -n 200 --types compute \
		--work-us 2000 > truth 2> err
	"$VARSCOPE" report -i t.data --ptarget 0.9 --format json > r.json
	"$VARSCOPE" script -i t.data --format json > t.json
	run ranking 4
	assert_success
	# No cause is injected, but a loaded machine makes some now and then
	# (CI once: irq.vector.time at 0.136, vector handlers of a few slow
	# tasks that ran long).  So an event with a large impact must be a
	# real one: its own time in the tasks above its threshold makes up
	# at least half the p90 they add.  A ranking of noise has none.
	run python3 -c 'import json
t = [t for t in json.load(open("r.json"))["task_types"] if t["type"] == 4][0]
tasks = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task" and r["type"] == 4]
unreal = []
for e in t["ranking"]:
    if e["adjusted_impact"] <= 0.1 or e["event"] in ("run.time", "task-clock"):
        continue
    ev = e["event"]
    time = ev[:-len(".count")] + ".time" if ev.endswith(".count") else ev
    high = [r["values"] for r in tasks if r["values"].get(ev, 0) > e["threshold"]]
    added = e["latency_ptarget_ns"] - e["latency_ptarget_without_high_ns"]
    own = sum(v.get(time, 0) for v in high) / len(high) if high else 0
    if not time.endswith(".time") or own < 0.5 * added:
        unreal.append((ev, round(e["adjusted_impact"], 3), own, added))
print(unreal)'
	assert_output '[]'
}

@test "report repeats the recorder's notes: no fault.page.time here" {
	"$VARSCOPE" record -o t.data -- "$IF" -n 20 --types fault --pages 64 \
		> /dev/null 2>&1
	run "$VARSCOPE" report -i t.data --min-tasks 1
	assert_success
	# this kernel refuses function tracing: the count alone, and the
	# report says so
	assert_line --regexp '^# recording: fault\.page\.time unavailable: .*fault\.page\.count only$'
	# and whether hardware counters were recorded
	assert_line --regexp '^# recording: .*PMU'
	run "$VARSCOPE" report -i t.data --min-tasks 1 --format json
	assert_success
	python3 -c 'import json, sys
n = json.loads(sys.argv[1])["notes"]
assert any(x.startswith("fault.page.time unavailable") for x in n), n' "$output"
}

@test "tasks cut short by a thread's exit or a second begin are counted flagged" {
	# --odd: one task ended by a second begin, one by its thread's exit
	"$VARSCOPE" record -o t.data -- "$IF" -n 150 --types compute \
		--work-us 100 --odd
	"$VARSCOPE" report -i t.data --format json >r.json
	python3 - <<-'PY'
	import json
	t = json.load(open("r.json"))["task_types"]
	assert [(x["type"], x["flagged_tasks"]) for x in t] == [(4, 2)], t
	PY
	run "$VARSCOPE" report -i t.data
	assert_line "# 2 tasks flagged: lost events, distorted counters or cut short"
}
