// SPDX-License-Identifier: MIT
/*
 * report.c - varscope report (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_report(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope report: not implemented yet\n");
	return 1;
}
