"""Cost of watching a run and of capturing a cell: events/s of examples/lte-single-cell.toml
(20 s simulated) plain, with on_interval every 100 ms, and with --pcap cell1; medians of N
runs (argument, default 5), interleaved. Run from the repository root:

    .venv/bin/python benches/watch_and_capture.py 5
"""
import os, statistics, sys, tempfile, time
import celltcp

N = int(sys.argv[1]) if len(sys.argv) > 1 else 5
EX = "examples/lte-single-cell.toml"

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
walls = {m: [] for m in modes}
events = {}
for _ in range(N):
    for m, f in modes.items():
        t = time.perf_counter()
        r = f()
        walls[m].append(time.perf_counter() - t)
        events[m] = r.events
for m in modes:
    w = statistics.median(walls[m])
    print(f"{m:20s} events {events[m]:>10,}  wall median {w:.3f} s  {events[m]/w/1e6:.2f} Mevents/s  (runs: {', '.join(f'{x:.3f}' for x in walls[m])})")
print("capture sizes", captured.sizes)
print("load", os.getloadavg())
