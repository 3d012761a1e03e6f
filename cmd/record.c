// SPDX-License-Identifier: MIT
/*
 * record.c - varscope record (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_record(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope record: not implemented yet\n");
	return 1;
}
