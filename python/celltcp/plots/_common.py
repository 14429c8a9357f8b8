"""Shared pieces of the figures: the error type, access to a run's series, loading an output
directory written by ``celltcp run``, and saving.

Figures are built with :class:`matplotlib.figure.Figure` directly rather than through
``pyplot``: no global figure registry, no interactive backend and no window, so the functions
are safe in scripts, tests, notebooks and worker processes alike. ``savefig`` renders with Agg.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
from matplotlib.figure import Figure

__all__ = ["PlotError", "RunOutput", "load_run", "save"]

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


def time_window(
    frame: pd.DataFrame, t0: float | None, t1: float | None
) -> pd.DataFrame:
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


def new_figure(rows: int = 1, sharex: bool = True, height: float | None = None) -> tuple[
    Figure, list[Any]
]:
    """A figure with ``rows`` stacked axes sharing the time axis."""
    fig = Figure(figsize=(FIGSIZE[0], height or FIGSIZE[1] * (1 if rows == 1 else 0.75 * rows)))
    axes = fig.subplots(rows, 1, sharex=sharex, squeeze=False)[:, 0]
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return fig, list(axes)
