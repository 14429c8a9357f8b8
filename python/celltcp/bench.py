"""``celltcp bench``: event-queue speed and end-to-end simulation speed.

Two figures, each the median of several runs (medians resist the outliers a shared machine
produces):

* the event queue under the hold model (pop the earliest event, push one at now + U[0, 2 ms)) with
  10^3, 10^5 and 10^6 events pending, in events per wall-clock second;
* the wired-chain examples end to end (UDP, and a NewReno+SACK bulk download with random loss),
  in wall time per run and link packet transmissions per wall-clock second (and simulation
  events per second);
* one replication of the seed-000 handover scenario (``celltcp/examples/000/forwarding.toml``:
  two eNBs, six UEs with cross traffic, one X2 handover, 5 s simulated), in wall and CPU time per
  run, the per-handover analytics included;
* the LTE benchmark scenarios (``celltcp/examples/lte-bench-*.toml``: one UE for 100 s, 3 cells
  × 5 UEs and 50 UEs for 5 s, and the 3 cells as one radio access network), in wall time per run and
  per simulated second, through Python (the result objects included; ``cargo bench -p
  celltcp-scenario --bench lte`` measures the Rust side alone, docs/benchmarks.md "LTE"). With
  ``--quick`` the one-UE scenario runs 10 s instead of 100 s.

Figures depend on the machine; they are printed, never compared against thresholds.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from celltcp import _core, examples
from celltcp.report import format_table
from celltcp.runner import run
from celltcp.scenario import Scenario

__all__ = [
    "LTE_EXAMPLES",
    "find_example",
    "handover_times",
    "hold_model_rate",
    "run_bench",
    "scenario_rates",
]

#: Pending-event counts of the hold model.
HOLD_PENDING = (1_000, 100_000, 1_000_000)
#: Hold operations per measurement (full, quick).
HOLD_OPS = {False: 2_000_000, True: 200_000}
#: Default repetitions per figure (full, quick).
DEFAULT_RUNS = {False: 5, True: 3}
EXAMPLE = "wired-chain.toml"
#: The end-to-end workloads measured by default.
EXAMPLES = ("wired-chain.toml", "wired-chain-tcp.toml")
#: The handover workload measured by default (seed `000_…`, relative to ``celltcp/examples/``).
HANDOVER_EXAMPLE = "000/forwarding.toml"
#: The LTE workloads (docs/benchmarks.md, "LTE").
LTE_EXAMPLES = (
    "lte-bench-1ue.toml",
    "lte-bench-3cells.toml",
    "lte-bench-50ue.toml",
    "lte-bench-3cells-ran.toml",
)
#: Simulated time of the one-UE LTE workload with --quick.
LTE_QUICK_DURATION = "10s"


def find_example(name: str = EXAMPLE) -> Path | None:
    """The example scenario ``name`` (a file name under :data:`celltcp.examples.ROOT`, the
    library shipped in the package), or None if the installation lacks it."""
    path = examples.ROOT / name
    return path if path.is_file() else None


def _median(measure: Callable[[], float], runs: int) -> float:
    return statistics.median(measure() for _ in range(runs))


def hold_model_rate(pending: int, ops: int, runs: int) -> float:
    """Median events per second of the event queue's hold model."""
    return _median(lambda: _core.bench_event_queue(pending, ops, 1), runs)


def _link_packets(summary: Mapping[str, Any]) -> int:
    total = 0
    for directions in (summary.get("links") or {}).values():
        for d in directions.values() if isinstance(directions, Mapping) else ():
            if isinstance(d, Mapping) and isinstance(d.get("packets_sent"), int):
                total += d["packets_sent"]
    return total


def scenario_rates(scenario: Scenario, runs: int) -> tuple[float, float, float]:
    """Median (wall seconds, link packets per second, events per second) of running
    ``scenario`` (tracing as the scenario asks)."""
    walls: list[float] = []
    packets: list[float] = []
    events: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        result = run(scenario)
        wall_s = max(time.perf_counter() - started, 1e-9)
        walls.append(wall_s)
        packets.append(_link_packets(result.summary) / wall_s)
        events.append(result.events / wall_s)
    return statistics.median(walls), statistics.median(packets), statistics.median(events)


