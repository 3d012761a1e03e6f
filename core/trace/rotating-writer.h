/* SPDX-License-Identifier: MIT */
/*
 * rotating-writer.h - a trace writer that cuts a long recording into
 * numbered segment files (varscope record --segment-length/--max-size).
 *
 * VarMRI recorded for 16 hours and analysed the trace segment by segment
 * (section 6).  With a segment length L the output PATH becomes the files
 * PATH.0001, PATH.0002, ...: file k holds the tasks that end in
 * [start + (k-1) L, start + k L), so each is one segment of
 * "varscope segments" and "varscope diff".  Each file stands alone: it
 * begins with its own header (start time = the segment's start) and the
 * context records seen so far (event catalog, meta notes, symbols, the
 * last epochs, names and mappings of live threads and processes), then a
 * VS_REC_SEGMENT mark with its number.
 *
 * A task record goes to the file of its end time: the first task that
 * ends past the boundary opens the next file, and vs_rotwriter_tick()
 * opens it when no task comes.  A task read after the switch although it
 * ended just before it (records come in the order the recorder reads
 * them) goes to the new file: no task is lost or written twice.
 *
 * A size bound (--max-size) removes the oldest segment files once all of
 * them together pass it; the file being written is never removed.
 * Memory stays flat over hours: the context kept is what live threads
 * and processes need, and closed files are forgotten unless a size bound
 * must count them.
 *
 * Without a segment length it writes PATH itself, as vs_writer does.
 */
#ifndef VS_CORE_ROTATING_WRITER_H
#define VS_CORE_ROTATING_WRITER_H

#include <stdint.h>

#include "core/trace/trace.h"

struct vs_rotwriter_opts {
	uint64_t segment_ns;	/* 0: one file, no rotation */
	uint64_t max_size;	/* bytes of all segment files, 0: no bound */
};

struct vs_rotwriter;

/**
 * vs_rotwriter_open - start writing PATH, or its first segment file
 * @path: the output; with a segment length, PATH.0001 and so on
 * @hdr: as for vs_writer_open(); start times both 0 mean now
 * @opts: segment length and size bound (NULL: one file)
 *
 * The files of an earlier recording, PATH (a regular file) or its
 * segment files PATH.NNNN, are set aside first, under a fresh hidden
 * folder beside them: vs_rotwriter_keep_old() (or the close) makes them
 * PATH.old or PATH.old.NNNN (older ones of those names removed),
 * vs_rotwriter_discard() puts them back.  Returns NULL with errno set on
 * failure, the files as they were.
 */
struct vs_rotwriter *vs_rotwriter_open(const char *path,
				       const struct vs_header *hdr,
				       const struct vs_rotwriter_opts *opts);

/**
 * vs_rotwriter_keep_old - the recording started: the earlier recording's
 * files set aside by vs_rotwriter_open() become PATH.old or PATH.old.NNNN
 * now (a no-op the second time); 0, or -1 with errno
 */
int vs_rotwriter_keep_old(struct vs_rotwriter *rw);

/**
 * vs_rotwriter_discard - the recording could not start: close, remove
 * the files written and put the earlier recording's back as they were
 */
void vs_rotwriter_discard(struct vs_rotwriter *rw);

/**
 * vs_rotwriter_add - append a record; a task ending past the current
 * segment opens the next file first
 *
 * Returns 0, or -1 with errno set (the writer then refuses more).
 */
int vs_rotwriter_add(struct vs_rotwriter *rw, const struct vs_record *rec);

/**
 * vs_rotwriter_tick - open the next file(s) if the clock, at @now, has
 * passed the end of the current segment; 0, or -1 with errno
 */
int vs_rotwriter_tick(struct vs_rotwriter *rw, uint64_t now);

/* vs_writer_flush() of the current file, then the size bound; 0 or -1. */
int vs_rotwriter_flush(struct vs_rotwriter *rw);

/* Bytes written to every file so far (removed ones included). */
uint64_t vs_rotwriter_bytes(const struct vs_rotwriter *rw);

/* Records of @kind in every file so far (vs_writer_nr_written()). */
uint64_t vs_rotwriter_nr_written(const struct vs_rotwriter *rw,
				 uint16_t kind);

/* The file being written. */
const char *vs_rotwriter_path(const struct vs_rotwriter *rw);

/* Segment files written so far (0 without rotation), and removed. */
unsigned int vs_rotwriter_nr_files(const struct vs_rotwriter *rw);
unsigned int vs_rotwriter_nr_removed(const struct vs_rotwriter *rw);

/**
 * vs_rotwriter_close - close the current file (and vs_rotwriter_keep_old()
 * if not done); 0, or -1 with errno
 */
int vs_rotwriter_close(struct vs_rotwriter *rw);

#endif /* VS_CORE_ROTATING_WRITER_H */
