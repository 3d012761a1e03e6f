// SPDX-License-Identifier: MIT
/*
 * accounting.c - per-task cumulative values: VarMRI's TCM/CCM and the
 * per-core shadow stack of Fig. 4, fed by a generic event stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/accounting.h"
#include "core/array.h"
#include "core/pmu.h"

#define VS_STACK_DEPTH		16
#define VS_THREAD_BUCKETS	4096
#define VS_ACCT_MAX_COUNTERS	16

/* What pushes frames on the shadow stack. */
enum vs_frame_class {
	VS_FRAME_IRQ,
	VS_FRAME_SOFTIRQ,
	VS_FRAME_VECTOR,
	VS_FRAME_FAULT,
	VS_FRAME__NR
};

static const char *const frame_prefix[VS_FRAME__NR] = {
	[VS_FRAME_IRQ]		= "irq.hard",
	[VS_FRAME_SOFTIRQ]	= "irq.soft",
	[VS_FRAME_VECTOR]	= "irq.vector",
	[VS_FRAME_FAULT]	= "fault.page",
};

static const char *const wait_name[] = {
	[VS_WAIT_RUNNABLE]	= "sched.runnable",
	[VS_WAIT_BLOCKED]	= "sched.blocked",
	[VS_WAIT_IOWAIT]	= "sched.iowait",
};

/* One level of Fig. 4, plus whom it is charged to and under which names. */
struct vs_frame {
	uint64_t start;
	uint64_t preempted;
	uint32_t tid;
	enum vs_frame_class class;
	uint16_t time_id, count_id;	/* breakdown, or VS_EVENT_NO_PARENT */
};

struct vs_shadow_stack {
	struct vs_frame frame[VS_STACK_DEPTH];
	int level;
};

/* A counter snapshot kept, with its group read when it has one. */
struct vs_acct_snap {
	uint32_t nr;
	uint16_t ids[VS_ACCT_MAX_COUNTERS];
	uint64_t values[VS_ACCT_MAX_COUNTERS];
	bool have_read;
	struct vs_counter_read read;
};

/* The paper's TCM. */
struct vs_acct_thread {
	struct vs_acct_thread *next;	/* hash chain */
	uint32_t tid;
	bool in_task;
	bool on_cpu;
	bool running;			/* in the task, on a cpu, no interrupt */
	bool have_wait;
	uint32_t cpu;			/* last cpu seen */
	uint64_t run_since;
	uint64_t wait_since;
	enum vs_wait_state wait_state;
	uint64_t lost_until;
	/* frames of a fault that slept, until the thread runs again */
	struct vs_frame saved[VS_STACK_DEPTH];
	int nr_saved;
	/*
	 * Counters: the snapshot at the task's begin, the one where it last
	 * stopped running, and the deltas of the intervals it did not run
	 * (both ends with a snapshot), by id
	 */
	struct vs_acct_snap base, pause;
	uint32_t nr_excluded;
	uint16_t excluded_ids[VS_ACCT_MAX_COUNTERS];
	uint64_t excluded[VS_ACCT_MAX_COUNTERS];
	/* the open task and its values, indexed by catalog id */
	struct vs_task task;
	uint64_t *val;
	uint8_t *has;
	size_t nr_val;			/* capacity of both, zero-filled */
};

struct vs_acct {
	struct vs_catalog *cat;
	vs_acct_emit_fn emit;
	void *ctx;
	uint32_t epoch;
	struct vs_shadow_stack *cpu;	/* the paper's CCM */
	size_t nr_cpus;			/* capacity of @cpu, zero-filled */
	struct vs_acct_thread *threads[VS_THREAD_BUCKETS];
	struct vs_value *out;		/* values of the task being emitted */
	size_t nr_out;			/* capacity of @out */
	/* the fixed events */
	uint16_t run_time, migrations;
	uint16_t wait_time[3], wait_count[3];
	uint16_t frame_time[VS_FRAME__NR], frame_count[VS_FRAME__NR];
	struct vs_acct_stats stats;
};

static uint16_t intern(struct vs_acct *acct, const char *name,
		       const char *unit, uint16_t parent)
{
	return vs_catalog_intern(acct->cat, name, unit, VS_GROUP_KERNEL,
				 parent);
}

