// SPDX-License-Identifier: MIT
/*
 * delta-seq.c - packed sequences of records (see delta-seq.h).
 *
 * A record is its fields' varints, one after the other; the first record
 * of a block is coded against zeros, every other against the record
 * before it.  The bytes hold no record count or length: the block index
 * says where each block starts and which record it starts with.
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/analysis/delta-seq.h"
#include "core/sort.h"
#include "core/trace/varint.h"

void vs_dseq_init(struct vs_dseq *s, unsigned int nr_fields)
{
	*s = (struct vs_dseq){ .nr_fields = nr_fields };
}

void vs_dseq_release(struct vs_dseq *s)
{
	free(s->bytes);
	free(s->blocks);
	vs_dseq_init(s, s->nr_fields);
}

int vs_dseq_append(struct vs_dseq *s, const uint64_t *rec)
{
	static const uint64_t zeros[VS_DSEQ_FIELDS];
	bool new_block = !s->nr_blocks ||
			 s->nr - s->blocks[s->nr_blocks - 1].first ==
			 VS_DSEQ_BLOCK;
	const uint64_t *prev = new_block ? zeros : s->last;
	uint8_t *b;
	unsigned int f;

	if (ALLOC_GROW(s->bytes, s->nr_bytes + s->nr_fields * VS_VARINT_MAX,
		       s->cap_bytes) ||
	    (new_block &&
	     ALLOC_GROW(s->blocks, s->nr_blocks + 1, s->cap_blocks)))
		return -1;
	if (new_block)
		s->blocks[s->nr_blocks++] = (struct vs_dseq_block){
			rec[0], s->nr, s->nr_bytes };
	if (s->nr && rec[0] < s->last[0])
		s->unsorted = true;
	b = s->bytes + s->nr_bytes;
	for (f = 0; f < s->nr_fields; f++)
		b = vs_put_varint(b, vs_zigzag(rec[f] - prev[f]));
	s->nr_bytes = b - s->bytes;
	memcpy(s->last, rec, s->nr_fields * sizeof(*rec));
	s->nr++;
	return 0;
}

int vs_dseq_concat(struct vs_dseq *s, struct vs_dseq *next)
{
	size_t k;

	if (!next->nr)
		return 0;
	if (!s->nr) {
		vs_dseq_release(s);
		*s = *next;
		vs_dseq_init(next, s->nr_fields);
		return 0;
	}
	if (ALLOC_GROW(s->bytes, s->nr_bytes + next->nr_bytes, s->cap_bytes) ||
	    ALLOC_GROW(s->blocks, s->nr_blocks + next->nr_blocks,
		       s->cap_blocks))
		return -1;
	memcpy(s->bytes + s->nr_bytes, next->bytes, next->nr_bytes);
	for (k = 0; k < next->nr_blocks; k++) {
		struct vs_dseq_block *blk = &s->blocks[s->nr_blocks++];

		*blk = next->blocks[k];
		blk->first += s->nr;
		blk->off += s->nr_bytes;
	}
	s->unsorted |= next->unsorted || next->blocks[0].key < s->last[0];
	s->nr += next->nr;
	s->nr_bytes += next->nr_bytes;
	memcpy(s->last, next->last, sizeof(s->last));
	vs_dseq_release(next);
	return 0;
}

/* @a, @b: records of a sequence, by their first field */
static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The records of @s into @out (empty) by qsort(); 0, or -1 no memory. */
static int sort_fully(const struct vs_dseq *s, struct vs_dseq *out)
{
	unsigned int nf = s->nr_fields;
	uint64_t *recs = malloc(s->nr * nf * sizeof(*recs));
	struct vs_dseq_cursor c;
	size_t i;

	if (!recs)
		return -1;
	for (vs_dseq_first(&c, s); vs_dseq_at(&c); vs_dseq_next(&c))
		memcpy(recs + c.i * nf, c.v, nf * sizeof(*recs));
	vs_qsort(recs, s->nr, nf * sizeof(*recs), cmp_key);
	for (i = 0; i < s->nr; i++)
		if (vs_dseq_append(out, recs + i * nf))
			break;
	free(recs);
	return i < s->nr ? -1 : 0;
}

/*
 * The records of @s into @out (empty) in key order, equal keys in their
 * order, through a window of VS_DSEQ_SORT_WINDOW records kept in order
 * (a record a little out of order goes a few places back): right when
 * none is VS_DSEQ_SORT_WINDOW places or more after where it belongs (a
 * thread's tasks that overlap their neighbours), in little memory and
 * time.  0 sorted, 1 when one is that far (@out is not in order), -1 no
 * memory.
 */
