#!/usr/bin/env bats
# t1100-script: varscope script, text and JSON lines, and its errors.

load test-lib

GEN=$BUILD/t/helper/gen-trace

@test "script --format json prints one parseable object per line with a kind" {
	"$GEN" --every-kind --tasks 20 --samples-per-task 2
	run python3 -c 'import json, sys
n = 0
for line in sys.stdin:
    r = json.loads(line)
    assert isinstance(r["kind"], str), line
    n += 1
print(n)' < <("$VARSCOPE" script --format json)
	assert_success
	# header + 8 events + epoch + 19 every-kind + 20 tasks + 40 samples
	assert_output 89
}

@test "script --format json task lines carry the documented fields" {
	"$GEN" -o t.data --tasks 200 --events 20 --seed 3
	run python3 -c 'import json, sys
tasks = 0
for line in sys.stdin:
    r = json.loads(line)
    if r["kind"] != "task":
        continue
    tasks += 1
    for k in ("type", "tid", "pid", "cpu", "id", "epoch", "flags",
              "start_ns", "end_ns", "latency_ns"):
        assert isinstance(r[k], int), (k, line)
    assert r["latency_ns"] == r["end_ns"] - r["start_ns"]
    v = r["values"]
    assert len(v) == 20 and "run.time" in v and "ev.3" in v, v
    assert all(isinstance(x, int) for x in v.values())
print(tasks)' < <("$VARSCOPE" script -i t.data --format json)
	assert_success
	assert_output 200
}

@test "script --format json escapes strings" {
	"$GEN" -o e.data --every-kind --tasks 1
	run python3 -c 'import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["kind"] == "meta":
        print(repr(r["value"]))
    if r["kind"] == "mmap":
        print(r["build_id"], r["filename"])' < <("$VARSCOPE" script -i e.data --format json)
	assert_success
	assert_line "'gen-trace \"x\"\\t\\\\'"
	assert_line "deadbeef0102030405060708090a0b0c0d0e0fff /usr/bin/synthetic"
}

@test "script text prints one line per record, like perf script" {
	"$GEN" -o t.data --every-kind --tasks 5 --samples-per-task 1
	json=$("$VARSCOPE" script -i t.data --format json | wc -l)
	run "$VARSCOPE" script -i t.data
	assert_success
	# three header comment lines instead of one JSON header line
	[ "${#lines[@]}" -eq $((json + 2)) ]
	# the version of this build's writer, as the JSON header says it
	version=$("$VARSCOPE" script -i t.data --format json | head -1 |
		python3 -c 'import json, sys
h = json.load(sys.stdin)
print("%d.%d" % (h["major"], h["minor"]))')
	assert_line --index 0 "# varscope trace format $version, written by gen-trace"
	assert_line --regexp '^ +1\.[0-9]{9} task +id=1 type=[0-2] pid=1000 tid=1000 cpu=0 epoch=0 flags=0 start_ns=[0-9]+ end_ns=[0-9]+ latency_ns=[0-9]+ run\.time=[0-9]+ sched\.blocked\.time=[0-9]+ '
	assert_line --regexp '^ +- event_def +id=0 parent=65535 group=0 name="run\.time" unit="ns"$'
	assert_line --regexp '^ +1\.[0-9]{9} sample +time_ns=[0-9]+ pid=1000 tid=1001 cpu=1 flags=0xf ip=0x401234 period=20011 addr=0x7ffd0000 weight=312 data_src=[0-9]+ callchain=\[0x401234,0x402000,0xfffffffffffffe00\]$'
}

@test "script -i on a missing file: one line, exit status 1" {
	run "$VARSCOPE" script -i missing.data
	assert_failure 1
	assert_output "varscope script: missing.data: No such file or directory"
}

@test "script reads varscope.data by default" {
	run "$VARSCOPE" script
	assert_failure 1
	assert_output "varscope script: varscope.data: No such file or directory"
	"$GEN" --tasks 4
	run "$VARSCOPE" script
	assert_success
	[ "$(grep -c ' task ' <<<"$output")" -eq 4 ]
}

@test "script on a corrupt file: one line with the byte offset, exit status 2" {
	"$GEN" -o c.data --tasks 500
	printf 'XXXX' | dd of=c.data bs=1 seek=200 conv=notrunc status=none
	run "$VARSCOPE" script -i c.data
	assert_failure 2
	assert_line --regexp '^varscope script: c\.data: .* at byte [0-9]+$'
	run "$VARSCOPE" script -i c.data --format json
	assert_failure 2
	assert_line --regexp '^varscope script: c\.data: .* at byte [0-9]+$'
}

@test "script -i - reads the standard input, a pipe or a file" {
	"$GEN" -o t.data --tasks 300 --chunk-records 50
	"$VARSCOPE" script -i t.data > want
	run bash -c '"$VARSCOPE" script -i - < t.data | cmp - want'
	assert_success
	run bash -c 'cat t.data | "$VARSCOPE" script -i - | cmp - want'
	assert_success
	run bash -c 'head -c 5000 t.data | "$VARSCOPE" script -i - >/dev/null'
	assert_success
	assert_output --regexp '^varscope script: warning: -: truncated at byte 5000, '
}

@test "script on a truncated file: warning line, exit status 0" {
	"$GEN" -o t.data --tasks 3000 --chunk-records 500
	head -c 20000 t.data >cut.data
	run "$VARSCOPE" script -i cut.data --format json
	assert_success
	assert_line --regexp '^varscope script: warning: cut\.data: truncated at byte 20000, inside a chunk: read up to the last whole chunk at byte [0-9]+$'
}

@test "script rejects a bad --format with one line naming the option" {
	run "$VARSCOPE" script --format xml
	assert_failure 129
	assert_output --partial "--format"
	[ "${#lines[@]}" -eq 1 ]
}
