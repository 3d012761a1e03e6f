// SPDX-License-Identifier: MIT
/*
 * vtree-probes.c - the variance tree of a task type from exact function
 * times (record --probe, core/func-times.h).
 */
#include <string.h>

#include "core/func-times.h"
#include "core/vtree.h"

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

struct vs_vtree *vs_vtree_from_probes(const struct vs_func_times *ft,
				      uint32_t type, const char **why)
{
	size_t i, n = 0, paths = 0, nr = vs_func_times_nr_tasks(ft);
	struct vs_vtree *vt;

	for (i = 0; i < nr; i++) {
		const struct vs_ft_task *task = vs_func_times_task(ft, i);

		if (task->type == type) {
			n++;
			paths += task->nr_paths;
		}
	}
	if (n < 2 || !paths) {
		*why = n < 2 ? "fewer than 2 tasks" :
		       "no probed function ran in its tasks";
		return NULL;
	}
	vt = vs_vtree_new(n, false);
	if (!vt)
		goto nomem;
	for (i = 0, n = 0; i < nr; i++) {
		const struct vs_ft_task *task = vs_func_times_task(ft, i);

		if (task->type == type && add_task(vt, n++, task))
			goto nomem;
	}
	if (vs_vtree_finish(vt))
		goto nomem;
	*why = NULL;
	return vt;
nomem:
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
