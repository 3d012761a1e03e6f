#!/usr/bin/env python3
# sample-check.py - where the samples of a trace fall, for the sampling
# tests: reads "varscope script --format json" on stdin and prints
#
#   {"samples": N, "inside": n, "outside": n, "task_ns": T,
#    "per_cpu_ms": samples inside tasks per ms of the tasks' task-clock
#                  (their CPU time; 0 without that counter),
#    "lossy": tasks flagged for lost kernel events, or whose time
#             overlaps samples a CPU's ring lost,
#    "lost": samples the rings lost (LOST records, what 2),
#    "tasks": tasks, "cpu_ms": their task-clock in all (ms)}
#
# A sample is inside when a task of its thread spans its time (the
# attribution rule of Akiyama et al., section III-D, done independently
# of varscope's own code).  Samples come per ms of CPU time, not of
# latency, which a loaded machine that preempts the tasks stretches.
# per_cpu_ms leaves out the lossy tasks and their samples: a recorder
# that fell behind lost some of theirs, and said so (a LOST record of
# a CPU at time T covers the time since that CPU's sample before T).  With an expression
# argument, exits 0 when it holds over those names, 1 (printing the
# summary) when not.
import bisect
import json
import sys

LOST_EVENTS = 1
LOST_SAMPLES = 2
tasks = {}
samples = []
losses = []
for line in sys.stdin:
    r = json.loads(line)
    if r.get("kind") == "task":
        tasks.setdefault(r["tid"], []).append(
            [r["start_ns"], r["end_ns"], bool(r["flags"] & LOST_EVENTS),
             r["values"].get("task-clock", 0)])
    elif r.get("kind") == "sample":
        samples.append((r["tid"], r["time_ns"], r["cpu"]))
    elif r.get("kind") == "lost" and r["what"] == LOST_SAMPLES:
        losses.append((r["cpu"], r["time_ns"], r["count"]))

windows = []
for cpu, t, _ in losses:
    before = [s for _, s, c in samples if c == cpu and s < t]
    windows.append((max(before, default=0), t))
for tid, spans in tasks.items():
    tasks[tid] = [(s, e, l or any(a < e and s <= b for a, b in windows), c)
                  for s, e, l, c in spans]

for spans in tasks.values():
    spans.sort()
inside = inside_whole = 0
for tid, t, _ in samples:
    spans = tasks.get(tid, [])
    i = bisect.bisect_right(spans, (t, float("inf"), True, 0)) - 1
    if i >= 0 and spans[i][0] <= t <= spans[i][1]:
        inside += 1
        inside_whole += not spans[i][2]
task_ns = sum(e - s for spans in tasks.values() for s, e, _, _ in spans)
whole_cpu_ns = sum(c for spans in tasks.values() for _, _, l, c in spans
                   if not l)
S = {"samples": len(samples), "inside": inside,
     "outside": len(samples) - inside, "task_ns": task_ns,
     "per_cpu_ms": inside_whole / (whole_cpu_ns / 1e6) if whole_cpu_ns else 0,
     "lossy": sum(l for spans in tasks.values() for _, _, l, _ in spans),
     "lost": sum(n for _, _, n in losses),
     "tasks": sum(len(spans) for spans in tasks.values()),
     "cpu_ms": sum(c for spans in tasks.values() for *_, c in spans) / 1e6}
if len(sys.argv) < 2:
    print(json.dumps(S))
    sys.exit(0)
if eval(sys.argv[1], {}, S):
    sys.exit(0)
print(json.dumps(S))
sys.exit(1)
