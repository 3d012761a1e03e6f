// SPDX-License-Identifier: MIT
/*
 * signature.c - varscope signature (placeholder until its issue lands)
 */
#include <stdio.h>

#include "builtin.h"

int cmd_signature(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "varscope signature: not implemented yet\n");
	return 1;
}
