#!/usr/bin/env bats
#
# The in-kernel engine's facts on real kernel events, against what the
# programs did: the system call each wait was in (a sleep, a futex wait
# woken by another thread, an fdatasync, none: a page fault's read), a
# thousand threads, every sleep's blocked time with two CPU hogs beside
# the recording, and the system calls begin and end make (none; with
# counters, one each).
# varscope-test: exclusive

load test-lib
load record-lib

@test "a sleep is a wait in clock_nanosleep, all of it" {
	record_if -n 50 --types sleep --sleep-us 2000
	check 'T["1"]["tasks"] == 50'
	check 'T["1"]["sum"]["sched.blocked.clock_nanosleep.count"] == T["1"]["sum"]["sched.blocked.count"] == 50'
	check 'T["1"]["sum"]["sched.blocked.clock_nanosleep.time"] == T["1"]["sum"]["sched.blocked.time"]'
	check 'T["1"]["min"]["sched.blocked.clock_nanosleep.time"] >= 2000000'
	# the breakdown's parent is the total
	python3 - <<-'EOF2'
	import json
	d = {r["name"]: r for l in open("t.json") if (r := json.loads(l))["kind"] == "event_def"}
	assert d["sched.blocked.clock_nanosleep.time"]["parent"] == d["sched.blocked.time"]["id"]
	assert d["sched.blocked.clock_nanosleep.count"]["parent"] == d["sched.blocked.count"]["id"]
	EOF2
}

@test "a futex wait woken by another thread is sched.blocked.futex, with its edge" {
	require_cmd "$VS_CC"
	cat > futex.c <<-'EOF2'
	#include <pthread.h>
	#include <stdio.h>
	#include <time.h>
	#include "varscope.h"
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	static int go;
	static void *waker(void *arg)
	{
		struct timespec ms2 = { 0, 2000000 };
		for (int i = 0; i < 20; i++) {
			nanosleep(&ms2, NULL);
			pthread_mutex_lock(&m);
			go = 1;
			pthread_cond_signal(&c);
			pthread_mutex_unlock(&m);
			while (__atomic_load_n(&go, __ATOMIC_ACQUIRE))
				sched_yield();
		}
		return arg;
	}
	int main(void)
	{
		pthread_t t;
		pthread_create(&t, NULL, waker, NULL);
		for (int i = 0; i < 20; i++) {
			vs_task_begin(1);
			pthread_mutex_lock(&m);
			while (!go)
				pthread_cond_wait(&c, &m);
			pthread_mutex_unlock(&m);
			vs_task_end(1);
			__atomic_store_n(&go, 0, __ATOMIC_RELEASE);
		}
		pthread_join(t, NULL);
		return 0;
	}
	EOF2
	record_app futex
	assert_success
	check 'T["1"]["tasks"] == 20'
	# about 2 ms asleep in the condition variable's futex, each task but
	# the first (whose waker started earlier)
	check 'T["1"]["sum"]["sched.blocked.futex.time"] >= 30e6'
	check 'T["1"]["sum"]["sched.blocked.futex.count"] >= 20'
	# and the waker's edges into the waiting thread
	python3 - <<-'EOF2'
	import json
	R = [json.loads(l) for l in open("t.json")]
	tasks = [r for r in R if r["kind"] == "task"]
	waits = [r for r in R if r["kind"] == "wakeup" and r["wakee_tid"] == tasks[0]["tid"]]
	assert len(waits) >= 20 and all(w["waker_tid"] != w["wakee_tid"] for w in waits), waits
	EOF2
}

