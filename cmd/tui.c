// SPDX-License-Identifier: MIT
/*
 * tui.c - varscope tui (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_tui(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope tui: not implemented yet\n");
	return 1;
}
