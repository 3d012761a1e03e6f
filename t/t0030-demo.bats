#!/usr/bin/env bats
# t0030-demo: "make demo", the README's first command, records the example
# workload and prints a report that says what the demo says it shows.
# varscope-test: exclusive

load test-lib

@test "the demo records 400 tasks and ranks each type's injected cause first" {
	require_root
	require_tracefs
	require_example interfere
	run --separate-stderr env VARSCOPE="$VARSCOPE" VS_BUILD="$BUILD" \
		"$SRC/scripts/demo.sh"
	assert_success
	[[ $stderr == *"400 tasks of "*" written to $BUILD/demo.data"* ]] ||
		fail "record: $stderr"
	# the first ranked event of each task type, as the demo promises
	first=$(awk '/^# Task type/ { type = $4 } $1 == 1 && type { print type, $2 }' <<<"$output")
	assert_equal "$(sed -n 1p <<<"$first")" "1: sched.blocked.time"
	[[ $(sed -n 2p <<<"$first") =~ ^2:\ (fault.page.count|page-faults)$ ]] ||
		fail "type 2 ranks $(sed -n 2p <<<"$first") first"
	assert_line --partial "expected: sched.blocked.time first for type 1"
}
