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

@test "a stripped binary: functions without symbols named by their start, never a neighbour's" {
	build callers.full -fno-omit-frame-pointer
	strip --strip-all -o callers callers.full
	! readelf -S callers | grep -q '\.symtab'
	"$VARSCOPE" record --sample -F 4000 -o st.data \
		-- ./callers 400 annotate 100000 2>rec.err
	frames st.data > frames.txt
	nm callers.full | python3 -c '
import sys
for l in sys.stdin:
    f = l.split()
    if len(f) < 3:
        continue
    a, t, name = f[:3]
    if t in "tT":
        print("callers+0x%x" % int(a, 16), name)' > starts.txt
	hash=$(awk '$2 == "hash" { print $1 }' starts.txt)
	# the leaf holds the most samples, under its own start
	run awk 'NR == 1 { print $1 }' frames.txt
	assert_output "$hash"
	# every function of the binary in the chains starts where nm says a
	# function starts, none merged into the function before it
	run python3 - <<-'PY'
	starts = dict(l.split() for l in open("starts.txt"))
	seen = {l.split()[0] for l in open("frames.txt")
	        if l.startswith("callers") or l.startswith("[callers")}
	assert seen <= set(starts), sorted(seen - set(starts))
	print(" ".join(sorted(starts[s] for s in seen)))
	PY
	assert_success
	assert_output --regexp "^hash .*main serve$"
}
