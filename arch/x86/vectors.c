// SPDX-License-Identifier: MIT
/*
 * vectors.c - the x86 APIC vectors with entry/exit tracepoints in the
 * irq_vectors system (arch/x86/include/asm/trace/irq_vectors.h).  A kernel
 * without one of them simply lacks the tracepoint; the recorder skips it.
 */
#include <stddef.h>

#include "core/arch.h"

const char *const vs_arch_irq_vectors[] = {
	"local_timer",
	"reschedule",
	"call_function",
	"call_function_single",
	"irq_work",
	"spurious_apic",
	"error_apic",
	"x86_platform_ipi",
	"thermal_apic",
	"threshold_apic",
	"deferred_error_apic",
	"reboot",
	NULL
};
