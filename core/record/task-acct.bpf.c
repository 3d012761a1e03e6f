// SPDX-License-Identifier: GPL-2.0
/*
 * task-acct.bpf.c - the in-kernel half of the recording engine: the
 * per-task accounting of VarMRI section 4 (its TCM and CCM) as BPF
 * programs on the scheduler, interrupt and fault tracepoints.
 *
 * A registered thread has, in the hash map "thread_state" (by kernel thread
 * id), the index of its slot in the mmap'ed array "slots" (task-slot.h).  While the slot is active (the
 * library stored the open task's sequence number in it), the programs
 * account into the slot's values:
 *
 *   sched_switch   the wait that starts (runnable, blocked, iowait, and the
 *                  system call the thread blocked in), the wait that ends,
 *                  migrations, and who ran on the CPU while it waited in
 *                  the run queue (a per-CPU log of the last runs)
 *   sched_waking   when a blocked wait becomes a run-queue wait, and a
 *                  wake-up edge into the ring buffer "events" (with the
 *                  switches that begin and end blocked waits)
 *   irq, softirq,  a per-CPU shadow stack (VarMRI Fig. 4): each level's
 *   irq_vectors    length less the levels nested in it
 *   page_fault_user, page_fault_kernel  a count
 *   handle_mm_fault  fentry/fexit, where the kernel allows function
 *                  tracing (loaded only then): the fault's time less the
 *                  waits and interrupts inside it
 *   counters       per-CPU counters read at each switch and top-level
 *                  interrupt of the thread (see "counters" below)
 *
 * Run time is what is left: the recorder takes the task's wall time less
 * the waits, interrupts and fault times here, each of which starts and
 * ends while the thread is off its user code, so inside the task.
 *
 * Every program reads the header's tasks_open first and returns at once
 * when no task is open anywhere.  The slots are the traced program's
 * memory too: nothing read from them is a loop bound or an unchecked
 * index; a program that scribbles over them spoils its own values only.
 * Task storage would free a thread's state with it, but its lookups from
 * tracing programs may fail under contention on some kernels: a hash map
 * by thread id, checked against the task's start time, does not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "core/record/task-slot.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The level of the recorder's pid namespace (0: the initial one), set by
 * the registration program, which runs in the recorder: the thread ids
 * the programs give are the recorder's, as it names threads.
 */
__u32 ns_level;

#define READ_ONCE(x)		(*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#ifndef barrier
#define barrier()		asm volatile("" ::: "memory")
#endif
#define TASK_RUNNING		0x0000
#define TASK_UNINTERRUPTIBLE	0x0002
#define VS_STACK_DEPTH		8	/* power of two */
#define VS_RUN_LOG		64	/* power of two */

enum vs_frame_class { VS_FRAME_IRQ, VS_FRAME_SOFTIRQ, VS_FRAME_VECTOR };

/* A registered thread's state: the kernel's own, out of the program's reach. */
struct vs_thread_state {
	__u64 start_time;	/* the task_struct's: a reused tid is not it */
	__u32 slot;
	__u32 last_cpu;		/* + 1; 0: none yet */
	struct vs_slot_open_wait wait;	/* .since 0: not waiting in a task */
	__u64 queued_since;	/* the run-queue part of the wait */
	__u64 fault_ip;		/* of the last user page fault */
	/* in the fault handler (fentry/fexit): since when (0: not), in
	 * which task, the task's waits and interrupts then */
	__u64 fault_since, fault_excluded;
	__u32 fault_task, fault_pad;
};

struct vs_frame {
	__u64 start, nested;
	__u32 slot, task;	/* whom the level is charged to */
	__u32 class, index;
};

struct vs_run {
	__u32 pid, tid;
	char comm[16];
	__u64 start, end;
};

/* One reading of this CPU's counters, bracketed by clock reads. */
struct vs_counter_reading {
	__u64 clock[2];		/* before and after the counters */
	__u64 value[VS_SLOT_COUNTERS];
	__u64 enabled[VS_SLOT_COUNTERS], running[VS_SLOT_COUNTERS];
	__u32 gen;		/* counter_gen before the reads */
	__u32 ok;		/* every read worked, the set did not change */
};

/* Per CPU: the shadow stack, the log of who ran last, the open interval. */
struct vs_cpu_state {
	struct vs_frame frame[VS_STACK_DEPTH];
	__u32 depth;
	__u32 run_head;
	__u64 last_switch;
	struct vs_run run[VS_RUN_LOG];
	/* the running interval of a task open on this CPU: slot 0, none */
	__u32 open_slot, open_task;
	__u32 interval_seq;		/* + 1 at each open and close */
	/* the thread the last switch seen let in, the scheduler's clock then */
	__u32 last_in;
	__u64 last_in_clock;
	__u64 clock_offset;	/* CLOCK_MONOTONIC less the scheduler's */
	/*
	 * the interrupt levels open: whether their wake-ups are their own
	 * (a bit each, the top one lowest), how many are, since when
	 */
	__u32 own_wakes_stack, own_wakes;
	__u64 own_wakes_since;
	struct vs_counter_reading open;
	/* the reading of a program that interrupts cannot nest in */
	struct vs_counter_reading now;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, VS_SLOTS);
	__type(key, __u32);
	__type(value, struct vs_slot);
} slots SEC(".maps");

