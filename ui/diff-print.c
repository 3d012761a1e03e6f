// SPDX-License-Identifier: MIT
/*
 * diff-print.c - what varscope diff prints: per task type, both impact
 * rankings side by side and each event's change (VarMRI section 6), as
 * text or JSON, and the paper's Fig. 8 as SVG.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/segments.h"
#include "ui/diff-print.h"
#include "ui/json.h"
#include "ui/svg.h"
#include "ui/table.h"
#include "ui/units.h"

#define NOTABLE_DELTA	0.05	/* changes of impact worth a word */
#define SVG_W		900
#define SVG_PANEL_H	260
#define SVG_TYPE_HEAD	34

static size_t nr_shown(const struct vs_diff_print *p, size_t n)
{
	return p->top > 0 && (size_t)p->top < n ? (size_t)p->top : n;
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
static void describe(const struct vs_diff_print *p,
		     const struct vs_type_diff *t,
		     const struct vs_event_diff *d, char *buf, size_t len)
{
	char a[32], b[32], type[VS_TYPE_NAME_MAX + 16];
	size_t n, i;

	n = snprintf(buf, len, "%s (type %s: impact %.1f%% -> %.1f%%",
		     d->name, vs_type_label(p->names, t->type, type,
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
static void print_headline(const struct vs_diff_print *p)
{
	const struct vs_event_diff *grew, *shrank;
	char buf[512];
	unsigned int i;
	bool any = false;

	for (i = 0; i < p->cmp->nr_types; i++) {
		const struct vs_type_diff *t = &p->cmp->types[i];

		grew = top_change(t, true);
		shrank = top_change(t, false);
		if (grew) {
			describe(p, t, grew, buf, sizeof(buf));
			printf("%s grew most with %s", any ? ";" :
			       "In B the tail", buf);
			any = true;
		}
		if (shrank && (!grew || -shrank->delta > grew->delta)) {
			describe(p, t, shrank, buf, sizeof(buf));
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

static void print_side_by_side(const struct vs_diff_print *p,
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
	for (i = 0; i < nr_shown(p, n); i++) {
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

static void print_changes(const struct vs_diff_print *p,
			  const struct vs_type_diff *t)
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
	for (i = 0; i < nr_shown(p, t->nr_events); i++) {
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

static void print_text(const struct vs_diff_print *p)
{
	char a[32], b[32], c[32], d[32], type[VS_TYPE_NAME_MAX + 16];
	unsigned int i;

	print_headline(p);
	printf("# varscope diff: A = %s, B = %s\n", p->a->label,
	       p->b->label);
	printf("# impact: the share of the p%g latency that goes away without "
	       "the tasks where the event is high\n#\n",
	       100 * p->ptarget);
	for (i = 0; i < p->cmp->nr_types; i++) {
		const struct vs_type_diff *t = &p->cmp->types[i];

		printf("# Task type %s: latency p50 %s -> %s, p%g %s -> %s "
		       "(%zu -> %zu tasks)\n#\n",
		       vs_type_label(p->names, t->type, type, sizeof(type)),
		       vs_format_ns(a, sizeof(a), t->ra.latency_p50),
		       vs_format_ns(b, sizeof(b), t->rb.latency_p50),
		       100 * p->ptarget,
		       vs_format_ns(c, sizeof(c), t->ra.latency_ptarget),
		       vs_format_ns(d, sizeof(d), t->rb.latency_ptarget),
		       t->ra.tasks, t->rb.tasks);
		print_side_by_side(p, t);
		printf("#\n");
		print_changes(p, t);
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

static void print_json(const struct vs_diff_print *p)
{
	struct json_out j;
	unsigned int i;
	size_t e;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_key(&j, "a");
	json_string(&j, p->a->label);
	json_key(&j, "b");
	json_string(&j, p->b->label);
	json_key(&j, "ptarget");
	json_double(&j, p->ptarget);
	json_key(&j, "task_types");
	json_begin_array(&j);
	for (i = 0; i < p->cmp->nr_types; i++) {
		const struct vs_type_diff *t = &p->cmp->types[i];

		json_begin_object(&j);
		json_key(&j, "type");
		json_u64(&j, t->type);
		if (vs_type_names_get(p->names, t->type)) {
			json_key(&j, "type_name");
			json_string(&j, vs_type_names_get(p->names, t->type));
		}
		json_side(&j, "a", &t->ra);
		json_side(&j, "b", &t->rb);
		json_key(&j, "events");
		json_begin_array(&j);
		for (e = 0; e < nr_shown(p, t->nr_events); e++)
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
struct fig_point {
	bool has_tasks;			/* of the type: else no point */
	uint64_t p50, p99;		/* latency */
	bool has_event;
	float ev_p50, ev_p99;		/* the top event */
	bool is_a, is_b;
};

/* The points of the figure: of each type of the diff, one per segment. */
struct figure {
	const struct vs_diff_print *p;
	const struct vs_segment_list *segs;	/* the drawn segments */
	struct fig_point *pts;		/* [type index * segs->nr + segment] */
};

/* The points of drawn segment @s, one per type, from its tasks @ts. */
static void fig_segment(const struct figure *fig, size_t s,
			const struct vs_taskset *ts)
{
	const struct vs_diff_print *out = fig->p;
	const struct vs_trace_segment *seg = &fig->segs->seg[s];
	struct vs_latency_stats st;
	unsigned int i;

	for (i = 0; i < out->cmp->nr_types; i++) {
		const struct vs_type_diff *t = &out->cmp->types[i];
		const char *event = t->nr_events ? t->events[0].name : NULL;
		const struct vs_task_type *tt = vs_taskset_type(ts, t->type);
		struct fig_point *p = &fig->pts[i * fig->segs->nr + s];

		if (!tt || !tt->nr_tasks)
			continue;
		vs_latency_stats(tt, &st);
		*p = (struct fig_point){
			.has_tasks = true, .p50 = st.p50, .p99 = st.p99,
			.is_a = vs_segment_same(seg, out->a),
			.is_b = vs_segment_same(seg, out->b),
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

/*
 * The points of every drawn segment, from their tasks @ts, into @fig: 0,
 * -1 when memory runs out, -3 past VS_DIFF_FIG_POINTS_MAX.
 */
static int measure_figure(const struct vs_diff_print *p,
			  const struct vs_segment_list *drawn,
			  const struct vs_taskset *const *ts,
			  const size_t *drawn_at, struct figure *fig)
{
	size_t s;

	fig->p = p;
	fig->segs = drawn;
	/* as segments' figures: not the product of many types and slices */
	if (p->cmp->nr_types &&
	    drawn->nr > VS_DIFF_FIG_POINTS_MAX / p->cmp->nr_types)
		return -3;
	fig->pts = calloc((drawn->nr ? drawn->nr : 1) *
			  (p->cmp->nr_types ? p->cmp->nr_types : 1),
			  sizeof(*fig->pts));
	if (!fig->pts)
		return -1;
	for (s = 0; s < drawn->nr; s++)
		fig_segment(fig, s, ts[drawn_at[s]]);
	return 0;
}

int vs_diff_write_svg(const struct vs_diff_print *p, const char *path,
		      const struct vs_segment_list *drawn,
		      const struct vs_taskset *const *ts,
		      const size_t *drawn_at)
{
	struct figure figure = { 0 }, *fig = &figure;
	const struct vs_segment_list *segs = drawn;
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
	ret = measure_figure(p, drawn, ts, drawn_at, fig);
	if (ret)
		goto out;
	ret = -2;
	svg = vs_svg_create(path, SVG_W, p->cmp->nr_types *
			    (SVG_TYPE_HEAD + 2 * SVG_PANEL_H) + 10);
	if (!svg)
		goto out;
	for (i = 0; i < p->cmp->nr_types; i++) {
		const struct vs_type_diff *t = &p->cmp->types[i];
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
			    "(A = %s, B = %s)", vs_type_label(p->names,
			    t->type, type, sizeof(type)), n, p->a->label,
			    p->b->label);
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
	if (svg && vs_svg_finish(svg) && !ret)
		ret = -2;
	free(fig->pts);
	free(pts);
	free(buf);
	return ret;
}

void vs_diff_print_result(const struct vs_diff_print *p)
{
	if (p->format == VS_FORMAT_JSON)
		print_json(p);
	else
		print_text(p);
}
