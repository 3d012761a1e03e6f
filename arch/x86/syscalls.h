/* SPDX-License-Identifier: MIT */
/*
 * syscalls.h - x86_64 system call numbers <-> names, the one table
 * every command uses (signature episodes, script's syscall records).
 */
#ifndef VS_ARCH_X86_SYSCALLS_H
#define VS_ARCH_X86_SYSCALLS_H

#define VS_NR_SYSCALLS	512

/*
 * Made by the kernel's own uprobe trampolines (uretprobe: Linux 6.11+,
 * on every probed return; uprobe: 6.17+, at optimized probes), not by the
 * program: core/syscall-trace.c drops them.
 */
#define VS_NR_URETPROBE	335
#define VS_NR_UPROBE	336

extern const char *const vs_syscall_names[VS_NR_SYSCALLS];

/**
 * vs_syscall_name - the name of system call @nr ("read"), or NULL when
 * the table has none (the caller then prints "syscall_NR")
 */
const char *vs_syscall_name(unsigned int nr);

/**
 * vs_syscall_number - the number of the system call @name, with or
 * without a "sys_" prefix; -1 when unknown
 */
int vs_syscall_number(const char *name);

#endif /* VS_ARCH_X86_SYSCALLS_H */
