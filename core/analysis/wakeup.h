/* SPDX-License-Identifier: MIT */
/*
 * wakeup.h - who ended the blocked waits of a trace's tasks: VProfiler's
 * wake-up edges (VS_REC_WAKEUP records, see varscope-record(1)).
 *
 * A wake-up of a thread while it is inside a task (or inside an attached
 * interval, then for the task it serves) ended a wait of that task.  The
 * waker is judged by what it was doing for the task:
 *
 *   - same task: it worked for the same task (the task's own thread, or
 *     one attached to it), in an interval open at the wake-up or ended
 *     during the wakee's task or interval: the wait is that work's time;
 *   - other task: it was inside a task of its own, or attached to another
 *     task: the wait is the time of unrelated work (a lock holder, ...);
 *   - outside tasks: a thread of the command outside any task;
 *   - interrupt: no thread, an interrupt or softirq (waker tid 0): a
 *     timer that expired, an I/O that completed.
 */
#ifndef VS_CORE_WAKEUP_H
#define VS_CORE_WAKEUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

enum vs_waker_kind {
	VS_WAKER_SAME_TASK,
	VS_WAKER_OTHER_TASK,
	VS_WAKER_OUTSIDE,
	VS_WAKER_INTERRUPT,
	VS_WAKER__NR
};

/*
 * Blame with time (VProfiler: "blame propagates backwards along segments
 * and their dependencies").  A blocked wait of a task's own thread inside
 * the task (VS_REC_SWITCH out, not preempted) that another thread's
 * wake-up ended is that thread's doing: the time from the switch out to the wake-up moves along the edge
 * to the waker.  Where the waker was itself blocked meanwhile and a third
 * thread woke it, that part moves on along that edge, and so on, at most
 * VS_WAKE_CHAIN_MAX edges deep; what is left stays with the thread: its
 * run or run-queue time before the wake-up.  With samples, the waker's
 * samples in its part name the functions it ran.  The run-queue time
 * after the wake-up (the scheduler's) stays the task's own.
 *
 * A waker's switches are in the trace only inside its own tasks or
 * intervals (or with record --syscalls), so a chain ends at a thread
 * outside tasks.  An interrupt (waker 0) is blamed as "interrupt".
 */
#define VS_WAKE_CHAIN_MAX	4
#define VS_WAKE_MAX_FUNCS	8	/* per waker, the largest */

struct vs_wake_func {
	uint32_t symbol;		/* id in the task samples given */
	uint64_t ns;			/* sampled time in the blamed part */
};

struct vs_waker {
	uint32_t tid;			/* 0: an interrupt */
	const char *comm;		/* its thread name, "" unknown */
	char *label;			/* "[wait] comm/tid", "[wait] interrupt" */
	enum vs_waker_kind kind;	/* what it did for the waiting task */
	unsigned int depth;		/* 1 woke the task's thread, 2 ... */
	uint64_t waits;			/* waits (parts) blamed on it */
	uint64_t ns;			/* the waiting time blamed on it */
	unsigned int nr_funcs;		/* at most VS_WAKE_MAX_FUNCS */
	struct vs_wake_func *funcs;	/* ns descending */
};

/* The time of a task's waits blamed on one waker (of its type's). */
struct vs_wake_part {
	uint64_t task;			/* the task record's id */
	unsigned int waker;		/* index in the type's wakers[] */
	uint64_t ns;
	uint64_t at;			/* when the task's thread began the
					 * wait (blocked: in one call stack) */
};

struct vs_wake_type {
	uint32_t type;			/* task type of the woken tasks */
	uint64_t edges[VS_WAKER__NR];	/* wake-ups, by what the waker did */
	uint64_t tasks;			/* tasks with a blamed wait */
	uint64_t wait_ns;		/* blocked time that others ended */
	unsigned int nr_wakers;
	struct vs_waker *wakers;	/* ns descending */
	size_t alloc_wakers;
	size_t nr_parts;
	struct vs_wake_part *parts;	/* by task, then waker; none unless
					 * asked for (see vs_wake_build_new) */
	size_t alloc_parts;
};

struct vs_wake_blame {
	unsigned int nr_types;
	struct vs_wake_type *types;	/* ascending type */
	char **comms;			/* owned names */
	size_t nr_comms;
};

struct vs_wake_build;
struct vs_task_samples;

/*
 * Streaming: new, feed every record of the trace in file order, finish.
 * @parts: keep each wait's blamed parts (vs_wake_task_parts(), for the
 * variance tree: a part per blamed wait); without, the types' counts and
 * wakers alone.
 */
struct vs_wake_build *vs_wake_build_new(bool parts);
/* 0, or -1 when memory runs out */
int vs_wake_build_feed(struct vs_wake_build *b, const struct vs_record *rec);
/**
 * vs_wake_build_merge - add to @b the records fed to @next, which come
 * after @b's in the file (the next part of a file read in parts, each by
 * its own reader and build); frees @next
 *
 * Returns 0, or -1 when memory runs out (@b is then only fit to be freed).
 */
int vs_wake_build_merge(struct vs_wake_build *b, struct vs_wake_build *next);
/* a build not finished (an error, a part never merged); NULL: nothing */
void vs_wake_build_free(struct vs_wake_build *b);
/**
 * vs_wake_build_finish - the edges and the blamed time by task type (NULL
 * when memory runs out); frees @b
 * @ts: the trace's task samples for the wakers' functions, or NULL
 */
struct vs_wake_blame *vs_wake_build_finish(struct vs_wake_build *b,
					   const struct vs_task_samples *ts);

/*
 * The META record a recorder of wake-ups writes before its first task
 * (core/record/record.c spells the key out, for t0040): the trace has wake-up
 * records wherever a recorded thread blocked.
 */
#define VS_META_WAKEUPS		"wakeups"
#define VS_META_WAKEUPS_RECORDED	"recorded"

struct vs_taskset;

/**
 * vs_wake_blame_load - the blame of the task set @ts just read from trace
 * @path with vs_taskset_opts.wakeups, from what that pass collected
 * (@ts->wake, then freed)
 * @samples: as vs_wake_build_finish()
 *
 * Returns NULL with *@err = 0 when the trace has no wake-ups, NULL with
 * @err set on failure.
 */
struct vs_wake_blame *vs_wake_blame_load(struct vs_taskset *ts,
					 const char *path,
					 const struct vs_task_samples *samples,
					 char *err, size_t errlen);

void vs_wake_blame_free(struct vs_wake_blame *wb);

/* The counts of task type @type, or NULL when none of its waits was woken */
const struct vs_wake_type *vs_wake_blame_type(const struct vs_wake_blame *wb,
					      uint32_t type);

/**
 * vs_wake_task_parts - the blamed parts of task @task's waits (@wt's
 * type): *@first and how many (0: none)
 */
size_t vs_wake_task_parts(const struct vs_wake_type *wt, uint64_t task,
			  const struct vs_wake_part **first);

const char *vs_waker_kind_name(enum vs_waker_kind k);

#endif /* VS_CORE_WAKEUP_H */
