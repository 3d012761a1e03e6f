// SPDX-License-Identifier: MIT
/*
 * syscalls.c - look-ups in the generated x86_64 system call table.
 */
#include <string.h>

#include "arch/x86/syscalls.h"

const char *vs_syscall_name(unsigned int nr)
{
	return nr < VS_NR_SYSCALLS ? vs_syscall_names[nr] : NULL;
}

int vs_syscall_number(const char *name)
{
	unsigned int nr;

	if (!strncmp(name, "sys_", 4))
		name += 4;
	for (nr = 0; nr < VS_NR_SYSCALLS; nr++)
		if (vs_syscall_names[nr] && !strcmp(vs_syscall_names[nr], name))
			return nr;
	return -1;
}

bool vs_syscall_by_uprobe(long nr)
{
	return nr == VS_NR_URETPROBE || nr == VS_NR_UPROBE;
}
