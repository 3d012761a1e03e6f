// SPDX-License-Identifier: MIT
/*
 * json.c - JSON output helpers (see json.h).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ui/json.h"

void json_init(struct json_out *j, FILE *fp)
{
	memset(j, 0, sizeof(*j));
	j->fp = fp;
}

/* Length of the valid UTF-8 sequence at @s, or 0. */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) ||
		       (s[0] == 0xed && s[1] >= 0xa0)))
		return 0;	/* overlong, or a UTF-16 surrogate */
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) ||
		       (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0;	/* overlong, or above U+10FFFF */
	return n;
}

/* Length of the run at @s that needs no escaping. */
static size_t plain_run(const unsigned char *s)
{
	size_t n = 0;
	int len;

	for (;;) {
		if (s[n] >= 0x20 && s[n] < 0x7f && s[n] != '"' && s[n] != '\\') {
			n++;
			continue;
		}
		if (s[n] < 0x80 || !(len = utf8_len(s + n)))
			return n;
		n += len;
	}
}

void json_put_string(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n;

	putc('"', fp);
	for (;;) {
		n = plain_run(s);
		fwrite(s, 1, n, fp);
		s += n;
		switch (*s) {
		case 0:
			putc('"', fp);
			return;
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f)
				fprintf(fp, "\\u%04x", *s);
			else
				fputs("\\ufffd", fp);	/* not UTF-8 */
		}
		s++;
	}
}

/* Separator before a value or key at the current level. */
static void separate(struct json_out *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_items[j->depth])
		putc(',', j->fp);
	j->has_items[j->depth] = true;
}

static void open_container(struct json_out *j, char c)
{
	separate(j);
	putc(c, j->fp);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_container(struct json_out *j, char c)
{
	putc(c, j->fp);
	if (j->depth)
		j->depth--;
}

void json_begin_object(struct json_out *j)
{
	open_container(j, '{');
}

void json_end_object(struct json_out *j)
{
	close_container(j, '}');
}

void json_begin_array(struct json_out *j)
{
	open_container(j, '[');
}

void json_end_array(struct json_out *j)
{
	close_container(j, ']');
}

void json_key(struct json_out *j, const char *key)
{
	separate(j);
	json_put_string(j->fp, key);
	putc(':', j->fp);
	j->after_key = true;
}

void json_string(struct json_out *j, const char *s)
{
	separate(j);
	json_put_string(j->fp, s);
}

size_t json_fmt_u64(char *buf, uint64_t v)
{
	char tmp[20], *p = tmp + sizeof(tmp);
	size_t n;

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	n = tmp + sizeof(tmp) - p;
	memcpy(buf, p, n);
	return n;
}

void json_u64(struct json_out *j, uint64_t v)
{
	char buf[20];

	separate(j);
	fwrite(buf, 1, json_fmt_u64(buf, v), j->fp);
}

void json_i64(struct json_out *j, int64_t v)
{
	char buf[21];

	separate(j);
	if (v >= 0) {
		fwrite(buf, 1, json_fmt_u64(buf, v), j->fp);
		return;
	}
	buf[0] = '-';
	fwrite(buf, 1, 1 + json_fmt_u64(buf + 1, -(uint64_t)v), j->fp);
}

void json_bool(struct json_out *j, bool v)
{
	separate(j);
	fputs(v ? "true" : "false", j->fp);
}

void json_null(struct json_out *j)
{
	separate(j);
	fputs("null", j->fp);
}

void json_string_or_null(struct json_out *j, const char *s)
{
	if (s)
		json_string(j, s);
	else
		json_null(j);
}

void json_double(struct json_out *j, double v)
{
	separate(j);
	if (isfinite(v))
		fprintf(j->fp, "%.10g", v);
	else
		fputs("null", j->fp);
}

void json_newline(struct json_out *j)
{
	putc('\n', j->fp);
	j->has_items[0] = false;
	j->after_key = false;
	j->depth = 0;
}
