#!/usr/bin/env bats
# t2020-record-robust: threads that come and go, more threads than the
# engine has slots, fork, exec, odd call orders, a crashing target,
# signals to the recorder, a full disk.

load test-lib
load record-lib

@test "1000 threads that come and go, 100 at a time, are all recorded" {
	run "$VARSCOPE" record -o t.data -- "$IF" -n 2 --types sleep --sleep-us 100 --threads 1000 --wave 100
	assert_success
	assert_line --partial "varscope record: 2000 tasks of 1000 threads written to t.data"
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 2000 and len(T["1"]["tids"]) == 1000'
	check 'not T["1"]["flagged"]'
	# every thread's creation and exit reached the trace (what 0 fork, 1
	# exit), or the tracking rings' LOST records (thread 0) count at
	# least those missing: those rings take every process's records on
	# the machine, and a busy one fills them (seen in CI at load 8)
	python3 - <<-'PY'
	import json
	recs = [json.loads(l) for l in open("t.json")]
	lost = sum(r["count"] for r in recs if r["kind"] == "lost" and r["tid"] == 0)
	for what in (0, 1):
	    n = sum(1 for r in recs if r["kind"] == "process" and r["what"] == what)
	    assert n + lost >= 1000, (what, n, lost)
	PY
}

@test "4200 threads at once: the engine's 4095 slots recorded, the rest refused in one line" {
	# each thread's one task sleeps 8 s: all of them are alive when the
	# last ones register (that takes a few seconds)
	run --separate-stderr "$VARSCOPE" record -o t.data -- "$IF" -n 1 \
		--types sleep --sleep-us 8000000 --threads 4200
	assert_success
	grep -q '^interfere: .* tasks=4200 ' <<<"$output"
	[[ "$stderr" == *"varscope record: 4095 tasks of 4095 threads written to t.data"* ]]
	run grep -cx "varscope record: 105 threads not recorded: the engine's 4095 slots were taken (threads registered at once)" <<<"$stderr"
	assert_output 1
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 4095 and len(T["1"]["tids"]) == 4095'
}

# perf events of the recorder recording "sleep 2" with options $@, once
# the command runs (its events are open then)
recorder_perf_fds() {
	local rec child i n

	"$VARSCOPE" record -o t.data "$@" -- sleep 2 2>/dev/null &
	rec=$!
	for i in $(seq 100); do
		child=$(pgrep -P $rec)
		[ "$(cat /proc/$child/comm 2>/dev/null)" = sleep ] && break
		sleep 0.05
	done
	n=$(ls -l /proc/$rec/fd | grep -c perf_event)
	wait $rec
	echo "$n"
}

@test "the recorder holds no tracepoint's perf event while it records" {
	# a perf event of a tracepoint, even disabled and on the sleeping
	# recorder, keeps the tracepoint's perf probe registered: every hit
	# of it on the machine calls the probe beside the engine's program
	# (bench/engine-floor, bench/README).  The recorder's perf
	# events are its per-CPU tracking ones, whatever -e selects; no
	# thread has registered while sleep runs.
	all=$(recorder_perf_fds)
	one=$(recorder_perf_fds -e sched:sched_switch)
	echo "$all $one"
	[ "$all" -eq "$one" ]
	[ "$all" -le "$(nproc --all)" ]
}

@test "a thread id reused at once: each thread's exit ends only that thread" {
	# in a pid namespace of its own (pid_max per namespace, Linux 6.14)
	# with 2 thread ids, each wave of 2 threads gets the ids of the wave
	# before, registering before the recorder has read that wave's exits
	require_unshare --pid --fork --mount-proc
	unshare --pid --fork --mount-proc sh -c 'echo 302 > /proc/sys/kernel/pid_max' ||
		skip "no pid_max per pid namespace (Linux < 6.14)"
	# (in such a namespace LeakSanitizer's exit check itself failed in
	# one run of five, "LeakSanitizer has encountered a fatal error":
	# not here; leaks are checked everywhere else)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	run unshare --pid --fork --mount-proc sh -c 'echo 302 > /proc/sys/kernel/pid_max &&
		exec "$0" record -o t.data -- "$1" -n 10 --types sleep --sleep-us 100 --threads 600 --wave 2' "$VARSCOPE" "$IF"
	assert_success
	assert_line --regexp '^interfere: pid=[0-9]+ type=1 name=sleep tasks=6000 '
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 6000 and not T["1"]["flagged"]'
	# the ids were reused: the 600 threads had at most 300 (the ids
	# below 300 once, then 300 and 301 again and again)
	check 'len(T["1"]["tids"]) <= 300'
}

