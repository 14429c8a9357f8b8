"""Figures of a parameter sweep: a metric's mean with its confidence interval versus a
parameter (e.g. throughput versus error rate, seed ``003_…`` Fig. 5.9; throughput versus
speed, Fig. 5.12), and outcome probabilities with Wilson intervals (seed ``000_…`` Figs. 8/11).

Both take the frames of :mod:`celltcp.sweep.stats`: ``summarize`` (``metric``, ``n``, ``mean``,
``ci_low``, ``ci_high`` per point) and ``outcomes`` (``metric``, ``outcome``, ``p``, ``ci_low``,
``ci_high`` per point). A raw sweep frame (one row per run, as :func:`celltcp.sweep.sweep`
returns) is summarized first.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from celltcp.sweep.stats import outcomes, summarize, wilson_interval

from ._common import BPS_PER_MBPS, PlotError, new_figure, save

__all__ = ["metric_vs_parameter", "outcome_bars"]

_SUMMARY_COLUMNS = ("metric", "mean", "ci_low", "ci_high")
_OUTCOME_COLUMNS = ("metric", "outcome", "p", "ci_low", "ci_high")
#: Columns of the statistics frames that are not parameters of the point.
_NOT_PARAMETERS = {"point", "key", "metric", "outcome", "n", "k", "failed", "mean", "std",
                   "p", "ci_low", "ci_high"}


def _metric_axis(metric: str) -> tuple[str, float]:
    """Axis label and divisor from the unit suffix of a metric's name."""
    if metric.endswith("_bps"):
        return f"{metric[:-4]} (Mbit/s)", BPS_PER_MBPS
    if metric.endswith("_s"):
        return f"{metric[:-2]} (s)", 1.0
    return metric, 1.0


def _summary(frame: pd.DataFrame) -> pd.DataFrame:
    if all(c in frame.columns for c in _SUMMARY_COLUMNS):
        return frame
    if frame.attrs.get("metrics"):
        return summarize(frame)
    raise PlotError(
        "expected the frame of celltcp.sweep.summarize (columns metric, mean, ci_low, ci_high) "
        "or a sweep frame; got columns " + ", ".join(map(str, frame.columns))
    )


def _outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    if all(c in frame.columns for c in _OUTCOME_COLUMNS):
        return frame
    if frame.attrs.get("metrics"):
        return outcomes(frame)
    raise PlotError(
        "expected the frame of celltcp.sweep.outcomes (columns metric, outcome, p, ci_low, "
        "ci_high) or a sweep frame; got columns " + ", ".join(map(str, frame.columns))
    )


def _column(frame: pd.DataFrame, name: str, role: str) -> None:
    if name not in frame.columns:
        params = [c for c in frame.columns if c not in _NOT_PARAMETERS]
        raise PlotError(f"{role} '{name}' is not a column (parameters: {', '.join(params)})")


def _one_metric(frame: pd.DataFrame, metric: str | None, kind: str) -> str:
    known = [str(m) for m in pd.unique(frame["metric"])]
    if metric is None:
        if len(known) != 1:
            raise PlotError(f"several {kind} metrics ({', '.join(known)}); name one")
        return known[0]
    if metric not in known:
        raise PlotError(f"metric '{metric}' is not in the frame (have: {', '.join(known)})")
    return metric


