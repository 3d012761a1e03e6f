#!/usr/bin/env bats
# t2500-workloads: the real workloads of the record issue (examples/
# loopbench, membench, pingpong and the annotated memcached) against their
# own ground truth, and recorded: one task record per request, page faults
# of first touches, memcached's gets.

load test-lib

# The summary of an example run with --json, checked for what every
# summary must hold; prints nothing, fails with the reason.
#	check_summary FILE REQUESTS
check_summary() {
	python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
assert s["requests"] == want, ("requests", s["requests"], want)
assert s["seconds"] > 0 and s["requests_per_second"] > 0, s
assert 0 < s["cpu_seconds"] < s["seconds"] * (s["threads"] + 2), s
l = s["latency_ns"]
assert 0 < l["min"] <= l["p50"] <= l["p90"] <= l["p99"] <= l["p999"] <= l["max"], l
assert l["min"] <= l["mean"] <= l["max"], l' "$1" "$2"
}

# One value of a --json summary: json_get FILE KEY
json_get() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# Task records of a trace per type: "TYPE COUNT" lines.
task_counts() {
	"$VARSCOPE" script -i "$1" --format json | python3 -c 'import json, sys, collections
n = collections.Counter()
for line in sys.stdin:
    r = json.loads(line)
    if r["kind"] == "task":
        n[r["type"]] += 1
for t in sorted(n):
    print(t, n[t])'
}

@test "loopbench runs the requests asked for and prints p50/p99" {
	require_example loopbench
	run "$EXAMPLES/loopbench" -n 2000
	assert_success
	assert_line --index 0 --regexp '^loopbench: 2000 requests, 1 thread, [0-9.]+ s, [0-9]+ requests/s, [0-9.]+ us CPU per request$'
	assert_line --index 1 --regexp '^latency \(us\): min [0-9.]+  p50 [0-9.]+  p90 [0-9.]+  p99 [0-9.]+  p99\.9 [0-9.]+  max [0-9.]+  mean [0-9.]+$'

	"$EXAMPLES/loopbench" -n 3001 -t 2 --json >int.json
	check_summary int.json 3001
	[ "$(json_get int.json threads)" = 2 ]
	"$EXAMPLES/loopbench" -n 500 --long --max 1000 --json >long.json
	check_summary long.json 500
}

# stack_counter FILE SUFFIX REG: the loop in FILE adds one to a stack
# slot and reads the slot back (into REG, or compares it in memory):
# gcc's "addSUFFIX $0x1,SLOT", or clang's "add $0x1,%REG; mov %REG,SLOT"
# (both -O0 code).
stack_counter() {
	python3 - "$@" <<'EOF'
import re, sys
asm, suffix, reg = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
slot = r'(-0x[0-9a-f]+\(%rbp\))'
m = re.search(r'add' + suffix + r' +\$0x1,' + slot, asm) or \
    re.search(r'add +\$0x1,%' + reg + r'\n.*\smov +%' + reg + ',' + slot, asm)
load = m and re.escape(m.group(1))
if not m or not re.search(r'mov +' + load + ',%' + reg + '|cmp +%\w+,' + load, asm):
    sys.exit('%s: no counter added to and loaded from a stack slot' % sys.argv[1])
EOF
}

@test "loopbench keeps the paper's unoptimized loops: int and long counters on the stack" {
	require_example loopbench
	require_cmd objdump
	objdump -d --no-show-raw-insn "$EXAMPLES/loopbench" >dis.txt
	# Fig. 6 of the paper: add to the stack slot, then load it back
	awk '/<loop_int>:/,/ret/' dis.txt >int.s
	awk '/<loop_long>:/,/ret/' dis.txt >long.s
	stack_counter int.s l eax
	stack_counter long.s q rax
	# the long loop compares with the int bound sign-extended
	grep -Eq 'cltq|movslq' long.s
}