@test "no descriptor per thread: 300 threads with 1000 descriptors, --sample too" {
	# the engine keeps no descriptor per thread (--sample: one sampling
	# event per CPU): 300 threads alive at once are all recorded with
	# 1000 descriptors (per-thread perf events took about 5000)
	for opt in "" --sample; do
		run bash -c 'ulimit -n 1000 && exec "$0" record $2 -o t.data -- "$1" -n 2 --types sleep --sleep-us 20000 --threads 300' "$VARSCOPE" "$IF" $opt
		assert_success
		refute_line --partial 'Too many open files'
		"$VARSCOPE" script -i t.data --format json > t.json
		check 'T["1"]["tasks"] == 600 and len(T["1"]["tids"]) == 300'
		check 'not T["1"]["flagged"]'
	done
}

@test "a forked child and an exec'd image record their own tasks" {
	run "$VARSCOPE" record -o t.data -- "$IF" -n 3 --types compute --work-us 200 --fork --exec
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	# parent 3, child 3, after exec 3 more in the parent's pid
	check 'T["4"]["tasks"] == 9 and len(T["4"]["pids"]) == 2'
	check 'not T["4"]["flagged"]'
	# the exec shows as a comm record with exec set
	[ "$(grep -c '"kind":"comm",.*"exec":1' t.json)" -ge 2 ]
}

@test "odd call orders: end without begin, begin twice, exit inside a task" {
	run "$VARSCOPE" record -o t.data -- "$IF" -n 1 --types compute --work-us 100 --odd
	assert_success
	assert_line "varscope record: 1 vs_task_end() without begin ignored"
	"$VARSCOPE" script -i t.data --format json > t.json
	# 1 regular, 2 from the double begin (the first flagged), 1 cut by exit
	check 'T["4"]["tasks"] == 4'
	check 'T["4"]["flagged"] == {"NESTED_BEGIN": 1, "THREAD_EXIT": 1}'
	# the begin twice: the first task's counters end at the second
	# begin, where the second's start (100 us of work each): neither
	# counts the other's CPU time
	python3 - <<-'EOF'
	import json
	T = [json.loads(l) for l in open("t.json")]
	T = sorted((r for r in T if r["kind"] == "task" and r["tid"] == r["pid"]),
	           key=lambda r: r["start_ns"])
	i = [k for k, r in enumerate(T) if r["flags"] & 2]	# NESTED_BEGIN
	assert len(i) == 1 and i[0] + 1 < len(T), T
	for r in T[i[0]:i[0] + 2]:
	    tc = r["values"]["task-clock"]
	    assert 50e3 <= tc <= r["latency_ns"] + 50e3, r
	EOF
}

@test "a command that leaves a daemon behind: said in one line" {
	# the parent exits at once, its child serves on, unrecorded
	run "$VARSCOPE" record -o t.data -- sh -c 'sleep 5 & echo $! > daemon.pid'
	kill "$(cat daemon.pid)"
	assert_success
	assert_line "varscope record: the command exited and left 1 process running, not recorded (pid $(cat daemon.pid)): run a server in the foreground, or attach with -p"
	# and nothing when the command's children are gone with it
	run "$VARSCOPE" record -o t.data -- sh -c 'sleep 0.1 & wait'
	assert_success
	refute_output --partial "left"
}

@test "a crashing target: the recorder says so and exits 128 + signal" {
	run "$VARSCOPE" record -o t.data -- "$IF" -n 5 --types compute --work-us 100 --crash
	assert_failure 139
	assert_line --regexp "^varscope record: '.*interfere' terminated by signal 11 "
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["4"]["tasks"] == 5'
}

