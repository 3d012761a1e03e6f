/* SPDX-License-Identifier: MIT */
/*
 * report-print.h - what varscope report prints: each task type's ranking
 * (core/analysis/ranking.h) as a text table, JSON or CSV, with its tail hint,
 * its waits and its variance tree, and the SVG figure of the rankings' CDFs.
 *
 * Types are printed one at a time, between a head and a tail:
 *
 *	vs_report_print_head(&p);
 *	for each type: vs_report_print_type(&p, &ranking);
 *	vs_report_print_tail(&p);
 */
#ifndef VS_UI_REPORT_PRINT_H
#define VS_UI_REPORT_PRINT_H

#include <stdbool.h>

#include "core/analysis/ran-instead.h"
#include "core/analysis/ranking.h"
#include "core/session.h"
#include "core/analysis/tail-hint.h"
#include "ui/json.h"
#include "ui/output-format.h"
#include "ui/vtree-print.h"

struct vs_report_print {
	const struct vs_session *trace;	/* what the report read */
	enum vs_output_format format;
	int top;			/* events shown per type, 0: all */
	bool ci;			/* the impacts' confidence intervals */
	enum vs_func_estimator func_time;	/* of the function events */
	const struct vs_rank_opts *rank;	/* what the rankings used */
	bool tree;			/* the variance tree of each type */
	const struct vs_vtree_view *view;	/* the type's tree; vt NULL: */
	const char *no_tree;		/* ... why there is none */
	const struct vs_tail_hint *tail;	/* of the type being printed */
	const struct vs_task_type *tt;	/*   and its tasks */
	const struct vs_ran_blame *ran;	/*   and who ran instead of its
					 * tasks, or NULL */
	struct json_out json;		/* VS_FORMAT_JSON: the document */
};

/**
 * vs_report_print_head - what comes before the first type: the recorder's
 * notes (text), the document's head (JSON), the header line (CSV)
 */
void vs_report_print_head(struct vs_report_print *p);

/**
 * vs_report_print_type - the ranking @tr of one task type, with @p's tail
 * hint, waits and (text, @p->tree) variance tree of that type
 */
void vs_report_print_type(struct vs_report_print *p,
			  const struct vs_type_rank *tr);

/**
 * vs_report_print_tail - what comes after the last type (the end of the
 * JSON document)
 */
void vs_report_print_tail(struct vs_report_print *p);

/**
 * vs_report_write_svg - the latency CDF and the top events' CDFs of the
 * @n rankings @trs (made with vs_rank_opts.latency_cdf), into file @path
 *
 * Returns 0, or -1 with errno set.
 */
int vs_report_write_svg(const struct vs_report_print *p, const char *path,
			const struct vs_type_rank *trs, unsigned int n);

#endif /* VS_UI_REPORT_PRINT_H */
