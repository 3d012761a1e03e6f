// SPDX-License-Identifier: MIT
/*
 * probe-cost.c - the cost of a --task-func probe pair (probe-cost.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

#include "core/arch.h"
#include "core/perf-ring.h"
#include "core/record/probe-cost.h"
#include "core/uprobe.h"

/* Data pages of the ring: two samples of 24 bytes a call fit. */
#define COST_RING_PAGES	16

/* The samples of one measurement, read from its ring. */
struct cost_samples {
	uint64_t entry_id, return_id;
	uint64_t entry_time;		/* of an entry still unpaired, 0: none */
	uint64_t span[VS_PROBE_COST_CALLS + 1];
	unsigned int nr;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A sample (PERF_SAMPLE_IDENTIFIER, then _TIME): an entry, or a return
 * that pairs with the entry before it.
 */
static void take_sample(void *ctx, const struct perf_event_header *h)
{
	struct cost_samples *s = ctx;
	const uint64_t *v = (const uint64_t *)(h + 1);

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 16)
		return;
	if (v[0] == s->entry_id) {
		s->entry_time = v[1];
	} else if (v[0] == s->return_id && s->entry_time &&
		   v[1] >= s->entry_time &&
		   s->nr < sizeof(s->span) / sizeof(*s->span)) {
		s->span[s->nr++] = v[1] - s->entry_time;
		s->entry_time = 0;
	}
}

/* A sampling perf event on uprobe trace event @id, for this process. */
static int open_sampling(int id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT, .config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME,
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};

	return vs_perf_open(&attr, 0, -1, -1);
}

/* The median ns from @fn's uprobe to its uretprobe, @symbol its name. */
static int measure(const char *system, const char *exe, const char *symbol,
		   void (*fn)(void), uint64_t *ns, char *err, size_t errlen)
{
	struct tracefs_dynevent *dyn[2] = { NULL, NULL };
	struct vs_perf_ring ring = { .base = NULL };
	struct cost_samples *s = calloc(1, sizeof(*s));
	struct vs_func_probe fp;
	char spec[PATH_MAX + 64];
	uint64_t id[2];
	int fd[2] = { -1, -1 }, i, ret = -1;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s@%s", symbol, exe);
	if (vs_uprobe_resolve(spec, NULL, &fp, err, errlen))
		goto out;
	for (i = 0; i < 2; i++) {
		int tp = vs_uprobe_create(&fp, i, system, i ? "cost_return" :
					  "cost_entry", &dyn[i], err, errlen);

		if (tp < 0)
			goto out;
		fd[i] = open_sampling(tp);
		if (fd[i] < 0 || ioctl(fd[i], PERF_EVENT_IOC_ID, &id[i]) ||
		    (i && ioctl(fd[i], PERF_EVENT_IOC_SET_OUTPUT, fd[0])) ||
		    (!i && vs_perf_ring_mmap(&ring, fd[0], COST_RING_PAGES))) {
			snprintf(err, errlen, "probe cost: perf event: %s",
				 strerror(errno));
			goto out;
		}
	}
	s->entry_id = id[0];
	s->return_id = id[1];
	for (i = 0; i <= VS_PROBE_COST_CALLS; i++)
		fn();
	vs_perf_ring_read(&ring, take_sample, s);
	if (s->nr < VS_PROBE_COST_CALLS / 2) {
		snprintf(err, errlen, "probe cost: %u of %d calls seen", s->nr,
			 VS_PROBE_COST_CALLS);
		goto out;
	}
	qsort(s->span, s->nr, sizeof(*s->span), cmp_u64);
	*ns = s->span[s->nr / 2];
	ret = 0;
out:
	vs_perf_ring_unmap(&ring);
	for (i = 0; i < 2; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		vs_uprobe_destroy(dyn[i]);
	}
	free(s);
	return ret;
}

int vs_probe_cost_measure(const char *system, struct vs_probe_cost *cost,
			  char *err, size_t errlen)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(err, errlen, "/proc/self/exe: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	if (measure(system, exe, "vs_arch_probe_target_emulated",
		    vs_arch_probe_target_emulated, &cost->emulated_ns, err,
		    errlen))
		return -1;
	return measure(system, exe, "vs_arch_probe_target_stepped",
		       vs_arch_probe_target_stepped, &cost->stepped_ns, err,
		       errlen);
}

uint64_t vs_probe_cost_of(const struct vs_probe_cost *cost,
			  const char *binary, uint64_t offset)
{
	uint8_t insn[16];
	ssize_t n = -1;
	int fd = open(binary, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = pread(fd, insn, sizeof(insn), (off_t)offset);
		close(fd);
	}
	return n > 0 && vs_arch_uprobe_emulated(insn, (size_t)n) ?
	       cost->emulated_ns : cost->stepped_ns;
}
