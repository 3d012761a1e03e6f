// SPDX-License-Identifier: MIT
/*
 * pmu.c - unit test of core/pmu: the DTE filter, the interning of a
 * table's events, cpu.freq, the sampling attrs, the status line; and,
 * live on this machine, the PMU probe.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86/intel-events.h"
#include "core/catalog.h"
#include "core/pmu.h"
#include "core/trace/trace.h"
#include "t/unit/tap.h"

/*
 * The reads bracket [1000, 1100] and [before, after]: the spans between
 * their start clocks and between their end clocks.
 */
static void test_dte(void)
{
	static const struct {
		uint64_t before, after;	/* of the second read */
		unsigned int tolerance_ppm;
		bool distorted;
		const char *what;
	} cases[] = {
		{ 2000, 2100, VS_DTE_TOLERANCE_PPM, false,
		  "equal read durations: CPC = 1, kept" },
		{ 2000, 2109, VS_DTE_TOLERANCE_PPM, false, "CPC = 1.009: kept" },
		{ 2000, 2110, VS_DTE_TOLERANCE_PPM, false,
		  "CPC = 1.010 exactly: kept (the bound is inclusive)" },
		{ 2000, 2111, VS_DTE_TOLERANCE_PPM, true, "CPC = 1.011: distorted" },
		{ 2000, 2089, VS_DTE_TOLERANCE_PPM, true,
		  "CPC = 0.989 (the first read was the slow one): distorted" },
		{ 1000000, 1000200, VS_DTE_TOLERANCE_PPM, false,
		  "100 ns more over a 1 ms interval: kept" },
		{ 1000, 1100, VS_DTE_TOLERANCE_PPM, true,
		  "the clock did not advance: distorted" },
		{ 3000, 2900, VS_DTE_TOLERANCE_PPM, true,
		  "a second read that ends before it starts: CPC 0.9, distorted" },
		{ 2000, 2150, 60000, false,
		  "the tolerance is a parameter: 5% passes at 6%" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(vs_dte_span_distorted(cases[i].before - 1000,
					 cases[i].after - 1100,
					 cases[i].tolerance_ppm) ==
		   cases[i].distorted, "DTE: %s", cases[i].what);
}

static void test_intern(void)
{
	const struct vs_arch_table *t = vs_x86_skylakex();
	struct vs_catalog *cat = vs_catalog_new(NULL, NULL);
	const struct vs_event_def *d, *p, *pp;
	uint16_t id;
	unsigned int i;
	bool all = true;

	id = vs_pmu_intern(cat, t, vs_arch_event_lookup(t,
				"CYCLE_ACTIVITY.STALLS_L2_MISS"));
	d = vs_catalog_get(cat, id);
	p = d ? vs_catalog_get(cat, d->parent) : NULL;
	pp = p ? vs_catalog_get(cat, p->parent) : NULL;
	ok(vs_catalog_size(cat) == 3 && d && p && pp &&
	   !strcmp(d->name, "hw.CYCLE_ACTIVITY.STALLS_L2_MISS") &&
	   !strcmp(d->unit, "cycles") && d->group == VS_GROUP_CYCLE &&
	   !strcmp(p->name, "hw.CYCLE_ACTIVITY.STALLS_TOTAL") &&
	   !strcmp(pp->name, VS_HW_CYCLES) && pp->parent == VS_EVENT_NO_PARENT &&
	   pp->id < p->id && p->id < d->id,
	   "interning a child interns its parents first, with units and groups");
	for (i = 0; i < t->nr; i++)
		if (vs_pmu_intern(cat, t, &t->events[i]) == VS_EVENT_NO_PARENT)
			all = false;
	ok(all && vs_catalog_size(cat) == t->nr,
	   "the whole table interns once per event (%u)", vs_catalog_size(cat));
	vs_catalog_free(cat);
}

static void test_cpu_freq(void)
{
	is_u64(vs_cpu_freq_khz(2200000000ull, 1000000000ull), 2200000,
	       "2.2e9 cycles in 1 s: 2200000 kHz");
	is_u64(vs_cpu_freq_khz(1ull << 62, 1ull << 40), 4194304000000ull,
	       "no overflow with 2^62 cycles");
	is_u64(vs_cpu_freq_khz(100, 0), 0, "no running time: 0");
}

static void test_sampling(void)
{
	struct vs_pmu none = { .hw = false, .err = ENOENT,
			       .why = "cycles not supported",
			       .table = vs_arch_generic_table() };
	struct vs_pmu skx = { .hw = true, .table = vs_x86_skylakex(),
			      .max_precise = 2 };
	struct vs_sample_spec s;
	struct perf_event_attr a;
	char line[160];
	const uint64_t base = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	const uint64_t mem = PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
			     PERF_SAMPLE_DATA_SRC;

	vs_pmu_sample_choose(&skx, false, 0, 0, &s, line, sizeof(line));
	vs_pmu_sample_attr(&a, &s);
	ok(s.source == VS_SAMPLE_SRC_PEBS_UOPS && !line[0] &&
	   a.type == PERF_TYPE_RAW && a.config == 0x1c2 && a.precise_ip == 2 &&
	   a.sample_period == VS_ARCH_PRECISE_PERIOD && !a.freq &&
	   a.sample_type == base && a.disabled && a.use_clockid &&
	   a.clockid == CLOCK_MONOTONIC,
	   "PEBS: UOPS_RETIRED.ALL, precise_ip 2, reset value 8000, "
	   "ip/tid/time/cpu/callchain/period");
	vs_pmu_sample_choose(&skx, false, 16000, 0, &s, line, sizeof(line));
	vs_pmu_sample_attr(&a, &s);
	ok(a.sample_period == 16000, "--sample-period is the reset value");
	vs_pmu_sample_choose(&skx, true, 0, 0, &s, line, sizeof(line));
	vs_pmu_sample_attr(&a, &s);
	ok(s.source == VS_SAMPLE_SRC_PEBS_MEM && a.config == 0x1cd &&
	   a.config1 == VS_ARCH_LDLAT_DEFAULT && a.sample_type == (base | mem),
	   "--sample=mem: load latency with ldlat 3, plus addr/weight/data_src");

	vs_pmu_sample_choose(&none, false, 0, 0, &s, line, sizeof(line));
	vs_pmu_sample_attr(&a, &s);
	is_str(line, "no PEBS (cycles not supported): sampling cpu-clock at 4000 Hz",
	       "without a PMU: one line says the fallback");
	ok(s.source == VS_SAMPLE_SRC_CPU_CLOCK && a.type == PERF_TYPE_SOFTWARE &&
	   a.config == PERF_COUNT_SW_CPU_CLOCK && a.sample_period == 250000 &&
	   !a.precise_ip && a.sample_type == base,
	   "cpu-clock at 4000 Hz: a fixed 250000 ns period");
	vs_pmu_sample_choose(&none, true, 0, 999, &s, line, sizeof(line));
	ok(strstr(line, "at 999 Hz, without data addresses") != NULL,
	   "the fallback of --sample=mem says what is lost: %s", line);
	skx.max_precise = 0;
	vs_pmu_sample_choose(&skx, false, 0, 0, &s, line, sizeof(line));
	ok(s.source == VS_SAMPLE_SRC_CPU_CLOCK &&
	   strstr(line, "precise events not supported"),
	   "a PMU without PEBS falls back too: %s", line);
}

static void test_status(void)
{
	struct vs_pmu p = { .hw = false, .err = ENOENT,
			    .why = "cycles not supported" };
	char line[256];

	vs_pmu_status(&p, line, sizeof(line));
	is_str(line, "no hardware PMU (cycles not supported): recording kernel "
	       "events and software counters only", "the no-PMU line");
	p.err = EACCES;
	snprintf(p.why, sizeof(p.why), "not permitted: perf_event_paranoid is 3");
	vs_pmu_status(&p, line, sizeof(line));
	is_str(line, "hardware counters unavailable (not permitted: "
	       "perf_event_paranoid is 3): recording kernel events and software "
	       "counters only", "a PMU the user may not use is not called absent");
	p = (struct vs_pmu){ .hw = true, .table = vs_x86_skylakex(),
			     .cpu = { "GenuineIntel", 6, 0x55, 4 },
			     .nr_gp = 4, .nr_fixed = 3, .nmi_watchdog = true,
			     .max_precise = 2 };
	vs_pmu_status(&p, line, sizeof(line));
	is_str(line, "hardware PMU on GenuineIntel family 6 model 0x55 stepping 4 "
	       "(Skylake-SP server core): 3 programmable counters per epoch, "
	       "3 fixed, PEBS yes", "a Skylake-SP with the NMI watchdog on");
	ok(vs_pmu_epoch_width(&p) == 3, "the NMI watchdog holds one counter");
	p.table = vs_arch_generic_table();
	vs_pmu_status(&p, line, sizeof(line));
	ok(strstr(line, "no event table for this model: fixed counters and "
		  "generic hardware events only") != NULL,
	   "another model says it has fixed counters only");
}

static void test_live_probe(void)
{
	struct vs_pmu p;
	char line[256];
	int r = vs_pmu_probe(&p);

	vs_pmu_status(&p, line, sizeof(line));
	printf("# %s\n", line);
	ok(p.table && p.nr_gp >= 1 && !strchr(line, '\n'),
	   "the probe fills the table and the counters; one line");
	if (r) {
		ok(!p.hw && p.err && !p.max_precise &&
		   strstr(line, "): recording kernel events and software "
			  "counters only"),
		   "no hardware counters here: the line says so, no PEBS");
	} else {
		ok(p.hw && !p.err && p.nr_fixed,
		   "a PMU: cycles open, and the fixed counters are known");
	}
}

int main(void)
{
	test_dte();
	test_intern();
	test_cpu_freq();
	test_sampling();
	test_status();
	test_live_probe();
	return done_testing();
}
