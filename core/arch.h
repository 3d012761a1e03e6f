/* SPDX-License-Identifier: MIT */
/*
 * arch.h - what core/ needs from the machine's architecture, and no more:
 * the PMU's event tables and raw encodings, the precise events sampling
 * uses, the user registers a sample carries for DWARF unwinding, the
 * interrupt vectors traced, the system call table.
 *
 * arch/x86/ implements it (the only architecture varscope has).  core/,
 * cmd/ and ui/ include this header, never arch/'s: an event of a table
 * is an incomplete type here, read through the functions below, and the
 * architecture's numbers (registers, encodings, system calls) stay in
 * arch/.  arch/ includes this header and no other of core/.
 */
#ifndef VS_CORE_ARCH_H
#define VS_CORE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- PMU events ----------------------------------------------------------- */

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

/* The fixed counters, present on every PMU that varscope drives. */
#define VS_HW_INSTRUCTIONS	"hw.instructions"
#define VS_HW_CYCLES		"hw.cycles"
#define VS_HW_REF_CYCLES	"hw.ref-cycles"
/* Derived: cycles / on-CPU time, in kHz. */
#define VS_CPU_FREQ		"cpu.freq"

/* Event flags: vs_arch_event_flags(). */
#define VS_ARCH_EV_FIXED	(1u << 0)  /* a fixed counter, always live */
#define VS_ARCH_EV_NOT_RECORDED	(1u << 1)  /* UOP and OTHER: listed, not recorded */
#define VS_ARCH_EV_UNLISTED	(1u << 2)  /* name not in the vendor's list for the model */
#define VS_ARCH_EV_PEBS		(1u << 3)  /* a precise (PEBS) event */
/* a perf software event, of vs_arch_software_table() */
#define VS_ARCH_EV_SOFTWARE	(1u << 4)

/*
 * The class of an event in VarMRI's Table 1: the numbers of the trace
 * format's enum vs_event_group (core/trace/trace.h), which core/pmu.c holds
 * them to, so that arch/ needs no format header.
 */
enum vs_arch_group {
	VS_ARCH_GROUP_SOFTWARE	= 1,
	VS_ARCH_GROUP_CYCLE	= 2,
	VS_ARCH_GROUP_INST	= 3,
	VS_ARCH_GROUP_CACHE	= 4,
	VS_ARCH_GROUP_UOP	= 5,
	VS_ARCH_GROUP_OTHER	= 6,
};

/* One event of a table: defined by arch/, read through vs_arch_event_*(). */
struct vs_arch_event;

/**
 * struct vs_arch_table - the event table of one core microarchitecture
 * @name: perf's name of the table, "skylakex"; "generic" for the fixed
 *        counters alone
 * @desc: "Skylake-SP server core"
 * @events: fixed counters first, then Table 1 (vs_arch_table_event())
 * @nr: number of @events
 * @precise: the precise events of vs_arch_precise_uops() and
 *           vs_arch_precise_loads() are this model's
 */
struct vs_arch_table {
	const char *name;
	const char *desc;
	const struct vs_arch_event *events;
	unsigned int nr;
	bool precise;
};

/**
 * struct vs_arch_cpu - the CPU model that selects the event table
 */
struct vs_arch_cpu {
	char vendor[16];	/* "GenuineIntel", "AuthenticAMD" */
	unsigned int family, model, stepping;
};

/**
 * vs_arch_table_event - event @i of @t (@i below @t->nr)
 */
const struct vs_arch_event *vs_arch_table_event(const struct vs_arch_table *t,
						unsigned int i);

/**
 * vs_arch_generic_table - the fixed counters alone: hw.instructions,
 * hw.cycles and hw.ref-cycles, opened as perf's generic hardware events;
 * the table of every CPU without a model table
 */
const struct vs_arch_table *vs_arch_generic_table(void);

/**
 * vs_arch_software_table - software events in place of a PMU's, for
 * tests on machines without one (VARSCOPE_TEST_SW_COUNTERS): cpu-clock
 * as the fixed counter, minor-faults, major-faults and alignment-faults
 * as programmable ones
 */
