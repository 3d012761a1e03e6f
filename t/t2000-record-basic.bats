#!/usr/bin/env bats
# t2000-record-basic: varscope record's options, output file, exit status,
# and what the trace holds besides tasks (catalog, metas, epochs, comm and
# mmap records for symbolization).

load test-lib
load record-lib

@test "record rejects a bad rate with one line naming the option" {
	run "$VARSCOPE" record --rate 0 -- true
	assert_failure 129
	assert_output --partial "rate"
	assert_equal "${#lines[@]}" 1
	run "$VARSCOPE" record --rate 1.5 -- true
	assert_failure 129
}

@test "record rejects an epoch or segment shorter than the recorder's 100ms" {
	run "$VARSCOPE" record -o t.data --segment-length 99ms -- true
	assert_failure 129
	assert_output "varscope record: option \`--segment-length': must be at least 100ms: files switch on the recorder's 10 ms tick"
	run "$VARSCOPE" record -o t.data --epoch 1ns -- true
	assert_failure 129
	assert_output "varscope record: option \`--epoch': must be at least 100ms: epochs switch on the recorder's 10 ms tick, each opening new counters in every thread"
	[ ! -e t.data ]
	run "$VARSCOPE" record -o t.data --epoch 100ms --segment-length 100ms -- true
	assert_success
}

