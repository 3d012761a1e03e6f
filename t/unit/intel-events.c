// SPDX-License-Identifier: MIT
/*
 * intel-events.c - unit test of arch/x86/intel-events: VarMRI Table 1 and
 * Table 2 on Skylake-SP, encodings against the config values perf computes
 * from Intel's event list, perf's raw syntax, CPU model and CPUID decoding.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "arch/x86/intel-events.h"
#include "core/trace/trace.h"
#include "t/unit/tap.h"

/*
 * perf list --details on a Skylake-SP prints "event=0x..,umask=0x..,..."
 * for these; config is that string through the cpu PMU's format.
 */
static const struct {
	const char *name;
	uint64_t config;
} known_configs[] = {
	{ "MEM_LOAD_RETIRED.L3_MISS", 0x20d1 },
	{ "MEM_INST_RETIRED.ALL_LOADS", 0x81d0 },
	{ "L2_LINES_IN.ALL", 0x1ff1 },
	{ "LONGEST_LAT_CACHE.MISS", 0x412e },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED", 0x0e08 },
	{ "CYCLE_ACTIVITY.STALLS_TOTAL", 0x040004a3 },
	{ "CYCLE_ACTIVITY.STALLS_L2_MISS", 0x050005a3 },
	{ "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0x140014a3 },
	{ "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0x0c000ca3 },
	{ "CPU_CLK_UNHALTED.THREAD_P", 0x3c },
	{ "CPU_CLK_UNHALTED.THREAD_P_ANY", 0x20003c },
	{ "CPU_CLK_THREAD_UNHALTED.REF_XCLK_ANY", 0x20013c },
	{ "L1D_PEND_MISS.PENDING_CYCLES_ANY", 0x01200148 },
	{ "DTLB_STORE_MISSES.WALK_ACTIVE", 0x01001049 },
	{ "FP_ASSIST.ANY", 0x01001eca },
	{ "INST_RETIRED.ANY_P", 0xc0 },
	{ "BR_INST_RETIRED.ALL_BRANCHES", 0xc4 },
	{ "BR_INST_RETIRED.ALL_BRANCHES_PEBS", 0x04c4 },
	{ "BR_MISP_RETIRED.NEAR_TAKEN", 0x20c5 },
	{ "FP_ARITH_INST_RETIRED.256B_PACKED_SINGLE", 0x20c7 },
	{ "ICACHE_64B.IFDATA_STALL", 0x0480 },
	{ "UOPS_RETIRED.ALL", 0x01c2 },
	{ "MEM_TRANS_RETIRED.LOAD_LATENCY", 0x01cd },
};

/* Table 2 of the paper, the repeated row read as the _PEBS variant. */
static const char *const table2[][2] = {
	{ "CYCLE_ACTIVITY.STALLS_L2_MISS", "CYCLE_ACTIVITY.STALLS_TOTAL" },
	{ "CYCLE_ACTIVITY.STALLS_L3_MISS", "CYCLE_ACTIVITY.STALLS_TOTAL" },
	{ "CYCLE_ACTIVITY.STALLS_L1D_MISS", "CYCLE_ACTIVITY.STALLS_TOTAL" },
	{ "CYCLE_ACTIVITY.STALLS_MEM_ANY", "CYCLE_ACTIVITY.STALLS_TOTAL" },
	{ "BR_INST_RETIRED.ALL_BRANCHES", "INST_RETIRED.ANY_P" },
	{ "BR_INST_RETIRED.NOT_TAKEN", "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "BR_INST_RETIRED.FAR_BRANCH", "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "BR_MISP_RETIRED.ALL_BRANCHES", "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "BR_MISP_RETIRED.CONDITIONAL", "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "BR_MISP_RETIRED.ALL_BRANCHES_PEBS", "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "BR_MISP_RETIRED.NEAR_TAKEN", "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "MEM_INST_RETIRED.LOCK_LOADS", "MEM_INST_RETIRED.ALL_LOADS" },
	{ "CPU_CLK_UNHALTED.THREAD_P", "CPU_CLK_UNHALTED.THREAD_P_ANY" },
	{ "CPU_CLK_THREAD_UNHALTED.REF_XCLK",
	  "CPU_CLK_THREAD_UNHALTED.REF_XCLK_ANY" },
	{ "CPU_CLK_THREAD_UNHALTED.ONE_THREAD_ACTIVE",
	  "CPU_CLK_THREAD_UNHALTED.REF_XCLK_ANY" },
	{ "L1D_PEND_MISS.PENDING_CYCLES", "L1D_PEND_MISS.PENDING_CYCLES_ANY" },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void test_table1(const struct vs_arch_table *t)
{
	unsigned int i, j, groups[VS_GROUP__MAX] = { 0 }, recorded = 0;
	unsigned int fixed = 0, unlisted = 0, not_recorded = 0;
	bool unique = true, names_ok = true, parents_ok = true;

	for (i = 0; i < t->nr; i++) {
		const struct vs_arch_event *e = &t->events[i];
		char want[96];

		if (e->flags & VS_ARCH_EV_FIXED)
			fixed++;
		else if (e->flags & VS_ARCH_EV_NOT_RECORDED)
			not_recorded++;
		else
			groups[e->group]++;
		unlisted += !!(e->flags & VS_ARCH_EV_UNLISTED);
		recorded += vs_arch_event_recorded(e);
		snprintf(want, sizeof(want), "hw.%s", e->name);
		if (!(e->flags & VS_ARCH_EV_FIXED) && strcmp(e->vs_name, want))
			names_ok = false;
		if (e->parent && !vs_arch_event_lookup(t, e->parent))
			parents_ok = false;
		for (j = 0; j < i; j++)
			if (!strcmp(e->name, t->events[j].name) ||
			    vs_x86_event_config(e) == vs_x86_event_config(&t->events[j]))
				unique = false;
	}
	ok(fixed == 3, "three fixed counters (%u)", fixed);
	ok(groups[VS_GROUP_CACHE] == 29, "Table 1: 29 CACHE events (%u)",
	   groups[VS_GROUP_CACHE]);
	ok(groups[VS_GROUP_CYCLE] == 28, "Table 1: 28 CYCLE events (%u)",
	   groups[VS_GROUP_CYCLE]);
	ok(groups[VS_GROUP_INST] == 22, "Table 1: 22 INST events (%u)",
	   groups[VS_GROUP_INST]);
	ok(groups[VS_GROUP_CACHE] + groups[VS_GROUP_CYCLE] +
	   groups[VS_GROUP_INST] == 79, "the paper's 79 counters");
	ok(unlisted == 1 && recorded == 78,
	   "78 recorded by default, 1 not in Intel's SKX list (%u, %u)",
	   recorded, unlisted);
	ok(not_recorded == 3, "HW_INTERRUPTS, UOPS_RETIRED.ALL and the "
	   "load-latency event are listed but not recorded (%u)", not_recorded);
	ok(unique, "names and encodings are unique");
	ok(names_ok, "every programmable event is named hw.<Intel name>");
	ok(parents_ok, "every parent is an event of the table");
}

static void test_encodings(const struct vs_arch_table *t)
{
	unsigned int i;
	bool all = true, back = true;

	for (i = 0; i < ARRAY_SIZE(known_configs); i++) {
		const struct vs_arch_event *e =
			vs_arch_event_lookup(t, known_configs[i].name);
		struct vs_hw_config hw;

		if (!e || vs_x86_event_config(e) != known_configs[i].config) {
			all = false;
			printf("# %s: 0x%llx, want 0x%llx\n", known_configs[i].name,
			       e ? (unsigned long long)vs_x86_event_config(e) : 0ull,
			       (unsigned long long)known_configs[i].config);
			continue;
		}
		vs_arch_event_hw(e, &hw);
		if (hw.type != PERF_TYPE_RAW || hw.config != known_configs[i].config)
			all = false;
	}
	ok(all, "%zu encodings equal perf's config values",
	   ARRAY_SIZE(known_configs));

	for (i = 0; i < t->nr; i++) {
		struct vs_hw_config hw;

		vs_arch_event_hw(&t->events[i], &hw);
		if (vs_arch_event_by_config(t, &hw) != &t->events[i])
			back = false;
	}
	ok(back, "every event is found again by its perf config");
}

static void test_format(const struct vs_arch_table *t)
{
	unsigned int i;
	bool round = true;
	char buf[96];

	for (i = 0; i < t->nr; i++) {
		const struct vs_arch_event *e = &t->events[i];
		struct vs_hw_config hw, want;

		vs_arch_event_format(e, buf, sizeof(buf));
		vs_arch_event_hw(e, &want);
		if (e->flags & VS_ARCH_EV_FIXED) {
			if (vs_arch_event_lookup(t, buf) != e)
				round = false;
		} else if (vs_arch_parse_raw(buf, &hw, NULL, 0) ||
			   hw.config != want.config) {
			round = false;
			printf("# %s: %s\n", e->name, buf);
		}
	}
	ok(round, "every event's printed encoding parses back to its config");
	vs_arch_event_format(vs_arch_event_lookup(t, "L1D_PEND_MISS.PENDING_CYCLES_ANY"),
			    buf, sizeof(buf));
	is_str(buf, "cpu/event=0x48,umask=0x01,cmask=1,any/",
	       "an encoding with cmask and any, in perf's syntax");
	ok(!strcmp(vs_arch_event_unit(vs_arch_event_lookup(t, "hw.cycles")), "cycles") &&
	   !strcmp(vs_arch_event_unit(vs_arch_event_lookup(t, "L1D.REPLACEMENT")), "count"),
	   "CYCLE events count cycles, the others counts");
	ok(vs_arch_table_by_name("skylakex") == t &&
	   vs_arch_table_by_name("generic") == vs_arch_generic_table() &&
	   !vs_arch_table_by_name("haswell"), "tables by name");
}

static void test_fixed(const struct vs_arch_table *t)
{
	static const struct {
		const char *name;
		uint64_t config;
	} fixed[] = {
		{ VS_HW_INSTRUCTIONS, PERF_COUNT_HW_INSTRUCTIONS },
		{ VS_HW_CYCLES, PERF_COUNT_HW_CPU_CYCLES },
		{ VS_HW_REF_CYCLES, PERF_COUNT_HW_REF_CPU_CYCLES },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fixed); i++) {
		const struct vs_arch_event *e = vs_arch_event_lookup(t, fixed[i].name);
		struct vs_hw_config hw = { 0 };

		if (e)
			vs_arch_event_hw(e, &hw);
		ok(e && (e->flags & VS_ARCH_EV_FIXED) &&
		   hw.type == PERF_TYPE_HARDWARE && hw.config == fixed[i].config &&
		   !vs_arch_event_recorded(e),
		   "%s is a fixed counter opened as a generic hardware event",
		   fixed[i].name);
	}
	ok(vs_arch_event_lookup(t, "cycles") == vs_arch_event_lookup(t, VS_HW_CYCLES) &&
	   vs_arch_event_lookup(t, "instructions") ==
	   vs_arch_event_lookup(t, VS_HW_INSTRUCTIONS),
	   "fixed counters are found by perf's names");
	ok(!strcmp(vs_arch_event_lookup(t, "INST_RETIRED.ANY")->vs_name,
		   VS_HW_INSTRUCTIONS) &&
	   !strcmp(vs_arch_event_lookup(t, "cpu_clk_unhalted.ref_tsc")->vs_name,
		   VS_HW_REF_CYCLES),
	   "fixed counters are found by their Intel names, any case");
}

static void test_lookup(const struct vs_arch_table *t)
{
	const struct vs_arch_event *e = vs_arch_event_lookup(t, "hw.L1D.REPLACEMENT");

	ok(e && e == vs_arch_event_lookup(t, "L1D.REPLACEMENT") &&
	   e == vs_arch_event_lookup(t, "l1d.replacement") &&
	   e == vs_arch_event_lookup(t, "hw.l1d.replacement"),
	   "lookup by varscope name, Intel name, any case");
	ok(!vs_arch_event_lookup(t, "hw.NO_SUCH.EVENT") &&
	   !vs_arch_event_lookup(t, "") && !vs_arch_event_lookup(t, "hw."),
	   "unknown names are not found");
}

static void test_table2(const struct vs_arch_table *t)
{
	const struct vs_arch_event *cycles = vs_arch_event_lookup(t, VS_HW_CYCLES);
	const struct vs_arch_event *insts = vs_arch_event_lookup(t, VS_HW_INSTRUCTIONS);
	unsigned int i;
	bool pairs = true, implied = true, cache = true;

	for (i = 0; i < ARRAY_SIZE(table2); i++) {
		const struct vs_arch_event *c = vs_arch_event_lookup(t, table2[i][0]);
		const struct vs_arch_event *p = vs_arch_event_lookup(t, table2[i][1]);

		if (!c || !p || !vs_x86_event_is_ancestor(t, c, p) ||
		    vs_x86_event_is_ancestor(t, p, c)) {
			pairs = false;
			printf("# %s under %s\n", table2[i][0], table2[i][1]);
		}
	}
	ok(pairs, "the %zu pairs of Table 2, one way only", ARRAY_SIZE(table2));

	for (i = 0; i < t->nr; i++) {
		const struct vs_arch_event *e = &t->events[i];

		if (e->flags & (VS_ARCH_EV_FIXED | VS_ARCH_EV_NOT_RECORDED))
			continue;
		if (e->group == VS_GROUP_CYCLE &&
		    !vs_x86_event_is_ancestor(t, e, cycles))
			implied = false;
		if (e->group == VS_GROUP_INST &&
		    !vs_x86_event_is_ancestor(t, e, insts))
			implied = false;
		if (e->group == VS_GROUP_CACHE &&
		    (vs_x86_event_is_ancestor(t, e, cycles) ||
		     vs_x86_event_is_ancestor(t, e, insts)))
			cache = false;
	}
	ok(implied, "every CYCLE event is under hw.cycles, every INST event "
	   "under hw.instructions");
	ok(cache, "no CACHE event is under either");
	ok(!vs_x86_event_is_ancestor(t, cycles, cycles) &&
	   !vs_x86_event_is_ancestor(t, insts, cycles),
	   "no event is its own ancestor; instructions are not under cycles");
}

static void test_raw(void)
{
	static const struct {
		const char *s;
		uint64_t config, config1;
	} good[] = {
		{ "r20d1", 0x20d1, 0 },
		{ "rC0", 0xc0, 0 },
		{ "r050005a3", 0x050005a3, 0 },
		{ "cpu/event=0xd1,umask=0x20/", 0x20d1, 0 },
		{ "cpu/event=0xa3,umask=0x05,cmask=5/", 0x050005a3, 0 },
		{ "cpu/umask=0x14,event=0xa3,cmask=20/", 0x140014a3, 0 },
		{ "cpu/event=0x3c,any/", 0x20003c, 0 },
		{ "cpu/event=0x3c,umask=0,any=1,inv,edge/",
		  0x3c | 1ull << 21 | 1ull << 23 | 1ull << 18, 0 },
		{ "cpu/event=60,inv=0/", 0x3c, 0 },
		{ "cpu/event=0xcd,umask=0x1,ldlat=3/", 0x1cd, 3 },
	};
	static const char *const bad[] = {
		"", "r", "rxyz", "r12345678901234567", "cycles", "cpu",
		"cpu/", "cpu//", "cpu/event=0x3c", "cpu/umask=1/",
		"cpu/event=0x100/", "cpu/event=1,event=2/", "cpu/event=1,foo=2/",
		"cpu/event=/", "cpu/event=1,/", "cpu/event=1/x",
		"cpu/event=-1/", "cpu/cmask/", "cpu/event=1,inv=2/",
		"cpu/event=1,ldlat=0x10000/", "cpu/event=0x3c,umask=0x1g/",
		"pmu/event=1/",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct vs_hw_config hw;
		char err[128] = "";
		int r = vs_arch_parse_raw(good[i].s, &hw, err, sizeof(err));

		ok(!r && hw.type == PERF_TYPE_RAW && hw.config == good[i].config &&
		   hw.config1 == good[i].config1,
		   "raw '%s' is config 0x%llx%s", good[i].s,
		   (unsigned long long)good[i].config, err);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct vs_hw_config hw;
		char err[128] = "";
		int r = vs_arch_parse_raw(bad[i], &hw, err, sizeof(err));

		ok(r == -1 && err[0] && !strchr(err, '\n'),
		   "raw '%s' is refused: %s", bad[i], err);
	}
}

static void test_cpu(void)
{
	static const char skx[] =
		"processor\t: 0\n"
		"vendor_id\t: GenuineIntel\n"
		"cpu family\t: 6\n"
		"model\t\t: 85\n"
		"model name\t: Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz\n"
		"stepping\t: 4\n"
		"\n"
		"processor\t: 1\n"
		"vendor_id\t: GenuineIntel\n"
		"cpu family\t: 6\n"
		"model\t\t: 99\n";
	static const char amd[] =
		"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n"
		"model\t\t: 2\nmodel name\t: AMD EPYC\nstepping\t: 1\n";
	static const char skl_client[] =
		"vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 94\n";
	struct vs_arch_cpu cpu;
	char desc[96];

	ok(!vs_x86_cpu_parse_cpuinfo(skx, &cpu) && cpu.family == 6 &&
	   cpu.model == 0x55 && cpu.stepping == 4 &&
	   !strcmp(cpu.vendor, "GenuineIntel"),
	   "cpuinfo of a Xeon Silver 4114: family 6 model 0x55 stepping 4, "
	   "first processor only");
	ok(vs_arch_table_for(&cpu) == vs_x86_skylakex(),
	   "it selects the Skylake-SP table");
	vs_arch_cpu_describe(&cpu, desc, sizeof(desc));
	is_str(desc, "GenuineIntel family 6 model 0x55 stepping 4",
	       "the model is described in one phrase");
	cpu.stepping = 7;
	ok(vs_arch_table_for(&cpu) == vs_x86_skylakex(),
	   "Cascade Lake-SP (stepping 7) has the same core events");
	ok(!vs_x86_cpu_parse_cpuinfo(amd, &cpu) && cpu.family == 26 &&
	   vs_arch_table_for(&cpu) == vs_arch_generic_table(),
	   "an AMD EPYC gets the generic table");
	ok(!vs_x86_cpu_parse_cpuinfo(skl_client, &cpu) &&
	   vs_arch_table_for(&cpu) == vs_arch_generic_table() && cpu.stepping == 0,
	   "a Skylake client (model 0x5e) gets the generic table");
	ok(vs_x86_cpu_parse_cpuinfo("vendor_id\t: GenuineIntel\n", &cpu) == -1 &&
	   vs_x86_cpu_parse_cpuinfo("cpu family\t: six\nmodel : 1\n", &cpu) == -1 &&
	   vs_x86_cpu_parse_cpuinfo("", &cpu) == -1,
	   "cpuinfo without family or model is refused");
	ok(vs_arch_generic_table()->nr == 3 &&
	   vs_arch_event_lookup(vs_arch_generic_table(), VS_HW_CYCLES),
	   "the generic table holds the fixed counters alone");
	ok(!vs_arch_cpu_detect(&cpu) && cpu.vendor[0],
	   "this machine's CPU is detected");
}

static void test_cpuid(void)
{
	unsigned int gp, fixed, v;

	v = vs_x86_pmu_counters(0x07300404, 0x00000603, &gp, &fixed);
	ok(v == 4 && gp == 4 && fixed == 3,
	   "CPUID 0xA of Skylake-SP with SMT: v4, 4 programmable, 3 fixed");
	v = vs_x86_pmu_counters(0x07300804, 0x00000603, &gp, &fixed);
	ok(v == 4 && gp == 8 && fixed == 3, "without SMT: 8 programmable");
	v = vs_x86_pmu_counters(0, 0, &gp, &fixed);
	ok(v == 0 && gp == 0 && fixed == 0, "a VM without a PMU: none");
	v = vs_x86_pmu_counters(0x07280201, 0x0000001f, &gp, &fixed);
	ok(v == 1 && gp == 2 && fixed == 0,
	   "version 1 enumerates no fixed counters");
}

static void test_pebs_events(void)
{
	const struct vs_arch_event *u = vs_arch_precise_uops();
	const struct vs_arch_event *m = vs_arch_precise_loads();

	ok(u && u->group == VS_GROUP_UOP && (u->flags & VS_ARCH_EV_PEBS) &&
	   vs_x86_event_config(u) == 0x1c2,
	   "the PEBS event of the sampling paper is UOPS_RETIRED.ALL, 0x1c2");
	ok(m && (m->flags & VS_ARCH_EV_PEBS) && vs_x86_event_config(m) == 0x1cd,
	   "memory sampling uses MEM_TRANS_RETIRED.LOAD_LATENCY, 0x1cd");
}

int main(void)
{
	const struct vs_arch_table *t = vs_x86_skylakex();

	test_table1(t);
	test_encodings(t);
	test_format(t);
	test_fixed(t);
	test_lookup(t);
	test_table2(t);
	test_raw();
	test_cpu();
	test_cpuid();
	test_pebs_events();
	return done_testing();
}
