"""Figures of a parameter sweep: a metric's mean with its confidence interval versus a
parameter (e.g. throughput versus error rate, seed ``003_…`` Fig. 5.9; throughput versus
speed, Fig. 5.12), and outcome probabilities with Wilson intervals (seed ``000_…`` Figs. 8/11).

Both take the frames of :mod:`celltcp.sweep.stats`: ``summarize`` (``metric``, ``n``, ``mean``,
``ci_low``, ``ci_high`` per point) and ``outcomes`` (``metric``, ``outcome``, ``p``, ``ci_low``,
``ci_high`` per point). A raw sweep frame (one row per run, as :func:`celltcp.sweep.sweep` or
:func:`load_store` returns) is summarized first.

The runs of a results store are read with :func:`load_store` (and the series they kept with
:func:`store_series`), both defined in :mod:`._common` and offered here.

Parameter values written with a unit, as in scenario files (``"5Mbps"``, ``"120km/h"``), are
drawn at their numbers: in that unit when all share it, else in the kind's base unit (bit/s,
s, bytes, m/s, ...), so that an axis of rates is ordered by rate and not as text.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from celltcp.sweep.stats import outcomes, summarize, wilson_interval

from ._common import (
    BPS_PER_MBPS,
    PlotError,
    kept_series,
    load_store,
    new_figure,
    save,
    split_quantity,
    store_series,
)

__all__ = [
    "kept_series",
    "load_store",
    "metric_vs_parameter",
    "outcome_bars",
    "point_labels",
    "quantity_numbers",
    "sorted_groups",
    "store_series",
]

_SUMMARY_COLUMNS = ("metric", "mean", "ci_low", "ci_high")
_OUTCOME_COLUMNS = ("metric", "outcome", "p", "ci_low", "ci_high")
#: Columns of the statistics frames that are not parameters of the point.
_NOT_PARAMETERS = {
    "point",
    "key",
    "metric",
    "outcome",
    "n",
    "k",
    "failed",
    "mean",
    "std",
    "p",
    "ci_low",
    "ci_high",
}


def _metric_axis(metric: str) -> tuple[str, float]:
    """Axis label and divisor from the unit suffix of a metric's name."""
    if metric.endswith("_bps"):
        return f"{metric[:-4]} (Mbit/s)", BPS_PER_MBPS
    if metric.endswith("_s"):
        return f"{metric[:-2]} (s)", 1.0
    return metric, 1.0


def quantity_numbers(values: Sequence[Any]) -> tuple[list[float], str] | None:
    """The numbers to draw parameter values at, and their unit: numbers as they are (unit
    ``""``); strings with a unit of one kind (:func:`._common.split_quantity`) as their
    numbers in that unit when they all share it, else in the kind's base unit. None when the
    values are neither (text, tables, a mix of kinds), which are then drawn as categories."""
    present = list(values)
    if not present:
        return None
    if all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        for v in present
    ):
        return [float(v) for v in present], ""
    parsed = [split_quantity(v) for v in present]
    quantities = [q for q in parsed if q is not None]
    if len(quantities) != len(parsed) or len({q.kind for q in quantities}) != 1:
        return None
    if len({q.unit for q in quantities}) == 1:
        return [q.number for q in quantities], quantities[0].unit
    return [q.value for q in quantities], quantities[0].base


