#!/bin/sh
# demo.sh - what "make demo" runs after the build: record the bundled
# example workload examples/interfere under varscope record, then print
# varscope report on the trace.
#
# Until a command's issue has landed, the demo says which part is not
# there yet and runs what exists; any real failure fails the demo.
set -u
cd "$(dirname "$0")/.." || exit 1

data=build/demo.data
workload=build/examples/interfere
workload_args=${DEMO_ARGS:-}
not_there=""

say() {
	printf 'demo: %s\n' "$*"
}

# A command not implemented yet says so when run without arguments.
implemented() {
	! ./varscope "$1" </dev/null 2>&1 | grep -q 'not implemented yet'
}

run() {
	say "\$ $*"
	"$@" || { say "failed (exit status $?): $*"; exit 1; }
}

if [ ! -x "$workload" ]; then
	say "examples/interfere is not there yet (the record issue adds it);"
	say "nothing to record."
	exit 0
fi
for cmd in record report; do
	implemented $cmd || not_there="$not_there varscope-$cmd"
done

mkdir -p build
case $not_there in
*record*)
	say "varscope record is not there yet; the workload alone:"
	# shellcheck disable=SC2086
	run "$workload" $workload_args
	;;
*)
	# shellcheck disable=SC2086
	run ./varscope record -o "$data" -- "$workload" $workload_args
	case $not_there in
	*report*) ;;
	*) run ./varscope report -i "$data" ;;
	esac
	;;
esac
[ -z "$not_there" ] || say "not there yet:$not_there (see README, Status)"
exit 0
