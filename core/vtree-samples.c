// SPDX-License-Identifier: MIT
/*
 * vtree-samples.c - the variance tree of a task type from its samples'
 * callchains (core/task-samples.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/task-samples.h"
#include "core/vtree.h"
#include "core/wakeup.h"

/* A frame on the path of this share of the sampled time is the tasks'. */
#define DOMINANT_SHARE	0.9
#define MAX_PREFIX	64

/* Frame @d from the root of sample @sm, or UINT32_MAX past its end. */
static uint32_t frame_from_root(const struct vs_task_samples *ts,
				const struct vs_ts_sample *sm, unsigned int d)
{
	if (d >= sm->nr_frames)
		return UINT32_MAX;
	return ts->frames[sm->chain + sm->nr_frames - 1 - d];
}

static bool has_prefix(const struct vs_task_samples *ts,
		       const struct vs_ts_sample *sm, const uint32_t *prefix,
		       unsigned int len)
{
	unsigned int d;

	for (d = 0; d < len; d++)
		if (frame_from_root(ts, sm, d) != prefix[d])
			return false;
	return true;
}

/*
 * The frames at the root of the callchains that every task goes through
 * (_start, main, the worker loop, the request handler): level by level,
 * the frame under which DOMINANT_SHARE of the sampled time is.  Not all
 * of it: samples in code without frame pointers lose callers.  Writes
 * the prefix into @prefix (room for @max) and returns its length.
 */
static unsigned int dominant_prefix(const struct vs_task_samples *ts,
				    size_t first, size_t nr, uint32_t *prefix,
				    unsigned int max)
{
	unsigned int len = 0;
	double total = 0;
	size_t t, s;

	for (t = first; t < first + nr; t++)
		for (s = ts->tasks[t].first;
		     s < ts->tasks[t].first + ts->tasks[t].nr; s++)
			total += (double)ts->samples[s].weight_ns;
	while (len < max) {
		uint32_t best = UINT32_MAX;
		double weight = 0;

		/* weighted majority vote (Boyer-Moore), checked below */
		for (t = first; t < first + nr; t++)
			for (s = ts->tasks[t].first;
			     s < ts->tasks[t].first + ts->tasks[t].nr; s++) {
				const struct vs_ts_sample *sm = &ts->samples[s];
				double w = (double)sm->weight_ns;
				uint32_t f;

				if (!has_prefix(ts, sm, prefix, len))
					continue;
				f = frame_from_root(ts, sm, len);
				if (f == best) {
					weight += w;
				} else if (weight < w) {
					best = f;
					weight = w - weight;
				} else {
					weight -= w;
				}
			}
		weight = 0;
		if (best == UINT32_MAX)
			break;
		prefix[len] = best;
		for (t = first; t < first + nr; t++)
			for (s = ts->tasks[t].first;
			     s < ts->tasks[t].first + ts->tasks[t].nr; s++)
				if (has_prefix(ts, &ts->samples[s], prefix,
					       len + 1))
					weight += (double)
						ts->samples[s].weight_ns;
		if (weight < DOMINANT_SHARE * total)
			break;
		len++;
	}
	return len;
}

static bool is_kernel(const struct vs_task_samples *ts, uint32_t id)
{
	return id < ts->nr_symbols && ts->symbols[id].file &&
	       !strcmp(ts->symbols[id].file, "[kernel]");
}

/*
 * Whether --probe can measure symbol @id: a named function of a user
 * binary, not the kernel's, JIT code or an address without a symbol
 * ("[libc.so.6]").
 */
static bool is_probeable(const struct vs_task_samples *ts, uint32_t id)
{
	const struct vs_ts_symbol *sym;

	if (id >= ts->nr_symbols)
		return false;
	sym = &ts->symbols[id];
	return sym->name && sym->name[0] != '[' && sym->file &&
	       sym->file[0] && sym->file[0] != '[';
}

/*
 * The kernel frames of a sample but its outermost one (the entry: a
 * system call, interrupt or fault handler): the tree is one of the
 * application's functions, the kernel's time in each stays whole under
 * its entry, and deep kernel stacks do not swamp the heights.
 */
static unsigned int kernel_frames(const struct vs_task_samples *ts,
				  const struct vs_ts_sample *sm)
{
	const uint32_t *f = ts->frames + sm->chain;
	unsigned int k = 0;

	while (k + 1 < sm->nr_frames && is_kernel(ts, f[k]) &&
	       is_kernel(ts, f[k + 1]))
		k++;
	return k;
}

