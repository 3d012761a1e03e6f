/* SPDX-License-Identifier: MIT */
/*
 * id-index.h - a 32-bit id read from a trace -> array index, in O(1).
 *
 * The analyses keep their task types in arrays sorted by type number once
 * loaded; while they fill them, a trace of many types (tens of thousands
 * of request kinds) needs a lookup that does not walk the array per task.
 * Ids a file declares (symbol ids) are kept densely the same way: an id
 * is any 32-bit number, never an index, so its size costs nothing.
 */
#ifndef VS_CORE_ID_INDEX_H
#define VS_CORE_ID_INDEX_H

#include <stdint.h>

struct vs_id_slot {
	uint32_t id;
	uint32_t index;			/* index + 1; 0: empty slot */
};

struct vs_id_index {
	struct vs_id_slot *slot;	/* open addressing, linear probing */
	unsigned int bits;		/* 1 << bits slots, or 0 */
	unsigned int nr;		/* ids held */
};

/**
 * vs_id_index_find - the index of @id in @ti, or -1
 */
long vs_id_index_find(const struct vs_id_index *ti, uint32_t id);

/**
 * vs_id_index_add - note that @id is at @index
 *
 * @id must not be in @ti yet.  Returns 0, or -1 when memory runs out.
 */
int vs_id_index_add(struct vs_id_index *ti, uint32_t id, uint32_t index);

/**
 * vs_id_index_release - free @ti's slots; it is empty again
 */
void vs_id_index_release(struct vs_id_index *ti);

#endif /* VS_CORE_ID_INDEX_H */
