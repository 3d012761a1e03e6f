/* SPDX-License-Identifier: MIT */
/*
 * perf-ring.h - open perf events and read their mmap'd ring buffers.
 *
 * The recorder needs the raw descriptors (it redirects events into
 * rings and hands the sampling events to the engine's filter), which
 * libperf's evlist keeps to itself, so events and rings are handled here
 * on the bare ABI; the system-call tracer
 * (core/signature/syscall-trace.c) reads its rings here too.
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
	uint64_t prev_tail;		/* where the last read began, */
	uint64_t window_end;		/* ... and the head after it ended */
	uint64_t stuck_at;		/* the head of a read that found the
					 * ring near full, until a record is
					 * read there; UINT64_MAX: none */
	bool full;			/* see vs_perf_ring_read() */
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
 * The kernel counts the records it dropped for want of room in one
 * PERF_RECORD_LOST, written where the head stood at the first drop at
 * its next write that fits: a ring found full at the end of a read may
 * have dropped records whose LOST is still to come.  It was near full
 * when the head lies less than 8 KiB short of a ring's size past the
 * tail the kernel saw: the tail of this read or, for records written
 * while the read before ran (up to the head it found after storing its
 * tail), that read's tail; or when the head has not moved since a read
 * that found the ring near full.  After the read, @ring->full says
 * whether the ring was near full: a LOST may still come.
 * Returns the bytes read.
 */
size_t vs_perf_ring_read(struct vs_perf_ring *ring, vs_perf_record_fn fn,
		       void *ctx);

#endif /* VS_CORE_PERF_RING_H */
