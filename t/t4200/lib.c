// SPDX-License-Identifier: MIT
/* lib.c - libhot.so of t4200-sample-symbols: a busy function of a library */
__attribute__((noinline)) void lib_hot(long n)
{
	volatile double a = 1;

	while (n--)
		a = a * 1.0000001 + 0.5;
}
