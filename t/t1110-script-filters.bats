#!/usr/bin/env bats
# t1110-script-filters: the filters of varscope script (--type, --tid,
# --min-latency, --slowest, --time), each against the selection Python
# computes from the unfiltered JSON dump of the same trace.

load test-lib

GEN=$BUILD/t/helper/gen-trace

setup() {
	vs_setup
	"$GEN" -o t.data --tasks 3000 --types 3 --seed 5 --wakeups \
		--chunk-records 200 --type-names get,set
	"$VARSCOPE" script -i t.data --format json > all.json
}

# pick PYEXPR: the records of all.json (r, with t0 the recording's start)
# for which PYEXPR holds, one JSON line each, in file order
pick() {
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open("all.json")]
t0 = recs[0]["start_ns"]
def first_time(r):
    for k, v in r.items():
        if k.endswith("_ns") and k != "latency_ns":
            return v
    return None
for r in recs[1:]:
    if eval(sys.argv[1]):
        print(json.dumps(r, separators=(",", ":")))' "$1"
}

# filtered ARGS...: script's JSON lines with ARGS, the header left out
filtered() {
	"$VARSCOPE" script -i t.data --format json "$@" | tail -n +2
}

# same A B: the files hold the same records, line for line
same() {
	python3 -c 'import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert a == b, (len(a), len(b))
print(len(a))' "$1" "$2"
}

@test "script --type: the tasks of a type, by number or name" {
	pick 'r["kind"] == "task" and r["type"] == 1' > want
	[ "$(wc -l <want)" -gt 500 ]
	filtered --type 1 > got
	run same want got
	assert_success
	filtered --type set > got
	same want got
	grep -c '"type_name":"set"' got | grep -qx "$(wc -l <want)"
	# type 2 has no name: its tasks carry none
	filtered --type 2 | grep -c type_name | grep -qx 0
}

@test "script --tid: the records of one thread, wake-ups by waker or wakee" {
	pick '1003 in (r.get("tid"), r.get("waker_tid"), r.get("wakee_tid"))' > want
	grep -q '"kind":"wakeup"' want
	grep -q '"kind":"task"' want
	filtered --tid 1003 > got
	run same want got
	assert_success
	[ "$output" -gt 100 ]
}

@test "script --min-latency: the tasks that took that long or longer" {
	for bound in 0:0 500us:500000 2ms:2000000 0.3ms:300000; do
		pick 'r["kind"] == "task" and r["latency_ns"] >= '"${bound#*:}" > want
		filtered --min-latency "${bound%%:*}" > got
		same want got
	done
	[ "$(wc -l <want)" -gt 10 ]
}

@test "script --slowest: the N slowest of the selection, slowest first" {
	python3 -c 'import json
recs = [json.loads(l) for l in open("all.json")][1:]
t = [r for r in recs if r["kind"] == "task" and r["type"] == 0]
t = sorted(enumerate(t), key=lambda x: (-x[1]["latency_ns"], x[0]))
for _, r in t[:25]:
    print(json.dumps(r, separators=(",", ":")))' > want
	filtered --type get --slowest 25 > got
	run same want got
	assert_success
	assert_output 25
	# more than there are: all of them
	pick 'r["kind"] == "task" and r["type"] == 2' > want
	filtered --type 2 --slowest 100000 | wc -l | grep -qx "$(wc -l <want)"
}

@test "script --time: the records of a time range, through the time index" {
	pick 'first_time(r) is not None and t0 + 20000000 <= first_time(r) < t0 + 50000000' > want
	[ "$(wc -l <want)" -gt 100 ]
	filtered --time 20ms,50ms > got
	run same want got
	assert_success
	pick 'first_time(r) is not None and first_time(r) >= t0 + 60000000' > want
	filtered --time 60ms, > got
	same want got
	# with the other filters
	pick 'r["kind"] == "task" and r["type"] == 1 and t0 <= r["start_ns"] < t0 + 10000000' > want
	filtered --time ,10ms --type set > got
	same want got
}

@test "script --time does not read the chunks before START" {
	# damage the compressed bytes of the 6th chunk (tasks alone)
	python3 -c 'import struct
b = bytearray(open("t.data", "rb").read())
off = struct.unpack_from("<I", b, 12)[0]
for i in range(5):
    off += 48 + struct.unpack_from("<I", b, off + 12)[0]
assert struct.unpack_from("<I", b, off + 4)[0] == 0   # not CONTEXT
b[off + 48 + 10] ^= 0x40
open("bad.data", "wb").write(b)'
	run "$VARSCOPE" script -i bad.data
	assert_failure 2
	last=$(python3 -c 'import json
print(max(json.loads(l).get("end_ns", 0) for l in open("all.json")))')
	start=$(head -1 all.json | python3 -c 'import json, sys; print(json.load(sys.stdin)["start_ns"])')
	from=$(( (last - start) / 1000000 - 20 ))ms
	run --separate-stderr "$VARSCOPE" script -i bad.data --time "$from",
	assert_success
	[ -z "$stderr" ]
	filtered --time "$from", > want
	"$VARSCOPE" script -i bad.data --format json --time "$from", | tail -n +2 > got
	same want got
}

@test "script filters: bad values are one line and status 129" {
	for bad in "--time 2s,1s" "--time 1s" "--time x,2s" "--tid 99999999999" \
		   "--min-latency fast" "--type nosuch" "--slowest many" \
		   "--slowest 0"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$VARSCOPE" script -i t.data $bad
		[ "$status" -eq 129 ] || fail "$bad: status $status"
		[ "$(wc -l <<<"$stderr")" -eq 1 ] || fail "$bad: $stderr"
	done
}
