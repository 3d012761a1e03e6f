/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - hardware counters for varscope record: detection, the
 * interning of their events, the DTE filter of a task's counter reads,
 * cpu.freq, and the sampling event (PEBS or cpu-clock).  The engine
 * counts per CPU (core/record/bpf-engine.h) what core/record/hwcount.h
 * schedules.
 *
 * Every function is written against the real perf ABI and detects at run
 * time what the machine has.  What interprets counter values (the DTE
 * filter, cpu.freq) is a pure function, so tests drive it with synthetic
 * values.
 *
 *	vs_pmu_probe(&pmu);  vs_pmu_status(&pmu, line, ...);  print line
 *	if (pmu.hw):
 *	    the events: every e of pmu.table with vs_arch_event_recorded(e)
 *	    (or -e NAME / -e cpu/../ through vs_arch_event_lookup() and
 *	    vs_arch_parse_raw()), each interned with vs_pmu_intern()
 *	    s = vs_epoch_schedule_new(ids, n, vs_pmu_epoch_width(&pmu))
 *
 * and sampling: vs_pmu_sample_choose() (prints nothing: the line it
 * fills is for the caller) then vs_pmu_sample_attr() per CPU.
 */
#ifndef VS_CORE_PMU_H
#define VS_CORE_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "core/arch.h"

/* Fixed counters + programmable counters of an epoch, at most. */
#define VS_PMU_MAX_GROUP	32

/* The default when CPUID does not say (Skylake with SMT on has 4). */
#define VS_PMU_DEFAULT_GP	4

/**
 * struct vs_pmu - what the hardware offers
 * @hw: hardware counters can be opened on this thread
 * @err: when !@hw, the errno of opening cycles
 * @why: when !@hw, the reason ("cycles not supported")
 * @cpu: the CPU model
 * @table: its event table; vs_arch_generic_table() when varscope has none
 * @nr_gp: programmable counters per thread (CPUID 0xA, else 4)
 * @nr_fixed: fixed counters (CPUID 0xA)
 * @nmi_watchdog: the kernel's NMI watchdog holds a counter
 * @max_precise: highest precise_ip the PEBS event opened with (0: no PEBS)
 */
struct vs_pmu {
	bool hw;
	int err;
	char why[128];
	struct vs_arch_cpu cpu;
	const struct vs_arch_table *table;
	unsigned int nr_gp, nr_fixed;
	bool nmi_watchdog;
	int max_precise;
};

/**
 * vs_pmu_probe - detect the PMU: open PERF_COUNT_HW_CPU_CYCLES on the
 * calling thread, read CPUID for the counters and the model, try the PEBS
 * event with precise_ip 2 then 1
 *
 * Always fills @pmu and returns 0 when hardware counters can run, -1 when
 * they cannot (then @pmu->why says why and vs_pmu_status() has the line).
 */
int vs_pmu_probe(struct vs_pmu *pmu);

/**
 * vs_pmu_epoch_width - programmable counters an epoch may use: @pmu's
 * counters less the one the NMI watchdog holds
 */
unsigned int vs_pmu_epoch_width(const struct vs_pmu *pmu);

/**
 * vs_pmu_status - the one line that tells the user what the PMU gives:
 * "no hardware PMU (cycles not supported): recording kernel events and
 * software counters only", "hardware counters unavailable (not permitted:
 * perf_event_paranoid is 3): ...", or the model, table and counters
 */
void vs_pmu_status(const struct vs_pmu *pmu, char *buf, size_t len);

struct vs_catalog;

/**
 * vs_pmu_intern - the catalog id of hardware event @e of table @t, its
 * parents interned first (so a parent's id exists before its child's
 * VS_REC_EVENT_DEF names it), with the event's unit and group
 *
 * Returns VS_EVENT_NO_PARENT when the catalog is full.
 */
uint16_t vs_pmu_intern(struct vs_catalog *cat, const struct vs_arch_table *t,
		       const struct vs_arch_event *e);

/* --- fidelity ---------------------------------------------------------- */

/*
 * The DTE filter of the Shim thesis (section 3.4.1): two reads a and b,
 * each bracketed by clock reads Cs (before) and Ce (after).  The period
 * between their ends over the period between their starts,
 * CPC = (Ce_b - Ce_a) / (Cs_b - Cs_a), is 1 when both reads took the same
 * time; the counter deltas between a and b are distorted when CPC is
 * outside 1 +- 1%.  The engine brackets each of its reads so
 * (task-acct.bpf.c).
 */
#define VS_DTE_TOLERANCE_PPM	10000	/* 1% */

/**
 * vs_dte_span_distorted - the DTE filter of a period measured as two
 * spans: @starts from the first read's start clock to the last's, @ends
 * from end clock to end clock (or the sums of those of a task's running
 * periods: the CPC of all of them together); true when @ends / @starts
 * is outside 1 +- @tolerance_ppm / 1e6 or @starts is 0
 */
bool vs_dte_span_distorted(uint64_t starts, uint64_t ends,
			   unsigned int tolerance_ppm);

/**
 * vs_cpu_freq_khz - cpu.freq: @cycles over @ns of running, in kHz
 * (0 when @ns is 0)
 */
uint64_t vs_cpu_freq_khz(uint64_t cycles, uint64_t ns);

/* --- sampling (issue 5) ------------------------------------------------ */

enum vs_sample_source {
	VS_SAMPLE_SRC_PEBS_UOPS,	/* UOPS_RETIRED.ALL, precise */
	VS_SAMPLE_SRC_PEBS_MEM,		/* load latency, precise, addr+weight */
	VS_SAMPLE_SRC_CPU_CLOCK,	/* software clock, the fallback */
};

/**
 * struct vs_sample_spec - the sampling event record opens per CPU
 * @source: which event
 * @period: PEBS reset value (events between samples)
 * @freq: cpu-clock samples per second
 * @ldlat: load-latency threshold in cycles (VS_SAMPLE_SRC_PEBS_MEM)
 * @precise_ip: 2 or 1 for PEBS
 */
struct vs_sample_spec {
	enum vs_sample_source source;
	uint64_t period;
	uint64_t freq;
	unsigned int ldlat;
	int precise_ip;
};

#define VS_SAMPLE_DEFAULT_FREQ	4000	/* cpu-clock Hz, perf's default */

/**
 * vs_pmu_sample_choose - pick the sampling event for @pmu
 * @mem: --sample=mem was asked
 * @period: --sample-period (0: VS_ARCH_PRECISE_PERIOD)
 * @freq: the fallback's frequency (0: VS_SAMPLE_DEFAULT_FREQ)
 * @line: one line for the user when PEBS is not available ("no PEBS
 *        (...): sampling cpu-clock at 4000 Hz"), else empty
 */
void vs_pmu_sample_choose(const struct vs_pmu *pmu, bool mem,
			  uint64_t period, uint64_t freq,
			  struct vs_sample_spec *s, char *line, size_t len);

/**
 * vs_pmu_sample_attr - the attr of @s: disabled, samples
 * with IP, TID, TIME, CPU, CALLCHAIN and PERIOD (plus ADDR, WEIGHT and
 * DATA_SRC for memory sampling), times on CLOCK_MONOTONIC
 */
void vs_pmu_sample_attr(struct perf_event_attr *attr,
			const struct vs_sample_spec *s);

#endif /* VS_CORE_PMU_H */
