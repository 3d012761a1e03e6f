// SPDX-License-Identifier: MIT
/*
 * names.c - the names of task types in a recording: those the
 * program gives with vs_task_type_name(), and the functions of
 * --task-func types.
 *
 * A program's name is untrusted: it is checked as core/trace/type-names.h
 * says (length, printable, not all digits), a type keeps its first name
 * (the same name again is no news, another is refused), and at most
 * VS_MAX_TYPE_NAMES types are named, so that a flood of
 * messages costs a bounded table; what is refused is counted for the
 * summary.
 */
#include <string.h>

#include "core/record/record-int.h"
#include "core/record/task-ring.h"

_Static_assert(VS_NAME_MSG_MAX == VS_TYPE_NAME_MAX,
	       "the message holds a whole name");

bool vs_session_name_type(struct vs_session *s, uint32_t type,
			  const char *name, size_t len)
{
	struct vs_record rec = { .kind = VS_REC_TYPE_NAME };
	char copy[VS_TYPE_NAME_MAX + 1];
	const char *known;
	int ret;

	if (len > VS_TYPE_NAME_MAX || s->type_names.nr >= VS_MAX_TYPE_NAMES ||
	    memchr(name, 0, len)) {
		s->stats.names_refused++;
		return false;
	}
	memcpy(copy, name, len);
	copy[len] = '\0';
	known = vs_type_names_get(&s->type_names, type);
	if (known && !strcmp(known, copy))	/* the same again: no news */
		return false;
	ret = vs_type_names_add(&s->type_names, type, copy);
	if (ret <= 0) {
		if (!ret)	/* invalid, or a second name */
			s->stats.names_refused++;
		return false;
	}
	rec.type_name = (struct vs_type_name){ type, copy };
	vs_session_write(s, &rec);
	return true;
}

bool vs_session_name_type_msg(struct vs_session *s,
			      const struct vs_type_name_msg *msg)
{
	return vs_session_name_type(s, msg->type, msg->name,
				    strnlen(msg->name, sizeof(msg->name)));
}
