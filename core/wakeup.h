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

#include <stdint.h>

#include "core/trace.h"

enum vs_waker_kind {
	VS_WAKER_SAME_TASK,
	VS_WAKER_OTHER_TASK,
	VS_WAKER_OUTSIDE,
	VS_WAKER_INTERRUPT,
	VS_WAKER__NR
};

struct vs_wake_type {
	uint32_t type;			/* task type of the woken tasks */
	uint64_t edges[VS_WAKER__NR];	/* wake-ups, by what the waker did */
};

struct vs_wake_blame {
	unsigned int nr_types;
	struct vs_wake_type *types;	/* ascending type */
};

struct vs_wake_build;

/* Streaming: new, feed every record of the trace in file order, finish. */
struct vs_wake_build *vs_wake_build_new(void);
/* 0, or -1 when memory runs out */
int vs_wake_build_feed(struct vs_wake_build *b, const struct vs_record *rec);
/**
 * vs_wake_build_finish - the edges by task type (NULL when memory runs
 * out); frees @b
 */
struct vs_wake_blame *vs_wake_build_finish(struct vs_wake_build *b);

/**
 * vs_wake_blame_read - the edges of trace @path, read once through
 * Returns NULL with @err set (cannot read, corrupt, out of memory).
 */
struct vs_wake_blame *vs_wake_blame_read(const char *path, char *err,
					 size_t errlen);

void vs_wake_blame_free(struct vs_wake_blame *wb);

/* The counts of task type @type, or NULL when none of its waits was woken */
const struct vs_wake_type *vs_wake_blame_type(const struct vs_wake_blame *wb,
					      uint32_t type);

const char *vs_waker_kind_name(enum vs_waker_kind k);

#endif /* VS_CORE_WAKEUP_H */