const struct vs_arch_table *vs_arch_software_table(void);

/**
 * vs_arch_table_by_name - a table by its name ("skylakex", "generic"),
 * NULL for other names
 */
const struct vs_arch_table *vs_arch_table_by_name(const char *name);

/**
 * vs_arch_table_for - the event table for @cpu, vs_arch_generic_table()
 * when varscope has none for its model
 */
const struct vs_arch_table *vs_arch_table_for(const struct vs_arch_cpu *cpu);

/**
 * vs_arch_cpu_detect - the running CPU; returns 0 or -1 when the machine
 * does not say
 */
int vs_arch_cpu_detect(struct vs_arch_cpu *cpu);

/**
 * vs_arch_cpu_describe - "GenuineIntel family 6 model 0x55 stepping 4"
 */
void vs_arch_cpu_describe(const struct vs_arch_cpu *cpu, char *buf,
			  size_t len);

/**
 * vs_arch_cpu_counters - the counters of this CPU's PMU
 * @nr_gp: programmable counters per logical CPU (0 without a PMU)
 * @nr_fixed: fixed counters
 *
 * Returns 0, or -1 when the CPU does not say.
 */
int vs_arch_cpu_counters(unsigned int *nr_gp, unsigned int *nr_fixed);

/**
 * vs_arch_event_name - the vendor's name, "MEM_LOAD_RETIRED.L3_MISS"
 */
const char *vs_arch_event_name(const struct vs_arch_event *e);

/**
 * vs_arch_event_vs_name - varscope's name, "hw.MEM_LOAD_RETIRED.L3_MISS"
 */
const char *vs_arch_event_vs_name(const struct vs_arch_event *e);

/**
 * vs_arch_event_parent - varscope's name of the Rule 2 parent (Table 2,
 * else hw.cycles for CYCLE and hw.instructions for INST events), or NULL
 */
const char *vs_arch_event_parent(const struct vs_arch_event *e);

/**
 * vs_arch_event_group - the event's enum vs_arch_group
 */
enum vs_arch_group vs_arch_event_group(const struct vs_arch_event *e);

/**
 * vs_arch_event_flags - the event's VS_ARCH_EV_* flags
 */
uint32_t vs_arch_event_flags(const struct vs_arch_event *e);

/**
 * vs_arch_event_lookup - find an event of @t by name
 * @name: varscope name ("hw.L1D.REPLACEMENT", "hw.cycles"), the vendor's
 *        name ("L1D.REPLACEMENT", any case) or, for a fixed counter,
 *        perf's generic name ("cycles")
 *
 * Returns NULL when @t has no such event.
 */
const struct vs_arch_event *vs_arch_event_lookup(const struct vs_arch_table *t,
						 const char *name);

/**
 * vs_arch_event_by_config - the event of @t whose encoding is @hw, or NULL
 */
const struct vs_arch_event *
vs_arch_event_by_config(const struct vs_arch_table *t,
			const struct vs_hw_config *hw);

/**
 * vs_arch_event_hw - the perf type and config that open @e: a fixed
 * counter as perf's generic hardware event (the kernel puts it on its
 * fixed counter), any other as a raw cpu PMU event
 */
void vs_arch_event_hw(const struct vs_arch_event *e, struct vs_hw_config *hw);

/**
 * vs_arch_event_unit - "cycles" for CYCLE events, "count" for the others
 */
const char *vs_arch_event_unit(const struct vs_arch_event *e);

/**
 * vs_arch_event_format - @e in perf's raw syntax,
 * "cpu/event=0xd1,umask=0x20/"; a fixed counter as perf's generic name
 * ("instructions", "cycles", "ref-cycles")
 */
void vs_arch_event_format(const struct vs_arch_event *e, char *buf,
			  size_t len);

/**
 * vs_arch_event_recorded - whether the epoch schedule records @e by
 * default: a programmable CYCLE, INST or CACHE event the vendor lists
 * for the model (fixed counters are always live and not scheduled)
 */
