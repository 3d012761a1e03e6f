// SPDX-License-Identifier: MIT
/*
 * task-funcs.c - the per-task function times of a trace, for the sampling
 * tests: one JSON line per task that has samples,
 *
 *   {"id":ID,"type":T,"tid":TID,"samples":N,
 *    "funcs":{"f3":{"count":NS,"span":NS,"samples":N,"file":F},...},
 *    "frames":{"main":N,...}}
 *
 * where "frames" counts, per function, the samples that have it anywhere
 * in their call chains (the sampled function or a caller),
 * from core/analysis/task-samples (the attribution and both estimators the
 * report ranks), so tests compare them with a workload's own ground truth.
 *
 * usage: task-funcs TRACE
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/analysis/task-samples.h"

/*
 * "name":N of each function in the chains of @t's samples, counted once
 * per sample (recursion counts once); @count and @last: zeroed, one per
 * symbol, left zeroed
 */
static void print_frames(const struct vs_task_samples *ts,
			 const struct vs_ts_task *t, uint32_t *count,
			 uint32_t *last)
{
	const char *sep = "";
	uint32_t k, j, sym;

	for (k = 0; k < t->nr; k++) {
		const struct vs_ts_sample *s = &ts->samples[t->first + k];

		for (j = 0; j < s->nr_frames; j++) {
			sym = ts->frames[s->chain + j];
			if (last[sym] != k + 1)
				count[sym]++;
			last[sym] = k + 1;
		}
	}
	for (k = 0; k < t->nr; k++) {
		const struct vs_ts_sample *s = &ts->samples[t->first + k];

		for (j = 0; j < s->nr_frames; j++) {
			sym = ts->frames[s->chain + j];
			if (count[sym])
				printf("%s\"%s\":%u", sep, ts->symbols[sym].name,
				       count[sym]);
			if (count[sym])
				sep = ",";
			count[sym] = last[sym] = 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct vs_task_samples *ts;
	char err[512];
	uint32_t *seen, *count, *last;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: task-funcs TRACE\n");
		return 129;
	}
	if (vs_task_samples_read(argv[1], &ts, err, sizeof(err))) {
		fprintf(stderr, "task-funcs: %s\n", err);
		return 2;
	}
	seen = calloc(ts->nr_symbols + 1, sizeof(*seen));
	count = calloc(ts->nr_symbols + 1, sizeof(*count));
	last = calloc(ts->nr_symbols + 1, sizeof(*last));
	if (!seen || !count || !last)
		return 1;
	for (i = 0; i < ts->nr_tasks; i++) {
		const struct vs_ts_task *t = &ts->tasks[i];
		const char *sep = "";
		uint32_t k;

		if (!t->nr)
			continue;
		printf("{\"id\":%llu,\"type\":%u,\"tid\":%u,\"samples\":%u,"
		       "\"funcs\":{", (unsigned long long)t->id, t->type, t->tid,
		       t->nr);
		for (k = 0; k < t->nr; k++)
			seen[ts->frames[ts->samples[t->first + k].chain]]++;
		for (k = 0; k < t->nr; k++) {
			uint32_t sym = ts->frames[ts->samples[t->first + k].chain];

			if (!seen[sym])
				continue;
			printf("%s\"%s\":{\"count\":%llu,\"span\":%llu,"
			       "\"samples\":%u,\"file\":\"%s\"}", sep,
			       ts->symbols[sym].name,
			       (unsigned long long)vs_func_time(ts, t, sym,
								VS_FUNC_COUNT),
			       (unsigned long long)vs_func_time(ts, t, sym,
								VS_FUNC_SPAN),
			       seen[sym], ts->symbols[sym].file);
			seen[sym] = 0;
			sep = ",";
		}
		printf("},\"frames\":{");
		print_frames(ts, t, count, last);
		printf("}}\n");
	}
	printf("{\"unattributed\":%llu,\"stale_frames\":%llu,\"stale\":[",
	       (unsigned long long)ts->unattributed,
	       (unsigned long long)ts->stale_frames);
	for (i = 0; i < ts->nr_stale; i++)
		printf("%s\"%s\"", i ? "," : "", ts->stale[i]);
	printf("]}\n");
	free(seen);
	free(count);
	free(last);
	vs_task_samples_free(ts);
	return 0;
}
