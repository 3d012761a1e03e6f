// SPDX-License-Identifier: MIT
/*
 * corun.c - for t3130-report-ran-instead and t5000-tui: N tasks (argv[1],
 * default 60, at most 1000) of type 1, each 2 ms
 * of CPU on CPU 0, beside a real-time co-runner on the same CPU (a child
 * named "hogger", SCHED_FIFO 10) that spins 8 ms out of every 10 while
 * the tasks run: the thread that runs instead of the slow tasks.
 * Prints "hogger TID".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"

static uint64_t cpu_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void spin_cpu(uint64_t ns)
{
	uint64_t end = cpu_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct timespec rest = { 0, 2000000 };
	cpu_set_t cpu0;
	int tasks = argc > 1 ? atoi(argv[1]) : 60;
	pid_t hog;
	int i;

	if (tasks < 1 || tasks > 1000)
		return 2;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return 1;
	hog = fork();
	if (hog == 0) {
		prctl(PR_SET_NAME, "hogger");
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		for (;;) {
			uint64_t end = cpu_ns(CLOCK_MONOTONIC) + 8000000;

			while (cpu_ns(CLOCK_MONOTONIC) < end)
				;
			nanosleep(&rest, NULL);
		}
	}
	printf("hogger %d\n", (int)hog);
	fflush(stdout);
	for (i = 0; i < tasks; i++) {
		vs_task_begin(1);
		spin_cpu(2000000);
		vs_task_end(1);
	}
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	return 0;
}
