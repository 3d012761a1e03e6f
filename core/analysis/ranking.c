// SPDX-License-Identifier: MIT
/*
 * ranking.c - impact ranking of the events of a task type.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arch.h"
#include "core/bitmap.h"
#include "core/analysis/ranking.h"
#include "core/sort.h"

/*
 * Catalog names of the totals of Rule 2's two implicit families: the
 * fixed counters as record names them, then the generic perf names.
 */
static const char *const total_instructions[] = {
	VS_HW_INSTRUCTIONS, "instructions", NULL
};
static const char *const total_cycles[] = {
	VS_HW_CYCLES, "cycles", NULL
};

static int find_first(const struct vs_taskset *ts, const char *const *names)
{
	int id;

	for (; *names; names++) {
		id = vs_taskset_event_by_name(ts, *names);
		if (id >= 0)
			return id;
	}
	return -1;
}

int vs_rule2_parent(const struct vs_taskset *ts, uint16_t event)
{
	const struct vs_event_def *def = vs_taskset_event(ts, event);
	int total = -1;

	if (!def)
		return -1;
	if (def->parent != VS_EVENT_NO_PARENT)
		return def->parent;
	if (def->group == VS_GROUP_INST)
		total = find_first(ts, total_instructions);
	else if (def->group == VS_GROUP_CYCLE)
		total = find_first(ts, total_cycles);
	return total == event ? -1 : total;
}

/* Every task of @col with the index of its value, in task order. */
#define for_each_value(col, nbits, task, k)				\
	for (size_t _w = 0, _k = 0; _w < vs_bitmap_words(nbits); _w++)	\
		for (uint64_t _bits = (col)->present[_w];		\
		     _bits && ((task) = _w * VS_BITS_PER_WORD +		\
			       __builtin_ctzll(_bits), (k) = _k++, 1);	\
		     _bits &= _bits - 1)

/* The VS_CDF_POINTS percentiles of @sorted. */
static float *sample_cdf(const float *sorted, size_t n)
{
	float *cdf = malloc(VS_CDF_POINTS * sizeof(*cdf));
	size_t i;

	if (!cdf)
		return NULL;
	for (i = 0; i < VS_CDF_POINTS; i++)
		cdf[i] = vs_percentile_sorted(sorted, n,
					      (double)i / (VS_CDF_POINTS - 1));
	return cdf;
}

/* E's p50 and p99 in the slow tasks of T_E (the top of @desc) and the rest. */
static int slow_and_other(const struct vs_task_type *tt,
			  const struct vs_column *col, const float *sorted,
			  const struct vs_rank_opts *o, struct vs_event_rank *er)
{
	size_t want = col->nr - vs_rank(col->nr, o->ptarget) + 1, got = 0, r;
	float *slow = malloc(want * sizeof(*slow));

	if (!slow)
		return -1;
	er->slow_mean = er->slow_latency_mean = 0;
	for (r = 0; r < tt->nr_tasks && got < want; r++) {
		uint32_t task = tt->by_latency[r];

		if (vs_column_value(col, task, &slow[got])) {
			er->slow_mean += slow[got++];
			er->slow_latency_mean += tt->latency[task];
		}
	}
	if (got) {
		er->slow_mean /= got;
		er->slow_latency_mean /= got;
	}
	vs_sort_floats(slow, got);
	er->slow_tasks = got;
	er->slow_p50 = vs_percentile_sorted(slow, got, 0.5);
	er->slow_p99 = vs_percentile_sorted(slow, got, 0.99);
	er->other_p50 = vs_percentile_excluding(sorted, col->nr, slow, got, 0.5);
	er->other_p99 = vs_percentile_excluding(sorted, col->nr, slow, got,
						0.99);
	free(slow);
	return 0;
}

/* Bootstrap interval: T_E's latencies ascending with their high flags. */
static int impact_interval(const struct vs_task_type *tt,
			   const struct vs_column *col, const uint64_t *high,
			   const struct vs_rank_opts *o, struct vs_event_rank *er)
{
	uint64_t *lat = malloc(col->nr * sizeof(*lat));
	bool *is_high = malloc(col->nr * sizeof(*is_high));
	size_t r, k = 0;

	if (!lat || !is_high) {
		free(lat);
		free(is_high);
		return -1;
	}
	for (r = tt->nr_tasks; r-- > 0;) {
		uint32_t task = tt->by_latency[r];

		if (!vs_bit_test(col->present, task))
			continue;
		lat[k] = tt->latency[task];
		is_high[k++] = vs_bit_test(high, task);
	}
	vs_bootstrap_impact(lat, is_high, k, o->ptarget, o->ci_rounds,
			    o->seed ^ col->event, o->ci_level,
			    &er->ci_lo, &er->ci_hi);
	er->has_ci = true;
	free(lat);
	free(is_high);
	return 0;
}

