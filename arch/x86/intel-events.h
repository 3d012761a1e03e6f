/* SPDX-License-Identifier: MIT */
/*
 * intel-events.h - Intel core PMU events: VarMRI's Table 1 and Table 2,
 * their encodings, the fixed counters, perf's raw event syntax and the
 * CPU model that selects a table.
 *
 * Encodings are Intel's published ones for the Skylake-SP server core
 * (family 6, model 0x55: Xeon Silver 4114, the paper's machine; the same
 * core events hold for Cascade Lake-SP, steppings 5 and up).  The source
 * is Intel's event list as shipped with Linux
 * (tools/perf/pmu-events/arch/x86/skylakex/ *.json); the two events it no
 * longer lists are marked VS_X86_EV_UNLISTED and explained in
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

/* Event flags. */
#define VS_X86_EV_FIXED		(1u << 0)  /* a fixed counter, always live */
#define VS_X86_EV_NOT_RECORDED	(1u << 1)  /* UOP and OTHER: listed, not recorded */
#define VS_X86_EV_UNLISTED	(1u << 2)  /* name not in Intel's list for the model */
#define VS_X86_EV_PEBS		(1u << 3)  /* a precise (PEBS) event */
/* a perf software event (@event: its config), of the tests' table */
#define VS_X86_EV_SOFTWARE	(1u << 4)

/**
 * struct vs_x86_event - one core PMU event
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
 * @group: enum vs_event_group of core/trace.h
 * @flags: VS_X86_EV_*
 */
struct vs_x86_event {
	const char *name;
	const char *vs_name;
	const char *parent;
	uint8_t event, umask, cmask;
	bool inv, any, edge;
	uint8_t group;
	uint32_t flags;
};

/**
 * struct vs_x86_table - the event table of one core microarchitecture
 * @name: perf's name of the table, "skylakex"
 * @desc: "Skylake-SP server core"
 * @events: fixed counters first, then Table 1
 * @nr: number of @events
 */
struct vs_x86_table {
	const char *name;
	const char *desc;
	const struct vs_x86_event *events;
	unsigned int nr;
};

/**
 * struct vs_hw_config - what perf_event_open() needs for one event
 * @type: PERF_TYPE_HARDWARE (generic/fixed) or PERF_TYPE_RAW (cpu PMU)
 * @config: perf_event_attr.config
 * @config1: perf_event_attr.config1 (ldlat of load-latency events)
 */
struct vs_hw_config {
	uint32_t type;
	uint64_t config;
	uint64_t config1;
};

/* The fixed counters, present on every x86 PMU that varscope drives. */
#define VS_HW_INSTRUCTIONS	"hw.instructions"
#define VS_HW_CYCLES		"hw.cycles"
#define VS_HW_REF_CYCLES	"hw.ref-cycles"
/* Derived: cycles / on-CPU time, in kHz. */
#define VS_CPU_FREQ		"cpu.freq"

/**
 * struct vs_x86_cpu - the CPU model that selects the event table
 */
struct vs_x86_cpu {
	char vendor[16];	/* "GenuineIntel", "AuthenticAMD" */
	unsigned int family, model, stepping;
};

/**
 * vs_x86_skylakex - the Skylake-SP table (always available, for tests
 * and for `varscope list --cpu=skylakex` style uses)
 */
const struct vs_x86_table *vs_x86_skylakex(void);

/**
 * vs_x86_generic - the fixed counters alone: hw.instructions, hw.cycles
 * and hw.ref-cycles, opened as perf's generic hardware events; the table
 * of every CPU without a model table
 */
const struct vs_x86_table *vs_x86_generic(void);

/**
 * vs_x86_software - software events in place of a PMU's, for tests on
 * machines without one (VARSCOPE_TEST_SW_COUNTERS): cpu-clock as the
 * fixed counter, minor-faults, major-faults and alignment-faults as
 * programmable ones
 */
const struct vs_x86_table *vs_x86_software(void);

/**
 * vs_x86_table_by_name - "skylakex" or "generic", NULL for other names
 */
const struct vs_x86_table *vs_x86_table_by_name(const char *name);

/**
 * vs_x86_table_for - the event table for @cpu: skylakex for Intel family
 * 6 model 0x55, vs_x86_generic() for everything else
 */
const struct vs_x86_table *vs_x86_table_for(const struct vs_x86_cpu *cpu);

/**
 * vs_x86_cpu_detect - the running CPU, from CPUID (or /proc/cpuinfo on
 * other architectures); returns 0 or -1 when neither says
 */
int vs_x86_cpu_detect(struct vs_x86_cpu *cpu);

/**
 * vs_x86_cpu_parse_cpuinfo - fill @cpu from the text of /proc/cpuinfo
 * (its first processor); returns 0, or -1 when a field is missing
 */
