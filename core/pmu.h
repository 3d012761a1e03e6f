/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - hardware counters for varscope record: detection, per-thread
 * counter groups, reads with fidelity checks (multiplexing, the DTE
 * filter), and the sampling event (PEBS or cpu-clock).  Which periods a
 * task's counter deltas cover (leaving interrupts out) is record's
 * accounting (core/accounting.h); this layer reads and flags.
 *
 * Every function is written against the real perf ABI and detects at run
 * time what the machine has.  Everything that interprets counter values
 * (vs_counter_read_parse, the DTE filter, the period flags) is a pure
 * function, so tests drive it with recorded or synthetic snapshots.
 *
 * How record uses it:
 *
 *	vs_pmu_probe(&pmu);  vs_pmu_status(&pmu, line, ...);  print line
 *	if (pmu.hw):
 *	    the events: every e of pmu.table with vs_arch_event_recorded(e)
 *	    (or -e NAME / -e cpu/../ through vs_arch_event_lookup() and
 *	    vs_arch_parse_raw()), each interned with vs_pmu_intern()
 *	    s = vs_epoch_schedule_new(ids, n, vs_pmu_epoch_width(&pmu))
 *	    each epoch: set = vs_epoch_schedule_set(s, epoch, &nr); per
 *	    thread vs_counter_group_open() of the fixed counters and the
 *	    set (vs_arch_event_hw() gives each vs_hw_config); an epoch
 *	    record names them
 *	    snapshots: a tracepoint added with vs_counter_group_add_snapshot()
 *	    carries the group's values in each sample (PERF_SAMPLE_READ);
 *	    vs_counter_read_parse() + vs_counter_read_order() decode it;
 *	    vs_counter_group_read() takes one bracketed by clock reads
 *	    accounting sums the deltas of running periods and ORs in
 *	    vs_counter_period_flags() of each period's two snapshots
 *
 * and sampling: vs_pmu_sample_choose() (prints nothing: the line it
 * fills is for the caller) then vs_pmu_sample_attr() per thread.
 */
#ifndef VS_CORE_PMU_H
#define VS_CORE_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "core/arch.h"

/*
 * Fixed counters + programmable counters + snapshot events of a group
 * (record's: up to VS_MAX_HW_COUNTERS counters and the interrupt entry
 * and exit tracepoints).
 */
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

/**
 * vs_pmu_errno_reason - the reason for an errno of perf_event_open() on
 * a hardware event ("cycles not supported", "not permitted ...")
 */
const char *vs_pmu_errno_reason(int err);

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

/* --- counter groups ---------------------------------------------------- */

/* The read format of every varscope counter group. */
#define VS_PMU_READ_FORMAT	(PERF_FORMAT_GROUP |			\
				 PERF_FORMAT_TOTAL_TIME_ENABLED |	\
				 PERF_FORMAT_TOTAL_TIME_RUNNING |	\
				 PERF_FORMAT_ID)

/**
 * struct vs_counter_group - one thread's counters, read together
 * @fd: fd[0] leads; -1 for unused slots
 * @id: the kernel's id of each member (PERF_FORMAT_ID)
 * @nr: members
 */
struct vs_counter_group {
	int fd[VS_PMU_MAX_GROUP];
	uint64_t id[VS_PMU_MAX_GROUP];
	unsigned int nr;
};

/**
 * struct vs_counter_read - one snapshot of a group
 * @t_before: CLOCK_MONOTONIC ns just before the read (a snapshot taken
 *            by the kernel in a sample: the sample time)
 * @t_after: just after the read (a sample: the sample time again)
 * @time_enabled, @time_running: of the group leader, ns
 * @nr: values
 * @value, @id: per member, in the kernel's group order
 */
struct vs_counter_read {
	uint64_t t_before, t_after;
	uint64_t time_enabled, time_running;
	unsigned int nr;
	uint64_t value[VS_PMU_MAX_GROUP];
	uint64_t id[VS_PMU_MAX_GROUP];
};

/**
 * vs_pmu_counter_attr - the attr of a counting group member: disabled
 * (the leader; record enables it inside selected tasks), per thread, not
 * inherited, user and kernel, read_format VS_PMU_READ_FORMAT, times on
 * CLOCK_MONOTONIC (the kernel wants one clock in a group, and a snapshot
 * event's ring is record's, on that clock)
 */
void vs_pmu_counter_attr(struct perf_event_attr *attr,
			 const struct vs_hw_config *hw, bool leader);

/**
 * vs_counter_group_open - open @n counters as one group on thread @tid
 * @cpu: -1 for any CPU (per-thread counting)
 * @err: the failing event and errno reason on failure (may be NULL)
 *
 * Returns 0, or -1 with errno set and nothing left open.
 */
