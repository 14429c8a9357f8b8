"""Running a sweep: validate everything, skip what the store holds, execute the rest, collect.

Order of work, so that bad input never writes anything:

1. parse the sweep file and expand its points;
2. resolve every point's scenario with the core (unknown keys, missing units, bad references);
3. check that metric patterns name flows and links that exist;
4. open an existing store and check its format (a new store is not created yet);
5. connect the backend (Ray: probe the address);
6. create the store if new, and execute the runs not yet stored.

Metric paths into summary.json are checked against the first successful run before anything of
it is stored (the summary's fields are only known from a run), and the sweep stops on a typo.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from celltcp import _core
from celltcp.errors import ScenarioError, scenario_error
from celltcp.output import OutputDirError, check_store_dir
from celltcp.sweep.backend import Backend, WorkerLost, check_workers, make_backend
from celltcp.sweep.metrics import MetricPattern, check_against, extract
from celltcp.sweep.progress import Progress, in_notebook
from celltcp.sweep.spec import (
    ResolvedPoint,
    SpecLike,
    SweepSpec,
    load_spec,
    resolve_points,
    toml_value,
)
from celltcp.sweep.store import DB_FILE, Store
from celltcp.sweep.worker import Outcome, Task

__all__ = ["SweepReport", "collect", "collect_store", "execute_sweep", "sweep"]


@dataclass
class SweepReport:
    """What one invocation did (figures for the command line and the benchmark).

    Attributes:
        name: the sweep's name.
        points: points in the parameter space.
        runs: runs in the sweep (points × replications, shared scenarios counted once).
        stored_before: runs found in the store and skipped.
        other_build: stored runs made by another build of celltcp, run again and replaced.
        executed: runs executed now; ``failed`` of them failed.
        wall_s: wall seconds of the whole invocation; ``run_wall_s`` the sum over executed runs
            of their time inside a worker; ``store_write_s`` the time spent writing the store.
        warnings: remarks worth showing (a metric that matched nothing, a series never produced).
    """

    name: str
    points: int = 0
    runs: int = 0
    stored_before: int = 0
    other_build: int = 0
    executed: int = 0
    failed: int = 0
    wall_s: float = 0.0
    run_wall_s: float = 0.0
    store_write_s: float = 0.0
    store: str | None = None
    warnings: list[str] = field(default_factory=list)


def _check_named_metrics(spec: SweepSpec, resolved: Sequence[ResolvedPoint]) -> None:
    """A metric naming a flow or link must name one that some point's scenario has."""
    for i, pattern in enumerate(spec.metrics):
        named = pattern.named()
        if named is None:
            continue
        table, name = named
        known: set[str] = set()
        for rp in resolved:
            known.update((rp.scenario.get(table) or {}).keys())
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise scenario_error(
                f"metrics[{i}]",
                f"{pattern.text}: no {table[:-1]} named {name!r} in any point ({table}: {listed})",
            )


class _MetricGuard:
    """Checks each pattern without wildcards once, on the first summary that can tell."""

    def __init__(self, patterns: Sequence[MetricPattern]):
        self._pending = [p for p in patterns if not p.has_wildcard]
        self._all = list(patterns)

    def check(self, summary: dict[str, Any]) -> None:
        checkable = []
        for p in self._pending:
            named = p.named()
            if named is None or named[1] in (summary.get(named[0]) or {}):
                checkable.append(p)
        for p in checkable:
            try:
                check_against(summary, [p])
            except ScenarioError as e:
                # Keyed by the pattern's position in the sweep's own list.
                raise scenario_error(f"metrics[{self._all.index(p)}]", e.message) from None
        self._pending = [p for p in self._pending if p not in checkable]


