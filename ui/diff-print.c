// SPDX-License-Identifier: MIT
/*
 * diff.c - varscope diff SEG1 SEG2: why the tail of one segment differs
 * from another's (VarMRI section 6): per task type, both impact rankings
 * side by side, each event's change of impact, and its p50 and p99 in
 * both segments so that burstiness shows; --svg draws the paper's Fig. 8.
 *
 * The analyses are core/ranking.c, core/diff.c and core/segments.c; this
 * file parses the options and prints.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "../core/diff.h"
#include "../core/output-file.h"
#include "../core/parse-options.h"
#include "../core/ranking.h"
#include "../core/segments.h"
#include "../core/session.h"
#include "../core/type-names.h"
#include "../ui/json.h"
#include "../ui/output-format.h"
#include "../ui/progress.h"
#include "../ui/svg.h"
#include "../ui/table.h"
#include "../ui/units.h"

#define NOTABLE_DELTA	0.05	/* changes of impact worth a word */
#define SVG_W		900
#define SVG_PANEL_H	260
#define SVG_TYPE_HEAD	34

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
	int top;
	int min_tasks;
	enum vs_output_format format;
	struct vs_rank_opts rank;
	struct vs_session_opts load;	/* --type, readers */
	struct vs_segment_list list;	/* A, B, then the other segments of
					 * the figure */
	struct vs_taskset **ts;		/* the tasks of each of @list */
	struct vs_segment_list drawn;	/* --svg: the figure's segments */
	size_t *drawn_at;		/* their place in @list */
	struct side a, b;
	struct vs_diff cmp;		/* A and B compared */
	struct vs_type_names names;	/* those A's tasks and B's read */
};

static const char *const diff_usage[] = {
	"varscope diff [<options>] SEG1 SEG2",
	"  SEG is FILE, FILE:N (the N-th slice of --length) or FILE@START..END",
	NULL
};

static size_t nr_shown(const struct diff *df, size_t n)
{
	return df->top > 0 && (size_t)df->top < n ? (size_t)df->top : n;
}

static double pct(double share)
{
	double v = 100 * share;

	return v > -0.05 && v < 0.05 ? 0 : v;
}

/* --- text --- */

/*
 * "sched.blocked.time (type 0: impact 1.0% -> 45.2%, its p99 9.1 us ->
 * 2.0 ms; as much: sched.blocked.count)" for the top event @d of @t
 */
