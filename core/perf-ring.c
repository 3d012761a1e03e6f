// SPDX-License-Identifier: MIT
/*
 * perf-ring.c - perf_event_open(2) and the reader of mmap'd perf rings.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/perf-ring.h"

#define VS_PAGE_SIZE	4096
/* The largest record a ring may hold (a long mmap2 or raw sample). */
#define VS_MAX_RECORD	65536
/*
 * Closer than this to full (half a ring that is smaller), the kernel may
 * have dropped a record.
 */
#define VS_FULL_MARGIN	8192

uint64_t vs_perf_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int vs_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group)
{
	attr->size = sizeof(*attr);
	return syscall(SYS_perf_event_open, attr, pid, cpu, group,
		       PERF_FLAG_FD_CLOEXEC);
}

int vs_perf_ring_mmap(struct vs_perf_ring *ring, int fd, unsigned int pages)
{
	size_t len = (1 + (size_t)pages) * VS_PAGE_SIZE;

	ring->fd = fd;
	ring->data_size = (size_t)pages * VS_PAGE_SIZE;
	ring->copy = NULL;
	ring->prev_tail = ring->window_end = 0;
	ring->stuck_at = UINT64_MAX;
	ring->full = false;
	ring->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring->base == MAP_FAILED) {
		ring->base = NULL;
		return -1;
	}
	return 0;
}

void vs_perf_ring_unmap(struct vs_perf_ring *ring)
{
	if (ring->base)
		munmap(ring->base, ring->data_size + VS_PAGE_SIZE);
	free(ring->copy);
	ring->base = NULL;
	ring->copy = NULL;
}

/*
 * Whether the kernel, writing at @pos, found the ring near full (a drop
 * possible there), for a read from @tail: against the tail it saw, @tail
 * or, in the window of the read before (up to the head it found after
 * its store), that read's own tail; or @pos is where a read found the
 * ring near full and nothing was written since.
 */
static bool near_full(const struct vs_perf_ring *ring, uint64_t pos,
		      uint64_t tail)
{
	size_t margin = ring->data_size >= 2 * VS_FULL_MARGIN ?
			VS_FULL_MARGIN : ring->data_size / 2;

	return pos + margin >= tail + ring->data_size ||
	       (pos <= ring->window_end &&
		pos + margin >= ring->prev_tail + ring->data_size) ||
	       pos == ring->stuck_at;
}

size_t vs_perf_ring_read(struct vs_perf_ring *ring, vs_perf_record_fn fn,
		       void *ctx)
{
	struct perf_event_mmap_page *pc = ring->base;
	uint64_t mask = ring->data_size - 1;
	uint64_t head, tail, start;
	const char *data;

	if (!pc)		/* not mapped: its event is not recorded */
		return 0;
	data = (const char *)pc + VS_PAGE_SIZE;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	start = tail = pc->data_tail;
	while (tail < head) {
		const struct perf_event_header *h =
			(const void *)(data + (tail & mask));
		size_t off = tail & mask;
		size_t size = h->size;

		if (size < sizeof(*h) || size > head - tail)
			break;
		if (off + size > ring->data_size) {
			size_t first = ring->data_size - off;

			if (!ring->copy && !(ring->copy = malloc(VS_MAX_RECORD)))
				break;
			if (size > VS_MAX_RECORD)
				break;
			memcpy(ring->copy, data + off, first);
			memcpy(ring->copy + first, data, size - first);
			h = (const void *)ring->copy;
		}
		fn(ctx, h);
		tail += size;
	}
	if (tail > ring->stuck_at)
		ring->stuck_at = UINT64_MAX;	/* a record was written there */
	if (near_full(ring, head, start))
		ring->stuck_at = head;		/* the next one may be a LOST */
	ring->full = ring->stuck_at != UINT64_MAX;
	ring->prev_tail = start;
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	ring->window_end = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	return head - start;
}
