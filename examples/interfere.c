// SPDX-License-Identifier: MIT
/*
 * interfere.c - AppTasks with known, injected causes of latency, the
 * ground truth for varscope record and report.
 *
 * Task types (vs_task_begin type numbers):
 *   1 sleep    sleeps --sleep-us (blocked time)
 *   2 fault    touches --pages fresh pages (page faults)
 *   3 corun    does --work-us of computation pinned to CPU 0 while a
 *              co-runner pinned there too is busy half of the time, in
 *              2 ms bursts (run-queue time)
 *   4 compute  the same computation pinned to CPU 0, without co-runner
 *
 * With --burst-us N the co-runner is not periodic: each corun task wakes
 * it half-way through its work and it is busy N us, so every task waits
 * exactly N us in the run queue, whatever the phase of the bursts.  With
 * --burst-every K as well, only every K-th corun task of a thread wakes
 * it, the others run undisturbed (K = 0: none does, the co-runner stays
 * idle): a known share of the tasks waits, and nothing else does.  With
 * --relay-us M as well, the task wakes a relay thread instead (named
 * "if-relay", priority 3 when real-time), which is busy M us, then wakes
 * the co-runner and sleeps: the task waits M + N us, for two threads.
 *
 * When allowed (root), types 3 and 4 run SCHED_FIFO priority 1 and the
 * co-runner priority 2: the co-runner preempts corun tasks exactly, and
 * other load on the machine preempts neither type, so the ground truth
 * holds on a busy machine too.  Otherwise all run SCHED_OTHER.  Their
 * phases hold an exclusive lock on /tmp/varscope-interfere-cpu0.lock, so
 * that two interfere runs at once (tests in parallel) do not preempt each
 * other's tasks on CPU 0.
 *
 * The phases run one after the other, each -n tasks on each of --threads
 * threads, --wave of them alive at a time.
 * At the end it prints one line per type with the ground truth:
 *   interfere: type=1 name=sleep tasks=N total_ns=T pages=P
 * Options for the recorder's tests: --outside-pages N (page faults between
 * tasks, which must not reach the recorder), --fork (a child process repeats the
 * tasks), --exec (then exec itself for 3 compute tasks), --crash (die of
 * SIGSEGV at the end), --odd (an end without begin, a begin twice, a
 * thread that exits inside a task), --step (each task waits for a line
 * on stdin, and prints "interfere: step N done" after it: a test stops
 * the recorder around a task), --each (then one line per task, in the
 * order they ended: "interfere: task type=T body_ns=N").
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "varscope.h"

enum { T_SLEEP = 1, T_FAULT, T_CORUN, T_COMPUTE, T__NR };

static const char *const type_name[T__NR] = {
	[T_SLEEP] = "sleep", [T_FAULT] = "fault",
	[T_CORUN] = "corun", [T_COMPUTE] = "compute",
};

static struct {
	long tasks;
	long sleep_us;
	long pages;
	long work_us;
	long threads;
	long wave;			/* threads alive at once, 0: all */
	long outside_pages;
	long burst_us;			/* 0: periodic co-runner */
	long burst_every;		/* --burst-us: every K-th task, 0: none */
	long relay_us;			/* --burst-us: the relay's part first */
	const char *types;
	bool fork, exec, crash, odd, step, each;
	const char *argv0;
} opt = {
	.tasks = 20, .sleep_us = 2000, .pages = 256, .work_us = 2000,
	.threads = 1, .burst_every = 1, .types = "sleep,fault,corun,compute",
};

static long loops_per_us;
static volatile int corun_stop;
static sem_t burst_request;		/* --burst-us: one post per task */
static sem_t relay_request;		/* --relay-us: one post per task */
static sem_t corun_ready;		/* the co-runner is on CPU 0 */

struct truth {
	long tasks;
	long long total_ns;
	long pages;
};

static struct truth truth[T__NR];
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;

