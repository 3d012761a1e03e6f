// SPDX-License-Identifier: MIT
/*
 * report-print.c - what varscope report prints: the rankings of the task
 * types (VarMRI, section 5) as a table, JSON, CSV or SVG.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/breakdown.h"
#include "core/analysis/func-callers.h"
#include "core/analysis/func-events.h"
#include "core/plural.h"
#include "core/trace/trace.h"
#include "core/trace/type-names.h"
#include "core/analysis/wakeup.h"
#include "ui/report-print.h"
#include "ui/svg.h"
#include "ui/table.h"
#include "ui/tail-line.h"
#include "ui/ran-line.h"
#include "ui/units.h"
#include "ui/vtree-print.h"

#define SVG_TOP_DEFAULT	5	/* event plots per type unless --top */
#define SVG_TOP_MAX	11
#define SVG_COLUMNS	3
#define SVG_PANEL_W	400
#define SVG_PANEL_H	250
#define SVG_TYPE_HEAD	34
#define SVG_CUT		3	/* cut the x axis when max > 3 x p99 */
#define VS_WAKE_SHOWN	5	/* wakers listed per type in text */

static const char *event_unit(const struct vs_report_print *p,
			      const struct vs_event_rank *er)
{
	const struct vs_event_def *def = vs_taskset_event(p->trace->ts,
							  er->event);

	return def ? def->unit : "";
}

static const char *event_name(const struct vs_report_print *p, int event)
{
	const struct vs_event_def *def = vs_taskset_event(p->trace->ts, event);

	return def ? def->name : "?";
}

/* How many ranked events to print: --top, or all. */
static size_t nr_shown(const struct vs_report_print *p,
		       const struct vs_type_rank *tr)
{
	if (p->top > 0 && (size_t)p->top < tr->nr_ranked)
		return p->top;
	return tr->nr_ranked;
}

/* --- text --- */

/* A share as a percentage, without "-0.0%". */
static double pct(double share)
{
	double v = 100 * share;

	return v > -0.05 && v < 0.05 ? 0 : v;
}

/* The notes of one ranked event, "; "-separated, into @buf. */
static const char *event_notes(const struct vs_report_print *p,
			       const struct vs_event_rank *er,
			       char *buf, size_t len)
{
	struct vs_main_part part;
	size_t n = 0;

#define NOTE(...) \
	n += snprintf(buf + n, n < len ? len - n : 0, "%s", n ? "; " : ""), \
	n += snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__)

	buf[0] = 0;
	if (vs_main_part(p->trace->ts, p->tt, er, &part))
		NOTE("mostly %s: %.0f%% of it in the high tasks", part.part,
		     100 * part.share);
	if (er->cause >= 0)
		NOTE("rule 1: -%.1f%% caused by %s (J=%.2f)",
		     100 * (er->impact - er->adjusted),
		     event_name(p, er->cause), er->cause_corr);
	if (er->time_bound)
		NOTE("bounded by what it adds to the slow tasks");
	if (er->time_twin >= 0)
		NOTE("bounded by %s", event_name(p, er->time_twin));
	if (er->corr_with >= 0)
		NOTE("correlated with %s (J=%.2f)",
		     event_name(p, er->corr_with), er->corr);
	if (er->pairs_too_few)
		NOTE("%u rule pairs recorded together too rarely to apply",
		     er->pairs_too_few);
	if (er->thr.how == VS_THRESHOLD_NO_STEP)
		NOTE("no step in the CDF: threshold at pTarget");
	else if (er->thr.how == VS_THRESHOLD_CONSTANT)
		NOTE("constant: no high values");
	else if (er->thr.how == VS_THRESHOLD_TOO_FEW)
		NOTE("too few values to fit the CDF: threshold at pTarget");
	if (er->tasks_needed == UINT64_MAX && er->thr.how != VS_THRESHOLD_CONSTANT)
		NOTE("no high-value task");
	else if (er->tasks_needed && er->tasks_needed != UINT64_MAX)
		NOTE("only %zu high-value tasks: record ~%" PRIu64
		     " more tasks to trust it", er->high_tasks,
		     er->tasks_needed);
#undef NOTE
	return buf;
}

/*
 * The call paths behind the high values of sampled function event @er
 * of @tr (core/analysis/func-callers.h) into @out; how many
 */
