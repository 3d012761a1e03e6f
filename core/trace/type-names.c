// SPDX-License-Identifier: MIT
/*
 * type-names.c - the names of task types (type-names.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/parse-options.h"
#include "core/trace/type-names.h"

bool vs_type_name_valid(const char *name, size_t len)
{
	bool digits = true;
	size_t i;

	if (!len || len > VS_TYPE_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] < 0x20 || name[i] > 0x7e)
			return false;
		if (name[i] < '0' || name[i] > '9')
			digits = false;
	}
	return !digits;
}

int vs_type_names_add(struct vs_type_names *tn, uint32_t type,
		      const char *name)
{
	char *copy;

	if (vs_id_index_find(&tn->index, type) >= 0 ||
	    !vs_type_name_valid(name, strnlen(name, VS_TYPE_NAME_MAX + 1)))
		return 0;
	if (ALLOC_GROW(tn->names, tn->nr + 1, tn->cap) ||
	    !(copy = strdup(name)))
		return -1;
	if (vs_id_index_add(&tn->index, type, tn->nr)) {
		free(copy);
		return -1;
	}
	tn->names[tn->nr++] = (struct vs_type_name){ type, copy };
	return 1;
}

int vs_type_names_merge(struct vs_type_names *dst,
			const struct vs_type_names *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++)
		if (vs_type_names_add(dst, src->names[i].type,
				      src->names[i].name) < 0)
			return -1;
	return 0;
}

int vs_type_names_read(struct vs_type_names *tn, const char *path)
{
	struct vs_reader *r = vs_reader_open(path, NULL, 0);
	struct vs_record rec;
	int ret = 0;

	if (!r)
		return 0;
	/* past every chunk: the context records of all of them */
	if (vs_reader_seek_time(r, UINT64_MAX) == 0)
		while (ret >= 0 && vs_reader_next(r, &rec) > 0)
			if (rec.kind == VS_REC_TYPE_NAME)
				ret = vs_type_names_add(tn, rec.type_name.type,
							rec.type_name.name);
	vs_reader_close(r);
	return ret < 0 ? -1 : 0;
}

const char *vs_type_names_get(const struct vs_type_names *tn, uint32_t type)
{
	long i = vs_id_index_find(&tn->index, type);

	return i < 0 ? NULL : tn->names[i].name;
}

const char *vs_type_label(const struct vs_type_names *tn, uint32_t type,
			  char *buf, size_t len)
{
	const char *name = vs_type_names_get(tn, type);

	if (name)
		snprintf(buf, len, "%s (%u)", name, type);
	else
		snprintf(buf, len, "%u", type);
	return buf;
}

uint32_t vs_type_option(const struct vs_type_names *tn, const char *arg)
{
	const struct vs_type_name *found = NULL;
	uint32_t type;
	size_t i;

	if (!vs_parse_task_type(arg, &type))
		return type;
	for (i = 0; i < tn->nr; i++) {
		if (strcmp(tn->names[i].name, arg))
			continue;
		if (found)
			option_error("type", "'%s' names task types %u and %u: "
				     "give the number", arg, found->type,
				     tn->names[i].type);
		found = &tn->names[i];
	}
	if (!found)
		option_error("type", "'%s' is neither a task type number nor "
			     "the name of a task type of the trace", arg);
	return found->type;
}

int vs_type_option_of(const char *arg, const char *const *paths, size_t nr,
		      uint32_t *type)
{
	struct vs_type_names tn = { 0 };
	size_t i;

	if (!vs_parse_task_type(arg, type))
		return 0;
	for (i = 0; i < nr; i++)
		if (vs_type_names_read(&tn, paths[i])) {
			vs_type_names_release(&tn);
			return -1;
		}
	*type = vs_type_option(&tn, arg);
	vs_type_names_release(&tn);
	return 0;
}

void vs_type_names_release(struct vs_type_names *tn)
{
	size_t i;

	for (i = 0; i < tn->nr; i++)
		free((char *)tn->names[i].name);
	free(tn->names);
	vs_id_index_release(&tn->index);
	*tn = (struct vs_type_names){ 0 };
}
