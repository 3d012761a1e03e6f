# latency_parts.py - what a recorded task's latency is made of, for the
# record tests: its run time, its three waits, its three kinds of
# interrupt, and its page faults' time where the kernel lets them be
# timed (fault.page.time: fentry/fexit on the fault handler, 6.1).  Each
# moment of a task is in exactly one of them, so they sum to its latency.
PARTS = ("run.time", "sched.runnable.time", "sched.blocked.time",
         "sched.iowait.time", "irq.hard.time", "irq.soft.time",
         "irq.vector.time", "fault.page.time")


def parts(values, leave_out=()):
    """The sum of @values' latency parts (a task's values, or their sums),
    but those in @leave_out; a part not recorded counts 0."""
    return sum(values.get(p, 0) for p in PARTS if p not in leave_out)
