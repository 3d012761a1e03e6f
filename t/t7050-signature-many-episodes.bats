#!/usr/bin/env bats
# t7050-signature-many-episodes: signature build on a function that makes
# 20 system calls in a new random order at each of its 500 executions
# (t/t7050/every-order.c): 116,280 candidate episodes of length 4, each
# about 21 times in the run.  Mining counts the 16384 made from the most
# frequent episodes of length 3 and says so in one line; the signature
# holds those of them that were frequent, not every order (without the
# cap, about 100,000, each counted over every sequence).

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
	"$VS_CC" -O2 -fno-omit-frame-pointer -o every-order \
		"$SRC/t/t7050/every-order.c"
}

@test "20 calls in every order: 16384 candidates of length 4 counted, said in one line" {
	run --separate-stderr "$VARSCOPE" signature build -o eo.sig -- \
		./every-order 500
	assert_success
	[[ "$stderr" =~ "varscope signature: "[0-9]+" functions had more than 16384 candidate episodes of a length: those of the most frequent shorter ones were counted" ]]
	"$VARSCOPE" script -i eo.sig --format json > sig.json
	run python3 -c 'import json
funcs, n = {}, {}
for l in open("sig.json"):
    r = json.loads(l)
    if r["kind"] == "sig_func":
        funcs[r["id"]] = r["name"]
    elif r["kind"] == "sig_episode" and funcs[r["func"]] == "every_order":
        k = len([c for c in r["syscalls"] if c != 65535])
        n[k] = n.get(k, 0) + 1
print(n.get(4, 0))'
	assert_success
	# those counted that were frequent (10 times at least, 21 on
	# average with no record lost): none beyond them (116,280 orders)
	[ "$output" -le 16384 ]
	[ "$output" -ge 1000 ]
}
