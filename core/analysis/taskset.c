// SPDX-License-Identifier: MIT
/*
 * taskset.c - load task records into per-type columns.
 *
 * The columns, the attached intervals' values and the merging of task
 * sets loaded apart; the parallel reading of a trace into them is
 * taskset-read.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/bitmap.h"
#include "core/sort.h"
#include "core/analysis/taskset.h"
#include "core/analysis/taskset-int.h"
#include "core/id-index.h"
#include "core/analysis/wakeup.h"

/*
 * Task flags that say a task's values may be incomplete or distorted, or
 * that it was cut short: the recording stopped, its thread exited, a
 * second begin or a left call ended it before its end.
 */
#define FLAGGED_TASK	(VS_TASK_LOST_EVENTS | VS_TASK_MULTIPLEXED | \
			 VS_TASK_DISTORTED | VS_TASK_TRUNCATED | \
			 VS_TASK_NO_RETURN | VS_TASK_THREAD_EXIT | \
			 VS_TASK_NESTED_BEGIN)

/*
 * A column while it grows; becomes a struct vs_column at the end.  A
 * type's are found through a hash of their event ids: an id the file
 * chose indexes nothing, so a type costs what its columns hold, whatever
 * their ids.
 */
struct vs_growing_column {
	struct vs_column col;
	size_t alloc_values, alloc_words;
};

/*
 * A type holds the values of its first LOGGED_TASKS tasks in a log, 8
 * bytes a value: a trace of many types of a few tasks each (150,000
 * request kinds) costs what their values are, where a column per type
 * and event would cost about 150 bytes each, whatever it holds.  Past
 * them the type's values go to growing columns (4 bytes a value), whose
 * cost per event its tasks share.
 */
#define LOGGED_TASKS	32

struct vs_logged_value {
	uint16_t task;		/* < LOGGED_TASKS */
	uint16_t event;
	float value;
};

struct epoch_events {
	uint32_t epoch;
	uint32_t nr;
	uint16_t *events;
};

/* An attached interval: its values are those from @first in att_values. */
struct attached {
	uint64_t serves;		/* id of the task it works for */
	size_t first;
	uint32_t nr;
};

/* One attached value of task @task of a type, while applying them. */
struct addition {
	uint16_t event;
	size_t task;
	float value;
};

/*
 * What the tasks of a task set refer to while it loads: the epochs read so
 * far and the attached intervals.  The task sets of the time ranges of one
 * read share one (see vs_taskset_share_context()).
 */
struct task_context {
	struct epoch_events *epochs;
	size_t nr_epochs, alloc_epochs;
	struct attached *attached;
	size_t nr_attached, alloc_attached;
	bool attached_sorted;		/* by the task they serve */
	struct vs_value *att_values;	/* values of the attached intervals */
	size_t nr_att_values, alloc_att_values;
};

struct vs_taskset_build {
	struct vs_taskset *ts;
	struct vs_task_type *last;	/* type of the previous task */
	size_t alloc_types;		/* capacity of ts->types */
	struct vs_id_index type_index;	/* type number -> ts->types[] */
	struct task_context own;
	struct task_context *ctx;	/* &own, or another task set's */
	bool latency_only;		/* no values, epochs, attached ones,
					 * task ids */
	uint64_t *stamp;		/* by event id: task that set it */
	size_t alloc_stamp;
	uint64_t seq;
};

static struct vs_task_type *find_type(struct vs_taskset_build *l, uint32_t type)
{
	struct vs_taskset *ts = l->ts;
	struct vs_task_type *types;
	long i;

	if (l->last && l->last->type == type)
		return l->last;
	i = vs_id_index_find(&l->type_index, type);
	if (i >= 0)
		return l->last = &ts->types[i];
	if (ALLOC_GROW(ts->types, ts->nr_types + 1, l->alloc_types))
		return NULL;
	types = ts->types;
	if (vs_id_index_add(&l->type_index, type, ts->nr_types))
		return NULL;
	memset(&types[ts->nr_types], 0, sizeof(*types));
	types[ts->nr_types].type = type;
	return l->last = &types[ts->nr_types++];
}

