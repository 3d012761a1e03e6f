/* SPDX-License-Identifier: MIT */
/*
 * breakdown.h - the part of an event that holds most of it.
 *
 * Some events are totals broken down by name: irq.soft.time into
 * irq.soft.NET_RX.time and the other softirqs, irq.vector.time into the
 * vectors, sched.blocked.time and sched.iowait.time into the system calls
 * the waits were in (sched.blocked.fdatasync.time).  The catalog links a
 * part to its total (vs_event_def.parent).  Rule 2 relates a part to its
 * total in the ranking; this says, for a ranked total, which part holds
 * most of it where it matters: over the tasks where the total is high.
 */
#ifndef VS_CORE_BREAKDOWN_H
#define VS_CORE_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/analysis/ranking.h"
#include "core/analysis/taskset.h"

#define VS_MAIN_PART_SHARE	0.5	/* "most of it" */

struct vs_main_part {
	int event;		/* the part's catalog id */
	const char *name;	/* the part's event name (the catalog's) */
	char part[64];		/* what it names: "NET_RX", "fdatasync" */
	double share;		/* of the total, over the high tasks */
};

/**
 * vs_main_part - the part of ranked event @er of type @tt that holds more
 * than VS_MAIN_PART_SHARE of it, summed over the tasks where @er's event
 * is above its threshold
 * @out: filled when there is one
 *
 * Returns true when there is one; false without parts, without high
 * tasks, or when no part holds most of it.
 */
bool vs_main_part(const struct vs_taskset *ts, const struct vs_task_type *tt,
		  const struct vs_event_rank *er, struct vs_main_part *out);

#endif /* VS_CORE_BREAKDOWN_H */
