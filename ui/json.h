/* SPDX-License-Identifier: MIT */
/*
 * json.h - write JSON: one place for escaping and separators, used by every
 * command that prints --format json (script, report, diff, signature...).
 *
 *	struct json_out j;
 *
 *	json_init(&j, stdout);
 *	json_begin_object(&j);
 *	json_key(&j, "kind");
 *	json_string(&j, "task");
 *	json_key(&j, "values");
 *	json_begin_object(&j);
 *	...
 *	json_end_object(&j);
 *	json_end_object(&j);
 *	json_newline(&j);		one object per line
 */
#ifndef VS_UI_JSON_H
#define VS_UI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json_out {
	FILE *fp;
	unsigned int depth;
	bool after_key;			/* the next value follows "key": */
	bool has_items[JSON_MAX_DEPTH];	/* per level: a comma is due */
};

/**
 * json_init - start writing JSON values to @fp
 */
void json_init(struct json_out *j, FILE *fp);

/**
 * json_put_string - write @s as a quoted JSON string to @fp
 *
 * Escapes '"', '\\' and control characters (\n, \t, ... and \u00XX);
 * bytes that are not valid UTF-8 become U+FFFD so the output always
 * parses.  NULL is written as "".
 */
void json_put_string(FILE *fp, const char *s);

/**
 * json_fmt_u64 - @v in decimal into @buf (at least 20 bytes, no NUL added)
 *
 * Returns the number of digits.  Faster than printf, for dumps that print
 * millions of numbers (varscope script's text and JSON).
 */
size_t json_fmt_u64(char *buf, uint64_t v);

/* Containers; nesting deeper than JSON_MAX_DEPTH is not supported. */
void json_begin_object(struct json_out *j);
void json_end_object(struct json_out *j);
void json_begin_array(struct json_out *j);
void json_end_array(struct json_out *j);

/**
 * json_key - the key of the next member of the current object
 */
void json_key(struct json_out *j, const char *key);

/* Values: as an array element, or after json_key(). */
void json_string(struct json_out *j, const char *s);
void json_u64(struct json_out *j, uint64_t v);
void json_i64(struct json_out *j, int64_t v);
void json_bool(struct json_out *j, bool v);
void json_null(struct json_out *j);

/**
 * json_string_or_null - string @s, or null when @s is NULL (a name not
 * known, a field that does not apply)
 */
void json_string_or_null(struct json_out *j, const char *s);

/**
 * json_double - a number; NaN and infinities are written as null
 */
void json_double(struct json_out *j, double v);

/**
 * json_newline - end a top-level value with a newline (JSON lines)
 */
void json_newline(struct json_out *j);

#endif /* VS_UI_JSON_H */
