// SPDX-License-Identifier: MIT
/*
 * syscall-trace.c - unit test of the system-call capture
 * (core/signature/syscall-trace.c) against ground truth: this program
 * re-executes itself as a workload making known numbers of getppid calls in
 * its main thread, a second thread and a forked child.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/symbols/symbols.h"
#include "core/signature/syscall-trace.h"
#include "core/symbols/unwind.h"
#include "core/workload.h"

#include "t/unit/tap.h"

/* getppid calls of the main thread, a second thread and a child */
#define MAIN_CALLS	1000
#define THREAD_CALLS	500
#define CHILD_CALLS	300
#define ALL_CALLS	(MAIN_CALLS + THREAD_CALLS + CHILD_CALLS)

/* 10 us apart: the three tasks make them at once over many reads */
__attribute__((noinline)) static void make_calls(int n)
{
	struct timespec t0, t;

	while (n--) {
		syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000l +
		       t.tv_nsec - t0.tv_nsec < 10000);
	}
	__asm__ volatile("" ::: "memory");
}

static void *thread_main(void *arg)
{
	make_calls(THREAD_CALLS);
	return arg;
}

static int workload(void)
{
	pthread_t th;
	pid_t pid;

	/* all three at once, on both CPUs: the order across rings matters */
	pthread_create(&th, NULL, thread_main, NULL);
	pid = fork();
	if (!pid) {
		make_calls(CHILD_CALLS);
		_exit(0);
	}
	make_calls(MAIN_CALLS);
	pthread_join(th, NULL);
	waitpid(pid, NULL, 0);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct counts {
	long enter, exit, lost, mmaps, forks, in_make_calls, with_stack;
	uint32_t tids[8];
	int nr_tids;
	uint64_t first_time, last_time;
	int out_of_order;
	struct vs_symbols *syms;
	struct vs_unwinder *unwinder;
};

static int count(const struct vs_sc_event *ev, void *arg)
{
	struct counts *c = arg;
	struct vs_symbol_hit hit;
	struct vs_user_stack u;
	uint64_t chain[2];
	bool cut;
	int i;

	if (ev->time < c->last_time)
		c->out_of_order++;
	if (!c->first_time)
		c->first_time = ev->time;
	c->last_time = ev->time;
	if (ev->type == VS_SC_LOST)
		c->lost += ev->lost;
	if (ev->type == VS_SC_MMAP) {
		c->mmaps++;
		vs_symbols_add_map(c->syms, ev->pid, ev->start, ev->len,
				   ev->pgoff, ev->name);
	}
	if (ev->type == VS_SC_FORK) {
		c->forks++;
		vs_symbols_fork(c->syms, ev->ppid, ev->pid);
	}
	if (ev->nr != SYS_getppid)
		return 0;
	if (ev->type == VS_SC_EXIT) {
		c->exit++;
		return 0;
	}
	if (ev->type != VS_SC_ENTER)
		return 0;
	c->enter++;
	for (i = 0; i < c->nr_tids && c->tids[i] != ev->tid; i++)
		;
	if (i == c->nr_tids && i < 8)
		c->tids[c->nr_tids++] = ev->tid;
	c->with_stack += ev->stack_size > 0 && ev->nr_regs;
	/* this test is built without frame pointers: the caller of the
	 * syscall() leaf comes from its call frame information */
	u = (struct vs_user_stack){ .regs_mask = ev->regs_mask,
				    .regs = ev->regs, .nr_regs = ev->nr_regs,
				    .stack = ev->stack, .size = ev->stack_size,
				    .fp_chain = ev->ips, .fp_len = ev->nr_ips };
	if (vs_unwind(c->unwinder, ev->pid, ev->tid, &u, chain, 2, &cut) == 2 &&
	    !vs_symbols_lookup(c->syms, ev->pid, chain[1] - 1, &hit) &&
	    hit.sym && !strcmp(hit.sym->name, "make_calls"))
		c->in_make_calls++;
	return 0;
}

int main(int argc, char **argv)
{
	const char *args[] = { argv[0], "--workload", NULL };
	/* 32 MB rings: an 8 KB stack per call, and the calls come fast */
	struct vs_sc_opts opts = { .callchain = true, .switches = true,
				   .sideband = true, .pages = 8192 };
	struct counts c = { 0 };
	struct vs_syscall_trace *t;
	struct vs_workload w;
	uint64_t start, end;
	char err[256];
	int status;

	/*
	 * _exit: no exit-time handler adds calls to the known ones (under
	 * SANITIZE=1 LeakSanitizer's check at exit calls getppid itself).
	 */
	if (argc > 1 && !strcmp(argv[1], "--workload"))
		_exit(workload());
	c.syms = vs_symbols_new();
	c.unwinder = vs_unwinder_new(c.syms);
	ok(!vs_workload_prepare(&w, args), "workload forked");
	t = vs_syscall_trace_open(w.pid, false, &opts, err, sizeof(err));
	if (!t) {
		skip_test(err, "capture opens");
		kill(w.pid, SIGKILL);
		return done_testing();
	}
	start = now_ns();
	ok(!vs_workload_start(&w), "workload runs");
	/* the time order holds across reads, not only within each */
	while (waitpid(w.pid, &status, WNOHANG) == 0)
		vs_syscall_trace_read(t, 1, false, count, &c);
	vs_syscall_trace_read(t, 0, true, count, &c);
	end = now_ns();
	vs_syscall_trace_close(t);
	is_u64(c.lost, 0, "nothing lost");
	is_u64(c.enter, ALL_CALLS, "every getppid enter captured (3 tasks)");
	is_u64(c.exit, ALL_CALLS, "every getppid exit captured");
	ok(c.nr_tids == 3, "calls come from three threads/processes");
	ok(c.mmaps > 0 && c.forks >= 2, "mmap and fork side band");
	ok(!c.out_of_order, "the events come in time order");
	ok(c.first_time >= start && c.last_time <= end,
	   "times are CLOCK_MONOTONIC, within the run");
	ok(c.with_stack == c.enter, "user stack and registers at each enter");
	is_u64(c.in_make_calls, ALL_CALLS, "callchains symbolize to make_calls");
	vs_unwinder_free(c.unwinder);
	vs_symbols_free(c.syms);
	return done_testing();
}
