/* SPDX-License-Identifier: MIT */
/*
 * task-slot.h - what the in-kernel recording engine (task-acct.bpf.c), its
 * loader (bpf-engine.c) and libvarscope share: one slot per registered
 * thread in a BPF_F_MMAPABLE array map that the program maps.
 *
 * The library opens a task with one plain store of the task's sequence
 * number into @active and closes it with a store of 0; the programs
 * account the thread's kernel events only while @active is set, into
 * the slot's values, which they reset at the first event of a new task
 * (@values_of: the task the values belong to).  The library reads the
 * values at the task's end under the sequence count @seq (odd while a
 * program writes).  No system call at begin or end, but when the engine
 * records counters: then begin and end run the engine's mark program
 * once each (the counts in flight there; see task-acct.bpf.c).
 *
 * Not every switch reaches the programs (a kernel may leave one
 * untraced: here, a switch away from the machine's own agent thread fires
 * no tracepoint), so a wait whose switch-in went unseen is closed at the
 * switch-in the scheduler keeps whatever is traced: by the programs from
 * its sched_info clock, by the library from the thread's CPU time
 * (struct vs_slot_open_wait).
 *
 * Everything in a slot is written by the program too (it maps the whole
 * array): the programs and the recorder read it as untrusted data, every
 * index checked against the bounds below.
 *
 * Included by BPF code (types from vmlinux.h) and by C code (after
 * <linux/types.h> and <stdbool.h>).
 */
#ifndef VS_CORE_RECORD_TASK_SLOT_H
#define VS_CORE_RECORD_TASK_SLOT_H

/* Slots, the cap on threads registered at once (slot 0 is the header). */
#define VS_SLOTS		4096
#define VS_SLOT_HEADER		0

#define VS_SLOT_SOFTIRQS	10	/* HI ... RCU */
#define VS_SLOT_VECTORS		5	/* see vs_slot_vector */
#define VS_SLOT_IRQS		4	/* hard interrupts by number */
#define VS_SLOT_SYSCALLS	6	/* waits by system call */
#define VS_SLOT_RAN		6	/* threads that ran instead */
#define VS_SLOT_NO_SYSCALL	0xffffffffu	/* a wait outside a syscall */
#define VS_SLOT_COUNTERS	8	/* per-CPU counters (VS_MAX_HW_COUNTERS) */

/*
 * The library's mark of a task's begin or end with counters (the mark
 * program, BPF_PROG_TEST_RUN): its context, two __u64, is what it marks
 * and, for a begin, the task's seq.  The program opens the slot (stores
 * @active) right before its reading of the counters, or closes it right
 * after, and returns the low 32 bits of the reading's clock (0: no mark
 * made): the task's start and end, so that its latency and its counters
 * cover the same time.
 */
#define VS_MARK_END		0
#define VS_MARK_BEGIN		1

/*
 * A task's counter values (struct vs_slot_values.counter_flags): a read
 * the PMU ran less than enabled (multiplexed), a read that failed, or a
 * set of counters that the recorder swapped while the task ran.
 */
#define VS_COUNTERS_MULTIPLEXED	(1u << 0)
#define VS_COUNTERS_FAILED	(1u << 1)
#define VS_COUNTERS_SWAPPED	(1u << 2)

enum vs_slot_wait {
	VS_SLOT_RUNNABLE,	/* preempted, still runnable */
	VS_SLOT_BLOCKED,	/* sleeping */
	VS_SLOT_IOWAIT,		/* uninterruptible */
	VS_SLOT_WAITS
};

/* The irq_vectors tracepoints the engine attaches, in this order. */
enum vs_slot_vector {
	VS_VEC_LOCAL_TIMER,
	VS_VEC_RESCHEDULE,
	VS_VEC_CALL_FUNCTION,
	VS_VEC_CALL_FUNCTION_SINGLE,
	VS_VEC_IRQ_WORK,
};

struct vs_slot_irq {
	__u32 irq;		/* count 0: entry free */
	__u32 pad;
	__u64 time_ns, count;
};

struct vs_slot_syscall {
	__u32 nr;		/* system call, or VS_SLOT_NO_SYSCALL */
	__u32 wait;		/* VS_SLOT_BLOCKED or VS_SLOT_IOWAIT */
	__u64 time_ns, count;	/* count 0: entry free */
};

struct vs_slot_ran {
	__u32 pid, tid;		/* time_ns 0: entry free */
	char comm[16];
	__u64 time_ns;
};

