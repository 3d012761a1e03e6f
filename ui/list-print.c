// SPDX-License-Identifier: MIT
/*
 * list-print.c - what varscope list prints of an event (list-print.h).
 */
#include <stdio.h>

#include "core/trace/trace.h"
#include "ui/list-print.h"

/* The flags of @e in words, each after a space, into @buf. */
static void notes(const struct vs_arch_event *e, char *buf, size_t len)
{
	uint32_t flags = vs_arch_event_flags(e);

	snprintf(buf, len, "%s%s%s%s",
		 flags & VS_ARCH_EV_FIXED ? " fixed" : "",
		 flags & VS_ARCH_EV_NOT_RECORDED ? " not-recorded" : "",
		 flags & VS_ARCH_EV_UNLISTED ? " not-in-intel-list" : "",
		 flags & VS_ARCH_EV_PEBS ? " pebs" : "");
}

void vs_list_print_text(const struct vs_arch_event *e)
{
	const char *parent = vs_arch_event_parent(e);
	char enc[96], note[64];

	vs_arch_event_format(e, enc, sizeof(enc));
	notes(e, note, sizeof(note));
	printf("%-46s %-6s %-5s %-46s %s%s\n", vs_arch_event_vs_name(e),
	       vs_arch_event_unit(e), vs_group_name(vs_arch_event_group(e)),
	       parent ? parent : "-", enc, note);
}

void vs_list_print_json(struct json_out *j, const struct vs_arch_event *e)
{
	const char *parent = vs_arch_event_parent(e);
	uint32_t flags = vs_arch_event_flags(e);
	struct vs_hw_config hw;
	char enc[96];

	vs_arch_event_hw(e, &hw);
	vs_arch_event_format(e, enc, sizeof(enc));
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, vs_arch_event_vs_name(e));
	json_key(j, "intel");
	json_string(j, vs_arch_event_name(e));
	json_key(j, "unit");
	json_string(j, vs_arch_event_unit(e));
	json_key(j, "group");
	json_string(j, vs_group_name(vs_arch_event_group(e)));
	json_key(j, "parent");
	json_string_or_null(j, parent);
	json_key(j, "encoding");
	json_string(j, enc);
	json_key(j, "type");
	json_u64(j, hw.type);
	json_key(j, "config");
	json_u64(j, hw.config);
	json_key(j, "fixed");
	json_bool(j, flags & VS_ARCH_EV_FIXED);
	json_key(j, "recorded");
	json_bool(j, vs_arch_event_recorded(e) || (flags & VS_ARCH_EV_FIXED));
	json_key(j, "pebs");
	json_bool(j, flags & VS_ARCH_EV_PEBS);
	json_end_object(j);
	json_newline(j);
}
