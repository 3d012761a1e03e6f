// SPDX-License-Identifier: MIT
/*
 * wakeup.c - wake-up edges judged against the tasks and attached
 * intervals of both threads: collect them, sort the intervals by thread
 * and start, then place each edge.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/array.h"
#include "core/attach.h"
#include "core/wakeup.h"

struct interval {
	uint32_t tid;
	uint64_t start, end;
	uint64_t task;			/* the task it is or serves */
};

struct task_type_of {
	uint64_t id;
	uint32_t type;
};

struct vs_wake_build {
	struct vs_attach_map *attach;
	struct interval *iv;
	size_t nr_iv, cap_iv;
	struct task_type_of *tasks;
	size_t nr_tasks, cap_tasks;
	struct vs_wakeup *edges;
	size_t nr_edges, cap_edges;
};

struct vs_wake_build *vs_wake_build_new(void)
{
	struct vs_wake_build *b = calloc(1, sizeof(*b));

	if (b && !(b->attach = vs_attach_map_new())) {
		free(b);
		return NULL;
	}
	return b;
}

static void build_free(struct vs_wake_build *b)
{
	vs_attach_map_free(b->attach);
	free(b->iv);
	free(b->tasks);
	free(b->edges);
	free(b);
}

int vs_wake_build_feed(struct vs_wake_build *b, const struct vs_record *rec)
{
	const struct vs_task *t = &rec->task;
	uint64_t serves;

	if (vs_attach_map_add(b->attach, rec))
		return -1;
	if (rec->kind == VS_REC_WAKEUP) {
		if (vs_grow(&b->edges, &b->cap_edges, b->nr_edges + 1,
			    sizeof(*b->edges)))
			return -1;
		b->edges[b->nr_edges++] = rec->wakeup;
		return 0;
	}
	if (rec->kind != VS_REC_TASK)
		return 0;
	serves = vs_attach_map_served(b->attach, t);
	if (!serves && !(t->flags & VS_TASK_ATTACHED)) {
		if (vs_grow(&b->tasks, &b->cap_tasks, b->nr_tasks + 1,
			    sizeof(*b->tasks)))
			return -1;
		b->tasks[b->nr_tasks++] = (struct task_type_of){ t->id,
								 t->type };
	}
	if (vs_grow(&b->iv, &b->cap_iv, b->nr_iv + 1, sizeof(*b->iv)))
		return -1;
	b->iv[b->nr_iv++] = (struct interval){ t->tid, t->start, t->end,
					       serves ? serves : t->id };
	return 0;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_type_of *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The last interval of @tid that starts at or before @time, or NULL. */
static const struct interval *last_before(const struct vs_wake_build *b,
					  uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = b->nr_iv;

	while (lo < hi) {	/* first after (tid, time) */
		size_t mid = lo + (hi - lo) / 2;
		const struct interval *m = &b->iv[mid];

		if (m->tid < tid || (m->tid == tid && m->start <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && b->iv[lo - 1].tid == tid ? &b->iv[lo - 1] : NULL;
}

static struct vs_wake_type *type_counts(struct vs_wake_blame *wb,
					uint32_t type)
{
	struct vs_wake_type *t;
	unsigned int i;

	for (i = 0; i < wb->nr_types; i++)
		if (wb->types[i].type == type)
			return &wb->types[i];
	t = realloc(wb->types, (wb->nr_types + 1) * sizeof(*t));
	if (!t)
		return NULL;
	wb->types = t;
	for (i = wb->nr_types; i > 0 && t[i - 1].type > type; i--)
		t[i] = t[i - 1];
	t[i] = (struct vs_wake_type){ .type = type };
	wb->nr_types++;
	return &t[i];
}

/* What the waker of @e did for task @wakee_iv->task. */
static enum vs_waker_kind judge(const struct vs_wake_build *b,
				const struct vs_wakeup *e,
				const struct interval *wakee_iv)
{
	const struct interval *w = last_before(b, e->waker_tid, e->time);

	if (!e->waker_tid)
		return VS_WAKER_INTERRUPT;
	if (w && w->task == wakee_iv->task && w->end >= wakee_iv->start)
		return VS_WAKER_SAME_TASK;
	if (w && w->end >= e->time)
		return VS_WAKER_OTHER_TASK;
	return VS_WAKER_OUTSIDE;
}

struct vs_wake_blame *vs_wake_build_finish(struct vs_wake_build *b)
{
	struct vs_wake_blame *wb = calloc(1, sizeof(*wb));
	size_t i;

	if (!wb)
		goto fail;
	if (b->nr_iv)
		qsort(b->iv, b->nr_iv, sizeof(*b->iv), cmp_interval);
	if (b->nr_tasks)
		qsort(b->tasks, b->nr_tasks, sizeof(*b->tasks), cmp_task);
	for (i = 0; i < b->nr_edges; i++) {
		const struct vs_wakeup *e = &b->edges[i];
		const struct interval *iv = last_before(b, e->wakee_tid,
							e->time);
		struct task_type_of key, *task;
		struct vs_wake_type *tc;

		if (!iv || iv->end < e->time)
			continue;	/* not inside a task */
		key.id = iv->task;
		task = b->nr_tasks ? bsearch(&key, b->tasks, b->nr_tasks,
					     sizeof(*b->tasks), cmp_task) :
				     NULL;
		if (!task)
			continue;	/* serves a task not in the trace */
		tc = type_counts(wb, task->type);
		if (!tc)
			goto fail;
		tc->edges[judge(b, e, iv)]++;
	}
	build_free(b);
	return wb;
fail:
	vs_wake_blame_free(wb);
	build_free(b);
	return NULL;
}

struct vs_wake_blame *vs_wake_blame_read(const char *path, char *err,
					 size_t errlen)
{
	struct vs_reader *r = vs_reader_open(path, err, errlen);
	struct vs_wake_build *b;
	struct vs_record rec;
	int ret = 0;

	if (!r)
		return NULL;
	b = vs_wake_build_new();
	while (b && (ret = vs_reader_next(r, &rec)) > 0)
		if (vs_wake_build_feed(b, &rec))
			break;
	if (!b || ret > 0) {
		snprintf(err, errlen, "out of memory reading wake-up edges");
	} else if (ret < 0) {
		snprintf(err, errlen, "%s", vs_reader_error(r));
	} else {
		vs_reader_close(r);
		return vs_wake_build_finish(b);
	}
	if (b)
		build_free(b);
	vs_reader_close(r);
	return NULL;
}

void vs_wake_blame_free(struct vs_wake_blame *wb)
{
	if (wb)
		free(wb->types);
	free(wb);
}

const struct vs_wake_type *vs_wake_blame_type(const struct vs_wake_blame *wb,
					      uint32_t type)
{
	unsigned int i;

	for (i = 0; wb && i < wb->nr_types; i++)
		if (wb->types[i].type == type)
			return &wb->types[i];
	return NULL;
}

const char *vs_waker_kind_name(enum vs_waker_kind k)
{
	static const char *const names[VS_WAKER__NR] = {
		[VS_WAKER_SAME_TASK] = "same_task",
		[VS_WAKER_OTHER_TASK] = "other_task",
		[VS_WAKER_OUTSIDE] = "outside_tasks",
		[VS_WAKER_INTERRUPT] = "interrupt",
	};

	return k < VS_WAKER__NR ? names[k] : "?";
}
