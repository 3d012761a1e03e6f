/* SPDX-License-Identifier: MIT */
/*
 * sort.h - the two sorts the analyses need, both radix sorts in O(n), and
 * qsort() for arrays that may be empty, with or without a context.
 *
 * A report over ten million tasks sorts every event's values once (for its
 * CDF) and the tasks once by latency; a comparison sort would dominate the
 * running time.
 */
#ifndef VS_CORE_SORT_H
#define VS_CORE_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * vs_sort_floats - sort non-negative floats ascending, in place
 * @v: the values (no NaN, no negative values: event values are counts,
 *     times and rates)
 * @n: how many
 *
 * Returns 0, or -1 when the scratch buffer cannot be allocated.
 */
int vs_sort_floats(float *v, size_t n);

/**
 * vs_order_desc - task indices ordered by @key, largest first
 * @key: one key per index (latencies)
 * @n: number of keys, at most UINT32_MAX
 * @order: receives the @n indices
 *
 * Ties keep no particular order.  Returns 0, or -1 on allocation failure.
 */
int vs_order_desc(const uint64_t *key, size_t n, uint32_t *order);

/**
 * vs_qsort - qsort() an array that may be empty
 * @base: the array; may be NULL when @nmemb is 0 (a growable array that
 *        never grew)
 * @nmemb: number of elements
 * @size: size of one element
 * @compar: the comparison, as for qsort()
 *
 * qsort() is declared with a non-NULL @base even for no elements, and
 * UBSan stops on such a call: sort only what has something to sort.
 */
static inline void vs_qsort(void *base, size_t nmemb, size_t size,
			    int (*compar)(const void *, const void *))
{
	if (nmemb > 1)
		qsort(base, nmemb, size, compar);
}

/**
 * vs_qsort_r - vs_qsort() with a context for the comparison
 * @base: the array; may be NULL when @nmemb is 0
 * @nmemb: number of elements
 * @size: size of one element
 * @compar: the comparison, as for qsort(), with @arg as its third argument
 * @arg: what the comparison needs besides the two elements (the array an
 *       index array points into, ...)
 *
 * A comparison that finds its context in a file-static variable cannot
 * run in two threads at once: pass it here instead.
 */
static inline void vs_qsort_r(void *base, size_t nmemb, size_t size,
			      int (*compar)(const void *, const void *,
					    void *),
			      void *arg)
{
	if (nmemb > 1)
		qsort_r(base, nmemb, size, compar, arg);
}

#endif /* VS_CORE_SORT_H */