/*
 * Impact of one event: threshold from its sorted values, the high-value
 * bitmap @high, the two tail latencies, and the figures around them.
 */
static int rank_event(const struct vs_task_type *tt,
		      const struct vs_column *col,
		      const struct vs_rank_opts *o, struct vs_event_rank *er,
		      uint64_t *high)
{
	float *sorted;
	size_t task = 0, k = 0;
	int ret = -1;

	er->tasks = col->nr;
	if (col->nr < o->min_tasks || !col->nr) {
		er->status = VS_RANK_TOO_FEW;
		return 0;
	}
	sorted = malloc(col->nr * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, col->values, col->nr * sizeof(*sorted));
	if (vs_sort_floats(sorted, col->nr))
		goto out;
	vs_find_threshold(sorted, col->nr, o->ptarget, o->pthreshold,
			  &er->thr);
	er->cdf = sample_cdf(sorted, col->nr);
	if (!er->cdf)
		goto out;

	for_each_value(col, tt->nr_tasks, task, k)
		if (col->values[k] > er->thr.value) {
			vs_bit_set(high, task);
			er->high_tasks++;
		}
	er->p_all = vs_masked_percentile(tt->latency, tt->by_latency,
					 tt->nr_tasks, col->present, NULL,
					 col->nr, o->ptarget);
	er->p_low = vs_masked_percentile(tt->latency, tt->by_latency,
					 tt->nr_tasks, col->present, high,
					 col->nr - er->high_tasks, o->ptarget);
	er->impact = vs_impact_value(er->p_all, er->p_low);
	er->adjusted = er->impact;
	er->tasks_needed = vs_tasks_needed(tt->nr_tasks, er->high_tasks,
					   o->min_high);
	if (er->thr.how == VS_THRESHOLD_CONSTANT)
		er->tasks_needed = 0;	/* nothing to find, however long */
	if (slow_and_other(tt, col, sorted, o, er))
		goto out;
	if (o->ci_rounds && impact_interval(tt, col, high, o, er))
		goto out;
	ret = 0;
out:
	free(sorted);
	return ret;
}

/* Rule 2 regression parent = alpha * child over tasks with both. */
static double rule2_r2(const struct vs_task_type *tt,
		       const struct vs_column *child,
		       const struct vs_column *parent, double *alpha,
		       size_t *pairs)
{
	struct vs_prop s = { 0 };
	size_t task = 0, k = 0;
	float pv;

	for_each_value(child, tt->nr_tasks, task, k)
		if (vs_column_value(parent, task, &pv))
			vs_prop_add(&s, child->values[k], pv);
	*pairs = s.n;
	return vs_prop_r2(&s, alpha);
}

/*
 * Beyond the paper: a time event cannot take more off the tail latency
 * than its share of the slow tasks' latency.  A task that slept 20 ms
 * instead of 2 also ran 40 us longer on cold caches: its CPU time marks
 * the same slow tasks as its blocked time, but explains 40 us of the
 * 20 ms.  Its share is what it adds to them, its mean over the slow tasks
 * above its median elsewhere, over their mean latency:
 *  - the mean, not the median: a cause behind a third of the slow tasks
 *    (a co-runner that preempts some requests) adds nothing to their
 *    median, yet takes their share of the tail off when those tasks go;
 *  - over their latency, not p(T_E): when a few tasks run 30 times
 *    longer than p(T_E), the timer interrupts inside them add more than
 *    p(T_E) while explaining a twentieth of the time.
 */
static void time_bound(const struct vs_taskset *ts, struct vs_event_rank *er)
{
	const struct vs_event_def *def = vs_taskset_event(ts, er->event);
	double bound;

	if (!def || strcmp(def->unit, "ns") || !er->slow_latency_mean)
		return;
	bound = (er->slow_mean - er->other_p50) / er->slow_latency_mean;
	if (bound < 0)
		bound = 0;
	if (bound < er->adjusted) {
		er->adjusted = bound;
		er->time_bound = true;
	}
}

