// SPDX-License-Identifier: MIT
/*
 * id-index.c - a 32-bit id -> array index.
 */
#include <stdlib.h>

#include "core/id-index.h"

/* The slot of @id in @ti: its own, or the empty one where it goes. */
static struct vs_id_slot *slot_of(const struct vs_id_index *ti,
				  uint32_t id)
{
	size_t mask = ((size_t)1 << ti->bits) - 1;
	size_t i = (id * 0x9e3779b97f4a7c15ull) >> (64 - ti->bits);

	while (ti->slot[i].index && ti->slot[i].id != id)
		i = (i + 1) & mask;
	return &ti->slot[i];
}

long vs_id_index_find(const struct vs_id_index *ti, uint32_t id)
{
	const struct vs_id_slot *s;

	if (!ti->bits)
		return -1;
	s = slot_of(ti, id);
	return s->index ? (long)s->index - 1 : -1;
}

/* Twice the slots when one more id would fill more than half. */
static int make_room(struct vs_id_index *ti)
{
	struct vs_id_index bigger = { .bits = ti->bits ? ti->bits + 1 : 4 };
	size_t i;

	if (ti->bits && 2 * (ti->nr + 1) <= (1u << ti->bits))
		return 0;
	bigger.slot = calloc((size_t)1 << bigger.bits, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -1;
	for (i = 0; ti->bits && i < (size_t)1 << ti->bits; i++)
		if (ti->slot[i].index)
			*slot_of(&bigger, ti->slot[i].id) = ti->slot[i];
	bigger.nr = ti->nr;
	free(ti->slot);
	*ti = bigger;
	return 0;
}

int vs_id_index_add(struct vs_id_index *ti, uint32_t id, uint32_t index)
{
	if (make_room(ti))
		return -1;
	*slot_of(ti, id) = (struct vs_id_slot){ id, index + 1 };
	ti->nr++;
	return 0;
}

void vs_id_index_release(struct vs_id_index *ti)
{
	free(ti->slot);
	*ti = (struct vs_id_index){ 0 };
}