static void describe(const struct diff *df, const struct vs_type_diff *t,
		     const struct vs_event_diff *d, char *buf, size_t len)
{
	char a[32], b[32], type[VS_TYPE_NAME_MAX + 16];
	size_t n, i;

	n = snprintf(buf, len, "%s (type %s: impact %.1f%% -> %.1f%%",
		     d->name, vs_type_label(&df->names, t->type, type,
					    sizeof(type)),
		     pct(d->impact_a), pct(d->impact_b));
	if (d->has_a && d->has_b && n < len)
		n += snprintf(buf + n, len - n, ", its p99 %s -> %s",
			      vs_format_value(a, sizeof(a), d->p99_a, d->unit),
			      vs_format_value(b, sizeof(b), d->p99_b,
					      d->unit));
	if (vs_event_diff_burstier(d) && n < len)
		n += snprintf(buf + n, len - n, ", its p50 not: burstier");
	for (i = d - t->events + 1; i < t->nr_events && n < len; i++) {
		if (!vs_event_diff_tied(d, &t->events[i]) ||
		    (t->events[i].delta > 0) != (d->delta > 0))
			break;
		n += snprintf(buf + n, len - n, "%s%s",
			      i == (size_t)(d - t->events) + 1 ?
			      "; as much: " : ", ", t->events[i].name);
	}
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

/* The first event of @t whose impact grew (@grew) or shrank notably. */
static const struct vs_event_diff *top_change(const struct vs_type_diff *t,
					      bool grew)
{
	size_t i;

	for (i = 0; i < t->nr_events; i++)
		if (grew ? t->events[i].delta >= NOTABLE_DELTA :
			   t->events[i].delta <= -NOTABLE_DELTA)
			return &t->events[i];
	return NULL;
}

/*
 * The first line, in words: per task type, the event whose impact on the
 * tail grew most from A to B, and the one that shrank most when that
 * change is larger.
 */
static void print_headline(const struct diff *df)
{
	const struct vs_event_diff *grew, *shrank;
	char buf[512];
	unsigned int i;
	bool any = false;

	for (i = 0; i < df->cmp.nr_types; i++) {
		const struct vs_type_diff *t = &df->cmp.types[i];

		grew = top_change(t, true);
		shrank = top_change(t, false);
		if (grew) {
			describe(df, t, grew, buf, sizeof(buf));
			printf("%s grew most with %s", any ? ";" :
			       "In B the tail", buf);
			any = true;
		}
		if (shrank && (!grew || -shrank->delta > grew->delta)) {
			describe(df, t, shrank, buf, sizeof(buf));
			printf("%s shrank most with %s", any ? ";" :
			       "In B the tail", buf);
			any = true;
		}
	}
	if (any)
		printf("\n");
	else
		printf("No event's impact on the tail changed by %.0f%% or "
		       "more from A to B\n", 100 * NOTABLE_DELTA);
}

static void print_side_by_side(const struct diff *df,
			       const struct vs_type_diff *t)
{
	enum { RANK, EV_A, IMP_A, EV_B, IMP_B, NR_COLS };
	struct vs_table *tab = vs_table_new(NR_COLS);
	size_t n = t->ra.nr_ranked > t->rb.nr_ranked ? t->ra.nr_ranked :
		   t->rb.nr_ranked, i;

	if (!tab)
		return;
	vs_table_column(tab, RANK, "Rank", VS_ALIGN_RIGHT);
	vs_table_column(tab, EV_A, "A: event", VS_ALIGN_LEFT);
	vs_table_column(tab, IMP_A, "Impact", VS_ALIGN_RIGHT);
	vs_table_column(tab, EV_B, "B: event", VS_ALIGN_LEFT);
	vs_table_column(tab, IMP_B, "Impact", VS_ALIGN_RIGHT);
	for (i = 0; i < nr_shown(df, n); i++) {
		vs_table_cell(tab, "%zu", i + 1);
		if (i < t->ra.nr_ranked) {
			vs_table_cell(tab, "%s", t->ra.events[i].name);
			vs_table_cell(tab, "%.1f%%",
				      pct(t->ra.events[i].adjusted));
		} else {
			vs_table_cell(tab, "%s", "");
			vs_table_cell(tab, "%s", "");
		}
		if (i < t->rb.nr_ranked) {
			vs_table_cell(tab, "%s", t->rb.events[i].name);
			vs_table_cell(tab, "%.1f%%",
				      pct(t->rb.events[i].adjusted));
		}
		vs_table_end_row(tab);
	}
	vs_table_print(tab, stdout);
	vs_table_free(tab);
}

static void value_cell(struct vs_table *tab, bool has, float v,
		       const char *unit)
{
	char buf[32];

	vs_table_cell(tab, "%s", has ? vs_format_value(buf, sizeof(buf), v,
							unit) : "-");
}

static void print_changes(const struct diff *df, const struct vs_type_diff *t)
{
	enum { EVENT, IMP_A, IMP_B, CHANGE, P50_A, P50_B, P99_A, P99_B, NOTE,
	       NR_COLS };
	struct vs_table *tab = vs_table_new(NR_COLS);
	size_t i;

	if (!tab)
		return;
	vs_table_column(tab, EVENT, "Event", VS_ALIGN_LEFT);
	vs_table_column(tab, IMP_A, "Impact A", VS_ALIGN_RIGHT);
	vs_table_column(tab, IMP_B, "Impact B", VS_ALIGN_RIGHT);
	vs_table_column(tab, CHANGE, "Change", VS_ALIGN_RIGHT);
	vs_table_column(tab, P50_A, "p50 A", VS_ALIGN_RIGHT);
	vs_table_column(tab, P50_B, "p50 B", VS_ALIGN_RIGHT);
	vs_table_column(tab, P99_A, "p99 A", VS_ALIGN_RIGHT);
	vs_table_column(tab, P99_B, "p99 B", VS_ALIGN_RIGHT);
	vs_table_column(tab, NOTE, "Note", VS_ALIGN_LEFT);
	for (i = 0; i < nr_shown(df, t->nr_events); i++) {
		const struct vs_event_diff *d = &t->events[i];

		vs_table_cell(tab, "%s", d->name);
		if (d->rank_a)
			vs_table_cell(tab, "%.1f%%", pct(d->impact_a));
		else
			vs_table_cell(tab, "-");
		if (d->rank_b)
			vs_table_cell(tab, "%.1f%%", pct(d->impact_b));
		else
			vs_table_cell(tab, "-");
		vs_table_cell(tab, "%+.1f%%", pct(d->delta));
		value_cell(tab, d->has_a, d->p50_a, d->unit);
		value_cell(tab, d->has_b, d->p50_b, d->unit);
		value_cell(tab, d->has_a, d->p99_a, d->unit);
		value_cell(tab, d->has_b, d->p99_b, d->unit);
		vs_table_cell(tab, "%s", vs_event_diff_burstier(d) ?
			      "burstier: p99 up, p50 not" : "");
		vs_table_end_row(tab);
	}
	vs_table_print(tab, stdout);
	vs_table_free(tab);
}

static void print_text(const struct diff *df)
{
	char a[32], b[32], c[32], d[32], type[VS_TYPE_NAME_MAX + 16];
	unsigned int i;

	print_headline(df);
	printf("# varscope diff: A = %s, B = %s\n", df->a.seg->label,
	       df->b.seg->label);
	printf("# impact: the share of the p%g latency that goes away without "
	       "the tasks where the event is high\n#\n",
	       100 * df->rank.ptarget);
	for (i = 0; i < df->cmp.nr_types; i++) {
		const struct vs_type_diff *t = &df->cmp.types[i];

		printf("# Task type %s: latency p50 %s -> %s, p%g %s -> %s "
		       "(%zu -> %zu tasks)\n#\n",
		       vs_type_label(&df->names, t->type, type, sizeof(type)),
		       vs_format_ns(a, sizeof(a), t->ra.latency_p50),
		       vs_format_ns(b, sizeof(b), t->rb.latency_p50),
		       100 * df->rank.ptarget,
		       vs_format_ns(c, sizeof(c), t->ra.latency_ptarget),
		       vs_format_ns(d, sizeof(d), t->rb.latency_ptarget),
		       t->ra.tasks, t->rb.tasks);
		print_side_by_side(df, t);
		printf("#\n");
		print_changes(df, t);
		printf("\n");
	}
}

/* --- JSON --- */

static void json_side(struct json_out *j, const char *key,
		      const struct vs_type_rank *tr)
{
	json_key(j, key);
	json_begin_object(j);
	json_key(j, "tasks");
	json_u64(j, tr->tasks);
	json_key(j, "latency_p50_ns");
	json_u64(j, tr->latency_p50);
	json_key(j, "latency_ptarget_ns");
	json_u64(j, tr->latency_ptarget);
	json_end_object(j);
}

static void json_value(struct json_out *j, const char *key, bool has, float v)
{
	json_key(j, key);
	if (has)
		json_double(j, v);
	else
		json_null(j);
}

static void json_rank(struct json_out *j, const char *key, size_t rank)
{
	json_key(j, key);
	if (rank)
		json_u64(j, rank);
	else
		json_null(j);
}

static void json_event(struct json_out *j, const struct vs_event_diff *d)
{
	json_begin_object(j);
	json_key(j, "event");
	json_string(j, d->name);
	json_key(j, "impact_a");
	json_double(j, d->impact_a);
	json_key(j, "impact_b");
	json_double(j, d->impact_b);
	json_key(j, "delta");
	json_double(j, d->delta);
	json_value(j, "p50_a", d->has_a, d->p50_a);
	json_value(j, "p99_a", d->has_a, d->p99_a);
	json_value(j, "p50_b", d->has_b, d->p50_b);
	json_value(j, "p99_b", d->has_b, d->p99_b);
	json_rank(j, "rank_a", d->rank_a);
	json_rank(j, "rank_b", d->rank_b);
	json_key(j, "unit");
	json_string(j, d->unit);
	json_key(j, "burstier");
	json_bool(j, vs_event_diff_burstier(d));
	json_end_object(j);
}

static void print_json(const struct diff *df)
{
	struct json_out j;
	unsigned int i;
	size_t e;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_key(&j, "a");
	json_string(&j, df->a.seg->label);
	json_key(&j, "b");
	json_string(&j, df->b.seg->label);
	json_key(&j, "ptarget");
	json_double(&j, df->rank.ptarget);
	json_key(&j, "task_types");
	json_begin_array(&j);
	for (i = 0; i < df->cmp.nr_types; i++) {
		const struct vs_type_diff *t = &df->cmp.types[i];

		json_begin_object(&j);
		json_key(&j, "type");
		json_u64(&j, t->type);
		if (vs_type_names_get(&df->names, t->type)) {
			json_key(&j, "type_name");
			json_string(&j, vs_type_names_get(&df->names, t->type));
		}
		json_side(&j, "a", &t->ra);
		json_side(&j, "b", &t->rb);
		json_key(&j, "events");
		json_begin_array(&j);
		for (e = 0; e < nr_shown(df, t->nr_events); e++)
			json_event(&j, &t->events[e]);
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_newline(&j);
}

/* --- SVG: Fig. 8 --- */

/* One segment's point of the figure for one task type. */
/* Points of --svg, one per task type and drawn segment. */
#define FIG_POINTS_MAX		(4u << 20)

struct fig_point {
	bool has_tasks;			/* of the type: else no point */
	uint64_t p50, p99;		/* latency */
	bool has_event;
	float ev_p50, ev_p99;		/* the top event */
	bool is_a, is_b;
};

/* The points of the figure: of each type of the diff, one per segment. */
struct figure {
	const struct diff *df;
	const struct vs_segment_list *segs;	/* df->drawn */
	struct fig_point *pts;		/* [type index * segs->nr + segment] */
};

static bool same_segment(const struct vs_trace_segment *x,
			 const struct vs_trace_segment *y)
{
	return !strcmp(x->path, y->path) && x->from_ns == y->from_ns &&
	       x->to_ns == y->to_ns;
}

/* The points of drawn segment @s, one per type, from its tasks @ts. */
static void fig_segment(const struct figure *fig, size_t s,
			const struct vs_taskset *ts)
{
	const struct diff *df = fig->df;
	const struct vs_trace_segment *seg = &fig->segs->seg[s];
	struct vs_latency_stats st;
	unsigned int i;

	for (i = 0; i < df->cmp.nr_types; i++) {
		const struct vs_type_diff *t = &df->cmp.types[i];
		const char *event = t->nr_events ? t->events[0].name : NULL;
		const struct vs_task_type *tt = vs_taskset_type(ts, t->type);
		struct fig_point *p = &fig->pts[i * fig->segs->nr + s];

		if (!tt || !tt->nr_tasks)
			continue;
		vs_latency_stats(tt, &st);
		*p = (struct fig_point){
			.has_tasks = true, .p50 = st.p50, .p99 = st.p99,
			.is_a = same_segment(seg, df->a.seg),
			.is_b = same_segment(seg, df->b.seg),
		};
		p->has_event = event && !vs_event_percentiles(tt,
			vs_taskset_event_by_name(ts, event), &p->ev_p50,
			&p->ev_p99);
	}
}

/*
 * The points of type @i into @pts: those of the segments with tasks of the
 * type, in segment order.  Returns how many.
 */
static size_t type_points(const struct figure *fig, unsigned int i,
			  struct fig_point *pts)
{
	const struct fig_point *all = &fig->pts[i * fig->segs->nr];
	size_t s, n = 0;

	for (s = 0; s < fig->segs->nr; s++)
		if (all[s].has_tasks)
			pts[n++] = all[s];
	return n;
}

static int cmp_point(const void *x, const void *y)
{
	const struct fig_point *a = x, *b = y;

	return a->p99 < b->p99 ? -1 : a->p99 > b->p99;
}

/* A panel of p50 and p99 curves over the segments ranked by p99. */
static void fig_panel(struct vs_svg *svg, double y, const char *title,
		      const char *unit, size_t nr_segs, const double *xs,
		      const double *p50, const double *p99, size_t n,
		      const struct fig_point *pts)
{
	struct vs_plot_spec spec = {
		.title = title, .xlabel = "segments, sorted by p99 latency",
		.ylabel = unit && !strcmp(unit, "ns") ? "time" : unit,
		.yunit = unit, .xmin = 0.5, .xmax = nr_segs + 0.5, .ymin = 0,
	};
	struct vs_plot plot;
	size_t i;

	for (i = 0; i < n; i++)
		if (p99[i] > spec.ymax)
			spec.ymax = p99[i];
	spec.ymax = spec.ymax > 0 ? spec.ymax * 1.1 : 1;
	vs_plot_begin(&plot, svg, 0, y, SVG_W, SVG_PANEL_H, &spec);
	for (i = 0; i < nr_segs; i++) {
		if (pts[i].is_a)
			vs_plot_vline(&plot, i + 1, VS_SVG_GREY, "A");
		if (pts[i].is_b)
			vs_plot_vline(&plot, i + 1, VS_SVG_GREY, "B");
	}
	vs_plot_line(&plot, xs, p99, n, VS_SVG_RED);
	vs_plot_points(&plot, xs, p99, n, VS_SVG_RED);
	vs_plot_line(&plot, xs, p50, n, VS_SVG_BLUE);
	vs_plot_points(&plot, xs, p50, n, VS_SVG_BLUE);
	vs_plot_legend(&plot, VS_SVG_RED, "p99");
	vs_plot_legend(&plot, VS_SVG_BLUE, "p50");
}

/* The points of every drawn segment, from the tasks read, into @fig. */
static int measure_figure(const struct diff *df, struct figure *fig)
{
	const struct vs_segment_list *segs = &df->drawn;
	size_t s;

	fig->df = df;
	fig->segs = segs;
	/* as segments' figures: not the product of many types and slices */
	if (df->cmp.nr_types &&
	    segs->nr > FIG_POINTS_MAX / df->cmp.nr_types) {
		fprintf(stderr, "varscope diff: --svg: %u task types in %zu "
			"segments: more points than %u (one per type and "
			"segment): choose a type (--type) or a longer "
			"--length\n", df->cmp.nr_types, segs->nr,
			FIG_POINTS_MAX);
		return -1;
	}
	fig->pts = calloc((segs->nr ? segs->nr : 1) *
			  (df->cmp.nr_types ? df->cmp.nr_types : 1), sizeof(*fig->pts));
	if (!fig->pts) {
		fprintf(stderr, "varscope diff: out of memory\n");
		return -1;
	}
	for (s = 0; s < segs->nr; s++)
		fig_segment(fig, s, df->ts[df->drawn_at[s]]);
	return 0;
}

static int write_svg(const struct diff *df, const struct figure *fig)
{
	const struct vs_segment_list *segs = fig->segs;
	struct fig_point *pts = calloc(segs->nr ? segs->nr : 1, sizeof(*pts));
	double *buf = calloc(6 * (segs->nr ? segs->nr : 1), sizeof(*buf));
	double *xs = buf, *a = xs + segs->nr, *b = a + segs->nr,
	       *xe = b + segs->nr, *c = xe + segs->nr, *d = c + segs->nr;
	double y = 0;
	struct vs_svg *svg = NULL;
	char title[256], type[VS_TYPE_NAME_MAX + 16];
	unsigned int i;
	size_t n, k, ne;
	int ret = -1;

	if (!pts || !buf)
		goto out;
	svg = vs_svg_create(df->svg, SVG_W, df->cmp.nr_types *
			    (SVG_TYPE_HEAD + 2 * SVG_PANEL_H) + 10);
	if (!svg) {
		fprintf(stderr, "varscope diff: cannot write '%s': %s\n",
			df->svg, strerror(errno));
		goto out;
	}
	for (i = 0; i < df->cmp.nr_types; i++) {
		const struct vs_type_diff *t = &df->cmp.types[i];
		const struct vs_event_diff *top = t->nr_events ? &t->events[0] :
						  NULL;

		n = type_points(fig, i, pts);
		qsort(pts, n, sizeof(*pts), cmp_point);
		for (k = ne = 0; k < n; k++) {
			xs[k] = k + 1;
			a[k] = pts[k].p50;
			b[k] = pts[k].p99;
			if (!pts[k].has_event)
				continue;
			xe[ne] = k + 1;
			c[ne] = pts[k].ev_p50;
			d[ne++] = pts[k].ev_p99;
		}
		vs_svg_text(svg, 12, y + 24, 15, "start",
			    "Task type %s: %zu segments sorted by p99 latency "
			    "(A = %s, B = %s)", vs_type_label(&df->names,
			    t->type, type, sizeof(type)), n, df->a.seg->label,
			    df->b.seg->label);
		y += SVG_TYPE_HEAD;
		fig_panel(svg, y, "Latency", "ns", n, xs, a, b, n, pts);
		y += SVG_PANEL_H;
		snprintf(title, sizeof(title), "%s (the top change, impact "
			 "%+.1f%%)", top ? top->name : "no event",
			 top ? pct(top->delta) : 0);
		fig_panel(svg, y, title, top ? top->unit : "", n, xe, c, d,
			  ne, pts);
		y += SVG_PANEL_H;
	}
	ret = 0;
out:
	if (svg && vs_svg_finish(svg) && !ret) {
		fprintf(stderr, "varscope diff: cannot write '%s': %s\n",
			df->svg, strerror(errno));
		ret = -1;
	}
	free(pts);
	free(buf);
	return ret;
}

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
			if (same_segment(&segs->seg[s], &df->list.seg[i]))
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
	if (df->top < 0)
		option_error("top", "must be 0 (all) or more");
	if (df->min_tasks < 1)
		option_error("min-tasks", "must be at least 1");
	vs_output_option("svg", df->svg);
	df->format = vs_format_option(df->format_name, VS_FORMATS_TEXT_JSON);
	df->rank.min_tasks = df->min_tasks;
	df->load.type = df->type;
	df->load.parts = vs_session_parts();
	df->rank.threads = df->load.parts;
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
		.format_name = "text", .top = 10, .min_tasks = 100,
		.rank = VS_RANK_OPTS_INIT,
	};
	const struct vs_option options[] = {
		OPT_DURATION(0, "length", &df.length,
			     "slice length of FILE:N, and of the --svg "
			     "segments"),
		OPT_STRING(0, "type", &df.type, "type",
			   "only this task type"),
		OPT_INTEGER(0, "top", &df.top,
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
	struct figure fig = { 0 };
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
	if (df.format == VS_FORMAT_JSON)
		print_json(&df);
	else
		print_text(&df);
	if (df.svg && (measure_figure(&df, &fig) || write_svg(&df, &fig)))
		ret = 1;
out:
	free(fig.pts);
	free_diff(&df);
	return ret;
}
