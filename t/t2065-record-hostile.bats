#!/usr/bin/env bats
#
# A traced program that attacks what it shares with the recorder's
# in-kernel engine (issue 19): it scribbles over every slot of the
# engine's map and over its own task ring, then lies in the ring's head
# and counts (t/helper/hostile-slots.c); a thread asks for its sibling's
# registration (t/helper/hostile-sibling.c).  The recorder, root, must end
# with the command, stay within a small memory bound, keep every task of
# the honest process or thread beside it, and say in one line what it
# refused.

load test-lib
load record-lib

HOSTILE=$BUILD/t/helper/hostile-slots

# record_hostile ARGS: record the helper under timeout into t.data, its
# output in out, record's messages in err, its peak RSS (KiB) in rss
record_hostile() {
	/usr/bin/time -o rss -f %M timeout -k 10 120 \
		"$VARSCOPE" record -o t.data -- "$HOSTILE" "$@" > out 2> err
	"$VARSCOPE" script -i t.data --format json > t.json
}

# no number printed by record is one it did not bound (a count read from
# shared memory would be 18446744073709551615 and the like)
bounded_numbers() {
	! grep -E '[0-9]{10,}' err
}

@test "a ring head of 2^64-1 and counts that go back: the thread is no longer read" {
	record_hostile 300
	grep -q '^honest: pid=[0-9]* tasks=300$' out
	grep -q '^hostile: slots=[1-9][0-9]* ring=[1-9][0-9]*$' out
	grep -qx 'varscope record: 1 thread wrote impossible values into its task ring (its head, its counts): its later tasks were not read' err
	bounded_numbers
	# the honest process beside it: every task
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# 4 MiB of task ring and 3.4 MiB of slots, read at most once each
	[ "$(cat rss)" -lt 100000 ]
}

@test "a ring of random entries under a plausible head: every one dropped and counted" {
	record_hostile --garbage 300
	grep -q '^honest: pid=[0-9]* tasks=300$' out
	grep -qE '^varscope record: [0-9]+ tasks? dropped as impossible' err
	bounded_numbers
	honest=$(sed -n 's/^honest: pid=\([0-9]*\) .*/\1/p' out)
	check "T['1']['tasks'] == 300 and T['1']['pids'] == [$honest]"
	# no task of a type the program never used, none longer than the run
	check "set(T) <= {'1', '2'} and all(t['max']['latency_ns'] < 60e9 for t in T.values())"
	[ "$(cat rss)" -lt 100000 ]
}

@test "a thread that asks for its sibling's registration is refused; the sibling keeps every task" {
	timeout -k 10 120 "$VARSCOPE" record -o t.data -- \
		"$BUILD/t/helper/hostile-sibling" 300 > out 2> err
	"$VARSCOPE" script -i t.data --format json > t.json
	# once before the sibling's first task, once in the middle of them
	grep -qx 'attack: accepted=0 refused=2' out
	grep -qx 'sibling: tid=[0-9]* tasks=300' out
	grep -qx 'varscope record: 2 registrations refused: sent by a thread other than the one named' err
	bounded_numbers
	sibling=$(sed -n 's/^sibling: tid=\([0-9]*\) .*/\1/p' out)
	# every task of the sibling, all of its own thread
	check "T['1']['tasks'] == 300 and T['1']['tids'] == [$sibling]"
}
