// SPDX-License-Identifier: MIT
/*
 * ranking.c - unit test of core/analysis/taskset and core/analysis/ranking on
 * a task set built by hand, with answers worked out in the comments.
 *
 * 200 tasks of type 1.  Tasks 190..199 are the slow ones: each blocks
 * 1000 ns instead of 10, runs 5000 more instructions and 9000 more
 * cycles, and 40 ns more CPU time.  Latency = 100 + blocked + (i % 7).
 */
#include <math.h>
#include <stdlib.h>

#include "core/analysis/ranking.h"
#include "core/analysis/taskset.h"
#include "t/unit/tap.h"

enum { BLOCKED, RUN, RARE, INSTRUCTIONS, CYCLES, STALLS, CPU, FUNC,
       BRANCHES, LLC, NR_EVENTS };

static const struct vs_event_def catalog[NR_EVENTS] = {
	{ BLOCKED, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "sched.blocked.time", "ns" },
	{ RUN, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "run.time", "ns" },
	{ RARE, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "irq.hard.time", "ns" },
	{ INSTRUCTIONS, VS_EVENT_NO_PARENT, VS_GROUP_INST, "instructions", "count" },
	{ CYCLES, VS_EVENT_NO_PARENT, VS_GROUP_CYCLE, "cycles", "count" },
	{ STALLS, CYCLES, VS_GROUP_CYCLE, "CYCLE_ACTIVITY.STALLS_TOTAL", "count" },
	{ CPU, VS_EVENT_NO_PARENT, VS_GROUP_SOFTWARE, "task-clock", "ns" },
	{ FUNC, VS_EVENT_NO_PARENT, VS_GROUP_FUNC, "func:f3.time", "ns" },
	/* never recorded together: tasks 0..99 and 100..199 */
	{ BRANCHES, VS_EVENT_NO_PARENT, VS_GROUP_INST, "branches", "count" },
	{ LLC, VS_EVENT_NO_PARENT, VS_GROUP_CACHE, "LLC-misses", "count" },
};

static struct vs_taskset *build(void)
{
	struct vs_taskset *ts = vs_taskset_new();
	struct vs_value v[NR_EVENTS];
	struct vs_task t = { .type = 1, .values = v };
	uint16_t live[] = { RARE };
	struct vs_epoch ep = { .epoch = 7, .nr_events = 1, .events = live };
	int i;

	for (i = 0; i < NR_EVENTS; i++)
		vs_taskset_add_event(ts, &catalog[i]);
	vs_taskset_add_epoch(ts, &ep);
	for (i = 0; i < 200; i++) {
		bool slow = i >= 190;
		uint64_t blocked = slow ? 1000 : 10, cycles;

		t.start = 1000 * i;
		t.end = t.start + 100 + blocked + i % 7;
		t.nr_values = 0;
		t.epoch = i < 10 ? 7 : 0;	/* irq.hard.time live, no value */
		v[t.nr_values++] = (struct vs_value){ BLOCKED, blocked };
		if (i % 2 == 0)		/* recorded by half the tasks */
			v[t.nr_values++] = (struct vs_value){ RUN, 50 + i * 37 % 11 };
		cycles = 2000 + (slow ? 9000 : i % 5);
		v[t.nr_values++] = (struct vs_value){ INSTRUCTIONS,
						      1000 + (slow ? 5000 : 0) };
		v[t.nr_values++] = (struct vs_value){ CYCLES, cycles };
		v[t.nr_values++] = (struct vs_value){ STALLS, cycles / 2 };
		v[t.nr_values++] = (struct vs_value){ CPU, 1000 + (slow ? 40 : 0) };
		v[t.nr_values++] = (struct vs_value){ i < 100 ? BRANCHES : LLC,
						      i < 100 ? 300 + i % 3 : 5 };
		if (i % 4)	/* sampled in 3 tasks of 4 */
			v[t.nr_values++] = (struct vs_value){ FUNC,
							      slow ? 990 : 20 };
		vs_taskset_add_task(ts, &t);
	}
	t.type = 2;			/* a second type, one task */
	t.nr_values = 0;
	vs_taskset_add_task(ts, &t);
	vs_taskset_finish(ts);
	return ts;
}

