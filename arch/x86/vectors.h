/* SPDX-License-Identifier: MIT */
/*
 * vectors.h - the x86 APIC vectors traced by irq_vectors:<name>_entry/exit.
 */
#ifndef VS_ARCH_X86_VECTORS_H
#define VS_ARCH_X86_VECTORS_H

/* NULL-terminated; the event names are irq.vector.<name>.time/.count. */
extern const char *const vs_x86_vectors[];

#endif /* VS_ARCH_X86_VECTORS_H */
