// SPDX-License-Identifier: MIT
/*
 * func-callers.c - the call paths behind a sampled function event's high
 * values.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/func-callers.h"
#include "core/sort.h"

#define PATHS_MAX	4096	/* distinct paths kept; more count in the
				 * total only */

struct path {
	uint32_t depth;
	uint32_t syms[VS_CALLER_DEPTH];	/* innermost first */
	uint64_t ns;
};

struct tally {
	struct path *paths;
	size_t nr, cap;
	uint64_t all;		/* ns of the function in the high tasks */
};

/*
 * The symbol name and measure of @event: "func:NAME.time" (self) or
 * "func:NAME.total"; NULL when it is neither (the name is malloc'd).
 */
static char *event_symbol(const char *event, bool *total)
{
	size_t len = strlen(event);

	if (strncmp(event, "func:", 5))
		return NULL;
	if (len > 10 && !strcmp(event + len - 5, ".time"))
		*total = false;
	else if (len > 11 && !strcmp(event + len - 6, ".total"))
		*total = true;
	else
		return NULL;
	return strndup(event + 5, len - 5 - (*total ? 6 : 5));
}

/*
 * Where function @is (by symbol id) is in sample @s: the innermost of its
 * frames (self: the first frame only); -1 when not there.
 */
static int frame_of(const struct vs_task_samples *ts,
		    const struct vs_ts_sample *s, const bool *is, bool total)
{
	uint32_t j, nr = total ? s->nr_frames : 1;

	for (j = 0; j < nr; j++)
		if (is[ts->frames[s->chain + j]])
			return j;
	return -1;
}

/* The value of the function in @task by @est, as the events have it. */
static uint64_t task_value(const struct vs_task_samples *ts,
			   const struct vs_ts_task *task, const bool *is,
			   bool total, enum vs_func_estimator est)
{
	uint64_t sum = 0, first = 0, last = 0;
	uint32_t k;

	for (k = 0; k < task->nr; k++) {
		const struct vs_ts_sample *s = &ts->samples[task->first + k];

		if (frame_of(ts, s, is, total) < 0)
			continue;
		if (!last)
			first = s->time;
		last = s->time;
		sum += s->weight_ns;
	}
	return est == VS_FUNC_COUNT ? sum : last ? last - first : 0;
}

/* Add @ns to the path of frames [at, at + depth) of @s. */
static int tally_add(struct tally *t, const struct vs_task_samples *ts,
		     const struct vs_ts_sample *s, uint32_t at, uint64_t ns)
{
	struct path p = { .ns = ns };
	size_t i;

	while (p.depth < VS_CALLER_DEPTH && at + p.depth < s->nr_frames) {
		p.syms[p.depth] = ts->frames[s->chain + at + p.depth];
		p.depth++;
	}
	t->all += ns;
	for (i = 0; i < t->nr; i++)
		if (t->paths[i].depth == p.depth &&
		    !memcmp(t->paths[i].syms, p.syms,
			    p.depth * sizeof(p.syms[0]))) {
			t->paths[i].ns += ns;
			return 0;
		}
	if (t->nr == PATHS_MAX)
		return 0;
	if (ALLOC_GROW(t->paths, t->nr + 1, t->cap))
		return -1;
	t->paths[t->nr++] = p;
	return 0;
}

static int cmp_ns_desc(const void *a, const void *b)
{
	const struct path *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/* "outer → ... → function" of @p into @buf. */
static void path_text(const struct vs_task_samples *ts, const struct path *p,
		      char *buf, size_t size)
{
	size_t n = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = p->depth; i-- > 0 && n < size;)
		n += snprintf(buf + n, size - n, "%s%s",
			      i + 1 < p->depth ? " → " : "",
			      ts->symbols[p->syms[i]].name);
}

size_t vs_func_callers(const struct vs_task_samples *ts, uint32_t type,
		       const char *event, enum vs_func_estimator est,
		       double threshold, struct vs_func_caller *out,
		       size_t max)
{
	struct tally t = { 0 };
	size_t first, n, i, shown = 0;
	char *name;
	bool total, *is = NULL;
	uint32_t k;
	int at;

	name = event_symbol(event, &total);
	if (!name)
		return 0;
	is = calloc(ts->nr_symbols + 1, sizeof(*is));
	if (!is)
		goto out;
	for (k = 1; k < ts->nr_symbols; k++)
		is[k] = !strcmp(ts->symbols[k].name, name);
	n = vs_task_samples_type(ts, type, &first);
	for (i = first; i < first + n; i++) {
		const struct vs_ts_task *task = &ts->tasks[i];

		if (!task->nr ||
		    task_value(ts, task, is, total, est) <= threshold)
			continue;
		for (k = 0; k < task->nr; k++) {
			const struct vs_ts_sample *s =
				&ts->samples[task->first + k];

			at = frame_of(ts, s, is, total);
			if (at >= 0 && tally_add(&t, ts, s, at, s->weight_ns))
				goto out;
		}
	}
	vs_qsort(t.paths, t.nr, sizeof(*t.paths), cmp_ns_desc);
	for (i = 0; i < t.nr && shown < max && t.all; i++) {
		path_text(ts, &t.paths[i], out[shown].path,
			  sizeof(out[shown].path));
		out[shown++].share = (double)t.paths[i].ns / t.all;
	}
out:
	free(t.paths);
	free(is);
	free(name);
	return shown;
}