/*
 * The parts of task @task's waits blamed on threads that did not work for
 * it: exact children of the root.  (A thread attached to the task worked
 * for it: its samples are the task's already.)
 */
static int add_waits(struct vs_vtree *vt, size_t t, uint64_t task,
		     const struct vs_wake_type *waits)
{
	const struct vs_wake_part *p;
	size_t i, n = vs_wake_task_parts(waits, task, &p);

	for (i = 0; i < n; i++) {
		uint32_t sym = vs_vtree_wait_symbol(waits, &p[i]);

		if (sym != VS_VTREE_ROOT &&
		    vs_vtree_add_exact(vt, t, &sym, 1, (double)p[i].ns))
			return -1;
	}
	return 0;
}

struct vs_vtree *vs_vtree_from_samples(const struct vs_task_samples *ts,
				       uint32_t type,
				       const struct vs_wake_type *waits,
				       const char **why)
{
	size_t first, nr = vs_task_samples_type(ts, type, &first), t, s;
	unsigned int skip, k, max_frames = 0;
	uint32_t prefix[MAX_PREFIX];
	struct vs_vtree *vt;
	uint32_t *path;
	uint64_t nr_samples = 0;

	for (t = first; t < first + nr; t++) {
		const struct vs_ts_task *task = &ts->tasks[t];

		nr_samples += task->nr;
		for (s = task->first; s < task->first + task->nr; s++)
			if (ts->samples[s].nr_frames > max_frames)
				max_frames = ts->samples[s].nr_frames;
	}
	*why = NULL;
	if (nr < 2) {
		*why = "fewer than 2 tasks";
		return NULL;
	}
	if (!nr_samples && !(waits && waits->nr_parts)) {
		*why = "no samples in its tasks (record with --sample)";
		return NULL;
	}
	skip = dominant_prefix(ts, first, nr, prefix, MAX_PREFIX);
	skip = skip ? skip - 1 : 0;
	vt = vs_vtree_new(nr, true);
	path = malloc((max_frames + 1) * sizeof(*path));
	if (!vt || !path)
		goto nomem;
	for (t = 0; t < nr; t++) {
		const struct vs_ts_task *task = &ts->tasks[first + t];

		vs_vtree_set_latency(vt, t, (double)(task->end - task->start));
		if (add_waits(vt, t, task->id, waits))
			goto nomem;
		for (s = task->first; s < task->first + task->nr; s++) {
			const struct vs_ts_sample *sm = &ts->samples[s];
			const uint32_t *f = ts->frames + sm->chain;
			unsigned int depth = 0, top = sm->nr_frames;
			unsigned int inner = kernel_frames(ts, sm);

			if (has_prefix(ts, sm, prefix, skip))
				top -= skip;
			/* innermost first in frames[]: root first in path */
			for (k = top; k-- > inner;)
				path[depth++] = f[k];
			if (vs_vtree_add(vt, t, path, depth,
					 (double)sm->weight_ns))
				goto nomem;
		}
		if (task->closed)
			vs_vtree_close_task(vt, t);
	}
	free(path);
	for (k = 1; k < vt->nr_nodes; k++)
		vt->nodes[k].unprobeable =
			!is_probeable(ts, vt->nodes[k].symbol);
	if (vs_vtree_finish(vt))
		goto nomem_tree;
	return vt;
nomem:
	free(path);
nomem_tree:
	vs_vtree_free(vt);
	*why = "out of memory";
	return NULL;
}

const char *vs_vtree_sample_symbol(void *samples, uint32_t id)
{
	const struct vs_task_samples *ts = samples;

	return id < ts->nr_symbols ? ts->symbols[id].name : "[unknown]";
}

const char *vs_vtree_sample_source(void *samples, uint32_t id)
{
	const struct vs_task_samples *ts = samples;

	return id < ts->nr_symbols ? ts->symbols[id].src : NULL;
}

const char *vs_vtree_sample_library(void *samples, uint32_t id)
{
	const struct vs_task_samples *ts = samples;
	const char *file, *base;

	if (id >= ts->nr_symbols || !(file = ts->symbols[id].file))
		return NULL;
	base = strrchr(file, '/');
	return strstr(base ? base : file, ".so") ? file : NULL;
}