@test "SIGINT to the recorder: everything flushed, open task truncated" {
	"$VARSCOPE" record -o t.data -- "$IF" -n 100000 --types sleep --sleep-us 1000 >/dev/null 2>err &
	pid=$!
	sleep 2
	kill -INT $pid
	wait $pid || true
	grep -q "tasks of 1 thread written to t.data" err
	run "$VARSCOPE" script -i t.data --format json
	assert_success
	refute_output --partial "warning"
	echo "$output" > t.json
	check 'T["1"]["tasks"] > 200'
	check 'T["1"]["flagged"].get("TRUNCATED", 0) <= 1 and len(T["1"]["flagged"]) <= 1'
}

@test "an interrupt while record starts: kept, not lost nor fatal" {
	# record takes most of a second to start here (its programs load
	# and pass the verifier): an interrupt 50 ms in comes meanwhile
	start=$(date +%s%N)
	"$VARSCOPE" record -o x.data -- true 2>/dev/null
	[ $(($(date +%s%N) - start)) -gt 300000000 ] ||
		skip "record starts in under 0.3 s here: no time to interrupt it while it starts"
	# a command: never started, the earlier trace kept
	echo earlier > t.data
	"$VARSCOPE" record -o t.data -- "$IF" -n 10 --types sleep --sleep-us 1000000 > truth 2> err &
	rec=$!
	sleep 0.05
	kill -INT $rec
	status=0
	wait $rec || status=$?
	[ "$status" = 130 ]
	grep -qx "varscope record: stopped by signal 2 (Interrupt) before '$IF' started: nothing recorded" err
	[ ! -s truth ]
	[ "$(cat t.data)" = earlier ]
	# -p: the recording ends as soon as it began, the process runs on
	# (longer than record takes to start on an emulated CPU)
	"$IF" -n 1000 --types sleep --sleep-us 1000000 > /dev/null &
	target=$!
	wait_exec $target "$IF"
	"$VARSCOPE" record -o t.data --task-func one_task -p $target 2> err &
	rec=$!
	sleep 0.05
	kill -INT $rec
	wait $rec
	kill -0 $target
	kill $target
	grep -q "^varscope record: attached to process $target " err
	"$VARSCOPE" script -i t.data > /dev/null
}

@test "SIGKILL of the recorder leaves a trace readable to the last chunk" {
	"$VARSCOPE" record -o t.data -- "$IF" -n 4000 --types sleep --sleep-us 1000 >/dev/null 2>&1 &
	pid=$!
	# kill once chunks of 500 tasks are on disk (about 1 s; a loaded
	# machine or the sanitizer build takes longer): what was readable
	# before the kill is readable after it
	for i in $(seq 60); do
		sleep 0.5
		before=$("$VARSCOPE" script -i t.data --format json 2>/dev/null |
			 grep -c '"kind":"task"' || :)
		[ "$before" -gt 500 ] && break
	done
	target=$(pgrep -f -P $pid interfere)
	kill -KILL $pid
	wait $pid || true
	# the target goes on without the recorder
	kill -0 "$target"
	run "$VARSCOPE" script -i t.data --format json
	assert_success
	echo "$output" | grep -v '^varscope' > t.json
	check "T['1']['tasks'] >= $before > 500"
	kill "$target" 2>/dev/null || true
}

@test "a full disk: recording stops, the target goes on, the trace is kept" {
	mkdir small
	mount -t tmpfs -o size=256k tmpfs small || skip "cannot mount a tmpfs"
	head -c 64K /dev/zero > small/filler
	# packed tasks take ~10 bytes each: a chunk (256 KiB raw) holds ~4500
	# of them in ~45 KiB, and 60000 need 13 such chunks, with the
	# samples of their 3 s of CPU more (a chunk of them up to ~100 KiB:
	# the 192 KiB left hold the first ones whatever the mix); tasks of
	# 50 us, so that a recorder slowed by a loaded machine does not drop
	# so many (a full task ring drops them) that the disk never fills:
	# under ASan at load 10, 40000 tasks made a file of 203 KB.  Samples
	# of --call-graph fp, whose sizes these are (a dwarf sample's stack
	# copy is 15 times more)
	run "$VARSCOPE" record -o small/t.data --sample --call-graph fp -- "$IF" -n 60000 --types compute --work-us 50
	umount_status=0
	cp small/t.data t.data
	umount small || umount_status=$?
	assert_success
	assert_line --regexp "^interfere: pid=[0-9]+ type=4 name=compute tasks=60000 "
	assert_line --regexp "^varscope record: small/t.data: No space left on device; recording stopped, the command goes on"
	# the summary counts the tasks and samples in the file, not those in
	# the chunk that could not be written (the tasks it says lost), nor
	# the samples read after the failure
	written=$(echo "$output" | sed -n 's/^varscope record: \([0-9]*\) tasks of .* written to .*/\1/p')
	samples=$(echo "$output" | sed -n 's/^varscope record: \([0-9]*\) samples written$/\1/p')
	assert_line --regexp "^varscope record: [0-9]+ more tasks? ended before the output error: lost with the chunk that could not be written$"
	run "$VARSCOPE" script -i t.data --format json
	assert_success
	echo "$output" | grep -v '^varscope' > t.json
	check 'T["4"]["tasks"] > 100'
	check "T['4']['tasks'] == $written"
	[ "$(grep -c '"kind":"sample"' t.json)" = "$samples" ]
	[ "$umount_status" = 0 ]
}

