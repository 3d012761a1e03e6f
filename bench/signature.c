// SPDX-License-Identifier: MIT
/*
 * bench/signature - time `varscope signature infer` on 1.5 million system
 * calls (target: under 30 s on the 2-core reference machine), and the
 * cost of `varscope signature watch` to a program's throughput.
 *
 * It writes, in a temporary folder, a signature file of 40 synthetic
 * request handlers (mined with the same core code as `signature build`)
 * and a recording of 16 threads serving requests with those handlers,
 * 1.5 million system calls with enter and exit and switch records, where
 * one thread falls into an endless gettimeofday + read retry loop for its
 * last third.  Then it runs $VARSCOPE signature infer on them and prints
 * the wall and CPU time, the ratio of the wall time to the target and the
 * rank of the looping handler.
 *
 * Watch: examples/buggyserver serves WATCH_REQUESTS requests per client,
 * alone and then under `signature watch` (1 s windows, signatures of a
 * normal run of as many requests built first), in the same run; it prints both
 * throughputs, their ratio, and what watch said it traced and cost.
 * Then watch's peak resident memory over a shell loop that runs
 * WATCH_FORKS / 10 processes and over one that runs WATCH_FORKS, and
 * their ratio: about 1 when what watch keeps per process goes with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/signature/signature.h"
#include "core/trace/trace.h"

#define NR_CALLS	1500000
#define NR_THREADS	16
#define NR_HANDLERS	40
#define TARGET_S	30.0
#define GTOD		96
#define READ		0
#define WATCH_REQUESTS	3000
#define WATCH_FORKS	20000

static uint16_t handler[NR_HANDLERS][12];
static int handler_len[NR_HANDLERS];
static unsigned int seed = 42;

static unsigned int rnd(unsigned int n)
{
	return rand_r(&seed) % n;
}

/* Handler 0 is the retry loop's: gettimeofday, read, twice, then a write. */
static void make_handlers(void)
{
	static const uint16_t pool[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 16,
		17, 18, 20, 21, 23, 32, 33, 39, 41, 42, 44, 45, 72, 74, 78, 82,
		83, 84, 87, 89, 96, 97, 102, 202, 217, 228, 230, 257, 262, 270,
		271, 281, 290, 293 };
	int h, k;

	for (h = 0; h < NR_HANDLERS; h++) {
		handler_len[h] = 4 + rnd(8);
		for (k = 0; k < handler_len[h]; k++)
			handler[h][k] = pool[rnd(sizeof(pool) / sizeof(pool[0]))];
	}
	memcpy(handler[0], (uint16_t[]){ GTOD, READ, GTOD, READ, 1, GTOD,
					 READ }, 7 * sizeof(uint16_t));
	handler_len[0] = 7;
}

static int write_signatures(const char *path)
{
	struct vs_header hdr = { .tool = "bench/signature" };
	struct vs_profile *p = vs_profile_new();
	struct vs_signatures *sig;
	struct vs_writer *w;
	char name[32];
	static const uint32_t gaps[12];
	int h, e, ret;

	for (h = 0; h < NR_HANDLERS; h++) {
		snprintf(name, sizeof(name), "handler_%02d", h);
		for (e = 0; e < 300; e++)
			vs_profile_add_execution(p, name, handler[h], gaps,
						 handler_len[h], e, e + 1);
	}
	sig = vs_profile_mine(p, 0.01, UINT64_MAX);
	w = vs_writer_open(path, &hdr);
	ret = sig && w && !vs_signatures_write(sig, w) ? 0 : -1;
	if (w && vs_writer_close(w) < 0)
		ret = -1;
	vs_signatures_free(sig);
	vs_profile_free(p);
	return ret;
}

static int add_call(struct vs_writer *w, uint32_t tid, uint32_t cpu,
		    uint16_t nr, uint64_t *now)
{
	struct vs_record rec = { .kind = VS_REC_SYSCALL };

	rec.syscall = (struct vs_syscall){ .time = *now, .tid = tid,
		.cpu = cpu, .nr = nr, .dir = VS_SYSCALL_ENTER };
	*now += 300 + rnd(3000);
	if (vs_writer_add(w, &rec) < 0)
		return -1;
	rec.syscall.time = *now;
	rec.syscall.dir = VS_SYSCALL_EXIT;
	*now += 500 + rnd(2000);
	return vs_writer_add(w, &rec);
}

