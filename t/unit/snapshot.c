// SPDX-License-Identifier: MIT
/*
 * Counter snapshots at interrupt boundaries (core/snapshot.h), the way
 * record turns them into a task's hardware deltas with the interrupts
 * left out, without a PMU:
 *
 * - the attrs record opens are valid for the ABI: checked field by field,
 *   and live with software counters standing in for the hardware ones
 *   (the kernel checks the group, its clock and the ring redirection);
 *   live, the twins of one tracepoint hit are neighbours in the ring;
 * - PERF_RECORD_SAMPLE bytes laid out as the kernel does for the attr
 *   (build_sample() derives the layout from sample_type and read_format)
 *   are decoded, paired with their twins and fed to the accounting, and
 *   each task's deltas are checked exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/perf-ring.h"
#include "core/record-int.h"
#include "core/snapshot.h"
#include "t/unit/acct-tasks.h"
#include "t/unit/tap.h"

/* --- the attrs ------------------------------------------------------------ */

static void test_attrs(void)
{
	const struct vs_hw_config cycles = { PERF_TYPE_HARDWARE,
					     PERF_COUNT_HW_CPU_CYCLES, 0 };
	struct perf_event_attr lead, member, snap, ring;

	vs_pmu_counter_attr(&lead, &cycles, true);
	vs_pmu_counter_attr(&member, &cycles, false);
	vs_snapshot_attr(&snap, 42);
	vs_event_attr(&ring, PERF_TYPE_TRACEPOINT, 41);

	ok(lead.type == PERF_TYPE_HARDWARE && lead.disabled && !member.disabled,
	   "the group leads with a hardware counter, opened disabled");
	ok(snap.type == PERF_TYPE_TRACEPOINT && snap.config == 42 &&
	   snap.sample_period == 1 && !snap.disabled,
	   "a snapshot member: the tracepoint, every hit, on with its leader");
	ok(snap.sample_type == VS_SNAPSHOT_SAMPLE_TYPE &&
	   (snap.sample_type & PERF_SAMPLE_READ) &&
	   snap.sample_type == (ring.sample_type | PERF_SAMPLE_READ),
	   "sample_type: the recorder's fields and READ");
	ok(snap.read_format == VS_PMU_READ_FORMAT &&
	   lead.read_format == VS_PMU_READ_FORMAT &&
	   (snap.read_format & PERF_FORMAT_GROUP) &&
	   (snap.read_format & PERF_FORMAT_ID),
	   "read_format: the group format with ids, as the leader's");
	ok(lead.use_clockid && snap.use_clockid && ring.use_clockid &&
	   lead.clockid == CLOCK_MONOTONIC && snap.clockid == CLOCK_MONOTONIC &&
	   ring.clockid == CLOCK_MONOTONIC,
	   "one clock for the group and the ring it writes to");
	ok(snap.sample_id_all && !snap.inherit,
	   "sample_id_all (the ring's other records parse alike), per thread");
	ok(vs_snapshot_role(VS_TP_IRQ_ENTRY) && vs_snapshot_role(VS_TP_IRQ_EXIT) &&
	   vs_snapshot_role(VS_TP_SOFTIRQ_ENTRY) &&
	   vs_snapshot_role(VS_TP_VECTOR_EXIT) &&
	   !vs_snapshot_role(VS_TP_FAULT) && !vs_snapshot_role(VS_TP_SWITCH),
	   "interrupt entries and exits get snapshots; faults (no exit) do not");
}

/* --- sample bytes as the kernel lays them out ---------------------------- */

struct fields {
	uint64_t id, time;
	uint32_t pid, tid, cpu;
	uint64_t enabled, running;
	unsigned int nr;
	const uint64_t *values, *ids;
	const void *raw;
	uint32_t raw_size;
};

