// SPDX-License-Identifier: MIT
/*
 * segments.c - varscope segments: cut recordings into segments and
 * tabulate the tail latency of each, like VarMRI's Table 3: per task
 * type, each segment's p50, p99 and CoV of latency, and the max, median
 * and min segment by p99 (the ones worth a varscope report or diff).
 *
 * The analysis is core/analysis/segments.c, the printing
 * ui/segments-print.c; this file parses the options and reads the
 * segments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/parse-options.h"
#include "core/analysis/segments.h"
#include "core/session.h"
#include "ui/output-format.h"
#include "ui/progress.h"
#include "ui/segments-print.h"

struct segments {
	const char *inputs;
	const char *type;
	const char *format_name;
	uint64_t length;
	int min_tasks;
	enum vs_output_format format;
	struct vs_segment_list list;
	struct vs_segment_table table;	/* the figures of every segment */
};

static const char *const segments_usage[] = {
	"varscope segments [-i FILE...] [--length DURATION] [<options>] [SEGMENT...]",
	NULL
};

/* Latency figures of segment @s from its tasks @ts (vs_segment_fn). */
static int measure_segment(void *arg, size_t s, struct vs_taskset *ts)
{
	struct segments *sg = arg;
	int ret;

	if (ts->warning)
		fprintf(stderr, "varscope segments: warning: %s\n",
			ts->warning);
	ret = vs_segment_table_add(&sg->table, s, ts);
	vs_taskset_free(ts);
	return ret;
}

/* Read each segment's latencies; the exit status on failure. */
static int measure(struct segments *sg)
{
	struct vs_session_opts o = {
		.type = sg->type, .latency_only = true,
	};
	struct vs_progress progress;
	char err[512];
	int ret;

	sg->table.nr_segments = sg->list.nr;
	sg->table.min_tasks = sg->min_tasks;
	vs_progress_start(&progress, "Reading segments");
	o.progress = vs_progress_cb;
	o.progress_arg = &progress;
	ret = vs_session_read_segments(&sg->list, &o, measure_segment, sg,
				       err, sizeof(err));
	vs_progress_end(&progress);
	if (ret && sg->table.types_wanted) {
		fprintf(stderr, "varscope segments: %zu task types or more "
			"in %zu segments: more figures than %u (one per type "
			"and segment): choose a type (--type) or a longer "
			"--length\n", sg->table.types_wanted, sg->list.nr,
			VS_SEGMENT_FIGURES_MAX);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "varscope segments: %s\n", err);
		return ret;
	}
	return vs_segment_table_summarize(&sg->table) ? 1 : 0;
}

/* --- the command --- */

/* The segments of -i files and SEGMENT arguments; exit status on error. */
static int collect(struct segments *sg, int argc, const char **argv)
{
	char *inputs = sg->inputs ? strdup(sg->inputs) : NULL, *file, *save;
	char err[512];
	int i, ret = 0;

	if (sg->inputs && !inputs)
		return 1;
	for (file = inputs ? strtok_r(inputs, ",", &save) : NULL;
	     file && !ret; file = strtok_r(NULL, ",", &save))
		ret = vs_segments_cut(file, sg->length, &sg->list, err,
				      sizeof(err));
	for (i = 0; i < argc && !ret; i++)
		ret = vs_segment_list_add_arg(&sg->list, argv[i], sg->length,
					      true, err, sizeof(err));
	if (!ret && !sg->list.nr)
		ret = vs_segments_cut(VS_DEFAULT_FILE, sg->length, &sg->list,
				      err, sizeof(err));
	if (ret)
		fprintf(stderr, "varscope segments: %s\n", err);
	free(inputs);
	return ret;
}

static void check_options(struct segments *sg)
{

	if (sg->min_tasks < 1)
		option_error("min-tasks", "must be at least 1");
	sg->format = vs_format_option(sg->format_name, VS_FORMATS_ALL);
}

int cmd_segments(int argc, const char **argv)
{
	struct segments sg = { .format_name = "text", .min_tasks = 100 };
	const struct vs_option options[] = {
		OPT_STRING_MULTI('i', "input", &sg.inputs, "file",
				 "trace to cut (repeatable; default "
				 "varscope.data)"),
		OPT_DURATION(0, "length", &sg.length,
			     "cut each file into slices this long"),
		OPT_STRING(0, "type", &sg.type, "type",
			   "only this task type"),
		OPT_INTEGER(0, "min-tasks", &sg.min_tasks,
			    "segments with fewer tasks of a type are not "
			    "counted (default 100)"),
		OPT_STRING(0, "format", &sg.format_name, "fmt",
			   "text, json or csv"),
		OPT_END()
	};
	int ret;

	argc = parse_options(argc, argv, options, segments_usage, 0);
	check_options(&sg);
	ret = collect(&sg, argc, argv);
	if (!ret)
		ret = measure(&sg);
	if (!ret && !sg.table.nr_types) {
		fprintf(stderr, "varscope segments: no tasks%s%s in the "
			"segments\n", sg.type ? " of type " : "",
			sg.type ? sg.type : "");
		ret = 1;
	}
	if (!ret) {
		struct vs_segments_print out = {
			.list = &sg.list, .table = &sg.table,
			.length = sg.length, .format = sg.format,
		};

		vs_segments_print_table(&out);
	}
	vs_segment_list_release(&sg.list);
	vs_segment_table_release(&sg.table);
	return ret;
}
