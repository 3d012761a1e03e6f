/* SPDX-License-Identifier: MIT */
/*
 * type-names.h - the names of task types (VS_REC_TYPE_NAME records).
 *
 * A program names its task types with vs_task_type_name(); record names
 * a --task-func type after its function.  The names are context records
 * that may come anywhere in a trace, after the type's first tasks too:
 * the task set keeps those it read (vs_taskset.names), script reads them
 * in a pass over the context chunks alone (vs_type_names_read()) before
 * it prints, and every command's --type takes a name or a number through
 * vs_type_option() or vs_type_option_of().
 */
#ifndef VS_CORE_TYPE_NAMES_H
#define VS_CORE_TYPE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"
#include "core/id-index.h"

/* Longest name, in bytes without the NUL. */
#define VS_TYPE_NAME_MAX	64

struct vs_type_names {
	size_t nr, cap;
	struct vs_type_name *names;	/* in the order added, strings owned */
	struct vs_id_index index;	/* type -> names[] */
};

/**
 * vs_type_name_valid - whether the @len bytes of @name make a task type
 * name: 1 to VS_TYPE_NAME_MAX printable ASCII characters (space
 * included), not all digits (a number given to --type is a type number)
 */
bool vs_type_name_valid(const char *name, size_t len);

/**
 * vs_type_names_add - name task type @type @name, unless it has a name
 *
 * Returns 1 when added, 0 when @type already has a name or @name is not
 * valid (vs_type_name_valid()), -1 when out of memory.
 */
int vs_type_names_add(struct vs_type_names *tn, uint32_t type,
		      const char *name);

/**
 * vs_type_names_merge - add the names of @src to @dst (a type named in
 * both keeps @dst's); 0, or -1 when out of memory
 */
int vs_type_names_merge(struct vs_type_names *dst,
			const struct vs_type_names *src);

/**
 * vs_type_names_read - add the type names of the trace at @path
 *
 * Reads the context chunks alone (vs_reader_seek_time() past the end).
 * A file that cannot be read adds nothing: the command's own reader says
 * why.  A type keeps the first name read (of this file or an earlier
 * one).  Returns 0, or -1 when out of memory.
 */
int vs_type_names_read(struct vs_type_names *tn, const char *path);

/**
 * vs_type_names_get - the name of task type @type, or NULL
 */
const char *vs_type_names_get(const struct vs_type_names *tn, uint32_t type);

/**
 * vs_type_label - "NAME (TYPE)" when @type has a name, else "TYPE", in @buf
 */
const char *vs_type_label(const struct vs_type_names *tn, uint32_t type,
			  char *buf, size_t len);

/**
 * vs_type_option - the task type that --type @arg names: a decimal type
 * number, or the name of a type in @tn; exits through option_error()
 * (status 129) when it is neither
 */
uint32_t vs_type_option(const struct vs_type_names *tn, const char *arg);

/**
 * vs_type_option_of - the task type that --type @arg names in the traces
 * @paths (@nr of them): as vs_type_option(), with the names of the traces
 * read (vs_type_names_read()) only when @arg is not a number.  Returns 0
 * with *@type set, or -1 when out of memory.
 */
int vs_type_option_of(const char *arg, const char *const *paths, size_t nr,
		      uint32_t *type);

/**
 * vs_type_names_release - free the names of @tn; it is empty again
 */
void vs_type_names_release(struct vs_type_names *tn);

#endif /* VS_CORE_TYPE_NAMES_H */
