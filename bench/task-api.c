// SPDX-License-Identifier: MIT
/*
 * task-api - what one vs_task_begin()/vs_task_end() pair costs the
 * application, on empty tasks.
 *
 * Run alone it measures the path outside "varscope record" (a few ns, the
 * API's promise); run under "varscope record --rate R -- build/bench/
 * task-api" it measures the recorded path, where the library selects,
 * reads counters, resumes and pauses the thread's perf ring and pushes a
 * task record.  bench/record-overhead runs it both ways.
 *
 * Three numbers: the mean pair in a tight loop, then the medians of begin
 * and of end alone, each timed with clock reads; the median of two
 * back-to-back clock reads is subtracted.  Medians, because this is
 * meant to run on busy machines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/parse-options.h"
#include "varscope.h"

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

static double median(uint64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[n / 2];
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
	double pair_ns, begin_ns, end_ns, clk;

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
	clk = median(clk_ns, pairs);
	begin_ns = median(begin, pairs) - clk;
	end_ns = median(end, pairs) - clk;
	free(clk_ns);
	free(begin);
	free(end);

	if (json)
		printf("{\"pairs\":%" PRIu64 ",\"pair_ns\":%.1f,\"begin_ns\":%.1f,"
		       "\"end_ns\":%.1f,\"clock_ns\":%.1f}\n",
		       pairs, pair_ns, begin_ns, end_ns, clk);
	else
		printf("task-api: %" PRIu64 " pairs: %.1f ns per begin/end pair "
		       "(median begin %.1f ns, end %.1f ns; clock read %.1f ns "
		       "subtracted)\n", pairs, pair_ns, begin_ns, end_ns, clk);
	return 0;
}
