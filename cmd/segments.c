// SPDX-License-Identifier: MIT
/*
 * segments.c - varscope segments: cut recordings into segments and
 * tabulate the tail latency of each, like VarMRI's Table 3: per task
 * type, each segment's p50, p99 and CoV of latency, and the max, median
 * and min segment by p99 (the ones worth a varscope report or diff).
 *
 * The analysis is core/analysis/segments.c; this file parses the options and
 * prints the table, JSON or CSV.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/parse-options.h"
#include "core/analysis/segments.h"
#include "core/session.h"
#include "core/trace/type-names.h"
#include "ui/json.h"
#include "ui/output-format.h"
#include "ui/progress.h"
#include "ui/table.h"
#include "ui/units.h"

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

/* "max", "median", "min" (joined by '/' when one segment is several), or "". */
static const char *mark(const struct vs_segment_type *t, size_t s, char *buf,
			size_t len)
{
	buf[0] = 0;
	if (!t->sum.nr || !t->counted[s])
		return buf;
	snprintf(buf, len, "%s%s%s%s%s",
		 s == t->sum.max ? "max" : "",
		 s == t->sum.max && s == t->sum.median ? "/" : "",
		 s == t->sum.median ? "median" : "",
		 s == t->sum.min && (s == t->sum.max || s == t->sum.median) ?
		 "/" : "",
		 s == t->sum.min ? "min" : "");
	return buf;
}

/* --- text --- */

static void print_text_type(const struct segments *sg,
			    const struct vs_segment_type *t)
{
	enum { SEG, FROM, TO, TASKS, P50, P99, COV, MARK, NR_COLS };
	struct vs_table *tab = vs_table_new(NR_COLS);
	char a[32], b[32], c[32], m[32], type[VS_TYPE_NAME_MAX + 16];
	size_t s;

	if (!tab)
		return;
	printf("# Task type %s: %zu of %zu segments with at least %d tasks\n",
	       vs_type_label(&sg->table.names, t->type, type, sizeof(type)),
	       t->sum.nr, sg->list.nr, sg->min_tasks);
	vs_table_column(tab, SEG, "Segment", VS_ALIGN_LEFT);
	vs_table_column(tab, FROM, "From", VS_ALIGN_RIGHT);
	vs_table_column(tab, TO, "To", VS_ALIGN_RIGHT);
	vs_table_column(tab, TASKS, "Tasks", VS_ALIGN_RIGHT);
	vs_table_column(tab, P50, "p50", VS_ALIGN_RIGHT);
	vs_table_column(tab, P99, "p99", VS_ALIGN_RIGHT);
	vs_table_column(tab, COV, "CoV", VS_ALIGN_RIGHT);
	vs_table_column(tab, MARK, "", VS_ALIGN_LEFT);
	for (s = 0; s < sg->list.nr; s++) {
		const struct vs_trace_segment *seg = &sg->list.seg[s];
		const struct vs_latency_stats *st = &t->stats[s];

		vs_table_cell(tab, "%s", seg->label);
		vs_table_cell(tab, "%s", seg->from_ns ?
			      vs_format_ns(a, sizeof(a),
					   seg->from_ns - seg->start) : "start");
		vs_table_cell(tab, "%s", seg->to_ns ?
			      vs_format_ns(a, sizeof(a),
					   seg->to_ns - seg->start) : "end");
		vs_table_cell(tab, "%zu", st->tasks);
		if (st->tasks) {
			vs_table_cell(tab, "%s", vs_format_ns(a, sizeof(a),
							      st->p50));
			vs_table_cell(tab, "%s", vs_format_ns(a, sizeof(a),
							      st->p99));
			vs_table_cell(tab, "%.1f%%", 100 * st->cov);
		} else {
			vs_table_cell(tab, "-");
			vs_table_cell(tab, "-");
			vs_table_cell(tab, "-");
		}
		vs_table_cell(tab, "%s", st->tasks && !t->counted[s] ?
			      "(too few tasks)" : mark(t, s, m, sizeof(m)));
		vs_table_end_row(tab);
	}
	vs_table_print(tab, stdout);
	vs_table_free(tab);
	if (t->sum.nr)
		printf("# p99 across segments: max %s (%s), median %s (%s), "
		       "min %s (%s), CoV %.1f%%\n",
		       vs_format_ns(a, sizeof(a), t->p99[t->sum.max]),
		       sg->list.seg[t->sum.max].label,
		       vs_format_ns(b, sizeof(b), t->p99[t->sum.median]),
		       sg->list.seg[t->sum.median].label,
		       vs_format_ns(c, sizeof(c), t->p99[t->sum.min]),
		       sg->list.seg[t->sum.min].label, 100 * t->sum.p99_cov);
	else
		printf("# no segment has %d tasks of this type "
		       "(--min-tasks)\n", sg->min_tasks);
	printf("\n");
}

