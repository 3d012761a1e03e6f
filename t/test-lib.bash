# test-lib.bash - common set-up for every varscope bats test.
#
# Load it first in each t/tNNNN-name.bats:
#
#	load test-lib
#
# It provides:
#   $SRC       the top of the source tree
#   $BUILD     the build folder (build, or build-asan under SANITIZE=1)
#   $VARSCOPE  the varscope binary under test
#   $EXAMPLES  the built example workloads ($BUILD/examples)
#   $VS_LIBDIR the folder holding libvarscope.so and libvarscope.a
#   $VS_CC, $VS_APP_CFLAGS  compiler and flags for programs a test builds
#   $TEST_TMP  an empty folder of this test, removed afterwards; every test
#              starts in it (cd), so relative outputs land there
#   bats-support and bats-assert (run, assert_success, assert_output ...)
#   prerequisites that skip visibly, with a reason, when the machine lacks
#   what a test needs: require_root, require_tracefs, require_pmu,
#   require_uprobes, require_cmd NAME, require_example NAME,
#   require_unshare OPTION... (namespaces: unshare -m, -p -f --mount-proc).
#
# t/run-tests.sh exports VS_BUILD, VARSCOPE and VS_CC (the compiler of the
# build, for tests that compile programs); a bats file run by hand
# (bats t/t0000-basic.bats) falls back to the in-tree build.

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${VS_BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$SRC/$BUILD ;;
esac
VARSCOPE=${VARSCOPE:-$SRC/varscope}
case $VARSCOPE in
/*) ;;
*) VARSCOPE=$SRC/$VARSCOPE ;;
esac
VS_LIBDIR=$(dirname "$VARSCOPE")
EXAMPLES=$BUILD/examples
export SRC BUILD VARSCOPE VS_LIBDIR EXAMPLES

# Programs a test compiles use the build's compiler ($VS_CC) and
# $VS_APP_CFLAGS: the sanitizer build's libraries are sanitized, so what
# links them needs the same compiler's sanitizer runtimes.
VS_CC=${VS_CC:-cc}
VS_APP_CFLAGS=
[ "${BUILD##*/}" = build-asan ] && VS_APP_CFLAGS="-fsanitize=address,undefined"
export VS_CC VS_APP_CFLAGS

# Commands never open a pager or man in tests.
export VARSCOPE_NO_MAN=1 MANPAGER=cat PAGER=cat LC_ALL=C.UTF-8

# run --separate-stderr, run -N
bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

# Each test gets its own folder: bats' per-test temporary directory.
# Tests that define their own setup() call vs_setup first.
vs_setup() {
	TEST_TMP=$BATS_TEST_TMPDIR
	export TEST_TMP
	cd "$TEST_TMP" || return 1
}

setup() {
	vs_setup
}

# --- prerequisites: skip with the reason in the TAP output -------------

require_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# The tracing file system, mounted at /sys/kernel/tracing when absent.
TRACEFS=/sys/kernel/tracing

require_tracefs() {
	[ -e "$TRACEFS/events" ] && return 0
	if [ "$(id -u)" = 0 ]; then
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null
		[ -e "$TRACEFS/events" ] && return 0
	fi
	skip "no tracefs at $TRACEFS (mount -t tracefs nodev $TRACEFS)"
}

# A hardware PMU: the core PMU registers as "cpu" (or "cpu_core" and
# "cpu_atom" on hybrid parts) in sysfs.  VMs without a virtual PMU have
# none, and "cycles" is not supported there.
require_pmu() {
	local d

	for d in cpu cpu_core cpu_atom; do
		[ -d "/sys/bus/event_source/devices/$d" ] && return 0
	done
	skip "no hardware PMU: cycles not supported"
}

require_uprobes() {
	[ -d /sys/bus/event_source/devices/uprobe ] ||
		skip "no uprobes (kernel without CONFIG_UPROBE_EVENTS)"
}

require_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip "needs $1 (not installed)"
}

# require_unshare OPTION...: unshare(1) can make the namespaces OPTION...
# ask for, here; a chroot or a container may not allow a mount namespace
# ("unshare: cannot change root filesystem propagation"): skip with that
require_unshare() {
	local err

	require_cmd unshare
	err=$(unshare "$@" true 2>&1) ||
		skip "needs namespaces (unshare $*): ${err:-refused} (a chroot or a container?)"
}

# An example workload from examples/NAME.c; its absence is a build error,
# not a reason to skip, once the example is in the tree.
require_example() {
	[ -x "$EXAMPLES/$1" ] && return 0
	if [ -f "$SRC/examples/$1.c" ]; then
		fail "$EXAMPLES/$1 is not built (make examples)"
		return 1
	fi
	skip "examples/$1.c is not in the tree yet"
}

# wait_exec PID PROGRAM: wait (10 s at most) until process PID, started
# in the background, runs PROGRAM: until then it is this shell's fork,
# whose functions are bash's (a loaded machine takes a while to exec)
wait_exec() {
	local want i

	want=$(readlink -f "$2")
	for i in $(seq 1000); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$want" ] && return
		sleep 0.01
	done
	fail "process $1 did not exec $2 within 10 s"
}

# record_corun TRACE [TASKS]: as root, record t/t3130/corun.c (TASKS
# tasks spinning on CPU 0 beside a SCHED_FIFO co-runner, "hogger", on the
# same CPU) into TRACE; the co-runner's tid into $HOG
record_corun() {
	require_root
	require_tracefs
	"$VS_CC" $VS_APP_CFLAGS -O2 -I"$SRC/include" -o corun \
		"$SRC/t/t3130/corun.c" "$VS_LIBDIR/libvarscope.a"
	"$VARSCOPE" record -o "$1" -- ./corun ${2-} > corun.out 2> corun.err ||
		{ cat corun.err; return 1; }
	HOG=$(sed -n 's/^hogger //p' corun.out)
	[ -n "$HOG" ]
}

# The command line of strace that logs a command's opens and reads into
# LOG.TID, a file per thread so that each call is on one line: run it as
# $STRACE_IO LOG COMMAND...  (LeakSanitizer cannot run under ptrace: off
# in the traced command of the sanitizer build.)
STRACE_IO="strace -E ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
STRACE_IO="$STRACE_IO -f -ff -qq -y -e trace=open,openat,read,pread64 -o"

# io_opens LOG FILE: how many times the command traced into LOG.* opened
# FILE (named as on its command line)
io_opens() {
	cat "$1".* | grep -E '^open(at)?\(' | grep -cF "\"$2\""
}

# io_bytes LOG FILE: how many bytes it read from FILE: about the size of
# FILE for a command that reads it once, twice that for twice
io_bytes() {
	cat "$1".* | grep -E '^(p?read(64)?)\(' | grep -F "/$2>," |
		sed -n 's/.* = \([0-9]*\)$/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}

# opens_of FILE ARGS...: how many times "varscope ARGS..." opens FILE (by
# strace): a command that read a trace once per time slice would open it
# once per slice.  The log stays in io.log.* (for io_bytes).
opens_of() {
	rm -f io.log.*
	$STRACE_IO io.log "$VARSCOPE" "${@:2}" > /dev/null
	io_opens io.log "$1"
}