class _Collector:
    """Receives outcomes in the parent process and writes them to the store."""

    def __init__(
        self,
        spec: SweepSpec,
        store: Store | None,
        open_store: Callable[[], Store],
        by_key: dict[str, ResolvedPoint],
        progress: Progress,
        report: SweepReport,
        replace: set[tuple[str, int]],
    ):
        self.spec = spec
        #: The store; a new one is created by ``open_store`` only when the first run is written.
        self.store = store
        self._open_store = open_store
        self.by_key = by_key
        self.progress = progress
        self.report = report
        self.replace = replace
        self.guard = _MetricGuard(spec.metrics)
        self.metric_spec = [p.text for p in spec.metrics]
        # Outcomes wait here until a successful run has confirmed the metric paths, so that a
        # misspelt metric stops the sweep with nothing written.
        self._held: list[tuple[Outcome, dict[str, Any] | None]] = []
        self._confirmed = False
        #: Names of the series that some run of this invocation produced and kept.
        self.produced: set[str] = set()

    def __call__(self, outcome: Outcome) -> None:
        if outcome.build != _core.BUILD_ID:
            # A result is stored only from the code that reports it.
            outcome = dataclasses.replace(
                outcome,
                ok=False,
                summary=None,
                series={},
                error=f"the worker runs celltcp build {outcome.build}, this sweep build "
                f"{_core.BUILD_ID}; install the same celltcp on every worker",
            )
        summary = json.loads(outcome.summary) if outcome.ok and outcome.summary else None
        if summary is not None:
            self.guard.check(summary)
            self._confirmed = True
        self._held.append((outcome, summary))
        if self._confirmed:
            self.flush()

    def flush(self) -> None:
        held, self._held = self._held, []
        for outcome, summary in held:
            self._write(outcome, summary)

    def _write(self, outcome: Outcome, summary: dict[str, Any] | None) -> None:
        rp = self.by_key[outcome.key]
        self.produced.update(outcome.series)
        started = time.perf_counter()
        with _sigint_deferred():
            self._store_outcome(outcome, summary, rp)
        self.report.store_write_s += time.perf_counter() - started
        self.report.run_wall_s += outcome.wall_s
        self.report.executed += 1
        self.report.failed += 0 if outcome.ok else 1
        self.progress.advance(outcome.ok)

    def _store_outcome(
        self, outcome: Outcome, summary: dict[str, Any] | None, rp: ResolvedPoint
    ) -> None:
        if self.store is None:
            self.store = self._open_store()
        self.store.write(
            key=outcome.key,
            run=outcome.run,
            point=rp.point.index,
            seed=int(rp.scenario.get("simulation", {}).get("seed", 0)),
            parameters=rp.point.parameters,
            scenario=rp.scenario,
            status="ok" if outcome.ok else "error",
            error=outcome.error,
            summary=outcome.summary,
            metrics=extract(summary, self.spec.metrics) if summary is not None else {},
            metric_spec=self.metric_spec,
            series=outcome.series,
            events=outcome.events,
            wall_s=outcome.wall_s,
            build=outcome.build,
            replace=(outcome.key, outcome.run) in self.replace,
        )


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Holds back Ctrl-C (SIGINT) while a finished run is being stored, and delivers it after.

    Interrupted half-way, the store would keep the run's series without its row (the run is
    then computed again), and DuckDB answers an interrupt inside a query with its own error
    rather than KeyboardInterrupt. Only the main thread can install signal handlers; elsewhere
    nothing is held back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        if callable(previous):
            previous(signal.SIGINT, None)  # the default handler raises KeyboardInterrupt
        elif previous == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGINT)


def _display(value: Any) -> Any:
    """A parameter value for a DataFrame cell: scalars as they are, tables and lists as TOML."""
    if isinstance(value, (dict, list, tuple)):
        return toml_value(value)
    return value


def _si_columns(records: list[dict[str, Any]], parameters: Sequence[str]) -> dict[str, str]:
    """Parameter → the name of its numeric twin column, ``"links.access.rate [bit/s]"``, for
    each parameter whose values are all quantities of one unit (``"5Mbps"``, ``"20Mbps"``):
    the twin holds them in the SI base unit, so that frames sort and plot them as numbers.
    Adds the twin values to ``records``."""
    twins: dict[str, str] = {}
    for p in parameters:
        values = [r[p] for r in records if r.get(p) is not None]
        parsed = [_core.quantity(v) if isinstance(v, str) else None for v in values]
        units = {q[1] for q in parsed if q is not None}
        if not values or None in parsed or len(units) != 1:
            continue
        twin = f"{p} [{units.pop()}]"
        twins[p] = twin
        for r in records:
            v = r.get(p)
            q = _core.quantity(v) if isinstance(v, str) else None
            r[twin] = q[2] if q is not None else None
    return twins


def _parameter_columns(parameters: Sequence[str], twins: dict[str, str]) -> list[str]:
    """The parameter columns, each followed by its numeric twin when it has one."""
    return [c for p in parameters for c in ([p, twins[p]] if p in twins else [p])]


