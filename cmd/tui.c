// SPDX-License-Identifier: MIT
/*
 * tui.c - varscope tui: browse one task type's ranking, variance tree,
 * event CDFs and segments (ui/browser.c) in the terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "core/analysis/func-events.h"
#include "core/parse-options.h"
#include "core/plural.h"
#include "core/analysis/ranking.h"
#include "core/session.h"
#include "core/analysis/segments.h"
#include "core/trace/type-names.h"
#include "core/analysis/vtree.h"
#include "core/analysis/wakeup.h"
#include "ui/browser.h"
#include "ui/ran-line.h"
#include "ui/tail-line.h"

#define NS_PER_SEC	1000000000ull

struct tui {
	const char *input;
	const char *type;
	uint64_t length;		/* --length of a segment */
	int top;			/* --tree-top */
	struct vs_rank_opts rank;
	struct vs_session_opts read;	/* what the session reads */
	struct vs_session trace;	/* its tasks, function sources, waits
					 * and the latencies of its slices */
	struct vs_type_rank tr;		/* of the first type */
	struct vs_tail_hint tail;	/* past pTarget */
	struct vs_ran_blame ran;	/* who ran instead of its tasks */
	struct vs_vtree_view view;
	struct vs_browser_segment *seg;
	size_t nr_seg;
	char type_label[VS_TYPE_NAME_MAX + 16];
};

static const char *const tui_usage[] = {
	"varscope tui [-i FILE] [--type T] [--length TIME] [<options>]",
	NULL
};

/* The browser's row of segment @i from its latencies @ts, freed. */
static void segment_row(struct tui *tui, size_t i, struct vs_taskset *ts)
{
	const struct vs_task_type *tt = vs_taskset_type(ts, tui->tr.type);
	struct vs_browser_segment *s = &tui->seg[i];
	struct vs_latency_stats st = { 0 };

	if (tt)
		vs_latency_stats(tt, &st);
	vs_taskset_free(ts);
	s->label = tui->trace.slices.seg[i].label;
	s->tasks = st.tasks;
	s->p50 = st.p50;
	s->p99 = st.p99;
}

/*
 * The tasks, with function times from samples and probes as report has,
 * their waits, who ran instead of them, and the latency figures of the ranked type in each segment
 * of --length: one read of the file.
 */
static int load(struct tui *tui, char *err, size_t errlen)
{
	const struct vs_taskset *ts;
	size_t i;
	int ret;

	ret = vs_session_open(&tui->trace, tui->input, &tui->read, err,
			      errlen);
	if (ret)
		return ret;
	ts = tui->trace.ts;
	tui->seg = calloc(tui->trace.slices.nr + 1, sizeof(*tui->seg));
	if (!tui->seg) {
		snprintf(err, errlen, "%s: out of memory", tui->input);
		return VS_LOAD_ERROR;
	}
	if (!ts->nr_types) {
		snprintf(err, errlen, "%s: no tasks%s%s", tui->input,
			 tui->type ? " of type " : "",
			 tui->type ? tui->type : "");
		return VS_LOAD_ERROR;
	}
	if (vs_rank_type(ts, &ts->types[0], &tui->rank, &tui->tr) ||
	    vs_tail_hint(ts, &ts->types[0], &tui->rank, &tui->tr,
			 &tui->tail) ||
	    vs_ran_blame(ts, &ts->types[0], &tui->tr, &tui->ran)) {
		snprintf(err, errlen, "%s: out of memory", tui->input);
		return VS_LOAD_ERROR;
	}
	for (i = 0; i < tui->trace.slices.nr; i++)
		segment_row(tui, i, vs_session_take_slice(&tui->trace, i));
	tui->nr_seg = tui->trace.slices.nr;
	return 0;
}

static void tui_release(struct tui *tui)
{
	vs_vtree_free(tui->view.vt);
	vs_type_rank_free(&tui->tr);
	vs_ran_blame_release(&tui->ran);
	free(tui->seg);
	vs_session_close(&tui->trace);
}

