// SPDX-License-Identifier: MIT
/*
 * bigframe - system calls whose user stacks a frame-pointer walk gets
 * wrong: the ground truth of t7020.
 *
 * serve() runs once and calls, ROUNDS times each, in turn:
 *   open_path()  a PATH_MAX buffer on its stack, then open(2): the C
 *                library's open uses %rbp for something else, so the
 *                kernel's frame-pointer walk goes astray, and the frame
 *                record of open_path lies more than 4 KB above the stack
 *                pointer;
 *   host_name()  gethostname(3), which makes its uname(2) from inside the
 *                C library, two frames without frame pointers deep;
 *   new_thread() pthread_create(3), whose clone3 stub has no unwind rule
 *                at its system call (and its thread makes calls of its
 *                own, where serve is not on the stack).
 * Hence 1 execution of serve, ROUNDS of each of the three, whether the
 * program keeps its frame pointers or not.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int rounds = 100;

NOINLINE static void open_path(int i)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", i % 3);
	fd = open(path, O_RDONLY);
	if (fd >= 0)
		close(fd);
}

NOINLINE static void host_name(void)
{
	char name[64];

	if (gethostname(name, sizeof(name)) < 0)
		exit(1);
}

static void *idle(void *arg)
{
	return arg;
}

NOINLINE static void new_thread(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, idle, NULL) ||
	    pthread_join(th, NULL))
		exit(1);
}

NOINLINE static void serve(void)
{
	int i;

	for (i = 0; i < rounds; i++) {
		open_path(i);
		host_name();
		new_thread();
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	serve();
	return 0;
}
