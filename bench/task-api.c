// SPDX-License-Identifier: MIT
/*
 * task-api - what one vs_task_begin()/vs_task_end() pair costs the
 * application, on empty tasks.
 *
 * Run alone it measures the path outside "varscope record" (a few ns, the
 * API's promise); run under "varscope record --rate R -- build/bench/
 * task-api" it measures the recorded path, where the library selects,
 * stores the task into its slot of the in-kernel engine, reads the slot's
 * values at the end and pushes a task record (with hardware counters, one
 * system call more at begin and at end).  bench/record-overhead runs it
 * both ways.
 *
 * It prints the mean cost of a pair in a tight loop, then the
 * distribution of begin and of end timed one by one with clock reads (the
 * median cost of two back-to-back clock reads subtracted): the mean says
 * what the application pays, the tail where it pays it.  At a rate below
 * 1 the median is the unselected path and the tail the selected one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <varscope.h>

#include "core/parse-options.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct dist {
	double mean, p50, p99, p999, max;
};

/* Sorts @v[@n]; the clock cost @clk is taken off all but the max. */
static struct dist distribution(uint64_t *v, uint64_t n, double clk)
{
	struct dist d;
	double sum = 0;
	uint64_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)v[i];
	d.mean = sum / (double)n - clk;
	d.p50 = (double)v[n / 2] - clk;
	d.p99 = (double)v[n - 1 - n / 100] - clk;
	d.p999 = (double)v[n - 1 - n / 1000] - clk;
	d.max = (double)v[n - 1];
	return d;
}

static void print_dist(const char *name, const struct dist *d, bool json)
{
	if (json)
		printf(",\"%s\":{\"mean\":%.1f,\"p50\":%.1f,\"p99\":%.1f,"
		       "\"p999\":%.1f,\"max\":%.1f}", name, d->mean, d->p50,
		       d->p99, d->p999, d->max);
	else
		printf("  %-5s  mean %8.1f  p50 %8.1f  p99 %8.1f  p99.9 %8.1f  "
		       "max %8.0f ns\n", name, d->mean, d->p50, d->p99, d->p999,
		       d->max);
}

int main(int argc, const char **argv)
{
	static const char *const usage[] = {
		"task-api [-n <pairs>] [--json]", NULL
	};
	uint64_t pairs = 200000, i, t0, *clk_ns, *begin, *end;
	bool json = false;
	const struct vs_option options[] = {
		OPT_U64('n', "pairs", &pairs, "begin/end pairs per measurement (default 200000)"),
		OPT_BOOLEAN(0, "json", &json, "print one JSON line"),
		OPT_END()
	};
	struct dist b_dist, e_dist;
	double pair_ns, clk;

	vs_cmd_name = "task-api";
	if (parse_options(argc, argv, options, usage, 0))
		usage_with_options(usage, options);
	if (!pairs || pairs > 100000000)
		option_error("pairs", "must be in 1..100000000");
	clk_ns = calloc(pairs, sizeof(*clk_ns));
	begin = calloc(pairs, sizeof(*begin));
	end = calloc(pairs, sizeof(*end));
	if (!clk_ns || !begin || !end) {
		perror("task-api");
		return 1;
	}

	/* warm up: thread registration with the recorder happens here */
	for (i = 0; i < 1000; i++) {
		vs_task_begin(1);
		vs_task_end(1);
	}

	t0 = now_ns();
	for (i = 0; i < pairs; i++) {
		vs_task_begin(1);
		vs_task_end(1);
	}
	pair_ns = (double)(now_ns() - t0) / (double)pairs;

	for (i = 0; i < pairs; i++) {
		uint64_t a = now_ns();

		clk_ns[i] = now_ns() - a;
	}
	for (i = 0; i < pairs; i++) {
		uint64_t a = now_ns(), b, c;

		vs_task_begin(2);
		b = now_ns();
		vs_task_end(2);
		c = now_ns();
		begin[i] = b - a;
		end[i] = c - b;
	}
	qsort(clk_ns, pairs, sizeof(*clk_ns), cmp_u64);
	clk = (double)clk_ns[pairs / 2];
	b_dist = distribution(begin, pairs, clk);
	e_dist = distribution(end, pairs, clk);
	free(clk_ns);
	free(begin);
	free(end);

	if (json)
		printf("{\"pairs\":%" PRIu64 ",\"pair_ns\":%.1f,\"clock_ns\":%.1f",
		       pairs, pair_ns, clk);
	else
		printf("task-api: %" PRIu64 " pairs: %.1f ns per begin/end pair; "
		       "one by one (clock read of %.0f ns subtracted):\n",
		       pairs, pair_ns, clk);
	print_dist("begin", &b_dist, json);
	print_dist("end", &e_dist, json);
	if (json)
		printf("}\n");
	return 0;
}
