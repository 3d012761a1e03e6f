// SPDX-License-Identifier: MIT
/*
 * hwcount.c - the hardware counting of 'varscope record' without a PMU:
 * the events and epochs of core/hwcount.c, and synthetic group reads
 * (struct vs_counter_read, and the raw bytes read(2) returns) turned into
 * counter snapshots at task and interrupt boundaries and fed through
 * core/accounting.c, the path record takes.  Exact expected values: the
 * interrupt's counts are left out, multiplexed and distorted periods are
 * flagged and not scaled, cpu.freq is cycles over run.time.
 */
#include <stdlib.h>
#include <string.h>

#include "arch/x86/intel-events.h"
#include "core/accounting.h"
#include "core/hwcount.h"
#include "t/unit/acct-tasks.h"
#include "t/unit/tap.h"

static struct vs_hwcount *hw;

/* record's on_task: cpu.freq added, then written */
static void emit(void *ctx, const struct vs_task *task)
{
	struct vs_value buf[MAX_VALUES + 1];
	struct vs_task t;

	(void)ctx;
	if (task->nr_values > MAX_VALUES)
		abort();
	vs_hwcount_add_freq(hw, task, buf, &t);
	keep_task(&t);
}

static void test_events_and_epochs(void)
{
	const struct vs_arch_table *t = vs_x86_skylakex();
	const struct vs_hw_config *cfg;
	const uint16_t *ids, *ids1;
	unsigned int n, n1, e, i, j, nprog = 0, len;
	static unsigned char met[256][256];
	uint16_t first[VS_PMU_MAX_GROUP], prog[256];
	bool pairs = true, widths = true;
	char err[128];

	cat = vs_catalog_new(NULL, NULL);
	hw = vs_hwcount_new(cat, t, NULL, 4, err, sizeof(err));
	if (!ok(hw != NULL, "the Skylake-SP events and their schedule (%s)",
		hw ? "" : err))
		return;
	n = vs_hwcount_group(hw, &cfg, &ids);
	is_u64(n, 7, "epoch 0: 3 fixed counters and 4 programmable");
	is_str(vs_catalog_get(cat, ids[0])->name, VS_HW_INSTRUCTIONS,
	       "the fixed counters come first");
	ok(cfg[1].type == PERF_TYPE_HARDWARE &&
	   cfg[1].config == PERF_COUNT_HW_CPU_CYCLES &&
	   cfg[3].type == PERF_TYPE_RAW,
	   "fixed counters open as generic events, the others as raw");
	ok(vs_catalog_get(cat, ids[3])->group != VS_GROUP_KERNEL &&
	   vs_catalog_find(cat, VS_CPU_FREQ) != VS_EVENT_NO_PARENT,
	   "events interned with their groups, and cpu.freq");
	memcpy(first, ids, n * sizeof(*ids));

	/* every recorded Table 1 event is scheduled, every pair meets */
	for (i = 0; i < t->nr; i++)
		if (vs_arch_event_recorded(&t->events[i]))
			prog[nprog++] = vs_catalog_find(cat, t->events[i].vs_name);
	len = vs_hwcount_cycle(hw);
	memset(met, 0, sizeof(met));
	for (e = 0; e < len; e++) {
		vs_hwcount_set_epoch(hw, e);
		n1 = vs_hwcount_group(hw, &cfg, &ids1);
		widths &= n1 <= 7 && n1 > 3 && !memcmp(ids1, first, 3 * 2);
		for (i = 3; i < n1; i++)
			for (j = 3; j < n1; j++)
				met[ids1[i] & 255][ids1[j] & 255] = 1;
	}
	for (i = 0; i < nprog; i++)
		for (j = 0; j < nprog; j++)
			pairs &= met[prog[i] & 255][prog[j] & 255];
	ok(widths, "every epoch: the fixed counters and at most 4 more");
	ok(nprog == 78 && pairs,
	   "over one cycle (%u epochs) every pair of the %u events meets",
	   len, nprog);
	vs_hwcount_set_epoch(hw, len);
	n1 = vs_hwcount_group(hw, &cfg, &ids1);
	ok(n1 == n && !memcmp(ids1, first, n * sizeof(*ids1)),
	   "the schedule wraps after its cycle");
	vs_hwcount_set_epoch(hw, 1);
	n1 = vs_hwcount_group(hw, &cfg, &ids1);
	for (i = 3, j = 0; i < n1; i++)
		j += ids1[i] == first[3];
	ok(memcmp(ids1 + 3, first + 3, 4 * sizeof(*ids1)) &&
	   vs_hwcount_hides(hw, first[3]) == !j &&
	   !vs_hwcount_hides(hw, first[0]) &&
	   !vs_hwcount_hides(hw, vs_catalog_find(cat, "run.time")),
	   "epoch 1 rotates the programmable set; epoch records hide the "
	   "events not live");
	vs_hwcount_free(hw);
	vs_catalog_free(cat);
}

