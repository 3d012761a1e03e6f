/* SPDX-License-Identifier: MIT */
/*
 * impact.h - the steps of VarMRI's offline analysis (section 5), each one
 * function over plain arrays so that it can be tested on hand-computed data:
 *
 *   percentiles             vs_rank(), vs_percentile_sorted(),
 *                           vs_percentile_excluding(), vs_masked_percentile()
 *   impact value            vs_impact_value()
 *   pThreshold              vs_fit_*(), vs_cdf_breaks(), vs_find_threshold()
 *   correlation             vs_jaccard()
 *   Rule 1                  vs_rule1_may_cause(), vs_rule1_adjust()
 *   Rule 2                  vs_prop_add(), vs_prop_r2()
 *   confidence interval     vs_bootstrap_impact()
 *   recording length (5.3)  vs_tasks_needed()
 *
 * core/analysis/ranking.h puts them together over a task set.
 *
 * Percentiles are nearest-rank: the p-percentile of n values is the k-th
 * smallest with k = ceil(p * n), so every figure is a value that occurred.
 * The impact uses the tail latency, not the variance of Definition 1:
 * impact(E) = (p(T_E) - p(T_E \ T_hE)) / p(T_E), p the latency at pTarget.
 */
#ifndef VS_CORE_IMPACT_H
#define VS_CORE_IMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VS_CDF_RANGES		1000	/* N of section 5.1 */
#define VS_CDF_MIN_POINTS	4	/* fewest values in one range */
#define VS_CDF_MERGE_R2		0.95	/* both ranges must fit the merged line */
#define VS_CDF_TOLERANCE	0.005	/* ... or lie this close to it (share of
					   the value span, root mean square) */
#define VS_PTHRESHOLD_MIN	0.5	/* high values are above the median */
#define VS_RULE2_R2		0.99	/* child proportional to parent */

/* --- percentiles --- */

/**
 * vs_rank - the 1-based nearest rank of percentile @p among @n values
 *
 * ceil(p * n) clamped to [1, n]; 0 when @n is 0.
 */
size_t vs_rank(size_t n, double p);

/**
 * vs_percentile_sorted - the @p-percentile of @n ascending values
 */
float vs_percentile_sorted(const float *sorted, size_t n, double p);

/**
 * vs_percentile_excluding - the @p-percentile of @all without @sub
 * @all: @n values, ascending
 * @sub: @m values, ascending, a sub-multiset of @all
 *
 * O(log n log m), without building the difference.  Returns 0 when
 * nothing is left (@m == @n).
 */
float vs_percentile_excluding(const float *all, size_t n,
			      const float *sub, size_t m, double p);

/**
 * vs_masked_percentile - latency percentile of a subset of tasks
 * @lat: latency of each task, by task index
 * @desc: the @n task indices, largest latency first (vs_order_desc())
 * @in: bitmap of the tasks in the subset, or NULL for all
 * @out: bitmap of tasks to leave out of it, or NULL
 * @n_sel: number of tasks in @in and not in @out
 * @p: the percentile
 *
 * Walks from the slowest task down, so it costs the size of the tail
 * above the percentile, not of the whole set.  Returns 0 if @n_sel is 0.
 */
uint64_t vs_masked_percentile(const uint64_t *lat, const uint32_t *desc,
			      size_t n, const uint64_t *in, const uint64_t *out,
			      size_t n_sel, double p);

/* --- impact value --- */

/**
 * vs_impact_value - (p_all - p_low) / p_all; 0 when @p_all is 0
 * @p_all: latency at pTarget of the tasks that recorded E, p(T_E)
 * @p_low: the same without the tasks of high E, p(T_E \ T_hE)
 */
double vs_impact_value(uint64_t p_all, uint64_t p_low);

/* --- pThreshold: piecewise-linear fit of the CDF (section 5.1) --- */

/*
 * Least-squares statistics of the points (t, v) of a part of the CDF,
 * t the percentile and v the value, kept centred (means and co-moments)
 * so that two parts merge in O(1) without cancellation.
 */
