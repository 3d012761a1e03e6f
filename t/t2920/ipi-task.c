// SPDX-License-Identifier: MIT
/*
 * ipi-task.c - t2920's interrupt-heavy task: 20 tasks of 20 ms of the
 * thread's CPU time each, on CPU 0, while (with an argument) a second
 * thread on CPU 1 calls membarrier() without pause, each call an
 * interrupt (call_function) on the CPU that runs the tasks.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"

#define TASKS		20
#define TASK_CPU_NS	20000000ll

static volatile int done;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void *interrupter(void *arg)
{
	pin(1);
	while (!done)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long long end;
	int i;

	(void)argv;
	pin(0);
	syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
	if (argc > 1)
		pthread_create(&t, NULL, interrupter, NULL);
	for (i = 0; i < TASKS; i++) {
		vs_task_begin(1);
		for (end = thread_cpu_ns() + TASK_CPU_NS; thread_cpu_ns() < end;)
			;
		vs_task_end(1);
	}
	done = 1;
	if (argc > 1)
		pthread_join(t, NULL);
	return 0;
}
