/* SPDX-License-Identifier: MIT */
/*
 * taskset.h - the tasks of a trace, by task type, in columns.
 *
 * Every analysis of AppTasks (report, diff, segments, tui) starts here: the
 * task records of a trace, or of a time range of it, loaded into compact
 * per-type storage:
 *
 *   - per task: its latency (task index = order of the record in the type);
 *   - per event recorded by tasks of the type, a column: a bitmap of the
 *     tasks that recorded the event (selective recording makes missing
 *     data normal) and their values as floats, in task order.
 *
 * A value costs 4 bytes and a task 8 bytes plus one bit per event column:
 * 10 million tasks with 20 events take about 1 GB.
 *
 * A task recorded an event when its record carries a value for it, or when
 * the event is live in the task's epoch (VS_REC_EPOCH): a live event
 * missing from the record counts as 0.
 *
 * Attached intervals (vs_task_attach() to vs_task_detach(): task records
 * of type 0 named by a VS_REC_ATTACH record) are not tasks of their own:
 * their values are added to the task they serve, event by event, and each
 * such event E also gets a column "attached.E" (child of E) holding the
 * attached part alone.  Intervals whose task is not in the set (another
 * time range or type, an unselected task) are dropped.
 */
#ifndef VS_CORE_TASKSET_H
#define VS_CORE_TASKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/id-index.h"
#include "core/analysis/ran-instead.h"
#include "core/trace/trace.h"
#include "core/trace/type-names.h"

struct vs_wake_build;
struct vs_growing_column;
struct vs_logged_value;

struct vs_column {
	uint16_t event;		/* id in the catalog */
	size_t nr;		/* tasks that recorded it */
	uint64_t *present;	/* bitmap over the type's tasks */
	float *values;		/* @nr values, in task order */
	uint32_t *rank;		/* values before each 64-task word of @present */
};

struct vs_task_type {
	uint32_t type;
	size_t nr_tasks;
	uint64_t *latency;	/* ns, by task index */
	uint32_t *by_latency;	/* task indices, slowest first */
	size_t nr_flagged;	/* tasks with lost events, truncated, ... */
	unsigned int nr_columns;
	struct vs_column *columns;	/* by event id, ascending */
	size_t alloc_tasks;		/* capacity of @latency */
	bool packed;		/* @columns and their arrays: one block */
	/*
	 * while loading, a type's first tasks: their values in a log, which
	 * costs what they are (columns cost per event, whatever its values)
	 */
	bool columnar;		/* past them: in growing columns */
	struct vs_logged_value *log;
	size_t nr_log, alloc_log;
	/* while loading: @nr_columns columns, found by event id */
	struct vs_growing_column *growing;
	size_t alloc_growing;
	struct vs_id_index column_index;	/* event id -> @growing[] */
	uint64_t *ids;			/* task ids, while loading */
};

struct vs_taskset {
	unsigned int nr_types;
	struct vs_task_type *types;	/* ascending type number */
	unsigned int nr_events;
	struct vs_event_def *events;	/* catalog by id; name NULL if unused */
	size_t alloc_events;		/* capacity of @events */
	uint64_t first_ns, last_ns;	/* task start and end times seen */
	uint64_t nr_wakeups;		/* VS_REC_WAKEUP records seen: no
					 * wake-up analysis needed without */
	struct vs_wake_build *wake;	/* opts->wakeups: every record the
					 * wake-up analysis needs, for
					 * vs_wake_build_finish(); or NULL */
	struct vs_ran_list ran;		/* opts->ran_instead: who ran instead
					 * of its tasks (ran-instead.h) */
	struct vs_type_names names;	/* the names of its types, from the
					 * type_name records read: the whole
					 * file's when it was read to the
					 * end, else those before the
					 * range's end */
	char *warning;			/* the reader's (truncation), or NULL */
	struct vs_taskset_build *build;	/* loading state, NULL once finished */
};

/*
 * Tasks that end in [from_ns, to_ns); to_ns 0: to the end.  A range read
 * by vs_taskset_read_ranges() with @latency_only gets a task set of
 * latencies alone (as vs_taskset_opts.latency_only), whatever the other
 * ranges of the read load.
 */
struct vs_time_range {
	uint64_t from_ns, to_ns;
	bool latency_only;
};

struct vs_taskset_opts {
	uint64_t from_ns, to_ns;	/* tasks that end in [from, to); 0, 0: all
					 * (vs_taskset_read() alone) */
	bool one_type;			/* only tasks of @type */
	uint32_t type;
	bool latency_only;		/* no event columns, no catalog:
					 * latencies alone */
	/*
	 * Collect what the wake-up analysis needs (core/analysis/wakeup.h) in
	 * the same pass, into ts->wake (NULL when the file has no wake-up
	 * record).  Not with a time range (the analysis wants the whole
	 * file): ts->wake is NULL then.
	 * @wake_parts as vs_wake_build_new()'s @parts.
	 */
	bool wakeups, wake_parts;
	/*
	 * Keep the ran_instead records with their tasks in the same pass,
	 * into ts->ran; not with a time range, as @wakeups.
	 */
	bool ran_instead;
	unsigned int parts;		/* readers working in parallel (<= 1: one) */
	/* called every few thousand tasks with bytes read, bytes in file */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/*
	 * Values a task record does not carry, added to it (function times
	 * from samples and probes, core/analysis/func-events.h): called once
	 * per task, from the reader threads at once, returns how many it put
	 * in @buf.
	 * Their events are @extra_events (ids above the trace's catalog).
	 */
	uint32_t (*task_values)(void *arg, const struct vs_task *t,
				struct vs_value *buf, uint32_t max);
	void *task_values_arg;
	const struct vs_event_def *extra_events;
	unsigned int nr_extra_events;
};

