// SPDX-License-Identifier: MIT
/*
 * sort.c - LSD radix sorts for event values and task latencies.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"

#define RADIX_BITS	11
#define RADIX_SIZE	(1u << RADIX_BITS)
#define RADIX_MASK	(RADIX_SIZE - 1)

/*
 * Below this many keys an insertion sort is faster than the radix passes,
 * each of which clears and sums RADIX_SIZE counters: a trace of many task
 * types sorts many tiny arrays.  Keys are sorted by all their bits, as the
 * radix passes do, so both give the same order.
 */
#define SMALL_SORT	32

#define insertion_sort(a, n)						\
	do {								\
		for (size_t _i = 1; _i < (n); _i++) {			\
			__typeof__(*(a)) _x = (a)[_i];			\
			size_t _j = _i;					\
									\
			for (; _j && (a)[_j - 1] > _x; _j--)		\
				(a)[_j] = (a)[_j - 1];			\
			(a)[_j] = _x;					\
		}							\
	} while (0)

/*
 * Sort @n 64-bit keys ascending by bits [@lo, @hi) with passes of
 * RADIX_BITS bits, using @tmp as scratch.  The result ends in @a.
 */
static void radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t n,
			   unsigned int lo, unsigned int hi)
{
	uint64_t *src = a, *dst = tmp, *t;
	size_t count[RADIX_SIZE];
	unsigned int shift;
	size_t i;

	for (shift = lo; shift < hi; shift += RADIX_BITS) {
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & RADIX_MASK]++;
		if (count[(src[0] >> shift) & RADIX_MASK] == n)
			continue;	/* every key has the same digit */
		for (i = 0; i < RADIX_SIZE; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & RADIX_MASK]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

int vs_sort_floats(float *v, size_t n)
{
	size_t count[3][RADIX_SIZE];
	uint32_t *a = (uint32_t *)v, *tmp, *src, *dst;
	unsigned int pass;
	size_t i;

	if (n < SMALL_SORT) {
		insertion_sort(a, n);
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	/* Non-negative IEEE floats order like their bit patterns. */
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		count[0][a[i] & RADIX_MASK]++;
		count[1][(a[i] >> RADIX_BITS) & RADIX_MASK]++;
		count[2][a[i] >> (2 * RADIX_BITS)]++;
	}
	src = a;
	dst = tmp;
	for (pass = 0; pass < 3; pass++) {
		unsigned int shift = pass * RADIX_BITS;
		size_t sum = 0, *c = count[pass];
		uint32_t *t;

		if (c[(src[0] >> shift) & RADIX_MASK] == n)
			continue;
		for (i = 0; i < RADIX_SIZE; i++) {
			size_t k = c[i];

			c[i] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i] >> shift) & RADIX_MASK]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	return 0;
}

static unsigned int bit_length(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

int vs_order_desc(const uint64_t *key, size_t n, uint32_t *order)
{
	unsigned int idx_bits, key_bits, shift = 0;
	uint64_t *packed, *tmp, max = 0, mask;
	size_t i;

	if (n < 2) {
		if (n)
			order[0] = 0;
		return 0;
	}
	packed = malloc(n * sizeof(*packed));
	tmp = malloc(n * sizeof(*tmp));
	if (!packed || !tmp) {
		free(packed);
		free(tmp);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (key[i] > max)
			max = key[i];
	/*
	 * Pack key and index into one word; only the key bits are sorted.
	 * Keys too long to fit beside the index lose their lowest bits
	 * (with 10^7 tasks, latencies above 18 minutes lose nanoseconds).
	 */
	idx_bits = bit_length(n - 1);
	key_bits = bit_length(max);
	if (key_bits > 64 - idx_bits) {
		shift = key_bits - (64 - idx_bits);
		key_bits = 64 - idx_bits;
	}
	mask = (1ull << idx_bits) - 1;
	for (i = 0; i < n; i++)
		packed[i] = ((key[i] >> shift) << idx_bits) | i;
	if (n < SMALL_SORT)	/* the index bits too: ties as the radix's */
		insertion_sort(packed, n);
	else
		radix_sort_u64(packed, tmp, n, idx_bits, idx_bits + key_bits);
	for (i = 0; i < n; i++)
		order[i] = packed[n - 1 - i] & mask;
	free(packed);
	free(tmp);
	return 0;
}
