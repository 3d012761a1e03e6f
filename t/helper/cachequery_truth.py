# cachequery_truth.py - what the t4100 checks read, as Python lists:
#
#   queries()  the --truth lines of examples/cachequery (file "truth"):
#              dicts of task, type, cold_points, f3_ns, f3_cpu_ns
#   f3()       t/helper/task-funcs' estimates of f3 (file "funcs.json"):
#              task id -> {"count": ns, "span": ns}, zeros for tasks
#              without f3 samples
#   lossy()    the ids of the tasks the recorder flagged for lost kernel
#              events or samples (file "cq.json", varscope script --format
#              json of the trace)
#   coverage() task id -> the CPU time its samples stand for (their number
#              times the period) over its task-clock: about 1 when the
#              sampling timer saw all of the task's CPU time
#
# Used from the tests' inline Python: sys.path gets t/helper first.
import collections
import json

ZERO = {"count": 0, "span": 0}


def queries(path="truth"):
    out = []
    for line in open(path):
        if "task=" in line:
            out.append({k: int(v) for k, v in
                        (kv.split("=") for kv in line.split()[1:])})
    return out


def f3(path="funcs.json"):
    est = collections.defaultdict(lambda: dict(ZERO))
    for line in open(path):
        r = json.loads(line)
        if "id" in r:
            est[r["id"]] = r["funcs"].get("f3", dict(ZERO))
    return est


LOST_EVENTS = 1


def lossy(path="cq.json"):
    out = set()
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") == "task" and r["flags"] & LOST_EVENTS:
            out.add(r["id"])
    return out


def coverage(funcs="funcs.json", trace="cq.json"):
    samples, period, out = {}, 0, {}
    for line in open(funcs):
        r = json.loads(line)
        if "id" in r:
            samples[r["id"]] = r["samples"]
    for line in open(trace):
        r = json.loads(line)
        if r.get("kind") == "sample":
            period = r["period"]
        elif r.get("kind") == "task" and r["values"].get("task-clock"):
            out[r["id"]] = (samples.get(r["id"], 0) * period /
                            r["values"]["task-clock"])
    return out