bool vs_arch_event_recorded(const struct vs_arch_event *e);

/**
 * vs_arch_parse_raw - parse perf's raw event syntax
 * @s: "rNNNN" (hex config) or "cpu/event=0x..,umask=0x..[,...]/"
 * @hw: the result, type PERF_TYPE_RAW
 * @err: a one-line reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * Returns 0, or -1 on a malformed or out-of-range event.
 */
int vs_arch_parse_raw(const char *s, struct vs_hw_config *hw,
		      char *err, size_t errlen);

/*
 * Precise sampling (issue 5).  The paper behind sampling (Akiyama et al.)
 * took PEBS samples of UOPS_RETIRED.ALL with reset values of 8000 to
 * 24000 (8000 in its sample application, 16000 the balance it chose for
 * DPDK's ACL); --sample=mem samples loads by latency (perf's mem-loads),
 * threshold ldlat.
 */
#define VS_ARCH_PRECISE_PERIOD	8000
#define VS_ARCH_LDLAT_DEFAULT	3

/**
 * vs_arch_precise_uops - the precise event of retired micro-operations
 * (Intel's UOPS_RETIRED.ALL)
 */
const struct vs_arch_event *vs_arch_precise_uops(void);

/**
 * vs_arch_precise_loads - the precise event of loads by latency (Intel's
 * MEM_TRANS_RETIRED.LOAD_LATENCY); its threshold goes to config1
 * (vs_arch_event_hw() leaves it 0: set hw.config1 = ldlat)
 */
const struct vs_arch_event *vs_arch_precise_loads(void);

/* --- user registers, for DWARF unwinding ---------------------------------- */

/* DWARF register numbers a sample can fill are below it. */
#define VS_ARCH_DWARF_REGS	32

/*
 * The user registers a sampling event asks for (PERF_SAMPLE_REGS_USER):
 * those DWARF call frame information can name, as perf's PERF_REG_*
 * bits of the architecture.
 */
extern const uint64_t vs_arch_regs_user_mask;

/* The DWARF numbers of the instruction, stack and frame pointers. */
extern const unsigned int vs_arch_dwarf_ip, vs_arch_dwarf_sp, vs_arch_dwarf_fp;

/**
 * vs_arch_regs_dwarf - the registers @regs of a sample, one per bit of
 * @mask in bit order (perf's layout), by DWARF number into @dwarf
 * @have: bit N set when DWARF register N was among them
 *
 * Registers of @mask that DWARF does not number are skipped.  Reads at
 * most @nr values.  Returns 0, or -1 when @regs has fewer than @mask says.
 */
int vs_arch_regs_dwarf(uint64_t mask, const uint64_t *regs, size_t nr,
		       uint64_t dwarf[VS_ARCH_DWARF_REGS], uint32_t *have);

/* --- interrupt vectors ---------------------------------------------------- */

/*
 * The vectors traced by irq_vectors:<name>_entry/exit, NULL-terminated;
 * the event names are irq.vector.<name>.time/.count.
 */
extern const char *const vs_arch_irq_vectors[];

/* --- system calls --------------------------------------------------------- */

/* The architecture's system call numbers are below it. */
#define VS_NR_SYSCALLS	512

/**
 * vs_syscall_name - the name of system call @nr ("read"), or NULL when
 * the table has none (the caller then prints "syscall_NR")
 */
const char *vs_syscall_name(unsigned int nr);

/**
 * vs_syscall_number - the number of the system call @name, with or
 * without a "sys_" prefix; -1 when unknown
 */
int vs_syscall_number(const char *name);

/**
 * vs_syscall_by_uprobe - whether system call @nr is made by the kernel's
 * own uprobe trampolines (uretprobe: Linux 6.11+, on every probed
 * return; uprobe: 6.17+, at optimized probes), not by the program
 */
bool vs_syscall_by_uprobe(long nr);

#endif /* VS_CORE_ARCH_H */
