// SPDX-License-Identifier: MIT
/*
 * trace-writer.c - append records to a varscope trace.
 *
 * Records are encoded into a raw buffer; at about VS_CHUNK_TARGET bytes (or
 * on vs_writer_flush()) the buffer is deflated and written as one chunk,
 * header and data in one writev().  A chunk that could not be written
 * whole is cut off again, so the file always ends at a whole chunk (or,
 * when even that fails, in a piece the reader reports as truncation).
 * Tasks are packed (core/trace/trace-pack.c) against the task before them in
 * the chunk, in files of major version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "core/array.h"
#include "core/output-file.h"
#include "core/trace/trace-codec.h"
#include "core/trace/trace-pack.h"

#ifndef VARSCOPE_VERSION
#define VARSCOPE_VERSION "0.0"
#endif

struct vs_writer {
	int fd;
	bool own_fd;
	int error;		/* sticky errno after a failed write */
	int level;
	z_stream zs;
	uint64_t bytes;		/* written: header and whole chunks */
	uint64_t written[VS_WRITER_KINDS];	/* records per kind in the
						 * chunks written */
	uint64_t base;		/* file offset where the header starts */
	uint64_t t_first, t_last;	/* over the whole file */
	/* the chunk being filled */
	uint8_t *raw;
	size_t raw_len, raw_cap;
	uint32_t nr;
	uint32_t nr_kind[VS_WRITER_KINDS];	/* of the @nr, per kind */
	uint32_t flags;
	uint64_t t_min, t_max;
	uint8_t *comp;
	size_t comp_cap;
	/* packed tasks (major 2): coded against the chunk's task before */
	bool pack_tasks;
	struct vs_task_pack pack;
	uint8_t *packed;
	size_t packed_cap;
};

