/* SPDX-License-Identifier: MIT */
/*
 * delta-seq.h - a sequence of records of a few u64 fields, kept packed:
 * each field as the varint of its zigzag difference to the same field of
 * the record before, so that records in time order (times a few
 * microseconds apart, ids and flags that repeat) take a few bytes instead
 * of eight per field.  Every VS_DSEQ_BLOCK records a block starts, coded
 * against zeros, and the first key (field 0) of every block is kept in an
 * index, so that a sequence in key order is searched by decoding one
 * block.
 *
 * core/analysis/wakeup.c keeps each thread's tasks, wake-ups and switches in
 * them while it reads a trace: tens of millions of records in a long one.
 */
#ifndef VS_CORE_DELTA_SEQ_H
#define VS_CORE_DELTA_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VS_DSEQ_FIELDS	4	/* most fields a record has */
#define VS_DSEQ_BLOCK	32	/* records in a block */
#define VS_DSEQ_SORT_WINDOW 64	/* see vs_dseq_sort(); a power of two */

struct vs_dseq_block {
	uint64_t key;			/* field 0 of its first record */
	size_t first;			/* the index of its first record */
	size_t off;			/* its first byte */
};

struct vs_dseq {
	unsigned int nr_fields;
	bool unsorted;			/* a key smaller than the one before */
	size_t nr;			/* records */
	uint8_t *bytes;
	size_t nr_bytes, cap_bytes;
	struct vs_dseq_block *blocks;
	size_t nr_blocks, cap_blocks;
	uint64_t last[VS_DSEQ_FIELDS];	/* the last record */
};

/*
 * A position in a sequence: at a record (decoded in @v), before the first
 * or past the last.
 */
struct vs_dseq_cursor {
	const struct vs_dseq *s;
	size_t i;			/* @v's index; s->nr: past the last,
					 * SIZE_MAX: before the first */
	size_t off;			/* the byte after @v's record */
	size_t block;			/* @v's block */
	uint64_t v[VS_DSEQ_FIELDS];
};

/* An empty sequence of records of @nr_fields (1..VS_DSEQ_FIELDS) fields. */
void vs_dseq_init(struct vs_dseq *s, unsigned int nr_fields);

/* Free what @s holds; it is empty (of the same fields) again. */
void vs_dseq_release(struct vs_dseq *s);

/**
 * vs_dseq_append - add a record at the end of @s
 * @rec: its s->nr_fields fields
 *
 * Returns 0, or -1 when memory runs out (@s is unchanged).
 */
int vs_dseq_append(struct vs_dseq *s, const uint64_t *rec);

/**
 * vs_dseq_concat - move the records of @next (of the same fields) to the
 * end of @s; @next is empty afterwards, its memory freed
 *
 * Returns 0, or -1 when memory runs out (both unchanged).
 */
int vs_dseq_concat(struct vs_dseq *s, struct vs_dseq *next);

/**
 * vs_dseq_sort - put @s in key order; nothing to do when it is
 * (s->unsorted unset)
 *
 * Records with equal keys keep their order when none is
 * VS_DSEQ_SORT_WINDOW places or more out of its own (records a little
 * out of order are sorted in little memory), else they come in the order
 * qsort() gives them.
 *
 * Returns 0, or -1 when memory runs out (@s is unchanged).
 */
int vs_dseq_sort(struct vs_dseq *s);

/* Whether @c is at a record. */
static inline bool vs_dseq_at(const struct vs_dseq_cursor *c)
{
	return c->i < c->s->nr;
}

/* @c at the first record of @s; false (past the last) when @s is empty */
bool vs_dseq_first(struct vs_dseq_cursor *c, const struct vs_dseq *s);

/* @c at the record after its own; false when there is none (past it) */
bool vs_dseq_next(struct vs_dseq_cursor *c);

/**
 * vs_dseq_seek - @c at the first record of @s (in key order) whose key is
 * at or above @key
 *
 * Returns false, @c past the last record, when there is none.
 */
bool vs_dseq_seek(struct vs_dseq_cursor *c, const struct vs_dseq *s,
		  uint64_t key);

/**
 * vs_dseq_seek_last - @c at the last record of @s (in key order) whose key
 * is at or below @key
 *
 * Returns false, @c before the first record, when there is none.
 */
bool vs_dseq_seek_last(struct vs_dseq_cursor *c, const struct vs_dseq *s,
		       uint64_t key);

#endif /* VS_CORE_DELTA_SEQ_H */