@test "--duration bounds a run that asks for more requests" {
	require_example loopbench
	require_example pingpong
	run timeout 20 "$EXAMPLES/loopbench" -n 100M -d 200ms --json
	assert_success
	echo "$output" >l.json
	n=$(json_get l.json requests)
	[ "$n" -gt 0 ] && [ "$n" -lt 100000000 ]
	check_summary l.json "$n"

	for client in thread process; do
		run timeout 20 "$EXAMPLES/pingpong" -n 50M -d 200ms --client=$client -t 2 --json
		assert_success
		echo "$output" >p.json
		n=$(json_get p.json requests)
		[ "$n" -gt 0 ] && [ "$n" -lt 50000000 ]
	done
}

@test "membench without prefault: every first touch of a page is a page fault" {
	require_example membench
	"$EXAMPLES/membench" --no-prefault -m 32M -n 20000 -t 2 --json >m.json
	check_summary m.json 20000
	pages=$(json_get m.json pages)
	first=$(json_get m.json first_touch_pages)
	faults=$(json_get m.json minor_faults)
	[ "$pages" -eq 8192 ]
	# 20000 random picks among 8192 pages leave about 8192 * e^-2.44 unseen
	[ "$first" -gt 6500 ] && [ "$first" -le "$pages" ]
	[ "$faults" -ge "$first" ]
}

@test "membench with prefault: requests take almost no page faults" {
	require_example membench
	"$EXAMPLES/membench" -m 64M -n 20000 --json >m.json
	check_summary m.json 20000
	[ "$(json_get m.json first_touch_pages)" -eq 0 ]
	[ "$(json_get m.json minor_faults)" -lt 200 ]
	[ "$(json_get m.json pages)" -eq 16384 ]
}

@test "pingpong echoes every request with client threads and client processes" {
	require_example pingpong
	for client in thread process; do
		run timeout 60 "$EXAMPLES/pingpong" -n 20000 -t 2 --client=$client
		assert_success
		assert_line --index 0 --regexp '^pingpong: 20000 requests, 2 threads, [0-9.]+ s, [0-9]+ requests/s, [0-9.]+ us CPU per request$'
		"$EXAMPLES/pingpong" -n 5000 -s 4096 --client=$client --json >p.json
		check_summary p.json 5000
	done
}

@test "the examples take --help and reject bad options with one line, exit 129" {
	for ex in loopbench membench pingpong; do
		require_example $ex
		run "$EXAMPLES/$ex" --help
		assert_success
		assert_line --index 0 "usage: $ex [<options>]"
		assert_line --partial -- "--requests <n>"
		assert_line --partial -- "--duration <time>"

		run --separate-stderr "$EXAMPLES/$ex" --requests 0
		assert_failure 129
		[ "$stderr" = "$ex: option \`--requests': '0' is not a positive number" ]
		run --separate-stderr "$EXAMPLES/$ex" -d soon
		assert_failure 129
		[ "$stderr" = "$ex: option \`--duration': 'soon' is not a duration" ]
		run "$EXAMPLES/$ex" extra
		assert_failure 129
		assert_output "$ex: unexpected argument 'extra'. See '$ex --help'."
	done
	run --separate-stderr "$EXAMPLES/membench" --memory 12x
	assert_failure 129
	[ "$stderr" = "membench: option \`--memory': '12x' is not a positive number" ]
	run --separate-stderr "$EXAMPLES/pingpong" --client fork
	assert_failure 129
	[ "$stderr" = "pingpong: option \`--client': 'fork' is not thread or process" ]
}

@test "loopbench under record --rate 1: one task record per request" {
	require_example loopbench
	run "$VARSCOPE" record --rate 1 -o loop.data -- "$EXAMPLES/loopbench" -n 3000 -t 2
	assert_success
	run task_counts loop.data
	assert_success
	assert_output "1 3000"
	"$VARSCOPE" record --rate 1 -o long.data -- "$EXAMPLES/loopbench" -n 700 --long
	run task_counts long.data
	assert_output "2 700"
}

