/* SPDX-License-Identifier: MIT */
/*
 * segments-print.h - what varscope segments prints: the latency table of
 * each task type over the segments (core/analysis/segments.h), VarMRI's
 * Table 3, as text, JSON or CSV.
 */
#ifndef VS_UI_SEGMENTS_PRINT_H
#define VS_UI_SEGMENTS_PRINT_H

#include <stdint.h>

#include "core/analysis/segments.h"
#include "ui/output-format.h"

struct vs_segments_print {
	const struct vs_segment_list *list;	/* the segments */
	const struct vs_segment_table *table;	/* their figures, summarized */
	uint64_t length;			/* --length, 0: none */
	enum vs_output_format format;
};

/**
 * vs_segments_print_table - print @p's table on stdout in @p->format
 */
void vs_segments_print_table(const struct vs_segments_print *p);

#endif /* VS_UI_SEGMENTS_PRINT_H */
