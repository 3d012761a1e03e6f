/* SPDX-License-Identifier: MIT */
/*
 * perf-ring.h - open perf events and read their mmap'd ring buffers.
 *
 * The recorder needs the raw descriptors (it passes ring owners to the
 * annotated threads and pauses rings), which libperf's evlist keeps to
 * itself, so events and rings are handled here on the bare ABI.
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
};

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
 * Returns true when the ring may have been full since the last read (the
 * kernel may then have dropped records for want of space).
 */
bool vs_perf_ring_read(struct vs_perf_ring *ring, vs_perf_record_fn fn,
		       void *ctx);

#endif /* VS_CORE_PERF_RING_H */
