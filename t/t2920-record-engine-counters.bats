#!/usr/bin/env bats
#
# The engine's per-CPU counters, read by its programs at every switch and
# interrupt of a thread inside a task, here with software counters in
# place of a PMU's (VARSCOPE_TEST_SW_COUNTERS, DEVELOPERS.md): cpu-clock's
# deltas over a task's running intervals are its run.time, interrupts
# left out, and minor-faults its page faults, exactly.
# varscope-test: exclusive

load test-lib
load record-lib

export VARSCOPE_TEST_SW_COUNTERS=1

# per-task lines "flags run.time cpu-clock irq-time irq-count switches"
# (cpu-clock -1 when the task has none)
task_lines() {
	python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["kind"] != "task":
        continue
    v = r["values"]
    print(r["flags"], v["run.time"], v.get("cpu-clock", -1),
          sum(v.get("irq.%s.time" % k, 0) for k in ("hard", "soft", "vector")),
          sum(v.get("irq.%s.count" % k, 0) for k in ("hard", "soft", "vector")),
          v["context-switches"])' < t.json
}

# How far cpu-clock may be from run.time in a task: the clocks' rates
# (CLOCK_MONOTONIC is slewed, cpu-clock is the scheduler's clock) 0.1%,
# 250 ns at each transition, 10 us for the marks.
CLOCKS_AGREE='
import sys
n = taken = 0
slack = irq = 0
for l in sys.stdin:
    flags, run, clock, irq_ns, irqs, switches = map(int, l.split())
    n += 1
    if clock < 0:
        continue
    taken += 1
    bound = 10000 + run // 1000 + 250 * (irqs + switches)
    assert abs(clock - run) <= bound, (l, clock - run, bound)
    slack += bound
    irq += irq_ns
# all but a few (those the DTE filter left out) have their counters
assert taken >= n - 2, (taken, n)
print(slack, irq)
'

@test "cpu-clock over a task's running intervals is its run.time" {
	record_if -n 20 --types compute --work-us 20000
	check 'T["4"]["tasks"] == 20'
	task_lines | python3 -c "$CLOCKS_AGREE"
}

@test "interrupts are left out of the counters: cpu-clock is run.time under an IPI flood" {
	require_cmd "$VS_CC"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	"$VS_CC" $VS_APP_CFLAGS -O2 -I"$SRC/include" -o ipi-task \
		"$SRC/t/t2920/ipi-task.c" "$VS_LIBDIR/libvarscope.a" -lpthread
	run "$VARSCOPE" record -o t.data -- ./ipi-task flood
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 20'
	check 'T["1"]["sum"]["irq.vector.call_function_single.count"] + T["1"]["sum"].get("irq.vector.call_function.count", 0) >= 1000'
	# within the bounds, and the interrupts' time far past them: counters
	# that counted the interrupts would be out of bounds
	read -r slack irq < <(task_lines | python3 -c "$CLOCKS_AGREE")
	[ "$irq" -gt $((2 * slack)) ] || {
		echo "interrupts $irq ns, bounds $slack ns"
		false
	}
}

@test "minor-faults over a task's running intervals is its fault.page.count" {
	record_if -n 20 --types fault --pages 1000
	check 'T["2"]["tasks"] == 20'
	check 'T["2"]["sum"]["minor-faults"] == T["2"]["sum"]["fault.page.count"] >= 20000'
}

@test "the counters are named, software counters, and a summary says none were left out unexplained" {
	record_if -n 5 --types compute --work-us 1000
	python3 - <<-'EOF2'
	import json
	d = {r["name"]: r for l in open("t.json") if (r := json.loads(l))["kind"] == "event_def"}
	assert d["cpu-clock"]["unit"] == "ns" and d["minor-faults"]["unit"] == "count"
	EOF2
	run grep -c "left without counter values: a read failed" err
	assert_output 0
}
