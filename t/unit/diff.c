// SPDX-License-Identifier: MIT
/*
 * diff.c - unit test of core/analysis/diff.c on hand-made task sets: events are
 * matched by name across catalogs numbered differently, ordered by the
 * change of impact, with exact p50/p99 per segment, and burstiness.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/diff.h"
#include "t/unit/tap.h"

#define NR_TASKS	1000

/*
 * A segment: events "irq" and "wait" (ids in the order given by @swap),
 * "only_a" or "only_b".  Task i has latency 100 us, plus @irq_ns for the
 * last @slow tasks (2% of them make the p99 tail), irq value i (+ @irq_ns
 * for the slow ones), wait value 5, the third event i.
 */
static struct vs_taskset *segment(bool swap, uint64_t irq_ns, int slow,
				  const char *extra)
{
	struct vs_taskset *ts = vs_taskset_new();
	const char *names[3] = { swap ? "wait" : "irq", swap ? "irq" : "wait",
				 extra };
	struct vs_value v[3];
	int i, e;

	for (e = 0; e < 3; e++) {
		struct vs_event_def def = { e, VS_EVENT_NO_PARENT,
					    VS_GROUP_KERNEL, names[e], "ns" };

		vs_taskset_add_event(ts, &def);
	}
	for (i = 0; i < NR_TASKS; i++) {
		bool is_slow = i >= NR_TASKS - slow;
		uint64_t irq = i + (is_slow ? irq_ns : 0);
		struct vs_task t = { .id = i + 1, .type = 3, .start = 1000,
				     .end = 1000 + 100000 + (is_slow ? irq_ns : 0) +
					    i, .nr_values = 3, .values = v };

		v[0] = (struct vs_value){ 0, swap ? 5 : irq };
		v[1] = (struct vs_value){ 1, swap ? irq : 5 };
		v[2] = (struct vs_value){ 2, i };
		vs_taskset_add_task(ts, &t);
	}
	vs_taskset_finish(ts);
	return ts;
}

static const struct vs_event_diff *row(const struct vs_event_diff *rows,
				       size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

int main(void)
{
	struct vs_rank_opts o = VS_RANK_OPTS_INIT;
	struct vs_taskset *a = segment(false, 0, 0, "only_a");
	struct vs_taskset *b = segment(true, 1000000, 20, "only_b");
	const struct vs_task_type *ta = vs_taskset_type(a, 3);
	const struct vs_task_type *tb = vs_taskset_type(b, 3);
	struct vs_type_rank ra, rb;
	struct vs_event_diff *rows;
	const struct vs_event_diff *irq, *wait, *only_a, *only_b;
	size_t n, i;
	bool sorted = true;
	float p50, p99;

	o.min_tasks = 10;
	vs_rank_type(a, ta, &o, &ra);
	vs_rank_type(b, tb, &o, &rb);
	ok(!vs_diff_type(a, ta, &ra, b, tb, &rb, &rows, &n), "diff");
	is_u64(n, 4, "irq, wait, only_a and only_b");
	irq = row(rows, n, "irq");
	wait = row(rows, n, "wait");
	only_a = row(rows, n, "only_a");
	only_b = row(rows, n, "only_b");
	ok(irq && wait && only_a && only_b, "matched by name though "
	   "numbered differently");
	is_str(rows[0].name, "irq", "the event that made B's tail is first");
	ok(irq->impact_a < 0.01 && irq->impact_b > 0.8 &&
	   fabs(irq->delta - (irq->impact_b - irq->impact_a)) < 1e-12,
	   "its impact grew (%.3f -> %.3f)", irq->impact_a, irq->impact_b);
	for (i = 1; i < n; i++)
		if (fabs(rows[i].delta) > fabs(rows[i - 1].delta))
			sorted = false;
	ok(sorted, "ordered by |delta|");
	/* irq in A: 0..999, p50 499, p99 989; in B the top 20 are +1 ms */
	ok(irq->has_a && irq->p50_a == 499 && irq->p99_a == 989,
	   "p50 and p99 in A (%g, %g)", irq->p50_a, irq->p99_a);
	ok(irq->has_b && irq->p50_b == 499 && irq->p99_b == 1000989,
	   "p50 and p99 in B (%g, %g)", irq->p50_b, irq->p99_b);
	ok(vs_event_diff_burstier(irq), "a p99 up 1000-fold with the same "
	   "p50 is burstier");
	ok(!vs_event_diff_burstier(wait), "a constant event is not");
	ok(only_a->has_a && !only_a->has_b && only_a->rank_a &&
	   !only_a->rank_b && only_a->impact_b == 0,
	   "an event of A alone: B's side empty");
	ok(only_b->has_b && !only_b->has_a, "an event of B alone");
	free(rows);
	/*
	 * A negative impact (without its high tasks, fast ones, the p99
	 * moves up to slower tasks) takes no share of the tail: it changes
	 * nothing, and cannot head the changes
	 */
	for (i = 0; i < rb.nr_events; i++)
		if (!strcmp(rb.events[i].name, "only_b"))
			rb.events[i].adjusted = -0.146;
	ok(!vs_diff_type(a, ta, &ra, b, tb, &rb, &rows, &n), "diff again");
	only_b = row(rows, n, "only_b");
	ok(only_b && only_b->impact_b == 0 && only_b->delta == 0,
	   "a negative impact counts as 0 (%.3f, change %.3f)",
	   only_b ? only_b->impact_b : -1, only_b ? only_b->delta : -1);
	is_str(rows[0].name, "irq", "the event that made B's tail is still "
	       "first");
	i = vs_event_percentiles(ta, 2, &p50, &p99);
	ok(!i && p50 == 499 && p99 == 989,
	   "vs_event_percentiles: nearest rank of 0..999 (%g, %g)", p50, p99);
	is_u64(vs_event_percentiles(ta, 7, &p50, &p99), 1,
	       "an event no task recorded");
	free(rows);
	vs_type_rank_free(&ra);
	vs_type_rank_free(&rb);
	vs_taskset_free(a);
	vs_taskset_free(b);
	return done_testing();
}