struct vs_acct *vs_acct_new(struct vs_catalog *cat, vs_acct_emit_fn emit,
			    void *ctx)
{
	struct vs_acct *acct = calloc(1, sizeof(*acct));
	char name[64];
	int i;

	if (!acct)
		return NULL;
	acct->cat = cat;
	acct->emit = emit;
	acct->ctx = ctx;
	acct->run_time = intern(acct, "run.time", "ns", VS_EVENT_NO_PARENT);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s.time", wait_name[i]);
		acct->wait_time[i] = intern(acct, name, "ns",
					    VS_EVENT_NO_PARENT);
		snprintf(name, sizeof(name), "%s.count", wait_name[i]);
		acct->wait_count[i] = intern(acct, name, "count",
					     VS_EVENT_NO_PARENT);
	}
	for (i = 0; i < VS_FRAME__NR; i++) {
		snprintf(name, sizeof(name), "%s.time", frame_prefix[i]);
		acct->frame_time[i] = intern(acct, name, "ns",
					     VS_EVENT_NO_PARENT);
		snprintf(name, sizeof(name), "%s.count", frame_prefix[i]);
		acct->frame_count[i] = intern(acct, name, "count",
					      VS_EVENT_NO_PARENT);
	}
	acct->migrations = intern(acct, "cpu.migrations.count", "count",
				  VS_EVENT_NO_PARENT);
	return acct;
}

static void thread_free(struct vs_acct_thread *th)
{
	free(th->val);
	free(th->has);
	free(th);
}

void vs_acct_free(struct vs_acct *acct)
{
	struct vs_acct_thread *th, *next;
	unsigned int i;

	if (!acct)
		return;
	for (i = 0; i < VS_THREAD_BUCKETS; i++)
		for (th = acct->threads[i]; th; th = next) {
			next = th->next;
			thread_free(th);
		}
	free(acct->cpu);
	free(acct->out);
	free(acct);
}

void vs_acct_set_epoch(struct vs_acct *acct, uint32_t epoch)
{
	acct->epoch = epoch;
}

const struct vs_acct_stats *vs_acct_stats(const struct vs_acct *acct)
{
	return &acct->stats;
}

static struct vs_acct_thread **thread_slot(const struct vs_acct *acct,
					   uint32_t tid)
{
	struct vs_acct_thread *const *p = &acct->threads[tid % VS_THREAD_BUCKETS];

	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return (struct vs_acct_thread **)p;
}

bool vs_acct_in_task(const struct vs_acct *acct, uint32_t tid)
{
	struct vs_acct_thread *th = *thread_slot(acct, tid);

	return th && th->in_task;
}

static struct vs_acct_thread *get_thread(struct vs_acct *acct, uint32_t tid)
{
	struct vs_acct_thread **p = thread_slot(acct, tid);

	if (!*p) {
		*p = calloc(1, sizeof(**p));
		if (*p)
			(*p)->tid = tid;
	}
	return *p;
}

/*
 * An interrupt frame is open on @cpu.  A page fault there is no fault of
 * the task: the kernel reading user memory without faulting it in (perf
 * walking the user callchain of a sample, a bad frame pointer at the
 * chain's end) and fixing the access up.
 */
static bool in_interrupt(struct vs_acct *acct, uint32_t cpu)
{
	const struct vs_shadow_stack *st;

	if (cpu >= acct->nr_cpus)
		return false;
	st = &acct->cpu[cpu];
	return st->level > 0 &&
	       st->frame[st->level - 1].class != VS_FRAME_FAULT;
}

static struct vs_shadow_stack *get_stack(struct vs_acct *acct, uint32_t cpu)
{
	size_t old = acct->nr_cpus;

	if (ALLOC_GROW(acct->cpu, (size_t)cpu + 1, acct->nr_cpus))
		return NULL;
	memset(acct->cpu + old, 0, (acct->nr_cpus - old) * sizeof(*acct->cpu));
	return &acct->cpu[cpu];
}

/* Add @v to event @id of the thread's task. */
static void add(struct vs_acct_thread *th, uint16_t id, uint64_t v)
{
	if (id == VS_EVENT_NO_PARENT)
		return;
	if (id >= th->nr_val) {
		/* both grow alike: one capacity, taken when both have it */
		size_t old = th->nr_val, alloc_val = old, alloc_has = old;

		if (ALLOC_GROW(th->val, (size_t)id + 1, alloc_val) ||
		    ALLOC_GROW(th->has, (size_t)id + 1, alloc_has))
			return;
		memset(th->val + old, 0, (alloc_val - old) * sizeof(*th->val));
		memset(th->has + old, 0, alloc_has - old);
		th->nr_val = alloc_val;
	}
	th->val[id] += v;
	th->has[id] = 1;
}

