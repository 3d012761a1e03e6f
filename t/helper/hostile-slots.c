// SPDX-License-Identifier: MIT
/*
 * hostile-slots - a traced program that attacks what it shares with
 * "varscope record" (issue 19): an honest child process runs tasks while
 * the parent, registered too, scribbles random bytes over every slot of
 * the in-kernel engine's map and over its own task ring, then sets its
 * ring's head and counts to what no ring can hold.
 *
 *	hostile-slots [--garbage | --shrink | --creep | --cpu] [TASKS]
 *
 * With --garbage the ring's head moves only a hundred entries past its
 * tail, over random entries, its counts kept: tasks that cannot be.
 * With --shrink the parent scribbles nothing: it opens its task ring
 * again through /proc/self/map_files (as it could keep the descriptor the
 * recorder passed) and truncates it, which would be a SIGBUS in the
 * recorder at its next read of the ring, then runs 50 more tasks; it
 * prints "hostile: shrink=RESULT tasks=50", RESULT "done" or the errno's
 * name ("EPERM": the ring is sealed at its size).
 * With --creep the parent's ring stays sound but its counts of dropped
 * tasks and of ends without begin grow by 2^30 every 5 ms, a step no
 * read of the recorder found too long by itself before; it prints
 * "hostile: creep=STEPS".  With --cpu its 50 tasks (type 2) say, once in
 * the ring, that they began on CPU 2,000,000; it prints "hostile: cpu=50".
 * The child runs TASKS (default 300) tasks of type 1, each a 1 ms sleep,
 * and prints "honest: pid=P tasks=N".  The parent prints what it hit:
 * "hostile: slots=BYTES ring=BYTES".  Both exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/record/task-ring.h"
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

/* Truncate the task ring's memfd, opened again by its mapping: the result. */
static const char *shrink_ring(void)
{
	char line[512], path[128];
	unsigned long lo, hi;
	const char *result = "no ring";
	FILE *f = fopen("/proc/self/maps", "r");
	int fd;

	if (!f)
		return result;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "varscope-tasks") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
			 lo, hi);
		fd = open(path, O_RDWR);
		if (fd < 0) {
			result = "cannot open";
			break;
		}
		result = !ftruncate(fd, 0) ? "done" :
			 errno == EPERM ? "EPERM" : "failed";
		close(fd);
		break;
	}
	fclose(f);
	return result;
}

static void shrink_attack(void)
{
	const char *result;
	int i;

	vs_task_begin(2);
	sleep_ms(1);
	vs_task_end(2);
	result = shrink_ring();
	for (i = 0; i < 50; i++) {
		vs_task_begin(2);
		sleep_ms(1);
		vs_task_end(2);
	}
	printf("hostile: shrink=%s tasks=50\n", result);
}

/* The thread's task ring, registered by a first task; NULL if none. */
static struct vs_task_ring *own_ring(void)
{
	struct vs_task_ring *ring = NULL;
	char line[512];
	unsigned long lo, hi;
	FILE *f;

	vs_task_begin(2);
	sleep_ms(1);
	vs_task_end(2);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "varscope-tasks") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			ring = (struct vs_task_ring *)lo;
	if (f)
		fclose(f);
	return ring;
}

/* The counts of the task ring grow by 2^30 every 5 ms, 50 times. */
static void creep_attack(void)
{
	struct vs_task_ring *ring = own_ring();
	int i;

	for (i = 0; ring && i < 50; i++) {
		__atomic_fetch_add(&ring->dropped, 1ull << 30, __ATOMIC_RELAXED);
		__atomic_fetch_add(&ring->unmatched_ends, 1ull << 30,
				   __ATOMIC_RELAXED);
		sleep_ms(5);
	}
	printf("hostile: creep=%d\n", i);
}

/*
 * 50 tasks whose CPU, once pushed, is rewritten to 2,000,000 (a table
 * sized by it cost the recorder 1 GB once).
 */
static void cpu_attack(void)
{
	struct vs_task_ring *ring = own_ring();
	uint64_t head;
	int i;

	for (i = 0; ring && i < 50; i++) {
		vs_task_begin(2);
		vs_task_end(2);
		head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
		ring->slot[(head - 1) & (VS_RING_ENTRIES - 1)].cpu = 2000000;
		sleep_ms(1);
	}
	printf("hostile: cpu=%d\n", i);
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int tasks = 300, i, st;
	unsigned long slots = 0, ring = 0;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "--garbage")) {
		garbage = true;
		argc--;
		argv++;
	} else if (argc > 1 && (!strcmp(argv[1], "--shrink") ||
				!strcmp(argv[1], "--creep") ||
				!strcmp(argv[1], "--cpu"))) {
		mode = argv[1];
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
	if (mode) {
		if (!strcmp(mode, "--shrink"))
			shrink_attack();
		else if (!strcmp(mode, "--creep"))
			creep_attack();
		else
			cpu_attack();
		waitpid(child, &st, 0);
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
