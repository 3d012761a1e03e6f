// SPDX-License-Identifier: MIT
/*
 * pmu.c - unit test of core/pmu: the group read format, the multiplex and
 * DTE fidelity checks, the flags of a running period's deltas, cpu.freq,
 * the sampling attrs, the status line; and, live on this machine, the PMU
 * probe and a real counter group of software counters through the same
 * open/enable/read code.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "arch/x86/intel-events.h"
#include "core/catalog.h"
#include "core/perf-ring.h"
#include "core/pmu.h"
#include "core/trace/trace.h"
#include "t/unit/tap.h"

/* A snapshot of two counters: bracket, enabled, running, values. */
#define SNAP(before, after, enabled, running, v0, v1)			\
	{ .t_before = before, .t_after = after, .time_enabled = enabled,	\
	  .time_running = running, .nr = 2, .value = { v0, v1 } }

/* A snapshot at @t (bracket 0 wide) with enabled = running = @t. */
static struct vs_counter_read snap(uint64_t t, uint64_t v0, uint64_t v1)
{
	struct vs_counter_read r = {
		.t_before = t, .t_after = t,
		.time_enabled = t, .time_running = t,
		.nr = 2, .value = { v0, v1 }, .id = { 10, 11 },
	};
	return r;
}

static void test_read_parse(void)
{
	uint64_t buf[3 + 2 * 3] = { 3, 5000, 4000, 111, 7, 222, 9, 333, 8 };
	struct vs_counter_group g = { .nr = 3, .id = { 9, 8, 7 } };
	struct vs_counter_read r;
	uint64_t values[3];
	uint64_t big[3] = { VS_PMU_MAX_GROUP + 1, 0, 0 };

	ok(vs_counter_read_parse(buf, sizeof(buf), &r) == (ssize_t)sizeof(buf) &&
	   r.nr == 3 && r.time_enabled == 5000 && r.time_running == 4000 &&
	   r.value[0] == 111 && r.id[0] == 7 && r.value[2] == 333 && r.id[2] == 8,
	   "a group read block decodes: nr, enabled, running, value/id pairs");
	ok(vs_counter_read_parse(buf, sizeof(buf) - 8, &r) == -1 &&
	   vs_counter_read_parse(buf, 16, &r) == -1,
	   "a short block is refused");
	ok(vs_counter_read_parse(big, sizeof(big), &r) == -1,
	   "a block with more than VS_PMU_MAX_GROUP values is refused");
	vs_counter_read_parse(buf, sizeof(buf), &r);
	ok(!vs_counter_read_order(&g, &r, values) && values[0] == 222 &&
	   values[1] == 333 && values[2] == 111,
	   "values come back in the group's order, matched by id");
	g.id[1] = 42;
	ok(vs_counter_read_order(&g, &r, values) == -1,
	   "a member missing from the read is an error");
}

static void test_multiplex(void)
{
	struct vs_counter_read a = snap(100, 0, 0), b = snap(200, 0, 0);

	ok(!vs_counter_multiplexed(&a, &b), "running all the time: not multiplexed");
	b.time_running = 150;
	ok(vs_counter_multiplexed(&a, &b),
	   "running 50 of 100 ns enabled: multiplexed");
	a.time_running = 50;
	b.time_running = 150;
	ok(!vs_counter_multiplexed(&a, &b),
	   "multiplexed before the interval but not in it: not flagged");
}

static struct vs_counter_read bracket(uint64_t before, uint64_t after)
{
	struct vs_counter_read r = { .t_before = before, .t_after = after };

	return r;
}

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
		  "a read that ends before it starts: distorted" },
		{ 2000, 2150, 60000, false,
		  "the tolerance is a parameter: 5% passes at 6%" },
	};
	struct vs_counter_read a = bracket(1000, 1100), b;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b = bracket(cases[i].before, cases[i].after);
		ok(vs_dte_distorted(&a, &b, cases[i].tolerance_ppm) ==
		   cases[i].distorted, "DTE: %s", cases[i].what);
	}
}

