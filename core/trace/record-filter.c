// SPDX-License-Identifier: MIT
/*
 * record-filter.c - the record filters of varscope script
 * (record-filter.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/trace/record-filter.h"
#include "core/trace/trace-codec.h"

static bool tid_field(const struct vs_field *f)
{
	size_t n = strlen(f->name);

	return !strcmp(f->name, "tid") ||
	       (n > 4 && !strcmp(f->name + n - 4, "_tid"));
}

/* Whether a field of @rec names thread @tid; false without such a field. */
static bool has_tid(const struct vs_kind_desc *d, const struct vs_record *rec,
		    uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++)
		if (tid_field(&d->fields[i]) &&
		    vs_field_u64(rec, &d->fields[i]) == tid)
			return true;
	return false;
}

/* The first time field of @rec in [from, to); false without one. */
static bool in_time(const struct vs_kind_desc *d, const struct vs_record *rec,
		    uint64_t from, uint64_t to)
{
	unsigned int i;
	uint64_t t;

	for (i = 0; i < d->nr_fields; i++) {
		if (d->fields[i].type != VS_F_TIME)
			continue;
		t = vs_field_u64(rec, &d->fields[i]);
		return t >= from && t < to;
	}
	return false;
}

bool vs_record_filter_match(const struct vs_record_filter *f,
			    const struct vs_record *rec)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	bool tasks_only = f->by_type || f->by_latency || f->slowest;

	if (!d)
		return false;
	if (tasks_only) {
		if (rec->kind != VS_REC_TASK)
			return false;
		if (f->by_type && rec->task.type != f->type)
			return false;
		if (f->by_latency &&
		    rec->task.end - rec->task.start < f->min_latency_ns)
			return false;
	}
	if (f->by_tid && !has_tid(d, rec, f->tid))
		return false;
	return !f->by_time || in_time(d, rec, f->from_ns, f->to_ns);
}

/* --- the N slowest --- */

static uint64_t latency(const struct vs_slowest_task *t)
{
	return t->task.end - t->task.start;
}

/* @a is kept before @b: slower, or as slow and earlier in the file. */
static bool before(const struct vs_slowest_task *a,
		   const struct vs_slowest_task *b)
{
	return latency(a) > latency(b) ||
	       (latency(a) == latency(b) && a->order < b->order);
}

static void swap(struct vs_slowest_task *a, struct vs_slowest_task *b)
{
	struct vs_slowest_task t = *a;

	*a = *b;
	*b = t;
}

/* The heap's root is the task that goes first when a better one comes. */
static void sift_down(struct vs_slowest *s, size_t i, size_t n)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && before(&s->heap[m], &s->heap[l]))
			m = l;
		if (r < n && before(&s->heap[m], &s->heap[r]))
			m = r;
		if (m == i)
			return;
		swap(&s->heap[i], &s->heap[m]);
		i = m;
	}
}

static void sift_up(struct vs_slowest *s, size_t i)
{
	while (i && before(&s->heap[(i - 1) / 2], &s->heap[i])) {
		swap(&s->heap[i], &s->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static int copy_task(struct vs_slowest_task *k, const struct vs_task *t,
		     uint64_t order)
{
	struct vs_value *v = NULL;

	if (t->nr_values) {
		v = malloc(t->nr_values * sizeof(*v));
		if (!v)
			return -1;
		memcpy(v, t->values, t->nr_values * sizeof(*v));
	}
	free(k->values);
	k->task = *t;
	k->task.values = v;
	k->values = v;
	k->order = order;
	return 0;
}

void vs_slowest_init(struct vs_slowest *s, size_t max)
{
	*s = (struct vs_slowest){ .max = max };
}

int vs_slowest_add(struct vs_slowest *s, const struct vs_task *t)
{
	struct vs_slowest_task cand = { .task = *t, .order = s->seen++ };

	if (s->nr == s->max) {
		if (!before(&cand, &s->heap[0]))
			return 0;
		if (copy_task(&s->heap[0], t, cand.order))
			return -1;
		sift_down(s, 0, s->nr);
		return 0;
	}
	if (ALLOC_GROW(s->heap, s->nr + 1, s->alloc))
		return -1;
	s->heap[s->nr].values = NULL;
	if (copy_task(&s->heap[s->nr], t, cand.order))
		return -1;
	sift_up(s, s->nr++);
	return 0;
}

void vs_slowest_sort(struct vs_slowest *s)
{
	size_t n = s->nr;

	/* heapsort: the root (the last to keep) goes to the end */
	while (n > 1) {
		swap(&s->heap[0], &s->heap[--n]);
		sift_down(s, 0, n);
	}
}

void vs_slowest_release(struct vs_slowest *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->heap[i].values);
	free(s->heap);
	*s = (struct vs_slowest){ 0 };
}
