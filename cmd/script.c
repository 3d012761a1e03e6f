// SPDX-License-Identifier: MIT
/*
 * script.c - varscope script (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_script(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope script [<options>]");
}
