/* SPDX-License-Identifier: MIT */
/*
 * task-values.h - a task's values from what the in-kernel engine
 * accounted for it (struct vs_slot_values, copied out by the library):
 * the catalog's names (run.time, sched.*, irq.*, fault.page.count, the
 * software counters, the engine's per-CPU counters), checked as
 * untrusted data.
 */
#ifndef VS_CORE_RECORD_TASK_VALUES_H
#define VS_CORE_RECORD_TASK_VALUES_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "core/catalog.h"
#include "core/record/task-slot.h"
#include "core/trace/trace.h"

struct vs_task_values;

/**
 * vs_task_values_new - the names of the engine's values in @cat
 * @sw_ids: the catalog ids of task-clock, context-switches, page-faults
 *	and cpu-migrations (core/record/record-int.h's VS_NR_SW_COUNTERS order)
 */
struct vs_task_values *vs_task_values_new(struct vs_catalog *cat,
					  const uint16_t sw_ids[4]);
/*
 * vs_task_values_fault_time - the engine times page faults: the tasks
 * have fault.page.time, left out of their run.time
 */
void vs_task_values_fault_time(struct vs_task_values *tv);
void vs_task_values_free(struct vs_task_values *tv);

/**
 * vs_task_values_counters - the engine's counter set of generation @gen
 * (vs_bpf_engine_counters()) counts the catalog's events @ids, in order,
 * from trace epoch @epoch on; the tasks of this set and of the one before
 * take their counter values by it, and its epoch (a task drained after
 * the next swap is still of the epoch whose events it carries), those of
 * older sets none
 */
void vs_task_values_counters(struct vs_task_values *tv, uint32_t gen,
			     uint32_t epoch, const uint16_t *ids,
			     unsigned int nr);

/* Tasks whose counter values were left out, and why. */
struct vs_counters_left_out {
	uint64_t unmarked;	/* a begin or end unmarked, a read failed, a
				 * set swapped or too old */
	uint64_t distorted;	/* the reads failed the DTE filter */
};

const struct vs_counters_left_out *
vs_task_values_left_out(const struct vs_task_values *tv);

/**
 * vs_task_values_fill - @task's values from @kv over its wall time
 * (@task->end - @task->start): every kernel event of the catalog (0 when
 * absent) and the software counters, sorted by id.  run.time is the wall
 * time less the waits and interrupts.  Values that cannot be (more time
 * in them than the task lasted) flag the task VS_TASK_DISTORTED.  The
 * counters (vs_task_values_counters()) are left out unless both marks
 * were made, every read worked and the reads pass the DTE filter
 * (failing it flags the task VS_TASK_DISTORTED); multiplexed reads flag
 * it VS_TASK_MULTIPLEXED.  Names
 * come from fixed tables only: a system call or an interrupt number out
 * of them adds to the totals, never a name.
 *
 * @task->values points into @tv until the next call.  Returns -1 when
 * out of memory (@task then has no values).
 */
int vs_task_values_fill(struct vs_task_values *tv,
			const struct vs_slot_values *kv, struct vs_task *task);

#endif /* VS_CORE_RECORD_TASK_VALUES_H */
