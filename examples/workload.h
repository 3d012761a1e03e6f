/* SPDX-License-Identifier: MIT */
/*
 * workload.h - what the example workloads share: the common options, a
 * request loop that wraps each request in vs_task_begin()/vs_task_end()
 * on one or more threads, and the latency summary every example prints.
 *
 * Each example is one file, examples/NAME.c, built to build/examples/NAME
 * and linked with libvarscope.a only, so this header holds the shared code
 * as static functions instead of a library of its own.
 *
 * The request loop follows Fig. 2 of the VarMRI paper: the application
 * takes its own time stamp just before vs_task_begin() and just before
 * vs_task_end(), so the latency the example prints is the one an
 * application would log, and varscope's task latency (begin to end) is at
 * most a few hundred nanoseconds longer.
 *
 * Summary, text (default):
 *   NAME: N requests, T threads, S s, R requests/s, C us CPU per request
 *   latency (us): min A  p50 B  p90 C  p99 D  p99.9 E  max F  mean G
 * or with --json one line:
 *   {"workload":"NAME","requests":N,"threads":T,"seconds":S,
 *    "cpu_seconds":C,"requests_per_second":R,
 *    "latency_ns":{"min":..,"p50":..,"p90":..,
 *    "p99":..,"p999":..,"max":..,"mean":..}, EXTRA...}
 * where EXTRA are the workload's own counters (membench: its first-touch
 * pages and minor faults).
 */
#ifndef VS_EXAMPLES_WORKLOAD_H
#define VS_EXAMPLES_WORKLOAD_H

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <varscope.h>

/* Bound on requests so the latency arrays stay below 800 MB. */
#define WL_MAX_REQUESTS		100000000ULL
#define WL_MAX_THREADS		256
#define WL_DEFAULT_DURATION_NS	(30ULL * 1000000000ULL)

/* The defaults of a workload: one thread, the default duration bound. */
#define WL_CONFIG(workload, nr_requests) {				\
	.name = (workload),						\
	.requests = (nr_requests),					\
	.threads = 1,							\
	.duration_ns = WL_DEFAULT_DURATION_NS,				\
}

struct wl_config {
	const char *name;
	uint64_t requests;	/* total, shared out among the threads */
	unsigned int threads;
	uint64_t duration_ns;	/* stop after this even if requests remain */
	bool pin;		/* pin worker i to CPU i % online CPUs */
	bool json;
};

struct wl_thread;

/*
 * The workload: next() blocks until a request is there and returns its
 * task type, or 0 when there are no more; serve() executes it.  next() may
 * be NULL: every request is then of @type and always ready.
 */
struct wl_ops {
	uint32_t type;
	uint32_t (*next)(struct wl_thread *t);
	void (*serve)(struct wl_thread *t);
};

struct wl_thread {
	unsigned int index;
	uint64_t quota;		/* requests this thread serves */
	uint64_t done;
	uint64_t *latency_ns;	/* [quota], filled up to done */
	void *priv;		/* the workload's per-thread state */
	const struct wl_ops *ops;
	const struct wl_config *cfg;
	uint64_t deadline_ns;
	pthread_t pthread;
};

/* A workload's own number, printed after the latencies. */
struct wl_extra {
	const char *name;	/* json key; the text uses it with '_' as ' ' */
	uint64_t value;
};