static void snap_keep(struct vs_acct_snap *k, const struct vs_acct_counters *c,
		      const struct vs_counter_read *read)
{
	k->nr = c->nr < VS_ACCT_MAX_COUNTERS ? c->nr : VS_ACCT_MAX_COUNTERS;
	memcpy(k->ids, c->ids, k->nr * sizeof(*k->ids));
	memcpy(k->values, c->values, k->nr * sizeof(*k->values));
	k->have_read = read;
	if (read)
		k->read = *read;
}

/*
 * The deltas from snapshot @from to @now, for the ids both have, into
 * @ids and @d; the fidelity of the interval (vs_counter_period_flags())
 * when both have their group read, ORed into @flags.  Two reads of
 * different groups (the leaders' ids differ) give nothing.
 */
static uint32_t snap_deltas(const struct vs_acct_snap *from,
			    const struct vs_acct_counters *now,
			    const struct vs_counter_read *read, uint16_t *ids,
			    uint64_t *d, uint32_t *flags)
{
	uint32_t i, j, n = 0;

	if (from->have_read && read) {
		if (from->read.nr && read->nr && from->read.id[0] != read->id[0])
			return 0;
		*flags |= vs_counter_period_flags(&from->read, read);
	}
	for (i = 0; i < now->nr; i++)
		for (j = 0; j < from->nr; j++)
			if (from->ids[j] == now->ids[i]) {
				ids[n] = now->ids[i];
				d[n++] = now->values[i] >= from->values[j] ?
					 now->values[i] - from->values[j] : 0;
				break;
			}
	return n;
}

/*
 * A running period ends: at the task's end, a switch out, or the start of
 * an interrupt.  Its snapshot, if the source gave one, opens an interval
 * the task does not run in.
 */
static void stop_running(struct vs_acct *acct, struct vs_acct_thread *th,
			 uint64_t time, const struct vs_acct_counters *snap,
			 const struct vs_counter_read *read)
{
	if (!th->running)
		return;
	th->running = false;
	if (time > th->run_since)
		add(th, acct->run_time, time - th->run_since);
	th->pause.nr = 0;
	if (snap->nr)
		snap_keep(&th->pause, snap, read);
}

/*
 * The task runs again.  With snapshots at both ends of the interval it
 * did not run in, the counters' deltas over it are excluded from the
 * task's; without, they stay in (the interrupt is then included).
 */
static void start_running(struct vs_acct *acct, struct vs_acct_thread *th,
			  uint64_t time, const struct vs_acct_counters *snap,
			  const struct vs_counter_read *read)
{
	struct vs_shadow_stack *s = get_stack(acct, th->cpu);
	uint16_t ids[VS_ACCT_MAX_COUNTERS];
	uint64_t d[VS_ACCT_MAX_COUNTERS];
	uint32_t i, j, n = 0;

	if (!th->in_task || !th->on_cpu || th->running || !s || s->level)
		return;
	th->running = true;
	th->run_since = time;
	if (th->pause.nr && snap->nr)
		n = snap_deltas(&th->pause, snap, read, ids, d,
				&th->task.flags);
	th->pause.nr = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < th->nr_excluded; j++)
			if (th->excluded_ids[j] == ids[i])
				break;
		if (j == th->nr_excluded) {
			if (j == VS_ACCT_MAX_COUNTERS)
				continue;
			th->excluded_ids[j] = ids[i];
			th->excluded[j] = 0;
			th->nr_excluded++;
		}
		th->excluded[j] += d[i];
	}
}

/*
 * The task's counters at its end: the deltas from its begin's snapshot to
 * @snap, or the source's own @deltas over the whole task, less what
 * was counted while it did not run.
 */
