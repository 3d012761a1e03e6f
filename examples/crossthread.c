// SPDX-License-Identifier: MIT
/*
 * crossthread - requests that cross threads: the front thread begins each
 * request (an AppTask of type 1), hands it to a worker thread and waits;
 * the worker attaches to the request (vs_task_attach(), VProfiler's third
 * annotation), runs handle() for about --work-us of CPU, detaches and
 * wakes the front thread, which ends the request.
 *
 * Delays of the worker, which the front thread only sees as a blocked
 * wait whose waker is the worker:
 *   --lock       every third request, a holder thread takes the worker's
 *                lock before the request is handed over and keeps it
 *                --hold-us after handle() is seen asleep on it, so that
 *                handle() blocks on it for --hold-us at least, however
 *                loaded the machine
 *   --corunner   a busy thread shares the worker's CPU (both pinned to
 *                CPU 0), so the worker waits in the run queue
 *
 * --print-times prints, for every call of handle(), the worker's clock
 * reads around it: "handle TID NS", the ground truth of record --probe.
 *
 * --odd first makes the odd calls a program may make: a detach without
 * attach, an attach to an id no task has (then its detach), and a thread
 * that exits while attached to a request.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"

enum { TYPE_REQUEST = 1 };

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static uint64_t pending_id;		/* task id handed to the worker */
static bool have_request, have_reply, stopping;

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile bool corunner_stop;

/* --lock: the front thread asks the holder to take big_lock */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static enum { HOLD_IDLE, HOLD_ASKED, HOLD_TAKEN } hold_state;
static pid_t worker_tid;
static bool worker_locking;	/* in handle()'s pthread_mutex_lock() */

static long nr_requests = 100;
static long work_us = 200;
static long hold_us = 2000;
static bool use_lock, use_corunner, print_times, odd;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/*
 * Busy for @ns of the thread's CPU time, read off the vDSO's clock: a gap
 * of more than 20 us between two reads is time off the CPU, not counted.
 * (CLOCK_THREAD_CPUTIME_ID is a system call a read: the samples would
 * fall in the kernel.)
 */
static void spin_cpu_ns(uint64_t ns)
{
	uint64_t done = 0, last = now_ns(), t;

	while (done < ns) {
		t = now_ns();
		if (t - last < 20000)
			done += t - last;
		last = t;
	}
}

static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The worker's part of a request: --work-us of its CPU time, however
 * long a loaded machine makes it wait for a CPU; under the lock with
 * --lock.
 */
__attribute__((noinline)) void handle(void)
{
	if (use_lock) {
		__atomic_store_n(&worker_locking, true, __ATOMIC_RELEASE);
		pthread_mutex_lock(&big_lock);
		__atomic_store_n(&worker_locking, false, __ATOMIC_RELEASE);
	}
	spin_cpu_ns(work_us * 1000);
	if (use_lock)
		pthread_mutex_unlock(&big_lock);
}

static void *worker(void *arg)
{
	uint64_t id, t0;

	(void)arg;
	__atomic_store_n(&worker_tid, gettid(), __ATOMIC_RELEASE);
	if (use_corunner)
		pin_to_cpu0();
	pthread_mutex_lock(&queue_lock);
	for (;;) {
		while (!have_request && !stopping)
			pthread_cond_wait(&queue_cond, &queue_lock);
		if (stopping)
			break;
		id = pending_id;
		have_request = false;
		pthread_mutex_unlock(&queue_lock);

		vs_task_attach(id);
		t0 = now_ns();
		handle();
		if (print_times)
			printf("handle %d %llu\n", gettid(),
			       (unsigned long long)(now_ns() - t0));
		vs_task_detach();

		pthread_mutex_lock(&queue_lock);
		have_reply = true;
		pthread_cond_broadcast(&queue_cond);
	}
	pthread_mutex_unlock(&queue_lock);
	return NULL;
}

/* Is thread @tid asleep (state S in /proc)? */
static bool asleep(pid_t tid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'S';
}

/*
 * --lock: when the front thread asks, take the worker's lock, and keep it
 * for --hold-us of work once the worker sleeps on it.
 */