/* Threads take turns by request; thread 0 loops from 2/3 of the calls. */
static int write_recording(const char *path)
{
	struct vs_header hdr = { .tool = "bench/signature" };
	struct vs_writer *w = vs_writer_open(path, &hdr);
	uint64_t now[NR_THREADS];
	struct vs_record sw = { .kind = VS_REC_SWITCH };
	long calls = 0;
	int t, k, h;

	if (!w)
		return -1;
	for (t = 0; t < NR_THREADS; t++)
		now[t] = 1000000000ull + t * 1000;
	while (calls < NR_CALLS) {
		t = rnd(NR_THREADS);
		if (t == 0 && calls > NR_CALLS * 2 / 3) {
			for (k = 0; k < 64 && calls < NR_CALLS; k++, calls++)
				if (add_call(w, 1000, 0, k % 2 ? READ : GTOD,
					     &now[0]) < 0)
					return -1;
			continue;
		}
		h = rnd(NR_HANDLERS);
		now[t] += 100000 + rnd(200000);	/* parse the next request */
		if (!rnd(4)) {			/* preempted inside it */
			sw.switch_ = (struct vs_switch){ now[t] - 50000,
				1000 + t, t % 2, 1, 1 };
			if (vs_writer_add(w, &sw) < 0)
				return -1;
			sw.switch_.time = now[t] - 10000;
			sw.switch_.out = sw.switch_.preempt = 0;
			if (vs_writer_add(w, &sw) < 0)
				return -1;
		}
		for (k = 0; k < handler_len[h] && calls < NR_CALLS;
		     k++, calls++)
			if (add_call(w, 1000 + t, t % 2, handler[h][k],
				     &now[t]) < 0)
				return -1;
	}
	return vs_writer_close(w);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run @cmd; its wall time in seconds, or -1 when it failed. */
static double timed(const char *cmd)
{
	double t0 = seconds();
	int status = system(cmd);

	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return seconds() - t0;
}

/* buggyserver's throughput alone and under signature watch. */
static int bench_watch(const char *varscope, const char *build,
		       const char *dir)
{
	char server[512], cmd[2048], line[sizeof(cmd)] = "";
	double alone, watched;
	FILE *fp;

	snprintf(server, sizeof(server), "%s/examples/buggyserver "
		 "--duration=600 --dir=%s", build, dir);
	/* the same work as the watched run: its windows are normal ones */
	snprintf(cmd, sizeof(cmd), "%s signature build -o %s/bs.sig -- %s "
		 "--requests=%d 2>/dev/null", varscope, dir, server,
		 WATCH_REQUESTS);
	if (timed(cmd) < 0) {
		fprintf(stderr, "bench/signature: signature build failed\n");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "%s --requests=%d", server,
		 WATCH_REQUESTS);
	alone = timed(cmd);
	snprintf(cmd, sizeof(cmd), "%s signature watch -s %s/bs.sig "
		 "--window 1s -- %s --requests=%d >/dev/null 2>%s/watch.err",
		 varscope, dir, server, WATCH_REQUESTS, dir);
	watched = timed(cmd);
	snprintf(cmd, sizeof(cmd), "%s/watch.err", dir);
	fp = fopen(cmd, "r");
	while (fp && fgets(cmd, sizeof(cmd), fp))
		if (!strncmp(cmd, "varscope signature: watched", 27))
			snprintf(line, sizeof(line), "%s", cmd);
	if (fp)
		fclose(fp);
	if (alone <= 0 || watched <= 0) {
		fprintf(stderr, "bench/signature: buggyserver failed\n");
		return -1;
	}
	printf("signature watch: buggyserver served %.0f requests/s alone, "
	       "%.0f under watch (ratio %.3f)\n%s",
	       2 * WATCH_REQUESTS / alone, 2 * WATCH_REQUESTS / watched,
	       alone / watched, line);
	return 0;
}

/*
 * The peak resident memory (KB) of signature watch over a shell that runs
 * @n processes one after the other; -1 when it failed.
 */
static long watch_forks_rss(const char *varscope, const char *dir, int n)
{
	char sig[512], loop[256];
	struct rusage ru;
	int status;
	pid_t pid;

	snprintf(sig, sizeof(sig), "%s/bs.sig", dir);
	snprintf(loop, sizeof(loop), "i=0; while [ $i -lt %d ]; do "
		 "/bin/true; i=$((i + 1)); done", n);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execl(varscope, varscope, "signature", "watch", "-s", sig,
		      "--window", "1s", "--", "sh", "-c", loop, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return ru.ru_maxrss;
}

/*
 * Watch's memory over a program that makes processes: what it keeps of
 * each (its mappings, its libdw session) goes when it is reaped, so
 * ten times the processes leave the peak where it was.
 */
static int bench_watch_forks(const char *varscope, const char *dir)
{
	long few = watch_forks_rss(varscope, dir, WATCH_FORKS / 10);
	long many = few > 0 ? watch_forks_rss(varscope, dir, WATCH_FORKS) : -1;

	if (many <= 0) {
		fprintf(stderr, "bench/signature: watch of a forking loop "
			"failed\n");
		return -1;
	}
	printf("signature watch: peak RSS %.1f MB over %d processes, %.1f MB "
	       "over %d (ratio %.2f)\n", few / 1024.0, WATCH_FORKS / 10,
	       many / 1024.0, WATCH_FORKS, (double)many / few);
	return 0;
}

int main(void)
{
	const char *varscope = getenv("VARSCOPE") ? getenv("VARSCOPE") :
			       "./varscope";
	const char *build = getenv("VS_BUILD") ? getenv("VS_BUILD") : "build";
	char dir[] = "/tmp/vs-bench-signature.XXXXXX", sig[64], data[64];
	char out[64], cmd[512], line[256];
	double t0, t, cpu0, cpu;
	int status, rank = 0, failed;
	double load;
	FILE *fp;

	if (!mkdtemp(dir)) {
		perror("bench/signature: mkdtemp");
		return 1;
	}
	snprintf(sig, sizeof(sig), "%s/app.sig", dir);
	snprintf(data, sizeof(data), "%s/varscope.data", dir);
	snprintf(out, sizeof(out), "%s/infer.json", dir);
	make_handlers();
	t0 = seconds();
	if (write_signatures(sig) < 0 || write_recording(data) < 0) {
		fprintf(stderr, "bench/signature: cannot write %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	printf("generated %d system calls of %d threads in %.1f s\n", NR_CALLS,
	       NR_THREADS, seconds() - t0);
	snprintf(cmd, sizeof(cmd), "%s signature infer -s %s -i %s "
		 "--format json > %s", varscope, sig, data, out);
	t0 = seconds();
	cpu0 = cpu_seconds();
	status = system(cmd);
	t = seconds() - t0;
	cpu = cpu_seconds() - cpu0;
	fp = fopen(out, "r");
	if (fp && fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, "\"handler_00\"");

		/* the rank is the number just before the function's name */
		while (p && p > line && !(p[-1] >= '0' && p[-1] <= '9'))
			p--;
		while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		rank = p ? atoi(p) : 0;
	}
	if (fp)
		fclose(fp);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench/signature: signature infer failed\n");
		return 1;
	}
	printf("signature infer: %d system calls in %.2f s (%.2f s of CPU; "
	       "target %.0f s, ratio %.3f); looping handler ranked %d\n",
	       NR_CALLS, t, cpu, TARGET_S, t / TARGET_S, rank);
	fflush(stdout);
	failed = bench_watch(varscope, build, dir) < 0 ||
		 bench_watch_forks(varscope, dir) < 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench/signature: could not remove %s\n", dir);
	if (getloadavg(&load, 1) == 1 && load > 2)
		printf("note: load average %.1f on this machine: the wall time"
		       " includes waiting for a CPU\n", load);
	return failed;
}
