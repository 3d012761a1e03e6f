// SPDX-License-Identifier: MIT
/*
 * intel-events.c - Intel core PMU event tables, raw event syntax, CPU model.
 *
 * The Skylake-SP table is VarMRI's Table 1, row for row, with the encodings
 * of Intel's event list for that core.  Parents are Table 2, and where
 * Table 2 names none, the rule the paper states beside it: every INST event
 * is a child of hw.instructions and every CYCLE event of hw.cycles.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "arch/x86/intel-events.h"

#define HW(n)	"hw." n
#define CYC	VS_HW_CYCLES
#define INS	VS_HW_INSTRUCTIONS

/* One programmable event; trailing designators add cmask/inv/any/edge. */
#define EV(n, g, ev, um, par, fl, ...)					\
	{ .name = n, .vs_name = HW(n), .parent = par, .event = ev,	\
	  .umask = um, .group = VS_ARCH_GROUP_##g, .flags = fl, __VA_ARGS__ }

#define PEBS	VS_ARCH_EV_PEBS

/*
 * The fixed counters: Intel encodes them as event 0 with a pseudo umask
 * naming the counter (INST_RETIRED.ANY = fixed counter 0, ...).
 */
#define FIXED_EVENTS							\
	{ .name = "INST_RETIRED.ANY", .vs_name = VS_HW_INSTRUCTIONS,	\
	  .umask = 0x01, .group = VS_ARCH_GROUP_INST,			\
	  .flags = VS_ARCH_EV_FIXED },					\
	{ .name = "CPU_CLK_UNHALTED.THREAD", .vs_name = VS_HW_CYCLES,	\
	  .umask = 0x02, .group = VS_ARCH_GROUP_CYCLE,			\
	  .flags = VS_ARCH_EV_FIXED },					\
	{ .name = "CPU_CLK_UNHALTED.REF_TSC", .vs_name = VS_HW_REF_CYCLES, \
	  .umask = 0x03, .group = VS_ARCH_GROUP_CYCLE,			\
	  .flags = VS_ARCH_EV_FIXED }

static const struct vs_arch_event skx_events[] = {
	FIXED_EVENTS,

	/* Table 1, CACHE */
	EV("ITLB.ITLB_FLUSH", CACHE, 0xae, 0x01, NULL, 0),
	EV("TLB_FLUSH.DTLB_THREAD", CACHE, 0xbd, 0x01, NULL, 0),
	EV("MEM_INST_RETIRED.SPLIT_LOADS", CACHE, 0xd0, 0x41, NULL, PEBS),
	EV("MEM_INST_RETIRED.SPLIT_STORES", CACHE, 0xd0, 0x42, NULL, PEBS),
	EV("MEM_LOAD_RETIRED.L1_HIT", CACHE, 0xd1, 0x01, NULL, PEBS),
	EV("MEM_LOAD_RETIRED.L2_HIT", CACHE, 0xd1, 0x02, NULL, PEBS),
	EV("MEM_LOAD_RETIRED.L3_HIT", CACHE, 0xd1, 0x04, NULL, PEBS),
	EV("MEM_LOAD_RETIRED.L1_MISS", CACHE, 0xd1, 0x08, NULL, PEBS),
	EV("MEM_LOAD_RETIRED.L2_MISS", CACHE, 0xd1, 0x10, NULL, PEBS),
	EV("MEM_LOAD_RETIRED.L3_MISS", CACHE, 0xd1, 0x20, NULL, PEBS),
	EV("L2_TRANS.L2_WB", CACHE, 0xf0, 0x40, NULL, 0),
	EV("L2_LINES_IN.ALL", CACHE, 0xf1, 0x1f, NULL, 0),
	EV("LONGEST_LAT_CACHE.REFERENCE", CACHE, 0x2e, 0x4f, NULL, 0),
	EV("LONGEST_LAT_CACHE.MISS", CACHE, 0x2e, 0x41, NULL, 0),
	EV("L1D_PEND_MISS.PENDING", CACHE, 0x48, 0x01, NULL, 0),
	EV("DTLB_LOAD_MISSES.WALK_COMPLETED", CACHE, 0x08, 0x0e, NULL, 0),
	EV("DTLB_STORE_MISSES.MISS_CAUSES_A_WALK", CACHE, 0x49, 0x01, NULL, 0),
	EV("DTLB_STORE_MISSES.WALK_COMPLETED", CACHE, 0x49, 0x0e, NULL, 0),
	EV("DTLB_STORE_MISSES.STLB_HIT", CACHE, 0x49, 0x20, NULL, 0),
	EV("L1D.REPLACEMENT", CACHE, 0x51, 0x01, NULL, 0),
	EV("DTLB_LOAD_MISSES.STLB_HIT", CACHE, 0x08, 0x20, NULL, 0),
	EV("ICACHE_64B.IFTAG_HIT", CACHE, 0x83, 0x01, NULL, 0),
	EV("ICACHE_64B.IFTAG_MISS", CACHE, 0x83, 0x02, NULL, 0),
	EV("ITLB_MISSES.MISS_CAUSES_A_WALK", CACHE, 0x85, 0x01, NULL, 0),
	EV("ITLB_MISSES.WALK_COMPLETED", CACHE, 0x85, 0x0e, NULL, 0),
	EV("ITLB_MISSES.STLB_HIT", CACHE, 0x85, 0x20, NULL, 0),
	EV("MEM_INST_RETIRED.STLB_MISS_LOADS", CACHE, 0xd0, 0x11, NULL, PEBS),
	EV("MEM_INST_RETIRED.STLB_MISS_STORES", CACHE, 0xd0, 0x12, NULL, PEBS),
	EV("L2_RQSTS.CODE_RD_MISS", CACHE, 0x24, 0x24, NULL, 0),

	/* Table 1, CYCLE */
	EV("RESOURCE_STALLS.ANY", CYCLE, 0xa2, 0x01, CYC, 0),
	EV("RESOURCE_STALLS.SB", CYCLE, 0xa2, 0x08, CYC, 0),
	EV("CYCLE_ACTIVITY.CYCLES_L2_MISS", CYCLE, 0xa3, 0x01, CYC, 0,
	   .cmask = 1),
	EV("CYCLE_ACTIVITY.CYCLES_L3_MISS", CYCLE, 0xa3, 0x02, CYC, 0,
	   .cmask = 2),
	EV("CYCLE_ACTIVITY.STALLS_TOTAL", CYCLE, 0xa3, 0x04, CYC, 0,
	   .cmask = 4),
	EV("CYCLE_ACTIVITY.STALLS_L2_MISS", CYCLE, 0xa3, 0x05,
	   HW("CYCLE_ACTIVITY.STALLS_TOTAL"), 0, .cmask = 5),
	EV("CYCLE_ACTIVITY.STALLS_L3_MISS", CYCLE, 0xa3, 0x06,
	   HW("CYCLE_ACTIVITY.STALLS_TOTAL"), 0, .cmask = 6),
	EV("CYCLE_ACTIVITY.CYCLES_L1D_MISS", CYCLE, 0xa3, 0x08, CYC, 0,
	   .cmask = 8),
	EV("CYCLE_ACTIVITY.STALLS_L1D_MISS", CYCLE, 0xa3, 0x0c,
	   HW("CYCLE_ACTIVITY.STALLS_TOTAL"), 0, .cmask = 12),
	EV("CYCLE_ACTIVITY.CYCLES_MEM_ANY", CYCLE, 0xa3, 0x10, CYC, 0,
	   .cmask = 16),
	EV("CYCLE_ACTIVITY.STALLS_MEM_ANY", CYCLE, 0xa3, 0x14,
	   HW("CYCLE_ACTIVITY.STALLS_TOTAL"), 0, .cmask = 20),
	EV("FP_ASSIST.ANY", CYCLE, 0xca, 0x1e, CYC, 0, .cmask = 1),
	EV("CPU_CLK_UNHALTED.THREAD_P", CYCLE, 0x3c, 0x00,
	   HW("CPU_CLK_UNHALTED.THREAD_P_ANY"), 0),
	EV("CPU_CLK_UNHALTED.THREAD_P_ANY", CYCLE, 0x3c, 0x00, CYC, 0,
	   .any = true),
	EV("CPU_CLK_THREAD_UNHALTED.REF_XCLK", CYCLE, 0x3c, 0x01,
	   HW("CPU_CLK_THREAD_UNHALTED.REF_XCLK_ANY"), 0),
	EV("CPU_CLK_THREAD_UNHALTED.REF_XCLK_ANY", CYCLE, 0x3c, 0x01, CYC, 0,
	   .any = true),
	EV("CPU_CLK_THREAD_UNHALTED.ONE_THREAD_ACTIVE", CYCLE, 0x3c, 0x02,
	   HW("CPU_CLK_THREAD_UNHALTED.REF_XCLK_ANY"), 0),
	EV("L1D_PEND_MISS.PENDING_CYCLES", CYCLE, 0x48, 0x01,
	   HW("L1D_PEND_MISS.PENDING_CYCLES_ANY"), 0, .cmask = 1),
	EV("L1D_PEND_MISS.PENDING_CYCLES_ANY", CYCLE, 0x48, 0x01, CYC, 0,
	   .cmask = 1, .any = true),
	EV("DTLB_STORE_MISSES.WALK_PENDING", CYCLE, 0x49, 0x10, CYC, 0),
	EV("DTLB_STORE_MISSES.WALK_ACTIVE", CYCLE, 0x49, 0x10, CYC, 0,
	   .cmask = 1),
	EV("EPT.WALK_PENDING", CYCLE, 0x4f, 0x10, CYC, 0),
	EV("DTLB_LOAD_MISSES.WALK_PENDING", CYCLE, 0x08, 0x10, CYC, 0),
	EV("DTLB_LOAD_MISSES.WALK_ACTIVE", CYCLE, 0x08, 0x10, CYC, 0,
	   .cmask = 1),
	/* Intel's Haswell/Broadwell encoding; no longer in the SKX list. */
	EV("LOCK_CYCLES.CACHE_LOCK_DURATION", CYCLE, 0x63, 0x02, CYC,
	   VS_ARCH_EV_UNLISTED),
	/* Intel's first SKL list; 0x80/0x04 is now ICACHE_16B.IFDATA_STALL. */
	EV("ICACHE_64B.IFDATA_STALL", CYCLE, 0x80, 0x04, CYC, 0),
	EV("ITLB_MISSES.WALK_PENDING", CYCLE, 0x85, 0x10, CYC, 0),
	EV("ILD_STALL.LCP", CYCLE, 0x87, 0x01, CYC, 0),

	/* Table 1, INST */
	EV("INST_RETIRED.ANY_P", INST, 0xc0, 0x00, INS, 0),
	EV("BR_INST_RETIRED.ALL_BRANCHES", INST, 0xc4, 0x00,
	   HW("INST_RETIRED.ANY_P"), 0),
	EV("BR_INST_RETIRED.CONDITIONAL", INST, 0xc4, 0x01, INS, PEBS),
	EV("BR_INST_RETIRED.NEAR_CALL", INST, 0xc4, 0x02, INS, PEBS),
	/* Table 1 lists ALL_BRANCHES twice: the second is the PEBS form. */
	EV("BR_INST_RETIRED.ALL_BRANCHES_PEBS", INST, 0xc4, 0x04, INS, PEBS),
	EV("BR_INST_RETIRED.NEAR_RETURN", INST, 0xc4, 0x08, INS, PEBS),
	EV("BR_INST_RETIRED.NOT_TAKEN", INST, 0xc4, 0x10,
	   HW("BR_INST_RETIRED.ALL_BRANCHES"), 0),
	EV("BR_INST_RETIRED.NEAR_TAKEN", INST, 0xc4, 0x20, INS, PEBS),
	EV("BR_INST_RETIRED.FAR_BRANCH", INST, 0xc4, 0x40,
	   HW("BR_INST_RETIRED.ALL_BRANCHES"), PEBS),
	EV("BR_MISP_RETIRED.ALL_BRANCHES", INST, 0xc5, 0x00,
	   HW("BR_INST_RETIRED.ALL_BRANCHES"), 0),
	EV("BR_MISP_RETIRED.CONDITIONAL", INST, 0xc5, 0x01,
	   HW("BR_INST_RETIRED.ALL_BRANCHES"), PEBS),
	EV("BR_MISP_RETIRED.ALL_BRANCHES_PEBS", INST, 0xc5, 0x04,
	   HW("BR_INST_RETIRED.ALL_BRANCHES"), PEBS),
	EV("BR_MISP_RETIRED.NEAR_TAKEN", INST, 0xc5, 0x20,
	   HW("BR_INST_RETIRED.ALL_BRANCHES"), PEBS),
	EV("FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", INST, 0xc7, 0x01, INS, 0),
	EV("FP_ARITH_INST_RETIRED.SCALAR_SINGLE", INST, 0xc7, 0x02, INS, 0),
	EV("FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE", INST, 0xc7, 0x04, INS, 0),
	EV("FP_ARITH_INST_RETIRED.128B_PACKED_SINGLE", INST, 0xc7, 0x08, INS, 0),
	EV("FP_ARITH_INST_RETIRED.256B_PACKED_DOUBLE", INST, 0xc7, 0x10, INS, 0),
	EV("FP_ARITH_INST_RETIRED.256B_PACKED_SINGLE", INST, 0xc7, 0x20, INS, 0),
	EV("MEM_INST_RETIRED.LOCK_LOADS", INST, 0xd0, 0x21,
	   HW("MEM_INST_RETIRED.ALL_LOADS"), PEBS),
	EV("MEM_INST_RETIRED.ALL_LOADS", INST, 0xd0, 0x81, INS, PEBS),
	EV("MEM_INST_RETIRED.ALL_STORES", INST, 0xd0, 0x82, INS, PEBS),

	/* Table 1, OTHER: counted by the kernel events instead. */
	EV("HW_INTERRUPTS.RECEIVED", OTHER, 0xcb, 0x01, NULL,
	   VS_ARCH_EV_NOT_RECORDED),
	/*
	 * UOP: Table 1 lists none; the one varscope knows is the PEBS
	 * sampling event of the sampling paper (0xc2/0x01, simple-pebs'
	 * UOPS_RETIRED_ALL; Skylake takes any event as PEBS).
	 */
	EV("UOPS_RETIRED.ALL", UOP, 0xc2, 0x01, NULL,
	   VS_ARCH_EV_NOT_RECORDED | PEBS),
	/* perf's mem-loads: sampled with an ldlat threshold in config1. */
	EV("MEM_TRANS_RETIRED.LOAD_LATENCY", CACHE, 0xcd, 0x01, NULL,
	   VS_ARCH_EV_NOT_RECORDED | PEBS),
};

static const struct vs_arch_event generic_events[] = {
	FIXED_EVENTS,
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The fixed counters by Intel's pseudo umask, as perf's generic events. */
static const struct {
	uint64_t config;
	const char *perf_name;
} fixed_counters[] = {
	[1] = { PERF_COUNT_HW_INSTRUCTIONS, "instructions" },
	[2] = { PERF_COUNT_HW_CPU_CYCLES, "cycles" },
	[3] = { PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles" },
};

static int fixed_counter(const struct vs_arch_event *e)
{
	return (e->flags & VS_ARCH_EV_FIXED) && e->umask >= 1 &&
	       e->umask < ARRAY_SIZE(fixed_counters) ? e->umask : 0;
}

static const struct vs_arch_table skx_table = {
	.name = "skylakex",
	.desc = "Skylake-SP server core",
	.events = skx_events,
	.nr = ARRAY_SIZE(skx_events),
	.precise = true,
};

static const struct vs_arch_event software_events[] = {
	{ .name = "cpu-clock", .vs_name = "cpu-clock",
	  .event = PERF_COUNT_SW_CPU_CLOCK, .group = VS_ARCH_GROUP_SOFTWARE,
	  .flags = VS_ARCH_EV_FIXED | VS_ARCH_EV_SOFTWARE },
	{ .name = "minor-faults", .vs_name = "minor-faults",
	  .event = PERF_COUNT_SW_PAGE_FAULTS_MIN, .group = VS_ARCH_GROUP_SOFTWARE,
	  .flags = VS_ARCH_EV_SOFTWARE },
	{ .name = "major-faults", .vs_name = "major-faults",
	  .event = PERF_COUNT_SW_PAGE_FAULTS_MAJ, .group = VS_ARCH_GROUP_SOFTWARE,
	  .flags = VS_ARCH_EV_SOFTWARE },
	{ .name = "alignment-faults", .vs_name = "alignment-faults",
	  .event = PERF_COUNT_SW_ALIGNMENT_FAULTS, .group = VS_ARCH_GROUP_SOFTWARE,
	  .flags = VS_ARCH_EV_SOFTWARE },
};

static const struct vs_arch_table software_table = {
	.name = "software",
	.desc = "software events in place of a PMU's (tests)",
	.events = software_events,
	.nr = ARRAY_SIZE(software_events),
};

static const struct vs_arch_table generic_table = {
	.name = "generic",
	.desc = "fixed counters only",
	.events = generic_events,
	.nr = ARRAY_SIZE(generic_events),
};

const struct vs_arch_event *vs_arch_table_event(const struct vs_arch_table *t,
						unsigned int i)
{
	return &t->events[i];
}

const char *vs_arch_event_name(const struct vs_arch_event *e)
{
	return e->name;
}

const char *vs_arch_event_vs_name(const struct vs_arch_event *e)
{
	return e->vs_name;
}

const char *vs_arch_event_parent(const struct vs_arch_event *e)
{
	return e->parent;
}

enum vs_arch_group vs_arch_event_group(const struct vs_arch_event *e)
{
	return e->group;
}

uint32_t vs_arch_event_flags(const struct vs_arch_event *e)
{
	return e->flags;
}

const struct vs_arch_table *vs_x86_skylakex(void)
{
	return &skx_table;
}

const struct vs_arch_table *vs_arch_generic_table(void)
{
	return &generic_table;
}

const struct vs_arch_table *vs_arch_software_table(void)
{
	return &software_table;
}

const struct vs_arch_event *vs_arch_precise_uops(void)
{
	return vs_arch_event_lookup(&skx_table, "UOPS_RETIRED.ALL");
}

const struct vs_arch_event *vs_arch_precise_loads(void)
{
	return vs_arch_event_lookup(&skx_table,
				    "MEM_TRANS_RETIRED.LOAD_LATENCY");
}

const struct vs_arch_table *vs_arch_table_by_name(const char *name)
{
	if (!strcmp(name, skx_table.name))
		return &skx_table;
	if (!strcmp(name, generic_table.name))
		return &generic_table;
	return NULL;
}

const struct vs_arch_table *vs_arch_table_for(const struct vs_arch_cpu *cpu)
{
	if (!strcmp(cpu->vendor, "GenuineIntel") && cpu->family == 6 &&
	    cpu->model == 0x55)
		return &skx_table;
	return &generic_table;
}

void vs_arch_cpu_describe(const struct vs_arch_cpu *cpu, char *buf, size_t len)
{
	snprintf(buf, len, "%s family %u model 0x%x stepping %u",
		 cpu->vendor[0] ? cpu->vendor : "unknown", cpu->family,
		 cpu->model, cpu->stepping);
}

/* The value of "key<spaces>\t: value" in the first processor block. */
static int cpuinfo_field(const char *text, const char *key, char *val,
			 size_t len)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line && *line != '\n') {
		const char *end = strchr(line, '\n');
		const char *p = line + klen;

		if (!strncmp(line, key, klen) && (*p == ' ' || *p == '\t' ||
						  *p == ':')) {
			size_t n;

			p += strspn(p, " \t");
			if (*p++ != ':')
				return -1;
			p += strspn(p, " \t");
			n = end ? (size_t)(end - p) : strlen(p);
			if (n >= len)
				n = len - 1;
			memcpy(val, p, n);
			val[n] = '\0';
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

static int cpuinfo_uint(const char *text, const char *key, unsigned int *v)
{
	char buf[32], *end;
	unsigned long n;

	if (cpuinfo_field(text, key, buf, sizeof(buf)))
		return -1;
	errno = 0;
	n = strtoul(buf, &end, 0);
	if (errno || end == buf || *end || n > 0xffff)
		return -1;
	*v = n;
	return 0;
}

int vs_x86_cpu_parse_cpuinfo(const char *text, struct vs_arch_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
	if (cpuinfo_field(text, "vendor_id", cpu->vendor, sizeof(cpu->vendor)) ||
	    cpuinfo_uint(text, "cpu family", &cpu->family) ||
	    cpuinfo_uint(text, "model", &cpu->model))
		return -1;
	if (cpuinfo_uint(text, "stepping", &cpu->stepping))
		cpu->stepping = 0;
	return 0;
}

static int cpu_detect_cpuinfo(struct vs_arch_cpu *cpu)
{
	char text[8192];
	size_t n;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return vs_x86_cpu_parse_cpuinfo(text, cpu);
}

int vs_arch_cpu_detect(struct vs_arch_cpu *cpu)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d, family, model;

	if (__get_cpuid(0, &a, &b, &c, &d)) {
		memset(cpu, 0, sizeof(*cpu));
		memcpy(cpu->vendor, &b, 4);
		memcpy(cpu->vendor + 4, &d, 4);
		memcpy(cpu->vendor + 8, &c, 4);
		__get_cpuid(1, &a, &b, &c, &d);
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family == 0x6 || family >= 0xf)
			model |= ((a >> 16) & 0xf) << 4;
		cpu->family = family;
		cpu->model = model;
		cpu->stepping = a & 0xf;
		return 0;
	}
#endif
	return cpu_detect_cpuinfo(cpu);
}

unsigned int vs_x86_pmu_counters(uint32_t eax, uint32_t edx,
				 unsigned int *nr_gp, unsigned int *nr_fixed)
{
	unsigned int version = eax & 0xff;

	*nr_gp = version ? (eax >> 8) & 0xff : 0;
	/* Fixed counters are enumerated in EDX from version 2 on. */
	*nr_fixed = version >= 2 ? edx & 0x1f : 0;
	return version;
}

int vs_arch_cpu_counters(unsigned int *nr_gp, unsigned int *nr_fixed)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0, NULL) >= 0xa) {
		__cpuid(0xa, a, b, c, d);
		vs_x86_pmu_counters(a, d, nr_gp, nr_fixed);
		return 0;
	}
