#!/usr/bin/env bats
# t2900-pmu: hardware PMU detection and the hardware event catalog, through
# varscope list: the one-line verdict on this machine, the Skylake-SP table
# of VarMRI's Table 1, perf's raw syntax, and the catalog's man page.

load test-lib

NO_PMU_LINE="no hardware PMU (cycles not supported): recording kernel events and software counters only"

# sysfs is the oracle: the core PMU registers as "cpu" there.
has_cpu_pmu() {
	[ -d /sys/bus/event_source/devices/cpu ] ||
		[ -d /sys/bus/event_source/devices/cpu_core ]
}

@test "without a PMU, the verdict is one line and only the fixed counters are listed" {
	if has_cpu_pmu; then
		skip "this machine has a hardware PMU"
	fi
	run --separate-stderr "$VARSCOPE" list
	assert_success
	[ "$stderr" = "$NO_PMU_LINE" ] || fail "stderr: $stderr"
	[ "${#stderr_lines[@]}" = 1 ] || fail "${#stderr_lines[@]} lines on stderr"
	# No hardware counter can run, whatever the CPU: the table of this
	# CPU may still be Skylake-SP's in a VM, so only check the fixed ones.
	assert_line --regexp '^hw\.instructions +count +INST +- +instructions fixed$'
	assert_line --regexp '^hw\.cycles +cycles +CYCLE +- +cycles fixed$'
}

@test "with a PMU, the verdict names the CPU and cycles are listed" {
	require_pmu
	run --separate-stderr "$VARSCOPE" list cycles
	assert_success
	[[ $stderr == "hardware PMU on "* ]] || fail "stderr: $stderr"
	[ "${#stderr_lines[@]}" = 1 ] || fail "${#stderr_lines[@]} lines on stderr"
	assert_output --regexp '^hw\.cycles +cycles +CYCLE'
}

@test "the Skylake-SP table holds Table 1: 79 counters, 78 recorded, plus 3 fixed" {
	run --separate-stderr "$VARSCOPE" list --table skylakex --format json
	assert_success
	[ "$(grep -c '"fixed":true' <<<"$output")" = 3 ]
	[ "$(grep -c '"group":"CACHE","parent"' <<<"$output")" = 30 ] # + LOAD_LATENCY
	[ "$(grep -c '"group":"CYCLE".*"fixed":false' <<<"$output")" = 28 ]
	[ "$(grep -c '"group":"INST".*"fixed":false' <<<"$output")" = 22 ]
	[ "$(grep -c '"fixed":false,"recorded":true' <<<"$output")" = 78 ]
	assert_line --partial '"name":"hw.HW_INTERRUPTS.RECEIVED","intel":"HW_INTERRUPTS.RECEIVED","unit":"count","group":"OTHER"'
	assert_line --partial '"name":"hw.CYCLE_ACTIVITY.STALLS_L2_MISS","intel":"CYCLE_ACTIVITY.STALLS_L2_MISS","unit":"cycles","group":"CYCLE","parent":"hw.CYCLE_ACTIVITY.STALLS_TOTAL","encoding":"cpu/event=0xa3,umask=0x05,cmask=5/","type":4,"config":83887523'
}

@test "events are found by varscope name, Intel name, perf name and raw syntax" {
	run --separate-stderr "$VARSCOPE" list --table skylakex \
		hw.MEM_LOAD_RETIRED.L3_MISS mem_load_retired.l3_miss r20d1 \
		'cpu/event=0xd1,umask=0x20/' ref-cycles
	assert_success
	[ "${#lines[@]}" = 5 ]
	for i in 0 1 2 3; do
		[[ ${lines[$i]} =~ ^hw\.MEM_LOAD_RETIRED\.L3_MISS\ +count\ +CACHE\ +-\ +cpu/event=0xd1,umask=0x20/\ pebs$ ]] ||
			fail "line $i: ${lines[$i]}"
	done
	[[ ${lines[4]} =~ ^hw\.ref-cycles ]] || fail "${lines[4]}"
}

@test "an unknown or malformed event is one line naming it, exit 1" {
	run --separate-stderr "$VARSCOPE" list --table skylakex hw.NO_SUCH
	assert_failure 1
	assert_output ""
	[ "${stderr_lines[1]}" = "varscope list: 'hw.NO_SUCH': no such event in the skylakex table" ] ||
		fail "$stderr"

	run --separate-stderr "$VARSCOPE" list --table skylakex 'cpu/event=0x100/'
	assert_failure 1
	[ "${stderr_lines[1]}" = "varscope list: 'cpu/event=0x100/': 'event' out of range" ] ||
		fail "$stderr"

	run --separate-stderr "$VARSCOPE" list --table skylakex 'cpu/event=0xd1,umask=0x20,bogus/'
	assert_failure 1
	[ "${stderr_lines[1]}" = "varscope list: 'cpu/event=0xd1,umask=0x20,bogus/': unknown term 'bogus'" ] ||
		fail "$stderr"

	# Well formed, but not an event of the table.
	run --separate-stderr "$VARSCOPE" list --table generic r20d1
	assert_failure 1
	[ "${stderr_lines[1]}" = "varscope list: 'r20d1' (config 0x20d1) is not in the generic table" ] ||
		fail "$stderr"
}

@test "bad option values are one line, exit 129" {
	run --separate-stderr "$VARSCOPE" list --format xml
	assert_failure 129
	[ "$stderr" = "varscope list: option \`--format': must be text or json" ] || fail "$stderr"
	run --separate-stderr "$VARSCOPE" list --table haswell
	assert_failure 129
	[ "$stderr" = "varscope list: option \`--table': must be skylakex or generic" ] || fail "$stderr"
}

@test "varscope-events(7) lists every event of the Skylake-SP table as varscope list does" {
	doc=$SRC/Documentation/varscope-events.txt
	n=0
	while IFS= read -r line; do
		name=$(sed -n 's/^{"name":"\([^"]*\)".*/\1/p' <<<"$line")
		unit=$(sed -n 's/.*"unit":"\([^"]*\)".*/\1/p' <<<"$line")
		group=$(sed -n 's/.*"group":"\([^"]*\)".*/\1/p' <<<"$line")
		parent=$(sed -n 's/.*"parent":"\([^"]*\)".*/parent \1/p' <<<"$line")
		enc=$(sed -n 's/.*"encoding":"\([^"]*\)".*/\1/p' <<<"$line")
		[ -n "$name" ] || fail "no name in $line"
		entry=$(grep -A1 -xF "$name::" "$doc" | tail -n +2)
		[[ $entry == "	$unit, $group, ${parent:-no parent}; $enc"* ]] ||
			fail "$name: '$entry' in $doc, want '$unit, $group, ${parent:-no parent}; $enc'"
		n=$((n + 1))
	done < <("$VARSCOPE" list --table skylakex --format json 2>/dev/null)
	[ $n = 85 ] || fail "$n events listed"
}
