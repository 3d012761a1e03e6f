/* SPDX-License-Identifier: MIT */
/*
 * perf-ring.h - open perf events and read their mmap'd ring buffers.
 *
 * The recorder needs the raw descriptors (it passes ring owners to the
 * annotated threads and pauses rings), which libperf's evlist keeps to
 * itself, so events and rings are handled here on the bare ABI; the
 * system-call tracer (core/syscall-trace.c) reads its rings here too.
 */
#ifndef VS_CORE_PERF_RING_H
#define VS_CORE_PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct vs_perf_ring {
	int fd;
	void *base;			/* the control page */
	size_t data_size;		/* power of two */
	char *copy;			/* for records that wrap around */
	bool full;			/* the ring came near full and no
					 * PERF_RECORD_LOST was read since:
					 * the next one is a real loss */
};

/**
 * vs_perf_clock_ns - now, in the clock of varscope's perf events
 * (CLOCK_MONOTONIC through attr.use_clockid): what their times compare to
 */
uint64_t vs_perf_clock_ns(void);

/**
 * vs_perf_open - perf_event_open(2) with FD_CLOEXEC; -1 with errno
 */
int vs_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group);

/**
 * vs_perf_ring_mmap - map @pages data pages (a power of two) of @fd's ring
 */
int vs_perf_ring_mmap(struct vs_perf_ring *ring, int fd, unsigned int pages);
void vs_perf_ring_unmap(struct vs_perf_ring *ring);

typedef void (*vs_perf_record_fn)(void *ctx, const struct perf_event_header *h);

/**
 * vs_perf_ring_read - hand every record in the ring to @fn, in order
 *
 * While it runs, @ring->full says whether the ring came close enough to
 * full for the kernel to have dropped records for want of space, since
 * the last PERF_RECORD_LOST read: the kernel reports such a loss at its
 * first write after the reader made room, so one or more reads later.
 * Returns the bytes read.
 */
size_t vs_perf_ring_read(struct vs_perf_ring *ring, vs_perf_record_fn fn,
		       void *ctx);

#endif /* VS_CORE_PERF_RING_H */
