// SPDX-License-Identifier: MIT
/*
 * placeholder.c - what a command does before its issue lands: it parses
 * options like every command (so --help works) and says it is not there.
 * Remove this file with the last placeholder.
 */
#include <stdio.h>

#include "builtin.h"
#include "../core/parse-options.h"

int cmd_not_implemented(int argc, const char **argv, const char *synopsis)
{
	const char *const usage[] = { synopsis, NULL };
	const struct vs_option options[] = {
		OPT_END()
	};

	parse_options(argc, argv, options, usage, VS_PARSE_STOP_AT_NON_OPTION);
	fprintf(stderr, "varscope %s: not implemented yet\n", vs_cmd_name);
	return 1;
}
