// SPDX-License-Identifier: MIT
/*
 * task-values.c - a task's counter values from the engine's slot
 * (core/record/task-values.h): kept when both marks were made, every read
 * worked and the reads pass the DTE filter; left out (and counted)
 * otherwise; multiplexed reads flag the task and keep the values.
 */
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/record/task-values.h"
#include "t/unit/tap.h"

static struct vs_catalog *cat;
static struct vs_task_values *tv;
static uint16_t clock_id, faults_id;

/* The counter values of @task, -1 when it has none. */
static int64_t value(const struct vs_task *task, uint16_t id)
{
	uint32_t i;

	for (i = 0; i < task->nr_values; i++)
		if (task->values[i].event == id)
			return task->values[i].value;
	return -1;
}

/*
 * A 100 us task of counter set @gen that ran 90 us, whose reads took
 * @skew ns longer at its end than at its begin.
 */
static void fill(struct vs_slot_values *kv, uint32_t gen, uint64_t skew)
{
	memset(kv, 0, sizeof(*kv));
	kv->counter_gen = gen;
	kv->counter_marks = 2;
	kv->counter[0] = 90000;
	kv->counter[1] = 7;
	kv->counter_span[0] = 90000;
	kv->counter_span[1] = 90000 + skew;
	kv->wait_ns[VS_SLOT_RUNNABLE] = 10000;
	kv->wait_count[VS_SLOT_RUNNABLE] = 1;
}

static struct vs_task run(const struct vs_slot_values *kv)
{
	/* drained in epoch 9, whatever set its values are of */
	struct vs_task task = { .start = 1000000, .end = 1100000, .epoch = 9 };

	if (vs_task_values_fill(tv, kv, &task))
		task.nr_values = 0;
	return task;
}

int main(void)
{
	uint16_t sw[4] = { VS_EVENT_NO_PARENT, VS_EVENT_NO_PARENT,
			   VS_EVENT_NO_PARENT, VS_EVENT_NO_PARENT };
	uint16_t ids[2];
	struct vs_slot_values kv;
	struct vs_task task;

	cat = vs_catalog_new(NULL, NULL);
	clock_id = ids[0] = vs_catalog_intern(cat, "cpu-clock", "ns",
					      VS_GROUP_SOFTWARE,
					      VS_EVENT_NO_PARENT);
	faults_id = ids[1] = vs_catalog_intern(cat, "minor-faults", "count",
					       VS_GROUP_SOFTWARE,
					       VS_EVENT_NO_PARENT);
	tv = vs_task_values_new(cat, sw);

	fill(&kv, 2, 0);
	task = run(&kv);
	ok(value(&task, clock_id) == -1,
	   "no counter set given: no counter values");

	vs_task_values_counters(tv, 2, 1, ids, 2);
	task = run(&kv);
	ok(value(&task, clock_id) == 90000 && value(&task, faults_id) == 7 &&
	   task.flags == 0, "a task of the set, marked, steady: its values");

	fill(&kv, 2, 900);	/* 1%: the filter's edge */
	task = run(&kv);
	ok(value(&task, clock_id) == 90000 && task.flags == 0,
	   "reads 1%% apart pass the DTE filter");

	fill(&kv, 2, 901);
	task = run(&kv);
	ok(value(&task, clock_id) == -1 && value(&task, faults_id) == -1 &&
	   task.flags == VS_TASK_DISTORTED,
	   "reads past 1%% apart: the values left out, the task distorted");
	fill(&kv, 2, 0);
	kv.counter_span[1] = 90000 - 901;
	task = run(&kv);
	ok(value(&task, clock_id) == -1 && task.flags == VS_TASK_DISTORTED,
	   "the same, shorter at the end");
	is_u64(vs_task_values_left_out(tv)->distorted, 2,
	       "the tasks the filter left out are counted");

	fill(&kv, 2, 0);
	kv.counter_flags = VS_COUNTERS_MULTIPLEXED;
	task = run(&kv);
	ok(value(&task, clock_id) == 90000 &&
	   task.flags == VS_TASK_MULTIPLEXED,
	   "multiplexed reads: the values kept, the task flagged");

	fill(&kv, 2, 0);
	kv.counter_marks = 1;
	task = run(&kv);
	ok(value(&task, clock_id) == -1, "an unmarked end: left out");
	fill(&kv, 2, 0);
	kv.counter_marks = 3;
	task = run(&kv);
	ok(value(&task, clock_id) == -1, "a mark too many: left out");
	fill(&kv, 2, 0);
	kv.counter_flags = VS_COUNTERS_FAILED;
	task = run(&kv);
	ok(value(&task, clock_id) == -1, "a failed read: left out");
	fill(&kv, 2, 0);
	kv.counter_flags = VS_COUNTERS_SWAPPED;
	task = run(&kv);
	ok(value(&task, clock_id) == -1, "a set swapped in the task: left out");
	fill(&kv, 7, 0);
	task = run(&kv);
	ok(value(&task, clock_id) == -1, "a set never given: left out");
	is_u64(vs_task_values_left_out(tv)->unmarked, 5,
	       "those are counted too");

	/* the next set: the tasks of the one before still take theirs */
	ids[0] = faults_id;
	ids[1] = clock_id;
	vs_task_values_counters(tv, 4, 2, ids, 2);
	fill(&kv, 2, 0);
	task = run(&kv);
	ok(value(&task, clock_id) == 90000, "a task of the set before: its names");
	is_u64(task.epoch, 1, "and its epoch, not the one it was read in");
	fill(&kv, 4, 0);
	task = run(&kv);
	ok(value(&task, clock_id) == 7 && value(&task, faults_id) == 90000 &&
	   task.epoch == 2, "a task of the new set: the new set's names");
	vs_task_values_counters(tv, 6, 3, ids, 2);
	fill(&kv, 2, 0);
	task = run(&kv);
	ok(value(&task, clock_id) == -1, "two sets back: left out");

	vs_task_values_free(tv);
	vs_catalog_free(cat);
	return done_testing();
}
