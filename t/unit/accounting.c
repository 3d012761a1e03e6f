// SPDX-License-Identifier: MIT
/*
 * accounting.c - synthetic event streams through core/accounting.c, with
 * exact expected values computed by hand (times in ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/accounting.h"
#include "t/unit/acct-tasks.h"
#include "t/unit/tap.h"

/* The tasks emitted by the accounting under test. */
static void emit(void *ctx, const struct vs_task *task)
{
	(void)ctx;
	keep_task(task);
}

static struct vs_acct *acct;

static void setup(void)
{
	vs_acct_free(acct);
	vs_catalog_free(cat);
	cat = vs_catalog_new(NULL, NULL);
	acct = vs_acct_new(cat, emit, NULL);
	nr_out = 0;
}

static void feed(uint64_t time, uint32_t cpu, uint32_t tid,
		 enum vs_acct_kind kind, const char *name)
{
	struct vs_acct_event ev = {
		.time = time, .cpu = cpu, .tid = tid, .kind = kind,
		.name = name, .pid = 1, .type = 7, .id = tid,
	};

	vs_acct_feed(acct, &ev);
}

static void feed_out(uint64_t time, uint32_t cpu, uint32_t tid,
		     enum vs_wait_state state)
{
	struct vs_acct_event ev = {
		.time = time, .cpu = cpu, .tid = tid,
		.kind = VS_ACCT_SWITCH_OUT, .state = state,
	};

	vs_acct_feed(acct, &ev);
}

static void feed_snap(uint64_t time, uint32_t tid, enum vs_acct_kind kind,
		      uint16_t id, uint64_t value)
{
	struct vs_acct_event ev = {
		.time = time, .tid = tid, .kind = kind,
		.snapshot = { 1, &id, &value },
	};

	vs_acct_feed(acct, &ev);
}