@test "membench under record: the tasks' page faults cover the pages touched first" {
	require_example membench
	# a larger kernel ring, so that a busy machine loses no fault event;
	# a task that lost events is flagged and may miss its fault
	"$VARSCOPE" record --rate 1 --mmap-pages 256 -o mem.data -- \
		"$EXAMPLES/membench" --no-prefault -m 16M -n 8000 --json >m.json
	first=$(json_get m.json first_touch_pages)
	[ "$first" -gt 2000 ]
	run python3 -c 'import json, sys
tasks = faults = with_fault = lost = 0
for line in sys.stdin:
    r = json.loads(line)
    if r["kind"] != "task":
        continue
    tasks += 1
    f = r["values"].get("fault.page.count", 0)
    faults += f
    with_fault += f > 0
    lost += r["flags"] & 1
print(tasks, faults, with_fault, lost)' < <("$VARSCOPE" script -i mem.data --format json)
	assert_success
	read -r tasks faults with_fault lost <<<"$output"
	echo "tasks $tasks faults $faults with a fault $with_fault lost $lost first touches $first"
	[ "$tasks" -eq 8000 ]
	[ "$lost" -lt 400 ]
	# every first touch is a fault inside its task.  Known defect of
	# record: a run now and then misses page-fault tracepoint events of a
	# few tasks without flagging them (the tasks' own page-faults
	# counters have them): usually one, once 25 of 3491 on a loaded
	# machine.  Allow 1% until it is fixed.
	slack=$((first / 100))
	[ $((with_fault + lost + slack)) -ge "$first" ]
	[ $((faults + lost + slack)) -ge "$first" ]
	# and the other tasks read pages already mapped: no more faults than
	# the process took
	[ "$faults" -le "$(json_get m.json minor_faults)" ]
}

# --- memcached with the annotation patch (bench/memcached) ---------------

# Start the patched memcached, through "$@" (a recorder command ending in
# --, or nothing), in its own process group; sets MC_PORT and MC_PGID.
start_memcached() {
	MC_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	setsid "$@" "$SRC/build/memcached/memcached" -U 0 -l 127.0.0.1 \
		-p "$MC_PORT" -t 2 -u root >mc.log 2>&1 &
	MC_PGID=$!
	for _ in $(seq 100); do
		python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' \
			"$MC_PORT" 2>/dev/null && return 0
		sleep 0.1
	done
	cat mc.log
	return 1
}

# Ctrl-C to the group, as a user stops a recording; wait for it.
stop_memcached() {
	kill -INT -- "-$MC_PGID" 2>/dev/null
	for _ in $(seq 200); do
		kill -0 "$MC_PGID" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL -- "-$MC_PGID"
	return 1
}

teardown() {
	[ -n "$MC_PGID" ] && kill -KILL -- "-$MC_PGID" 2>/dev/null
	return 0
}

# make test builds it first, from Debian's source package (test-setup in
# the Makefile): a test fetches nothing
build_memcached() {
	require_root
	require_cmd memcaslap
	[ -x "$SRC/build/memcached/memcached" ] || {
		echo "build/memcached/memcached is missing: make test-setup builds it"
		false
	}
}

@test "memcached with the annotation patch serves memcaslap (slow)" {
	build_memcached
	start_memcached
	run timeout 60 memcaslap -F "$SRC/bench/memcached/memaslap.cnf" \
		-s "127.0.0.1:$MC_PORT" -x 20000 -c 8 -T 2
	assert_success
	assert_line "cmd_get: 18000"
	assert_line "cmd_set: 2000"
	assert_line "get_misses: 0"
	stop_memcached
}

@test "memcached under record: one get task per memcaslap get (slow)" {
	build_memcached
	start_memcached "$VARSCOPE" record --rate 1 -o mc.data --
	run timeout 60 memcaslap -F "$SRC/bench/memcached/memaslap.cnf" \
		-s "127.0.0.1:$MC_PORT" -x 20000 -c 8 -T 2
	assert_success
	assert_line "cmd_get: 18000"
	stop_memcached
	run task_counts mc.data
	assert_success
	# every get and every set is one task; allow 1% for requests still
	# open when the recording stopped
	gets=$(awk '$1 == 1 { print $2 }' <<<"$output")
	sets=$(awk '$1 == 2 { print $2 }' <<<"$output")
	[ "$gets" -ge 17820 ] && [ "$gets" -le 18000 ]
	[ "$sets" -ge 1980 ] && [ "$sets" -le 2000 ]
}