@test "record rejects a length, size or rate of 0 rather than ignore it" {
	local case

	# each of them left out means "none" or "the default": an explicit
	# 0 was taken the same way, silently (--duration 0 recorded all)
	for case in "duration:--duration 0" "segment-length:--segment-length 0" \
		    "max-size:--segment-length 1s --max-size 0" \
		    "sample-period:--sample --sample-period 0" \
		    "freq:--sample -F 0"; do
		# shellcheck disable=SC2086
		run "$VARSCOPE" record -o t.data ${case#*:} -- true
		assert_failure 129
		assert_output "varscope record: option \`--${case%%:*}': must be more than 0"
	done
}

@test "-r runs the recorder SCHED_FIFO, the command as it would" {
	# field 41 of /proc/PID/stat: the policy, 1 SCHED_FIFO, 0 SCHED_OTHER;
	# the command's parent is the recorder
	"$VARSCOPE" record -r 2 -o t.data -- sh -c \
		'cut -d" " -f41 /proc/$PPID/stat; cut -d" " -f41 /proc/$$/stat' \
		> policies
	run cat policies
	assert_output "$(printf '1\n0')"
	for p in 0 100; do
		run "$VARSCOPE" record -r $p -o t.data -- true
		assert_failure 129
		assert_output "varscope record: option \`--realtime': must be a priority from 1 to 99"
	done
}

@test "record without a command prints the usage" {
	run "$VARSCOPE" record
	assert_failure 129
	assert_output --partial "no command to run"
}

@test "record of a command that does not exist says so" {
	run -127 "$VARSCOPE" record -- ./no-such-program
	assert_failure 127
	assert_output --partial "cannot run './no-such-program'"
}

@test "record without the privilege to trace says what it needs in one line" {
	require_cmd setpriv
	# tracefs is mounted (root-only, mode 0700): not "cannot mount"
	ls "$TRACEFS/events" > /dev/null
	! setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ls "$TRACEFS/events" > /dev/null 2>&1 ||
		skip "tracefs is readable by all users here"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$VARSCOPE" record -o "$TEST_TMP/t.data" -- echo ran
	assert_failure 1
	assert_output "varscope record: cannot read $TRACEFS/events: Permission denied (recording needs root, or CAP_PERFMON and read access to tracefs)"
}

@test "record without CAP_BPF says in one line what the engine needs" {
	require_cmd setpriv
	# root, less the capabilities that let it load BPF programs
	run --separate-stderr setpriv --bounding-set=-bpf,-perfmon,-sys_admin \
		"$VARSCOPE" record -o t.data -- touch started
	assert_equal "$status" 1
	assert_equal "$stderr" "varscope record: cannot load the BPF recording engine: Operation not permitted (it needs CAP_BPF and CAP_PERFMON, or root)"
	[ ! -e started ] && [ ! -e t.data ]
}

@test "record on a kernel without BTF says so in one line" {
	require_unshare -m
	# the kernel's BTF hidden under an empty file system
	run --separate-stderr unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf &&
		exec "$0" record -o t.data -- touch started' "$VARSCOPE"
	assert_equal "$status" 1
	assert_equal "$stderr" "varscope record: the kernel has no BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): the recording engine needs it"
	[ ! -e started ] && [ ! -e t.data ]
}

@test "record -e with an unknown tracepoint says which" {
	run "$VARSCOPE" record -e sched:no_such_event -- true
	assert_failure 1
	assert_output --partial "unknown or unsupported tracepoint 'sched:no_such_event'"
}

@test "record writes varscope.data mode 0600 and keeps the old one as .old" {
	"$VARSCOPE" record -- "$IF" -n 2 --types compute --work-us 100 2>/dev/null
	[ "$(stat -c %a varscope.data)" = 600 ]
	first=$(sha1sum < varscope.data)
	"$VARSCOPE" record -- "$IF" -n 2 --types compute --work-us 100 2>/dev/null
	[ "$(sha1sum < varscope.data.old)" = "$first" ]
	[ "$(stat -c %a varscope.data)" = 600 ]
}

@test "record -o - writes the trace to stdout, the command's output to stderr" {
	"$VARSCOPE" record -o - -- "$IF" -n 3 --types compute --work-us 100 \
		> pipe.out 2> err
	[ ! -e - ]
	grep -q '^interfere: pid=[0-9]* type=4 name=compute tasks=3 ' err
	grep -q '^varscope record: 3 tasks of 1 thread written to the standard output ' err
	run "$VARSCOPE" script -i pipe.out
	assert_success
	[ "$(grep -c ' task ' <<<"$output")" -eq 3 ]
	export IF
	run bash -c '"$VARSCOPE" record -o - -- "$IF" -n 5 --types compute \
		--work-us 100 2>/dev/null | "$VARSCOPE" report -i -'
	assert_success
	assert_line --regexp '^# Task type 4: 5 tasks, '
	run "$VARSCOPE" record -o - --segment-length 1s -- true
	assert_failure 129
	assert_output "varscope record: option \`--output': - (the standard output) cannot be cut into segment files"
}

@test "record exits with the command's status" {
	run "$VARSCOPE" record -o t.data -- sh -c 'exit 7'
	assert_failure 7
}

@test "record passes the command its arguments and output" {
	run "$VARSCOPE" record -o t.data -- "$IF" -n 3 --types compute --work-us 100
	assert_success
	assert_line --regexp '^interfere: pid=[0-9]+ type=4 name=compute tasks=3 '
	assert_line --partial "varscope record: 3 tasks of 1 thread written to t.data"
}

# on_screen SESSION TEXT: until tmux SESSION shows TEXT (20 s at most)
on_screen() {
	local i

	for i in $(seq 200); do
		tmux capture-pane -p -t "$1" | grep -qF -- "$2" && return 0
		sleep 0.1
	done
	echo "never on screen: $2"
	tmux capture-pane -p -t "$1"
	return 1
}

@test "a command that reads the terminal gets it, and its Ctrl-C" {
	require_cmd tmux
	# the command leads a process group of its own (a server that
	# signals its group must not hit the recorder): in the foreground of
	# a terminal, that group takes the terminal, else its read stops it
	# (SIGTTIN) for good
	local session=vs-t2000-$$
	tmux new-session -d -s "$session" -x 150 -y 20 \
		"env PS1='vs-prompt\$ ' bash --norc --noprofile"
	tmux send-keys -t "$session" "cd '$TEST_TMP' && '$VARSCOPE' record -o t.data -- sh -c 'read x; echo got \$x; exec sleep 100'; echo status=\$?" Enter
	on_screen "$session" "no hardware PMU" || on_screen "$session" "varscope record:"
	tmux send-keys -t "$session" hello Enter
	run on_screen "$session" "got hello"
	if [ "$status" = 0 ]; then
		# Ctrl-C goes to the command, as without varscope; the
		# recording ends with it, and the shell has its terminal back
		tmux send-keys -t "$session" C-c
		run on_screen "$session" "status=130"
	fi
	tmux send-keys -t "$session" C-c
	tmux kill-session -t "$session"
	assert_success
	run "$VARSCOPE" script -i t.data
	assert_success
}

@test "record says once that there is no PMU and no fault time" {
	run "$VARSCOPE" record -o t.data -- "$IF" -n 1 --types compute --work-us 100
	assert_success
	if ! ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1; then
		assert_line --regexp "^varscope record: no hardware PMU \\(.*\\): recording kernel events and software counters only$"
	fi
	# a kernel that refuses the fault handler's fentry/fexit (this
	# one: EPERM) is named with its reason, once; one that takes them
	# (Debian 12's 6.1, t2990) times the faults, and says nothing
	n=$(grep -c 'fault.page.time unavailable' <<<"$output" || :)
	if [ "$n" = 1 ]; then
		assert_line --regexp '^varscope record: fault\.page\.time unavailable: page faults have no exit tracepoint and this kernel refuses fentry/fexit on their handler \(.+\): a fault.s handling is in run\.time; fault\.page\.count only$'
	else
		assert_equal "$n" 0
		"$VARSCOPE" script -i t.data --format json | grep -q '"fault.page.time"'
	fi
}

@test "the trace has the catalog, metas, epochs, comm and mmap with build-ids" {
	"$VARSCOPE" record -o t.data --rate 1 -- "$IF" -n 2 --types fault,compute 2>/dev/null
	"$VARSCOPE" script -i t.data --format json > s.json
	run python3 - s.json "$IF" <<-'EOF'
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	kinds = {}
	for r in recs:
	    kinds.setdefault(r["kind"], []).append(r)
	names = {e["name"]: e for e in kinds["event_def"]}
	for n in ("run.time", "sched.runnable.time", "sched.runnable.count",
	          "sched.blocked.time", "sched.blocked.count", "sched.iowait.time",
	          "sched.iowait.count", "irq.hard.time", "irq.hard.count",
	          "irq.soft.time", "irq.soft.count", "fault.page.count",
	          "cpu.migrations.count", "task-clock", "context-switches",
	          "page-faults"):
	    assert n in names, n
	for n, e in names.items():
	    if n.startswith("irq.soft.") and n.count(".") == 3:
	        parent = [p for p in names.values() if p["id"] == e["parent"]][0]
	        assert parent["name"] == "irq.soft." + n.split(".")[-1], n
	assert names["task-clock"]["group"] in (1, "SOFTWARE"), names["task-clock"]
	metas = {m["key"]: m["value"] for m in kinds["meta"] if m["key"] != "note"}
	assert metas["rate"] == "1", metas
	assert "interfere" in metas["cmdline"], metas
	# a kernel that refuses the fault handler's fentry/fexit says so
	assert ("fault.page.time" in names) != any(
	    "fault.page.time unavailable" in m["value"] for m in kinds["meta"])
	assert len(kinds["epoch"]) >= 2
	assert any(c["comm"] == "interfere" for c in kinds["comm"])
	exe = [m for m in kinds["mmap"] if m["filename"] == sys.argv[2]]
	assert exe and exe[0]["build_id"], kinds["mmap"]
	assert len(kinds["task"]) == 4
	print("ok")
	EOF
	assert_success
	assert_output ok
}

@test "--rate 1 records every task, --rate 0.2 about a fifth" {
	"$VARSCOPE" record -o all.data -- "$IF" -n 50 --types compute --work-us 50 2>/dev/null
	"$VARSCOPE" script -i all.data --format json | "$STATS" 'T["4"]["tasks"] == 50'
	"$VARSCOPE" record -o some.data --rate 0.2 -- "$IF" -n 1000 --types compute --work-us 20 2>/dev/null
	# binomial(1000, 0.2): mean 200, sd 12.6; 120..280 is beyond 6 sd
	"$VARSCOPE" script -i some.data --format json | "$STATS" '120 <= T["4"]["tasks"] <= 280'
}

@test "--duration stops the recording and the command" {
	start=$(date +%s)
	run "$VARSCOPE" record -o t.data --duration 1s -- "$IF" -n 100000 --types sleep --sleep-us 1000
	[ $(($(date +%s) - start)) -lt 10 ]
	assert_output --partial "tasks of 1 thread written to t.data"
	"$VARSCOPE" script -i t.data --format json | "$STATS" 'T["1"]["tasks"] > 100'
}

@test "--epoch writes an epoch record per period" {
	"$VARSCOPE" record -o t.data --epoch 100ms -- "$IF" -n 100 --types sleep --sleep-us 5000 2>/dev/null
	n=$("$VARSCOPE" script -i t.data --format json | grep -c '"kind":"epoch"')
	# 0.5 s of sleeping: about 5 epochs, plus the first and the last
	[ "$n" -ge 4 ]
}

@test "-e chooses the tracepoints; raw hardware events are parsed" {
	record_if -n 20 --types compute --work-us 20000
	check 'T["4"]["sum"]["irq.vector.count"] > 0'
	"$VARSCOPE" record -o t.data -e sched:sched_switch -- "$IF" -n 20 --types compute --work-us 20000 >/dev/null 2>&1
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["4"]["sum"]["irq.vector.count"] == 0 and T["4"]["sum"]["irq.hard.count"] == 0'
	check 'not any(k.startswith("irq.vector.") and k.count(".") == 3 for k in T["4"]["sum"])'
	# the switch-in records give the waits; interrupts are now in run.time
	check 'T["4"]["sum"]["run.time"] > 0.9 * T["4"]["sum"]["task-clock"]'
	run "$VARSCOPE" record -o t.data -e 'cpu/event=0x3c,umask=0x00/,sched:sched_switch' -- "$IF" -n 1 --types compute
	assert_success
	# with a PMU the raw event is counted (t2910)
	[ -d /sys/bus/event_source/devices/cpu ] ||
		assert_line --regexp "^varscope record: hardware events not recorded \(.*\): cpu/event=0x3c,umask=0x00/$"
	run "$VARSCOPE" record -e 'cpu/event=0xzz/' -- true
	assert_failure 129
	assert_output --partial "option \`--event'"
	# an empty list is a mistake, not "every tracepoint"
	run "$VARSCOPE" record -e '' -o t.data -- true
	assert_failure 129
	assert_output "varscope record: option \`--event': names no event"
}
