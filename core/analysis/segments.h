/* SPDX-License-Identifier: MIT */
/*
 * segments.h - segments of long recordings (VarMRI section 6).
 *
 * A long recording is analysed piece by piece: it is cut into segments,
 * the tail latency of each is computed, and the segments worth a closer
 * look are picked: the median segment (why is the tail longer than the
 * median within a segment?) and the max segment (why do segments' tails
 * differ?), as in the paper's Table 3.
 *
 * A segment is a whole trace file (a file of "varscope record
 * --segment-length" is one), or a time slice of one: the tasks that END
 * in [from, to).  On the command line (varscope segments, varscope diff):
 *
 *	FILE			the whole file
 *	FILE:N			the N-th slice of --length, N from 1:
 *				[(N-1) * length, N * length)
 *	FILE@START..END		a time range, START and END durations from
 *				the start of the recording (10s..20s, 1m..,
 *				..500ms); an empty side is open
 *
 * Times are relative to the recording's start: the header's start time,
 * or the first record's time when the header has none.  The segments of a
 * file are read together, in one pass over the span they cover
 * (vs_segments_read()); a span that starts late in the file is reached
 * through the reader's time index.
 *
 * Per segment and task type the latency figures are its number of tasks,
 * p50, p99 (nearest rank, like every percentile of core/analysis/impact.h) and
 * coefficient of variation (standard deviation / mean).
 */
#ifndef VS_CORE_SEGMENTS_H
#define VS_CORE_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis/taskset.h"

enum vs_segment_kind {
	VS_SEGMENT_FILE,	/* FILE */
	VS_SEGMENT_SLICE,	/* FILE:N */
	VS_SEGMENT_RANGE,	/* FILE@START..END */
};

/* A segment as written on the command line, before its file is opened. */
struct vs_segment_spec {
	enum vs_segment_kind kind;
	char *arg;			/* as written */
	char *path;
	unsigned long slice;		/* SLICE: N, from 1 */
	uint64_t from, to;		/* RANGE: ns from the start; */
	bool open_end;			/*   true: no END */
};

/* A segment of a trace, resolved against its file. */
struct vs_trace_segment {
	char *path;
	char *label;			/* "a.data", "a.data:3", "a.data@1s..2s" */
	uint64_t start;			/* the recording's start (clock ns) */
	uint64_t last;			/* and its last record's time */
	uint64_t from_ns, to_ns;	/* tasks ending in [from, to); to_ns 0:
					   to the end of the file */
};

struct vs_segment_list {
	size_t nr, alloc;
	struct vs_trace_segment *seg;
};

/**
 * vs_segment_spec_parse - parse a segment named on the command line
 * @arg: FILE, FILE:N or FILE@START..END
 * @spec: receives the parts (free with vs_segment_spec_release())
 * @err/@errlen: on failure, one line naming the problem
 *
 * An @arg that names an existing file is that file, even with ':' or '@'
 * in its name.  The file itself is not checked here (see
 * vs_segment_resolve()).  Returns 0, or -1 with @err set.
 */
int vs_segment_spec_parse(const char *arg, struct vs_segment_spec *spec,
			  char *err, size_t errlen);

void vs_segment_spec_release(struct vs_segment_spec *spec);

/**
 * vs_segment_resolve - the segment of its file that @spec names
 * @spec: a parsed spec
 * @length: slice length (--length), needed by FILE:N; 0 if none
 * @out: receives the segment (free with vs_segment_release())
 * @err/@errlen: on failure, one line: a missing or corrupt file, FILE:N
 *               without --length or beyond the recording's end
 *
 * Returns VS_LOAD_OK, VS_LOAD_ERROR (bad spec, missing file) or
 * VS_LOAD_CORRUPT (the reader found corruption).
 */
int vs_segment_resolve(const struct vs_segment_spec *spec, uint64_t length,
		       struct vs_trace_segment *out, char *err, size_t errlen);

void vs_segment_release(struct vs_trace_segment *seg);

/**
 * vs_segment_same - @x and @y are the same time range of the same file
 */
bool vs_segment_same(const struct vs_trace_segment *x,
		     const struct vs_trace_segment *y);

/* Slices vs_segments_cut() makes of a file at most. */
#define VS_MAX_SLICES	10000u

/**
 * vs_segments_cut - append the segments of a trace file to @list
 * @path: the trace
 * @length: slice length; 0: the whole file is one segment
 * @list: grows by the file's segments, in time order
 * @err/@errlen: one line on failure
 *
 * The file is cut into slices of @length from the start of the recording
 * up to its last record, at most VS_MAX_SLICES of them.  Returns
 * VS_LOAD_OK, VS_LOAD_ERROR (too many slices too) or VS_LOAD_CORRUPT.
 */
int vs_segments_cut(const char *path, uint64_t length,
		    struct vs_segment_list *list, char *err, size_t errlen);

/**
 * vs_segments_cut_file - vs_segments_cut() of the file of a segment
 * @file: a segment of the file (of vs_segment_resolve() or of a list):
 *        it knows the recording's span, the file is not opened again
 * @length/@list/@err/@errlen: as vs_segments_cut()
 */
int vs_segments_cut_file(const struct vs_trace_segment *file, uint64_t length,
			 struct vs_segment_list *list, char *err,
			 size_t errlen);

