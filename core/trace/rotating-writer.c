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
	char *aside;			/* the earlier recording's files */
	bool created;			/* PATH, without a segment length */

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

/* A single file's name: @name with @mid ("old." or ""): NAME.old, NAME. */
static char *single_name(const char *name, const char *mid)
{
	char *s;

	if (asprintf(&s, "%s%s%.*s", name, *mid ? "." : "",
		     *mid ? (int)strlen(mid) - 1 : 0, mid) < 0)
		return NULL;
	return s;
}

/*
 * With @segments each file "@name.@mid NNNN" of folder @dir, else the
 * file single_name(@name, @mid), is renamed into @to_dir with @to_mid
 * in place of @mid, or removed when @to_dir is NULL.
 */
static int each_file(const char *dir, const char *name, const char *mid,
		     bool segments, const char *to_dir, const char *to_mid)
{
	char *single = segments ? NULL : single_name(name, mid);
	char *from, *to, *to_single;
	struct dirent *de;
	unsigned int n = 0;
	int ret = 0;
	DIR *d;

	if (!segments && !single)
		return -1;
	d = opendir(dir);
	if (!d) {
		free(single);
		return -1;
	}
	while ((de = readdir(d)) && !ret) {
		if (segments ? !(n = numbered(de->d_name, name, mid)) :
			       strcmp(de->d_name, single))
			continue;
		to = to_single = NULL;
		if (asprintf(&from, "%s/%s", dir, de->d_name) < 0)
			from = NULL;
		if (to_dir && !segments)
			to_single = single_name(name, to_mid);
		if (to_dir && (segments ?
			       asprintf(&to, "%s/%s.%s%04u", to_dir, name,
					to_mid, n) :
			       asprintf(&to, "%s/%s", to_dir,
					to_single ? to_single : "")) < 0)
			to = NULL;
		if (!from || (to_dir && (!to || (!segments && !to_single))))
			ret = -1;
		else if (to_dir ? rename(from, to) : unlink(from))
			ret = -1;
		free(from);
		free(to);
		free(to_single);
	}
	closedir(d);
	free(single);
	return ret;
}

/*
 * The output's folder and name, in @dir and @name (freed by the caller),
 * or -1.
 */
static int split_base(const struct vs_rotwriter *rw, char **dir, char **name)
{
	char *a = strdup(rw->base), *b = strdup(rw->base);

	*dir = *name = NULL;
	if (!a || !b || !(*dir = strdup(dirname(a))) ||
	    !(*name = strdup(basename(b)))) {
		free(*dir);
		*dir = NULL;
		free(a);
		free(b);
		return -1;
	}
	free(a);
	free(b);
	return 0;
}

/*
 * The files of an earlier recording (PATH, or PATH.NNNN with a segment
 * length) move into a fresh hidden folder beside them, DIR/.NAME.old.XXXXXX,
 * until the recording starts (vs_rotwriter_keep_old(): they become
 * PATH.old or PATH.old.NNNN) or cannot (vs_rotwriter_discard(): they are
 * put back).
 */
static int set_old_aside(struct vs_rotwriter *rw)
{
	bool segments = !!rw->o.segment_ns;
	struct stat st;
	char *dir, *name;
	int ret = -1;

	/* a single PATH only when it is a regular file: the creation
	 * refuses a link or a FIFO there, and says why */
	if (!segments && (lstat(rw->base, &st) || !S_ISREG(st.st_mode)))
		return 0;
	if (split_base(rw, &dir, &name))
		return -1;
	if (asprintf(&rw->aside, "%s/.%s.old.XXXXXX", dir, name) < 0) {
		rw->aside = NULL;
	} else if (!mkdtemp(rw->aside)) {
		free(rw->aside);
		rw->aside = NULL;
	} else {
		ret = each_file(dir, name, "", segments, rw->aside, "");
	}
	free(dir);
	free(name);
	return ret;
}

/*
 * The files set aside go to @to_mid ("old." or "" for back where they
 * were), the files of that name there removed first; the folder is
 * removed.
 */
static int put_aside_back(struct vs_rotwriter *rw, const char *to_mid)
{
	bool segments = !!rw->o.segment_ns;
	char *dir, *name;
	int ret;

	if (!rw->aside)
		return 0;
	if (split_base(rw, &dir, &name))
		return -1;
	ret = each_file(dir, name, to_mid, segments, NULL, NULL);
	if (each_file(rw->aside, name, "", segments, dir, to_mid) ||
	    rmdir(rw->aside))
		ret = -1;
	free(rw->aside);
	rw->aside = NULL;
	free(dir);
	free(name);
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
	if (strcmp(path, "-") && set_old_aside(rw))
		goto fail;
	if (!rw->o.segment_ns) {
		rw->cur = strdup(path);
		rw->w = rw->cur ? vs_writer_open(path, &rw->hdr) : NULL;
		if (!rw->w)
			goto fail;
		rw->created = strcmp(path, "-");
		return rw;
	}
	if (open_segment(rw, 1))
		goto fail;
	return rw;
fail:
	err = errno;
	vs_rotwriter_discard(rw);
	errno = err;
	return NULL;
}

int vs_rotwriter_keep_old(struct vs_rotwriter *rw)
{
	return put_aside_back(rw, "old.");
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

static void free_rotwriter(struct vs_rotwriter *rw)
{
	size_t i;

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
}

void vs_rotwriter_discard(struct vs_rotwriter *rw)
{
	char *name;
	unsigned int n;

	if (!rw)
		return;
	close_current(rw);
	/* the files written, by their names: nothing else */
	if (rw->o.segment_ns) {
		for (n = 1; n <= rw->number; n++) {
			name = file_name(rw, "", n);
			if (name)
				unlink(name);
			free(name);
		}
	} else if (rw->created) {
		unlink(rw->base);
	}
	put_aside_back(rw, "");
	free_rotwriter(rw);
}

int vs_rotwriter_close(struct vs_rotwriter *rw)
{
	int ret;

	if (!rw)
		return 0;
	ret = close_current(rw);
	if (vs_rotwriter_keep_old(rw))
		ret = -1;
	free_rotwriter(rw);
	return ret;
}
