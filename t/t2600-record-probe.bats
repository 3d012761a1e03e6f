#!/usr/bin/env bats
# t2600-record-probe: --probe measures functions exactly with a uprobe and
# a uretprobe: one FUNC enter/exit pair per call, whose duration matches
# clock reads taken around the call inside the program.

load test-lib

@test "--probe handle: one enter/exit pair per call, as long as the clock says" {
	require_uprobes
	require_example crossthread
	run "$VARSCOPE" record -o t.data --probe handle -- "$EXAMPLES/crossthread" -n 40 --work-us 300 --print-times
	assert_success
	assert_line "varscope record: 80 --probe function enters and exits written"
	grep '^handle ' <<<"$output" > truth
	[ "$(wc -l < truth)" -eq 40 ]
	"$VARSCOPE" script -i t.data > t.txt
	grep -q 'symbol_def  id=0 .*name="handle"' t.txt
	# the durations of the pairs, in time order, next to the clock's
	awk '/ func / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["time_ns"], f["dir"]
	}' t.txt | sort -n | awk '$2 == 0 { enter = $1 } $2 == 1 { print $1 - enter }' > probed
	[ "$(wc -l < probed)" -eq 40 ]
	# the probe hits fall between the clock reads, so each call is at most
	# the clock's time, and less by the two hits (~10 us each) -- unless
	# the thread was preempted between a hit and a clock read: allow that
	# in a few calls
	paste probed truth | awk '{
		d = $4 - $1
		if (d < 0) { print "call " NR ": probed " $1 " > clock " $4; bad = 1 }
		if (d > 50000) { print "call " NR ": probed " $1 " clock " $4; far++ }
	} END { exit bad || far > 4 }'
}

@test "--probe: a call left by longjmp gets its exit where it was left" {
	require_uprobes
	require_cmd "$VS_CC"
	# jumper() sleeps 1 ms and longjmps past its return to the task's
	# frame, which then calls work() (2 ms) from the same depth
	cat > pj.c <<-'EOF'
	#include <setjmp.h>
	#include <time.h>
	#include "varscope.h"
	static jmp_buf top;
	static void sleep_us(long us)
	{
		struct timespec ts = { 0, us * 1000 };

		nanosleep(&ts, NULL);
	}
	__attribute__((noinline)) void jumper(void)
	{
		sleep_us(1000);
		longjmp(top, 1);
	}
	__attribute__((noinline)) void work(void)
	{
		sleep_us(2000);
	}
	int main(void)
	{
		for (int i = 0; i < 20; i++) {
			vs_task_begin(1);
			if (!setjmp(top))
				jumper();
			work();
			vs_task_end(1);
		}
		return 0;
	}
	EOF
	"$VS_CC" $VS_APP_CFLAGS -O1 -I"$SRC/include" -o pj pj.c \
		"$VS_LIBDIR/libvarscope.a" -lpthread
	run "$VARSCOPE" record -o t.data --probe jumper,work -- ./pj
	assert_success
	assert_line "varscope record: 80 --probe function enters and exits written"
	assert_line "varscope record: 20 --probe calls left without returning (longjmp): their exits written at the first event past their frame"
	"$VARSCOPE" script -i t.data --format json > t.json
	# each jumper call ends at work's entry: about 1 ms
	python3 - <<-'EOF'
	import json
	F = sorted((json.loads(l) for l in open("t.json")), key=lambda r: r.get("time_ns", 0))
	F = [r for r in F if r["kind"] == "func"]
	open_at, took = {}, {0: [], 1: []}
	for r in F:
	    if r["dir"] == 0:
	        open_at[r["symbol"]] = r["time_ns"]
	    else:
	        took[r["symbol"]].append(r["time_ns"] - open_at.pop(r["symbol"]))
	assert len(took[0]) == 20 and len(took[1]) == 20, took
	assert all(1e6 <= t < 50e6 for t in took[0]), took[0]
	assert all(2e6 <= t < 50e6 for t in took[1]), took[1]
	EOF
}

@test "--probe of an unknown function: one line naming the option" {
	require_uprobes
	require_example crossthread
	run "$VARSCOPE" record -o t.data --probe no_such_function -- "$EXAMPLES/crossthread" -n 1
	assert_failure
	assert_line --partial "varscope record: --probe: "
	assert_line --partial "no_such_function"
}
