// SPDX-License-Identifier: MIT
/*
 * table.c - text tables sized to their content.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "ui/table.h"

struct vs_table {
	unsigned int nr_columns;
	const char **titles;
	enum vs_align *align;
	char **cells;		/* nr_rows * nr_columns, NULL if empty */
	size_t nr_rows, alloc_cells;
	unsigned int next;	/* next cell of the open row */
};

struct vs_table *vs_table_new(unsigned int nr_columns)
{
	struct vs_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nr_columns = nr_columns;
	t->titles = calloc(nr_columns, sizeof(*t->titles));
	t->align = calloc(nr_columns, sizeof(*t->align));
	if (!t->titles || !t->align) {
		vs_table_free(t);
		return NULL;
	}
	return t;
}

void vs_table_column(struct vs_table *t, unsigned int col, const char *title,
		     enum vs_align align)
{
	if (col >= t->nr_columns)
		return;
	t->titles[col] = title;
	t->align[col] = align;
}

/* The open row, allocated on its first cell. */
static char **open_row(struct vs_table *t)
{
	if (!t->next) {
		if (ALLOC_GROW(t->cells, (t->nr_rows + 1) * t->nr_columns,
			       t->alloc_cells))
			return NULL;
		memset(&t->cells[t->nr_rows * t->nr_columns], 0,
		       t->nr_columns * sizeof(*t->cells));
	}
	return &t->cells[t->nr_rows * t->nr_columns];
}

int vs_table_cell(struct vs_table *t, const char *fmt, ...)
{
	char **row = open_row(t);
	va_list ap;
	int ret;

	if (!row || t->next >= t->nr_columns)
		return -1;
	va_start(ap, fmt);
	ret = vasprintf(&row[t->next], fmt, ap);
	va_end(ap);
	if (ret < 0) {
		row[t->next] = NULL;
		return -1;
	}
	t->next++;
	return 0;
}

int vs_table_end_row(struct vs_table *t)
{
	if (!open_row(t))
		return -1;
	t->nr_rows++;
	t->next = 0;
	return 0;
}

static void print_cell(FILE *fp, const char *s, int width, enum vs_align align,
		       bool last)
{
	if (align == VS_ALIGN_RIGHT)
		fprintf(fp, "%*s", width, s);
	else if (last)
		fputs(s, fp);
	else
		fprintf(fp, "%-*s", width, s);
}

/* Index of the last non-empty cell of a row of @n (-1 if none). */
static int last_filled(const char *const *cells, unsigned int n)
{
	int c;

	for (c = n - 1; c >= 0; c--)
		if (cells[c] && cells[c][0])
			return c;
	return -1;
}

/*
 * One line: cells up to the last non-empty one, no trailing blanks;
 * columns empty in every row and in the header (width 0) are left out.
 */
static void print_row(const struct vs_table *t, FILE *fp, const int *width,
		      const char *const *cells, const char *lead)
{
	int last = last_filled(cells, t->nr_columns), c;

	fputs(lead, fp);
	for (c = 0; c <= last; c++) {
		if (!width[c])
			continue;
		print_cell(fp, cells[c] ? cells[c] : "",
			   width[c] - (c ? 0 : (int)strlen(lead)),
			   t->align[c], c == last);
		if (c < last)
			fputs("  ", fp);
	}
	fputc('\n', fp);
}

void vs_table_print(const struct vs_table *t, FILE *fp)
{
	int *width = calloc(t->nr_columns, sizeof(*width));
	unsigned int c;
	size_t r;

	if (!width)
		return;
	for (c = 0; c < t->nr_columns; c++)
		width[c] = t->titles[c] ? strlen(t->titles[c]) : 0;
	width[0] += 2;		/* room for "# " in the header */
	for (r = 0; r < t->nr_rows; r++)
		for (c = 0; c < t->nr_columns; c++) {
			const char *s = t->cells[r * t->nr_columns + c];
			int w = s ? (int)strlen(s) : 0;

			if (w > width[c])
				width[c] = w;
		}
	print_row(t, fp, width, t->titles, "# ");
	for (r = 0; r < t->nr_rows; r++)
		print_row(t, fp, width,
			  (const char *const *)&t->cells[r * t->nr_columns], "");
	free(width);
}

void vs_table_free(struct vs_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->cells && i < (t->nr_rows + (t->next ? 1 : 0)) *
				     t->nr_columns; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->titles);
	free(t->align);
	free(t);
}

void vs_csv_string(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	putc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}
