#!/usr/bin/env bats
# t2600-record-probe: --probe measures functions exactly with a uprobe and
# a uretprobe: one FUNC enter/exit pair per call, whose duration matches
# clock reads taken around the call inside the program.

load test-lib

@test "--probe handle: one enter/exit pair per call, as long as the clock says" {
	require_uprobes
	require_example crossthread
	run "$VARSCOPE" record -o t.data --probe handle -- "$EXAMPLES/crossthread" -n 40 --work-us 300 --print-times
	assert_success
	assert_line "varscope record: 80 --probe function enters and exits written"
	grep '^handle ' <<<"$output" > truth
	[ "$(wc -l < truth)" -eq 40 ]
	"$VARSCOPE" script -i t.data > t.txt
	grep -q 'symbol_def  id=0 .*name="handle"' t.txt
	# the durations of the pairs, in time order, next to the clock's (the
	# recorder writes each CPU's hits as it reads them: a call that
	# migrated may have its exit written before its enter)
	awk '/ func / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["time_ns"], f["dir"]
	}' t.txt | sort -n | awk '$2 == 0 { enter = $1 } $2 == 1 { print $1 - enter }' > probed
	[ "$(wc -l < probed)" -eq 40 ]
	# the probe hits fall between the clock reads, so each call is at most
	# the clock's time, and less by the two hits (~10 us each) -- unless
	# the thread was preempted between a hit and a clock read: allow that
	# in a few calls
	paste probed truth | awk '{
		d = $4 - $1
		if (d < 0) { print "call " NR ": probed " $1 " > clock " $4; bad = 1 }
		if (d > 50000) { print "call " NR ": probed " $1 " clock " $4; far++ }
	} END { exit bad || far > 4 }'
}

@test "--probe of an unknown function: one line naming the option" {
	require_uprobes
	require_example crossthread
	run "$VARSCOPE" record -o t.data --probe no_such_function -- "$EXAMPLES/crossthread" -n 1
	assert_failure
	assert_line --partial "varscope record: --probe: "
	assert_line --partial "no_such_function"
}
