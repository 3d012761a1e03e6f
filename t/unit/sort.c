// SPDX-License-Identifier: MIT
/*
 * sort.c - unit test of core/sort: the radix sorts against qsort.
 */
#include <stdlib.h>

#include "core/sort.h"
#include "t/unit/tap.h"

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* indices into the keys @arg, largest key first */
static int cmp_key_desc(const void *a, const void *b, void *arg)
{
	const uint64_t *key = arg;
	uint64_t x = key[*(const uint32_t *)a], y = key[*(const uint32_t *)b];

	return (x < y) - (x > y);
}

int main(void)
{
	size_t n = 100000, i, bad = 0;
	float *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w));
	uint64_t *key = malloc(n * sizeof(*key));
	uint32_t *order = malloc(n * sizeof(*order));
	char *seen = calloc(n, 1);
	static const uint64_t small[] = { 5, 1, 9, 1, 7 };
	uint32_t small_order[5];

	srand(1);
	for (i = 0; i < n; i++) {
		/* values over many binades, with ties and zeros */
		v[i] = (float)(rand() % 1000) * (float)(1u << (rand() % 20)) / 7;
		w[i] = v[i];
		key[i] = (uint64_t)rand() * (rand() % 3 ? 1 : 1000);
	}
	ok(vs_sort_floats(v, n) == 0, "sort floats");
	qsort(w, n, sizeof(*w), cmp_float);
	for (i = 0; i < n; i++)
		bad += v[i] != w[i];
	is_u64(bad, 0, "radix order equals qsort's");

	ok(vs_order_desc(key, n, order) == 0, "order by key");
	for (i = 0; i < n; i++) {
		bad += seen[order[i]]++ != 0;
		if (i && key[order[i - 1]] < key[order[i]])
			bad++;
	}
	is_u64(bad, 0, "a permutation, largest key first");

	vs_order_desc(small, 5, small_order);
	ok(small_order[0] == 2 && small_order[1] == 4 && small_order[2] == 0 &&
	   key != NULL && small[small_order[3]] == 1 &&
	   small[small_order[4]] == 1, "5 1 9 1 7 -> 9 7 5 1 1");

	/* an array that never grew; UBSan stops here if qsort() sees NULL */
	vs_qsort(NULL, 0, sizeof(*w), cmp_float);
	vs_qsort(w, 1, sizeof(*w), cmp_float);
	w[0] = 3;
	w[1] = 1;
	vs_qsort(w, 2, sizeof(*w), cmp_float);
	ok(w[0] == 1 && w[1] == 3, "vs_qsort: no elements as NULL, one, two");

	/* the keys reach the comparison as its context, not a static */
	vs_qsort_r(NULL, 0, sizeof(*small_order), cmp_key_desc, NULL);
	for (i = 0; i < 5; i++)
		small_order[i] = i;
	vs_qsort_r(small_order, 5, sizeof(*small_order), cmp_key_desc,
		   (void *)small);
	ok(small[small_order[0]] == 9 && small[small_order[1]] == 7 &&
	   small[small_order[2]] == 5 && small[small_order[4]] == 1,
	   "vs_qsort_r: indices by the keys of its context");
	free(v);
	free(w);
	free(key);
	free(order);
	free(seen);
	return done_testing();
}
