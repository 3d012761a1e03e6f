#!/usr/bin/env bats
# t7040-signature-watch: varscope signature watch infers windows of a
# running program's system calls as they end (t/t7030/overlap.c): the
# window in which a handler turns into a retry loop is reported with the
# handler, the windows before it are not; a thread that stays in a read
# of a pipe nobody writes is named with the handler that made the read,
# by watch (from the call's chain) and by infer (from the stack that
# record --syscall-stacks keeps of each call of 1 s or more); the libdw
# sessions of processes that ended are let go; signatures of a run
# shorter than a window are said to be.
#
# Execution units are cut at gaps above mean + 2 sigma of a thread's
# system calls, which another test file running beside it stretches:
# varscope-test: exclusive

load test-lib
load overlap-lib

# Signatures of 10000 requests, some 150000 system calls: more than a 1 s
# window of a normal run makes (30000 to 60000 here), else a normal
# window may be abnormal (varscope-signature(1), watch): 3000 requests
# made some 44000, and a 1 s window of a normal run 56408 once, when one
# of its windows was abnormal.
OVERLAP_SIG_REQUESTS=10000

# Python expression $1 over the JSON windows of watch.json (wins) and
# the time the bug turned the handler (turn, CLOCK_MONOTONIC ns, from
# overlap's line in watch.err).
windows_eval() {
	python3 -c 'import json, re, sys
wins = [json.loads(l) for l in open("watch.json")]
m = re.search(r"overlap: h[0-9]+ turns at ([0-9]+)", open("watch.err").read())
turn = int(m.group(1)) if m else None
print(eval(sys.argv[1]))' "$1"
}

@test "watch: the window a handler turns into a loop in names it, none before" {
	"$VARSCOPE" signature watch -s "$BATS_FILE_TMPDIR/ov.sig" \
		--window 1s --format json -- "$OVERLAP" --bug=h13 \
		--bug-after=2.5 --duration=4.5 >watch.json 2>watch.err
	cat watch.err
	windows_eval '[(w["window"], w["start_ns"] <= turn < w["end_ns"],
			[f["function"] for f in w["functions"][:3]]) for w in wins]'
	# the first abnormal window is the one the loop began in, with h13
	# in its top 3
	run windows_eval 'wins[0]["start_ns"] <= turn < wins[0]["end_ns"] and \
		"h13" in [f["function"] for f in wins[0]["functions"][:3]]'
	assert_output True
	# it is not the first window: there were normal ones before
	run windows_eval 'wins[0]["window"] >= 2'
	assert_output True
	run grep -E '^varscope signature: watched [0-9.]+ s, [0-9]+ windows \([0-9]+ abnormal\): [0-9]+ system calls traced \([0-9]+ a second\), the watcher.s CPU [0-9.]+ s \([0-9.]+% of one CPU\), [0-9]+ records? lost$' watch.err
	assert_success
}

