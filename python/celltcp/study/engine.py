"""The one engine every study runs on: sweeps, evaluation, the report and ``claims.json``.

:func:`run` sends each :class:`~celltcp.study.Sweep` through :func:`celltcp.sweep` into one
results store (crash-safe; a repeated invocation with the same ``store`` reuses every stored
run), reads the metrics of every run (summary paths from the sweep, series functions from the
kept series) into :class:`Results`; :func:`evaluate` decides each claim by its test;
:func:`document` builds the report (:class:`celltcp.reproduce.document.Document`) whose
``claims.json`` has the format of the reproductions'; :func:`write` writes it all into an output
directory that appears whole or not at all.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from celltcp.reproduce.document import (
    Bullets,
    Document,
    Figure,
    Heading,
    Paragraph,
    Table,
    fmt_ci,
    mean_ci,
    png_of,
)
from celltcp.reproduce.registry import Options, ReproductionError, StoreRunner
from celltcp.reproduce.verdict import ClaimRow, claim_table, shortfall
from celltcp.study import declaration as d
from celltcp.study import dependent
from celltcp.study.declaration import Evaluation, Metric, Runs, Study, Sweep, words

__all__ = [
    "Results",
    "document",
    "evaluate",
    "parse_set",
    "points_of",
    "run",
    "write",
]


def parse_set(items: Iterable[str]) -> dict[str, Any]:
    """``"key=value"`` settings (``celltcp run --set``) as dotted key → value, the value read
    as a TOML value (``false``, ``3``, ``{ kind = "snoop" }``) or else kept as text
    (``10Mbps``)."""
    from celltcp.errors import ScenarioError
    from celltcp.runner import parse_overrides
    from celltcp.scenario import parse_toml

    out: dict[str, Any] = {}
    for key, text in parse_overrides(list(items)):
        try:
            out[key] = parse_toml(f"v = {text}", key)["v"]
        except ScenarioError:
            out[key] = text
    return out


def points_of(sweep: Sweep, quick: bool) -> list[dict[str, Any]]:
    """The sweep's points in the mode: the scenario's and the mode's overrides, then one value
    of every axis, the axes' cartesian product with the first axis outermost (or each of the
    sweep's explicit points, in their order)."""
    base = sweep.overrides_of(quick)
    explicit = sweep.points_of(quick)
    if explicit is not None:
        return [{**base, **p} for p in explicit]
    axes = sweep.axes_of(quick)
    return [
        {**base, **dict(zip(axes, values, strict=True))}
        for values in itertools.product(*axes.values())
    ]


@dataclass
class Results:
    """Every run of a study: per sweep one row per (point, run), sorted, with a column per axis
    and per metric (by the metric's name).

    Attributes:
        study: the study that ran.
        quick: the mode.
        frames: sweep name → its rows.
        runs: runs per sweep (stored ones included), for ``claims.json``.
        store: the results store the series were read from.
        wall_s: wall time of the runs.
        walls: wall time per sweep (s), in the order they ran.
        options: how the study was run (its report's "What was run" names the store).
    """

    study: Study
    quick: bool
    frames: dict[str, pd.DataFrame]
    runs: dict[str, int] = field(default_factory=dict)
    store: Path | None = None
    wall_s: float = 0.0
    walls: dict[str, float] = field(default_factory=dict)
    options: Options | None = None
    _derived: dict[str, pd.DataFrame | None] = field(default_factory=dict, repr=False)

    def axis(self, sweep: str, key: str) -> list[Any]:
        """The values of one axis of a sweep in the mode's grid."""
        return self.study.sweep(sweep).axes_of(self.quick)[key]

    def derived(self, name: str) -> pd.DataFrame:
        """The study's derived frame ``name`` (:class:`celltcp.study.Derived`), computed on first
        use and kept; ValueError for one that needs itself."""
        if name in self._derived:
            found = self._derived[name]
            if found is None:
                raise ValueError(f"derived frame {name!r} needs itself")
            return found
        of = next((x.of for x in self.study.derived if x.name == name), None)
        if of is None:
            raise KeyError(f"study {self.study.name!r} derives no frame {name!r}")
        self._derived[name] = None
        try:
            frame = of(self)
        except BaseException:
            del self._derived[name]
            raise
        self._derived[name] = frame
        return frame

    def metric(self, name: str) -> Metric:
        """The metric called ``name`` (of any sweep)."""
        for s in self.study.sweeps:
            for m in s.metrics:
                if m.name == name:
                    return m
        raise KeyError(f"study {self.study.name!r} has no metric {name!r}")

    def frame(self, name: str) -> pd.DataFrame:
        """The rows of the sweep ``name`` or, when no sweep has that name, the derived frame
        (:meth:`derived`): a frame of one row per run (several sweeps' runs side by side,
        with columns telling them apart) is read by the tests as a sweep is."""
        if name in self.frames:
            return self.frames[name]
        if any(x.name == name for x in self.study.derived):
            return self.derived(name)
        raise KeyError(f"study {self.study.name!r} has no sweep or derived frame {name!r}")

    def rows(self, runs: Runs) -> pd.DataFrame:
        """The rows of the set (a sweep's in (point, run) order, a derived frame's in its
        own), those whose columns take the values of ``runs.where``."""
        frame = self.frame(runs.sweep)
        keep = np.ones(len(frame), dtype=bool)
        for key, value in runs.where.items():
            if key not in frame.columns:
                raise KeyError(f"{runs.sweep!r} has no axis or column {key!r}")
            keep &= (frame[key] == value).to_numpy()
        return frame[keep]

    def values(self, metric: str, runs: Runs) -> np.ndarray:
        """The metric's values over the set (floats, in (point, run) order)."""
        values: np.ndarray = self.rows(runs)[metric].to_numpy(dtype=float)
        return values

    def paired(self, metric: str, a: Runs, b: Runs) -> np.ndarray:
        """a − b run by run; ValueError when the two sets do not hold the same run numbers."""
        ra, rb = self.rows(a), self.rows(b)
        if list(ra["run"]) != list(rb["run"]):
            raise ValueError(f"{a.name()} and {b.name()} do not pair run by run")
        diff: np.ndarray = ra[metric].to_numpy(dtype=float) - rb[metric].to_numpy(dtype=float)
        return diff

    def series(self, runs: Runs, name: str) -> list[pd.DataFrame]:
        """The kept series ``name`` of every run of the set, in its order."""
        return self.read(self.rows(runs), name)

    def read(self, rows: pd.DataFrame, name: str) -> list[pd.DataFrame]:
        """The kept series ``name`` of every run of ``rows`` (rows of a sweep, as a derived
        metric receives them), in their order."""
        return _read_series(self.store, rows, name)


