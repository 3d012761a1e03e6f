/* SPDX-License-Identifier: MIT */
/*
 * plural.h - "1 thread", "2 threads": counts in messages agree with their
 * noun.
 */
#ifndef VS_CORE_PLURAL_H
#define VS_CORE_PLURAL_H

/**
 * vs_plural - the word for @n things: @one when @n is 1, else @many
 * @n: the count printed before it
 * @one: the singular ("thread", "process")
 * @many: the plural ("threads", "processes")
 */
static inline const char *vs_plural(unsigned long long n, const char *one,
				    const char *many)
{
	return n == 1 ? one : many;
}

#endif /* VS_CORE_PLURAL_H */