# disk.c: 10 tasks on a file of /var/tmp's disk: each an fdatasync() of
# 4 MiB just written, or with -DFAULT the touch of 128 of the file's 8
# MiB through a mapping without read-ahead, the file dropped from the
# page cache before each task (each touch is a fault that reads a page)
write_disk() {
	cat > disk.c <<-'EOF2'
	#include <fcntl.h>
	#include <stdlib.h>
	#include <string.h>
	#include <sys/mman.h>
	#include <unistd.h>
	#include "varscope.h"
	#define SIZE (8 << 20)
	static char buf[1 << 20];
	static int fill(int fd, int mib)
	{
		for (int k = 0; k < mib; k++)
			if (write(fd, buf, sizeof(buf)) < 0)
				return -1;
		return 0;
	}
	int main(void)
	{
		char path[] = "/var/tmp/vs-t2070-XXXXXX";
		int fd = mkstemp(path);
		volatile char sum = 0;
		if (fd < 0)
			return 1;
		unlink(path);
		memset(buf, 'x', sizeof(buf));
	#ifdef FAULT
		if (fill(fd, SIZE >> 20) || fdatasync(fd))
			return 1;
	#endif
		for (int i = 0; i < 10; i++) {
	#ifndef FAULT
			if (fill(fd, 4))
				return 1;
			vs_task_begin(1);
			fdatasync(fd);
			vs_task_end(1);
	#else
			posix_fadvise(fd, 0, SIZE, POSIX_FADV_DONTNEED);
			char *p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED)
				return 1;
			madvise(p, SIZE, MADV_RANDOM);
			vs_task_begin(1);
			for (long off = 0; off < SIZE; off += 16 * 4096)
				sum += p[off];
			vs_task_end(1);
			munmap(p, SIZE);
	#endif
		}
		return sum == 1;
	}
	EOF2
}

@test "fdatasync's uninterruptible wait is sched.iowait.fdatasync" {
	require_cmd "$VS_CC"
	write_disk
	record_app disk
	assert_success
	check 'T["1"]["tasks"] == 10'
	# /var/tmp's disk makes the flush wait in state D; all of the
	# task's iowait is fdatasync's
	check 'T["1"]["sum"]["sched.iowait.count"] > 0'
	check 'T["1"]["sum"]["sched.iowait.fdatasync.time"] == T["1"]["sum"]["sched.iowait.time"]'
}

@test "a page fault's read from disk is sched.iowait.fault, outside any system call" {
	require_cmd "$VS_CC"
	write_disk
	VS_APP_CFLAGS="${VS_APP_CFLAGS-} -DFAULT" record_app disk
	assert_success
	check 'T["1"]["tasks"] == 10'
	# 128 pages a task, each read from /var/tmp's disk in state D while
	# the thread is in no system call: the wait's kind is fault
	check 'T["1"]["sum"]["sched.iowait.fault.count"] >= 640'
	check 'T["1"]["sum"]["sched.iowait.fault.time"] == T["1"]["sum"]["sched.iowait.time"] > 0'
	python3 - <<-'EOF2'
	import json
	R = [json.loads(l) for l in open("t.json")]
	d = {r["name"]: r for r in R if r["kind"] == "event_def"}
	assert d["sched.iowait.fault.time"]["parent"] == d["sched.iowait.time"]["id"]
	# no system call's name for these waits
	names = {n for t in R if t["kind"] == "task" for n in t["values"]
	         if n.startswith("sched.iowait.") and n.count(".") == 3}
	assert names <= {"sched.iowait.fault.time", "sched.iowait.fault.count"}, names
	EOF2
}

# sleeps.c: 20 tasks of three 2 ms sleeps each; prints, for each task,
# the time the program measured around its sleeps
write_sleeps() {
	cat > sleeps.c <<-'EOF2'
	#include <stdio.h>
	#include <time.h>
	#include "varscope.h"
	static unsigned long long now(void)
	{
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_sec * 1000000000ull + ts.tv_nsec;
	}
	int main(void)
	{
		struct timespec ms2 = { 0, 2000000 };
		for (int i = 0; i < 20; i++) {
			unsigned long long slept = 0, t;
			vs_task_begin(1);
			for (int k = 0; k < 3; k++) {
				t = now();
				nanosleep(&ms2, NULL);
				slept += now() - t;
			}
			vs_task_end(1);
			printf("%llu\n", slept);
		}
		return 0;
	}
	EOF2
}

