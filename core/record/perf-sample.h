/* SPDX-License-Identifier: MIT */
/*
 * perf-sample.h - decode the PERF_RECORD_SAMPLE of varscope's sampling
 * event (PEBS or cpu-clock, core/pmu.h) into a trace sample.
 *
 * A pure function over the bytes of one record, so PEBS samples (which
 * this machine cannot take) are tested with synthetic records through the
 * same code the recorder runs.
 */
#ifndef VS_CORE_PERF_SAMPLE_H
#define VS_CORE_PERF_SAMPLE_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "core/trace/trace.h"

/**
 * vs_perf_sample_parse - decode sample record @h of an event whose
 * attr.sample_type is @sample_type
 * @flags: VS_SAMPLE_PRECISE for a PEBS event, else 0; VS_SAMPLE_ADDR,
 *         VS_SAMPLE_WEIGHT and VS_SAMPLE_DATA_SRC are added from
 *         @sample_type, VS_SAMPLE_KERNEL from the record's cpumode
 * @out: filled; its callchain points into @h
 *
 * Knows IDENTIFIER, IP, TID, TIME, ADDR, CPU, PERIOD, CALLCHAIN,
 * REGS_USER (of the registers vs_arch_regs_user_mask names), STACK_USER,
 * WEIGHT and DATA_SRC, in the kernel's order; a sample with both user
 * registers and stack is flagged VS_SAMPLE_USER_STACK.  Returns 0, or -1 when the record
 * is shorter than its fields or @sample_type has a field not listed.
 */
int vs_perf_sample_parse(const struct perf_event_header *h,
			 uint64_t sample_type, uint32_t flags,
			 struct vs_sample *out);

#endif /* VS_CORE_PERF_SAMPLE_H */