int vs_x86_cpu_parse_cpuinfo(const char *text, struct vs_x86_cpu *cpu);

/**
 * vs_x86_cpu_describe - "GenuineIntel family 6 model 0x55 stepping 4"
 */
void vs_x86_cpu_describe(const struct vs_x86_cpu *cpu, char *buf, size_t len);

/**
 * vs_x86_event_lookup - find an event of @t by name
 * @name: varscope name ("hw.L1D.REPLACEMENT", "hw.cycles"), Intel name
 *        ("L1D.REPLACEMENT", any case) or, for a fixed counter, perf's
 *        generic name ("cycles")
 *
 * Returns NULL when @t has no such event.
 */
const struct vs_x86_event *vs_x86_event_lookup(const struct vs_x86_table *t,
					       const char *name);

/**
 * vs_x86_event_by_config - the event of @t whose encoding is @hw, or NULL
 */
const struct vs_x86_event *vs_x86_event_by_config(const struct vs_x86_table *t,
						  const struct vs_hw_config *hw);

/**
 * vs_x86_event_config - perf_event_attr.config of a programmable encoding
 */
uint64_t vs_x86_event_config(const struct vs_x86_event *e);

/**
 * vs_x86_event_hw - the perf type and config that open @e: a fixed
 * counter as perf's generic hardware event (the kernel puts it on its
 * fixed counter), any other as a raw cpu PMU event
 */
void vs_x86_event_hw(const struct vs_x86_event *e, struct vs_hw_config *hw);

/**
 * vs_x86_event_unit - "cycles" for CYCLE events, "count" for the others
 */
const char *vs_x86_event_unit(const struct vs_x86_event *e);

/**
 * vs_x86_event_format - @e in perf's raw syntax, "cpu/event=0xd1,umask=0x20/"
 * (with cmask=N, inv, any, edge when set); a fixed counter as perf's
 * generic name ("instructions", "cycles", "ref-cycles")
 */
void vs_x86_event_format(const struct vs_x86_event *e, char *buf, size_t len);

/**
 * vs_x86_event_is_ancestor - Rule 2: is @parent's value made of @child's?
 *
 * True when @parent is reached from @child by following parent links
 * (Table 2 and the implied "every INST event under hw.instructions,
 * every CYCLE event under hw.cycles").
 */
bool vs_x86_event_is_ancestor(const struct vs_x86_table *t,
			      const struct vs_x86_event *child,
			      const struct vs_x86_event *parent);

/**
 * vs_x86_event_recorded - whether the epoch schedule records @e by
 * default: a programmable CYCLE, INST or CACHE event Intel lists for
 * the model (fixed counters are always live and not scheduled)
 */
bool vs_x86_event_recorded(const struct vs_x86_event *e);

/**
 * vs_x86_parse_raw - parse perf's raw event syntax
 * @s: "rNNNN" (hex config) or
 *     "cpu/event=0x..,umask=0x..[,cmask=N][,inv][,any][,edge][,ldlat=N]/"
 *     (flags may be written inv=1; numbers in decimal or 0x hex)
 * @hw: the result, type PERF_TYPE_RAW
 * @err: a one-line reason on failure (may be NULL)
 *
 * Returns 0, or -1 on a malformed or out-of-range event.
 */
int vs_x86_parse_raw(const char *s, struct vs_hw_config *hw,
		     char *err, size_t errlen);

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

/**
 * vs_x86_cpuid_counters - vs_x86_pmu_counters() on this CPU's CPUID;
 * returns -1 when CPUID or its leaf 0xA is not available
 */
int vs_x86_cpuid_counters(unsigned int *nr_gp, unsigned int *nr_fixed);

/*
 * Sampling events (issue 5).  The paper behind sampling (Akiyama et al.)
 * took PEBS samples of UOPS_RETIRED.ALL with reset values of 8000 to
 * 24000 (8000 in its sample application, 16000 the balance it chose for
 * DPDK's ACL); --sample=mem samples loads by latency with
 * MEM_TRANS_RETIRED.LOAD_LATENCY (perf's mem-loads), threshold ldlat.
 */
#define VS_X86_PEBS_DEFAULT_PERIOD	8000
#define VS_X86_LDLAT_DEFAULT		3

/**
 * vs_x86_pebs_uops_retired - UOPS_RETIRED.ALL (event 0xc2, umask 0x01)
 */
const struct vs_x86_event *vs_x86_pebs_uops_retired(void);

/**
 * vs_x86_pebs_load_latency - MEM_TRANS_RETIRED.LOAD_LATENCY (0xcd/0x01);
 * its threshold goes to config1 (vs_x86_event_hw() leaves it 0: set
 * hw.config1 = ldlat)
 */
const struct vs_x86_event *vs_x86_pebs_load_latency(void);

#endif /* VS_ARCH_X86_INTEL_EVENTS_H */