@test "threads that take a signal every 20 us register and record every task" {
	require_cmd "$VS_CC"
	# SIGALRM every 20 us, handler without SA_RESTART: each thread's
	# registration round trip (at its first task) is interrupted, most
	# of them more than once
	cat > alarm.c <<-'EOF2'
	#include <pthread.h>
	#include <signal.h>
	#include <string.h>
	#include <sys/time.h>
	#include <time.h>
	#include "varscope.h"
	static void tick(int sig) { (void)sig; }
	static void *one_task(void *arg)
	{
		struct timespec left = { 0, 1000000 };

		vs_task_begin(1);
		while (nanosleep(&left, &left))
			;
		vs_task_end(1);
		return arg;
	}
	int main(void)
	{
		struct sigaction sa;
		struct itimerval it = { { 0, 20 }, { 0, 20 } };
		pthread_t t;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = tick;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		for (int i = 0; i < 20; i++) {
			pthread_create(&t, NULL, one_task, NULL);
			pthread_join(t, NULL);
		}
		return 0;
	}
	EOF2
	record_app alarm
	assert_success
	assert_line --partial "varscope record: 20 tasks of 20 threads written to t.data"
	check 'T["1"]["tasks"] == 20 and len(T["1"]["tids"]) == 20'
}

@test "a task begun in a constructor, linked statically, is recorded" {
	require_cmd "$VS_CC"
	# the program's object comes first on the link line, so its
	# constructor comes first in .init_array: before the library's,
	# unless that one has a priority
	cat > ctor.c <<-'EOF2'
	#include <pthread.h>
	#include "one-task.h"
	static void *worker(void *arg)
	{
		for (int i = 0; i < 5; i++)
			one_task();
		return arg;
	}
	static pthread_t early;
	__attribute__((constructor)) static void start(void)
	{
		one_task();
		pthread_create(&early, NULL, worker, NULL);
	}
	int main(void)
	{
		one_task();
		pthread_join(early, NULL);
		return 0;
	}
	EOF2
	record_app ctor
	assert_success
	refute_output --partial "without begin"
	# the constructor's, its thread's 5 and main's
	check 'T["1"]["tasks"] == 7 and len(T["1"]["tids"]) == 2'
}

@test "a command in a pid namespace of its own: its threads are recorded" {
	require_unshare -p -f --mount-proc
	# the library registers with the ids of its namespace (interfere is
	# pid 1 there); the trace has the ids the recorder's namespace sees
	run "$VARSCOPE" record -o t.data -- unshare -p -f --mount-proc \
		"$IF" -n 5 --types sleep --sleep-us 2000 --threads 2
	assert_success
	assert_line --partial "interfere: pid=1 type=1 name=sleep tasks=10"
	assert_line --partial "varscope record: 10 tasks of 2 threads written to t.data"
	refute_output --partial "not recorded"
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 10 and len(T["1"]["tids"]) == 2 and T["1"]["pids"] != [1]'
	check 'not T["1"]["flagged"] and T["1"]["min"]["sched.blocked.time"] >= 1.9e6'
}