/* What one task accumulated: the values the library copies out. */
struct vs_slot_values {
	__u64 wait_ns[VS_SLOT_WAITS], wait_count[VS_SLOT_WAITS];
	__u64 irq_ns, irq_count;
	__u64 softirq_ns[VS_SLOT_SOFTIRQS], softirq_count[VS_SLOT_SOFTIRQS];
	__u64 vector_ns[VS_SLOT_VECTORS], vector_count[VS_SLOT_VECTORS];
	__u64 faults;
	/* the time in the fault handler, less its waits and interrupts
	 * (fentry/fexit, where the kernel allows function tracing) */
	__u64 fault_ns;
	__u64 migrations;
	__u64 switches;
	/* waits in system calls beyond VS_SLOT_SYSCALLS kinds: totals only */
	__u64 syscall_other_ns, syscall_other_count;
	/* run-queue wait when other threads (beyond VS_SLOT_RAN) ran */
	__u64 ran_other_ns;
	/* waits whose switch-in no program saw, closed from the CPU time */
	__u64 unseen_switch_ins;
	/*
	 * The per-CPU counters of set @counter_gen (the recorder's; 0: no
	 * interval yet), summed over the task's running intervals: each from
	 * a switch-in, an interrupt's exit or a mark to a switch-out, an
	 * interrupt's entry or a mark, so that interrupts are left out.
	 * @counter_span: the intervals' lengths by the clock read just before
	 * the counters ([0]) and just after them ([1]), for the DTE filter.
	 * @counter_marks: the marks the task made (its begin and its end).
	 */
	__u64 counter[VS_SLOT_COUNTERS];
	__u64 counter_span[2];
	__u32 counter_gen;
	__u32 counter_flags;	/* VS_COUNTERS_* */
	__u32 counter_marks;
	__u32 counter_pad;
	struct vs_slot_irq irq[VS_SLOT_IRQS];
	struct vs_slot_syscall syscall[VS_SLOT_SYSCALLS];
	struct vs_slot_ran ran[VS_SLOT_RAN];
};

/*
 * A wait of a thread inside a task, from its switch-out to its switch-in:
 * the programs keep it, and publish it in the slot while it is open.
 * When the switch-in goes unseen, the programs close the wait at the
 * thread's sched_info.last_arrival (the scheduler's clock) at its next
 * switch-out or a --task-func call's return; the library, at the task's
 * end, where the thread's CPU time began to grow again
 * (vs_slot_wait_end(), which the programs fall back on).
 */
struct vs_slot_open_wait {
	__u64 since;		/* the switch-out, CLOCK_MONOTONIC ns */
	__u64 exec_ns;		/* the thread's CPU time at the switch-out */
	__u32 task;		/* the slot's @active then; 0: no wait open */
	__u32 state;		/* enum vs_slot_wait */
	__u32 syscall;		/* VS_SLOT_NO_SYSCALL: none (always, runnable) */
	__u32 pad;
};

struct vs_slot {
	/* written by the library (or its mark, VS_MARK_BEGIN) */
	__u32 active;		/* seq of the open task, 0: none */
	__u32 lib_pad;
	/* written by the programs */
	__u32 seq;		/* odd while a program writes the values */
	__u32 values_of;	/* the @active the values are of */
	struct vs_slot_open_wait wait;	/* the open wait, of task @values_of */
	struct vs_slot_values v;
} __attribute__((aligned(64)));

/*
 * Slot 0, the header: @tasks_open is the number of tasks open in all
 * threads (the library adds 1 at a begin, takes 1 at the end), read first
 * by the programs on the hot tracepoints: 0 and they return at once.
 */
struct vs_slot_header {
	__u64 tasks_open;
};

/*
 * What the programs pass the recorder through the BPF ring buffer, only
 * for threads inside tasks: the wake-up edges and the switches that begin
 * and end blocked waits (the blame along wake-up edges,
 * core/analysis/wakeup.h).
 */
enum vs_engine_event_kind {
	VS_ENGINE_WAKE,		/* @tid woken by @other_tid of @other_pid */
	VS_ENGINE_BLOCK,	/* @tid switched out, blocked */
	VS_ENGINE_UNBLOCK,	/* @tid switched in after a blocked wait */
};

struct vs_engine_event {
	__u64 time_ns;
	__u32 kind;
	__u32 tid;
	__u32 cpu;
	__u32 task;		/* @tid's slot->active */
	__u32 other_pid, other_tid;
};

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

/**
 * vs_slot_add_wait - account the wait @w, @ns long, into @v: its state's
 * time and count, a switch, and a blocked or iowait one under its system
 * call (the first VS_SLOT_SYSCALLS kinds, the others in the totals)
 *
 * Shared by the programs and the library; @w may come from the slot (the
 * library): its state is checked, its system call is only a number.
 */
