// SPDX-License-Identifier: MIT
/*
 * signature.c - varscope signature (placeholder until its issue lands)
 */
#include "builtin.h"

int cmd_signature(int argc, const char **argv)
{
	return cmd_not_implemented(argc, argv, "varscope signature (build|infer) [<options>]");
}
