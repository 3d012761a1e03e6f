// SPDX-License-Identifier: MIT
/*
 * record-probe.c - --task-func: every call of a function is an AppTask,
 * from a uprobe at its entry and a uretprobe at its return, for programs
 * without annotations.
 *
 * The probes are uprobe trace events (core/uprobe.h says why not the
 * uprobe PMU), made in tracefs group varscope_<pid> and removed at the end.
 * Nothing runs in the program at a task's begin, so its kernel events
 * cannot be gated: the tracepoints are opened per CPU, inherited by every
 * thread and child of the command, into the CPU's tracking ring, and the
 * recorder attributes them to calls by time windows per thread.  The
 * rings of the CPUs are merged by time: events are buffered, sorted, and
 * fed to the accounting once older than the last read minus a margin.
 * The probe hits too are paired into calls only then, in time order: a
 * thread that sleeps in a call wakes up on another CPU, and the rings are
 * read one after the other, so its return may be read before its entry.
 * A uprobe hit costs about 10 us here, twice per call; every kernel event
 * of the command reaches the recorder whatever the rate.
 *
 * A call that never returns (longjmp() past it, as PostgreSQL's ereport()
 * leaves PortalRun) never hits its uretprobe.  So every probe hit and
 * tracepoint sample carries the thread's user stack pointer (REGS_USER),
 * and a thread keeps the stack pointer of each open call at its entry,
 * where its return address lies: an event of the thread whose user stack
 * pointer is above it (a return hit one word above: that call returning)
 * comes after the call's frame was unwound, unless it is so far above
 * that it is on another stack.  The call ends there; the outermost one's
 * task is flagged VS_TASK_NO_RETURN.
 *
 * --probe: the same probes, on functions measured rather than made tasks.
 * Each hit becomes a VS_REC_FUNC record (after the VS_REC_SYMBOL_DEF of its
 * function), for every call of every thread of the command: the library
 * does not tell the recorder when a thread is inside a selected task, so
 * the analysis keeps the calls inside tasks (core/func-times.h).  Without
 * --task-func only the probes are opened per CPU; tasks and kernel events
 * come through the library's per-thread rings as usual.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "core/array.h"
#include "core/probe-cost.h"
#include "core/record-int.h"
#include "core/trace-head.h"
#include "core/uprobe.h"

/* Records of all CPUs are in their rings this long after their time. */
#define VS_MERGE_MARGIN_NS	20000000ull

/*
 * Stack pointers farther apart are on different stacks (a coroutine's, a
 * signal handler's alternate stack, the main one): neither tells whether
 * the other's frames are gone.
 */
#define VS_STACK_SPAN		(1ull << 20)

enum vs_probe_id_kind { VS_ID_TP, VS_ID_ENTRY, VS_ID_RETURN, VS_ID_SAMPLE };

/* One opened event: its descriptor, sample id, and what it is. */
struct vs_probe_id {
	uint64_t id;
	int fd;
	enum vs_probe_id_kind kind;
	int index;			/* tracepoint or function */
};

/* An open call: the user stack pointer at its entry (0: unknown), whose. */
struct vs_open_call {
	uint64_t sp;
	uint32_t func;
};

/* A thread's open calls, outermost first. */
struct vs_call_stack {
	struct vs_open_call *call;
	uint32_t depth;
	size_t alloc;
};

/*
 * Per thread: the open calls of the --task-func functions and those of the
 * --probe functions; the task type of the outermost task call, task
 * numbers.
 */
struct vs_probe_thread {
	struct vs_probe_thread *next;
	uint32_t tid;
	struct vs_call_stack tasks, measured;
	uint32_t type;
	uint32_t seq;
	bool selected;
};

struct vs_pending {
	struct vs_acct_event ev;
	uint64_t sp;			/* user stack pointer, 0: unknown */
	uint64_t order;			/* ring order among equal times */
};

#define VS_PROBE_BUCKETS	1024

#define VS_MAX_FUNCS	(VS_MAX_TASK_FUNCS + VS_MAX_PROBE_FUNCS)

