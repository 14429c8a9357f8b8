"""``python -m celltcp.sweep.bench``: the cost of running simulations as a sweep.

Two figures:

* **per-run overhead**: a sweep of very short runs (the wired-chain UDP example cut to 100 ms of
  simulated time) on one worker into a new store. Everything but the simulation itself is
  overhead: validation, starting the pool (amortised over the runs), handing tasks out and
  results back, and writing the store. Reported per run as (sweep wall time − time spent inside
  the runs) / runs, with the store writes alone beside it.
* **throughput on k workers**: the same runs of a longer workload (the wired-chain TCP example,
  120 s simulated) executed one after the other in this process, then as a sweep on k workers;
  the speed-up is their ratio, ideally k.

Figures depend on the machine and on what else runs on it; they are printed, never checked.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from celltcp import _core
from celltcp.bench import find_example
from celltcp.report import format_table
from celltcp.sweep.backend import default_workers
from celltcp.sweep.runner import SweepReport, execute_sweep
from celltcp.sweep.spec import load_spec, resolve_points

__all__ = ["main", "measure_overhead", "measure_throughput"]


def _spec(example: str, duration: str, runs: int, metrics: Sequence[str]) -> dict[str, Any]:
    path = find_example(example)
    if path is None:
        raise SystemExit(
            f"celltcp: error: celltcp/examples/{example} is missing from the installed package"
        )
    return {
        "scenario": str(path),
        "name": f"bench-{Path(example).stem}",
        "runs": runs,
        "metrics": list(metrics),
        "grid": {"simulation.duration": [duration]},
    }


def measure_overhead(runs: int) -> SweepReport:
    """A sweep of ``runs`` very short runs on one worker, into a new store."""
    spec = _spec("wired-chain.toml", "100ms", runs, ["flows.*.goodput_bps", "events"])
    with tempfile.TemporaryDirectory(prefix="celltcp-bench-") as tmp:
        _, report = execute_sweep(spec, workers=1, store=Path(tmp) / "store")
    return report


def measure_throughput(runs: int, workers: int) -> tuple[float, SweepReport]:
    """(wall seconds of the runs one after the other in this process, report of the sweep)."""
    spec_data = _spec("wired-chain-tcp.toml", "120s", runs, ["flows.*.goodput_bps"])
    spec = load_spec(spec_data)
    resolved = resolve_points(spec)[0]
    started = time.perf_counter()
    for run in spec.runs:
        _core.run(resolved.toml, [], None, run, None, [])
    serial_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="celltcp-bench-") as tmp:
        _, report = execute_sweep(spec_data, workers=workers, store=Path(tmp) / "store")
    return serial_s, report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m celltcp.sweep.bench", description="Sweep overhead and throughput figures."
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help="k, the workers of the throughput figure (default: all CPUs)",
    )
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke run)")
    args = parser.parse_args(argv)
    if _core.DEBUG_BUILD:
        print(
            "celltcp: warning: the extension is a debug build; figures are not representative",
            file=sys.stderr,
        )
    tiny_runs = 50 if args.quick else 400
    long_runs = (4 if args.quick else 24) * args.workers

    o = measure_overhead(tiny_runs)
    per_run_ms = (o.wall_s - o.run_wall_s) / o.executed * 1e3
    serial_s, t = measure_throughput(long_runs, args.workers)
    speedup = serial_s / t.wall_s
    # Runs that take longer inside the workers than one after the other mean that the k workers
    # did not each have a core to themselves (other load on the machine).
    alone_ms = serial_s / long_runs * 1e3
    in_sweep_ms = t.run_wall_s / t.executed * 1e3
    rows = [
        [
            f"overhead per run ({o.executed} runs of 100 ms simulated, 1 worker)",
            f"{per_run_ms:.2f} ms",
        ],
        ["  of which store writes", f"{o.store_write_s / o.executed * 1e3:.2f} ms"],
        ["  time inside each run", f"{o.run_wall_s / o.executed * 1e3:.2f} ms"],
        [
            f"{long_runs} runs of wired-chain-tcp (120 s simulated), one after the other",
            f"{serial_s:.2f} s",
        ],
        [f"the same as a sweep on {args.workers} workers", f"{t.wall_s:.2f} s"],
        ["  time inside each run: alone, in the sweep", f"{alone_ms:.0f} ms, {in_sweep_ms:.0f} ms"],
        ["speed-up (ideal: k)", f"{speedup:.2f} = {speedup / args.workers:.2f} k"],
    ]
    build = "debug" if _core.DEBUG_BUILD else "release"
    print(f"celltcp {_core.__version__} sweep bench ({build} build, k = {args.workers})")
    print(format_table(["figure", "value"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
