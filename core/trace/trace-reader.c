// SPDX-License-Identifier: MIT
/*
 * trace-reader.c - stream the records of a varscope trace.
 *
 * One chunk is in memory at a time (its compressed and raw bytes, both
 * capped by VS_CHUNK_RAW_MAX), so memory does not grow with the file.  The
 * time index is built on the first vs_reader_seek_time() from the chunk
 * headers alone (pread, no decompression).  Every length read from the
 * file is checked against what surrounds it before it is used, and every
 * record's times against its chunk's header (the time index must not lie:
 * a time-range read skips chunks by it).  Packed
 * tasks are decoded against the task before them in their chunk, so the
 * packing state starts afresh with every chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/array.h"
#include "core/trace/trace-codec.h"
#include "core/trace/trace-pack.h"

struct chunk_index {
	uint64_t off;
	uint64_t t_min, t_max;
	uint32_t flags;
};

struct vs_reader {
	int fd;
	char *name;
	uint64_t size;
	uint8_t *hdr_buf;
	struct vs_header hdr;
	uint64_t data_off;	/* first chunk */
	z_stream zs;

	uint64_t pos;		/* next chunk */
	uint64_t chunk_off;	/* the chunk being read */
	uint64_t context_until;	/* before it: context records only */
	bool done, failed;
	uint8_t *comp, *raw;
	size_t comp_cap, raw_cap, raw_len, raw_pos;
	uint32_t chunk_nr, chunk_seen;
	uint64_t chunk_t_min, chunk_t_max;	/* the chunk header's */
	void *scratch;
	size_t scratch_cap;
	struct vs_task_pack pack;	/* the chunk's packed tasks so far */

	struct vs_event_def *events;	/* indexed by id; name NULL: unset */
	size_t events_cap;		/* zero-filled */
	unsigned int nr_events;

	struct chunk_index *index;
	size_t nr_index, alloc_index;
	bool have_index;

	char error[512];
	char warning[512];
};

static int fail(struct vs_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct vs_reader *r, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s: %s at byte %llu", r->name,
		 what, (unsigned long long)off);
	r->failed = true;
	return -1;
}

/*
 * The file ends before its end mark: either right after a whole chunk (a
 * recording killed between two chunks) or inside one, whose start is where
 * reading stopped.
 */
static void warn_truncated(struct vs_reader *r)
{
	if (r->pos >= r->size)
		snprintf(r->warning, sizeof(r->warning),
			 "%s: truncated at byte %llu, after a whole chunk: "
			 "the end mark is missing", r->name,
			 (unsigned long long)r->size);
	else
		snprintf(r->warning, sizeof(r->warning),
			 "%s: truncated at byte %llu, inside a chunk: read up "
			 "to the last whole chunk at byte %llu", r->name,
			 (unsigned long long)r->size,
			 (unsigned long long)r->pos);
}

static int read_at(struct vs_reader *r, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(r->fd, (char *)buf + done, len - done,
				  off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(r, off + done, "read error (%s)",
				    n < 0 ? strerror(errno) : "end of file");
		done += n;
	}
	return 0;
}

static int open_header(struct vs_reader *r)
{
	uint8_t prefix[VS_FILE_HDR_PREFIX];
	size_t avail = r->size < sizeof(prefix) ? r->size : sizeof(prefix);
	const char *err;
	uint16_t major;
	uint32_t len;
	size_t where;

	if (read_at(r, prefix, avail, 0))
		return -1;
	err = vs_file_hdr_prefix(prefix, avail, &major, &len, &where);
	if (err)
		return fail(r, where, "%s", err);
	if (len > r->size)
		return fail(r, r->size, "truncated header");
	r->hdr_buf = malloc(len);
	if (!r->hdr_buf)
		return fail(r, 0, "out of memory");
	if (read_at(r, r->hdr_buf, len, 0))
		return -1;
	err = vs_file_hdr_decode(r->hdr_buf, len, &r->hdr, &where);
	if (err)
		return fail(r, where, "%s", err);
	r->data_off = r->pos = len;
	return 0;
}

struct vs_reader *vs_reader_fdopen(int fd, const char *name, char *err,
				   size_t errlen)
{
	struct vs_reader *r = calloc(1, sizeof(*r));
	struct stat st;

	if (!r || !(r->name = strdup(name))) {
		if (err)
			snprintf(err, errlen, "%s: out of memory", name);
		free(r);
		close(fd);
		return NULL;
	}
	r->fd = fd;
	if (inflateInit2(&r->zs, -15) != Z_OK) {
		fail(r, 0, "out of memory");
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fail(r, 0, "not a regular file");
		goto out;
	}
	r->size = st.st_size;
	if (!open_header(r))
		return r;
out:
	if (err)
		snprintf(err, errlen, "%s", r->error);
	vs_reader_close(r);
	return NULL;
}