struct vs_probe {
	/* the --task-func ones first, then the --probe ones */
	struct vs_func_probe func[VS_MAX_FUNCS];
	struct tracefs_dynevent *dyn[VS_MAX_FUNCS][2];	/* entry, return */
	int tp_id[VS_MAX_FUNCS][2];
	int nr_func;
	int nr_task_func;
	/* calls of a --task-func inside another's: not tasks */
	uint64_t nested[VS_MAX_TASK_FUNCS];
	/* outermost calls left without their return */
	uint64_t no_return[VS_MAX_TASK_FUNCS];
	/* --probe calls left without their return: their exits written */
	uint64_t measured_no_return;
	struct vs_probe_id *ids;
	unsigned int nr_ids, alloc_ids;
	struct vs_probe_thread *threads[VS_PROBE_BUCKETS];
	struct vs_pending *pending;
	unsigned int nr_pending, alloc_pending;
	uint64_t order;
	uint64_t stop_time;		/* the recording stopped, 0: not yet */
	double rate;
	unsigned int rnd;
};

/* The uprobe and uretprobe trace events of function @i. */
static int create_events(struct vs_probe *p, int i, char *err, size_t errlen)
{
	char system[64], event[64];
	int ret;

	snprintf(system, sizeof(system), VS_UPROBE_GROUP "%d", getpid());
	for (ret = 0; ret < 2; ret++) {
		snprintf(event, sizeof(event), "f%d_%s", i, ret ? "return" : "entry");
		p->tp_id[i][ret] = vs_uprobe_create(&p->func[i], ret, system, event,
						    &p->dyn[i][ret], err, errlen);
		if (p->tp_id[i][ret] < 0)
			return -1;
	}
	return 0;
}

/* Resolve and create the probes of the list @funcs, at most @max of them. */
static int add_funcs(struct vs_probe *p, const char *funcs, int max,
		     const char *option, const char *binary, char *err,
		     size_t errlen)
{
	char *list, *item, *save = NULL;
	int ret = 0, limit = p->nr_func + max;

	if (!funcs)
		return 0;
	list = strdup(funcs);
	if (!list)
		return -1;
	for (item = strtok_r(list, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save)) {
		if (p->nr_func == limit) {
			snprintf(err, errlen, "at most %d", max);
			ret = -1;
		} else {
			ret = vs_uprobe_resolve(item, binary,
						&p->func[p->nr_func++], err,
						errlen) ||
			      create_events(p, p->nr_func - 1, err, errlen);
		}
	}
	free(list);
	if (ret) {
		char what[256];

		snprintf(what, sizeof(what), "%s", err);
		snprintf(err, errlen, "%s: %s", option, what);
	}
	return ret;
}

int vs_probe_init(struct vs_session *s, const char *task_funcs,
		  const char *probe_funcs, const char *binary, char *err,
		  size_t errlen)
{
	struct vs_probe *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	s->probe = p;
	p->rate = s->opts->rate;
	p->rnd = getpid();
	if (task_funcs || probe_funcs)
		vs_uprobe_remove_stale(VS_UPROBE_GROUP);
	if (add_funcs(p, task_funcs, VS_MAX_TASK_FUNCS, "--task-func", binary,
		      err, errlen))
		return -1;
	p->nr_task_func = p->nr_func;
	return add_funcs(p, probe_funcs, VS_MAX_PROBE_FUNCS, "--probe", binary,
			 err, errlen);
}

bool vs_probe_tasks(const struct vs_session *s)
{
	return s->probe && s->probe->nr_task_func;
}

uint64_t vs_probe_funcs_left(const struct vs_session *s)
{
	return s->probe ? s->probe->measured_no_return : 0;
}

bool vs_probe_func_stats(const struct vs_session *s, int i,
			 struct vs_probe_func_stats *st)
{
	const struct vs_probe *p = s->probe;