static char *put(char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/*
 * A PERF_RECORD_SAMPLE of @attr: the fields in perf_output_sample()'s
 * order for the bits of sample_type this test knows (others: abort), the
 * read block by read_format, raw data padded to 8 bytes with its size.
 */
static size_t build_sample(const struct perf_event_attr *attr,
			   const struct fields *f, char *buf)
{
	const uint64_t known = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_READ | PERF_SAMPLE_RAW;
	struct perf_event_header *h = (void *)buf;
	uint64_t st = attr->sample_type, rf = attr->read_format, nr = f->nr;
	char *p = buf + sizeof(*h);
	uint32_t zero = 0;
	unsigned int i;

	if (st & ~known)
		abort();
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put(p, &f->id, 8);
	if (st & PERF_SAMPLE_TID) {
		p = put(p, &f->pid, 4);
		p = put(p, &f->tid, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		p = put(p, &f->time, 8);
	if (st & PERF_SAMPLE_CPU) {
		p = put(p, &f->cpu, 4);
		p = put(p, &zero, 4);
	}
	if (st & PERF_SAMPLE_READ) {
		if (!(rf & PERF_FORMAT_GROUP))
			abort();
		p = put(p, &nr, 8);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			p = put(p, &f->enabled, 8);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			p = put(p, &f->running, 8);
		for (i = 0; i < nr; i++) {
			p = put(p, &f->values[i], 8);
			if (rf & PERF_FORMAT_ID)
				p = put(p, &f->ids[i], 8);
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		/* the kernel pads the raw data so the record stays aligned */
		uint32_t size = ((f->raw_size + 4 + 7) & ~7u) - 4;

		p = put(p, &size, 4);
		memset(p, 0, size);
		if (f->raw_size)
			memcpy(p, f->raw, f->raw_size);
		p += size;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = p - buf;
	return h->size;
}

/* --- a thread's stream through decode, pairing and accounting ------------ */

static void emit(void *ctx, const struct vs_task *task)
{
	(void)ctx;
	keep_task(task);
}

static struct vs_acct *acc;
static struct vs_snapshot_pair pair;
static uint16_t ids[2];		/* hw.cycles, hw.instructions */
/* the group: 2 counters, then 2 snapshot members (irq entry, exit) */
static struct vs_counter_group g;

static void setup(void)
{
	unsigned int i;

	vs_acct_free(acc);
	vs_catalog_free(cat);
	cat = vs_catalog_new(NULL, NULL);
	acc = vs_acct_new(cat, emit, NULL);
	ids[0] = vs_catalog_intern(cat, "hw.cycles", "count", VS_GROUP_CYCLE,
				   VS_EVENT_NO_PARENT);
	ids[1] = vs_catalog_intern(cat, "hw.instructions", "count",
				   VS_GROUP_INST, VS_EVENT_NO_PARENT);
	memset(&g, 0, sizeof(g));
	g.nr = 4;
	for (i = 0; i < g.nr; i++) {
		g.fd[i] = -1;
		g.id[i] = 500 + i;
	}
	vs_snapshot_pair_init(&pair);
	nr_out = 0;
}

/* Times count from T0: a begin at 0 would be inside the loss up to 0. */
#define T0	1000000

/* The thread's counters now, and the group's times. */
static uint64_t cyc, ins, enabled, running;
static uint32_t cpu;

/*
 * The snapshot sample of tracepoint index @tp at @time, decoded: the
 * group's read in the kernel's order (leader first), member @member's
 * own count included.
 */
static void snapshot_sample(uint64_t time, unsigned int member,
			    struct vs_snapshot *snap)
{
	struct perf_event_attr attr;
	uint64_t values[4] = { cyc, ins, 3, 4 };
	const char raw[] = "irq";
	struct fields f = {
		.id = g.id[member], .time = T0 + time, .pid = 10, .tid = 10,
		.cpu = cpu, .enabled = enabled, .running = running, .nr = g.nr,
		.values = values, .ids = g.id, .raw = raw, .raw_size = 3,
	};
	struct vs_snapshot_sample smp;
	char buf[512];

	vs_snapshot_attr(&attr, 7);
	build_sample(&attr, &f, buf);
	if (vs_snapshot_parse((void *)buf, &smp) ||
	    vs_snapshot_of(&smp, &g, 2, ids, snap) || smp.id != g.id[member] ||
	    smp.tid != 10 || smp.time != T0 + time || smp.cpu != cpu ||
	    smp.raw_size < 3 || memcmp(smp.raw, raw, 3))
		abort();
}

static void feed(uint64_t time, enum vs_acct_kind kind,
		 const struct vs_snapshot *snap)
{
	struct vs_acct_event ev = {
		.time = T0 + time, .cpu = cpu, .tid = 10, .pid = 10, .kind = kind,
		.type = 1, .id = time,
	};

	if (snap)
		vs_snapshot_attach(snap, &ev);
	vs_acct_feed(acc, &ev);
}

/* A fresh accounting, counters at 0, a task begun at 0 on cpu 0. */
static void start(void)
{
	setup();
	cyc = ins = 0;
	cpu = 0;
	feed(0, VS_ACCT_TASK_BEGIN, NULL);
}

enum order { TWIN_FIRST, SNAPSHOT_FIRST, BROKEN };

/*
 * One tracepoint hit of tracepoint index @tp: the twin (the thread
 * group's sample, the accounting event) and the snapshot member's
 * sample, in the ring in @order, paired as record pairs them.
 */
static void hit(uint64_t time, enum vs_acct_kind kind, int tp, enum order o)
{
	struct vs_snapshot snap, mine;
	bool got = false;

	snapshot_sample(time, 2 + tp % 2, &snap);
	if (o == SNAPSHOT_FIRST) {
		vs_snapshot_pair_snapshot(&pair, tp, &snap);
		got = vs_snapshot_pair_event(&pair, tp, &mine);
	} else {
		vs_snapshot_pair_event(&pair, tp, &mine);
		if (o == BROKEN)	/* a switch record came in between */
			vs_snapshot_pair_other(&pair);
		got = vs_snapshot_pair_snapshot(&pair, tp, &snap);
		mine = snap;
	}
	feed(time, kind, got ? &mine : NULL);
}

/* The task's end: the library's deltas over the whole task. */
static void task_end(uint64_t time, uint64_t cyc0, uint64_t ins0,
		     uint32_t flags)
{
	uint64_t d[2] = { cyc - cyc0, ins - ins0 };
	struct vs_acct_event ev = {
		.time = T0 + time, .cpu = cpu, .tid = 10, .kind = VS_ACCT_TASK_END,
		.flags = flags, .deltas = { 2, ids, d },
	};

	vs_acct_feed(acc, &ev);
}

/* The thread runs @c cycles and @i instructions on the PMU for @ns. */
static void run(uint64_t c, uint64_t i, uint64_t ns)
{
	cyc += c;
	ins += i;
	enabled += ns;
	running += ns;
}

static void test_hardirq(void)
{
	start();
	cyc = 1000, ins = 5000;
	run(400, 900, 400);
	hit(400, VS_ACCT_IRQ_ENTRY, 0, TWIN_FIRST);
	run(200, 300, 200);			/* the irq */
	hit(600, VS_ACCT_IRQ_EXIT, 1, SNAPSHOT_FIRST);
	run(400, 800, 400);
	task_end(1000, 1000, 5000, 0);
	is_u64(val(0, "hw.cycles"), 800, "hardirq: its 200 cycles left out");
	is_u64(val(0, "hw.instructions"), 1700,
	       "hardirq: its 300 instructions left out");
	is_u64(val(0, "irq.hard.time"), 200, "hardirq: its time is its own");
	is_u64(out[0].task.flags, 0, "hardirq: clean reads, no flag");
}

static void test_nested(void)
{
	start();
	run(100, 100, 100);
	hit(100, VS_ACCT_IRQ_ENTRY, 0, TWIN_FIRST);
	run(50, 50, 50);
	hit(150, VS_ACCT_SOFTIRQ_ENTRY, 0, TWIN_FIRST);
	run(100, 100, 100);
	hit(250, VS_ACCT_SOFTIRQ_EXIT, 1, TWIN_FIRST);
	run(50, 50, 50);
	hit(300, VS_ACCT_IRQ_EXIT, 1, TWIN_FIRST);
	run(100, 100, 100);
	task_end(400, 0, 0, 0);
	is_u64(val(0, "hw.cycles"), 200,
	       "softirq nested in a hardirq: the outer interval is left out once");
	ok(val(0, "irq.soft.time") == 100 && val(0, "irq.hard.time") == 100,
	   "softirq nested in a hardirq: each its own time");
}

static void test_fault(void)
{
	start();
	run(300, 300, 300);
	feed(300, VS_ACCT_FAULT, NULL);		/* no exit, no snapshot */
	run(700, 700, 700);
	task_end(1000, 0, 0, 0);
	ok(val(0, "hw.cycles") == 1000 && val(0, "fault.page.count") == 1,
	   "a page fault: counted, its cycles stay in the task's");
}

/*
 * VarMRI's Fig. 3, loop3: runs on cpu 0, switched out, runs on cpu 1,
 * an interrupt, runs to its end.  The per-thread counters do not count
 * while it is out; the interrupt is left out.
 */
static void test_switch(void)
{
	struct vs_acct_event ev = {
		.tid = 10, .kind = VS_ACCT_SWITCH_OUT, .state = VS_WAIT_RUNNABLE,
	};

	start();
	run(200, 200, 200);
	ev.time = T0 + 200;
	vs_acct_feed(acc, &ev);
	enabled += 300;				/* out: counted by no one */
	cpu = 1;
	ev.time = T0 + 500;
	ev.cpu = 1;
	ev.kind = VS_ACCT_SWITCH_IN;
	vs_acct_feed(acc, &ev);
	run(100, 100, 100);
	hit(600, VS_ACCT_VECTOR_ENTRY, 0, SNAPSHOT_FIRST);
	run(50, 50, 50);
	hit(650, VS_ACCT_VECTOR_EXIT, 1, TWIN_FIRST);
	run(150, 150, 150);
	task_end(800, 0, 0, 0);
	is_u64(val(0, "hw.cycles"), 450,
	       "switched out and in on another cpu: the three running periods");
	ok(val(0, "sched.runnable.time") == 300 &&
	   val(0, "irq.vector.time") == 50 && val(0, "run.time") == 450,
	   "switched out and in: the wait and the vector are their own");
	cpu = 0;
}

static void test_multiplexed(void)
{
	start();
	run(100, 100, 100);
	hit(100, VS_ACCT_IRQ_ENTRY, 0, TWIN_FIRST);
	cyc += 60, enabled += 100, running += 40;	/* 60% off the PMU */
	hit(200, VS_ACCT_IRQ_EXIT, 1, TWIN_FIRST);
	run(100, 100, 100);
	task_end(300, 0, 0, 0);
	ok(out[0].task.flags == VS_TASK_MULTIPLEXED,
	   "multiplexed during the interrupt: flagged");
	is_u64(val(0, "hw.cycles"), 200,
	       "multiplexed: the raw 60 left out, nothing scaled");
}

static void test_pairing(void)
{
	uint64_t leader = g.id[0];

	start();
	run(100, 100, 100);
	hit(100, VS_ACCT_IRQ_ENTRY, 0, BROKEN);
	run(100, 100, 100);
	hit(200, VS_ACCT_IRQ_EXIT, 1, TWIN_FIRST);
	run(100, 100, 100);
	task_end(300, 0, 0, 0);
	is_u64(val(0, "hw.cycles"), 300,
	       "a snapshot without its twin next to it: the interrupt stays in");

	/* the exit's snapshot comes from another group (a new epoch's) */
	feed(1000, VS_ACCT_TASK_BEGIN, NULL);
	run(100, 100, 100);
	hit(1100, VS_ACCT_IRQ_ENTRY, 0, TWIN_FIRST);
	run(100, 100, 100);
	g.id[0] = 900;
	hit(1200, VS_ACCT_IRQ_EXIT, 1, TWIN_FIRST);
	g.id[0] = leader;
	run(100, 100, 100);
	task_end(1300, 300, 300, 0);
	is_u64(val(1, "hw.cycles"), 300,
	       "entry and exit snapshots of two groups: nothing left out");

	/* two snapshots for one hit (both groups at a rotation): one pairs */
	start();
	run(100, 100, 100);
	hit(100, VS_ACCT_IRQ_ENTRY, 0, TWIN_FIRST);
	{
		struct vs_snapshot extra;

		snapshot_sample(100, 2, &extra);
		ok(!vs_snapshot_pair_snapshot(&pair, 0, &extra),
		   "a second snapshot of the hit is no twin's");
	}
	run(100, 100, 100);
	hit(200, VS_ACCT_IRQ_EXIT, 1, TWIN_FIRST);
	run(100, 100, 100);
	task_end(300, 0, 0, 0);
	is_u64(val(0, "hw.cycles"), 200, "the interrupt left out once");
}

static void test_parse_errors(void)
{
	struct perf_event_attr attr;
	uint64_t values[1] = { 1 }, gids[1] = { 2 };
	struct fields f = { .nr = 1, .values = values, .ids = gids };
	struct vs_snapshot_sample smp;
	char buf[256];
	size_t n;
	bool all = true;

	vs_snapshot_attr(&attr, 1);
	n = build_sample(&attr, &f, buf);
	ok(!vs_snapshot_parse((void *)buf, &smp) && smp.read.nr == 1 &&
	   smp.read.value[0] == 1 && smp.read.id[0] == 2 && smp.raw_size == 4,
	   "an empty raw field is padded to 4 bytes");
	for (; n > sizeof(struct perf_event_header); n--) {
		((struct perf_event_header *)buf)->size = n - 1;
		all &= vs_snapshot_parse((void *)buf, &smp) < 0;
	}
	ok(all, "every truncation of a sample is refused");
}

/* --- live: software counters standing in for the hardware ones ----------- */

static int tracepoint_id(const char *path)
{
	FILE *f = fopen(path, "r");
	int id = -1;

	if (f) {
		if (fscanf(f, "%d", &id) != 1)
			id = -1;
		fclose(f);
	}
	return id;
}

struct ring_seen {
	uint64_t tp_id;			/* the thread group's tracepoint */
	const struct vs_counter_group *g;
	int order[16];			/* 0: twin, 1: snapshot */
	unsigned int nr, parsed;
};

static void take(void *ctx, const struct perf_event_header *h)
{
	struct ring_seen *r = ctx;
	const struct vs_raw_sample *smp = (const void *)h;
	struct vs_snapshot_sample snap;

	if (h->type != PERF_RECORD_SAMPLE || r->nr == 16)
		return;
	if (smp->id == r->tp_id) {
		r->order[r->nr++] = 0;
		return;
	}
	r->order[r->nr++] = 1;
	r->parsed += !vs_snapshot_parse(h, &snap) && snap.read.nr == r->g->nr &&
		     snap.raw_size > 0 && snap.tid == (uint32_t)gettid();
}

/*
 * Record's layout, live: a thread group led by a tracepoint owning the
 * ring (vs_event_attr()), and a counter group (task-clock, page-faults:
 * software counters in the hardware ones' place) with the same tracepoint
 * as a snapshot member (vs_snapshot_attr()) redirected into that ring.
 * The kernel accepts every attr and the redirection, and each hit gives
 * two samples side by side: the pairing's premise.
 */
static void test_live(void)
{
	const struct vs_hw_config sw[] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0 },
	};
	struct ring_seen seen = { 0 };
	struct perf_event_attr attr;
	struct vs_counter_group grp;
	struct vs_perf_ring ring;
	bool side_by_side = true;
	int id, lead, fd;
	unsigned int i;

	id = tracepoint_id("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id");
	if (id < 0) {
		skip_test("no tracefs at /sys/kernel/tracing",
			  "live: record's snapshot group and ring");
		return;
	}
	vs_event_attr(&attr, PERF_TYPE_TRACEPOINT, id);
	lead = vs_perf_open(&attr, 0, -1, -1);
	if (lead < 0 || vs_perf_ring_mmap(&ring, lead, 8) ||
	    ioctl(lead, PERF_EVENT_IOC_ID, &seen.tp_id)) {
		ok(0, "live: the thread's tracepoint and ring open");
		return;
	}
	ok(!vs_counter_group_open(&grp, sw, 2, 0, -1, NULL, 0),
	   "live: the counter group opens with record's clock");
	vs_snapshot_attr(&attr, id);
	fd = vs_counter_group_add_snapshot(&grp, &attr, 0, -1);
	ok(fd >= 0 && !ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead),
	   "live: the snapshot member joins and writes into the thread's ring");
	seen.g = &grp;
	vs_counter_group_enable(&grp);
	for (i = 0; i < 4; i++)
		syscall(SYS_getppid);
	vs_counter_group_disable(&grp);
	ioctl(lead, PERF_EVENT_IOC_DISABLE, 0);
	vs_perf_ring_read(&ring, take, &seen);
	for (i = 0; i + 1 < seen.nr; i += 2)
		side_by_side &= seen.order[i] != seen.order[i + 1] &&
				seen.order[i] == seen.order[0];
	ok(seen.nr == 8 && seen.parsed == 4 && side_by_side,
	   "live: 4 hits, 8 samples, twins side by side in one order, the "
	   "snapshots parse (%u samples, %u parsed)", seen.nr, seen.parsed);
	vs_perf_ring_unmap(&ring);
	vs_counter_group_close(&grp);
	close(lead);
}

int main(void)
{
	test_attrs();
	test_hardirq();
	test_nested();
	test_fault();
	test_switch();
	test_multiplexed();
	test_pairing();
	test_parse_errors();
	test_live();
	vs_acct_free(acc);
	vs_catalog_free(cat);
	return done_testing();
}
