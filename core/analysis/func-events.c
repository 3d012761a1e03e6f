// SPDX-License-Identifier: MIT
/*
 * func-events.c - function events from samples and probes, merged by name.
 *
 * The sampled events (vs_func_events_new()) keep their ids; a probed
 * function whose name they do not have gets the next id.  A task's values
 * are the sampled ones, then every probed event is set to the task's exact
 * time: 0 first, plus the time of each probed call in it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/catalog.h"
#include "core/analysis/func-events.h"
#include "core/trace/trace-head.h"

/* The probed events called in some task of one type. */
struct fs_type {
	uint32_t type;
	unsigned int nr;
	uint16_t event[VS_FUNC_MAX_EVENTS];
};

struct vs_fs_state {
	struct vs_func_events *sampled;		/* NULL without samples */
	struct vs_event_def *defs;	/* the sampled ones, then the others */
	unsigned int nr_defs, nr_sampled;
	size_t alloc_defs;
	uint16_t first_id;
	bool *probed;			/* by id - first_id */
	uint16_t *event_of;		/* probe symbol id -> event id */
	uint32_t nr_symbols;
	struct fs_type *types;
	unsigned int nr_types;
	size_t alloc_types;
	const struct vs_ft_task **by_id;	/* probed tasks by id */
	size_t nr_tasks;
};

/* The id of the event named @name, made if new; -1: no memory or room. */
static int event_id(struct vs_fs_state *st, const char *name)
{
	struct vs_event_def *defs;
	unsigned int i;
	char *copy;

	for (i = 0; i < st->nr_defs; i++)
		if (!strcmp(st->defs[i].name, name))
			return st->defs[i].id;
	if (st->first_id + st->nr_defs > VS_EVENT_MAX)
		return -1;
	if (ALLOC_GROW(st->defs, st->nr_defs + 1, st->alloc_defs))
		return -1;
	defs = st->defs;
	copy = strdup(name);
	if (!copy)
		return -1;
	defs[st->nr_defs] = (struct vs_event_def){
		.id = st->first_id + st->nr_defs, .parent = VS_EVENT_NO_PARENT,
		.group = VS_GROUP_FUNC, .name = copy, .unit = "ns",
	};
	return defs[st->nr_defs++].id;
}

static struct fs_type *type_of(const struct vs_fs_state *st, uint32_t type)
{
	unsigned int i;

	for (i = 0; i < st->nr_types; i++)
		if (st->types[i].type == type)
			return &st->types[i];
	return NULL;
}

/* Note that tasks of @type call event @ev's function. */
static int type_calls(struct vs_fs_state *st, uint32_t type, uint16_t ev)
{
	struct fs_type *ft = type_of(st, type);
	unsigned int k;

	if (!ft) {
		if (ALLOC_GROW(st->types, st->nr_types + 1, st->alloc_types))
			return -1;
		ft = &st->types[st->nr_types++];
		memset(ft, 0, sizeof(*ft));
		ft->type = type;
	}
	for (k = 0; k < ft->nr && ft->event[k] != ev; k++)
		;
	if (k == ft->nr && ft->nr < VS_FUNC_MAX_EVENTS)
		ft->event[ft->nr++] = ev;
	return 0;
}

static int cmp_task_id(const void *a, const void *b)
{
	uint64_t x = (*(const struct vs_ft_task **)a)->id;
	uint64_t y = (*(const struct vs_ft_task **)b)->id;

	return (x > y) - (x < y);
}

/* The events of the probed functions, and which types call them. */
static int add_probes(struct vs_fs_state *st, const struct vs_func_times *ft)
{
	char name[512];
	uint32_t s, k;
	size_t i;
	int ev;

	st->nr_symbols = vs_func_times_nr_symbols(ft);
	st->event_of = calloc(st->nr_symbols + 1, sizeof(*st->event_of));
	st->nr_tasks = vs_func_times_nr_tasks(ft);
	st->by_id = calloc(st->nr_tasks + 1, sizeof(*st->by_id));
	if (!st->event_of || !st->by_id)
		return -1;
	for (s = 0; s < st->nr_symbols; s++) {
		vs_func_event_name(name, sizeof(name),
				   vs_func_times_symbol(ft, s));
		ev = event_id(st, name);
		if (ev < 0)
			return -1;
		st->event_of[s] = ev;
	}
	st->probed = calloc(st->nr_defs + 1, sizeof(*st->probed));
	if (!st->probed)
		return -1;
	for (s = 0; s < st->nr_symbols; s++)
		st->probed[st->event_of[s] - st->first_id] = true;
	for (i = 0; i < st->nr_tasks; i++) {
		const struct vs_ft_task *t = vs_func_times_task(ft, i);

		st->by_id[i] = t;
		for (k = 0; k < t->nr_funcs; k++)
			if (type_calls(st, t->type,
				       st->event_of[t->funcs[k].symbol]))
				return -1;
	}
	qsort(st->by_id, st->nr_tasks, sizeof(*st->by_id), cmp_task_id);
	return 0;
}