	if (!p || i >= p->nr_task_func)
		return false;
	st->symbol = p->func[i].symbol;
	st->outer = p->nr_task_func == 2 ? p->func[!i].symbol :
					   "another --task-func";
	st->nested = p->nested[i];
	st->no_return = p->no_return[i];
	return true;
}

/* Each --task-func type is named after its function. */
void vs_probe_name_types(struct vs_session *s)
{
	struct vs_probe *p = s->probe;
	int i;

	for (i = 0; p && i < p->nr_task_func; i++)
		vs_session_name_type(s, i + 1, p->func[i].symbol,
				     strnlen(p->func[i].symbol,
					     VS_TYPE_NAME_MAX));
}

/*
 * With --task-func: META probe_cost_ns, what the probe pair adds to each
 * task on this machine; a note when it could not be measured.
 */
void vs_probe_write_cost(struct vs_session *s)
{
	char system[64], buf[512], err[400];
	uint64_t ns;

	if (!vs_probe_tasks(s))
		return;
	snprintf(system, sizeof(system), VS_UPROBE_GROUP "%d", getpid());
	if (vs_probe_cost_measure(system, &ns, err, sizeof(err))) {
		snprintf(buf, sizeof(buf), "the probes' own cost was not "
			 "measured: %s", err);
		vs_session_write_meta(s, "note", buf);
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ns);
	vs_session_write_meta(s, VS_META_PROBE_COST, buf);
}

/* The VS_REC_SYMBOL_DEF of every measured function. */
void vs_probe_write_symbols(struct vs_session *s)
{
	struct vs_probe *p = s->probe;
	struct vs_record rec = { .kind = VS_REC_SYMBOL_DEF };
	int i;

	for (i = p ? p->nr_task_func : 0; p && i < p->nr_func; i++) {
		rec.symbol_def = (struct vs_symbol_def){
			.id = i - p->nr_task_func, .addr = p->func[i].offset,
			.name = p->func[i].symbol, .binary = p->func[i].binary,
		};
		vs_session_write(s, &rec);
	}
}

static int add_id(struct vs_probe *p, int fd, enum vs_probe_id_kind kind,
		  int index)
{
	struct vs_probe_id *id;

	if (p->nr_ids == p->alloc_ids) {
		unsigned int alloc = p->alloc_ids ? 2 * p->alloc_ids : 64;
		void *ids = realloc(p->ids, alloc * sizeof(*p->ids));

		if (!ids)
			return -1;
		p->ids = ids;
		p->alloc_ids = alloc;
	}
	id = &p->ids[p->nr_ids];
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id->id))
		return -1;
	id->fd = fd;
	id->kind = kind;
	id->index = index;
	p->nr_ids++;
	return 0;
}

/*
 * Open @attr on @pid/@cpu, inherited, into the ring of @owner; a
 * tracepoint or probe unless @kind is VS_ID_SAMPLE, whose attr is set.
 */
static int open_into(struct vs_probe *p, struct perf_event_attr *attr,
		     int pid, int cpu, int owner, bool on_exec,
		     enum vs_probe_id_kind kind, int index)
{
	int fd;

	if (kind != VS_ID_SAMPLE) {
		attr->sample_period = 1;
		/* RAW then REGS_USER: user_sp() */
		attr->sample_type = VS_SAMPLE_TYPE | PERF_SAMPLE_REGS_USER;
		attr->sample_regs_user = 1ull << PERF_REG_X86_SP;
		attr->sample_id_all = 1;
		attr->use_clockid = 1;
		attr->clockid = CLOCK_MONOTONIC;
	}
	attr->inherit = 1;
	attr->disabled = on_exec;
	attr->enable_on_exec = on_exec;
	fd = vs_perf_open(attr, pid, cpu, -1);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) ||
	    add_id(p, fd, kind, index)) {
		close(fd);
		return -1;
	}
	return 0;
}