static size_t event_callers(const struct vs_report_print *p,
			    const struct vs_type_rank *tr,
			    const struct vs_event_rank *er,
			    struct vs_func_caller out[VS_CALLERS_SHOWN])
{
	if (er->group != VS_GROUP_FUNC || !p->trace->funcs ||
	    !p->trace->funcs->samples || er->thr.how == VS_THRESHOLD_CONSTANT)
		return 0;
	return vs_func_callers(p->trace->funcs->samples, tr->type, er->name,
			       p->func_time,
			       er->thr.value, out, VS_CALLERS_SHOWN);
}

/* "callers: a → f 93%, b → f 5%" of @er appended to the notes @buf. */
static const char *notes_callers(const struct vs_report_print *p,
				 const struct vs_type_rank *tr,
				 const struct vs_event_rank *er, char *buf,
				 size_t len)
{
	struct vs_func_caller c[VS_CALLERS_SHOWN];
	size_t i, nr = event_callers(p, tr, er, c), n = strlen(buf);

	for (i = 0; i < nr && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s %.0f%%",
			      i ? ", " : n ? "; callers: " : "callers: ",
			      c[i].path, 100 * c[i].share);
	return buf;
}

static void json_callers(const struct vs_report_print *p, struct json_out *j,
			 const struct vs_type_rank *tr,
			 const struct vs_event_rank *er)
{
	struct vs_func_caller c[VS_CALLERS_SHOWN];
	size_t i, nr;

	if (er->group != VS_GROUP_FUNC)
		return;
	nr = event_callers(p, tr, er, c);
	json_key(j, "callers");
	json_begin_array(j);
	for (i = 0; i < nr; i++) {
		json_begin_object(j);
		json_key(j, "path");
		json_string(j, c[i].path);
		json_key(j, "share");
		json_double(j, c[i].share);
		json_end_object(j);
	}
	json_end_array(j);
}

/* The probes' own cost over the type's median latency (--task-func). */
static double probe_share(const struct vs_report_print *p,
			  const struct vs_type_rank *tr)
{
	return tr->latency_p50 ? (double)p->trace->head.probe_cost_ns /
				 tr->latency_p50 : 0;
}

/* "# run-queue waits of the slow tasks: ...": who ran instead of them */
static void print_text_ran(const struct vs_report_print *p)
{
	char line[512];

	if (vs_ran_blame_line(p->ran, line, sizeof(line)))
		printf("# %s\n", line);
}

/* The tail past pTarget, when a deeper target shows what it hides. */
static void print_text_tail(const struct vs_report_print *p,
			    const struct vs_type_rank *tr)
{
	char line[VS_TYPE_NAME_MAX + 512];

	if (p->tail->found)
		printf("# %s\n", vs_tail_hint_line(p->tail, tr->ptarget,
						   line, sizeof(line)));
}

static void json_tail(struct json_out *j, const struct vs_tail_hint *h)
{
	json_key(j, "tail_hint");
	if (!h->found) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_key(j, "tasks");
	json_u64(j, h->tasks);
	json_key(j, "share");
	json_double(j, h->share);
	json_key(j, "median_ns");
	json_u64(j, h->median_ns);
	json_key(j, "times_ptarget");
	json_double(j, h->times_ptarget);
	json_key(j, "event");
	json_string(j, h->name);
	json_key(j, "high_tasks");
	json_u64(j, h->high);
	json_key(j, "ptarget");
	json_double(j, h->ptarget);
	json_key(j, "impact");
	json_double(j, h->impact);
	json_key(j, "impact_at_ptarget");
	json_double(j, h->impact_now);
	json_end_object(j);
}