/*
 * The registered threads by kernel thread id (a hash map: its lookup takes
 * no lock, where task storage's may fail under contention on recent
 * kernels); the recorder deletes a thread's entry when it exits, and the
 * start time tells a thread that reused an id from the one registered.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VS_SLOTS);
	__type(key, __u32);
	__type(value, struct vs_thread_state);
} thread_state SEC(".maps");

/*
 * The entry of @t in @map, a hash map by kernel thread id whose values
 * begin with their thread's start time: NULL when it has none, or when
 * the entry is a gone thread's whose id @t reuses.
 */
static __always_inline void *thread_entry(void *map, struct task_struct *t)
{
	__u32 tid = t->pid;
	__u64 *start_time;

	start_time = bpf_map_lookup_elem(map, &tid);
	if (!start_time || *start_time != t->start_time)
		return NULL;
	return start_time;
}

_Static_assert(__builtin_offsetof(struct vs_thread_state, start_time) == 0,
	       "thread_entry() reads the start time first");

/* The state of @t if it registered, else NULL. */
static __always_inline struct vs_thread_state *thread_of(struct task_struct *t)
{
	return thread_entry(&thread_state, t);
}

/* tid -> slot: registrations the iterator program makes */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vs_cpu_state);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/*
 * The per-CPU counters (hardware ones, or software ones in tests): the
 * event of counter k on CPU c at k * nr_cpus + c, put there by the
 * recorder (bpf-engine.c), which sizes the map.  It swaps a new set in at
 * each epoch, with counter_gen odd while it does and 2 more after.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, VS_SLOT_COUNTERS);
} counters SEC(".maps");

/*
 * Tests only (VARSCOPE_TEST_UNSEEN_SWITCH_IN=N, bpf-engine.c): every Nth
 * switch-in of a thread inside a task reaches no program, as a switch
 * that the kernel leaves untraced (see task-slot.h).
 */
__u32 test_unseen_switch_in;
__u32 test_switch_ins;
/*
 * Tests only (VARSCOPE_TEST_UNSEEN_SWITCH_FROM=COMM): a switch away from a
 * thread named COMM reaches no program, as this machine's kernel leaves
 * a switch away from its agent thread.
 */
char test_unseen_from[16];

__u32 nr_counters;		/* 0: no counters recorded */
__u32 nr_cpus;
__u32 counter_gen;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vs_engine_stats);
} engine_stats SEC(".maps");

/* @t's thread id in the recorder's pid namespace, 0 if it has none there. */
static __always_inline __u32 ns_tid(struct task_struct *t)
{
	struct upid upid;
	struct pid *pid;

	if (!ns_level)
		return BPF_CORE_READ(t, pid);
	pid = BPF_CORE_READ(t, thread_pid);
	if (!pid || BPF_CORE_READ(pid, level) < ns_level ||
	    bpf_probe_read_kernel(&upid, sizeof(upid), &pid->numbers[ns_level]))
		return 0;
	return upid.nr;
}

static __always_inline bool any_task_open(void)
{
	__u32 zero = VS_SLOT_HEADER;
	struct vs_slot_header *h = bpf_map_lookup_elem(&slots, &zero);

	return h && READ_ONCE(h->tasks_open);
}

static __always_inline struct vs_engine_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&engine_stats, &zero);
}

/* An event of thread @tid in task @task for the recorder, or a drop. */
static __always_inline void emit(__u32 kind, __u32 tid, __u32 task, __u64 now,
				 __u32 other_pid, __u32 other_tid)
{
	struct vs_engine_stats *st;
	struct vs_engine_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		st = stats();
		if (st)
			st->event_drops++;
		return;
	}
	e->time_ns = now;
	e->kind = kind;
	e->tid = tid;
	e->cpu = bpf_get_smp_processor_id();
	e->task = task;
	e->other_pid = other_pid;
	e->other_tid = other_tid;
	bpf_ringbuf_submit(e, 0);
}

/* The slot of @ts (NULL: none), inside a task or not. */
static __always_inline struct vs_slot *thread_slot(struct vs_thread_state *ts)
{
	__u32 idx;

	if (!ts)
		return NULL;
	idx = ts->slot;
	if (idx == VS_SLOT_HEADER)
		return NULL;
	return bpf_map_lookup_elem(&slots, &idx);
}

/* The slot of @ts when it is inside a task, else NULL. */
static __always_inline struct vs_slot *active_slot(struct vs_thread_state *ts)
{
	struct vs_slot *slot = thread_slot(ts);

	if (!slot || !READ_ONCE(slot->active))
		return NULL;
	return slot;
}

/*
 * Open the values for writing (seq odd), reset at the first event of a
 * new task; close them with values_done().
 */
static __always_inline void values_open(struct vs_slot *slot, __u32 task)
{
	WRITE_ONCE(slot->seq, slot->seq + 1);
	barrier();
	if (slot->values_of != task) {
		__builtin_memset(&slot->v, 0, sizeof(slot->v));
		slot->values_of = task;
	}
}

