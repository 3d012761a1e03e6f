# record-lib.bash - what the varscope record tests (t2xxx) share.
#
#	load test-lib
#	load record-lib
#
# Each test then runs as root with tracefs and examples/interfere ($IF),
# and check EXPR tests a Python expression over the per-type task sums of
# t.json (see t/helper/task-stats.py).

IF=$EXAMPLES/interfere
STATS=$SRC/t/helper/task-stats.py

setup() {
	vs_setup
	require_root
	require_tracefs
	require_example interfere
}

check() {
	"$STATS" "$1" < t.json
}

# no_thread_losses: nothing of a recorded thread was lost, in err and
# t.json: no wake-up or switch record of the engine's ring, no task of a
# full task ring.  (The tracking rings take every process's forks and
# mmaps on the machine, system-wide: a busy machine fills them, and their
# losses, of thread 0, are not the recorded threads' events.)
no_thread_losses() {
	run grep -c "lost (the engine's ring full)\|dropped (task ring full)" err
	assert_output 0
	run grep -c '"kind":"lost","time_ns":[0-9]*,"tid":[1-9]' t.json
	assert_output 0
}

# record_if ARGS: record interfere ARGS into t.data, its ground truth
# lines (stdout) into truth, record's messages into err, the trace as
# JSON lines into t.json; $RECORD_OPTS are options of record
record_if() {
	# shellcheck disable=SC2086
	"$VARSCOPE" record -o t.data ${RECORD_OPTS-} -- "$IF" "$@" > truth 2> err
	"$VARSCOPE" script -i t.data --format json > t.json
}

# record_app NAME: build the test's annotated program NAME.c with
# libvarscope.a (it may include t/helper/one-task.h) and frame pointers
# (the callchains of record --sample, as the examples), record it into
# t.data (with run: $status and $output are record's; $RECORD_OPTS are
# options of record) and dump the trace
# as JSON lines into t.json
record_app() {
	# shellcheck disable=SC2086
	"$VS_CC" $VS_APP_CFLAGS -O2 -fno-omit-frame-pointer -I"$SRC/include" -I"$SRC/t/helper" \
		-o "$1" "$1.c" \
		"$VS_LIBDIR/libvarscope.a" -lpthread
	run "$VARSCOPE" record -o t.data ${RECORD_OPTS-} -- "./$1"
	"$VARSCOPE" script -i t.data --format json > t.json
}

# gated_start NAME SCRIPT: build the test's program NAME.c, which maps
# gate.bin for execution and prints "ready", run it in the background
# ($target), and hold the first open of gate.bin (by record's attach,
# reading the build-ids of the process's mappings) until sh has run
# SCRIPT, with $TARGET the program's pid (t/helper/open-gate, $gate;
# the file "gate" has what it printed).  Skips when the kernel has no
# fanotify permission events.
gated_start() {
	"$VS_CC" -O2 -o "$1" "$1.c"
	head -c 4096 /dev/zero > gate.bin
	"./$1" > ready &
	target=$!
	for _ in $(seq 100); do [ -s ready ] && break; sleep 0.05; done
	TARGET=$target "$BUILD/t/helper/open-gate" gate.bin sh -c "$2" \
		> gate 2> gate.err &
	gate=$!
	for _ in $(seq 100); do
		[ -s gate ] || [ -s gate.err ] && break
		sleep 0.05
	done
	if grep -q "no fanotify permission events" gate.err; then
		gated_stop
		skip "$(cat gate.err)"
	fi
}

# gated_stop: end the gate and the program of gated_start, its children too
gated_stop() {
	kill $gate 2> /dev/null || true
	pkill -KILL -P $target || true
	kill -KILL $target 2> /dev/null || true
	wait $gate $target || true
}
