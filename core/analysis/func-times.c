// SPDX-License-Identifier: MIT
/*
 * func-times.c - exact function times per task from FUNC records.
 *
 * The whole trace is read once: FUNC records and tasks are collected, both
 * sorted by thread and time, then each thread's records are replayed with
 * a stack of open calls.  A call closes at its exit; its [enter, exit] is
 * cut with each task of the thread it overlaps (tasks of one thread do not
 * overlap, so a binary search finds the first).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/attach.h"
#include "core/analysis/func-times.h"
#include "core/id-index.h"
#include "core/sort.h"
#include "core/symbols/symbols.h"

struct ft_call {
	uint64_t time;
	uint64_t order;		/* trace order among equal times */
	uint32_t tid;
	uint32_t symbol;	/* the record's id, then its index */
	uint8_t dir;
};

struct ft_open {
	uint64_t enter;
	uint32_t symbol;
};

struct vs_func_times {
	struct vs_ft_task *tasks;	/* trace order */
	size_t nr_tasks, cap_tasks;
	struct vs_ft_task **by_tid;	/* sorted by tid, start */
	struct vs_ft_task **by_type;	/* sorted by type, trace order */
	struct ft_call *calls;
	size_t nr_calls, cap_calls;
	char **symbols;			/* by index, in order of declaration */
	char **sources;			/* "file.c:12" or NULL, per symbol */
	size_t nr_symbols, cap_symbols, cap_sources;
	struct vs_id_index symbol_index;	/* symbol id -> index */
	struct vs_symbols *syms;	/* while reading: the sources */
	uint64_t unmatched;
};

