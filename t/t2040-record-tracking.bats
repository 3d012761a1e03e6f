#!/usr/bin/env bats
# t2040-record-tracking: the command's COMM, FORK, EXIT and MMAP2 records
# come through per-CPU tracking rings that the whole machine writes into.
# What a full ring loses of them is read again from /proc, and the loss
# is said in the summary and the trace.
# varscope-test: exclusive

load test-lib
load record-lib

FLOOD=$SRC/t/helper/map-flood.py

# flood: map a file executable in a loop on every CPU, in the
# background (at most 30 s: stop_flood ends it), each mapping a record
# in every tracking ring of its CPU; flood.N counts those of CPU N
flood() {
	local cpu file

	file=$PWD/mapped-again-and-again-$(printf 'x%.0s' $(seq 100))
	head -c 4096 /dev/zero > "$file"
	FLOODS=()
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		echo 0 > "flood.$cpu"
		"$FLOOD" "$cpu" 30 "$file" "flood.$cpu" &
		FLOODS+=($!)
	done
}

stop_flood() {
	kill "${FLOODS[@]}" 2>/dev/null || true
	wait "${FLOODS[@]}" || true
}

@test "the command's mappings lost in full tracking rings are read again" {
	flood
	# the command stops the recorder, waits until every CPU's ring has
	# had 5000 mappings (about 1 MB, the ring is 256 KiB) and execs
	# interfere, whose exec's records the kernel drops; the recorder
	# continues once interfere runs, and interfere's first task waits
	# for it
	"$VARSCOPE" record -o t.data --sample -- sh -c '
		kill -STOP $PPID
		"$0" --wait 5000 flood.*
		(for i in $(seq 1000); do
			[ "$(readlink /proc/$$/exe)" = "$1" ] && break
			sleep 0.01
		 done; kill -CONT $PPID) &
		shift
		exec "$@"' "$FLOOD" "$IF" "$IF" -n 5 --types compute \
		--work-us 1000 > truth 2> err
	stop_flood
	"$VARSCOPE" script -i t.data --format json > t.json
	# the rings were full (the test's condition)
	grep -q '^varscope record: [0-9]* process and mapping records lost (ring full)$' err ||
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
