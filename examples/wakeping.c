// SPDX-License-Identifier: MIT
/*
 * wakeping - a known number of wake-ups, the ground truth of varscope
 * record's wake-up edges (VS_REC_WAKEUP).
 *
 * A reader thread runs -n requests (AppTasks of type 1); in each it blocks
 * in read(2) on a pipe.  The main thread writes one byte per request, but
 * only once /proc says the reader sleeps in pipe_read: every request's
 * wait is then ended by exactly one wake-up, made by the main thread.
 * A warm-up request first (the reader registers with the recorder) is not
 * counted.  It prints "waker TID wakee TID wakeups N".
 *
 * -s splits the threads: the reader on CPU 0, the writer on the last
 * CPU, so the wake-ups and the reader's exit land on different CPUs.
 * -d US makes the writer wait a further 0 to US microseconds (a fixed
 * pseudo-random sequence) before it writes: waits that vary by design.
 * -u sends each byte as a UDP datagram on loopback instead, which the
 * kernel receives in a softirq that the writer runs itself.
 *
 * usage: wakeping [-n REQUESTS] [-s] [-d US] [-u]
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "varscope.h"

static int fds[2];
static volatile pid_t reader_tid;
static int split;
/* what the reader's wchan names while it waits for the byte */
static const char *wait_wchan = "pipe_read";	/* anon_pipe_read */

/* -s: the calling thread on CPU @cpu */
static void pin(int cpu)
{
	cpu_set_t set;

	if (!split)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *reader(void *arg)
{
	long i, n = *(long *)arg;
	char c;

	pin(0);
	vs_task_begin(1);		/* warm-up: registers the thread */
	vs_task_end(1);
	__atomic_store_n(&reader_tid, gettid(), __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		vs_task_begin(1);
		if (read(fds[0], &c, 1) != 1)
			exit(1);
		vs_task_end(1);
	}
	return NULL;
}

/* Whether thread @tid sleeps where it waits for the byte now. */
static int waits_for_byte(pid_t tid)
{
	char path[64], wchan[64] = "";
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, wchan, sizeof(wchan) - 1);
	close(fd);
	if (len > 0)
		wchan[len] = 0;
	return strstr(wchan, wait_wchan) != NULL;
}

/* -u: fds[0] a UDP socket on loopback, fds[1] one connected to it */
static int udp_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	fds[0] = socket(AF_INET, SOCK_DGRAM, 0);
	fds[1] = socket(AF_INET, SOCK_DGRAM, 0);
	if (fds[0] < 0 || fds[1] < 0 ||
	    bind(fds[0], (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fds[0], (struct sockaddr *)&a, &len) ||
	    connect(fds[1], (struct sockaddr *)&a, sizeof(a)))
		return -1;
	wait_wchan = "skb_wait_for_more_packets";
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 50000 };
	long i, n = 100, polls, delay_us = 0;
	unsigned int seed = 1;
	pthread_t th;
	pid_t tid;
	int opt, udp = 0;

	while ((opt = getopt(argc, argv, "n:sd:u")) != -1) {
		if (opt == 's') {
			split = 1;
		} else if (opt == 'u') {
			udp = 1;
		} else if (opt == 'd' && (delay_us = atol(optarg)) >= 0 &&
			   delay_us <= 1000000) {
			continue;
		} else if (opt != 'n' || (n = atol(optarg)) < 1 ||
			   n > 1000000) {
			fprintf(stderr, "usage: wakeping [-n REQUESTS] [-s] "
				"[-d US] [-u]\n");
			return 129;
		}
	}
	pin(sysconf(_SC_NPROCESSORS_ONLN) - 1);
	if ((udp ? udp_pair() : pipe(fds)) ||
	    pthread_create(&th, NULL, reader, &n))
		return 1;
	while (!(tid = __atomic_load_n(&reader_tid, __ATOMIC_ACQUIRE)))
		nanosleep(&tick, NULL);
	for (i = 0; i < n; i++) {
		/* bounded: 20 s a request */
		for (polls = 0; !waits_for_byte(tid); polls++) {
			if (polls > 400000) {
				fprintf(stderr, "wakeping: reader not blocked\n");
				return 1;
			}
			nanosleep(&tick, NULL);
		}
		if (delay_us) {
			long us = rand_r(&seed) % (delay_us + 1);
			struct timespec d = { us / 1000000, us % 1000000 * 1000 };

			nanosleep(&d, NULL);
		}
		if (write(fds[1], "x", 1) != 1)
			return 1;
	}
	pthread_join(th, NULL);
	printf("waker %d wakee %d wakeups %ld\n", gettid(), tid, n);
	return 0;
}
