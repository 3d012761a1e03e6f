/* SPDX-License-Identifier: MIT */
/*
 * shuffle.h - calls 0 + @base .. @n - 1 + @base in a random order, for the
 * unit tests of episodes made in every order (xorshift64 state @x).
 */
#ifndef VS_T_UNIT_SHUFFLE_H
#define VS_T_UNIT_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

static inline void shuffle_calls(uint16_t *p, size_t n, uint16_t base,
				 uint64_t *x)
{
	size_t k, j;
	uint16_t t;

	for (k = 0; k < n; k++)
		p[k] = base + k;
	for (k = n; k-- > 1;) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		j = *x % (k + 1);
		t = p[k];
		p[k] = p[j];
		p[j] = t;
	}
}

#endif /* VS_T_UNIT_SHUFFLE_H */
