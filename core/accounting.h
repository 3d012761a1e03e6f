/* SPDX-License-Identifier: MIT */
/*
 * accounting.h - per-task cumulative values from a stream of generic
 * kernel events (VarMRI section 4.3).
 *
 * Pure code, no kernel calls: the recorder decodes perf records into
 * struct vs_acct_event and feeds them here; tests feed synthetic streams.
 * Per thread the stream must be in time order; streams of different
 * threads may be fed in any interleaving, one thread's batch at a time.
 *
 * Per CPU a shadow stack (Fig. 4 of the paper) matches the exit of an
 * interrupt, softirq, vector or fault with its entry and subtracts nested
 * preemptions, so their lengths are exact under nesting.  Per thread the
 * state of the paper's TCM: in a task or not, on a CPU or waiting since
 * when and why, and the task's values.  A task "runs" (run.time, counter
 * deltas) from its begin, a switch in or the end of the outermost
 * interrupt until its end, a switch out or the start of an interrupt.
 *
 * Counters (VarMRI's "running" redefined): a task's counter deltas are
 * those of its running periods.  The accounting takes them as the deltas
 * over the whole task (from its begin's snapshot to its end's, or the
 * end's deltas) less the deltas over each interval it did not run in
 * whose two ends came with snapshots (an interrupt's entry and exit).
 * Per-thread counters do not count while the thread is switched out, so
 * switches need no snapshot.
 */
#ifndef VS_CORE_ACCOUNTING_H
#define VS_CORE_ACCOUNTING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/trace/trace.h"

enum vs_acct_kind {
	VS_ACCT_TASK_BEGIN,	/* type, id, pid, flags */
	VS_ACCT_TASK_END,	/* flags; deltas: counters read by the library */
	VS_ACCT_SWITCH_OUT,	/* state: enum vs_wait_state */
	VS_ACCT_SWITCH_IN,
	VS_ACCT_IRQ_ENTRY,	/* name: "virtio0-input.0" */
	VS_ACCT_IRQ_EXIT,
	VS_ACCT_SOFTIRQ_ENTRY,	/* name: "NET_RX" */
	VS_ACCT_SOFTIRQ_EXIT,
	VS_ACCT_VECTOR_ENTRY,	/* name: "local_timer" */
	VS_ACCT_VECTOR_EXIT,
	VS_ACCT_FAULT_ENTRY,	/* a page fault with a measurable exit */
	VS_ACCT_FAULT_EXIT,
	VS_ACCT_FAULT,		/* a page fault without exit: counted only */
	VS_ACCT_LOST,		/* count events lost from time up to until */
	VS_ACCT_THREAD_EXIT,	/* the thread is gone (or exec'd) */
	VS_ACCT_TRUNCATE,	/* recording stops: close an open task */
	VS_ACCT__NR
};

enum vs_wait_state {
	VS_WAIT_RUNNABLE,	/* preempted, still runnable (R) */
	VS_WAIT_BLOCKED,	/* sleeping (S) */
	VS_WAIT_IOWAIT,		/* uninterruptible (D) */
};

struct vs_counter_read;

/* Counter values with their catalog ids. */
struct vs_acct_counters {
	uint32_t nr;
	const uint16_t *ids;
	const uint64_t *values;
};

struct vs_acct_event {
	uint64_t time;
	uint32_t cpu;
	uint32_t tid;
	enum vs_acct_kind kind;
	const char *name;	/* entries: breakdown name, NULL for none */
	enum vs_wait_state state;	/* SWITCH_OUT */
	uint64_t count;		/* LOST */
	uint64_t until;		/* LOST: events missing up to this time */
	/* TASK_BEGIN */
	uint32_t pid;
	uint32_t type;
	uint64_t id;
	uint32_t flags;		/* TASK_BEGIN/END: VS_TASK_* to add */
	/*
	 * absolute counter values at this instant, when the source has them:
	 * at a task's begin and end, and where it stops and starts running
	 */
	struct vs_acct_counters snapshot;
	/*
	 * the group read @snapshot comes from (core/pmu.h), when it has one:
	 * an interval whose two snapshots both have one ORs its
	 * vs_counter_period_flags() (multiplexed, distorted) into the
	 * task's flags
	 */
	const struct vs_counter_read *snapshot_read;
	/* TASK_END: counter deltas measured over the whole task */
	struct vs_acct_counters deltas;
};

struct vs_acct_stats {
	uint64_t tasks;			/* emitted */
	uint64_t unmatched_exits;	/* exit with no entry on the stack */
	uint64_t discarded_frames;	/* entries whose exit never came */
	uint64_t stack_overflows;	/* nesting deeper than the stack */
	uint64_t lost_events;		/* sum of LOST counts */
	uint64_t lost_tasks;		/* tasks flagged VS_TASK_LOST_EVENTS */
};

struct vs_acct;

typedef void (*vs_acct_emit_fn)(void *ctx, const struct vs_task *task);

/**
 * vs_acct_new - an accounting over @cat
 * @cat: the catalog; the fixed kernel events are interned at once
 * @emit: called with every finished task (values valid during the call)
 * @ctx: passed to @emit
 */
struct vs_acct *vs_acct_new(struct vs_catalog *cat, vs_acct_emit_fn emit,
			    void *ctx);
void vs_acct_free(struct vs_acct *acct);

/**
 * vs_acct_feed - account one event
 *
 * Returns 0, or -1 on allocation failure (the event is then ignored).
 */
int vs_acct_feed(struct vs_acct *acct, const struct vs_acct_event *ev);

/**
 * vs_acct_set_epoch - tasks begun from now on carry @epoch
 */
void vs_acct_set_epoch(struct vs_acct *acct, uint32_t epoch);

/**
 * vs_acct_in_task - whether thread @tid is inside a task now
 */
bool vs_acct_in_task(const struct vs_acct *acct, uint32_t tid);

const struct vs_acct_stats *vs_acct_stats(const struct vs_acct *acct);

#endif /* VS_CORE_ACCOUNTING_H */