@test "watch: signatures of a run of fewer calls than a window, said" {
	# 100 requests: some 1600 calls, fewer than a second of overlap's
	"$VARSCOPE" signature build -o short.sig -- "$OVERLAP" \
		--requests=100 2>build.err
	cat build.err
	# the file says how many calls its normal run made, as build did
	normal=$("$VARSCOPE" script -i short.sig --format json | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["kind"] == "meta" and r["key"] == "calls":
        print(r["value"])')
	echo "calls: $normal"
	[ "$normal" -ge 1000 ]
	grep -qE " of $normal system calls( \(records lost\))? -> short\.sig$" \
		build.err
	"$VARSCOPE" signature watch -s short.sig --window 1s --format json \
		-- "$OVERLAP" --duration=2.5 >watch.json 2>watch.err
	cat watch.err
	run grep -E "^varscope signature: warning: a window made [0-9]+ system calls, more than the $normal of the signatures' normal run: " watch.err
	assert_success
	# the windows printed carry the normal run's calls
	run python3 -c 'import json, sys
print(all(json.loads(l)["normal_run_calls"] == int(sys.argv[1])
          for l in open("watch.json")))' "$normal"
	assert_output True
}

@test "watch: a thread hung in a read is named with its function" {
	"$VARSCOPE" signature watch -s "$BATS_FILE_TMPDIR/ov.sig" \
		--window 1s -- "$OVERLAP" --hang=h05 --bug-after=1 \
		--duration=3.5 >watch.txt 2>watch.err
	cat watch.txt
	run grep -E '^# hung: thread [0-9]+ in read for [0-9.]+ s, from [0-9.]+ s \(its longest in the normal run [0-9.]+ s, limit [0-9.]+ s\), in h05$' watch.txt
	assert_success
	# nothing else hangs: every hung line is one of those
	[ "$(grep -c '^# hung: ' watch.txt)" = \
	  "$(grep -cE '^# hung: thread [0-9]+ in read .*, in h05$' watch.txt)" ]
}

@test "infer: a thread hung in a read of a recording, with its function" {
	"$VARSCOPE" record --syscalls --syscall-stacks -o hang.data -- \
		"$OVERLAP" --hang=h05 --bug-after=1 --duration=3 2>/dev/null
	"$VARSCOPE" signature infer -s "$BATS_FILE_TMPDIR/ov.sig" \
		-i hang.data --format json >hang.json
	run python3 -c 'import json
h = json.load(open("hang.json"))["hangs"]
print(len(h) >= 1, sorted(set((x["call"], x["function"]) for x in h)),
      all(x["duration_ns"] > x["limit_ns"] for x in h))'
	assert_output "True [('read', 'h05')] True"
	# without the stacks: the thread and the call, no function
	"$VARSCOPE" record --syscalls -o plain.data -- "$OVERLAP" \
		--hang=h05 --bug-after=1 --duration=2.5 2>/dev/null
	run "$VARSCOPE" signature infer -s "$BATS_FILE_TMPDIR/ov.sig" \
		-i plain.data
	assert_line --regexp '^# hung: thread [0-9]+ in read for .*, in a function the recording does not say \(record --syscall-stacks\)$'
}

# named_in_main: the threads of watch.txt hung in a read, named in main
named_in_main() {
	grep -E '^# hung: thread [0-9]+ in read .*, in main$' watch.txt |
		awk '{ print $4 }' | sort -u | wc -l
}

@test "watch: what it kept of processes that ended goes while it runs" {
	local i n most=0

	# four children hang 3 s in a read (named at the end of the second
	# window: a libdw session each, which holds forks' file open), are
	# reaped, the parent sleeps on
	"$VS_CC" -O2 -fno-omit-frame-pointer -o forks "$SRC/t/t7040/forks.c"
	"$VARSCOPE" signature watch -s "$BATS_FILE_TMPDIR/ov.sig" \
		--window 1s -- ./forks 4 3 30 >watch.txt 2>watch.err &
	watch=$!
	prog=$(readlink -f forks)
	fds() { ls -l /proc/$watch/fd | grep -c " $prog\$" || :; }
	for i in $(seq 400); do
		grep -qx reaped watch.txt && break
		n=$(fds)
		[ "$n" -gt "$most" ] && most=$n
		sleep 0.05
	done
	grep -qx reaped watch.txt
	echo "most $most"
	[ "$most" -ge 4 ]
	# then, the parent's alone (its sleep hangs) while watch runs
	for i in $(seq 400); do
		n=$(fds)
		[ "$n" -le 1 ] && break
		sleep 0.05
	done
	echo "then $n"
	kill -0 $watch
	[ "$n" -le 1 ]
	kill -INT $watch
	wait $watch
	run named_in_main
	assert_output 4
	# children whose hang is named after they were reaped (the window
	# ends at 2 s, its end is handled at a record past it, after the
	# reaping): their records were read, their functions are named
	"$VARSCOPE" signature watch -s "$BATS_FILE_TMPDIR/ov.sig" \
		--window 1s -- ./forks 4 2 3 >watch.txt 2>watch.err
	run named_in_main
	assert_output 4
}

@test "watch -p PID: follows a running process until SIGINT, and says the cost" {
	# the read begins after the watch did
	"$OVERLAP" --hang=h05 --bug-after=3 --duration=20 2>/dev/null &
	prog=$!
	sleep 0.3
	"$VARSCOPE" signature watch -s "$BATS_FILE_TMPDIR/ov.sig" \
		--window 1s -p $prog >watch.txt 2>watch.err &
	watch=$!
	sleep 5.5
	kill -INT $watch
	wait $watch
	kill $prog
	cat watch.txt watch.err
	run grep -E '^# hung: thread [0-9]+ in read .*, in h05$' watch.txt
	assert_success
	run grep -c '^varscope signature: watched ' watch.err
	assert_output 1
}

@test "watch: bad arguments, one line each" {
	run --separate-stderr "$VARSCOPE" signature watch -- true
	assert_failure 129
	[[ $stderr == *"--signatures"* ]]
	run --separate-stderr "$VARSCOPE" signature watch -s x.sig
	assert_failure 129
	[[ $stderr == *"--pid"* ]]
	run --separate-stderr "$VARSCOPE" signature watch -s x.sig -p 1 -- true
	assert_failure 129
	run --separate-stderr "$VARSCOPE" signature watch -s x.sig --window 0 -- true
	assert_failure 129
	[[ $stderr == *"--window"* ]]
	run --separate-stderr "$VARSCOPE" record --syscall-stacks -- true
	assert_failure 129
	[[ $stderr == *"--syscall-stacks"*"--syscalls"* ]]
	run --separate-stderr "$VARSCOPE" signature watch -s missing.sig -- true
	assert_failure 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$VARSCOPE" signature watch \
		-s "$BATS_FILE_TMPDIR/ov.sig" -p 999999999
	assert_failure 1
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"999999999"* ]]
}