def sorted_groups(rows: pd.DataFrame, by: str) -> list[tuple[Hashable, pd.DataFrame]]:
    """Groups of ``rows`` by the values of ``by``, ordered by quantity when they are ones."""
    groups = list(rows.groupby(by, sort=False, dropna=False))
    numbers = quantity_numbers([value for value, _ in groups])
    if numbers is None:
        return sorted(groups, key=lambda g: str(g[0]))
    order = np.argsort(numbers[0], kind="stable")
    return [groups[i] for i in order]


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
    if rows.empty:
        raise PlotError(f"metric '{y}' has no rows")
    label, scale = _metric_axis(y)
    numbers = quantity_numbers(list(rows[x]))
    # Positions on the x axis: numbers (quantities converted), or the values as categories.
    rows = rows.assign(_x=list(rows[x]) if numbers is None else numbers[0])
    fig, (ax,) = new_figure(1)
    groups = [(None, rows)] if hue is None else sorted_groups(rows, hue)
    for value, group in groups:
        if group[x].duplicated().any():
            others = [
                c
                for c in group.columns
                if c not in _NOT_PARAMETERS
                and c not in (x, hue, "_x")
                and group[c].nunique(dropna=False) > 1
            ]
            if others:
                why = (
                    f"they differ in {', '.join(others)}: pass one of them as hue "
                    "(celltcp plot: --by), or select one value (--where)"
                )
            else:
                keys = ", ".join(sorted({str(k)[:8] for k in group.get("key", [])}))
                why = (
                    f"they differ only in their base scenario (store keys {keys}); keep "
                    "the sweeps in separate stores"
                )
            raise PlotError(f"several points share each {x} value ({why})")
        group = group.sort_values("_x")
        xs = group["_x"].to_numpy()
        mean = group["mean"].to_numpy(dtype=float) / scale
        low = group["ci_low"].to_numpy(dtype=float) / scale
        high = group["ci_high"].to_numpy(dtype=float) / scale
        # An interval that is NaN (one replication) has no bar rather than a zero-width one.
        yerr = np.vstack([mean - low, high - mean])
        ax.errorbar(
            xs,
            mean,
            yerr=yerr,
            marker="o",
            capsize=3,
            label=None if hue is None else f"{hue} = {value}",
        )
    positive = pd.to_numeric(rows["_x"], errors="coerce")
    if logx is None:
        logx = bool((positive > 0).all() and positive.max() / positive.min() >= 100.0)
    if logx:
        if not (positive > 0).all():
            raise PlotError(f"x '{x}': a log axis needs positive numbers")
        ax.set_xscale("log")
    ax.set_xlabel(f"{x} ({numbers[1]})" if numbers is not None and numbers[1] else x)
    ax.set_ylabel(label)
    confidence = frame.attrs.get("confidence", 0.95)
    ax.set_title(f"{label} versus {x} (mean, {confidence:.0%} CI)")
    if hue is not None:
        ax.legend(fontsize="small")
    save(fig, out)
    return fig


def point_labels(firsts: Sequence[pd.Series], parameters: Sequence[str]) -> list[str]:
    """A legend label per grid point (the first row of each): the parameters whose value
    differs between the points (all of them when none does), with the first 8 characters of
    the store key added where two points would otherwise read the same."""
    varying = [p for p in parameters if len({str(r.get(p)) for r in firsts}) > 1]
    shown = varying or list(parameters)
    labels = [", ".join(f"{p} = {r.get(p)}" for p in shown) or "all runs" for r in firsts]
    if len(set(labels)) < len(labels):
        labels = [
            f"{text} [{str(r.get('key', r.get('point', i)))[:8]}]"
            for i, (text, r) in enumerate(zip(labels, firsts, strict=True))
        ]
    return labels


def outcome_bars(
    outcomes_frame: pd.DataFrame,
    metric: str | None = None,
    *,
    order: Sequence[str] | None = None,
    out: str | None = None,
) -> Figure:
    """Probability of each outcome of a categorical ``metric`` (e.g. a handover class), with
    its Wilson score interval as error bars: outcomes along the x axis, one bar per grid point
    within each group. ``metric`` may be omitted when the frame holds only one. ``order`` puts
    the outcomes it names first, in its order (e.g. ``("timeout", "halving", "none")``); the
    others follow sorted."""
    frame = _outcomes(outcomes_frame)
    metric = _one_metric(frame, metric, "categorical")
    rows = frame[frame["metric"].astype(str) == metric]
    parameters = [c for c in rows.columns if c not in _NOT_PARAMETERS]
    seen = {str(o) for o in rows["outcome"]}
    first = [str(o) for o in (order or ())]
    names = first + sorted(seen - set(first))
    by = [c for c in ("point", "key") if c in rows.columns][:1] or parameters
    points: list[tuple[Any, pd.DataFrame]] = (
        list(rows.groupby(by, sort=False)) if by else [(None, rows)]
    )
    labels = point_labels([group.iloc[0] for _, group in points], parameters)
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
        high = np.array([by_outcome[o]["ci_high"] if o in by_outcome else unseen[1] for o in names])
        offset = (i - (len(points) - 1) / 2.0) * width
        ax.bar(
            centres + offset,
            p,
            width=width,
            yerr=np.vstack([p - low, high - p]),
            capsize=3,
            label=labels[i],
        )
    ax.set_xticks(centres)
    ax.set_xticklabels(names)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(metric)
    ax.set_ylabel("probability")
    ax.set_title(f"{metric}: outcome probabilities ({confidence:.0%} Wilson intervals)")
    if len(points) > 1 or parameters:
        # Below the axes: inside, it would hide bars that reach 1.
        ax.legend(
            fontsize="small",
            loc="upper center",
            bbox_to_anchor=(0.5, -0.15),
            ncol=2 if len(points) > 3 else 1,
            frameon=False,
        )
    save(fig, out)
    return fig
