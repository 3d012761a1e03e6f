// SPDX-License-Identifier: MIT
/*
 * regs.c - perf's x86-64 register numbers to DWARF's.
 */
#include <asm/perf_regs.h>

#include "arch/x86/regs.h"

/* DWARF number of each PERF_REG_X86_*, -1 for those it has none */
static const signed char dwarf_of_perf[PERF_REG_X86_64_MAX] = {
	[PERF_REG_X86_AX] = 0,  [PERF_REG_X86_DX] = 1,
	[PERF_REG_X86_CX] = 2,  [PERF_REG_X86_BX] = 3,
	[PERF_REG_X86_SI] = 4,  [PERF_REG_X86_DI] = 5,
	[PERF_REG_X86_BP] = VS_X86_DWARF_BP,
	[PERF_REG_X86_SP] = VS_X86_DWARF_SP,
	[PERF_REG_X86_R8] = 8,  [PERF_REG_X86_R9] = 9,
	[PERF_REG_X86_R10] = 10, [PERF_REG_X86_R11] = 11,
	[PERF_REG_X86_R12] = 12, [PERF_REG_X86_R13] = 13,
	[PERF_REG_X86_R14] = 14, [PERF_REG_X86_R15] = 15,
	[PERF_REG_X86_IP] = VS_X86_DWARF_IP,
	[PERF_REG_X86_FLAGS] = -1, [PERF_REG_X86_CS] = -1,
	[PERF_REG_X86_SS] = -1, [PERF_REG_X86_DS] = -1,
	[PERF_REG_X86_ES] = -1, [PERF_REG_X86_FS] = -1,
	[PERF_REG_X86_GS] = -1,
};

_Static_assert(VS_X86_DWARF_REGS <= VS_ARCH_DWARF_REGS,
	       "x86-64's DWARF registers fit core/arch.h's arrays");

const unsigned int vs_arch_dwarf_ip = VS_X86_DWARF_IP;
const unsigned int vs_arch_dwarf_sp = VS_X86_DWARF_SP;
const unsigned int vs_arch_dwarf_fp = VS_X86_DWARF_BP;

const uint64_t vs_arch_regs_user_mask =
	(1ull << PERF_REG_X86_AX) | (1ull << PERF_REG_X86_BX) |
	(1ull << PERF_REG_X86_CX) | (1ull << PERF_REG_X86_DX) |
	(1ull << PERF_REG_X86_SI) | (1ull << PERF_REG_X86_DI) |
	(1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) |
	(1ull << PERF_REG_X86_IP) | (1ull << PERF_REG_X86_R8) |
	(1ull << PERF_REG_X86_R9) | (1ull << PERF_REG_X86_R10) |
	(1ull << PERF_REG_X86_R11) | (1ull << PERF_REG_X86_R12) |
	(1ull << PERF_REG_X86_R13) | (1ull << PERF_REG_X86_R14) |
	(1ull << PERF_REG_X86_R15);

int vs_arch_regs_dwarf(uint64_t mask, const uint64_t *regs, size_t nr,
		       uint64_t dwarf[VS_ARCH_DWARF_REGS], uint32_t *have)
{
	size_t i = 0;
	int bit;

	*have = 0;
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		if (i == nr)
			return -1;
		if (bit < PERF_REG_X86_64_MAX && dwarf_of_perf[bit] >= 0) {
			dwarf[dwarf_of_perf[bit]] = regs[i];
			*have |= 1u << dwarf_of_perf[bit];
		}
		i++;
	}
	return 0;
}
