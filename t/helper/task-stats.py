#!/usr/bin/env python3
# task-stats.py - per task type sums of a trace's task values, for the
# record tests: reads "varscope script --format json" on stdin, prints
#
#   {"1": {"tasks": N, "flagged": {"LOST": n, ...}, "pids": [...],
#          "sum": {"sched.blocked.time": ..., "latency_ns": ...},
#          "min": {...}, "max": {...}}, ...}
#
# Tests then check one expression against it:
#   task-stats.py 'T["1"]["sum"]["sched.blocked.time"] > 0' < script.json
# where E["1"] is also the list of each task's values of type 1 (with its
# latency_ns), in the trace's order:
#   task-stats.py 'all(e["run.time"] > 0 for e in E["1"])' < script.json
# and parts(VALUES) the sum of a task's latency parts (latency_parts.py):
#   task-stats.py 'all(parts(e) >= 0.99 * e["latency_ns"] for e in E["1"])'
# exits 0 when the expression holds, 1 (printing the summary) when not.
import json
import sys

from latency_parts import parts

FLAGS = {1: "LOST", 2: "NESTED_BEGIN", 4: "THREAD_EXIT", 8: "MULTIPLEXED",
         16: "DISTORTED", 32: "UNMATCHED_END", 64: "FUNC_PROBE",
         256: "ATTACHED", 512: "NO_RETURN",
         128: "TRUNCATED"}

T = {}
E = {}
for line in sys.stdin:
    r = json.loads(line)
    if r.get("kind") != "task":
        continue
    t = T.setdefault(str(r["type"]), {"tasks": 0, "flagged": {}, "pids": [],
                                      "tids": [], "sum": {}, "min": {},
                                      "max": {}})
    t["tasks"] += 1
    for bit, name in FLAGS.items():
        if r["flags"] & bit:
            t["flagged"][name] = t["flagged"].get(name, 0) + 1
    if r["pid"] not in t["pids"]:
        t["pids"].append(r["pid"])
    if r["tid"] not in t["tids"]:
        t["tids"].append(r["tid"])
    values = dict(r["values"], latency_ns=r["latency_ns"])
    E.setdefault(str(r["type"]), []).append(values)
    for k, v in values.items():
        t["sum"][k] = t["sum"].get(k, 0) + v
        t["min"][k] = min(t["min"].get(k, v), v)
        t["max"][k] = max(t["max"].get(k, v), v)

if len(sys.argv) > 1:
    ok = eval(sys.argv[1], {"T": T, "E": E, "parts": parts})
    if not ok:
        print(json.dumps(T, indent=1, sort_keys=True))
        print("failed: " + sys.argv[1])
    sys.exit(0 if ok else 1)
print(json.dumps(T, indent=1, sort_keys=True))
