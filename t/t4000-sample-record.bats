#!/usr/bin/env bats
# t4000-sample-record: varscope record --sample on real kernel samples.
# This machine has no PMU, so it samples cpu-clock and says so in one
# line; the samples land in the trace only inside selected tasks (the
# thread's ring is paused outside them), with thread, cpu, time, ip and a
# callchain, and the mappings with build-ids that symbolize them.

load test-lib
load record-lib

CHECK=$SRC/t/helper/sample-check.py

# record_if_sample RECORD-OPTIONS -- INTERFERE-OPTIONS: like record_if
record_if_sample() {
	local opts=()

	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	"$VARSCOPE" record -o t.data "${opts[@]}" -- "$IF" "$@" > truth 2> err
	"$VARSCOPE" script -i t.data --format json > t.json
}

# The cpu-clock fallback tests need a machine without PEBS.
require_pmu_absent() {
	local d

	for d in cpu cpu_core; do
		[ -d "/sys/bus/event_source/devices/$d" ] &&
			skip "this machine has a PMU: it samples PEBS"
	done
	return 0
}

# samples EXPR: check EXPR over where the samples of t.json fall
samples() {
	"$CHECK" "$1" < t.json
}

@test "without PEBS, --sample says cpu-clock in one line and writes samples" {
	require_pmu_absent
	# fp: the rate is under test here, not the chains (t4300); a dwarf
	# sample carries 8 KiB through the ring, which a loaded machine
	# keeping the recorder away fills (varscope-record(1), Ring size)
	record_if_sample --sample -F 5000 -m 256 --call-graph fp -- -n 100 \
		--types compute --work-us 2000
	run grep -c "no PEBS" err
	assert_output 1
	grep -q "sampling cpu-clock at 5000 Hz" err
	grep -q '"key":"sample","value":"cpu-clock period=200000ns call-graph=fp"' t.json
	# 100 tasks of about 2 ms at 5 kHz: about 1000 samples.  The tasks'
	# length comes from interfere's calibration, which a loaded VM can
	# fool by 2-3x (tasks of 0.9 ms seen); the rate holds whatever it is,
	# per ms of the tasks' CPU time (a preempted task runs less than its
	# latency)
	samples 'samples > 200 and lossy < 25 and 3.5 < per_cpu_ms < 6.5'
	# every sample has a thread of the command, a time and a callchain
	python3 - t.json <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
pids = {r["pid"] for r in recs if r["kind"] == "task"}
s = [r for r in recs if r["kind"] == "sample"]
assert all(r["pid"] in pids and r["tid"] and r["time_ns"] for r in s), s[0]
assert all(len(r["callchain"]) >= 2 for r in s), "short callchains"
assert all(r["period"] == 200000 for r in s)
PY
}

@test "samples fall inside the tasks of their thread" {
	record_if_sample --sample -F 10000 -- -n 40 --types compute --work-us 2000
	# a sample taken in the library's system calls between a task's
	# clock read and the pause of the ring (or the resume and the clock
	# read) falls just outside it: tens of us per task in this VM
	samples 'inside > 0.95 * samples'
}

@test "the sample volume follows the selection rate" {
	# (-r 1: a recorder that a loaded machine keeps from its CPU for
	# 100 ms loses samples, counted, and their tasks are left out; this
	# test is of the selection, so it drains in time)
	record_if_sample --rate 0.25 --sample -F 10000 -m 1024 -r 1 -- \
		-n 160 --types compute --work-us 2000
	samples 'inside > 0.95 * samples'
	# gated: as many samples per ms of recorded task as with rate 1, so
	# about a quarter of the ungated count
	samples 'lossy < 10 and 7 < per_cpu_ms < 12'
	run grep -o '^varscope record: [0-9]* tasks' err
	n=${output#varscope record: }
	n=${n% tasks}
	[ "$n" -gt 20 ] && [ "$n" -lt 90 ] || fail "$n tasks recorded"
}

@test "samples a full ring lost are counted, those at the end too" {
	require_pmu_absent
	# an 8-page ring holds 3 samples with their stacks, 0.3 ms of them:
	# many are lost, and on a loaded machine most of them after the
	# ring's last read, where the kernel never writes their count.
	# Samples written and lost together are those the filter kept, 10
	# per ms of the tasks' CPU time at 10 kHz
	record_if_sample --sample -F 10000 -m 8 -- -n 40 --types compute \
		--work-us 2000
	grep -E -q "^varscope record: [0-9]+ samples? lost \(a CPU's sample ring was full\)" err
	samples 'lost > 0 and 0.8 * 10 * cpu_ms < samples + lost < 1.15 * 10 * cpu_ms'
}

@test "--sample-period is ns of cpu-clock without PEBS" {
	require_pmu_absent
	record_if_sample --sample --sample-period 500000 -- \
		-n 20 --types compute --work-us 2000
	grep -q "sampling cpu-clock at 2000 Hz" err
	grep -q '"value":"cpu-clock period=500000ns call-graph=dwarf"' t.json
	# 2 samples per ms of CPU time; per ms of latency, a loaded machine
	# that preempts the tasks gives fewer (0.91 seen)
	samples '1.5 < per_cpu_ms < 2.5'
}

@test "--sample=cpu-clock forces the software clock" {
	record_if_sample --sample=cpu-clock -F 2000 -- \
		-n 10 --types compute --work-us 2000
	grep -q "sampling cpu-clock every 500000 ns" err
}

@test "mappings with build-ids are in the trace for symbolization" {
	record_if_sample --sample -- -n 5 --types compute --work-us 1000
	# the default --call-graph dwarf: each sample has its 17 user
	# registers and its stack, up to 8 KiB from the stack pointer
	python3 - t.json <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
s = [r for r in s if r["kind"] == "sample"]
assert s and all(r["flags"] & 32 and len(r["regs"]) == 17 and
                 0 < len(r["stack"]) <= 1024 for r in s), "no user stacks"
PY
	grep '"kind":"mmap"' t.json | grep 'examples/interfere"' |
		grep -q '"build_id":"[0-9a-f]\{40\}"'
}

@test "--sample with --task-func samples the function's calls" {
	require_pmu_absent
	require_uprobes
	# 20 calls of 5 ms of work at 4 kHz: about 400 samples in them
	record_if_sample --sample --task-func one_task -- -n 20 \
		--types compute --work-us 5000
	grep -q "function calls written" err
	samples 'inside > 100 and inside > 0.5 * samples'
	# symbolized: the tree has the function the samples fell in
	run "$VARSCOPE" report -i t.data --min-tasks 1 --tree
	assert_success
	assert_output --partial "one_task"
}

@test "sampling options: errors name the option" {
	run "$VARSCOPE" record --sample-period 1000 -- true
	assert_failure 129
	assert_output --partial "sample-period"
	run "$VARSCOPE" record -F 1000 -- true
	assert_failure 129
	run "$VARSCOPE" record --sample -F 1000 --sample-period 5 -- true
	assert_failure 129
	run "$VARSCOPE" record --sample=bogus -o x.data -- true
	assert_failure
	assert_output --partial "unknown event 'bogus'"
}
