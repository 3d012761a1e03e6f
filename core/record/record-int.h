/* SPDX-License-Identifier: MIT */
/*
 * record-int.h - what the parts of the recording engine share: the session
 * (core/record/record.c: output, main loop; command.c, control.c,
 * tracking.c: the command, its socket, its processes) and the
 * recorded threads (core/record/thread.c: the engine's slot and the task
 * ring of each).
 */
#ifndef VS_CORE_RECORD_INT_H
#define VS_CORE_RECORD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/record/hwcount.h"
#include "core/perf-ring.h"
#include "core/record/record.h"
#include "core/record/bpf-engine.h"
#include "core/record/task-values.h"
#include "core/trace/rotating-writer.h"
#include "core/record/task-ring.h"
#include "core/trace/trace.h"
#include "core/record/tracepoints.h"
#include "core/trace/type-names.h"

/* epoll data of the recorder's descriptors */
#define VS_WAKE_LISTEN		0	/* a thread registers */
#define VS_WAKE_RING		1	/* a ring passed its watermark */

/* What every sampled event of the recorder carries, in this order. */
#define VS_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

/* The sample_id_all trailer of VS_SAMPLE_TYPE (RAW is not part of it). */
struct vs_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

static inline const struct vs_sample_id *
vs_sample_id_of(const struct perf_event_header *h)
{
	return (const void *)((const char *)h + h->size -
			      sizeof(struct vs_sample_id));
}

/* The engine's software facts named per task (vs_rthread_sw_counters()). */
#define VS_NR_SW_COUNTERS	4

struct vs_record_stats {
	uint64_t threads;		/* registered */
	uint64_t refused;		/* registrations refused */
	uint64_t no_slot;		/* refused: every slot of the engine
					 * taken */
	uint64_t strangers;		/* connections from outside the
					 * command: closed unread */
	uint64_t silent;		/* the command's connections that sent
					 * nothing in time */
	uint64_t misnamed;		/* refused: they named a thread that
					 * did not send them */
	uint64_t lost_samples;		/* samples lost (a CPU's ring full) */
	uint64_t dropped_tasks;		/* task ring full in the library */
	uint64_t unmatched_ends;	/* vs_task_end() without begin */
	uint64_t names_refused;		/* task type names not written */
	uint64_t bad_threads;		/* threads whose task ring lied:
					 * their later tasks not read */
	uint64_t bad_tasks;		/* tasks dropped as impossible */
	uint64_t unseen_switch_tasks;	/* tasks with a wait whose switch-in
					 * no program saw */
};

struct vs_rthread;
struct vs_slot_values;

struct vs_session {
	const struct vs_record_opts *opts;
	struct vs_rotwriter *out;	/* one file, or numbered segments */
	int out_error;			/* errno of the first write failure */
	struct vs_catalog *cat;
	/* the in-kernel engine, which accounts the threads, and the names
	 * of its values */
	struct vs_bpf_engine *engine;
	struct vs_task_values *values;
	uint32_t epoch;			/* of tasks taken from now on */
	struct vs_tp_set tps;
	int epoll_fd;			/* rings past their watermark wake it */
	uint16_t sw_ids[VS_NR_SW_COUNTERS];	/* vs_rthread_sw_counters() */
	struct vs_rthread **threads;	/* hash by tid, chained */
	unsigned int nr_buckets;
	unsigned int nr_threads;
	struct vs_record_stats stats;
	struct vs_type_names type_names;	/* written so far */
	uint64_t tasks_taken;		/* handed to the writer */
	struct vs_probe *probe;		/* --task-func, or NULL */
	bool sampling;			/* --sample: sample_attr per CPU */
	struct perf_event_attr sample_attr;
	uint32_t sample_flags;		/* VS_SAMPLE_PRECISE for PEBS */
	/*
	 * hardware counters (VARSCOPE_TEST_SW_COUNTERS: software ones in
	 * their place), NULL: no PMU
	 */
	struct vs_hwcount *hw;
	uint64_t hw_failures;		/* epochs whose counters failed */
	char hw_error[160];		/* the first failure */
};

/**
 * vs_rthread_open - the engine's slot and the task ring of @tid
 *
 * Returns NULL with errno set.
 */
struct vs_rthread *vs_rthread_open(struct vs_session *s, uint32_t pid,
				   uint32_t tid);

/*
 * The descriptors for the thread's library, in enum vs_reg_fd order;
 * returns how many (VS_REG_MAX_FDS with counters).
 */