static void test_period_flags(void)
{
	static const struct {
		struct vs_counter_read from, to;
		uint32_t flags;
		const char *what;
	} periods[] = {
		{ SNAP(0, 10, 0, 0, 0, 0), SNAP(100, 110, 100, 100, 300, 200),
		  0, "a clean period: no flag" },
		{ SNAP(0, 0, 0, 0, 0, 0), SNAP(100, 100, 100, 80, 300, 200),
		  VS_TASK_MULTIPLEXED, "a multiplexed period is flagged" },
		{ SNAP(0, 0, 0, 0, 1000, 0), SNAP(100, 100, 100, 100, 10, 200),
		  VS_TASK_DISTORTED, "a counter going backwards is flagged" },
		{ SNAP(0, 50, 0, 0, 0, 0), SNAP(1000, 1080, 1000, 1000, 3000, 2000),
		  VS_TASK_DISTORTED,
		  "a period whose reads took 50 and 80 ns of 1000 fails DTE" },
		{ SNAP(0, 50, 0, 0, 0, 0), SNAP(1000, 1080, 1000, 900, 3000, 2000),
		  VS_TASK_DISTORTED | VS_TASK_MULTIPLEXED, "both at once" },
	};
	struct vs_counter_read a = snap(0, 0, 0), b = snap(10, 1, 1);
	unsigned int i;

	for (i = 0; i < sizeof(periods) / sizeof(periods[0]); i++)
		ok(vs_counter_period_flags(&periods[i].from, &periods[i].to) ==
		   periods[i].flags, "%s", periods[i].what);
	b.nr = 1;
	ok(vs_counter_period_flags(&a, &b) == VS_TASK_DISTORTED,
	   "snapshots with different numbers of values are flagged");
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

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static uint64_t wall_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Run on the CPU for @ns of this thread's CPU time (load cannot shorten it). */
static void spin_cpu_ns(uint64_t ns)
{
	uint64_t start = thread_cpu_ns();

	while (thread_cpu_ns() - start < ns)
		;
}

/* The real perf path, with counters every kernel has. */
static void test_live_group(void)
{
	const struct vs_hw_config sw[] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0 },
	};
	struct vs_counter_group g;
	struct vs_counter_read r0, r1;
	uint64_t v0[3], v1[3], cpu0, cpu1, wall0, wall1;
	char err[160] = "";
	const size_t pages = 64, page = sysconf(_SC_PAGESIZE);
	char *mem;
	size_t i;

	if (vs_counter_group_open(&g, sw, 3, 0, -1, err, sizeof(err))) {
		ok(0, "open a group of software counters: %s", err);
		return;
	}
	ok(g.nr == 3 && g.id[0] && g.id[1] != g.id[0],
	   "a group of three software counters opens, with ids");
	ok(!vs_counter_group_read(&g, &r0) && r0.nr == 3 && r0.value[0] == 0,
	   "disabled, task-clock reads 0");
	wall0 = wall_ns();
	cpu0 = thread_cpu_ns();
	vs_counter_group_enable(&g);
	spin_cpu_ns(2000000);
	mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (i = 0; mem != MAP_FAILED && i < pages; i++)
		mem[i * page] = 1;
	usleep(1000);
	vs_counter_group_disable(&g);
	cpu1 = thread_cpu_ns();
	wall1 = wall_ns();
	if (mem != MAP_FAILED)
		munmap(mem, pages * page);
	ok(!vs_counter_group_read(&g, &r1) && r1.t_before <= r1.t_after &&
	   r1.t_after - r1.t_before < 1000000000ull,
	   "a read is bracketed by two clock reads");
	ok(!vs_counter_read_order(&g, &r0, v0) && !vs_counter_read_order(&g, &r1, v1),
	   "both reads carry every member's id");
	/*
	 * task-clock runs on perf's clock, which counts the interrupts the
	 * thread took and, in a VM, the time stolen from it; the thread's CPU
	 * time leaves both out, and the two clocks differ by a few percent.
	 * So: at least the 2 ms of CPU time spun (less 2%), at most the time
	 * that passed.
	 */
	ok(v1[0] - v0[0] >= 2000000 - 2000000 / 50 &&
	   v1[0] - v0[0] <= wall1 - wall0,
	   "task-clock counted the 2 ms spin, within the time passed: %llu ns "
	   "(thread CPU time %llu, time passed %llu)",
	   (unsigned long long)(v1[0] - v0[0]),
	   (unsigned long long)(cpu1 - cpu0),
	   (unsigned long long)(wall1 - wall0));
	ok(v1[1] - v0[1] >= 1, "context-switches counted the sleep (%llu)",
	   (unsigned long long)(v1[1] - v0[1]));
	ok(v1[2] - v0[2] >= pages, "page-faults counted the %zu pages touched "
	   "(%llu)", pages, (unsigned long long)(v1[2] - v0[2]));
	ok(!vs_counter_multiplexed(&r0, &r1),
	   "software counters are never multiplexed");
	vs_counter_group_close(&g);
	ok(g.nr == 0 && g.fd[0] == -1, "closed");
	ok(vs_counter_group_read(&g, &r1) == -1, "reading a closed group fails");
}

/* --- snapshots at a tracepoint, through the perf ring ------------------ */

struct snapshots {
	const struct vs_counter_group *g;
	unsigned int nr;
	uint64_t values[8][VS_PMU_MAX_GROUP];
	bool parsed;
};