/* The growing column of @event in @tt, made when new (it may move then). */
static struct vs_growing_column *find_column(struct vs_task_type *tt,
					     uint16_t event)
{
	long i = vs_id_index_find(&tt->column_index, event);
	struct vs_growing_column *gc;

	if (i >= 0)
		return &tt->growing[i];
	if (ALLOC_GROW(tt->growing, tt->nr_columns + 1, tt->alloc_growing))
		return NULL;
	gc = tt->growing;
	if (vs_id_index_add(&tt->column_index, event, tt->nr_columns))
		return NULL;
	gc += tt->nr_columns++;
	memset(gc, 0, sizeof(*gc));
	gc->col.event = event;
	return gc;
}

/* Forget @tt's growing columns (their arrays moved or freed). */
static void drop_growing(struct vs_task_type *tt)
{
	free(tt->growing);
	tt->growing = NULL;
	tt->alloc_growing = 0;
	vs_id_index_release(&tt->column_index);
}

static int column_append(struct vs_growing_column *gc, size_t task, float value)
{
	struct vs_column *col = &gc->col;
	size_t words = vs_bitmap_words(task + 1), old = gc->alloc_words;

	if (__builtin_expect(words <= old && col->nr < gc->alloc_values, 1)) {
		col->values[col->nr++] = value;
		vs_bit_set(col->present, task);
		return 0;
	}
	if (words > gc->alloc_words) {
		if (ALLOC_GROW(col->present, words, gc->alloc_words))
			return -1;
		memset(col->present + old, 0,
		       (gc->alloc_words - old) * sizeof(*col->present));
	}
	if (ALLOC_GROW(col->values, col->nr + 1, gc->alloc_values))
		return -1;
	col->values[col->nr++] = value;
	vs_bit_set(col->present, task);
	return 0;
}

static int log_value(struct vs_task_type *tt, size_t task, uint16_t event,
		     float value)
{
	if (ALLOC_GROW(tt->log, tt->nr_log + 1, tt->alloc_log))
		return -1;
	tt->log[tt->nr_log++] = (struct vs_logged_value){ task, event, value };
	return 0;
}

static void drop_log(struct vs_task_type *tt)
{
	free(tt->log);
	tt->log = NULL;
	tt->nr_log = tt->alloc_log = 0;
}

/* Move @tt's logged values, in task order, to growing columns. */
static int columnize(struct vs_task_type *tt)
{
	const struct vs_logged_value *v;
	struct vs_growing_column *gc;
	size_t i;

	if (tt->columnar)
		return 0;
	for (i = 0; i < tt->nr_log; i++) {	/* no log yet: NULL */
		v = &tt->log[i];
		gc = find_column(tt, v->event);
		if (!gc || column_append(gc, v->task, v->value))
			return -1;
	}
	drop_log(tt);
	tt->columnar = true;
	return 0;
}

static const struct epoch_events *find_epoch(const struct task_context *c,
					     uint32_t epoch)
{
	size_t i;

	for (i = c->nr_epochs; i-- > 0;)
		if (c->epochs[i].epoch == epoch)
			return &c->epochs[i];
	return NULL;
}

static int add_epoch(struct task_context *c, const struct vs_epoch *ep)
{
	struct epoch_events *e;

	if (ALLOC_GROW(c->epochs, c->nr_epochs + 1, c->alloc_epochs))
		return -1;
	e = &c->epochs[c->nr_epochs];
	e->epoch = ep->epoch;
	e->nr = ep->nr_events;
	e->events = malloc(ep->nr_events * sizeof(*e->events) + 1);
	if (!e->events)
		return -1;
	memcpy(e->events, ep->events, ep->nr_events * sizeof(*e->events));
	c->nr_epochs++;
	return 0;
}

