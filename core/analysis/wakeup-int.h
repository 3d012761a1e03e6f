/* SPDX-License-Identifier: MIT */
/*
 * wakeup-int.h - what the collecting of wake-up records (wakeup.c) and
 * the blaming of waits along them (wakeup-blame.c) share: the records
 * kept per thread and the build that holds them.
 */
#ifndef VS_CORE_WAKEUP_INT_H
#define VS_CORE_WAKEUP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/analysis/delta-seq.h"
#include "core/analysis/wakeup.h"
#include "core/id-index.h"

/*
 * The records kept per thread, one packed sequence of each kind, keyed
 * by time: 23 bytes for a gen-trace --wakeups task, which waits once (an
 * interval 8, a wake-up 4, two switches 4 each, the block index 3),
 * where the plain structures took 62.  Each is decoded into its
 * structure when it is walked.
 */
struct interval {
	uint64_t start, end;
	uint64_t task;			/* the task it is or serves */
	uint32_t type;			/* of its record */
	bool attached;			/* serves it */
	bool type0;			/* may serve a task (attach.h);
					 * placed when finishing */
};

enum { IV_START, IV_END, IV_TASK, IV_TYPE_FLAGS, IV_FIELDS };
#define IV_ATTACHED	2		/* flags under the type */
#define IV_TYPE0	1

/* a wake-up of the thread it is filed under */
struct edge {
	uint64_t time;
	uint32_t waker_tid;
};

enum { EDGE_TIME, EDGE_WAKER, EDGE_FIELDS };

struct switch_of {
	uint64_t time;
	bool out, preempt;
};

enum { SW_TIME, SW_FLAGS, SW_FIELDS };
#define SW_OUT		2
#define SW_PREEMPT	1

/* A VS_ATTACH record of a thread, after @before of its intervals. */
struct attach_at {
	size_t before;
	uint64_t time;
	uint64_t task;
};

struct task_type_of {
	uint64_t id;
	uint32_t type;
} __attribute__((packed));

/* The records of one thread, each sequence by time once finished. */
struct thread_recs {
	uint32_t tid;
	struct vs_dseq iv;		/* IV_FIELDS */
	struct vs_dseq edges;		/* its wake-ups, EDGE_FIELDS */
	struct vs_dseq sw;		/* SW_FIELDS */
	struct attach_at *attach;	/* in file order */
	size_t nr_attach, cap_attach;
};

static inline void decode_interval(const uint64_t *v, struct interval *iv)
{
	*iv = (struct interval){ v[IV_START], v[IV_END], v[IV_TASK],
		v[IV_TYPE_FLAGS] >> 2, v[IV_TYPE_FLAGS] & IV_ATTACHED,
		v[IV_TYPE_FLAGS] & IV_TYPE0 };
}

static inline int append_interval(struct vs_dseq *s, const struct interval *iv)
{
	uint64_t v[IV_FIELDS] = { iv->start, iv->end, iv->task,
		(uint64_t)iv->type << 2 | (iv->attached ? IV_ATTACHED : 0) |
		(iv->type0 ? IV_TYPE0 : 0) };

	return vs_dseq_append(s, v);
}

static inline void decode_edge(const uint64_t *v, struct edge *e)
{
	*e = (struct edge){ v[EDGE_TIME], v[EDGE_WAKER] };
}

static inline void decode_switch(const uint64_t *v, struct switch_of *sw)
{
	*sw = (struct switch_of){ v[SW_TIME], v[SW_FLAGS] & SW_OUT,
				  v[SW_FLAGS] & SW_PREEMPT };
}

struct comm_of {
	uint32_t tid;
	char *comm;
};

/* A name or a fork, as it was fed (comm strdup()ed). */
struct ordered {
	struct vs_record rec;
};

struct vs_wake_build {
	struct thread_recs *threads;	/* by tid, once finished */
	size_t nr_threads, cap_threads;
	uint32_t *slots;		/* feeding: tid hash of threads[] + 1 */
	size_t nr_slots;
	struct task_type_of *tasks;	/* finishing: by id, the tasks that
					 * attached intervals may serve */
	size_t nr_tasks;
	struct comm_of *comms;		/* by thread, once finished */
	size_t nr_comms, cap_comms;
	struct ordered *journal;	/* in file order, until finishing */
	size_t nr_journal, cap_journal;
	bool keep_parts;		/* the waits' parts, not only sums */
	bool attached;			/* an interval serves a task */
	/* finishing */
	size_t next_sort;		/* sort_all(): next thread to sort */
	bool sort_failed;		/* sort_all(): out of memory */
	const struct vs_task_samples *ts;
	size_t *ts_by_tid;		/* ts task indices by thread, start */
	uint64_t wait_at;		/* the wait of a task being blamed */
	struct vs_wake_blame *wb;
	struct vs_id_index type_index;	/* wb->types by type number,
						 * unsorted until the end */
	size_t cap_types;
};

/**
 * vs_wake_build_apply_journal - the names and forks in file order, then
 * the attach records
 * @b: the build being finished
 *
 * Returns 0, or -1 when memory runs out.
 */
int vs_wake_build_apply_journal(struct vs_wake_build *b);

/**
 * vs_wake_build_drop_walked - free what the edges and waits were placed in
 * @b: the build being finished
 *
 * Once every wait is blamed, only the wakers, the parts and the names are
 * left to use.  Freed then, the largest arrays are not held while the
 * parts are sorted.
 */
void vs_wake_build_drop_walked(struct vs_wake_build *b);

#endif
