// SPDX-License-Identifier: MIT
/*
 * rotating-writer.c - cut a recording into numbered segment files.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/trace/rotating-writer.h"
#include "core/trace/trace-codec.h"

#define KEPT_EPOCHS	2	/* a task may still belong to the one before */

/* A context record kept for the next files, encoded. */
struct kept {
	uint16_t kind;
	uint32_t tid, pid;	/* whose it is (comm, mmap), else 0 */
	size_t size;
	uint8_t *body;
};

/* A closed segment file that a size bound may remove. */
struct closed_file {
	unsigned int number;
	uint64_t bytes;
};

struct vs_rotwriter {
	struct vs_writer *w;
	struct vs_rotwriter_opts o;
	char *base;			/* PATH */
	char *cur;			/* the file being written */
	struct vs_header hdr;		/* its strings point into @strings */
	char *strings[4];
	uint64_t start, start_real;	/* the recording's start */
	uint64_t seg_start, seg_end;	/* the current segment */
	unsigned int number;		/* of the current file, from 1 */
	unsigned int nr_files, removed;
	uint64_t bytes_closed;
	uint64_t written_closed[VS_WRITER_KINDS];	/* per kind, in the
							 * closed files */
	bool failed;

	struct kept *kept;
	size_t nr_kept, alloc_kept;
	unsigned int nr_epochs;

	struct closed_file *closed;	/* oldest first, with a size bound */
	size_t nr_closed, alloc_closed;
	uint64_t closed_bytes;

	void *scratch;			/* for decoding kept records */
	size_t scratch_cap;
};

static uint64_t clock_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static char *file_name(const struct vs_rotwriter *rw, const char *mid,
		       unsigned int number)
{
	char *name;

	if (asprintf(&name, "%s.%s%04u", rw->base, mid, number) < 0)
		return NULL;
	return name;
}

/* --- segment files of an earlier recording --- */

/* The NNNN of "@base.@mid NNNN", or 0 when @name is not such a file. */
static unsigned int numbered(const char *name, const char *base,
			     const char *mid)
{
	size_t lb = strlen(base), lm = strlen(mid);
	const char *p = name + lb + 1 + lm;
	char *end;
	unsigned long n;

	if (strncmp(name, base, lb) || name[lb] != '.' ||
	    strncmp(name + lb + 1, mid, lm) || *p < '0' || *p > '9')
		return 0;
	n = strtoul(p, &end, 10);
	return *end || strlen(p) < 4 || n > 1000000 ? 0 : n;
}

/*
 * PATH.NNNN becomes PATH.old.NNNN, as a single PATH becomes PATH.old;
 * PATH.old.NNNN of the recording before is removed first.
 */
static int retire_old_files(struct vs_rotwriter *rw)
{
	char *copy = strdup(rw->base), *dir_copy = strdup(rw->base);
	const char *base, *dir;
	struct dirent *de;
	char *from, *to;
	unsigned int n;
	int pass, ret = 0;
	DIR *d;

	if (!copy || !dir_copy) {
		free(copy);
		free(dir_copy);
		return -1;
	}
	base = basename(copy);
	dir = dirname(dir_copy);
	for (pass = 0; pass < 2 && !ret; pass++) {
		d = opendir(dir);
		if (!d)
			break;
		while ((de = readdir(d)) && !ret) {
			n = numbered(de->d_name, base, pass ? "" : "old.");
			if (!n)
				continue;
			from = file_name(rw, pass ? "" : "old.", n);
			to = pass ? file_name(rw, "old.", n) : NULL;
			if (!from || (pass && !to))
				ret = -1;
			else if (pass ? rename(from, to) : unlink(from))
				ret = -1;
			free(from);
			free(to);
		}
		closedir(d);
	}
	free(copy);
	free(dir_copy);
	return ret;
}

/* --- context kept for the next files --- */

