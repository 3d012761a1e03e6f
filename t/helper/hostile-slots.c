// SPDX-License-Identifier: MIT
/*
 * hostile-slots - a traced program that attacks what it shares with
 * "varscope record" (issue 19): an honest child process runs tasks while
 * the parent, registered too, scribbles random bytes over every slot of
 * the in-kernel engine's map and over its own task ring, then sets its
 * ring's head and counts to what no ring can hold.
 *
 *	hostile-slots [--garbage] [TASKS]
 *
 * With --garbage the ring's head moves only a hundred entries past its
 * tail, over random entries, its counts kept: tasks that cannot be.
 * The child runs TASKS (default 300) tasks of type 1, each a 1 ms sleep,
 * and prints "honest: pid=P tasks=N".  The parent prints what it hit:
 * "hostile: slots=BYTES ring=BYTES".  Both exit 0.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"

static uint64_t rnd = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rnd ^= rnd >> 12;
	rnd ^= rnd << 25;
	rnd ^= rnd >> 27;
	return rnd * 0x2545f4914f6cdd1dull;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Fill [@lo, @hi) with random words. */
static void scribble(uint64_t *lo, uint64_t *hi)
{
	while (lo < hi)
		*lo++ = next();
}

/*
 * The mappings whose /proc/self/maps line names @what, scribbled; the
 * bytes written.
 */
static bool garbage;

static unsigned long attack(const char *what, bool lie_ring)
{
	uint64_t tail;
	char line[512];
	unsigned long lo, hi, total = 0;
	char perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, what) ||
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 ||
		    perms[1] != 'w')
			continue;
		if (lie_ring && garbage) {
			/* the entries after the 128-byte head, then the head */
			tail = ((uint64_t *)lo)[8];	/* the recorder's */
			scribble((uint64_t *)lo + 16, (uint64_t *)hi);
			__atomic_store_n((uint64_t *)lo, tail + 100,
					 __ATOMIC_RELEASE);
			total += hi - lo;
			continue;
		}
		scribble((uint64_t *)lo, (uint64_t *)hi);
		if (lie_ring) {
			/* struct vs_task_ring: head, dropped, unmatched_ends */
			((uint64_t *)lo)[0] = UINT64_MAX;
			((uint64_t *)lo)[1] = 1000000;
			((uint64_t *)lo)[2] = UINT64_MAX - 5;
		}
		total += hi - lo;
	}
	fclose(f);
	return total;
}

int main(int argc, char **argv)
{
	int tasks = 300, i, st;
	unsigned long slots = 0, ring = 0;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "--garbage")) {
		garbage = true;
		argc--;
		argv++;
	}
	if (argc > 1)
		tasks = atoi(argv[1]);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		for (i = 0; i < tasks; i++) {
			vs_task_begin(1);
			sleep_ms(1);
			vs_task_end(1);
		}
		printf("honest: pid=%d tasks=%d\n", getpid(), tasks);
		return 0;
	}
	/* registered: a task of its own, then the attack, again and again */
	for (i = 0; i < 50; i++) {
		vs_task_begin(2);
		sleep_ms(1);
		slots = attack("bpf-map", false);
		vs_task_end(2);
		ring = attack("varscope-tasks", true);
		sleep_ms(5);
	}
	waitpid(child, &st, 0);
	printf("hostile: slots=%lu ring=%lu\n", slots, ring);
	return 0;
}
