/* SPDX-License-Identifier: MIT */
/*
 * intel-events.h - Intel core PMU events: VarMRI's Table 1 and Table 2,
 * their encodings, the fixed counters, perf's raw event syntax and the
 * CPU model that selects a table.  This is arch/x86's side of the PMU
 * part of core/arch.h: what is declared there is implemented in
 * intel-events.c; what is declared here is for arch/x86 and its tests.
 *
 * Encodings are Intel's published ones for the Skylake-SP server core
 * (family 6, model 0x55: Xeon Silver 4114, the paper's machine; the same
 * core events hold for Cascade Lake-SP, steppings 5 and up).  The source
 * is Intel's event list as shipped with Linux
 * (tools/perf/pmu-events/arch/x86/skylakex/ *.json); the two events it no
 * longer lists are marked VS_ARCH_EV_UNLISTED and explained in
 * Documentation/varscope-events.txt.
 *
 * An encoding becomes perf_event_attr.config of the "cpu" PMU (type
 * PERF_TYPE_RAW) by the layout of /sys/bus/event_source/devices/cpu/format:
 * event = config:0-7, umask = config:8-15, edge = config:18,
 * any = config:21, inv = config:23, cmask = config:24-31,
 * ldlat = config1:0-15.
 */
#ifndef VS_ARCH_X86_INTEL_EVENTS_H
#define VS_ARCH_X86_INTEL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arch.h"

/**
 * struct vs_arch_event - one core PMU event (x86's definition of the
 * event core/arch.h declares)
 * @name: Intel's name, "MEM_LOAD_RETIRED.L3_MISS"
 * @vs_name: varscope's name, "hw.MEM_LOAD_RETIRED.L3_MISS", "hw.cycles"
 * @parent: varscope name of the Rule 2 parent (Table 2, else hw.cycles
 *          for CYCLE and hw.instructions for INST events), or NULL
 * @event: event select (for a fixed counter: 0, see @umask)
 * @umask: unit mask (for a fixed counter: Intel's pseudo umask 1, 2, 3)
 * @cmask: counter mask, 0 for none
 * @inv: invert the counter-mask comparison
 * @any: AnyThread, count both SMT siblings
 * @edge: count rising edges only
 * @group: enum vs_arch_group
 * @flags: VS_ARCH_EV_*
 */
struct vs_arch_event {
	const char *name;
	const char *vs_name;
	const char *parent;
	uint8_t event, umask, cmask;
	bool inv, any, edge;
	uint8_t group;
	uint32_t flags;
};

/**
 * vs_x86_skylakex - the Skylake-SP table (always available, for tests
 * and for `varscope list --cpu=skylakex` style uses)
 */
const struct vs_arch_table *vs_x86_skylakex(void);

/**
 * vs_x86_cpu_parse_cpuinfo - fill @cpu from the text of /proc/cpuinfo
 * (its first processor); returns 0, or -1 when a field is missing
 */
int vs_x86_cpu_parse_cpuinfo(const char *text, struct vs_arch_cpu *cpu);

/**
 * vs_x86_event_config - perf_event_attr.config of a programmable encoding
 */
uint64_t vs_x86_event_config(const struct vs_arch_event *e);

/**
 * vs_x86_event_is_ancestor - Rule 2: is @parent's value made of @child's?
 *
 * True when @parent is reached from @child by following parent links
 * (Table 2 and the implied "every INST event under hw.instructions,
 * every CYCLE event under hw.cycles").
 */
bool vs_x86_event_is_ancestor(const struct vs_arch_table *t,
			      const struct vs_arch_event *child,
			      const struct vs_arch_event *parent);

/**
 * vs_x86_pmu_counters - decode CPUID leaf 0xA
 * @eax, @edx: the leaf's registers
 * @nr_gp: programmable counters per logical CPU (0 without a PMU)
 * @nr_fixed: fixed counters
 *
 * Returns the architectural perfmon version (0: none).
 */
unsigned int vs_x86_pmu_counters(uint32_t eax, uint32_t edx,
				 unsigned int *nr_gp, unsigned int *nr_fixed);

#endif /* VS_ARCH_X86_INTEL_EVENTS_H */