def metric_vs_parameter(
    summary_frame: pd.DataFrame,
    x: str,
    y: str,
    hue: str | None = None,
    *,
    logx: bool | None = None,
    out: str | None = None,
) -> Figure:
    """Mean of metric ``y`` versus parameter ``x``, one line with error bars per value of the
    parameter ``hue`` (a single line without it). Error bars span the confidence interval of
    ``summarize`` (95 % Student-t by default); a point with one replication has none.

    ``y`` names a metric (``goodput_bps`` is drawn in Mbit/s); ``x`` and ``hue`` are parameter
    columns (dotted scenario keys). ``logx`` defaults to a log axis when all x are positive and
    span two decades or more (error rates).
    """
    frame = _summary(summary_frame)
    _column(frame, x, "x")
    if hue is not None:
        _column(frame, hue, "hue")
    y = _one_metric(frame, y, "numeric")
    rows = frame[frame["metric"].astype(str) == y]
    label, scale = _metric_axis(y)
    fig, (ax,) = new_figure(1)
    groups: list[tuple[Hashable, pd.DataFrame]] = (
        [(None, rows)] if hue is None else list(rows.groupby(hue, sort=True))
    )
    for value, group in groups:
        if group[x].duplicated().any():
            others = [c for c in group.columns if c not in _NOT_PARAMETERS and c not in (x, hue)
                      and group[c].nunique(dropna=False) > 1]
            raise PlotError(
                f"several points share each {x} value (they differ in {', '.join(others)}); "
                "pass hue= one of them, or select the rows of one value"
            )
        group = group.sort_values(x)
        xs = group[x].to_numpy()
        mean = group["mean"].to_numpy(dtype=float) / scale
        low = group["ci_low"].to_numpy(dtype=float) / scale
        high = group["ci_high"].to_numpy(dtype=float) / scale
        # An interval that is NaN (one replication) has no bar rather than a zero-width one.
        yerr = np.vstack([mean - low, high - mean])
        ax.errorbar(xs, mean, yerr=yerr, marker="o", capsize=3,
                    label=None if hue is None else f"{hue} = {value}")
    positive = pd.to_numeric(rows[x], errors="coerce")
    if logx is None:
        logx = bool((positive > 0).all() and positive.max() / positive.min() >= 100.0)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(label)
    confidence = frame.attrs.get("confidence", 0.95)
    ax.set_title(f"{label} versus {x} (mean, {confidence:.0%} CI)")
    if hue is not None:
        ax.legend(fontsize="small")
    save(fig, out)
    return fig


def _point_label(row: pd.Series, parameters: list[str]) -> str:
    return ", ".join(f"{p} = {row[p]}" for p in parameters) or "all runs"


def outcome_bars(
    outcomes_frame: pd.DataFrame,
    metric: str | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """Probability of each outcome of a categorical ``metric`` (e.g. a handover class), with
    its Wilson score interval as error bars: outcomes along the x axis, one bar per grid point
    within each group. ``metric`` may be omitted when the frame holds only one."""
    frame = _outcomes(outcomes_frame)
    metric = _one_metric(frame, metric, "categorical")
    rows = frame[frame["metric"].astype(str) == metric]
    parameters = [c for c in rows.columns if c not in _NOT_PARAMETERS]
    names = sorted({str(o) for o in rows["outcome"]})
    by = [c for c in ("point", "key") if c in rows.columns][:1] or parameters
    points: list[tuple[Any, pd.DataFrame]] = (
        list(rows.groupby(by, sort=False)) if by else [(None, rows)]
    )
    confidence = frame.attrs.get("confidence", 0.95)
    fig, (ax,) = new_figure(1)
    width = 0.8 / len(points)
    centres = np.arange(len(names), dtype=float)
    for i, (_, group) in enumerate(points):
        by_outcome = {str(o): r for o, (_, r) in zip(group["outcome"], group.iterrows())}
        n = int(group["n"].iloc[0]) if "n" in group.columns else 0
        # An outcome never seen at this point has k = 0: p = 0 with a Wilson upper bound > 0.
        unseen = wilson_interval(0, n, confidence) if n > 0 else (0.0, 0.0)
        p = np.array([by_outcome[o]["p"] if o in by_outcome else 0.0 for o in names])
        low = np.array([by_outcome[o]["ci_low"] if o in by_outcome else 0.0 for o in names])
        high = np.array(
            [by_outcome[o]["ci_high"] if o in by_outcome else unseen[1] for o in names]
        )
        offset = (i - (len(points) - 1) / 2.0) * width
        ax.bar(centres + offset, p, width=width, yerr=np.vstack([p - low, high - p]),
               capsize=3, label=_point_label(group.iloc[0], parameters))
    ax.set_xticks(centres)
    ax.set_xticklabels(names)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(metric)
    ax.set_ylabel("probability")
    ax.set_title(f"{metric}: outcome probabilities ({confidence:.0%} Wilson intervals)")
    if len(points) > 1 or parameters:
        ax.legend(fontsize="small")
    save(fig, out)
    return fig