/* The wake-up edges that ended waits of a type's tasks, by waker. */
static void print_text_wakeups(const struct vs_report_print *p,
			       const struct vs_wake_type *w)
{
	const struct vs_task_samples *ts = p->trace->funcs ?
					   p->trace->funcs->samples : NULL;
	char a[32], b[32];
	unsigned int i, f;

	if (!w)
		return;
	printf("# blocked waits woken by: the same task's threads %llu, "
	       "threads in other tasks %llu, threads outside tasks %llu, "
	       "interrupts %llu\n",
	       (unsigned long long)w->edges[VS_WAKER_SAME_TASK],
	       (unsigned long long)w->edges[VS_WAKER_OTHER_TASK],
	       (unsigned long long)w->edges[VS_WAKER_OUTSIDE],
	       (unsigned long long)w->edges[VS_WAKER_INTERRUPT]);
	if (!w->nr_wakers)
		return;
	printf("# waits blamed along wake-up edges: %s blocked in %llu "
	       "%s\n", vs_format_ns(a, sizeof(a), (double)w->wait_ns),
	       (unsigned long long)w->tasks,
	       vs_plural(w->tasks, "task", "tasks"));
	for (i = 0; i < w->nr_wakers && i < VS_WAKE_SHOWN; i++) {
		const struct vs_waker *k = &w->wakers[i];

		printf("#   %s %s (tid %u, %s, %u %s deep), %llu %s",
		       vs_format_ns(a, sizeof(a), (double)k->ns),
		       k->tid ? (*k->comm ? k->comm : "?") : "[interrupt]",
		       k->tid, vs_waker_kind_name(k->kind), k->depth,
		       vs_plural(k->depth, "edge", "edges"),
		       (unsigned long long)k->waits,
		       vs_plural(k->waits, "wait", "waits"));
		for (f = 0; ts && f < k->nr_funcs; f++)
			printf("%s %s %s", f ? "," : ":",
			       vs_vtree_sample_symbol((void *)ts,
						      k->funcs[f].symbol),
			       vs_format_ns(b, sizeof(b),
					    (double)k->funcs[f].ns));
		printf("\n");
	}
}

