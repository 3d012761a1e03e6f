/* SPDX-License-Identifier: MIT */
/*
 * task-samples.h - the samples of a trace, tied to the tasks they were
 * taken in, with symbolized callchains; and per-task function times.
 *
 * The hybrid of Akiyama et al.: coarse instrumentation says when each
 * task ran on each thread, sampling says which function ran when.  A
 * sample belongs to the task of its thread whose begin and end bracket
 * its time (section III-D), whatever CPUs the thread ran on meanwhile.
 *
 * Layout, for every analysis over per-task samples (function times here,
 * the variance tree of call paths later):
 *
 *   tasks[]    every task of the trace, by type then start time; each
 *              names its samples: samples[first .. first + nr)
 *   samples[]  by task, in time order (a task's own, and copies of those
 *              of the intervals attached to it); each has its time, the ns it
 *              stands for (weight_ns) and its callchain as symbol ids:
 *              frames[chain .. chain + nr_frames), the sampled ip first,
 *              then its callers (kernel frames before user frames)
 *   symbols[]  id -> function name and file; id 0 is "[unknown]"
 *
 * Symbolization happens once per (process, address): a cache in front of
 * core/symbols/.  User addresses resolve through the trace's MMAP records
 * (build-ids checked: a binary replaced since the recording is reported,
 * not mis-symbolized), kernel addresses through /proc/kallsyms, code
 * outside any file through perf's /tmp/perf-PID.map.
 */
#ifndef VS_CORE_TASK_SAMPLES_H
#define VS_CORE_TASK_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct vs_ts_symbol {
	const char *name;	/* "f3", "clear_page_erms", "[libc.so.6]" */
	const char *file;	/* the binary, "[kernel]", "[jit]", "" */
	const char *src;	/* "f3.c:12" with debug info, else NULL */
};

/* The file of kernel symbols and of JIT code (vs_ts_symbol.file). */
#define VS_TS_KERNEL_FILE	"[kernel]"
#define VS_TS_JIT_FILE		"[jit]"

/*
 * A sample of an interval attached to the task (vs_task_attach(), taken
 * on the worker's thread): a copy of the interval's own, so that the
 * served task's function times and variance tree hold the time of the
 * threads that worked for it.
 */
#define VS_TS_SAMPLE_ATTACHED	(1u << 31)

struct vs_ts_sample {
	uint64_t time;
	uint64_t weight_ns;	/* the time it stands for (see below) */
	uint32_t cpu;
	uint32_t flags;		/* VS_SAMPLE_*, VS_TS_SAMPLE_ATTACHED */
	uint32_t chain;		/* its first frame in frames[] */
	uint32_t nr_frames;	/* at least 1: the sampled ip */
};

struct vs_ts_task {
	uint64_t id;		/* the task record's id */
	uint64_t serves;	/* an attached interval: the task it serves */
	uint32_t type, pid, tid;
	uint64_t start, end;
	uint64_t first;		/* its samples: samples[first .. first + nr) */
	uint32_t nr;
	bool closed;		/* its samples' weights split a measured total
				   (its task-clock or latency) evenly: a
				   function's estimate is a share of it */
};

struct vs_task_samples {
	size_t nr_tasks;
	struct vs_ts_task *tasks;	/* by type, then start */
	size_t nr_samples;
	struct vs_ts_sample *samples;
	uint32_t *frames;		/* symbol ids */
	size_t nr_frames;
	unsigned int nr_symbols;
	struct vs_ts_symbol *symbols;
	uint64_t unattributed;		/* samples no task of their thread
					 * brackets (taken between the
					 * ring's resume and the begin) */
	size_t nr_stale;		/* binaries replaced since recording */
	char **stale;			/* their paths */
	uint64_t stale_frames;		/* frames in them, not symbolized */
	uint32_t *by_id;		/* task indices by record id */
	unsigned int nr_trace_events;	/* the trace's catalog size */
	struct vs_ts_build *build;	/* reading state, NULL once done */
};

/*
 * weight_ns: the task's CPU time (its task-clock value) divided by its
 * samples.  A PEBS period counts events (micro-ops), not time, so this is
 * the only way to turn it into time (without task-clock: the task's
 * latency over its samples).  A cpu-clock period is ns of CPU time, but a
 * timer interrupt that comes late (a virtual machine under load: 20% and
 * more) makes fewer samples than the CPU time over the period; the
 * task's own measure corrects that (without task-clock: the period).
 */

/**
 * vs_task_samples_read - read the tasks and samples of a trace, tie each
 * sample to its task, symbolize the callchains
 * @err: one line on failure ("FILE: what at byte N")
 *
 * Returns 0 (VS_LOAD_OK), VS_LOAD_ERROR or VS_LOAD_CORRUPT
 * (core/analysis/taskset.h).
 */
int vs_task_samples_read(const char *path, struct vs_task_samples **out,
			 char *err, size_t errlen);

