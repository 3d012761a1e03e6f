// SPDX-License-Identifier: MIT
/*
 * tail-hint.c - the tail past pTarget (tail-hint.h).
 */
#include <math.h>
#include <string.h>

#include "core/analysis/tail-hint.h"

#define DEEPEST_DIGITS	9	/* 0.999999999 */

/* Of the @n slowest tasks, those where @er's event is high. */
static size_t high_among_slowest(const struct vs_task_type *tt,
				 const struct vs_event_rank *er, size_t n)
{
	const struct vs_column *col = vs_column_find(tt, er->event);
	size_t i, high = 0;
	float v;

	for (i = 0; col && i < n; i++)
		if (vs_column_value(col, tt->by_latency[i], &v) &&
		    v > er->thr.value)
			high++;
	return high;
}

/*
 * The tasks slower than @at_ptarget where @er's event is high: their
 * number and median latency into @h.
 */
static void describe_tail(const struct vs_task_type *tt,
			  const struct vs_event_rank *er, uint64_t at_ptarget,
			  struct vs_tail_hint *h)
{
	const struct vs_column *col = vs_column_find(tt, er->event);
	size_t i, n = 0, k = 0;
	float v;

	for (i = 0; i < tt->nr_tasks &&
		    tt->latency[tt->by_latency[i]] > at_ptarget; i++)
		if (vs_column_value(col, tt->by_latency[i], &v) &&
		    v > er->thr.value)
			n++;
	h->tasks = n;
	h->share = (double)n / tt->nr_tasks;
	for (i = 0; k <= n / 2 && i < tt->nr_tasks; i++)	/* slowest first */
		if (vs_column_value(col, tt->by_latency[i], &v) &&
		    v > er->thr.value && k++ == n / 2)
			h->median_ns = tt->latency[tt->by_latency[i]];
	h->times_ptarget = (double)h->median_ns / (at_ptarget ? at_ptarget : 1);
}

/* A time explains a latency; a count says how often. */
static bool is_time(const struct vs_taskset *ts, uint16_t event)
{
	const struct vs_event_def *def = vs_taskset_event(ts, event);

	return def && !strcmp(def->unit, "ns");
}

/*
 * One deeper target: the hint when it shows one (@h->found), 0, or -1
 * when memory runs out.  Of the events ranked there with at least half
 * the first one's impact, high in the tasks beyond the target and hidden
 * at pTarget, the one high in the fewest tasks past pTarget names the
 * tail most precisely (a context switch comes with a sleep and with a
 * preemption alike); a time before a count, then the ranking's order.
 */
static int try_target(const struct vs_taskset *ts,
		      const struct vs_task_type *tt,
		      const struct vs_rank_opts *opts,
		      const struct vs_type_rank *tr, double ptarget,
		      struct vs_tail_hint *h)
{
	struct vs_rank_opts deep = *opts;
	size_t beyond = (size_t)llround((1 - ptarget) * tt->nr_tasks), i;
	struct vs_tail_hint best = { 0 }, c;
	const struct vs_event_rank *now;
	struct vs_type_rank dr;

	/* not far: no ranking (about the latency at @ptarget, from the sort) */
	if (beyond >= tt->nr_tasks ||
	    tt->latency[tt->by_latency[beyond]] <
	    VS_TAIL_FAR * tr->latency_ptarget)
		return 0;
	deep.ptarget = ptarget;
	deep.ci_rounds = 0;
	deep.latency_cdf = false;
	if (vs_rank_type(ts, tt, &deep, &dr))
		return -1;
	for (i = 0; dr.latency_ptarget >= VS_TAIL_FAR * tr->latency_ptarget &&
		    i < dr.nr_ranked &&
		    dr.events[i].adjusted >= dr.events[0].adjusted / 2; i++) {
		const struct vs_event_rank *er = &dr.events[i];

		c = (struct vs_tail_hint){
			.found = true, .ptarget = ptarget, .event = er->event,
			.name = er->name, .beyond = beyond,
			.high = high_among_slowest(tt, er, beyond),
			.impact = er->adjusted,
		};
		now = vs_event_rank_find(tr, er->event);
		c.impact_now = now && now->status == VS_RANK_RANKED ?
			       now->adjusted : 0;
		if (c.high < ceil(VS_TAIL_HIGH_SHARE * beyond) ||
		    c.impact <= c.impact_now)
			continue;
		describe_tail(tt, er, tr->latency_ptarget, &c);
		if (!best.found || c.tasks < best.tasks ||
		    (c.tasks == best.tasks && is_time(ts, c.event) &&
		     !is_time(ts, best.event)))
			best = c;
	}
	if (best.found)
		*h = best;
	vs_type_rank_free(&dr);
	return 0;
}

int vs_tail_hint(const struct vs_taskset *ts, const struct vs_task_type *tt,
		 const struct vs_rank_opts *opts, const struct vs_type_rank *tr,
		 struct vs_tail_hint *out)
{
	double beyond = 0.1;
	int k;

	*out = (struct vs_tail_hint){ 0 };
	for (k = 1; k <= DEEPEST_DIGITS && !out->found; k++, beyond /= 10) {
		if (1 - beyond <= opts->ptarget + 1e-12)
			continue;
		if (beyond * tt->nr_tasks < VS_TAIL_MIN_TASKS)
			break;
		if (try_target(ts, tt, opts, tr, 1 - beyond, out))
			return -1;
	}
	return 0;
}
