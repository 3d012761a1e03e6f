#!/usr/bin/env bats
# t2030-record-task-func: --task-func makes each call of a function an
# AppTask through a uprobe and a uretprobe: executables, shared libraries,
# stripped binaries (.dynsym), and PostgreSQL's PortalRun under pgbench.

load test-lib
load record-lib

PG=/usr/lib/postgresql/15/bin

# Every varscope a test runs writes its pid into $TEST_TMP/recorders
# first: a recorder's uprobe events are the group varscope_PID.  Only
# those are the test's; other groups on the machine (of a recorder that
# a test running beside this one killed, or that crashed) are not.
setup() {
	vs_setup
	require_root
	require_tracefs
	require_example interfere
	: > recorders
	cat > varscope-pid <<-EOF
	#!/bin/sh
	echo \$\$ >> '$PWD/recorders'
	exec '$VARSCOPE' "\$@"
	EOF
	chmod +x varscope-pid
	VARSCOPE=$PWD/varscope-pid
}

# the test's recorders left no uprobe event behind (one still running,
# in the background, is not done yet)
no_probes_left() {
	local pid

	for pid in $(cat "$TEST_TMP/recorders"); do
		grep -q "^[pr]:varscope_$pid/" "$TRACEFS/uprobe_events" || continue
		kill -0 "$pid" 2>/dev/null ||
			fail "uprobe events of varscope_$pid left behind"
	done
}

# the C library a dynamic program $1 loads
libc_of() {
	ldd "$1" | awk '/libc.so/ { print $3 }'
}

@test "--task-func one_task: every call a task, its kernel values attributed" {
	require_uprobes
	run "$VARSCOPE" record -o t.data --task-func one_task -- "$IF" -n 20 --types sleep,fault --sleep-us 5000 --pages 256
	assert_success
	assert_line --partial "varscope record: 40 function calls written to t.data"
	"$VARSCOPE" script -i t.data --format json > t.json
	# one function: task type 1, flagged as made by a probe
	check 'list(T) == ["1"] and T["1"]["tasks"] == 40'
	check 'T["1"]["flagged"] == {"FUNC_PROBE": 40}'
	slept=$(sed -n 's/.*type=1 .*total_ns=\([0-9]*\).*/\1/p' <<<"$output")
	check "abs(T['1']['sum']['sched.blocked.time'] - $slept) <= 0.1 * $slept"
	check 'T["1"]["sum"]["fault.page.count"] >= 20 * 256'
	no_probes_left
}

@test "--task-func tasks have no software counters, and a true run.time" {
	require_uprobes
	run "$VARSCOPE" record -o t.data --task-func one_task -- "$IF" -n 5 --types compute --work-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	# the engine's own events only, none added into another (run.time
	# once read twice the call: the software counters' ids were
	# run.time's): run.time is the call less its waits and interrupts
	# (a loaded machine's: CI once had a 253 us RCU softirq in one)
	PYTHONPATH=$SRC/t/helper python3 - <<-'EOF2'
	import json
	from latency_parts import parts
	tasks = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	assert len(tasks) == 5, len(tasks)
	for t in tasks:
	    v = t["values"]
	    assert "task-clock" not in v and "context-switches" not in v, t
	    assert v["run.time"] <= t["latency_ns"], t
	    assert abs(parts(v) - t["latency_ns"]) <= 0.01 * t["latency_ns"], t
	EOF2
	run "$VARSCOPE" report -i t.data --min-tasks 1 --format csv
	assert_success
	assert_output --partial ',run.time,'
	refute_output --partial ',task-clock,'
	no_probes_left
}

@test "a recorder removes the uprobe events a killed recorder left behind" {
	require_uprobes
	local dead live=$$

	# events as a recorder killed with SIGKILL leaves them, and one
	# group of a recorder still running (this shell stands for it)
	sh -c : & dead=$!
	wait $dead
	echo "p:varscope_$dead/f0_entry /bin/true:0x1000" >> "$TRACEFS/uprobe_events"
	echo "r:varscope_$dead/f0_return /bin/true:0x1000" >> "$TRACEFS/uprobe_events"
	echo "p:varscope_$live/f0_entry /bin/true:0x1000" >> "$TRACEFS/uprobe_events"
	run "$VARSCOPE" record -o t.data --task-func one_task -- "$IF" -n 2 --types compute --work-us 100
	# the running owner's are kept: removed only here, by the test
	grep -q "^p:varscope_$live/" "$TRACEFS/uprobe_events" && live_kept=1
	echo "-:varscope_$live/f0_entry" >> "$TRACEFS/uprobe_events"
	assert_success
	[ "${live_kept:-}" = 1 ]
	run grep "varscope_$dead/" "$TRACEFS/uprobe_events"
	assert_failure
	no_probes_left
}

