// SPDX-License-Identifier: MIT
/*
 * diff.c - varscope diff SEG1 SEG2: why the tail of one segment differs
 * from another's (VarMRI section 6): per task type, both impact rankings
 * side by side, each event's change of impact, and its p50 and p99 in
 * both segments so that burstiness shows; --svg draws the paper's Fig. 8.
 *
 * The analyses are core/analysis/ranking.c, core/analysis/diff.c and
 * core/analysis/segments.c, the printing ui/diff-print.c; this file parses
 * the options and reads the segments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/analysis/diff.h"
#include "core/output-file.h"
#include "core/parse-options.h"
#include "core/analysis/ranking.h"
#include "core/analysis/segments.h"
#include "core/session.h"
#include "core/trace/type-names.h"
#include "ui/diff-print.h"
#include "ui/output-format.h"
#include "ui/progress.h"

/* One segment loaded: its tasks. */
struct side {
	const struct vs_trace_segment *seg;
	const struct vs_taskset *ts;
};

struct diff {
	const char *type;
	const char *format_name;
	const char *svg;
	uint64_t length;
	int min_tasks;
	struct vs_rank_opts rank;
	struct vs_session_opts load;	/* --type, readers */
	struct vs_segment_list list;	/* A, B, then the other segments of
					 * the figure */
	struct vs_taskset **ts;		/* the tasks of each of @list */
	struct vs_segment_list drawn;	/* --svg: the figure's segments */
	size_t *drawn_at;		/* their place in @list */
	struct side a, b;
	struct vs_diff cmp;		/* A and B compared */
	struct vs_diff_print out;	/* --format, --top */
	struct vs_type_names names;	/* those A's tasks and B's read */
};

static const char *const diff_usage[] = {
	"varscope diff [<options>] SEG1 SEG2",
	"  SEG is FILE, FILE:N (the N-th slice of --length) or FILE@START..END",
	NULL
};

/*
 * The segments of the figure: every --length slice of A's and B's files,
 * or A and B.  Those that are not A or B join the segments to read, so
 * that each file is read once.
 */
static int svg_segments(struct diff *df)
{
	const struct vs_trace_segment *ab[2] = { &df->list.seg[0],
						 &df->list.seg[1] };
	struct vs_segment_list *segs = &df->drawn;
	char err[512];
	size_t s;
	int i;

	for (i = 0; i < 2; i++) {
		if (!df->length) {
			if (vs_segment_list_add(segs, ab[i]))
				goto nomem;
			continue;
		}
		if (i == 1 && !strcmp(ab[0]->path, ab[1]->path))
			break;
		if (vs_segments_cut_file(ab[i], df->length, segs, err,
					 sizeof(err))) {
			fprintf(stderr, "varscope diff: %s\n", err);
			return -1;
		}
	}
	df->drawn_at = malloc((segs->nr ? segs->nr : 1) *
			      sizeof(*df->drawn_at));
	if (!df->drawn_at)
		goto nomem;
	for (s = 0; s < segs->nr; s++) {
		for (i = 0; i < 2; i++)
			if (vs_segment_same(&segs->seg[s], &df->list.seg[i]))
				break;
		df->drawn_at[s] = i < 2 ? (size_t)i : df->list.nr;
		if (i == 2 && vs_segment_list_add(&df->list, &segs->seg[s]))
			goto nomem;
	}
	return 0;
nomem:
	fprintf(stderr, "varscope diff: out of memory\n");
	return -1;
}

/* --- the command --- */

/* Keep the tasks of segment @s of the list (vs_segment_fn). */
static int keep_segment(void *arg, size_t s, struct vs_taskset *ts)
{
	struct diff *df = arg;

	if (ts->warning)
		fprintf(stderr, "varscope diff: warning: %s\n", ts->warning);
	df->ts[s] = ts;
	return 0;
}

/*
 * The tasks of A and B, and of the figure's other segments: one read of
 * each file.
 */
static int load_segments(struct diff *df)
{
	struct vs_progress progress;
	struct vs_session_opts o = df->load;
	char err[512];
	int ret;

	df->ts = calloc(df->list.nr, sizeof(*df->ts));
	if (!df->ts) {
		fprintf(stderr, "varscope diff: out of memory\n");
		return 1;
	}
	vs_progress_start(&progress, "Reading tasks");
	o.progress = vs_progress_cb;
	o.progress_arg = &progress;
	ret = vs_session_read_segments(&df->list, &o, keep_segment, df, err,
				       sizeof(err));
	vs_progress_end(&progress);
	if (ret) {
		fprintf(stderr, "varscope diff: %s\n", err);
		return ret;
	}
	df->a = (struct side){ &df->list.seg[0], df->ts[0] };
	df->b = (struct side){ &df->list.seg[1], df->ts[1] };
	return 0;
}