unsigned int vs_rthread_fds(const struct vs_session *s,
			    const struct vs_rthread *rt, int fds[VS_REG_MAX_FDS]);

/* They were sent: close what the recorder no longer needs. */
void vs_rthread_sent(struct vs_rthread *rt);

/**
 * vs_rthread_drain - write the tasks of the thread's task ring
 *
 * Returns the number of tasks read.
 */
unsigned int vs_rthread_drain(struct vs_session *s, struct vs_rthread *rt);

/**
 * vs_rthread_close - drain, then end the thread: an open task is closed at
 * @time with VS_TASK_THREAD_EXIT (@exited) or VS_TASK_TRUNCATED
 */
void vs_rthread_close(struct vs_session *s, struct vs_rthread *rt,
		      uint64_t time, bool exited);

/**
 * vs_record_engine_task - write @task, of the engine's values @kv (an
 * annotated task's slot or a function task's record): its values, the
 * threads that ran instead during its run-queue waits, the task
 */
void vs_record_engine_task(struct vs_session *s, struct vs_task *task,
			   const struct vs_slot_values *kv);

uint32_t vs_rthread_tid(const struct vs_rthread *rt);

/* The engine's slot of @rt. */
uint32_t vs_rthread_slot(const struct vs_rthread *rt);

/* The session's hash chain link of @rt. */
struct vs_rthread **vs_rthread_next(struct vs_rthread *rt);

/*
 * When @rt was opened (CLOCK_MONOTONIC ns, the perf events' clock): its
 * thread existed then, so an exit of its tid before is an earlier thread's.
 */
uint64_t vs_rthread_opened(const struct vs_rthread *rt);

/*
 * Intern the names of the engine's software facts (task-clock,
 * context-switches, page-faults, cpu-migrations); fills @s->sw_ids.
 */
void vs_rthread_sw_counters(struct vs_session *s);

/* --- --sample (core/record/sample.c) --- */

/**
 * vs_sample_setup - pick the sampling event of --sample on this machine
 * (PEBS, else cpu-clock, said in one line on stderr and in the trace)
 * into @s->sample_attr; nothing when --sample was not given
 *
 * Returns 0, or -1 with a one-line message in @err.
 */
int vs_sample_setup(struct vs_session *s, char *err, size_t errlen);

/**
 * vs_sample_open_cpu - open the sampling event on @cpu,
 * every thread's, into @ring of @pages data pages, with the engine's
 * filter attached (only the samples of threads inside a task reach the
 * ring; the engine owns the event's descriptor).  Returns 0 or -1 with
 * errno set.
 */
int vs_sample_open_cpu(struct vs_session *s, int cpu,
		       struct vs_perf_ring *ring, unsigned int pages);

/* A PERF_RECORD_SAMPLE of the sampling event: write it to the trace. */
void vs_sample_write(struct vs_session *s, const struct perf_event_header *h);

/**
 * vs_sample_ring_pages - @pages, the data pages of a ring the sampling
 * event writes into, grown for its samples: --call-graph dwarf copies
 * the user stack with each (8 KiB by default against some 300 bytes of
 * a frame-pointer sample), so its rings get one page more per 2 KiB of
 * stack copied for every page (4x at 8 KiB)
 */
unsigned int vs_sample_ring_pages(const struct vs_session *s,
				  unsigned int pages);

/* --- --task-func (core/record/probe.c) --- */

#define VS_MAX_TASK_FUNCS	16
#define VS_MAX_PROBE_FUNCS	64

struct vs_probe;

/**
 * vs_probe_init - resolve the --task-func list (comma separated
 * SYMBOL[@BINARY], task type = position + 1) and the --probe list (same
 * form, symbol id = position) into @s->probe; either may be NULL
 * @binary: the binary of a SYMBOL without @BINARY
 */
int vs_probe_init(struct vs_session *s, const char *task_funcs,
		  const char *probe_funcs, const char *binary, char *err,
		  size_t errlen);

/* --task-func was given: calls are the tasks, no library. */
bool vs_probe_tasks(const struct vs_session *s);

/* Write the VS_REC_SYMBOL_DEF records of the --probe functions. */
void vs_probe_write_symbols(struct vs_session *s);

/* --probe calls left without returning, whose exits were written. */
uint64_t vs_probe_funcs_left(const struct vs_session *s);

