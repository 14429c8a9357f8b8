"""One run of a sweep, as executed by a worker process (local pool or Ray).

A worker only computes: it runs the resolved scenario and hands back the summary, the kept
series (already encoded as Parquet, so that the parent writes bytes and never re-encodes) and
its wall time. It never touches the store; the parent process alone writes there, which is what
keeps the store consistent when a worker dies.

Every run is a deterministic function of (resolved scenario, run number), so which worker runs
it, and when, changes nothing in its outcome.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from celltcp import _core
from celltcp.errors import ScenarioError, SimulationError

__all__ = ["Outcome", "Task", "execute"]


@dataclass(frozen=True)
class Task:
    """What a worker needs for one run.

    Attributes:
        key: store key of the resolved scenario.
        run: replication number.
        toml: the resolved scenario as TOML text (its ``simulation.seed`` is the seed).
        series: names of the series to keep; ``("*",)`` keeps all.
    """

    key: str
    run: int
    toml: str
    series: tuple[str, ...] = ()


@dataclass
class Outcome:
    """The result of one run.

    Attributes:
        key, run: as in the task.
        ok: whether the run completed.
        error: what went wrong (one line) when not ``ok``.
        summary: the core's summary.json text when ``ok``.
        events: simulation events processed.
        wall_s: wall-clock seconds the run took in the worker (simulation and encoding).
        series: kept series name → Parquet file bytes.
        build: ``_core.BUILD_ID`` of the worker that ran it (a Ray worker may have another
            celltcp installed than the sweep's own process).
    """

    key: str
    run: int
    ok: bool
    error: str | None = None
    summary: str | None = None
    events: int = 0
    wall_s: float = 0.0
    series: dict[str, bytes] = field(default_factory=dict)
    build: str = _core.BUILD_ID


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def execute(task: Task) -> Outcome:
    """Runs one task; every failure becomes an :class:`Outcome` with ``ok=False``."""
    # Wall time is measured for the report only; it never enters the simulation.
    started = time.perf_counter()
    try:
        raw = _core.run(task.toml, [], None, task.run, None, [])
        series: dict[str, bytes] = {}
        if task.series and raw["series"]:
            # Encoded as celltcp run writes them (celltcp._parquet), so a kept series is
            # byte-identical to the run's own file.
            from celltcp._parquet import parquet_bytes

            for name, columns in raw["series"].items():
                if "*" in task.series or name in task.series:
                    series[name] = parquet_bytes(columns)
        return Outcome(
            task.key,
            task.run,
            True,
            summary=str(raw["summary"]),
            events=int(raw["events"]),
            wall_s=time.perf_counter() - started,
            series=series,
        )
    except ScenarioError as e:
        error = _one_line(str(e))
    except SimulationError as e:
        error = f"internal error: {_one_line(str(e))}"
    except Exception as e:
        error = f"{type(e).__name__}: {_one_line(str(e))}"
    return Outcome(task.key, task.run, False, error=error, wall_s=time.perf_counter() - started)