static void test_taskset(const struct vs_taskset *ts)
{
	const struct vs_task_type *tt = vs_taskset_type(ts, 1);
	const struct vs_column *run, *rare;
	float v;

	ok(ts->nr_types == 2 && tt && tt->nr_tasks == 200,
	   "two types, 200 tasks of type 1");
	run = vs_column_find(tt, RUN);
	rare = vs_column_find(tt, RARE);
	ok(run && run->nr == 100, "run.time recorded by the 100 even tasks");
	ok(vs_column_value(run, 10, &v) && v == 50 + 370 % 11 &&
	   !vs_column_value(run, 11, &v), "value of task 10; task 11 has none");
	ok(rare && rare->nr == 10 && vs_column_value(rare, 3, &v) && v == 0,
	   "an event live in the epoch but absent from the record is 0");
	is_u64(tt->latency[tt->by_latency[0]], 1100 + 195 % 7,
	       "slowest task first: task 195, 1106 ns");
	is_u64(vs_taskset_event_by_name(ts, "cycles"), CYCLES,
	       "events by name");
}

static void test_ranking(const struct vs_taskset *ts)
{
	struct vs_rank_opts o = VS_RANK_OPTS_INIT;
	const struct vs_event_rank *blocked, *run, *rare, *cycles, *stalls, *cpu;
	const struct vs_event_rank *func;
	struct vs_type_rank tr;
	double want;

	o.min_tasks = 50;
	ok(vs_rank_type(ts, vs_taskset_type(ts, 1), &o, &tr) == 0,
	   "rank type 1");
	blocked = vs_event_rank_find(&tr, BLOCKED);
	run = vs_event_rank_find(&tr, RUN);
	rare = vs_event_rank_find(&tr, RARE);
	cycles = vs_event_rank_find(&tr, CYCLES);
	stalls = vs_event_rank_find(&tr, STALLS);
	cpu = vs_event_rank_find(&tr, CPU);
	func = vs_event_rank_find(&tr, FUNC);

	/*
	 * p99 of 200 is the 198th: the slow latencies 1100 + (i % 7) sorted
	 * are 1100 1101 1101 1102 1102 1103 1103 1104 1105 1106, ranks 191..
	 * 200, so 1104.  Without them, the 189th of 190 fast ones (110..116,
	 * 27 of them 116) is 116.
	 */
	is_u64(tr.latency_ptarget, 1104, "type p99 latency 1104 ns");
	is_u64(blocked->p_all, 1104, "p(T_E) of blocked time");
	is_u64(blocked->p_low, 116, "p(T_E minus T_hE) of blocked time");
	want = (1104.0 - 116) / 1104;
	ok(fabs(blocked->impact - want) < 1e-12,
	   "impact of blocked time (1104 - 116) / 1104");
	ok(blocked->thr.how == VS_THRESHOLD_STEP && blocked->thr.value == 10 &&
	   blocked->high_tasks == 10 && blocked->tasks == 200,
	   "threshold at the step: 10 high tasks of 200");
	ok(blocked->slow_tasks == 3 && blocked->slow_p50 == 1000 &&
	   blocked->other_p99 == 1000 && blocked->other_p50 == 10,
	   "blocked time in slow (3 tasks) and other tasks");
	ok(blocked->tasks_needed == 400,
	   "5.3: 10 high tasks of 30 wanted: 400 more tasks");

	ok(tr.events[0].impact > 0.89 && tr.events[1].impact > 0.89 &&
	   (tr.events[0].event == BLOCKED || tr.events[1].event == BLOCKED),
	   "blocked time and instructions rank first");
	ok(fabs(cycles->adjusted) < 1e-12 && cycles->cause == INSTRUCTIONS &&
	   cycles->cause_corr == 1,
	   "Rule 1: cycles lose all their impact to instructions");
	ok(stalls->status == VS_RANK_REMOVED && stalls->parent == CYCLES &&
	   stalls->parent_r2 > 0.99,
	   "Rule 2: stalls = cycles / 2 are removed");
	ok(blocked->corr_with >= 0 && blocked->corr == 1,
	   "correlation shown where no rule applies (kernel vs CPU)");
	ok(run->status == VS_RANK_RANKED && run->tasks == 100 &&
	   fabs(run->impact) < 0.05,
	   "run.time, noise on half the tasks, has no impact (%.3f)",
	   run->impact);
	/*
	 * The same 10 tasks are high, but 40 ns cannot take 988 ns off: the
	 * slow 3 (1106, 1105, 1104 ns) spend 40 / 1105 of their time there.
	 */
	ok(fabs(cpu->impact - want) < 1e-12 && cpu->time_bound &&
	   fabs(cpu->adjusted - 40.0 / 1105) < 1e-9 && !blocked->time_bound,
	   "time bound: CPU time +40 ns adjusted to 40 / 1105");
	/*
	 * A function's time is an event like the others, in no rule.  Its
	 * 150 tasks (i % 4 != 0) have slow latencies 1106 1105 1104 ...: p99
	 * is the 149th, 1105; f3 adds 990 - 20 ns to the slow two (1106 and
	 * 1105 ns), which bounds its adjusted impact to 970 / 1105.5.
	 */
	ok(func->status == VS_RANK_RANKED && func->tasks == 150 &&
	   func->p_all == 1105 && func->impact > 0.8 && func->cause < 0 &&
	   func->time_bound && fabs(func->adjusted - 970.0 / 1105.5) < 1e-9,
	   "func:f3.time ranks on its 150 tasks, bounded to 970 / 1105.5");
	ok(stalls->parent_tasks == 200, "Rule 2 over the 200 tasks with both");
	ok(!blocked->pairs_too_few && !cycles->pairs_too_few,
	   "every rule pair recorded together by enough tasks");
	ok(rare->status == VS_RANK_TOO_FEW && rare->tasks == 10 &&
	   tr.events[tr.nr_events - 1].event == RARE,
	   "an event of 10 tasks is not ranked and comes last");
	vs_type_rank_free(&tr);
}

