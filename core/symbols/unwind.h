/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - call chains of user threads from a copy of the top of their
 * stack and their registers (a sample's PERF_SAMPLE_STACK_USER and
 * PERF_SAMPLE_REGS_USER), unwound offline with libdw as perf does: the
 * call frame information of each mapped file (.eh_frame, .debug_frame,
 * that of its separate debug file), the frame record at %rbp where none
 * covers the code.  For the samples of `record --call-graph dwarf` and
 * the system calls of the signature tracer alike.
 */
#ifndef VS_CORE_UNWIND_H
#define VS_CORE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vs_symbols;
struct vs_unwinder;

/* A thread's user stack where it stopped. */
struct vs_user_stack {
	uint64_t regs_mask;		/* perf's PERF_REG_* bits of @regs */
	const uint64_t *regs;		/* one value per bit, in bit order */
	size_t nr_regs;
	const uint8_t *stack;		/* a copy of the stack from its */
	size_t size;			/* stack pointer up, @size bytes */
	const uint64_t *fp_chain;	/* the kernel's frame-pointer walk: */
	size_t fp_len;			/* the ip, then return addresses;
					 * may be empty */
};

/**
 * vs_unwinder_new - an unwinder over the processes and files of @s (which
 * must outlive it); NULL when memory ran out
 *
 * It keeps, per process, the libdw session of its mapped files, rebuilt
 * when mappings were added to @s since.
 */
struct vs_unwinder *vs_unwinder_new(struct vs_symbols *s);
void vs_unwinder_free(struct vs_unwinder *uw);

/**
 * vs_unwinder_forget - end the libdw session of process @pid (its
 * files' descriptors with it): for a process that ended, before
 * vs_symbols_forget() of the same
 */
void vs_unwinder_forget(struct vs_unwinder *uw, uint32_t pid);

/**
 * vs_unwind - the call chain of a stopped thread @tid of process @pid
 * @u: its registers, a copy of the top of its stack, and optionally the
 *     kernel's frame-pointer walk
 * @out: the ip, then the return addresses, innermost first
 * @max: room in @out
 * @cut: set when the chain ends short, where the stack copy did
 *
 * Each frame is unwound by the call frame information of its address
 * (the ip looked up as it is, a return address one byte back), as far
 * as the copy goes.  Past the copy, when the last frame's %rbp is a
 * frame record the kernel walked through, the chain goes on with the
 * kernel's walk from there.  Stops at the outermost frame, or at the
 * first return address outside the mapped files (a uretprobe's
 * trampoline among them: a probed function's callers are not found).
 * The stack and registers are the traced program's: nothing in them is
 * trusted.
 * Returns the number of addresses in @out (0: none, not even an ip).
 */
int vs_unwind(struct vs_unwinder *uw, uint32_t pid, uint32_t tid,
	      const struct vs_user_stack *u, uint64_t *out, int max,
	      bool *cut);

#endif /* VS_CORE_UNWIND_H */