#endif
	return -1;
}

const struct vs_arch_event *vs_arch_event_lookup(const struct vs_arch_table *t,
						 const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		const struct vs_arch_event *e = &t->events[i];
		int f = fixed_counter(e);

		if (!strcmp(e->vs_name, name) || !strcasecmp(e->name, name) ||
		    (f && !strcmp(fixed_counters[f].perf_name, name)))
			return e;
	}
	if (!strncmp(name, "hw.", 3))
		for (i = 0; i < t->nr; i++)
			if (!strcasecmp(t->events[i].name, name + 3))
				return &t->events[i];
	return NULL;
}

uint64_t vs_x86_event_config(const struct vs_arch_event *e)
{
	return (uint64_t)e->event | (uint64_t)e->umask << 8 |
	       (uint64_t)e->edge << 18 | (uint64_t)e->any << 21 |
	       (uint64_t)e->inv << 23 | (uint64_t)e->cmask << 24;
}

void vs_arch_event_hw(const struct vs_arch_event *e, struct vs_hw_config *hw)
{
	int f = fixed_counter(e);

	hw->config1 = 0;
	if (e->flags & VS_ARCH_EV_SOFTWARE) {
		hw->type = PERF_TYPE_SOFTWARE;
		hw->config = e->event;
	} else if (f) {
		hw->type = PERF_TYPE_HARDWARE;
		hw->config = fixed_counters[f].config;
	} else {
		hw->type = PERF_TYPE_RAW;
		hw->config = vs_x86_event_config(e);
	}
}

