// SPDX-License-Identifier: MIT
/*
 * wakeup - wake-up edges on a synthetic stream: the front thread's wait
 * woken by the worker attached to the same request, by a thread in a task
 * of its own, by a thread outside tasks, by an interrupt; edges outside
 * tasks not counted.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/analysis/task-samples.h"
#include "core/analysis/wakeup.h"
#include "t/unit/tap.h"

static struct vs_wake_build *b;
/* test_merge(): the records from the @split_at-th on go to @b_next */
static struct vs_wake_build *b_next;
static unsigned int fed, split_at = UINT_MAX;

static void feed(const struct vs_record *rec)
{
	vs_wake_build_feed(fed++ < split_at ? b : b_next, rec);
}

static void task(uint64_t id, uint32_t type, uint32_t tid, uint64_t start,
		 uint64_t end, uint32_t flags)
{
	struct vs_record rec = { .kind = VS_REC_TASK };

	rec.task = (struct vs_task){ .id = id, .type = type, .tid = tid,
				     .flags = flags, .start = start,
				     .end = end };
	feed(&rec);
}

static void attach(uint64_t time, uint32_t tid, uint64_t id)
{
	struct vs_record rec = { .kind = VS_REC_ATTACH };

	rec.attach = (struct vs_attach){ time, tid, VS_ATTACH, id };
	feed(&rec);
}

static void wakeup(uint64_t time, uint32_t waker, uint32_t wakee)
{
	struct vs_record rec = { .kind = VS_REC_WAKEUP };

	rec.wakeup = (struct vs_wakeup){ time, waker, wakee, 0 };
	feed(&rec);
}

static void sw(uint64_t time, uint32_t tid, bool out, bool preempt)
{
	struct vs_record rec = { .kind = VS_REC_SWITCH };

	rec.switch_ = (struct vs_switch){ .time = time, .tid = tid,
					  .out = out, .preempt = preempt };
	feed(&rec);
}

static void comm(uint32_t tid, const char *name)
{
	struct vs_record rec = { .kind = VS_REC_COMM };

	rec.comm = (struct vs_comm){ .tid = tid, .pid = 10, .comm = name };
	feed(&rec);
}

static void fork_thread(uint32_t tid, uint32_t ptid)
{
	struct vs_record rec = { .kind = VS_REC_PROCESS };

	rec.process = (struct vs_process){ .what = VS_PROCESS_FORK,
					   .pid = 10, .ppid = 10, .tid = tid,
					   .ptid = ptid };
	feed(&rec);
}

static const struct vs_waker *find_waker(const struct vs_wake_type *t,
					 uint32_t tid)
{
	unsigned int i;

	for (i = 0; t && i < t->nr_wakers; i++)
		if (t->wakers[i].tid == tid)
			return &t->wakers[i];
	return NULL;
}

/*
 * crossthread --lock by hand: front thread 10 waits 100..900 for worker
 * 20 (attached to the request 150..890), which waits 300..700 for the
 * lock holder 30 (outside tasks, its unlock wakes the worker).  The
 * worker's samples name handle(); the holder's are none (no task).
 */
static void test_chain(void)
{
	struct vs_task_samples *ts = vs_task_samples_new();
	const struct vs_waker *worker, *holder;
	const struct vs_wake_type *t;
	struct vs_wake_blame *wb;
	struct vs_sample smp = { .pid = 10, .tid = 20, .period = 10 };
	struct vs_task rec;
	uint32_t handle, later;
	uint64_t time;

	b = vs_wake_build_new(true);
	comm(10, "front");
	comm(20, "worker");
	comm(30, "holder");
	attach(150, 20, 1);
	task(20ull << 32, 0, 20, 150, 890, VS_TASK_ATTACHED);
	task(1, 1, 10, 0, 1000, 0);
	sw(50, 10, true, true);		/* preempted: not blamed */
	sw(60, 10, false, false);
	sw(100, 10, true, false);
	wakeup(900, 20, 10);
	sw(950, 10, false, false);
	sw(300, 20, true, false);
	wakeup(700, 30, 20);
	sw(720, 20, false, false);
	sw(740, 20, true, true);	/* preempted by the holder */
	sw(760, 20, false, false);

	handle = vs_task_samples_symbol(ts, "handle", "/bin/app");
	rec = (struct vs_task){ .id = 20ull << 32, .pid = 10, .tid = 20,
				.start = 150, .end = 890,
				.flags = VS_TASK_ATTACHED };
	vs_task_samples_add_task(ts, &rec, 0);
	for (time = 160; time < 890; time += 10) {
		if (time >= 300 && time < 720)
			continue;	/* blocked */
		smp.time = time;
		vs_task_samples_add_sample(ts, &smp, &handle, 1);
	}
	/* the worker's later task: its samples are outside the waits */
	rec = (struct vs_task){ .id = 20ull << 32 | 1, .type = 2, .pid = 10,
				.tid = 20, .start = 1000, .end = 1100 };
	vs_task_samples_add_task(ts, &rec, 0);
	later = vs_task_samples_symbol(ts, "later", "/bin/app");
	smp.time = 1050;
	vs_task_samples_add_sample(ts, &smp, &later, 1);
	vs_task_samples_finish(ts);

	wb = vs_wake_build_finish(b, ts);
	t = vs_wake_blame_type(wb, 1);
	worker = find_waker(t, 20);
	holder = find_waker(t, 30);
	ok(t && t->wait_ns == 800 && t->tasks == 1,
	   "the front thread's blocked wait, 800 ns, ended by another thread");
	ok(worker && worker->ns == 400 && worker->depth == 1 &&
	   worker->kind == VS_WAKER_SAME_TASK && !strcmp(worker->comm, "worker"),
	   "the worker, attached to the request, is blamed for its own part");
	ok(holder && holder->ns == 400 && holder->depth == 2 &&
	   holder->kind == VS_WAKER_OUTSIDE && !strcmp(holder->comm, "holder"),
	   "the worker's lock wait moves on to the holder that woke it");
	ok(t && t->nr_wakers == 2 && worker && worker->nr_funcs == 1 &&
	   worker->funcs[0].symbol == handle && worker->funcs[0].ns > 0,
	   "the worker's samples in its part name handle(), not those of "
	   "its later task");
	vs_wake_blame_free(wb);
	vs_task_samples_free(ts);
}

