#!/bin/sh
# demo.sh - what "make demo" runs after the build: record the bundled
# example workload examples/interfere under varscope record, then print
# varscope report on the trace.
#
# The workload runs twice in one recording: 170 tasks of each type with a
# small dose of their cause of latency, then 30 with a large one, so that
# 15% of the tasks are slow for a known reason:
#   type 1 (sleep)  sleeps 2 ms, the slow ones 20 ms: blocked time
#   type 2 (fault)  touches 64 fresh pages, the slow ones 4096: page faults
# The report explains the p90 (--ptarget 0.9), the latency of the slowest
# 10%, and shows the first events of each type.
#
# VARSCOPE and VS_BUILD choose another binary and build folder (the tests
# run the demo on the sanitizer build too).
set -eu
cd "$(dirname "$0")/.." || exit 1

varscope=${VARSCOPE:-./varscope}
build=${VS_BUILD:-build}
data=$build/demo.data
interfere=$build/examples/interfere

say() {
	printf '\ndemo: %s\n' "$*"
}

say "recording 400 tasks of examples/interfere (a few seconds)"
set -x
"$varscope" record -o "$data" -- sh -c "
	$interfere -n 170 --types sleep,fault --sleep-us 2000 --pages 64 &&
	$interfere -n 30 --types sleep,fault --sleep-us 20000 --pages 4096"
{ set +x; } 2>/dev/null

say "what makes the slowest 10% of each task type slow"
set -x
"$varscope" report -i "$data" --ptarget 0.9 --top 5
{ set +x; } 2>/dev/null

say "expected: sched.blocked.time first for type 1 (sleep); for type 2
      (fault) the page fault counts first, or tied with events that are
      high in the same slow tasks (Notes: correlated).  Next:
  $varscope report -i $data --ptarget 0.9          (every event)
  $varscope script -i $data --format json | head   (the records)"