static int see_event(struct vs_taskset_build *l, uint16_t event)
{
	size_t old = l->alloc_stamp;

	if (event < old)
		return 0;
	if (ALLOC_GROW(l->stamp, (size_t)event + 1, l->alloc_stamp))
		return -1;
	memset(l->stamp + old, 0, (l->alloc_stamp - old) * sizeof(*l->stamp));
	return 0;
}

/* One value of a task; a second value of the same event is ignored. */
static int add_value(struct vs_taskset_build *l, struct vs_task_type *tt, size_t task,
		     uint16_t event, float value)
{
	struct vs_growing_column *gc;

	if (__builtin_expect(event >= l->alloc_stamp, 0) && see_event(l, event))
		return -1;
	if (l->stamp[event] == l->seq)
		return 0;
	l->stamp[event] = l->seq;
	if (!tt->columnar)
		return log_value(tt, task, event, value);
	gc = find_column(tt, event);
	return gc ? column_append(gc, task, value) : -1;
}

/*
 * Room for @need tasks in @tt's latencies, and in its ids unless @l loads
 * latencies alone (ids find the tasks that attached intervals serve).
 */
static int grow_tasks(const struct vs_taskset_build *l,
		      struct vs_task_type *tt, size_t need)
{
	size_t alloc_ids = tt->alloc_tasks;	/* grows the same way */

	if (!l->latency_only && ALLOC_GROW(tt->ids, need, alloc_ids))
		return -1;
	return ALLOC_GROW(tt->latency, need, tt->alloc_tasks);
}

static int add_task(struct vs_taskset_build *l, const struct vs_task *t)
{
	struct vs_task_type *tt = find_type(l, t->type);
	const struct epoch_events *live;
	struct vs_taskset *ts = l->ts;
	size_t task;
	uint32_t i;

	if (!tt || grow_tasks(l, tt, tt->nr_tasks + 1))
		return -1;
	task = tt->nr_tasks++;
	tt->latency[task] = t->end > t->start ? t->end - t->start : 0;
	if (t->flags & FLAGGED_TASK)
		tt->nr_flagged++;
	if (!ts->first_ns || t->start < ts->first_ns)
		ts->first_ns = t->start;
	if (t->end > ts->last_ns)
		ts->last_ns = t->end;

	if (l->latency_only)
		return 0;
	if (task >= LOGGED_TASKS && columnize(tt))
		return -1;
	tt->ids[task] = t->id;
	l->seq++;
	for (i = 0; i < t->nr_values; i++)
		if (add_value(l, tt, task, t->values[i].event,
			      (float)t->values[i].value))
			return -1;
	live = find_epoch(l->ctx, t->epoch);
	for (i = 0; live && i < live->nr; i++)
		if (add_value(l, tt, task, live->events[i], 0))
			return -1;
	return 0;
}

static int cmp_growing(const void *a, const void *b)
{
	const struct vs_growing_column *x = a, *y = b;

	return (x->col.event > y->col.event) - (x->col.event < y->col.event);
}

