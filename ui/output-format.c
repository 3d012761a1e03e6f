// SPDX-License-Identifier: MIT
/*
 * output-format.c - the --format option of the printing commands.
 */
#include <stdio.h>
#include <string.h>

#include "core/parse-options.h"
#include "ui/output-format.h"

static const char *const format_names[VS_FORMAT__NR] = {
	[VS_FORMAT_TEXT] = "text",
	[VS_FORMAT_JSON] = "json",
	[VS_FORMAT_CSV] = "csv",
};

enum vs_output_format vs_format_option(const char *name, unsigned int allowed)
{
	char names[64] = "";
	unsigned int f, left;
	size_t len = 0;

	for (f = 0; f < VS_FORMAT__NR; f++)
		if ((allowed & (1u << f)) && !strcmp(name, format_names[f]))
			return f;
	/* "text, json or csv": the allowed names, the last after "or" */
	for (f = 0; f < VS_FORMAT__NR; f++) {
		if (!(allowed & (1u << f)))
			continue;
		left = __builtin_popcount(allowed >> (f + 1));
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				format_names[f], !left ? "" :
				left == 1 ? " or " : ", ");
	}
	option_error("format", "must be %s", names);
}