static void test_nested(void)
{
	setup();
	feed(0, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(100, 0, 10, VS_ACCT_FAULT_ENTRY, NULL);
	feed(200, 0, 10, VS_ACCT_SOFTIRQ_ENTRY, "NET_RX");
	feed(300, 0, 10, VS_ACCT_IRQ_ENTRY, "eth0");
	feed(350, 0, 10, VS_ACCT_IRQ_EXIT, NULL);
	feed(500, 0, 10, VS_ACCT_SOFTIRQ_EXIT, NULL);
	feed(700, 0, 10, VS_ACCT_FAULT_EXIT, NULL);
	feed(1000, 0, 10, VS_ACCT_TASK_END, NULL);
	ok(nr_out == 1 && out[0].task.start == 0 && out[0].task.end == 1000,
	   "nested: one task 0..1000");
	ok(val(0, "irq.hard.time") == 50 && val(0, "irq.hard.eth0.time") == 50 &&
	   val(0, "irq.hard.eth0.count") == 1, "nested: hardirq 50 ns");
	ok(val(0, "irq.soft.time") == 250 && val(0, "irq.soft.NET_RX.time") == 250,
	   "nested: softirq 300 - 50 = 250 ns");
	ok(val(0, "fault.page.time") == 300 && val(0, "fault.page.count") == 1,
	   "nested: fault 600 - 300 = 300 ns");
	ok(val(0, "run.time") == 400, "nested: run.time 1000 - 600 = 400 ns");
	ok(val(0, "sched.blocked.time") == 0 && val(0, "irq.vector.time") == 0,
	   "nested: kernel events without occurrence are 0, not absent");
	ok(vs_catalog_get(cat, vs_catalog_find(cat, "irq.hard.eth0.time"))->parent ==
	   vs_catalog_find(cat, "irq.hard.time"), "nested: breakdown parent");
}

static void test_irq_across_switch(void)
{
	setup();
	feed(0, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(100, 0, 10, VS_ACCT_VECTOR_ENTRY, "local_timer");
	feed(150, 0, 10, VS_ACCT_VECTOR_EXIT, NULL);
	feed_out(200, 0, 10, VS_WAIT_RUNNABLE);
	feed(200, 0, 20, VS_ACCT_SWITCH_IN, NULL);
	feed(300, 0, 20, VS_ACCT_IRQ_ENTRY, "eth0");
	feed(400, 0, 20, VS_ACCT_IRQ_EXIT, NULL);
	feed_out(500, 0, 20, VS_WAIT_BLOCKED);
	feed(500, 0, 10, VS_ACCT_SWITCH_IN, NULL);
	feed(1000, 0, 10, VS_ACCT_TASK_END, NULL);
	ok(nr_out == 1, "switch: one task");
	ok(val(0, "irq.vector.local_timer.time") == 50 &&
	   val(0, "irq.vector.local_timer.count") == 1,
	   "switch: own vector charged");
	ok(val(0, "irq.hard.time") == 0,
	   "switch: the other thread's interrupt is not charged");
	ok(val(0, "sched.runnable.time") == 300 &&
	   val(0, "sched.runnable.count") == 1, "switch: runnable 300 ns");
	ok(val(0, "run.time") == 650, "switch: run.time 650 ns");
	ok(val(0, "cpu.migrations.count") == 0, "switch: no migration");
}

static void test_fault_sleeps(void)
{
	setup();
	feed(0, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(100, 0, 10, VS_ACCT_FAULT_ENTRY, NULL);
	feed_out(200, 0, 10, VS_WAIT_IOWAIT);
	feed(250, 0, 20, VS_ACCT_SWITCH_IN, NULL);
	feed(300, 0, 20, VS_ACCT_IRQ_ENTRY, "eth0");
	feed(350, 0, 20, VS_ACCT_IRQ_EXIT, NULL);
	feed(600, 1, 10, VS_ACCT_SWITCH_IN, NULL);
	feed(700, 1, 10, VS_ACCT_FAULT_EXIT, NULL);
	feed(1000, 1, 10, VS_ACCT_TASK_END, NULL);
	ok(nr_out == 1 && val(0, "fault.page.time") == 200,
	   "fault across a switch: 600 - 400 waited = 200 ns");
	ok(val(0, "sched.iowait.time") == 400 && val(0, "sched.iowait.count") == 1,
	   "fault across a switch: iowait 400 ns");
	ok(val(0, "cpu.migrations.count") == 1, "fault across a switch: migrated");
	ok(val(0, "run.time") == 400, "fault across a switch: run.time 400 ns");
	ok(vs_acct_stats(acct)->discarded_frames == 0 &&
	   vs_acct_stats(acct)->unmatched_exits == 0,
	   "fault across a switch: stacks consistent");
}

static void test_migration(void)
{
	setup();
	feed(0, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed_out(100, 0, 10, VS_WAIT_RUNNABLE);
	feed(300, 1, 10, VS_ACCT_SWITCH_IN, NULL);
	feed_out(350, 1, 10, VS_WAIT_BLOCKED);
	feed(450, 1, 10, VS_ACCT_SWITCH_IN, NULL);
	feed(500, 1, 10, VS_ACCT_TASK_END, NULL);
	ok(nr_out == 1 && val(0, "cpu.migrations.count") == 1,
	   "migration: counted once");
	ok(val(0, "sched.runnable.time") == 200 && val(0, "sched.blocked.time") == 100 &&
	   val(0, "sched.blocked.count") == 1, "migration: waits 200 + 100 ns");
	ok(val(0, "run.time") == 200 && out[0].task.cpu == 0,
	   "migration: run.time 200 ns, cpu at begin 0");
}

static void test_lost(void)
{
	struct vs_acct_event lost = {
		.time = 100, .tid = 10, .kind = VS_ACCT_LOST,
		.count = 5, .until = 150,
	};

	setup();
	feed(0, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	vs_acct_feed(acct, &lost);
	feed(120, 0, 10, VS_ACCT_TASK_END, NULL);
	feed(140, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(145, 0, 10, VS_ACCT_TASK_END, NULL);
	feed(200, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(300, 0, 10, VS_ACCT_TASK_END, NULL);
	ok(nr_out == 3 && (out[0].task.flags & VS_TASK_LOST_EVENTS) &&
	   (out[1].task.flags & VS_TASK_LOST_EVENTS),
	   "lost: tasks overlapping the loss are flagged");
	ok(!(out[2].task.flags & VS_TASK_LOST_EVENTS),
	   "lost: a task after the loss is not");
	ok(vs_acct_stats(acct)->lost_events == 5 &&
	   vs_acct_stats(acct)->lost_tasks == 2, "lost: counted");
}

static void test_odd_orders(void)
{
	struct vs_acct_event exit_ev = {
		.time = 900, .tid = 10, .kind = VS_ACCT_THREAD_EXIT,
	};

	setup();
	feed(50, 0, 10, VS_ACCT_TASK_END, NULL);
	feed(100, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(200, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	feed(400, 0, 10, VS_ACCT_TASK_END, NULL);
	feed(500, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	vs_acct_feed(acct, &exit_ev);
	ok(nr_out == 3, "odd orders: end without begin makes no task");
	ok(out[0].task.start == 100 && out[0].task.end == 200 &&
	   (out[0].task.flags & VS_TASK_NESTED_BEGIN),
	   "odd orders: a second begin closes the open task");
	ok(out[1].task.end - out[1].task.start == 200 && !out[1].task.flags,
	   "odd orders: the second task is whole");
	ok(out[2].task.end == 900 && (out[2].task.flags & VS_TASK_THREAD_EXIT) &&
	   val(2, "run.time") == 400, "odd orders: exit inside a task");
	ok(!vs_acct_in_task(acct, 10), "odd orders: thread forgotten");
	feed(950, 0, 10, VS_ACCT_IRQ_EXIT, NULL);
	ok(vs_acct_stats(acct)->unmatched_exits == 1,
	   "odd orders: an exit without entry is counted");
}

static void test_counters(void)
{
	uint16_t cycles;
	uint16_t ids[1];
	uint64_t deltas[1] = { 77 };
	struct vs_acct_event end = {
		.time = 400, .tid = 10, .kind = VS_ACCT_TASK_END,
	};

	setup();
	cycles = vs_catalog_intern(cat, "cycles", "count", VS_GROUP_CYCLE,
				   VS_EVENT_NO_PARENT);
	ids[0] = vs_catalog_intern(cat, "task-clock", "ns", VS_GROUP_SOFTWARE,
				   VS_EVENT_NO_PARENT);
	/* snapshots at the interrupt boundaries: the irq is excluded */
	feed_snap(0, 10, VS_ACCT_TASK_BEGIN, cycles, 1000);
	feed_snap(100, 10, VS_ACCT_IRQ_ENTRY, cycles, 1100);
	feed_snap(200, 10, VS_ACCT_IRQ_EXIT, cycles, 1300);
	feed_snap(400, 10, VS_ACCT_TASK_END, cycles, 1500);
	/* no snapshot at the interrupt: the delta includes it */
	feed_snap(500, 10, VS_ACCT_TASK_BEGIN, cycles, 2000);
	feed(600, 0, 10, VS_ACCT_IRQ_ENTRY, NULL);
	feed(700, 0, 10, VS_ACCT_IRQ_EXIT, NULL);
	feed_snap(900, 10, VS_ACCT_TASK_END, cycles, 2500);
	/* library deltas at the end */
	feed(1000, 0, 10, VS_ACCT_TASK_BEGIN, NULL);
	end.time = 1100;
	end.deltas = (struct vs_acct_counters){ 1, ids, deltas };
	vs_acct_feed(acct, &end);
	ok(nr_out == 3 && val(0, "cycles") == 300,
	   "counters: deltas exclude the interrupt (100 + 200)");
	ok(val(1, "cycles") == 500 && val(1, "run.time") == 300,
	   "counters: without interrupt snapshots the whole delta");
	ok(val(2, "task-clock") == 77 && val(2, "cycles") == -1,
	   "counters: library deltas; counters not measured stay absent");
}

int main(void)
{
	test_nested();
	test_irq_across_switch();
	test_fault_sleeps();
	test_migration();
	test_lost();
	test_odd_orders();
	test_counters();
	vs_acct_free(acct);
	vs_catalog_free(cat);
	return done_testing();
}
