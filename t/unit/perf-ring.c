// SPDX-License-Identifier: MIT
/*
 * perf-ring.c - vs_perf_ring_read() against a ring written the way the
 * kernel writes one (kernel/events/ring_buffer.c): a record that does
 * not fit, or comes while the ring is paused, is dropped and counted;
 * the count goes out as a PERF_RECORD_LOST at the head, in front of the
 * next record that fits.  The reader must tell the LOST records that
 * count drops for want of room from those that count pause drops alone.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/perf-ring.h"
#include "t/unit/tap.h"

#define PAGES		16		/* 64 KiB */
#define RING_SIZE	(PAGES * 4096)
#define REC		1024		/* the records written */
#define LOST_SIZE	56		/* header, id, lost, sample_id */

struct lost_rec {
	struct perf_event_header header;
	uint64_t id, lost;
	uint64_t sample_id[4];
};

/* The kernel's side. */
static struct writer {
	struct vs_perf_ring *ring;
	uint64_t lost;			/* dropped, not reported yet */
	bool paused;
} w;

/* The records the reader handed over. */
static struct seen {
	unsigned int records;
	uint64_t lost_full;		/* counts of LOSTs judged for want of room */
	uint64_t lost_paused;		/* ... judged pause drops */
} seen;

static struct perf_event_mmap_page *pc(void)
{
	return w.ring->base;
}

static void put_bytes(uint64_t at, const void *src, size_t len)
{
	char *data = (char *)w.ring->base + 4096;
	size_t i;

	for (i = 0; i < len; i++)
		data[(at + i) & (w.ring->data_size - 1)] = ((const char *)src)[i];
}

/* Write one record of @size bytes as the kernel would, seeing @tail. */
static void put_seeing(uint64_t tail, uint16_t size)
{
	uint64_t head = pc()->data_head;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, size };
	size_t need = size + (w.lost ? LOST_SIZE : 0);
	char zero[REC] = { 0 };

	if (w.paused || head + need > tail + w.ring->data_size) {
		w.lost++;
		return;
	}
	if (w.lost) {
		struct lost_rec l = { { PERF_RECORD_LOST, 0, LOST_SIZE }, 1,
				      w.lost, { 0 } };

		put_bytes(head, &l, LOST_SIZE);
		head += LOST_SIZE;
		w.lost = 0;
	}
	put_bytes(head, &h, sizeof(h));
	put_bytes(head + sizeof(h), zero, size - sizeof(h));
	pc()->data_head = head + size;
}

static void put(unsigned int n)
{
	while (n--)
		put_seeing(pc()->data_tail, REC);
}

/* Write until @n records are dropped for want of room. */
static void fill_and_drop(uint64_t n)
{
	while (w.lost < n)
		put(1);
}

/* A pause drop: one record while paused, then one that is written. */
static void pause_drop(void)
{
	w.paused = true;
	put(1);
	w.paused = false;
	put(1);
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	const struct lost_rec *l = (const void *)h;

	(void)ctx;
	seen.records++;
	if (h->type != PERF_RECORD_LOST)
		return;
	if (w.ring->full)
		seen.lost_full += l->lost;
	else
		seen.lost_paused += l->lost;
}

static void read_ring(void)
{
	vs_perf_ring_read(w.ring, on_record, NULL);
}

/* A fresh ring of @pages in a memfd, mapped as a perf ring is. */
static void start_pages(struct vs_perf_ring *ring, unsigned int pages)
{
	int fd = memfd_create("perf-ring-test", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (pages + 1) * 4096) ||
	    vs_perf_ring_mmap(ring, fd, pages)) {
		perror("perf-ring test ring");
		_exit(1);
	}
	memset(&w, 0, sizeof(w));
	memset(&seen, 0, sizeof(seen));
	w.ring = ring;
}

static void start(struct vs_perf_ring *ring)
{
	start_pages(ring, PAGES);
}