@test "--task-func on a shared library function: nanosleep in libc" {
	require_uprobes
	run "$VARSCOPE" record -o t.data --task-func "nanosleep@$(libc_of "$IF")" -- "$IF" -n 10 --types sleep --sleep-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 10'
	check 'T["1"]["min"]["sched.blocked.time"] >= 1800000'
	no_probes_left
}

@test "--task-func finds a function of a library the command links, by its name or the library's" {
	require_uprobes
	run "$VARSCOPE" record -o t.data --task-func nanosleep -- "$IF" -n 10 --types sleep --sleep-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 10'
	check 'T["1"]["min"]["sched.blocked.time"] >= 1800000'
	run "$VARSCOPE" record -o t.data --task-func nanosleep@libc.so.6 -- "$IF" -n 7 --types sleep --sleep-us 2000
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 7'
	run "$VARSCOPE" record -o t.data --task-func vs_no_such_function -- "$IF" -n 1 --types sleep
	assert_failure
	assert_output "varscope record: --task-func: no function 'vs_no_such_function' in $IF nor in the libraries it links"
	run "$VARSCOPE" record -o t.data --task-func nanosleep@libvs-no-such.so.1 -- "$IF" -n 1 --types sleep
	assert_failure
	assert_output "varscope record: --task-func: cannot find 'libvs-no-such.so.1'"
	no_probes_left
}

@test "--task-func at a FIFO: one line, and the root recorder does not wait for a writer" {
	mkfifo fifo
	run timeout -k 5 20 "$VARSCOPE" record -o t.data --task-func "f@$PWD/fifo" -- "$IF" -n 1 --types sleep
	assert_failure 1
	assert_output "varscope record: --task-func: $PWD/fifo is not an ELF file"
}

# libf.so with f(), and calls: "calls N [FILE]" calls f N times, then
# waits for FILE to exist; "calls -f K [sh]" forks K children one after
# the other, each exiting before the next: each first forks a child that
# exits at once (its parent and it are the swapped pair of perf's
# contexts), then calls f 5 times; the last also has a grandchild that
# calls f 5 times
make_lib_calls() {
	require_cmd cc
	cat > f.c <<-'EOF'
	__attribute__((noinline)) int f(int x)
	{
		__asm__ volatile("" : "+r"(x));
		return x + 1;
	}
	EOF
	cat > calls.c <<-'EOF'
	#include <stdlib.h>
	#include <string.h>
	#include <unistd.h>
	#include <sys/wait.h>
	int f(int x);
	static void five(void)
	{
		for (int i = 0; i < 5; i++)
			f(i);
	}
	int main(int argc, char **argv)
	{
		if (!strcmp(argv[1], "-f")) {
			int k = atoi(argv[2]);
			for (int c = 0; c < k; c++) {
				if (fork())
					continue;
				if (!fork())
					_exit(0);
				wait(NULL);
				five();
				if (c == k - 1 && !fork()) {
					five();
					_exit(0);
				}
				while (wait(NULL) > 0)
					;
				_exit(0);
			}
			while (wait(NULL) > 0)
				;
			return 0;
		}
		for (int i = atoi(argv[1]); i > 0; i--)
			f(i);
		while (argc > 2 && access(argv[2], F_OK))
			usleep(20000);
		return 0;
	}
	EOF
	cc -O2 -shared -fPIC -o libf.so f.c
	cc -O2 -o calls calls.c -L. -lf -Wl,-rpath,"$PWD"
}