struct vs_func_sources *vs_func_sources_new(struct vs_task_samples *samples,
					    struct vs_func_times *probes,
					    enum vs_func_estimator est,
					    uint16_t first_id)
{
	struct vs_func_sources *fs = calloc(1, sizeof(*fs));
	struct vs_fs_state *st = calloc(1, sizeof(*st));
	const struct vs_event_def *defs;
	unsigned int nr = 0;

	if (!fs || !st) {
		free(fs);
		free(st);
		vs_task_samples_free(samples);
		vs_func_times_free(probes);
		return NULL;
	}
	fs->samples = samples;
	fs->probes = probes;
	fs->state = st;
	st->first_id = first_id;
	if (samples) {
		st->sampled = vs_func_events_new(samples, est, first_id);
		if (!st->sampled)
			goto fail;
		defs = vs_func_events_defs(st->sampled, &nr);
		if (ALLOC_GROW(st->defs, (size_t)nr + 1, st->alloc_defs))
			goto fail;
		if (nr)		/* defs is NULL without sampled functions */
			memcpy(st->defs, defs, nr * sizeof(*defs));
		st->nr_defs = st->nr_sampled = nr;
	}
	if (probes && add_probes(st, probes))
		goto fail;
	return fs;
fail:
	vs_func_sources_free(fs);
	return NULL;
}

void vs_func_sources_free(struct vs_func_sources *fs)
{
	struct vs_fs_state *st;
	unsigned int i;

	if (!fs)
		return;
	st = fs->state;
	for (i = st->nr_sampled; i < st->nr_defs; i++)
		free((char *)st->defs[i].name);
	free(st->defs);
	free(st->probed);
	free(st->event_of);
	free(st->types);
	free(st->by_id);
	vs_func_events_free(st->sampled);
	free(st);
	vs_func_times_free(fs->probes);
	vs_task_samples_free(fs->samples);
	free(fs);
}

int vs_func_sources_load(const char *path, const struct vs_trace_head *head,
			 enum vs_func_estimator est,
			 struct vs_func_sources **out, char *err,
			 size_t errlen)
{
	return vs_func_sources_load_progress(path, head, est, out, err, errlen,
					     NULL, NULL);
}

int vs_func_sources_load_progress(const char *path,
				  const struct vs_trace_head *head,
				  enum vs_func_estimator est,
				  struct vs_func_sources **out, char *err,
				  size_t errlen, vs_read_progress_fn progress,
				  void *arg)
{
	struct vs_task_samples *samples = NULL;
	struct vs_func_times *probes = NULL;
	uint16_t first_id = 0;
	struct vs_reader *r;
	int ret;

	*out = NULL;
	if (head->samples) {
		ret = vs_task_samples_read_progress(path, &samples, err,
						    errlen, progress, arg);
		if (ret)
			return ret;
		first_id = samples->nr_trace_events;
	}
	if (head->probes) {
		r = vs_reader_open(path, err, errlen);
		if (!r) {
			vs_task_samples_free(samples);
			return VS_LOAD_CORRUPT;
		}
		probes = vs_func_times_read(r, err, errlen);
		first_id = vs_reader_nr_events(r);
		vs_reader_close(r);
		if (!probes) {
			vs_task_samples_free(samples);
			return VS_LOAD_CORRUPT;
		}
	}
	*out = vs_func_sources_new(samples, probes, est, first_id);
	if (!*out) {
		snprintf(err, errlen, "%s: out of memory", path);
		return VS_LOAD_ERROR;
	}
	return VS_LOAD_OK;
}

const struct vs_event_def *
vs_func_sources_defs(const struct vs_func_sources *fs, unsigned int *nr)
{
	*nr = fs->state->nr_defs;
	return fs->state->defs;
}

/* The probed task of record @t, or NULL. */
static const struct vs_ft_task *probed_task(const struct vs_fs_state *st,
					    const struct vs_task *t)
{
	size_t lo = 0, hi = st->nr_tasks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->by_id[mid]->id < t->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < st->nr_tasks && st->by_id[lo]->id == t->id; lo++)
		if (st->by_id[lo]->tid == t->tid &&
		    st->by_id[lo]->start == t->start)
			return st->by_id[lo];
	return NULL;
}

/* The slot of event @ev in @buf[0 .. *n), appended (0) if absent. */
static struct vs_value *value_of(struct vs_value *buf, uint32_t *n,
				 uint32_t max, uint16_t ev)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (buf[i].event == ev)
			return &buf[i];
	if (*n == max)
		return NULL;
	buf[*n] = (struct vs_value){ ev, 0 };
	return &buf[(*n)++];
}

uint32_t vs_func_sources_values(const struct vs_func_sources *fs,
				const struct vs_task *t, struct vs_value *buf,
				uint32_t max)
{
	const struct vs_fs_state *st = fs->state;
	const struct vs_ft_task *task;
	const struct fs_type *ft;
	struct vs_value *v;
	uint32_t n = 0, i;

	if (st->sampled)
		n = vs_func_events_values(st->sampled, t, buf, max);
	task = st->by_id ? probed_task(st, t) : NULL;
	if (!task)
		return n;
	/* the exact time of a probed function wins: from 0, its calls */
	for (i = 0; i < n; i++)
		if (st->probed[buf[i].event - st->first_id])
			buf[i].value = 0;
	ft = type_of(st, t->type);
	for (i = 0; ft && i < ft->nr; i++)
		value_of(buf, &n, max, ft->event[i]);
	for (i = 0; i < task->nr_funcs; i++) {
		v = value_of(buf, &n, n, st->event_of[task->funcs[i].symbol]);
		if (v)
			v->value += task->funcs[i].time;
	}
	return n;
}

static uint32_t task_values(void *arg, const struct vs_task *t,
			    struct vs_value *buf, uint32_t max)
{
	return vs_func_sources_values(arg, t, buf, max);
}

void vs_func_sources_hook(const struct vs_func_sources *fs,
			  struct vs_taskset_opts *o)
{
	if (!fs->state->nr_defs)
		return;
	o->task_values = task_values;
	o->task_values_arg = (void *)fs;
	o->extra_events = vs_func_sources_defs(fs, &o->nr_extra_events);
}