/* What became of the calls of one --task-func, for the summary. */
struct vs_probe_func_stats {
	const char *symbol;
	const char *outer;	/* the other function's name, or a phrase */
	uint64_t nested;	/* made inside a call of another: not tasks */
	uint64_t no_return;	/* outermost calls left without returning */
};

/*
 * vs_probe_func_stats - fill @st for the @i-th --task-func; false when
 * there is none
 */
bool vs_probe_func_stats(const struct vs_session *s, int i,
			 struct vs_probe_func_stats *st);

/**
 * vs_probe_attach - the functions' probes in the engine (@s->engine,
 * opened with VS_BPF_CALLS): their programs attached, the slots of the
 * function tasks set aside, the tasks and enters and exits they pass
 * written as vs_bpf_engine_read_events() reads them
 * @err: one line on failure
 *
 * Returns 0 or -1.
 */
int vs_probe_attach(struct vs_session *s, char *err, size_t errlen);

/**
 * vs_probe_trace - the probes count the calls of process @pid, and of
 * the children it forks from now on: it is traced, and its threads get
 * the probes (vs_probe_follow())
 * @err: one line on failure ("No such process" when it is gone)
 *
 * Returns 0 or -1.
 */
int vs_probe_trace(struct vs_session *s, pid_t pid, char *err, size_t errlen);

/*
 * A new process @pid of the command (read in its FORK, or found in
 * /proc): its threads get the probes' perf events of their own, which
 * it keeps until vs_probe_forget(), beside those it inherited at its
 * fork.  A process gone already is left; one whose events could not be
 * opened is counted (vs_probe_unfollowed()).
 */
void vs_probe_follow(struct vs_session *s, pid_t pid);

/* Process @pid of the command is gone: its probes' events are closed. */
void vs_probe_forget(struct vs_session *s, pid_t pid);

/*
 * Process @ppid of the command forked a child or started a thread at
 * @time: before its own events on a kernel older than 6.12, that child
 * and it may swap their events, and the calls of either may be missed
 * until it has its own (counted, vs_probe_early_forks()).
 */
void vs_probe_forked(struct vs_session *s, pid_t ppid, uint64_t time);
uint64_t vs_probe_early_forks(const struct vs_session *s);

/*
 * The processes vs_probe_follow() could not give events of their own
 * (they kept the ones they inherited), and in @why the errno of the first.
 */
uint64_t vs_probe_unfollowed(const struct vs_session *s, int *why);

/*
 * The recording stops at @time (a signal, --duration, the end of an
 * attach): the --task-func calls open then end as tasks flagged
 * VS_TASK_TRUNCATED, and later hits make none.
 */
void vs_probe_stop(struct vs_session *s, uint64_t time);

void vs_probe_free(struct vs_session *s);

/* vs_session_name_type() of each --task-func type: its function. */
void vs_probe_name_types(struct vs_session *s);

/*
 * --task-func: META VS_META_PROBE_COST, measured now
 * (core/record/probe-cost.h).
 */
void vs_probe_write_cost(struct vs_session *s);

/* --- task type names (core/record/names.c) --- */

/*
 * Types named at most: a flood of names costs a bounded table (the
 * record summary says the number).
 */
#define VS_MAX_TYPE_NAMES	4096

/**
 * vs_session_name_type - write the name of task type @type: the @len
 * bytes of @name (untrusted), unless the type has a name, the name is
 * not valid (vs_type_name_valid()) or VS_MAX_TYPE_NAMES types have one;
 * what is refused counts in stats.names_refused.  True when written.
 */
bool vs_session_name_type(struct vs_session *s, uint32_t type,
			  const char *name, size_t len);

/**
 * vs_session_name_type_msg - vs_session_name_type() of a program's
 * vs_task_type_name() message
 */
bool vs_session_name_type_msg(struct vs_session *s,
			      const struct vs_type_name_msg *msg);

/* Session helpers used by the thread and sampling parts. */
struct vs_rthread *vs_session_thread(struct vs_session *s, uint32_t tid);
/* a finished task: written (with cpu.freq under a PMU) and counted */
void vs_session_task(struct vs_session *s, const struct vs_task *task);
void vs_session_write(struct vs_session *s, const struct vs_record *rec);
/* a META record: what `varscope script` lists and varscope-record(1) names */
void vs_session_write_meta(struct vs_session *s, const char *key,
			   const char *value);

#endif /* VS_CORE_RECORD_INT_H */
