// SPDX-License-Identifier: MIT
/*
 * type-names.c - task type names (core/trace/type-names.h): what a name may
 * be, a type's first name wins, merging, and the --type parser; and the
 * N slowest tasks of varscope script (core/trace/record-filter.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/trace/record-filter.h"
#include "core/trace/type-names.h"
#include "t/unit/tap.h"

static void test_valid(void)
{
	char long_name[VS_TYPE_NAME_MAX + 2];

	ok(vs_type_name_valid("get", 3), "a word is a name");
	ok(vs_type_name_valid("GET /index.html", 15), "spaces and slashes too");
	ok(!vs_type_name_valid("", 0), "the empty string is not");
	ok(!vs_type_name_valid("12345", 5), "digits alone are not: --type 12345 is a number");
	ok(vs_type_name_valid("404s", 4), "digits and a letter are");
	ok(!vs_type_name_valid("a\x01b", 3), "a control byte is not");
	ok(!vs_type_name_valid("caf\xc3\xa9", 5), "bytes past ASCII are not");
	ok(!vs_type_name_valid("a\nb", 3), "a newline is not");
	memset(long_name, 'x', sizeof(long_name));
	ok(vs_type_name_valid(long_name, VS_TYPE_NAME_MAX), "64 bytes are");
	ok(!vs_type_name_valid(long_name, VS_TYPE_NAME_MAX + 1), "65 are not");
}

static void test_names(void)
{
	struct vs_type_names a = { 0 }, b = { 0 };
	char buf[VS_TYPE_NAME_MAX + 16];
	uint32_t type = 0;

	is_u64(vs_type_names_add(&a, 1, "get"), 1, "a name is added");
	is_u64(vs_type_names_add(&a, 1, "other"), 0, "a second name of a type is not");
	is_u64(vs_type_names_add(&a, 2, "9"), 0, "an invalid name is not");
	is_str(vs_type_names_get(&a, 1), "get", "the type keeps its first name");
	ok(!vs_type_names_get(&a, 2), "a type without a name has none");
	is_str(vs_type_label(&a, 1, buf, sizeof(buf)), "get (1)", "label of a named type");
	is_str(vs_type_label(&a, 7, buf, sizeof(buf)), "7", "label of another");

	vs_type_names_add(&b, 1, "got");
	vs_type_names_add(&b, 3, "set");
	ok(!vs_type_names_merge(&a, &b), "merge");
	is_str(vs_type_names_get(&a, 1), "get", "merge keeps the first name");
	is_str(vs_type_names_get(&a, 3), "set", "merge adds the new types");

	is_u64(vs_type_option(&a, "set"), 3, "--type by name");
	is_u64(vs_type_option(&a, "3"), 3, "--type by number");
	is_u64(vs_type_option(&a, "4294967295"), UINT32_MAX, "the largest number");
	ok(!vs_type_option_of("12", NULL, 0, &type) && type == 12,
	   "a number reads no trace");
	vs_type_names_release(&a);
	vs_type_names_release(&b);
	ok(!a.nr && !vs_type_names_get(&a, 1), "released");
}

static struct vs_task task(uint64_t id, uint64_t latency, uint32_t nr_values,
			   const struct vs_value *values)
{
	return (struct vs_task){ .id = id, .start = 1000, .end = 1000 + latency,
				 .nr_values = nr_values, .values = values };
}

static void test_slowest(void)
{
	static const uint64_t lat[] = { 5, 9, 1, 9, 7, 3, 9, 2, 8, 6 };
	struct vs_value v = { 4, 77 };
	struct vs_slowest s;
	struct vs_task t;
	size_t i;

	vs_slowest_init(&s, 4);
	for (i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
		v.value = 100 + i;
		t = task(i, lat[i], 1, &v);
		ok(!vs_slowest_add(&s, &t), "add");
	}
	vs_slowest_sort(&s);
	is_u64(s.nr, 4, "4 kept of 10");
	/* 9, 9, 9 in file order (ids 1, 3, 6), then 8 (id 8) */
	is_u64(s.heap[0].task.id, 1, "slowest first, the earliest of a tie");
	is_u64(s.heap[1].task.id, 3, "then the next of the tie");
	is_u64(s.heap[2].task.id, 6, "then the last of the tie");
	is_u64(s.heap[3].task.id, 8, "then the next slower");
	is_u64(s.heap[3].task.values[0].value, 108,
	       "the values are copies, not the reader's buffer");
	vs_slowest_release(&s);

	vs_slowest_init(&s, 100);
	t = task(1, 5, 0, NULL);
	vs_slowest_add(&s, &t);
	vs_slowest_sort(&s);
	is_u64(s.nr, 1, "fewer tasks than N: all of them");
	vs_slowest_release(&s);
}

int main(void)
{
	test_valid();
	test_names();
	test_slowest();
	return done_testing();
}
