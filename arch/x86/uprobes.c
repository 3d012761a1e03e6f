// SPDX-License-Identifier: MIT
/*
 * uprobes.c - which first instructions of a probed function the kernel
 * emulates (arch/x86/kernel/uprobes.c: branch_setup_xol_ops() and
 * push_setup_xol_ops()), and two functions of varscope's own, one of
 * each kind, for record to measure what a probe pair costs on each.
 */
#include "core/arch.h"

/*
 * Both do nothing.  Assembly: the compiler chooses a C function's first
 * instruction, and the measurement needs to know it.
 */
__asm__(".text\n"
	".globl vs_arch_probe_target_emulated\n"
	".type vs_arch_probe_target_emulated, @function\n"
	"vs_arch_probe_target_emulated:\n"
	"	push %rbx\n"
	"	pop %rbx\n"
	"	ret\n"
	".size vs_arch_probe_target_emulated, "
	".-vs_arch_probe_target_emulated\n"
	".globl vs_arch_probe_target_stepped\n"
	".type vs_arch_probe_target_stepped, @function\n"
	"vs_arch_probe_target_stepped:\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size vs_arch_probe_target_stepped, "
	".-vs_arch_probe_target_stepped\n");

bool vs_arch_uprobe_emulated(const uint8_t *insn, size_t len)
{
	if (!len)
		return false;
	/* push of a register, r8-r15 with REX.B */
	if (insn[0] >= 0x50 && insn[0] <= 0x57)
		return true;
	if (len >= 2 && insn[0] == 0x41 && insn[1] >= 0x50 && insn[1] <= 0x57)
		return true;
	/* nop, call, jmp and jcc with a relative target */
	if (insn[0] == 0x90 || insn[0] == 0xe8 || insn[0] == 0xe9 ||
	    insn[0] == 0xeb || (insn[0] >= 0x70 && insn[0] <= 0x7f))
		return true;
	return len >= 2 && insn[0] == 0x0f && insn[1] >= 0x80 &&
	       insn[1] <= 0x8f;
}