/*
 * Beyond the paper: a count with a time of its own (irq.vector.count and
 * irq.vector.time, sched.runnable.count and .time) makes tasks slow
 * through that time, so it explains no more of the tail than its time
 * does.  A long request takes many timer ticks: their count marks the
 * slow tasks as well as their CPU time does, their time shows they
 * explain a few percent of it.  A time recorded as 0 in every task was
 * not measured (fault.page.time without kprobes) and bounds nothing.
 */
static void count_bound(const struct vs_taskset *ts,
			const struct vs_task_type *tt, struct vs_type_rank *tr)
{
	const struct vs_column *col;
	size_t i, len;
	char name[256];
	int twin;

	for (i = 0; i < tr->nr_events; i++) {
		struct vs_event_rank *a = &tr->events[i];

		len = strlen(a->name);
		if (a->status != VS_RANK_RANKED || len < 6 ||
		    strcmp(a->name + len - 6, ".count") ||
		    len + 1 > sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s.time", (int)(len - 6),
			 a->name);
		twin = vs_taskset_event_by_name(ts, name);
		col = twin >= 0 ? vs_column_find(tt, twin) : NULL;
		if (col) {
			const struct vs_event_rank *b =
				&tr->events[col - tt->columns];

			/* cdf[last]: its largest value */
			if (b->status == VS_RANK_TOO_FEW || !b->cdf ||
			    !b->cdf[VS_CDF_POINTS - 1])
				continue;
			if (b->adjusted < a->adjusted) {
				a->adjusted = b->adjusted;
				a->time_twin = twin;
			}
		}
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct vs_event_rank *x = a, *y = b;

	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	if (x->adjusted != y->adjusted)
		return x->adjusted > y->adjusted ? -1 : 1;
	if (x->time_twin >= 0 && x->time_twin == y->event)
		return 1;		/* a time before the count it bounds */
	if (y->time_twin >= 0 && y->time_twin == x->event)
		return -1;
	if (x->impact != y->impact)
		return x->impact > y->impact ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Higher impact first, then column order (the events of a type). */
static int cmp_impact(const void *a, const void *b, void *arg)
{
	const struct vs_event_rank *ev = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (ev[x].impact != ev[y].impact)
		return ev[x].impact > ev[y].impact ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * The events of @tr whose pairs Rule 1 and the notes look at, into @idx
 * (their indices, which are also their columns'): the ranked ones, the
 * VS_RANK_PAIRS_MAX of highest impact when there are more.  Returns how
 * many; the ranked events left out keep their impact.
 */
static size_t paired_events(const struct vs_taskset *ts,
			    struct vs_type_rank *tr, size_t *idx)
{
	size_t i, n = 0;

	for (i = 0; i < tr->nr_events; i++)
		if (tr->events[i].status == VS_RANK_RANKED)
			idx[n++] = i;
	if (n <= VS_RANK_PAIRS_MAX)
		return n;
	vs_qsort_r(idx, n, sizeof(*idx), cmp_impact, tr->events);
	for (i = VS_RANK_PAIRS_MAX; i < n; i++) {
		tr->events[idx[i]].adjusted = tr->events[idx[i]].impact;
		time_bound(ts, &tr->events[idx[i]]);
	}
	return VS_RANK_PAIRS_MAX;
}

/*
 * Correlations, Rule 1, Rule 2 and the notes over the ranked events: the
 * pairs of the paired_events() alone, Rule 2's parent found by its id.
 */
static int apply_rules(const struct vs_taskset *ts,
		       const struct vs_task_type *tt, struct vs_type_rank *tr,
		       uint64_t **high, size_t min_tasks)
{
	size_t *idx = malloc((tr->nr_events + 1) * sizeof(*idx));
	size_t n = idx ? paired_events(ts, tr, idx) : 0, i, j;
	double *corr = calloc(n * n + 1, sizeof(*corr));
	double *impact = calloc(n + 1, sizeof(*impact));
	double *adjusted = calloc(n + 1, sizeof(*adjusted));
	size_t *both = calloc(n * n + 1, sizeof(*both));
	uint8_t *group = calloc(n + 1, sizeof(*group));
	int *cause = calloc(n + 1, sizeof(*cause)), ret = -1;
	int *parent = calloc(n + 1, sizeof(*parent));

	if (!idx || !corr || !impact || !adjusted || !both || !group ||
	    !cause || !parent)
		goto out;
	for (i = 0; i < n; i++) {
		struct vs_event_rank *a = &tr->events[idx[i]];

		impact[i] = a->impact;
		group[i] = a->group;
		parent[i] = vs_rule2_parent(ts, a->event);
		for (j = i + 1; j < n; j++) {
			struct vs_event_rank *b = &tr->events[idx[j]];

			corr[i * n + j] = corr[j * n + i] = vs_jaccard(
				tt->columns[idx[i]].present, high[idx[i]],
				tt->columns[idx[j]].present, high[idx[j]],
				tt->nr_tasks, &both[i * n + j]);
			both[j * n + i] = both[i * n + j];
			/* 5.3: a pair recorded together too rarely says nothing */
			if (both[i * n + j] >= min_tasks)
				continue;
			corr[i * n + j] = corr[j * n + i] = 0;
			if (vs_rule1_may_cause(a->group, b->group) ||
			    vs_rule1_may_cause(b->group, a->group)) {
				a->pairs_too_few++;
				b->pairs_too_few++;
			}
		}
	}
	vs_rule1_adjust(n, impact, group, corr, adjusted, cause);

	for (i = 0; i < n; i++) {
		struct vs_event_rank *a = &tr->events[idx[i]];
		const struct vs_column *pcol;

		a->adjusted = adjusted[i];
		time_bound(ts, a);
		if (cause[i] >= 0) {
			a->cause = tr->events[idx[cause[i]]].event;
			a->cause_corr = corr[cause[i] * n + i];
		}
		for (j = 0; j < n; j++) {
			struct vs_event_rank *b = &tr->events[idx[j]];
			bool related = vs_rule1_may_cause(group[i], group[j]) ||
				       vs_rule1_may_cause(group[j], group[i]) ||
				       b->event == parent[i] ||
				       parent[j] == a->event;

			if (j == i || b->status != VS_RANK_RANKED || related)
				continue;
			if (corr[i * n + j] >= VS_CORR_NOTE &&
			    corr[i * n + j] > a->corr) {
				a->corr = corr[i * n + j];
				a->corr_with = b->event;
				a->corr_tasks = both[i * n + j];
			}
		}
		pcol = parent[i] >= 0 ? vs_column_find(tt, parent[i]) : NULL;
		if (!pcol ||
		    tr->events[pcol - tt->columns].status == VS_RANK_TOO_FEW)
			continue;
		a->parent_r2 = rule2_r2(tt, &tt->columns[idx[i]], pcol,
					&a->parent_alpha, &a->parent_tasks);
		if (a->parent_tasks < min_tasks)
			a->pairs_too_few++;
		else if (a->parent_r2 > VS_RULE2_R2) {
			a->status = VS_RANK_REMOVED;
			a->parent = parent[i];
		}
	}
	count_bound(ts, tt, tr);
	ret = 0;
out:
	free(idx);
	free(parent);
	free(corr);
	free(impact);
	free(adjusted);
	free(both);
	free(group);
	free(cause);
	return ret;
}

/* The per-event work, shared by the threads of vs_rank_type(). */
struct rank_work {
	const struct vs_task_type *tt;
	const struct vs_rank_opts *opts;
	struct vs_type_rank *tr;
	uint64_t **high;
	unsigned int next;		/* next column to take */
	bool failed;
};

static void *rank_events(void *arg)
{
	struct rank_work *w = arg;
	size_t words = vs_bitmap_words(w->tt->nr_tasks);
	unsigned int i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) <
	       w->tt->nr_columns) {
		w->high[i] = calloc(words ? words : 1, sizeof(**w->high));
		if (!w->high[i] || rank_event(w->tt, &w->tt->columns[i],
					      w->opts, &w->tr->events[i],
					      w->high[i]))
			__atomic_store_n(&w->failed, true, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The VS_CDF_POINTS latencies of @tt's CDF: 4 KB, for plots only. */
static int latency_cdf(const struct vs_task_type *tt, struct vs_type_rank *tr)
{
	size_t i;

	tr->latency_cdf = calloc(VS_CDF_POINTS, sizeof(*tr->latency_cdf));
	if (!tr->latency_cdf)
		return -1;
	for (i = 0; i < VS_CDF_POINTS && tt->nr_tasks; i++) {
		double p = (double)i / (VS_CDF_POINTS - 1);
		size_t k = vs_rank(tt->nr_tasks, p);

		tr->latency_cdf[i] = tt->latency[tt->by_latency[tt->nr_tasks - k]];
	}
	return 0;
}

int vs_rank_type(const struct vs_taskset *ts, const struct vs_task_type *tt,
		 const struct vs_rank_opts *o, struct vs_type_rank *tr)
{
	unsigned int nr_threads = o->threads > 1 ? o->threads : 1, t;
	struct rank_work work = { .tt = tt, .opts = o, .tr = tr };
	pthread_t threads[VS_RANK_THREADS_MAX];
	size_t i, ranked;
	int ret = -1;

	memset(tr, 0, sizeof(*tr));
	tr->type = tt->type;
	tr->tasks = tt->nr_tasks;
	tr->flagged = tt->nr_flagged;
	tr->ptarget = o->ptarget;
	tr->latency_ptarget = vs_masked_percentile(tt->latency, tt->by_latency,
						   tt->nr_tasks, NULL, NULL,
						   tt->nr_tasks, o->ptarget);
	if (o->latency_cdf && latency_cdf(tt, tr))
		return -1;
	tr->latency_p50 = tt->nr_tasks ? tt->latency[tt->by_latency[
		tt->nr_tasks - vs_rank(tt->nr_tasks, 0.5)]] : 0;

	/* events[i] belongs to columns[i] until the final sort */
	tr->nr_events = tt->nr_columns;
	tr->events = calloc(tt->nr_columns + 1, sizeof(*tr->events));
	work.high = calloc(tt->nr_columns + 1, sizeof(*work.high));
	work.tr = tr;
	if (!tr->events || !work.high)
		goto out;
	for (i = 0; i < tt->nr_columns; i++) {
		const struct vs_event_def *def =
			vs_taskset_event(ts, tt->columns[i].event);
		struct vs_event_rank *er = &tr->events[i];

		er->event = tt->columns[i].event;
		er->name = def ? def->name : "?";
		er->group = def ? def->group : VS_GROUP_OTHER;
		er->cause = er->parent = er->corr_with = er->time_twin = -1;
		er->corr = -1;
	}
	/* a thread for each event to rank at most: most of a trace's many
	   small types have none */
	for (i = 0, ranked = 0; i < tt->nr_columns; i++)
		ranked += tt->columns[i].nr && tt->columns[i].nr >= o->min_tasks;
	if (nr_threads > ranked)
		nr_threads = ranked;
	if (nr_threads > VS_RANK_THREADS_MAX)
		nr_threads = VS_RANK_THREADS_MAX;
	for (t = 1; t < nr_threads; t++)
		if (pthread_create(&threads[t], NULL, rank_events, &work))
			break;
	rank_events(&work);
	while (--t > 0)
		pthread_join(threads[t], NULL);
	if (work.failed || apply_rules(ts, tt, tr, work.high, o->min_tasks))
		goto out;
	qsort(tr->events, tr->nr_events, sizeof(*tr->events), cmp_rank);
	while (tr->nr_ranked < tr->nr_events &&
	       tr->events[tr->nr_ranked].status == VS_RANK_RANKED)
		tr->nr_ranked++;
	ret = 0;
out:
	for (i = 0; work.high && i < tt->nr_columns; i++)
		free(work.high[i]);
	free(work.high);
	if (ret)
		vs_type_rank_free(tr);
	return ret;
}

void vs_type_rank_free(struct vs_type_rank *tr)
{
	size_t i;

	for (i = 0; tr->events && i < tr->nr_events; i++)
		free(tr->events[i].cdf);
	free(tr->events);
	tr->events = NULL;
	free(tr->latency_cdf);
	tr->latency_cdf = NULL;
	tr->nr_events = tr->nr_ranked = 0;
}

void vs_type_rank_keep_ranked(struct vs_type_rank *tr)
{
	void *p;
	size_t i;

	for (i = 0; i < tr->nr_events; i++) {
		free(tr->events[i].cdf);
		tr->events[i].cdf = NULL;
	}
	free(tr->latency_cdf);
	tr->latency_cdf = NULL;
	tr->nr_events = tr->nr_ranked;
	if (!tr->nr_ranked) {
		free(tr->events);
		tr->events = NULL;
	} else if ((p = realloc(tr->events, tr->nr_ranked *
				sizeof(*tr->events)))) {
		tr->events = p;
	}
}

const struct vs_event_rank *vs_event_rank_find(const struct vs_type_rank *tr,
					       int event)
{
	size_t i;

	for (i = 0; i < tr->nr_events; i++)
		if (tr->events[i].event == event)
			return &tr->events[i];
	return NULL;
}
