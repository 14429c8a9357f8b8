"""Cost of watching a run and of capturing a cell: events/s of python/celltcp/examples/lte-single-cell.toml
(20 s simulated) plain, with on_interval every 100 ms, and with --pcap cell1; medians of N
runs (argument, default 5), interleaved. Run from the repository root:

    .venv/bin/python benches/watch_and_capture.py 5
"""

import os
import statistics
import sys
import tempfile
import time

import celltcp

N = int(sys.argv[1]) if len(sys.argv) > 1 else 5
EX = "python/celltcp/examples/lte-single-cell.toml"


def plain():
    return celltcp.run(EX)


def watched():
    return celltcp.run(EX, on_interval=lambda f: None, interval="100ms")


def captured():
    with tempfile.TemporaryDirectory() as d:
        r = celltcp.run(EX, capture="cell1", capture_dir=d)
        sizes = {f: os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)}
    captured.sizes = sizes
    return r


modes = {"plain": plain, "on_interval 100ms": watched, "capture cell1": captured}
# CPU time of the process (the engine runs in it, without the GIL): less sensitive than wall
# time to other work on a shared machine.
cpus = {m: [] for m in modes}
walls = {m: [] for m in modes}
events = {}
for _ in range(N):
    for m, f in modes.items():
        c, t = time.process_time(), time.perf_counter()
        r = f()
        cpus[m].append(time.process_time() - c)
        walls[m].append(time.perf_counter() - t)
        events[m] = r.events
base = statistics.median(cpus["plain"])
for m in modes:
    c = statistics.median(cpus[m])
    print(
        f"{m:20s} events {events[m]:>9,}  CPU median {c:.3f} s  {events[m] / c / 1e6:.2f} Mevents/s  "
        f"x{c / base:.2f}  (wall median {statistics.median(walls[m]):.3f} s)"
    )
print("capture sizes", captured.sizes)
print("load", os.getloadavg())
