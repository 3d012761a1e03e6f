// SPDX-License-Identifier: MIT
/*
 * cachequery.c - the sample application of Akiyama et al. ("Diagnosing
 * Performance Fluctuations of High-throughput Software for Multi-core
 * CPUs", section IV-B, Fig. 7): queries of a size n, answered with an
 * in-memory cache, so that the same query is slow when the cache is cold
 * and fast when it is warm.
 *
 * Thread 0 makes the queries and passes them one by one to thread 1
 * through a queue.  A query is an id and a size n; thread 1 answers it
 * with three functions, the task of the query being all three:
 *
 *   f1  reads the query: work proportional to n
 *   f2  prepares the n x 1000 points {x_i, y_i}: work proportional to n
 *   f3  applies the linear transformation to each point, or takes its
 *       result from the cache; the points it computes go to the cache
 *
 * Before a query the cache is dropped with probability --cold (the
 * non-functional state of the paper, whose first query of each n found
 * the cache cold), so a cold query's f3 computes all its points and takes
 * much longer than a warm query of the same n, whose f3 only reads the
 * cache.
 * A query of size 5 after a query of size 3 finds 3000 of its points
 * cached, as in the paper's Fig. 8.  The task type is n.
 *
 * --truth prints, per recorded query, the ground truth of f3 taken with
 * clock reads around it: its elapsed time (CLOCK_MONOTONIC, what the
 * paper's first-to-last estimate approaches) and the CPU time its thread
 * spent in it (CLOCK_THREAD_CPUTIME_ID, what samples of CPU time count):
 *   cachequery: task=ID type=N cold_points=P f3_ns=T f3_cpu_ns=C
 * (ID is vs_task_id(): only queries selected by varscope record have
 * one.)  At the end one summary line:
 *   cachequery: queries=Q evictions=E seconds=S
 * The functions are noinline and the examples are built with frame
 * pointers, so samples name them and their callers.
 *
 * When allowed (root), thread 1 runs SCHED_FIFO priority 1, as the
 * paper's pinned threads had their core to themselves: other load on the
 * machine does not preempt it, so the cache is the one cause of slow
 * queries (--no-fifo leaves it SCHED_OTHER).
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

#include <varscope.h>

#define POINTS_PER_N	1000
#define MAX_N		16
#define QUEUE_LEN	64

struct query {
	uint64_t id;
	uint32_t n;
	bool drop_cache;	/* the state before it: a cold cache */
};

struct point {
	double x, y;
};

static struct {
	uint64_t queries;
	double cold;
	uint32_t sizes[MAX_N];
	unsigned int nr_sizes;
	unsigned int iterations;	/* of the transformation per point */
	unsigned int prep_us;		/* of f1 + f2 per unit of n */
	uint64_t seed;
	bool truth;
	bool fifo;
} opt = {
	.queries = 2400, .cold = 0.03, .sizes = { 3, 5 }, .nr_sizes = 2,
	.iterations = 400, .prep_us = 60, .seed = 1, .fifo = true,
};

/* The cache: a point's result is valid when its flag is set. */
static struct point cache[MAX_N * POINTS_PER_N];
static uint8_t cached[MAX_N * POINTS_PER_N];
static struct point points[MAX_N * POINTS_PER_N];
static volatile double sink;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct query q[QUEUE_LEN];
	uint64_t head, tail;
	bool done;
} queue = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.more = PTHREAD_COND_INITIALIZER,
	.room = PTHREAD_COND_INITIALIZER,
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Busy arithmetic for about @us microseconds, in its caller's frame. */
static inline __attribute__((always_inline)) double spin(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;
	double a = 1.0;

	while (now_ns() < end) {
		int i;

		for (i = 0; i < 200; i++)
			a = a * 1.0000001 + 0.0000001;
	}
	return a;
}

__attribute__((noinline)) void f1(const struct query *q)
{
	sink = spin((uint64_t)opt.prep_us * q->n / 2);
}

__attribute__((noinline)) void f2(const struct query *q)
{
	uint32_t i, n = q->n * POINTS_PER_N;

	for (i = 0; i < n; i++)
		points[i] = (struct point){ (double)i, (double)(n - i) };
	sink = spin((uint64_t)opt.prep_us * q->n / 2);
}

/* The linear transformation, iterated: the expensive part of a miss. */
static inline struct point transform(struct point p, unsigned int iterations)
{
	unsigned int k;

	for (k = 0; k < iterations; k++)
		p = (struct point){ 0.8 * p.x - 0.6 * p.y + 1.0,
				    0.6 * p.x + 0.8 * p.y - 1.0 };
	return p;
}

/* Returns the points it had to compute (not in the cache). */
__attribute__((noinline)) uint32_t f3(const struct query *q)
{
	uint32_t i, n = q->n * POINTS_PER_N, computed = 0;
	double sum = 0;

	for (i = 0; i < n; i++) {
		if (!cached[i]) {
			cache[i] = transform(points[i], opt.iterations);
			cached[i] = 1;
			computed++;
		}
		sum += cache[i].x + cache[i].y;
	}
	sink = sum;
	return computed;
}

