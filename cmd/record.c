// SPDX-License-Identifier: MIT
/*
 * record.c - varscope record (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_record(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope record [<options>] [--] COMMAND [ARGS]");
}
