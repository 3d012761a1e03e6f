/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task-acct-calls.bpf.h - --task-func and --probe in the engine: the open
 * calls of each thread and the uprobe programs, part of task-acct.bpf.c
 * (included there, after the accounting of waits it uses): its one BPF
 * object, split for length.
 */
#ifndef VS_CORE_RECORD_TASK_ACCT_CALLS_BPF_H
#define VS_CORE_RECORD_TASK_ACCT_CALLS_BPF_H

/*
 * --- --task-func and --probe: function calls begin and end tasks -------
 *
 * A uprobe at a probed function's entry and a uretprobe at its return
 * (vs_call_entry, vs_call_return; the attach cookie is the function's
 * index) keep, per thread of the traced processes, the open calls with
 * the user stack pointer at their entry, where their return address
 * lies.  The outermost open call of a --task-func function is the task
 * (a thread is in one task at a time; calls inside it are counted): its
 * entry takes the thread a slot and opens it as the library's
 * vs_task_begin() does, so the accounting above sees a task like any
 * other; its return closes the slot and passes the task with its values
 * through the ring buffer "calls".  --probe functions' enters and exits
 * go through the same ring, all of them: a call may hold the tasks (a
 * thread's loop), and the analysis keeps those that hold or are inside
 * one.
 *
 * A call left by longjmp() never hits its uretprobe: an event of the
 * thread whose user stack pointer is above a call's entry (a later entry,
 * a return, a switch out of the thread) comes after that call's frame was
 * unwound, unless it is so far above that it is on another stack; the
 * call ends there.  A thread's exit ends its task (vs_thread_exit),
 * the recording's stop those still open (vs_calls_stop).
 */
#define VS_CALL_DEPTH		16	/* power of two */
#define VS_STACK_SPAN		(1ull << 20)	/* farther: another stack */

/* Set by the recorder before the probes are attached. */
__u32 nr_task_funcs;		/* [0, nr_task_funcs): --task-func ones */
__u32 select_below;		/* a task is selected when a random u32 is */
__u32 select_all;		/* below it, or always */
__u32 calls_stopped;		/* the recording stopped: no new task */
__u64 stop_ns;			/* when, for vs_calls_stop */
/* Counted for the recorder's summary. */
__u64 call_nested[VS_CALL_FUNCS];	/* inside another's task call */
__u64 call_no_return[VS_CALL_FUNCS];	/* task calls left unreturned */
__u64 measured_no_return;	/* --probe calls left, exits written */
__u64 call_drops;		/* records the ring had no room for */
__u64 call_no_slot;		/* selected tasks without a free slot */
__u64 call_too_deep;		/* calls nested past VS_CALL_DEPTH */
__u64 call_no_thread;		/* threads past the map's room: untraced */

struct vs_open_call {
	__u64 sp;		/* user stack pointer at the entry */
	__u32 func;
	__u32 pad;
};

struct vs_open_calls {
	struct vs_open_call call[VS_CALL_DEPTH];
	__u32 depth;
	__u32 untracked;	/* calls past VS_CALL_DEPTH, not kept */
};

/* A thread of the traced processes: its open calls and its task. */
struct vs_call_thread {
	__u64 start_time;	/* the task_struct's: a reused tid is not it */
	struct vs_open_calls tasks, measured;
	__u64 start;		/* of the task */
	__u32 func;		/* the task's function */
	__u32 seq;		/* the thread's tasks so far */
	__u32 cpu;
	__u32 slot;		/* taken from free_slots, 0: none yet */
	__u32 open;		/* a selected task is open in the slot */
	__u32 pad;
};