def collect(
    spec: SweepSpec,
    resolved: Sequence[ResolvedPoint],
    store: Store,
    report: SweepReport | None = None,
) -> pd.DataFrame:
    """The sweep's results from the store: one row per (point, run), sorted by point then run.

    Columns: ``point``, the parameters, ``run``, ``status``, the metrics (concrete paths),
    ``error``, ``key``. ``attrs`` holds ``parameters`` and ``metrics`` (column names). Metrics
    stored for another metric list are recomputed from the stored summaries (and updated).
    """
    metric_spec = [p.text for p in spec.metrics]
    stored = {(r.key, r.run): r for r in store.runs({rp.key for rp in resolved})}
    stale = [k for k, r in stored.items() if r.status == "ok" and r.metric_spec != metric_spec]
    fresh: dict[tuple[str, int], dict[str, Any]] = {}
    if stale:
        for pair, summary in store.summaries(stale).items():
            fresh[pair] = extract(summary, spec.metrics)
        store.set_metrics([(k, r, m) for (k, r), m in fresh.items()], metric_spec)
    parameters = spec.parameter_names
    records: list[dict[str, Any]] = []
    metric_columns: dict[str, None] = {}
    for rp in resolved:
        for run in spec.runs:
            row = stored.get((rp.key, run))
            if row is None:
                continue
            values = fresh.get((rp.key, run), row.metrics)
            metric_columns.update(dict.fromkeys(values))
            record: dict[str, Any] = {"point": rp.point.index}
            record.update({p: _display(rp.point.parameters.get(p)) for p in parameters})
            record.update({"run": run, "status": row.status})
            record.update(values)
            record.update({"error": row.error, "key": rp.key})
            records.append(record)
    order = {p.text: i for i, p in enumerate(spec.metrics)}
    metrics = sorted(metric_columns, key=lambda c: _pattern_rank(c, spec.metrics, order))
    twins = _si_columns(records, parameters)
    columns = [
        "point",
        *_parameter_columns(parameters, twins),
        "run",
        "status",
        *metrics,
        "error",
        "key",
    ]
    frame = pd.DataFrame.from_records(records, columns=columns)
    frame.attrs["parameters"] = parameters
    frame.attrs["parameter_values"] = twins
    frame.attrs["metrics"] = metrics
    if report is not None:
        matched = {p.text for p in spec.metrics if any(_matches(c, p) for c in metrics)}
        if (frame["status"] == "ok").any():
            for i, p in enumerate(spec.metrics):
                if p.text not in matched:
                    report.warnings.append(f"metrics[{i}]: {p.text} matched nothing in any run")
    return frame


def collect_store(store: Store) -> pd.DataFrame:
    """Every run of a store, one row per (scenario key, run), for ``celltcp stats STORE``.

    Without the sweep file, a grid point is a scenario key: its parameters are those stored
    with its runs, its metrics those last extracted. Columns: the parameters (union over the
    store), ``run``, ``status``, the metrics, ``error``, ``key``; rows in the order of the
    points that wrote them.
    """
    rows = store.runs()
    parameters: dict[str, None] = {}
    metrics: dict[str, None] = {}
    for r in rows:
        parameters.update(dict.fromkeys(r.parameters))
        metrics.update(dict.fromkeys(r.metrics))
    first_point: dict[str, int] = {}
    for r in rows:
        first_point[r.key] = min(first_point.get(r.key, r.point), r.point)
    rows = sorted(rows, key=lambda r: (first_point[r.key], r.key, r.run))
    records = []
    for r in rows:
        record: dict[str, Any] = {p: _display(r.parameters.get(p)) for p in parameters}
        record.update({"run": r.run, "status": r.status})
        record.update(r.metrics)
        record.update({"error": r.error, "key": r.key})
        records.append(record)
    twins = _si_columns(records, list(parameters))
    columns = [
        *_parameter_columns(list(parameters), twins),
        "run",
        "status",
        *metrics,
        "error",
        "key",
    ]
    frame = pd.DataFrame.from_records(records, columns=columns)
    frame.attrs["parameters"] = list(parameters)
    frame.attrs["parameter_values"] = twins
    frame.attrs["metrics"] = list(metrics)
    return frame


def _matches(column: str, pattern: MetricPattern) -> bool:
    parts = column.split(".")
    return len(parts) == len(pattern.segments) and all(
        s == "*" or s == c for s, c in zip(pattern.segments, parts, strict=True)
    )


def _pattern_rank(column: str, patterns: Sequence[MetricPattern], order: dict[str, int]) -> int:
    for p in patterns:
        if _matches(column, p):
            return order[p.text]
    return len(order)