static void *holder(void *arg)
{
	const struct timespec poll = { 0, 20000 };

	(void)arg;
	pthread_mutex_lock(&hold_lock);
	for (;;) {
		while (hold_state != HOLD_ASKED && !corunner_stop)
			pthread_cond_wait(&hold_cond, &hold_lock);
		if (corunner_stop)
			break;
		pthread_mutex_lock(&big_lock);
		hold_state = HOLD_TAKEN;
		pthread_cond_broadcast(&hold_cond);
		pthread_mutex_unlock(&hold_lock);
		while (!__atomic_load_n(&worker_locking, __ATOMIC_ACQUIRE) ||
		       !asleep(__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE)))
			nanosleep(&poll, NULL);
		spin_ns(hold_us * 1000);
		pthread_mutex_unlock(&big_lock);
		pthread_mutex_lock(&hold_lock);
	}
	pthread_mutex_unlock(&hold_lock);
	return NULL;
}

/* --lock: have the holder take the worker's lock, before a request */
static void take_lock_first(void)
{
	pthread_mutex_lock(&hold_lock);
	hold_state = HOLD_ASKED;
	pthread_cond_broadcast(&hold_cond);
	while (hold_state != HOLD_TAKEN)
		pthread_cond_wait(&hold_cond, &hold_lock);
	hold_state = HOLD_IDLE;
	pthread_mutex_unlock(&hold_lock);
}

/* --corunner: burn CPU 0, where the worker runs too. */
static void *corunner(void *arg)
{
	(void)arg;
	pin_to_cpu0();
	while (!corunner_stop)
		spin_ns(100000);
	return NULL;
}

static void *exit_attached(void *arg)
{
	vs_task_attach(*(uint64_t *)arg);
	spin_ns(100000);
	return NULL;		/* no detach */
}

static void odd_calls(void)
{
	pthread_t th;
	uint64_t id;

	vs_task_detach();
	vs_task_attach(12345);
	spin_ns(100000);
	vs_task_detach();
	vs_task_begin(TYPE_REQUEST);
	id = vs_task_id();
	if (!pthread_create(&th, NULL, exit_attached, &id))
		pthread_join(th, NULL);
	vs_task_end(TYPE_REQUEST);
	printf("odd: exited attached to %llu\n", (unsigned long long)id);
}

static void request(void)
{
	vs_task_begin(TYPE_REQUEST);
	pthread_mutex_lock(&queue_lock);
	pending_id = vs_task_id();
	have_request = true;
	have_reply = false;
	pthread_cond_broadcast(&queue_cond);
	while (!have_reply)
		pthread_cond_wait(&queue_cond, &queue_lock);
	pthread_mutex_unlock(&queue_lock);
	vs_task_end(TYPE_REQUEST);
}

static void usage(void)
{
	fprintf(stderr, "usage: crossthread [-n N] [--work-us U] [--lock "
		"[--hold-us H]] [--corunner] [--print-times] [--odd]\n");
	exit(129);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "requests", required_argument, NULL, 'n' },
		{ "work-us", required_argument, NULL, 'w' },
		{ "hold-us", required_argument, NULL, 'H' },
		{ "lock", no_argument, NULL, 'l' },
		{ "corunner", no_argument, NULL, 'c' },
		{ "print-times", no_argument, NULL, 'p' },
		{ "odd", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	pthread_t work, other;
	long i;
	int c;

	while ((c = getopt_long(argc, argv, "n:", opts, NULL)) != -1) {
		switch (c) {
		case 'n': nr_requests = atol(optarg); break;
		case 'w': work_us = atol(optarg); break;
		case 'H': hold_us = atol(optarg); break;
		case 'l': use_lock = true; break;
		case 'c': use_corunner = true; break;
		case 'p': print_times = true; break;
		case 'o': odd = true; break;
		default: usage();
		}
	}
	if (optind != argc || nr_requests < 1 || work_us < 0 || hold_us < 1)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (odd)
		odd_calls();
	if (pthread_create(&work, NULL, worker, NULL) ||
	    ((use_lock || use_corunner) &&
	     pthread_create(&other, NULL, use_lock ? holder : corunner, NULL))) {
		perror("crossthread: pthread_create");
		return 1;
	}
	for (i = 0; i < nr_requests; i++) {
		if (use_lock && i % 3 == 0)
			take_lock_first();
		request();
	}
	pthread_mutex_lock(&queue_lock);
	stopping = true;
	pthread_cond_broadcast(&queue_cond);
	pthread_mutex_unlock(&queue_lock);
	pthread_join(work, NULL);
	pthread_mutex_lock(&hold_lock);
	corunner_stop = true;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
	if (use_lock || use_corunner)
		pthread_join(other, NULL);
	printf("crossthread: %ld requests\n", nr_requests);
	return 0;
}