# check_sleeps WAITS EXTRA_NS: each task of sleeps.c recorded with
# switch-ins unseen has WAITS blocked waits in clock_nanosleep, whole:
# the program's three and, EXTRA_NS long at least, the library's own
# (WAITS 4), and the time off the CPU (with the run-queue waits of a
# busy machine) nearly all the program measured around its sleeps, never
# more than the task lasted
check_sleeps() {
	assert_success
	assert_output --partial "had a switch the kernel did not trace"
	printf '%s\n' "$output" | grep -E '^[0-9]+$' > truth
	python3 - "$1" "$2" <<-'EOF2'
	import json, sys
	waits, extra = int(sys.argv[1]), int(sys.argv[2])
	tasks = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	slept = [int(l) for l in open("truth")]
	assert len(tasks) == 20 == len(slept), (len(tasks), len(slept))
	for t, s in zip(tasks, slept):
	    v = t["values"]
	    off = v["sched.blocked.time"] + v["sched.runnable.time"]
	    assert v["sched.blocked.clock_nanosleep.count"] == waits, t
	    assert t["flags"] & 1024, t	# UNSEEN_SWITCH
	    assert v["sched.blocked.count"] == waits, t
	    assert v["sched.blocked.time"] >= 6e6 + extra, t
	    assert 0.9 * (s + extra) <= off <= t["latency_ns"], (t, s)
	EOF2
}

@test "a switch-in no program sees: the wait is closed from the thread's CPU time" {
	require_cmd "$VS_CC"
	# a kernel may leave a switch untraced (this machine does, for a
	# switch away from its agent thread): the fault injection misses
	# every other switch-in of a thread in a task, so that waits end
	# unseen in the middle of a task (closed at the next switch-out) and
	# at its end (closed by the library, from the thread's CPU time read
	# before the end: after it, the thread may be preempted unseen, as
	# it is 0.2 ms here at every end)
	write_sleeps
	VARSCOPE_TEST_UNSEEN_SWITCH_IN=2 VARSCOPE_TEST_OFF_CPU_AT_END=200 \
		record_app sleeps
	check_sleeps 3 0
}

@test "a wait that opens at the end's reading of the CPU time, its switch-in unseen, is whole" {
	require_cmd "$VS_CC"
	# the library's reading of the CPU time at the end is a system call,
	# where a loaded machine preempts the thread (CI beside two hogs: a
	# 1.9 ms run-queue wait lost, counted as run time): the fault
	# injection sleeps 0.3 ms there, every switch-in unseen, and 0.2 ms
	# after the end
	write_sleeps
	VARSCOPE_TEST_UNSEEN_SWITCH_IN=1 VARSCOPE_TEST_WAIT_BEFORE_CLOSE=300 \
		VARSCOPE_TEST_OFF_CPU_AT_END=200 record_app sleeps
	check_sleeps 4 300000
}

@test "a thousand threads: every task recorded" {
	record_if -n 2 --types sleep --sleep-us 1000 --threads 1000
	grep -qE '^interfere: pid=[0-9]+ type=1 name=sleep tasks=2000 ' truth
	check 'T["1"]["tasks"] == 2000 and len(T["1"]["tids"]) == 1000 and not T["1"]["flagged"]'
	run grep -c "not recorded" err
	assert_output 0
}

@test "with two CPU hogs beside it, every sleep is whole in its task" {
	local hogs=() i
	for i in 1 2; do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	record_if -n 100 --types sleep --sleep-us 2000
	kill "${hogs[@]}"
	check 'T["1"]["tasks"] == 100'
	# each task is one sleep: one blocked wait, and the hogs' preemptions
	# are run-queue waits; nothing is lost: the parts sum to the task's
	# latency.  The wait holds the 2 ms asked, less what passed between
	# the timer's arming and the switch-out: nothing on a quiet machine,
	# but a VM's host may take the CPU there, time the guest counts as
	# the thread's run (seen once in CI: 115 us short, with 294 us of
	# run.time in a sleep): within issue 14's 10% always, whole nearly
	# always (a recorder that cut waits would cut most)
	PYTHONPATH=$SRC/t/helper python3 - <<-'EOF2'
	import json
	from latency_parts import parts
	tasks = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	for r in tasks:
	    v = r["values"]
	    assert v["sched.blocked.count"] == 1 and v["sched.blocked.time"] >= 0.9 * 2000000, r
	    assert abs(parts(v) - r["latency_ns"]) <= 0.01 * r["latency_ns"], r
	short = [r for r in tasks if r["values"]["sched.blocked.time"] < 2000000]
	assert len(short) <= 0.05 * len(tasks), short
	EOF2
}

