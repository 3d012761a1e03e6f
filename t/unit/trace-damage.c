// SPDX-License-Identifier: MIT
/*
 * trace-damage.c - damaged traces: truncation at every chunk boundary and
 * at many points inside chunks, and bit flips all over a file.
 *
 * A truncated file must read exactly the records of its whole chunks, end
 * with the warning and no error.  Every single bit flip must be reported
 * as an error naming a byte offset (every byte of the format is under a
 * CRC or checked before that), never crash or hang; run it under
 * `make SANITIZE=1` for the memory side.  A chunk header whose times
 * leave out its records (its CRC made good) is an error too: the time
 * index must not lie.
 */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "core/trace/trace.h"
#include "core/trace/trace-codec.h"
#include "t/unit/tap.h"

#define NR_TASKS	3000
#define CHUNK_TASKS	100

static uint8_t *file;
static size_t file_len;
static uint64_t boundary[NR_TASKS / CHUNK_TASKS + 2];	/* chunk ends */
static unsigned int nr_boundaries;

/* Write the test trace to a memfd and keep a copy of its bytes. */
static void make_trace(void)
{
	static const struct vs_header hdr = { .host = "h", .kernel = "k",
		.cpu_model = "c", .tool = "trace-damage", .start_time = 1 };
	struct vs_record rec = { .kind = VS_REC_EVENT_DEF };
	struct vs_value v[3];
	struct vs_writer *w;
	int fd = memfd_create("trace", 0), err = 0;
	unsigned int i;

	w = vs_writer_fdopen(fd, &hdr);
	err |= !w;
	boundary[nr_boundaries++] = vs_writer_bytes(w);
	rec.event_def = (struct vs_event_def){ 0, VS_EVENT_NO_PARENT, 0,
					       "run.time", "ns" };
	err |= vs_writer_add(w, &rec);
	for (i = 0; i < NR_TASKS && !err; i++) {
		v[0] = (struct vs_value){ 0, i * 7 };
		v[1] = (struct vs_value){ 1, i * 13 };
		v[2] = (struct vs_value){ 2, i };
		rec.kind = VS_REC_TASK;
		rec.task = (struct vs_task){ .id = i, .tid = i % 17,
			.start = i * 1000ull, .end = i * 1000ull + i,
			.nr_values = 3, .values = v };
		err |= vs_writer_add(w, &rec);
		if (i % CHUNK_TASKS == CHUNK_TASKS - 1) {
			err |= vs_writer_flush(w);
			boundary[nr_boundaries++] = vs_writer_bytes(w);
		}
	}
	err |= vs_writer_close(w);
	file_len = lseek(fd, 0, SEEK_END);
	file = malloc(file_len);
	err |= !file || pread(fd, file, file_len, 0) != (ssize_t)file_len;
	close(fd);
	if (err) {
		printf("# cannot write the test trace: %s\n", strerror(errno));
		exit(1);
	}
}

struct outcome {
	int ret;		/* of the last vs_reader_next(), or -1 at open */
	uint64_t tasks;
	char error[512];
	char warning[512];
};

/* Read @len bytes of @buf as a trace, every record. */
static void read_trace(const uint8_t *buf, size_t len, struct outcome *o)
{
	int fd = memfd_create("damaged", 0);
	struct vs_reader *r;
	struct vs_record rec;

	memset(o, 0, sizeof(*o));
	if (write(fd, buf, len) != (ssize_t)len) {
		printf("# memfd write failed\n");
		exit(1);
	}
	r = vs_reader_fdopen(fd, "t.data", o->error, sizeof(o->error));
	if (!r) {
		o->ret = -1;
		return;
	}
	while ((o->ret = vs_reader_next(r, &rec)) > 0)
		o->tasks += rec.kind == VS_REC_TASK;
	if (vs_reader_error(r))
		snprintf(o->error, sizeof(o->error), "%s", vs_reader_error(r));
	if (vs_reader_warning(r))
		snprintf(o->warning, sizeof(o->warning), "%s",
			 vs_reader_warning(r));
	vs_reader_close(r);
}

/* Tasks in the whole chunks of the first @len bytes. */
static uint64_t tasks_before(size_t len)
{
	unsigned int i;
	uint64_t n = 0;

	for (i = 1; i < nr_boundaries && boundary[i] <= len; i++)
		n += CHUNK_TASKS;
	return n;
}

static uint64_t last_boundary(size_t len)
{
	unsigned int i;
	uint64_t b = boundary[0];

	for (i = 1; i < nr_boundaries && boundary[i] <= len; i++)
		b = boundary[i];
	return b;
}

