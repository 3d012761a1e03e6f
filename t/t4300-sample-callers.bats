#!/usr/bin/env bats
# t4300-sample-callers: function attribution on real binaries, against the
# ground truth of t/t4300/callers.c (the slow requests spend their time in
# a leaf, hash(), called from lookup_b): first frames looked up as they
# are, return addresses one byte back.

load test-lib

FUNCS=$BUILD/t/helper/task-funcs

setup() {
	vs_setup
	require_root
	require_tracefs
}

# build NAME FLAGS...: t/t4300/callers.c into ./NAME
build() {
	local name=$1

	shift
	"$VS_CC" $VS_APP_CFLAGS -O2 "$@" -I"$SRC/include" -o "$name" \
		"$SRC/t/t4300/callers.c" "$VS_LIBDIR/libvarscope.a" -lpthread
}

# frames TRACE: per function, the samples that have it in their chains,
# as "name count" lines
frames() {
	"$FUNCS" "$1" | python3 -c '
import collections, json, sys
c = collections.Counter()
for line in sys.stdin:
    for name, n in json.loads(line).get("frames", {}).items():
        c[name] += n
for name, n in c.most_common():
    print(name, n)'
}

@test "--task-func serve: no sample is credited to the function before it" {
	require_uprobes
	build callers -fno-omit-frame-pointer
	# never_called() ends where serve() begins, give or take padding
	nm -n callers | grep -A1 ' never_called$' | grep -q ' serve$'
	"$VARSCOPE" record --sample -F 10000 --task-func serve -o tf.data \
		-- ./callers 20000 plain 200 2>rec.err
	frames tf.data > frames.txt
	# samples at serve's first byte (its uprobe's breakpoint) are
	# serve's: hundreds of them
	run awk '$1 == "serve" { print ($2 >= 50) }' frames.txt
	assert_output 1
	run grep -E '^(never_called|\[callers\]|callers\+0x)' frames.txt
	assert_failure
}
