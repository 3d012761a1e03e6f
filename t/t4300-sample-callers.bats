#!/usr/bin/env bats
# t4300-sample-callers: function attribution on real binaries, against the
# ground truth of t/t4300/callers.c (the slow requests spend their time in
# a leaf, hash(), called from lookup_b): first frames looked up as they
# are, return addresses one byte back; the callers and inclusive times
# of the ranking, the call paths of the variance tree.

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
	run python3 -c '
import collections, json, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    for name, f in json.loads(line).get("funcs", {}).items():
        c[name] += f["samples"]
print(c.most_common(1)[0][0])' <("$FUNCS" st.data)
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
	assert_output --partial "hash lookup_a lookup_b lookup_c main serve"
}

# callers_check TRACE: every task's hash() samples have their one caller
# of the task (each request calls hash through one of lookup_a, _b, _c),
# and the tasks through lookup_b are the slow ones
callers_check() {
	"$FUNCS" "$1" | python3 -c '
import json, sys
slow, fast, n = [], [], 0
for line in sys.stdin:
    r = json.loads(line)
    f = r.get("frames")
    if not f or not f.get("hash"):
        continue
    n += 1
    callers = [c for c in ("lookup_a", "lookup_b", "lookup_c") if c in f]
    assert len(callers) == 1, f
    # every sample in hash has the caller and serve and main above it;
    # the caller may have a sample or two of its own, in the few
    # instructions around its call (CI: lookup_b 18, hash 17)
    assert f["hash"] <= f[callers[0]] <= f["hash"] + 2, f
    assert f["serve"] >= f["hash"] and f["main"] >= f["hash"], f
    (slow if callers == ["lookup_b"] else fast).append(f["hash"])
# 50 slow requests of some 16 samples in hash, fast ones of 0.4
assert len(slow) >= 45 and len(fast) >= 20, (slow, fast)
print(min(slow) > 4 * max(fast))'
}

# leaf_callers TRACE: the callers report names for func:hash.time, as
# "path share" lines, and checks their JSON shape
leaf_callers() {
	"$VARSCOPE" report -i "$1" --format json | python3 -c '
import json, sys
for t in json.load(sys.stdin)["task_types"]:
    for e in t["ranking"]:
        if e["event"] == "func:hash.time":
            c = e["callers"]
            assert 1 <= len(c) <= 3, c
            assert all(0 < x["share"] <= 1 for x in c), c
            assert sum(x["share"] for x in c) <= 1.0001, c
            for x in c:
                print("%s %.2f" % (x["path"], x["share"]))'
}

# totals TRACE: the inclusive times (func:<symbol>.total) the ranking has,
# as "event ratio" lines: the event's 90th percentile over all tasks (a
# value of a request through lookup_b: 50 of the 400) to that of
# func:hash.time
totals() {
	"$VARSCOPE" report -i "$1" --pthreshold 0.9 --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)["task_types"][0]["ranking"]
p90 = {e["event"]: e["threshold"] for e in r}
for name in sorted(p90):
    if name.endswith(".total"):
        print("%s %.2f" % (name, p90[name] / p90["func:hash.time"]))'
}

# top_factor TRACE: the variance tree's top factor, then the callers of
# its nodes of hash, one node each
top_factor() {
	"$VARSCOPE" report -i "$1" --tree --format json | python3 -c '
import json, sys
t = json.load(sys.stdin)["task_types"][0]["variance_tree"]
print(t["factors"][0]["factor"])
fn = {n["id"]: n["function"] for n in t["nodes"]}
print(*sorted(fn[n["parent"]] for n in t["nodes"] if n["function"] == "hash"))'
}

@test "dwarf call chains: a frameless leaf under its caller, no frame pointers" {
	build callers -fomit-frame-pointer
	# hash() sets up no frame, nor do its callers
	! objdump -d callers | grep -A3 '<hash>:' | grep -q 'push *%rbp'
	"$VARSCOPE" record --sample -F 4000 -o cg.data \
		-- ./callers 400 annotate 100000 2>rec.err
	grep -q "call-graph=dwarf" <("$VARSCOPE" script -i cg.data)
	run callers_check cg.data
	assert_success
	assert_output True
	# the slow requests' leaf time is lookup_b's: first of its callers
	run leaf_callers cg.data
	assert_success
	assert_line --index 0 --regexp "^main → serve → lookup_b → hash (0\.9[5-9]|1\.00)$"
	# text: the callers after the event's notes
	run "$VARSCOPE" report -i cg.data
	assert_line --regexp "func:hash\.time .*callers: main → serve → lookup_b → hash [0-9]+%"
	# inclusive time, ranked like any event: lookup_b's in its requests
	# holds their hash time, and the kernel's under it (an interrupt
	# taken in hash is in no hash.time); its siblings' little; serve and
	# main, on every sample, have none
	run totals cg.data
	assert_success
	assert_line --regexp "^func:lookup_b\.total (0\.9[5-9]|1\.[0-9][0-9])$"
	assert_line --regexp "^func:lookup_a\.total 0\.[01][0-9]$"
	assert_line --regexp "^func:lookup_c\.total 0\.[01][0-9]$"
	refute_line --regexp "^func:(serve|main)\.total"
	# the tree's nodes are call paths: hash under lookup_b is its own
	# node, the top factor, named by its path; under each lookup one
	run top_factor cg.data
	assert_line --index 0 "Var(serve → lookup_b → hash)"
	assert_line --index 1 "lookup_a lookup_b lookup_c"
}

@test "dwarf call chains: the same with frame pointers, whose leaf has none" {
	build callers -fno-omit-frame-pointer
	"$VARSCOPE" record --sample -F 4000 --call-graph dwarf,4096 \
		-o cg.data -- ./callers 400 annotate 100000 2>rec.err
	run callers_check cg.data
	assert_success
	assert_output True
	run leaf_callers cg.data
	assert_success
	assert_line --index 0 --regexp "^main → serve → lookup_b → hash (0\.9[5-9]|1\.00)$"
	run top_factor cg.data
	assert_line --index 0 "Var(serve → lookup_b → hash)"
	assert_line --index 1 "lookup_a lookup_b lookup_c"
}

@test "--call-graph: errors name the option" {
	run "$VARSCOPE" record --call-graph dwarf -- true
	assert_failure 129
	assert_output --partial "call-graph"
	run "$VARSCOPE" record --sample --call-graph lbr -- true
	assert_failure 129
	assert_output --partial "fp or dwarf"
	run "$VARSCOPE" record --sample --call-graph dwarf,70000 -- true
	assert_failure 129
	assert_output --partial "65528"
}
