#!/usr/bin/env bats
# t2910-record-hw: hardware counters in varscope record.  Without a PMU
# the recording is the software one (one line says so, no hw.* value in
# any task); with one, every task carries the fixed counters, read by the
# library at its begin and end: hw.instructions grows with loopbench's
# loop, cpu.freq is set, and the epoch records rotate the programmable
# events, and the interrupts a task takes are left out of its deltas.
# The per-task arithmetic (deltas, flags, cpu.freq, epochs) is
# t/unit/hwcount.c, and the snapshots at interrupt boundaries (attrs, the
# samples' layout, the pairing, exact deltas; live with software counters
# in place of the hardware ones) t/unit/snapshot.c: they need no PMU.

load test-lib
load record-lib

setup() {
	vs_setup
	require_root
	require_tracefs
	require_example loopbench
}

LB() {
	"$VARSCOPE" record -o t.data --epoch 100ms -- "$EXAMPLES/loopbench" "$@" \
		>/dev/null 2>err
	"$VARSCOPE" script -i t.data --format json > t.json
}

@test "without a PMU: one line, software counters, no hardware value" {
	if [ -d /sys/bus/event_source/devices/cpu ]; then
		skip "this machine has a hardware PMU"
	fi
	LB -n 200 -m 100000
	grep -q '^varscope record: no hardware PMU' err || fail "$(cat err)"
	check 'T["1"]["tasks"] == 200 and T["1"]["sum"]["task-clock"] > 0'
	check 'not any(k.startswith("hw.") or k == "cpu.freq" for k in T["1"]["sum"])'
}

@test "with a PMU: hw.instructions grows with the loop, cpu.freq is set" {
	require_pmu
	LB -n 200 -m 100000
	check 'T["1"]["tasks"] == 200'
	check 'T["1"]["sum"]["hw.instructions"] >= 200 * 100000'
	check 'T["1"]["sum"]["cpu.freq"] > 0'
	small=$(python3 -c 'import json, sys
print(sum(r["values"].get("hw.instructions", 0) for r in map(json.loads, sys.stdin)
          if r.get("kind") == "task"))' < t.json)
	LB -n 200 -m 1000000
	check "T[\"1\"][\"sum\"][\"hw.instructions\"] > 5 * $small"
}

@test "with a PMU: epochs rotate the programmable events, fixed ones stay" {
	require_pmu
	LB -n 2000 -m 200000
	python3 -c 'import json, sys
recs = [json.loads(l) for l in sys.stdin]
names = {r["id"]: r["name"] for r in recs if r.get("kind") == "event_def"}
sets = [frozenset(names[i] for i in r["events"]) for r in recs
        if r.get("kind") == "epoch"]
assert len(sets) >= 3, len(sets)
assert all("hw.instructions" in s and "hw.cycles" in s for s in sets)
prog = {frozenset(n for n in s if n.startswith("hw.") and
                  n not in ("hw.instructions", "hw.cycles", "hw.ref-cycles"))
        for s in sets}
assert len(prog) >= 2, prog' < t.json
}

# A local timer interrupt runs the tick (hrtimer, scheduler, RCU: several
# thousand instructions) and four perf samples of record's own.  Left out,
# what stays of it in the task is the kernel entry before the entry
# snapshot and the exit after the exit snapshot: a task with one such
# interrupt counts about as many instructions as one with none.  (The
# 5000 instructions allowed per interrupt wait for a PMU machine's
# numbers: this one has none.)
@test "with a PMU: a task's timer interrupts are left out of its instructions" {
	require_pmu
	LB -n 600 -m 2000000
	python3 -c 'import json, statistics, sys
tasks = [r["values"] for r in map(json.loads, sys.stdin)
         if r.get("kind") == "task" and not r.get("flags")]
def n(v, k): return v.get(k, 0)
quiet = [v["hw.instructions"] for v in tasks
         if n(v, "irq.vector.count") == 0 and n(v, "irq.hard.count") == 0
         and n(v, "irq.soft.count") == 0 and n(v, "fault.page.count") == 0]
tick = [v["hw.instructions"] for v in tasks
        if n(v, "irq.vector.local_timer.count") == 1
        and n(v, "irq.vector.count") == 1 and n(v, "irq.hard.count") == 0
        and n(v, "fault.page.count") == 0]
assert len(quiet) >= 20 and len(tick) >= 20, (len(quiet), len(tick))
excess = statistics.median(tick) - statistics.median(quiet)
assert excess < 5000, excess' < t.json
}