const struct vs_arch_event *
vs_arch_event_by_config(const struct vs_arch_table *t,
			const struct vs_hw_config *hw)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		struct vs_hw_config c;

		vs_arch_event_hw(&t->events[i], &c);
		if (c.type == hw->type && c.config == hw->config)
			return &t->events[i];
	}
	return NULL;
}

const char *vs_arch_event_unit(const struct vs_arch_event *e)
{
	if ((e->flags & VS_ARCH_EV_SOFTWARE) &&
	    e->event == PERF_COUNT_SW_CPU_CLOCK)
		return "ns";
	return e->group == VS_ARCH_GROUP_CYCLE ? "cycles" : "count";
}

void vs_arch_event_format(const struct vs_arch_event *e, char *buf, size_t len)
{
	int f = fixed_counter(e);
	char cmask[16] = "";

	if (f) {
		snprintf(buf, len, "%s", fixed_counters[f].perf_name);
		return;
	}
	if (e->cmask)
		snprintf(cmask, sizeof(cmask), ",cmask=%u", e->cmask);
	snprintf(buf, len, "cpu/event=0x%02x,umask=0x%02x%s%s%s%s/", e->event,
		 e->umask, cmask, e->inv ? ",inv" : "", e->any ? ",any" : "",
		 e->edge ? ",edge" : "");
}