/* --each: every task's type and body, in the order they ended */
static struct body {
	int type;
	long long ns;
} *bodies;
static long nr_bodies, max_bodies;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void work(long loops)
{
	volatile unsigned long x = 1;

	while (loops--)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/*
 * The fastest of a few short runs, on the thread's CPU clock: a run that
 * other load preempts does not count the time it waited (on the wall
 * clock a loaded VM made the tasks 2-3 times too short), and one slowed
 * down otherwise only ever counts more.
 */
static void calibrate(void)
{
	long loops = 200000, i;
	long long best = 0, t;

	for (i = 0; i < 10; i++) {
		t = thread_cpu_ns();
		work(loops);
		t = thread_cpu_ns() - t;
		if (t > 0 && (!best || t < best))
			best = t;
	}
	loops_per_us = best ? loops * 1000 / best : 1000;
	if (loops_per_us < 1)
		loops_per_us = 1;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* SCHED_FIFO at @prio when allowed; false if not. */
static bool set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return !pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static void set_normal(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

static void unpin(void)
{
	cpu_set_t set;
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	for (i = 0; i < n; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static long touch_pages(long pages)
{
	long psz = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (!pages)
		return 0;
	p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	madvise(p, pages * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * psz] = 1;
	munmap(p, pages * psz);
	return pages;
}

/* One task; not inlined, so that --task-func one_task can probe it. */
__attribute__((noinline)) void one_task(int type);

void one_task(int type)
{
	static __thread long nr_corun;	/* this thread's corun tasks */
	struct timespec ts = { opt.sleep_us / 1000000,
			       (opt.sleep_us % 1000000) * 1000 };
	long long t0, t1;
	long pages = 0;

	vs_task_begin(type);
	t0 = now_ns();
	switch (type) {
	case T_SLEEP:
		nanosleep(&ts, NULL);
		break;
	case T_FAULT:
		pages = touch_pages(opt.pages);
		break;
	case T_CORUN:
		if (opt.burst_us) {
			work(opt.work_us / 2 * loops_per_us);
			if (opt.burst_every && !(++nr_corun % opt.burst_every))
				sem_post(opt.relay_us ? &relay_request :
					 &burst_request);
			work((opt.work_us - opt.work_us / 2) * loops_per_us);
			break;
		}
		/* fall through */
	default:
		work(opt.work_us * loops_per_us);
		break;
	}
	t1 = now_ns();
	vs_task_end(type);
	pthread_mutex_lock(&truth_lock);
	truth[type].tasks++;
	truth[type].total_ns += t1 - t0;
	truth[type].pages += pages;
	if (nr_bodies < max_bodies)
		bodies[nr_bodies++] = (struct body){ type, t1 - t0 };
	pthread_mutex_unlock(&truth_lock);
}

/*
 * Busy for @us of this thread's CPU time: the co-runner's bursts are the
 * run-queue waits the corun tasks get, exactly, whatever the calibration
 * of work() (the co-runner is in no task: its clock reads are no task's
 * system calls).
 */
static void spin_cpu_us(long us)
{
	long long end = thread_cpu_ns() + us * 1000ll;

	while (thread_cpu_ns() < end)
		;
}

static void *corunner(void *arg)
{
	struct timespec burst = { 0, 2000000 };

	(void)arg;
	/*
	 * Real-time before it moves: on CPU 0 as SCHED_OTHER it would never
	 * run beside a SCHED_FIFO task that does not sleep.
	 */
	set_fifo(2);
	pin(0);
	sem_post(&corun_ready);
	while (!corun_stop) {
		if (opt.burst_us) {
			sem_wait(&burst_request);
			if (!corun_stop)
				spin_cpu_us(opt.burst_us);
			continue;
		}
		spin_cpu_us(2000);
		nanosleep(&burst, NULL);
	}
	return NULL;
}

/* --relay-us: busy before the co-runner, which it wakes, then asleep. */
static void *relay(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "if-relay");
	set_fifo(3);
	pin(0);
	sem_post(&corun_ready);
	for (;;) {
		sem_wait(&relay_request);
		if (corun_stop)
			break;
		spin_cpu_us(opt.relay_us);
		sem_post(&burst_request);
	}
	return NULL;
}

/* --step: wait for a line on stdin @before a task, say so after it. */
static void step(bool before)
{
	static long done;
	char line[64];

	if (!opt.step)
		return;
	if (before) {
		if (!fgets(line, sizeof(line), stdin)) {
			fprintf(stderr, "interfere: --step: no line on stdin\n");
			exit(1);
		}
		return;
	}
	printf("interfere: step %ld done\n", ++done);
	fflush(stdout);
}

static void *worker(void *arg)
{
	int type = (int)(long)arg;
	long i;

	if (type == T_CORUN || type == T_COMPUTE) {
		pin(0);
		set_fifo(1);
	}
	for (i = 0; i < opt.tasks; i++) {
		step(true);
		one_task(type);
		step(false);
		touch_pages(opt.outside_pages);
	}
	set_normal();
	unpin();
	return NULL;
}

/* CPU 0 for this process's pinned phases only (see the top). */
static void lock_cpu0(bool take)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/tmp/varscope-interfere-cpu0.lock",
			  O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0)
		flock(fd, take ? LOCK_EX : LOCK_UN);
}

/*
 * A worker of @type; a thread id is free again only a moment after the
 * join of its thread, so with few ids (a small pid_max) creating one may
 * fail for a while: on a loaded machine, for more than 0.1 s at times.
 */
static int start_worker(pthread_t *t, int type)
{
	int tries, err = EAGAIN;

	for (tries = 0; tries < 50000 && err == EAGAIN; tries++) {
		err = pthread_create(t, NULL, worker, (void *)(long)type);
		if (err == EAGAIN)
			usleep(100);
	}
	return err;
}

/* --threads workers, --wave of them alive at a time. */
static void run_phase(int type)
{
	long wave = opt.wave ? opt.wave : opt.threads;
	pthread_t *tid = calloc(wave, sizeof(*tid));
	pthread_t co, rel;
	long done, i, started;

	if (!tid)
		exit(1);
	if (type == T_CORUN || type == T_COMPUTE)
		lock_cpu0(true);
	if (type == T_CORUN) {
		corun_stop = 0;
		sem_init(&burst_request, 0, 0);
		sem_init(&relay_request, 0, 0);
		sem_init(&corun_ready, 0, 0);
		pthread_create(&co, NULL, corunner, NULL);
		sem_wait(&corun_ready);
		if (opt.relay_us) {
			pthread_create(&rel, NULL, relay, NULL);
			sem_wait(&corun_ready);
		}
	}
	for (done = 0; done < opt.threads; done += wave) {
		for (started = 0; started < wave && done + started < opt.threads;
		     started++)
			if (start_worker(&tid[started], type))
				break;
		for (i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
	}
	if (type == T_CORUN) {
		corun_stop = 1;
		if (opt.relay_us) {
			sem_post(&relay_request);
			pthread_join(rel, NULL);
		}
		sem_post(&burst_request);
		pthread_join(co, NULL);
	}
	if (type == T_CORUN || type == T_COMPUTE)
		lock_cpu0(false);
	free(tid);
}

static void *exit_inside_task(void *arg)
{
	(void)arg;
	vs_task_begin(T_COMPUTE);
	work(100 * loops_per_us);
	pthread_exit(NULL);
}

/* The odd orders the vs_task_begin(3) page defines. */
static void odd_orders(void)
{
	pthread_t t;

	vs_task_end(T_COMPUTE);			/* end without begin */
	vs_task_begin(T_COMPUTE);
	work(100 * loops_per_us);
	vs_task_begin(T_COMPUTE);		/* begin twice */
	work(100 * loops_per_us);
	vs_task_end(T_COMPUTE);
	pthread_create(&t, NULL, exit_inside_task, NULL);
	pthread_join(t, NULL);
	printf("interfere: odd unmatched_ends=1 nested_begins=1 thread_exits=1\n");
}

static void print_truth(void)
{
	int type;
	long i;

	for (type = 1; type < T__NR; type++)
		if (truth[type].tasks)
			printf("interfere: pid=%d type=%d name=%s tasks=%ld "
			       "total_ns=%lld pages=%ld\n", getpid(), type,
			       type_name[type], truth[type].tasks,
			       truth[type].total_ns, truth[type].pages);
	for (i = 0; i < nr_bodies; i++)
		printf("interfere: task type=%d body_ns=%lld\n",
		       bodies[i].type, bodies[i].ns);
	fflush(stdout);
}

static void run_all(void)
{
	char buf[128], *tok, *save = NULL;
	int type;

	snprintf(buf, sizeof(buf), "%s", opt.types);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (type = 1; type < T__NR; type++)
			if (!strcmp(tok, type_name[type]))
				break;
		if (type == T__NR) {
			fprintf(stderr, "interfere: unknown type '%s'\n", tok);
			exit(2);
		}
		run_phase(type);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: interfere [-n TASKS] [--types sleep,fault,corun,compute]\n"
		"                 [--sleep-us N] [--pages N] [--work-us N] [--threads N]\n"
		"                 [--wave N] [--outside-pages N] [--burst-us N]\n"
		"                 [--burst-every K] [--relay-us M]\n"
		"                 [--fork] [--exec] [--crash] [--odd] [--step] [--each]\n");
	exit(2);
}

static long num_arg(int argc, char **argv, int *i)
{
	char *end;
	long v;

	if (*i + 1 >= argc)
		usage();
	v = strtol(argv[++*i], &end, 10);
	if (*end || v < 0)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	int i;

	opt.argv0 = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n"))
			opt.tasks = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--sleep-us"))
			opt.sleep_us = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--pages"))
			opt.pages = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--work-us"))
			opt.work_us = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--threads"))
			opt.threads = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--wave"))
			opt.wave = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--outside-pages"))
			opt.outside_pages = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--burst-us"))
			opt.burst_us = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--burst-every"))
			opt.burst_every = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--relay-us"))
			opt.relay_us = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--types") && i + 1 < argc)
			opt.types = argv[++i];
		else if (!strcmp(argv[i], "--fork"))
			opt.fork = true;
		else if (!strcmp(argv[i], "--exec"))
			opt.exec = true;
		else if (!strcmp(argv[i], "--crash"))
			opt.crash = true;
		else if (!strcmp(argv[i], "--odd"))
			opt.odd = true;
		else if (!strcmp(argv[i], "--step"))
			opt.step = true;
		else if (!strcmp(argv[i], "--each"))
			opt.each = true;
		else
			usage();
	}
	if (opt.threads < 1)
		usage();
	if (opt.each) {	/* each type's tasks on each thread, and --odd's */
		max_bodies = opt.tasks * opt.threads * (T__NR - 1) + 8;
		bodies = calloc(max_bodies, sizeof(*bodies));
		if (!bodies)
			max_bodies = 0;
	}
	calibrate();
	run_all();
	if (opt.odd)
		odd_orders();
	if (opt.fork) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (!pid) {	/* the child tells its own tasks only */
			memset(truth, 0, sizeof(truth));
			nr_bodies = 0;
			run_all();
			print_truth();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	print_truth();
	if (opt.crash) {
		/* a real SIGSEGV, even under a sanitizer's handler */
		signal(SIGSEGV, SIG_DFL);
		*(volatile int *)0 = 1;
	}
	if (opt.exec) {
		execl(opt.argv0, opt.argv0, "--types", "compute", "-n", "3",
		      "--work-us", "500", (char *)NULL);
		perror("interfere: exec");
		return 1;
	}
	return 0;
}
