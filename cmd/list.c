// SPDX-License-Identifier: MIT
/*
 * list.c - varscope list: the hardware events varscope knows on this CPU,
 * and whether its PMU can count them (perf list's counterpart).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/arch.h"
#include "core/parse-options.h"
#include "core/pmu.h"
#include "core/trace/trace.h"
#include "ui/json.h"
#include "ui/output-format.h"

static const char *const list_usage[] = {
	"varscope list [<options>] [EVENT...]",
	NULL,
};

static void notes(const struct vs_arch_event *e, char *buf, size_t len)
{
	uint32_t flags = vs_arch_event_flags(e);

	snprintf(buf, len, "%s%s%s%s",
		 flags & VS_ARCH_EV_FIXED ? " fixed" : "",
		 flags & VS_ARCH_EV_NOT_RECORDED ? " not-recorded" : "",
		 flags & VS_ARCH_EV_UNLISTED ? " not-in-intel-list" : "",
		 flags & VS_ARCH_EV_PEBS ? " pebs" : "");
}

static void print_text(const struct vs_arch_event *e)
{
	const char *parent = vs_arch_event_parent(e);
	char enc[96], note[64];

	vs_arch_event_format(e, enc, sizeof(enc));
	notes(e, note, sizeof(note));
	printf("%-46s %-6s %-5s %-46s %s%s\n", vs_arch_event_vs_name(e),
	       vs_arch_event_unit(e), vs_group_name(vs_arch_event_group(e)),
	       parent ? parent : "-", enc, note);
}

static void print_json(struct json_out *j, const struct vs_arch_event *e)
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

/* Resolve @name in @t: a name, or perf's raw syntax for an event of @t. */
static const struct vs_arch_event *resolve(const struct vs_arch_table *t,
					  const char *name)
{
	const struct vs_arch_event *e = vs_arch_event_lookup(t, name);
	struct vs_hw_config hw;
	char err[160];

	if (e)
		return e;
	if (vs_arch_parse_raw(name, &hw, err, sizeof(err)) == 0) {
		e = vs_arch_event_by_config(t, &hw);
		if (!e)
			fprintf(stderr, "varscope list: '%s' (config 0x%llx) is not "
				"in the %s table\n", name,
				(unsigned long long)hw.config, t->name);
		return e;
	}
	if (!strchr(name, '/') && name[0] != 'r')
		fprintf(stderr, "varscope list: '%s': no such event in the %s "
			"table\n", name, t->name);
	else
		fprintf(stderr, "varscope list: %s\n", err);
	return NULL;
}

int cmd_list(int argc, const char **argv)
{
	const char *format = "text", *table = NULL;
	const struct vs_option options[] = {
		OPT_STRING(0, "format", &format, "fmt", "text (default) or json"),
		OPT_STRING(0, "table", &table, "name",
			   "list this event table (skylakex, generic) instead "
			   "of the CPU's"),
		OPT_END()
	};
	const struct vs_arch_table *t;
	struct json_out j;
	struct vs_pmu pmu;
	char line[256];
	unsigned int i;
	int n, status = 0;
	bool json;

	n = parse_options(argc, argv, options, list_usage, 0);
	json = vs_format_option(format, VS_FORMATS_TEXT_JSON) ==
	       VS_FORMAT_JSON;
	t = table ? vs_arch_table_by_name(table) : NULL;
	if (table && !t)
		option_error("table", "must be skylakex or generic");

	vs_pmu_probe(&pmu);
	vs_pmu_status(&pmu, line, sizeof(line));
	fprintf(stderr, "%s\n", line);
	if (!t)
		t = pmu.table;

	json_init(&j, stdout);
	for (i = 0; i < (n ? (unsigned int)n : t->nr); i++) {
		const struct vs_arch_event *e = n ? resolve(t, argv[i]) :
						    vs_arch_table_event(t, i);

		if (!e) {
			status = 1;
			continue;
		}
		if (json)
			print_json(&j, e);
		else
			print_text(e);
	}
	return status;
}
