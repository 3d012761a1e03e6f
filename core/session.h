/* SPDX-License-Identifier: MIT */
/*
 * session.h - one reading of a trace, or of a set of segment files: what
 * report, tui, diff and segments read before they analyse (perf's
 * perf_session).
 *
 * A session opened on a trace reads, in this order and with the common
 * reader options (--type, --time, readers in parallel, a progress
 * callback):
 *
 *   - the head (vs_trace_head_read(): samples, probes, wake-ups, notes);
 *   - the samples and probed calls as function events
 *     (core/analysis/func-events.h);
 *   - the task set, in one pass by @parts readers, which also collects
 *     what the wake-up blame needs, who ran instead of the tasks and, with @slice_ns, the latencies of
 *     each slice of the file;
 *   - the wake-up blame (core/analysis/wakeup.h).
 *
 * A session over a list of segments (vs_session_read_segments()) reads
 * each file once for all its segments and hands each segment's tasks to
 * the caller.  Printing stays with the caller: a session reports through
 * its return value, @err and the task set's warning.
 */
#ifndef VS_CORE_SESSION_H
#define VS_CORE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis/segments.h"
#include "core/analysis/task-samples.h"
#include "core/analysis/taskset.h"
#include "core/parse-options.h"
#include "core/trace/trace-head.h"

/* Readers in parallel at most: one per CPU up to this many. */
#define VS_SESSION_PARTS_MAX	4

struct vs_session_opts {
	const char *type;		/* --type: a name or a number; NULL:
					 * every type */
	const struct vs_time_option *time;	/* --time: the tasks that end
					 * in it; NULL: all.  Neither the
					 * wake-up blame nor who ran instead
					 * is read then (both want the whole
					 * recording) */
	bool type_resolved;		/* @type_number is @type's number */
	uint32_t type_number;
	bool latency_only;		/* latencies alone: no catalog, no
					 * event columns */
	bool funcs;			/* samples and probed calls as
					 * function events */
	enum vs_func_estimator func_time;	/* of the sampled functions */
	bool wakeups;			/* the wake-up blame */
	bool wake_parts;		/* ... with each wait's blamed parts
					 * (vs_wake_build_new()'s @parts) */
	bool ran_instead;		/* who ran instead of the tasks
					 * (ts->ran, analysis/ran-instead.h) */
	unsigned int parts;		/* readers in parallel (<= 1: one);
					 * see vs_session_parts() */
	uint64_t slice_ns;		/* vs_session_open(): also the
					 * latencies of each slice this long
					 * of the file; 0: none */
	/*
	 * Progress: @stage (when set) as each stage begins, with "Reading
	 * samples" and "Reading tasks", and @progress with the bytes done
	 * of it (the samples' only with @stage); both get @progress_arg.
	 */
	void (*stage)(void *arg, const char *what);
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

struct vs_session {
	const char *path;		/* the trace */
	struct vs_trace_head head;
	struct vs_func_sources *funcs;	/* NULL without opts.funcs */
	struct vs_taskset *ts;		/* the tasks */
	struct vs_wake_blame *wakeups;	/* NULL: none, or see wake_err */
	char wake_err[256];		/* why the blame is missing though
					 * the trace has wake-ups, or that
					 * --time leaves it out; "" none */
	struct vs_segment_list slices;	/* opts.slice_ns: its slices */
	struct vs_taskset **slice_ts;	/* ... and their latencies, owned
					 * (vs_session_take_slice()) */
};

/**
 * vs_session_parts - the readers in parallel a reading command uses: one
 * per online CPU, at most VS_SESSION_PARTS_MAX
 */
unsigned int vs_session_parts(void);

/**
 * vs_session_type - resolve --type @opts->type into @opts->type_number
 * with the names of the traces @paths (@nr of them), once
 *
 * A name in none of them exits through option_error().  Nothing to do
 * without --type or when it is resolved already.  Returns 0, or -1 when
 * memory runs out.
 */
int vs_session_type(struct vs_session_opts *opts, const char *const *paths,
		    size_t nr);

/**
 * vs_session_open - read the trace @path into @s
 * @s: the session, zeroed by this call
 * @path: the trace
 * @opts: what to read (see struct vs_session_opts)
 * @err/@errlen: one line on failure ("FILE: what at byte N")
 *
 * --type is resolved first unless it is already (vs_session_type()).
 * A failure of the wake-up blame alone is no failure: @s->wake_err says
 * it and the session has no blame.  Whatever was read
 * before a failure stays in @s (the function sources' warnings); close
 * @s either way.  Returns VS_LOAD_OK, VS_LOAD_ERROR or VS_LOAD_CORRUPT.
 */
int vs_session_open(struct vs_session *s, const char *path,
		    const struct vs_session_opts *opts, char *err,
		    size_t errlen);

/**
 * vs_session_take_slice - the latencies of slice @i of an open session
 * with @slice_ns (task set owned by the caller from now on), or NULL
 */
struct vs_taskset *vs_session_take_slice(struct vs_session *s, size_t i);

/**
 * vs_session_close - free what @s read; it is empty again
 */
void vs_session_close(struct vs_session *s);

/**
 * vs_session_read_segments - read the tasks of every segment of @list,
 * each file once for all its segments (vs_segments_read())
 * @list: the segments, of one file or more
 * @opts: as vs_session_open(), --type resolved over the files of @list;
 *        @time, @funcs, @wakeups and @slice_ns are not used
 * @each/@arg: called once per segment with its tasks, as vs_segments_read()
 * @err/@errlen: one line on failure
 *
 * Returns VS_LOAD_OK, VS_LOAD_ERROR or VS_LOAD_CORRUPT.
 */
int vs_session_read_segments(const struct vs_segment_list *list,
			     const struct vs_session_opts *opts,
			     vs_segment_fn each, void *arg, char *err,
			     size_t errlen);

#endif /* VS_CORE_SESSION_H */
