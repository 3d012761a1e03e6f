#!/usr/bin/env python3
# map-flood.py CPU SECONDS FILE - map FILE executable and unmap it, again
# and again, on CPU for SECONDS: each mapping is an MMAP2 record in every
# system-wide tracking ring of that CPU (about 200 bytes with FILE's long
# name), a few hundred thousand a second, so a ring that nobody reads is
# full in milliseconds.  Prints the number of mappings made.
import mmap
import os
import sys
import time

cpu, seconds, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
os.sched_setaffinity(0, {cpu})
fd = os.open(path, os.O_RDONLY)
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end:
    for _ in range(1000):
        mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC).close()
    n += 1000
print(n)