int cmd_tui(int argc, const char **argv)
{
	struct tui tui = {
		.input = VS_DEFAULT_FILE, .length = NS_PER_SEC, .top = 5,
		.rank = VS_RANK_OPTS_INIT,
	};
	const struct vs_option options[] = {
		OPT_STRING('i', "input", &tui.input, "file",
			   "trace to browse (default " VS_DEFAULT_FILE ")"),
		OPT_STRING(0, "type", &tui.type, "type",
			   "the task type (default: the first)"),
		OPT_DOUBLE(0, "ptarget", &tui.rank.ptarget, "p",
			   "tail percentile of the ranking (default 0.99)"),
		OPT_DURATION(0, "length", &tui.length,
			     "segment length (default 1s)"),
		OPT_INTEGER(0, "tree-top", &tui.top,
			    "variance-tree factors refined (default 5)"),
		OPT_END()
	};
	struct vs_browser_input in = { 0 };
	char err[512], status[VS_TYPE_NAME_MAX + 600];
	char tail[VS_TYPE_NAME_MAX + 512], ran[512];
	FILE *keys;
	int ret;

	if (parse_options(argc, argv, options, tui_usage, 0))
		usage_with_options(tui_usage, options);
	if (tui.rank.ptarget <= 0 || tui.rank.ptarget >= 1)
		option_error("ptarget", "must be in (0, 1)");
	if (!tui.length)
		option_error("length", "must be more than 0");
	if (tui.top < 1)
		option_error("tree-top", "must be 1 or more");
	/* -i -: the trace on the standard input, the keys from the terminal */
	keys = strcmp(tui.input, "-") ? stdin : fopen("/dev/tty", "r");
	if (!keys || !isatty(fileno(keys)) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "varscope tui: not a terminal (varscope report "
			"prints the same as text)\n");
		return 1;
	}
	tui.read = (struct vs_session_opts){
		.type = tui.type, .funcs = true, .func_time = VS_FUNC_COUNT,
		.wakeups = true, .wake_parts = true, .slice_ns = tui.length,
		.ran_instead = true,
		.progress = vs_browser_progress,
		.progress_arg = (void *)tui.input,
	};
	/* before the screen is up: a bad --type is a line on stderr */
	if (vs_session_type(&tui.read, &tui.input, 1)) {
		fprintf(stderr, "varscope tui: %s: out of memory\n", tui.input);
		return 1;
	}
	/* the screen first: the loading line, and keys typed meanwhile */
	if (vs_browser_open(keys)) {
		fprintf(stderr, "varscope tui: cannot set up the terminal\n");
		return 1;
	}
	snprintf(status, sizeof(status), "Reading %s", tui.input);
	vs_browser_loading(status);
	ret = load(&tui, err, sizeof(err));
	if (ret) {
		vs_browser_close();
		fprintf(stderr, "varscope tui: %s\n", err);
		tui_release(&tui);
		return ret;
	}
	vs_browser_loading("Building the variance tree");
	tui.view.type = tui.tr.type;
	tui.view.top = (unsigned int)tui.top;
	vs_type_label(&tui.trace.ts->names, tui.tr.type, tui.type_label,
		      sizeof(tui.type_label));
	if (*tui.trace.wake_err)	/* the tree without waits */
		snprintf(status, sizeof(status), "%s", tui.trace.wake_err);
	else
		snprintf(status, sizeof(status), "%s: %zu %s of type %s read; "
			 "Tab: the variance tree, h: help", tui.input,
			 tui.tr.tasks, vs_plural(tui.tr.tasks, "task", "tasks"),
			 tui.type_label);
	in.waits = vs_wake_blame_type(tui.trace.wakeups, tui.tr.type);
	in.no_tree = vs_vtree_view_build(&tui.view, tui.trace.funcs->probes,
					 tui.trace.funcs->samples,
					 tui.trace.wakeups);
	in.path = tui.input;
	in.type = tui.type_label;
	in.status = status;
	if (tui.tail.found)
		in.tail = vs_tail_hint_line(&tui.tail, tui.tr.ptarget, tail,
					    sizeof(tail));
	in.ran = vs_ran_blame_line(&tui.ran, ran, sizeof(ran));
	in.ts = tui.trace.ts;
	in.rank = &tui.tr;
	in.tree = tui.view.vt ? &tui.view : NULL;
	in.nr_segments = tui.nr_seg;
	in.segments = tui.seg;
	ret = vs_browser_run(&in);
	if (ret)
		fprintf(stderr, "varscope tui: cannot set up the terminal\n");
	tui_release(&tui);
	if (keys != stdin)
		fclose(keys);
	return ret ? 1 : 0;
}