static void drop_kept(struct vs_rotwriter *rw, size_t i)
{
	free(rw->kept[i].body);
	memmove(&rw->kept[i], &rw->kept[i + 1],
		(rw->nr_kept - i - 1) * sizeof(*rw->kept));
	rw->nr_kept--;
}

/* Drop the kept records of @kind that belong to @tid (or @pid if @tid 0). */
static void drop_owned(struct vs_rotwriter *rw, uint16_t kind, uint32_t tid,
		       uint32_t pid)
{
	size_t i = rw->nr_kept;

	while (i-- > 0)
		if (rw->kept[i].kind == kind &&
		    (tid ? rw->kept[i].tid == tid : rw->kept[i].pid == pid))
			drop_kept(rw, i);
}

static int keep(struct vs_rotwriter *rw, const struct vs_record *rec,
		uint32_t tid, uint32_t pid)
{
	uint64_t t_min = UINT64_MAX, t_max = 0;
	struct kept *k;

	if (ALLOC_GROW(rw->kept, rw->nr_kept + 1, rw->alloc_kept))
		return -1;
	k = &rw->kept[rw->nr_kept];
	k->kind = rec->kind;
	k->tid = tid;
	k->pid = pid;
	k->size = vs_record_encoded_size(rec);
	k->body = malloc(k->size ? k->size : 1);
	if (!k->body)
		return -1;
	vs_record_encode(rec, k->body, &t_min, &t_max);
	rw->nr_kept++;
	return 0;
}

/*
 * Remember what the next files need of @rec: the catalog and notes for
 * ever, the last epochs, names and mappings while their owner lives.
 */
static int remember(struct vs_rotwriter *rw, const struct vs_record *rec)
{
	size_t i;

	switch (rec->kind) {
	case VS_REC_EVENT_DEF:
	case VS_REC_META:
	case VS_REC_SYMBOL_DEF:
	case VS_REC_SIG_FUNC:
	case VS_REC_SIG_EPISODE:
	case VS_REC_TYPE_NAME:
		return keep(rw, rec, 0, 0);
	case VS_REC_EPOCH:
		if (rw->nr_epochs == KEPT_EPOCHS) {
			for (i = 0; rw->kept[i].kind != VS_REC_EPOCH; i++)
				;
			drop_kept(rw, i);
			rw->nr_epochs--;
		}
		rw->nr_epochs++;
		return keep(rw, rec, 0, 0);
	case VS_REC_COMM:
		drop_owned(rw, VS_REC_COMM, rec->comm.tid, 0);
		if (rec->comm.exec && rec->comm.pid == rec->comm.tid)
			drop_owned(rw, VS_REC_MMAP, 0, rec->comm.pid);
		return keep(rw, rec, rec->comm.tid, rec->comm.pid);
	case VS_REC_MMAP:
		return keep(rw, rec, 0, rec->mmap.pid);
	case VS_REC_PROCESS:
		if (rec->process.what != VS_PROCESS_EXIT)
			return 0;
		drop_owned(rw, VS_REC_COMM, rec->process.tid, 0);
		if (rec->process.tid == rec->process.pid) {
			drop_owned(rw, VS_REC_COMM, 0, rec->process.pid);
			drop_owned(rw, VS_REC_MMAP, 0, rec->process.pid);
		}
		return 0;
	}
	return 0;
}

/* Write the kept records to the new file, as of its start. */
static int replay(struct vs_rotwriter *rw)
{
	struct vs_record rec;
	size_t i, need;

	for (i = 0; i < rw->nr_kept; i++) {
		const struct kept *k = &rw->kept[i];

		need = 2 * k->size + 16;
		if (vs_alloc_grow(&rw->scratch, &rw->scratch_cap, need, 1))
			return -1;
		memset(&rec, 0, sizeof(rec));
		if (vs_record_decode(k->kind, k->body, k->size, &rec,
				     rw->scratch)) {
			errno = EINVAL;
			return -1;
		}
		rec.kind = k->kind;
		if (k->kind == VS_REC_EPOCH)
			rec.epoch.time = rw->seg_start;
		else if (k->kind == VS_REC_COMM)
			rec.comm.time = rw->seg_start;
		else if (k->kind == VS_REC_MMAP)
			rec.mmap.time = rw->seg_start;
		if (vs_writer_add(rw->w, &rec))
			return -1;
	}
	return 0;
}

