/* SPDX-License-Identifier: MIT */
/*
 * func-callers.h - the call paths that make a sampled function event's
 * high values: of the time the event measures in the tasks where it is
 * high, the share of each path the samples took to the function.  What
 * report names beside a func: event (text, and "callers" in JSON).
 */
#ifndef VS_CORE_FUNC_CALLERS_H
#define VS_CORE_FUNC_CALLERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/task-samples.h"

#define VS_CALLERS_SHOWN	3	/* paths report names per event */
#define VS_CALLER_DEPTH		4	/* functions of a path, the function's
					 * own included, innermost kept */
#define VS_CALLER_PATH_MAX	512	/* bytes of a path's text */

struct vs_func_caller {
	char path[VS_CALLER_PATH_MAX];	/* "main → lookup → hash" */
	double share;			/* of the event's high-task time */
};

/**
 * vs_func_callers - the call paths of the samples behind function event
 * @event ("func:<symbol>.time": the function's own samples;
 * "func:<symbol>.total": every sample it is on the stack of) in the tasks
 * of type @type where the event's value (by @est, as the events have it)
 * is above @threshold
 * @out: the paths with the largest shares, largest first, at most @max
 *
 * A path is the function and its callers, outermost first, cut to the
 * innermost VS_CALLER_DEPTH.  Returns how many are in @out (0: not a
 * sampled function event, or no high value).
 */
size_t vs_func_callers(const struct vs_task_samples *ts, uint32_t type,
		       const char *event, enum vs_func_estimator est,
		       double threshold, struct vs_func_caller *out,
		       size_t max);

#endif /* VS_CORE_FUNC_CALLERS_H */