/* vs_taskset_read() results, also the exit status of a command. */
#define VS_LOAD_OK	0
#define VS_LOAD_ERROR	1	/* cannot open the file, out of memory */
#define VS_LOAD_CORRUPT	2	/* the reader found corruption */

/**
 * vs_taskset_read - read the task records of a trace file into a task set
 * @path: the trace
 * @opts: what to load and with how many readers (NULL: every task, one)
 * @out: receives the task set (an empty one when the trace has no tasks)
 * @err/@errlen: one-line message on failure ("FILE: what at byte N")
 *
 * With @opts->parts readers, the file is cut by time into parts read in
 * parallel (each decompresses its own chunks) and joined in file order.
 * A time range is read through the reader's time index: the chunks before
 * it and after it are not decompressed.
 * A truncated file loads up to its last whole chunk; the task set's
 * @warning says so.  Returns VS_LOAD_OK, VS_LOAD_ERROR or VS_LOAD_CORRUPT.
 */
int vs_taskset_read(const char *path, const struct vs_taskset_opts *opts,
		    struct vs_taskset **out, char *err, size_t errlen);

/**
 * vs_taskset_read_ranges - read the tasks of many time ranges of a trace
 * file in one pass, into a task set per range
 * @path: the trace
 * @opts: as vs_taskset_read(), but for @from_ns and @to_ns, which are not
 *        used; @wakeups goes to the first range's task set
 * @range: @nr_ranges time ranges (at least one), in any order; they may
 *         overlap; those with @latency_only load latencies alone
 * @out: receives @nr_ranges task sets: @out[i] holds what
 *       vs_taskset_read() would load with @range[i] as its time range
 * @err/@errlen: as vs_taskset_read()
 *
 * The file is read once (by @opts->parts readers), from the start of the
 * earliest range to the end of the latest, each task going to every range
 * it ends in: the cost is that of one read of their span, whatever their
 * number.  Task sets of neighbouring ranges together hold no more than one
 * of their span.  The epochs and the attach records are those of the
 * whole span, so an attached interval whose attach record lies before its
 * range still counts (vs_taskset_read() of that range alone drops it).
 * Returns as vs_taskset_read(); on failure @out holds no task set.
 */
int vs_taskset_read_ranges(const char *path, const struct vs_taskset_opts *opts,
			   const struct vs_time_range *range, size_t nr_ranges,
			   struct vs_taskset **out, char *err, size_t errlen);

void vs_taskset_free(struct vs_taskset *ts);

/*
 * Building a task set by hand (what vs_taskset_read() does with the
 * records it reads; unit tests and synthetic inputs use it directly):
 * new, then events, epochs and tasks in any order, then finish.  Each
 * returns 0, or -1 when memory runs out.
 */
struct vs_taskset *vs_taskset_new(void);
int vs_taskset_add_event(struct vs_taskset *ts, const struct vs_event_def *def);
int vs_taskset_add_epoch(struct vs_taskset *ts, const struct vs_epoch *ep);
int vs_taskset_add_task(struct vs_taskset *ts, const struct vs_task *t);
/* an attached interval @t whose values go to the task of id @serves */
int vs_taskset_add_attached(struct vs_taskset *ts, uint64_t serves,
			    const struct vs_task *t);
int vs_taskset_finish(struct vs_taskset *ts);

/**
 * vs_taskset_type - the tasks of type @type, or NULL
 *
 * Of a finished task set (its types ascend): O(log types).
 */
struct vs_task_type *vs_taskset_type(const struct vs_taskset *ts,
				     uint32_t type);

/**
 * vs_taskset_event - the catalog entry of @id, or NULL
 */
const struct vs_event_def *vs_taskset_event(const struct vs_taskset *ts,
					    uint16_t id);

/**
 * vs_taskset_event_by_name - the id of the event called @name, or -1
 */
int vs_taskset_event_by_name(const struct vs_taskset *ts, const char *name);

/**
 * vs_column_find - the column of event @event in @tt, or NULL
 */
struct vs_column *vs_column_find(const struct vs_task_type *tt,
				 uint16_t event);

/**
 * vs_column_value - value of task @task in column @col
 *
 * Returns false when the task did not record the event.
 */
bool vs_column_value(const struct vs_column *col, size_t task, float *value);

#endif /* VS_CORE_TASKSET_H */