def _read_series(store: Path | None, frame: pd.DataFrame, name: str) -> list[pd.DataFrame]:
    from celltcp.sweep import Store

    if store is None:
        raise ReproductionError(f"series {name!r}: the runs were not kept in a store")
    with Store.open(store, read_only=True) as s:
        return [
            _one_series(s, key, int(run), name)
            for key, run in zip(frame["key"], frame["run"], strict=True)
        ]


def _one_series(store: Any, key: str, run: int, name: str) -> pd.DataFrame:
    """A run's series; empty, with the series' columns (:func:`celltcp.outputs.series_columns`),
    when the run wrote none (the ``handovers`` of a run without a handover)."""
    from celltcp.outputs import series_columns

    try:
        frame: pd.DataFrame = store.read_series(key, run, name)
    except FileNotFoundError:
        return pd.DataFrame(columns=["time_ns", "time_s", *series_columns(name)])
    return frame


def _run_sweep(sweep: Sweep, runner: StoreRunner) -> pd.DataFrame:
    import celltcp

    quick = runner.options.quick
    summary = [m for m in sweep.metrics if m.summary is not None]
    spec: dict[str, Any] = {
        # Whole tables replaced need the core's setter on the file itself; a plain file is
        # named by its path, as the store has always recorded it.
        "scenario": sweep.scenario.base() if sweep.scenario.tables else str(sweep.scenario.path()),
        "name": sweep.name,
        "runs": sweep.replications.of(quick),
        # A sweep whose metrics all come from series or derivations still names one path: the
        # sweep reads at least one per run.
        "metrics": [m.summary for m in summary] or ["simulated_time_s"],
        "points": points_of(sweep, quick),
    }
    if sweep.seed is not None:
        spec["seed"] = sweep.seed
    if sweep.series():
        spec["series"] = list(sweep.series())
    frame = celltcp.sweep.sweep(
        spec, workers=runner.options.workers, store=runner.store, progress=runner.options.progress
    )
    failed = frame[frame["status"] != "ok"]
    if len(failed):
        first = failed.iloc[0]["error"]
        raise ReproductionError(f"{sweep.name}: {len(failed)} runs failed (first: {first})")
    runner.count(sweep.count_as or sweep.name, len(frame))
    frame = frame.sort_values(["point", "run"]).reset_index(drop=True)
    frame = frame.rename(columns={m.summary: m.name for m in summary if m.summary})
    for m in sweep.metrics:
        if m.series is not None and m.of is not None:
            reduce = m.of
            frame[m.name] = [float(reduce(s)) for s in _read_series(runner.store, frame, m.series)]
    return frame