static __always_inline void count(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

/*
 * By kernel thread id (a hash map, as thread_state and for its reason),
 * made at a thread's first probe hit, deleted at its exit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VS_SLOTS);
	__type(key, __u32);
	__type(value, struct vs_call_thread);
} call_threads SEC(".maps");

_Static_assert(__builtin_offsetof(struct vs_call_thread, start_time) == 0,
	       "thread_entry() reads the start time first");

/* The calls of @t, NULL if none. */
static __always_inline struct vs_call_thread *calls_of(struct task_struct *t)
{
	return thread_entry(&call_threads, t);
}

/* New calls of @t (a new thread, or one that reused a gone one's id). */
static __always_inline struct vs_call_thread *calls_new(struct task_struct *t)
{
	static const struct vs_call_thread fresh;
	struct vs_call_thread *ct;
	__u32 tid = t->pid;

	if (bpf_map_update_elem(&call_threads, &tid, &fresh, BPF_ANY)) {
		count(&call_no_thread);
		return NULL;
	}
	ct = bpf_map_lookup_elem(&call_threads, &tid);
	if (ct)
		ct->start_time = t->start_time;
	return ct;
}

/* The traced processes (pids in the recorder's namespace), forks added. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

/* The slots the recorder set aside for the threads of function tasks. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, VS_SLOTS);
	__type(value, __u32);
} free_slots SEC(".maps");

#define VS_CALLS_RING		(16 * 1024 * 1024)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, VS_CALLS_RING);
} calls SEC(".maps");

/*
 * Wake the recorder only when an eighth of the ring is full: it reads the
 * ring every 10 ms anyway, and a wake-up at each call would have it
 * preempt the probed thread on a busy CPU, right in the call.  The rest
 * of the ring (about 17,000 tasks) is what a recorder kept from its CPU
 * has before tasks are lost: 100,000 function tasks a second filled the
 * ring of 1 MiB between two drains of a loaded machine.
 */
static __always_inline __u64 calls_wakeup(void)
{
	return bpf_ringbuf_query(&calls, BPF_RB_AVAIL_DATA) >
	       VS_CALLS_RING / 8 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* One more of function @f's in @counters; a bound the verifier sees. */
static __always_inline void count_func(__u64 *counters, __u32 f)
{
	asm volatile("" : "+r"(f));
	if (f < VS_CALL_FUNCS)
		count(&counters[f]);
}

static __always_inline void tasks_open_add(__s64 n)
{
	__u32 zero = VS_SLOT_HEADER;
	struct vs_slot_header *h = bpf_map_lookup_elem(&slots, &zero);

	if (h)
		__sync_fetch_and_add(&h->tasks_open, n);
}

/* Push a call entered at @sp; past VS_CALL_DEPTH it is only counted. */
static __always_inline void push_call(struct vs_open_calls *cs, __u64 sp,
				      __u32 func)
{
	__u32 d = cs->depth;

	if (d >= VS_CALL_DEPTH) {
		cs->untracked++;
		count(&call_too_deep);
		return;
	}
	cs->call[d & (VS_CALL_DEPTH - 1)].sp = sp;
	cs->call[d & (VS_CALL_DEPTH - 1)].func = func;
	cs->depth = d + 1;
}

/*
 * Pop the open calls entered below @limit by at most VS_STACK_SPAN: their
 * frames are gone.  Stops at a call farther below (on another stack).
 * Returns the depth before.
 */
static __always_inline __u32 pop_calls(struct vs_open_calls *cs, __u64 limit)
{
	__u32 depth = cs->depth, d;
	__u64 sp;
	int i;

	for (i = 0; i < VS_CALL_DEPTH; i++) {
		d = cs->depth;
		if (!d || d > VS_CALL_DEPTH)
			break;
		sp = cs->call[(d - 1) & (VS_CALL_DEPTH - 1)].sp;
		if (sp >= limit || limit - sp > VS_STACK_SPAN)
			break;
		cs->depth = d - 1;
	}
	if (!cs->depth)
		cs->untracked = 0;
	return depth;
}

/*
 * A return at stack pointer @sp: the call entered one word below it and
 * the calls inside it are gone; a return of a call not kept pops none.
 */
static __always_inline void pop_return(struct vs_open_calls *cs, __u64 sp)
{
	if (pop_calls(cs, sp) != cs->depth)
		return;
	if (cs->untracked)
		cs->untracked--;
	else if (cs->depth)
		cs->depth--;
}

/* Whether @t is inside a task (a function's or an annotated one). */
static __always_inline bool in_task(struct task_struct *t)
{
	return active_slot(thread_of(t));
}

static __always_inline void emit_call(__u32 kind, __u32 func, __u32 pid,
				      __u32 tid, __u64 now)
{
	struct vs_call_record *rec;

	rec = bpf_ringbuf_reserve(&calls, VS_CALL_FUNC_SIZE, 0);
	if (!rec) {
		count(&call_drops);
		return;
	}
	rec->kind = kind;
	rec->func = func;
	rec->pid = pid;
	rec->tid = tid;
	rec->cpu = bpf_get_smp_processor_id();
	rec->seq = 0;
	rec->flags = 0;
	rec->pad = 0;
	rec->start_ns = now;
	rec->end_ns = now;
	bpf_ringbuf_submit(rec, calls_wakeup());
}

/*
 * The --probe calls of @ct's thread that its stack pointer shows left
 * (@limit, as pop_calls()): their exits, at @now.
 */
static __always_inline void left_measured(struct vs_call_thread *ct,
					  __u32 pid, __u32 tid, __u64 now,
					  __u64 limit)
{
	__u32 depth = pop_calls(&ct->measured, limit), d;
	int i;

	for (i = 0; i < VS_CALL_DEPTH; i++) {
		d = depth - 1 - i;
		if (d < ct->measured.depth || d >= VS_CALL_DEPTH)
			break;
		/* the verifier sees the bound only on the register indexing */
		asm volatile("" : "+r"(d));
		d &= VS_CALL_DEPTH - 1;
		emit_call(VS_CALL_EXIT, ct->measured.call[d].func, pid, tid,
			  now);
		count(&measured_no_return);
	}
}

/*
 * The task of @ct ends at @now: close its slot, then pass the task and
 * the values the accounting gave it to the recorder.
 */
static __always_inline void task_end(struct vs_call_thread *ct, __u32 pid,
				     __u32 tid, __u64 now, __u32 flags)
{
	struct vs_call_record *rec;
	struct vs_slot *slot;
	__u32 idx = ct->slot, seq;

	if (!ct->open)
		return;
	ct->open = 0;
	slot = bpf_map_lookup_elem(&slots, &idx);
	if (!slot || idx == VS_SLOT_HEADER)
		return;
	if (nr_counters && !(flags & VS_CALL_TRUNCATED)) {
		values_open(slot, ct->seq);
		counters_mark(slot, idx, ct->seq);
		values_done(slot);
	}
	WRITE_ONCE(slot->active, 0);
	tasks_open_add(-1);
	rec = bpf_ringbuf_reserve(&calls, sizeof(*rec), 0);
	if (!rec) {
		count(&call_drops);
		return;
	}
	seq = READ_ONCE(slot->seq);
	barrier();
	if (READ_ONCE(slot->values_of) != ct->seq ||
	    bpf_probe_read_kernel(&rec->v, sizeof(rec->v), &slot->v))
		__builtin_memset(&rec->v, 0, sizeof(rec->v));
	barrier();
	if ((seq & 1) || READ_ONCE(slot->seq) != seq)
		flags |= VS_CALL_UNSTEADY;
	rec->kind = VS_CALL_TASK;
	rec->func = ct->func;
	rec->pid = pid;
	rec->tid = tid;
	rec->cpu = ct->cpu;
	rec->seq = ct->seq;
	rec->flags = flags;
	rec->pad = 0;
	rec->start_ns = ct->start;
	rec->end_ns = now;
	bpf_ringbuf_submit(rec, calls_wakeup());
}

/* A task call of @t left without returning, seen at @now. */
static __always_inline void task_left(struct vs_call_thread *ct, __u32 pid,
				      __u32 tid, __u64 now)
{
	count_func(call_no_return, ct->func);
	task_end(ct, pid, tid, now, VS_CALL_NO_RETURN);
}

/*
 * Thread @prev of a function task switches out: the calls its user stack
 * pointer (at its entry into the kernel) shows left end here.
 */
static __always_inline void calls_switch_out(struct task_struct *prev,
					     __u64 now)
{
	struct vs_call_thread *ct;
	struct pt_regs *regs;
	__u32 depth, pid, tid;
	__u64 sp, limit;

	ct = calls_of(prev);
	if (!ct || (!ct->tasks.depth && !ct->measured.depth))
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	if (!regs)
		return;
	sp = BPF_CORE_READ(regs, sp);
	if (sp <= 8)
		return;
	limit = sp - 8;
	pid = ns_tid(prev->group_leader);
	tid = ns_tid(prev);
	left_measured(ct, pid, tid, now, limit);
	depth = pop_calls(&ct->tasks, limit);
	if (depth && !ct->tasks.depth)
		task_left(ct, pid, tid, now);
}
/* --- the programs of function calls (see "--task-func and --probe") --- */

/*
 * The calls of the current thread, made at its first probe hit when its
 * process is traced; @pid and @tid are set.
 */
static __always_inline struct vs_call_thread *
call_thread(struct task_struct *cur, __u32 *pid, __u32 *tid, bool create)
{
	struct vs_call_thread *ct;

	if (READ_ONCE(calls_stopped))
		return NULL;
	*pid = ns_tid(cur->group_leader);
	if (!*pid || !bpf_map_lookup_elem(&traced, pid))
		return NULL;
	*tid = ns_tid(cur);
	ct = calls_of(cur);
	return ct || !create ? ct : calls_new(cur);
}

/*
 * The outermost call of task function @func opens a task: selected at
 * the rate, it takes the thread a slot (kept until the thread exits) and
 * opens it as the library's vs_task_begin() does.
 */
static __always_inline void task_begin(struct task_struct *cur,
				       struct vs_call_thread *ct, __u32 func,
				       __u64 now)
{
	struct vs_thread_state *ts;
	struct vs_slot *slot;
	__u32 idx, ktid;

	ct->seq = ct->seq + 1 ? ct->seq + 1 : 1;
	ct->func = func;
	ct->start = now;
	ct->cpu = bpf_get_smp_processor_id();
	if (!select_all && bpf_get_prandom_u32() >= select_below)
		return;
	if (!ct->slot) {
		if (thread_of(cur))	/* registered by its library */
			return;
		if (bpf_map_pop_elem(&free_slots, &idx) ||
		    idx == VS_SLOT_HEADER || idx >= VS_SLOTS) {
			count(&call_no_slot);
			return;
		}
		/* the accounting finds the thread's slot in thread_state */
		ts = &(struct vs_thread_state){ .start_time = cur->start_time,
						.slot = idx };
		ktid = cur->pid;
		if (bpf_map_update_elem(&thread_state, &ktid, ts, BPF_ANY)) {
			bpf_map_push_elem(&free_slots, &idx, 0);
			count(&call_no_slot);
			return;
		}
		ct->slot = idx;
	}
	idx = ct->slot;
	slot = bpf_map_lookup_elem(&slots, &idx);
	if (!slot)
		return;
	tasks_open_add(1);
	WRITE_ONCE(slot->active, ct->seq);
	ct->open = 1;
	if (nr_counters) {
		values_open(slot, ct->seq);
		counters_mark(slot, idx, ct->seq);
		values_done(slot);
	}
}

SEC("uprobe")
int BPF_KPROBE(vs_call_entry)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 func = bpf_get_attach_cookie(ctx), pid, tid, depth;
	__u64 sp = PT_REGS_SP(ctx), now;
	struct vs_call_thread *ct;

	ct = call_thread(cur, &pid, &tid, true);
	if (!ct || func >= VS_CALL_FUNCS)
		return 0;
	now = bpf_ktime_get_ns();
	/* an entry at S leaves the calls entered at S or below */
	left_measured(ct, pid, tid, now, sp + 1);
	if (func >= nr_task_funcs) {
		push_call(&ct->measured, sp, func);
		emit_call(VS_CALL_ENTER, func, pid, tid, now);
		return 0;
	}
	depth = pop_calls(&ct->tasks, sp + 1);
	if (depth && !ct->tasks.depth)
		task_left(ct, pid, tid, now);
	if (ct->tasks.depth || ct->tasks.untracked) {
		if (func != ct->func)
			count_func(call_nested, func);
		push_call(&ct->tasks, sp, func);
		return 0;
	}
	push_call(&ct->tasks, sp, func);
	task_begin(cur, ct, func, now);
	return 0;
}

/*
 * Thread @cur returns from the call of task @ct at @now with a wait of
 * the task still open: its switch-in went unseen. Closed at that switch-in
 * (close_unseen_wait()).
 */
static __always_inline void close_wait_at_return(struct task_struct *cur,
						 struct vs_call_thread *ct,
						 __u64 now)
{
	struct vs_thread_state *ts = thread_of(cur);
	struct vs_slot *slot = active_slot(ts);
	struct vs_cpu_state *pc;
	__u32 zero = 0;

	if (!ct->open || !ts || !slot || !ts->wait.since ||
	    ts->wait.task != ct->seq)
		return;
	pc = bpf_map_lookup_elem(&cpu_state, &zero);
	values_open(slot, ct->seq);
	close_unseen_wait(pc, cur, ts, slot, now,
			  BPF_CORE_READ(cur, se.sum_exec_runtime));
	wait_closed(ts, slot);
	values_done(slot);
}

SEC("uretprobe")
int BPF_KRETPROBE(vs_call_return)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 func = bpf_get_attach_cookie(ctx), pid, tid, depth;
	__u64 sp = PT_REGS_SP(ctx), now;
	struct vs_call_thread *ct;

	ct = call_thread(cur, &pid, &tid, false);
	if (!ct || func >= VS_CALL_FUNCS || sp <= 8)
		return 0;
	now = bpf_ktime_get_ns();
	/* a return at R is of the call entered at R - 8: the ones inside */
	left_measured(ct, pid, tid, now, sp - 8);
	if (func >= nr_task_funcs) {
		pop_return(&ct->measured, sp);
		emit_call(VS_CALL_EXIT, func, pid, tid, now);
		return 0;
	}
	depth = ct->tasks.depth;
	pop_return(&ct->tasks, sp);
	if (depth && !ct->tasks.depth) {
		close_wait_at_return(cur, ct, now);
		task_end(ct, pid, tid, now, 0);
	}
	return 0;
}
#endif /* VS_CORE_RECORD_TASK_ACCT_CALLS_BPF_H */
