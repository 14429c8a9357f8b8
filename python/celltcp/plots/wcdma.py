"""Figures of the WCDMA dedicated channel (seed study ``001_…``): a channel's per-interval
state over time (the ``dch`` series, ``[trace] dch``), and the seed's RLC throughput versus a
parameter in kbit/s, the unit of the seed's figures.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._common import (
    BYTES_PER_KB,
    HasSeries,
    PlotError,
    get_series,
    new_figure,
    pick_one,
    save,
    select,
    time_window,
)

__all__ = ["dch_timeline", "rlc_throughput_vs_parameter"]

#: bit/s → kbit/s (decimal).
BPS_PER_KBPS = 1e3


def dch_timeline(
    result: HasSeries,
    dch: str | None = None,
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """One channel of the ``dch`` series over time, three panels: the RLC throughput of each
    interval (SDU bits delivered to the UE / interval, kbit/s), the SDU bytes waiting in the
    RNC's RLC buffer (kB), and the AMD PDUs retransmitted and the SDUs discarded after MaxDAT
    per interval. ``dch`` may be omitted when the series holds one channel."""
    hint = 'add dch = ["NAME"] to the scenario\'s [trace] table'
    frame = get_series(result, "dch", hint)
    names = [str(n) for n in pd.unique(frame["dch"].astype(str))]
    dch = pick_one(names, dch, "channel", "dch")
    rows = time_window(select(frame, "dch", dch, "channel", "dch"), t0, t1)
    if rows.empty:
        raise PlotError("series 'dch' has no samples (in the time window, if one was given)")
    fig, axes = new_figure(3, height=7.0)
    t = rows["time_s"].to_numpy()
    axes[0].step(t, rows["rlc_throughput_bps"] / BPS_PER_KBPS, where="pre")
    axes[0].set_ylabel("RLC throughput\n(kbit/s)")
    axes[0].set_ylim(bottom=0)
    axes[1].step(t, rows["buffer_bytes"] / BYTES_PER_KB, where="post")
    axes[1].set_ylabel("RLC buffer\nat the RNC (kB)")
    axes[1].set_ylim(bottom=0)
    axes[2].step(t, rows["pdus_retransmitted"], where="pre", label="PDUs retransmitted")
    axes[2].step(t, rows["max_dat_discards"], where="pre", label="SDUs discarded (MaxDAT)")
    axes[2].set_ylabel("per interval")
    axes[2].set_xlabel("time (s)")
    axes[2].legend(loc="upper right", fontsize="small")
    axes[0].set_title(f"DCH {dch}")
    save(fig, out)
    return fig


def rlc_throughput_vs_parameter(
    frame: pd.DataFrame,
    x: str,
    hue: str | None = None,
    *,
    y: str = "mean",
    low: str = "ci_low",
    high: str = "ci_high",
    xlabel: str | None = None,
    title: str | None = None,
    labels: Mapping[Any, str] | None = None,
    seed: Mapping[Hashable, Sequence[tuple[float, float]]] | None = None,
    logx: bool = False,
    out: str | None = None,
) -> Figure:
    """RLC throughput (bit/s in ``frame``, drawn in kbit/s) versus the numeric column ``x``,
    one line with error bars (columns ``low``, ``high``) per value of ``hue``.

    ``frame`` has one row per point, e.g. :func:`celltcp.sweep.summarize`'s rows of the
    metric ``dch.NAME.rlc_throughput_bps`` with a numeric column added for ``x``. ``labels``
    names the lines by hue value; ``seed`` adds, per hue value, the seed's own points as
    hollow markers (x, kbit/s) in the line's colour.
    """
    for column in (x, y, low, high, *([hue] if hue is not None else [])):
        if column not in frame.columns:
            raise PlotError(
                f"'{column}' is not a column (have: {', '.join(map(str, frame.columns))})"
            )
    if frame.empty:
        raise PlotError("no rows to draw")
    fig, (ax,) = new_figure(1)
    groups: list[tuple[Hashable, pd.DataFrame]] = (
        [(None, frame)] if hue is None else list(frame.groupby(hue, sort=True))
    )
    for value, group in groups:
        group = group.sort_values(x)
        xs = pd.to_numeric(group[x]).to_numpy(dtype=float)
        mean = group[y].to_numpy(dtype=float) / BPS_PER_KBPS
        yerr = np.vstack(
            [
                mean - group[low].to_numpy(dtype=float) / BPS_PER_KBPS,
                group[high].to_numpy(dtype=float) / BPS_PER_KBPS - mean,
            ]
        )
        label = None if value is None else (labels or {}).get(value, f"{hue} = {value}")
        line = ax.errorbar(xs, mean, yerr=np.nan_to_num(yerr), marker="o", capsize=3, label=label)
        if seed is not None and value in seed and seed[value]:
            sx, sy = zip(*seed[value], strict=True)
            ax.plot(
                sx,
                sy,
                ls="--",
                marker="s",
                mfc="none",
                color=line.lines[0].get_color(),
                label=f"seed, {label}" if label else "seed",
            )
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel("RLC throughput (kbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    if hue is not None or seed is not None:
        ax.legend(fontsize="small")
    save(fig, out)
    return fig
