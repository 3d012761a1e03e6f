#!/usr/bin/env bats
# t1200-bounded-readers: traces whose ids and counts are crafted to be
# huge cost every reader (report, report --tree, tui, diff, segments,
# script, signature infer) time and memory bounded by the file's size.  Each reader runs
# with its address space capped (ulimit -v) well below what believing an
# id would take; the time limit only guards against a hang.  A record
# whose time its chunk header leaves out is corruption for every reader,
# segments included.

load test-lib

GEN=$BUILD/t/helper/gen-trace
# The traces are under 1 MB; every reader reads them in a few tens of MB.
BOUND_KB=400000

# bounded CMD...: CMD with its address space capped at $BOUND_KB (not in
# the sanitizer build, whose shadow memory reserves terabytes of address
# space) and a time limit of $BOUND_SECONDS (300), a guard against a hang
# (not a speed test)
bounded() {
	if [ "${BUILD##*/}" = build-asan ]; then
		timeout "${BOUND_SECONDS:-300}" "$@"
	else
		(ulimit -v "$BOUND_KB" &&
		 exec timeout "${BOUND_SECONDS:-300}" "$@")
	fi
}

# tui_quits FILE: varscope tui opens FILE in a terminal (script(1)), bounded,
# and quits on q
tui_quits() {
	require_cmd script
	printf q | TERM=xterm bounded script -qec "'$VARSCOPE' tui -i '$1'" \
		/dev/null >tui.out
}

@test "a symbol id of 378 million: report and report --tree" {
	"$GEN" -o sym.data --every-kind --symbol-id 378000000 --tasks 300
	[ "$(stat -c %s sym.data)" -lt 100000 ]
	run --separate-stderr bounded "$VARSCOPE" report -i sym.data
	assert_success
	assert_output --partial "# Task type 2:"
	run --separate-stderr bounded "$VARSCOPE" report --tree -i sym.data
	assert_success
	assert_output --partial "# Task type 2:"
}

@test "a symbol id of 378 million: tui" {
	"$GEN" -o sym.data --every-kind --symbol-id 378000000 --tasks 300
	run tui_quits sym.data
	assert_success
	grep -q "run.time" tui.out
}

@test "4,000 task types, each with an event id of its own: every reader" {
	# each task lives in an epoch of its own where 16 events are live,
	# those of ids 16 N to 16 N + 15 for task N: a type's columns have
	# ids up to 64,000 (a table by id per type: about 1 GB)
	"$GEN" -o cols.data --events 65000 --live-events 16 --epoch-tasks 1 \
		--types 4000 --tasks 4000
	[ "$(stat -c %s cols.data)" -lt 1000000 ]
	run --separate-stderr bounded "$VARSCOPE" report -i cols.data
	assert_success
	assert_output --partial "# Task type 3999: "
	run --separate-stderr bounded "$VARSCOPE" segments -i cols.data \
		--min-tasks 1 --format csv
	assert_success
	run --separate-stderr bounded "$VARSCOPE" diff --min-tasks 1 \
		cols.data cols.data
	assert_success
	run tui_quits cols.data
	assert_success
}

@test "150,000 task types of a task each: report in memory bounded by the file's size" {
	# 64 values a task: a column per type and event cost 150 bytes
	# whatever it held, 1.5 GB for this 19 MB file; what a value costs
	# now is a few times its bytes in the file
	"$GEN" -o types.data --types 150000 --tasks 150000 --events 64
	size_kb=$(( $(stat -c %s types.data) / 1024 ))
	BOUND_KB=$(( 200000 + 24 * size_kb )) run --separate-stderr \
		bounded "$VARSCOPE" report -i types.data
	assert_success
	assert_output --partial "# Task type 149999: "
}

@test "100,000 named task types in 9,000 segments: tui" {
	# tui reads a task set per segment: each holds its types' names,
	# not the whole file's (9,000 copies of 100,000 names: 11 GB)
	"$GEN" -o names.data --types 100000 --tasks 100000 --events 2 \
		--type-names 'a-request-type-named-as-long-as-names-can-be-#*100000'
	[ "$(stat -c %s names.data)" -lt 3000000 ]
	require_cmd script
	printf q | TERM=xterm bounded script -qec \
		"'$VARSCOPE' tui --length 7s -i names.data" /dev/null >tui.out
	grep -q "a-request-type-named-as-long-as-names-can-be-#" tui.out
}

