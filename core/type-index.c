// SPDX-License-Identifier: MIT
/*
 * type-index.c - task type number -> array index.
 */
#include <stdlib.h>

#include "type-index.h"

/* The slot of @type in @ti: its own, or the empty one where it goes. */
static struct vs_type_slot *slot_of(const struct vs_type_index *ti,
				    uint32_t type)
{
	size_t mask = ((size_t)1 << ti->bits) - 1;
	size_t i = (type * 0x9e3779b97f4a7c15ull) >> (64 - ti->bits);

	while (ti->slot[i].index && ti->slot[i].type != type)
		i = (i + 1) & mask;
	return &ti->slot[i];
}

long vs_type_index_find(const struct vs_type_index *ti, uint32_t type)
{
	const struct vs_type_slot *s;

	if (!ti->bits)
		return -1;
	s = slot_of(ti, type);
	return s->index ? (long)s->index - 1 : -1;
}

/* Twice the slots when one more type would fill more than half. */
static int make_room(struct vs_type_index *ti)
{
	struct vs_type_index bigger = { .bits = ti->bits ? ti->bits + 1 : 4 };
	size_t i;

	if (ti->bits && 2 * (ti->nr + 1) <= (1u << ti->bits))
		return 0;
	bigger.slot = calloc((size_t)1 << bigger.bits, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -1;
	for (i = 0; ti->bits && i < (size_t)1 << ti->bits; i++)
		if (ti->slot[i].index)
			*slot_of(&bigger, ti->slot[i].type) = ti->slot[i];
	bigger.nr = ti->nr;
	free(ti->slot);
	*ti = bigger;
	return 0;
}

int vs_type_index_add(struct vs_type_index *ti, uint32_t type, uint32_t index)
{
	if (make_room(ti))
		return -1;
	*slot_of(ti, type) = (struct vs_type_slot){ type, index + 1 };
	ti->nr++;
	return 0;
}

void vs_type_index_release(struct vs_type_index *ti)
{
	free(ti->slot);
	*ti = (struct vs_type_index){ 0 };
}
