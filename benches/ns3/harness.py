"""Shared driver of the ns-3 comparison benchmarks.

Each benchmark script gives a ``build(ns, args)`` function that creates one scenario inside the
ns-3 simulator and returns a ``collect()`` function that reads its results after the run. This
module runs the scenario ``--runs`` times, each in a fresh child process (ns-3 keeps global state
such as the address allocator and the node list, so a clean process per run is the only way to
make every run identical), one child at a time so that the benchmark uses a single core.

Timing: the wall time of a run is measured around ``Simulator.Run()`` only, with
``time.perf_counter()``; loading the bindings (the cppyy/Cling start-up, about 10 s) and building
the topology are reported separately. The CPU time of the process over the same span
(``time.process_time()``) is reported too: on a shared machine it is less disturbed by other
processes than the wall time, and the 1-minute load average at the start of each run says how
busy the machine was. The summary is the median over the runs.

Memory: the child reports its peak resident set size (``resource.getrusage(RUSAGE_SELF)
.ru_maxrss``, kibibytes on Linux) once right after loading the bindings and once after the run;
the difference is what the scenario itself added on top of the interpreter and Cling.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

# Marks the one line of a child's standard output that carries its results.
RESULT_TAG = "NS3BENCH-RESULT "

# Cling prints this for a static initialiser of ns-3's headers (nstime.h's g_timeInitHelper)
# that the library itself has already run; it is harmless and is filtered from the output.
CLING_NOISE = "Failed to materialize symbols"

Collect = Callable[[], dict[str, Any]]
Build = Callable[[Any, argparse.Namespace], Collect]


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, MiB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def make_parser(description: str, duration_s: float) -> argparse.ArgumentParser:
    """Options every benchmark takes; scripts add their own before calling :func:`main`."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--runs", type=int, default=3, help="number of timed runs (default 3)")
    p.add_argument(
        "--duration",
        type=float,
        default=duration_s,
        help=f"simulated time, seconds (default {duration_s:g})",
    )
    p.add_argument("--seed", type=int, default=1, help="RngSeedManager seed (default 1)")
    p.add_argument(
        "--rng-run",
        type=int,
        default=1,
        help="RngSeedManager run number, the same for every timed run (default 1)",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return p


def _child(build: Build, args: argparse.Namespace) -> None:
    """One run in this process: load ns-3, build, time Simulator.Run(), print the results."""
    t0 = time.perf_counter()
    from ns import ns

    import_s = time.perf_counter() - t0
    rss_import = peak_rss_mib()

    ns.RngSeedManager.SetSeed(args.seed)
    ns.RngSeedManager.SetRun(args.rng_run)
    t0 = time.perf_counter()
    collect = build(ns, args)
    build_s = time.perf_counter() - t0

    ns.Simulator.Stop(ns.Seconds(args.duration))
    load = os.getloadavg()[0]
    c0 = time.process_time()
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall_s = time.perf_counter() - t0
    cpu_s = time.process_time() - c0

    result = {
        "import_s": import_s,
        "build_s": build_s,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "loadavg_1min": load,
        "sim_s": args.duration,
        "events": int(ns.Simulator.GetEventCount()),
        "rss_import_mib": rss_import,
    }
    result.update(collect())
    result["rss_peak_mib"] = peak_rss_mib()
    ns.Simulator.Destroy()
    print(RESULT_TAG + json.dumps(result), flush=True)


def _spawn(script: str, argv: list[str]) -> dict[str, Any]:
    """Runs one child and returns its result line, or raises with the child's error text."""
    cmd = [sys.executable, script, "--child", *argv]
    # One thread for any library that would start a pool, so that a run uses one core.
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    err = "\n".join(ln for ln in proc.stderr.splitlines() if CLING_NOISE not in ln)
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_TAG):
            if err.strip():
                print(err, file=sys.stderr)
            return json.loads(line[len(RESULT_TAG) :])
    raise RuntimeError(
        f"run failed (exit code {proc.returncode}): {' '.join(cmd)}\n{proc.stdout}\n{err}"
    )


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def main(
    parser: argparse.ArgumentParser,
    build: Build,
    script: str,
    headline: list[str] | None = None,
) -> int:
    """Parses the options; in a child runs once, else runs the children and prints medians.

    ``headline`` names result fields printed in the summary besides the timings (for instance
    the goodput); every field is in the JSON output.
    """
    args = parser.parse_args()
    if args.child:
        _child(build, args)
        return 0
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    argv = [a for a in sys.argv[1:] if a != "--child"]
    runs: list[dict[str, Any]] = []
    for i in range(args.runs):
        try:
            r = _spawn(os.path.abspath(script), argv)
        except RuntimeError as e:
            print(f"{os.path.basename(script)}: {e}", file=sys.stderr)
            return 1
        runs.append(r)
        print(
            f"run {i + 1}/{args.runs}: Simulator.Run() {r['wall_s']:.3f} s wall "
            f"({r['cpu_s']:.3f} s CPU, load {r['loadavg_1min']:.1f}) for "
            f"{r['sim_s']:g} s simulated, {r['events']:,} events, "
            + ", ".join(f"{k}={_fmt(r[k])}" for k in (headline or [])),
            flush=True,
        )
    walls = [r["wall_s"] for r in runs]
    med = statistics.median(walls)
    cpu_med = statistics.median(r["cpu_s"] for r in runs)
    summary = {
        "script": os.path.basename(script),
        "runs": runs,
        "wall_s_median": med,
        "wall_s_min": min(walls),
        "wall_s_max": max(walls),
        "cpu_s_median": cpu_med,
        "wall_per_sim_s": med / runs[0]["sim_s"],
        "events_per_wall_s": runs[0]["events"] / med if med > 0 else float("nan"),
        "rss_peak_mib_max": max(r["rss_peak_mib"] for r in runs),
    }
    for k in headline or []:
        vals = {json.dumps(r[k]) for r in runs}
        # The same seed and run number must give the same result in every run.
        summary[k] = runs[0][k] if len(vals) == 1 else [r[k] for r in runs]
    print(
        f"median Simulator.Run() wall time: {med:.3f} s over {len(runs)} runs "
        f"(min {min(walls):.3f}, max {max(walls):.3f}); median CPU time {cpu_med:.3f} s; "
        f"{summary['wall_per_sim_s']:.4f} s wall per simulated s; "
        f"{summary['events_per_wall_s'] / 1e6:.3f} M events/s; "
        f"peak RSS {summary['rss_peak_mib_max']:.0f} MiB "
        f"(after loading ns-3: {runs[0]['rss_import_mib']:.0f} MiB)"
    )
    for k in headline or []:
        print(f"{k}: {_fmt(summary[k])}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
    return 0
