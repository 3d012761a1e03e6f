/* SPDX-License-Identifier: MIT */
/*
 * array.h - growable arrays: one helper instead of a realloc dance in
 * every file.
 */
#ifndef VS_CORE_ARRAY_H
#define VS_CORE_ARRAY_H

#include <stdlib.h>

/**
 * vs_grow - make room for @need elements of @size bytes in *@arr, whose
 * capacity is *@cap, doubling it (at least 16); 0, or -1 with *@arr
 * untouched when memory ran out
 */
static inline int vs_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *tmp;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	tmp = realloc(*(void **)arr, ncap * size);
	if (!tmp)
		return -1;
	*(void **)arr = tmp;
	*cap = ncap;
	return 0;
}

#endif /* VS_CORE_ARRAY_H */
