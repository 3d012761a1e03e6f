// SPDX-License-Identifier: MIT
/*
 * report.c - varscope report: rank the events of each task type by their
 * impact on its tail latency (VarMRI, section 5).
 *
 * The analysis is core/analysis/ranking.c over a session (core/session.h); the
 * printing ui/report-print.c.  This file parses the options, reads the
 * trace and ranks its types one at a time.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/analysis/func-events.h"
#include "core/output-file.h"
#include "core/parse-options.h"
#include "core/analysis/ranking.h"
#include "core/session.h"
#include "core/analysis/tail-hint.h"
#include "core/analysis/vtree.h"
#include "ui/progress.h"
#include "ui/report-print.h"
#include "ui/vtree-print.h"

struct report {
	const char *input;
	const char *type;
	const char *time;		/* --time START,END */
	struct vs_time_option window;	/*   parsed */
	const char *format_name;
	const char *svg;
	int ci_rounds;
	uint64_t seed;
	int min_tasks, min_high;
	struct vs_rank_opts rank;
	const char *func_time;		/* --func-time estimator */
	int tree_top;			/* --tree-top */
	struct vs_vtree_view view;	/* the type's tree */
	struct vs_session trace;	/* the trace read: its head (the
					 * recorder's notes), tasks, function
					 * sources, waits */
	struct vs_tail_hint tail;	/* of the type being printed */
	struct vs_ran_blame ran;	/*   and who ran instead of it */
	struct vs_report_print out;	/* --format, --top, --ci, --tree */
};

static const char *const report_usage[] = {
	"varscope report [-i FILE] [--type T] [--time START,END] [--top N]",
	"                [--ptarget P] [<options>]",
	NULL
};

static void check_options(struct report *rep)
{
	if (!(rep->rank.ptarget > 0 && rep->rank.ptarget < 1))
		option_error("ptarget", "must be in (0, 1), like 0.99");
	if (rep->rank.pthreshold != -1 &&
	    !(rep->rank.pthreshold >= 0 && rep->rank.pthreshold < 1))
		option_error("pthreshold", "must be in [0, 1), like 0.9");
	if (rep->out.top < 0)
		option_error("top", "must be 0 (all) or more");
	if (rep->tree_top < 1)
		option_error("tree-top", "must be 1 or more");
	if (rep->min_tasks < 1)
		option_error("min-tasks", "must be at least 1");
	if (rep->min_high < 1)
		option_error("min-high", "must be at least 1");
	if (rep->ci_rounds < 10)
		option_error("ci-rounds", "must be at least 10");
	if (rep->time)
		rep->window = parse_time_option("time", rep->time);
	vs_output_option("svg", rep->svg);
	rep->out.format = vs_format_option(rep->format_name, VS_FORMATS_ALL);
	if (vs_func_estimator_parse(rep->func_time) < 0)
		option_error("func-time", "'%s' is not count or span",
			     rep->func_time);
	rep->out.func_time = vs_func_estimator_parse(rep->func_time);
	rep->rank.min_tasks = rep->min_tasks;
	rep->rank.min_high = rep->min_high;
	rep->rank.ci_rounds = rep->out.ci ? rep->ci_rounds : 0;
	rep->rank.seed = rep->seed;
	rep->rank.latency_cdf = rep->svg != NULL;
}

/* --tree: the variance tree of @tr's type, or why there is none. */
static int make_tree(struct report *rep, const struct vs_type_rank *tr)
{
	rep->view.type = tr->type;
	rep->view.top = rep->tree_top;
	rep->out.no_tree = vs_vtree_view_build(&rep->view,
					       rep->trace.funcs->probes,
					       rep->trace.funcs->samples,
					       rep->trace.wakeups);
	return rep->out.no_tree &&
	       !strcmp(rep->out.no_tree, "out of memory") ? -1 : 0;
}

/*
 * Rank, and print, the task types one at a time: a trace of many small
 * types holds one ranking at once, not one per type.  --svg keeps the
 * rankings for the figure (@trs, one per type) and draws it at the end.
 */
static int rank_types(struct report *rep, struct vs_type_rank *trs)
{
	struct vs_type_rank one;
	unsigned int i;
	int ret = 0;

	vs_report_print_head(&rep->out);
	for (i = 0; i < rep->trace.ts->nr_types && !ret; i++) {
		struct vs_type_rank *tr = trs ? &trs[i] : &one;

		rep->out.tt = &rep->trace.ts->types[i];
		if (vs_rank_type(rep->trace.ts, rep->out.tt, &rep->rank, tr) ||
		    vs_tail_hint(rep->trace.ts, rep->out.tt, &rep->rank, tr,
				 &rep->tail))
			return -1;
		ret = rep->out.tree ? make_tree(rep, tr) : 0;
		vs_ran_blame_release(&rep->ran);
		if (!ret && vs_ran_blame(rep->trace.ts, rep->out.tt, tr,
					 &rep->ran))
			return -1;
		if (!ret)
			vs_report_print_type(&rep->out, tr);
		vs_vtree_free(rep->view.vt);
		rep->view.vt = NULL;
		if (!trs || ret)
			vs_type_rank_free(tr);
	}
	if (!ret)
		vs_report_print_tail(&rep->out);
	return ret;
}

/*
 * Read the trace: its function times from samples (record --sample) and
 * probes (--probe) as events (func:<symbol>.time) of the ranking, its
 * tasks and their waits.  The exit status on failure, 0 on success.
 */
