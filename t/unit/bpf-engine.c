// SPDX-License-Identifier: MIT
/*
 * bpf-engine.c - the in-kernel recording engine (core/record/) on real
 * kernel events of this test's own thread: register, open tasks with a
 * store into the slot as libvarscope does, and hold the slot's values to
 * what the thread did (a sleep, a futex wait woken by another thread,
 * fresh pages touched, an fdatasync).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/record/bpf-engine.h"
#include "t/unit/tap.h"

static struct vs_bpf_engine *engine;
static struct vs_slot *slot;
static uint32_t task_seq;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static struct vs_slot_header *header(void)
{
	return (struct vs_slot_header *)vs_bpf_engine_slot(engine, 0);
}

/* vs_task_begin()'s stores */
static void begin(void)
{
	__atomic_fetch_add(&header()->tasks_open, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->active, ++task_seq, __ATOMIC_RELEASE);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * vs_task_end()'s: the active word cleared, then the values read, and a
 * wait still open closed from the thread's CPU time (its switch-in went
 * unseen: the kernel here leaves some switches untraced; counted in
 * unseen_switch_ins, with no UNBLOCK event)
 */
static void end(struct vs_slot_values *v)
{
	struct vs_slot_open_wait wait;
	uint64_t wait_end;

	__atomic_store_n(&slot->active, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&header()->tasks_open, 1, __ATOMIC_RELAXED);
	ok(vs_slot_read(slot, task_seq, v, &wait),
	   "the values of task %u held still", task_seq);
	if (wait.task != task_seq || !wait.since)
		return;
	wait_end = vs_slot_wait_end(&wait, clock_ns(CLOCK_MONOTONIC),
				    clock_ns(CLOCK_THREAD_CPUTIME_ID));
	if (!wait_end)
		return;
	vs_slot_add_unseen_wait(v, &wait, wait_end);
}

/* The entry of system call @nr in waits of kind @wait, or NULL. */
static const struct vs_slot_syscall *syscall_wait(const struct vs_slot_values *v,
						 uint32_t nr, uint32_t wait)
{
	int i;

	for (i = 0; i < VS_SLOT_SYSCALLS; i++)
		if (v->syscall[i].count && v->syscall[i].nr == nr &&
		    v->syscall[i].wait == wait)
			return &v->syscall[i];
	return NULL;
}

static void test_sleep(void)
{
	struct timespec two_ms = { 0, 2000000 };
	const struct vs_slot_syscall *sc;
	struct vs_slot_values v;
	uint64_t t0, t1;

	begin();
	t0 = now_ns();
	clock_nanosleep(CLOCK_MONOTONIC, 0, &two_ms, NULL);
	t1 = now_ns();
	end(&v);
	is_u64(v.wait_count[VS_SLOT_BLOCKED], 1, "a sleep is one blocked wait");
	ok(v.wait_ns[VS_SLOT_BLOCKED] >= 2000000 &&
	   v.wait_ns[VS_SLOT_BLOCKED] <= t1 - t0,
	   "blocked %llu ns: the 2 ms asked, within the call's %llu ns",
	   (unsigned long long)v.wait_ns[VS_SLOT_BLOCKED],
	   (unsigned long long)(t1 - t0));
	sc = syscall_wait(&v, SYS_clock_nanosleep, VS_SLOT_BLOCKED);
	ok(sc && sc->count == 1 && sc->time_ns == v.wait_ns[VS_SLOT_BLOCKED],
	   "the wait is clock_nanosleep's");
}

static void test_inactive(void)
{
	struct timespec one_ms = { 0, 1000000 };
	struct vs_slot_values v;
	struct vs_slot_open_wait wait;

	clock_nanosleep(CLOCK_MONOTONIC, 0, &one_ms, NULL);
	ok(vs_slot_read(slot, task_seq, &v, &wait) &&
	   v.wait_count[VS_SLOT_BLOCKED] == 1,
	   "a sleep outside a task leaves the last task's values");
}

/*
 * One store into each of @pages fresh pages.  Not instrumented: under
 * make SANITIZE=1 each checked store reads ASan's shadow of its page, and
 * the first read of each shadow page is a fault of its own (125 more for
 * 1000 pages), which the task would rightly count.
 */
__attribute__((no_sanitize_address))
static void touch_pages(volatile char *p, long page, int pages)
{
	int i;

	for (i = 0; i < pages; i++)
		p[i * page] = 1;
}

static void test_faults(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct vs_slot_values v;
	char *p;

	p = mmap(NULL, 1000 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		skip_test("mmap failed", "1000 pages touched");
		return;
	}
	madvise(p, 1000 * page, MADV_NOHUGEPAGE);
	begin();
	touch_pages(p, page, 1000);
	end(&v);
	is_u64(v.faults, 1000, "1000 fresh pages touched: 1000 faults");
	munmap(p, 1000 * page);
}

