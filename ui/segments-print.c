// SPDX-License-Identifier: MIT
/*
 * segments-print.c - what varscope segments prints: per task type, each
 * segment's p50, p99 and CoV of latency, and the max, median and min
 * segment by p99, as a text table, JSON or CSV.
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/trace/type-names.h"
#include "ui/json.h"
#include "ui/segments-print.h"
#include "ui/table.h"
#include "ui/units.h"

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

static void print_text_type(const struct vs_segments_print *p,
			    const struct vs_segment_type *t)
{
	enum { SEG, FROM, TO, TASKS, P50, P99, COV, MARK, NR_COLS };
	struct vs_table *tab = vs_table_new(NR_COLS);
	char a[32], b[32], c[32], m[32], type[VS_TYPE_NAME_MAX + 16];
	size_t s;

	if (!tab)
		return;
	printf("# Task type %s: %zu of %zu segments with at least %zu tasks\n",
	       vs_type_label(&p->table->names, t->type, type, sizeof(type)),
	       t->sum.nr, p->list->nr, p->table->min_tasks);
	vs_table_column(tab, SEG, "Segment", VS_ALIGN_LEFT);
	vs_table_column(tab, FROM, "From", VS_ALIGN_RIGHT);
	vs_table_column(tab, TO, "To", VS_ALIGN_RIGHT);
	vs_table_column(tab, TASKS, "Tasks", VS_ALIGN_RIGHT);
	vs_table_column(tab, P50, "p50", VS_ALIGN_RIGHT);
	vs_table_column(tab, P99, "p99", VS_ALIGN_RIGHT);
	vs_table_column(tab, COV, "CoV", VS_ALIGN_RIGHT);
	vs_table_column(tab, MARK, "", VS_ALIGN_LEFT);
	for (s = 0; s < p->list->nr; s++) {
		const struct vs_trace_segment *seg = &p->list->seg[s];
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
		       p->list->seg[t->sum.max].label,
		       vs_format_ns(b, sizeof(b), t->p99[t->sum.median]),
		       p->list->seg[t->sum.median].label,
		       vs_format_ns(c, sizeof(c), t->p99[t->sum.min]),
		       p->list->seg[t->sum.min].label, 100 * t->sum.p99_cov);
	else
		printf("# no segment has %zu tasks of this type "
		       "(--min-tasks)\n", p->table->min_tasks);
	printf("\n");
}

static void print_text(const struct vs_segments_print *p)
{
	char len[32];
	unsigned int i;

	if (p->length)
		printf("# varscope segments: %zu segments, slices of %s\n",
		       p->list->nr, vs_format_ns(len, sizeof(len), p->length));
	else
		printf("# varscope segments: %zu segments\n", p->list->nr);
	printf("# latency of the tasks that end in each segment; CoV = "
	       "standard deviation / mean\n#\n");
	for (i = 0; i < p->table->nr_types; i++)
		print_text_type(p, &p->table->types[i]);
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

static void json_pick(const struct vs_segments_print *p, struct json_out *j,
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
	json_string(j, p->list->seg[s].label);
	json_key(j, "p99_ns");
	json_u64(j, t->p99[s]);
	json_end_object(j);
}

static void print_json(const struct vs_segments_print *p)
{
	struct json_out j;
	unsigned int i;
	size_t s;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_key(&j, "length_ns");
	if (p->length)
		json_u64(&j, p->length);
	else
		json_null(&j);
	json_key(&j, "min_tasks");
	json_u64(&j, p->table->min_tasks);
	json_key(&j, "segments");
	json_begin_array(&j);
	for (s = 0; s < p->list->nr; s++) {
		json_begin_object(&j);
		json_key(&j, "segment");
		json_string(&j, p->list->seg[s].label);
		json_key(&j, "file");
		json_string(&j, p->list->seg[s].path);
		json_range(&j, &p->list->seg[s]);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "task_types");
	json_begin_array(&j);
	for (i = 0; i < p->table->nr_types; i++) {
		const struct vs_segment_type *t = &p->table->types[i];

		json_begin_object(&j);
		json_key(&j, "type");
		json_u64(&j, t->type);
		if (vs_type_names_get(&p->table->names, t->type)) {
			json_key(&j, "type_name");
			json_string(&j, vs_type_names_get(&p->table->names,
							  t->type));
		}
		json_key(&j, "segments");
		json_begin_array(&j);
		for (s = 0; s < p->list->nr; s++) {
			const struct vs_latency_stats *st = &t->stats[s];

			json_begin_object(&j);
			json_key(&j, "segment");
			json_string(&j, p->list->seg[s].label);
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
		json_pick(p, &j, t, "max", t->sum.max);
		json_pick(p, &j, t, "median", t->sum.median);
		json_pick(p, &j, t, "min", t->sum.min);
		json_key(&j, "p99_cov");
		json_double(&j, t->sum.p99_cov);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_newline(&j);
}

/* --- CSV --- */

static void print_csv(const struct vs_segments_print *p)
{
	unsigned int i;
	size_t s;

	printf("type,type_name,segment,file,from_ns,to_ns,tasks,p50_ns,p99_ns,mean_ns,"
	       "cov,counted,mark\n");
	for (i = 0; i < p->table->nr_types; i++) {
		const struct vs_segment_type *t = &p->table->types[i];
		const char *type_name = vs_type_names_get(&p->table->names,
							  t->type);

		for (s = 0; s < p->list->nr; s++) {
			const struct vs_trace_segment *seg = &p->list->seg[s];
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

void vs_segments_print_table(const struct vs_segments_print *p)
{
	if (p->format == VS_FORMAT_JSON)
		print_json(p);
	else if (p->format == VS_FORMAT_CSV)
		print_csv(p);
	else
		print_text(p);
}