bool vs_x86_event_is_ancestor(const struct vs_arch_table *t,
			      const struct vs_arch_event *child,
			      const struct vs_arch_event *parent)
{
	const struct vs_arch_event *e = child;
	unsigned int depth;

	/* Parent links form a forest; the bound only guards a bad table. */
	for (depth = 0; e && e->parent && depth < t->nr; depth++) {
		e = vs_arch_event_lookup(t, e->parent);
		if (e == parent)
			return true;
	}
	return false;
}

bool vs_arch_event_recorded(const struct vs_arch_event *e)
{
	if (e->flags & (VS_ARCH_EV_FIXED | VS_ARCH_EV_NOT_RECORDED |
			VS_ARCH_EV_UNLISTED))
		return false;
	if (e->flags & VS_ARCH_EV_SOFTWARE)
		return true;
	return e->group == VS_ARCH_GROUP_CYCLE ||
	       e->group == VS_ARCH_GROUP_INST ||
	       e->group == VS_ARCH_GROUP_CACHE;
}

/* --- perf's raw event syntax ------------------------------------------- */

struct raw_term {
	const char *name;
	unsigned int shift;	/* in config, or in config1 for ldlat */
	uint64_t max;
	bool flag;		/* may stand alone: "inv" means inv=1 */
	bool config1;
};

