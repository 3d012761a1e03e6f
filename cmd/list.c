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
#include "ui/json.h"
#include "ui/list-print.h"
#include "ui/output-format.h"

static const char *const list_usage[] = {
	"varscope list [<options>] [EVENT...]",
	NULL,
};

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
			vs_list_print_json(&j, e);
		else
			vs_list_print_text(e);
	}
	return status;
}
