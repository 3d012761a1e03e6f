/* SPDX-License-Identifier: MIT */
/*
 * table.h - perf-like text tables: columns sized to their widest cell,
 * numbers right-aligned, a '#' header line.
 *
 *	t = vs_table_new(3);
 *	vs_table_column(t, 0, "Rank", VS_ALIGN_RIGHT); ...
 *	vs_table_cell(t, "%d", rank); ... vs_table_end_row(t);
 *	vs_table_print(t, stdout);
 *	vs_table_free(t);
 */
#ifndef VS_UI_TABLE_H
#define VS_UI_TABLE_H

#include <stdio.h>

enum vs_align {
	VS_ALIGN_LEFT,
	VS_ALIGN_RIGHT,
};

struct vs_table;

struct vs_table *vs_table_new(unsigned int nr_columns);

void vs_table_column(struct vs_table *t, unsigned int col, const char *title,
		     enum vs_align align);

/**
 * vs_table_cell - append a cell to the current row (printf format)
 *
 * Returns 0, or -1 when memory runs out or the row is full.
 */
int vs_table_cell(struct vs_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Close the current row; missing cells print empty. */
int vs_table_end_row(struct vs_table *t);

/*
 * Header line "# Title ..." then the rows; no trailing blanks, and a
 * column without title or content is left out.
 */
void vs_table_print(const struct vs_table *t, FILE *fp);

void vs_table_free(struct vs_table *t);

/**
 * vs_csv_string - write @s as one CSV field: quoted, with '"' doubled,
 * when it holds a comma, a quote or a newline
 */
void vs_csv_string(FILE *fp, const char *s);

#endif /* VS_UI_TABLE_H */
