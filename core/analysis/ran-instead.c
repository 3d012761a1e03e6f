// SPDX-License-Identifier: MIT
/*
 * ran-instead.c - who ran while the slow tasks waited (ran-instead.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/ran-instead.h"
#include "core/analysis/ranking.h"
#include "core/sort.h"
#include "core/analysis/taskset.h"

/* @t's value of @event; 0 when it has none. */
static uint64_t task_value(const struct vs_task *t, int event)
{
	uint32_t i;

	for (i = 0; event >= 0 && i < t->nr_values; i++)
		if (t->values[i].event == event)
			return t->values[i].value;
	return 0;
}

int vs_ran_list_feed(struct vs_ran_list *l, const struct vs_record *rec,
		     int event)
{
	const struct vs_ran_instead *ri = &rec->ran_instead;
	struct vs_ran_entry *e;
	uint64_t wait;
	size_t i;

	if (rec->kind == VS_REC_RAN_INSTEAD) {
		if (l->nr_pending && l->pending_task != ri->task_id)
			l->nr_pending = 0;
		if (l->nr_pending == VS_RAN_PENDING_MAX)
			return 0;
		l->pending_task = ri->task_id;
		e = &l->pending[l->nr_pending++];
		*e = (struct vs_ran_entry){ .pid = ri->pid, .tid = ri->tid,
					    .time_ns = ri->time_ns };
		snprintf(e->comm, sizeof(e->comm), "%s",
			 ri->comm ? ri->comm : "");
		return 0;
	}
	if (rec->kind != VS_REC_TASK)
		return 0;
	if (l->nr_pending && l->pending_task == rec->task.id) {
		if (ALLOC_GROW(l->entries, l->nr + l->nr_pending, l->alloc))
			return -1;
		wait = task_value(&rec->task, event);
		for (i = 0; i < l->nr_pending; i++) {
			e = &l->entries[l->nr++];
			*e = l->pending[i];
			e->type = rec->task.type;
			e->wait_ns = wait;
		}
	}
	l->nr_pending = 0;
	return 0;
}

int vs_ran_list_merge(struct vs_ran_list *dst, struct vs_ran_list *src)
{
	int ret = 0;

	if (src->nr && !ALLOC_GROW(dst->entries, dst->nr + src->nr, dst->alloc)) {
		memcpy(dst->entries + dst->nr, src->entries,
		       src->nr * sizeof(*src->entries));
		dst->nr += src->nr;
	} else if (src->nr) {
		ret = -1;
	}
	vs_ran_list_release(src);
	return ret;
}

void vs_ran_list_release(struct vs_ran_list *l)
{
	free(l->entries);
	*l = (struct vs_ran_list){ 0 };
}

static int add_thread(struct vs_ran_blame *b, const struct vs_ran_entry *ri)
{
	struct vs_ran_thread *t;
	size_t i;

	for (i = 0; i < b->nr; i++) {
		t = &b->threads[i];
		if (t->pid == ri->pid && t->tid == ri->tid &&
		    !strncmp(t->comm, ri->comm, sizeof(t->comm) - 1))
			break;
	}
	if (i == b->nr) {
		if (ALLOC_GROW(b->threads, b->nr + 1, b->alloc))
			return -1;
		t = &b->threads[b->nr++];
		*t = (struct vs_ran_thread){ .pid = ri->pid, .tid = ri->tid };
		snprintf(t->comm, sizeof(t->comm), "%s", ri->comm);
	}
	b->threads[i].time_ns += ri->time_ns;
	b->threads[i].tasks++;
	return 0;
}

/* The largest time first; the others, summed by the recorder, last. */
static int cmp_time(const void *a, const void *b)
{
	const struct vs_ran_thread *x = a, *y = b;

	if (!x->tid != !y->tid)
		return !x->tid ? 1 : -1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int vs_ran_blame(const struct vs_taskset *ts, const struct vs_task_type *tt,
		 const struct vs_type_rank *tr, struct vs_ran_blame *out)
{
	int id = vs_taskset_event_by_name(ts, VS_RAN_EVENT);
	const struct vs_event_rank *er = id >= 0 ?
		vs_event_rank_find(tr, id) : NULL;
	const struct vs_column *col;
	size_t i;
	float v;

	*out = (struct vs_ran_blame){ .event = -1 };
	if (!er || er->status != VS_RANK_RANKED || !er->high_tasks ||
	    !(col = vs_column_find(tt, id)))
		return 0;
	out->event = id;
	for (i = 0; i < tt->nr_tasks; i++)
		if (vs_column_value(col, i, &v) && v > er->thr.value) {
			out->wait_ns += (uint64_t)v;
			out->tasks++;
		}
	for (i = 0; i < ts->ran.nr; i++) {
		const struct vs_ran_entry *e = &ts->ran.entries[i];

		if (e->type == tt->type &&
		    (float)e->wait_ns > er->thr.value && add_thread(out, e)) {
			vs_ran_blame_release(out);
			return -1;
		}
	}
	vs_qsort(out->threads, out->nr, sizeof(*out->threads), cmp_time);
	return 0;
}

void vs_ran_blame_release(struct vs_ran_blame *b)
{
	free(b->threads);
	*b = (struct vs_ran_blame){ 0 };
}
