/* SPDX-License-Identifier: MIT */
/*
 * ran-instead.h - who ran while a task type's slow tasks waited in the
 * run queue: the VS_REC_RAN_INSTEAD records (format 2.3) that come before
 * their task.
 *
 * The task set's one pass keeps each record with its task's type and
 * run-queue wait (struct vs_ran_list, one entry per record: bounded by the
 * file).  For a type whose sched.runnable.time ranks, vs_ran_blame() then
 * sums, over the tasks where it is above its threshold, the threads that
 * ran on the tasks' CPUs while they waited, largest first: the co-runner
 * that perf sched timehist names.
 */
#ifndef VS_CORE_RAN_INSTEAD_H
#define VS_CORE_RAN_INSTEAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct vs_task_type;
struct vs_taskset;
struct vs_type_rank;

/* The event whose records these are. */
#define VS_RAN_EVENT	"sched.runnable.time"

/* A task's records, kept until it comes: the recorder writes 5 at most. */
#define VS_RAN_PENDING_MAX	16

/* One record, with its task's type and value of VS_RAN_EVENT. */
struct vs_ran_entry {
	uint32_t type;
	uint32_t pid, tid;	/* 0, 0: the others the recorder summed */
	uint64_t wait_ns;	/* the task's value of VS_RAN_EVENT */
	uint64_t time_ns;
	char comm[16];
};

struct vs_ran_list {
	size_t nr, alloc;
	struct vs_ran_entry *entries;	/* in file order */
	/* while reading: the records of the task to come */
	size_t nr_pending;
	uint64_t pending_task;
	struct vs_ran_entry pending[VS_RAN_PENDING_MAX];
};

struct vs_ran_thread {
	uint32_t pid, tid;	/* 0, 0: the others the recorder summed */
	char comm[16];
	uint64_t time_ns;	/* over the tasks */
	uint64_t tasks;		/* the tasks it ran instead of */
};

struct vs_ran_blame {
	uint64_t wait_ns;	/* the tasks' run-queue wait, in all */
	uint64_t tasks;		/* the tasks above the threshold */
	int event;		/* VS_RAN_EVENT's id when it ranks with
				 * tasks above its threshold, else -1 */
	size_t nr, alloc;
	struct vs_ran_thread *threads;	/* the largest time first, the
					 * others (tid 0) last */
};

/**
 * vs_ran_list_feed - keep @rec for @l when it is a ran_instead record, or
 * the pending ones with their task when it is that task
 * @event: the id of VS_RAN_EVENT in the trace's catalog, or -1
 *
 * Returns 0, or -1 when memory runs out.
 */
int vs_ran_list_feed(struct vs_ran_list *l, const struct vs_record *rec,
		     int event);

/**
 * vs_ran_list_merge - move the entries of @src after those of @dst
 *
 * Returns 0, or -1 when memory runs out (@src is freed either way).
 */
int vs_ran_list_merge(struct vs_ran_list *dst, struct vs_ran_list *src);

/* Free the entries of @l; it is empty again. */
void vs_ran_list_release(struct vs_ran_list *l);

/**
 * vs_ran_blame - who ran instead of the tasks of @tt where VS_RAN_EVENT
 * is above its threshold in @tr, @tt's ranking, from the records @ts read
 * (vs_taskset_opts.ran_instead)
 *
 * Returns 0 (@out without threads when the event does not rank or the
 * trace has no such records), or -1 when memory runs out.
 */
int vs_ran_blame(const struct vs_taskset *ts, const struct vs_task_type *tt,
		 const struct vs_type_rank *tr, struct vs_ran_blame *out);

/* Free the threads of @b; it is empty again. */
void vs_ran_blame_release(struct vs_ran_blame *b);

#endif /* VS_CORE_RAN_INSTEAD_H */
