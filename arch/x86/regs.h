/* SPDX-License-Identifier: MIT */
/*
 * regs.h - the x86-64 user registers a sample carries for DWARF unwinding
 * (PERF_SAMPLE_REGS_USER), and their DWARF register numbers.
 */
#ifndef VS_ARCH_X86_REGS_H
#define VS_ARCH_X86_REGS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The registers DWARF call frame information can name: the 16 general
 * purpose ones and the instruction pointer, as perf's PERF_REG_X86_*
 * bits (perf record --call-graph dwarf takes the same).
 */
extern const uint64_t vs_x86_regs_user_mask;

#define VS_X86_DWARF_REGS	17	/* rax ... r15, then rip (16) */
#define VS_X86_DWARF_BP		6
#define VS_X86_DWARF_SP		7
#define VS_X86_DWARF_IP		16

/**
 * vs_x86_regs_dwarf - the registers @regs of a sample, one per bit of
 * @mask in bit order (perf's layout), by DWARF number into @dwarf
 * @have: bit N set when DWARF register N was among them
 *
 * Registers of @mask that DWARF does not number are skipped.  Reads at
 * most @nr values.  Returns 0, or -1 when @regs has fewer than @mask says.
 */
int vs_x86_regs_dwarf(uint64_t mask, const uint64_t *regs, size_t nr,
		      uint64_t dwarf[VS_X86_DWARF_REGS], uint32_t *have);

#endif /* VS_ARCH_X86_REGS_H */