static void end_counters(struct vs_acct_thread *th,
			 const struct vs_acct_counters *snap,
			 const struct vs_counter_read *read,
			 const struct vs_acct_counters *deltas)
{
	uint16_t ids[VS_ACCT_MAX_COUNTERS];
	uint64_t d[VS_ACCT_MAX_COUNTERS];
	uint32_t i, n = 0;

	if (th->base.nr && snap->nr)
		n = snap_deltas(&th->base, snap, read, ids, d, &th->task.flags);
	for (i = 0; i < n; i++)
		add(th, ids[i], d[i]);
	for (i = 0; i < deltas->nr; i++)
		add(th, deltas->ids[i], deltas->values[i]);
	for (i = 0; i < th->nr_excluded; i++) {
		uint16_t id = th->excluded_ids[i];

		if (id >= th->nr_val || !th->has[id])
			continue;
		if (th->val[id] < th->excluded[i])
			th->task.flags |= VS_TASK_DISTORTED;
		th->val[id] -= th->val[id] < th->excluded[i] ?
			       th->val[id] : th->excluded[i];
	}
}

static int cmp_value(const void *a, const void *b)
{
	const struct vs_value *x = a, *y = b;

	return (int)x->event - (int)y->event;
}

/*
 * Emit the thread's task: every KERNEL event of the catalog (zero is a
 * measured value for them), and the counters the task measured.
 */
static void emit_task(struct vs_acct *acct, struct vs_acct_thread *th,
		      uint64_t end, uint32_t flags)
{
	unsigned int nr_cat = vs_catalog_size(acct->cat), n = 0, id;

	stop_running(acct, th, end, &(struct vs_acct_counters){ 0 }, NULL);
	th->in_task = false;
	if (ALLOC_GROW(acct->out, nr_cat, acct->nr_out))
		return;
	for (id = 0; id < nr_cat; id++) {
		const struct vs_event_def *def = vs_catalog_get(acct->cat, id);
		bool has = id < th->nr_val && th->has[id];

		if (!has && def->group != VS_GROUP_KERNEL)
			continue;
		acct->out[n].event = id;
		acct->out[n].value = has ? th->val[id] : 0;
		n++;
	}
	qsort(acct->out, n, sizeof(*acct->out), cmp_value);
	th->task.end = end;
	th->task.flags |= flags;
	th->task.nr_values = n;
	th->task.values = acct->out;
	acct->stats.tasks++;
	if (th->task.flags & VS_TASK_LOST_EVENTS)
		acct->stats.lost_tasks++;
	acct->emit(acct->ctx, &th->task);
}

/* Frames left on a cpu by a thread that is not running there: drop them. */
static void drop_stale(struct vs_acct *acct, struct vs_shadow_stack *s,
		       uint32_t tid)
{
	int i;

	for (i = 0; i < s->level; i++)
		if (s->frame[i].tid != tid)
			break;
	if (i < s->level) {
		acct->stats.discarded_frames += s->level - i;
		s->level = i;
	}
}

static void task_begin(struct vs_acct *acct, struct vs_acct_thread *th,
		       const struct vs_acct_event *ev)
{
	struct vs_shadow_stack *s = get_stack(acct, ev->cpu);

	if (th->in_task)
		emit_task(acct, th, ev->time, VS_TASK_NESTED_BEGIN);
	/* The thread is in user mode: nothing can be open on its cpu. */
	if (s && s->level) {
		acct->stats.discarded_frames += s->level;
		s->level = 0;
	}
	th->nr_saved = 0;
	memset(&th->task, 0, sizeof(th->task));
	th->task.id = ev->id;
	th->task.type = ev->type;
	th->task.pid = ev->pid;
	th->task.tid = ev->tid;
	th->task.cpu = ev->cpu;
	th->task.epoch = acct->epoch;
	th->task.start = ev->time;
	th->task.flags = ev->flags;
	if (ev->time <= th->lost_until)
		th->task.flags |= VS_TASK_LOST_EVENTS;
	if (th->nr_val) {
		memset(th->val, 0, th->nr_val * sizeof(*th->val));
		memset(th->has, 0, th->nr_val);
	}
	th->in_task = true;
	th->on_cpu = true;
	th->have_wait = false;
	th->cpu = ev->cpu;
	th->base.nr = th->pause.nr = th->nr_excluded = 0;
	if (ev->snapshot.nr)
		snap_keep(&th->base, &ev->snapshot, ev->snapshot_read);
	start_running(acct, th, ev->time, &ev->snapshot, ev->snapshot_read);
}