static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline void __attribute__((noreturn, format(printf, 3, 4)))
wl_option_error(const struct wl_config *cfg, const char *option,
		const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: option `--%s': ", cfg->name, option);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(129);
}

/**
 * wl_parse_u64 - parse a whole number with an optional k/M/G suffix
 * @cfg: for the error message
 * @option: the option's long name, for the error message
 * @arg: the text
 * @binary: suffixes are powers of 1024 (sizes) rather than of 1000
 *
 * Exits 129 with one line naming the option when @arg is not a positive
 * number.
 */
static inline uint64_t wl_parse_u64(const struct wl_config *cfg,
				    const char *option, const char *arg,
				    bool binary)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	errno = 0;
	if (arg[0] < '0' || arg[0] > '9')
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno)
		goto bad;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		mult = binary ? 1ULL << 10 : 1000ULL;
		end++;
		break;
	case 'm': case 'M':
		mult = binary ? 1ULL << 20 : 1000000ULL;
		end++;
		break;
	case 'g': case 'G':
		mult = binary ? 1ULL << 30 : 1000000000ULL;
		end++;
		break;
	default:
		goto bad;
	}
	if (*end || v == 0 || v > UINT64_MAX / mult)
		goto bad;
	return v * mult;
bad:
	wl_option_error(cfg, option, "'%s' is not a positive number", arg);
}

/* Seconds with an optional s/ms/us suffix ("10", "2.5s", "500ms"). */
static inline uint64_t wl_parse_duration(const struct wl_config *cfg,
					 const char *option, const char *arg)
{
	double v, mult = 1e9;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (strcmp(end, "s") && *end)
		end = (char *)arg;
	if (errno || end == arg || !(v > 0) || v * mult > 1e18)
		wl_option_error(cfg, option, "'%s' is not a duration", arg);
	return (uint64_t)(v * mult);
}

enum {
	WL_OPT_PIN = 0x100,
	WL_OPT_JSON,
	WL_OPT__WORKLOAD,	/* a workload's own long-only options from here */
};

#define WL_COMMON_SHORTOPTS	"n:t:d:h"
#define WL_COMMON_LONGOPTS						\
	{ "requests", required_argument, NULL, 'n' },			\
	{ "threads", required_argument, NULL, 't' },			\
	{ "duration", required_argument, NULL, 'd' },			\
	{ "pin", no_argument, NULL, WL_OPT_PIN },			\
	{ "json", no_argument, NULL, WL_OPT_JSON },			\
	{ "help", no_argument, NULL, 'h' }

/* The --help lines of the common options. */
static inline void wl_usage_common(const struct wl_config *cfg)
{
	printf("\nCommon options:\n"
	       "    -n, --requests <n>     requests in all (default %llu; k, M, G suffixes)\n"
	       "    -t, --threads <n>      worker threads sharing the requests (default %u)\n"
	       "    -d, --duration <time>  stop after this long even if requests remain\n"
	       "                           (default %llus; 2.5, 500ms, 10s)\n"
	       "        --pin              pin worker i to CPU i modulo the online CPUs\n"
	       "        --json             print the summary as one JSON line\n"
	       "    -h, --help             this text\n",
	       (unsigned long long)cfg->requests, cfg->threads,
	       (unsigned long long)(cfg->duration_ns / 1000000000ULL));
}

/**
 * wl_common_option - handle one of the common options
 * @cfg: updated from the option
 * @c: getopt_long()'s return value
 * @arg: optarg
 *
 * Returns true if @c was a common option.  Exits 129 with one line on a
 * bad value, and on '?' (getopt_long() has printed what was wrong).
 */
static inline bool wl_common_option(struct wl_config *cfg, int c,
				    const char *arg)
{
	switch (c) {
	case 'n':
		cfg->requests = wl_parse_u64(cfg, "requests", arg, false);
		if (cfg->requests > WL_MAX_REQUESTS)
			wl_option_error(cfg, "requests", "at most %llu",
					WL_MAX_REQUESTS);
		return true;
	case 't':
		cfg->threads = (unsigned int)wl_parse_u64(cfg, "threads", arg,
							  false);
		if (cfg->threads > WL_MAX_THREADS)
			wl_option_error(cfg, "threads", "at most %d",
					WL_MAX_THREADS);
		return true;
	case 'd':
		cfg->duration_ns = wl_parse_duration(cfg, "duration", arg);
		return true;
	case WL_OPT_PIN:
		cfg->pin = true;
		return true;
	case WL_OPT_JSON:
		cfg->json = true;
		return true;
	case '?':
		fprintf(stderr, "See '%s --help'.\n", cfg->name);
		exit(129);
	}
	return false;
}

/**
 * wl_getopt - getopt_long() over a workload's options and the common ones
 * @cfg: updated by the common options
 * @argc/@argv: main()'s
 * @shortopts: the workload's, followed by WL_COMMON_SHORTOPTS
 * @longopts: the workload's, followed by WL_COMMON_LONGOPTS
 *
 * Handles the common options itself and returns the next option of the
 * workload ('h' included: each prints its own usage), or -1 at the end,
 * after rejecting operands (the examples take options only).
 */
static inline int wl_getopt(struct wl_config *cfg, int argc, char **argv,
			    const char *shortopts, const struct option *longopts)
{
	int c;

	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		if (!wl_common_option(cfg, c, optarg))
			return c;
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'. See '%s --help'.\n",
			cfg->name, argv[optind], cfg->name);
		exit(129);
	}
	return -1;
}

static inline void *wl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

/**
 * wl_prefault - write one byte in each page of @p[@len] so that the page
 * faults of the first touch happen now, not later inside a task
 */
static inline void wl_prefault(void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *c = p;
	size_t off;

	for (off = 0; off < len; off += (size_t)page)
		c[off] = 1;
}

static inline void wl_pin(unsigned int index)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(index % (ncpu > 0 ? ncpu : 1), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static inline void *wl_thread_main(void *arg)
{
	struct wl_thread *t = arg;
	const struct wl_ops *ops = t->ops;

	if (t->cfg->pin)
		wl_pin(t->index);
	while (t->done < t->quota) {
		uint32_t type = ops->next ? ops->next(t) : ops->type;
		uint64_t start, end;

		if (!type)
			break;
		start = wl_now_ns();
		vs_task_begin(type);
		ops->serve(t);
		end = wl_now_ns();
		vs_task_end(type);
		t->latency_ns[t->done++] = end - start;
		if (end >= t->deadline_ns)
			break;
	}
	return NULL;
}

/**
 * wl_threads_new - the worker threads' state, with the requests shared out
 * @cfg: the configuration
 * @ops: the workload
 *
 * A latency is stored after vs_task_end(), so the page faults of the
 * latency arrays never land inside a task.
 */
static inline struct wl_thread *wl_threads_new(const struct wl_config *cfg,
					       const struct wl_ops *ops)
{
	struct wl_thread *threads = wl_xcalloc(cfg->threads, sizeof(*threads));
	unsigned int i;

	for (i = 0; i < cfg->threads; i++) {
		struct wl_thread *t = &threads[i];

		t->index = i;
		t->quota = cfg->requests / cfg->threads +
			   (i < cfg->requests % cfg->threads);
		t->latency_ns = wl_xcalloc(t->quota + 1, sizeof(uint64_t));
		t->ops = ops;
		t->cfg = cfg;
	}
	return threads;
}

/* What a run took: wall-clock time, and CPU time of the whole process. */
struct wl_run {
	uint64_t elapsed_ns;
	uint64_t cpu_ns;	/* user + system, every thread of the process */
};

static inline uint64_t wl_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	       1000000000ULL + ((uint64_t)ru.ru_utime.tv_usec +
				(uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

/**
 * wl_threads_run - run the workers until their requests are done or the
 * duration is over
 * @cfg: the configuration
 * @threads: from wl_threads_new()
 *
 * Returns the wall-clock and CPU time of the run.  The CPU time per
 * request is what recording adds to the workload itself, and it moves
 * much less than the throughput when other programs share the CPUs.
 */
static inline struct wl_run wl_threads_run(const struct wl_config *cfg,
					   struct wl_thread *threads)
{
	uint64_t start = wl_now_ns(), cpu = wl_cpu_ns();
	struct wl_run run;
	unsigned int i;
	int err;

	for (i = 0; i < cfg->threads; i++) {
		threads[i].deadline_ns = start + cfg->duration_ns;
		err = pthread_create(&threads[i].pthread, NULL, wl_thread_main,
				     &threads[i]);
		if (err) {
			fprintf(stderr, "%s: pthread_create: %s\n", cfg->name,
				strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < cfg->threads; i++)
		pthread_join(threads[i].pthread, NULL);
	run.elapsed_ns = wl_now_ns() - start;
	run.cpu_ns = wl_cpu_ns() - cpu;
	return run;
}

static inline int wl_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted @v[n], @p in (0, 1]. */
static inline uint64_t wl_percentile(const uint64_t *v, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)(p * (double)n + 0.999999);

	if (rank < 1)
		rank = 1;
	return v[(rank > n ? n : rank) - 1];
}

/**
 * wl_report - print the summary of a run (text, or JSON with --json)
 * @cfg: the configuration
 * @threads: the workers after wl_threads_run()
 * @run: its return value
 * @extra: the workload's own numbers, @nr_extra of them (may be 0)
 */
static inline void wl_report(const struct wl_config *cfg,
			     const struct wl_thread *threads,
			     const struct wl_run *run,
			     const struct wl_extra *extra, size_t nr_extra)
{
	uint64_t n = 0, sum = 0, *all, i;
	double secs = run->elapsed_ns / 1e9;
	static const struct { const char *text, *json; double p; } pct[] = {
		{ "p50", "p50", 0.50 }, { "p90", "p90", 0.90 },
		{ "p99", "p99", 0.99 }, { "p99.9", "p999", 0.999 },
	};
	size_t k;

	for (i = 0; i < cfg->threads; i++)
		n += threads[i].done;
	all = wl_xcalloc(n + 1, sizeof(*all));
	for (n = 0, i = 0; i < cfg->threads; i++) {
		memcpy(all + n, threads[i].latency_ns,
		       threads[i].done * sizeof(*all));
		n += threads[i].done;
	}
	qsort(all, n, sizeof(*all), wl_cmp_u64);
	for (i = 0; i < n; i++)
		sum += all[i];

	if (cfg->json) {
		printf("{\"workload\":\"%s\",\"requests\":%llu,\"threads\":%u,"
		       "\"seconds\":%.6f,\"cpu_seconds\":%.6f,"
		       "\"requests_per_second\":%.1f,"
		       "\"latency_ns\":{\"min\":%llu", cfg->name,
		       (unsigned long long)n, cfg->threads, secs,
		       run->cpu_ns / 1e9, secs > 0 ? n / secs : 0.0,
		       (unsigned long long)(n ? all[0] : 0));
		for (k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
			printf(",\"%s\":%llu", pct[k].json, (unsigned long long)
			       (n ? wl_percentile(all, n, pct[k].p) : 0));
		printf(",\"max\":%llu,\"mean\":%llu}",
		       (unsigned long long)(n ? all[n - 1] : 0),
		       (unsigned long long)(n ? sum / n : 0));
		for (k = 0; k < nr_extra; k++)
			printf(",\"%s\":%llu", extra[k].name,
			       (unsigned long long)extra[k].value);
		printf("}\n");
	} else {
		printf("%s: %llu requests, %u thread%s, %.3f s, %.0f requests/s, "
		       "%.2f us CPU per request\n", cfg->name,
		       (unsigned long long)n, cfg->threads,
		       cfg->threads == 1 ? "" : "s", secs,
		       secs > 0 ? n / secs : 0.0,
		       n ? run->cpu_ns / 1e3 / n : 0.0);
		printf("latency (us): min %.2f", n ? all[0] / 1e3 : 0.0);
		for (k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
			printf("  %s %.2f", pct[k].text,
			       n ? wl_percentile(all, n, pct[k].p) / 1e3 : 0.0);
		printf("  max %.2f  mean %.2f\n", n ? all[n - 1] / 1e3 : 0.0,
		       n ? (double)sum / n / 1e3 : 0.0);
		for (k = 0; k < nr_extra; k++) {
			const char *c;

			for (c = extra[k].name; *c; c++)
				putchar(*c == '_' ? ' ' : *c);
			printf(": %llu\n", (unsigned long long)extra[k].value);
		}
	}
	fflush(stdout);
	free(all);
}

static inline void wl_threads_free(const struct wl_config *cfg,
				   struct wl_thread *threads)
{
	unsigned int i;

	for (i = 0; i < cfg->threads; i++)
		free(threads[i].latency_ns);
	free(threads);
}

#endif /* VS_EXAMPLES_WORKLOAD_H */
