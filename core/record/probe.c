// SPDX-License-Identifier: MIT
/*
 * probe.c - --task-func: every call of a function is an AppTask,
 * from a uprobe at its entry and a uretprobe at its return, for programs
 * without annotations.
 *
 * The probes are the in-kernel engine's (core/record/task-acct.bpf.c): BPF
 * programs on the functions' uprobes and uretprobes keep the calls of the
 * traced processes (the command or -p's, and the children they fork).
 * Only those processes hit the probes: each function's entry and return
 * are uprobe trace events (tracefs), opened as perf events on each thread
 * of the command (or of -p's process and of the children it has), with
 * attr.inherit.  The kernel puts a trace event's breakpoints in the
 * address spaces of its perf events' tasks only, and runs the one copy
 * of its programs on their hits: a process that shares the library (or
 * runs the same executable) outside the recording never traps.  A child
 * inherits its parent's events at its fork and hits from its first
 * instruction.  Before Linux 6.12 an inherited event may be freed while
 * its process lives (see open_event()): the recorder gives each forked
 * process events of its own as soon as it reads its fork, and counts the
 * forks that came before (their calls may be missed for that while);
 * those are closed when the process exits.
 *
 * The outermost call of a --task-func function opens a task in the
 * thread's slot as the library's vs_task_begin() does, so it gets every
 * kernel event the engine accounts, wake-up edges included; its return
 * closes it and passes the task with its values through the engine's
 * ring.  Nothing reaches the recorder per call but the finished tasks it
 * selected.  A uprobe hit costs about 10 us here, twice per call (META
 * probe_cost_ns).
 *
 * A call that never returns (longjmp() past it, as PostgreSQL's ereport()
 * leaves PortalRun) never hits its uretprobe: the programs keep the user
 * stack pointer of each open call at its entry, where its return address
 * lies, and end the call at the first event of the thread (an entry, a
 * return, a switch out) whose stack pointer is above it, unless so far
 * above that it is on another stack; the outermost one's task is flagged
 * VS_TASK_NO_RETURN.
 *
 * --probe: the same probes, on functions measured rather than made tasks.
 * Each enter and exit, of every thread of the traced processes, becomes a
 * VS_REC_FUNC record (after the VS_REC_SYMBOL_DEF of its function): a
 * call may hold tasks (a thread's loop), and the analysis keeps the calls
 * inside or around them (core/analysis/func-times.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "core/array.h"
#include "core/perf-ring.h"
#include "core/proc.h"
#include "core/record/probe-cost.h"
#include "core/record/record-int.h"
#include "core/trace/trace-head.h"
#include "core/uprobe.h"

#define VS_MAX_FUNCS	(VS_MAX_TASK_FUNCS + VS_MAX_PROBE_FUNCS)

_Static_assert(VS_MAX_FUNCS <= VS_CALL_FUNCS,
	       "the engine keeps the calls of every probed function");

/* The perf events of the probes on a traced process's threads. */
struct vs_probe_proc {
	pid_t pid;		/* 0: gone, its events kept */
	bool handed_down;	/* its children inherit them */
	uint64_t since;		/* when they were opened (perf clock) */
	int *fd;
	size_t nr_fd, alloc_fd;
};

struct vs_probe {
	/* the --task-func ones first, then the --probe ones */
	struct vs_func_probe func[VS_MAX_FUNCS];
	int nr_func;
	int nr_task_func;
	/* the uprobe trace events of each function's entry [0] and return [1] */
	struct tracefs_dynevent *event[VS_MAX_FUNCS][2];
	int event_id[VS_MAX_FUNCS][2];
	bool programs_on;	/* the engine's programs run on their hits */
	struct vs_probe_proc *procs;
	size_t nr_procs, alloc_procs;
	uint64_t unfollowed;	/* processes whose own events failed */
	int unfollowed_errno;	/* why, the first time */
	/*
	 * The kernel took inherit with PERF_SAMPLE_READ (Linux 6.12), which
	 * keeps perf from swapping a parent's and a child's events; without
	 * it, the forks of a process before its own events are counted.
	 */
	bool no_swap;
	uint64_t early_forks;
};

