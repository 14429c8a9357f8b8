"""Times the handover sweep: 4 UE counts × 4 policies × 50 replications of the seed-000 scenario.

Runs each `sweep-ueN.toml` written by `generate.py` with the command a user would type,

    celltcp sweep benches/handover/sweep-ueN.toml --workers W --store <fresh directory> --quiet

one after the other, each into a new store (a store that already holds the runs would skip
them), and prints:

* the wall time of the four commands together, runs per wall second, and the wall time per run;
* the time inside each run (what the workers record in the store's `wall_s` column) in the
  sweep, against the same runs executed alone, one after the other, in this process: the
  difference is what sharing the machine costs each run;
* the overhead per run: the worker-core time of the sweep not spent inside a run,
  (W · wall − Σ time inside the runs) / runs — interpreter and fork-server start-up of each
  command, validation of the points, handing tasks out and results back, and the parent's store
  writes (which compete with the workers for the same cores);
* the handover outcomes per UE count and policy (the classes of the seed's Figs. 8 and 11),
  read back from the stores.

Run from the repository root with the release extension built (`make build`):

    .venv/bin/python benches/handover/run.py [--workers 2] [--alone 40] [--keep DIR] [--api]

``--api`` runs the same sweeps through :func:`celltcp.sweep.execute_sweep` in this process
(one interpreter start instead of four) and prints the parent's store-write time per run.

The figures depend on the machine and its load (printed with them); docs/benchmarks.md,
section "Handover", records a measurement. Nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
UE_COUNTS = (2, 3, 4, 5)
POLICIES = ("discard", "forward", "fast_path_switch", "predicted")
#: The issue's target for the 800 runs on 2 cores, wall seconds.
TARGET_WALL_S = 60.0


def _celltcp() -> list[str]:
    """The `celltcp` command of the interpreter running this script (the repository's venv)."""
    exe = Path(sys.executable).with_name("celltcp")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "celltcp"]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def run_sweeps(workers: int, stores: Path) -> list[tuple[int, float]]:
    """Runs the four sweeps by the command line; (UE count, wall seconds) of each."""
    walls = []
    for n in UE_COUNTS:
        sweep_file = HERE / f"sweep-ue{n}.toml"
        if not sweep_file.is_file():
            raise SystemExit(f"run.py: {sweep_file} is missing; run generate.py first")
        cmd = [
            *_celltcp(),
            "sweep",
            str(sweep_file),
            "--workers",
            str(workers),
            "--store",
            str(stores / f"ue{n}"),
            "--quiet",
        ]
        started = time.perf_counter()
        done = subprocess.run(cmd, check=False, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"run.py: {' '.join(cmd)} failed:\n{done.stderr}")
        walls.append((n, wall))
    return walls


def run_sweeps_api(workers: int, stores: Path) -> list[tuple[int, float]]:
    """The same four sweeps through the Python API in this process; prints where the parent's
    time went (`SweepReport`: time inside the runs, store writes). (UE count, wall s) each."""
    from celltcp.sweep import execute_sweep

    walls = []
    for n in UE_COUNTS:
        _, report = execute_sweep(
            HERE / f"sweep-ue{n}.toml", workers=workers, store=stores / f"ue{n}"
        )
        walls.append((n, report.wall_s))
        print(
            f"  sweep-ue{n}.toml (API): {report.wall_s:.2f} s, {report.executed} runs, "
            f"inside the runs {report.run_wall_s:.2f} s, store writes in the parent "
            f"{report.store_write_s:.2f} s ({report.store_write_s / report.executed * 1e3:.1f}"
            " ms per run)"
        )
    return walls


def stored_runs(stores: Path) -> list[tuple[int, str, int, float, str, dict]]:
    """(UE count, policy, run number, time inside the run s, status, metrics) of every run."""
    import duckdb

    rows = []
    for n in UE_COUNTS:
        con = duckdb.connect(str(stores / f"ue{n}" / "results.duckdb"), read_only=True)
        try:
            for params, run, wall_s, status, metrics in con.execute(
                "SELECT parameters, run, wall_s, status, metrics FROM runs ORDER BY point, run"
            ).fetchall():
                policy = json.loads(params)["ran.handover.policy"]
                rows.append((n, policy, int(run), float(wall_s), status, json.loads(metrics)))
        finally:
            con.close()
    return rows


