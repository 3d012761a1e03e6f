// SPDX-License-Identifier: MIT
/*
 * deep - system calls under a stack deeper than varscope's stack copy:
 * the ground truth of t7020's frame-pointer test.
 *
 * main() calls outer() once, which goes down 16 frames of descend(),
 * each with 1 KB on its stack, and at the bottom calls ping() ROUNDS
 * times; ping() makes one getppid and one getpid, outer() one getppid
 * after it all.  The 8 KB copy of the
 * stack at each call ends in the middle of descend()'s frames: outer
 * and main are found only by the kernel's frame-pointer walk past it.
 * Hence 1 execution of outer, ROUNDS of ping.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define DEPTH	16

static int rounds = 100;

NOINLINE static void ping(void)
{
	getppid();
	getpid();
}

NOINLINE static void descend(int n)
{
	volatile char pad[1024];

	memset((char *)pad, n, sizeof(pad));
	if (n) {
		descend(n - 1);
	} else {
		int i;

		for (i = 0; i < rounds; i++)
			ping();
	}
	pad[0]++;
}

NOINLINE static void outer(void)
{
	descend(DEPTH - 1);
	getppid();		/* and no tail call to descend */
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	outer();
	return 0;
}