static const struct raw_term raw_terms[] = {
	{ "event", 0, 0xff, false, false },
	{ "umask", 8, 0xff, false, false },
	{ "edge", 18, 1, true, false },
	{ "any", 21, 1, true, false },
	{ "inv", 23, 1, true, false },
	{ "cmask", 24, 0xff, false, false },
	{ "ldlat", 0, 0xffff, false, true },
};

static int raw_fail(char *err, size_t errlen, const char *fmt, const char *s)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, s);
	return -1;
}

static int parse_u64(const char *s, size_t n, uint64_t *v)
{
	char buf[32], *end;

	if (!n || n >= sizeof(buf) || *s == '-' || *s == '+')
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || *end ? -1 : 0;
}

static int parse_cpu_terms(const char *terms, struct vs_hw_config *hw,
			   char *err, size_t errlen)
{
	unsigned int seen = 0;
	const char *p = terms;

	for (;;) {
		size_t len = strcspn(p, ",/");
		size_t nlen = strcspn(p, "=,/");
		const struct raw_term *t = NULL;
		uint64_t v = 1;
		unsigned int i;

		if (!len)
			return raw_fail(err, errlen, "%s", "empty term");
		for (i = 0; i < ARRAY_SIZE(raw_terms); i++)
			if (strlen(raw_terms[i].name) == nlen &&
			    !strncmp(raw_terms[i].name, p, nlen))
				t = &raw_terms[i];
		if (!t) {
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)nlen, p);
			return raw_fail(err, errlen, "unknown term '%s'", name);
		}
		if (seen & (1u << (t - raw_terms)))
			return raw_fail(err, errlen, "term '%s' given twice",
					t->name);
		seen |= 1u << (t - raw_terms);
		if (nlen < len) {
			if (parse_u64(p + nlen + 1, len - nlen - 1, &v))
				return raw_fail(err, errlen,
						"bad number for '%s'", t->name);
		} else if (!t->flag) {
			return raw_fail(err, errlen, "'%s' needs a value",
					t->name);
		}
		if (v > t->max)
			return raw_fail(err, errlen, "'%s' out of range",
					t->name);
		if (t->config1)
			hw->config1 |= v << t->shift;
		else
			hw->config |= v << t->shift;
		p += len;
		if (*p == '/')
			break;
		p++;	/* ',' */
	}
	if (p[1])
		return raw_fail(err, errlen, "%s", "text after the closing '/'");
	if (!(seen & 1u))
		return raw_fail(err, errlen, "%s", "no 'event='");
	return 0;
}

int vs_arch_parse_raw(const char *s, struct vs_hw_config *hw,
		      char *err, size_t errlen)
{
	memset(hw, 0, sizeof(*hw));
	hw->type = PERF_TYPE_RAW;

	if (s[0] == 'r' && s[1]) {
		const char *p;

		for (p = s + 1; *p; p++)
			if (!isxdigit((unsigned char)*p))
				return raw_fail(err, errlen,
						"'%s': raw event wants hex digits after 'r'",
						s);
		if (strlen(s + 1) > 16)
			return raw_fail(err, errlen, "'%s': more than 64 bits", s);
		hw->config = strtoull(s + 1, NULL, 16);
		return 0;
	}
	if (!strncmp(s, "cpu/", 4)) {
		char why[64];

		if (!strchr(s + 4, '/'))
			return raw_fail(err, errlen, "'%s': missing closing '/'", s);
		if (!parse_cpu_terms(s + 4, hw, why, sizeof(why)))
			return 0;
		if (err && errlen)
			snprintf(err, errlen, "'%s': %s", s, why);
		return -1;
	}
	return raw_fail(err, errlen,
			"'%s' is not a raw event (rNNNN or cpu/event=..,umask=../)",
			s);
}
