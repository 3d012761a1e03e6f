// SPDX-License-Identifier: MIT
/*
 * report.c - varscope report (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_report(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope report [<options>]");
}