/**
 * vs_segment_list_add_arg - append the segments a command-line name gives
 * @list: grows by them
 * @arg: FILE, FILE:N or FILE@START..END
 * @length: --length, or 0
 * @cut: a plain FILE is cut into slices of @length (varscope segments);
 *       without it, it stays one segment (varscope diff)
 * @err/@errlen: one line on failure
 *
 * Returns VS_LOAD_OK, VS_LOAD_ERROR or VS_LOAD_CORRUPT.
 */
int vs_segment_list_add_arg(struct vs_segment_list *list, const char *arg,
			    uint64_t length, bool cut, char *err,
			    size_t errlen);

/**
 * vs_segment_list_add - append a copy of @seg to @list (0, or -1 on ENOMEM)
 */
int vs_segment_list_add(struct vs_segment_list *list,
			const struct vs_trace_segment *seg);

void vs_segment_list_release(struct vs_segment_list *list);

/*
 * What vs_segments_read() calls for each segment: @seg its index in the
 * list, @ts its tasks (the callee owns them: vs_taskset_free()).  Returns
 * 0, or -1 when memory runs out.
 */
typedef int (*vs_segment_fn)(void *arg, size_t seg, struct vs_taskset *ts);

/**
 * vs_segments_read - load the tasks of every segment of a list, reading
 * each file once
 * @list: the segments, of one file or more, in any order; they may overlap
 * @base: options (type, latency only, readers, progress); their time range
 *        is not used; NULL for every task
 * @each: called once per segment with its tasks: file by file in the order
 *        the files first come in @list, a file's segments in list order
 * @arg: passed to @each
 * @err/@errlen: one line on failure
 *
 * A file is read once for all its segments (vs_taskset_read_ranges()), so
 * a thousand slices cost about one read of the file.  A truncation warning
 * comes with the task set of the file's first segment only.  Returns
 * VS_LOAD_OK, VS_LOAD_ERROR (a file cannot be opened, memory, @each
 * failed) or VS_LOAD_CORRUPT; @each is not called for the files after a
 * failure, and not at all for a file that failed.
 */
int vs_segments_read(const struct vs_segment_list *list,
		     const struct vs_taskset_opts *base, vs_segment_fn each,
		     void *arg, char *err, size_t errlen);

/* --- latency figures --- */

struct vs_latency_stats {
	size_t tasks;
	uint64_t p50, p99;		/* ns, nearest rank */
	double mean;			/* ns */
	double cov;			/* standard deviation / mean; 0 if none */
};

/**
 * vs_latency_stats - count, p50, p99, mean and CoV of a task type's
 * latencies (its tasks in one segment)
 */
void vs_latency_stats(const struct vs_task_type *tt,
		      struct vs_latency_stats *st);

/* Table 3's row: the max, median and min segment by p99. */
struct vs_segment_summary {
	size_t nr;			/* segments counted */
	size_t max, median, min;	/* their indices */
	double p99_cov;			/* CoV of the counted segments' p99 */
};

/**
 * vs_segments_by_p99 - order segments by p99 latency, lowest first
 * @p99: each segment's p99
 * @counted: which segments take part (enough tasks), or NULL for all
 * @n: number of segments
 * @order: receives the indices of the counted segments, lowest p99
 *         first (ties in index order)
 *
 * Returns how many were counted (the length of @order).
 */
size_t vs_segments_by_p99(const uint64_t *p99, const bool *counted, size_t n,
			  size_t *order);

/**
 * vs_segment_summarize - max, median and min segment by p99
 * @p99/@counted/@n: as vs_segments_by_p99()
 * @sum: receives the summary; @sum->nr is 0 when no segment is counted
 *
 * The median segment of an even number is the lower of the middle two,
 * so that it is a segment that exists.  Returns 0, or -1 on ENOMEM.
 */
int vs_segment_summarize(const uint64_t *p99, const bool *counted, size_t n,
			 struct vs_segment_summary *sum);

/* --- the latency figures of many segments (VarMRI's Table 3) --- */

/*
 * Figures held, one per task type and segment: a trace of many small
 * types cut into many slices would otherwise cost their product,
 * whatever the size of the file.
 */
#define VS_SEGMENT_FIGURES_MAX	(4u << 20)

/* One task type's figures in every segment. */
struct vs_segment_type {
	uint32_t type;
	struct vs_latency_stats *stats;		/* by segment */
	bool *counted;				/* enough tasks */
	uint64_t *p99;
	struct vs_segment_summary sum;		/* of ..._table_summarize() */
};

struct vs_segment_table {
	size_t nr_segments;		/* set before the first add */
	size_t min_tasks;		/* fewer tasks: a segment not counted */
	unsigned int nr_types;
	struct vs_segment_type *types;	/* ascending type */
	size_t alloc_types;
	size_t types_wanted;		/* past VS_SEGMENT_FIGURES_MAX: how
					 * many */
	struct vs_type_names names;	/* of the segments' task sets */
};

/**
 * vs_segment_table_add - the latency figures of segment @seg from its
 * tasks @ts, and the names of their types
 *
 * Returns 0, or -1 when memory runs out or when the figures would pass
 * VS_SEGMENT_FIGURES_MAX (@tab->types_wanted then says how many types).
 */
int vs_segment_table_add(struct vs_segment_table *tab, size_t seg,
			 const struct vs_taskset *ts);

/**
 * vs_segment_table_summarize - each type's max, median and min segment
 * by p99 (vs_segment_summarize()); 0, or -1 on ENOMEM
 */
int vs_segment_table_summarize(struct vs_segment_table *tab);

void vs_segment_table_release(struct vs_segment_table *tab);

#endif /* VS_CORE_SEGMENTS_H */
