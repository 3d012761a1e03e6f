/* SPDX-License-Identifier: MIT */
/*
 * browser.h - varscope tui: an ncurses browser over one task type's
 * ranking, variance tree, event CDFs and segments.
 */
#ifndef VS_UI_BROWSER_H
#define VS_UI_BROWSER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/analysis/ranking.h"
#include "core/analysis/wakeup.h"
#include "ui/vtree-print.h"

struct vs_browser_segment {
	char *label;
	size_t tasks;
	uint64_t p50, p99;	/* ns */
};

struct vs_browser_input {
	const char *path;
	const char *type;			/* "NAME (N)" or "N" */
	const struct vs_taskset *ts;
	const struct vs_type_rank *rank;	/* the type's ranking */
	const struct vs_vtree_view *tree;	/* NULL: no tree ... */
	const char *no_tree;			/* ... and why */
	const struct vs_wake_type *waits;	/* blamed waits, or NULL */
	size_t nr_segments;
	const struct vs_browser_segment *segments;
	const char *status;			/* the first status line, or
						 * NULL */
	const char *tail;			/* the tail past pTarget
						 * (ui/tail-line.h), or NULL */
	const char *ran;			/* who ran instead of the
						 * slow tasks
						 * (ui/ran-line.h), or NULL */
};

/**
 * vs_browser_open - set the terminal up for the browser (curses), before
 * the trace loads: vs_browser_progress() draws on it, and the keys typed
 * meanwhile wait for vs_browser_run()
 * @keys: the terminal the keys come from (stdin, or /dev/tty when the
 *        standard input is the trace); the screen is the standard output
 *
 * Returns 0, or -1 (vs_browser_run() then fails too).
 */
int vs_browser_open(FILE *keys);

/**
 * vs_browser_loading - the loading screen with @line, what is being done
 * before the bytes read can say how far it is ("Reading t.data")
 */
void vs_browser_loading(const char *line);

/**
 * vs_browser_progress - the loading line: "@what: 45% (12.3 of 27.1 MB)",
 * redrawn at most every 100 ms; the shape of a loader's progress
 * callback (vs_taskset_opts.progress), @what its argument
 */
void vs_browser_progress(void *what, uint64_t done, uint64_t total);

/**
 * vs_browser_close - restore the terminal (a load that failed)
 */
void vs_browser_close(void);

/**
 * vs_browser_run - browse @in until the user quits
 *
 * It opens on the ranking (the answer), the variance tree a Tab away.
 * The screen is vs_browser_open()'s, or set up here.  The terminal is
 * restored on every way out: return, error exit, SIGINT, SIGTERM,
 * SIGHUP.  Returns 0, or -1 when the screen cannot be set up.
 */
int vs_browser_run(const struct vs_browser_input *in);

#endif /* VS_UI_BROWSER_H */
