// SPDX-License-Identifier: MIT
/*
 * diff.c - varscope diff (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_diff(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope diff [<options>] SEGMENT1 SEGMENT2");
}
