#!/usr/bin/env bats
# t3300-report-func-events: the function times of record --probe are
# events of the ranking, "func:<symbol>.time", like the sampled ones; with
# both sources a function has one event (the probed time wins).

load test-lib

setup() {
	vs_setup
	require_root
	require_tracefs
	require_uprobes
	require_example vtreebench
}

# func_events FILE: "EVENT TASKS GROUP UNIT" of every func: event of type 1,
# ranked or not
func_events() {
	python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))['task_types'][0]
for key in ('ranking', 'removed', 'not_ranked'):
    for e in t[key]:
        if e['event'].startswith('func:'):
            print(key, e['event'], e['tasks'], e.get('group', ''),
                  e.get('unit', ''))" "$1"
}

@test "report ranks the probed function's time" {
	"$VARSCOPE" record --probe lookup -o t.data -- \
		"$EXAMPLES/vtreebench" > out 2> err || { cat err; false; }
	grep -q "600 --probe function enters and exits written" err
	"$VARSCOPE" report -i t.data --format json > t.json
	run func_events t.json
	assert_output "ranking func:lookup.time 300 FUNC ns"
}

@test "sampled and probed: one event per function" {
	"$VARSCOPE" record --sample=cpu-clock --sample-period 50000 \
		--probe lookup -o t.data -- "$EXAMPLES/vtreebench" \
		> out 2> err || { cat err; false; }
	"$VARSCOPE" report -i t.data --format json > t.json
	run func_events t.json
	assert_line "ranking func:lookup.time 300 FUNC ns"
	[ "$(grep -c 'func:lookup.time' <<<"$output")" -eq 1 ]
	# the sampled ones are there too
	assert_line --regexp '^ranking func:render\.time [0-9]+ FUNC ns$'
}