static void read_cpu_model(char *buf, size_t len)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(fp);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t done = writev(fd, iov, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (done == 0) {
			errno = ENOSPC;
			return -1;
		}
		while (n > 0 && (size_t)done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

/* Write @iov as one piece; on failure cut the file back to a whole chunk. */
static int commit(struct vs_writer *w, struct iovec *iov, int n, size_t len)
{
	struct stat st;
	int err;

	if (write_all(w->fd, iov, n) == 0) {
		w->bytes += len;
		return 0;
	}
	err = errno;
	if (!fstat(w->fd, &st) && S_ISREG(st.st_mode) &&
	    !ftruncate(w->fd, w->base + w->bytes))
		lseek(w->fd, w->base + w->bytes, SEEK_SET);
	w->error = err;
	errno = err;
	return -1;
}

struct vs_writer *vs_writer_fdopen(int fd, const struct vs_header *hdr)
{
	struct vs_header h = *hdr;
	struct vs_writer *w;
	struct utsname uts;
	char cpu[256], tool[64];
	uint8_t *buf;
	struct iovec iov;
	size_t len;
	off_t pos;

	w = calloc(1, sizeof(*w));
	buf = malloc(VS_FILE_HDR_MAX);
	if (!w || !buf)
		goto fail;
	if (deflateInit2(&w->zs, 1, Z_DEFLATED, -15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		goto fail;
	}
	w->fd = fd;
	w->level = 1;
	w->t_first = w->t_min = UINT64_MAX;
	pos = lseek(fd, 0, SEEK_CUR);
	w->base = pos < 0 ? 0 : pos;

	if (!h.major) {
		h.major = VS_FORMAT_MAJOR;
		h.minor = VS_FORMAT_MINOR;
	}
	w->pack_tasks = h.major >= 2;
	if ((!h.host || !h.kernel) && uname(&uts))
		memset(&uts, 0, sizeof(uts));
	if (!h.host)
		h.host = uts.nodename;
	if (!h.kernel)
		h.kernel = uts.release;
	if (!h.cpu_model) {
		read_cpu_model(cpu, sizeof(cpu));
		h.cpu_model = cpu;
	}
	if (!h.tool) {
		snprintf(tool, sizeof(tool), "varscope %s", VARSCOPE_VERSION);
		h.tool = tool;
	}
	if (!h.start_time && !h.start_realtime) {
		h.clockid = CLOCK_MONOTONIC;
		h.start_time = clock_ns(CLOCK_MONOTONIC);
		h.start_realtime = clock_ns(CLOCK_REALTIME);
	}
	len = vs_file_hdr_encode(&h, buf);
	iov.iov_base = buf;
	iov.iov_len = len;
	if (commit(w, &iov, 1, len))
		goto fail_z;
	free(buf);
	return w;

fail_z:
	deflateEnd(&w->zs);
fail:
	len = errno;
	free(buf);
	free(w);
	errno = len;
	return NULL;
}

struct vs_writer *vs_writer_open(const char *path, const struct vs_header *hdr)
{
	struct vs_writer *w;
	int fd, err;

	fd = vs_output_create(path);
	if (fd < 0)
		return NULL;
	w = vs_writer_fdopen(fd, hdr);
	if (!w) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	w->own_fd = true;
	return w;
}

void vs_writer_set_level(struct vs_writer *w, int level)
{
	if (level < 0)
		level = 0;
	if (level > 9)
		level = 9;
	w->level = level;
}

uint64_t vs_writer_bytes(const struct vs_writer *w)
{
	return w->bytes;
}

uint64_t vs_writer_nr_written(const struct vs_writer *w, uint16_t kind)
{
	return kind < VS_WRITER_KINDS ? w->written[kind] : 0;
}


static int write_chunk(struct vs_writer *w, const struct vs_chunk_hdr *h,
		       const uint8_t *data)
{
	uint8_t hb[VS_CHUNK_HDR_LEN];
	struct iovec iov[2] = {
		{ hb, sizeof(hb) },
		{ (void *)data, h->comp_len },
	};

	vs_chunk_hdr_encode(h, hb);
	return commit(w, iov, h->comp_len ? 2 : 1,
		      sizeof(hb) + h->comp_len);
}

int vs_writer_flush(struct vs_writer *w)
{
	struct vs_chunk_hdr h;
	size_t bound;
	int ret, i;

	if (w->error) {
		errno = w->error;
		return -1;
	}
	if (!w->nr)
		return 0;
	bound = deflateBound(&w->zs, w->raw_len);
	if (ALLOC_GROW(w->comp, bound, w->comp_cap))
		return -1;
	if (deflateReset(&w->zs) != Z_OK ||
	    deflateParams(&w->zs, w->level, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = EINVAL;
		return -1;
	}
	w->zs.next_in = w->raw;
	w->zs.avail_in = w->raw_len;
	w->zs.next_out = w->comp;
	w->zs.avail_out = w->comp_cap;
	ret = deflate(&w->zs, Z_FINISH);
	if (ret != Z_STREAM_END) {
		errno = EIO;
		return -1;
	}
	h.flags = w->flags;
	h.nr_records = w->nr;
	h.comp_len = w->zs.total_out;
	h.raw_len = w->raw_len;
	h.data_crc = crc32(0, w->comp, h.comp_len);
	h.t_min = w->t_min;
	h.t_max = w->t_max;
	ret = write_chunk(w, &h, w->comp);
	for (i = 0; i < VS_WRITER_KINDS; i++) {
		if (!ret)
			w->written[i] += w->nr_kind[i];
		w->nr_kind[i] = 0;
	}
	w->raw_len = 0;
	w->nr = 0;
	w->flags = 0;
	w->t_min = UINT64_MAX;
	w->t_max = 0;
	vs_task_pack_reset(&w->pack);
	return ret;
}

/* Whether a record of @size body bytes must go to a new chunk. */
static bool chunk_full(const struct vs_writer *w, size_t size)
{
	return w->raw_len &&
	       w->raw_len + VS_REC_HDR_LEN + size > VS_CHUNK_TARGET;
}

/* Room for a record of @size body bytes in the chunk being filled. */
static uint8_t *reserve(struct vs_writer *w, uint16_t kind, size_t size)
{
	size_t len = VS_REC_HDR_LEN + size;
	uint8_t *p;

	if (w->error) {
		errno = w->error;
		return NULL;
	}
	if (len > VS_CHUNK_RAW_MAX || size > UINT32_MAX) {
		errno = E2BIG;
		return NULL;
	}
	if (chunk_full(w, size) && vs_writer_flush(w))
		return NULL;
	if (ALLOC_GROW(w->raw, w->raw_len + len, w->raw_cap))
		return NULL;
	p = w->raw + w->raw_len;
	vs_put16(p, kind);
	vs_put32(p + 2, size);
	w->raw_len += len;
	w->nr++;
	if (kind < VS_WRITER_KINDS)
		w->nr_kind[kind == VS_REC_PACKED_TASK ? VS_REC_TASK : kind]++;
	return p + VS_REC_HDR_LEN;
}

/* Widen the chunk's and the file's time range with @t. */
static void add_time(struct vs_writer *w, uint64_t t)
{
	if (t < w->t_min)
		w->t_min = t;
	if (t > w->t_max)
		w->t_max = t;
	if (t < w->t_first)
		w->t_first = t;
	if (t > w->t_last)
		w->t_last = t;
}

/*
 * A task as kind 17, coded against the task before it in the chunk; when
 * it opens a new chunk, coded again against nothing.
 */
static int add_packed_task(struct vs_writer *w, const struct vs_task *t)
{
	uint8_t *body;
	size_t size;

	if (ALLOC_GROW(w->packed, vs_task_pack_bound(t), w->packed_cap) ||
	    vs_task_pack_encode(&w->pack, t, w->packed, &size))
		return -1;
	if (chunk_full(w, size) &&
	    (vs_writer_flush(w) ||
	     vs_task_pack_encode(&w->pack, t, w->packed, &size)))
		return -1;
	body = reserve(w, VS_REC_PACKED_TASK, size);
	if (!body)
		return -1;
	memcpy(body, w->packed, size);
	vs_task_pack_commit(&w->pack, t);
	add_time(w, t->start);
	add_time(w, t->end);
	return 0;
}

int vs_writer_add(struct vs_writer *w, const struct vs_record *rec)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	uint64_t t_min = UINT64_MAX, t_max = 0;
	uint8_t *body;
	size_t size;

	if (!d) {
		errno = EINVAL;
		return -1;
	}
	if (rec->kind == VS_REC_TASK && w->pack_tasks &&
	    vs_task_packable(&rec->task))
		return add_packed_task(w, &rec->task);
	size = vs_record_encoded_size(rec);
	body = reserve(w, rec->kind, size);
	if (!body)
		return -1;
	vs_record_encode(rec, body, &t_min, &t_max);
	if (d->context)
		w->flags |= VS_CHUNK_CONTEXT;
	if (t_min <= t_max) {
		add_time(w, t_min);
		add_time(w, t_max);
	}
	return 0;
}

int vs_writer_add_raw(struct vs_writer *w, uint16_t kind, const void *body,
		      size_t size)
{
	uint8_t *p;

	if (kind == VS_REC_PACKED_TASK) {
		errno = EINVAL;
		return -1;
	}
	p = reserve(w, kind, size);

	if (!p)
		return -1;
	memcpy(p, body, size);
	return 0;
}

int vs_writer_close(struct vs_writer *w)
{
	struct vs_chunk_hdr end = {
		.flags = VS_CHUNK_END,
		.t_min = w->t_first,
		.t_max = w->t_last,
	};
	int ret = 0, err = 0;

	if (vs_writer_flush(w) || write_chunk(w, &end, NULL)) {
		ret = -1;
		err = errno;
	}
	if (w->own_fd) {
		if (!ret && fsync(w->fd) && errno != EINVAL) {
			ret = -1;
			err = errno;
		}
		if (close(w->fd) && !ret) {
			ret = -1;
			err = errno;
		}
	}
	deflateEnd(&w->zs);
	vs_task_pack_release(&w->pack);
	free(w->packed);
	free(w->raw);
	free(w->comp);
	free(w);
	errno = err;
	return ret;
}