# the running kernel is older than 6.12 (no inherit with PERF_SAMPLE_READ)
kernel_before_6_12() {
	local v major minor

	v=$(uname -r)
	major=${v%%.*}
	minor=${v#*.}
	minor=${minor%%.*}
	[ "$major" -lt 6 ] || { [ "$major" = 6 ] && [ "$minor" -lt 12 ]; }
}

# the hits of the uprobe event $1 (f0_entry, f0_return) on libf.so in
# this folder, as the kernel counts them (uprobe_profile: every trap, kept
# or not)
lib_hits() {
	awk -v lib="$PWD/libf.so" -v ev="$1" \
		'$1 == lib && $2 == ev { print $3; n++ } END { if (!n) print "none" }' \
		"$TRACEFS/uprobe_profile"
}

@test "--task-func on a library: a process outside the recording calling it does not trap" {
	require_uprobes
	make_lib_calls
	"$VARSCOPE" record -o t.data --task-func "f@$PWD/libf.so" -- ./calls 7 go 2> rec.err &
	rec=$!
	for i in $(seq 100); do
		[ "$(lib_hits f0_return)" = 7 ] && break
		sleep 0.1
	done
	# 500 calls of a process the recording does not know, beside it
	./calls 500
	entry=$(lib_hits f0_entry) return=$(lib_hits f0_return)
	touch go
	wait $rec
	[ "$entry" = 7 ] || fail "$entry entry hits, 7 of them the command's"
	[ "$return" = 7 ] || fail "$return return hits, 7 of them the command's"
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 7 and len(T["1"]["pids"]) == 1'
	no_probes_left
}

@test "--task-func on a library follows the forks: a child after another exited, one whose child exited first, a grandchild" {
	require_uprobes
	make_lib_calls
	# 12 children of 5 calls and a grandchild of 5; again one fork
	# deeper, under a shell that does not exec it
	for cmd in "./calls -f 12" "sh -c './calls -f 12; true'"; do
		run "$VARSCOPE" record -o t.data --task-func "f@$PWD/libf.so" -- sh -c "$cmd"
		assert_success
		if kernel_before_6_12; then
			# perf may swap a parent's and a child's inherited
			# events there: a call missed is said, never lost
			# silently (t2990 runs this on 6.1)
			grep -q "varscope record: 65 function calls written" <<<"$output" ||
				assert_line --regexp "^varscope record: [0-9]+ forks? or thread starts? came before the recorder gave its process probes of its own"
			continue
		fi
		assert_line --partial "varscope record: 65 function calls written to t.data"
		refute_output --partial "missing"
		"$VARSCOPE" script -i t.data --format json > t.json
		check 'len(T["1"]["pids"]) == 13'
	done
	no_probes_left
}

@test "--task-func: a wait whose switch-in went unseen is closed at the return" {
	require_uprobes
	# every switch-in unseen (fault injection, as this VM's agent thread
	# does): each sleep is still open when the call returns
	VARSCOPE_TEST_UNSEEN_SWITCH_IN=1 run "$VARSCOPE" record -o t.data --task-func "nanosleep@$(libc_of "$IF")" -- "$IF" -n 10 --types sleep --sleep-us 2000
	assert_success
	assert_output --partial "had a switch the kernel did not trace"
	"$VARSCOPE" script -i t.data --format json > t.json
	python3 - <<-'EOF2'
	import json
	tasks = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	assert len(tasks) == 10, len(tasks)
	for t in tasks:
	    v = t["values"]
	    assert v["sched.blocked.count"] == 1, t
	    assert 1.8e6 <= v["sched.blocked.time"] <= t["latency_ns"], t
	    assert t["flags"] & 1024, t	# UNSEEN_SWITCH
	EOF2
}

@test "--task-func: a wait whose switch-in went unseen ends at the switch-in, not at the return" {
	require_uprobes
	require_cmd cc chrt
	# each call sleeps 2 ms, then spins 3 ms by the clock, real-time:
	# nothing preempts it.  Every switch-in unseen (fault injection):
	# the sleep's wait ends where the scheduler let the thread in again
	# (its sched_info, the scheduler's clock), so the spin is run time;
	# the thread's CPU time, which the kernel brings up to date at ticks
	# only, would have put what it spun since the last tick in the wait
	# (and its interrupts twice, a task flagged DISTORTED)
	cat > sleep-spin.c <<-'EOF'
	#include <time.h>
	static long long mono(void)
	{
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		return t.tv_sec * 1000000000LL + t.tv_nsec;
	}
	__attribute__((noinline)) void sleep_spin(void)
	{
		struct timespec d = { 0, 2000000 };
		long long end;

		nanosleep(&d, NULL);
		for (end = mono() + 3000000; mono() < end;)
			;
	}
	int main(void)
	{
		for (int i = 0; i < 10; i++)
			sleep_spin();
		return 0;
	}
	EOF
	cc -O2 -o sleep-spin sleep-spin.c
	VARSCOPE_TEST_UNSEEN_SWITCH_IN=1 run "$VARSCOPE" record -o t.data --task-func "sleep_spin@$PWD/sleep-spin" -- chrt -f 1 ./sleep-spin
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 10 and T["1"]["flagged"] == {"FUNC_PROBE": 10}'
	check 'all(e["sched.blocked.time"] >= 1.8e6 and e["run.time"] >= 0.9 * 3e6 for e in E["1"])'
}

@test "--task-func: the calls open when the recording stops are tasks flagged TRUNCATED" {
	require_uprobes
	# calls of 1 s: --duration and SIGINT cut one in each thread, as
	# they cut an annotated program's open tasks
	run "$VARSCOPE" record -o t.data --duration 2.5s --task-func one_task -- "$IF" -n 10 --types sleep --sleep-us 1000000
	assert_failure 143	# the command's SIGTERM
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["flagged"]["TRUNCATED"] == 1 and T["1"]["flagged"]["FUNC_PROBE"] == T["1"]["tasks"] >= 2'
	check 'T["1"]["max"]["latency_ns"] < 1.5e9'
	"$IF" -n 10 --types sleep --sleep-us 1000000 --threads 2 > /dev/null &
	target=$!
	wait_exec $target "$IF"
	sleep 0.3
	"$VARSCOPE" record -o t.data --task-func one_task -p $target 2> err &
	rec=$!
	sleep 2.5
	kill -INT $rec
	wait $rec
	kill $target
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["flagged"]["TRUNCATED"] == 2 == len(T["1"]["tids"])'
	no_probes_left
}

@test "--task-func: a command killed in its calls ends them at its threads' exits" {
	require_uprobes
	# a process killed by a signal: each thread exits on its own, the
	# leader's EXIT may come before the others', whose EXITs still end
	# their open calls (flagged THREAD_EXIT), in all 4 threads
	"$VARSCOPE" record -o t.data --task-func one_task -- "$IF" -n 10 --types sleep --sleep-us 1000000 --threads 4 > /dev/null 2> err &
	rec=$!
	sleep 2.5
	kill -TERM "$(pgrep -P $rec)"
	status=0
	wait $rec || status=$?
	[ "$status" = 143 ]
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["flagged"]["THREAD_EXIT"] == 4 == len(T["1"]["tids"])'
	check '"TRUNCATED" not in T["1"]["flagged"]'
	no_probes_left
}

@test "--task-func of two nested functions: the inner calls are counted" {
	require_uprobes
	libc=$(libc_of "$IF")
	# one_task sleeps in nanosleep: the outer call is the task, and the
	# summary says where the calls of the second type went
	run "$VARSCOPE" record -o t.data --task-func "one_task,nanosleep@$libc" -- "$IF" -n 10 --types sleep --sleep-us 2000
	assert_success
	assert_line --partial "varscope record: 10 function calls written to t.data"
	assert_line "varscope record: 10 calls of nanosleep ran inside a call of one_task: not tasks (a thread is in one task at a time)"
	no_probes_left
}

@test "--task-func finds a stripped PIE's exported function in .dynsym" {
	require_uprobes
	require_cmd cc
	cat > f.c <<-'EOF'
	#include <time.h>
	__attribute__((noinline)) void request(void)
	{
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	int main(void)
	{
		for (int i = 0; i < 7; i++)
			request();
		return 0;
	}
	EOF
	cc -O2 -fPIE -pie -rdynamic -o f f.c
	strip --strip-all f
	run readelf -S f
	refute_output --partial ".symtab"
	run "$VARSCOPE" record -o t.data --task-func request -- ./f
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 7'
}

@test "--task-func pairs a call whose return is on another CPU's ring" {
	require_uprobes
	require_cmd cc
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	# each call enters on CPU 1 and returns on CPU 0: the recorder reads
	# CPU 0's ring first, so it reads every return before its entry
	cat > f.c <<-'EOF'
	#define _GNU_SOURCE
	#include <sched.h>
	static void run_on(int cpu)
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	__attribute__((noinline)) void request(void)
	{
		run_on(0);
	}
	int main(void)
	{
		for (int i = 0; i < 50; i++) {
			run_on(1);
			request();
		}
		return 0;
	}
	EOF
	cc -O2 -o f f.c
	run "$VARSCOPE" record -o t.data --task-func request -- ./f
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 50'
}

@test "--task-func: a call left by longjmp ends, flagged, and the next calls are tasks" {
	require_uprobes
	require_cmd cc
	# odd requests fail: fail() longjmps past request() to main, so
	# their uretprobe never fires (PostgreSQL's ereport() leaves
	# PortalRun so); a recursive helper inside each request; the last
	# request returns (a call left just before the exit ends with it)
	cat > f.c <<-'EOF'
	#include <setjmp.h>
	#include <time.h>
	static jmp_buf top;
	__attribute__((noinline)) void fail(void)
	{
		longjmp(top, 1);
	}
	__attribute__((noinline)) int depth(int n)
	{
		return n ? depth(n - 1) + 1 : 0;
	}
	__attribute__((noinline)) void request(int i)
	{
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		if (depth(5) && i % 2)
			fail();
	}
	int main(void)
	{
		for (volatile int i = 0; i < 11; i++)
			if (!setjmp(top))
				request(i);
		return 0;
	}
	EOF
	cc -O1 -o f f.c
	run "$VARSCOPE" record -o t.data --task-func request,depth -- ./f
	assert_success
	assert_line --partial "varscope record: 11 function calls written to t.data"
	assert_line "varscope record: 5 calls of request left without returning (longjmp): ended at the first event past their frame, flagged NO_RETURN"
	assert_line "varscope record: 66 calls of depth ran inside a call of request: not tasks (a thread is in one task at a time)"
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 11 and T["1"]["flagged"] == {"FUNC_PROBE": 11, "NO_RETURN": 5}'
	# each ended at the next call's entry at the latest (a nanosleep of
	# 1 ms was seen to block 98 ms under ASan at load 10: no bound on
	# the latency itself)
	check 'T["1"]["sum"]["sched.blocked.time"] >= 11e6'
	python3 - <<-'PY'
	import json
	t = sorted((r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"),
	           key=lambda r: r["start_ns"])
	assert all(a["end_ns"] <= b["start_ns"] for a, b in zip(t, t[1:])), t
	PY
	no_probes_left
}

@test "--task-func: a task woken by another thread has its wake-up edge" {
	require_uprobes
	require_cmd cc
	# request() blocks reading a pipe that the writer thread writes 2 ms
	# later, once it sees the reader asleep (a reader late under load
	# would find its byte there): each task's blocked wait ends with the
	# writer's wake-up, which the engine's programs see as the task's own
	cat > f.c <<-'EOF'
	#define _GNU_SOURCE
	#include <pthread.h>
	#include <stdio.h>
	#include <string.h>
	#include <time.h>
	#include <unistd.h>
	static int fds[2];
	static pid_t reader;
	/* whether the reader sleeps (state S: in its read, nothing else) */
	static int reader_sleeps(void)
	{
		char path[64], buf[512], *p;
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", reader);
		if (!(f = fopen(path, "r")))
			return 0;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		return p && p[1] == ' ' && p[2] == 'S';
	}
	static void *writer(void *arg)
	{
		struct timespec ts = { 0, 2000000 }, poll = { 0, 100000 };

		for (int i = 0; i < 20; i++) {
			nanosleep(&ts, NULL);
			while (!reader_sleeps())
				nanosleep(&poll, NULL);
			if (write(fds[1], "x", 1) != 1)
				break;
		}
		printf("writer %d\n", gettid());
		fflush(stdout);
		return arg;
	}
	__attribute__((noinline)) void request(void)
	{
		char c;

		if (read(fds[0], &c, 1) != 1)
			_exit(1);
	}
	int main(void)
	{
		pthread_t t;

		reader = gettid();
		if (pipe(fds) || pthread_create(&t, NULL, writer, NULL))
			return 1;
		for (int i = 0; i < 20; i++)
			request();
		pthread_join(t, NULL);
		return 0;
	}
	EOF
	cc -O1 -o f f.c -lpthread
	run "$VARSCOPE" record -o t.data --task-func request -- ./f
	assert_success
	writer=$(sed -n 's/^writer //p' <<<"$output")
	[ -n "$writer" ]
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 20'
	python3 - "$writer" <<-'PY'
	import json, sys
	R = [json.loads(l) for l in open("t.json")]
	tasks = [r for r in R if r["kind"] == "task"]
	wakes = [r for r in R if r["kind"] == "wakeup"]
	# every read blocked: the writer waited for it
	blocked = [t for t in tasks if t["values"]["sched.blocked.count"]]
	assert len(blocked) == 20, len(blocked)
	for t in blocked:
	    w = [w for w in wakes if w["wakee_tid"] == t["tid"] and
	         t["start_ns"] <= w["time_ns"] <= t["end_ns"]]
	    assert w and all(x["waker_tid"] == int(sys.argv[1]) for x in w), (t, w)
	PY
	no_probes_left
}

@test "--task-func: a call that yields to another stack is not taken as left" {
	require_uprobes
	require_cmd cc
	# work() runs on a coroutine's stack (malloc'd) and yields back to
	# the scheduler on the main stack, far above it, which sleeps 2 ms
	# before resuming it: its frame is intact all along
	cat > f.c <<-'EOF'
	#include <stdlib.h>
	#include <time.h>
	#include <ucontext.h>
	static ucontext_t main_ctx, co_ctx;
	__attribute__((noinline)) void work(void)
	{
		swapcontext(&co_ctx, &main_ctx);	/* yield to the scheduler */
	}
	static void co_main(void)
	{
		for (int i = 0; i < 5; i++)
			work();
	}
	int main(void)
	{
		struct timespec ts = { 0, 2000000 };
		size_t size = 256 * 1024;

		getcontext(&co_ctx);
		co_ctx.uc_stack.ss_sp = malloc(size);
		co_ctx.uc_stack.ss_size = size;
		co_ctx.uc_link = &main_ctx;
		makecontext(&co_ctx, co_main, 0);
		for (int i = 0; i < 6; i++) {
			swapcontext(&main_ctx, &co_ctx);
			nanosleep(&ts, NULL);	/* the scheduler waits, main stack */
		}
		return 0;
	}
	EOF
	cc -O1 -o f f.c
	run "$VARSCOPE" record -o t.data --task-func work -- ./f
	assert_success
	refute_output --partial "without returning"
	"$VARSCOPE" script -i t.data --format json > t.json
	check 'T["1"]["tasks"] == 5 and T["1"]["flagged"] == {"FUNC_PROBE": 5}'
	check 'T["1"]["min"]["latency_ns"] >= 2e6'
}

@test "--task-func names a C++ function as the program spells it" {
	require_uprobes
	require_cmd c++
	# two overloads of different lengths, a const method, a free function
	cat > f.cc <<-'EOF'
	#include <time.h>
	static void sleep_ms(long ms)
	{
		struct timespec ts = { 0, ms * 1000000 };

		nanosleep(&ts, nullptr);
	}
	namespace app {
	struct Server {
		__attribute__((noinline)) void handle(int) { sleep_ms(1); }
		__attribute__((noinline)) void handle(double) { sleep_ms(20); }
		__attribute__((noinline)) int load() const { sleep_ms(1); return 1; }
	};
	}
	int main()
	{
		app::Server s;
		int n = 0;

		for (int i = 0; i < 5; i++) {
			s.handle(i);
			s.handle(1.0 * i);
			n += s.load();
		}
		return n != 5;
	}
	EOF
	c++ -O1 -o f f.cc
	run "$VARSCOPE" record -o t.data --task-func 'app::Server::handle' -- ./f
	assert_failure 1
	assert_output --regexp "^varscope record: --task-func: 'app::Server::handle' is 2 functions in \./f: _ZN3app6Server6handleE[id], _ZN3app6Server6handleE[id]; name one with its parameters or its mangled symbol$"
	assert_output --partial "handleEi"
	assert_output --partial "handleEd"
	run "$VARSCOPE" record -o t.data --task-func 'app::Server::handle(double),app::Server::load' -- ./f
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	# the 20 ms overload, not the 1 ms one (a 1 ms sleep took 3.3 ms
	# under load in one CI run: the two lengths stay far apart)
	check 'T["1"]["tasks"] == 5 and T["1"]["min"]["latency_ns"] >= 20e6'
	check 'T["2"]["tasks"] == 5 and T["2"]["max"]["latency_ns"] < 20e6'
	run "$VARSCOPE" record -o t.data --task-func _ZN3app6Server6handleEi -- ./f
	assert_success
	assert_line --partial "varscope record: 5 function calls written to t.data"
	no_probes_left
}

@test "--task-func with an unknown function or binary says which" {
	run "$VARSCOPE" record -o t.data --task-func no_such_function -- "$IF" -n 1
	assert_failure 1
	assert_output --partial "--task-func: no function 'no_such_function' in $IF"
	run "$VARSCOPE" record -o t.data --task-func f@/no/such/binary -- "$IF" -n 1
	assert_failure 1
	assert_output --partial "cannot find '/no/such/binary'"
	# not the first directory of PATH
	run "$VARSCOPE" record -o t.data --task-func one_task@ -- "$IF" -n 1
	assert_failure 1
	assert_output --partial "--task-func: 'one_task@' names no binary after the '@'"
	mkdir -p bin/tdir
	PATH=$PWD/bin:$PATH run "$VARSCOPE" record -o t.data --task-func f@tdir -- "$IF" -n 1
	assert_failure 1
	assert_output --partial "cannot find 'tdir'"
	no_probes_left
}

# pg_start: a PostgreSQL 15 server in a folder of its own ($pg, port
# $port), recorded with --task-func PortalRun into t.data by $rec; as_pg
# runs a client as the postgres user
pg_start() {
	require_uprobes
	[ -x "$PG/postgres" ] || skip "PostgreSQL 15 is not installed"
	# the test's folder is not the postgres user's to enter
	pg=$(mktemp -d /tmp/varscope-pg.XXXXXX)
	chown postgres "$pg"
	as_pg "$PG/initdb" -D "$pg/data" -A trust >/dev/null
	port=$((50000 + RANDOM % 10000))
	"$VARSCOPE" record -o t.data --task-func "PortalRun@$PG/postgres" -- \
		setpriv --reuid=postgres --regid=postgres --init-groups \
		"$PG/postgres" -D "$pg/data" -k "$pg" -p $port \
		-c listen_addresses= > pg.log 2>&1 &
	rec=$!
	for i in $(seq 50); do
		as_pg "$PG/pg_isready" -h "$pg" -p $port >/dev/null && break
		sleep 0.2
	done
}

as_pg() {
	(cd / && runuser -u postgres -- "$@")
}

# pg_stop: stop the server and its recording, dump t.data into t.json
pg_stop() {
	as_pg "$PG/pg_ctl" -D "$pg/data" stop -m fast >/dev/null
	wait $rec
	rm -rf "$pg"
	"$VARSCOPE" script -i t.data --format json > t.json
}

@test "PostgreSQL 15 under pgbench: each PortalRun is a task" {
	pg_start
	as_pg "$PG/pgbench" -h "$pg" -p $port -i -s 1 postgres >/dev/null 2>&1
	as_pg "$PG/pgbench" -h "$pg" -p $port -c 2 -t 100 postgres >/dev/null 2>&1
	pg_stop
	# 200 transactions of 7 statements each, plus the initialization
	# (on a loaded machine some clients may fail to connect in time)
	check 'T["1"]["tasks"] >= 500'
	check 'T["1"]["flagged"].get("FUNC_PROBE") == T["1"]["tasks"]'
	check 'len(T["1"]["pids"]) >= 2'
	check 'T["1"]["sum"]["run.time"] > 0'
	no_probes_left
}

@test "PostgreSQL 15: a statement that fails leaves PortalRun, its task ends" {
	pg_start
	# a division by zero at run time: ereport(ERROR) longjmps past
	# PortalRun to PostgresMain; each is followed by a 200 ms statement
	as_pg "$PG/psql" -h "$pg" -p $port postgres \
		-c 'SELECT 1 / (random() * 0)::int' -c 'SELECT pg_sleep(0.2)' \
		-c 'SELECT 1 / (random() * 0)::int' -c 'SELECT pg_sleep(0.2)' \
		> psql.out 2>&1 || true
	[ "$(grep -c 'ERROR:  division by zero' psql.out)" = 2 ]
	pg_stop
	python3 - <<-'EOF'
	import json
	T = [json.loads(l) for l in open("t.json")]
	T = sorted((r for r in T if r["kind"] == "task"),
	           key=lambda r: r["start_ns"])
	print([(r["flags"], r["latency_ns"]) for r in T])
	NO_RETURN = 512
	failed = [i for i, r in enumerate(T) if r["flags"] & NO_RETURN]
	assert len(failed) == 2, failed
	for i in failed:
	    # ended before the client's next statement, which is a task of
	    # its own that holds its sleep
	    assert T[i]["latency_ns"] < 100e6, T[i]
	    assert 200e6 <= T[i + 1]["latency_ns"] < 1e9, T[i + 1]
	    assert not T[i + 1]["flags"] & NO_RETURN
	EOF
	grep -q "varscope record: 2 calls of PortalRun left without returning" pg.log
	no_probes_left
}

@test "-p attaches to a running process's threads and leaves it running" {
	require_uprobes
	"$IF" -n 100000 --types sleep --sleep-us 1000 --threads 2 > /dev/null &
	target=$!
	wait_exec $target "$IF"
	sleep 0.5
	run "$VARSCOPE" record -o t.data --task-func one_task -p $target --duration 1s
	alive=0
	kill -0 $target && alive=1
	kill $target
	assert_success
	[ $alive = 1 ]
	"$VARSCOPE" script -i t.data --format json > t.json
	# two threads of 1 ms sleeps for a second
	check 'T["1"]["tasks"] > 500 and len(T["1"]["tids"]) == 2'
	check 'T["1"]["sum"]["sched.blocked.time"] > 0.9 * 1000000 * T["1"]["tasks"]'
	# the threads' names and the executable mapping come from /proc,
	# the mapping with its file's build-id (read from the file: /proc's
	# maps have none), as the report's check for changed binaries needs
	grep -q '"kind":"comm",.*"comm":"interfere"' t.json
	grep "\"kind\":\"mmap\",.*\"filename\":\"$IF\"" t.json |
		grep -q '"build_id":"[0-9a-f]\{40\}"'
	no_probes_left
}

@test "-p of a parent also records the children it already has" {
	require_uprobes
	# a pre-forking server: the parent waits, its child serves (the
	# "; true" keeps sh from exec'ing the program in its own place)
	sh -c '"$0" -n 100000 --types sleep --sleep-us 1000 > /dev/null; true' "$IF" &
	parent=$!
	sleep 0.5
	run "$VARSCOPE" record -o t.data --task-func "one_task@$IF" -p $parent --duration 1s
	pkill -P $parent
	wait $parent || true
	assert_success
	"$VARSCOPE" script -i t.data --format json > t.json
	# 1 ms sleeps for a second (far fewer on a loaded machine), all
	# the child's: without it none
	check 'T["1"]["tasks"] > 50 and len(T["1"]["pids"]) == 1'
	grep -q '"kind":"comm",.*"comm":"interfere"' t.json
	no_probes_left
}

@test "-p without --task-func, with a command, or of no process: one line" {
	run "$VARSCOPE" record -p $$
	assert_failure 129
	assert_output --partial "needs --task-func"
	run "$VARSCOPE" record --task-func one_task -p $$ -- true
	assert_failure 129
	run "$VARSCOPE" record -o t.data --task-func one_task@"$IF" -p 999999999
	assert_failure 1
	assert_output --partial "no process 999999999"
	# without @BINARY too: the process is checked before its binary
	run "$VARSCOPE" record -o t.data --task-func one_task -p 999999999
	assert_failure 1
	assert_output "varscope record: no process 999999999"
	no_probes_left
}

@test "-p of a process that exits during the attach: one line, exit 1" {
	require_uprobes
	# the attach reads the build-id of each file the process maps for
	# execution: the first open of gate.bin, mapped by it alone, is
	# held until the process is killed and gone (open-gate), so
	# that it exits inside the attach, whatever the load
	cat > exits.c <<-'EOF'
	#include <fcntl.h>
	#include <stdio.h>
	#include <sys/mman.h>
	#include <unistd.h>

	__attribute__((noinline)) void one_task(void)
	{
		__asm__ volatile("" ::: "memory");
	}

	int main(void)
	{
		int fd = open("gate.bin", O_RDONLY);

		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC,
				   MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		close(fd);
		one_task();
		printf("ready\n");
		fflush(stdout);
		pause();
		return 0;
	}
	EOF
	# (reaped by this shell, or a zombie: gone either way)
	gated_start exits 'kill -KILL $TARGET
		until ! [ -e /proc/$TARGET ] ||
			sed "s/.*) //" /proc/$TARGET/stat | grep -q ^Z; do
			sleep 0.01
		done'
	run timeout 30 "$VARSCOPE" record -o t.data --task-func one_task -p $target
	gated_stop
	cat gate gate.err
	grep -q "^opened by varscope " gate
	assert_failure 1
	assert_line "varscope record: process $target exited during the attach: nothing recorded"
	refute_output --partial "cannot open"
	refute_output --partial "written to"
	no_probes_left
}

@test "-p of a process that has exited, before or while it is recorded" {
	require_uprobes
	# a parent that never reaps: its child stays a zombie, which kill(2)
	# still finds; the first child has exited already, the second exits
	# once it is recorded (no EXIT record reaches a recorder that
	# attached to a zombie, and none may be waited for)
	python3 -c 'import os, sys, time
for second in (False, True):
    pid = os.fork()
    if pid == 0:
        for _ in range(1200):
            if not second or os.path.exists("go"):
                break
            time.sleep(0.05)
        os._exit(0)
    print(pid, flush=True)
time.sleep(60)' > pids &
	parent=$!
	for _ in $(seq 50); do [ "$(wc -l < pids)" = 2 ] && break; sleep 0.1; done
	sleep 0.3
	run timeout 30 "$VARSCOPE" record -o t.data --task-func "one_task@$IF" \
		-p "$(sed -n 1p pids)"
	assert_failure 1
	assert_output --partial "process $(sed -n 1p pids) has exited"
	run "$VARSCOPE" record -o t.data --task-func one_task \
		-p "$(sed -n 1p pids)"
	assert_failure 1
	assert_output "varscope record: process $(sed -n 1p pids) has exited (its parent has not reaped it yet)"
	timeout 60 "$VARSCOPE" record -o t.data --task-func "one_task@$IF" \
		-p "$(sed -n 2p pids)" 2> err &
	rec=$!
	for _ in $(seq 300); do
		grep -q "attached to process $(sed -n 2p pids) " err && break
		sleep 0.1
	done
	touch go
	status=0
	wait $rec || status=$?
	kill $parent
	# ended by itself when the process exited, not by timeout (124)
	[ $status = 0 ] || fail "status $status: $(cat err)"
	"$VARSCOPE" script -i t.data > /dev/null
	no_probes_left
}
