// SPDX-License-Identifier: MIT
/*
 * perf-ring.c - vs_perf_ring_read() against a ring written the way the
 * kernel writes one (kernel/events/ring_buffer.c): a record that does
 * not fit is dropped and counted;
 * the count goes out as a PERF_RECORD_LOST at the head, in front of the
 * next record that fits.  The reader hands every record over, the LOST
 * ones too, and says after a read whether the ring was near full: a LOST
 * may still come.
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
} w;

/* The records the reader handed over. */
static struct seen {
	unsigned int records;
	uint64_t lost;			/* the counts of the LOST records */
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

	if (head + need > tail + w.ring->data_size) {
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

static void on_record(void *ctx, const struct perf_event_header *h)
{
	const struct lost_rec *l = (const void *)h;

	(void)ctx;
	seen.records++;
	if (h->type == PERF_RECORD_LOST)
		seen.lost += l->lost;
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

	/* a reader in time: nothing dropped, the ring never near full */
	start(&ring);
	for (i = 0; i < 100; i++) {
		put(8);
		read_ring();
	}
	is_u64(seen.records, 800, "reader in time: 800 records");
	is_u64(seen.lost, 0, "reader in time: nothing lost");
	ok(!ring.full, "reader in time: the ring is not near full");
	stop(&ring);

	/*
	 * A reader late: the ring fills up and 10 records are dropped.  The
	 * read finds the ring near full; the LOST of the 10 comes at the
	 * kernel's next write.
	 */
	start(&ring);
	read_ring();
	put(10);
	fill_and_drop(10);
	read_ring();
	is_u64(seen.lost, 0, "late reader: the drops' LOST not yet written");
	ok(ring.full, "late reader: the ring was full: a LOST may come");
	put(1);
	read_ring();
	is_u64(seen.lost, 10, "late reader: then the 10");
	ok(!ring.full, "late reader: no LOST to come after it");
	stop(&ring);

	/* the ring stays full across reads that find nothing new */
	start(&ring);
	put(RING_SIZE / REC + 3);
	read_ring();
	read_ring();
	read_ring();
	ok(ring.full, "stuck: still near full, nothing written since");
	put(1);
	read_ring();
	is_u64(seen.lost, 3, "stuck: the LOST at the stuck head counts the 3");
	ok(!ring.full, "stuck: written since, no LOST to come");
	stop(&ring);

	/* near full without a drop */
	start(&ring);
	put(RING_SIZE / REC - 2);
	read_ring();
	ok(ring.full, "near full: a drop was possible");
	put(4);
	read_ring();
	ok(!ring.full, "near full: a record written where a LOST would be: "
	   "nothing dropped");
	is_u64(seen.lost, 0, "near full: nothing lost");
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
	is_u64(seen.lost, 2, "read window: then the 2");
	stop(&ring);

	/* a one-page ring: near full is its second half */
	start_pages(&ring, 1);
	put(1);
	read_ring();
	ok(!ring.full, "one page: a record in its first half: not near full");
	put(2);
	read_ring();
	ok(ring.full, "one page: two in its second half: near full");
	fill_and_drop(3);
	read_ring();
	put(1);
	read_ring();
	is_u64(seen.lost, 3, "one page: 3 dropped for want of room");
	stop(&ring);
	return done_testing();
}
