// SPDX-License-Identifier: MIT
/*
 * proc.c - unit test of core/proc: a process's threads, each once, and a
 * process that is gone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/proc.h"
#include "t/unit/tap.h"

#define NR_THREADS 4

static pthread_barrier_t started, done;
static pid_t tids[NR_THREADS + 1];

static void *thread_main(void *arg)
{
	tids[(long)arg] = gettid();
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(void)
{
	pthread_t threads[NR_THREADS];
	struct vs_proc_tids it;
	int seen[NR_THREADS + 1] = { 0 }, strangers = 0, i;
	bool once = true;
	pid_t tid, child;
	long n;

	pthread_barrier_init(&started, NULL, NR_THREADS + 1);
	pthread_barrier_init(&done, NULL, NR_THREADS + 1);
	tids[0] = getpid();
	for (n = 1; n <= NR_THREADS; n++)
		pthread_create(&threads[n - 1], NULL, thread_main, (void *)n);
	pthread_barrier_wait(&started);

	ok(vs_proc_tids_open(&it, getpid()) == 0, "list our threads");
	while ((tid = vs_proc_tids_next(&it))) {
		for (i = 0; i <= NR_THREADS && tids[i] != tid; i++)
			;
		if (i > NR_THREADS)
			strangers++;
		else
			seen[i]++;
	}
	is_u64(vs_proc_tids_next(&it), 0, "the end stays the end");
	vs_proc_tids_close(&it);
	vs_proc_tids_close(&it);
	for (i = 0; i <= NR_THREADS; i++)
		once = once && seen[i] == 1;
	ok(once, "each of the %d threads listed once", NR_THREADS + 1);
	is_u64(strangers, 0, "no other thread listed");

	pthread_barrier_wait(&done);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(threads[i], NULL);

	child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	errno = 0;
	ok(vs_proc_tids_open(&it, child) == -1 && errno == ENOENT,
	   "a reaped process: -1, ENOENT");
	is_u64(vs_proc_tids_next(&it), 0, "and nothing to list");
	vs_proc_tids_close(&it);
	return done_testing();
}
