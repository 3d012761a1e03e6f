/* SPDX-License-Identifier: MIT */
/*
 * same-task.h - whether two tasks are the same, field by field and value
 * by value, for the unit tests of the trace format.
 */
#ifndef VS_T_UNIT_SAME_TASK_H
#define VS_T_UNIT_SAME_TASK_H

#include "core/trace/trace.h"

static inline int same_task(const struct vs_task *a, const struct vs_task *b)
{
	uint32_t i;

	if (a->id != b->id || a->type != b->type || a->pid != b->pid ||
	    a->tid != b->tid || a->cpu != b->cpu || a->epoch != b->epoch ||
	    a->flags != b->flags || a->start != b->start || a->end != b->end ||
	    a->nr_values != b->nr_values)
		return 0;
	for (i = 0; i < a->nr_values; i++)
		if (a->values[i].event != b->values[i].event ||
		    a->values[i].value != b->values[i].value)
			return 0;
	return 1;
}

#endif /* VS_T_UNIT_SAME_TASK_H */