int vs_probe_open_cpu(struct vs_session *s, int pid, int cpu, int owner,
		      bool on_exec, char *err, size_t errlen)
{
	struct vs_probe *p = s->probe;
	struct perf_event_attr attr;
	int i;

	for (i = 0; p->nr_task_func && i < s->tps.nr; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = s->tps.tp[i].id;
		if (open_into(p, &attr, pid, cpu, owner, on_exec, VS_ID_TP, i))
			goto fail;
	}
	for (i = 0; i < p->nr_func; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = p->tp_id[i][0];
		if (open_into(p, &attr, pid, cpu, owner, on_exec, VS_ID_ENTRY, i))
			goto fail;
		attr.config = p->tp_id[i][1];
		if (open_into(p, &attr, pid, cpu, owner, on_exec, VS_ID_RETURN, i))
			goto fail;
	}
	/* --sample: nothing gates a ring here, every sample is read */
	attr = s->sample_attr;
	if (p->nr_task_func && s->sampling &&
	    open_into(p, &attr, pid, cpu, owner, on_exec, VS_ID_SAMPLE, 0))
		goto fail;
	return 0;
fail:
	if (!*err)
		snprintf(err, errlen, "cannot open the probes: %s", strerror(errno));
	return -1;
}

/* The calls of thread @tid, made when absent if @create. */
static struct vs_probe_thread *probe_thread(struct vs_probe *p, uint32_t tid,
					    bool create)
{
	struct vs_probe_thread **slot = &p->threads[tid % VS_PROBE_BUCKETS];

	while (*slot && (*slot)->tid != tid)
		slot = &(*slot)->next;
	if (!*slot && create) {
		*slot = calloc(1, sizeof(**slot));
		if (*slot)
			(*slot)->tid = tid;
	}
	return *slot;
}

/* The REGS_USER of a sample of open_into(): the stack pointer, 0 if none. */
static uint64_t user_sp(const struct vs_raw_sample *smp)
{
	const char *regs = smp->raw + smp->raw_size;
	const char *end = (const char *)smp + smp->header.size;
	uint64_t abi, sp;

	if (regs + 2 * sizeof(uint64_t) > end)
		return 0;
	memcpy(&abi, regs, sizeof(abi));
	memcpy(&sp, regs + sizeof(abi), sizeof(sp));
	return abi == PERF_SAMPLE_REGS_ABI_NONE ? 0 : sp;
}

/* A new pending event of @smp's thread, with its stack pointer. */
static struct vs_acct_event *pend(struct vs_probe *p,
				  const struct vs_raw_sample *smp)
{
	struct vs_pending *e;

	if (p->nr_pending == p->alloc_pending) {
		unsigned int alloc = p->alloc_pending ? 2 * p->alloc_pending : 1024;
		void *q = realloc(p->pending, alloc * sizeof(*p->pending));

		if (!q)
			return NULL;
		p->pending = q;
		p->alloc_pending = alloc;
	}
	e = &p->pending[p->nr_pending++];
	memset(e, 0, sizeof(*e));
	e->order = p->order++;
	if (smp)
		e->sp = user_sp(smp);
	return &e->ev;
}

static bool select_task(struct vs_probe *p)
{
	return p->rate >= 1 || rand_r(&p->rnd) < p->rate * ((double)RAND_MAX + 1);
}

/*
 * The enter or exit of --probe function @func (its index among them) by
 * @ev's thread at @ev's time: one VS_REC_FUNC record.
 */
static void write_func(struct vs_session *s, const struct vs_acct_event *ev,
		       uint32_t func, bool enter)
{
	struct vs_record rec = { .kind = VS_REC_FUNC };

	rec.func = (struct vs_func){
		.time = ev->time, .tid = ev->tid, .cpu = ev->cpu,
		.symbol = func, .dir = enter ? VS_FUNC_ENTER : VS_FUNC_EXIT,
	};
	vs_session_write(s, &rec);
}

/*
 * A uprobe or uretprobe hit (type: the function's index + 1), made a task
 * call or a measured one by take_event() at the flush.
 */