def alone(samples: int) -> float:
    """Median seconds of `_core.run` on runs of the sweep executed one after the other here
    (the same scenarios and run numbers, cycled through the UE counts and policies)."""
    from celltcp import _core
    from celltcp.sweep.spec import load_spec, resolve_points

    points = []
    for n in UE_COUNTS:
        points += [rp.toml for rp in resolve_points(load_spec(HERE / f"sweep-ue{n}.toml"))]
    walls = []
    for i in range(samples):
        toml = points[i % len(points)]
        started = time.perf_counter()
        _core.run(toml, [], None, i // len(points), None, [])
        walls.append(time.perf_counter() - started)
    return statistics.median(walls)


def outcome_table(rows: list[tuple[int, str, int, float, str, dict]]) -> str:
    lines = [
        "| target UEs | policy | runs | timeout | halving | none | ue_ref goodput (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in UE_COUNTS:
        for policy in POLICIES:
            ok = [m for (k, p, _, _, s, m) in rows if k == n and p == policy and s == "ok"]
            if not ok:
                continue
            share = {
                c: sum(m[f"handovers.outcomes.{c}"] for m in ok) / len(ok)
                for c in ("timeout", "halving", "none")
            }
            goodput = statistics.fmean(m["flows.ue_ref.goodput_bps"] for m in ok) / 1e6
            lines.append(
                f"| {n} | {policy} | {len(ok)} | {share['timeout']:.2f} | "
                f"{share['halving']:.2f} | {share['none']:.2f} | {goodput:.3f} Mb/s |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="sweep workers (default 2)")
    parser.add_argument(
        "--alone",
        type=int,
        default=40,
        help="runs timed alone for the reference (default 40; 0 skips it)",
    )
    parser.add_argument(
        "--api",
        action="store_true",
        help="run the sweeps through the Python API in this process instead of "
        "the command line, and print the parent's store-write time",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="keep the stores in this new directory (default: a temporary one)",
    )
    args = parser.parse_args(argv)
    if args.workers < 1 or args.alone < 0:
        parser.error("--workers must be ≥ 1 and --alone ≥ 0")
    from celltcp import _core

    if _core.DEBUG_BUILD:
        print(
            "run.py: warning: debug build of the extension; build with `make build`",
            file=sys.stderr,
        )
    if args.keep is not None and args.keep.exists():
        parser.error(f"--keep {args.keep}: exists; give a new directory")
    stores = args.keep or Path(tempfile.mkdtemp(prefix="celltcp-handover-bench-"))
    stores.mkdir(parents=True, exist_ok=True)
    try:
        load_before = _load()
        walls = (run_sweeps_api if args.api else run_sweeps)(args.workers, stores)
        load_after = _load()
        rows = stored_runs(stores)
        reference = alone(args.alone) if args.alone else float("nan")
    finally:
        if args.keep is None:
            shutil.rmtree(stores, ignore_errors=True)
    wall = sum(w for _, w in walls)
    inside = [r[3] for r in rows]
    failed = sum(1 for r in rows if r[4] != "ok")
    runs = len(rows)
    overhead = (args.workers * wall - sum(inside)) / runs
    print(
        f"celltcp {_core.__version__}: handover sweep, {runs} runs ({failed} failed), "
        f"{args.workers} workers; load average before {load_before}, after {load_after}"
    )
    for n, w in walls:
        print(f"  sweep-ue{n}.toml: {w:.2f} s")
    verdict = "met" if wall <= TARGET_WALL_S else "MISSED"
    what = "4 sweeps (API)" if args.api else "4 commands"
    print(
        f"wall time, {what}: {wall:.2f} s (target ≤ {TARGET_WALL_S:.0f} s: {verdict}); "
        f"{runs / wall:.1f} runs/s; {wall / runs * 1e3:.1f} ms of wall time per run"
    )
    print(
        f"time inside a run: in the sweep {statistics.median(inside) * 1e3:.1f} ms (median), "
        f"alone {reference * 1e3:.1f} ms (median of {args.alone}); "
        f"sum over the sweep {sum(inside):.2f} s"
    )
    print(f"overhead per run (worker-core time outside the runs): {overhead * 1e3:.1f} ms")
    print()
    print(outcome_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
