/* SPDX-License-Identifier: MIT */
/*
 * browser.h - varscope tui: an ncurses browser over one task type's
 * ranking, variance tree, event CDFs and segments.
 */
#ifndef VS_UI_BROWSER_H
#define VS_UI_BROWSER_H

#include <stddef.h>
#include <stdint.h>

#include "core/ranking.h"
#include "core/wakeup.h"
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
};

/**
 * vs_browser_run - browse @in until the user quits
 *
 * The terminal is restored on every way out: return, error exit, SIGINT,
 * SIGTERM, SIGHUP.  Returns 0, or -1 when the screen cannot be set up.
 */
int vs_browser_run(const struct vs_browser_input *in);

#endif /* VS_UI_BROWSER_H */