static void test_raw_events(void)
{
	const struct vs_hw_config *cfg;
	const uint16_t *ids;
	char err[128];
	unsigned int n;

	cat = vs_catalog_new(NULL, NULL);
	hw = vs_hwcount_new(cat, vs_x86_skylakex(),
			    "cpu/event=0xd1,umask=0x20/,r1234", 4, err,
			    sizeof(err));
	if (!ok(hw != NULL, "-e raw events"))
		return;
	n = vs_hwcount_group(hw, &cfg, &ids);
	ok(n == 5 && cfg[4].config == 0x1234,
	   "-e: the fixed counters and the two raw events in one epoch");
	is_str(vs_catalog_get(cat, ids[3])->name, "hw.MEM_LOAD_RETIRED.L3_MISS",
	       "-e: a raw encoding the table knows is that event");
	is_str(vs_catalog_get(cat, ids[4])->name, "hw.raw.0x1234",
	       "-e: an unknown encoding keeps its config in its name");
	vs_hwcount_free(hw);
	vs_catalog_free(cat);
	cat = vs_catalog_new(NULL, NULL);
	ok(!vs_hwcount_new(cat, vs_x86_skylakex(), "cpu/event=0x1ff/", 4, err,
			   sizeof(err)) && *err,
	   "-e: a malformed raw event is refused with a reason (%s)", err);
	vs_catalog_free(cat);
}

/*
 * The bytes read(2) of a VS_PMU_READ_FORMAT group returns, with the
 * members in the kernel's order reversed (vs_counter_read_order() puts
 * them back by id): cycles at @cycles, instructions at @insns, the others
 * at 1000 * member.
 */
static void group_read(struct vs_counter_read *r, const struct vs_counter_group *g,
		       uint64_t time, uint64_t read_ns, uint64_t enabled,
		       uint64_t running, uint64_t insns, uint64_t cycles)
{
	uint64_t buf[3 + 2 * VS_PMU_MAX_GROUP];
	unsigned int i, k;

	buf[0] = g->nr;
	buf[1] = enabled;
	buf[2] = running;
	for (i = 0; i < g->nr; i++) {
		k = g->nr - 1 - i;
		buf[3 + 2 * i] = k == 0 ? insns : k == 1 ? cycles : 1000 * k;
		buf[4 + 2 * i] = g->id[k];
	}
	if (vs_counter_read_parse(buf, sizeof(buf), r) < 0)
		abort();
	r->t_before = time;
	r->t_after = time + read_ns;
}

/* One event of the stream, with the snapshot of @r when given. */
static void feed(struct vs_acct *acct, const struct vs_counter_group *g,
		 uint64_t time, enum vs_acct_kind kind,
		 const struct vs_counter_read *r)
{
	uint64_t values[VS_PMU_MAX_GROUP];
	struct vs_acct_event ev = {
		.time = time, .cpu = 0, .tid = 10, .pid = 10, .kind = kind,
		.name = kind == VS_ACCT_IRQ_ENTRY ? "eth0" : NULL,
	};

	if (r && vs_hwcount_snapshot(hw, g, r, values, &ev.snapshot))
		abort();
	ev.snapshot_read = r;
	vs_acct_feed(acct, &ev);
}