static void pend_call(struct vs_probe *p, const struct vs_raw_sample *smp,
		      const struct vs_probe_id *id)
{
	struct vs_acct_event *ev = pend(p, smp);

	if (!ev)
		return;
	ev->time = smp->time;
	ev->cpu = smp->cpu;
	ev->tid = smp->tid;
	ev->pid = smp->pid;
	ev->kind = id->kind == VS_ID_ENTRY ? VS_ACCT_TASK_BEGIN :
					     VS_ACCT_TASK_END;
	ev->type = id->index + 1;
	ev->flags = VS_TASK_FUNC_PROBE;
}

static void on_sample(struct vs_session *s, const struct vs_raw_sample *smp)
{
	struct vs_probe *p = s->probe;
	struct vs_acct_event *ev;
	unsigned int i;

	for (i = 0; i < p->nr_ids; i++)
		if (p->ids[i].id == smp->id)
			break;
	if (i == p->nr_ids)
		return;
	if (p->ids[i].kind == VS_ID_SAMPLE) {
		vs_sample_write(s, &smp->header);
		return;
	}
	if (p->ids[i].kind != VS_ID_TP) {
		pend_call(p, smp, &p->ids[i]);
		return;
	}
	ev = pend(p, smp);
	if (!ev)
		return;
	ev->time = smp->time;
	ev->cpu = smp->cpu;
	ev->tid = smp->tid;
	vs_tp_decode(&s->tps, &s->tps.tp[p->ids[i].index], smp->raw,
		     smp->raw_size, ev);
}

/* A loss in a CPU's ring may be any thread's: flag every open task. */
static void on_lost(struct vs_session *s, const struct perf_event_header *h)
{
	const struct { struct perf_event_header h; uint64_t id, lost; } *l =
		(const void *)h;
	const struct vs_sample_id *sid = vs_sample_id_of(h);
	struct vs_probe *p = s->probe;
	struct vs_probe_thread *th;
	struct vs_acct_event *ev;
	struct vs_record rec = { .kind = VS_REC_LOST };
	unsigned int i;

	s->stats.lost_events += l->lost;
	rec.lost = (struct vs_lost){ sid->time, sid->tid, sid->cpu,
				     VS_LOST_KERNEL_RING, l->lost };
	vs_session_write(s, &rec);
	for (i = 0; i < VS_PROBE_BUCKETS; i++)
		for (th = p->threads[i]; th; th = th->next) {
			if (!(ev = pend(p, NULL)))
				return;
			ev->time = sid->time;
			ev->until = sid->time;
			ev->tid = th->tid;
			ev->cpu = sid->cpu;
			ev->kind = VS_ACCT_LOST;
			ev->count = l->lost;
		}
}

void vs_probe_record(struct vs_session *s, const struct perf_event_header *h)
{
	struct vs_acct_event ev = { 0 }, *q;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, (const void *)h);
		break;
	case PERF_RECORD_SWITCH:
		if (vs_decode_switch(s, h, &ev) && (q = pend(s->probe, NULL)))
			*q = ev;
		break;
	case PERF_RECORD_LOST:
		on_lost(s, h);
		break;
	}
}

void vs_probe_exit(struct vs_session *s, uint32_t tid, uint64_t time)
{
	struct vs_probe *p = s->probe;
	struct vs_acct_event *ev = p->nr_task_func ? pend(p, NULL) : NULL;

	if (ev) {
		ev->time = time;
		ev->tid = tid;
		ev->kind = VS_ACCT_THREAD_EXIT;
	}
}

void vs_probe_stop(struct vs_session *s, uint64_t time)
{
	struct vs_probe *p = s->probe;
	struct vs_probe_thread *th;
	struct vs_acct_event *ev;
	unsigned int i;

	if (!p || !p->nr_task_func || p->stop_time)
		return;
	p->stop_time = time;
	for (i = 0; i < VS_PROBE_BUCKETS; i++)
		for (th = p->threads[i]; th; th = th->next) {
			if (!(ev = pend(p, NULL)))
				return;
			ev->time = time;
			ev->tid = th->tid;
			ev->kind = VS_ACCT_TRUNCATE;
		}
}

