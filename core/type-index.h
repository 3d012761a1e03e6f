/* SPDX-License-Identifier: MIT */
/*
 * type-index.h - task type number -> array index, in O(1).
 *
 * The analyses keep their task types in arrays sorted by type number once
 * loaded; while they fill them, a trace of many types (tens of thousands
 * of request kinds) needs a lookup that does not walk the array per task.
 */
#ifndef VS_CORE_TYPE_INDEX_H
#define VS_CORE_TYPE_INDEX_H

#include <stdint.h>

struct vs_type_slot {
	uint32_t type;
	uint32_t index;			/* index + 1; 0: empty slot */
};

struct vs_type_index {
	struct vs_type_slot *slot;	/* open addressing, linear probing */
	unsigned int bits;		/* 1 << bits slots, or 0 */
	unsigned int nr;		/* types held */
};

/**
 * vs_type_index_find - the index of task type @type in @ti, or -1
 */
long vs_type_index_find(const struct vs_type_index *ti, uint32_t type);

/**
 * vs_type_index_add - note that task type @type is at @index
 *
 * @type must not be in @ti yet.  Returns 0, or -1 when memory runs out.
 */
int vs_type_index_add(struct vs_type_index *ti, uint32_t type, uint32_t index);

/**
 * vs_type_index_release - free @ti's slots; it is empty again
 */
void vs_type_index_release(struct vs_type_index *ti);

#endif /* VS_CORE_TYPE_INDEX_H */
