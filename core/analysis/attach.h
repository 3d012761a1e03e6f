/* SPDX-License-Identifier: MIT */
/*
 * attach.h - which task an attached interval serves, while streaming a
 * trace.
 *
 * vs_task_attach() intervals are written as task records of type 0
 * (flagged VS_TASK_ATTACHED, or VS_TASK_THREAD_EXIT when the thread died
 * attached) on the worker's thread, after a VS_REC_ATTACH record of the
 * same thread and start time naming the served task.  Analyses add such
 * an interval's values to the served task (its "attached" time) instead
 * of counting it as a task of its own.
 */
#ifndef VS_CORE_ATTACH_H
#define VS_CORE_ATTACH_H

#include <stdint.h>

#include "core/trace/trace.h"

struct vs_attach_map;

struct vs_attach_map *vs_attach_map_new(void);
void vs_attach_map_free(struct vs_attach_map *m);

/**
 * vs_attach_map_add - note record @rec when it is a VS_REC_ATTACH
 * (anything else is ignored); 0, or -1 when memory runs out
 */
int vs_attach_map_add(struct vs_attach_map *m, const struct vs_record *rec);

/**
 * vs_attach_map_served - the id of the task that task record @t serves,
 * or 0 when @t is a task of its own
 */
uint64_t vs_attach_map_served(const struct vs_attach_map *m,
			      const struct vs_task *t);

#endif /* VS_CORE_ATTACH_H */