@test "100,000 task types in 9,000 segments: segments refuses in one line" {
	# a figure per type and segment: 900 million of them, or one line
	"$GEN" -o many.data --types 100000 --tasks 100000 --events 2
	run --separate-stderr bounded "$VARSCOPE" segments -i many.data \
		--length 7s --min-tasks 1
	assert_failure 1
	[[ "$stderr" =~ ^"varscope segments: "[0-9]+" task types or more in 8973 segments: more figures than 4194304 (one per type and segment): choose a type (--type) or a longer --length"$ ]]
	# one segment holds them all (types drawn at random: 63,000 of them)
	run --separate-stderr bounded "$VARSCOPE" segments -i many.data \
		--min-tasks 1 --format csv
	assert_success
	[ "$(grep -c . <<<"$output")" -gt 60000 ]
}

@test "1,000 task types in 9,000 slices: diff --svg refuses in one line" {
	"$GEN" -o k.data --types 1000 --tasks 100000 --events 2
	run --separate-stderr bounded "$VARSCOPE" diff --length 70ms \
		--min-tasks 1 --svg k.svg k.data k.data
	assert_failure 1
	[[ "$stderr" == *"varscope diff: --svg: 1000 task types in 89"[0-9][0-9]" segments: more points than 4194304 (one per type and segment): choose a type (--type) or a longer --length" ]]
}

@test "a task with 100,000 values of 65,000 events: every reader" {
	# its type has 65,000 columns: no pairs of them all are compared
	"$GEN" -o big.data --task-values 100000 --tasks 300 --events 65000 \
		--live-events 8
	run --separate-stderr bounded "$VARSCOPE" report -i big.data --type 0
	assert_success
	assert_output --partial "# not ranked: run.time, recorded by"
	run --separate-stderr bounded "$VARSCOPE" report --tree -i big.data
	assert_success
	run --separate-stderr bounded "$VARSCOPE" diff big.data big.data
	assert_success
	run --separate-stderr bounded "$VARSCOPE" script -i big.data
	assert_success
	run tui_quits big.data
	assert_success
}

@test "300,000 threads' system calls: signature infer" {
	"$GEN" -o sc.data --signature --tasks 10 --syscall-threads 300000
	[ "$(stat -c %s sc.data)" -lt 3000000 ]
	# it reads them in about a second; a scan of the threads per record
	# took minutes: a guard of 60 s tells the two apart under any load
	BOUND_SECONDS=60 run --separate-stderr bounded "$VARSCOPE" \
		signature infer -s sc.data -i sc.data
	assert_success
	assert_output --partial "# 300000 system calls of 300000 threads"
}

# lie_about_times FILE: make the second chunk's header say its records
# end before they begin, its CRC made good
lie_about_times() {
	require_cmd python3
	python3 - "$1" <<-'EOF'
	import struct, sys, zlib
	path = sys.argv[1]
	b = bytearray(open(path, 'rb').read())
	first = b.find(b'VSCK')
	off = first + 48 + struct.unpack_from('<I', b, first + 12)[0]
	assert b[off:off + 4] == b'VSCK'
	t_min = struct.unpack_from('<Q', b, off + 24)[0]
	struct.pack_into('<Q', b, off + 32, t_min - 1)
	struct.pack_into('<I', b, off + 44, zlib.crc32(bytes(b[off:off + 44])))
	open(path, 'wb').write(b)
	EOF
}

@test "a chunk header that lies about its times: every reader, segments too" {
	"$GEN" -o lie.data --tasks 3000 --chunk-records 200
	lie_about_times lie.data
	for cmd in report segments "segments --length 1ms" tui script; do
		[ "$cmd" = tui ] && continue
		run --separate-stderr bounded "$VARSCOPE" $cmd -i lie.data
		[ "$status" -eq 2 ] || { echo "$cmd: exit $status"; false; }
		[[ "$stderr" == *"lie.data: record 0 (packed_task, raw offset 0): time outside its chunk's at byte"* ]] ||
			{ echo "$cmd: $stderr"; false; }
	done
	run --separate-stderr bounded "$VARSCOPE" diff lie.data lie.data
	[ "$status" -eq 2 ]
	assert_equal "$(grep -c "time outside its chunk's" <<<"$stderr")" 1
}