/* The thread is gone: forget its calls (at the flush, in time order). */
static void forget_thread(struct vs_probe *p, uint32_t tid)
{
	struct vs_probe_thread **slot = &p->threads[tid % VS_PROBE_BUCKETS];

	while (*slot && (*slot)->tid != tid)
		slot = &(*slot)->next;
	if (*slot) {
		struct vs_probe_thread *th = *slot;

		*slot = th->next;
		free(th->tasks.call);
		free(th->measured.call);
		free(th);
	}
}

/* A call of @func enters at @sp: push it; false when out of memory. */
static bool push_call(struct vs_call_stack *cs, uint64_t sp, uint32_t func)
{
	if (vs_grow(&cs->call, &cs->alloc, cs->depth + 1, sizeof(*cs->call)))
		return false;
	cs->call[cs->depth++] = (struct vs_open_call){ sp, func };
	return true;
}

/*
 * Pop the open calls whose entry stack pointer is below @limit (0: none)
 * by at most VS_STACK_SPAN: their frames are gone.  Stops at a call whose
 * stack pointer is unknown, or farther below: on another stack.  Returns
 * the depth before: the calls popped stay readable above the new depth.
 */
static uint32_t pop_calls(struct vs_call_stack *cs, uint64_t limit)
{
	uint32_t depth = cs->depth;
	uint64_t sp;

	while (cs->depth && (sp = cs->call[cs->depth - 1].sp) &&
	       sp < limit && limit - sp <= VS_STACK_SPAN)
		cs->depth--;
	return depth;
}

/*
 * A return hit at stack pointer @sp: pop the call entered one word below
 * it, and the calls inside it, which were left; the innermost call when
 * the stack pointer says nothing.
 */
static void pop_return(struct vs_call_stack *cs, uint64_t sp)
{
	if (pop_calls(cs, sp) == cs->depth && cs->depth)
		cs->depth--;
}

/*
 * The task of @ev's thread ended without its return (see the top): feed
 * its end, at @ev's time, flagged VS_TASK_NO_RETURN.
 */
static void end_unreturned(struct vs_session *s, struct vs_probe_thread *th,
			   const struct vs_acct_event *ev)
{
	struct vs_acct_event end = {
		.time = ev->time, .cpu = ev->cpu, .tid = ev->tid,
		.kind = VS_ACCT_TASK_END, .type = th->type,
		.id = (uint64_t)ev->tid << 32 | th->seq,
		.flags = VS_TASK_FUNC_PROBE | VS_TASK_NO_RETURN,
	};

	s->probe->no_return[th->type - 1]++;
	if (th->selected)
		vs_acct_feed(s->acct, &end);
}

/*
 * The --probe calls of @th that @e shows left, by the stack pointer
 * @limit (see take_event()): their exits, at @e's time (their own
 * returns never come).
 */
static void end_measured(struct vs_session *s, struct vs_probe_thread *th,
			 const struct vs_acct_event *ev, uint64_t limit)
{
	uint32_t depth = pop_calls(&th->measured, limit);

	while (depth-- > th->measured.depth) {
		write_func(s, ev, th->measured.call[depth].func, false);
		s->probe->measured_no_return++;
	}
}

/*
 * Event @e of a thread, in time order.  First the open calls it shows
 * over (see the top): a return hit at stack pointer R is the return of
 * the call entered at R - 8, and the calls inside it were left; an entry
 * at S leaves the open calls entered at S or below it; any other event
 * at U, those entered below U - 8 (from a call's ret to its uretprobe
 * the stack pointer is one word above its entry's, and the first ret of
 * a process faults the kernel's trampoline page in).  Then, for a hit of
 * a --probe function, its VS_REC_FUNC record; of a --task-func, the call:
 * the outermost call is the task (a thread is in one task at a time),
 * and a call of another function inside it is counted, as no task.
 * Fills in the task's id; false when @e is no event of the accounting (a
 * measured call, a nested call, a return without entry, a task not
 * selected).
 */