struct vs_fit {
	double n;
	double mt, mv;		/* means */
	double ctt, ctv, cvv;	/* sums of centred products */
	bool flat;		/* all values equal */
};

/**
 * vs_fit_points - statistics of points @from..@to-1 of @n sorted values
 * @sorted: the values, ascending; point i is ((i + 0.5) / n, value)
 * @vmin/@vscale: values are fitted as (value - vmin) / vscale
 */
void vs_fit_points(const float *sorted, size_t n, size_t from, size_t to,
		   double vmin, double vscale, struct vs_fit *fit);

/**
 * vs_fit_merge - statistics of the union of two parts, in O(1)
 */
void vs_fit_merge(const struct vs_fit *a, const struct vs_fit *b,
		  struct vs_fit *out);

/**
 * vs_fit_line - least-squares line v = @a + @b * t of a part
 */
void vs_fit_line(const struct vs_fit *fit, double *a, double *b);

/**
 * vs_fit_ssres - sum of squared residuals of @fit's points under a + b * t
 */
double vs_fit_ssres(const struct vs_fit *fit, double a, double b);

/**
 * vs_fit_r2 - R² of the points of @fit under the line v = a + b * t
 *
 * A flat part (all values equal) has no variance to explain: it scores 1
 * when the line is flat through it (@line_flat) and 0 otherwise.
 */
double vs_fit_r2(const struct vs_fit *fit, double a, double b, bool line_flat);

/**
 * vs_cdf_breaks - connection points of the lines that fit a CDF
 * @sorted: @n values, ascending
 * @nr_ranges: N, the number of ranges the CDF is first cut into (fewer
 *             when there are fewer than VS_CDF_MIN_POINTS values a range)
 * @breaks: receives the connection points as value indices, ascending: a
 *          break at i means values 0..i-1 lie under one line, i.. under
 *          the next
 * @max: room in @breaks
 *
 * Adjacent ranges are merged left to right while both fit the merged
 * line: R² > VS_CDF_MERGE_R2 as in VarMRI, or, beyond the paper, a root
 * mean square residual within VS_CDF_TOLERANCE of the value span.  R² is
 * blind to scale: without the tolerance, the noise inside a narrow
 * cluster of values (the tasks that all waited ~1 ms) splits it into
 * lines whose connection points, closer to pTarget than the real step,
 * would win.  A connection point then moves to the largest gap between
 * consecutive values within one range of it: a step inside a range makes
 * the lines meet at both its edges, and the step is the point.  Returns
 * the number of breaks (at most @max).
 */
size_t vs_cdf_breaks(const float *sorted, size_t n, unsigned int nr_ranges,
		     size_t *breaks, size_t max);

enum vs_threshold_how {
	VS_THRESHOLD_STEP,	/* a connection point of the fitted CDF */
	VS_THRESHOLD_GIVEN,	/* --pthreshold */
	VS_THRESHOLD_NO_STEP,	/* no connection point below pTarget: pTarget */
	VS_THRESHOLD_CONSTANT,	/* all values equal: no value is high */
	VS_THRESHOLD_TOO_FEW,	/* too few values to fit lines: pTarget */
};

struct vs_threshold {
	enum vs_threshold_how how;
	double pthreshold;	/* the percentile chosen */
	float value;		/* values above it are "high" */
	unsigned int nr_lines;	/* lines of the fit (0 when not fitted) */
};

/**
 * vs_find_threshold - pThreshold and the high-value threshold of an event
 * @sorted: @n values, ascending
 * @ptarget: pTarget; the chosen connection point is the one below it and
 *           closest to it, and at least VS_PTHRESHOLD_MIN: a step below
 *           the median is no reason why the tail differs from the median
 * @given: --pthreshold, or a negative number to find it
 */
void vs_find_threshold(const float *sorted, size_t n, double ptarget,
		       double given, struct vs_threshold *thr);

const char *vs_threshold_how_name(enum vs_threshold_how how);