static __always_inline void values_done(struct vs_slot *slot)
{
	barrier();
	WRITE_ONCE(slot->seq, (slot->seq + 1) & ~1u);
}

#include "core/record/task-acct-counters.bpf.h"

/*
 * @ns more for thread @r in the task's table: its entry, a free one, or
 * the entry with the least time if @r has more (that one's time then
 * goes to ran_other_ns, as does @r's if it has less).
 */
static __always_inline void add_ran(struct vs_slot *slot, struct vs_run *r,
				    __u64 ns)
{
	struct vs_slot_ran *e, *least = NULL;
	int i;

	for (i = 0; i < VS_SLOT_RAN; i++) {
		e = &slot->v.ran[i];
		if (e->time_ns && e->tid == r->tid) {
			e->time_ns += ns;
			return;
		}
		if (!least || e->time_ns < least->time_ns)
			least = e;
	}
	if (!least || (least->time_ns && least->time_ns >= ns)) {
		slot->v.ran_other_ns += ns;
		return;
	}
	slot->v.ran_other_ns += least->time_ns;
	least->tid = r->tid;
	least->pid = r->pid;
	__builtin_memcpy(least->comm, r->comm, sizeof(least->comm));
	least->time_ns = ns;
}

/*
 * When @t last switched in, by the scheduler's own clock (sched_info,
 * CONFIG_SCHED_INFO: the run queue's, not CLOCK_MONOTONIC), which a
 * switch no program saw does not spoil; 0 when the kernel keeps none.
 */
static __always_inline __u64 arrival_of(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info))
		return 0;
	return BPF_CORE_READ(t, sched_info.last_arrival);
}

/* A run log entry: @who (NULL: not known) ran during [@start, @end]. */
static __always_inline void log_run(struct vs_cpu_state *pc,
				    struct task_struct *who, __u64 start,
				    __u64 end)
{
	struct vs_run *r = &pc->run[pc->run_head & (VS_RUN_LOG - 1)];

	if (who) {
		r->pid = ns_tid(who->group_leader);
		r->tid = ns_tid(who);
		bpf_probe_read_kernel(r->comm, sizeof(r->comm), who->comm);
	} else {
		r->pid = 0;
		r->tid = 0;
		r->comm[0] = '\0';
	}
	r->start = start;
	r->end = end;
	pc->run_head++;
}

/*
 * The scheduler's clock at a switch's tracepoint, read through @prev (on
 * this CPU's run queue, as every thread that runs here, the idle task
 * too): the run queue's, which __schedule() updated before the
 * tracepoint and which the incoming thread's sched_info.last_arrival is
 * about to hold; 0 where the kernel has no group scheduling (no link from
 * a thread's cfs_rq to its run queue).  (The run queues themselves, a
 * per-CPU ksym, need kallsyms of data, which not every kernel has.)
 */