static __always_inline void vs_slot_add_wait(struct vs_slot_values *v,
					     const struct vs_slot_open_wait *w,
					     __u64 ns)
{
	__u32 state = w->state, nr = w->syscall;
	struct vs_slot_syscall *e;
	int i;

	if (state >= VS_SLOT_WAITS)
		return;
	v->wait_ns[state] += ns;
	v->wait_count[state]++;
	v->switches++;
	if (state == VS_SLOT_RUNNABLE)
		return;
	for (i = 0; i < VS_SLOT_SYSCALLS; i++) {
		e = &v->syscall[i];
		if (e->count && (e->nr != nr || e->wait != state))
			continue;
		e->nr = nr;
		e->wait = state;
		e->time_ns += ns;
		e->count++;
		return;
	}
	v->syscall_other_ns += ns;
	v->syscall_other_count++;
}

/**
 * vs_slot_wait_end - when the open wait @w ended whose switch-in went
 * unseen, from the thread's CPU time @exec_ns read at @now (both later
 * than the switch-in): @now less what the thread ran since the switch-out
 *
 * Returns 0 when the readings do not fit a wait that ended (a CPU time
 * that went back, or more of it than the time since the switch-out).
 */
static __always_inline __u64 vs_slot_wait_end(const struct vs_slot_open_wait *w,
					      __u64 now, __u64 exec_ns)
{
	__u64 ran = exec_ns - w->exec_ns;

	if (exec_ns < w->exec_ns || now <= w->since || ran >= now - w->since)
		return 0;
	return now - ran;
}

/**
 * vs_slot_add_unseen_wait - account the open wait @w whose switch-in went
 * unseen, ended at @end (later than @w->since), into @v: vs_slot_add_wait()
 * and one more of @v->unseen_switch_ins
 */
static __always_inline void
vs_slot_add_unseen_wait(struct vs_slot_values *v,
			const struct vs_slot_open_wait *w, __u64 end)
{
	vs_slot_add_wait(v, w, end - w->since);
	v->unseen_switch_ins++;
}

#ifndef __bpf__
/**
 * vs_slot_read - copy the values of task @task out of @slot, under its
 * sequence count, and its open wait into @wait (@wait->task 0: none);
 * zeros when no event of that task reached the slot
 *
 * Returns false when the values did not hold still over a few tries (a
 * slot that a program keeps writing: @out is then zeros).
 */
static inline bool vs_slot_read(const struct vs_slot *slot, __u32 task,
				struct vs_slot_values *out,
				struct vs_slot_open_wait *wait)
{
	__u32 seq;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		if (__atomic_load_n(&slot->values_of, __ATOMIC_RELAXED) == task) {
			__builtin_memcpy(out, (const void *)&slot->v, sizeof(*out));
			__builtin_memcpy(wait, (const void *)&slot->wait,
					 sizeof(*wait));
		} else {
			__builtin_memset(out, 0, sizeof(*out));
			__builtin_memset(wait, 0, sizeof(*wait));
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) == seq)
			return true;
	}
	__builtin_memset(out, 0, sizeof(*out));
	__builtin_memset(wait, 0, sizeof(*wait));
	return false;
}
#endif

/*
 * --task-func and --probe: what the uprobe programs pass the recorder
 * through the BPF ring buffer "calls".  A task (the outermost call of a
 * --task-func function, selected) with the values the accounting gave it,
 * or the enter or exit of a --probe function by a thread inside a task
 * (without @v).
 */
enum vs_call_kind {
	VS_CALL_TASK,
	VS_CALL_ENTER,
	VS_CALL_EXIT,
};

/* How a task call ended, besides its return. */
#define VS_CALL_NO_RETURN	(1u << 0)	/* left without returning */
#define VS_CALL_THREAD_EXIT	(1u << 1)	/* the thread exited in it */
#define VS_CALL_TRUNCATED	(1u << 2)	/* the recording stopped */
#define VS_CALL_UNSTEADY	(1u << 3)	/* values kept changing */

/* The functions a recording probes: --task-func ones, then --probe ones. */
#define VS_CALL_FUNCS		80

struct vs_call_record {
	__u32 kind;		/* enum vs_call_kind */
	__u32 func;		/* index among the probed functions */
	__u32 pid, tid, cpu;
	__u32 seq;		/* the thread's task number (tasks) */
	__u32 flags;		/* VS_CALL_* (tasks) */
	__u32 pad;
	__u64 start_ns;		/* the task's start, or the enter or exit */
	__u64 end_ns;		/* the task's end */
	struct vs_slot_values v;	/* tasks only */
};

/* The size of a record of an enter or exit. */
#define VS_CALL_FUNC_SIZE	__builtin_offsetof(struct vs_call_record, v)

/* Per CPU, counted by the programs, read by the recorder for its summary. */
struct vs_engine_stats {
	__u64 event_drops;	/* events the ring buffer had no room for */
	__u64 stack_overflows;	/* interrupts nested deeper than the stack */
	__u64 unmatched_exits;	/* an exit that was not the top level's */
	__u64 samples_passed;	/* samples the filter kept on this CPU */
};

#endif /* VS_CORE_RECORD_TASK_SLOT_H */