/* --- correlation and the two rules (section 5.2) --- */

/**
 * vs_jaccard - Jaccard index of the high-value sets of two events
 * @pa/@ha: tasks that recorded event a / have a high value of it
 * @pb/@hb: the same for event b
 * @nbits: number of tasks the bitmaps cover
 * @nr_both: receives the number of tasks that recorded both (may be NULL)
 *
 * Over the tasks that recorded both: |Ha ∩ Hb| / |Ha ∪ Hb|, 0 when the
 * union is empty.
 */
double vs_jaccard(const uint64_t *pa, const uint64_t *ha,
		  const uint64_t *pb, const uint64_t *hb, size_t nbits,
		  size_t *nr_both);

/**
 * vs_rule1_may_cause - does group @g1 come before @g2 in INST > CACHE > CYCLE?
 *
 * Other groups (kernel, software, functions...) take part in no rule.
 */
bool vs_rule1_may_cause(uint8_t g1, uint8_t g2);

/**
 * vs_rule1_adjust - adjusted impacts by Rule 1
 * @n: number of events
 * @impact/@group: each event's impact value and group
 * @corr: n x n correlations, corr[i * n + j] = Corr(E_i, E_j)
 * @adjusted: receives impact(E_j) - max over causes E_i of
 *            impact(E_i) * Corr(E_i, E_j) (only positive deductions)
 * @cause: receives the i of the deduction, or -1 (may be NULL)
 */
void vs_rule1_adjust(size_t n, const double *impact, const uint8_t *group,
		     const double *corr, double *adjusted, int *cause);

/* Sums for the regression parent = alpha * child of Rule 2. */
struct vs_prop {
	double n, xx, xy, y, yy;	/* x the child, y the parent */
};

static inline void vs_prop_add(struct vs_prop *s, double child, double parent)
{
	s->n += 1;
	s->xx += child * child;
	s->xy += child * parent;
	s->y += parent;
	s->yy += parent * parent;
}

/**
 * vs_prop_r2 - R² of parent = alpha * child through the origin
 * @alpha: receives alpha (may be NULL)
 *
 * R² = 1 - SSres / SStot with SStot the parent's variance about its mean;
 * 0 with fewer than two pairs or a constant parent not matched exactly.
 */
double vs_prop_r2(const struct vs_prop *s, double *alpha);

/* --- beyond the paper --- */

/**
 * vs_bootstrap_impact - percentile bootstrap interval of an impact value
 * @lat: latencies of the tasks of T_E, ascending
 * @high: for each of them, whether it is in T_hE
 * @n: number of tasks
 * @p: pTarget
 * @rounds: bootstrap resamples
 * @seed: random seed (same seed, same interval)
 * @level: e.g. 0.95
 * @lo/@hi: receive the interval
 *
 * The threshold stays fixed; each round resamples the tasks (Poisson
 * bootstrap: every task weighs Poisson(1)).  Weights are drawn per block
 * of sqrt(n) tasks and spread inside the one block that holds the
 * percentile, so a round costs O(sqrt(n)) and not O(n).
 */
void vs_bootstrap_impact(const uint64_t *lat, const bool *high, size_t n,
			 double p, unsigned int rounds, uint64_t seed,
			 double level, double *lo, double *hi);

/**
 * vs_tasks_needed - more tasks to record before an impact can be trusted
 * @nr_tasks: tasks of the type recorded so far
 * @nr_high: of them, tasks with a high value of the event
 * @min_high: high-value tasks needed to trust the impact
 *
 * Section 5.3: one high-value task comes every nr_tasks / nr_high tasks
 * (that rate folds pTail, pReq and pEvent together), so min_high of them
 * need min_high * nr_tasks / nr_high tasks.  Returns how many more than
 * @nr_tasks, 0 when enough, UINT64_MAX when no high-value task was seen.
 */
uint64_t vs_tasks_needed(uint64_t nr_tasks, uint64_t nr_high,
			 uint64_t min_high);

#endif /* VS_CORE_IMPACT_H */