static void test_deltas(void)
{
	const struct vs_hw_config *cfg;
	const uint16_t *ids;
	struct vs_counter_group g = { .nr = 0 };
	struct vs_counter_read r[4];
	struct vs_acct *acct;
	uint64_t values[VS_PMU_MAX_GROUP];
	struct vs_acct_counters snap;
	char err[128];
	unsigned int i;

	cat = vs_catalog_new(NULL, NULL);
	acct = vs_acct_new(cat, emit, NULL);
	hw = vs_hwcount_new(cat, vs_x86_skylakex(), NULL, 4, err, sizeof(err));
	if (!acct || !hw)
		abort();
	/* the group record opens: the epoch's members, one snapshot event */
	g.nr = vs_hwcount_group(hw, &cfg, &ids) + 1;
	for (i = 0; i < g.nr; i++) {
		g.fd[i] = -1;
		g.id[i] = 7000 + 13 * i;
	}

	/*
	 * Task 1: begin at 1000, an irq from 1400 to 1600, end at 2000.
	 * Instructions 10000, 14000 | 19000, 25000: the irq's 5000 are out.
	 */
	group_read(&r[0], &g, 1000, 10, 500, 500, 10000, 50000);
	group_read(&r[1], &g, 1400, 10, 900, 900, 14000, 50800);
	group_read(&r[2], &g, 1600, 10, 1100, 1100, 19000, 51200);
	group_read(&r[3], &g, 2000, 10, 1500, 1500, 25000, 52400);
	feed(acct, &g, 1000, VS_ACCT_TASK_BEGIN, &r[0]);
	feed(acct, &g, 1400, VS_ACCT_IRQ_ENTRY, &r[1]);
	feed(acct, &g, 1600, VS_ACCT_IRQ_EXIT, &r[2]);
	feed(acct, &g, 2000, VS_ACCT_TASK_END, &r[3]);
	is_u64(val(0, "hw.instructions"), 4000 + 6000,
	       "instructions: the deltas of the running periods, irq left out");
	is_u64(val(0, "hw.cycles"), 800 + 1200,
	       "cycles: the same periods");
	is_u64(val(0, "irq.hard.time"), 200, "the irq's time is its own");
	is_u64(val(0, "run.time"), 800, "run.time leaves the irq out");
	is_u64(val(0, VS_CPU_FREQ), 2000 * 1000000ull / 800,
	       "cpu.freq: cycles over run.time, in kHz");
	is_u64(out[0].task.flags, 0, "clean reads: no flag");

	/* Task 2: the group was off the PMU for 100 ns of its period. */
	group_read(&r[0], &g, 3000, 10, 2000, 2000, 30000, 60000);
	group_read(&r[1], &g, 3500, 10, 2500, 2400, 31000, 60500);
	feed(acct, &g, 3000, VS_ACCT_TASK_BEGIN, &r[0]);
	feed(acct, &g, 3500, VS_ACCT_TASK_END, &r[1]);
	ok(out[1].task.flags == VS_TASK_MULTIPLEXED &&
	   val(1, "hw.instructions") == 1000,
	   "multiplexed: flagged, the delta not scaled");

	/* Task 3: the end read took 50% longer than the begin read. */
	group_read(&r[0], &g, 4000, 10, 3000, 3000, 40000, 70000);
	group_read(&r[1], &g, 4100, 15, 3100, 3100, 41000, 70100);
	feed(acct, &g, 4000, VS_ACCT_TASK_BEGIN, &r[0]);
	feed(acct, &g, 4100, VS_ACCT_TASK_END, &r[1]);
	ok(out[2].task.flags == VS_TASK_DISTORTED,
	   "a read that fails the DTE filter: distorted");

	/* A read that lacks a member of the group is no snapshot. */
	r[0].id[0] = 1;
	ok(vs_hwcount_snapshot(hw, &g, &r[0], values, &snap) && !snap.nr,
	   "a read missing a member is refused");
	vs_hwcount_free(hw);
	vs_acct_free(acct);
	vs_catalog_free(cat);
}

int main(void)
{
	test_events_and_epochs();
	test_raw_events();
	test_deltas();
	return done_testing();
}
