// SPDX-License-Identifier: MIT
/*
 * segments.c - varscope segments (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_segments(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope segments: not implemented yet\n");
	return 1;
}