# corun.c: 20 tasks of 20 ms on CPU 0 (SCHED_FIFO 5) beside a SCHED_FIFO
# 10 co-runner that spins 2 ms every 5 ms there: annotated, or with
# -DTASK_FUNC calls of one_request() to record with --task-func.  With
# -DCORUNNERS=6, six co-runners, co-runner K spinning K x 0.2 ms every
# 7 ms or so.  It prints "corunner K tid=TID" for each, then each spin
# of co-runner K as "spin K START END" (ns).
write_corun() {
	cat > corun.c <<-'EOF2'
	#define _GNU_SOURCE
	#include <pthread.h>
	#include <sched.h>
	#include <stdio.h>
	#include <time.h>
	#include <unistd.h>
	#include "varscope.h"
	static volatile int done;
	static double now_ms(void)
	{
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	}
	static void pin(int cpu)
	{
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	#ifndef CORUNNERS
	#define CORUNNERS	1
	#define SPIN_MS(k)	2.0
	#define REST_NS		3000000
	#else
	#define SPIN_MS(k)	(0.2 * (k))
	#define REST_NS		7000000
	#endif
	/* their spins, by their own clock, printed at the end */
	static double spin[CORUNNERS][1000][2];
	static int nr_spins[CORUNNERS];
	/* SCHED_FIFO on the tasks' CPU: SPIN_MS of spinning, REST_NS asleep */
	static void *corunner(void *arg)
	{
		long k = (long)arg;
		struct sched_param sp = { .sched_priority = 10 };
		struct timespec rest = { 0, REST_NS };
		int *n = &nr_spins[k - 1];
		pin(0);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			perror("corunner: SCHED_FIFO");
		printf("corunner %ld tid=%d\n", k, gettid());
		fflush(stdout);
		while (!done && *n < 1000) {
			double t = now_ms(), t1;
			while ((t1 = now_ms()) - t < SPIN_MS(k))
				;
			spin[k - 1][*n][0] = t;
			spin[k - 1][(*n)++][1] = t1;
			nanosleep(&rest, NULL);
		}
		return arg;
	}
	/* 20 ms of spinning */
	__attribute__((noinline)) void one_request(void)
	{
		double t0 = now_ms();
		while (now_ms() - t0 < 20)
			;
	}
	int main(void)
	{
		/* real-time too, below the co-runner: no other thread of the
		 * machine takes CPU 0 from it */
		struct sched_param sp = { .sched_priority = 5 };
		pthread_t t[CORUNNERS];
		pin(0);
		for (long k = 1; k <= CORUNNERS; k++)
			pthread_create(&t[k - 1], NULL, corunner, (void *)k);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			perror("tasks: SCHED_FIFO");
		usleep(20000);
		for (int i = 0; i < 20; i++) {
	#ifdef TASK_FUNC
			one_request();
	#else
			vs_task_begin(1);
			one_request();
			vs_task_end(1);
	#endif
		}
		done = 1;
		for (int k = 0; k < CORUNNERS; k++) {
			pthread_join(t[k], NULL);
			for (int i = 0; i < nr_spins[k]; i++)
				printf("spin %d %.0f %.0f\n", k + 1,
				       spin[k][i][0] * 1e6, spin[k][i][1] * 1e6);
		}
		return 0;
	}
	EOF2
}

# record corun (RECORD_OPTS, VS_APP_CFLAGS): the co-runner is in the
# ran_instead of each task that waited, for the time it spun during the
# task.  Not always alone: since 6.12 the kernel's fair server runs other
# threads on a CPU that real-time ones hold, up to 50 ms a second (CI
# under load: bash and sed ran 6 ms of a 20 ms task); the CPU was theirs
# or the co-runner's while the co-runner spun in the task
check_corun_ran_instead() {
	record_app corun
	assert_success
	corunner=$(sed -n 's/^corunner 1 tid=//p' <<<"$output")
	[ -n "$corunner" ]
	grep '^spin 1 ' <<<"$output" > spins
	python3 - "$corunner" <<-'EOF2'
	import json, sys
	corunner = int(sys.argv[1])
	spins = [tuple(map(int, l.split()[2:])) for l in open("spins")]
	T = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	assert len(T) == 20, len(T)
	waited = [t for t in T if t["values"]["sched.runnable.time"] > 1000000]
	# the co-runner preempts every 20 ms task about four times
	assert len(waited) >= 15, [t["values"]["sched.runnable.time"] for t in T]
	for t in waited:
	    ran = t["ran_instead"]
	    spun = sum(max(0, min(e, t["end_ns"]) - max(s, t["start_ns"]))
	               for s, e in spins)
	    co = [r["time_ns"] for r in ran
	          if r["tid"] == corunner and r["comm"] == "corun"]
	    assert co, ran
	    others = sum(r["time_ns"] for r in ran) - co[0]
	    # it ran while it spun, and during its spins only the fair
	    # server's threads ran instead of it
	    assert co[0] <= spun * 1.02 + 100000, (spun, t)
	    assert co[0] + others >= spun - 200000, (spun, t)
	    assert sum(r["time_ns"] for r in ran) <= t["values"]["sched.runnable.time"] * 1.01, t
	EOF2
}

@test "a real-time co-runner on the task's CPU is named in ran_instead for its time" {
	require_cmd "$VS_CC"
	write_corun
	check_corun_ran_instead
}

@test "--task-func: the real-time co-runner is named in ran_instead too" {
	require_cmd "$VS_CC"
	require_uprobes
	write_corun
	VS_APP_CFLAGS="${VS_APP_CFLAGS-} -DTASK_FUNC" RECORD_OPTS="--task-func one_request" check_corun_ran_instead
}

@test "six co-runners: the four that ran longest are named, the others' time is one figure" {
	require_cmd "$VS_CC"
	# co-runner K spins K x 0.2 ms every 7 ms or so: a 20 ms task waits
	# for each about three times; 6 has the most time, 1 the least
	write_corun
	VS_APP_CFLAGS="${VS_APP_CFLAGS-} -DCORUNNERS=6" record_app corun
	assert_success
	grep -E '^(corunner|spin) ' <<<"$output" > corunners
	python3 - <<-'EOF2'
	import json, re
	text = open("corunners").read()
	co = {int(m.group(2)): int(m.group(1))
	      for m in re.finditer(r"corunner (\d+) tid=(\d+)", text)}
	spins = [tuple(map(int, m.groups()))
	         for m in re.finditer(r"spin (\d+) (\d+) (\d+)", text)]
	assert len(co) == 6, co
	T = [r for l in open("t.json") if (r := json.loads(l))["kind"] == "task"]
	assert len(T) == 20, len(T)
	waited = [t for t in T if t["values"]["sched.runnable.time"] > 5000000
	          and not t["flags"] & 1024]
	assert len(waited) >= 15, [t["values"]["sched.runnable.time"] for t in T]
	for t in waited:
	    ran, wait = t["ran_instead"], t["values"]["sched.runnable.time"]
	    named = [r for r in ran if r["tid"]]
	    rest = [r for r in ran if not r["tid"]]
	    # four threads at most, most first, then the rest as one of tid 0
	    assert len(named) <= 4 and ran[:len(named)] == named, ran
	    assert [r["time_ns"] for r in named] == sorted((r["time_ns"] for r in named), reverse=True), ran
	    assert len(rest) == 1 and rest[0]["pid"] == 0 and rest[0]["comm"] == "", ran
	    # nothing of the wait lost to the cut
	    assert 0.95 * wait <= sum(r["time_ns"] for r in ran) <= 1.01 * wait, (wait, ran)
	    # the longest spinner is named, the shortest is not: its time
	    # (it spun inside the task: only the kernel's fair server, at
	    # most 5% of the CPU, takes it from a co-runner) is in the rest
	    by_k = {co.get(r["tid"]): r["time_ns"] for r in named}
	    assert 6 in by_k and 1 not in by_k, (by_k, ran)
	    spun1 = sum(max(0, min(e, t["end_ns"]) - max(s, t["start_ns"]))
	                for k, s, e in spins if k == 1)
	    assert spun1 > 0 and rest[0]["time_ns"] >= 0.9 * spun1 - 100000, (spun1, ran)
	EOF2
}

# pairs.c: a thread registers (an attached interval, always selected)
# and seeds its draws (its first begin reads its id, once), then makes
# 2000 empty begin/end pairs between two getppid() calls
write_pairs() {
	cat > pairs.c <<-'EOF2'
	#include <sys/syscall.h>
	#include <unistd.h>
	#include "varscope.h"
	int main(void)
	{
		vs_task_attach(1);
		vs_task_detach();
		vs_task_begin(1);
		vs_task_end(1);
		syscall(SYS_getppid);
		for (int i = 0; i < 2000; i++) {
			vs_task_begin(1);
			vs_task_end(1);
		}
		syscall(SYS_getppid);
		return 0;
	}
	EOF2
}

# check_pairs_syscalls ALLOWED: the system calls of the pairs' thread
# between its two getppid() calls, from --syscalls: only those ALLOWED
# per selected task (python: nr -> how many each), and the clock reads
# of the waits the library closed itself (two at most a flagged task)
check_pairs_syscalls() {
	python3 - "$1" <<-'EOF2'
	import json, sys
	allowed = eval(sys.argv[1])
	R = [json.loads(l) for l in open("t.json")]
	calls = [r for r in R if r["kind"] == "syscall" and r["dir"] == 0]
	# the tasks' thread's getppid() calls (not another's: ASan's leak
	# checker calls it from a thread of its own at the exit)
	tid = [r for r in R if r["kind"] == "task"][0]["tid"]
	marks = [c for c in calls if c["nr"] == 110 and c["tid"] == tid]
	assert len(marks) == 2, marks
	t0, t1 = marks[0]["time_ns"], marks[1]["time_ns"]
	inside = [c for c in calls if c["tid"] == tid and t0 < c["time_ns"] < t1]
	tasks = [r for r in R if r["kind"] == "task" and t0 < r["start_ns"] < t1]
	unseen = sum(1 for t in tasks if t["flags"] & 1024)
	print("tasks %d, unseen %d, calls %s" % (len(tasks), unseen,
	      sorted({c["nr"] for c in inside})))
	# a rate of 0.5: selected ones and not
	assert 600 < len(tasks) < 1400, len(tasks)
	for nr in {c["nr"] for c in inside}:
	    n = sum(1 for c in inside if c["nr"] == nr)
	    if nr == 228:	# clock_gettime(CLOCK_THREAD_CPUTIME_ID)
	        assert n <= 2 * unseen, (nr, n, unseen)
	    else:
	        assert n == allowed.get(nr, 0) * len(tasks), (nr, n, len(tasks))
	EOF2
}

@test "vs_task_begin and vs_task_end make no system call, selected or not" {
	require_cmd "$VS_CC"
	write_pairs
	RECORD_OPTS="--syscalls --rate 0.5" record_app pairs
	assert_success
	check_pairs_syscalls '{}'
}

@test "with counters: one system call at a selected task's begin and end, none else" {
	require_cmd "$VS_CC"
	write_pairs
	# the software counters in place of a PMU's: the mark program, one
	# bpf(BPF_PROG_TEST_RUN) after the begin and one before the end
	VARSCOPE_TEST_SW_COUNTERS=1 RECORD_OPTS="--syscalls --rate 0.5" \
		record_app pairs
	assert_success
	check_pairs_syscalls '{321: 2}'
}
