/* SPDX-License-Identifier: MIT */
/*
 * diff.h - why one segment's tail differs from another's (VarMRI
 * section 6): the impact rankings of a task type in two segments, event
 * by event, with each event's p50 and p99 in both.
 *
 * In the paper's Memcached case every segment had the same top cause
 * (NIC interrupts) with a different impact, and the segments with the
 * longer tail had a higher p99 but a lower p50 of interrupt time: the
 * interrupts came in bursts.  So the change of impact orders the events,
 * and their p50 and p99 side by side show such burstiness.
 */
#ifndef VS_CORE_DIFF_H
#define VS_CORE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/analysis/ranking.h"
#include "core/analysis/taskset.h"

#define VS_DIFF_TIE	1e-6	/* changes of impact this close are equal */
#define VS_BURST_TAIL	1.1	/* p99 this much higher: the tail grew */
#define VS_BURST_MEDIAN	1.05	/* p50 at most this much higher: it did not */

/* One event of a task type in segments A and B. */
struct vs_event_diff {
	const char *name;		/* points into a ranking */
	const char *unit;
	size_t rank_a, rank_b;		/* 1-based rank, 0: not ranked */
	double impact_a, impact_b;	/* adjusted impact, 0 when not ranked
					 * or below 0 */
	double delta;			/* impact_b - impact_a */
	bool has_a, has_b;		/* recorded in A (B): p50/p99 valid */
	float p50_a, p99_a, p50_b, p99_b;
};

/**
 * vs_event_percentiles - p50 and p99 of an event over the tasks of @tt
 * that recorded it (nearest rank)
 *
 * Returns 0, 1 when no task recorded @event, -1 on ENOMEM.
 */
int vs_event_percentiles(const struct vs_task_type *tt, int event,
			 float *p50, float *p99);

/**
 * vs_diff_type - compare the rankings of one task type in two segments
 * @ts_a/@tt_a/@ra: segment A's task set, the type's tasks and ranking
 * @ts_b/@tt_b/@rb: the same in segment B
 * @out: receives the events of either ranking (matched by name: the two
 *       traces may number them differently), largest |delta| first; of
 *       events tied (the same tasks are high in both, like a wait's time
 *       and its count) times first, then by name; free() it
 * @n: receives their number
 *
 * Returns 0, or -1 on ENOMEM.
 */
int vs_diff_type(const struct vs_taskset *ts_a, const struct vs_task_type *tt_a,
		 const struct vs_type_rank *ra,
		 const struct vs_taskset *ts_b, const struct vs_task_type *tt_b,
		 const struct vs_type_rank *rb,
		 struct vs_event_diff **out, size_t *n);

/* One task type found in both segments: its rankings and their diff. */
struct vs_type_diff {
	uint32_t type;
	const struct vs_task_type *tt_a, *tt_b;
	struct vs_type_rank ra, rb;	/* the ranked events alone */
	struct vs_event_diff *events;	/* as vs_diff_type()'s */
	size_t nr_events;
};

/* Segments A and B compared, type by type. */
struct vs_diff {
	unsigned int nr_types;
	struct vs_type_diff *types;	/* the types of both, ascending */
	unsigned int nr_only_a, nr_only_b;
	uint32_t *only_a, *only_b;	/* the types of one alone,
					 * ascending */
};

/**
 * vs_diff_segments - rank every task type of segments A and B and compare
 * the rankings of the types found in both
 * @a/@b: the task sets of A and B
 * @rank: the ranking's options
 * @out: receives the comparison (free with vs_diff_release(), also on
 *       failure)
 *
 * Returns 0, or -1 on ENOMEM.
 */
int vs_diff_segments(const struct vs_taskset *a, const struct vs_taskset *b,
		     const struct vs_rank_opts *rank, struct vs_diff *out);

void vs_diff_release(struct vs_diff *d);

/**
 * vs_event_diff_tied - the impacts of @a and @b changed by as much
 */
bool vs_event_diff_tied(const struct vs_event_diff *a,
			const struct vs_event_diff *b);

/**
 * vs_event_diff_burstier - the tail of the event grew while its median
 * did not: in B a p99 over VS_BURST_TAIL times A's, with a p50 at most
 * VS_BURST_MEDIAN times A's (sampling noise moves a median a little)
 */
bool vs_event_diff_burstier(const struct vs_event_diff *d);

#endif /* VS_CORE_DIFF_H */
