#!/usr/bin/env bats
# t4100-sample-cachequery: per-task function times from real cpu-clock
# samples of examples/cachequery (the paper's sample application), checked
# against the application's own clock reads around f3, and ranked by
# varscope report with the kernel events.

load test-lib

FUNCS=$BUILD/t/helper/task-funcs

setup_file() {
	[ "$(id -u)" = 0 ] || return 0
	[ -e /sys/kernel/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	cd "$BATS_FILE_TMPDIR" || return 1
	# one query size: one task type whose slow queries are the cold
	# ones (with sizes 3 and 5, a size-5 query after a cold size-3 one is
	# partly cold, as in the paper, and its type has two slow groups)
	"$VARSCOPE" record --sample -o cq.data -- \
		"$EXAMPLES/cachequery" --truth --sizes 4 > truth 2> err || true
	"$FUNCS" cq.data > funcs.json || true
	"$VARSCOPE" script -i cq.data --format json > cq.json || true
}

# py: Python on stdin with the helpers of t/helper/cachequery_truth.py
py() {
	python3 -c "import sys; sys.path.insert(0, '$SRC/t/helper')
from cachequery_truth import *
exec(sys.stdin.read())"
}

setup() {
	vs_setup
	require_root
	require_tracefs
	require_example cachequery
	cp "$BATS_FILE_TMPDIR"/{cq.data,truth,err,funcs.json,cq.json} .
}

@test "cachequery: cold queries are much slower than warm ones" {
	grep -q "^cachequery: queries=2400 evictions=" truth
	py <<'PY'
import statistics
cold, warm = [], []
for d in queries():
    (cold if d["cold_points"] >= 4000 else warm).append(d["f3_ns"])
assert len(cold) >= 20, len(cold)
assert statistics.median(cold) > 50 * statistics.median(warm), \
    (statistics.median(cold), statistics.median(warm))
PY
}

@test "f3 of every cold query is within 20% of its ground truth" {
	# Both estimators against the clock reads around f3, in every cold
	# query whose thread kept its CPU through f3 (its CPU clock within
	# 10% of the elapsed time) and ran it in the usual time (within 1.5
	# times the median: the work is the same).  A query that lost its
	# CPU (tests running beside this one) or was stalled by the
	# hypervisor has no single truth: task-clock, the thread's CPU clock
	# and the timer of the samples each see a different part of the
	# stall, and first to last sample misses a wait before the first or
	# after the last sample.  Nor has a query the recorder flagged for
	# lost events (a recorder slowed down, as under ASan, lost all the
	# samples of one).  Nor one whose sampling timer missed part of its
	# CPU time, outside f3 too (its samples times the period not within
	# 15% of its task-clock, which one sample more or less moves by 6%):
	# the count estimator shares the task-clock out among the samples,
	# and f3's share grows with what the others missed (27% over, in
	# a fresh clone's run beside other tests, with f3's own 16 samples
	# right).  Those must stay a minority.
	py <<'PY'
import statistics
est, n, lost, flagged = f3(), 0, 0, lossy()
cover = coverage()
cold = [d for d in queries() if d["cold_points"] >= 4000]
usual = 1.5 * statistics.median(d["f3_ns"] for d in cold)
for d in cold:
    if d["f3_cpu_ns"] < 0.9 * d["f3_ns"] or d["f3_ns"] > usual or \
       d["task"] in flagged or abs(cover.get(d["task"], 0) - 1) > 0.15:
        lost += 1
        continue
    e = est[d["task"]]
    n += 1
    assert abs(e["count"] / d["f3_ns"] - 1) <= 0.2, (d, e)
    # first to last sample is short of the truth by up to two periods
    # (varscope-report(1), --func-time span): within 20% once they are
    # given back (a 4.4 ms f3 at 4000 Hz: 11%; under ASan one came out
    # 0.93 ms, 21%, short)
    period = e["count"] / e["samples"]
    assert 0.8 * d["f3_ns"] <= e["span"] + 2 * period and \
        e["span"] <= 1.2 * d["f3_ns"], (d, e)
assert n >= 20 and lost < n / 4, (n, lost)
PY
}

@test "warm queries have next to no f3 time" {
	py <<'PY'
est = f3()
warm = [est[d["task"]]["count"] for d in queries() if not d["cold_points"]]
warm.sort()
assert len(warm) > 1000 and warm[len(warm) * 95 // 100] == 0, warm[-50:]
PY
}

# rank_first JSON: func:f3.time is first in every task type.  Events
# that measure the same CPU time (task-clock, run.time) or follow from its
# length (the timer interrupts and softirqs of a long run) are high in
# the same cold queries, so they tie with it: the order of a tie within
# 10% of the other's impact is noise: the time bound takes f1's and
# f2's share of the cold queries off f3 (task-clock's adjusted impact
# was seen at 0.905 against f3's 0.873).  No other event may come
# before it.
#
# The slow queries are the cold ones, about 3% of each type: the reports
# explain the p98 (--ptarget 0.98).  At p99 the threshold search takes the
# break of the CDF closest below 0.99, and a VM that makes a few cold
# queries slower than the others puts one inside the cold group, for f3
# as for task-clock, in about a third of the runs.
#
# The time bound gives f3 its share of the slow queries' latency, which a
# loaded machine stretches with waits for a CPU (0.77 seen at load 16):
# so f3 must have most of the share their CPU time has, from the trace.
rank_first() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tasks = [json.loads(l) for l in open("cq.json")]
tasks = sorted((t for t in tasks if t["kind"] == "task"),
               key=lambda t: t["latency_ns"])
assert len(d["task_types"]) == 1, d
for tt in d["task_types"]:
    r = tt["ranking"]
    f3 = next(e for e in r if e["event"] == "func:f3.time")
    for e in r[:f3["rank"] - 1]:
        assert e["adjusted_impact"] - f3["adjusted_impact"] <= \
            0.1 * e["adjusted_impact"], (e, f3)
        assert e["event"] in ("task-clock", "run.time") or \
            e["event"].startswith("irq."), (e, f3)
    slow = tasks[-f3["slow_tasks"]:]
    cpu_share = (sum(t["values"]["task-clock"] for t in slow) /
                 sum(t["latency_ns"] for t in slow))
    assert f3["adjusted_impact"] > 0.85 * cpu_share, (f3, cpu_share)
    for name in ("func:f1.time", "func:f2.time"):
        e = next((e for e in r if e["event"] == name), None)
        assert e and e["adjusted_impact"] < 0.2, e
PY
}

@test "varscope report ranks func:f3.time first for the cold queries' type" {
	"$VARSCOPE" report -i cq.data --ptarget 0.98 --format json > r.json
	rank_first r.json
	run "$VARSCOPE" report -i cq.data --ptarget 0.98 --top 0
	assert_success
	assert_line --regexp '^ +[0-9]+  func:f3\.time +9[0-9]\.[0-9]%'

}

@test "--func-time span: f3 first of the functions" {
	# first to last sample falls short of the time by up to two periods:
	# the report bounds its impact by what it adds to the slow tasks, so
	# the CPU-time events may pass it; among functions it leads
	"$VARSCOPE" report -i cq.data --ptarget 0.98 --func-time span \
		--format json > r.json
	python3 - <<'PY'
import json
d = json.load(open("r.json"))
for tt in d["task_types"]:
    funcs = [e for e in tt["ranking"] if e["event"].startswith("func:")]
    assert funcs[0]["event"] == "func:f3.time", funcs[:3]
    assert funcs[0]["impact"] > 0.5, funcs[0]
PY
}

@test "--func-time names its choices" {
	run "$VARSCOPE" report -i cq.data --func-time median
	assert_failure 129
	assert_output --partial "func-time"
}

@test "a trace without samples has no function events" {
	"$VARSCOPE" record -o plain.data -- "$EXAMPLES/cachequery" -n 100 \
		> /dev/null 2>&1
	run "$VARSCOPE" report -i plain.data --top 0
	assert_success
	refute_output --partial "func:"
}
