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
	"$VARSCOPE" record --sample -o cq.data -- \
		"$EXAMPLES/cachequery" --truth > truth 2> err || true
	"$FUNCS" cq.data > funcs.json || true
}

setup() {
	vs_setup
	require_root
	require_tracefs
	require_example cachequery
	cp "$BATS_FILE_TMPDIR"/{cq.data,truth,err,funcs.json} .
}

@test "cachequery: cold queries are much slower than warm ones" {
	grep -q "^cachequery: queries=2400 evictions=" truth
	python3 - <<'PY'
import statistics
cold, warm = [], []
for l in open("truth"):
    if "task=" not in l:
        continue
    d = dict(kv.split("=") for kv in l.split()[1:])
    (cold if int(d["cold_points"]) >= 3000 else warm).append(int(d["f3_ns"]))
assert len(cold) >= 20, len(cold)
assert statistics.median(cold) > 50 * statistics.median(warm), \
    (statistics.median(cold), statistics.median(warm))
PY
}

@test "f3 of every cold query is within 20% of its ground truth" {
	# count x period estimates the CPU time in f3; the paper's first to
	# last sample estimates its elapsed time
	python3 - <<'PY'
import json
est = {}
for l in open("funcs.json"):
    r = json.loads(l)
    if "id" in r:
        est[r["id"]] = r["funcs"].get("f3", {"count": 0, "span": 0})
n = 0
for l in open("truth"):
    if "task=" not in l:
        continue
    d = {k: int(v) for k, v in (kv.split("=") for kv in l.split()[1:])}
    if d["cold_points"] < 3000:
        continue
    e = est.get(d["task"], {"count": 0, "span": 0})
    n += 1
    assert abs(e["count"] / d["f3_cpu_ns"] - 1) <= 0.2, (d, e)
    assert abs(e["span"] / d["f3_ns"] - 1) <= 0.2, (d, e)
assert n >= 20, n
PY
}

@test "warm queries have next to no f3 time" {
	python3 - <<'PY'
import json
est = {}
for l in open("funcs.json"):
    r = json.loads(l)
    if "id" in r:
        est[r["id"]] = r["funcs"].get("f3", {"count": 0})["count"]
warm = []
for l in open("truth"):
    if "task=" not in l:
        continue
    d = {k: int(v) for k, v in (kv.split("=") for kv in l.split()[1:])}
    if d["cold_points"] == 0:
        warm.append(est.get(d["task"], 0))
warm.sort()
assert len(warm) > 1000 and warm[len(warm) * 95 // 100] == 0, warm[-50:]
PY
}

# rank_first JSON: func:f3.time is first in every task type.  Events
# that measure the same CPU time (task-clock, run.time, the timer
# interrupts it takes) are high in exactly the cold queries too, so they
# tie with it; the order of a tie within 1% of impact is noise.
#
# The slow queries are the cold ones, about 3% of each type: the reports
# explain the p98 (--ptarget 0.98).  At p99 the threshold search takes the
# break of the CDF closest below 0.99, and a VM that makes a few cold
# queries slower than the others puts one inside the cold group, for f3
# as for task-clock, in about a third of the runs.
rank_first() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["task_types"]) == 2, d
for tt in d["task_types"]:
    r = tt["ranking"]
    f3 = next(e for e in r if e["event"] == "func:f3.time")
    top = r[0]
    assert f3["rank"] == 1 or \
        top["adjusted_impact"] - f3["adjusted_impact"] <= 0.01, (tt["type"], top, f3)
    assert f3["adjusted_impact"] > 0.5, f3
    for name in ("func:f1.time", "func:f2.time"):
        e = next((e for e in r if e["event"] == name), None)
        assert e and e["adjusted_impact"] < 0.2, e
PY
}

@test "varscope report ranks func:f3.time first for the cold queries' types" {
	"$VARSCOPE" report -i cq.data --ptarget 0.98 --format json > r.json
	rank_first r.json
	run "$VARSCOPE" report -i cq.data --top 3
	assert_success
	assert_output --partial "func:f3.time"
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