static int cmp_call(const void *a, const void *b)
{
	const struct ft_call *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_task(const void *a, const void *b)
{
	const struct vs_ft_task *x = *(const struct vs_ft_task **)a;
	const struct vs_ft_task *y = *(const struct vs_ft_task **)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_task_type(const void *a, const void *b)
{
	const struct vs_ft_task *x = *(const struct vs_ft_task **)a;
	const struct vs_ft_task *y = *(const struct vs_ft_task **)b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return (x > y) - (x < y);	/* in ft->tasks: trace order */
}

/*
 * A symbol definition: a new id gets the next index (the id is the file's
 * number, any 32-bit one: it indexes nothing), a known one its new name.
 */
static int add_symbol(struct vs_func_times *ft, const struct vs_symbol_def *d)
{
	long i = vs_id_index_find(&ft->symbol_index, d->id);
	const char *src;

	if (i < 0) {
		i = ft->nr_symbols;
		if (ALLOC_GROW(ft->symbols, i + 1, ft->cap_symbols) ||
		    ALLOC_GROW(ft->sources, i + 1, ft->cap_sources) ||
		    vs_id_index_add(&ft->symbol_index, d->id, i))
			return -1;
		ft->symbols[i] = ft->sources[i] = NULL;
		ft->nr_symbols++;
	}
	free(ft->symbols[i]);
	free(ft->sources[i]);
	ft->sources[i] = NULL;
	ft->symbols[i] = strdup(d->name);
	if (!ft->symbols[i])
		return -1;
	if (!ft->syms && !(ft->syms = vs_symbols_new()))
		return -1;
	src = d->binary ? vs_symbols_func_srcline(ft->syms, d->binary,
						  d->name) : NULL;
	if (src && !(ft->sources[i] = strdup(src)))
		return -1;
	return 0;
}

/*
 * The calls' symbol ids become the indices of their definitions; a call
 * of a symbol the trace never defined is unmatched and dropped.
 */
static void index_calls(struct vs_func_times *ft)
{
	size_t i, n = 0;
	long k;

	for (i = 0; i < ft->nr_calls; i++) {
		k = vs_id_index_find(&ft->symbol_index, ft->calls[i].symbol);
		if (k < 0) {
			ft->unmatched++;
			continue;
		}
		ft->calls[n] = ft->calls[i];
		ft->calls[n++].symbol = k;
	}
	ft->nr_calls = n;
}

static int collect(struct vs_func_times *ft, struct vs_reader *r,
		   struct vs_attach_map *attach)
{
	struct vs_record rec;
	int ret;

	while ((ret = vs_reader_next(r, &rec)) > 0) {
		if (vs_attach_map_add(attach, &rec))
			return -1;
		if (rec.kind == VS_REC_FUNC) {
			if (ALLOC_GROW(ft->calls, ft->nr_calls + 1, ft->cap_calls))
				return -1;
			ft->calls[ft->nr_calls] = (struct ft_call){
				rec.func.time, ft->nr_calls, rec.func.tid,
				rec.func.symbol, rec.func.dir };
			ft->nr_calls++;
		} else if (rec.kind == VS_REC_TASK) {
			if (ALLOC_GROW(ft->tasks, ft->nr_tasks + 1, ft->cap_tasks))
				return -1;
			ft->tasks[ft->nr_tasks++] = (struct vs_ft_task){
				.id = rec.task.id, .type = rec.task.type,
				.tid = rec.task.tid, .start = rec.task.start,
				.end = rec.task.end,
				.serves = vs_attach_map_served(attach,
							       &rec.task) };
		} else if (rec.kind == VS_REC_SYMBOL_DEF) {
			if (add_symbol(ft, &rec.symbol_def))
				return -1;
		}
	}
	return ret;
}

static struct vs_ft_func *task_func(struct vs_ft_task *t, uint32_t symbol)
{
	uint32_t i;

	for (i = 0; i < t->nr_funcs; i++)
		if (t->funcs[i].symbol == symbol)
			return &t->funcs[i];
	if (ALLOC_GROW(t->funcs, t->nr_funcs + 1, t->alloc_funcs))
		return NULL;
	t->funcs[t->nr_funcs] = (struct vs_ft_func){ .symbol = symbol };
	return &t->funcs[t->nr_funcs++];
}

static struct vs_ft_path *task_path(struct vs_ft_task *t,
				    const uint32_t *symbols, uint32_t depth)
{
	struct vs_ft_path *p;
	uint32_t i, j;

	if (depth > VS_FT_MAX_DEPTH)
		depth = VS_FT_MAX_DEPTH;
	for (i = 0; i < t->nr_paths; i++) {
		p = &t->paths[i];
		for (j = 0; p->depth == depth && j < depth; j++)
			if (p->symbols[j] != symbols[j])
				break;
		if (p->depth == depth && j == depth)
			return p;
	}
	if (ALLOC_GROW(t->paths, t->nr_paths + 1, t->alloc_paths))
		return NULL;
	p = &t->paths[t->nr_paths++];
	memset(p, 0, sizeof(*p));
	p->depth = depth;
	memcpy(p->symbols, symbols, depth * sizeof(*symbols));
	return p;
}

/* Is @symbol open below the top of @stack (a recursive call)? */
static int recursive(const struct ft_open *stack, uint32_t depth)
{
	uint32_t i;

	for (i = 0; i + 1 < depth; i++)
		if (stack[i].symbol == stack[depth - 1].symbol)
			return 1;
	return 0;
}

/* The call on top of @stack ends at @exit: credit the tasks it overlaps. */
static int close_call(struct vs_ft_task **tasks, size_t n,
		      const struct ft_open *stack, uint32_t depth,
		      uint64_t exit)
{
	uint64_t enter = stack[depth - 1].enter;
	uint32_t symbols[VS_FT_MAX_DEPTH], i;
	size_t lo = 0, hi = n;

	for (i = 0; i < depth && i < VS_FT_MAX_DEPTH; i++)
		symbols[i] = stack[i].symbol;
	while (lo < hi) {	/* first task ending after @enter */
		size_t mid = (lo + hi) / 2;

		if (tasks[mid]->end <= enter)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && tasks[lo]->start < exit; lo++) {
		struct vs_ft_task *t = tasks[lo];
		uint64_t from = enter > t->start ? enter : t->start;
		uint64_t to = exit < t->end ? exit : t->end;
		struct vs_ft_path *p = task_path(t, symbols, depth);
		struct vs_ft_func *f;

		if (!p)
			return -1;
		p->time += to - from;
		p->calls++;
		if (recursive(stack, depth))
			continue;
		f = task_func(t, stack[depth - 1].symbol);
		if (!f)
			return -1;
		f->time += to - from;
		f->calls++;
	}
	return 0;
}

#define FT_STACK	(VS_FT_MAX_DEPTH * 4)

/*
 * Apply call record @c to @stack, the *@depth calls open on its thread:
 * an enter opens a call, an exit closes the innermost open call of its
 * function (the calls above it lost their exit: dropped).  Returns the
 * depth of the call an exit closed (@stack keeps it), 0 for none; adds
 * the records and calls left unmatched to *@unmatched.
 */
static uint32_t step(struct ft_open *stack, uint32_t *depth,
		     const struct ft_call *c, uint64_t *unmatched)
{
	uint32_t i;

	if (c->dir == VS_FUNC_ENTER) {
		if (*depth == FT_STACK)
			(*unmatched)++;
		else
			stack[(*depth)++] = (struct ft_open){ c->time,
							      c->symbol };
		return 0;
	}
	for (i = *depth; i && stack[i - 1].symbol != c->symbol; i--)
		;
	if (!i) {
		(*unmatched)++;
		return 0;
	}
	*unmatched += *depth - i;
	*depth = i - 1;
	return i;
}

/* Replay the calls of one thread against its tasks. */
static int replay(struct vs_func_times *ft, const struct ft_call *c, size_t nc,
		  struct vs_ft_task **tasks, size_t nt)
{
	struct ft_open stack[FT_STACK];
	uint32_t depth = 0, closed;
	size_t k;

	for (k = 0; k < nc; k++) {
		closed = step(stack, &depth, &c[k], &ft->unmatched);
		if (closed && close_call(tasks, nt, stack, closed, c[k].time))
			return -1;
	}
	ft->unmatched += depth;
	return 0;
}

void vs_func_times_stacks(const struct vs_func_times *ft,
			  struct vs_ft_stack_query *q, size_t n)
{
	struct ft_open stack[FT_STACK];
	uint32_t depth = 0, d;
	uint64_t unmatched = 0;	/* counted by compute() already */
	size_t j, k = 0;

	for (j = 0; j < n; j++) {
		if (!j || q[j].tid != q[j - 1].tid) {
			while (k < ft->nr_calls && ft->calls[k].tid < q[j].tid)
				k++;
			depth = 0;
		}
		while (k < ft->nr_calls && ft->calls[k].tid == q[j].tid &&
		       ft->calls[k].time <= q[j].time)
			step(stack, &depth, &ft->calls[k++], &unmatched);
		q[j].depth = depth < VS_FT_MAX_DEPTH ? depth : VS_FT_MAX_DEPTH;
		for (d = 0; d < q[j].depth; d++)
			q[j].symbols[d] = stack[d].symbol;
	}
}

/* Add the calls of attached interval @a to the task it serves. */
static int merge_attached(struct vs_func_times *ft, const struct vs_ft_task *a)
{
	struct vs_ft_task *t = NULL;
	struct vs_ft_func *f;
	struct vs_ft_path *p;
	size_t i;

	for (i = 0; i < ft->nr_tasks && !t; i++)
		if (ft->tasks[i].id == a->serves && !ft->tasks[i].serves)
			t = &ft->tasks[i];
	for (i = 0; t && i < a->nr_funcs; i++) {
		if (!(f = task_func(t, a->funcs[i].symbol)))
			return -1;
		f->time += a->funcs[i].time;
		f->calls += a->funcs[i].calls;
	}
	for (i = 0; t && i < a->nr_paths; i++) {
		if (!(p = task_path(t, a->paths[i].symbols, a->paths[i].depth)))
			return -1;
		p->time += a->paths[i].time;
		p->calls += a->paths[i].calls;
	}
	return 0;
}

static int compute(struct vs_func_times *ft)
{
	size_t i, j, t = 0, u;

	ft->by_tid = malloc((ft->nr_tasks + 1) * sizeof(*ft->by_tid));
	ft->by_type = malloc((ft->nr_tasks + 1) * sizeof(*ft->by_type));
	if (!ft->by_tid || !ft->by_type)
		return -1;
	for (i = 0; i < ft->nr_tasks; i++)
		ft->by_tid[i] = ft->by_type[i] = &ft->tasks[i];
	vs_qsort(ft->by_tid, ft->nr_tasks, sizeof(*ft->by_tid), cmp_task);
	vs_qsort(ft->by_type, ft->nr_tasks, sizeof(*ft->by_type),
		 cmp_task_type);
	vs_qsort(ft->calls, ft->nr_calls, sizeof(*ft->calls), cmp_call);
	for (i = 0; i < ft->nr_calls; i = j) {
		uint32_t tid = ft->calls[i].tid;

		for (j = i; j < ft->nr_calls && ft->calls[j].tid == tid; j++)
			;
		while (t < ft->nr_tasks && ft->by_tid[t]->tid < tid)
			t++;
		for (u = t; u < ft->nr_tasks && ft->by_tid[u]->tid == tid; u++)
			;
		if (replay(ft, ft->calls + i, j - i, ft->by_tid + t, u - t))
			return -1;
	}
	for (i = 0; i < ft->nr_tasks; i++)
		if (ft->tasks[i].serves && merge_attached(ft, &ft->tasks[i]))
			return -1;
	return 0;
}

struct vs_func_times *vs_func_times_read(struct vs_reader *r, char *err,
					 size_t errlen)
{
	struct vs_func_times *ft = calloc(1, sizeof(*ft));
	struct vs_attach_map *attach = vs_attach_map_new();
	int ret;

	if (!ft || !attach) {
		snprintf(err, errlen, "out of memory");
		free(ft);
		vs_attach_map_free(attach);
		return NULL;
	}
	ret = collect(ft, r, attach);
	vs_attach_map_free(attach);
	vs_symbols_free(ft->syms);
	ft->syms = NULL;
	index_calls(ft);
	if (ret < 0) {
		snprintf(err, errlen, "%s", vs_reader_error(r) ?
			 vs_reader_error(r) : "out of memory");
		vs_func_times_free(ft);
		return NULL;
	}
	if (compute(ft)) {
		snprintf(err, errlen, "out of memory");
		vs_func_times_free(ft);
		return NULL;
	}
	return ft;	/* the calls stay: vs_func_times_stacks() */
}

void vs_func_times_free(struct vs_func_times *ft)
{
	size_t i;

	if (!ft)
		return;
	for (i = 0; i < ft->nr_tasks; i++) {
		free(ft->tasks[i].funcs);
		free(ft->tasks[i].paths);
	}
	for (i = 0; i < ft->nr_symbols; i++) {
		free(ft->symbols[i]);
		free(ft->sources[i]);
	}
	free(ft->symbols);
	free(ft->sources);
	vs_id_index_release(&ft->symbol_index);
	vs_symbols_free(ft->syms);
	free(ft->tasks);
	free(ft->by_tid);
	free(ft->by_type);
	free(ft->calls);
	free(ft);
}

size_t vs_func_times_nr_tasks(const struct vs_func_times *ft)
{
	return ft->nr_tasks;
}

const struct vs_ft_task *vs_func_times_task(const struct vs_func_times *ft,
					    size_t i)
{
	return i < ft->nr_tasks ? &ft->tasks[i] : NULL;
}

size_t vs_func_times_type(const struct vs_func_times *ft, uint32_t type,
			  const struct vs_ft_task *const **tasks)
{
	size_t lo = 0, hi = ft->nr_tasks, first;

	while (lo < hi) {	/* the first of @type or after */
		size_t mid = lo + (hi - lo) / 2;

		if (ft->by_type[mid]->type < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = ft->nr_tasks;
	while (lo < hi) {	/* the first after @type */
		size_t mid = lo + (hi - lo) / 2;

		if (ft->by_type[mid]->type <= type)
			lo = mid + 1;
		else
			hi = mid;
	}
	*tasks = (const struct vs_ft_task *const *)ft->by_type + first;
	return lo - first;
}

const char *vs_func_times_symbol(const struct vs_func_times *ft, uint32_t id)
{
	return id < ft->nr_symbols && ft->symbols[id] ? ft->symbols[id] : "?";
}

const char *vs_func_times_source(const struct vs_func_times *ft, uint32_t id)
{
	return id < ft->nr_symbols ? ft->sources[id] : NULL;
}

uint32_t vs_func_times_nr_symbols(const struct vs_func_times *ft)
{
	return ft->nr_symbols;
}

uint64_t vs_func_times_unmatched(const struct vs_func_times *ft)
{
	return ft->unmatched;
}

uint64_t vs_ft_func_time(const struct vs_ft_task *task, uint32_t symbol)
{
	uint32_t i;

	for (i = 0; i < task->nr_funcs; i++)
		if (task->funcs[i].symbol == symbol)
			return task->funcs[i].time;
	return 0;
}
