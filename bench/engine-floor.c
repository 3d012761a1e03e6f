// SPDX-License-Identifier: MIT
/*
 * engine-floor - what the recording engine's kernel half costs a thread
 * that is in no task: the price of a BPF program attached to a hot
 * tracepoint, paid at each hit whatever the program does.
 *
 * A pipe ping-pong of two threads on one CPU (SCHED_FIFO when allowed, so
 * that no wake-up preempts: two context switches and two wake-ups a round
 * trip) runs bursts of round trips, and between bursts the configuration
 * changes, in the same process, the order alternating from one round to
 * the next:
 *
 *   none          nothing attached (the baseline);
 *   engine        the engine's programs, loaded and attached as record
 *                 does (vs_bpf_engine_open(), every vector's), no
 *                 thread registered;
 *   perf-probes   one disabled perf event per tracepoint of record's set,
 *                 held by another, sleeping, process (those the kernel
 *                 refuses, left out as record did): what record kept
 *                 open until 70bc514 (each keeps the tracepoint's perf
 *                 probe registered and the context-switch hooks on);
 *   engine+probes both, as record ran before that.
 *
 * The figure is the process's CPU time per round trip (both threads); the
 * ratios are the medians of each round's ratio to that round's baseline,
 * with their quartiles: on a shared machine the bursts of one round see
 * the same load.  --other runs the threads under SCHED_OTHER, where the
 * wake-ups' preemption, and the load beside, vary the switches a round
 * trip.  Needs root (BPF, tracepoints); no arguments needed.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <traceevent/event-parse.h>

#include "core/parse-options.h"
#include "core/record/bpf-engine.h"
#include "core/record/tracepoints.h"

#define MAX_ROUNDS	200
#define MSG		64

enum config { NONE, ENGINE, PROBES, BOTH, NR_CONFIGS };

static const char *const config_name[NR_CONFIGS] = {
	"none", "engine", "perf-probes", "engine+probes",
};

static int req[2], resp[2];
static int cpu = -1;
static bool fifo;

static void pin_and_raise(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "engine-floor: CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
	if (fifo)
		sched_setscheduler(0, SCHED_FIFO, &sp);
}

static void *echo(void *arg)
{
	char buf[MSG];

	(void)arg;
	pin_and_raise();
	while (read(req[0], buf, MSG) == MSG && write(resp[1], buf, MSG) == MSG)
		;
	return NULL;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The tracepoints' probe events, disabled, on process @pid: @fds[] */
static int open_probes(const struct vs_tp_set *set, pid_t pid, int *fds)
{
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < set->nr; i++) {
		struct tep_event *ev = tep_find_event_by_name(set->tep,
				set->tp[i].system, set->tp[i].name);

		fds[i] = -1;
		if (!ev)
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = ev->id;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_RAW;
		attr.disabled = 1;
		fds[i] = syscall(__NR_perf_event_open, &attr, pid, -1, -1, 0);
	}
	return set->nr;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(int)(q * (n - 1) + 0.5)];
}