static __always_inline __u64 rq_clock_now(struct task_struct *prev)
{
	if (!bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	return BPF_CORE_READ(prev, se.cfs_rq, rq, clock);
}

/*
 * The scheduler's time @arrival by our clock on this CPU (@pc's offset),
 * 0 when either is not known (the idle task keeps no arrival).
 */
static __always_inline __u64 ours(const struct vs_cpu_state *pc,
				  __u64 arrival)
{
	return arrival && pc->clock_offset ? arrival + pc->clock_offset : 0;
}

/*
 * The run log's entries for @prev switching out to @next at @now.  @prev
 * switched in at the last switch seen when it is the thread that switch
 * let in, at that switch's clock: it ran since then.  Otherwise a switch
 * went untraced (task-slot.h), or none was seen while no task was open:
 * @prev ran since its own switch-in, by the scheduler's clock told from
 * ours, and who ran before it is not known (tid 0, as the idle task and
 * the threads the task's table has no room for).  Without the run
 * queue's clock, the clocks are told apart where the thread the last
 * switch let in switches out.
 */
static __always_inline void log_switch_out(struct vs_cpu_state *pc,
					   struct task_struct *prev,
					   struct task_struct *next, __u64 now)
{
	__u64 since = pc->last_switch, arrival = arrival_of(prev), start;
	__u64 clock = rq_clock_now(prev);
	bool seen_in = prev->pid == pc->last_in &&
		       (!clock || arrival == pc->last_in_clock);

	if (clock)
		pc->clock_offset = now - clock;
	else if (seen_in && prev->pid && arrival)	/* idle keeps none */
		pc->clock_offset = since - arrival;
	if (seen_in) {
		start = since;
	} else {
		start = prev->pid ? ours(pc, arrival) : 0;
		if (!start || start > now)
			start = now;	/* nothing known of @prev */
	}
	if (start > since) {
		if (since)
			log_run(pc, NULL, since, start);
		since = start;
	}
	if (now > since)
		log_run(pc, prev, since, now);
	pc->last_switch = now;
	pc->last_in = next->pid;
	pc->last_in_clock = clock;
}

/* Whether task name @comm is @want, both of 16 bytes at most. */
static __always_inline bool comm_is(const char *comm, const char *want)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (comm[i] != want[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * The threads that ran on this CPU during [@from, @now], from the run
 * log; what the log no longer covers goes to ran_other_ns.
 */
static __always_inline void account_ran(struct vs_slot *slot,
					struct vs_cpu_state *pc, __u64 from,
					__u64 now)
{
	__u64 covered = now, start, end;
	struct vs_run *r;
	int i;

	for (i = 0; i < VS_RUN_LOG; i++) {
		r = &pc->run[(pc->run_head - 1 - i) & (VS_RUN_LOG - 1)];
		end = r->end;
		if (!end || end <= from)
			break;
		start = r->start > from ? r->start : from;
		if (end > start)
			add_ran(slot, r, end - start);
		covered = start;
	}
	if (covered > from)
		slot->v.ran_other_ns += covered - from;
}

static __always_inline __u32 wait_syscall(struct task_struct *p,
					  struct vs_thread_state *ts)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(p);
	__u64 ip, nr;

	if (!regs)
		return VS_SLOT_NO_SYSCALL;
	ip = BPF_CORE_READ(regs, ip);
	nr = BPF_CORE_READ(regs, orig_ax);
	/* a fault's entry leaves its error code where a syscall's nr is */
	if ((ts->fault_ip && ip == ts->fault_ip) || (__s64)nr < 0)
		return VS_SLOT_NO_SYSCALL;
	return (__u32)nr;
}

/* with the programs of function calls (task-acct-calls.bpf.h) */
static __always_inline void calls_switch_out(struct task_struct *prev,
					     __u64 now);

/* No wait of @ts is open any more, nor in its slot @slot. */
static __always_inline void wait_closed(struct vs_thread_state *ts,
					struct vs_slot *slot)
{
	ts->wait.since = 0;
	ts->queued_since = 0;
	slot->wait.task = 0;
}

/*
 * The wait @ts holds of thread @t ended unseen (its switch-in fired no
 * program) and @t runs again in the same task, on this CPU since that
 * switch-in: closed at the switch-in, by the scheduler's clock
 * (sched_info.last_arrival, told from ours by this CPU's state @pc, NULL:
 * none), else from its CPU time @exec_ns at @now (which the kernel brings
 * up to date at ticks and switches only: what it ran since the last is
 * counted in the wait).
 */
static __always_inline void close_unseen_wait(const struct vs_cpu_state *pc,
					      struct task_struct *t,
					      struct vs_thread_state *ts,
					      struct vs_slot *slot, __u64 now,
					      __u64 exec_ns)
{
	__u64 end = pc ? ours(pc, arrival_of(t)) : 0;

	if (end <= ts->wait.since || end > now)
		end = 0;
	if (!end)
		end = vs_slot_wait_end(&ts->wait, now, exec_ns);
	if (!end)
		return;
	vs_slot_add_unseen_wait(&slot->v, &ts->wait, end);
	if (ts->wait.state != VS_SLOT_RUNNABLE)
		emit(VS_ENGINE_UNBLOCK, ns_tid(t), ts->wait.task, end, 0, 0);
}

/*
 * @prev, of state @ts and slot @slot (NULL: not in a task), switches out
 * at @now; @pc->now holds the counters then, when they are recorded.
 */
static __always_inline void switch_out(struct task_struct *prev,
				       struct vs_thread_state *ts,
				       struct vs_slot *slot, bool preempt,
				       unsigned int prev_state,
				       struct vs_cpu_state *pc, __u64 now)
{
	__u64 exec_ns;
	__u32 state, task;

	if (!slot || !ts)
		return;
	task = slot->active;
	if (preempt || (prev_state & 0xff) == TASK_RUNNING)
		state = VS_SLOT_RUNNABLE;
	else if (prev_state & TASK_UNINTERRUPTIBLE)
		state = VS_SLOT_IOWAIT;
	else
		state = VS_SLOT_BLOCKED;
	/* brought up to date by the switch */
	exec_ns = BPF_CORE_READ(prev, se.sum_exec_runtime);
	values_open(slot, task);
	if (nr_counters)
		counters_close(pc, slot, ts->slot, task, &pc->now);
	if (ts->wait.since && ts->wait.task == task)
		close_unseen_wait(pc, prev, ts, slot, now, exec_ns);
	ts->wait.since = now;
	ts->wait.exec_ns = exec_ns;
	ts->wait.task = task;
	ts->wait.state = state;
	ts->wait.syscall = state == VS_SLOT_RUNNABLE ? VS_SLOT_NO_SYSCALL :
			   wait_syscall(prev, ts);
	ts->queued_since = state == VS_SLOT_RUNNABLE ? now : 0;
	slot->wait = ts->wait;
	values_done(slot);
	if (state != VS_SLOT_RUNNABLE)
		emit(VS_ENGINE_BLOCK, ns_tid(prev), task, now, 0, 0);
	calls_switch_out(prev, now);
}

/* The same of @next switching in. */
static __always_inline void switch_in(struct task_struct *next,
				      struct vs_thread_state *ts,
				      struct vs_slot *slot,
				      struct vs_cpu_state *pc, __u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 task;

	if (!slot || !ts)
		return;
	if (test_unseen_switch_in &&
	    ++test_switch_ins % test_unseen_switch_in == 0)
		return;
	task = slot->active;
	values_open(slot, task);
	if (nr_counters)
		counters_open(pc, ts->slot, task, &pc->now);
	if (ts->last_cpu && ts->last_cpu != cpu + 1)
		slot->v.migrations++;
	ts->last_cpu = cpu + 1;
	if (ts->wait.since && ts->wait.task == task && now > ts->wait.since) {
		vs_slot_add_wait(&slot->v, &ts->wait, now - ts->wait.since);
		if (ts->wait.state != VS_SLOT_RUNNABLE)
			emit(VS_ENGINE_UNBLOCK, ns_tid(next), task, now, 0, 0);
		if (ts->queued_since && ts->queued_since < now)
			account_ran(slot, pc, ts->queued_since, now);
	}
	wait_closed(ts, slot);
	values_done(slot);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(vs_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct vs_thread_state *out_ts, *in_ts;
	struct vs_slot *out_slot, *in_slot;
	struct vs_cpu_state *pc;
	__u32 zero = 0;
	bool count;
	__u64 now;

	if (test_unseen_from[0] && comm_is(prev->comm, test_unseen_from))
		return 0;
	if (!any_task_open())
		return 0;
	pc = bpf_map_lookup_elem(&cpu_state, &zero);
	if (!pc)
		return 0;
	out_ts = thread_of(prev);
	out_slot = active_slot(out_ts);
	in_ts = thread_of(next);
	in_slot = active_slot(in_ts);
	/*
	 * one reading for both, at the time the waits begin and end (the
	 * verifier refuses the OR of two pointers the compiler would make)
	 */
	count = out_slot != NULL;
	asm volatile("" : "+r"(count));
	if (in_slot)
		count = true;
	if (nr_counters && count) {
		counters_read(&pc->now, bpf_get_smp_processor_id());
		now = pc->now.clock[0];
	} else {
		now = bpf_ktime_get_ns();
	}
	log_switch_out(pc, prev, next, now);
	switch_out(prev, out_ts, out_slot, preempt, prev_state, pc, now);
	switch_in(next, in_ts, in_slot, pc, now);
	return 0;
}

/*
 * An interrupt level open longer than this is one whose exit no program
 * saw: the count of levels open starts again (a softirq's run is 2 ms at
 * most).
 */
#define VS_IRQ_STALE_NS		20000000ull

/*
 * Whether a wake-up in an interrupt level of @class and @index is the
 * interrupt's own (a timer's, a device's), not the interrupted thread's:
 * hard interrupts and vectors, softirqs but the network's, which a
 * loopback sender runs in its own context at local_bh_enable(), its
 * wake-ups its own (a device's receive softirq at the end of its
 * interrupt then names the thread it hit).
 */
static __always_inline bool wakes_on_its_own(__u32 class, __u32 index)
{
	return class != VS_FRAME_SOFTIRQ ||
	       (index != NET_RX_SOFTIRQ && index != NET_TX_SOFTIRQ);
}

/*
 * An interrupt level of @class and @index starts on this CPU at @now:
 * counted in the levels whose wake-ups are their own.
 */
static __always_inline void own_wakes_push(struct vs_cpu_state *pc,
					   __u32 class, __u32 index, __u64 now)
{
	bool own = wakes_on_its_own(class, index);

	if (!pc->own_wakes || now - pc->own_wakes_since >= VS_IRQ_STALE_NS) {
		pc->own_wakes = 0;
		pc->own_wakes_stack = 0;
		pc->own_wakes_since = now;
	}
	pc->own_wakes_stack = pc->own_wakes_stack << 1 | own;
	pc->own_wakes += own;
}

/* The interrupt level on top ends on this CPU. */
static __always_inline void own_wakes_pop(struct vs_cpu_state *pc)
{
	if ((pc->own_wakes_stack & 1) && pc->own_wakes)
		pc->own_wakes--;
	pc->own_wakes_stack >>= 1;
}

/* Whether a wake-up at @now on this CPU is an interrupt level's own. */
static __always_inline bool wake_is_interrupts(__u64 now)
{
	struct vs_cpu_state *pc;
	__u32 zero = 0;

	pc = bpf_map_lookup_elem(&cpu_state, &zero);
	return pc && pc->own_wakes &&
	       now - pc->own_wakes_since < VS_IRQ_STALE_NS;
}

/*
 * A thread in a task is woken: the edge, its waker the current thread,
 * or none (0) when an interrupt level wakes it whose wake-ups are its own
 * (wakes_on_its_own(): a timer, a device), whatever thread it hit.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(vs_sched_waking, struct task_struct *p)
{
	struct task_struct *waker;
	struct vs_thread_state *ts;
	struct vs_slot *slot;
	__u32 waker_pid = 0, waker_tid = 0;
	__u64 now;

	if (!any_task_open())
		return 0;
	ts = thread_of(p);
	slot = active_slot(ts);
	if (!slot)
		return 0;
	now = bpf_ktime_get_ns();
	if (ts->wait.since && !ts->queued_since)
		ts->queued_since = now;
	if (!wake_is_interrupts(now)) {
		waker = bpf_get_current_task_btf();
		waker_pid = ns_tid(waker->group_leader);
		waker_tid = ns_tid(waker);
	}
	emit(VS_ENGINE_WAKE, ns_tid(p), slot->active, now, waker_pid,
	     waker_tid);
	return 0;
}

/*
 * An interrupt level starts on this CPU while a task is open: counted in
 * the levels whose wake-ups are their own, pushed when current is in a
 * task.
 */
static __always_inline void frame_push(__u32 class, __u32 index)
{
	struct vs_thread_state *ts;
	struct vs_engine_stats *st;
	struct vs_cpu_state *pc;
	struct vs_slot *slot;
	struct vs_frame *f;
	__u32 zero = 0, depth;
	__u64 now;

	if (!any_task_open())
		return;
	pc = bpf_map_lookup_elem(&cpu_state, &zero);
	if (!pc)
		return;
	now = bpf_ktime_get_ns();
	own_wakes_push(pc, class, index, now);
	ts = thread_of(bpf_get_current_task_btf());
	slot = active_slot(ts);
	if (!slot)
		return;
	depth = pc->depth;
	if (depth >= VS_STACK_DEPTH) {
		/* entries whose exits never came: start again */
		st = stats();
		if (st)
			st->stack_overflows++;
		depth = 0;
	}
	f = &pc->frame[depth & (VS_STACK_DEPTH - 1)];
	f->nested = 0;
	f->slot = ts->slot;
	f->task = slot->active;
	f->class = class;
	f->index = index;
	pc->depth = depth + 1;
	if (!depth && nr_counters) {
		/* the thread stops running: its counters' interval closes */
		counters_read(&pc->now, bpf_get_smp_processor_id());
		f->start = pc->now.clock[0];
		values_open(slot, f->task);
		counters_close(pc, slot, f->slot, f->task, &pc->now);
		values_done(slot);
	} else {
		f->start = now;
	}
}

static __always_inline void charge_frame(struct vs_frame *f, __u64 ns)
{
	struct vs_slot *slot;
	__u32 idx = f->slot, i = f->index;

	slot = bpf_map_lookup_elem(&slots, &idx);
	if (!slot || idx == VS_SLOT_HEADER || READ_ONCE(slot->active) != f->task)
		return;
	values_open(slot, f->task);
	switch (f->class) {
	case VS_FRAME_IRQ:
		slot->v.irq_ns += ns;
		slot->v.irq_count++;
		for (int k = 0; k < VS_SLOT_IRQS; k++) {
			struct vs_slot_irq *e = &slot->v.irq[k];

			if (e->count && e->irq != i)
				continue;
			e->irq = i;
			e->time_ns += ns;
			e->count++;
			break;
		}
		break;
	case VS_FRAME_SOFTIRQ:
		/*
		 * i is read once into a register, checked and used there:
		 * clang otherwise fills it from its stack slot again after
		 * the check, and a 6.1 verifier, which does not carry the
		 * bound to the second fill, refuses the unbounded index
		 */
		barrier_var(i);
		if (i < VS_SLOT_SOFTIRQS) {
			slot->v.softirq_ns[i] += ns;
			slot->v.softirq_count[i]++;
		}
		break;
	case VS_FRAME_VECTOR:
		barrier_var(i);
		if (i < VS_SLOT_VECTORS) {
			slot->v.vector_ns[i] += ns;
			slot->v.vector_count[i]++;
		}
		break;
	}
	values_done(slot);
}

/* An interrupt level ends: its length less its nested levels. */
static __always_inline void frame_pop(__u32 class, __u32 index)
{
	struct vs_engine_stats *st;
	struct vs_cpu_state *pc;
	struct vs_frame *f;
	__u32 zero = 0, depth;
	__u64 now, len;

	pc = bpf_map_lookup_elem(&cpu_state, &zero);
	if (!pc)
		return;
	/* whatever is open: a level counted may end after its task */
	own_wakes_pop(pc);
	if (!pc->depth)
		return;
	depth = pc->depth - 1;
	f = &pc->frame[depth & (VS_STACK_DEPTH - 1)];
	if (f->class != class || (class != VS_FRAME_IRQ && f->index != index)) {
		st = stats();
		if (st)
			st->unmatched_exits++;
		return;
	}
	/*
	 * back to the thread: its counters' interval opens, read before the
	 * level is popped, so that a hard interrupt in a softirq's exit
	 * reads none
	 */
	if (!depth && nr_counters) {
		counters_read(&pc->now, bpf_get_smp_processor_id());
		now = pc->now.clock[0];
	} else {
		now = bpf_ktime_get_ns();
	}
	len = now > f->start ? now - f->start : 0;
	if (depth)
		pc->frame[(depth - 1) & (VS_STACK_DEPTH - 1)].nested += len;
	charge_frame(f, len > f->nested ? len - f->nested : 0);
	if (!depth && nr_counters)
		counters_open(pc, f->slot, f->task, &pc->now);
	pc->depth = depth;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(vs_irq_entry, int irq)
{
	frame_push(VS_FRAME_IRQ, irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(vs_irq_exit, int irq)
{
	frame_pop(VS_FRAME_IRQ, irq);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(vs_softirq_entry, unsigned int vec)
{
	frame_push(VS_FRAME_SOFTIRQ, vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(vs_softirq_exit, unsigned int vec)
{
	frame_pop(VS_FRAME_SOFTIRQ, vec);
	return 0;
}

#define VS_VECTOR_PROGS(name, index)				\
SEC("tp_btf/" #name "_entry")					\
int BPF_PROG(vs_##name##_entry)					\
{								\
	frame_push(VS_FRAME_VECTOR, index);			\
	return 0;						\
}								\
SEC("tp_btf/" #name "_exit")					\
int BPF_PROG(vs_##name##_exit)					\
{								\
	frame_pop(VS_FRAME_VECTOR, index);			\
	return 0;						\
}

VS_VECTOR_PROGS(local_timer, VS_VEC_LOCAL_TIMER)
VS_VECTOR_PROGS(reschedule, VS_VEC_RESCHEDULE)
VS_VECTOR_PROGS(call_function, VS_VEC_CALL_FUNCTION)
VS_VECTOR_PROGS(call_function_single, VS_VEC_CALL_FUNCTION_SINGLE)
VS_VECTOR_PROGS(irq_work, VS_VEC_IRQ_WORK)

/* A page fault of the current thread (@regs: user mode's, else NULL). */
static __always_inline void count_fault(struct pt_regs *regs)
{
	struct vs_thread_state *ts;
	struct vs_slot *slot;

	if (!any_task_open())
		return;
	ts = thread_of(bpf_get_current_task_btf());
	slot = active_slot(ts);
	if (!slot)
		return;
	if (regs)
		ts->fault_ip = BPF_CORE_READ(regs, ip);
	values_open(slot, slot->active);
	slot->v.faults++;
	values_done(slot);
}

/* What a task's fault time leaves out: its waits and interrupts so far. */
static __always_inline __u64 excluded_ns(const struct vs_slot_values *v)
{
	__u64 ns = v->irq_ns;
	int i;

	for (i = 0; i < VS_SLOT_WAITS; i++)
		ns += v->wait_ns[i];
	for (i = 0; i < VS_SLOT_SOFTIRQS; i++)
		ns += v->softirq_ns[i];
	for (i = 0; i < VS_SLOT_VECTORS; i++)
		ns += v->vector_ns[i];
	return ns;
}

/*
 * The fault handler of the current thread, entered and left: where the
 * kernel allows function tracing (fentry/fexit; the engine loads without
 * them where it does not), a task's fault.page.time is the time in its
 * outermost handler less the waits and interrupts inside it.
 */
SEC("fentry/handle_mm_fault")
int BPF_PROG(vs_fault_enter)
{
	struct vs_thread_state *ts;
	struct vs_slot *slot;

	if (!any_task_open())
		return 0;
	ts = thread_of(bpf_get_current_task_btf());
	slot = active_slot(ts);
	if (!slot)
		return 0;
	values_open(slot, slot->active);
	ts->fault_since = bpf_ktime_get_ns();
	ts->fault_task = slot->active;
	ts->fault_excluded = excluded_ns(&slot->v);
	values_done(slot);
	return 0;
}

SEC("fexit/handle_mm_fault")
int BPF_PROG(vs_fault_exit)
{
	struct vs_thread_state *ts;
	struct vs_slot *slot;
	__u64 now, out;

	if (!any_task_open())
		return 0;
	ts = thread_of(bpf_get_current_task_btf());
	if (!ts || !ts->fault_since)
		return 0;
	slot = active_slot(ts);
	if (!slot || slot->active != ts->fault_task) {
		ts->fault_since = 0;
		return 0;
	}
	now = bpf_ktime_get_ns();
	values_open(slot, slot->active);
	out = excluded_ns(&slot->v) - ts->fault_excluded;
	if (now > ts->fault_since + out)
		slot->v.fault_ns += now - ts->fault_since - out;
	ts->fault_since = 0;
	values_done(slot);
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(vs_page_fault_user, unsigned long address, struct pt_regs *regs)
{
	count_fault(regs);
	return 0;
}

/* a fault in the kernel on a user address (copy_to_user ...) */
SEC("tp_btf/page_fault_kernel")
int BPF_PROG(vs_page_fault_kernel, unsigned long address, struct pt_regs *regs)
{
	count_fault(NULL);
	return 0;
}

/*
 * Registration, run by the recorder through a task iterator limited to
 * the thread: the pending thread gets its slot in thread_state, and the
 * recorder reads back "tid slot kernel-tid" (it deletes the entry when the
 * thread exits).  The tid was checked by the recorder to be a thread of
 * the process that asked.
 */
SEC("iter/task")
int vs_register(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct vs_thread_state ts = { 0 };
	__u32 tid, ktid, *slot;

	if (!task)
		return 0;
	ns_level = BPF_CORE_READ(bpf_get_current_task_btf(), thread_pid, level);
	tid = ns_tid(task);
	slot = bpf_map_lookup_elem(&pending, &tid);
	if (!slot)
		return 0;
	ktid = task->pid;
	ts.start_time = task->start_time;
	ts.slot = *slot;
	if (!bpf_map_update_elem(&thread_state, &ktid, &ts, BPF_ANY))
		BPF_SEQ_PRINTF(ctx->meta->seq, "%u %u %u\n", tid, *slot, ktid);
	bpf_map_delete_elem(&pending, &tid);
	return 0;
}

#include "core/record/task-acct-calls.bpf.h"

/* A child of a traced process is traced. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(vs_call_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ppid = ns_tid(parent->group_leader), pid, one = 1;

	if (child->pid != child->tgid || !ppid ||
	    !bpf_map_lookup_elem(&traced, &ppid))
		return 0;
	pid = ns_tid(child);
	if (pid)
		bpf_map_update_elem(&traced, &pid, &one, BPF_ANY);
	return 0;
}

/*
 * A thread of a traced process exits: its open task ends (flagged), its
 * slot goes back to the free ones, and with the last thread the process
 * is traced no more.
 */
static __always_inline void calls_thread_exit(struct task_struct *p)
{
	struct vs_call_thread *ct;
	struct vs_slot *slot;
	__u32 pid, tid, idx, ktid;

	pid = ns_tid(p->group_leader);
	if (!pid || !bpf_map_lookup_elem(&traced, &pid))
		return;
	if (!BPF_CORE_READ(p, signal, live.counter))
		bpf_map_delete_elem(&traced, &pid);
	ct = calls_of(p);
	if (!ct)
		return;
	tid = ns_tid(p);
	ktid = p->pid;
	task_end(ct, pid, tid, bpf_ktime_get_ns(), VS_CALL_THREAD_EXIT);
	idx = ct->slot;
	bpf_map_delete_elem(&call_threads, &ktid);
	slot = bpf_map_lookup_elem(&slots, &idx);
	if (!slot || idx == VS_SLOT_HEADER)
		return;
	WRITE_ONCE(slot->values_of, 0);
	bpf_map_push_elem(&free_slots, &idx, 0);
}

/*
 * A thread exits.  A registered one is accounted no more: a task it left
 * open ends with it, at its EXIT record (later than this), and what its
 * last switches would add after that is not the task's.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(vs_thread_exit, struct task_struct *p)
{
	__u32 ktid = p->pid;

	calls_thread_exit(p);
	if (thread_of(p))
		bpf_map_delete_elem(&thread_state, &ktid);
	return 0;
}

/*
 * The recording stops (calls_stopped set, stop_ns its time): the tasks
 * still open end there, flagged.  Run by the recorder over every thread.
 */
SEC("iter/task")
int vs_calls_stop(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct vs_call_thread *ct;

	if (!task)
		return 0;
	ct = calls_of(task);
	if (ct)
		task_end(ct, ns_tid(task->group_leader), ns_tid(task),
			 stop_ns, VS_CALL_TRUNCATED);
	return 0;
}

/*
 * The library's mark of its task's begin or end, one BPF_PROG_TEST_RUN
 * when counters are recorded (see "counters" above and VS_MARK_BEGIN):
 * run on the thread's CPU, in its context, preemption off.  @ctx[0] is
 * VS_MARK_BEGIN, with the task's seq in @ctx[1], or VS_MARK_END; both
 * the program's to check (the thread is not trusted, but the slot it
 * opens or closes is its own, which it may store to anyway).  A thread
 * outside a task marks no end.
 */
SEC("raw_tp")
int vs_counters_mark(__u64 *ctx)
{
	__u64 what = ctx[0], seq = ctx[1], at;
	struct vs_thread_state *ts;
	struct vs_slot *slot;
	__u32 task;

	if (!nr_counters)
		return 0;
	ts = thread_of(bpf_get_current_task_btf());
	slot = thread_slot(ts);
	if (!slot)
		return 0;
	if (what == VS_MARK_BEGIN) {
		if (!seq || seq > 0xffffffffull)
			return 0;
		WRITE_ONCE(slot->active, (__u32)seq);
	}
	task = READ_ONCE(slot->active);
	if (!task)
		return 0;
	values_open(slot, task);
	at = counters_mark(slot, ts->slot, task);
	values_done(slot);
	if (what != VS_MARK_BEGIN)
		WRITE_ONCE(slot->active, 0);
	if (!at)
		return 0;
	return (__u32)at ? (__u32)at : 1;
}

/*
 * --sample: attached to each CPU's sampling event, keeps the samples of
 * threads inside a task; any other is dropped here, before the ring.
 */
/*
 * A sample of the CPU's sampling event: kept when its thread is in a
 * task, and counted, so that the recorder can tell the samples a full
 * ring lost without the kernel's PERF_RECORD_LOST (it comes with the
 * ring's next record, which a ring full at the end never gets).
 */
SEC("perf_event")
int vs_sample_filter(struct bpf_perf_event_data *ctx)
{
	struct vs_engine_stats *st;

	if (!any_task_open() || !in_task(bpf_get_current_task_btf()))
		return 0;
	st = stats();
	if (st)
		st->samples_passed++;
	return 1;
}
