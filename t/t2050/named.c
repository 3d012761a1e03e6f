// SPDX-License-Identifier: MIT
/*
 * named.c - task types named through vs_task_type_name(), for
 * t2050-record-type-names: type 1 "get" named before its first task,
 * type 2 named "set" by another thread after its first task, type 3 left
 * unnamed (type 1 named again before each of its tasks, which is no
 * news); then the names the recorder must refuse (control bytes, all
 * digits, a second name for type 1) and, with an argument N, N more types
 * 1000.. named "t1000"... (a flood: the recorder names 4096 types at
 * most).  Each type-2 task sleeps 3 ms, every 10th 12 ms; types 1 and 3
 * sleep 1 ms.  Prints "slow N": the type-2 tasks of 12 ms.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "varscope.h"

static void task(uint32_t type, long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	vs_task_begin(type);
	nanosleep(&ts, NULL);
	vs_task_end(type);
}

static void *name_set(void *arg)
{
	(void)arg;
	vs_task_type_name(2, "set");
	return NULL;
}

int main(int argc, char **argv)
{
	long flood = argc > 1 ? atol(argv[1]) : 0, i, slow = 0;
	char name[32];
	pthread_t th;

	vs_task_type_name(1, "get");
	task(2, 3);
	if (pthread_create(&th, NULL, name_set, NULL) ||
	    pthread_join(th, NULL))
		return 1;
	for (i = 0; i < 40; i++) {
		vs_task_type_name(1, "get");	/* again: no news */
		task(1, 1);
		task(2, i % 10 == 9 ? 12 : 3);
		slow += i % 10 == 9;
		task(3, 1);
	}
	vs_task_type_name(4, "bad\x01name");
	vs_task_type_name(5, "12345");
	vs_task_type_name(1, "other");
	for (i = 0; i < flood; i++) {
		snprintf(name, sizeof(name), "t%ld", 1000 + i);
		vs_task_type_name(1000 + i, name);
	}
	printf("slow %ld\n", slow);
	return 0;
}
