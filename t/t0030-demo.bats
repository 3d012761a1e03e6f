#!/usr/bin/env bats
# t0030-demo: "make demo", the README's first command, records the example
# workload and prints a report that says what the demo says it shows.
# varscope-test: exclusive

load test-lib

# first_or_tied TYPE EVENT...: one of the EVENTs has the first impact of
# TYPE in r.json, or ties with it, and at least 50%.  Tied: their 95%
# confidence intervals overlap, or the first's impact is within 1% of
# the EVENT's (two events high in the same slow tasks but one have the
# same impact to that much, however narrow their bootstrap intervals)
first_or_tied() {
	python3 - "$@" <<'EOF'
import json, sys
t = [t for t in json.load(open("r.json"))["task_types"]
     if t["type"] == int(sys.argv[1])][0]
r = t["ranking"]
best = max((e for e in r if e["event"] in sys.argv[2:]),
           key=lambda e: e["impact"], default=None)
tied = (best and (best["ci"][1] >= r[0]["ci"][0] or
                 r[0]["impact"] <= 1.01 * best["impact"]))
if not best or best["impact"] < 0.5 or not tied:
    sys.exit("type %s: %s" % (sys.argv[1],
             [(e["event"], round(e["impact"], 3), e["ci"]) for e in r[:5]]))
EOF
}

@test "the demo records 400 tasks and ranks each type's injected cause first" {
	require_root
	require_tracefs
	require_example interfere
	run --separate-stderr env VARSCOPE="$VARSCOPE" VS_BUILD="$BUILD" \
		"$SRC/scripts/demo.sh"
	assert_success
	[[ $stderr == *"400 tasks of "*" written to $BUILD/demo.data"* ]] ||
		fail "record: $stderr"
	# each type's cause ranks first, or ties with the first: events high
	# in the same slow tasks (the longer fault storms take more timer
	# ticks) have the same impact, in no special order
	"$VARSCOPE" report -i "$BUILD/demo.data" --ptarget 0.9 --ci \
		--format json >r.json
	first_or_tied 1 sched.blocked.time
	first_or_tied 2 fault.page.count page-faults
	assert_line --partial "expected: sched.blocked.time first for type 1 (sleep)"
}