static void json_wakers(struct json_out *j, const struct vs_report_print *p,
			const struct vs_wake_type *w)
{
	const struct vs_task_samples *ts = p->trace->funcs ?
					   p->trace->funcs->samples : NULL;
	unsigned int i, f;

	json_key(j, "wait_blame");
	json_begin_object(j);
	json_key(j, "tasks");
	json_u64(j, w->tasks);
	json_key(j, "wait_ns");
	json_u64(j, w->wait_ns);
	json_key(j, "wakers");
	json_begin_array(j);
	for (i = 0; i < w->nr_wakers; i++) {
		const struct vs_waker *k = &w->wakers[i];

		json_begin_object(j);
		json_key(j, "tid");
		json_u64(j, k->tid);
		json_key(j, "comm");
		json_string(j, k->comm);
		json_key(j, "kind");
		json_string(j, vs_waker_kind_name(k->kind));
		json_key(j, "depth");
		json_u64(j, k->depth);
		json_key(j, "waits");
		json_u64(j, k->waits);
		json_key(j, "ns");
		json_u64(j, k->ns);
		json_key(j, "functions");
		json_begin_array(j);
		for (f = 0; ts && f < k->nr_funcs; f++) {
			json_begin_object(j);
			json_key(j, "name");
			json_string(j, vs_vtree_sample_symbol((void *)ts,
							      k->funcs[f].symbol));
			json_key(j, "ns");
			json_u64(j, k->funcs[f].ns);
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

static void json_wakeups(struct json_out *j, const struct vs_report_print *p,
			 const struct vs_wake_type *w)
{
	int k;

	json_key(j, "woken_by");
	if (!w) {
		json_null(j);
		json_key(j, "wait_blame");
		json_null(j);
		return;
	}
	json_begin_object(j);
	for (k = 0; k < VS_WAKER__NR; k++) {
		json_key(j, vs_waker_kind_name(k));
		json_u64(j, w->edges[k]);
	}
	json_end_object(j);
	json_wakers(j, p, w);
}

static void print_text_type(const struct vs_report_print *p,
			    const struct vs_type_rank *tr)
{
	enum { RANK, EVENT, IMPACT, ADJUSTED, CI, THRESHOLD, PTHR, TASKS, HIGH,
	       SLOW50, SLOW99, OTHER50, OTHER99, NOTES, NR_COLS };
	struct vs_table *t = vs_table_new(NR_COLS);
	char a[32], b[32], notes[512], label[VS_TYPE_NAME_MAX + 16];
	size_t i, shown = nr_shown(p, tr);

	if (!t)
		return;
	printf("# Task type %s: %zu tasks, latency p50 %s, p%g %s\n",
	       vs_type_label(&p->trace->ts->names, tr->type, label,
			     sizeof(label)),
	       tr->tasks, vs_format_ns(a, sizeof(a), tr->latency_p50),
	       100 * tr->ptarget,
	       vs_format_ns(b, sizeof(b), tr->latency_ptarget));
	if (tr->flagged)
		printf("# %zu %s flagged: lost events, distorted counters "
		       "or cut short\n", tr->flagged,
		       vs_plural(tr->flagged, "task", "tasks"));
	if (p->trace->head.probe_cost_ns)
		printf("# --task-func: about %s of each task is its probes' own "
		       "cost, %.0f%% of the median\n",
		       vs_format_ns(a, sizeof(a),
				    p->trace->head.probe_cost_ns),
		       100 * probe_share(p, tr));
	print_text_tail(p, tr);
	print_text_wakeups(p, vs_wake_blame_type(p->trace->wakeups,
						   tr->type));
	printf("#\n");

	vs_table_column(t, RANK, "Rank", VS_ALIGN_RIGHT);
	vs_table_column(t, EVENT, "Event", VS_ALIGN_LEFT);
	vs_table_column(t, IMPACT, "Impact", VS_ALIGN_RIGHT);
	vs_table_column(t, ADJUSTED, "Adjusted", VS_ALIGN_RIGHT);
	vs_table_column(t, CI, p->ci ? "CI 95%" : NULL, VS_ALIGN_RIGHT);
	vs_table_column(t, THRESHOLD, "Threshold", VS_ALIGN_RIGHT);
	vs_table_column(t, PTHR, "pThr", VS_ALIGN_RIGHT);
	vs_table_column(t, TASKS, "Tasks", VS_ALIGN_RIGHT);
	vs_table_column(t, HIGH, "High", VS_ALIGN_RIGHT);
	vs_table_column(t, SLOW50, "Slow p50", VS_ALIGN_RIGHT);
	vs_table_column(t, SLOW99, "Slow p99", VS_ALIGN_RIGHT);
	vs_table_column(t, OTHER50, "Other p50", VS_ALIGN_RIGHT);
	vs_table_column(t, OTHER99, "Other p99", VS_ALIGN_RIGHT);
	vs_table_column(t, NOTES, "Notes", VS_ALIGN_LEFT);
	for (i = 0; i < shown; i++) {
		const struct vs_event_rank *er = &tr->events[i];
		const char *unit = event_unit(p, er);

		vs_table_cell(t, "%zu", i + 1);
		vs_table_cell(t, "%s", er->name);
		vs_table_cell(t, "%.1f%%", pct(er->impact));
		vs_table_cell(t, "%.1f%%", pct(er->adjusted));
		if (er->has_ci)
			vs_table_cell(t, "[%.1f%%, %.1f%%]", pct(er->ci_lo),
				      pct(er->ci_hi));
		else
			vs_table_cell(t, "%s", "");
		vs_table_cell(t, "%s", vs_format_value(a, sizeof(a),
						       er->thr.value, unit));
		vs_table_cell(t, "%.3f", er->thr.pthreshold);
		vs_table_cell(t, "%zu", er->tasks);
		vs_table_cell(t, "%zu", er->high_tasks);
		vs_table_cell(t, "%s", vs_format_value(a, sizeof(a),
						       er->slow_p50, unit));
		vs_table_cell(t, "%s", vs_format_value(a, sizeof(a),
						       er->slow_p99, unit));
		vs_table_cell(t, "%s", vs_format_value(a, sizeof(a),
						       er->other_p50, unit));
		vs_table_cell(t, "%s", vs_format_value(a, sizeof(a),
						       er->other_p99, unit));
		event_notes(p, er, notes, sizeof(notes));
		vs_table_cell(t, "%s", notes_callers(p, tr, er, notes,
						     sizeof(notes)));
		vs_table_end_row(t);
	}
	if (shown) {
		vs_table_print(t, stdout);
		print_text_ran(p);
	} else
		printf("# no event recorded by at least %zu %s\n",
		       p->rank->min_tasks,
		       vs_plural(p->rank->min_tasks, "task", "tasks"));
	vs_table_free(t);

	if (shown < tr->nr_ranked)
		printf("# ... %zu more %s (--top 0 shows all)\n",
		       tr->nr_ranked - shown,
		       vs_plural(tr->nr_ranked - shown, "event", "events"));
	for (i = tr->nr_ranked; i < tr->nr_events; i++) {
		const struct vs_event_rank *er = &tr->events[i];

		if (er->status == VS_RANK_REMOVED)
			printf("# rule 2: %s removed: proportional to %s "
			       "(%s = %.3g x %s, R2 %.4f)\n", er->name,
			       event_name(p, er->parent),
			       event_name(p, er->parent), er->parent_alpha,
			       er->name, er->parent_r2);
		else
			printf("# not ranked: %s, recorded by %zu %s "
			       "(--min-tasks %zu)\n", er->name, er->tasks,
			       vs_plural(er->tasks, "task", "tasks"),
			       p->rank->min_tasks);
	}
	printf("\n");
}

static void print_text_head(const struct vs_report_print *p)
{
	unsigned int i;

	printf("# varscope report of %s\n", p->trace->path);
	printf("# impact: the share of the p%g latency of the tasks that "
	       "recorded an event\n# that goes away without the tasks "
	       "where the event is high\n", 100 * p->rank->ptarget);
	for (i = 0; i < p->trace->head.nr_notes; i++)
		printf("# recording: %s\n", p->trace->head.notes[i]);
	printf("#\n");
}

static void print_text_tree(const struct vs_report_print *p,
			    const struct vs_type_rank *tr)
{
	char label[VS_TYPE_NAME_MAX + 16];

	if (p->view->vt)
		vs_vtree_print_text(stdout, p->view);
	else
		printf("No variance tree of type %s: %s\n",
		       vs_type_label(&p->trace->ts->names, tr->type, label,
				     sizeof(label)), p->no_tree);
	printf("\n");
}

/* --- JSON --- */

/* "key": {"event": name, "correlation": c, "tasks": n} */
static void json_event_ref(struct json_out *j, const char *key,
			   const char *name, double corr, size_t tasks)
{
	json_key(j, key);
	json_begin_object(j);
	json_key(j, "event");
	json_string(j, name);
	json_key(j, "correlation");
	json_double(j, corr);
	if (tasks) {
		json_key(j, "tasks");
		json_u64(j, tasks);
	}
	json_end_object(j);
}

/* "ran_instead": [{"comm","pid","tid","time_ns","tasks"}, ...] */
static void json_ran_instead(struct json_out *j, const struct vs_ran_blame *b)
{
	size_t i;

	json_key(j, "ran_instead");
	json_begin_array(j);
	for (i = 0; i < b->nr; i++) {
		json_begin_object(j);
		json_key(j, "comm");
		json_string(j, b->threads[i].comm);
		json_key(j, "pid");
		json_u64(j, b->threads[i].pid);
		json_key(j, "tid");
		json_u64(j, b->threads[i].tid);
		json_key(j, "time_ns");
		json_u64(j, b->threads[i].time_ns);
		json_key(j, "tasks");
		json_u64(j, b->threads[i].tasks);
		json_end_object(j);
	}
	json_end_array(j);
}

static void json_ranked_event(const struct vs_report_print *p,
			      struct json_out *j,
			      const struct vs_type_rank *tr,
			      const struct vs_event_rank *er, size_t rank)
{
	struct vs_main_part part;

	json_begin_object(j);
	json_key(j, "rank");
	json_u64(j, rank);
	json_key(j, "event");
	json_string(j, er->name);
	json_key(j, "group");
	json_string(j, vs_group_name(er->group));
	json_key(j, "unit");
	json_string(j, event_unit(p, er));
	json_key(j, "impact");
	json_double(j, er->impact);
	json_key(j, "adjusted_impact");
	json_double(j, er->adjusted);
	json_key(j, "threshold");
	json_double(j, er->thr.value);
	json_key(j, "pthreshold");
	json_double(j, er->thr.pthreshold);
	json_key(j, "threshold_kind");
	json_string(j, vs_threshold_how_name(er->thr.how));
	json_key(j, "tasks");
	json_u64(j, er->tasks);
	json_key(j, "high_tasks");
	json_u64(j, er->high_tasks);
	json_key(j, "slow_tasks");
	json_u64(j, er->slow_tasks);
	json_key(j, "ci");
	if (er->has_ci) {
		json_begin_array(j);
		json_double(j, er->ci_lo);
		json_double(j, er->ci_hi);
		json_end_array(j);
	} else {
		json_null(j);
	}
	json_key(j, "latency_ptarget_ns");
	json_u64(j, er->p_all);
	json_key(j, "latency_ptarget_without_high_ns");
	json_u64(j, er->p_low);
	json_key(j, "slow_p50");
	json_double(j, er->slow_p50);
	json_key(j, "slow_p99");
	json_double(j, er->slow_p99);
	json_key(j, "other_p50");
	json_double(j, er->other_p50);
	json_key(j, "other_p99");
	json_double(j, er->other_p99);
	if (er->cause >= 0)
		json_event_ref(j, "caused_by", event_name(p, er->cause),
			       er->cause_corr, 0);
	json_key(j, "time_bound");
	json_bool(j, er->time_bound);
	json_key(j, "bounded_by");
	json_string_or_null(j, er->time_twin >= 0 ?
			    event_name(p, er->time_twin) : NULL);
	json_key(j, "pairs_too_few");
	json_u64(j, er->pairs_too_few);
	if (er->corr_with >= 0)
		json_event_ref(j, "correlated_with",
			       event_name(p, er->corr_with), er->corr,
			       er->corr_tasks);
	json_key(j, "tasks_needed");
	if (er->tasks_needed == UINT64_MAX)
		json_null(j);
	else
		json_u64(j, er->tasks_needed);
	json_key(j, "mostly");
	if (vs_main_part(p->trace->ts, p->tt, er, &part)) {
		json_begin_object(j);
		json_key(j, "event");
		json_string(j, part.name);
		json_key(j, "part");
		json_string(j, part.part);
		json_key(j, "share");
		json_double(j, part.share);
		json_end_object(j);
	} else {
		json_null(j);
	}
	if (p->ran && p->ran->event >= 0 && er->event == p->ran->event)
		json_ran_instead(j, p->ran);
	json_callers(p, j, tr, er);
	json_end_object(j);
}

/* The events of @tr left out of the ranking for @status, as @key: [...]. */
static void json_unranked(const struct vs_report_print *p, struct json_out *j,
			  const struct vs_type_rank *tr,
			  enum vs_rank_status status, const char *key)
{
	size_t i;

	json_key(j, key);
	json_begin_array(j);
	for (i = tr->nr_ranked; i < tr->nr_events; i++) {
		const struct vs_event_rank *er = &tr->events[i];

		if (er->status != status)
			continue;
		json_begin_object(j);
		json_key(j, "event");
		json_string(j, er->name);
		if (status == VS_RANK_REMOVED) {
			json_key(j, "parent");
			json_string(j, event_name(p, er->parent));
			json_key(j, "alpha");
			json_double(j, er->parent_alpha);
			json_key(j, "r2");
			json_double(j, er->parent_r2);
			json_key(j, "tasks");
			json_u64(j, er->parent_tasks);
		} else {
			json_key(j, "tasks");
			json_u64(j, er->tasks);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

static void print_json_head(struct vs_report_print *p)
{
	struct json_out *j = &p->json;
	unsigned int i;

	json_init(j, stdout);
	json_begin_object(j);
	json_key(j, "notes");
	json_begin_array(j);
	for (i = 0; i < p->trace->head.nr_notes; i++)
		json_string(j, p->trace->head.notes[i]);
	json_end_array(j);
	json_key(j, "probe_cost_ns");
	if (p->trace->head.probe_cost_ns)
		json_u64(j, p->trace->head.probe_cost_ns);
	else
		json_null(j);
	json_key(j, "task_types");
	json_begin_array(j);
}

static void print_json_type(struct vs_report_print *p,
			    const struct vs_type_rank *tr)
{
	struct json_out *j = &p->json;
	size_t i;

	json_begin_object(j);
	json_key(j, "type");
	json_u64(j, tr->type);
	if (vs_type_names_get(&p->trace->ts->names, tr->type)) {
		json_key(j, "type_name");
		json_string(j, vs_type_names_get(&p->trace->ts->names,
						 tr->type));
	}
	json_key(j, "tasks");
	json_u64(j, tr->tasks);
	json_key(j, "flagged_tasks");
	json_u64(j, tr->flagged);
	json_key(j, "ptarget");
	json_double(j, tr->ptarget);
	json_key(j, "latency_ptarget_ns");
	json_u64(j, tr->latency_ptarget);
	json_key(j, "latency_p50_ns");
	json_u64(j, tr->latency_p50);
	json_key(j, "probe_cost_share_p50");
	if (p->trace->head.probe_cost_ns)
		json_double(j, probe_share(p, tr));
	else
		json_null(j);
	json_key(j, "ranking");
	json_begin_array(j);
	for (i = 0; i < nr_shown(p, tr); i++)
		json_ranked_event(p, j, tr, &tr->events[i], i + 1);
	json_end_array(j);
	json_unranked(p, j, tr, VS_RANK_REMOVED, "removed");
	json_unranked(p, j, tr, VS_RANK_TOO_FEW, "not_ranked");
	json_tail(j, p->tail);
	json_wakeups(j, p, vs_wake_blame_type(p->trace->wakeups, tr->type));
	if (p->tree) {
		json_key(j, "variance_tree");
		if (p->view->vt)
			vs_vtree_print_json(j, p->view);
		else
			json_null(j);
		json_key(j, "no_tree");
		json_string(j, p->no_tree);
	}
	json_end_object(j);
}

static void print_json_tail(struct vs_report_print *p)
{
	json_end_array(&p->json);
	json_end_object(&p->json);
	json_newline(&p->json);
}

/* --- CSV --- */

static void print_csv_head(void)
{
	printf("type,type_name,rank,event,group,unit,impact,adjusted_impact,ci_lo,ci_hi,"
	       "threshold,pthreshold,threshold_kind,tasks,high_tasks,"
	       "slow_p50,slow_p99,other_p50,other_p99,latency_ptarget_ns,"
	       "latency_ptarget_without_high_ns,tasks_needed\n");
}

static void print_csv_type(const struct vs_report_print *p,
			   const struct vs_type_rank *tr)
{
	const char *type_name = vs_type_names_get(&p->trace->ts->names,
						  tr->type);
	size_t i;

	if (!type_name)
		type_name = "";

	for (i = 0; i < nr_shown(p, tr); i++) {
		const struct vs_event_rank *er = &tr->events[i];

		printf("%u,", tr->type);
		vs_csv_string(stdout, type_name);
		printf(",%zu,", i + 1);
		vs_csv_string(stdout, er->name);
		printf(",%s,%s,%.6g,%.6g,", vs_group_name(er->group),
		       event_unit(p, er), er->impact, er->adjusted);
		if (er->has_ci)
			printf("%.6g,%.6g,", er->ci_lo, er->ci_hi);
		else
			printf(",,");
		printf("%.9g,%.6g,%s,%zu,%zu,%.9g,%.9g,%.9g,%.9g,"
		       "%" PRIu64 ",%" PRIu64 ",",
		       er->thr.value, er->thr.pthreshold,
		       vs_threshold_how_name(er->thr.how), er->tasks,
		       er->high_tasks, er->slow_p50, er->slow_p99,
		       er->other_p50, er->other_p99, er->p_all, er->p_low);
		if (er->tasks_needed != UINT64_MAX)
			printf("%" PRIu64, er->tasks_needed);
		putchar('\n');
	}
}

/* --- one type at a time, in the chosen format --- */

void vs_report_print_head(struct vs_report_print *p)
{
	if (p->format == VS_FORMAT_JSON)
		print_json_head(p);
	else if (p->format == VS_FORMAT_CSV)
		print_csv_head();
	else
		print_text_head(p);
}

void vs_report_print_type(struct vs_report_print *p,
			  const struct vs_type_rank *tr)
{
	if (p->format == VS_FORMAT_JSON) {
		print_json_type(p, tr);
	} else if (p->format == VS_FORMAT_CSV) {
		print_csv_type(p, tr);
	} else {
		print_text_type(p, tr);
		if (p->tree)
			print_text_tree(p, tr);
	}
}

void vs_report_print_tail(struct vs_report_print *p)
{
	if (p->format == VS_FORMAT_JSON)
		print_json_tail(p);
}

/* --- SVG --- */

static size_t svg_events(const struct vs_report_print *p,
			 const struct vs_type_rank *tr)
{
	size_t n = p->top > 0 ? (size_t)p->top : SVG_TOP_DEFAULT;

	if (n > SVG_TOP_MAX)
		n = SVG_TOP_MAX;
	return n < tr->nr_ranked ? n : tr->nr_ranked;
}

/* One CDF panel: @cdf holds VS_CDF_POINTS values at p = 0, .001 .. 1. */
static void svg_cdf(struct vs_svg *svg, double x, double y, const char *title,
		    const char *xlabel, const char *unit, const float *cdf,
		    double mark, double mark_p, const char *mark_label,
		    const char *color)
{
	double xs[VS_CDF_POINTS], ys[VS_CDF_POINTS];
	struct vs_plot_spec spec = {
		.title = title, .xlabel = xlabel, .ylabel = "CDF",
		.xunit = unit, .xmin = 0, .xmax = cdf[VS_CDF_POINTS - 1],
		.ymin = 0, .ymax = 1,
	};
	float p99 = cdf[(VS_CDF_POINTS - 1) * 99 / 100];
	char label[160], max[32];
	struct vs_plot plot;
	size_t i;

	/* a far outlier squashes the CDF against the y axis: cut the x axis */
	if (p99 > 0 && spec.xmax > SVG_CUT * p99) {
		spec.xmax = 1.5 * p99 > 1.1 * mark ? 1.5 * p99 : 1.1 * mark;
		snprintf(label, sizeof(label), "%s (cut at 1.5 x p99; max %s)",
			 xlabel, vs_format_value(max, sizeof(max),
						 cdf[VS_CDF_POINTS - 1], unit));
		spec.xlabel = label;
	}
	/* values far from 0 (latencies of one kind of work): zoom in */
	if (cdf[0] > spec.xmax / 3)
		spec.xmin = cdf[0] - (spec.xmax - cdf[0]) * 0.05;
	if (spec.xmax <= spec.xmin)
		spec.xmax = spec.xmin + 1;
	for (i = 0; i < VS_CDF_POINTS; i++) {
		xs[i] = cdf[i];
		ys[i] = (double)i / (VS_CDF_POINTS - 1);
	}
	vs_plot_begin(&plot, svg, x, y, SVG_PANEL_W, SVG_PANEL_H, &spec);
	vs_plot_hline(&plot, mark_p, VS_SVG_GREY, NULL);
	vs_plot_line(&plot, xs, ys, VS_CDF_POINTS, color);
	vs_plot_vline(&plot, mark, VS_SVG_RED, mark_label);
}

int vs_report_write_svg(const struct vs_report_print *p, const char *path,
			const struct vs_type_rank *trs, unsigned int n)
{
	double height = 0, y = 0;
	struct vs_svg *svg;
	unsigned int t;
	size_t i;

	for (t = 0; t < n; t++) {
		size_t panels = 1 + svg_events(p, &trs[t]);

		height += SVG_TYPE_HEAD + SVG_PANEL_H *
			  ((panels + SVG_COLUMNS - 1) / SVG_COLUMNS);
	}
	svg = vs_svg_create(path, SVG_COLUMNS * SVG_PANEL_W, height + 10);
	if (!svg)
		return -1;
	for (t = 0; t < n; t++) {
		const struct vs_type_rank *tr = &trs[t];
		char title[160], label[96], v[32];
		char type[VS_TYPE_NAME_MAX + 16];
		size_t panels = 1 + svg_events(p, tr);

		vs_svg_text(svg, 12, y + 24, 15, "start",
			    "Task type %s: %zu tasks, p%g latency %s  (%s)",
			    vs_type_label(&p->trace->ts->names, tr->type, type,
					  sizeof(type)),
			    tr->tasks, 100 * tr->ptarget,
			    vs_format_ns(v, sizeof(v), tr->latency_ptarget),
			    p->trace->path);
		y += SVG_TYPE_HEAD;
		snprintf(label, sizeof(label), "p%g = %s", 100 * tr->ptarget,
			 vs_format_ns(v, sizeof(v), tr->latency_ptarget));
		svg_cdf(svg, 0, y, "Latency", "latency", "ns", tr->latency_cdf,
			tr->latency_ptarget, tr->ptarget, label, VS_SVG_GREEN);
		for (i = 0; i + 1 < panels; i++) {
			const struct vs_event_rank *er = &tr->events[i];
			const char *unit = event_unit(p, er);
			int n;

			n = snprintf(title, sizeof(title),
				     "#%zu %s: impact %.1f%%", i + 1, er->name,
				     pct(er->impact));
			/* the panels are in its order: show it if it differs */
			if (fabs(pct(er->adjusted) - pct(er->impact)) >= 0.05 &&
			    n > 0 && (size_t)n < sizeof(title))
				snprintf(title + n, sizeof(title) - n,
					 ", adjusted %.1f%%",
					 pct(er->adjusted));
			snprintf(label, sizeof(label), "threshold %s (p%.1f)",
				 vs_format_value(v, sizeof(v), er->thr.value,
						 unit),
				 100 * er->thr.pthreshold);
			svg_cdf(svg, ((i + 1) % SVG_COLUMNS) * SVG_PANEL_W,
				y + ((i + 1) / SVG_COLUMNS) * SVG_PANEL_H,
				title, er->name, unit, er->cdf, er->thr.value,
				er->thr.pthreshold, label, VS_SVG_BLUE);
		}
		y += SVG_PANEL_H * ((panels + SVG_COLUMNS - 1) / SVG_COLUMNS);
	}
	return vs_svg_finish(svg);
}
