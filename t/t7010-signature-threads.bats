#!/usr/bin/env bats
# t7010-signature-threads: signature build on a program whose two threads
# are inside the same function at the same time, their system calls
# strictly alternating (t/t7010/rally.c): the executions of one thread
# are not cut up by the calls of the other.

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
	"$VS_CC" -O2 -fno-omit-frame-pointer -pthread -o rally \
		"$SRC/t/t7010/rally.c"
}

# Print, for the signature file $1, Python expression $2 over execs (name
# -> executions) and eps (name -> {episode as a tuple: support}).
signature_eval() {
	"$VARSCOPE" script -i "$1" --format json >sig.json
	python3 -c 'import json, sys
funcs, execs, eps = {}, {}, {}
for l in open("sig.json"):
    r = json.loads(l)
    if r["kind"] == "sig_func":
        funcs[r["id"]] = r["name"]
        execs[r["name"]] = r["executions"]
        eps[r["name"]] = {}
    elif r["kind"] == "sig_episode":
        eps[funcs[r["func"]]][tuple(r["syscalls"])] = r["support"]
print(*eval(sys.argv[1]))' "$2"
}

# 500 rounds: each thread runs rally() once and hit() 500 times; hit
# writes (1) and reads (0), in one order or the other.
RALLY_TRUTH='(execs["rally"], execs["hit"], sorted(eps["hit"]))'
RALLY_EXPECTED='2 1000 [(0, 1), (1, 0)]'

@test "two threads in one function at once: executions apart" {
	run "$VARSCOPE" signature build -o r.sig -- ./rally 500
	assert_success
	run signature_eval r.sig "$RALLY_TRUTH"
	assert_output "$RALLY_EXPECTED"
}

@test "--method=probes: the same executions" {
	require_uprobes
	run "$VARSCOPE" signature build -o p.sig --method=probes \
		--functions 'rally,hit' -- ./rally 500
	assert_success
	run signature_eval p.sig "$RALLY_TRUTH"
	assert_output "$RALLY_EXPECTED"
}
