/* SPDX-License-Identifier: MIT */
/*
 * array.h - growable arrays: one growth idiom, git's ALLOC_GROW, instead
 * of a realloc dance in every file.
 *
 *	struct vs_thing *things;
 *	size_t nr_things, alloc_things;
 *
 *	if (ALLOC_GROW(things, nr_things + 1, alloc_things))
 *		return -1;		(things is untouched, still valid)
 *	things[nr_things++] = thing;
 */
#ifndef VS_CORE_ARRAY_H
#define VS_CORE_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/*
 * alloc_nr - the capacity that follows @x: half as much again, plus 16
 * so that small arrays do not crawl (0, 24, 60, 114, ...)
 */
#define alloc_nr(x) (((x) + 16) * 3 / 2)

/**
 * vs_alloc_grow - make room for @nr elements of @size bytes in *@arr
 * @arr: address of the array pointer (any element type)
 * @alloc: the array's capacity, in elements; updated on success
 * @nr: the number of elements needed
 * @size: the size of one element
 *
 * Does nothing when *@alloc already holds @nr.  Otherwise grows the
 * capacity to alloc_nr(*@alloc), or to @nr when that is more, with every
 * size computation checked: a count read from a trace that would make
 * the capacity or its byte size wrap fails as out of memory rather than
 * allocating too little.  ALLOC_GROW() is the way to call it; this form
 * is for code that handles arrays of any type through void pointers.
 *
 * Returns 0, or -1 with *@arr and *@alloc untouched when memory ran out.
 */
static inline int vs_alloc_grow(void *arr, size_t *alloc, size_t nr,
				size_t size)
{
	size_t n;
	void *p;

	if (nr <= *alloc)
		return 0;
	n = *alloc <= SIZE_MAX / 3 - 16 ? alloc_nr(*alloc) : SIZE_MAX;
	if (n < nr)
		n = nr;
	if (n > SIZE_MAX / size)
		return -1;
	p = realloc(*(void **)arr, n * size);
	if (!p)
		return -1;
	*(void **)arr = p;
	*alloc = n;
	return 0;
}

/**
 * ALLOC_GROW - make room for @nr elements in the array @x of capacity
 * @alloc (git's idiom; the new elements are not initialized)
 * @x: the array, a pointer lvalue (NULL while empty)
 * @nr: the number of elements needed, usually the count plus one
 * @alloc: its capacity in elements, a size_t lvalue (0 while empty)
 *
 * Evaluates to 0, or to -1 with @x and @alloc untouched when memory ran
 * out: the caller reports that the way it reports its other failures.
 */
#define ALLOC_GROW(x, nr, alloc) \
	vs_alloc_grow(&(x), &(alloc), (nr), sizeof(*(x)))

#endif /* VS_CORE_ARRAY_H */