static void stop(struct vs_perf_ring *ring)
{
	int fd = ring->fd;

	vs_perf_ring_unmap(ring);
	close(fd);
}

int main(void)
{
	struct vs_perf_ring ring;
	int i;

	/* a reader in time: every LOST counts pause drops */
	start(&ring);
	for (i = 0; i < 100; i++) {
		put(8);
		pause_drop();
		read_ring();
	}
	is_u64(seen.lost_paused, 100, "reader in time: 100 pause drops");
	is_u64(seen.lost_full, 0, "reader in time: no drop for want of room");
	ok(!ring.full, "reader in time: the ring is not near full");
	stop(&ring);

	/*
	 * A reader late: pause drops early in the ring, then it fills up
	 * and 10 records are dropped.  The read finds the early LOSTs
	 * (pause drops, even in a read that finds the ring full) and the
	 * ring near full; the LOST of the 10 comes at its next write.
	 */
	start(&ring);
	read_ring();
	for (i = 0; i < 5; i++) {
		put(2);
		pause_drop();
	}
	fill_and_drop(10);
	read_ring();
	is_u64(seen.lost_paused, 5, "late reader: 5 early pause drops");
	is_u64(seen.lost_full, 0, "late reader: the drops' LOST not yet written");
	ok(ring.full, "late reader: the ring was full: a LOST may come");
	put(1);
	read_ring();
	is_u64(seen.lost_full, 10, "late reader: then the 10, for want of room");
	ok(!ring.full, "late reader: no LOST to come after it");
	pause_drop();
	read_ring();
	is_u64(seen.lost_paused, 6, "late reader: a pause drop after it is one");
	stop(&ring);

	/* the ring stays full across reads that find nothing new */
	start(&ring);
	put(RING_SIZE / REC + 3);
	read_ring();
	read_ring();
	read_ring();
	ok(ring.full, "stuck: still near full, nothing written since");
	w.paused = true;		/* the task ends: pause drops add up */
	put(4);
	w.paused = false;
	put(1);
	read_ring();
	is_u64(seen.lost_full, 7, "stuck: the LOST at the stuck head counts "
	       "the 3 (and the 4 pause drops it merges)");
	is_u64(seen.lost_paused, 0, "stuck: none judged a pause drop");
	stop(&ring);

	/* near full without a drop: later pause drops are pause drops */
	start(&ring);
	put(RING_SIZE / REC - 2);
	read_ring();
	ok(ring.full, "near full: a drop was possible");
	put(4);
	read_ring();
	ok(!ring.full, "near full: a record written where a LOST would be: "
	   "nothing dropped");
	pause_drop();
	read_ring();
	is_u64(seen.lost_paused, 1, "near full: the later pause drop is one");
	is_u64(seen.lost_full, 0, "near full: no drop for want of room");
	stop(&ring);

	/*
	 * A drop while the reader reads: the kernel writes against the
	 * tail of the read before until this read stores its own.
	 */
	start(&ring);
	put(RING_SIZE / REC / 2);
	read_ring();
	{
		uint64_t tail = pc()->data_tail;

		pc()->data_tail = ring.prev_tail;	/* not stored yet */
		fill_and_drop(2);
		pc()->data_tail = tail;
		/* ... before the reader found the head after its store */
		ring.window_end = pc()->data_head;
	}
	read_ring();
	ok(ring.full, "read window: the drop's LOST is still to come");
	put(1);
	read_ring();
	is_u64(seen.lost_full, 2, "read window: it counts for want of room");
	stop(&ring);

	/* a one-page ring: near full is its second half */
	start_pages(&ring, 1);
	pause_drop();
	read_ring();
	is_u64(seen.lost_paused, 1, "one page: a pause drop");
	fill_and_drop(3);
	read_ring();
	put(1);
	read_ring();
	is_u64(seen.lost_full, 3, "one page: 3 dropped for want of room");
	stop(&ring);
	return done_testing();
}