static int cmp_logged(const void *a, const void *b)
{
	const struct vs_logged_value *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/*
 * Turn the logged values of a type into its columns, all in one block
 * (@tt->packed): the columns, then their bitmaps and ranks (one of each
 * shared by the columns every task has), then their values.  A task has
 * one value of an event at most (add_value()).
 */
static int finish_logged(struct vs_task_type *tt)
{
	size_t words = vs_bitmap_words(tt->nr_tasks), i, j, w, nr_col = 0;
	size_t nr_sparse = 0, nw = words ? words : 1, size;
	struct vs_logged_value *log = tt->log;
	uint64_t *present;
	uint32_t *rank;
	float *values;
	char *block;

	vs_qsort(log, tt->nr_log, sizeof(*log), cmp_logged);
	for (i = 0; i < tt->nr_log; i = j) {
		for (j = i; j < tt->nr_log && log[j].event == log[i].event; j++)
			;
		nr_col++;
		nr_sparse += j - i < tt->nr_tasks;
	}
	size = nr_col * sizeof(struct vs_column) +
	       (1 + nr_sparse) * nw * (sizeof(*present) + sizeof(*rank)) +
	       tt->nr_log * sizeof(*values);
	block = calloc(1, size);
	if (!block)
		return -1;
	tt->columns = (struct vs_column *)block;
	tt->nr_columns = nr_col;
	tt->packed = true;
	present = (uint64_t *)(tt->columns + nr_col);
	rank = (uint32_t *)(present + (1 + nr_sparse) * nw);
	values = (float *)(rank + (1 + nr_sparse) * nw);
	/* the bitmap and ranks of a column every task has */
	for (i = 0; i < tt->nr_tasks; i++)
		vs_bit_set(present, i);
	for (w = 0; w < nw; w++)
		rank[w] = w * VS_BITS_PER_WORD;
	for (i = 0, nr_col = 0, nr_sparse = 0; i < tt->nr_log; i = j) {
		struct vs_column *col = &tt->columns[nr_col++];

		for (j = i; j < tt->nr_log && log[j].event == log[i].event; j++)
			values[j] = log[j].value;
		*col = (struct vs_column){ log[i].event, j - i, present,
					   values + i, rank };
		if (j - i == tt->nr_tasks)
			continue;
		col->present = present + ++nr_sparse * nw;
		col->rank = rank + nr_sparse * nw;
		for (w = i; w < j; w++)
			vs_bit_set(col->present, log[w].task);
		for (w = 0; w + 1 < nw; w++)
			col->rank[w + 1] = col->rank[w] +
					   vs_popcount64(col->present[w]);
	}
	drop_log(tt);
	return 0;
}

/* Turn the growing columns of a type into its final, tight arrays. */
static int finish_columns(struct vs_task_type *tt)
{
	size_t words = vs_bitmap_words(tt->nr_tasks), w;
	unsigned int c;
	void *p;

	tt->columns = calloc(tt->nr_columns ? tt->nr_columns : 1,
			     sizeof(*tt->columns));
	if (!tt->columns)
		return -1;
	vs_id_index_release(&tt->column_index);	/* the order changes */
	vs_qsort(tt->growing, tt->nr_columns, sizeof(*tt->growing),
		 cmp_growing);
	for (c = 0; c < tt->nr_columns; c++) {
		struct vs_growing_column *gc = &tt->growing[c];
		struct vs_column *col = &tt->columns[c];
		uint32_t sum = 0;

		*col = gc->col;
		gc->col.present = NULL;		/* @col owns them now */
		gc->col.values = NULL;
		if (gc->alloc_words != words) {	/* tight, as the values */
			p = realloc(col->present, (words ? words : 1) *
				    sizeof(*col->present));
			if (!p)
				return -1;
			col->present = p;
			if (gc->alloc_words < words)
				memset(col->present + gc->alloc_words, 0,
				       (words - gc->alloc_words) *
				       sizeof(uint64_t));
		}
		p = realloc(col->values, (col->nr ? col->nr : 1) *
			    sizeof(*col->values));
		if (p)
			col->values = p;
		col->rank = malloc((words ? words : 1) * sizeof(*col->rank));
		if (!col->rank)
			return -1;
		for (w = 0; w < words; w++) {
			col->rank[w] = sum;
			sum += vs_popcount64(col->present[w]);
		}
	}
	drop_growing(tt);
	return 0;
}

/* The final arrays of a type: its columns, its tasks by latency. */
static int finish_type(struct vs_task_type *tt)
{
	void *p;

	if (tt->columnar ? finish_columns(tt) : finish_logged(tt))
		return -1;
	free(tt->ids);
	tt->ids = NULL;
	p = realloc(tt->latency, (tt->nr_tasks ? tt->nr_tasks : 1) *
		    sizeof(*tt->latency));
	if (p)
		tt->latency = p;
	tt->by_latency = malloc((tt->nr_tasks ? tt->nr_tasks : 1) *
				sizeof(*tt->by_latency));
	if (!tt->by_latency)
		return -1;
	return vs_order_desc(tt->latency, tt->nr_tasks, tt->by_latency);
}

static int add_attached(struct task_context *c, uint64_t serves,
			const struct vs_task *t)
{
	struct attached *a;

	if (ALLOC_GROW(c->attached, c->nr_attached + 1, c->alloc_attached) ||
	    ALLOC_GROW(c->att_values, c->nr_att_values + t->nr_values + 1,
		       c->alloc_att_values))
		return -1;
	a = &c->attached[c->nr_attached++];
	*a = (struct attached){ serves, c->nr_att_values, t->nr_values };
	memcpy(c->att_values + a->first, t->values,
	       t->nr_values * sizeof(*t->values));
	c->nr_att_values += t->nr_values;
	c->attached_sorted = false;
	return 0;
}

static int cmp_attached(const void *a, const void *b)
{
	const struct attached *x = a, *y = b;

	return (x->serves > y->serves) - (x->serves < y->serves);
}

static int cmp_addition(const void *a, const void *b)
{
	const struct addition *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/* The first attached interval serving @id in sorted @c, or NULL. */
static const struct attached *first_serving(const struct task_context *c,
					    uint64_t id)
{
	size_t lo = 0, hi = c->nr_attached;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->attached[mid].serves < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nr_attached && c->attached[lo].serves == id ?
		&c->attached[lo] : NULL;
}

/*
 * Column @event of @tt plus the sorted additions @a[0..@n) (one per task):
 * the column is rebuilt in task order, a task it lacked gets the addition
 * alone.
 */
static int column_add(struct vs_task_type *tt, uint16_t event,
		      const struct addition *a, size_t n)
{
	struct vs_growing_column *gc = find_column(tt, event), sum = { 0 };
	size_t task, k = 0, j = 0;

	if (!gc)
		return -1;
	sum.col.event = event;
	for (task = 0; task < tt->nr_tasks; task++) {
		bool has = task / VS_BITS_PER_WORD < gc->alloc_words &&
			   vs_bit_test(gc->col.present, task);
		float v = has ? gc->col.values[k++] : 0;

		if (j < n && a[j].task == task)
			v += a[j++].value;
		else if (!has)
			continue;
		if (column_append(&sum, task, v))
			goto fail;
	}
	free(gc->col.present);
	free(gc->col.values);
	*gc = sum;
	return 0;
fail:
	free(sum.col.present);
	free(sum.col.values);
	return -1;
}

/* The id of event "attached.<name of @event>", added to the catalog. */
static int attached_event(struct vs_taskset *ts, uint16_t event)
{
	const struct vs_event_def *e = vs_taskset_event(ts, event);
	struct vs_event_def def;
	char name[256];
	int id;

	if (!e)
		return -1;
	snprintf(name, sizeof(name), "attached.%s", e->name);
	id = vs_taskset_event_by_name(ts, name);
	if (id >= 0)
		return id;
	if (ts->nr_events > VS_EVENT_MAX)
		return -1;
	def = (struct vs_event_def){ ts->nr_events, event, e->group, name,
				     e->unit };
	if (vs_taskset_add_event(ts, &def))
		return -1;
	return def.id;
}

/* The additions of @n sorted ones @a for one event, to @tt. */
static int add_event_additions(struct vs_taskset *ts, struct vs_task_type *tt,
			       const struct addition *a, size_t n)
{
	int att = attached_event(ts, a[0].event);
	struct vs_growing_column *gc;
	size_t j;

	if (column_add(tt, a[0].event, a, n))
		return -1;
	if (att < 0)		/* not in the catalog: the sum alone */
		return 0;
	gc = find_column(tt, att);
	for (j = 0; gc && j < n; j++)
		if (column_append(gc, a[j].task, a[j].value))
			return -1;
	return gc ? 0 : -1;
}

/* Add the attached intervals' values to the tasks of @tt they serve. */
static int apply_type(struct vs_taskset *ts, struct vs_task_type *tt)
{
	const struct task_context *c = ts->build->ctx;
	struct addition *add = NULL;
	size_t nr = 0, alloc = 0, task, i, j, k;
	int ret = 0;

	for (task = 0; task < tt->nr_tasks; task++) {
		const struct attached *a = first_serving(c, tt->ids[task]);

		for (; a && a < c->attached + c->nr_attached &&
		       a->serves == tt->ids[task]; a++) {
			for (i = 0; i < a->nr; i++) {
				const struct vs_value *v =
					&c->att_values[a->first + i];

				if (ALLOC_GROW(add, nr + 1, alloc)) {
					free(add);
					return -1;
				}
				add[nr++] = (struct addition){ v->event, task,
							       (float)v->value };
			}
		}
	}
	vs_qsort(add, nr, sizeof(*add), cmp_addition);
	/* one addition per (event, task): intervals of a task summed */
	for (i = 0, k = 0; i < nr; i++) {
		if (k && add[k - 1].event == add[i].event &&
		    add[k - 1].task == add[i].task)
			add[k - 1].value += add[i].value;
		else
			add[k++] = add[i];
	}
	if (k)
		ret = columnize(tt);
	for (i = 0; i < k && !ret; i = j) {
		for (j = i; j < k && add[j].event == add[i].event; j++)
			;
		ret = add_event_additions(ts, tt, add + i, j - i);
	}
	free(add);
	return ret;
}

static int apply_attached(struct vs_taskset *ts)
{
	struct task_context *c = ts->build->ctx;
	unsigned int i;

	if (!c->nr_attached || ts->build->latency_only)
		return 0;
	if (!c->attached_sorted)
		qsort(c->attached, c->nr_attached, sizeof(*c->attached),
		      cmp_attached);
	c->attached_sorted = true;
	for (i = 0; i < ts->nr_types; i++)
		if (apply_type(ts, &ts->types[i]))
			return -1;
	return 0;
}

static int cmp_type(const void *a, const void *b)
{
	const struct vs_task_type *x = a, *y = b;

	return (x->type > y->type) - (x->type < y->type);
}

struct vs_taskset *vs_taskset_new(void)
{
	struct vs_taskset *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->build = calloc(1, sizeof(*ts->build));
	if (!ts->build) {
		free(ts);
		return NULL;
	}
	ts->build->ts = ts;
	ts->build->ctx = &ts->build->own;
	return ts;
}

void vs_taskset_share_context(struct vs_taskset *ts,
			      const struct vs_taskset *owner)
{
	ts->build->ctx = owner->build->ctx;
}

void vs_taskset_set_latency_only(struct vs_taskset *ts, bool latency_only)
{
	ts->build->latency_only = latency_only;
}

bool vs_taskset_latency_only(const struct vs_taskset *ts)
{
	return ts->build->latency_only;
}

int vs_taskset_add_event(struct vs_taskset *ts, const struct vs_event_def *def)
{
	struct vs_event_def *e;
	unsigned int i;

	if (def->id >= ts->nr_events) {
		if (ALLOC_GROW(ts->events, (size_t)def->id + 1,
			       ts->alloc_events))
			return -1;
		for (i = ts->nr_events; i <= def->id; i++)
			memset(&ts->events[i], 0, sizeof(*ts->events));
		ts->nr_events = def->id + 1;
	}
	e = &ts->events[def->id];
	free((char *)e->name);
	free((char *)e->unit);
	*e = *def;
	e->name = strdup(def->name ? def->name : "");
	e->unit = strdup(def->unit ? def->unit : "");
	return e->name && e->unit ? 0 : -1;
}

int vs_taskset_add_epoch(struct vs_taskset *ts, const struct vs_epoch *ep)
{
	return add_epoch(ts->build->ctx, ep);
}

int vs_taskset_add_task(struct vs_taskset *ts, const struct vs_task *t)
{
	return add_task(ts->build, t);
}

int vs_taskset_add_attached(struct vs_taskset *ts, uint64_t serves,
			    const struct vs_task *t)
{
	return add_attached(ts->build->ctx, serves, t);
}

static void free_build(struct vs_taskset_build *l)
{
	size_t i;

	for (i = 0; i < l->own.nr_epochs; i++)
		free(l->own.epochs[i].events);
	free(l->own.epochs);
	free(l->stamp);
	vs_id_index_release(&l->type_index);
	free(l->own.attached);
	free(l->own.att_values);
	free(l);
}

int vs_taskset_finish(struct vs_taskset *ts)
{
	unsigned int i;

	if (apply_attached(ts))
		return -1;
	for (i = 0; i < ts->nr_types; i++)
		if (finish_type(&ts->types[i]))
			return -1;
	vs_qsort(ts->types, ts->nr_types, sizeof(*ts->types), cmp_type);
	free_build(ts->build);
	ts->build = NULL;
	return 0;
}

/* The logged values of @st after those of @dt's @na tasks; @st freed. */
static int merge_log(struct vs_task_type *dt, struct vs_task_type *st,
		     size_t na)
{
	size_t i;

	for (i = 0; i < st->nr_log; i++)
		if (log_value(dt, st->log[i].task + na, st->log[i].event,
			      st->log[i].value))
			return -1;
	drop_log(st);
	free(st->latency);
	st->latency = NULL;
	free(st->ids);
	st->ids = NULL;
	return 0;
}

/* Move the tasks of @src's type @st after those of @dst (both unfinished). */
static int merge_type(struct vs_taskset_build *l, struct vs_task_type *st)
{
	struct vs_task_type *dt = find_type(l, st->type);
	size_t na, nb = st->nr_tasks, words, base, sh, w;
	unsigned int c;

	if (!dt)
		return -1;
	na = dt->nr_tasks;
	if (grow_tasks(l, dt, na + nb + 1))
		return -1;
	memcpy(dt->latency + na, st->latency, nb * sizeof(*dt->latency));
	if (!l->latency_only)
		memcpy(dt->ids + na, st->ids, nb * sizeof(*dt->ids));
	dt->nr_tasks += nb;
	dt->nr_flagged += st->nr_flagged;
	if (!dt->columnar && !st->columnar && na + nb <= LOGGED_TASKS)
		return merge_log(dt, st, na);
	if (columnize(dt) || columnize(st))
		return -1;

	/* bitmaps shift by na bits, values append */
	words = vs_bitmap_words(na + nb) + 1;
	base = na / VS_BITS_PER_WORD;
	sh = na % VS_BITS_PER_WORD;
	for (c = 0; c < st->nr_columns; c++) {
		struct vs_growing_column *gs = &st->growing[c], *gd;
		size_t old;

		gd = find_column(dt, gs->col.event);
		if (!gd)
			return -1;
		old = gd->alloc_words;
		if (ALLOC_GROW(gd->col.present, words, gd->alloc_words))
			return -1;
		memset(gd->col.present + old, 0,
		       (gd->alloc_words - old) * sizeof(uint64_t));
		/* past its last value a column's bitmap is not there */
		for (w = 0; w < vs_bitmap_words(nb) && w < gs->alloc_words;
		     w++) {
			uint64_t x = gs->col.present[w];

			gd->col.present[base + w] |= x << sh;
			if (sh)
				gd->col.present[base + w + 1] |=
					x >> (VS_BITS_PER_WORD - sh);
		}
		if (ALLOC_GROW(gd->col.values, gd->col.nr + gs->col.nr + 1,
			       gd->alloc_values))
			return -1;
		memcpy(gd->col.values + gd->col.nr, gs->col.values,
		       gs->col.nr * sizeof(*gd->col.values));
		gd->col.nr += gs->col.nr;
		/* free as we go: the peak stays one column above the total */
		free(gs->col.present);
		free(gs->col.values);
		gs->col.present = NULL;
		gs->col.values = NULL;
	}
	drop_growing(st);
	st->nr_columns = 0;
	free(st->latency);
	st->latency = NULL;
	free(st->ids);
	st->ids = NULL;
	return 0;
}

/*
 * Move the attached intervals of unfinished @src after those of @dst; of a
 * context shared with another task set, that one's owner moves them.
 */
static int merge_attached(struct vs_taskset_build *dst,
			  const struct vs_taskset_build *src)
{
	const struct task_context *c = &src->own;
	size_t i;

	if (src->ctx != c)
		return 0;
	for (i = 0; i < c->nr_attached; i++) {
		const struct attached *a = &c->attached[i];
		struct vs_task t = { .nr_values = a->nr,
				     .values = c->att_values + a->first };

		if (add_attached(dst->ctx, a->serves, &t))
			return -1;
	}
	return 0;
}

int vs_taskset_merge(struct vs_taskset *dst, struct vs_taskset *src)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < src->nr_types && !ret; i++)
		ret = merge_type(dst->build, &src->types[i]);
	if (!ret)
		ret = merge_attached(dst->build, src->build);
	if (src->first_ns && (!dst->first_ns || src->first_ns < dst->first_ns))
		dst->first_ns = src->first_ns;
	if (src->last_ns > dst->last_ns)
		dst->last_ns = src->last_ns;
	dst->nr_wakeups += src->nr_wakeups;
	vs_taskset_free(src);
	return ret;
}

