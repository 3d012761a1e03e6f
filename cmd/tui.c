// SPDX-License-Identifier: MIT
/*
 * tui.c - varscope tui (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_tui(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope tui [<options>]");
}