/*
 * A chain longer than VS_WAKE_CHAIN_MAX, and a cycle, stay bounded; with
 * @parts, the parts of the task's wait add up to it, without, the same
 * wakers and no parts.
 */
static void test_bounded(bool parts)
{
	const struct vs_wake_part *p;
	const struct vs_wake_type *t;
	struct vs_wake_blame *wb;
	uint64_t total = 0, in_parts = 0;
	unsigned int i, deepest = 0;
	size_t n;
	uint32_t tid;

	b = vs_wake_build_new(parts);
	task(1, 1, 100, 0, 10000, 0);
	sw(10, 100, true, false);
	wakeup(9000, 101, 100);
	/* 101 waits on 102 from 20, 102 on 103 from 30, ... 108 on 101 */
	for (tid = 101; tid <= 108; tid++) {
		sw(10 * (tid - 99), tid, true, false);
		wakeup(9000 - (tid - 100) * 10, tid == 108 ? 101 : tid + 1,
		       tid);
	}
	wb = vs_wake_build_finish(b, NULL);
	t = vs_wake_blame_type(wb, 1);
	for (i = 0; t && i < t->nr_wakers; i++) {
		total += t->wakers[i].ns;
		if (t->wakers[i].depth > deepest)
			deepest = t->wakers[i].depth;
	}
	n = vs_wake_task_parts(t, 1, &p);
	for (i = 0; i < n; i++)
		in_parts += p[i].ns;
	ok(t && total == t->wait_ns && t->wait_ns == 8990,
	   "every ns of the wait is blamed once along the chain%s",
	   parts ? "" : " (no parts kept)");
	ok(deepest == VS_WAKE_CHAIN_MAX, "the chain stops %u edges deep",
	   VS_WAKE_CHAIN_MAX);
	if (parts)
		ok(n == VS_WAKE_CHAIN_MAX && in_parts == 8990,
		   "the task's parts, one per waker, add up to its wait");
	else
		ok(t && !t->nr_parts && !n, "no parts unless asked for");
	vs_wake_blame_free(wb);
}

/*
 * The chain of test_chain() where the holder is a thread forked from the
 * front one and renamed after, and a second holder forked from the first
 * renamed one: what depends on the records before it.
 */
static void chain_stream(void)
{
	comm(10, "front");
	comm(20, "worker");
	fork_thread(30, 10);
	sw(100, 10, true, false);
	wakeup(900, 20, 10);
	sw(950, 10, false, false);
	attach(150, 20, 1);
	task(20ull << 32, 0, 20, 150, 890, VS_TASK_ATTACHED);
	task(1, 1, 10, 0, 1000, 0);
	comm(30, "holder");
	fork_thread(31, 30);
	sw(300, 20, true, false);
	wakeup(700, 30, 20);
	sw(720, 20, false, false);
	attach(2000, 20, 2);
	task(20ull << 32 | 1, 0, 20, 2000, 2500, VS_TASK_ATTACHED);
	task(2, 1, 10, 1900, 3000, 0);
	sw(2100, 20, true, false);
	wakeup(2400, 31, 20);
	sw(1950, 10, true, false);
	wakeup(2600, 20, 10);
}