def execute_sweep(
    spec: SpecLike,
    *,
    workers: int | None = None,
    store: str | Path | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: bool | None = None,
    retry_failed: bool = False,
) -> tuple[pd.DataFrame, SweepReport]:
    """Like :func:`sweep`, also returning the :class:`SweepReport`."""
    started = time.perf_counter()
    spec = load_spec(spec)
    workers = check_workers(workers)
    if backend not in ("local", "ray"):
        raise scenario_error("backend", f"{backend!r} is not a backend; use one of: local, ray")
    if address is not None and backend != "ray":
        raise scenario_error("address", "an address is only used with the ray backend")
    if spec.series and store is None:
        raise scenario_error("series", "keeping series needs a store directory (--store DIR)")
    if store is not None:
        try:
            check_store_dir(store, DB_FILE)
        except OutputDirError as e:
            raise scenario_error("store", str(e)) from None
    resolved = resolve_points(spec)
    _check_named_metrics(spec, resolved)
    by_key: dict[str, ResolvedPoint] = {}
    for rp in resolved:
        by_key.setdefault(rp.key, rp)
    wanted = [(key, run) for key in by_key for run in spec.runs]
    report = SweepReport(
        spec.name,
        points=len(resolved),
        runs=len(wanted),
        store=None if store is None else str(store),
    )

    db: Store | None = Store.open(store) if store is not None and Store.exists(store) else None
    runner: Backend | None = None
    collector: _Collector | None = None

    def open_store() -> Store:
        return Store.open(store) if store is not None else Store.in_memory()

    try:
        finished = db.finished(by_key) if db is not None else {}
        # Runs another build made are run again: the version stays 0.1.0 while models change.
        other_build = {pair for pair in wanted if pair in finished and not finished[pair].current}
        failed = {p for p, state in finished.items() if retry_failed and state.status == "error"}
        redo = other_build | failed
        todo = [pair for pair in wanted if pair not in finished or pair in redo]
        report.stored_before = len(wanted) - len(todo)
        report.other_build = len(other_build)
        if todo:
            runner = make_backend(backend, workers=workers, address=address)
        tasks = [Task(k, r, by_key[k].toml, spec.series) for k, r in todo]
        # By default a bar only in a notebook, where nothing else shows that a sweep runs.
        show = in_notebook() if progress is None else bool(progress)
        bar = Progress(spec.name, len(tasks), report.stored_before, enabled=show and bool(tasks))
        collector = _Collector(spec, db, open_store, by_key, bar, report, redo)
        bar.start()
        try:
            if runner is not None:
                runner.run(tasks, collector)
        except (WorkerLost, KeyboardInterrupt):
            # Failed runs held back until a metric check are still results; keep them.
            collector.flush()
            raise
        finally:
            bar.close()
        collector.flush()
        db = collector.store if collector.store is not None else open_store()
        frame = collect(spec, resolved, db, report)
        if spec.series and report.executed and "*" not in spec.series:
            for name in spec.series:
                if name not in collector.produced:
                    report.warnings.append(
                        f"series: {name!r} was produced by no run; is it enabled in [trace]?"
                    )
    finally:
        if runner is not None:
            runner.close()
        if collector is not None and collector.store is not None:
            db = collector.store
        if db is not None:
            db.close()
    report.wall_s = time.perf_counter() - started
    return frame, report


def sweep(
    spec: SpecLike,
    *,
    workers: int | None = None,
    store: str | Path | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: bool | None = None,
    retry_failed: bool = False,
) -> pd.DataFrame:
    """Runs a sweep and returns one row per (point, run).

    Args:
        spec: a sweep file's path, a dict of its tables, or a :class:`SweepSpec`.
        workers: processes (local) or CPUs of a started Ray instance; default: this machine's CPUs.
        store: directory of the results store; runs already stored there are not run again.
            None keeps results in memory only (and cannot keep series).
        backend: ``"local"`` (a process pool) or ``"ray"``.
        address: the Ray cluster's address (default: the Ray already initialised in this
            process, or a new local instance).
        progress: draw a progress bar: on stderr, or a widget in a Jupyter notebook (default:
            in a notebook only).
        retry_failed: run again the runs stored as failed.

    Returns:
        A DataFrame with ``point``, one column per parameter (a parameter written with a unit,
        ``"20Mbps"``, is followed by its value in the SI base unit, column
        ``"links.access.rate [bit/s]"``), ``run``, ``status`` (``ok`` or ``error``), one column
        per metric (concrete dotted path), ``error`` and ``key`` (the scenario's store key,
        which locates kept series). ``attrs["parameters"]`` and ``attrs["metrics"]`` list those
        columns, for :func:`celltcp.sweep.summarize`; ``attrs["parameter_values"]`` maps a
        parameter to its numeric column.

    Raises:
        ScenarioError: bad input (a key that does not exist, a value without its unit, an empty
            grid, an unusable store or Ray address); nothing is written then.
        WorkerLost: a worker process died; the runs finished before are stored.
    """
    frame, report = execute_sweep(
        spec,
        workers=workers,
        store=store,
        backend=backend,
        address=address,
        progress=progress,
        retry_failed=retry_failed,
    )
    for text in report.warnings:
        warnings.warn(text, stacklevel=2)
    return frame
