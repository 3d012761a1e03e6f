// SPDX-License-Identifier: MIT
/*
 * probe.c - --task-func: every call of a function is an AppTask,
 * from a uprobe at its entry and a uretprobe at its return, for programs
 * without annotations.
 *
 * The probes are the in-kernel engine's (core/record/task-acct.bpf.c): BPF
 * programs on the functions' uprobes and uretprobes, attached once for
 * every process of the binary, keep the calls of the traced processes
 * (the command or -p's, and the children they fork).  The outermost call
 * of a --task-func function opens a task in the thread's slot as the
 * library's vs_task_begin() does, so it gets every kernel event the
 * engine accounts, wake-up edges included; its return closes it and
 * passes the task with its values through the engine's ring.  Nothing
 * reaches the recorder per call but the finished tasks it selected.  A
 * uprobe hit costs about 10 us here, twice per call (META probe_cost_ns).
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

#include "core/record/probe-cost.h"
#include "core/record/record-int.h"
#include "core/trace/trace-head.h"
#include "core/uprobe.h"

#define VS_MAX_FUNCS	(VS_MAX_TASK_FUNCS + VS_MAX_PROBE_FUNCS)

_Static_assert(VS_MAX_FUNCS <= VS_CALL_FUNCS,
	       "the engine keeps the calls of every probed function");

struct vs_probe {
	/* the --task-func ones first, then the --probe ones */
	struct vs_func_probe func[VS_MAX_FUNCS];
	int nr_func;
	int nr_task_func;
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
	int i;

	if (vs_bpf_engine_calls_setup(s->engine, p->nr_task_func,
				      s->opts->rate)) {
		snprintf(err, errlen, "cannot set the engine's slots aside for "
			 "the function tasks: %s", strerror(errno));
		return -1;
	}
	vs_bpf_engine_on_calls(s->engine, on_call, s);
	for (i = 0; i < p->nr_func; i++)
		if (vs_bpf_engine_attach_call(s->engine, i, p->func[i].binary,
					      p->func[i].offset, err, errlen))
			return -1;
	return 0;
}

int vs_probe_trace(struct vs_session *s, pid_t pid)
{
	return vs_bpf_engine_trace_process(s->engine, pid);
}

void vs_probe_stop(struct vs_session *s, uint64_t time)
{
	if (s->probe && s->engine)
		vs_bpf_engine_stop_calls(s->engine, time);
}

void vs_probe_free(struct vs_session *s)
{
	free(s->probe);
	s->probe = NULL;
}
