// SPDX-License-Identifier: MIT
/*
 * wakeup - wake-up edges on a synthetic stream: the front thread's wait
 * woken by the worker attached to the same request, by a thread in a task
 * of its own, by a thread outside tasks, by an interrupt; edges outside
 * tasks not counted.
 */
#include "core/wakeup.h"
#include "tap.h"

static struct vs_wake_build *b;

static void task(uint64_t id, uint32_t type, uint32_t tid, uint64_t start,
		 uint64_t end, uint32_t flags)
{
	struct vs_record rec = { .kind = VS_REC_TASK };

	rec.task = (struct vs_task){ .id = id, .type = type, .tid = tid,
				     .flags = flags, .start = start,
				     .end = end };
	vs_wake_build_feed(b, &rec);
}

static void attach(uint64_t time, uint32_t tid, uint64_t id)
{
	struct vs_record rec = { .kind = VS_REC_ATTACH };

	rec.attach = (struct vs_attach){ time, tid, VS_ATTACH, id };
	vs_wake_build_feed(b, &rec);
}

static void wakeup(uint64_t time, uint32_t waker, uint32_t wakee)
{
	struct vs_record rec = { .kind = VS_REC_WAKEUP };

	rec.wakeup = (struct vs_wakeup){ time, waker, wakee, 0 };
	vs_wake_build_feed(b, &rec);
}

int main(void)
{
	const struct vs_wake_type *t;
	struct vs_wake_blame *wb;

	b = vs_wake_build_new();
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
	wb = vs_wake_build_finish(b);
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
	return done_testing();
}
