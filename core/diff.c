// SPDX-License-Identifier: MIT
/*
 * diff.c - compare a task type's impact rankings in two segments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "impact.h"
#include "sort.h"

int vs_event_percentiles(const struct vs_task_type *tt, int event,
			 float *p50, float *p99)
{
	const struct vs_column *col = event < 0 ? NULL :
				      vs_column_find(tt, event);
	float *v;

	*p50 = *p99 = 0;
	if (!col || !col->nr)
		return 1;
	v = malloc(col->nr * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, col->values, col->nr * sizeof(*v));
	if (vs_sort_floats(v, col->nr)) {
		free(v);
		return -1;
	}
	*p50 = vs_percentile_sorted(v, col->nr, 0.5);
	*p99 = vs_percentile_sorted(v, col->nr, 0.99);
	free(v);
	return 0;
}

/* The row of @name in @rows[0..n-1], or NULL. */
static struct vs_event_diff *find_row(struct vs_event_diff *rows, size_t n,
				      const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/* Fill side A (@b false) or B of the rows from one segment. */
static int add_side(struct vs_event_diff *rows, size_t *n, bool b,
		    const struct vs_taskset *ts, const struct vs_task_type *tt,
		    const struct vs_type_rank *tr)
{
	size_t i;

	for (i = 0; i < tr->nr_events; i++) {
		const struct vs_event_rank *er = &tr->events[i];
		const struct vs_event_def *def = vs_taskset_event(ts, er->event);
		struct vs_event_diff *d = find_row(rows, *n, er->name);
		size_t rank = er->status == VS_RANK_RANKED ? i + 1 : 0;
		/* below 0: its high tasks are fast ones, it takes no tail */
		double impact = rank && er->adjusted > 0 ? er->adjusted : 0;
		int ret;

		if (!d) {
			d = &rows[(*n)++];
			memset(d, 0, sizeof(*d));
			d->name = er->name;
			d->unit = def ? def->unit : "";
		}
		if (b) {
			d->rank_b = rank;
			d->impact_b = impact;
			ret = vs_event_percentiles(tt, er->event, &d->p50_b,
						   &d->p99_b);
			d->has_b = !ret;
		} else {
			d->rank_a = rank;
			d->impact_a = impact;
			ret = vs_event_percentiles(tt, er->event, &d->p50_a,
						   &d->p99_a);
			d->has_a = !ret;
		}
		if (ret < 0)
			return -1;
	}
	return 0;
}

static bool is_time(const struct vs_event_diff *d)
{
	return d->unit && !strcmp(d->unit, "ns");
}

static int cmp_delta(const void *x, const void *y)
{
	const struct vs_event_diff *a = x, *b = y;
	double da = fabs(a->delta), db = fabs(b->delta);

	if (!vs_event_diff_tied(a, b))
		return da > db ? -1 : 1;
	if (is_time(a) != is_time(b))
		return is_time(a) ? -1 : 1;
	return strcmp(a->name, b->name);
}

bool vs_event_diff_tied(const struct vs_event_diff *a,
			const struct vs_event_diff *b)
{
	return fabs(fabs(a->delta) - fabs(b->delta)) < VS_DIFF_TIE;
}

int vs_diff_type(const struct vs_taskset *ts_a, const struct vs_task_type *tt_a,
		 const struct vs_type_rank *ra,
		 const struct vs_taskset *ts_b, const struct vs_task_type *tt_b,
		 const struct vs_type_rank *rb,
		 struct vs_event_diff **out, size_t *n)
{
	size_t max = ra->nr_events + rb->nr_events, i;
	struct vs_event_diff *rows = calloc(max ? max : 1, sizeof(*rows));

	*out = NULL;
	*n = 0;
	if (!rows)
		return -1;
	if (add_side(rows, n, false, ts_a, tt_a, ra) ||
	    add_side(rows, n, true, ts_b, tt_b, rb)) {
		free(rows);
		*n = 0;
		return -1;
	}
	for (i = 0; i < *n; i++)
		rows[i].delta = rows[i].impact_b - rows[i].impact_a;
	qsort(rows, *n, sizeof(*rows), cmp_delta);
	*out = rows;
	return 0;
}

bool vs_event_diff_burstier(const struct vs_event_diff *d)
{
	return d->has_a && d->has_b && d->p99_b > VS_BURST_TAIL * d->p99_a &&
	       d->p50_b <= VS_BURST_MEDIAN * d->p50_a;
}
