#!/usr/bin/env bats
# t2040-record-tracking: the command's COMM, FORK, EXIT and MMAP2 records
# come through per-CPU tracking rings that the whole machine writes into.
# What a full ring loses of them is read again from /proc, and the loss
# is said in the summary and the trace.
# varscope-test: exclusive

load test-lib
load record-lib

FLOOD=$SRC/t/helper/map-flood.py

# flood SECONDS: map a file executable in a loop on every CPU, each
# mapping a record of every CPU's tracking ring, in the background
flood() {
	local cpu file

	file=$PWD/mapped-again-and-again-$(printf 'x%.0s' $(seq 100))
	head -c 4096 /dev/zero > "$file"
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		"$FLOOD" "$cpu" "$1" "$file" > "flood.$cpu" &
	done
}

@test "the command's mappings lost in full tracking rings are read again" {
	flood 4
	# the command stops the recorder and execs interfere 1 s later:
	# the flood has filled every tracking ring, the kernel drops the
	# exec's records; interfere's first task waits for the recorder,
	# continued 1 s after the exec
	"$VARSCOPE" record -o t.data --sample -- sh -c \
		'kill -STOP $PPID; sleep 1; (sleep 1; kill -CONT $PPID) &
		 exec "$0" "$@"' "$IF" -n 5 --types compute --work-us 1000 \
		> truth 2> err
	wait
	"$VARSCOPE" script -i t.data --format json > t.json
	# the rings were full (the test's condition)
	grep -q '^varscope record: [0-9]* process, mapping and wake-up records lost (ring full)$' err ||
		fail "no tracking records lost: $(cat err)"
	# interfere's mapping, with its build-id, symbolizes the samples
	grep '"kind":"mmap"' t.json | grep "\"filename\":\"$IF\"" |
		grep -q '"build_id":"[0-9a-f]\{40\}"' || fail "no mapping of $IF"
	grep -q '"kind":"comm",.*"comm":"interfere"' t.json
	run "$VARSCOPE" report -i t.data --min-tasks 1 --tree
	assert_success
	assert_output --partial "one_task"
	# the loss is said in the summary and the trace
	grep -q "^varscope record: the tracking rings were full: the names and mappings of the command's processes read again from /proc" err
	grep -q '"kind":"lost",[^}]*"tid":0,' t.json
}
