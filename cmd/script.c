// SPDX-License-Identifier: MIT
/*
 * script.c - varscope script (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_script(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope script: not implemented yet\n");
	return 1;
}
