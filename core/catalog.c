// SPDX-License-Identifier: MIT
/*
 * catalog.c - the event catalog: an array of definitions indexed by id and
 * an open-addressing hash of names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/catalog.h"

struct vs_catalog {
	struct vs_event_def *defs;
	unsigned int nr;
	size_t alloc;
	uint16_t *hash;			/* id + 1, 0 = empty */
	unsigned int hash_size;		/* power of two, > 2 * nr */
	vs_catalog_new_fn on_new;
	void *ctx;
};

static unsigned int name_hash(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

struct vs_catalog *vs_catalog_new(vs_catalog_new_fn on_new, void *ctx)
{
	struct vs_catalog *cat = calloc(1, sizeof(*cat));

	if (!cat)
		return NULL;
	cat->on_new = on_new;
	cat->ctx = ctx;
	return cat;
}

void vs_catalog_free(struct vs_catalog *cat)
{
	unsigned int i;

	if (!cat)
		return;
	for (i = 0; i < cat->nr; i++)
		free((char *)cat->defs[i].name);
	free(cat->defs);
	free(cat->hash);
	free(cat);
}

static uint16_t *slot_of(const struct vs_catalog *cat, const char *name)
{
	unsigned int mask = cat->hash_size - 1;
	unsigned int i = name_hash(name) & mask;

	while (cat->hash[i] &&
	       strcmp(cat->defs[cat->hash[i] - 1].name, name))
		i = (i + 1) & mask;
	return &cat->hash[i];
}

static int grow_hash(struct vs_catalog *cat)
{
	unsigned int size = cat->hash_size ? cat->hash_size * 2 : 64;
	unsigned int i;

	free(cat->hash);
	cat->hash = calloc(size, sizeof(*cat->hash));
	if (!cat->hash)
		return -1;
	cat->hash_size = size;
	for (i = 0; i < cat->nr; i++)
		*slot_of(cat, cat->defs[i].name) = i + 1;
	return 0;
}

uint16_t vs_catalog_find(const struct vs_catalog *cat, const char *name)
{
	uint16_t slot;

	if (!cat->hash_size)
		return VS_EVENT_NO_PARENT;
	slot = *slot_of(cat, name);
	return slot ? (uint16_t)(slot - 1) : (uint16_t)VS_EVENT_NO_PARENT;
}

uint16_t vs_catalog_intern(struct vs_catalog *cat, const char *name,
			   const char *unit, uint8_t group, uint16_t parent)
{
	struct vs_event_def *def;
	uint16_t id = vs_catalog_find(cat, name);

	if (id != VS_EVENT_NO_PARENT)
		return id;
	if (cat->nr >= VS_EVENT_MAX)
		return VS_EVENT_NO_PARENT;
	if (2 * (cat->nr + 1) >= cat->hash_size && grow_hash(cat))
		return VS_EVENT_NO_PARENT;
	if (ALLOC_GROW(cat->defs, cat->nr + 1, cat->alloc))
		return VS_EVENT_NO_PARENT;
	def = &cat->defs[cat->nr];
	def->id = cat->nr;
	def->parent = parent;
	def->group = group;
	def->unit = unit;
	def->name = strdup(name);
	if (!def->name)
		return VS_EVENT_NO_PARENT;
	*slot_of(cat, name) = ++cat->nr;
	if (cat->on_new)
		cat->on_new(cat->ctx, def);
	return def->id;
}

const struct vs_event_def *vs_catalog_get(const struct vs_catalog *cat,
					  uint16_t id)
{
	return id < cat->nr ? &cat->defs[id] : NULL;
}

unsigned int vs_catalog_size(const struct vs_catalog *cat)
{
	return cat->nr;
}

int vs_func_event_name(char *buf, size_t len, const char *symbol)
{
	return snprintf(buf, len, "func:%s.time", symbol);
}

int vs_func_total_event_name(char *buf, size_t len, const char *symbol)
{
	return snprintf(buf, len, "func:%s.total", symbol);
}
