// SPDX-License-Identifier: MIT
/*
 * overlap - 32 request handlers whose system-call patterns overlap, with
 * a retry-loop bug or a hang that can be put in any of them: the ground
 * truth of t7030 and t7040 (varscope signature).
 *
 * Two worker threads serve requests back to back; a request is a "parse"
 * of about 100 us of CPU (no system call: it separates requests in the
 * call stream) and one handler chosen by a fixed random sequence.  Each
 * handler makes two pairs of calls with one call of its own in between:
 *
 *   pairs  dc: dup + close     rw: write + read (of the thread's pipe)
 *          sk: lseek + fstat   id: getuid + getgid
 *          pp: getpid + getppid  tm: gettimeofday + clock_gettime
 *
 * h00..h29 make every ordered couple of two different pairs, h30 and h31
 * two more, so that one handler's calls repeated (dup, close, geteuid,
 * write, read, dup, close, ...) hold episodes of other handlers (write,
 * read, dup, close is h06's start and end).  A handler retries its calls
 * once in two requests (a retry loop that normally ends after one or two
 * tries).
 *
 *   overlap [--bug=HANDLER] [--hang=HANDLER] [--bug-after=SECONDS]
 *           [--duration=SECONDS] [--requests=N]
 *
 * --bug: from --bug-after seconds on (default 1), the next request for
 * HANDLER retries forever.  --hang: from then on, HANDLER reads a pipe
 * that nobody writes instead of its calls, and its thread stays in that
 * read.  The first time the bug turns a handler, it says so on the
 * standard error with the time (CLOCK_MONOTONIC ns): "overlap: h07
 * turns at 1234".  The run ends after --duration seconds (default 3) or
 * when each worker has served --requests requests.  gettimeofday and clock_gettime
 * are made as system calls (syscall(2)), not through the vDSO.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/sysinfo.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define INLINE static inline __attribute__((always_inline))
#define NR_WORKERS	2
#define NR_HANDLERS	32

static double duration = 3, bug_after = 1;
static long max_requests;
static int bug = -1, hang = -1;
static uint64_t t_start;
static volatile int stop;
static int hang_pipe[2];	/* nobody writes it */

struct worker {
	int pipe[2];		/* written and read back by rw */
	int fd;			/* /dev/null, for dc and sk */
	unsigned int seed;
	pthread_t thread;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* vDSO: no system call */
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int past_bug_time(void)
{
	return now_ns() - t_start >= bug_after * 1e9;
}

/* Say when the bug first turns handler @h, CLOCK_MONOTONIC ns. */
static void turned(int h)
{
	static int said;

	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "overlap: h%02d turns at %llu\n", h,
			(unsigned long long)now_ns());
}

INLINE void pair(struct worker *w, int p)
{
	struct timeval tv;
	struct timespec ts;
	struct stat st;
	char c = 'x';

	switch (p) {
	case 0:
		close(dup(w->fd));
		break;
	case 1:
		if (write(w->pipe[1], &c, 1) != 1 || read(w->pipe[0], &c, 1) != 1)
			exit(1);
		break;
	case 2:
		lseek(w->fd, 0, SEEK_SET);
		fstat(w->fd, &st);
		break;
	case 3:
		getuid();
		getgid();
		break;
	case 4:
		getpid();
		getppid();
		break;
	default:
		syscall(SYS_gettimeofday, &tv, NULL);
		syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
		break;
	}
}

INLINE void own_call(int u)
{
	struct rusage ru;
	struct tms tms;
	struct utsname un;
	struct sysinfo si;
	struct rlimit rl;
	struct timespec ts;
	char cwd[256];

	switch (u) {
	case 0: geteuid(); break;
	case 1: getegid(); break;
	case 2: getpgrp(); break;
	case 3: getsid(0); break;
	case 4: syscall(SYS_gettid); break;
	case 5: sched_yield(); break;
	case 6: umask(022); break;
	case 7: getpriority(PRIO_PROCESS, 0); break;
	case 8: getrusage(RUSAGE_SELF, &ru); break;
	case 9: times(&tms); break;
	case 10: uname(&un); break;
	case 11: sysinfo(&si); break;
	case 12: getrlimit(RLIMIT_NOFILE, &rl); break;
	case 13: sched_getscheduler(0); break;
	case 14: syscall(SYS_clock_getres, CLOCK_MONOTONIC, &ts); break;
	default: if (!getcwd(cwd, sizeof(cwd))) exit(1); break;
	}
}