static void task_end(struct vs_acct *acct, struct vs_acct_thread *th,
		     const struct vs_acct_event *ev)
{
	if (!th->in_task)
		return;
	stop_running(acct, th, ev->time, &ev->snapshot, ev->snapshot_read);
	end_counters(th, &ev->snapshot, ev->snapshot_read, &ev->deltas);
	emit_task(acct, th, ev->time, ev->flags);
}

static void switch_out(struct vs_acct *acct, struct vs_acct_thread *th,
		       const struct vs_acct_event *ev)
{
	struct vs_shadow_stack *s = get_stack(acct, ev->cpu);

	stop_running(acct, th, ev->time, &ev->snapshot, ev->snapshot_read);
	/* A fault that sleeps: its frames wait with the thread. */
	th->nr_saved = 0;
	if (s && s->level && s->frame[0].tid == th->tid) {
		th->nr_saved = s->level;
		memcpy(th->saved, s->frame, s->level * sizeof(*s->frame));
		s->level = 0;
	}
	th->on_cpu = false;
	th->cpu = ev->cpu;
	th->have_wait = true;
	th->wait_since = ev->time;
	th->wait_state = ev->state;
}

static void switch_in(struct vs_acct *acct, struct vs_acct_thread *th,
		      const struct vs_acct_event *ev)
{
	struct vs_shadow_stack *s = get_stack(acct, ev->cpu);
	uint64_t since;

	if (th->in_task && th->have_wait && ev->time >= th->wait_since) {
		since = th->wait_since > th->task.start ?
			th->wait_since : th->task.start;
		add(th, acct->wait_time[th->wait_state], ev->time - since);
		add(th, acct->wait_count[th->wait_state], 1);
	}
	if (th->in_task && !th->on_cpu && th->cpu != ev->cpu)
		add(th, acct->migrations, 1);
	if (s) {
		drop_stale(acct, s, th->tid);
		if (th->nr_saved && !s->level) {
			memcpy(s->frame, th->saved,
			       th->nr_saved * sizeof(*s->frame));
			s->level = th->nr_saved;
			if (th->have_wait && ev->time >= th->wait_since)
				s->frame[s->level - 1].preempted +=
					ev->time - th->wait_since;
		}
	}
	th->nr_saved = 0;
	th->on_cpu = true;
	th->cpu = ev->cpu;
	th->have_wait = false;
	start_running(acct, th, ev->time, &ev->snapshot, ev->snapshot_read);
}

/* The catalog ids of a breakdown: "irq.hard.<name>.time" and ".count". */
static void breakdown_ids(struct vs_acct *acct, enum vs_frame_class class,
			  const char *name, struct vs_frame *f)
{
	char buf[160];

	f->time_id = f->count_id = VS_EVENT_NO_PARENT;
	if (!name || !*name)
		return;
	snprintf(buf, sizeof(buf), "%s.%s.time", frame_prefix[class], name);
	f->time_id = intern(acct, buf, "ns", acct->frame_time[class]);
	snprintf(buf, sizeof(buf), "%s.%s.count", frame_prefix[class], name);
	f->count_id = intern(acct, buf, "count", acct->frame_count[class]);
}

/* Fig. 4, begin_interrupt_fault(). */
static void frame_entry(struct vs_acct *acct, struct vs_acct_thread *th,
			const struct vs_acct_event *ev,
			enum vs_frame_class class)
{
	struct vs_shadow_stack *s = get_stack(acct, ev->cpu);
	struct vs_frame *f;

	if (!s)
		return;
	drop_stale(acct, s, th->tid);
	if (s->level == VS_STACK_DEPTH) {
		acct->stats.stack_overflows++;
		return;
	}
	if (!s->level)
		stop_running(acct, th, ev->time, &ev->snapshot, ev->snapshot_read);
	f = &s->frame[s->level++];
	f->start = ev->time;
	f->preempted = 0;
	f->tid = th->tid;
	f->class = class;
	breakdown_ids(acct, class, ev->name, f);
}

/* Fig. 4, end_interrupt_fault(). */
static void frame_exit(struct vs_acct *acct, const struct vs_acct_event *ev,
		       enum vs_frame_class class)
{
	struct vs_shadow_stack *s = get_stack(acct, ev->cpu);
	struct vs_acct_thread *th;
	uint64_t total, actual;
	struct vs_frame *f;
	int level;

