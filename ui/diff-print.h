/* SPDX-License-Identifier: MIT */
/*
 * diff-print.h - what varscope diff prints of segments A and B compared
 * (core/analysis/diff.h): the rankings side by side and the changes, as text or
 * JSON, and the figure of every drawn segment's p50 and p99 (VarMRI's
 * Fig. 8) as SVG.
 */
#ifndef VS_UI_DIFF_PRINT_H
#define VS_UI_DIFF_PRINT_H

#include <stddef.h>

#include "core/analysis/diff.h"
#include "core/analysis/segments.h"
#include "core/trace/type-names.h"
#include "ui/output-format.h"

/* Points of the figure at most, one per task type and drawn segment. */
#define VS_DIFF_FIG_POINTS_MAX	(4u << 20)

struct vs_diff_print {
	const struct vs_diff *cmp;		/* A and B compared */
	const struct vs_type_names *names;	/* of A's and B's files */
	const struct vs_trace_segment *a, *b;
	double ptarget;				/* of the rankings */
	int top;				/* events shown, 0: all */
	enum vs_output_format format;		/* text or JSON */
};

/**
 * vs_diff_print_result - print @p's comparison on stdout in @p->format
 */
void vs_diff_print_result(const struct vs_diff_print *p);

/**
 * vs_diff_write_svg - the figure of @p's types over the segments @drawn,
 * into file @path
 * @ts/@drawn_at: the tasks of drawn segment s are ts[drawn_at[s]]
 *
 * Returns 0, -1 when memory runs out, -2 when @path cannot be written
 * (errno says why), -3 when the figure would have more points than
 * VS_DIFF_FIG_POINTS_MAX.
 */
int vs_diff_write_svg(const struct vs_diff_print *p, const char *path,
		      const struct vs_segment_list *drawn,
		      const struct vs_taskset *const *ts,
		      const size_t *drawn_at);

#endif /* VS_UI_DIFF_PRINT_H */
