// SPDX-License-Identifier: MIT
/*
 * segments.c - varscope segments (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_segments(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope segments [<options>]");
}