def _derive_metrics(results: Results) -> None:
    """Adds the derived metrics (:attr:`Metric.derived`) to their sweeps' rows, sweep by sweep
    and in declaration order, so that one may read those before it."""
    for s in results.study.sweeps:
        for m in s.metrics:
            if m.derived is not None:
                frame = results.frames[s.name]
                values = np.asarray(m.derived(frame, results), dtype=float)
                if len(values) != len(frame):
                    raise ValueError(
                        f"derived metric {m.name!r}: {len(values)} values for {len(frame)} runs"
                    )
                results.frames[s.name] = frame.assign(**{m.name: values})


def run(study: Study, options: Options) -> Results:
    """Runs every sweep of the study (each run once; stored runs are read back) and reads their
    metrics. Without a store in ``options`` the runs go to a temporary one that the returned
    :class:`Results` own (removed when they are), so that their series stay readable.
    Sweeps run in declaration order; the points of one declared with
    :class:`~celltcp.study.After` are computed from the sweeps before it when its turn comes,
    and the returned results' ``study`` holds them (:mod:`celltcp.study.dependent`).
    ReproductionError when a run failed."""
    started = time.perf_counter()
    store = options.store
    temporary = None
    if store is None:
        temporary = tempfile.mkdtemp(prefix=f"celltcp-{study.name}-")
        store = Path(temporary) / "runs"
    runner = StoreRunner(options, store)
    frames: dict[str, pd.DataFrame] = {}
    walls: dict[str, float] = {}
    done: list[Sweep] = []
    try:
        for s in study.sweeps:
            begun = time.perf_counter()
            so_far = Results(replace(study, sweeps=tuple(done)), options.quick, frames, store=store)
            s = dependent.resolve(s, so_far)
            frames[s.name] = _run_sweep(s, runner)
            walls[s.name] = time.perf_counter() - begun
            done.append(s)
        results = Results(
            replace(study, sweeps=tuple(done)),
            options.quick,
            frames,
            dict(runner.runs),
            store,
            time.perf_counter() - started,
            walls,
            options,
        )
        _derive_metrics(results)
    except BaseException:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise
    if temporary is not None:
        weakref.finalize(results, shutil.rmtree, temporary, ignore_errors=True)
    return results


def _as_run(study: Study, results: Results) -> Study:
    """The study with its sweeps as they ran (computed points in place of
    :class:`~celltcp.study.After`), when ``results`` are of its sweeps."""
    if [s.name for s in study.sweeps] != [s.name for s in results.study.sweeps]:
        return study
    return replace(study, sweeps=results.study.sweeps)


def evaluate(study: Study, results: Results) -> dict[str, Evaluation]:
    """Every claim's evaluation by its key, in the study's order (the claims made in this mode,
    :meth:`celltcp.study.Claim.exists`)."""
    return {c.key: c.test.evaluate(results) for c in study.claims if c.exists(results)}


def _claim_rows(study: Study, results: Results, registered: bool) -> list[ClaimRow]:
    rows = []
    for c in study.claims:
        if c.registered is not registered or not c.exists(results):
            continue
        e = c.test.evaluate(results)
        own = c.reason(e, results) if c.reason else ""
        short = shortfall(e.decision, c.point) if c.shortfall else ""
        source_text, source_value = c.source(results)
        rows.append(
            ClaimRow(
                c.where,
                words(c.claim, results),
                source_text,
                source_value,
                c.estimate(e, results) if c.estimate else e.estimate,
                e.decision,
                detail=c.detail(e, results) if c.detail else e.detail,
                reason="; ".join(x for x in (short, own) if x),
                digits=c.digits,
                unit=c.unit,
                points=tuple(c.points(e, results)) if c.points else (),
            )
        )
    return rows


def _value_text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _metric_table(sweep: Sweep, frame: pd.DataFrame, quick: bool) -> Table:
    """Per point: the axes' values, the runs, each metric's mean ± 95 % half-width."""
    axes = list(sweep.axes_of(quick))
    rows = []
    for _point, g in frame.groupby("point", sort=True):
        first = g.iloc[0]
        cells = [_value_text(first[k]) for k in axes] + [str(len(g))]
        for m in sweep.metrics:
            mean, half = mean_ci(list(g[m.name].astype(float) * m.scale))
            cells.append(fmt_ci(mean, half, 3))
        rows.append(tuple(cells))
    return Table((*axes, "runs", *(m.heading for m in sweep.metrics)), tuple(rows))


