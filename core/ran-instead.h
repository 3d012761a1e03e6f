/* SPDX-License-Identifier: MIT */
/*
 * ran-instead.h - who ran while a task type's slow tasks waited in the
 * run queue: the VS_REC_RAN_INSTEAD records (format 2.3) that come before
 * their task.
 *
 * For a type whose sched.runnable.time ranks, the threads that ran on the
 * tasks' CPUs while the tasks where sched.runnable.time is above its
 * threshold waited, summed over those tasks, largest first: the
 * co-runner that perf sched timehist names.
 */
#ifndef VS_CORE_RAN_INSTEAD_H
#define VS_CORE_RAN_INSTEAD_H

#include <stddef.h>
#include <stdint.h>

struct vs_ran_thread {
	uint32_t pid, tid;	/* 0, 0: the others the recorder summed */
	char comm[16];
	uint64_t time_ns;	/* over the tasks */
	uint64_t tasks;		/* the tasks it ran instead of */
};

struct vs_ran_blame {
	uint64_t wait_ns;	/* the tasks' run-queue wait, in all */
	uint64_t tasks;		/* the tasks above the threshold */
	size_t nr, alloc;
	struct vs_ran_thread *threads;	/* the largest time first, the
					 * others (tid 0) last */
};

/**
 * vs_ran_blame_read - one pass over the trace at @path: the threads that
 * ran instead of the tasks of @type whose value of event @event is above
 * @threshold
 * @err: one line on failure
 *
 * Returns 0 (@out without threads when the trace has no such records), or
 * VS_LOAD_ERROR or VS_LOAD_CORRUPT as vs_taskset_read().
 */
int vs_ran_blame_read(const char *path, uint32_t type, uint16_t event,
		      double threshold, struct vs_ran_blame *out, char *err,
		      size_t errlen);

/* Free the threads of @b; it is empty again. */
void vs_ran_blame_release(struct vs_ran_blame *b);

#endif /* VS_CORE_RAN_INSTEAD_H */