static void free_type(struct vs_task_type *tt)
{
	unsigned int i;

	for (i = 0; tt->growing && i < tt->nr_columns; i++) {
		free(tt->growing[i].col.present);
		free(tt->growing[i].col.values);
	}
	drop_growing(tt);
	drop_log(tt);
	for (i = 0; !tt->packed && tt->columns && i < tt->nr_columns; i++) {
		free(tt->columns[i].present);
		free(tt->columns[i].values);
		free(tt->columns[i].rank);
	}
	free(tt->columns);
	free(tt->latency);
	free(tt->ids);
	free(tt->by_latency);
}

void vs_taskset_free(struct vs_taskset *ts)
{
	unsigned int i;

	if (!ts)
		return;
	if (ts->build)
		free_build(ts->build);
	for (i = 0; i < ts->nr_types; i++)
		free_type(&ts->types[i]);
	free(ts->types);
	for (i = 0; i < ts->nr_events; i++) {
		free((char *)ts->events[i].name);
		free((char *)ts->events[i].unit);
	}
	free(ts->events);
	free(ts->warning);
	vs_wake_build_free(ts->wake);
	vs_ran_list_release(&ts->ran);
	vs_type_names_release(&ts->names);
	free(ts);
}

struct vs_task_type *vs_taskset_type(const struct vs_taskset *ts,
				     uint32_t type)
{
	const struct vs_task_type key = { .type = type };

	if (!ts->nr_types)
		return NULL;
	return bsearch(&key, ts->types, ts->nr_types, sizeof(*ts->types),
		       cmp_type);	/* a finished set's types ascend */
}

const struct vs_event_def *vs_taskset_event(const struct vs_taskset *ts,
					    uint16_t id)
{
	if (id >= ts->nr_events || !ts->events[id].name ||
	    !ts->events[id].name[0])
		return NULL;
	return &ts->events[id];
}

int vs_taskset_event_by_name(const struct vs_taskset *ts, const char *name)
{
	unsigned int i;

	for (i = 0; i < ts->nr_events; i++)
		if (ts->events[i].name && !strcmp(ts->events[i].name, name))
			return i;
	return -1;
}

struct vs_column *vs_column_find(const struct vs_task_type *tt,
				 uint16_t event)
{
	unsigned int lo = 0, hi = tt->nr_columns;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (tt->columns[mid].event == event)
			return &tt->columns[mid];
		if (tt->columns[mid].event < event)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool vs_column_value(const struct vs_column *col, size_t task, float *value)
{
	size_t w = task / VS_BITS_PER_WORD;
	uint64_t below = (1ull << (task % VS_BITS_PER_WORD)) - 1;

	if (!vs_bit_test(col->present, task))
		return false;
	*value = col->values[col->rank[w] +
			     vs_popcount64(col->present[w] & below)];
	return true;
}
