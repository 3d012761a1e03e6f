// SPDX-License-Identifier: MIT
/*
 * hwcount.c - the hardware counting of 'varscope record' without a PMU:
 * the events and epochs of core/record/hwcount.c, and cpu.freq, cycles over
 * run.time, added to a task's values in id order.
 */
#include <stdlib.h>
#include <string.h>

#include "arch/x86/intel-events.h"
#include "core/record/hwcount.h"
#include "t/unit/tap.h"

static struct vs_catalog *cat;
static struct vs_hwcount *hw;

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

/* cpu.freq of a task of run.time @ns with hw.cycles @cycles, or -1. */
static long long freq_of(uint64_t ns, int64_t cycles, uint32_t *nr)
{
	uint16_t run = vs_catalog_find(cat, "run.time");
	uint16_t cyc = vs_catalog_find(cat, VS_HW_CYCLES);
	uint16_t freq = vs_catalog_find(cat, VS_CPU_FREQ);
	struct vs_value v[2] = { { run, ns }, { cyc, cycles } }, buf[3];
	struct vs_task t = { .nr_values = cycles < 0 ? 1 : 2, .values = v };
	struct vs_task out;
	uint32_t i;

	vs_hwcount_add_freq(hw, &t, buf, &out);
	*nr = out.nr_values;
	for (i = 0; i < out.nr_values; i++) {
		if (i && out.values[i].event <= out.values[i - 1].event)
			return -2;	/* out of id order */
		if (out.values[i].event == freq)
			return out.values[i].value;
	}
	return -1;
}

static void test_freq(void)
{
	char err[128];
	uint32_t nr;

	cat = vs_catalog_new(NULL, NULL);
	/* the engine's names first, as record interns them */
	vs_catalog_intern(cat, "run.time", "ns", VS_GROUP_KERNEL,
			  VS_EVENT_NO_PARENT);
	hw = vs_hwcount_new(cat, vs_x86_skylakex(), NULL, 4, err, sizeof(err));
	if (!ok(hw != NULL, "the events, after run.time"))
		return;
	is_u64(freq_of(800, 2000, &nr), 2000 * 1000000ull / 800,
	       "cpu.freq: cycles over run.time, in kHz");
	is_u64(nr, 3, "added to the task's two values, in id order");
	ok(freq_of(0, 2000, &nr) == -1 && nr == 2,
	   "no run.time: no cpu.freq");
	ok(freq_of(800, -1, &nr) == -1 && nr == 1, "no cycles: no cpu.freq");
	vs_hwcount_free(hw);
	vs_catalog_free(cat);
}

int main(void)
{
	test_events_and_epochs();
	test_raw_events();
	test_freq();
	return done_testing();
}