static int sort_nearly(const struct vs_dseq *s, struct vs_dseq *out)
{
	enum { MASK = VS_DSEQ_SORT_WINDOW - 1 };
	uint64_t win[VS_DSEQ_SORT_WINDOW][VS_DSEQ_FIELDS];
	size_t size = s->nr_fields * sizeof(win[0][0]);
	size_t head = 0, n = 0, k;
	struct vs_dseq_cursor c;
	bool more = vs_dseq_first(&c, s);

	while (more || n) {
		if (n == VS_DSEQ_SORT_WINDOW || !more) {
			if (out->nr && win[head][0] < out->last[0])
				return 1;
			if (vs_dseq_append(out, win[head]))
				return -1;
			head = (head + 1) & MASK;
			n--;
			continue;
		}
		for (k = n; k && win[(head + k - 1) & MASK][0] > c.v[0]; k--)
			memcpy(win[(head + k) & MASK], win[(head + k - 1) & MASK],
			       size);
		memcpy(win[(head + k) & MASK], c.v, size);
		n++;
		more = vs_dseq_next(&c);
	}
	return 0;
}

int vs_dseq_sort(struct vs_dseq *s)
{
	struct vs_dseq sorted;
	int ret;

	if (!s->unsorted)
		return 0;
	vs_dseq_init(&sorted, s->nr_fields);
	ret = sort_nearly(s, &sorted);
	if (ret > 0) {
		vs_dseq_release(&sorted);
		ret = sort_fully(s, &sorted);
	}
	if (ret) {
		vs_dseq_release(&sorted);
		return -1;
	}
	vs_dseq_release(s);
	*s = sorted;
	return 0;
}

/* @c before the first record of block @k of @s (which has one). */
static void before_block(struct vs_dseq_cursor *c, const struct vs_dseq *s,
			 size_t k)
{
	c->s = s;
	c->i = s->blocks[k].first - 1;	/* SIZE_MAX before record 0 */
	c->off = s->blocks[k].off;
	c->block = k;
	memset(c->v, 0, sizeof(c->v));
}

/* The varint at *@p, which is one (the sequence's own bytes). */
static inline uint64_t get_varint(const uint8_t **p)
{
	uint64_t v = *(*p)++;
	unsigned int shift = 7;
	uint8_t byte;

	if (v < 0x80)
		return v;	/* most are: differences of flags, ids */
	v &= 0x7f;
	do {
		byte = *(*p)++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	return v;
}

bool vs_dseq_next(struct vs_dseq_cursor *c)
{
	const struct vs_dseq *s = c->s;
	const uint8_t *p;
	unsigned int f;

	if (c->i + 1 >= s->nr) {
		c->i = s->nr;
		return false;
	}
	c->i++;
	if (c->block + 1 < s->nr_blocks &&
	    s->blocks[c->block + 1].first == c->i) {
		c->block++;
		memset(c->v, 0, sizeof(c->v));
	}
	p = s->bytes + c->off;
	for (f = 0; f < s->nr_fields; f++)
		c->v[f] += vs_unzigzag(get_varint(&p));
	c->off = p - s->bytes;
	return true;
}

bool vs_dseq_first(struct vs_dseq_cursor *c, const struct vs_dseq *s)
{
	if (!s->nr) {
		*c = (struct vs_dseq_cursor){ .s = s };
		return false;
	}
	before_block(c, s, 0);
	return vs_dseq_next(c);
}

/* How many blocks of @s start with a key below @key (+ @at: or at it). */
static size_t blocks_before(const struct vs_dseq *s, uint64_t key, bool at)
{
	size_t lo = 0, hi = s->nr_blocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->blocks[mid].key < key ||
		    (at && s->blocks[mid].key == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool vs_dseq_seek(struct vs_dseq_cursor *c, const struct vs_dseq *s,
		  uint64_t key)
{
	size_t k = blocks_before(s, key, false);

	if (!s->nr) {
		*c = (struct vs_dseq_cursor){ .s = s };
		return false;
	}
	/* the first at or above @key: in block k - 1, or block k's first */
	before_block(c, s, k ? k - 1 : 0);
	while (vs_dseq_next(c))
		if (c->v[0] >= key)
			return true;
	return false;
}

bool vs_dseq_seek_last(struct vs_dseq_cursor *c, const struct vs_dseq *s,
		       uint64_t key)
{
	size_t k = blocks_before(s, key, true);
	struct vs_dseq_cursor ahead;

	if (!k) {
		if (s->nr)
			before_block(c, s, 0);
		else
			*c = (struct vs_dseq_cursor){ .s = s, .i = SIZE_MAX };
		return false;
	}
	/* the last at or below @key: in block k - 1, whose first is */
	before_block(c, s, k - 1);
	vs_dseq_next(c);
	for (ahead = *c; vs_dseq_next(&ahead) && ahead.v[0] <= key; )
		*c = ahead;
	return true;
}
