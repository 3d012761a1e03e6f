// SPDX-License-Identifier: MIT
/*
 * func-estimate.c - function times estimated from the samples tied to
 * tasks (core/analysis/task-samples.h): a function's time in a task by
 * either estimator, and the function events of each task type made of
 * them, "func:<symbol>.time" and ".total".
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/catalog.h"
#include "core/sort.h"
#include "core/analysis/task-samples.h"

int vs_func_estimator_parse(const char *name)
{
	if (!strcmp(name, "count"))
		return VS_FUNC_COUNT;
	if (!strcmp(name, "span"))
		return VS_FUNC_SPAN;
	return -1;
}

uint64_t vs_func_time(const struct vs_task_samples *ts,
		      const struct vs_ts_task *task, uint32_t symbol,
		      enum vs_func_estimator est)
{
	uint64_t sum = 0, first = 0, last = 0;
	bool seen = false;
	uint32_t k;

	for (k = 0; k < task->nr; k++) {
		const struct vs_ts_sample *s = &ts->samples[task->first + k];

		if (ts->frames[s->chain] != symbol)
			continue;
		sum += s->weight_ns;
		if (!seen)
			first = s->time;
		last = s->time;
		seen = true;
	}
	return est == VS_FUNC_COUNT ? sum : last - first;
}

/* The events of one measure (self or inclusive time) of one type. */
struct fe_measure {
	unsigned int nr;			/* events of the type */
	uint16_t event[VS_FUNC_MAX_EVENTS];	/* slot -> event id */
	int8_t *slot_of;			/* symbol id -> slot, -1 */
};

struct fe_type {
	uint32_t type;
	struct fe_measure self;			/* func:<symbol>.time */
	struct fe_measure total;		/* func:<symbol>.total */
};

struct vs_func_events {
	const struct vs_task_samples *ts;
	enum vs_func_estimator est;
	struct vs_event_def *defs;
	unsigned int nr_defs;
	size_t alloc_defs;
	uint16_t first_id;
	struct fe_type *types;
	unsigned int nr_types;
	size_t alloc_types;
};

/* @a, @b: indices into @totals */
static int cmp_total_desc(const void *a, const void *b, void *totals)
{
	const uint64_t *t = totals;
	uint64_t x = t[*(const uint32_t *)a];
	uint64_t y = t[*(const uint32_t *)b];

	return (x < y) - (x > y);
}

/*
 * The event id of @name's time (vs_func_event_name()), or with @total of
 * its inclusive time (vs_func_total_event_name()), made on first use.
 */
static int func_event(struct vs_func_events *fe, const char *name, bool total)
{
	int (*naming)(char *, size_t, const char *) =
		total ? vs_func_total_event_name : vs_func_event_name;
	struct vs_event_def *defs;
	char *full;
	size_t len = naming(NULL, 0, name) + 1;
	unsigned int i;

	full = malloc(len);
	if (!full)
		return -1;
	naming(full, len, name);
	for (i = 0; i < fe->nr_defs; i++)
		if (!strcmp(fe->defs[i].name, full)) {
			free(full);
			return fe->defs[i].id;
		}
	if (fe->first_id + fe->nr_defs > VS_EVENT_MAX)
		goto fail;
	if (ALLOC_GROW(fe->defs, fe->nr_defs + 1, fe->alloc_defs))
		goto fail;
	defs = fe->defs;
	defs[fe->nr_defs] = (struct vs_event_def){
		.id = fe->first_id + fe->nr_defs, .parent = VS_EVENT_NO_PARENT,
		.group = VS_GROUP_FUNC, .name = full, .unit = "ns",
	};
	return defs[fe->nr_defs++].id;
fail:
	free(full);
	return -1;
}

/*
 * The functions of @totals (ns per symbol id, of all @all ns) holding at
 * least VS_FUNC_MIN_SHARE, as the events of measure @m, the largest
 * first; @order: room for a symbol id each.  With @caller (@totals
 * being inclusive times), only the functions it says called another: a
 * leaf's inclusive time is its own time again.
 */