/*
 * The calls of handler @h, retried once in two requests (@retry), and
 * for ever when its bug is on; or, with the hang, a read nobody answers.
 */
INLINE void handle(struct worker *w, int h, int retry)
{
	int a = h % 6, b = (a + 1 + (h / 6) % 5) % 6, tries = 0;
	char c;

	if (h == hang && past_bug_time()) {
		turned(h);
		if (read(hang_pipe[0], &c, 1) < 0)
			exit(1);
		return;
	}
	do {
		if (tries == 1 + retry)		/* the bug turns it */
			turned(h);
		pair(w, a);
		own_call(h % 16);
		pair(w, b);
	} while ((++tries < 1 + retry || (h == bug && past_bug_time())) &&
		 !stop);
}

#define HANDLER(n) \
	NOINLINE static void h##n(struct worker *w, int retry) \
	{ handle(w, 1##n - 100, retry); }

HANDLER(00) HANDLER(01) HANDLER(02) HANDLER(03) HANDLER(04) HANDLER(05)
HANDLER(06) HANDLER(07) HANDLER(08) HANDLER(09) HANDLER(10) HANDLER(11)
HANDLER(12) HANDLER(13) HANDLER(14) HANDLER(15) HANDLER(16) HANDLER(17)
HANDLER(18) HANDLER(19) HANDLER(20) HANDLER(21) HANDLER(22) HANDLER(23)
HANDLER(24) HANDLER(25) HANDLER(26) HANDLER(27) HANDLER(28) HANDLER(29)
HANDLER(30) HANDLER(31)

static void (*const handlers[NR_HANDLERS])(struct worker *, int) = {
	h00, h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13,
	h14, h15, h16, h17, h18, h19, h20, h21, h22, h23, h24, h25, h26, h27,
	h28, h29, h30, h31,
};

NOINLINE static unsigned int parse_request(struct worker *w)
{
	unsigned int x = w->seed;
	int i;

	/*
	 * a chain of dependent multiplications: ~100 us of CPU, whatever
	 * the compiler (the barrier in the loop keeps clang from folding
	 * eight steps into one, which made the requests of the SANITIZE=1
	 * build's overlap six times as fast as the plain build's)
	 */
	for (i = 0; i < 100000; i++) {
		x = x * 1103515245u + 12345u;
		__asm__ volatile("" : "+r"(x));
	}
	return rand_r(&w->seed);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	long n;

	for (n = 0; !stop && (!max_requests || n < max_requests); n++) {
		unsigned int r = parse_request(w);

		handlers[r % NR_HANDLERS](w, (r >> 8) & 1);
	}
	return NULL;
}

static int handler_number(const char *name)
{
	int n;

	if (name[0] != 'h' || strlen(name) != 3 ||
	    sscanf(name + 1, "%d", &n) != 1 || n < 0 || n >= NR_HANDLERS) {
		fprintf(stderr, "overlap: no handler %s (h00..h31)\n", name);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct worker w[NR_WORKERS];
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--bug=", 6))
			bug = handler_number(argv[i] + 6);
		else if (!strncmp(argv[i], "--hang=", 7))
			hang = handler_number(argv[i] + 7);
		else if (!strncmp(argv[i], "--bug-after=", 12))
			bug_after = atof(argv[i] + 12);
		else if (!strncmp(argv[i], "--duration=", 11))
			duration = atof(argv[i] + 11);
		else if (!strncmp(argv[i], "--requests=", 11))
			max_requests = atol(argv[i] + 11);
		else {
			fprintf(stderr, "usage: overlap [--bug=hNN] [--hang=hNN] "
				"[--bug-after=S] [--duration=S] [--requests=N]\n");
			return 2;
		}
	}
	if (pipe(hang_pipe) < 0)
		return 1;
	t_start = now_ns();
	for (i = 0; i < NR_WORKERS; i++) {
		w[i].seed = 1000 + i;
		w[i].fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (w[i].fd < 0 || pipe(w[i].pipe) < 0 ||
		    pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			perror("overlap");
			return 1;
		}
	}
	if (max_requests) {
		for (i = 0; i < NR_WORKERS; i++)
			pthread_join(w[i].thread, NULL);
		return 0;
	}
	while (now_ns() - t_start < duration * 1e9)
		usleep(10000);
	stop = 1;
	/* a hung thread never returns: exit takes it */
	exit(0);
}
