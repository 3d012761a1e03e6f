#!/usr/bin/env bats
# t4200-sample-symbols: symbolization of real samples through the trace's
# mappings: a PIE, a shared library, a stripped binary (.dynsym), a binary
# replaced after the recording (build-id mismatch: reported, never
# symbolized with the new file), kernel functions from /proc/kallsyms, and
# JIT code named in /tmp/perf-PID.map.

load test-lib

FUNCS=$BUILD/t/helper/task-funcs
PROG=$SRC/t/t4200

setup() {
	vs_setup
	require_root
	require_tracefs
	"$VS_CC" $VS_APP_CFLAGS -O2 -fPIC -shared -fno-omit-frame-pointer -o libhot.so \
		"$PROG/lib.c"
}

# build NAME FLAGS...: the test program, linked with libhot.so
build() {
	local name=$1

	shift
	"$VS_CC" $VS_APP_CFLAGS -O2 -fno-omit-frame-pointer -I"$SRC/include" \
		"$@" -o "$name" \
		"$PROG/prog.c" -L. -lhot -Wl,-rpath,"$TEST_TMP" \
		"$VS_LIBDIR/libvarscope.a" -lpthread
}

# record MODE: record ./prog MODE with samples into MODE.data, then the
# per-task function times into MODE.json
record() {
	"$VARSCOPE" record --sample -F 4000 -o "$1.data" -- ./prog "$1" \
		2> "$1.err"
	"$FUNCS" "$1.data" > "$1.json"
}

# top MODE: the function holding most samples, as "name file"
top() {
	python3 - "$1.json" <<'PY'
import collections, json, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    for name, f in r.get("funcs", {}).items():
        c[(name, f["file"])] += f["samples"]
(name, file), n = c.most_common(1)[0]
assert n >= 100, c.most_common(5)
print(name, file)
PY
}

@test "a PIE's function is named from its .symtab" {
	build prog -fPIE -pie
	readelf -h prog | grep -q "DYN"
	record app
	run top app
	assert_output "app_hot $TEST_TMP/prog"
}

@test "a shared library's function is named in the library" {
	build prog -fPIE -pie
	record lib
	run top lib
	assert_output "lib_hot $TEST_TMP/libhot.so"
}

@test "a stripped binary's exported function is named from .dynsym" {
	build prog -no-pie -rdynamic
	strip --strip-all prog
	! readelf -S prog | grep -q '\.symtab'
	readelf --dyn-syms prog | grep -q app_hot
	record app
	run top app
	assert_output "app_hot $TEST_TMP/prog"
}

@test "a binary replaced after the recording is reported, not mis-symbolized" {
	build prog -fPIE -pie
	record app
	old=$(readelf -n prog | grep "Build ID")
	# another build at the same path: same names, other addresses
	build prog.new -fPIE -pie -DVARIANT=2 -O0
	mv prog.new prog
	[ "$(readelf -n prog | grep "Build ID")" != "$old" ]
	"$FUNCS" app.data > after.json
	run grep -c app_hot after.json
	assert_output 0
	grep -q "\"stale\":\[\"$TEST_TMP/prog\"\]" after.json
	run "$VARSCOPE" report -i app.data --top 1
	assert_success
	assert_output --partial "warning: $TEST_TMP/prog changed since the recording (build-id differs)"
	refute_output --partial "func:app_hot"
}

@test "kernel functions are named from /proc/kallsyms" {
	build prog -fPIE -pie
	record kernel
	python3 - kernel.json <<'PY'
import collections, json, sys
syms = {l.split()[2] for l in open("/proc/kallsyms")
        if l.split()[1] in "tTwW"}
c = collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    for name, f in r.get("funcs", {}).items():
        if f["file"] == "[kernel]":
            c[name] += f["samples"]
assert sum(c.values()) > 50, c
assert all(n in syms or n == "[kernel]" for n in c), c
assert any("dup" in n or "close" in n or "syscall" in n for n in c), c
PY
}

@test "JIT code is named from /tmp/perf-PID.map" {
	build prog -fPIE -pie
	record jit
	run top jit
	assert_output "jitted_loop [jit]"
	pid=$(python3 -c "
import json
for l in open('jit.json'):
    r = json.loads(l)
    if 'tid' in r:
        print(r['tid']); break")
	rm -f "/tmp/perf-$pid.map"
}