/* Rank and compare the types found in both segments. */
static int compare(struct diff *df)
{
	char type[VS_TYPE_NAME_MAX + 16];
	unsigned int i;

	if (vs_diff_segments(df->a.ts, df->b.ts, &df->rank, &df->cmp))
		return -1;
	for (i = 0; i < df->cmp.nr_only_a; i++)
		fprintf(stderr, "varscope diff: task type %s is only in A\n",
			vs_type_label(&df->names, df->cmp.only_a[i], type,
				      sizeof(type)));
	for (i = 0; i < df->cmp.nr_only_b; i++)
		fprintf(stderr, "varscope diff: task type %s is only in B\n",
			vs_type_label(&df->names, df->cmp.only_b[i], type,
				      sizeof(type)));
	return 0;
}

static void check_options(struct diff *df)
{
	if (!(df->rank.ptarget > 0 && df->rank.ptarget < 1))
		option_error("ptarget", "must be in (0, 1), like 0.99");
	if (df->out.top < 0)
		option_error("top", "must be 0 (all) or more");
	if (df->min_tasks < 1)
		option_error("min-tasks", "must be at least 1");
	vs_output_option("svg", df->svg);
	df->out.format = vs_format_option(df->format_name,
					  VS_FORMATS_TEXT_JSON);
	df->rank.min_tasks = df->min_tasks;
	df->load.type = df->type;
	df->load.parts = vs_session_parts();
	df->rank.threads = df->load.parts;
}

/* --svg: the figure; the exit status. */
static int draw(struct diff *df)
{
	switch (vs_diff_write_svg(&df->out, df->svg, &df->drawn,
				  (const struct vs_taskset *const *)df->ts,
				  df->drawn_at)) {
	case 0:
		return 0;
	case -1:
		fprintf(stderr, "varscope diff: out of memory\n");
		return 1;
	case -3:
		fprintf(stderr, "varscope diff: --svg: %u task types in %zu "
			"segments: more points than %u (one per type and "
			"segment): choose a type (--type) or a longer "
			"--length\n", df->cmp.nr_types, df->drawn.nr,
			VS_DIFF_FIG_POINTS_MAX);
		return 1;
	default:
		fprintf(stderr, "varscope diff: cannot write '%s': %s\n",
			df->svg, strerror(errno));
		return 1;
	}
}

static void free_diff(struct diff *df)
{
	size_t i;

	vs_diff_release(&df->cmp);
	for (i = 0; df->ts && i < df->list.nr; i++)
		vs_taskset_free(df->ts[i]);
	free(df->ts);
	free(df->drawn_at);
	vs_segment_list_release(&df->drawn);
	vs_segment_list_release(&df->list);
	vs_type_names_release(&df->names);
}

int cmd_diff(int argc, const char **argv)
{
	struct diff df = {
		.format_name = "text", .min_tasks = 100,
		.rank = VS_RANK_OPTS_INIT,
		.out = { .cmp = &df.cmp, .names = &df.names, .top = 10 },
	};
	const struct vs_option options[] = {
		OPT_DURATION(0, "length", &df.length,
			     "slice length of FILE:N, and of the --svg "
			     "segments"),
		OPT_STRING(0, "type", &df.type, "type",
			   "only this task type"),
		OPT_INTEGER(0, "top", &df.out.top,
			    "events shown per type (default 10, 0: all)"),
		OPT_DOUBLE(0, "ptarget", &df.rank.ptarget, "p",
			   "tail percentile to explain (default 0.99)"),
		OPT_INTEGER(0, "min-tasks", &df.min_tasks,
			    "rank events recorded by at least N tasks "
			    "(default 100)"),
		OPT_STRING(0, "format", &df.format_name, "fmt",
			   "text or json"),
		OPT_STRING(0, "svg", &df.svg, "file",
			   "plot the segments' p50 and p99 latency and top "
			   "event (Fig. 8)"),
		OPT_END()
	};
	char err[512];
	int i, ret = 0;

	argc = parse_options(argc, argv, options, diff_usage, 0);
	if (argc != 2) {
		fprintf(stderr, "varscope diff: needs two segments, "
			"SEG1 and SEG2 (%d given)\n", argc);
		usage_with_options(diff_usage, options);
	}
	check_options(&df);
	for (i = 0; i < 2 && !ret; i++) {
		ret = vs_segment_list_add_arg(&df.list, argv[i], df.length,
					      false, err, sizeof(err));
		if (ret)
			fprintf(stderr, "varscope diff: %s\n", err);
	}
	if (!ret && df.svg && svg_segments(&df))
		ret = 1;
	if (!ret)
		ret = load_segments(&df);
	if (ret)
		goto out;
	if (vs_type_names_merge(&df.names, &df.a.ts->names) ||
	    vs_type_names_merge(&df.names, &df.b.ts->names) || compare(&df)) {
		fprintf(stderr, "varscope diff: out of memory\n");
		ret = 1;
		goto out;
	}
	if (!df.cmp.nr_types) {
		fprintf(stderr, "varscope diff: no task type%s%s in both "
			"segments\n", df.type ? " " : "",
			df.type ? df.type : "");
		ret = 1;
		goto out;
	}
	df.out.a = df.a.seg;
	df.out.b = df.b.seg;
	df.out.ptarget = df.rank.ptarget;
	vs_diff_print_result(&df.out);
	if (df.svg)
		ret = draw(&df);
out:
	free_diff(&df);
	return ret;
}
