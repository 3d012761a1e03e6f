// SPDX-License-Identifier: MIT
/*
 * diff.c - varscope diff (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_diff(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope diff: not implemented yet\n");
	return 1;
}
