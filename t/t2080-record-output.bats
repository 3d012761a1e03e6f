#!/usr/bin/env bats
# t2080-record-output: the files commands write, root writing where others
# can.  A name that is another user's symbolic link in a sticky directory
# is refused (its target never created), and so is a FIFO, before the
# command starts; an existing file is replaced by a new one, never opened
# and truncated; a recording killed halfway has its trace under the final
# name, no temporary file beside it; one that cannot start leaves the
# traces there as they were.

load test-lib
load record-lib

USER_NAME=vs-t2080-$$

teardown() {
	userdel "$USER_NAME" 2>/dev/null || true
}

# a sticky directory owned by another user, as /tmp is, holding that
# user's dangling link out.data -> victim
plant_link() {
	require_cmd useradd
	useradd -M -s /usr/sbin/nologin "$USER_NAME" ||
		skip "cannot add a user"
	mkdir shared
	chown "$USER_NAME" shared
	chmod 1777 shared
	ln -s "$TEST_TMP/victim" shared/out.data
	chown -h "$USER_NAME" shared/out.data
}

@test "another user's link in a sticky directory: refused, never followed" {
	plant_link
	"$BUILD/t/helper/gen-trace" -o in.data --tasks 300
	for cmd in "record -o shared/out.data -- touch started" \
		   "signature build -o shared/out.data -- touch started" \
		   "report -i in.data --svg shared/out.data" \
		   "diff in.data in.data --svg shared/out.data"; do
		# shellcheck disable=SC2086
		run --separate-stderr timeout 60 "$VARSCOPE" $cmd
		[ "$status" -eq 129 ] || { echo "$cmd: exit $status"; false; }
		[[ "$stderr" == *"'shared/out.data' is a symbolic link: refused"* ]] ||
			{ echo "$cmd: $stderr"; false; }
		[ "$(grep -c . <<<"$stderr")" -eq 1 ]
	done
	[ ! -e victim ] && [ ! -e started ]
	[ -L shared/out.data ]
}

@test "a FIFO with no reader: refused at once, the command never started" {
	mkfifo fifo
	run --separate-stderr timeout 60 "$VARSCOPE" record -o fifo -- \
		touch started
	assert_equal "$status" 129
	assert_equal "$stderr" "varscope record: option \`--output': 'fifo' is a FIFO: refused, only a file is written (- is the standard output)"
	[ ! -e started ]
	run --separate-stderr timeout 60 "$VARSCOPE" record -o /dev/null -- \
		touch started
	assert_equal "$status" 129
	[[ "$stderr" == *"'/dev/null' is a device: refused"* ]]
	[ ! -e started ]
}

@test "an existing file is replaced, not truncated: a hard link keeps it" {
	echo "someone else's bytes" > mine
	ln mine t.data
	ln mine plot.svg
	run "$VARSCOPE" record -o t.data -- true
	assert_success
	"$VARSCOPE" script -i t.data >/dev/null
	[ -e t.data.old ]
	"$BUILD/t/helper/gen-trace" -o in.data --tasks 300
	run "$VARSCOPE" report -i in.data --svg plot.svg
	assert_success
	grep -q "<svg" plot.svg
	assert_equal "$(cat mine)" "someone else's bytes"
}

@test "a recording killed halfway: its trace under the final name" {
	"$VARSCOPE" record -o t.data -- "$IF" -n 100000 --types sleep \
		--sleep-us 1000 >/dev/null 2>&1 &
	pid=$!
	# the command runs (a slow start, under ASan on a loaded machine,
	# may write the file's head a second before it) and the file has
	# its head
	for i in $(seq 300); do
		target=$(pgrep -P $pid) && [ -s t.data ] && break
		sleep 0.1
	done
	[ -n "$target" ] || fail "no command after 30 s"
	sleep 1
	kill -KILL $pid
	wait $pid || true
	kill $target 2>/dev/null || true
	run "$VARSCOPE" script -i t.data
	assert_success
	run ls -A
	assert_output "t.data"
}

@test "a recording that cannot start leaves the trace and its .old as they were" {
	"$VARSCOPE" record -o t.data -- "$IF" -n 3 --types sleep \
		--sleep-us 1000 >/dev/null 2>&1
	"$VARSCOPE" record -o t.data -- "$IF" -n 4 --types sleep \
		--sleep-us 1000 >/dev/null 2>&1
	want=$(sha1sum t.data t.data.old)
	# a command that does not exist, twice; a recorder without CAP_BPF
	run -127 "$VARSCOPE" record -o t.data -- ./no-such-program
	run -127 "$VARSCOPE" record -o t.data -- ./no-such-program
	if command -v setpriv >/dev/null; then
		run -1 setpriv --bounding-set=-bpf,-perfmon,-sys_admin \
			"$VARSCOPE" record -o t.data -- "$IF" -n 2
	fi
	assert_equal "$(sha1sum t.data t.data.old)" "$want"
	run ls -A
	assert_output "t.data
t.data.old"
	# the next recording that runs moves them on
	"$VARSCOPE" record -o t.data -- "$IF" -n 5 --types sleep \
		--sleep-us 1000 >/dev/null 2>&1
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 5'
	"$VARSCOPE" script -i t.data.old --format json > t.json
	check 'T["1"]["tasks"] == 4'
}

@test "segment files of a recording that cannot start stay as they were" {
	local seg="--segment-length 100ms"
	# shellcheck disable=SC2086
	"$VARSCOPE" record -o s.data $seg -- "$IF" -n 3 --types sleep \
		--sleep-us 1000 >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$VARSCOPE" record -o s.data $seg -- "$IF" -n 4 --types sleep \
		--sleep-us 1000 >/dev/null 2>&1
	want=$(sha1sum s.data.0* s.data.old.0*)
	# shellcheck disable=SC2086
	run -127 "$VARSCOPE" record -o s.data $seg -- ./no-such-program
	# shellcheck disable=SC2086
	run -127 "$VARSCOPE" record -o s.data $seg -- ./no-such-program
	assert_equal "$(sha1sum s.data.0* s.data.old.0*)" "$want"
	run ls -A
	refute_output --regexp '(^|$'"'"'\n'"'"')\.'
}