/* What a blame says, as text, to compare two of them. */
static void describe(const struct vs_wake_blame *wb, char *buf, size_t len)
{
	const struct vs_wake_part *p;
	unsigned int t, i;
	size_t at = 0, n, k;

	buf[0] = 0;
	for (t = 0; wb && t < wb->nr_types; t++) {
		const struct vs_wake_type *w = &wb->types[t];

		at += snprintf(buf + at, len - at, "type %u %llu %llu:",
			       w->type, (unsigned long long)w->tasks,
			       (unsigned long long)w->wait_ns);
		for (i = 0; i < w->nr_wakers && at < len; i++)
			at += snprintf(buf + at, len - at, " %s %s %u %llu",
				       w->wakers[i].label,
				       vs_waker_kind_name(w->wakers[i].kind),
				       w->wakers[i].depth,
				       (unsigned long long)w->wakers[i].ns);
		for (k = 1; k <= 2 && at < len; k++) {
			n = vs_wake_task_parts(w, k, &p);
			for (i = 0; i < n && at < len; i++)
				at += snprintf(buf + at, len - at,
					       " [%llu %u %llu]",
					       (unsigned long long)k,
					       p[i].waker,
					       (unsigned long long)p[i].ns);
		}
	}
}

/* Cut anywhere, two builds merged blame as one build of the whole. */
static void test_merge(void)
{
	char whole[2048], merged[2048];
	unsigned int nr, cut, bad = 0;
	struct vs_wake_blame *wb;

	b = vs_wake_build_new(true);
	fed = 0;
	chain_stream();
	nr = fed;
	wb = vs_wake_build_finish(b, NULL);
	describe(wb, whole, sizeof(whole));
	vs_wake_blame_free(wb);
	ok(strstr(whole, "[wait] holder/30") && strstr(whole, "[wait] holder/31"),
	   "forked threads named after their renamed creator: %s", whole);
	for (cut = 0; cut <= nr; cut++) {
		b = vs_wake_build_new(true);
		b_next = vs_wake_build_new(true);
		fed = 0;
		split_at = cut;
		chain_stream();
		wb = vs_wake_build_merge(b, b_next) ? NULL :
		     vs_wake_build_finish(b, NULL);
		describe(wb, merged, sizeof(merged));
		vs_wake_blame_free(wb);
		if (strcmp(whole, merged)) {
			printf("# cut at %u: %s\n", cut, merged);
			bad++;
		}
	}
	split_at = UINT_MAX;
	ok(!bad, "the %u cuts of the stream merge into the same blame",
	   nr + 1);
}

int main(void)
{
	const struct vs_wake_type *t;
	struct vs_wake_blame *wb;

	b = vs_wake_build_new(true);
	/* request 1 (front 10): worker 20 attached 100..500, wakes at 510 */
	wakeup(510, 20, 10);
	attach(100, 20, 1);
	task(20ull << 32, 0, 20, 100, 500, VS_TASK_ATTACHED);
	task(1, 1, 10, 50, 600, 0);
	/* request 2: woken at 1500 by thread 30 inside its own task 3 */
	task(2, 1, 10, 1000, 1600, 0);
	task(3, 2, 30, 1400, 1700, 0);
	wakeup(1500, 30, 10);
	/* request 4: woken at 2500 by thread 40, in no task */
	task(4, 1, 10, 2000, 2600, 0);
	wakeup(2500, 40, 10);
	/* outside any task of the wakee: not counted */
	wakeup(5000, 20, 10);
	/* request 6: a timer interrupt ended its wait (waker 0) */
	task(6, 1, 10, 4000, 4100, 0);
	wakeup(4050, 0, 10);
	/* the worker's wait inside its interval for request 5 counts for
	 * request 5's type, woken by the front thread inside request 5 */
	attach(3000, 20, 5);
	task(20ull << 32 | 1, 0, 20, 3000, 3500, VS_TASK_ATTACHED);
	wakeup(3200, 10, 20);
	task(5, 1, 10, 2900, 3600, 0);
	wb = vs_wake_build_finish(b, NULL);
	ok(wb != NULL, "finish");
	t = vs_wake_blame_type(wb, 1);
	ok(t && t->edges[VS_WAKER_SAME_TASK] == 2,
	   "the worker attached to a request, or its own thread, woke it");
	ok(t && t->edges[VS_WAKER_OTHER_TASK] == 1,
	   "a thread in a task of its own woke one");
	ok(t && t->edges[VS_WAKER_OUTSIDE] == 1,
	   "a thread outside tasks woke one");
	ok(t && t->edges[VS_WAKER_INTERRUPT] == 1,
	   "an interrupt woke one, no thread blamed");
	ok(wb && wb->nr_types == 1 && !vs_wake_blame_type(wb, 0),
	   "no edges for type 0 or the waker's type");
	vs_wake_blame_free(wb);
	test_chain();
	test_bounded(true);
	test_bounded(false);
	test_merge();
	return done_testing();
}
