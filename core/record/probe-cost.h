/* SPDX-License-Identifier: MIT */
/*
 * probe-cost.h - what a --task-func probe pair adds to a task's latency
 * on this machine.
 *
 * A --task-func task begins in its function's uprobe and ends in its
 * uretprobe, so its latency includes what the kernel does between the
 * two besides the call: after the entry's handler, running the probed
 * instruction out of line (a single step, a second trap) unless it
 * emulates it (a push: core/arch.h, vs_arch_uprobe_emulated()); before
 * the return's handler, the trap of the return.  About 10 us a task in a
 * VM for a single-stepped first instruction, 1 us for an emulated one.
 * record measures both at its start, on functions of varscope's own, and
 * leaves each function's in the trace (META probe_cost_ns) so that
 * report can say how much of a latency it is.
 */
#ifndef VS_CORE_PROBE_COST_H
#define VS_CORE_PROBE_COST_H

#include <stddef.h>
#include <stdint.h>

/* Calls measured: the median counts. */
#define VS_PROBE_COST_CALLS	201

/**
 * struct vs_probe_cost - ns a probe pair adds to a task's latency
 * @emulated_ns: on a function whose first instruction the kernel emulates
 * @stepped_ns: on one whose first instruction it single-steps
 */
struct vs_probe_cost {
	uint64_t emulated_ns, stepped_ns;
};

/**
 * vs_probe_cost_measure - measure what a probe pair adds to a task
 * @system: the tracefs group for the trace events it makes (and removes)
 * @cost: filled: for each kind of first instruction, the median over
 *        VS_PROBE_COST_CALLS calls of a function of varscope's own that
 *        does nothing (vs_arch_probe_target_emulated() and _stepped()) of
 *        the time from its uprobe's event to its uretprobe's (perf
 *        samples of this process: a preemption or an interrupt
 *        lengthens a few calls, not the median)
 * @err: one line on failure
 *
 * Returns 0, or -1 (no uprobes, no symbol in the binary...).
 */
int vs_probe_cost_measure(const char *system, struct vs_probe_cost *cost,
			  char *err, size_t errlen);

/**
 * vs_probe_cost_of - @cost for the function at file offset @offset of
 * @binary, by its first instruction; the single-stepped cost when it
 * cannot be read
 */
uint64_t vs_probe_cost_of(const struct vs_probe_cost *cost,
			  const char *binary, uint64_t offset);

#endif /* VS_CORE_PROBE_COST_H */