/* A sample of PERF_SAMPLE_TIME | PERF_SAMPLE_READ: time, then the read. */
static void take_sample(void *ctx, const struct perf_event_header *h)
{
	struct snapshots *snaps = ctx;
	const char *body = (const char *)(h + 1) + sizeof(uint64_t);
	size_t len = h->size - sizeof(*h) - sizeof(uint64_t);
	struct vs_counter_read r;

	if (h->type != PERF_RECORD_SAMPLE || snaps->nr >= 8)
		return;
	if (vs_counter_read_parse(body, len, &r) < 0 ||
	    vs_counter_read_order(snaps->g, &r, snaps->values[snaps->nr]) < 0)
		snaps->parsed = false;
	snaps->nr++;
}

static int tracepoint_id(const char *path)
{
	FILE *f = fopen(path, "r");
	int id = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/*
 * A tracepoint added to a counter group with vs_counter_group_add_snapshot()
 * must deliver every hit as a sample carrying the group's values: the way
 * record takes counter snapshots at interrupt entry and exit.  Here the
 * tracepoint is the entry of getppid(2), hit three times, and between hits
 * the thread touches 16 fresh pages: page-faults must grow by at least 16
 * from one snapshot to the next.
 */
static void test_live_snapshot(void)
{
	const struct vs_hw_config sw[] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0 },
	};
	const size_t pages = 16, page = sysconf(_SC_PAGESIZE);
	struct snapshots snaps = { .parsed = true };
	struct perf_event_attr tp;
	struct vs_counter_group g;
	struct vs_perf_ring ring;
	bool faults = true, hits = true;
	int id, fd;
	unsigned int i, round;

	id = tracepoint_id("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id");
	if (id < 0) {
		skip_test("no tracefs at /sys/kernel/tracing",
			  "a tracepoint in a counter group carries its values");
		return;
	}
	if (vs_counter_group_open(&g, sw, 2, 0, -1, NULL, 0)) {
		ok(0, "open a software counter group");
		return;
	}
	memset(&tp, 0, sizeof(tp));
	tp.type = PERF_TYPE_TRACEPOINT;
	tp.config = id;
	tp.sample_period = 1;
	tp.sample_type = PERF_SAMPLE_TIME;
	fd = vs_counter_group_add_snapshot(&g, &tp, 0, -1);
	ok(fd >= 0 && g.nr == 3 && (tp.sample_type & PERF_SAMPLE_READ) &&
	   tp.read_format == VS_PMU_READ_FORMAT,
	   "the tracepoint joins the group as a snapshot member");
	if (fd < 0 || vs_perf_ring_mmap(&ring, fd, 8)) {
		vs_counter_group_close(&g);
		return;
	}
	snaps.g = &g;
	vs_counter_group_enable(&g);
	for (round = 0; round < 3; round++) {
		char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		for (i = 0; mem != MAP_FAILED && i < pages; i++)
			mem[i * page] = 1;
		syscall(SYS_getppid);
		if (mem != MAP_FAILED)
			munmap(mem, pages * page);
	}
	vs_counter_group_disable(&g);
	vs_perf_ring_read(&ring, take_sample, &snaps);
	ok(snaps.nr == 3 && snaps.parsed,
	   "each of the 3 hits is a sample with the group's values (%u)",
	   snaps.nr);
	for (i = 1; i < snaps.nr; i++) {
		faults &= snaps.values[i][1] - snaps.values[i - 1][1] >= pages;
		hits &= snaps.values[i][2] == snaps.values[i - 1][2] + 1 &&
			snaps.values[i][0] > snaps.values[i - 1][0];
	}
	ok(snaps.nr == 3 && faults,
	   "page-faults grow by the %zu pages touched between snapshots", pages);
	ok(snaps.nr == 3 && hits,
	   "task-clock grows and the tracepoint counts its own hits");
	vs_perf_ring_unmap(&ring);
	vs_counter_group_close(&g);
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
		const struct vs_hw_config hw[] = {
			{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0 },
			{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0 },
		};
		struct vs_counter_group g;
		struct vs_counter_read a, b;

		ok(p.hw && !vs_counter_group_open(&g, hw, 2, 0, -1, NULL, 0),
		   "a PMU: cycles and instructions open as a group");
		vs_counter_group_read(&g, &a);
		vs_counter_group_enable(&g);
		spin_cpu_ns(1000000);
		vs_counter_group_disable(&g);
		vs_counter_group_read(&g, &b);
		ok(b.value[0] > a.value[0] && b.value[1] > a.value[1],
		   "cycles and instructions count a 1 ms spin");
		vs_counter_group_close(&g);
	}
}

int main(void)
{
	test_read_parse();
	test_multiplex();
	test_dte();
	test_period_flags();
	test_intern();
	test_cpu_freq();
	test_sampling();
	test_status();
	test_live_group();
	test_live_snapshot();
	test_live_probe();
	return done_testing();
}
