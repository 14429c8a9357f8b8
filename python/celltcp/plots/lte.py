"""Timelines of an LTE cell and of a link, per sampling interval: the ``cells`` series
(``[trace] cells``) and the ``queue`` series (``[trace] queues``) turned into per-interval
figures by :mod:`celltcp.intervals`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from celltcp.intervals import IntervalError, cell_intervals, link_intervals
from celltcp.outputs import LINK_DIRECTIONS

from ._common import (
    BPS_PER_MBPS,
    BYTES_PER_KB,
    MS_PER_S,
    HasSeries,
    PlotError,
    get_series,
    new_figure,
    pick_one,
    save,
    time_window,
)

__all__ = ["cell_timeline", "link_timeline"]

#: Drop causes of the ``queue`` series and their legend labels.
_DROP_LABELS = {
    "drops_queue_full": "dropped: queue full",
    "drops_aqm": "dropped: AQM",
    "drops_link_loss": "dropped: link loss",
    "drops_outage": "dropped: outage",
    "drops_handover": "dropped: handover",
    "ecn_marks": "ECN marks",
}


def cell_timeline(
    result: HasSeries,
    cell: str | None = None,
    ues: Sequence[str] | None = None,
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """One LTE cell over time, one line per UE (``ues``, default all the series holds), in
    four panels: the RLC throughput of each interval (Mbit/s), the eNB's RLC buffer for the
    UE at the interval's end (kB), the mean eNB queueing delay of the SDUs delivered in the
    interval (ms), and the mean SINR of the TTIs the UE was active in (dB); a fifth panel has
    the cell's PRB utilisation when the result carries the scenario (else each UE's PRB
    share). ``cell`` may be omitted when the series holds one cell."""
    frame = get_series(result, "cells", 'add cells = ["NAME"] to the scenario\'s [trace] table')
    names = sorted({str(c) for c in frame["cell"].astype(str)})
    cell = pick_one(names, cell, "cell", "cells")
    try:
        rows = cell_intervals(result, cell)
    except IntervalError as e:
        raise PlotError(str(e)) from None
    if rows.empty:
        raise PlotError(f"series 'cells' has fewer than two samples of cell '{cell}'")
    known = sorted(set(rows["ue"]))
    chosen = list(ues if ues else known)
    for ue in chosen:
        if ue not in known:
            raise PlotError(
                f"UE '{ue}' is not in cell '{cell}' of series 'cells' (have: {', '.join(known)})"
            )
    rows = time_window(rows[rows["ue"].isin(chosen)], t0, t1)
    if rows.empty:
        raise PlotError("series 'cells' has no intervals in the time window")
    fig, axes = new_figure(5, height=10.0)
    panels = [
        ("rlc_throughput_bps", 1.0 / BPS_PER_MBPS, "RLC throughput\n(Mbit/s)", "pre"),
        ("buffer_bytes", 1.0 / BYTES_PER_KB, "eNB buffer\n(kB)", "post"),
        ("queueing_delay_s", MS_PER_S, "queueing delay\n(ms)", "pre"),
        ("sinr_db", 1.0, "SINR (dB)", "pre"),
    ]
    for ue in chosen:
        mine = rows[rows["ue"] == ue]
        t = mine["time_s"].to_numpy()
        for ax, (column, scale, _, where) in zip(axes, panels, strict=False):
            if column in mine:
                ax.step(t, mine[column].to_numpy(dtype=float) * scale, where=where, label=ue)
        if "cell_prb_utilization" not in rows and "prb_share" in mine:
            axes[4].step(t, mine["prb_share"].to_numpy(dtype=float), where="pre", label=ue)
    for ax, (_, _, label, _) in zip(axes, panels, strict=False):
        ax.set_ylabel(label)
    for ax in axes[:3]:
        ax.set_ylim(bottom=0)
    if "cell_prb_utilization" in rows:
        per_time = rows.groupby("time_s", sort=True)["cell_prb_utilization"].first()
        axes[4].step(
            per_time.index.to_numpy(),
            per_time.to_numpy(dtype=float),
            where="pre",
            color="black",
            label=cell,
        )
        axes[4].set_ylabel("PRB utilisation\n(cell)")
    else:
        axes[4].set_ylabel("PRB share\n(UE)")
    axes[4].set_ylim(0, 1.05)
    axes[4].set_xlabel("time (s)")
    axes[0].legend(loc="upper right", fontsize="small", ncol=min(len(chosen), 4))
    axes[0].set_title(f"Cell {cell}")
    save(fig, out)
    return fig


def link_timeline(
    result: HasSeries,
    link: str,
    direction: str = LINK_DIRECTIONS[0],
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """One direction of ``link`` over time, three panels: its throughput in each interval
    (bytes delivered to the far end, Mbit/s), its queue at the interval's end (packets), and
    the interval's drops by cause and ECN marks (only the causes that occurred)."""
    if direction not in LINK_DIRECTIONS:
        expected = " or ".join(repr(d) for d in LINK_DIRECTIONS)
        raise PlotError(f"direction: {direction!r}; expected {expected}")
    get_series(result, "queue", f'add queues = ["{link}"] to the scenario\'s [trace] table')
    try:
        rows = link_intervals(result, link)
    except IntervalError as e:
        raise PlotError(str(e)) from None
    rows = rows[rows["direction"] == direction] if not rows.empty else rows
    if rows.empty or "throughput_bps" not in rows:
        raise PlotError(
            f"series 'queue' has no counters for {link} {direction} (fewer than two "
            "samples, or written by a version without them)"
        )
    rows = time_window(rows, t0, t1)
    if rows.empty:
        raise PlotError("series 'queue' has no intervals in the time window")
    fig, axes = new_figure(3, height=7.0)
    t = rows["time_s"].to_numpy()
    axes[0].step(t, rows["throughput_bps"].to_numpy(dtype=float) / BPS_PER_MBPS, where="pre")
    axes[0].set_ylabel("throughput\n(Mbit/s)")
    axes[0].set_ylim(bottom=0)
    axes[1].step(t, rows["packets"].to_numpy(dtype=float), where="post")
    axes[1].set_ylabel("queue\n(packets)")
    axes[1].set_ylim(bottom=0)
    drawn = 0
    for column, label in _DROP_LABELS.items():
        values = rows[column].to_numpy(dtype=float) if column in rows else np.zeros(0)
        if values.size and np.any(values > 0):
            axes[2].step(t, values, where="pre", label=label)
            drawn += 1
    axes[2].set_ylabel("per interval")
    axes[2].set_xlabel("time (s)")
    if drawn:
        axes[2].legend(loc="upper right", fontsize="small")
    else:
        axes[2].text(0.5, 0.5, "no drops or marks", transform=axes[2].transAxes, ha="center")
    axes[0].set_title(f"Link {link}, {direction}")
    save(fig, out)
    return fig
