/* SPDX-License-Identifier: MIT */
/*
 * acct-tasks.h - the tasks a unit test's accounting emitted, kept for its
 * checks: keep_task() from the emit callback, val() to read a value.
 * The test owns @cat, the catalog the names are looked up in.
 */
#ifndef VS_T_UNIT_ACCT_TASKS_H
#define VS_T_UNIT_ACCT_TASKS_H

#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/trace/trace.h"

#define MAX_TASKS	8
#define MAX_VALUES	64

static struct vs_catalog *cat;
static struct {
	struct vs_task task;
	struct vs_value values[MAX_VALUES];
} out[MAX_TASKS];
static int nr_out;

static inline void keep_task(const struct vs_task *task)
{
	if (nr_out == MAX_TASKS || task->nr_values > MAX_VALUES)
		abort();
	out[nr_out].task = *task;
	memcpy(out[nr_out].values, task->values,
	       task->nr_values * sizeof(*task->values));
	out[nr_out].task.values = out[nr_out].values;
	nr_out++;
}

/* Value @name of kept task @i, -1 when the task lacks it. */
static inline long long val(int i, const char *name)
{
	uint16_t id = vs_catalog_find(cat, name);
	uint32_t k;

	for (k = 0; k < out[i].task.nr_values; k++)
		if (out[i].values[k].event == id)
			return (long long)out[i].values[k].value;
	return -1;
}

#endif /* VS_T_UNIT_ACCT_TASKS_H */
