/* SPDX-License-Identifier: MIT */
/*
 * record-filter.h - which records of a trace varscope script prints: the
 * filters of perf script (--type, --tid, --min-latency, --slowest,
 * --time), tested on the fields of the format's record table.
 *
 * With no filter every record passes.  With one, only records the
 * filters can test pass, and only when each test holds:
 *
 *   type, min_latency, slowest   tasks alone: their type, their latency
 *   tid                          records with a thread field (tid, or
 *                                waker_tid/wakee_tid of a wake-up):
 *                                one of them is the thread
 *   time                         records with a time: the first (a
 *                                task's start) in [from, to)
 */
#ifndef VS_CORE_RECORD_FILTER_H
#define VS_CORE_RECORD_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct vs_record_filter {
	bool by_type, by_tid, by_time, by_latency;
	uint32_t type, tid;
	uint64_t min_latency_ns;	/* by_latency: the bound */
	uint64_t slowest;		/* 0: every task of the selection */
	uint64_t from_ns, to_ns;	/* by_time: the trace's clock; to_ns
					 * UINT64_MAX: open */
};

/**
 * vs_record_filter_match - whether @rec passes @f (--slowest aside:
 * vs_slowest_add() picks among the tasks that pass)
 */
bool vs_record_filter_match(const struct vs_record_filter *f,
			    const struct vs_record *rec);

/*
 * The N slowest tasks of a selection, copied (values included) out of
 * the reader's buffer: a min-heap of at most N, so memory stays at the
 * N tasks kept whatever the trace's size.
 */
struct vs_slowest {
	size_t max, nr, alloc;
	uint64_t seen;			/* tasks offered so far */
	struct vs_slowest_task {
		struct vs_task task;	/* values point into @values */
		struct vs_value *values;
		uint64_t order;		/* rank in the file: ties */
	} *heap;
};

/**
 * vs_slowest_init - keep the @max slowest tasks (@max >= 1)
 */
void vs_slowest_init(struct vs_slowest *s, size_t max);

/**
 * vs_slowest_add - offer task @t; 0, or -1 when out of memory
 */
int vs_slowest_add(struct vs_slowest *s, const struct vs_task *t);

/**
 * vs_slowest_sort - the kept tasks, slowest first, ties in file order:
 * heap[0 .. nr-1] (no more adds after it)
 */
void vs_slowest_sort(struct vs_slowest *s);

/**
 * vs_slowest_release - free the kept tasks
 */
void vs_slowest_release(struct vs_slowest *s);

#endif /* VS_CORE_RECORD_FILTER_H */
