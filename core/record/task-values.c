// SPDX-License-Identifier: MIT
/*
 * task-values.c - the catalog's values of a task from the in-kernel
 * engine's accounting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arch.h"
#include "core/array.h"
#include "core/pmu.h"
#include "core/record/bpf-engine.h"
#include "core/record/task-values.h"

#define VS_IRQ_NAMED	1024	/* interrupt numbers named from /proc */
#define VS_NO_ID	VS_EVENT_NO_PARENT

static const char *const wait_names[VS_SLOT_WAITS] = {
	[VS_SLOT_RUNNABLE]	= "sched.runnable",
	[VS_SLOT_BLOCKED]	= "sched.blocked",
	[VS_SLOT_IOWAIT]	= "sched.iowait",
};

static const char *const softirq_names[VS_SLOT_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
	"TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* A breakdown's ".time" and ".count" ids; time VS_NO_ID: not made yet. */
struct vs_id_pair {
	uint16_t time, count;
};

struct vs_task_values {
	struct vs_catalog *cat;
	uint16_t run_time, fault_count, fault_time, migrations;
	struct vs_id_pair wait[VS_SLOT_WAITS], irq, softirq, vector;
	uint16_t sw[4];		/* task-clock, context-switches, page-faults,
				 * cpu-migrations */
	struct vs_id_pair softirq_by[VS_SLOT_SOFTIRQS];
	struct vs_id_pair vector_by[VS_SLOT_VECTORS];
	/* [VS_NR_SYSCALLS]: "fault", a wait outside a system call */
	struct vs_id_pair syscall_by[VS_SLOT_WAITS][VS_NR_SYSCALLS + 1];
	struct vs_id_pair irq_by[VS_IRQ_NAMED];
	uint8_t irq_looked[VS_IRQ_NAMED];	/* /proc/interrupts read for it */
	/* the counter sets of the two last generations (a task's counter_gen) */
	struct vs_counter_set {
		uint32_t gen;	/* 0: none */
		uint32_t epoch;	/* the trace's epoch of this set */
		unsigned int nr;
		uint16_t id[VS_SLOT_COUNTERS];
	} counters[2];
	struct vs_counters_left_out left_out;
	uint64_t *val;		/* by catalog id */
	uint8_t *has;
	struct vs_value *out;
	size_t nr_alloc;		/* capacity of @val, @has and @out */
};

static uint16_t intern(struct vs_task_values *tv, const char *name,
		       const char *unit, uint16_t parent)
{
	return vs_catalog_intern(tv->cat, name, unit, VS_GROUP_KERNEL, parent);
}

static struct vs_id_pair intern_pair(struct vs_task_values *tv,
				     const char *prefix, const char *name,
				     const struct vs_id_pair *parent)
{
	struct vs_id_pair p;
	char buf[160];

	snprintf(buf, sizeof(buf), "%s%s%s.time", prefix, name ? "." : "",
		 name ? name : "");
	p.time = intern(tv, buf, "ns", parent ? parent->time : VS_NO_ID);
	snprintf(buf, sizeof(buf), "%s%s%s.count", prefix, name ? "." : "",
		 name ? name : "");
	p.count = intern(tv, buf, "count", parent ? parent->count : VS_NO_ID);
	return p;
}

struct vs_task_values *vs_task_values_new(struct vs_catalog *cat,
					  const uint16_t sw_ids[4])
{
	struct vs_task_values *tv = calloc(1, sizeof(*tv));
	int i;

	if (!tv)
		return NULL;
	tv->cat = cat;
	memset(tv->softirq_by, 0xff, sizeof(tv->softirq_by));
	memset(tv->vector_by, 0xff, sizeof(tv->vector_by));
	memset(tv->syscall_by, 0xff, sizeof(tv->syscall_by));
	memset(tv->irq_by, 0xff, sizeof(tv->irq_by));
	tv->run_time = intern(tv, "run.time", "ns", VS_NO_ID);
	for (i = 0; i < VS_SLOT_WAITS; i++)
		tv->wait[i] = intern_pair(tv, wait_names[i], NULL, NULL);
	tv->irq = intern_pair(tv, "irq.hard", NULL, NULL);
	tv->softirq = intern_pair(tv, "irq.soft", NULL, NULL);
	tv->vector = intern_pair(tv, "irq.vector", NULL, NULL);
	tv->fault_count = intern(tv, "fault.page.count", "count", VS_NO_ID);
	tv->fault_time = VS_NO_ID;
	tv->migrations = intern(tv, "cpu.migrations.count", "count", VS_NO_ID);
	memcpy(tv->sw, sw_ids, sizeof(tv->sw));
	return tv;
}

void vs_task_values_fault_time(struct vs_task_values *tv)
{
	tv->fault_time = intern(tv, "fault.page.time", "ns", VS_NO_ID);
}

void vs_task_values_free(struct vs_task_values *tv)
{
	if (!tv)
		return;
	free(tv->val);
	free(tv->has);
	free(tv->out);
	free(tv);
}

/* a + b, at most UINT64_MAX */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void set(struct vs_task_values *tv, uint16_t id, uint64_t value)
{
	if (id == VS_NO_ID || id >= tv->nr_alloc)
		return;
	tv->val[id] = sat_add(tv->val[id], value);
	tv->has[id] = 1;
}

static void set_pair(struct vs_task_values *tv, struct vs_id_pair p,
		     uint64_t ns, uint64_t count)
{
	set(tv, p.time, ns);
	set(tv, p.count, count);
}

/*
 * The name /proc/interrupts gives interrupt @irq (its last column, the
 * handler's name, as irq_handler_entry says it), read once per number.
 */
static bool irq_name(unsigned int irq, char *name, size_t len)
{
	char line[1024], *tok, *last = NULL, *save = NULL;
	bool found = false;
	FILE *f = fopen("/proc/interrupts", "r");
	unsigned int n;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %u:", &n) != 1 || n != irq)
			continue;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			last = tok;
		if (last && strchr(last, ':') == NULL) {
			snprintf(name, len, "%s", last);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static struct vs_id_pair *irq_ids(struct vs_task_values *tv, uint32_t irq)
{
	char name[128];

	if (irq >= VS_IRQ_NAMED)
		return NULL;
	if (!tv->irq_looked[irq]) {
		tv->irq_looked[irq] = 1;
		if (irq_name(irq, name, sizeof(name)))
			tv->irq_by[irq] = intern_pair(tv, "irq.hard", name,
						      &tv->irq);
	}
	return tv->irq_by[irq].time == VS_NO_ID ? NULL : &tv->irq_by[irq];
}

static struct vs_id_pair *syscall_ids(struct vs_task_values *tv, uint32_t wait,
				      uint32_t nr)
{
	struct vs_id_pair *p;
	unsigned int k;
	const char *name;

	if (wait != VS_SLOT_BLOCKED && wait != VS_SLOT_IOWAIT)
		return NULL;
	if (nr == VS_SLOT_NO_SYSCALL) {
		k = VS_NR_SYSCALLS;
		name = "fault";
	} else if (nr < VS_NR_SYSCALLS && vs_syscall_name(nr)) {
		k = nr;
		name = vs_syscall_name(nr);
	} else {
		return NULL;
	}
	p = &tv->syscall_by[wait][k];
	if (p->time == VS_NO_ID)
		*p = intern_pair(tv, wait_names[wait], name, &tv->wait[wait]);
	return p->time == VS_NO_ID ? NULL : p;
}

void vs_task_values_counters(struct vs_task_values *tv, uint32_t gen,
			     uint32_t epoch, const uint16_t *ids,
			     unsigned int nr)
{
	struct vs_counter_set *cs = &tv->counters[gen / 2 % 2];

	cs->gen = gen;
	cs->epoch = epoch;
	cs->nr = nr < VS_SLOT_COUNTERS ? nr : VS_SLOT_COUNTERS;
	memcpy(cs->id, ids, cs->nr * sizeof(*ids));
}

const struct vs_counters_left_out *
vs_task_values_left_out(const struct vs_task_values *tv)
{
	return &tv->left_out;
}

/*
 * The counters of @kv, when they can be trusted: read at the task's begin
 * and end (its two marks), all of one set, every read fine, and the DTE
 * filter of the Shim thesis (core/pmu.h) over the task's intervals
 * passed; otherwise left out and counted, the task flagged.  Multiplexed
 * reads flag the task (the values are kept, unscaled).
 */
static void take_counters(struct vs_task_values *tv,
			  const struct vs_slot_values *kv, struct vs_task *task)
{
	uint32_t *flags = &task->flags;
	const struct vs_counter_set *cs = NULL;
	unsigned int i;

	if (!tv->counters[0].gen && !tv->counters[1].gen)
		return;		/* no counters recorded */
	for (i = 0; i < 2; i++)
		if (tv->counters[i].gen && tv->counters[i].gen == kv->counter_gen)
			cs = &tv->counters[i];
	if (kv->counter_marks != 2 || !cs ||
	    (kv->counter_flags & (VS_COUNTERS_FAILED | VS_COUNTERS_SWAPPED))) {
		tv->left_out.unmarked++;
		return;
	}
	if (vs_dte_span_distorted(kv->counter_span[0], kv->counter_span[1],
				  VS_DTE_TOLERANCE_PPM)) {
		*flags |= VS_TASK_DISTORTED;
		tv->left_out.distorted++;
		return;
	}
	if (kv->counter_flags & VS_COUNTERS_MULTIPLEXED)
		*flags |= VS_TASK_MULTIPLEXED;
	for (i = 0; i < cs->nr; i++)
		set(tv, cs->id[i], kv->counter[i]);
	task->epoch = cs->epoch;
}

/*
 * A breakdown by a fixed table of @n names: "<prefix>.<name>.time" and
 * ".count" under the total @sum, which gets the sums; returns the time.
 */
static uint64_t breakdown(struct vs_task_values *tv, const char *prefix,
			  const char *const *names, struct vs_id_pair *by,
			  const struct vs_id_pair *sum, const __u64 *ns,
			  const __u64 *count, int n)
{
	uint64_t total_ns = 0, total_count = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!count[i])
			continue;
		if (by[i].time == VS_NO_ID)
			by[i] = intern_pair(tv, prefix, names[i], sum);
		set_pair(tv, by[i], ns[i], count[i]);
		total_ns = sat_add(total_ns, ns[i]);
		total_count = sat_add(total_count, count[i]);
	}
	set_pair(tv, *sum, total_ns, total_count);
	return total_ns;
}

/* The kernel's values into tv->val; returns the time not run. */
static uint64_t take_values(struct vs_task_values *tv,
			    const struct vs_slot_values *kv)
{
	uint64_t off_cpu = 0, in_irq = 0;
	struct vs_id_pair *p;
	int i;

	for (i = 0; i < VS_SLOT_WAITS; i++) {
		set_pair(tv, tv->wait[i], kv->wait_ns[i], kv->wait_count[i]);
		off_cpu = sat_add(off_cpu, kv->wait_ns[i]);
	}
	for (i = 0; i < VS_SLOT_SYSCALLS; i++) {
		const struct vs_slot_syscall *e = &kv->syscall[i];

		if (e->count && (p = syscall_ids(tv, e->wait, e->nr)))
			set_pair(tv, *p, e->time_ns, e->count);
	}
	set_pair(tv, tv->irq, kv->irq_ns, kv->irq_count);
	in_irq = kv->irq_ns;
	for (i = 0; i < VS_SLOT_IRQS; i++) {
		const struct vs_slot_irq *e = &kv->irq[i];

		if (e->count && (p = irq_ids(tv, e->irq)))
			set_pair(tv, *p, e->time_ns, e->count);
	}
	in_irq = sat_add(in_irq, breakdown(tv, "irq.soft", softirq_names,
					   tv->softirq_by, &tv->softirq,
					   kv->softirq_ns, kv->softirq_count,
					   VS_SLOT_SOFTIRQS));
	in_irq = sat_add(in_irq, breakdown(tv, "irq.vector", vs_bpf_vector_names,
					   tv->vector_by, &tv->vector,
					   kv->vector_ns, kv->vector_count,
					   VS_SLOT_VECTORS));
	set(tv, tv->fault_count, kv->faults);
	if (tv->fault_time != VS_NO_ID) {
		set(tv, tv->fault_time, kv->fault_ns);
		in_irq = sat_add(in_irq, kv->fault_ns);
	}
	set(tv, tv->migrations, kv->migrations);
	set(tv, tv->sw[1], kv->switches);
	set(tv, tv->sw[2], kv->faults);
	set(tv, tv->sw[3], kv->migrations);
	return sat_add(off_cpu, in_irq);
}

int vs_task_values_fill(struct vs_task_values *tv,
			const struct vs_slot_values *kv, struct vs_task *task)
{
	uint64_t wall = task->end > task->start ? task->end - task->start : 0;
	uint64_t off_cpu = 0, not_run;
	unsigned int n, id, nr = 0;
	/* the three grow alike: one capacity, taken when all have it */
	size_t alloc_val = tv->nr_alloc, alloc_has = tv->nr_alloc,
	       alloc_out = tv->nr_alloc;
	int i;

	task->nr_values = 0;
	task->values = NULL;
	/* a task makes at most 50 new names (the slot's breakdowns) */
	n = vs_catalog_size(tv->cat);
	if (ALLOC_GROW(tv->val, n + 64, alloc_val) ||
	    ALLOC_GROW(tv->has, n + 64, alloc_has) ||
	    ALLOC_GROW(tv->out, n + 64, alloc_out))
		return -1;
	tv->nr_alloc = alloc_out;
	memset(tv->val, 0, tv->nr_alloc * sizeof(*tv->val));
	memset(tv->has, 0, tv->nr_alloc);
	not_run = take_values(tv, kv);
	for (i = 0; i < VS_SLOT_WAITS; i++)
		off_cpu = sat_add(off_cpu, kv->wait_ns[i]);
	if (not_run > wall)
		task->flags |= VS_TASK_DISTORTED;
	/* on-CPU time: run.time without the interrupts, task-clock with */
	set(tv, tv->run_time, not_run > wall ? 0 : wall - not_run);
	take_counters(tv, kv, task);
	set(tv, tv->sw[0], off_cpu > wall ? 0 : wall - off_cpu);
	n = vs_catalog_size(tv->cat);
	if (n > tv->nr_alloc)
		n = tv->nr_alloc;
	for (id = 0; id < n; id++) {
		const struct vs_event_def *def = vs_catalog_get(tv->cat, id);

		if (!tv->has[id] && def->group != VS_GROUP_KERNEL)
			continue;
		tv->out[nr].event = id;
		tv->out[nr].value = tv->has[id] ? tv->val[id] : 0;
		nr++;
	}
	task->nr_values = nr;
	task->values = tv->out;
	return 0;
}