static bool take_event(struct vs_session *s, struct vs_pending *e)
{
	struct vs_probe *p = s->probe;
	struct vs_acct_event *ev = &e->ev;
	bool entry = ev->kind == VS_ACCT_TASK_BEGIN;
	bool ret = ev->kind == VS_ACCT_TASK_END;
	bool measured = (entry || ret) && ev->type > (uint32_t)p->nr_task_func;
	struct vs_probe_thread *th = probe_thread(p, ev->tid, entry);
	uint64_t limit = entry ? e->sp + 1 : ret ? e->sp :
			 e->sp > 8 ? e->sp - 8 : 0;
	uint32_t depth;

	if (p->stop_time && ev->time > p->stop_time)
		return false;	/* after the recording */
	if (!th)
		return !entry && !ret;
	if (ev->kind == VS_ACCT_TRUNCATE) {	/* its open call is cut */
		depth = th->tasks.depth;
		th->tasks.depth = 0;
		return depth && th->selected;
	}
	/* a return's own call is popped below, the ones inside it here */
	end_measured(s, th, ev, ret && limit ? limit - 8 : limit);
	if (measured) {
		if (ret)
			pop_return(&th->measured, e->sp);
		else
			push_call(&th->measured, e->sp, ev->type - 1 -
				  p->nr_task_func);
		write_func(s, ev, ev->type - 1 - p->nr_task_func, entry);
		return false;
	}
	depth = th->tasks.depth;
	if (ret) {
		pop_return(&th->tasks, e->sp);
		ev->id = (uint64_t)ev->tid << 32 | th->seq;
		return depth && !th->tasks.depth && th->selected;
	}
	pop_calls(&th->tasks, limit);
	if (depth && !th->tasks.depth)
		end_unreturned(s, th, ev);
	if (!entry)
		return true;
	if (th->tasks.depth && ev->type != th->type)
		p->nested[ev->type - 1]++;
	if (!push_call(&th->tasks, e->sp, ev->type) || th->tasks.depth > 1)
		return false;
	th->type = ev->type;
	th->selected = select_task(p);
	th->seq++;
	ev->id = (uint64_t)ev->tid << 32 | th->seq;
	return th->selected;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct vs_pending *x = a, *y = b;

	if (x->ev.time != y->ev.time)
		return x->ev.time < y->ev.time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void vs_probe_flush(struct vs_session *s, uint64_t read_time, bool all)
{
	struct vs_probe *p = s->probe;
	uint64_t horizon = read_time > VS_MERGE_MARGIN_NS ?
			   read_time - VS_MERGE_MARGIN_NS : 0;
	unsigned int i;

	if (!p->nr_pending)	/* pending may still be NULL */
		return;
	qsort(p->pending, p->nr_pending, sizeof(*p->pending), cmp_pending);
	for (i = 0; i < p->nr_pending; i++) {
		struct vs_acct_event *ev = &p->pending[i].ev;

		if (!all && ev->time >= horizon)
			break;
		if (ev->time > s->last_time)
			s->last_time = ev->time;
		if (ev->kind == VS_ACCT_THREAD_EXIT)
			forget_thread(p, ev->tid);
		if (!take_event(s, &p->pending[i]))
			continue;
		vs_acct_feed(s->acct, ev);
	}
	memmove(p->pending, p->pending + i,
		(p->nr_pending - i) * sizeof(*p->pending));
	p->nr_pending -= i;
}

void vs_probe_free(struct vs_session *s)
{
	struct vs_probe *p = s->probe;
	struct vs_probe_thread *th, *next;
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_ids; i++)
		close(p->ids[i].fd);
	for (i = 0; i < (unsigned int)p->nr_func; i++) {
		vs_uprobe_destroy(p->dyn[i][0]);
		vs_uprobe_destroy(p->dyn[i][1]);
	}
	for (i = 0; i < VS_PROBE_BUCKETS; i++)
		for (th = p->threads[i]; th; th = next) {
			next = th->next;
			free(th->tasks.call);
			free(th->measured.call);
			free(th);
		}
	free(p->ids);
	free(p->pending);
	free(p);
	s->probe = NULL;
}