/* --- files --- */

/* Remove the oldest closed files while all of them pass the bound. */
static void bound_size(struct vs_rotwriter *rw)
{
	uint64_t cur = rw->w ? vs_writer_bytes(rw->w) : 0;
	char *name;

	while (rw->o.max_size && rw->nr_closed &&
	       rw->closed_bytes + cur > rw->o.max_size) {
		name = file_name(rw, "", rw->closed[0].number);
		if (name && !unlink(name))
			rw->removed++;
		free(name);
		rw->closed_bytes -= rw->closed[0].bytes;
		memmove(rw->closed, rw->closed + 1,
			--rw->nr_closed * sizeof(*rw->closed));
	}
}

static int close_current(struct vs_rotwriter *rw)
{
	struct stat st;
	uint64_t bytes;
	int ret, i;

	if (!rw->w)
		return 0;
	vs_writer_flush(rw->w);	/* its counts; close says if it failed */
	for (i = 0; i < VS_WRITER_KINDS; i++)
		rw->written_closed[i] += vs_writer_nr_written(rw->w, i);
	bytes = vs_writer_bytes(rw->w);
	ret = vs_writer_close(rw->w);
	rw->w = NULL;
	if (!stat(rw->cur, &st))
		bytes = st.st_size;
	rw->bytes_closed += bytes;
	if (!rw->o.max_size)
		return ret;
	if (ALLOC_GROW(rw->closed, rw->nr_closed + 1, rw->alloc_closed))
		return -1;
	rw->closed[rw->nr_closed++] = (struct closed_file){ rw->number, bytes };
	rw->closed_bytes += bytes;
	return ret;
}

/* Close the current file and open the one of segment @number. */
static int open_segment(struct vs_rotwriter *rw, unsigned int number)
{
	struct vs_record mark = { .kind = VS_REC_SEGMENT };
	char *name, *label;
	int err;

	if (close_current(rw))
		goto fail;
	name = file_name(rw, "", number);
	if (!name)
		goto fail;
	free(rw->cur);
	rw->cur = name;
	rw->number = number;
	rw->seg_start = rw->start + (number - 1) * rw->o.segment_ns;
	rw->seg_end = rw->seg_start + rw->o.segment_ns;
	rw->hdr.start_time = rw->seg_start;
	rw->hdr.start_realtime = rw->start_real + (rw->seg_start - rw->start);
	rw->w = vs_writer_open(name, &rw->hdr);
	if (!rw->w)
		goto fail;
	rw->nr_files++;
	label = strrchr(name, '/');
	mark.segment = (struct vs_segment){ rw->seg_start, number,
					    label ? label + 1 : name };
	if (replay(rw) || vs_writer_add(rw->w, &mark))
		goto fail;
	bound_size(rw);
	return 0;
fail:
	err = errno;
	rw->failed = true;
	errno = err ? err : EIO;
	return -1;
}

/* Open the file of the segment holding time @t, if that is a later one. */
static int move_to(struct vs_rotwriter *rw, uint64_t t)
{
	if (rw->failed) {
		errno = EIO;
		return -1;
	}
	if (!rw->o.segment_ns || t < rw->seg_end)
		return 0;
	return open_segment(rw, (t - rw->start) / rw->o.segment_ns + 1);
}

