/* SPDX-License-Identifier: MIT */
/*
 * varint.h - unsigned LEB128 varints and zigzag differences: what the
 * packed task records (core/trace/trace-pack.c) and the packed sequences of
 * core/analysis/delta-seq.c are made of.
 */
#ifndef VS_CORE_VARINT_H
#define VS_CORE_VARINT_H

#include <stdint.h>

#define VS_VARINT_MAX	10	/* bytes of a 64-bit LEB128 varint */

/* A two's complement difference, small either way, as a small number. */
static inline uint64_t vs_zigzag(uint64_t delta)
{
	return delta << 1 ^ -(delta >> 63);
}

static inline uint64_t vs_unzigzag(uint64_t z)
{
	return z >> 1 ^ -(z & 1);
}

/* Write @v at @b (at most VS_VARINT_MAX bytes); the byte after it. */
static inline uint8_t *vs_put_varint(uint8_t *b, uint64_t v)
{
	while (v >= 0x80) {
		*b++ = v | 0x80;
		v >>= 7;
	}
	*b++ = v;
	return b;
}

#endif /* VS_CORE_VARINT_H */
