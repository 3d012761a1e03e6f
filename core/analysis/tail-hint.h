/* SPDX-License-Identifier: MIT */
/*
 * tail-hint.h - the tail past pTarget: does a deeper target show a cause
 * the ranking at pTarget hides?
 *
 * The impact of an event is measured on the latency at pTarget (VarMRI
 * 5.1).  When a few tasks beyond it are far slower than the rest, the
 * p99 lies in front of them and barely moves without them: a cause
 * behind 0.3% of the requests shows 6% impact at p99.  The rule, from
 * the type's own latencies and values:
 *
 *  1. The deeper targets are 0.9, 0.99, 0.999 ... past pTarget, as long
 *     as at least VS_TAIL_MIN_TASKS tasks lie beyond them (a lone
 *     outlier is not a tail); the first that passes 2 and 3 is the
 *     hint's.
 *  2. The tail is far: the latency at the deeper target is VS_TAIL_FAR
 *     times the latency at pTarget or more (a tail that thins out
 *     smoothly is not).
 *  3. The events ranked again at the deeper target, those with at
 *     least half the first one's impact: an event is a candidate when
 *     it is high (above its threshold there) in at least
 *     VS_TAIL_HIGH_SHARE of the tasks beyond the target and its impact
 *     is larger there than at pTarget (the ranking at pTarget hid it).
 *  4. Of the candidates, the hint names the one high in the fewest
 *     tasks past pTarget, the most precise description of the tail (a
 *     context switch comes with a sleep and a preemption alike); a time
 *     before a count, then the ranking's order.
 *
 * The hint describes the tasks slower than the latency at pTarget where
 * that event is high: how many, their median latency.
 */
#ifndef VS_CORE_TAIL_HINT_H
#define VS_CORE_TAIL_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis/ranking.h"
#include "core/analysis/taskset.h"

#define VS_TAIL_MIN_TASKS	5	/* a lone outlier is not a tail */
#define VS_TAIL_FAR		4	/* deeper latency / latency at pTarget */
#define VS_TAIL_HIGH_SHARE	0.9	/* "high in all of them" */

struct vs_tail_hint {
	bool found;
	size_t tasks;			/* past pTarget with the event high */
	double share;			/* of the type's tasks */
	uint64_t median_ns;		/* their median latency */
	double times_ptarget;		/* median_ns / latency at pTarget */
	double ptarget;			/* the deeper target */
	uint16_t event;			/* its first ranked event */
	const char *name;		/*   (the task set's catalog) */
	size_t beyond;			/* tasks beyond the deeper target */
	size_t high;			/*   of them, with the event high */
	double impact;			/* its adjusted impact there */
	double impact_now;		/*   and at pTarget (0: not ranked) */
};

/**
 * vs_tail_hint - apply the rule above to task type @tt of @ts
 * @opts: the options @tr was ranked with
 * @tr: the type's ranking at opts->ptarget
 * @out: filled; @out->found says whether there is a hint
 *
 * Returns 0, or -1 when memory runs out.
 */
int vs_tail_hint(const struct vs_taskset *ts, const struct vs_task_type *tt,
		 const struct vs_rank_opts *opts, const struct vs_type_rank *tr,
		 struct vs_tail_hint *out);

#endif /* VS_CORE_TAIL_HINT_H */
