/* SPDX-License-Identifier: MIT */
/*
 * probe-cost.h - what a --task-func probe pair costs a call on this
 * machine.
 *
 * A --task-func task begins at its function's uprobe and ends at its
 * uretprobe, so its latency includes the two traps and the kernel's work
 * for them (about 10 us a pair in a VM).  record measures that at its
 * start, on a function of varscope's own, and leaves it in the trace
 * (META probe_cost_ns) so that report can say how much of a latency it
 * is.
 */
#ifndef VS_CORE_PROBE_COST_H
#define VS_CORE_PROBE_COST_H

#include <stddef.h>
#include <stdint.h>

/* Calls timed, each alone: the median counts. */
#define VS_PROBE_COST_CALLS	201

/**
 * vs_probe_cost_target - the function vs_probe_cost_measure() probes:
 * it does nothing, out of line
 */
void vs_probe_cost_target(void);

/**
 * vs_probe_cost_measure - ns a uprobe and uretprobe pair adds to a call
 * @system: the tracefs group for the two trace events it makes (and
 *          removes)
 * @cost_ns: the median time of a call of vs_probe_cost_target() with
 *           its pair enabled (perf events on this process) less the
 *           median without, of VS_PROBE_COST_CALLS calls each (a call
 *           that a preemption or an interrupt lengthened does not
 *           move the median)
 * @err: one line on failure
 *
 * Returns 0, or -1 (no uprobes, no symbol in the binary...).
 */
int vs_probe_cost_measure(const char *system, uint64_t *cost_ns, char *err,
			  size_t errlen);

#endif /* VS_CORE_PROBE_COST_H */
