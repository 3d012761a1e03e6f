/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h - record's counter snapshots at interrupt boundaries, so a
 * task's hardware counter deltas leave its interrupts out (VarMRI section
 * 4.3: an interrupt stops the task "running" like a switch out does).
 *
 * With a PMU, each epoch's hardware group of a thread gets the thread's
 * interrupt entry and exit tracepoints as snapshot members (core/pmu.h:
 * vs_counter_group_add_snapshot()), led by the group's first hardware
 * counter and redirected into the thread's ring.  Each of their samples
 * carries the group's values (PERF_SAMPLE_READ, VS_PMU_READ_FORMAT).  The
 * same tracepoints in the thread's own group stay the source of the
 * accounting events (they are not lost when the hardware group is off the
 * PMU); a snapshot sample is merged into its twin, the sample of the same
 * tracepoint hit next to it in the ring.
 *
 * Pure code over perf records: tests feed it sample bytes laid out as
 * the kernel does for vs_snapshot_attr().
 */
#ifndef VS_CORE_SNAPSHOT_H
#define VS_CORE_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "core/accounting.h"
#include "core/pmu.h"
#include "core/task-ring.h"
#include "core/tracepoints.h"

/* What a snapshot event samples: VS_SAMPLE_TYPE's fields and READ. */
#define VS_SNAPSHOT_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |	    \
				 PERF_SAMPLE_READ | PERF_SAMPLE_RAW)

/**
 * vs_snapshot_role - whether tracepoints of @role get snapshot members:
 * the entries and exits of hard and soft interrupts and vectors (a page
 * fault has no exit tracepoint: its counts stay in the task's)
 */
bool vs_snapshot_role(enum vs_tp_role role);

/**
 * vs_snapshot_attr - the attr of the snapshot member for tracepoint
 * @tp_id, as vs_counter_group_add_snapshot() opens it: every hit sampled
 * with VS_SNAPSHOT_SAMPLE_TYPE, read_format VS_PMU_READ_FORMAT,
 * sample_id_all, enabled with its leader, on CLOCK_MONOTONIC
 */
void vs_snapshot_attr(struct perf_event_attr *attr, uint64_t tp_id);

/* A PERF_RECORD_SAMPLE of VS_SNAPSHOT_SAMPLE_TYPE, decoded. */
struct vs_snapshot_sample {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	struct vs_counter_read read;	/* t_before = t_after = time */
	const void *raw;
	uint32_t raw_size;
};

/**
 * vs_snapshot_parse - decode the sample @h of a snapshot event
 * Returns 0, or -1 when the record is not a sample or is too short.
 */
int vs_snapshot_parse(const struct perf_event_header *h,
		      struct vs_snapshot_sample *out);

/**
 * struct vs_snapshot - a snapshot for the accounting: the group's
 * counters by catalog id, and the read they come from (for the fidelity
 * flags and the group's identity: its leader's kernel id)
 */
struct vs_snapshot {
	uint32_t nr;
	uint16_t ids[VS_MAX_HW_COUNTERS];
	uint64_t values[VS_PMU_MAX_GROUP];
	struct vs_counter_read read;
};

/**
 * vs_snapshot_of - the snapshot of sample @smp of group @g, whose first
 * @nr members are the counters with catalog ids @ids
 * Returns 0, or -1 when the read lacks a member of @g.
 */
int vs_snapshot_of(const struct vs_snapshot_sample *smp,
		   const struct vs_counter_group *g, unsigned int nr,
		   const uint16_t *ids, struct vs_snapshot *snap);

/** vs_snapshot_attach - make @snap the snapshot of @ev */
void vs_snapshot_attach(const struct vs_snapshot *snap,
			struct vs_acct_event *ev);

/*
 * The merge of snapshot samples into their twins, one thread's ring in
 * order.  A tracepoint hit writes the twins next to each other, in an
 * order that depends on the kernel's list: the snapshot pairs with the
 * record just before it, or waits for the one just after it.  Any other
 * record in between breaks the pair and the snapshot is dropped (the
 * interrupt is then included in the counters).
 */
struct vs_snapshot_pair {
	int last_tp;		/* the last record: a sample of tracepoint
				 * index last_tp without snapshot; -1: not */
	int pending_tp;		/* a snapshot waits for its twin; -1: none */
	struct vs_snapshot pending;
};

void vs_snapshot_pair_init(struct vs_snapshot_pair *p);

/* A record that is no twin (a switch, a loss, another sample). */
void vs_snapshot_pair_other(struct vs_snapshot_pair *p);

/**
 * vs_snapshot_pair_event - a sample of tracepoint index @tp was queued;
 * true when the snapshot waiting for it is its own: then @out has it
 */
bool vs_snapshot_pair_event(struct vs_snapshot_pair *p, int tp,
			    struct vs_snapshot *out);

/**
 * vs_snapshot_pair_snapshot - snapshot @snap of tracepoint index @tp came;
 * true when it belongs to the sample queued just before (the caller
 * attaches it there), false when it now waits for the next record
 */
bool vs_snapshot_pair_snapshot(struct vs_snapshot_pair *p, int tp,
			       const struct vs_snapshot *snap);

#endif /* VS_CORE_SNAPSHOT_H */