/* 5.3: a Rule 1 pair never recorded together is not applied, and said so. */
static void test_rare_pairs(const struct vs_taskset *ts)
{
	struct vs_rank_opts o = VS_RANK_OPTS_INIT;
	const struct vs_event_rank *branches, *llc, *cycles;
	struct vs_type_rank tr;

	o.min_tasks = 50;
	vs_rank_type(ts, vs_taskset_type(ts, 1), &o, &tr);
	branches = vs_event_rank_find(&tr, BRANCHES);
	llc = vs_event_rank_find(&tr, LLC);
	cycles = vs_event_rank_find(&tr, CYCLES);
	ok(branches->tasks == 100 && llc->tasks == 100 &&
	   branches->pairs_too_few == 1 && llc->pairs_too_few == 1 &&
	   cycles->pairs_too_few == 0,
	   "branches/LLC-misses: 0 tasks with both, the rule pair is skipped");
	vs_type_rank_free(&tr);
}

static void test_threads(const struct vs_taskset *ts)
{
	struct vs_rank_opts o = VS_RANK_OPTS_INIT;
	struct vs_type_rank one, three;
	size_t i, differ = 0;

	o.min_tasks = 50;
	vs_rank_type(ts, vs_taskset_type(ts, 1), &o, &one);
	o.threads = 3;
	vs_rank_type(ts, vs_taskset_type(ts, 1), &o, &three);
	for (i = 0; i < one.nr_events; i++)
		differ += one.events[i].event != three.events[i].event ||
			  one.events[i].adjusted != three.events[i].adjusted;
	ok(one.nr_events == three.nr_events && !differ,
	   "three threads rank exactly like one");
	vs_type_rank_free(&one);
	vs_type_rank_free(&three);
}

/*
 * Type 1 of @n tasks, task i of latency @lat[i] with value @val[e][i] of
 * event e of @defs[0..@nev) (ids 0, 1 ...); ranked with pThreshold
 * @pthreshold (< 0: found) into @tr.  Returns the task set, to free after
 * @tr.
 */
