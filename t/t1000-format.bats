#!/usr/bin/env bats
# t1000-format: the trace format seen from outside, through the synthetic
# trace generator and varscope script: determinism, every record kind,
# compatibility across versions, truncation and corruption.

load test-lib

GEN=$BUILD/t/helper/gen-trace

# Count the JSON lines of each kind: "kind count" lines, sorted.
kinds() {
	"$VARSCOPE" script -i "$1" --format json |
		python3 -c 'import json, sys, collections
c = collections.Counter(json.loads(l)["kind"] for l in sys.stdin)
for k in sorted(c): print(k, c[k])'
}

# Flip bit $3 of byte $2 of file $1.
flip_bit() {
	python3 -c 'import sys
p, off, bit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(p, "rb").read())
b[off] ^= 1 << bit
open(p, "wb").write(b)' "$@"
}

@test "gen-trace is deterministic for a seed" {
	"$GEN" -o a.data --tasks 2000 --seed 7 --samples-per-task 2
	"$GEN" -o b.data --tasks 2000 --seed 7 --samples-per-task 2
	"$GEN" -o c.data --tasks 2000 --seed 8 --samples-per-task 2
	cmp a.data b.data
	! cmp -s a.data c.data
}

@test "a record of every kind survives writing and reading" {
	"$GEN" -o all.data --every-kind --tasks 3 --samples-per-task 1
	run kinds all.data
	assert_success
	for k in header event_def task sample syscall func symbol_def comm \
		 process mmap epoch lost segment meta attach wakeup type_name ran_instead sig_func \
		 sig_episode; do
		assert_line --regexp "^$k [0-9]+$"
	done
	assert_line "task 3"
	assert_line "syscall 2"
}

@test "a file from a newer minor version with an unknown kind reads" {
	"$GEN" -o new.data --unknown-kind --tasks 50
	run "$VARSCOPE" script -i new.data --format json
	assert_success
	assert_line --index 0 --partial '"major":2,"minor":4,'
	[ "$(grep -c '"kind":"task"' <<<"$output")" -eq 50 ]
	refute_output --partial unknown
}

@test "a file from a newer major version is refused with exit status 2" {
	"$GEN" -o major.data --tasks 5
	flip_bit major.data 9 0		# major 2 -> 258
	run "$VARSCOPE" script -i major.data
	assert_failure 2
	assert_output "varscope script: major.data: format version from the future at byte 8"
}

@test "a file that is not a trace is refused with exit status 2" {
	echo "hello, world, this is not a trace at all" >text.data
	run "$VARSCOPE" script -i text.data
	assert_failure 2
	assert_output "varscope script: text.data: not a varscope trace (bad magic) at byte 0"
}

@test "a FIFO named as the trace is refused at once, not waited on" {
	mkfifo fifo.data
	run timeout 10 "$VARSCOPE" script -i fifo.data
	assert_failure 2
	assert_output "varscope script: fifo.data: not a regular file at byte 0"
	run timeout 10 "$VARSCOPE" report -i fifo.data
	assert_failure 2
}

@test "truncation at a chunk boundary warns and keeps every whole chunk" {
	"$GEN" -o full.data --tasks 1000 --chunk-records 100
	full=$("$VARSCOPE" script -i full.data | grep -c ' task ')
	[ "$full" -eq 1000 ]
	# The end chunk is the last 48 bytes: without it, every record is
	# there and the file is still known to be cut short.
	size=$(stat -c %s full.data)
	head -c $((size - 48)) full.data >cut.data
	run "$VARSCOPE" script -i cut.data
	assert_success
	[ "$(grep -c ' task ' <<<"$output")" -eq 1000 ]
	assert_line "varscope script: warning: cut.data: truncated at byte $((size - 48)), after a whole chunk: the end mark is missing"
}

@test "truncation inside a chunk reads up to the chunk before" {
	"$GEN" -o full.data --tasks 1000 --chunk-records 100
	size=$(stat -c %s full.data)
	head -c $((size / 2)) full.data >half.data
	run "$VARSCOPE" script -i half.data
	assert_success
	assert_line --regexp "^varscope script: warning: half.data: truncated at byte $((size / 2)), inside a chunk: read up to the last whole chunk at byte [0-9]+$"
	n=$(grep -c ' task ' <<<"$output")
	[ "$n" -gt 100 ] && [ "$n" -lt 1000 ]
}

@test "a flipped bit in a chunk is caught by its CRC, exit status 2" {
	"$GEN" -o flip.data --tasks 1000
	size=$(stat -c %s flip.data)
	flip_bit flip.data $((size - 100)) 3
	run "$VARSCOPE" script -i flip.data
	assert_failure 2
	assert_line --regexp "^varscope script: flip.data: chunk CRC mismatch at byte [0-9]+$"
}

@test "gen-trace --size writes about that many bytes" {
	"$GEN" -o sized.data --size 3M
	size=$(stat -c %s sized.data)
	[ "$size" -ge 3145728 ] && [ "$size" -lt 3800000 ]
}

@test "gen-trace --cause adds a high value to a fraction of one type" {
	"$GEN" -o cause.data --tasks 20000 --types 3 \
		--cause sched.blocked.time:1 --cause-frac 0.1 --cause-ns 5ms
	run python3 -c 'import json, sys
n = {0: [0, 0], 1: [0, 0], 2: [0, 0]}
for line in open("/dev/stdin"):
    r = json.loads(line)
    if r["kind"] != "task":
        continue
    high = r["values"]["sched.blocked.time"] >= 5000000
    n[r["type"]][0] += 1
    n[r["type"]][1] += high
    assert not high or r["latency_ns"] >= 5000000
for t in n:
    print(t, round(n[t][1] / n[t][0], 2))' < <("$VARSCOPE" script -i cause.data --format json)
	assert_success
	assert_line "0 0.0"
	assert_line --regexp "^1 0\.(09|1|11)$"
	assert_line "2 0.0"
}

@test "gen-trace --live-events writes sparse values per epoch" {
	"$GEN" -o sparse.data --tasks 100 --events 8 --live-events 3 --epoch-tasks 10
	run kinds sparse.data
	assert_line "epoch 10"
	run python3 -c 'import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["kind"] == "task":
        assert len(r["values"]) == 3, r
print("ok")' < <("$VARSCOPE" script -i sparse.data --format json)
	assert_success
	assert_output ok
}

teardown() {
	if mountpoint -q "$TEST_TMP/fs" 2>/dev/null; then
		umount "$TEST_TMP/fs"
	fi
}

@test "a full disk: the writer fails with ENOSPC, the file keeps its whole chunks" {
	require_root
	mkdir fs
	mount -t tmpfs -o size=1m tmpfs fs 2>/dev/null || skip "cannot mount a tmpfs"
	run "$GEN" -o fs/full.data --tasks 1000000 --chunk-records 1000
	assert_failure 1
	assert_output "gen-trace: fs/full.data: No space left on device"
	cp fs/full.data .
	umount fs
	run "$VARSCOPE" script -i full.data
	assert_success
	n=$(grep -c ' task ' <<<"$output")
	[ "$n" -gt 1000 ] && [ "$n" -lt 1000000 ]
	assert_line --regexp "^varscope script: warning: full.data: truncated at byte [0-9]+, after a whole chunk: the end mark is missing$"
}
