#!/usr/bin/env python3
# map-flood.py CPU SECONDS FILE COUNT - map FILE executable and unmap it,
# again and again, on CPU for at most SECONDS: each mapping is an MMAP2
# record in every system-wide tracking ring of that CPU (about 200 bytes
# with FILE's long name), so a ring that nobody reads is full after a
# few thousand.  The mappings made so far are in file COUNT.
#
# map-flood.py --wait N COUNT...: return once each flood has made N more
# mappings than its COUNT said at the start (at most 30 s; exit 1 then).
import mmap
import os
import sys
import time


def count(path):
    try:
        with open(path) as f:
            return int(f.read() or 0)
    except (OSError, ValueError):
        return 0


def wait(n, paths):
    start = {p: count(p) for p in paths}
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if all(count(p) >= start[p] + n for p in paths):
            return 0
        time.sleep(0.01)
    return 1


def flood(cpu, seconds, path, count_path):
    os.sched_setaffinity(0, {cpu})
    fd = os.open(path, os.O_RDONLY)
    # hidden: not a COUNT of "flood.*"
    tmp = os.path.join(os.path.dirname(count_path),
                       "." + os.path.basename(count_path))
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        for _ in range(1000):
            mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC).close()
        n += 1000
        with open(tmp, "w") as f:
            f.write(str(n))
        os.rename(tmp, count_path)
    return 0


if sys.argv[1] == "--wait":
    sys.exit(wait(int(sys.argv[2]), sys.argv[3:]))
sys.exit(flood(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]))