static int load(struct report *rep)
{
	struct vs_progress progress = { 0 };
	struct vs_session_opts o = {
		.type = rep->type, .time = rep->time ? &rep->window : NULL,
		.funcs = true,
		.func_time = rep->out.func_time,
		.wakeups = true, .wake_parts = rep->out.tree,
		.ran_instead = true,
		.parts = vs_session_parts(),
		.stage = vs_progress_stage_cb, .progress = vs_progress_cb,
		.progress_arg = &progress,
	};
	struct vs_task_samples *ts;
	char err[512];
	size_t i;
	int ret;

	rep->rank.threads = o.parts;
	ret = vs_session_open(&rep->trace, rep->input, &o, err, sizeof(err));
	vs_progress_end(&progress);
	ts = rep->trace.funcs ? rep->trace.funcs->samples : NULL;
	for (i = 0; ts && i < ts->nr_stale; i++)
		fprintf(stderr, "varscope report: warning: %s changed since the "
			"recording (build-id differs): its frames are not "
			"symbolized\n", ts->stale[i]);
	if (ret) {
		fprintf(stderr, "varscope report: %s\n", err);
		return ret;
	}
	if (rep->trace.ts->warning)
		fprintf(stderr, "varscope report: warning: %s\n",
			rep->trace.ts->warning);
	return 0;
}

int cmd_report(int argc, const char **argv)
{
	struct report rep = {
		.input = VS_DEFAULT_FILE, .format_name = "text",
		.func_time = "count", .tree_top = 5,
		.ci_rounds = 200, .seed = 1, .min_tasks = 100, .min_high = 30,
		.rank = VS_RANK_OPTS_INIT,
		.out = { .trace = &rep.trace, .rank = &rep.rank,
			 .ran = &rep.ran,
			 .view = &rep.view, .tail = &rep.tail },
	};
	const struct vs_option options[] = {
		OPT_STRING('i', "input", &rep.input, "file",
			   "trace to read (default varscope.data)"),
		OPT_STRING(0, "type", &rep.type, "type",
			   "only this task type"),
		OPT_STRING(0, "time", &rep.time, "start,end",
			   "only the tasks that end in this time range, "
			   "durations from the recording's start (1s,2.5s; "
			   "a side may be empty)"),
		OPT_INTEGER(0, "top", &rep.out.top,
			    "print the first N events (default 0: all)"),
		OPT_DOUBLE(0, "ptarget", &rep.rank.ptarget, "p",
			   "tail percentile to explain (default 0.99)"),
		OPT_DOUBLE(0, "pthreshold", &rep.rank.pthreshold, "p",
			   "fixed percentile of high event values (default: "
			   "found from the CDF)"),
		OPT_BOOLEAN(0, "ci", &rep.out.ci,
			    "bootstrap 95% confidence interval of each impact"),
		OPT_INTEGER(0, "ci-rounds", &rep.ci_rounds,
			    "bootstrap rounds (default 200)"),
		OPT_U64(0, "seed", &rep.seed,
			"bootstrap random seed (default 1)"),
		OPT_INTEGER(0, "min-tasks", &rep.min_tasks,
			    "rank events recorded by at least N tasks "
			    "(default 100)"),
		OPT_INTEGER(0, "min-high", &rep.min_high,
			    "high-value tasks needed to trust an impact "
			    "(default 30)"),
		OPT_STRING(0, "format", &rep.format_name, "fmt",
			   "text, json or csv"),
		OPT_STRING(0, "svg", &rep.svg, "file",
			   "plot the latency and top event CDFs"),
		OPT_STRING(0, "func-time", &rep.func_time, "estimator",
			   "function times from samples: count (samples x "
			   "period, default) or span (first to last sample)"),
		OPT_BOOLEAN(0, "tree", &rep.out.tree,
			    "the variance tree of each type, from samples "
			    "or probes"),
		OPT_INTEGER(0, "tree-top", &rep.tree_top,
			    "factors listed and refined by --tree "
			    "(default 5)"),
		OPT_END()
	};
	struct vs_type_rank *trs = NULL;
	unsigned int i, n = 0;
	int ret;

	if (parse_options(argc, argv, options, report_usage, 0))
		usage_with_options(report_usage, options);
	check_options(&rep);
	ret = load(&rep);
	if (ret)
		goto out;	/* the function times may be loaded */
	if (!rep.trace.ts->nr_types) {
		if (rep.type || rep.time)
			fprintf(stderr, "varscope report: %s: no tasks%s%s%s%s"
				"\n", rep.input, rep.type ? " of type " : "",
				rep.type ? rep.type : "",
				rep.time ? " that end in --time " : "",
				rep.time ? rep.time : "");
		else
			fprintf(stderr, "varscope report: %s: no tasks (mark "
				"them with vs_task_begin/vs_task_end or record "
				"with --task-func)\n", rep.input);
		ret = 1;
		goto out;
	}
	if (*rep.trace.wake_err)
		fprintf(stderr, "varscope report: %s\n",
			rep.trace.wake_err);
	if (rep.svg) {
		trs = calloc(rep.trace.ts->nr_types, sizeof(*trs));
		if (!trs)
			goto nomem;
		n = rep.trace.ts->nr_types;
	}
	ret = rank_types(&rep, trs);
	if (ret == -1)
		goto nomem;
	if (rep.svg && vs_report_write_svg(&rep.out, rep.svg, trs, n)) {
		fprintf(stderr, "varscope report: cannot write '%s': %s\n",
			rep.svg, strerror(errno));
		ret = 1;
	}
	goto out;
nomem:
	fprintf(stderr, "varscope report: %s: out of memory\n", rep.input);
	ret = 1;
out:
	for (i = 0; trs && i < n; i++)
		vs_type_rank_free(&trs[i]);
	free(trs);
	vs_session_close(&rep.trace);
	vs_ran_blame_release(&rep.ran);
	return ret;
}
