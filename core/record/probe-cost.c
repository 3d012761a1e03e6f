// SPDX-License-Identifier: MIT
/*
 * probe-cost.c - the cost of a --task-func probe pair (probe-cost.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "core/perf-ring.h"
#include "core/record/probe-cost.h"
#include "core/uprobe.h"

__attribute__((noinline)) void vs_probe_cost_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median time of a call, each timed alone after one that warms up:
 * a preemption or an interrupt lengthens a few calls, not the median.
 */
static uint64_t time_calls(void)
{
	uint64_t t[VS_PROBE_COST_CALLS], start;
	int i;

	vs_probe_cost_target();
	for (i = 0; i < VS_PROBE_COST_CALLS; i++) {
		start = now_ns();
		vs_probe_cost_target();
		t[i] = now_ns() - start;
	}
	qsort(t, VS_PROBE_COST_CALLS, sizeof(*t), cmp_u64);
	return t[VS_PROBE_COST_CALLS / 2];
}

/* A counting perf event on tracepoint @id for this process, or -1. */
static int open_tp(int id)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT,
		.config = id, .exclude_kernel = 0,
	};

	return vs_perf_open(&attr, 0, -1, -1);
}

int vs_probe_cost_measure(const char *system, uint64_t *cost_ns, char *err,
			  size_t errlen)
{
	struct tracefs_dynevent *dyn[2] = { NULL, NULL };
	struct vs_func_probe fp;
	char exe[PATH_MAX], spec[PATH_MAX + 64];
	uint64_t bare, probed;
	int id, fd[2] = { -1, -1 }, i, ret = -1;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(err, errlen, "/proc/self/exe: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	snprintf(spec, sizeof(spec), "vs_probe_cost_target@%s", exe);
	if (vs_uprobe_resolve(spec, NULL, &fp, err, errlen))
		return -1;
	bare = time_calls();
	for (i = 0; i < 2; i++) {
		id = vs_uprobe_create(&fp, i, system, i ? "cost_return" :
				      "cost_entry", &dyn[i], err, errlen);
		if (id < 0)
			goto out;
		fd[i] = open_tp(id);
		if (fd[i] < 0) {
			snprintf(err, errlen, "probe cost: perf_event_open: %s",
				 strerror(errno));
			goto out;
		}
	}
	probed = time_calls();
	*cost_ns = probed > bare ? probed - bare : 0;
	ret = 0;
out:
	for (i = 0; i < 2; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		vs_uprobe_destroy(dyn[i]);
	}
	return ret;
}
