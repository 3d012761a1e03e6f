// SPDX-License-Identifier: MIT
/*
 * diff.c - compare a task type's impact rankings in two segments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/diff.h"
#include "core/analysis/impact.h"
#include "core/sort.h"

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

/* An event of side A or B of a diff, while the rows are made. */
struct side_event {
	const char *name;
	bool b;				/* of side B */
	size_t i;			/* in its ranking's events */
};

/* By name, then side A first, then ranking order. */
static int cmp_side_event(const void *x, const void *y)
{
	const struct side_event *p = x, *q = y;
	int c = strcmp(p->name, q->name);

	if (c)
		return c;
	if (p->b != q->b)
		return p->b ? 1 : -1;
	return (p->i > q->i) - (p->i < q->i);
}

/* Fill side A (@b false) or B of row @d from event @i of ranking @tr. */
static int fill_side(struct vs_event_diff *d, bool b,
		     const struct vs_taskset *ts, const struct vs_task_type *tt,
		     const struct vs_type_rank *tr, size_t i)
{
	const struct vs_event_rank *er = &tr->events[i];
	const struct vs_event_def *def = vs_taskset_event(ts, er->event);
	size_t rank = er->status == VS_RANK_RANKED ? i + 1 : 0;
	/* below 0: its high tasks are fast ones, it takes no tail */
	double impact = rank && er->adjusted > 0 ? er->adjusted : 0;
	int ret;

	if (!d->name) {
		d->name = er->name;
		d->unit = def ? def->unit : "";
	}
	if (b) {
		d->rank_b = rank;
		d->impact_b = impact;
		ret = vs_event_percentiles(tt, er->event, &d->p50_b, &d->p99_b);
		d->has_b = !ret;
	} else {
		d->rank_a = rank;
		d->impact_a = impact;
		ret = vs_event_percentiles(tt, er->event, &d->p50_a, &d->p99_a);
		d->has_a = !ret;
	}
	return ret < 0 ? -1 : 0;
}

/*
 * One row per event name of either side: the events of both sorted by
 * name, so that a type of many events costs n log n, not n^2.  A name
 * twice on one side fills its row twice, the later winning.
 */
static int make_rows(struct vs_event_diff *rows, size_t *n,
		     const struct vs_taskset *ts_a,
		     const struct vs_task_type *tt_a,
		     const struct vs_type_rank *ra,
		     const struct vs_taskset *ts_b,
		     const struct vs_task_type *tt_b,
		     const struct vs_type_rank *rb)
{
	size_t nr = ra->nr_events + rb->nr_events, i, k = 0;
	struct side_event *ev = malloc((nr + 1) * sizeof(*ev));
	int ret = 0;

	if (!ev)
		return -1;
	for (i = 0; i < ra->nr_events; i++)
		ev[k++] = (struct side_event){ ra->events[i].name, false, i };
	for (i = 0; i < rb->nr_events; i++)
		ev[k++] = (struct side_event){ rb->events[i].name, true, i };
	vs_qsort(ev, nr, sizeof(*ev), cmp_side_event);
	for (i = 0; i < nr && !ret; i++) {
		if (!i || strcmp(ev[i].name, ev[i - 1].name))
			memset(&rows[(*n)++], 0, sizeof(*rows));
		ret = ev[i].b ?
		      fill_side(&rows[*n - 1], true, ts_b, tt_b, rb, ev[i].i) :
		      fill_side(&rows[*n - 1], false, ts_a, tt_a, ra, ev[i].i);
	}
	free(ev);
	return ret;
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
	if (make_rows(rows, n, ts_a, tt_a, ra, ts_b, tt_b, rb)) {
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

/* The types of @ts that @other has not, into *@out (*@nr of them). */
static int only_in(const struct vs_taskset *ts, const struct vs_taskset *other,
		   uint32_t **out, unsigned int *nr)
{
	unsigned int i;

	*out = malloc((ts->nr_types ? ts->nr_types : 1) * sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < ts->nr_types; i++)
		if (!vs_taskset_type(other, ts->types[i].type))
			(*out)[(*nr)++] = ts->types[i].type;
	return 0;
}

int vs_diff_segments(const struct vs_taskset *a, const struct vs_taskset *b,
		     const struct vs_rank_opts *rank, struct vs_diff *out)
{
	unsigned int i;

	*out = (struct vs_diff){ 0 };
	out->types = calloc(a->nr_types ? a->nr_types : 1, sizeof(*out->types));
	if (!out->types || only_in(a, b, &out->only_a, &out->nr_only_a) ||
	    only_in(b, a, &out->only_b, &out->nr_only_b))
		return -1;
	for (i = 0; i < a->nr_types; i++) {
		const struct vs_task_type *tt_a = &a->types[i];
		const struct vs_task_type *tt_b = vs_taskset_type(b,
								  tt_a->type);
		struct vs_type_diff *t = &out->types[out->nr_types];

		if (!tt_b)
			continue;
		t->type = tt_a->type;
		t->tt_a = tt_a;
		t->tt_b = tt_b;
		out->nr_types++;
		if (vs_rank_type(a, tt_a, rank, &t->ra) ||
		    vs_rank_type(b, tt_b, rank, &t->rb) ||
		    vs_diff_type(a, tt_a, &t->ra, b, tt_b, &t->rb, &t->events,
				 &t->nr_events))
			return -1;
		/* the tables show the ranked events alone */
		vs_type_rank_keep_ranked(&t->ra);
		vs_type_rank_keep_ranked(&t->rb);
	}
	return 0;
}

void vs_diff_release(struct vs_diff *d)
{
	unsigned int i;

	for (i = 0; i < d->nr_types; i++) {
		vs_type_rank_free(&d->types[i].ra);
		vs_type_rank_free(&d->types[i].rb);
		free(d->types[i].events);
	}
	free(d->types);
	free(d->only_a);
	free(d->only_b);
	*d = (struct vs_diff){ 0 };
}