static void print_text(const struct segments *sg)
{
	char len[32];
	unsigned int i;

	if (sg->length)
		printf("# varscope segments: %zu segments, slices of %s\n",
		       sg->list.nr, vs_format_ns(len, sizeof(len), sg->length));
	else
		printf("# varscope segments: %zu segments\n", sg->list.nr);
	printf("# latency of the tasks that end in each segment; CoV = "
	       "standard deviation / mean\n#\n");
	for (i = 0; i < sg->table.nr_types; i++)
		print_text_type(sg, &sg->table.types[i]);
}

/* --- JSON --- */

static void json_range(struct json_out *j, const struct vs_trace_segment *seg)
{
	json_key(j, "from_ns");
	json_u64(j, seg->from_ns ? seg->from_ns - seg->start : 0);
	json_key(j, "to_ns");
	if (seg->to_ns)
		json_u64(j, seg->to_ns - seg->start);
	else
		json_null(j);
}

static void json_pick(const struct segments *sg, struct json_out *j,
		      const struct vs_segment_type *t, const char *key,
		      size_t s)
{
	json_key(j, key);
	if (!t->sum.nr) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_key(j, "segment");
	json_string(j, sg->list.seg[s].label);
	json_key(j, "p99_ns");
	json_u64(j, t->p99[s]);
	json_end_object(j);
}

static void print_json(const struct segments *sg)
{
	struct json_out j;
	unsigned int i;
	size_t s;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_key(&j, "length_ns");
	if (sg->length)
		json_u64(&j, sg->length);
	else
		json_null(&j);
	json_key(&j, "min_tasks");
	json_u64(&j, sg->min_tasks);
	json_key(&j, "segments");
	json_begin_array(&j);
	for (s = 0; s < sg->list.nr; s++) {
		json_begin_object(&j);
		json_key(&j, "segment");
		json_string(&j, sg->list.seg[s].label);
		json_key(&j, "file");
		json_string(&j, sg->list.seg[s].path);
		json_range(&j, &sg->list.seg[s]);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "task_types");
	json_begin_array(&j);
	for (i = 0; i < sg->table.nr_types; i++) {
		const struct vs_segment_type *t = &sg->table.types[i];

		json_begin_object(&j);
		json_key(&j, "type");
		json_u64(&j, t->type);
		if (vs_type_names_get(&sg->table.names, t->type)) {
			json_key(&j, "type_name");
			json_string(&j, vs_type_names_get(&sg->table.names,
							  t->type));
		}
		json_key(&j, "segments");
		json_begin_array(&j);
		for (s = 0; s < sg->list.nr; s++) {
			const struct vs_latency_stats *st = &t->stats[s];

			json_begin_object(&j);
			json_key(&j, "segment");
			json_string(&j, sg->list.seg[s].label);
			json_key(&j, "tasks");
			json_u64(&j, st->tasks);
			json_key(&j, "p50_ns");
			json_u64(&j, st->p50);
			json_key(&j, "p99_ns");
			json_u64(&j, st->p99);
			json_key(&j, "mean_ns");
			json_double(&j, st->mean);
			json_key(&j, "cov");
			json_double(&j, st->cov);
			json_key(&j, "counted");
			json_bool(&j, t->counted[s]);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_key(&j, "counted");
		json_u64(&j, t->sum.nr);
		json_pick(sg, &j, t, "max", t->sum.max);
		json_pick(sg, &j, t, "median", t->sum.median);
		json_pick(sg, &j, t, "min", t->sum.min);
		json_key(&j, "p99_cov");
		json_double(&j, t->sum.p99_cov);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_newline(&j);
}

/* --- CSV --- */

static void print_csv(const struct segments *sg)
{
	unsigned int i;
	size_t s;

	printf("type,type_name,segment,file,from_ns,to_ns,tasks,p50_ns,p99_ns,mean_ns,"
	       "cov,counted,mark\n");
	for (i = 0; i < sg->table.nr_types; i++) {
		const struct vs_segment_type *t = &sg->table.types[i];
		const char *type_name = vs_type_names_get(&sg->table.names,
							  t->type);

		for (s = 0; s < sg->list.nr; s++) {
			const struct vs_trace_segment *seg = &sg->list.seg[s];
			const struct vs_latency_stats *st = &t->stats[s];
			char m[32];

			printf("%u,", t->type);
			vs_csv_string(stdout, type_name ? type_name : "");
			putchar(',');
			vs_csv_string(stdout, seg->label);
			putchar(',');
			vs_csv_string(stdout, seg->path);
			printf(",%" PRIu64 ",", seg->from_ns ?
			       seg->from_ns - seg->start : 0);
			if (seg->to_ns)
				printf("%" PRIu64, seg->to_ns - seg->start);
			printf(",%zu,%" PRIu64 ",%" PRIu64 ",%.9g,%.6g,%d,%s\n",
			       st->tasks, st->p50, st->p99, st->mean, st->cov,
			       t->counted[s], mark(t, s, m, sizeof(m)));
		}
	}
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
		if (sg.format == VS_FORMAT_JSON)
			print_json(&sg);
		else if (sg.format == VS_FORMAT_CSV)
			print_csv(&sg);
		else
			print_text(&sg);
	}
	vs_segment_list_release(&sg.list);
	vs_segment_table_release(&sg.table);
	return ret;
}
