#!/usr/bin/env python3
"""Times shell commands in turn (A, B, A, B, ...) so that a shared machine's
slow and fast phases fall on every command alike; prints the median, the
first quartile and the minimum of each.

    scripts/interleaved.py 60 "OLD analyze --reference-compatible T" "NEW analyze --reference-compatible T"
"""
import statistics
import subprocess
import sys
import time

runs, commands = int(sys.argv[1]), sys.argv[2:]
times = [[] for _ in commands]
for _ in range(runs):
    for i, command in enumerate(commands):
        start = time.perf_counter()
        subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[i].append(time.perf_counter() - start)
for command, t in zip(commands, times):
    t.sort()
    print(f"median {statistics.median(t) * 1000:7.1f} ms  p25 {t[len(t) // 4] * 1000:7.1f}  min {t[0] * 1000:7.1f}  {command}")
