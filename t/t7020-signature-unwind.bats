#!/usr/bin/env bats
# t7020-signature-unwind: signature build --method=callchain on system
# calls whose stacks the kernel's frame-pointer walk gets wrong
# (t/t7020/bigframe.c): the C library's open with %rbp in other use under
# a 4 KB frame, uname from inside gethostname, glibc's clone3 stub without
# unwind rules; built with frame pointers and without.  Each function's
# executions are exactly as many as it ran.

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
}

# Build t/t7020/bigframe.c with compiler flags $1, profile 100 rounds and
# print the executions of serve and of its three callees.
executions() {
	"$VS_CC" -O2 $1 -pthread -o bigframe "$SRC/t/t7020/bigframe.c"
	"$VARSCOPE" signature build -o b.sig -- ./bigframe 100 2>build.log
	"$VARSCOPE" script -i b.sig --format json >sig.json
	python3 -c 'import json
execs = {}
for l in open("sig.json"):
    r = json.loads(l)
    if r["kind"] == "sig_func":
        execs[r["name"]] = r["executions"]
funcs = ("serve", "open_path", "host_name", "new_thread")
print(*(execs.get(f, 0) for f in funcs))'
}

@test "frame pointers: one execution of serve, one per call of each callee" {
	run executions -fno-omit-frame-pointer
	assert_success
	assert_output "1 100 100 100"
}

@test "no frame pointers: the same, from the .eh_frame rules alone" {
	run executions -fomit-frame-pointer
	assert_success
	assert_output "1 100 100 100"
}
