"""Shared pieces of the figures: the error type, access to a run's series, loading an output
directory written by ``celltcp run`` or a results store written by ``celltcp sweep``, quantities
written with units, and saving.

Figures are built with :class:`matplotlib.figure.Figure` directly rather than through
``pyplot``: no global figure registry, no interactive backend and no window, so the functions
are safe in scripts, tests, notebooks and worker processes alike. ``savefig`` renders with Agg.
For the same reason Jupyter would show such a figure as ``<Figure size …>`` unless pyplot's
inline backend had been set up (``%matplotlib inline``); the figures are therefore
:class:`CelltcpFigure`, which renders itself as PNG for notebooks.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
from matplotlib.figure import Figure

from celltcp import _core

__all__ = [
    "PlotError",
    "RunOutput",
    "kept_series",
    "load_run",
    "load_store",
    "parse_quantity",
    "save",
    "split_quantity",
    "store_series",
]

#: Seconds → milliseconds, bytes → kilobytes, bit/s → Mbit/s (decimal SI prefixes).
MS_PER_S = 1e3
BYTES_PER_KB = 1e3
BPS_PER_MBPS = 1e6

#: Default figure size in inches: one column of a two-column paper at 2x scale.
FIGSIZE = (7.0, 4.0)


class PlotError(ValueError):
    """A figure cannot be drawn from the data given (unknown flow or link, missing series or
    variable, empty frame); the message names what is missing and what was available."""


class HasSeries(Protocol):
    """Anything with a run's time series by name: :class:`celltcp.RunResult` or
    :class:`RunOutput`."""

    @property
    def series(self) -> Mapping[str, pd.DataFrame]: ...


@dataclass
class RunOutput:
    """A run read back from its output directory: ``summary.json`` and ``<series>.parquet``."""

    summary: dict[str, Any]
    series: dict[str, pd.DataFrame] = field(default_factory=dict)


def load_run(directory: str | os.PathLike[str]) -> RunOutput:
    """Reads an output directory written by ``celltcp run`` (or :meth:`RunResult.write`).

    Raises :class:`PlotError` when the directory or its ``summary.json`` is missing or
    unreadable, or a series file cannot be parsed.
    """
    path = Path(directory)
    summary_path = path / "summary.json"
    if not path.is_dir():
        raise PlotError(f"{path}: not a directory written by 'celltcp run'")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlotError(f"{path}: no summary.json; not an output of 'celltcp run'") from None
    except (OSError, ValueError) as e:
        raise PlotError(f"{summary_path}: cannot read: {e}") from None
    series: dict[str, pd.DataFrame] = {}
    for file in sorted(path.glob("*.parquet")):
        try:
            series[file.stem] = pd.read_parquet(file)
        except (OSError, ValueError, pa.ArrowException) as e:
            raise PlotError(f"{file}: cannot read: {e}") from None
    return RunOutput(summary, series)


def save(fig: Figure, out: str | os.PathLike[str] | None, dpi: int = 150) -> None:
    """Writes ``fig`` to ``out`` (format from the suffix, e.g. ``.png``, ``.pdf``, ``.svg``)
    when ``out`` is given."""
    if out is not None:
        fig.savefig(out, dpi=dpi, bbox_inches="tight")


def get_series(result: HasSeries, name: str, hint: str) -> pd.DataFrame:
    """The series ``name`` of a run, or a :class:`PlotError` that says how to enable it."""
    series = getattr(result, "series", None)
    if not isinstance(series, Mapping):
        raise PlotError(f"expected a RunResult or RunOutput, got {type(result).__name__}")
    if name not in series:
        have = ", ".join(sorted(series)) or "none"
        raise PlotError(f"series '{name}' is not in the result (have: {have}); {hint}")
    return series[name]


def select(frame: pd.DataFrame, column: str, value: str, what: str, series: str) -> pd.DataFrame:
    """Rows of ``frame`` whose ``column`` equals ``value``; an unknown value is a PlotError
    listing the known ones."""
    known = [str(v) for v in pd.unique(frame[column].astype(str))]
    if value not in known:
        listing = ", ".join(sorted(known)) or "none"
        raise PlotError(f"{what} '{value}' is not in series '{series}' (have: {listing})")
    return frame[frame[column].astype(str) == value]


def pick_one(names: list[str], given: str | None, what: str, series: str) -> str:
    """``given`` if it is one of ``names``; without it, the only name there is. Otherwise a
    PlotError naming the known ones (or asking to name one of several)."""
    if given is not None:
        if given not in names:
            raise PlotError(
                f"{what} '{given}' is not in series '{series}' (have: "
                f"{', '.join(sorted(names)) or 'none'})"
            )
        return given
    if len(names) != 1:
        raise PlotError(f"several {what}s in series '{series}' ({', '.join(names)}); name one")
    return names[0]


def time_window(frame: pd.DataFrame, t0: float | None, t1: float | None) -> pd.DataFrame:
    """Rows with ``t0 <= time_s <= t1`` (either bound may be None); checks the bounds."""
    for name, bound in (("t0", t0), ("t1", t1)):
        if bound is not None and not np.isfinite(bound):
            raise PlotError(f"{name}: {bound!r} is not a finite time in seconds")
    if t0 is not None and t1 is not None and t1 <= t0:
        raise PlotError(f"t1 ({t1} s) must be after t0 ({t0} s)")
    mask = np.ones(len(frame), dtype=bool)
    if t0 is not None:
        mask &= frame["time_s"].to_numpy() >= t0
    if t1 is not None:
        mask &= frame["time_s"].to_numpy() <= t1
    return frame[mask]


class CelltcpFigure(Figure):
    """A matplotlib figure that displays itself in Jupyter (IPython's rich display protocol)
    without pyplot: the last expression of a cell shows the image."""

    def _repr_png_(self) -> bytes:
        import io

        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(self)
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()


def new_figure(
    rows: int = 1, sharex: bool = True, height: float | None = None
) -> tuple[Figure, list[Any]]:
    """A figure with ``rows`` stacked axes sharing the time axis."""
    fig = CelltcpFigure(
        figsize=(FIGSIZE[0], height or FIGSIZE[1] * (1 if rows == 1 else 0.75 * rows))
    )
    axes = fig.subplots(rows, 1, sharex=sharex, squeeze=False)[:, 0]
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return fig, list(axes)


# -- quantities written with units ------------------------------------------------------------

#: NUMBER [" "] UNIT, to keep the number and unit as written; which units exist, their kinds
#: and their factors are the scenario format's own (``_core.quantity``, docs/scenarios.md "Units").
_WRITTEN = re.compile(r"(\d+(?:\.\d+)?) ?(\S+)\Z")


@dataclass(frozen=True)
class Quantity:
    """A value written with a unit: the number and unit as written, the kind, and the value in
    the kind's SI base unit (``base``)."""

    number: float
    unit: str
    kind: str
    base: str
    value: float


def split_quantity(value: Any) -> Quantity | None:
    """A string written as in scenario files (``"25Mbps"`` → 25 Mbps, a rate of 2.5e7 bit/s), or
    None for anything else (a number, another string)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    match = _WRITTEN.match(text)
    parsed = _core.quantity(text) if match else None
    if match is None or parsed is None:
        return None
    kind, base, si = parsed
    return Quantity(float(match.group(1)), match.group(2), kind, base, si)


def parse_quantity(text: str, kind: str) -> float:
    """A quantity of ``kind`` (rate, time, size, packets, speed, length) in its SI base unit:
    bit/s, s, bytes, packets, m/s or m. ``parse_quantity("50ms", "time") == 0.05``.

    Raises :class:`PlotError` with the scenario format's message (its units, an example) when
    ``text`` is not one."""
    try:
        value = _core.quantity_of(kind, str(text).strip())
    except ValueError as e:
        raise PlotError(str(e)) from None
    if not math.isfinite(value):
        raise PlotError(f"{text!r} is too large")
    return value


# -- results stores -------------------------------------------------------------------------------


def load_store(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """Every run of a results store written by ``celltcp sweep`` (or :func:`celltcp.sweep`), one
    row per (scenario key, run): the parameters, ``run``, ``status``, the metrics, ``error`` and
    ``key``, with ``attrs["parameters"]`` and ``attrs["metrics"]`` naming those columns (the
    frame of ``celltcp stats``). A grid point is a scenario key.

    The store is opened read-only, so it can be read while no sweep writes to it. Raises
    :class:`PlotError` when ``directory`` is not a store or holds no run.
    """
    from celltcp.errors import ScenarioError
    from celltcp.sweep.runner import collect_store
    from celltcp.sweep.store import Store

    try:
        with Store.open(directory, read_only=True) as store:
            frame = collect_store(store)
    except ScenarioError as e:
        raise PlotError(e.message) from None
    if len(frame) == 0:
        raise PlotError(f"{directory}: the store holds no runs")
    return frame


def kept_series(directory: str | os.PathLike[str], name: str, runs: pd.DataFrame) -> int:
    """How many successful runs of ``runs`` (a frame of :func:`load_store`) kept the series
    ``name`` in the store."""
    from celltcp.sweep.store import SERIES_DIR

    ok = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    root = Path(directory) / SERIES_DIR
    return sum(
        (root / str(k) / str(int(r)) / f"{name}.parquet").is_file()
        for k, r in zip(ok["key"], ok["run"], strict=True)
    )


def store_series(
    directory: str | os.PathLike[str], name: str, runs: pd.DataFrame, hint: str
) -> pd.DataFrame:
    """The series ``name`` kept by the successful runs of ``runs`` (a frame of
    :func:`load_store`, possibly filtered), concatenated: the run's parameters, ``key`` and
    ``run`` first, then the series' columns. ``attrs["parameters"]`` is carried over.

    Raises :class:`PlotError` (ending with ``hint``) when no run of ``runs`` kept the series.
    """
    from celltcp.errors import ScenarioError
    from celltcp.sweep.store import Store

    parameters = list(runs.attrs.get("parameters", []))
    ok = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    parts: list[pd.DataFrame] = []
    try:
        with Store.open(directory, read_only=True) as store:
            for _, row in ok.iterrows():
                path = store.series_path(row["key"], int(row["run"]), name)
                if not path.is_file():
                    continue
                try:
                    table = pd.read_parquet(path)
                except (OSError, ValueError, pa.ArrowException) as e:
                    raise PlotError(f"{path}: cannot read: {e}") from None
                front = {p: row[p] for p in parameters}
                front.update(key=row["key"], run=int(row["run"]))
                for i, (column, value) in enumerate(front.items()):
                    if column not in table.columns:
                        table.insert(i, column, [value] * len(table))
                parts.append(table)
    except ScenarioError as e:
        raise PlotError(e.message) from None
    if not parts:
        raise PlotError(f"no run of the {len(ok)} selected kept the series '{name}'; {hint}")
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["parameters"] = parameters
    return frame
