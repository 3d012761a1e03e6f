#!/usr/bin/env bats
# t2050-record-type-names: task types named by the program
# (vs_task_type_name(), t/t2050/named.c) and by --task-func reach the
# trace as type_name records, through the recorder's checks, and every
# command prints them and takes them for --type.

load test-lib
load record-lib

# named [FLOOD]: record t/t2050/named.c into t.data, its output into
# truth, record's messages into err, the trace as JSON lines into t.json
named() {
	"$VS_CC" $VS_APP_CFLAGS -O2 -pthread -I"$SRC/include" -o named \
		"$SRC/t/t2050/named.c" "$VS_LIBDIR/libvarscope.a"
	"$VARSCOPE" record -o t.data -- ./named "$@" > truth 2> err ||
		{ cat err; return 1; }
	"$VARSCOPE" script -i t.data --format json > t.json
}

# names: "TYPE NAME" per type_name record of t.json
names() {
	python3 -c 'import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["kind"] == "type_name":
        print(r["type"], r["name"])' < t.json
}

@test "type names: before and after the first task, any thread; bad ones refused" {
	named
	run names
	assert_output "$(printf '1 get\n2 set')"
	grep -q "^varscope record: 3 task type names refused" err ||
		{ cat err; false; }
	# every task of a named type carries its name, the others none
	run python3 -c 'import json, sys
want = {1: "get", 2: "set"}
n = {}
for l in sys.stdin:
    r = json.loads(l)
    if r["kind"] != "task":
        continue
    assert r.get("type_name") == want.get(r["type"]), l
    n[r["type"]] = n.get(r["type"], 0) + 1
print(sorted(n.items()))' < t.json
	assert_success
	assert_output "[(1, 40), (2, 41), (3, 40)]"
}

@test "type names: report, segments, diff and tui print them, --type takes them" {
	named
	run "$VARSCOPE" report -i t.data --min-tasks 10 --top 1
	assert_success
	assert_line --regexp '^# Task type get \(1\): 40 tasks,'
	assert_line --regexp '^# Task type set \(2\): 41 tasks,'
	assert_line --regexp '^# Task type 3: 40 tasks,'
	"$VARSCOPE" report -i t.data --min-tasks 10 --type set >by-name
	"$VARSCOPE" report -i t.data --min-tasks 10 --type 2 >by-number
	cmp by-name by-number
	grep -q '^# Task type set (2): 41 tasks' by-name
	[ "$(grep -c '^# Task type' by-name)" -eq 1 ]
	run "$VARSCOPE" report -i t.data --min-tasks 10 --format json --type get
	assert_success
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"]
assert [(x["type"], x["type_name"]) for x in t] == [(1, "get")], t' <<<"$output"
	run "$VARSCOPE" report -i t.data --min-tasks 10 --format json --type 3
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"]
assert len(t) == 1 and "type_name" not in t[0], t' <<<"$output"

	run "$VARSCOPE" segments --min-tasks 10 --type get t.data
	assert_success
	assert_line --regexp '^# Task type get \(1\): 1 of 1 segments'
	run "$VARSCOPE" segments --min-tasks 10 --format json t.data
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"]
assert [(x["type"], x.get("type_name")) for x in t] == \
    [(1, "get"), (2, "set"), (3, None)], t' <<<"$output"
	run "$VARSCOPE" diff --min-tasks 10 t.data t.data
	assert_success
	assert_line --regexp '^# Task type set \(2\): latency p50'
	run "$VARSCOPE" diff --min-tasks 10 --type set --format json t.data t.data
	python3 -c 'import json, sys
t = json.load(sys.stdin)["task_types"]
assert [(x["type"], x["type_name"]) for x in t] == [(2, "set")], t' <<<"$output"
	run "$VARSCOPE" script -i t.data --type get --format json
	[ "$(grep -c '"kind":"task"' <<<"$output")" -eq 40 ]
}

@test "type names: a --type that is neither a number nor a name is one line, 129" {
	named
	for cmd in "report -i t.data" "segments t.data" "diff t.data t.data" \
		   "script -i t.data"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$VARSCOPE" $cmd --type nosuch
		[ "$status" -eq 129 ] || fail "$cmd: status $status"
		[ "$(wc -l <<<"$stderr")" -eq 1 ] || fail "$cmd: $stderr"
		[[ $stderr == *"'nosuch' is neither a task type number nor the name"* ]] ||
			fail "$cmd: $stderr"
	done
}

@test "type names: a flood is bounded at 4096 types and counted" {
	named 5000
	run names
	# get, set and the first 4094 of the flood
	[ "${#lines[@]}" -eq 4096 ] || fail "${#lines[@]} names"
	assert_line --index 2 "1000 t1000"
	assert_line --index 4095 "5093 t5093"
	# 3 bad names and the 906 types past 4096
	grep -q "^varscope record: 909 task type names refused" err ||
		{ cat err; false; }
}

@test "type names: --task-func types are named after their function" {
	require_uprobes
	libc=$(ldd "$IF" | awk '$1 ~ /^libc\.so/ { print $3 }')
	"$VARSCOPE" record -o t.data --task-func "one_task,nanosleep@$libc" \
		-- "$IF" -n 20 --types sleep --sleep-us 2000 > /dev/null 2> err ||
		{ cat err; false; }
	"$VARSCOPE" script -i t.data --format json > t.json
	run names
	assert_output "$(printf '1 one_task\n2 nanosleep')"
	run "$VARSCOPE" report -i t.data --min-tasks 10 --type one_task --top 1
	assert_success
	assert_line --regexp '^# Task type one_task \(1\): 20 tasks'
}

@test "script filters on a real recording: --min-latency and --slowest against the program's own count" {
	named
	slow=$(sed -n 's/^slow //p' truth)
	[ "$slow" -eq 4 ]
	# the program's 12 ms sleeps took 12 ms or more: they are among the
	# tasks of type set that --min-latency 12ms prints, which are those
	# Python picks from the whole dump
	"$VARSCOPE" script -i t.data --type set --min-latency 12ms \
		--format json | tail -n +2 > got
	python3 -c 'import json
for l in open("t.json"):
    r = json.loads(l)
    if r["kind"] == "task" and r["type"] == 2 and r["latency_ns"] >= 12000000:
        print(json.dumps(r, separators=(",", ":")))' > want
	cmp want got
	[ "$(wc -l <got)" -ge "$slow" ]
	# the slowest 4 of type set: 12 ms or more, slowest first
	"$VARSCOPE" script -i t.data --type set --slowest "$slow" --format json |
		tail -n +2 > slowest
	run python3 -c 'import json, sys
l = [json.loads(x) for x in open("slowest")]
assert all(r["type"] == 2 and r["latency_ns"] >= 12000000 for r in l), l
assert [r["latency_ns"] for r in l] == sorted((r["latency_ns"] for r in l), reverse=True)
print(len(l))'
	assert_output "$slow"
	# a thread of the program: every record printed is that thread's
	tid=$(python3 -c 'import json
for l in open("t.json"):
    r = json.loads(l)
    if r["kind"] == "task":
        print(r["tid"]); break')
	run "$VARSCOPE" script -i t.data --tid "$tid" --format json
	python3 -c 'import json, sys
n = 0
for l in sys.stdin.read().splitlines()[1:]:
    r = json.loads(l)
    assert '"$tid"' in (r.get("tid"), r.get("waker_tid"), r.get("wakee_tid")), l
    n += r["kind"] == "task"
assert n == 121, n' <<<"$output"
}