def _what_was_run(study: Study, results: Results, options: Options, command: str) -> Bullets:
    from celltcp import _core

    mode = "quick" if options.quick else "full"
    items = [f"celltcp {_core.__version__}, `{command}` ({mode} mode)"]
    for s in study.sweeps:
        axes = "; ".join(
            f"`{k}` ∈ {{{', '.join(_value_text(v) for v in vs)}}}"
            for k, vs in s.axes_of(options.quick).items()
        )
        fixed = ", ".join(
            [f"`{k}` replaced" for k in s.scenario.tables]
            + [f"`{k}` = {v!r}" for k, v in s.overrides_of(options.quick).items()]
        )
        seed = f"master seed {s.seed}" if s.seed is not None else "the scenario's seed"
        items.append(
            f"sweep {s.name!r}: `{s.scenario.source}`"
            + (f" with {fixed}" if fixed else "")
            + f"; {axes}; {s.replications.of(options.quick)} replications per point "
            f"({s.replications.why}); {seed}; {results.runs.get(s.name, 0)} runs"
        )
    items.append(
        f"results store: `{options.store}`" if options.store else "results store: temporary"
    )
    items.append(f"wall time of the runs: {results.wall_s:.1f} s")
    return Bullets(tuple(items))


def document(study: Study, results: Results, options: Options, command: str = "") -> Document:
    """The report: what was run, the claims with their verdicts, the secondary comparisons,
    per sweep the metrics at every point, the study's tables and figures; or the study's own
    layout (:attr:`Study.report`) when it declares one."""
    study = _as_run(study, results)
    doc = Document(study.title, runs=dict(results.runs))
    if study.report is not None:
        for block in study.report:
            doc.add(*_render(block, study, results))
        return doc
    doc.add(
        Heading("What was run"),
        _what_was_run(study, results, options, command or f"celltcp study {study.name}"),
        Heading("The question"),
        Paragraph(study.question),
        Heading("Claims"),
        Paragraph(
            "Each verdict is a stated test on the runs at α = 0.05, with its p-value, n and "
            "power: reproduced, not significant or contradicted (docs/reproductions.md, "
            '"How verdicts are decided").'
        ),
        claim_table(_claim_rows(study, results, True)),
    )
    secondary = _claim_rows(study, results, False)
    if secondary:
        doc.add(
            Heading("Secondary, descriptive (not a registered claim)"),
            Table(
                ("comparison", "estimate", "verdict", "test", "why"),
                tuple(
                    (r.claim, r.cells()[3], r.decision.text(), r.cells()[7], r.cells()[8])
                    for r in secondary
                ),
            ),
        )
    for s in study.sweeps:
        doc.add(
            Heading(f"{s.name}: metrics per point"),
            _metric_table(s, results.frames[s.name], options.quick),
        )
    blocks: list[d.Block] = [*study.tables, *study.figures]
    for block in blocks:
        doc.add(*_render(block, study, results))
    return doc


def _render(block: d.Block, study: Study, results: Results) -> list[Any]:
    """The report's blocks of one declared block."""
    if isinstance(block, d.Section):
        return [Heading(block.heading, block.level)]
    if isinstance(block, d.Text):
        return [Paragraph(words(block.text, results))]
    if isinstance(block, d.Items):
        return [Bullets(tuple(block.items(results)))]
    if isinstance(block, d.Claims):
        return [claim_table(_claim_rows(study, results, True))]
    if isinstance(block, d.Table):
        text = words(block.text, results)
        return [
            *([Heading(block.heading)] if block.heading else []),
            *([Paragraph(text)] if text else []),
            Table(block.header, tuple(tuple(r) for r in block.rows(results))),
        ]
    if isinstance(block, d.Figure):
        return [Figure(block.file, png_of(block.draw(results)), words(block.caption, results))]
    return [x for b in block.make(results) for x in _render(b, study, results)]


def write(
    study: Study,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    workers: int | None = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = False,
    overwrite: bool = False,
    command: str = "",
) -> list[Path]:
    """Runs the study and writes report.md, report.html, claims.json and the figures into
    ``out`` (replaced whole on success, untouched on failure); the runs are kept in ``store``
    (default: the sibling ``<out>.runs``, which survives an interrupted run so that the next
    invocation resumes it). Returns the files written."""
    from celltcp.output import check_output_dir
    from celltcp.reproduce import default_store

    check_output_dir(out, overwrite=overwrite)
    options = Options(
        quick=quick,
        workers=workers,
        store=Path(store) if store is not None else default_store(out),
        progress=progress,
    )
    assert options.store is not None
    reused = options.store.is_dir() and any(options.store.iterdir())
    started = time.perf_counter()
    results = run(study, options)
    command = command or f"celltcp study {study.name}" + (" --quick" if quick else "")
    doc = document(study, results, options, command)
    doc.meta.update(
        study=study.name,
        mode="quick" if quick else "full",
        command=command,
    )
    return doc.publish(
        out,
        started=started,
        workers=workers,
        store_reused=reused,
        overwrite=overwrite,
        writer="celltcp study",
    )