/* The progress of a read: bytes of the file behind, of @total. */
typedef void (*vs_read_progress_fn)(void *arg, uint64_t done, uint64_t total);

/**
 * vs_task_samples_read_progress - vs_task_samples_read(), calling
 * @progress (when not NULL) with @arg now and then as it goes: a trace
 * of samples to unwind reads for seconds
 */
int vs_task_samples_read_progress(const char *path,
				  struct vs_task_samples **out, char *err,
				  size_t errlen, vs_read_progress_fn progress,
				  void *arg);

/*
 * Building by hand (what vs_task_samples_read() does; unit tests use it
 * with synthetic streams): new, then tasks and samples in any order (a
 * sample's frames already symbol ids, see vs_task_samples_symbol()), then
 * finish, which attributes the samples to the tasks.
 */
struct vs_task_samples *vs_task_samples_new(void);
int vs_task_samples_add_task(struct vs_task_samples *ts,
			     const struct vs_task *t, uint64_t cpu_ns);
int vs_task_samples_add_sample(struct vs_task_samples *ts,
			       const struct vs_sample *s,
			       const uint32_t *frames, uint32_t nr_frames);
/* A VS_REC_ATTACH record (others are ignored): before its interval's task */
int vs_task_samples_add_attach(struct vs_task_samples *ts,
			       const struct vs_record *rec);
/* The id of function @name of @file, made on first use; -1: no memory. */
int64_t vs_task_samples_symbol(struct vs_task_samples *ts, const char *name,
			       const char *file);
int vs_task_samples_finish(struct vs_task_samples *ts);

void vs_task_samples_free(struct vs_task_samples *ts);

/**
 * vs_task_samples_type - the tasks of type @type: *@first and the count
 * (0 when there are none)
 */
size_t vs_task_samples_type(const struct vs_task_samples *ts, uint32_t type,
			    size_t *first);

/**
 * vs_task_samples_find - the task with record id @id, or NULL
 */
const struct vs_ts_task *vs_task_samples_find(const struct vs_task_samples *ts,
					      uint64_t id);

/* --- per-task function times ------------------------------------------ */

/*
 * The time of function f in task T, from the samples of T whose ip is in
 * f (f's own time, its callees not included, as the paper):
 *
 *   VS_FUNC_COUNT  the sum of their weight_ns: the number of samples
 *                  times the period (the default; unbiased, and what
 *                  perf's profiles compute, per task)
 *   VS_FUNC_SPAN   the time from the first to the last of them, the
 *                  paper's estimate (section III-D step 3): 0 with one
 *                  sample, and short of the truth by up to two periods;
 *                  a function left and re-entered counts whole
 */
enum vs_func_estimator {
	VS_FUNC_COUNT,
	VS_FUNC_SPAN,
};

/* "count" or "span" -> estimator; -1 when neither */
int vs_func_estimator_parse(const char *name);

/**
 * vs_func_time - the time of function @symbol in @task by @est, ns
 */
uint64_t vs_func_time(const struct vs_task_samples *ts,
		      const struct vs_ts_task *task, uint32_t symbol,
		      enum vs_func_estimator est);

/*
 * Function times as events for the report: per task type, the functions
 * holding at least VS_FUNC_MIN_SHARE of the type's sampled time (at most
 * VS_FUNC_MAX_EVENTS of them, the largest) become events
 * "func:<symbol>.time" (group VS_GROUP_FUNC, unit ns), valued in every
 * task of the type (0 where the function was not sampled).  Likewise by
 * inclusive time, the function anywhere on the samples' stacks (its
 * callees' time included, once per sample): "func:<symbol>.total", but
 * for the functions on VS_FUNC_TOTAL_MAX_SHARE of the type's samples or
 * more (main, the task's own function: its CPU time again) and for those
 * no sample shows calling a function of the program (a leaf, under which
 * only the kernel's frames of an interrupt or system call are: its own
 * time again).
 */
#define VS_FUNC_MIN_SHARE	0.005
#define VS_FUNC_TOTAL_MAX_SHARE	0.98
#define VS_FUNC_MAX_EVENTS	32

struct vs_func_events;

/**
 * vs_func_events_new - choose the functions of each type and number their
 * events from @first_id (above the trace's own catalog)
 * Returns NULL when memory runs out.
 */
struct vs_func_events *vs_func_events_new(const struct vs_task_samples *ts,
					  enum vs_func_estimator est,
					  uint16_t first_id);
void vs_func_events_free(struct vs_func_events *fe);

/* The event definitions, ids first_id ... */
const struct vs_event_def *vs_func_events_defs(const struct vs_func_events *fe,
					       unsigned int *nr);

/**
 * vs_func_events_values - the function events of task record @t into
 * @buf (room for @max); returns how many (0: not a sampled task)
 *
 * Safe to call from several threads at once.
 */
uint32_t vs_func_events_values(const struct vs_func_events *fe,
			       const struct vs_task *t, struct vs_value *buf,
			       uint32_t max);

#endif /* VS_CORE_TASK_SAMPLES_H */
