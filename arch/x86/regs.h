/* SPDX-License-Identifier: MIT */
/*
 * regs.h - the x86-64 DWARF register numbers behind the user registers
 * of core/arch.h (vs_arch_regs_user_mask, vs_arch_regs_dwarf()).
 */
#ifndef VS_ARCH_X86_REGS_H
#define VS_ARCH_X86_REGS_H

#include "core/arch.h"

#define VS_X86_DWARF_REGS	17	/* rax ... r15, then rip (16) */
#define VS_X86_DWARF_BP		6
#define VS_X86_DWARF_SP		7
#define VS_X86_DWARF_IP		16

#endif /* VS_ARCH_X86_REGS_H */