/*
 * An unlinked file in $TMPDIR (else /tmp): O_TMPFILE, or on a file system
 * without it (NFS, 9p) a file made and unlinked at once.
 */
static int unlinked_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd, saved;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/varscope-stdin.XXXXXX",
			     dir) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (unlink(path)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* A pipe on the standard input, copied into an unlinked file. */
static int copy_stdin(void)
{
	char buf[65536];
	ssize_t n;
	int fd;

	fd = unlinked_file();
	if (fd < 0)
		return -1;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, buf, n) != n) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* The standard input as a file the reader can seek in: itself or a copy. */
static int open_stdin(void)
{
	static int file = -1;
	struct stat st;

	if (file < 0) {
		if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode) &&
		    lseek(STDIN_FILENO, 0, SEEK_CUR) == 0)
			file = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		else
			file = copy_stdin();
		if (file < 0)
			return -1;
	}
	return fcntl(file, F_DUPFD_CLOEXEC, 0);
}

int vs_trace_open_fd(const char *path)
{
	if (!strcmp(path, "-"))
		return open_stdin();
	/* a FIFO without a writer would block: it is refused (no file) */
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

bool vs_trace_can_open(const char *path, char *err, size_t errlen)
{
	int fd;

	if (strcmp(path, "-")) {
		if (!access(path, R_OK))
			return true;
	} else if ((fd = open_stdin()) >= 0) {
		close(fd);
		return true;
	}
	snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
	return false;
}

struct vs_reader *vs_reader_open(const char *path, char *err, size_t errlen)
{
	int fd = vs_trace_open_fd(path);

	if (fd < 0) {
		if (err)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return vs_reader_fdopen(fd, path, err, errlen);
}

void vs_reader_close(struct vs_reader *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; i < r->events_cap; i++) {
		free((char *)r->events[i].name);
		free((char *)r->events[i].unit);
	}
	free(r->events);
	inflateEnd(&r->zs);
	close(r->fd);
	free(r->index);
	vs_task_pack_release(&r->pack);
	free(r->scratch);
	free(r->comp);
	free(r->raw);
	free(r->hdr_buf);
	free(r->name);
	free(r);
}

enum { CHUNK_END = 0, CHUNK_DATA = 1, CHUNK_TRUNCATED = 2 };

/*
 * Read the chunk header at @off.  Returns CHUNK_DATA with @h filled,
 * CHUNK_END at the end chunk, CHUNK_TRUNCATED when the file ends before the
 * chunk does, -1 on corruption.
 */
static int chunk_header(struct vs_reader *r, uint64_t off,
			struct vs_chunk_hdr *h)
{
	uint8_t buf[VS_CHUNK_HDR_LEN];
	const char *err;

	if (r->size - off < VS_CHUNK_HDR_LEN)
		return CHUNK_TRUNCATED;
	if (read_at(r, buf, sizeof(buf), off))
		return -1;
	err = vs_chunk_hdr_decode(buf, h);
	if (err)
		return fail(r, off, "%s", err);
	if (h->flags & VS_CHUNK_END) {
		if (off + VS_CHUNK_HDR_LEN != r->size)
			return fail(r, off + VS_CHUNK_HDR_LEN,
				    "data after the end chunk");
		return CHUNK_END;
	}
	if (r->size - off - VS_CHUNK_HDR_LEN < h->comp_len)
		return CHUNK_TRUNCATED;
	return CHUNK_DATA;
}

static int inflate_chunk(struct vs_reader *r, const struct vs_chunk_hdr *h)
{
	int ret;

	if (ALLOC_GROW(r->comp, (size_t)h->comp_len + 1, r->comp_cap) ||
	    ALLOC_GROW(r->raw, (size_t)h->raw_len + 1, r->raw_cap))
		return fail(r, r->chunk_off, "out of memory");
	if (read_at(r, r->comp, h->comp_len, r->chunk_off + VS_CHUNK_HDR_LEN))
		return -1;
#ifndef VS_FUZZING
	if (crc32(0, r->comp, h->comp_len) != h->data_crc)
		return fail(r, r->chunk_off, "chunk CRC mismatch");
#endif
	r->raw_len = h->raw_len;
	r->raw_pos = 0;
	if (!h->raw_len)
		return 0;
	inflateReset(&r->zs);
	r->zs.next_in = r->comp;
	r->zs.avail_in = h->comp_len;
	r->zs.next_out = r->raw;
	r->zs.avail_out = h->raw_len;
	ret = inflate(&r->zs, Z_FINISH);
	if (ret != Z_STREAM_END || r->zs.avail_out || r->zs.avail_in)
		return fail(r, r->chunk_off, "bad compressed data");
	return 0;
}

/* Load the next chunk to read: 1, 0 at the end, -1 on corruption. */
static int next_chunk(struct vs_reader *r)
{
	struct vs_chunk_hdr h;
	int ret;

	while (!r->done) {
		ret = chunk_header(r, r->pos, &h);
		if (ret < 0)
			return -1;
		if (ret == CHUNK_TRUNCATED)
			warn_truncated(r);
		if (ret != CHUNK_DATA) {
			r->done = true;
			return 0;
		}
		r->chunk_off = r->pos;
		r->pos += VS_CHUNK_HDR_LEN + h.comp_len;
		if (r->chunk_off < r->context_until &&
		    !(h.flags & VS_CHUNK_CONTEXT))
			continue;
		if (inflate_chunk(r, &h))
			return -1;
		vs_task_pack_reset(&r->pack);
		r->chunk_t_min = h.t_min;
		r->chunk_t_max = h.t_max;
		r->chunk_nr = h.nr_records;
		r->chunk_seen = 0;
		return 1;
	}
	return 0;
}

static int catalog_add(struct vs_reader *r, const struct vs_event_def *def)
{
	struct vs_event_def *e;
	char *name, *unit;

	if (def->id > VS_EVENT_MAX)
		return fail(r, r->chunk_off, "event id %u out of range",
			    def->id);
	if (def->id >= r->events_cap) {
		size_t old = r->events_cap;

		if (ALLOC_GROW(r->events, (size_t)def->id + 1, r->events_cap))
			return fail(r, r->chunk_off, "out of memory");
		memset(r->events + old, 0,
		       (r->events_cap - old) * sizeof(*r->events));
	}
	name = strdup(def->name);
	unit = strdup(def->unit);
	if (!name || !unit) {
		free(name);
		free(unit);
		return fail(r, r->chunk_off, "out of memory");
	}
	e = &r->events[def->id];
	if (!e->name)
		r->nr_events++;
	free((char *)e->name);
	free((char *)e->unit);
	*e = *def;
	e->name = name;
	e->unit = unit;
	return 0;
}

/* Packed tasks are coded by core/trace/trace-pack.c, not by the
 * codec's table. */
static const struct vs_kind_desc packed_task_desc = {
	.kind = VS_REC_PACKED_TASK, .name = "packed_task",
};

/* Decode a body of @size bytes of @kind (a known one) into @rec. */
static const char *decode(struct vs_reader *r, uint16_t kind,
			  const uint8_t *body, size_t size,
			  struct vs_record *rec)
{
	if (kind == VS_REC_PACKED_TASK) {
		memset(rec, 0, sizeof(*rec));
		rec->kind = VS_REC_TASK;
		return vs_task_pack_decode(&r->pack, body, size, &rec->task);
	}
	if (vs_alloc_grow(&r->scratch, &r->scratch_cap, 2 * size + 16, 1))
		return "out of memory";
	return vs_record_decode(kind, body, size, rec, r->scratch);
}

int vs_reader_next(struct vs_reader *r, struct vs_record *rec)
{
	const struct vs_kind_desc *d;
	const uint8_t *p;
	const char *err;
	size_t left, rec_off;
	uint64_t t_min, t_max;
	uint32_t size;
	uint16_t kind;
	int ret;

	if (r->failed)
		return -1;
	for (;;) {
		if (r->raw_pos >= r->raw_len) {
			if (r->chunk_seen != r->chunk_nr)
				return fail(r, r->chunk_off,
					    "chunk holds %u records, its header says %u",
					    r->chunk_seen, r->chunk_nr);
			ret = next_chunk(r);
			if (ret <= 0)
				return ret;
			continue;
		}
		rec_off = r->raw_pos;
		left = r->raw_len - rec_off;
		p = r->raw + rec_off;
		if (left < VS_REC_HDR_LEN || vs_get32(p + 2) > left - VS_REC_HDR_LEN)
			return fail(r, r->chunk_off,
				    "record %u (raw offset %zu) overruns its chunk",
				    r->chunk_seen, rec_off);
		kind = vs_get16(p);
		size = vs_get32(p + 2);
		r->raw_pos += VS_REC_HDR_LEN + size;
		r->chunk_seen++;
		d = kind == VS_REC_PACKED_TASK ? &packed_task_desc :
						 vs_kind_desc(kind);
		if (!d || (r->chunk_off < r->context_until && !d->context))
			continue;
		err = decode(r, kind, p + VS_REC_HDR_LEN, size, rec);
		if (err)
			return fail(r, r->chunk_off,
				    "record %u (%s, raw offset %zu): %s",
				    r->chunk_seen - 1, d->name, rec_off, err);
		t_min = UINT64_MAX;
		t_max = 0;
		vs_record_time_span(rec, &t_min, &t_max);
		if (t_min <= t_max && (t_min < r->chunk_t_min ||
				       t_max > r->chunk_t_max))
			return fail(r, r->chunk_off,
				    "record %u (%s, raw offset %zu): time "
				    "outside its chunk's", r->chunk_seen - 1,
				    d->name, rec_off);
		if (kind == VS_REC_EVENT_DEF && catalog_add(r, &rec->event_def))
			return -1;
		return 1;
	}
}

static void restart(struct vs_reader *r, uint64_t context_until)
{
	r->pos = r->data_off;
	r->context_until = context_until;
	r->raw_len = r->raw_pos = 0;
	r->chunk_nr = r->chunk_seen = 0;
	r->done = false;
	r->warning[0] = 0;
}

int vs_reader_rewind(struct vs_reader *r)
{
	if (r->failed)
		return -1;
	restart(r, 0);
	return 0;
}

static int build_index(struct vs_reader *r)
{
	struct vs_chunk_hdr h;
	uint64_t off = r->data_off;
	int ret;

	r->nr_index = 0;
	while ((ret = chunk_header(r, off, &h)) == CHUNK_DATA) {
		if (ALLOC_GROW(r->index, r->nr_index + 1, r->alloc_index))
			return fail(r, off, "out of memory");
		r->index[r->nr_index++] = (struct chunk_index){
			off, h.t_min, h.t_max, h.flags,
		};
		off += VS_CHUNK_HDR_LEN + h.comp_len;
	}
	if (ret < 0)
		return -1;
	r->have_index = true;
	return 0;
}

/*
 * The chunks before the first with a record at or after @time are read for
 * their context records alone; but those before any timed chunk are read
 * whole (their records precede every time), so that a read from the start
 * decodes every record a whole read does.
 */
int vs_reader_seek_time(struct vs_reader *r, uint64_t time)
{
	uint64_t target = r->size;
	bool timed_before = false;
	size_t i;

	if (r->failed || (!r->have_index && build_index(r)))
		return -1;
	for (i = 0; i < r->nr_index; i++) {
		if (r->index[i].t_min == UINT64_MAX)
			continue;
		if (r->index[i].t_max >= time) {
			target = timed_before ? r->index[i].off : r->data_off;
			break;
		}
		timed_before = true;
	}
	restart(r, target);
	return 0;
}

uint64_t vs_reader_offset_until(struct vs_reader *r, uint64_t time)
{
	uint64_t end = r->data_off;
	size_t i;

	if (r->failed || (!r->have_index && build_index(r)))
		return r->size;
	for (i = 0; i < r->nr_index; i++)
		if (r->index[i].t_min != UINT64_MAX && r->index[i].t_min < time)
			end = i + 1 < r->nr_index ? r->index[i + 1].off : r->size;
	return end;
}

int vs_reader_time_range(struct vs_reader *r, uint64_t *first, uint64_t *last)
{
	size_t i;

	if (r->failed || (!r->have_index && build_index(r)))
		return -1;
	*first = UINT64_MAX;
	*last = 0;
	for (i = 0; i < r->nr_index; i++) {
		if (r->index[i].t_min == UINT64_MAX)
			continue;
		if (r->index[i].t_min < *first)
			*first = r->index[i].t_min;
		if (r->index[i].t_max > *last)
			*last = r->index[i].t_max;
	}
	return *first == UINT64_MAX ? -1 : 0;
}

uint64_t vs_reader_start_time(struct vs_reader *r)
{
	uint64_t start = r->hdr.start_time, first, last;

	if (vs_reader_time_range(r, &first, &last))
		return start;
	return !start || start > first ? first : start;
}

const struct vs_header *vs_reader_header(const struct vs_reader *r)
{
	return &r->hdr;
}

const struct vs_event_def *vs_reader_event(const struct vs_reader *r,
					   uint16_t id)
{
	if (id >= r->events_cap || !r->events[id].name)
		return NULL;
	return &r->events[id];
}

const struct vs_event_def *vs_reader_event_by_name(const struct vs_reader *r,
						   const char *name)
{
	unsigned int i;

	for (i = 0; i < r->events_cap; i++)
		if (r->events[i].name && !strcmp(r->events[i].name, name))
			return &r->events[i];
	return NULL;
}

unsigned int vs_reader_nr_events(const struct vs_reader *r)
{
	return r->nr_events;
}

uint64_t vs_reader_offset(const struct vs_reader *r)
{
	return r->chunk_off;
}

uint64_t vs_reader_size(const struct vs_reader *r)
{
	return r->size;
}

const char *vs_reader_error(const struct vs_reader *r)
{
	return r->failed ? r->error : NULL;
}

const char *vs_reader_warning(const struct vs_reader *r)
{
	return r->warning[0] ? r->warning : NULL;
}