/* Resolve the functions of the list @funcs, at most @max of them. */
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
						errlen);
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
	struct vs_bpf_call_stats st;

	if (!s->probe || !s->engine)
		return 0;
	vs_bpf_engine_call_stats(s->engine, &st);
	return st.measured_no_return;
}

bool vs_probe_func_stats(const struct vs_session *s, int i,
			 struct vs_probe_func_stats *st)
{
	const struct vs_probe *p = s->probe;
	struct vs_bpf_call_stats cs;

	if (!p || !s->engine || i >= p->nr_task_func)
		return false;
	vs_bpf_engine_call_stats(s->engine, &cs);
	st->symbol = p->func[i].symbol;
	st->outer = p->nr_task_func == 2 ? p->func[!i].symbol :
					   "another --task-func";
	st->nested = cs.nested[i];
	st->no_return = cs.no_return[i];
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

/*
 * The enter or exit of --probe function @func (its index among them) by
 * thread @tid at @time: one VS_REC_FUNC record.
 */
static void write_func(struct vs_session *s, const struct vs_call_record *c,
		       uint32_t func, bool enter)
{
	struct vs_record rec = { .kind = VS_REC_FUNC };

	rec.func = (struct vs_func){
		.time = c->start_ns, .tid = c->tid, .cpu = c->cpu,
		.symbol = func, .dir = enter ? VS_FUNC_ENTER : VS_FUNC_EXIT,
	};
	vs_session_write(s, &rec);
}

/* The engine's VS_CALL_* flags of a task as the trace's VS_TASK_* ones. */
static uint32_t task_flags(uint32_t call_flags)
{
	uint32_t flags = VS_TASK_FUNC_PROBE;

	if (call_flags & VS_CALL_NO_RETURN)
		flags |= VS_TASK_NO_RETURN;
	if (call_flags & VS_CALL_THREAD_EXIT)
		flags |= VS_TASK_THREAD_EXIT;
	if (call_flags & VS_CALL_TRUNCATED)
		flags |= VS_TASK_TRUNCATED;
	if (call_flags & VS_CALL_UNSTEADY)
		flags |= VS_TASK_DISTORTED;
	return flags;
}

/*
 * A record of the engine's calls ring: a task, or a --probe function's
 * enter or exit.  The programs made it, from the kernel's own state:
 * still, a function index out of the list or a task that ends before it
 * begins is dropped.
 */
static void on_call(void *ctx, const struct vs_call_record *c, size_t size)
{
	struct vs_session *s = ctx;
	const struct vs_probe *p = s->probe;
	struct vs_task task = { 0 };

	if (c->kind == VS_CALL_ENTER || c->kind == VS_CALL_EXIT) {
		if (c->func >= (uint32_t)p->nr_task_func &&
		    c->func < (uint32_t)p->nr_func)
			write_func(s, c, c->func - p->nr_task_func,
				   c->kind == VS_CALL_ENTER);
		return;
	}
	if (c->kind != VS_CALL_TASK || size < sizeof(*c) ||
	    c->func >= (uint32_t)p->nr_task_func || c->end_ns < c->start_ns)
		return;
	task.id = (uint64_t)c->tid << 32 | c->seq;
	task.type = c->func + 1;
	task.pid = c->pid;
	task.tid = c->tid;
	task.cpu = c->cpu;
	task.flags = task_flags(c->flags);
	task.start = c->start_ns;
	task.end = c->end_ns;
	task.epoch = s->epoch;
	vs_record_engine_task(s, &task, &c->v);
}

int vs_probe_attach(struct vs_session *s, char *err, size_t errlen)
{
	struct vs_probe *p = s->probe;
	char system[64], name[64];
	int i, ret;

	if (vs_bpf_engine_calls_setup(s->engine, p->nr_task_func,
				      s->opts->rate)) {
		snprintf(err, errlen, "cannot set the engine's slots aside for "
			 "the function tasks: %s", strerror(errno));
		return -1;
	}
	vs_bpf_engine_on_calls(s->engine, on_call, s);
	snprintf(system, sizeof(system), VS_UPROBE_GROUP "%d", getpid());
	for (i = 0; i < p->nr_func; i++)
		for (ret = 0; ret < 2; ret++) {
			snprintf(name, sizeof(name), "f%d_%s", i,
				 ret ? "return" : "entry");
			p->event_id[i][ret] = vs_uprobe_create(&p->func[i], ret,
							       system, name,
							       &p->event[i][ret],
							       err, errlen);
			if (p->event_id[i][ret] < 0)
				return -1;
		}
	return 0;
}

/*
 * The perf event of the entry (@ret false) or return of function @i on
 * thread @tid, inherited by the children it forks from now on when
 * @inherit; -1 with errno set (ESRCH: the thread is gone).
 *
 * An inherited event is freed with the task that holds it when that task
 * exits; perf gives a child's context to its parent and the parent's to
 * the child at a context switch when all the events of one are inherited
 * copies of the other's ("clones"), and then a child that exits frees
 * the parent's copy: a process left without an event of its own loses
 * the breakpoints (the kernel takes them out of an address space no
 * event wants).  Inherited events that sample with PERF_SAMPLE_READ
 * forbid that swap (Linux 6.12); they never sample here (the period is
 * out of reach, and the programs return 0: the kernel does no perf work
 * on the hits).  Before 6.12 they are plain counting events.
 */
static int open_event(struct vs_probe *p, int i, bool ret, pid_t tid,
		      bool inherit)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT,
		.config = p->event_id[i][ret], .inherit = inherit,
		.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID,
		.sample_period = 1ull << 62,
	};
	int fd = vs_perf_open(&attr, tid, -1, -1);

	if (fd >= 0 && inherit)
		p->no_swap = true;
	if (fd < 0 && errno == EINVAL && inherit) {
		attr.sample_type = 0;
		attr.sample_period = 0;
		fd = vs_perf_open(&attr, tid, -1, -1);
	}
	return fd;
}