static int choose_measure(struct vs_func_events *fe, struct fe_measure *m,
			  const uint64_t *totals, uint64_t all, uint32_t *order,
			  const bool *caller)
{
	bool total = caller;
	const struct vs_task_samples *ts = fe->ts;
	unsigned int i, k, nr = 0;
	int ev;

	/*
	 * Of inclusive times, not those of the functions on (nearly) every
	 * sample's stack (main, the task's own function): the task's CPU
	 * time again, task-clock's twin
	 */
	for (i = 0; i < ts->nr_symbols; i++)
		if (i && totals[i] && totals[i] >= VS_FUNC_MIN_SHARE * all &&
		    (!total || (totals[i] < VS_FUNC_TOTAL_MAX_SHARE * all &&
				caller[i])))
			order[nr++] = i;
	vs_qsort_r(order, nr, sizeof(*order), cmp_total_desc, (void *)totals);
	m->slot_of = malloc(ts->nr_symbols);
	if (!m->slot_of)
		return -1;
	memset(m->slot_of, -1, ts->nr_symbols);
	for (i = 0; i < nr; i++) {
		ev = func_event(fe, ts->symbols[order[i]].name, total);
		if (ev < 0)
			return -1;
		for (k = 0; k < m->nr && m->event[k] != ev; k++)
			;
		if (k == m->nr) {
			if (m->nr == VS_FUNC_MAX_EVENTS)
				continue;
			m->event[m->nr++] = ev;
		}
		m->slot_of[order[i]] = k;
	}
	return 0;
}

static bool is_kernel_symbol(const struct vs_task_samples *ts, uint32_t id)
{
	return ts->symbols[id].file && !strcmp(ts->symbols[id].file,
					       VS_TS_KERNEL_FILE);
}

/*
 * Choose the functions of the tasks [first, first + n) of one type: by
 * own time and by inclusive time (each function once per sample, however
 * deep it recursed); @self, @totals, @stamp, @caller: room for a value
 * per symbol.  Of inclusive times, only those of functions some sample shows
 * calling a function of the program (the kernel's frames over a leaf are
 * an interrupt's or a system call's: the leaf's own time again).
 */
static int choose_type(struct vs_func_events *fe, struct fe_type *ft,
		       size_t first, size_t n, uint64_t *self,
		       uint64_t *totals, uint32_t *stamp, bool *caller,
		       uint32_t *order)
{
	const struct vs_task_samples *ts = fe->ts;
	uint64_t all = 0;
	uint32_t k, j, sym;
	size_t t;

	memset(self, 0, ts->nr_symbols * sizeof(*self));
	for (t = first; t < first + n; t++) {
		const struct vs_ts_task *task = &ts->tasks[t];

		for (k = 0; k < task->nr; k++) {
			const struct vs_ts_sample *s = &ts->samples[task->first + k];

			self[ts->frames[s->chain]] += s->weight_ns;
			all += s->weight_ns;
		}
	}
	if (choose_measure(fe, &ft->self, self, all, order, NULL))
		return -1;
	memset(totals, 0, ts->nr_symbols * sizeof(*totals));
	memset(stamp, 0, ts->nr_symbols * sizeof(*stamp));
	memset(caller, 0, ts->nr_symbols * sizeof(*caller));
	for (t = first; t < first + n; t++) {
		const struct vs_ts_task *task = &ts->tasks[t];

		for (k = 0; k < task->nr; k++) {
			size_t at = task->first + k;
			const struct vs_ts_sample *s = &ts->samples[at];

			bool user = false;	/* a user frame below */

			for (j = 0; j < s->nr_frames; j++) {
				sym = ts->frames[s->chain + j];
				if (user)
					caller[sym] = true;
				user |= !is_kernel_symbol(ts, sym);
				if (stamp[sym] == at + 1)
					continue;
				stamp[sym] = at + 1;
				totals[sym] += s->weight_ns;
			}
		}
	}
	return choose_measure(fe, &ft->total, totals, all, order, caller);
}

