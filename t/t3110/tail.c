// SPDX-License-Identifier: MIT
/*
 * tail.c - two task types for t3110-report-tail:
 *
 *   type 1 "far"     6000 tasks of about 50 us of work; every 333rd also
 *                    sleeps 20 ms: a 0.3% tail far behind the p99
 *   type 2 "smooth"  6000 tasks that sleep 100 us to 1 ms, uniformly:
 *                    a tail that thins out, hiding nothing (as many
 *                    tasks as type 1: 6 beyond its p99.9 too)
 *
 * Prints "far N" (the tasks that slept 20 ms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "varscope.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static void work_us(long us)
{
	uint64_t end = now_ns() + us * 1000;

	while (now_ns() < end)
		;
}

int main(void)
{
	long i, far = 0;

	vs_task_type_name(1, "far");
	vs_task_type_name(2, "smooth");
	srand(7);
	for (i = 0; i < 6000; i++) {
		vs_task_begin(1);
		work_us(50);
		if (i % 333 == 332) {
			sleep_us(20000);
			far++;
		}
		vs_task_end(1);
		vs_task_begin(2);
		sleep_us(100 + rand() % 900);
		vs_task_end(2);
	}
	printf("far %ld\n", far);
	return 0;
}
