// SPDX-License-Identifier: MIT
/*
 * vtree-samples.c - the variance tree of a task type from its samples'
 * callchains (core/analysis/task-samples.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/analysis/task-samples.h"
#include "core/analysis/vtree.h"
#include "core/analysis/wakeup.h"

/* A frame on the path of this share of the sampled time is the tasks'. */
#define DOMINANT_SHARE	0.9
#define MAX_PREFIX	64

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
 * The path in the tree of each sample of a type (in the order of its
 * tasks and their samples): root first, the kernel's frames folded into
 * their entry (kernel_frames()), at least one frame; sample i's is
 * frames[start[i] .. start[i + 1]).  The common prefix is looked for on
 * these, the paths it is cut from: on the raw callchains it could end in
 * kernel frames a path does not hold, and the cut leave no frame.
 */
struct sample_paths {
	size_t nr;
	size_t *start;		/* nr + 1 */
	uint32_t *frames;
	double *weight;		/* ns */
};

static void sample_paths_free(struct sample_paths *p)
{
	free(p->start);
	free(p->frames);
	free(p->weight);
}

static int sample_paths_init(struct sample_paths *p,
			     const struct vs_task_samples *ts, size_t first,
			     size_t nr)
{
	size_t t, s, i = 0, n = 0, nr_frames = 0;
	unsigned int k;

	p->nr = 0;
	for (t = first; t < first + nr; t++) {
		const struct vs_ts_task *task = &ts->tasks[t];

		p->nr += task->nr;
		for (s = task->first; s < task->first + task->nr; s++)
			nr_frames += ts->samples[s].nr_frames;
	}
	p->start = malloc((p->nr + 1) * sizeof(*p->start));
	p->frames = malloc((nr_frames + 1) * sizeof(*p->frames));
	p->weight = malloc((p->nr + 1) * sizeof(*p->weight));
	if (!p->start || !p->frames || !p->weight)
		return -1;
	for (t = first; t < first + nr; t++) {
		const struct vs_ts_task *task = &ts->tasks[t];

		for (s = task->first; s < task->first + task->nr; s++) {
			const struct vs_ts_sample *sm = &ts->samples[s];
			const uint32_t *f = ts->frames + sm->chain;
			unsigned int inner = kernel_frames(ts, sm);

			p->start[i] = n;
			p->weight[i++] = (double)sm->weight_ns;
			/* innermost first in frames[]: root first here */
			for (k = sm->nr_frames; k-- > inner;)
				p->frames[n++] = f[k];
		}
	}
	p->start[i] = n;
	return 0;
}

static unsigned int path_depth(const struct sample_paths *p, size_t i)
{
	return p->start[i + 1] - p->start[i];
}

static bool has_prefix(const struct sample_paths *p, size_t i,
		       const uint32_t *prefix, unsigned int len)
{
	return path_depth(p, i) >= len &&
	       !memcmp(p->frames + p->start[i], prefix, len * sizeof(*prefix));
}

/*
 * Of the tasks [first, first + nr) of @ts that have samples, how many
 * have one on a path that starts with @prefix of @len frames.
 */
static size_t tasks_through(const struct vs_task_samples *ts, size_t first,
			    size_t nr, const struct sample_paths *p,
			    const uint32_t *prefix, unsigned int len)
{
	size_t t, i = 0, end, n = 0;

	for (t = first; t < first + nr; t++) {
		end = i + ts->tasks[t].nr;
		for (; i < end; i++)
			if (has_prefix(p, i, prefix, len))
				break;
		n += i < end;
		i = end;
	}
	return n;
}

/*
 * The frames at the root of the paths that every task goes through
 * (_start, main, the worker loop, the request handler): level by level,
 * the frame under which DOMINANT_SHARE of the sampled time is, in
 * DOMINANT_SHARE of the tasks that have samples.  Not all of it:
 * samples in code without frame pointers lose callers.  By tasks too:
 * the caller that the slow tasks alone go through holds most of the time
 * and is what the tree is to show, not a frame of every task.  The
 * application's frames only: a kernel entry where most of the time is
 * (a handler spinning on a system call) is where the time goes, the
 * child of the function that made the call, not a frame every task goes
 * through.  Writes the prefix into @prefix (room for @max) and returns
 * its length.
 */
static unsigned int dominant_prefix(const struct vs_task_samples *ts,
				    size_t first, size_t nr,
				    const struct sample_paths *p,
				    uint32_t *prefix, unsigned int max)
{
	unsigned int len = 0;
	double total = 0;
	size_t i, sampled = tasks_through(ts, first, nr, p, prefix, 0);

	for (i = 0; i < p->nr; i++)
		total += p->weight[i];
	while (len < max) {
		uint32_t best = UINT32_MAX;
		double weight = 0;

		/* weighted majority vote (Boyer-Moore), checked below */
		for (i = 0; i < p->nr; i++) {
			double w = p->weight[i];
			uint32_t f;

			if (!has_prefix(p, i, prefix, len) ||
			    path_depth(p, i) == len)
				continue;
			f = p->frames[p->start[i] + len];
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
		if (best == UINT32_MAX || is_kernel(ts, best))
			break;
		prefix[len] = best;
		for (i = 0; i < p->nr; i++)
			if (has_prefix(p, i, prefix, len + 1))
				weight += p->weight[i];
		if (weight < DOMINANT_SHARE * total ||
		    tasks_through(ts, first, nr, p, prefix, len + 1) <
		    DOMINANT_SHARE * sampled)
			break;
		len++;
	}
	return len;
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
	size_t first, nr = vs_task_samples_type(ts, type, &first), t, i = 0;
	uint32_t prefix[MAX_PREFIX];
	struct sample_paths p;
	struct vs_vtree *vt = NULL;
	unsigned int skip, k;

	*why = NULL;
	if (nr < 2) {
		*why = "fewer than 2 tasks";
		return NULL;
	}
	if (sample_paths_init(&p, ts, first, nr))
		goto nomem;
	if (!p.nr && !(waits && waits->nr_parts)) {
		sample_paths_free(&p);
		*why = "no samples in its tasks (record with --sample)";
		return NULL;
	}
	skip = dominant_prefix(ts, first, nr, &p, prefix, MAX_PREFIX);
	skip = skip ? skip - 1 : 0;
	vt = vs_vtree_new(nr, true);
	if (!vt)
		goto nomem;
	for (t = 0; t < nr; t++) {
		const struct vs_ts_task *task = &ts->tasks[first + t];
		size_t end = i + task->nr;

		vs_vtree_set_latency(vt, t, (double)(task->end - task->start));
		if (add_waits(vt, t, task->id, waits))
			goto nomem;
		for (; i < end; i++) {
			const uint32_t *path = p.frames + p.start[i];
			unsigned int depth = path_depth(&p, i), cut = 0;

			/* a path that ends in the prefix keeps its leaf */
			if (has_prefix(&p, i, prefix, skip))
				cut = skip < depth ? skip : depth - 1;
			if (vs_vtree_add(vt, t, path + cut, depth - cut,
					 p.weight[i]))
				goto nomem;
		}
		if (task->closed)
			vs_vtree_close_task(vt, t);
	}
	sample_paths_free(&p);
	for (k = 1; k < vt->nr_nodes; k++)
		vt->nodes[k].unprobeable =
			!is_probeable(ts, vt->nodes[k].symbol);
	if (vs_vtree_finish(vt))
		goto nomem_tree;
	return vt;
nomem:
	sample_paths_free(&p);
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
