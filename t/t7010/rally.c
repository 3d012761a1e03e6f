// SPDX-License-Identifier: MIT
/*
 * rally - two threads inside the same function at the same time, their
 * system calls strictly alternating: the ground truth of t7010.
 *
 * Each thread runs rally() once.  rally() calls hit() ROUNDS times, and
 * between two hits makes one getppid of its own.  In hit(), thread A
 * writes a byte to B and reads B's answer; B reads A's byte and writes
 * its answer: every call of one thread comes between two of the other.
 * Hence 2 executions of rally, 2 * ROUNDS of hit; rally's own calls are
 * one getppid at a time between two hits, hit's are a write and a read.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int rounds = 500;
static int ab[2], ba[2];		/* A to B, B to A */

NOINLINE static void hit(int side)
{
	char c = 'x';

	if (side == 0) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(1);
	} else {
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			exit(1);
	}
}

NOINLINE static void rally(int side)
{
	int i;

	for (i = 0; i < rounds; i++) {
		hit(side);
		getppid();
	}
}

static void *thread_b(void *arg)
{
	(void)arg;
	rally(1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t b;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (pipe(ab) < 0 || pipe(ba) < 0 ||
	    pthread_create(&b, NULL, thread_b, NULL)) {
		perror("rally");
		return 1;
	}
	rally(0);
	pthread_join(b, NULL);
	return 0;
}
