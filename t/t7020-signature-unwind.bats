#!/usr/bin/env bats
# t7020-signature-unwind: signature build --method=callchain on system
# calls whose stacks the kernel's frame-pointer walk gets wrong
# (t/t7020/bigframe.c): the C library's open with %rbp in other use under
# a 4 KB frame, uname from inside gethostname, glibc's clone3 stub without
# unwind rules; built with frame pointers and without.  Each function's
# executions are exactly as many as it ran.  And a stack deeper than the
# stack copy (t/t7020/deep.c): past the copy, the kernel's frame-pointer
# walk goes on.

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
}

# Build t/t7020/$1.c with compiler flags $2, profile 100 rounds and print
# the executions of functions $3...
executions() {
	local prog=$1 flags=$2

	shift 2
	"$VS_CC" -O2 $flags -pthread -o "$prog" "$SRC/t/t7020/$prog.c"
	"$VARSCOPE" signature build -o b.sig -- "./$prog" 100 2>build.log
	"$VARSCOPE" script -i b.sig --format json >sig.json
	python3 -c 'import json, sys
execs = {}
for l in open("sig.json"):
    r = json.loads(l)
    if r["kind"] == "sig_func":
        execs[r["name"]] = r["executions"]
print(*(execs.get(f, 0) for f in sys.argv[1:]))' "$@"
}

@test "frame pointers: one execution of serve, one per call of each callee" {
	run executions bigframe -fno-omit-frame-pointer \
		serve open_path host_name new_thread
	assert_success
	assert_output "1 100 100 100"
}

@test "no frame pointers: the same, from the .eh_frame rules alone" {
	run executions bigframe -fomit-frame-pointer \
		serve open_path host_name new_thread
	assert_success
	assert_output "1 100 100 100"
}

@test "a stack deeper than the copy: the kernel's frame-pointer walk goes on" {
	run executions deep -fno-omit-frame-pointer main outer descend ping
	assert_success
	assert_output "1 1 1 100"
	run cat build.log
	refute_output --partial "were cut"
}
