#!/usr/bin/env bats
# t3120-report-breakdown: a total broken down by name (irq.vector.time
# into the vectors, irq.soft.time into the softirqs; later the waits into
# their system calls) gets the note "mostly PART: N% of it in the high
# tasks" when one part holds most of it; checked on a real recording
# against the shares Python computes from the trace's own values, and on
# waits whose system call is known: a sleep and an fdatasync.

load test-lib
load record-lib

@test "report: the part that holds most of a total, as the trace's values say" {
	# CPU-bound tasks of 5 ms: timer interrupts and softirqs inside them
	"$VARSCOPE" record -o t.data -- "$IF" -n 200 --types compute \
		--work-us 5000 > /dev/null 2> err || { cat err; false; }
	"$VARSCOPE" script -i t.data --format json > t.json
	"$VARSCOPE" report -i t.data --format json > r.json
	run python3 -c 'import json
parent, name = {}, {}
tasks = []
for l in open("t.json"):
    r = json.loads(l)
    if r["kind"] == "event_def":
        name[r["id"]] = r["name"]
        parent[r["name"]] = r["parent"]
    elif r["kind"] == "task":
        tasks.append(r["values"])
notes = 0
for t in json.load(open("r.json"))["task_types"]:
    for e in t["ranking"]:
        total, thr = e["event"], e["threshold"]
        parts = [n for n, p in parent.items() if p < 65535 and name[p] == total]
        high = [v for v in tasks if total in v and v[total] > thr]
        s = sum(v[total] for v in high)
        best = max(parts, key=lambda n: sum(v.get(n, 0) for v in high), default=None)
        share = sum(v.get(best, 0) for v in high) / s if best and s else 0
        m = e["mostly"]
        if share > 0.5 and e["high_tasks"]:
            assert m and m["event"] == best, (total, best, share, m)
            assert abs(m["share"] - share) < 1e-3, (total, m, share)
            assert best == total[:total.rindex(".") + 1] + m["part"] + total[total.rindex("."):], m
            notes += 1
        else:
            assert m is None, (total, m, share)
print(notes)'
	assert_success
	[ "$output" -ge 1 ] || fail "no total with a part holding most of it"
	# the text says it in the Notes of the total
	python3 -c 'import json
for t in json.load(open("r.json"))["task_types"]:
    for e in t["ranking"]:
        if e["mostly"]:
            print(e["event"], e["mostly"]["part"], round(100 * e["mostly"]["share"]))' > mostly
	"$VARSCOPE" report -i t.data > r.txt
	while read -r total part pct; do
		grep -qE "^ +[0-9]+ +${total//./\\.} .*mostly $part: $pct% of it in the high tasks" r.txt ||
			fail "no note for $total: mostly $part: $pct%"
	done < mostly
}

@test "report: a sleeping type's wait is in clock_nanosleep, a syncing type's in fdatasync" {
	"$VS_CC" $VS_APP_CFLAGS -O2 -I"$SRC/include" -o syncs \
		"$SRC/t/t3120/syncs.c" "$VS_LIBDIR/libvarscope.a"
	# the file on the disk of the test's folder (not a tmpfs), synced
	"$VARSCOPE" record -o t.data -- ./syncs "$TEST_TMP/synced" \
		> /dev/null 2> err || { cat err; false; }
	"$VARSCOPE" report -i t.data --min-tasks 50 --format json > r.json
	run python3 -c 'import json
for t in json.load(open("r.json"))["task_types"]:
    for e in t["ranking"]:
        m = e["mostly"]
        if e["event"] in ("sched.blocked.time", "sched.iowait.time") and m:
            print(t["type_name"], e["event"], m["event"])'
	assert_success
	assert_line "sleep sched.blocked.time sched.blocked.clock_nanosleep.time"
	assert_line "sync sched.iowait.time sched.iowait.fdatasync.time"
	run "$VARSCOPE" report -i t.data --min-tasks 50 --type sleep
	assert_line --regexp '^ +[0-9]+ +sched\.blocked\.time .*mostly clock_nanosleep: [0-9]+% of it in the high tasks'
}
