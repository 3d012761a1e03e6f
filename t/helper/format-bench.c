// SPDX-License-Identifier: MIT
/*
 * format-bench.c - time the trace writer and reader alone (bench/format).
 *
 *   format-bench write OUT RAW SIZE   write tasks and samples to the trace
 *                                     OUT until SIZE raw record bytes (of
 *                                     their 1.0 encoding: the writer packs
 *                                     the tasks), then those raw bytes to
 *                                     RAW (untimed), for gzip to compress
 *   format-bench read FILE            read every record of FILE
 *
 * Records are made before the clock starts (a pool reused round-robin), so
 * only the format's own work is timed: encoding, deflate, CRC, write(2)
 * (not the fsync of vs_writer_close()); and pread(2), CRC, inflate,
 * decoding.  Prints "key value" lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/trace/trace.h"
#include "core/trace/trace-codec.h"

#define POOL		65536
#define NR_VALUES	12
#define CHAIN		8

static struct vs_record pool[POOL];
static struct vs_value values[POOL][NR_VALUES];
static uint64_t chains[POOL][CHAIN];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Three samples per task, values spread like gen-trace's. */
static void make_pool(void)
{
	uint64_t s = 88172645463325252ull, t = 1000000000, i, k;

	for (i = 0; i < POOL; i++) {
		struct vs_record *r = &pool[i];

		if (i % 4 == 3) {
			for (k = 0; k < NR_VALUES; k++)
				values[i][k] = (struct vs_value){ k,
					rnd(&s) % (k ? 5000 : 200000) };
			r->kind = VS_REC_TASK;
			r->task = (struct vs_task){ .id = i, .type = i % 5,
				.pid = 4242, .tid = 4242 + i % 16,
				.cpu = i % 2, .start = t - 100000, .end = t,
				.nr_values = NR_VALUES, .values = values[i] };
		} else {
			for (k = 0; k < CHAIN; k++)
				chains[i][k] = 0x401000 + rnd(&s) % 64 * 0x40 +
					       k * 0x10000;
			r->kind = VS_REC_SAMPLE;
			r->sample = (struct vs_sample){ .time = t,
				.pid = 4242, .tid = 4242 + i % 16,
				.cpu = i % 2, .ip = chains[i][0],
				.period = 10007, .nr_callchain = CHAIN,
				.callchain = chains[i] };
		}
		t += rnd(&s) % 50000;
	}
}

static int fail(const char *what)
{
	fprintf(stderr, "format-bench: %s: %s\n", what, strerror(errno));
	return 1;
}

static int bench_write(const char *out, const char *raw_path, uint64_t size)
{
	static const struct vs_header hdr = { .tool = "format-bench" };
	struct vs_writer *w;
	uint64_t raw = 0, n = 0, i;
	uint8_t *buf = malloc(VS_CHUNK_TARGET);
	double t0, t1;
	FILE *fp;

	make_pool();
	w = vs_writer_open(out, &hdr);
	if (!w || !buf)
		return fail(out);
	t0 = now();
	while (raw < size) {
		const struct vs_record *r = &pool[n++ % POOL];

		if (vs_writer_add(w, r))
			return fail(out);
		raw += VS_REC_HDR_LEN + vs_record_encoded_size(r);
	}
	if (vs_writer_flush(w))
		return fail(out);
	t1 = now();
	if (vs_writer_close(w))		/* fsync: the disk's time, not ours */
		return fail(out);

	fp = fopen(raw_path, "w");
	if (!fp)
		return fail(raw_path);
	for (i = 0; i < n; i++) {
		const struct vs_record *r = &pool[i % POOL];
		uint64_t lo = UINT64_MAX, hi = 0;
		size_t len = vs_record_encoded_size(r);

		vs_put16(buf, r->kind);
		vs_put32(buf + 2, len);
		vs_record_encode(r, buf + VS_REC_HDR_LEN, &lo, &hi);
		fwrite(buf, 1, VS_REC_HDR_LEN + len, fp);
	}
	if (fclose(fp))
		return fail(raw_path);
	printf("records %llu\nraw_bytes %llu\nwrite_seconds %.3f\n",
	       (unsigned long long)n, (unsigned long long)raw, t1 - t0);
	free(buf);
	return 0;
}

static int bench_read(const char *path)
{
	struct vs_reader *r;
	struct vs_record rec;
	uint64_t n = 0;
	char err[512];
	double t0, t1;
	int ret;

	t0 = now();
	r = vs_reader_open(path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "format-bench: %s\n", err);
		return 1;
	}
	while ((ret = vs_reader_next(r, &rec)) > 0)
		n++;
	t1 = now();
	if (ret < 0) {
		fprintf(stderr, "format-bench: %s\n", vs_reader_error(r));
		return 1;
	}
	vs_reader_close(r);
	printf("records %llu\nread_seconds %.3f\n", (unsigned long long)n,
	       t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "write"))
		return bench_write(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "read"))
		return bench_read(argv[2]);
	fprintf(stderr, "usage: format-bench write OUT RAW SIZE | read FILE\n");
	return 129;
}