int main(int argc, const char **argv)
{
	static double ns[NR_CONFIGS][MAX_ROUNDS];
	int rounds = 15, burst = 20000, nfds = 0, fds[VS_TP_MAX];
	bool other = false;
	static const char *const usage[] = {
		"engine-floor [-r <rounds>] [-n <round trips>] [--cpu <n>] [--other]",
		NULL
	};
	const struct vs_option options[] = {
		OPT_INTEGER('r', "rounds", &rounds, "rounds of every configuration (default 15)"),
		OPT_INTEGER('n', "burst", &burst, "round trips a burst (default 20000)"),
		OPT_INTEGER(0, "cpu", &cpu, "the CPU of both threads (default: the last one)"),
		OPT_BOOLEAN(0, "other", &other, "SCHED_OTHER: wake-ups may preempt"),
		OPT_END()
	};
	struct vs_bpf_engine *engine = NULL;
	struct sched_param sp = { .sched_priority = 10 };
	struct vs_tp_set set;
	char err[256], buf[MSG] = { 0 };
	pthread_t server;
	pid_t holder;
	int r, k, i;

	vs_cmd_name = "engine-floor";
	if (parse_options(argc, argv, options, usage, 0))
		usage_with_options(usage, options);
	if (rounds < 1 || rounds > MAX_ROUNDS)
		option_error("rounds", "must be in 1..%d", MAX_ROUNDS);
	if (burst < 1)
		option_error("burst", "must be positive");
	if (cpu == -1)
		cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		option_error("cpu", "must be in 0..%d", CPU_SETSIZE - 1);
	if (vs_tp_set_init(&set, NULL, err, sizeof(err))) {
		fprintf(stderr, "engine-floor: %s\n", err);
		return 1;
	}
	engine = vs_bpf_engine_open(VS_BPF_ALL, err, sizeof(err));
	if (!engine) {
		fprintf(stderr, "engine-floor: %s\n", err);
		return 1;
	}
	vs_bpf_engine_close(engine);	/* it loads: the bursts may start */
	engine = NULL;
	fifo = !other && !sched_setscheduler(0, SCHED_FIFO, &sp);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	pin_and_raise();	/* the holder too, asleep for good */
	holder = fork();
	if (!holder) {
		for (;;)
			pause();
	}
	if (holder < 0 || pipe(req) || pipe(resp)) {
		perror("engine-floor");
		return 1;
	}
	pthread_create(&server, NULL, echo, NULL);
	for (r = 0; r < rounds; r++)
		for (k = 0; k < NR_CONFIGS; k++) {
			enum config c = r % 2 ? NR_CONFIGS - 1 - k : k;
			double t0;

			if (c == ENGINE || c == BOTH)
				engine = vs_bpf_engine_open(VS_BPF_ALL, err,
							    sizeof(err));
			if (c == PROBES || c == BOTH)
				nfds = open_probes(&set, holder, fds);
			usleep(1000);
			t0 = cpu_seconds();
			for (i = 0; i < burst; i++)
				if (write(req[1], buf, MSG) != MSG ||
				    read(resp[0], buf, MSG) != MSG) {
					perror("engine-floor: pipe");
					return 1;
				}
			ns[c][r] = (cpu_seconds() - t0) / burst * 1e9;
			if (engine)
				vs_bpf_engine_close(engine);
			engine = NULL;
			while (nfds)
				if (fds[--nfds] >= 0)
					close(fds[nfds]);
		}
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	printf("engine-floor: pipe ping-pong on CPU %d%s, %d rounds of %d round trips,\n"
	       "CPU ns per round trip%s, %d tracepoints\n", cpu,
	       fifo ? " (SCHED_FIFO)" : "", rounds, burst,
	       fifo ? " (2 switches, 2 wake-ups)" : "", set.nr);
	printf("  %-14s %8s %8s %8s   %s\n", "configuration", "median",
	       "min", "max", "ratio to none, per round: median (quartiles)");
	for (k = 0; k < NR_CONFIGS; k++) {
		double v[MAX_ROUNDS], ratio[MAX_ROUNDS], med, q1, q3, mid;

		for (r = 0; r < rounds; r++) {
			v[r] = ns[k][r];
			ratio[r] = ns[k][r] / ns[NONE][r];
		}
		mid = quantile(v, rounds, 0.5);	/* sorts v */
		q1 = quantile(ratio, rounds, 0.25);
		q3 = quantile(ratio, rounds, 0.75);
		med = quantile(ratio, rounds, 0.5);
		printf("  %-14s %8.0f %8.0f %8.0f   %.3f (%.3f-%.3f)\n",
		       config_name[k], mid, v[0],
		       v[rounds - 1], med, q1, q3);
	}
	vs_tp_set_exit(&set);
	return 0;
}
