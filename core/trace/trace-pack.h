/* SPDX-License-Identifier: MIT */
/*
 * trace-pack.h - the packed task record (kind 17, format 2.0): a task's
 * fields as LEB128 varints, coded against the task record before it in
 * the same chunk, so that what repeats from task to task (thread, type,
 * the list of events, zero values) costs a byte or less.  The layout is
 * specified in Documentation/varscope-data-format.txt, "Packed tasks".
 *
 * The writer and the reader each keep a struct vs_task_pack and reset it
 * at every chunk start, so a chunk decodes on its own: vs_reader_seek_time()
 * and the parallel readers of core/analysis/taskset.c may start at any chunk.
 */
#ifndef VS_CORE_TRACE_PACK_H
#define VS_CORE_TRACE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

/* Most values a packed task holds; the writer writes a task with more as
 * a kind 2 record. */
#define VS_PACK_MAX_VALUES	65536u

/**
 * struct vs_task_pack - what the next packed task of a chunk is coded
 * against: the task record before it in the chunk (all zero at the start)
 * @prev: its fields (values unused)
 * @ids: its event ids, in order
 * @nr_ids: how many
 * @alloc_ids: room in @ids
 * @values: the reader's decoded values, valid until the next decode
 * @alloc_values: room in @values
 */
struct vs_task_pack {
	struct vs_task prev;
	uint16_t *ids;
	uint32_t nr_ids;
	size_t alloc_ids;
	struct vs_value *values;
	size_t alloc_values;
};

/* Forget the task before: a new chunk starts. */
void vs_task_pack_reset(struct vs_task_pack *p);

/* Free what @p holds (it may be reused after a reset). */
void vs_task_pack_release(struct vs_task_pack *p);

/* Whether @t can be written packed (at most VS_PACK_MAX_VALUES values). */
static inline bool vs_task_packable(const struct vs_task *t)
{
	return t->nr_values <= VS_PACK_MAX_VALUES;
}

/* The largest body vs_task_pack_encode() can make of @t. */
size_t vs_task_pack_bound(const struct vs_task *t);

/**
 * vs_task_pack_encode - the packed body of @t, coded against @p
 * @buf: vs_task_pack_bound() bytes
 * @size: set to the body's size
 *
 * @p is not advanced: call vs_task_pack_commit() once the record is in
 * the chunk.  Returns 0, or -1 with errno ENOMEM.
 */
int vs_task_pack_encode(struct vs_task_pack *p, const struct vs_task *t,
			uint8_t *buf, size_t *size);

/**
 * vs_task_pack_commit - @t, just encoded, is the task before the next one
 *
 * Cannot fail: vs_task_pack_encode() made the room.
 */
void vs_task_pack_commit(struct vs_task_pack *p, const struct vs_task *t);

/**
 * vs_task_pack_decode - decode a packed body of @size bytes into @t and
 * advance @p; @t->values points into @p until the next decode
 *
 * Returns NULL, or what is wrong ("varint overruns its record", ...).
 * Bytes after the known fields are ignored.
 */
const char *vs_task_pack_decode(struct vs_task_pack *p, const uint8_t *body,
				size_t size, struct vs_task *t);

#endif /* VS_CORE_TRACE_PACK_H */
