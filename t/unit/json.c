// SPDX-License-Identifier: MIT
/*
 * json.c - unit test of ui/json: escaping, separators in nested
 * containers, numbers, and invalid UTF-8.
 */
#include <math.h>
#include <stdlib.h>

#include "ui/json.h"
#include "t/unit/tap.h"

static char *buf;
static size_t len;

static FILE *start(struct json_out *j)
{
	FILE *fp;

	free(buf);
	fp = open_memstream(&buf, &len);

	json_init(j, fp);
	return fp;
}

static const char *finish(FILE *fp)
{
	fclose(fp);
	return buf;
}

static const char *escaped(const char *s)
{
	FILE *fp;

	free(buf);
	fp = open_memstream(&buf, &len);

	json_put_string(fp, s);
	return finish(fp);
}

int main(void)
{
	struct json_out j;
	FILE *fp;

	is_str(escaped("plain"), "\"plain\"", "plain string");
	is_str(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"", "quote and backslash");
	is_str(escaped("\n\t\r\x01\x1f\x7f"), "\"\\n\\t\\r\\u0001\\u001f\\u007f\"",
	       "control characters");
	is_str(escaped("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	       "\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", "valid UTF-8 kept");
	is_str(escaped("a\xff" "b\xc3" "c\xed\xa0\x80"),
	       "\"a\\ufffdb\\ufffdc\\ufffd\\ufffd\\ufffd\"",
	       "invalid UTF-8 replaced byte by byte");
	is_str(escaped(NULL), "\"\"", "NULL is the empty string");

	fp = start(&j);
	json_begin_object(&j);
	json_key(&j, "kind");
	json_string(&j, "task");
	json_key(&j, "n");
	json_u64(&j, UINT64_MAX);
	json_key(&j, "neg");
	json_i64(&j, -5);
	json_key(&j, "list");
	json_begin_array(&j);
	json_u64(&j, 1);
	json_begin_object(&j);
	json_end_object(&j);
	json_begin_array(&j);
	json_end_array(&j);
	json_double(&j, 0.25);
	json_double(&j, NAN);
	json_double(&j, INFINITY);
	json_bool(&j, true);
	json_null(&j);
	json_string_or_null(&j, "x");
	json_string_or_null(&j, NULL);
	json_end_array(&j);
	json_key(&j, "after");
	json_bool(&j, false);
	json_end_object(&j);
	json_newline(&j);
	json_begin_array(&j);
	json_end_array(&j);
	json_newline(&j);
	is_str(finish(fp),
	       "{\"kind\":\"task\",\"n\":18446744073709551615,\"neg\":-5,"
	       "\"list\":[1,{},[],0.25,null,null,true,null,\"x\",null],"
	       "\"after\":false}\n"
	       "[]\n", "nested containers, separators, numbers, lines");
	free(buf);
	return done_testing();
}