def handover_times(scenario: Scenario, runs: int) -> tuple[float, float, int, int]:
    """Median (wall seconds, CPU seconds) of one replication of ``scenario``, with the events
    and the handovers of the last run (the same in every run: the simulation is deterministic).

    CPU time is this process's (the simulation runs in the calling thread), so that a figure
    taken on a loaded machine stays comparable with one taken on an idle one."""
    walls: list[float] = []
    cpus: list[float] = []
    events = handovers = 0
    for _ in range(runs):
        cpu0 = time.process_time()
        started = time.perf_counter()
        result = run(scenario)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu0)
        events = result.events
        section = result.handover_summary
        handovers = section["count"] if section else 0
    return statistics.median(walls), statistics.median(cpus), events, handovers


def _lte_rows(quick: bool, runs: int) -> list[list[str]]:
    """Rows of the LTE workloads."""
    rows = []
    for name in LTE_EXAMPLES:
        path = find_example(name)
        if path is None:
            print(
                f"celltcp: note: celltcp/examples/{name} is missing from the installed "
                "package; its figure is skipped",
                file=sys.stderr,
            )
            continue
        sc = Scenario.load(path)
        if quick and name == "lte-bench-1ue.toml":
            sc.set("simulation.duration", LTE_QUICK_DURATION)
        walls = []
        simulated = 0.0
        for _ in range(runs):
            started = time.perf_counter()
            result = run(sc)
            walls.append(time.perf_counter() - started)
            simulated = float(result.summary.get("simulated_time_s") or 0.0)
        wall_s = statistics.median(walls)
        per_sim = f", {wall_s / simulated * 1e3:.1f} ms per simulated s" if simulated > 0 else ""
        rows.append(
            [
                f"{name} ({simulated:g} s simulated), wall time per run",
                f"{wall_s * 1e3:.1f} ms{per_sim}",
            ]
        )
    return rows


def _per_second(rate: float, unit: str) -> str:
    return f"{rate / 1e6:.2f} M {unit}/s"


def run_bench(
    *, quick: bool = False, runs: int | None = None, scenario: Scenario | None = None
) -> int:
    """Prints the benchmark table to stdout; returns the exit status.

    ``scenario`` is the end-to-end workload; by default the wired-chain examples and the
    seed-000 handover example, each when found.
    """
    runs = runs or DEFAULT_RUNS[quick]
    ops = HOLD_OPS[quick]
    if _core.DEBUG_BUILD:
        print(
            "celltcp: warning: the extension is a debug build; figures are not representative "
            "(build with `maturin develop --release`)",
            file=sys.stderr,
        )
    rows = []
    for pending in HOLD_PENDING:
        rate = hold_model_rate(pending, ops, runs)
        rows.append([f"event queue, hold model, {pending:,} pending", _per_second(rate, "events")])
    scenarios = [scenario] if scenario is not None else []
    if scenario is None:
        for name in EXAMPLES:
            path = find_example(name)
            if path is None:
                print(
                    f"celltcp: note: celltcp/examples/{name} is missing from the installed "
                    "package; its end-to-end figure is skipped (use --scenario FILE)",
                    file=sys.stderr,
                )
            else:
                scenarios.append(Scenario.load(path))
    for sc in scenarios:
        label = Path(sc.source).name if sc.source else "scenario"
        wall_s, packets_per_s, events_per_s = scenario_rates(sc, runs)
        rows.append([f"{label}, wall time per run", f"{wall_s * 1e3:.1f} ms"])
        rows.append([f"{label}, link packets", _per_second(packets_per_s, "packets")])
        rows.append([f"{label}, simulation events", _per_second(events_per_s, "events")])
    if scenario is None:
        path = find_example(HANDOVER_EXAMPLE)
        if path is None:
            print(
                f"celltcp: note: celltcp/examples/{HANDOVER_EXAMPLE} is missing from the installed "
                "package; the handover figure is skipped",
                file=sys.stderr,
            )
        else:
            wall_s, cpu_s, events, handovers = handover_times(Scenario.load(path), runs)
            label = f"{HANDOVER_EXAMPLE} ({handovers} handover{'s' if handovers != 1 else ''})"
            rows.append(
                [
                    f"{label}, wall time per run",
                    f"{wall_s * 1e3:.1f} ms ({cpu_s * 1e3:.1f} ms CPU)",
                ]
            )
            rows.append([f"{label}, simulation events", _per_second(events / wall_s, "events")])
    if scenario is None:
        rows.extend(_lte_rows(quick, runs))
    build = "debug" if _core.DEBUG_BUILD else "release"
    print(
        f"celltcp {_core.__version__} bench ({build} build, median of {runs} runs, "
        f"{ops:,} hold operations each)"
    )
    print(format_table(["benchmark", "rate"], rows))
    return 0
