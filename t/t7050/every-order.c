// SPDX-License-Identifier: MIT
/*
 * every-order - a function that makes 20 cheap system calls in a new
 * random order at each execution: t7050's input with more candidate
 * episodes of length 4 (20 * 19 * 18 * 17 = 116,280) than signature
 * mining counts.  Beside it, fetch() makes getppid, getuid twice.
 *
 *	every-order [EXECUTIONS]	(default 500)
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static const long calls[20] = {
	SYS_getpid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid,
	SYS_getegid, SYS_getpgrp, SYS_gettid, SYS_sched_yield, SYS_getsid,
	SYS_getpriority, SYS_times, SYS_uname, SYS_sysinfo, SYS_getrusage,
	SYS_getcwd, SYS_getrlimit, SYS_getresuid, SYS_getresgid,
	SYS_sched_getscheduler,
};

NOINLINE static void every_order(unsigned int *seed)
{
	static char buf[4096];
	int order[20], i, j, t;

	for (i = 0; i < 20; i++)
		order[i] = i;
	for (i = 19; i > 0; i--) {
		j = rand_r(seed) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	/* each call with arguments it accepts: a buffer, 0 or the process */
	for (i = 0; i < 20; i++)
		syscall(calls[order[i]], calls[order[i]] == SYS_getpriority ?
			0 : (long)buf, calls[order[i]] == SYS_getcwd ?
			sizeof(buf) : 0, (long)buf);
}

NOINLINE static void fetch(void)
{
	syscall(SYS_getppid);
	syscall(SYS_getuid);
	syscall(SYS_getppid);
	syscall(SYS_getuid);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500, i;
	unsigned int seed = 1;

	for (i = 0; i < n; i++) {
		every_order(&seed);
		fetch();
		usleep(200);
	}
	return 0;
}