	if (!s)
		return;
	/* The top matches; deeper matches mean the exits above were lost. */
	for (level = s->level - 1; level >= 0; level--)
		if (s->frame[level].class == class)
			break;
	if (level < 0) {
		acct->stats.unmatched_exits++;
		return;
	}
	acct->stats.discarded_frames += s->level - 1 - level;
	s->level = level;
	f = &s->frame[level];
	total = ev->time > f->start ? ev->time - f->start : 0;
	actual = total > f->preempted ? total - f->preempted : 0;
	if (level > 0)
		s->frame[level - 1].preempted += total;
	th = *thread_slot(acct, f->tid);
	if (!th)
		return;
	if (th->in_task && f->start >= th->task.start) {
		add(th, acct->frame_time[class], actual);
		add(th, acct->frame_count[class], 1);
		add(th, f->time_id, actual);
		add(th, f->count_id, 1);
	}
	if (!s->level && th->on_cpu && th->cpu == ev->cpu)
		start_running(acct, th, ev->time, &ev->snapshot, ev->snapshot_read);
}

static void lost(struct vs_acct *acct, struct vs_acct_thread *th,
		 const struct vs_acct_event *ev)
{
	acct->stats.lost_events += ev->count;
	if (ev->until > th->lost_until)
		th->lost_until = ev->until;
	if (th->in_task)
		th->task.flags |= VS_TASK_LOST_EVENTS;
}

static void thread_gone(struct vs_acct *acct, struct vs_acct_thread *th,
			const struct vs_acct_event *ev, uint32_t flag)
{
	if (th->in_task)
		emit_task(acct, th, ev->time, flag);
	if (ev->kind == VS_ACCT_THREAD_EXIT) {
		struct vs_acct_thread **p = thread_slot(acct, th->tid);

		*p = th->next;
		thread_free(th);
	}
}

int vs_acct_feed(struct vs_acct *acct, const struct vs_acct_event *ev)
{
	struct vs_acct_thread *th = get_thread(acct, ev->tid);

	if (!th || !get_stack(acct, ev->cpu))
		return -1;
	switch (ev->kind) {
	case VS_ACCT_TASK_BEGIN:
		task_begin(acct, th, ev);
		break;
	case VS_ACCT_TASK_END:
		task_end(acct, th, ev);
		break;
	case VS_ACCT_SWITCH_OUT:
		switch_out(acct, th, ev);
		break;
	case VS_ACCT_SWITCH_IN:
		switch_in(acct, th, ev);
		break;
	case VS_ACCT_IRQ_ENTRY:
		frame_entry(acct, th, ev, VS_FRAME_IRQ);
		break;
	case VS_ACCT_IRQ_EXIT:
		frame_exit(acct, ev, VS_FRAME_IRQ);
		break;
	case VS_ACCT_SOFTIRQ_ENTRY:
		frame_entry(acct, th, ev, VS_FRAME_SOFTIRQ);
		break;
	case VS_ACCT_SOFTIRQ_EXIT:
		frame_exit(acct, ev, VS_FRAME_SOFTIRQ);
		break;
	case VS_ACCT_VECTOR_ENTRY:
		frame_entry(acct, th, ev, VS_FRAME_VECTOR);
		break;
	case VS_ACCT_VECTOR_EXIT:
		frame_exit(acct, ev, VS_FRAME_VECTOR);
		break;
	case VS_ACCT_FAULT_ENTRY:
		frame_entry(acct, th, ev, VS_FRAME_FAULT);
		break;
	case VS_ACCT_FAULT_EXIT:
		frame_exit(acct, ev, VS_FRAME_FAULT);
		break;
	case VS_ACCT_FAULT:
		if (th->in_task && !in_interrupt(acct, ev->cpu))
			add(th, acct->frame_count[VS_FRAME_FAULT], 1);
		break;
	case VS_ACCT_LOST:
		lost(acct, th, ev);
		break;
	case VS_ACCT_THREAD_EXIT:
		thread_gone(acct, th, ev, VS_TASK_THREAD_EXIT);
		break;
	case VS_ACCT_TRUNCATE:
		thread_gone(acct, th, ev, VS_TASK_TRUNCATED);
		break;
	case VS_ACCT__NR:
		return -1;
	}
	return 0;
}
