/* SPDX-License-Identifier: MIT */
/*
 * hwcount.h - what 'varscope record' counts on a hardware PMU: the events
 * (the fixed counters and VarMRI's Table 1, or the -e raw events), their
 * catalog ids, the epoch schedule that shares the programmable counters
 * out, the counters of the current epoch, and cpu.freq.
 *
 * Pure code over core/pmu.h and core/record/epoch.h: nothing here opens
 * or reads a counter.  The caller does
 *
 *	h = vs_hwcount_new(cat, pmu.table, raws, vs_pmu_epoch_width(&pmu))
 *	each epoch: vs_hwcount_set_epoch(h, epoch), then the engine counts
 *	    vs_hwcount_group()'s configs on every CPU; the epoch record
 *	    lists the catalog less vs_hwcount_hides() ids
 *	each task: vs_hwcount_add_freq()
 */
#ifndef VS_CORE_HWCOUNT_H
#define VS_CORE_HWCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/pmu.h"
#include "core/trace/trace.h"

struct vs_hwcount;

/**
 * vs_event_list_next - the next item of a comma-separated -e list at
 * *@p, into @item (a comma inside a raw event's cpu/.../ belongs to it);
 * advances *@p, false at the end of the list
 */
bool vs_event_list_next(const char **p, char *item, size_t size);

/**
 * vs_hwcount_new - intern the hardware events and build their schedule
 * @cat: the catalog (events interned with vs_pmu_intern(): groups, parents)
 * @t: the CPU's event table (struct vs_pmu.table)
 * @raws: the -e raw events, comma separated in perf's syntax
 *        (vs_record_split_events() output); NULL or "": every event of @t
 *        that vs_arch_event_recorded() accepts.  A raw event @t knows is
 *        that event; any other is "hw.raw.0x<config>" (group OTHER).
 * @width: programmable counters per epoch (vs_pmu_epoch_width())
 * @err: one line on failure
 *
 * Returns NULL on a malformed raw event, a full catalog or no memory.
 */
struct vs_hwcount *vs_hwcount_new(struct vs_catalog *cat,
				  const struct vs_arch_table *t,
				  const char *raws, unsigned int width,
				  char *err, size_t errlen);
void vs_hwcount_free(struct vs_hwcount *h);

/** vs_hwcount_cycle - epochs in one cycle of the schedule */
unsigned int vs_hwcount_cycle(const struct vs_hwcount *h);

/**
 * vs_hwcount_set_epoch - make the programmable events of epoch @epoch
 * (counted from 0, wrapping after the cycle) the live ones
 */
void vs_hwcount_set_epoch(struct vs_hwcount *h, uint64_t epoch);

/**
 * vs_hwcount_group - the current epoch's counters, in order: the fixed
 * counters (the table's order), then the epoch's programmable events
 * @hw: set to their configs (for vs_bpf_engine_counters())
 * @ids: set to their catalog ids
 *
 * Returns the number of counters.  Valid until the next set_epoch.
 */
unsigned int vs_hwcount_group(const struct vs_hwcount *h,
			      const struct vs_hw_config **hw,
			      const uint16_t **ids);

/**
 * vs_hwcount_hides - whether catalog event @id is a hardware event that
 * is not live in the current epoch (an epoch record leaves it out)
 */
bool vs_hwcount_hides(const struct vs_hwcount *h, uint16_t id);

/**
 * vs_hwcount_add_freq - @task with cpu.freq added: hw.cycles over
 * run.time, in kHz (vs_cpu_freq_khz()), when the task has both and
 * run.time is not 0; otherwise @task unchanged
 * @buf: room for @task's values and one more
 * @out: the task to write (its values in @buf, or @task's)
 */
void vs_hwcount_add_freq(const struct vs_hwcount *h,
			 const struct vs_task *task, struct vs_value *buf,
			 struct vs_task *out);

#endif /* VS_CORE_HWCOUNT_H */