@test "a pid namespace of its own: vs_task_id() names the task in the trace" {
	require_unshare -p -f --mount-proc
	require_example crossthread
	# the worker attaches to the id the front thread's vs_task_id()
	# gave: the recorder's id for that task, not one made of the tid the
	# namespace sees
	run "$VARSCOPE" record -o t.data -- unshare -p -f --mount-proc \
		"$EXAMPLES/crossthread" -n 10
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	python3 - <<-'EOF2'
	import json
	T = [json.loads(l) for l in open("t.json")]
	ids = {r["id"] for r in T if r["kind"] == "task" and r["type"] == 1}
	at = [r["task_id"] for r in T if r["kind"] == "attach" and r["what"] == 0]
	assert len(ids) == 10 and len(at) == 10 and set(at) == ids, (ids, at)
	EOF2
}

# write_closeall: closeall.c runs 3 tasks, closes every descriptor above
# 2 (between tasks, or with CLOSE_INSIDE set inside a fourth task) and
# reuses their numbers for pipes holding data, then runs 3 more tasks
# and says whether the pipes kept their data
write_closeall() {
	cat > closeall.c <<-'EOF2'
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <unistd.h>
	#include "one-task.h"
	int main(void)
	{
		int p[8][2], i, ok = 0, inside = !!getenv("CLOSE_INSIDE");
		char buf[8];

		for (i = 0; i < 3; i++)
			one_task();
		if (inside)
			vs_task_begin(1);
		/* daemonize: close every descriptor but 0-2 */
		for (i = 3; i < 1024; i++)
			close(i);
		for (i = 0; i < 8; i++) {
			pipe(p[i]);
			write(p[i][1], "hello", 5);
			close(p[i][1]);
		}
		if (inside)
			vs_task_end(1);
		for (i = 0; i < 3; i++)
			one_task();
		for (i = 0; i < 8; i++)
			ok += read(p[i][0], buf, sizeof(buf)) == 5 && !memcmp(buf, "hello", 5);
		printf("pipes intact: %d of 8\n", ok);
		return ok != 8;
	}
	EOF2
}

@test "a program that closes every descriptor: its files are left alone" {
	require_cmd "$VS_CC"
	# the library keeps no descriptor of the engine's (it maps the slots
	# and the task ring, and closes them): every task is recorded and
	# the pipes that took the freed numbers are untouched
	write_closeall
	for opt in "" --sample; do
		RECORD_OPTS="$opt" record_app closeall
		assert_success
		assert_line "pipes intact: 8 of 8"
		assert_line --partial "varscope record: 6 tasks of 1 thread written to t.data"
		check 'T["1"]["tasks"] == 6 and not T["1"]["flagged"]'
	done
}

@test "a program that closes every descriptor inside a task, at any rate, sampled or not" {
	require_cmd "$VS_CC"
	# the task's end finds the pipes under the numbers the registration
	# used: nothing may read them, and the task is recorded
	write_closeall
	CLOSE_INSIDE=1 record_app closeall
	assert_success
	assert_line "pipes intact: 8 of 8"
	check 'T["1"]["tasks"] == 7'
	CLOSE_INSIDE=1 RECORD_OPTS="--rate 0.999999" record_app closeall
	assert_success
	assert_line "pipes intact: 8 of 8"
	CLOSE_INSIDE=1 RECORD_OPTS="--sample" record_app closeall
	assert_success
	assert_line "pipes intact: 8 of 8"
	check 'T["1"]["tasks"] == 7'
}

@test "a command that ignores SIGTERM: said, and a second interrupt leaves it" {
	# --duration ends the recording and sends the command SIGTERM, which
	# it ignores (and so does its sleep, which inherits that)
	"$VARSCOPE" record -o t.data --duration 300ms -- \
		sh -c 'trap "" TERM; sleep 60' 2> err &
	local rec=$! i pid

	for i in $(seq 150); do
		grep -q "interrupt again" err && break
		sleep 0.1
	done
	pid=$(sed -n "s/^varscope record: 'sh' (pid \([0-9]*\)) has not exited 3 s after SIGTERM: waiting for it; interrupt again to leave it running$/\1/p" err)
	[ -n "$pid" ] || fail "no line about the wait: $(cat err)"
	kill -INT "$rec"
	wait "$rec" || fail "record exited $?"
	run cat err
	assert_line "varscope record: 'sh' (pid $pid) did not exit after SIGTERM: left running, with its processes"
	refute_output --regexp 'kernel events? lost'
	kill -0 "$pid"
	pkill -KILL -P "$pid"
	kill -KILL "$pid"
	"$VARSCOPE" script -i t.data > /dev/null
}