static struct vs_taskset *rank_tasks(const struct vs_event_def *defs,
				     unsigned int nev, const uint64_t *lat,
				     const uint64_t *const *val, size_t n,
				     double pthreshold,
				     struct vs_type_rank *tr)
{
	struct vs_taskset *ts = vs_taskset_new();
	struct vs_rank_opts o = VS_RANK_OPTS_INIT;
	struct vs_value v[4];
	struct vs_task t = { .type = 1, .values = v, .nr_values = nev };
	unsigned int e;
	size_t i;

	for (e = 0; e < nev; e++)
		vs_taskset_add_event(ts, &defs[e]);
	for (i = 0; i < n; i++) {
		t.start = 2000000 * i;
		t.end = t.start + lat[i];
		for (e = 0; e < nev; e++)
			v[e] = (struct vs_value){ e, val[e][i] };
		vs_taskset_add_task(ts, &t);
	}
	vs_taskset_finish(ts);
	o.pthreshold = pthreshold;
	ok(vs_rank_type(ts, vs_taskset_type(ts, 1), &o, tr) == 0,
	   "rank %s's type", defs[0].name);
	return ts;
}

/* rank_tasks() of one event in ns, @name. */
static struct vs_taskset *rank_one_event(const char *name,
					 const uint64_t *lat,
					 const uint64_t *val, size_t n,
					 double pthreshold,
					 struct vs_type_rank *tr)
{
	const struct vs_event_def def = {
		0, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, name, "ns"
	};

	return rank_tasks(&def, 1, lat, &val, n, pthreshold, tr);
}

/*
 * The time bound of a cause behind a minority of the slow tasks.  1000
 * tasks, latency 100 + i % 7, but tasks 980..999 form a tail of 200 +
 * 50 (i - 980) ns; in the tail's tasks with i % 3 == 0 (981, 984 ... 999,
 * seven of them) a run-queue wait of latency - 100 ns makes them slow, as
 * a co-runner preempting some requests does.  p99 of 1000 is the 11th
 * slowest, task 989: 650 ns.  Without the seven, the 10th slowest of 993,
 * task 985: 450 ns.  Impact (650 - 450) / 650.  The wait is in 4 of the
 * 11 slow tasks (990 993 996 999: 600 + 750 + 900 + 1050 ns), so its
 * median there is 0, but it adds 3300 / 11 = 300 ns to them on the mean,
 * of their mean latency 900 ns: 1 / 3 bounds nothing.
 */
static void test_minority_cause(void)
{
	uint64_t lat[1000], wait[1000];
	const struct vs_event_rank *er;
	struct vs_taskset *ts;
	struct vs_type_rank tr;
	int i;

	for (i = 0; i < 1000; i++) {
		lat[i] = i < 980 ? 100 + i % 7 : 200 + 50 * (i - 980);
		wait[i] = i >= 980 && i % 3 == 0 ? lat[i] - 100 : 0;
	}
	ts = rank_one_event("sched.runnable.time", lat, wait, 1000, -1, &tr);
	er = vs_event_rank_find(&tr, 0);
	ok(er && er->p_all == 650 && er->p_low == 450 &&
	   er->high_tasks == 7 && er->slow_p50 == 0,
	   "a wait in 7 tasks, 4 of the 11 slow ones: p99 650 ns, 450 without");
	ok(er && !er->time_bound && fabs(er->adjusted - 200.0 / 650) < 1e-9,
	   "its share of the slow tasks (300 of 900 ns) does not bound 200 / 650");
	vs_type_rank_free(&tr);
	vs_taskset_free(ts);
}

/*
 * The time bound when a few tasks run far longer than p99.  1000 tasks
 * of latency 100 + i % 7 ns, but 970..994 take 1000 + 10 (i - 970) ns
 * with a 100 ns timer interrupt inside, and 995..999, 1 ms each, 20 ticks
 * of 2500 ns: 5% of their time.  The slow 11 are the five long ones and
 * 989..994 (1190 .. 1240 ns): p99 1190 ns.  With pThreshold 0.97 the 30
 * tasks that took a tick are high; without them the p99 is 106 ns.  The
 * ticks add 250600 / 11 ns to the slow tasks, more than p99, but of their
 * 5007290 / 11 ns: the share 250600 / 5007290 bounds the impact.
 */