/*
 * The engine's programs, on perf events of thread @tid that it never
 * hands down: before 6.12 perf may give a task's events to a child whose
 * events are all inherited copies of them (it swaps their contexts at a
 * context switch), and when that child exits, the programs on them stop
 * running (seen on 6.18 without the PERF_SAMPLE_READ of open_event()).
 * With one event a task's children do not inherit, their contexts are
 * no copies of its and never swapped with it.
 */
static int attach_programs(struct vs_session *s, pid_t tid, char *err,
			   size_t errlen)
{
	struct vs_probe *p = s->probe;
	int i, ret, fd;

	for (i = 0; i < p->nr_func; i++)
		for (ret = 0; ret < 2; ret++) {
			fd = open_event(p, i, ret, tid, false);
			if (fd < 0)
				return -1;
			if (vs_bpf_engine_attach_call(s->engine, i, ret, fd,
						      err, errlen))
				return -1;
		}
	p->programs_on = true;
	return 0;
}

/* Keep perf event @fd in @pp: -1 with errno set when it failed. */
static int keep_event(struct vs_probe_proc *pp, int fd)
{
	if (fd < 0)
		return -1;
	if (ALLOC_GROW(pp->fd, pp->nr_fd + 1, pp->alloc_fd)) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	pp->fd[pp->nr_fd++] = fd;
	return 0;
}

/*
 * The probes' perf events on thread @tid, into @pp: -1 with errno set.
 * Inherited ones come with one more that is not, before 6.12: the
 * contexts of the thread's children are then no copies of its own, and
 * perf never swaps them (see attach_programs()).
 */
static int open_thread(struct vs_probe *p, struct vs_probe_proc *pp,
		       pid_t tid, bool inherit)
{
	int i, ret;

	for (i = 0; i < p->nr_func; i++)
		for (ret = 0; ret < 2; ret++)
			if (keep_event(pp, open_event(p, i, ret, tid, inherit)))
				return -1;
	if (inherit && !p->no_swap)
		return keep_event(pp, open_event(p, 0, false, tid, false));
	return 0;
}

static void close_proc(struct vs_probe_proc *pp)
{
	while (pp->nr_fd)
		close(pp->fd[--pp->nr_fd]);
	free(pp->fd);
}

/*
 * Open the probes on each thread of process @pid (none known yet),
 * inherited by the children they fork when @inherit: 0, or -1 with errno
 * set (ESRCH: the process is gone).
 */
