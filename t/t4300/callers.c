// SPDX-License-Identifier: MIT
/*
 * callers.c - the program of t4300-sample-callers: requests that each look
 * a key up through one of three callers (lookup_a, lookup_b, lookup_c),
 * all ending in hash(), a leaf that calls nothing and, built with
 * -fomit-frame-pointer, sets up no frame record.  Every eighth request is
 * slow: it goes through lookup_b and hashes 40 times longer; the others
 * alternate lookup_a and lookup_c.  So the slow requests' time is in
 * hash() under main -> serve -> lookup_b, the ground truth the tests
 * check the callers and the variance tree against.
 *
 * never_called() sits right before serve() in the text (the test checks
 * it with nm): a sample at serve's first byte (a uprobe's breakpoint,
 * with --task-func serve) must never be credited to it.
 *
 * usage: callers [REQUESTS [annotate|plain]]
 *   annotate: each request is a task (vs_task_begin/end, type 1)
 *   plain:    nothing marks it (--task-func serve does)
 */
#include <stdlib.h>
#include <string.h>
#include <varscope.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hash(unsigned long x, long n)
{
	while (n--)
		x = x * 0x9e3779b97f4a7c15ul + (x >> 17);
	return x;
}

/* not tail calls: each caller's frame is on the stack in hash() */
__attribute__((noinline)) unsigned long lookup_a(unsigned long k, long n)
{
	return hash(k, n) + 1;
}

__attribute__((noinline)) unsigned long lookup_b(unsigned long k, long n)
{
	return hash(k, n) + 2;
}

__attribute__((noinline)) unsigned long lookup_c(unsigned long k, long n)
{
	return hash(k, n) + 3;
}

__attribute__((noinline)) void never_called(void)
{
	sink = 0;
}

__attribute__((noinline)) void serve(int i, long work)
{
	if (i % 8 == 7)
		sink += lookup_b(i, 40 * work);
	else if (i % 2)
		sink += lookup_a(i, work);
	else
		sink += lookup_c(i, work);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 800;
	int annotate = !(argc > 2 && !strcmp(argv[2], "plain"));
	long work = argc > 3 ? atol(argv[3]) : 20000;
	int i;

	for (i = 0; i < n; i++) {
		if (annotate)
			vs_task_begin(1);
		serve(i, work);
		if (annotate)
			vs_task_end(1);
	}
	return 0;
}