static void answer(const struct query *q)
{
	uint64_t t0, t1, c0, c1;
	uint32_t cold_points;

	if (q->drop_cache)
		memset(cached, 0, sizeof(cached));
	vs_task_begin(q->n);
	f1(q);
	f2(q);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = now_ns();
	cold_points = f3(q);
	t1 = now_ns();
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (opt.truth && vs_task_id())
		printf("cachequery: task=%llu type=%u cold_points=%u f3_ns=%llu "
		       "f3_cpu_ns=%llu\n", (unsigned long long)vs_task_id(),
		       q->n, cold_points, (unsigned long long)(t1 - t0),
		       (unsigned long long)(c1 - c0));
	vs_task_end(q->n);
}

/* Thread 1: answers the queries one by one. */
static void *worker(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct query q;

	(void)arg;
	if (opt.fifo)
		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	for (;;) {
		pthread_mutex_lock(&queue.lock);
		while (queue.head == queue.tail && !queue.done)
			pthread_cond_wait(&queue.more, &queue.lock);
		if (queue.head == queue.tail) {
			pthread_mutex_unlock(&queue.lock);
			return NULL;
		}
		q = queue.q[queue.tail++ % QUEUE_LEN];
		pthread_cond_signal(&queue.room);
		pthread_mutex_unlock(&queue.lock);
		answer(&q);
	}
}

static void push(const struct query *q)
{
	pthread_mutex_lock(&queue.lock);
	while (queue.head - queue.tail == QUEUE_LEN)
		pthread_cond_wait(&queue.room, &queue.lock);
	queue.q[queue.head++ % QUEUE_LEN] = *q;
	pthread_cond_signal(&queue.more);
	pthread_mutex_unlock(&queue.lock);
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cachequery [-n QUERIES] [--sizes N,N...] [--cold P]\n"
		"                  [--iterations K] [--prep-us U] [--seed S] "
		"[--truth] [--no-fifo]\n");
	exit(status);
}

static void parse_sizes(const char *s)
{
	char *end;

	opt.nr_sizes = 0;
	while (*s && opt.nr_sizes < MAX_N) {
		unsigned long n = strtoul(s, &end, 10);

		if (end == s || !n || n > MAX_N)
			usage(129);
		opt.sizes[opt.nr_sizes++] = n;
		s = *end == ',' ? end + 1 : end;
	}
	if (!opt.nr_sizes)
		usage(129);
}

static void parse(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "sizes", required_argument, NULL, 's' },
		{ "cold", required_argument, NULL, 'c' },
		{ "iterations", required_argument, NULL, 'k' },
		{ "prep-us", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'S' },
		{ "truth", no_argument, NULL, 't' },
		{ "no-fifo", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:h", longs, NULL)) != -1) {
		switch (c) {
		case 'n': opt.queries = strtoull(optarg, NULL, 10); break;
		case 's': parse_sizes(optarg); break;
		case 'c': opt.cold = atof(optarg); break;
		case 'k': opt.iterations = strtoul(optarg, NULL, 10); break;
		case 'p': opt.prep_us = strtoul(optarg, NULL, 10); break;
		case 'S': opt.seed = strtoull(optarg, NULL, 10) | 1; break;
		case 't': opt.truth = true; break;
		case 'F': opt.fifo = false; break;
		case 'h': usage(0); break;
		default: usage(129);
		}
	}
	if (optind < argc || !opt.queries || opt.queries > 10000000 ||
	    opt.cold < 0 || opt.cold > 1)
		usage(129);
}

int main(int argc, char **argv)
{
	uint64_t i, cold = 0, s, start;
	struct query q;
	pthread_t t;

	parse(argc, argv);
	s = opt.seed;
	/* touch the memory now: no page fault inside a query */
	memset(cache, 0, sizeof(cache));
	memset(cached, 0, sizeof(cached));
	memset(points, 0, sizeof(points));
	start = now_ns();
	if (pthread_create(&t, NULL, worker, NULL)) {
		perror("cachequery: pthread_create");
		return 1;
	}
	for (i = 0; i < opt.queries; i++) {
		q.id = i + 1;
		q.n = opt.sizes[rnd(&s) % opt.nr_sizes];
		q.drop_cache = (double)(rnd(&s) % 1000000) < opt.cold * 1e6;
		cold += q.drop_cache;
		push(&q);
	}
	pthread_mutex_lock(&queue.lock);
	queue.done = true;
	pthread_cond_signal(&queue.more);
	pthread_mutex_unlock(&queue.lock);
	pthread_join(t, NULL);
	printf("cachequery: queries=%llu evictions=%llu seconds=%.3f\n",
	       (unsigned long long)opt.queries, (unsigned long long)cold,
	       (now_ns() - start) / 1e9);
	return 0;
}