static int follow(struct vs_probe *p, pid_t pid, bool inherit)
{
	struct vs_probe_proc *pp;
	struct vs_proc_tids tids;
	int ret = 0, opened = 0, saved;
	pid_t tid;

	if (ALLOC_GROW(p->procs, p->nr_procs + 1, p->alloc_procs))
		return -1;
	pp = &p->procs[p->nr_procs];
	*pp = (struct vs_probe_proc){ .pid = pid, .handed_down = inherit };
	if (vs_proc_tids_open(&tids, pid)) {
		errno = ESRCH;
		return -1;
	}
	while (!ret && (tid = vs_proc_tids_next(&tids))) {
		ret = open_thread(p, pp, tid, inherit);
		if (ret && errno == ESRCH)
			ret = 0;	/* it exited: its events went with it */
		else if (!ret)
			opened++;
	}
	vs_proc_tids_close(&tids);
	if (!ret && !opened) {
		ret = -1;
		errno = ESRCH;
	}
	if (ret) {
		saved = errno;
		close_proc(pp);
		errno = saved;
		return -1;
	}
	pp->since = vs_perf_clock_ns();
	p->nr_procs++;
	return 0;
}

static struct vs_probe_proc *find_proc(const struct vs_probe *p, pid_t pid)
{
	size_t i;

	for (i = 0; i < p->nr_procs; i++)
		if (p->procs[i].pid == pid)
			return &p->procs[i];
	return NULL;
}

int vs_probe_trace(struct vs_session *s, pid_t pid, char *err, size_t errlen)
{
	struct vs_probe *p = s->probe;

	err[0] = '\0';
	if (vs_bpf_engine_trace_process(s->engine, pid) ||
	    (!p->programs_on && attach_programs(s, pid, err, errlen)) ||
	    (!find_proc(p, pid) && follow(p, pid, true))) {
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A forked process inherited the probes, which stay its own from 6.12 on;
 * before, events of its own, which its children do not inherit, keep them
 * when a child that swapped events with it exits.
 */
void vs_probe_follow(struct vs_session *s, pid_t pid)
{
	struct vs_probe *p = s->probe;

	if (!p || !p->programs_on || p->no_swap || find_proc(p, pid))
		return;
	if (follow(p, pid, false) && errno != ESRCH && !p->unfollowed++)
		p->unfollowed_errno = errno;
}

void vs_probe_forget(struct vs_session *s, pid_t pid)
{
	struct vs_probe *p = s->probe;
	struct vs_probe_proc *pp = p ? find_proc(p, pid) : NULL;

	if (!pp)
		return;
	/* closing an event frees its inherited copies too */
	if (pp->handed_down) {
		pp->pid = 0;
		return;
	}
	close_proc(pp);
	*pp = p->procs[--p->nr_procs];
}

void vs_probe_forked(struct vs_session *s, pid_t ppid, uint64_t time)
{
	struct vs_probe *p = s->probe;
	struct vs_probe_proc *pp;

	if (!p || !p->programs_on || p->no_swap)
		return;
	pp = find_proc(p, ppid);
	if (!pp || time < pp->since)
		p->early_forks++;
}

uint64_t vs_probe_early_forks(const struct vs_session *s)
{
	return s->probe ? s->probe->early_forks : 0;
}

uint64_t vs_probe_unfollowed(const struct vs_session *s, int *why)
{
	if (!s->probe)
		return 0;
	*why = s->probe->unfollowed_errno;
	return s->probe->unfollowed;
}

void vs_probe_stop(struct vs_session *s, uint64_t time)
{
	if (s->probe && s->engine)
		vs_bpf_engine_stop_calls(s->engine, time);
}

void vs_probe_free(struct vs_session *s)
{
	struct vs_probe *p = s->probe;
	int i, ret;

	if (!p)
		return;
	while (p->nr_procs)
		close_proc(&p->procs[--p->nr_procs]);
	free(p->procs);
	/* after the engine's close: no perf event holds them any more */
	for (i = 0; i < p->nr_func; i++)
		for (ret = 0; ret < 2; ret++)
			vs_uprobe_destroy(p->event[i][ret]);
	free(p);
	s->probe = NULL;
}
