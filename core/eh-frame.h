/* SPDX-License-Identifier: MIT */
/*
 * eh-frame.h - the canonical frame address (CFA) rule of an address, from
 * an ELF file's .eh_frame call frame information.  Enough to unwind one
 * frame of code built with or without frame pointers: CFA = register +
 * offset, return address at CFA - 8, the caller's %rbp where it was saved.
 */
#ifndef VS_CORE_EH_FRAME_H
#define VS_CORE_EH_FRAME_H

#include <gelf.h>
#include <stdint.h>
#include <stddef.h>

#define VS_DWARF_RBP	6
#define VS_DWARF_RSP	7
#define VS_DWARF_RA	16	/* the return address column */

struct vs_eh_frame;

/**
 * vs_eh_frame_load - index the FDEs of @elf's .eh_frame; NULL when it has
 * none (or memory ran out).  The index keeps a copy of the section.
 */
struct vs_eh_frame *vs_eh_frame_load(Elf *elf);

void vs_eh_frame_free(struct vs_eh_frame *eh);

/* How to find the caller's frame at one address. */
struct vs_cfa_rule {
	int reg;		/* CFA = register @reg (DWARF number) ... */
	int64_t off;		/* ... + @off; return address at CFA - 8 */
	int rbp_saved;		/* the caller's %rbp is at CFA + @rbp_off */
	int64_t rbp_off;
	int ra_undefined;	/* no caller: the outermost frame */
};

/**
 * vs_eh_frame_rule - the CFA rule at link-time address @vaddr
 *
 * Returns 0, or -1 when no FDE covers @vaddr or the rule is an expression.
 */
int vs_eh_frame_rule(const struct vs_eh_frame *eh, uint64_t vaddr,
		     struct vs_cfa_rule *rule);

#endif /* VS_CORE_EH_FRAME_H */
