/* SPDX-License-Identifier: MIT */
/*
 * catalog.h - the event catalog of a recording: name -> id, unit, group,
 * parent.  Entries are made on the fly (a new interrupt name, a new
 * counter) and announced through a callback so the writer can emit the
 * VS_REC_EVENT_DEF record before the first task that uses the id.
 */
#ifndef VS_CORE_CATALOG_H
#define VS_CORE_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct vs_catalog;

typedef void (*vs_catalog_new_fn)(void *ctx, const struct vs_event_def *def);

/**
 * vs_catalog_new - an empty catalog
 * @on_new: called once per new entry (may be NULL)
 * @ctx: passed to @on_new
 */
struct vs_catalog *vs_catalog_new(vs_catalog_new_fn on_new, void *ctx);
void vs_catalog_free(struct vs_catalog *cat);

/**
 * vs_catalog_intern - the id of @name, made if new
 * @unit: "ns" or "count" ...; @group: enum vs_event_group;
 * @parent: id of the including event or VS_EVENT_NO_PARENT
 *
 * Returns VS_EVENT_NO_PARENT when the catalog is full (65534 entries).
 */
uint16_t vs_catalog_intern(struct vs_catalog *cat, const char *name,
			   const char *unit, uint8_t group, uint16_t parent);

/**
 * vs_catalog_find - the id of @name, or VS_EVENT_NO_PARENT if absent
 */
uint16_t vs_catalog_find(const struct vs_catalog *cat, const char *name);

const struct vs_event_def *vs_catalog_get(const struct vs_catalog *cat,
					  uint16_t id);
unsigned int vs_catalog_size(const struct vs_catalog *cat);

/**
 * vs_func_event_name - the event name of function @symbol's time in a
 * task, "func:<symbol>.time" (group VS_GROUP_FUNC, unit ns), the one name
 * whether it comes from samples or from record --probe
 *
 * Returns what snprintf() returns.
 */
int vs_func_event_name(char *buf, size_t len, const char *symbol);

/**
 * vs_func_total_event_name - the event name of function @symbol's
 * inclusive time in a task from samples (its callees' included),
 * "func:<symbol>.total"
 *
 * Returns what snprintf() returns.
 */
int vs_func_total_event_name(char *buf, size_t len, const char *symbol);

#endif /* VS_CORE_CATALOG_H */
