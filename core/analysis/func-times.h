/* SPDX-License-Identifier: MIT */
/*
 * func-times.h - exact function times per task from record --probe: the
 * VS_REC_FUNC enter/exit records of a trace, nested per thread into calls,
 * kept where they overlap a task on the same thread.
 *
 * For each task this gives:
 *  - per probed function, its inclusive time inside the task (the part of
 *    each call that overlaps the task's [start, end]; a recursive call is
 *    counted once, at its outermost instance) -- the value of the event
 *    vs_func_event_name() names, "func:<symbol>.time", which wins over the
 *    sampled estimate of the same name when both exist for a task
 *    (core/analysis/func-events.h merges the two);
 *  - its call paths: each distinct stack of probed functions, root to leaf
 *    as symbol indices, with the inclusive time of the leaf along that path
 *    (the input of the variance tree: a path's children are the paths one
 *    longer that start with it, and its self time is its time less theirs).
 *
 * The calls of a thread attached to a task (vs_task_attach(), see
 * core/analysis/attach.h) count for that task too: an attached interval's
 * functions and paths are added to the served task's.
 *
 * A function is named by its symbol index: the definitions
 * (VS_REC_SYMBOL_DEF) numbered 0, 1, ... in the order of their first one
 * in the trace, whatever ids the file gave them; the ids index nothing.
 *
 * An exit without a matching enter, calls still open at the end of the
 * data and records of a function the trace never defined are counted in
 * vs_func_times_unmatched() and otherwise left out.
 */
#ifndef VS_CORE_FUNC_TIMES_H
#define VS_CORE_FUNC_TIMES_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

#define VS_FT_MAX_DEPTH		32	/* deeper calls are cut to the root 32 */

struct vs_ft_func {
	uint32_t symbol;	/* symbol index (vs_func_times_symbol()) */
	uint32_t calls;		/* calls overlapping the task */
	uint64_t time;		/* inclusive ns inside the task */
};

struct vs_ft_path {
	uint32_t depth;		/* symbols used in @symbols */
	uint32_t calls;
	uint64_t time;		/* inclusive ns of the leaf on this path */
	uint32_t symbols[VS_FT_MAX_DEPTH];	/* root first */
};

struct vs_ft_task {
	uint64_t id;		/* vs_task.id */
	uint32_t type, tid;
	uint64_t start, end;
	uint64_t serves;	/* an attached interval: the task it serves */
	uint32_t nr_funcs, nr_paths;
	struct vs_ft_func *funcs;	/* only the functions called in it */
	struct vs_ft_path *paths;
	size_t alloc_funcs, alloc_paths;
};

struct vs_func_times;

/**
 * vs_func_times_read - read the whole trace of @r (from where it is) and
 * compute the function times of every task
 *
 * Returns NULL with a one-line message in @err on a corrupt trace or when
 * memory runs out.  A trace without FUNC records gives every task no
 * functions.
 */
struct vs_func_times *vs_func_times_read(struct vs_reader *r, char *err,
					 size_t errlen);
void vs_func_times_free(struct vs_func_times *ft);

/* The tasks, in the order of the trace's task records. */
size_t vs_func_times_nr_tasks(const struct vs_func_times *ft);
const struct vs_ft_task *vs_func_times_task(const struct vs_func_times *ft,
					    size_t i);

/**
 * vs_func_times_type - the tasks of type @type, in trace order
 * @ft: the function times
 * @type: a task type
 * @tasks: receives the first of them (an array of pointers)
 *
 * Returns how many there are, in O(log n): a trace of many task types
 * asks for each.
 */
size_t vs_func_times_type(const struct vs_func_times *ft, uint32_t type,
			  const struct vs_ft_task *const **tasks);

struct vs_ft_stack_query {
	uint32_t tid;
	uint64_t time;
	uint32_t depth;				/* out: 0, none */
	uint32_t symbols[VS_FT_MAX_DEPTH];	/* out: root first */
};

/**
 * vs_func_times_stacks - the probed calls open on thread tid at time,
 * for each of @q[0..@n) (sorted by tid, then time): where a blocked wait
 * of the thread happened (blocked, it begins and ends no call); cut to
 * the root VS_FT_MAX_DEPTH as the paths are
 */
void vs_func_times_stacks(const struct vs_func_times *ft,
			  struct vs_ft_stack_query *q, size_t n);

/* The name of symbol index @id ("?" past the last one). */
const char *vs_func_times_symbol(const struct vs_func_times *ft, uint32_t id);
/* Symbol indices are 0 .. this - 1: one per symbol id defined. */
uint32_t vs_func_times_nr_symbols(const struct vs_func_times *ft);
/*
 * Where function @id is declared ("file.c:12", core/symbols/symbols.h),
 * or NULL.
 */
const char *vs_func_times_source(const struct vs_func_times *ft, uint32_t id);

/* Enter or exit records that did not pair into a call, or of no symbol. */
uint64_t vs_func_times_unmatched(const struct vs_func_times *ft);

/**
 * vs_ft_func_time - the inclusive time of @symbol in @task, 0 if not called
 */
uint64_t vs_ft_func_time(const struct vs_ft_task *task, uint32_t symbol);

#endif /* VS_CORE_FUNC_TIMES_H */