static uint32_t futex_word;
static uint32_t waiter_tid;

/* Whether thread @tid sleeps (state S), from /proc. */
static bool sleeping(uint32_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool s = false;

	snprintf(path, sizeof(path), "/proc/self/task/%u/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		s = p[1] == ' ' && p[2] == 'S';
	fclose(f);
	return s;
}

static void *waker(void *arg)
{
	struct timespec one_ms = { 0, 1000000 };
	int i;

	(void)arg;
	/* the waiter asleep in the futex, then 1 ms more */
	for (i = 0; i < 10000 && !sleeping(waiter_tid); i++)
		sched_yield();
	clock_nanosleep(CLOCK_MONOTONIC, 0, &one_ms, NULL);
	__atomic_store_n(&futex_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

static unsigned int wake_edges;

static unsigned int blocks, unblocks;

static void count_edge(void *ctx, const struct vs_engine_event *ev)
{
	if (ev->tid != waiter_tid || ev->task != *(uint32_t *)ctx)
		return;
	if (ev->kind == VS_ENGINE_WAKE &&
	    ev->other_pid == (uint32_t)getpid() && ev->other_tid != waiter_tid)
		wake_edges++;
	blocks += ev->kind == VS_ENGINE_BLOCK;
	unblocks += ev->kind == VS_ENGINE_UNBLOCK;
}

static void test_futex(void)
{
	const struct vs_slot_syscall *sc;
	struct vs_slot_values v;
	pthread_t th;
	uint32_t seq;

	vs_bpf_engine_read_events(engine, count_edge, &seq);	/* drain */
	wake_edges = blocks = unblocks = 0;
	waiter_tid = gettid();
	begin();
	seq = task_seq;
	pthread_create(&th, NULL, waker, NULL);
	while (!__atomic_load_n(&futex_word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL,
			NULL, 0);
	end(&v);
	pthread_join(th, NULL);
	sc = syscall_wait(&v, SYS_futex, VS_SLOT_BLOCKED);
	ok(sc && sc->time_ns >= 900000,
	   "a futex wait woken after 1 ms: sched.blocked.futex");
	vs_bpf_engine_read_events(engine, count_edge, &seq);
	ok(wake_edges >= 1, "the waker's wake-up edge is in the ring (%u)",
	   wake_edges);
	ok(blocks >= 1 && blocks == unblocks + v.unseen_switch_ins,
	   "so are the switches of its blocked waits (%u out, %u in, %llu "
	   "unseen)", blocks, unblocks,
	   (unsigned long long)v.unseen_switch_ins);
}

static void test_fdatasync(void)
{
	char path[] = "/var/tmp/vs-bpf-engine-XXXXXX";
	static char buf[1 << 20];
	struct vs_slot_values v;
	uint64_t io;
	int fd, i;

	fd = mkstemp(path);
	if (fd < 0) {
		skip_test("no temporary file in /var/tmp", "fdatasync");
		return;
	}
	unlink(path);
	memset(buf, 'x', sizeof(buf));
	begin();
	for (i = 0; i < 8; i++)
		if (write(fd, buf, sizeof(buf)) < 0)
			break;
	fdatasync(fd);
	end(&v);
	close(fd);
	io = v.wait_count[VS_SLOT_IOWAIT];
	ok(!io || syscall_wait(&v, SYS_fdatasync, VS_SLOT_IOWAIT) ||
	   syscall_wait(&v, SYS_write, VS_SLOT_IOWAIT),
	   "iowait waits (%llu) are fdatasync's or write's",
	   (unsigned long long)io);
	if (!io)
		printf("# this file system gave no uninterruptible wait\n");
}

int main(void)
{
	char err[256];
	int idx;

	if (geteuid()) {
		skip_test("needs root (CAP_BPF, CAP_PERFMON)", "the engine loads");
		return done_testing();
	}
	engine = vs_bpf_engine_open(VS_BPF_ALL, err, sizeof(err));
	if (!ok(engine != NULL, "the engine loads and attaches")) {
		printf("# %s\n", err);
		return done_testing();
	}
	idx = vs_bpf_engine_register(engine, gettid());
	if (!ok(idx > 0, "this thread registers (slot %d)", idx))
		return done_testing();
	slot = vs_bpf_engine_slot(engine, idx);
	ok(vs_bpf_engine_register(engine, 1u << 30) < 0 && errno == ESRCH,
	   "a tid that does not exist is refused");
	test_sleep();
	test_inactive();
	test_faults();
	test_futex();
	test_fdatasync();
	vs_bpf_engine_close(engine);
	return done_testing();
}