static void test_heavy_tail(void)
{
	uint64_t lat[1000], ticks[1000];
	const struct vs_event_rank *er;
	struct vs_taskset *ts;
	struct vs_type_rank tr;
	int i;

	for (i = 0; i < 1000; i++) {
		lat[i] = 100 + i % 7;
		ticks[i] = 0;
		if (i >= 995) {
			lat[i] = 1000000;
			ticks[i] = 50000;
		} else if (i >= 970) {
			lat[i] = 1000 + 10 * (i - 970);
			ticks[i] = 100;
		}
	}
	ts = rank_one_event("irq.vector.time", lat, ticks, 1000, 0.97, &tr);
	er = vs_event_rank_find(&tr, 0);
	ok(er && er->p_all == 1190 && er->p_low == 106 && er->high_tasks == 30,
	   "ticks in 30 tasks: p99 1190 ns, 106 without them");
	ok(er && er->time_bound &&
	   fabs(er->adjusted - 250600.0 / 5007290) < 1e-9,
	   "bounded to their share of the slow tasks, 250600 / 5007290");
	vs_type_rank_free(&tr);
	vs_taskset_free(ts);
}

/*
 * The ticks of test_heavy_tail() counted too (1 in 970..994, 20 in the
 * long five): the count marks the same 30 tasks, impact (1190 - 106) /
 * 1190, but acts through the ticks' time, so it is bounded by that
 * time's adjusted impact, 250600 / 5007290.  fault.page.count beside a
 * fault.page.time of 0 in every task (not measured) keeps its impact.
 */
static void test_count_bound(void)
{
	static const struct vs_event_def defs[] = {
		{ 0, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "irq.vector.time", "ns" },
		{ 1, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "irq.vector.count", "count" },
		{ 2, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "fault.page.time", "ns" },
		{ 3, VS_EVENT_NO_PARENT, VS_GROUP_KERNEL, "fault.page.count", "count" },
	};
	static uint64_t lat[1000], ticks[1000], count[1000], zero[1000];
	const uint64_t *val[] = { ticks, count, zero, count };
	const struct vs_event_rank *time, *cnt, *faults;
	struct vs_taskset *ts;
	struct vs_type_rank tr;
	int i;

	for (i = 0; i < 1000; i++) {
		lat[i] = i >= 995 ? 1000000 : i >= 970 ?
			 1000 + 10 * (i - 970) : 100 + i % 7;
		count[i] = i >= 995 ? 20 : i >= 970;
		ticks[i] = i >= 995 ? 50000 : i >= 970 ? 100 : 0;
	}
	ts = rank_tasks(defs, 4, lat, val, 1000, 0.97, &tr);
	time = vs_event_rank_find(&tr, 0);
	cnt = vs_event_rank_find(&tr, 1);
	faults = vs_event_rank_find(&tr, 3);
	ok(cnt && fabs(cnt->impact - 1084.0 / 1190) < 1e-9 &&
	   cnt->time_twin == 0 && time &&
	   fabs(cnt->adjusted - time->adjusted) < 1e-12 &&
	   fabs(cnt->adjusted - 250600.0 / 5007290) < 1e-9,
	   "irq.vector.count: impact 1084 / 1190, bounded by its time");
	ok(faults && faults->time_twin < 0 &&
	   fabs(faults->adjusted - 1084.0 / 1190) < 1e-9,
	   "fault.page.count: a time of 0 everywhere bounds nothing");
	ok(tr.events[0].event == 3 && tr.events[1].event == 0 &&
	   tr.events[2].event == 1,
	   "fault.page.count first, then the time before the count it bounds");
	vs_type_rank_free(&tr);
	vs_taskset_free(ts);
}

int main(void)
{
	struct vs_taskset *ts = build();

	test_taskset(ts);
	test_ranking(ts);
	test_threads(ts);
	test_rare_pairs(ts);
	vs_taskset_free(ts);
	test_minority_cause();
	test_heavy_tail();
	test_count_bound();
	return done_testing();
}
