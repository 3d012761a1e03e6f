/* SPDX-License-Identifier: MIT */
/*
 * record-print.h - print trace records as text or JSON lines, field by
 * field from the format's record table (core/trace/trace-codec.h).  The shapes
 * are documented in Documentation/varscope-script.txt.
 */
#ifndef VS_UI_RECORD_PRINT_H
#define VS_UI_RECORD_PRINT_H

#include <stdio.h>

#include "core/trace/trace.h"
#include "core/trace/type-names.h"

/**
 * vs_print_header_text - the file header as '#' comment lines
 */
void vs_print_header_text(FILE *fp, const struct vs_header *h);

/**
 * vs_print_header_json - the file header as one {"kind":"header",...} line
 */
void vs_print_header_json(FILE *fp, const struct vs_header *h);

/**
 * vs_print_record_text - one perf-script-like line: time, kind, key=value...
 * @r: the reader, for event names of task values
 * @names: task type names: a task of a named type gets type_name after
 *         its type (NULL: none)
 */
void vs_print_record_text(FILE *fp, const struct vs_reader *r,
			  const struct vs_type_names *names,
			  const struct vs_record *rec);

/**
 * vs_print_record_json - one JSON object per line with a "kind" key
 * @r: the reader, for event names of task values
 * @names: as for vs_print_record_text()
 */
void vs_print_record_json(FILE *fp, const struct vs_reader *r,
			  const struct vs_type_names *names,
			  const struct vs_record *rec);

#endif /* VS_UI_RECORD_PRINT_H */
