/* SPDX-License-Identifier: MIT */
/*
 * varscope.h - the AppTask annotation API of varscope.
 *
 * Link with -lvarscope (pkg-config --cflags --libs varscope).  Outside
 * "varscope record" every call is a no-op costing a few nanoseconds.
 */
#ifndef VARSCOPE_H
#define VARSCOPE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * vs_task_begin - mark the start of an AppTask on the calling thread
 * @type: the task type, chosen by the application (one type per kind of
 *        request; the report ranks events per type)
 */
void vs_task_begin(uint32_t type);

/**
 * vs_task_end - mark the end of the AppTask of @type on the calling thread
 * @type: the type given to the matching vs_task_begin()
 */
void vs_task_end(uint32_t type);

/**
 * vs_task_attach - the calling thread now works for the task @id
 * @id: the id of a task begun on another thread (see vs_task_id())
 *
 * Time spent by the attached thread counts for task @id until
 * vs_task_detach() (VProfiler's cross-thread semantic interval).
 */
void vs_task_attach(uint64_t id);

/**
 * vs_task_detach - end the calling thread's work for the attached task
 */
void vs_task_detach(void);

/**
 * vs_task_id - the id of the task open on the calling thread, 0 if none
 *
 * Pass it to another thread that calls vs_task_attach().
 */
uint64_t vs_task_id(void);

/**
 * vs_task_type_name - name the task type @type for the report
 * @type: a task type, as given to vs_task_begin()
 * @name: 1 to 64 printable ASCII characters, not all digits (the report's
 *        --type takes a name or a number); a longer one is cut at 64
 *
 * Call it once per type, from any thread, before or after the type's
 * first task.  The recorder keeps a type's first name and ignores
 * names that break these rules.  Outside "varscope record" it does
 * nothing.
 */
void vs_task_type_name(uint32_t type, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* VARSCOPE_H */
