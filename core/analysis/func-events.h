/* SPDX-License-Identifier: MIT */
/*
 * func-events.h - the function events of a trace's tasks,
 * "func:<symbol>.time" (vs_func_event_name()), from both of their sources:
 *
 *   samples   record --sample: the estimate of
 *             core/analysis/task-samples.h, for the functions holding a
 *             share of each type's sampled time
 *   probes    record --probe: the exact inclusive time of
 *             core/analysis/func-times.h, for every probed function
 *             called in a task of the type
 *
 * One event per name.  For a function that was probed, the exact time is
 * the value in every task (0 where it was not called): it wins over the
 * sampled estimate of the same name.  Other functions keep the estimate.
 *
 * This is what report and tui add to the task records: vs_func_sources_hook()
 * sets the task set's extra events and per-task values.
 */
#ifndef VS_CORE_FUNC_EVENTS_H
#define VS_CORE_FUNC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/func-times.h"
#include "core/analysis/task-samples.h"
#include "core/analysis/taskset.h"

struct vs_func_sources {
	struct vs_task_samples *samples;	/* NULL: not --sample */
	struct vs_func_times *probes;		/* NULL: not --probe */
	struct vs_fs_state *state;		/* the merged events */
};

struct vs_trace_head;

/**
 * vs_func_sources_load - read the samples and the probed calls of the
 * trace at @path (each only when its @head says it was recorded with it)
 * and make their function events, the sampled ones by estimator @est
 * @err: one line on failure
 *
 * Returns 0 (VS_LOAD_OK), VS_LOAD_ERROR or VS_LOAD_CORRUPT.
 */
int vs_func_sources_load(const char *path, const struct vs_trace_head *head,
			 enum vs_func_estimator est,
			 struct vs_func_sources **out, char *err,
			 size_t errlen);

/**
 * vs_func_sources_new - the function events of @samples and @probes
 * (either may be NULL; both are then owned by the result), numbered from
 * @first_id (the size of the trace's catalog)
 *
 * Returns NULL when memory runs out (@samples and @probes are freed).
 */
struct vs_func_sources *vs_func_sources_new(struct vs_task_samples *samples,
					    struct vs_func_times *probes,
					    enum vs_func_estimator est,
					    uint16_t first_id);
void vs_func_sources_free(struct vs_func_sources *fs);

/**
 * vs_func_sources_load_progress - vs_func_sources_load(), calling
 * @progress with @arg as the samples are read (core/analysis/task-samples.h)
 */
int vs_func_sources_load_progress(const char *path,
				  const struct vs_trace_head *head,
				  enum vs_func_estimator est,
				  struct vs_func_sources **out, char *err,
				  size_t errlen, vs_read_progress_fn progress,
				  void *arg);

/* The event definitions, ids first_id ... */
const struct vs_event_def *
vs_func_sources_defs(const struct vs_func_sources *fs, unsigned int *nr);

/**
 * vs_func_sources_values - the function events of task record @t into
 * @buf (room for @max); returns how many
 *
 * Safe to call from several threads at once.
 */
uint32_t vs_func_sources_values(const struct vs_func_sources *fs,
				const struct vs_task *t, struct vs_value *buf,
				uint32_t max);

/**
 * vs_func_sources_hook - make @o add the function events of @fs to every
 * task it reads (nothing when @fs has none)
 */
void vs_func_sources_hook(const struct vs_func_sources *fs,
			  struct vs_taskset_opts *o);

#endif /* VS_CORE_FUNC_EVENTS_H */
