/* SPDX-License-Identifier: MIT */
/*
 * ranking.h - rank the events of one task type by their impact on its
 * tail latency: the steps of core/analysis/impact.h put together over a task
 * set (VarMRI section 5 plus confidence intervals and recording length).
 *
 * report prints a ranking; diff compares two rankings; tui browses one.
 */
#ifndef VS_CORE_RANKING_H
#define VS_CORE_RANKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis/impact.h"
#include "core/analysis/taskset.h"

#define VS_CDF_POINTS		1001	/* CDF kept per event: p = 0, .001 .. 1 */
#define VS_CORR_NOTE		0.5	/* correlations shown from here on */
/*
 * Rule 1's correlations and the notes come from pairs of ranked events:
 * of a type with more than this many, the pairs of the highest impacts
 * alone (the others keep their impact), so that memory and time stay
 * bounded whatever number of events a trace gives one type.
 */
#define VS_RANK_PAIRS_MAX	1024

struct vs_rank_opts {
	double ptarget;		/* pTarget, e.g. 0.99 */
	double pthreshold;	/* fixed pThreshold, or < 0 to find it */
	size_t min_tasks;	/* fewer tasks with the event: not ranked */
	size_t min_high;	/* fewer high-value tasks: not trusted (5.3) */
	unsigned int ci_rounds;	/* bootstrap rounds, 0 for no interval */
	double ci_level;	/* e.g. 0.95 */
	uint64_t seed;		/* bootstrap seed */
	unsigned int threads;	/* events ranked in parallel (<= 1: one) */
	bool latency_cdf;	/* fill vs_type_rank.latency_cdf (plots) */
};

#define VS_RANK_THREADS_MAX	16

/* The defaults of varscope report. */
#define VS_RANK_OPTS_INIT {			\
	.ptarget = 0.99,			\
	.pthreshold = -1,			\
	.min_tasks = 100,			\
	.min_high = 30,				\
	.ci_rounds = 0,				\
	.ci_level = 0.95,			\
	.seed = 1,				\
	.threads = 1,				\
}

enum vs_rank_status {
	VS_RANK_RANKED,		/* in the ranking */
	VS_RANK_REMOVED,	/* Rule 2: proportional to its parent */
	VS_RANK_TOO_FEW,	/* fewer than min_tasks tasks recorded it */
};

struct vs_event_rank {
	uint16_t event;			/* catalog id */
	const char *name;		/* points into the task set's catalog */
	uint8_t group;
	enum vs_rank_status status;

	size_t tasks;			/* |T_E|: tasks that recorded E */
	size_t high_tasks;		/* |T_hE|: of them, E above threshold */
	size_t slow_tasks;		/* of T_E, at or above p(T_E) */
	struct vs_threshold thr;
	uint64_t p_all;			/* p(T_E), ns */
	uint64_t p_low;			/* p(T_E \ T_hE), ns */
	double impact;			/* (p_all - p_low) / p_all */
	double adjusted;		/* after Rule 1 and the time bounds */
	bool time_bound;		/* adjusted down to E's share of the
					   slow tasks' latency: (slow_mean -
					   other_p50) / slow_latency_mean,
					   for events in ns */
	int time_twin;			/* a count adjusted down to the
					   adjusted impact of its time (id;
					   irq.X.time for irq.X.count), or -1 */
	bool has_ci;
	double ci_lo, ci_hi;		/* bootstrap interval of the impact */
	float slow_p50, slow_p99;	/* E in the slow tasks */
	double slow_mean;		/*   and its mean there */
	double slow_latency_mean;	/* the slow tasks' mean latency, ns */
	float other_p50, other_p99;	/* E in the other tasks of T_E */

	int cause;			/* Rule 1: event id deducted, or -1 */
	double cause_corr;		/*   its correlation */
	int parent;			/* Rule 2: parent that removed it, or -1 */
	double parent_r2;		/*   R² of parent = alpha * E */
	double parent_alpha;
	size_t parent_tasks;		/*   tasks with both */
	unsigned int pairs_too_few;	/* Rule 1 or 2 pairs with E recorded
					   together by fewer than min_tasks
					   tasks: the rule was not applied */
	int corr_with;			/* most correlated event no rule covers */
	double corr;			/*   (shown when >= VS_CORR_NOTE), or -1 */
	size_t corr_tasks;		/*   tasks that recorded both */
	uint64_t tasks_needed;		/* 5.3: more tasks to trust it, 0 if ok,
					   UINT64_MAX if no estimate */
	float *cdf;			/* VS_CDF_POINTS values of E, or NULL */
};

struct vs_type_rank {
	uint32_t type;
	size_t tasks;			/* tasks of the type */
	size_t flagged;			/* of them with lost/distorted data */
	double ptarget;
	uint64_t latency_ptarget;	/* ns, over all tasks of the type */
	uint64_t latency_p50;
	float *latency_cdf;		/* VS_CDF_POINTS latencies, with
					   opts->latency_cdf; else NULL */
	size_t nr_events;
	size_t nr_ranked;		/* events[0 .. nr_ranked-1] are ranked */
	struct vs_event_rank *events;	/* ranked by adjusted impact, then
					   removed, then too few */
};

/**
 * vs_rank_type - rank the events of one task type
 * @ts: the task set (its catalog names the events)
 * @tt: the task type, one of @ts's
 * @opts: pTarget and the rest
 * @out: receives the ranking; free with vs_type_rank_free()
 *
 * O(N log N) in the tasks of the type (in fact O(N) per event: radix
 * sorts and walks of the latency tail).  Returns 0, or -1 when memory
 * runs out.
 */
int vs_rank_type(const struct vs_taskset *ts, const struct vs_task_type *tt,
		 const struct vs_rank_opts *opts, struct vs_type_rank *out);

void vs_type_rank_free(struct vs_type_rank *tr);

/**
 * vs_type_rank_keep_ranked - drop what a ranking holds beyond its ranked
 * events' figures: the events not ranked (removed, too few tasks) and the
 * CDFs
 * @tr: a ranking from vs_type_rank()
 *
 * For a caller that keeps the rankings of many task types: a type of a
 * few tasks keeps none of its ~250 bytes per event.
 */
void vs_type_rank_keep_ranked(struct vs_type_rank *tr);

/**
 * vs_rule2_parent - the event whose value includes @event's, or -1
 *
 * The catalog's parent (VarMRI Table 2), else for INST events the total
 * instructions and for CYCLE events the total cycles, when recorded.
 */
int vs_rule2_parent(const struct vs_taskset *ts, uint16_t event);

/**
 * vs_event_rank_find - the entry of event @event in @tr, or NULL
 */
const struct vs_event_rank *vs_event_rank_find(const struct vs_type_rank *tr,
					       int event);

#endif /* VS_CORE_RANKING_H */
