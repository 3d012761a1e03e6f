// SPDX-License-Identifier: MIT
/*
 * vtree-probes.c - the variance tree of a task type from exact function
 * times (record --probe, core/analysis/func-times.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/analysis/func-times.h"
#include "core/array.h"
#include "core/sort.h"
#include "core/analysis/vtree.h"
#include "core/analysis/wakeup.h"

/* Whether @child is one call deeper than @parent and starts with it. */
static bool extends(const struct vs_ft_path *parent,
		    const struct vs_ft_path *child)
{
	return child->depth == parent->depth + 1 &&
	       !memcmp(child->symbols, parent->symbols,
		       parent->depth * sizeof(parent->symbols[0]));
}

/* Each path adds its self time: its time less its one-deeper paths'. */
static int add_task(struct vs_vtree *vt, size_t t,
		    const struct vs_ft_task *task)
{
	uint32_t i, j;

	vs_vtree_set_latency(vt, t, (double)(task->end - task->start));
	for (i = 0; i < task->nr_paths; i++) {
		const struct vs_ft_path *p = &task->paths[i];
		double self = (double)p->time;

		for (j = 0; j < task->nr_paths; j++)
			if (extends(p, &task->paths[j]))
				self -= (double)task->paths[j].time;
		if (vs_vtree_add(vt, t, p->symbols, p->depth, self))
			return -1;
	}
	return 0;
}

/* A part of a task's waits that is a node: where its thread waited. */
struct wait_of {
	uint32_t tid;
	uint64_t at;
	size_t task;			/* the tree's task index */
	const struct vs_ft_task *ft_task;
	uint32_t symbol;
	uint64_t ns;
};

static int cmp_wait(const void *a, const void *b)
{
	const struct wait_of *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The blamed parts of the waits of the tasks @tasks[0..@n) that are nodes. */
static struct wait_of *waits_of(const struct vs_ft_task *const *tasks,
				size_t n, const struct vs_wake_type *waits,
				size_t *nr)
{
	struct wait_of *w = NULL;
	size_t i, j, k, cap = 0;

	*nr = 0;
	for (i = 0; waits && i < n; i++) {
		const struct vs_ft_task *task = tasks[i];
		const struct vs_wake_part *p;

		k = vs_wake_task_parts(waits, task->id, &p);
		for (j = 0; j < k; j++) {
			uint32_t sym = vs_vtree_wait_symbol(waits, &p[j]);

			if (sym == VS_VTREE_ROOT)
				continue;
			if (ALLOC_GROW(w, *nr + 1, cap)) {
				free(w);
				return NULL;
			}
			w[(*nr)++] = (struct wait_of){ task->tid, p[j].at, i,
						       task, sym, p[j].ns };
		}
	}
	if (!w)		/* none: not out of memory */
		w = malloc(sizeof(*w));
	return w;
}

/*
 * The waits @w[0..@n) as exact nodes under the path of the probed calls
 * their thread was blocked in (those calls' time holds the wait: it moves
 * out of the path's self time), or under the root.
 */
static int add_waits(struct vs_vtree *vt, const struct vs_func_times *ft,
		     struct wait_of *w, size_t n)
{
	struct vs_ft_stack_query *q = calloc(n + 1, sizeof(*q));
	uint32_t path[VS_FT_MAX_DEPTH + 1];
	size_t i, j;

	if (!q)
		return -1;
	vs_qsort(w, n, sizeof(*w), cmp_wait);
	for (i = 0; i < n; i++) {
		q[i].tid = w[i].tid;
		q[i].time = w[i].at;
	}
	vs_func_times_stacks(ft, q, n);
	for (i = 0; i < n; i++) {
		const struct vs_ft_task *task = w[i].ft_task;
		uint32_t depth = 0;

		for (j = 0; j < task->nr_paths; j++)
			if (task->paths[j].depth == q[i].depth &&
			    !memcmp(task->paths[j].symbols, q[i].symbols,
				    q[i].depth * sizeof(q[i].symbols[0])))
				depth = q[i].depth;
		memcpy(path, q[i].symbols, depth * sizeof(path[0]));
		path[depth] = w[i].symbol;
		if ((depth && vs_vtree_add(vt, w[i].task, path, depth,
					   -(double)w[i].ns)) ||
		    vs_vtree_add_exact(vt, w[i].task, path, depth + 1,
				       (double)w[i].ns)) {
			free(q);
			return -1;
		}
	}
	free(q);
	return 0;
}

struct vs_vtree *vs_vtree_from_probes(const struct vs_func_times *ft,
				      uint32_t type,
				      const struct vs_wake_type *waits,
				      const char **why)
{
	const struct vs_ft_task *const *tasks;
	size_t i, paths = 0, n = vs_func_times_type(ft, type, &tasks), nr_waits;
	struct vs_vtree *vt = NULL;
	struct wait_of *w;

	for (i = 0; i < n; i++)
		paths += tasks[i]->nr_paths;
	w = waits_of(tasks, n, waits, &nr_waits);
	if (!w)
		goto nomem;
	if (n < 2 || !paths) {
		*why = n < 2 ? "fewer than 2 tasks" :
		       "no probed function ran in its tasks";
		free(w);
		return NULL;
	}
	vt = vs_vtree_new(n, false);
	if (!vt)
		goto nomem;
	for (i = 0; i < n; i++)
		if (add_task(vt, i, tasks[i]))
			goto nomem;
	if (add_waits(vt, ft, w, nr_waits) || vs_vtree_finish(vt))
		goto nomem;
	free(w);
	*why = NULL;
	return vt;
nomem:
	free(w);
	vs_vtree_free(vt);
	*why = "out of memory";
	return NULL;
}

const char *vs_vtree_probe_symbol(void *func_times, uint32_t id)
{
	return vs_func_times_symbol(func_times, id);
}

const char *vs_vtree_probe_source(void *func_times, uint32_t id)
{
	return vs_func_times_source(func_times, id);
}
