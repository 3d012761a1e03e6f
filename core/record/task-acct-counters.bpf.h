/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task-acct-counters.bpf.h - the hardware counters of the engine's tasks,
 * part of task-acct.bpf.c (included there, after the slots' helpers): its
 * one BPF object, split for length.
 */
#ifndef VS_CORE_RECORD_TASK_ACCT_COUNTERS_BPF_H
#define VS_CORE_RECORD_TASK_ACCT_COUNTERS_BPF_H

/*
 * --- counters: VarMRI's exclusion of interrupts ------------------------
 *
 * A task's counter values are the sums, over its running intervals, of
 * the per-CPU counters' deltas: an interval opens where the thread starts
 * to run inside its task (switch-in, the exit of the interrupt that
 * preempted it, a mark) and closes where it stops (switch-out, an
 * interrupt's entry, a mark).  The begin and end of a task are the
 * library's stores, which no program sees: the library marks them with
 * one system call each (vs_counters_mark, run by BPF_PROG_TEST_RUN), only
 * when counters are recorded; the uprobe programs of function tasks mark
 * them themselves.
 */

/* This CPU's counters now, into @r (@r->ok false when a read failed). */
static __always_inline void counters_read(struct vs_counter_reading *r,
					  __u32 cpu)
{
	struct bpf_perf_event_value v;
	__u32 n = nr_counters, ncpu = nr_cpus, k;

	r->ok = 1;
	r->gen = READ_ONCE(counter_gen);
	r->clock[0] = bpf_ktime_get_ns();
	for (k = 0; k < VS_SLOT_COUNTERS && k < n; k++) {
		if (bpf_perf_event_read_value(&counters, k * ncpu + cpu, &v,
					      sizeof(v))) {
			r->ok = 0;
			break;
		}
		r->value[k] = v.counter;
		r->enabled[k] = v.enabled;
		r->running[k] = v.running;
	}
	r->clock[1] = bpf_ktime_get_ns();
	if ((r->gen & 1) || READ_ONCE(counter_gen) != r->gen)
		r->ok = 0;
}

/*
 * The interval open on this CPU ends at reading @r, if it is task @task's
 * of slot @idx: its deltas into the slot's values (open for writing).
 */
static __always_inline void counters_close(struct vs_cpu_state *pc,
					   struct vs_slot *slot, __u32 idx,
					   __u32 task,
					   const struct vs_counter_reading *r)
{
	const struct vs_counter_reading *o = &pc->open;
	struct vs_slot_values *v = &slot->v;
	__u32 n = nr_counters, k;

	if (pc->open_slot != idx || pc->open_task != task) {
		/*
		 * after the begin's mark, the thread ran since a transition
		 * no program saw (a switch-in the kernel left untraced)
		 */
		if (v->counter_marks)
			v->counter_flags |= VS_COUNTERS_FAILED;
		return;
	}
	pc->open_slot = 0;
	pc->interval_seq++;
	if (!r->ok || !o->ok) {
		v->counter_flags |= VS_COUNTERS_FAILED;
		return;
	}
	if (o->gen != r->gen || (v->counter_gen && v->counter_gen != r->gen)) {
		v->counter_flags |= VS_COUNTERS_SWAPPED;
		return;
	}
	v->counter_gen = r->gen;
	for (k = 0; k < VS_SLOT_COUNTERS && k < n; k++) {
		if (r->value[k] < o->value[k]) {
			v->counter_flags |= VS_COUNTERS_FAILED;
			continue;
		}
		v->counter[k] += r->value[k] - o->value[k];
		if (r->running[k] - o->running[k] < r->enabled[k] - o->enabled[k])
			v->counter_flags |= VS_COUNTERS_MULTIPLEXED;
	}
	v->counter_span[0] += r->clock[0] - o->clock[0];
	v->counter_span[1] += r->clock[1] - o->clock[1];
}

/* An interval of task @task of slot @idx opens on this CPU at @r. */
static __always_inline void counters_open(struct vs_cpu_state *pc, __u32 idx,
					  __u32 task,
					  const struct vs_counter_reading *r)
{
	pc->open = *r;
	pc->open_slot = idx;
	pc->open_task = task;
	pc->interval_seq++;
}

/*
 * A task's begin or end (the slot active, its values open for writing):
 * the interval open on this CPU ends, a new one begins (an end's is
 * never closed: the thread's next event is outside the task).  Run in
 * the thread, interrupts on: an interrupt that closes and opens the
 * interval while the counters are read makes the reading older than
 * its open, so it is read again; one that comes after that makes the
 * close find the counters gone back (the task's counters are left out).
 *
 * Returns the reading's clock, 0 when nothing was read.
 */
static __always_inline __u64 counters_mark(struct vs_slot *slot, __u32 idx,
					   __u32 task)
{
	struct vs_counter_reading r;
	struct vs_cpu_state *pc;
	__u32 zero = 0, seq;
	int i;

	if (!nr_counters)
		return 0;
	pc = bpf_map_lookup_elem(&cpu_state, &zero);
	if (!pc)
		return 0;
	for (i = 0; i < 2; i++) {
		seq = READ_ONCE(pc->interval_seq);
		counters_read(&r, bpf_get_smp_processor_id());
		if (READ_ONCE(pc->interval_seq) == seq)
			break;
	}
	counters_close(pc, slot, idx, task, &r);
	counters_open(pc, idx, task, &r);
	slot->v.counter_marks++;
	return r.clock[0];
}
#endif /* VS_CORE_RECORD_TASK_ACCT_COUNTERS_BPF_H */
