/* SPDX-License-Identifier: MIT */
/*
 * bitmap.h - plain bit sets over task indices (one bit per task).
 *
 * The analyses keep "which tasks recorded event E" and "which tasks have a
 * high value of E" as bitmaps: 10 million tasks take 1.25 MB, and set
 * operations (Jaccard, tasks with both events) run a word at a time.
 */
#ifndef VS_CORE_BITMAP_H
#define VS_CORE_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VS_BITS_PER_WORD	64

static inline size_t vs_bitmap_words(size_t nbits)
{
	return (nbits + VS_BITS_PER_WORD - 1) / VS_BITS_PER_WORD;
}

/*
 * Bits set in a word.  Without -mpopcnt the compiler's builtin is a
 * library call per word; this SWAR sum is a dozen inline operations.
 */
static inline unsigned int vs_popcount64(uint64_t x)
{
#ifdef __POPCNT__
	return __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (x * 0x0101010101010101ull) >> 56;
#endif
}

static inline bool vs_bit_test(const uint64_t *map, size_t bit)
{
	return (map[bit / VS_BITS_PER_WORD] >> (bit % VS_BITS_PER_WORD)) & 1;
}

static inline void vs_bit_set(uint64_t *map, size_t bit)
{
	map[bit / VS_BITS_PER_WORD] |= 1ull << (bit % VS_BITS_PER_WORD);
}

/* Number of set bits among the first @nbits (bits beyond must be clear). */
static inline size_t vs_bitmap_weight(const uint64_t *map, size_t nbits)
{
	size_t i, n = 0;

	for (i = 0; i < vs_bitmap_words(nbits); i++)
		n += vs_popcount64(map[i]);
	return n;
}

#endif /* VS_CORE_BITMAP_H */
