/* SPDX-License-Identifier: MIT */
/*
 * epoch.h - the schedule that shares the programmable counters out by
 * epochs (VarMRI section 4.3: "VarMRI records the same types of events for
 * AppTasks in a short period of time, called an epoch").
 *
 * Each epoch records at most K programmable events (the fixed counters
 * are always live and not part of the schedule).  Rules 1 and 2 of the
 * report compare events that were recorded in the same tasks, so the
 * schedule brings every PAIR of events together: one cycle of the
 * schedule is a covering of all pairs of the N events by blocks of K (a
 * covering design), as short as a greedy construction and a local search
 * find; the lower bound is the Schoenheim bound,
 * ceil(N/K * ceil((N-1)/(K-1))) >= N(N-1)/(K(K-1)).  The schedule repeats
 * after its cycle.
 */
#ifndef VS_CORE_EPOCH_H
#define VS_CORE_EPOCH_H

#include <stdint.h>

struct vs_epoch_schedule;

/**
 * vs_epoch_schedule_new - build the schedule of @n events, @k per epoch
 * @events: event ids (catalog ids of core/trace/trace.h), copied
 * @n: number of events (0 gives one empty epoch)
 * @k: programmable counters per epoch, at least 2 (1 when @n <= 1)
 *
 * Deterministic: the same input gives the same schedule.  Returns NULL
 * with errno EINVAL for a @k that cannot pair events, ENOMEM.
 */
struct vs_epoch_schedule *vs_epoch_schedule_new(const uint16_t *events,
						unsigned int n,
						unsigned int k);

/**
 * vs_epoch_schedule_len - epochs in one cycle of the schedule
 */
unsigned int vs_epoch_schedule_len(const struct vs_epoch_schedule *s);

/**
 * vs_epoch_schedule_set - the events live in epoch @epoch (counted from
 * 0 since the recording started; the schedule wraps after its cycle)
 * @nr: set to the number of events returned (at most k)
 *
 * The array stays valid until vs_epoch_schedule_free().
 */
const uint16_t *vs_epoch_schedule_set(const struct vs_epoch_schedule *s,
				      uint64_t epoch, unsigned int *nr);

/**
 * vs_epoch_pairs_lower_bound - the Schoenheim lower bound on the number
 * of blocks of size @k that cover every pair of @n events
 */
unsigned int vs_epoch_pairs_lower_bound(unsigned int n, unsigned int k);

void vs_epoch_schedule_free(struct vs_epoch_schedule *s);

#endif /* VS_CORE_EPOCH_H */