static int check_truncated(size_t len)
{
	struct outcome o;
	char want[256];

	read_trace(file, len, &o);
	if (last_boundary(len) == len)
		snprintf(want, sizeof(want), "t.data: truncated at byte %zu, "
			 "after a whole chunk: the end mark is missing", len);
	else
		snprintf(want, sizeof(want), "t.data: truncated at byte %zu, "
			 "inside a chunk: read up to the last whole chunk at "
			 "byte %llu", len, (unsigned long long)last_boundary(len));
	if (o.ret == 0 && !o.error[0] && !strcmp(o.warning, want) &&
	    o.tasks == tasks_before(len))
		return 1;
	printf("# cut at %zu: ret %d, %llu tasks (want %llu), error '%s', warning '%s'\n",
	       len, o.ret, (unsigned long long)o.tasks,
	       (unsigned long long)tasks_before(len), o.error, o.warning);
	return 0;
}

static void test_whole(void)
{
	struct outcome o;

	read_trace(file, file_len, &o);
	ok(o.ret == 0 && o.tasks == NR_TASKS && !o.error[0] && !o.warning[0],
	   "the whole file reads every task, no warning");
	is_u64(nr_boundaries, NR_TASKS / CHUNK_TASKS + 1,
	       "one chunk per hundred tasks");
}

static void test_truncation(void)
{
	unsigned int i, bad = 0, points = 0;
	struct outcome o;
	size_t len, step;

	for (i = 0; i < nr_boundaries; i++)
		bad += !check_truncated(boundary[i]);
	ok(!bad, "truncated at each of the %u chunk boundaries: whole chunks, warning",
	   nr_boundaries);
	/* The end chunk alone missing, and cut in the middle of it. */
	ok(check_truncated(file_len - VS_CHUNK_HDR_LEN) &&
	   check_truncated(file_len - 1), "end chunk missing or cut");

	bad = 0;
	for (i = 0; i + 1 < nr_boundaries; i++) {
		size_t start = boundary[i], end = boundary[i + 1];

		/* every byte of the chunk header, then points in the data */
		for (len = start + 1; len < start + VS_CHUNK_HDR_LEN + 2; len++, points++)
			bad += !check_truncated(len);
		step = (end - start) / 23 + 1;
		for (len = start + VS_CHUNK_HDR_LEN + 2; len < end; len += step, points++)
			bad += !check_truncated(len);
		bad += !check_truncated(end - 1);
		points++;
	}
	ok(!bad, "truncated at %u points inside chunks: the chunks before, warning",
	   points);

	bad = 0;
	for (len = 0; len < boundary[0]; len++) {
		read_trace(file, len, &o);
		bad += o.ret != -1 || !strstr(o.error, " at byte ");
	}
	ok(!bad, "a file cut inside its header is an error naming a byte");
}

static void test_bit_flips(void)
{
	uint8_t *copy = malloc(file_len);
	unsigned int n, undetected = 0, flips = 0, no_offset = 0;
	uint64_t seed = 12345;
	struct outcome o;
	size_t off;
	int bit;

	if (!copy)
		exit(1);
	for (n = 0; n < 4000; n++) {
		/* every bit of the header and the first chunk header, then
		 * random bits over the whole file */
		if (n < (boundary[0] + VS_CHUNK_HDR_LEN) * 8 && n < 2000) {
			off = n / 8;
			bit = n % 8;
		} else {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			off = (seed >> 20) % file_len;
			bit = (seed >> 8) % 8;
		}
		memcpy(copy, file, file_len);
		copy[off] ^= 1 << bit;
		read_trace(copy, file_len, &o);
		flips++;
		if (o.ret != -1) {
			if (undetected++ < 5)
				printf("# flip of bit %d at byte %zu not detected (%llu tasks, warning '%s')\n",
				       bit, off, (unsigned long long)o.tasks,
				       o.warning);
		} else if (!strstr(o.error, " at byte ")) {
			no_offset++;
		}
	}
	ok(!undetected, "every one of %u bit flips is detected", flips);
	ok(!no_offset, "every error names a byte offset");
	free(copy);
}

/*
 * The third chunk's header says its records are later (or earlier) than
 * they are, its CRC made good: reading it, and seeking to it, is an error
 * naming the byte where the chunk starts.
 */
static void test_lying_index(void)
{
	uint8_t *copy = malloc(file_len);
	size_t at = boundary[2];
	struct outcome o;
	char want[64];
	int i;

	if (!copy)
		exit(1);
	snprintf(want, sizeof(want), "time outside its chunk's at byte %zu", at);
	for (i = 0; i < 2; i++) {
		memcpy(copy, file, file_len);
		if (i == 0)	/* t_min past every record of the chunk */
			vs_put64(copy + at + 24, vs_get64(copy + at + 32) + 1);
		else		/* t_max before them */
			vs_put64(copy + at + 32, vs_get64(copy + at + 24) - 1);
		vs_put32(copy + at + 44, crc32(0, copy + at, 44));
		read_trace(copy, file_len, &o);
		ok(o.ret == -1 && strstr(o.error, want),
		   "a chunk header whose %s leaves out its records: '%s'",
		   i ? "end time" : "start time", o.error);
	}
	free(copy);
}

int main(void)
{
	make_trace();
	test_whole();
	test_truncation();
	test_bit_flips();
	test_lying_index();
	free(file);
	return done_testing();
}