struct vs_func_events *vs_func_events_new(const struct vs_task_samples *ts,
					  enum vs_func_estimator est,
					  uint16_t first_id)
{
	struct vs_func_events *fe = calloc(1, sizeof(*fe));
	uint64_t *self = calloc(ts->nr_symbols + 1, sizeof(*self));
	uint64_t *totals = calloc(ts->nr_symbols + 1, sizeof(*totals));
	uint32_t *order = calloc(ts->nr_symbols + 1, sizeof(*order));
	uint32_t *stamp = calloc(ts->nr_symbols + 1, sizeof(*stamp));
	bool *caller = calloc(ts->nr_symbols + 1, sizeof(*caller));
	size_t i = 0, first, n;

	if (!fe || !self || !totals || !order || !stamp || !caller)
		goto fail;
	fe->ts = ts;
	fe->est = est;
	fe->first_id = first_id;
	while (i < ts->nr_tasks) {
		struct fe_type *ft;

		n = vs_task_samples_type(ts, ts->tasks[i].type, &first);
		if (ALLOC_GROW(fe->types, fe->nr_types + 1, fe->alloc_types))
			goto fail;
		ft = &fe->types[fe->nr_types++];
		memset(ft, 0, sizeof(*ft));
		ft->type = ts->tasks[i].type;
		if (choose_type(fe, ft, first, n, self, totals, stamp, caller,
				order))
			goto fail;
		i = first + n;
	}
	free(self);
	free(totals);
	free(order);
	free(stamp);
	free(caller);
	return fe;
fail:
	free(self);
	free(totals);
	free(order);
	free(stamp);
	free(caller);
	vs_func_events_free(fe);
	return NULL;
}

void vs_func_events_free(struct vs_func_events *fe)
{
	unsigned int i;

	if (!fe)
		return;
	for (i = 0; i < fe->nr_defs; i++)
		free((char *)fe->defs[i].name);
	for (i = 0; i < fe->nr_types; i++) {
		free(fe->types[i].self.slot_of);
		free(fe->types[i].total.slot_of);
	}
	free(fe->defs);
	free(fe->types);
	free(fe);
}

const struct vs_event_def *vs_func_events_defs(const struct vs_func_events *fe,
					       unsigned int *nr)
{
	*nr = fe->nr_defs;
	return fe->defs;
}

/* The time of each function of @m in @task by @est into @out. */
static void measure_values(const struct vs_func_events *fe,
			   const struct vs_ts_task *task,
			   const struct fe_measure *m, bool total,
			   uint64_t out[VS_FUNC_MAX_EVENTS])
{
	const struct vs_task_samples *ts = fe->ts;
	uint64_t sum[VS_FUNC_MAX_EVENTS] = { 0 }, first[VS_FUNC_MAX_EVENTS];
	uint64_t last[VS_FUNC_MAX_EVENTS] = { 0 };
	uint32_t seen[VS_FUNC_MAX_EVENTS] = { 0 };
	unsigned int i;
	uint32_t k, j;

	for (k = 0; k < task->nr; k++) {
		const struct vs_ts_sample *s = &ts->samples[task->first + k];
		uint32_t nr = total ? s->nr_frames : 1;

		for (j = 0; j < nr; j++) {
			int slot = m->slot_of[ts->frames[s->chain + j]];

			/* once per sample, however deep it recursed */
			if (slot < 0 || seen[slot] == k + 1)
				continue;
			seen[slot] = k + 1;
			if (!last[slot])
				first[slot] = s->time;
			last[slot] = s->time;
			sum[slot] += s->weight_ns;
		}
	}
	for (i = 0; i < m->nr; i++)
		out[i] = fe->est == VS_FUNC_COUNT ? sum[i] :
			 last[i] ? last[i] - first[i] : 0;
}

uint32_t vs_func_events_values(const struct vs_func_events *fe,
			       const struct vs_task *t, struct vs_value *buf,
			       uint32_t max)
{
	const struct vs_ts_task *task = vs_task_samples_find(fe->ts, t->id);
	uint64_t v[VS_FUNC_MAX_EVENTS];
	const struct fe_type *ft = NULL;
	unsigned int i, n = 0;

	if (!task || task->tid != t->tid || task->start != t->start)
		return 0;
	for (i = 0; i < fe->nr_types && !ft; i++)
		if (fe->types[i].type == t->type)
			ft = &fe->types[i];
	if (!ft)
		return 0;
	measure_values(fe, task, &ft->self, false, v);
	for (i = 0; i < ft->self.nr && n < max; i++)
		buf[n++] = (struct vs_value){ ft->self.event[i], v[i] };
	measure_values(fe, task, &ft->total, true, v);
	for (i = 0; i < ft->total.nr && n < max; i++)
		buf[n++] = (struct vs_value){ ft->total.event[i], v[i] };
	return n;
}
