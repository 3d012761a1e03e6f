/* SPDX-License-Identifier: MIT */
/*
 * taskset-int.h - what the task set's columns (taskset.c) give its
 * reading of a trace in parallel parts (taskset-read.c): unfinished
 * task sets that share what is read once, that keep latencies alone,
 * and that merge.
 */
#ifndef VS_CORE_TASKSET_INT_H
#define VS_CORE_TASKSET_INT_H

#include <stdbool.h>

#include "core/analysis/taskset.h"

/**
 * vs_taskset_share_context - load into @ts against @owner's context
 * @ts: an unfinished task set
 * @owner: an unfinished task set
 *
 * Lets @ts load its tasks against the epochs and attached intervals of
 * @owner: what is read once for both.  @owner must be finished last, and
 * merged (vs_taskset_merge()) last.
 */
void vs_taskset_share_context(struct vs_taskset *ts,
			      const struct vs_taskset *owner);

/**
 * vs_taskset_set_latency_only - keep the latencies of @ts's tasks alone
 * @ts: an unfinished task set
 * @latency_only: no values, epochs, attached intervals or task ids
 */
void vs_taskset_set_latency_only(struct vs_taskset *ts, bool latency_only);

/**
 * vs_taskset_latency_only - whether unfinished @ts keeps latencies alone
 * @ts: an unfinished task set
 */
bool vs_taskset_latency_only(const struct vs_taskset *ts);

/**
 * vs_taskset_merge - append the tasks of @src to @dst
 * @dst: an unfinished task set
 * @src: an unfinished task set, freed
 *
 * Returns 0, or -1 when memory runs out.
 */
int vs_taskset_merge(struct vs_taskset *dst, struct vs_taskset *src);

#endif