struct vs_rotwriter *vs_rotwriter_open(const char *path,
				       const struct vs_header *hdr,
				       const struct vs_rotwriter_opts *opts)
{
	struct vs_rotwriter *rw = calloc(1, sizeof(*rw));
	const char **fields[4];
	int i, err;

	if (!rw)
		return NULL;
	if (opts)
		rw->o = *opts;
	rw->hdr = *hdr;
	fields[0] = &rw->hdr.host;
	fields[1] = &rw->hdr.kernel;
	fields[2] = &rw->hdr.cpu_model;
	fields[3] = &rw->hdr.tool;
	for (i = 0; i < 4; i++) {
		if (!*fields[i])
			continue;
		rw->strings[i] = strdup(*fields[i]);
		if (!rw->strings[i])
			goto fail;
		*fields[i] = rw->strings[i];
	}
	if (!rw->hdr.start_time && !rw->hdr.start_realtime) {
		rw->hdr.clockid = CLOCK_MONOTONIC;
		rw->hdr.start_time = clock_now(CLOCK_MONOTONIC);
		rw->hdr.start_realtime = clock_now(CLOCK_REALTIME);
	}
	rw->start = rw->hdr.start_time;
	rw->start_real = rw->hdr.start_realtime;
	rw->base = strdup(path);
	if (!rw->base)
		goto fail;
	if (!rw->o.segment_ns) {
		rw->cur = strdup(path);
		rw->w = rw->cur ? vs_writer_open(path, &rw->hdr) : NULL;
		if (!rw->w)
			goto fail;
		return rw;
	}
	if (retire_old_files(rw) || open_segment(rw, 1))
		goto fail;
	return rw;
fail:
	err = errno;
	vs_rotwriter_close(rw);
	errno = err;
	return NULL;
}

int vs_rotwriter_add(struct vs_rotwriter *rw, const struct vs_record *rec)
{
	if (rec->kind == VS_REC_TASK && move_to(rw, rec->task.end))
		return -1;
	if (rw->failed) {
		errno = EIO;
		return -1;
	}
	if (vs_writer_add(rw->w, rec))
		return -1;
	if (rw->o.segment_ns && remember(rw, rec)) {
		rw->failed = true;
		return -1;
	}
	return 0;
}

int vs_rotwriter_tick(struct vs_rotwriter *rw, uint64_t now)
{
	return move_to(rw, now);
}

int vs_rotwriter_flush(struct vs_rotwriter *rw)
{
	if (rw->failed) {
		errno = EIO;
		return -1;
	}
	if (vs_writer_flush(rw->w))
		return -1;
	bound_size(rw);
	return 0;
}

uint64_t vs_rotwriter_bytes(const struct vs_rotwriter *rw)
{
	return rw->bytes_closed + (rw->w ? vs_writer_bytes(rw->w) : 0);
}

uint64_t vs_rotwriter_nr_written(const struct vs_rotwriter *rw,
				 uint16_t kind)
{
	if (kind >= VS_WRITER_KINDS)
		return 0;
	return rw->written_closed[kind] +
	       (rw->w ? vs_writer_nr_written(rw->w, kind) : 0);
}

const char *vs_rotwriter_path(const struct vs_rotwriter *rw)
{
	return rw->cur;
}

unsigned int vs_rotwriter_nr_files(const struct vs_rotwriter *rw)
{
	return rw->nr_files;
}

unsigned int vs_rotwriter_nr_removed(const struct vs_rotwriter *rw)
{
	return rw->removed;
}

int vs_rotwriter_close(struct vs_rotwriter *rw)
{
	size_t i;
	int ret;

	if (!rw)
		return 0;
	ret = close_current(rw);
	for (i = 0; i < rw->nr_kept; i++)
		free(rw->kept[i].body);
	for (i = 0; i < 4; i++)
		free(rw->strings[i]);
	free(rw->kept);
	free(rw->closed);
	free(rw->scratch);
	free(rw->base);
	free(rw->cur);
	free(rw);
	return ret;
}