int vs_counter_group_open(struct vs_counter_group *g,
			  const struct vs_hw_config *hw, unsigned int n,
			  pid_t tid, int cpu, char *err, size_t errlen);

/**
 * vs_counter_group_add_snapshot - add a sampling event to @g whose every
 * sample carries the whole group's values (PERF_SAMPLE_READ with the
 * group read format): an irq, softirq or fault tracepoint so opened gives
 * counter snapshots at interrupt entry and exit
 * @attr: the event (its type, config, sample_period...); sample_type
 *        gains PERF_SAMPLE_READ, read_format becomes VS_PMU_READ_FORMAT,
 *        the clock the group's (CLOCK_MONOTONIC)
 *
 * Returns the new fd (owned by @g), or -1 with errno set.
 */
int vs_counter_group_add_snapshot(struct vs_counter_group *g,
				  struct perf_event_attr *attr,
				  pid_t tid, int cpu);

/** vs_counter_group_enable - start (or, disable, stop) the whole group */
int vs_counter_group_enable(const struct vs_counter_group *g);
int vs_counter_group_disable(const struct vs_counter_group *g);

/**
 * vs_counter_group_read - read the group, bracketed by two clock reads
 * (the DTE filter needs both); returns 0 or -1 with errno set
 */
int vs_counter_group_read(const struct vs_counter_group *g,
			  struct vs_counter_read *r);

void vs_counter_group_close(struct vs_counter_group *g);

/**
 * vs_counter_read_parse - decode a VS_PMU_READ_FORMAT block: what read()
 * of the leader returns, and the read part of a PERF_SAMPLE_READ sample
 * @buf, @len: the bytes
 * @r: filled except t_before/t_after
 *
 * Returns the bytes consumed, or -1 when @len is too short or the block
 * has more than VS_PMU_MAX_GROUP values.
 */
ssize_t vs_counter_read_parse(const void *buf, size_t len,
			      struct vs_counter_read *r);

/**
 * vs_counter_read_order - @r's values in @g's member order (by id)
 * Returns 0, or -1 when a member of @g is missing from @r.
 */
int vs_counter_read_order(const struct vs_counter_group *g,
			  const struct vs_counter_read *r, uint64_t *values);

/* --- fidelity ---------------------------------------------------------- */

/*
 * The DTE filter of the Shim thesis (section 3.4.1): two reads a and b,
 * each bracketed by clock reads Cs (before) and Ce (after).  The period
 * between their ends over the period between their starts,
 * CPC = (Ce_b - Ce_a) / (Cs_b - Cs_a), is 1 when both reads took the same
 * time; the counter deltas between a and b are distorted when CPC is
 * outside 1 +- 1%.
 */
#define VS_DTE_TOLERANCE_PPM	10000	/* 1% */

/**
 * vs_dte_distorted - whether the interval from read @a to read @b fails
 * the DTE filter (CPC outside 1 +- @tolerance_ppm / 1e6, or the clock
 * did not advance)
 */
bool vs_dte_distorted(const struct vs_counter_read *a,
		      const struct vs_counter_read *b,
		      unsigned int tolerance_ppm);

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
 * vs_counter_multiplexed - whether the group was off the PMU for part of
 * the interval from @a to @b (time running grew less than time enabled);
 * such deltas are flagged, never scaled
 */
bool vs_counter_multiplexed(const struct vs_counter_read *a,
			    const struct vs_counter_read *b);

/**
 * vs_counter_period_flags - the fidelity of the counter deltas of one
 * running period, from snapshot @from to snapshot @to (record's
 * accounting takes those snapshots where a task starts and stops running,
 * leaving interrupts out, and sums the deltas)
 *
 * Returns VS_TASK_MULTIPLEXED (core/trace/trace.h) when the group was off the
 * PMU for part of the period, VS_TASK_DISTORTED when the two reads fail
 * the DTE filter or a value went backwards (the group was reset), 0 when
 * the deltas can be trusted.  Nothing is scaled.
 */
uint32_t vs_counter_period_flags(const struct vs_counter_read *from,
				 const struct vs_counter_read *to);

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
 * struct vs_sample_spec - the sampling event record opens per thread
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
 * vs_pmu_sample_attr - the attr of @s: disabled, per thread, samples
 * with IP, TID, TIME, CPU, CALLCHAIN and PERIOD (plus ADDR, WEIGHT and
 * DATA_SRC for memory sampling), times on CLOCK_MONOTONIC
 */
void vs_pmu_sample_attr(struct perf_event_attr *attr,
			const struct vs_sample_spec *s);

#endif /* VS_CORE_PMU_H */
