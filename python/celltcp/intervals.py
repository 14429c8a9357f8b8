"""Per-interval figures from the sampled counter series of a run.

The ``cells`` series (``[trace] cells``) and the ``queue`` series (``[trace] queues``) record
counters since the start of the run at every ``[trace] interval``, plus a few gauges (buffer,
CQI, queue length). What a study plots is usually the figure of each interval — the RLC
throughput of a UE over the last 100 ms, the drops of a link in each second. These functions
take the differences once, in one place, with the conventions of docs/scenarios.md ("Queue
series", "Cell series"):

* a row stands for the interval that *ends* at its ``time_s`` (``interval_s`` long);
* a rate is the counter's difference over the interval's length; a mean (queueing delay, SINR,
  MCS) is the difference of its sum over the difference of its count, NaN when the count did
  not move (no SDU delivered, the UE not active);
* a gauge (buffer, CQI, queue length) is its value at the interval's end.

>>> import celltcp
>>> from celltcp.intervals import cell_intervals
>>> r = celltcp.run(celltcp.examples.path("lte-single-cell"))   # doctest: +SKIP
>>> cell_intervals(r)[["time_s", "ue", "rlc_throughput_bps", "sinr_db"]]   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from celltcp import _core
from celltcp.outputs import series_columns

__all__ = ["IntervalError", "cell_intervals", "link_intervals"]

#: Per-UE counters whose per-interval difference is reported as a count, by output column.
_UE_COUNTS = {
    "harq_retransmissions": "harq_retransmissions",
    "rlc_retransmissions": "rlc_retransmissions",
    "rlc_discards": "rlc_discards",
    "sdus_delivered": "sdus_delivered",
    "sdus_refused": "sdus_refused",
    "uplink_lost": "uplink_lost",
    # Only for UEs with a receive-error model (`downlink_loss`).
    "downlink_lost": "downlink_lost",
}

#: Per-direction counters of the ``queue`` series reported per interval: its drops by cause
#: and its ECN marks, in the series' column order.
_LINK_COUNTS = tuple(
    c for c in series_columns("queue") if c.startswith("drops_") or c == "ecn_marks"
)


class IntervalError(ValueError):
    """The series asked for is missing, or names an unknown cell or link; the message says
    which and how to record it."""


def _series(result: Any, name: str, hint: str) -> pd.DataFrame:
    """``name`` from a RunResult / RunOutput (anything with ``.series``) or a DataFrame."""
    if isinstance(result, pd.DataFrame):
        return result
    series = getattr(result, "series", None)
    if not isinstance(series, Mapping):
        raise IntervalError(
            f"expected a RunResult, a RunOutput or a DataFrame, got {type(result).__name__}"
        )
    if name not in series:
        have = ", ".join(sorted(series)) or "none"
        raise IntervalError(f"series '{name}' is not in the result (have: {have}); {hint}")
    return series[name]


def _only(frame: pd.DataFrame, column: str, value: str | None, what: str) -> pd.DataFrame:
    if value is None:
        return frame
    known = sorted({str(v) for v in frame[column].astype(str)})
    if value not in known:
        raise IntervalError(
            f"{what} '{value}' is not in the series (have: {', '.join(known) or 'none'})"
        )
    return frame[frame[column].astype(str) == value]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _prbs_of(result: Any, cell: str) -> int | None:
    """N_RB of ``cell`` from the resolved scenario a run's summary carries, if any."""
    summary = getattr(result, "summary", None)
    if not isinstance(summary, Mapping):
        return None
    spec = (summary.get("scenario") or {}).get("cells", {}).get(cell)
    if not isinstance(spec, Mapping):
        return None
    return _core.lte_prbs(float(spec.get("bandwidth_mhz", 10.0)))


def cell_intervals(result: Any, cell: str | None = None) -> pd.DataFrame:
    """One row per cell, UE and sampling interval of the ``cells`` series.

    ``result`` is a :class:`celltcp.RunResult`, a run read back with
    :func:`celltcp.plots.load_run`, or the ``cells`` DataFrame itself. Columns: ``cell``,
    ``ue``, ``time_s`` (the interval's end), ``interval_s``; rates ``phy_throughput_bps``
    (decoded transport-block bits), ``rlc_throughput_bps`` (IP bytes delivered to the UE);
    means ``queueing_delay_s`` (eNB arrival to delivery, of the SDUs delivered in the
    interval), ``sinr_db`` (over the TTIs the UE was active), ``mcs`` (of new transport
    blocks); ``prb_share`` (the UE's PRBs over all the cell used), ``cell_prb_utilization``
    (the cell's PRBs over those it had, when the result carries the scenario); the gauges
    ``buffer_bytes`` and ``cqi`` at the interval's end; and the interval's counts of HARQ and
    RLC retransmissions, RLC discards, SDUs delivered, SDUs refused by the full buffer,
    uplink losses and (for a UE with a ``downlink_loss`` model) packets its receiver lost. Columns whose counters the series lacks (a run of an older version) are
    left out.
    """
    frame = _series(result, "cells", 'add cells = ["NAME"] to the scenario\'s [trace] table')
    frame = _only(frame, "cell", cell, "cell")
    if frame.empty:
        return pd.DataFrame()
    wide = frame.pivot_table(
        index=["cell", "ue", "time_s"],
        columns="figure",
        values="value",
        aggfunc="last",
        observed=True,
    )
    wide = wide.reset_index()
    wide.columns = [str(c) for c in wide.columns]
    cells = wide[wide["ue"].astype(str) == ""]
    ues = wide[wide["ue"].astype(str) != ""]
    used = (
        {
            (str(c), t): v
            for c, t, v in zip(cells["cell"], cells["time_s"], cells["prbs_used"], strict=True)
        }
        if "prbs_used" in cells
        else {}
    )
    rows = []
    for (cell_name, ue), group in ues.groupby(["cell", "ue"], observed=True, sort=True):
        group = group.sort_values("time_s")
        t = group["time_s"].to_numpy(dtype=float)
        if len(t) < 2:
            continue
        dt = np.diff(t)
        d = {
            name: np.diff(group[name].to_numpy(dtype=float))
            for name in group.columns
            if name not in ("cell", "ue", "time_s")
        }
        out = pd.DataFrame(
            {"cell": str(cell_name), "ue": str(ue), "time_s": t[1:], "interval_s": dt}
        )
        if "tb_bits_decoded" in d:
            out["phy_throughput_bps"] = d["tb_bits_decoded"] / dt
        if "sdu_bytes_delivered" in d:
            out["rlc_throughput_bps"] = 8.0 * d["sdu_bytes_delivered"] / dt
        if "queueing_delay_sum_s" in d and "sdus_delivered" in d:
            out["queueing_delay_s"] = _ratio(d["queueing_delay_sum_s"], d["sdus_delivered"])
        if "sinr_sum_db" in d and "sinr_samples" in d:
            out["sinr_db"] = _ratio(d["sinr_sum_db"], d["sinr_samples"])
        if "mcs_sum" in d and "new_tbs" in d:
            out["mcs"] = _ratio(d["mcs_sum"], d["new_tbs"])
        if "prbs" in d and used:
            cell_used = np.array([used.get((str(cell_name), x), np.nan) for x in t])
            used_d = np.diff(cell_used)
            out["prb_share"] = _ratio(d["prbs"], used_d)
            n_rb = _prbs_of(result, str(cell_name))
            if n_rb is not None:
                out["cell_prb_utilization"] = used_d / (dt * 1e3 * n_rb)
        for gauge in ("buffer_bytes", "cqi"):
            if gauge in group:
                out[gauge] = group[gauge].to_numpy(dtype=float)[1:]
        for column, figure in _UE_COUNTS.items():
            if figure in d:
                out[column] = d[figure]
        rows.append(out)
    if not rows:
        return pd.DataFrame()
    return pd.concat(rows, ignore_index=True)


def link_intervals(result: Any, link: str | None = None) -> pd.DataFrame:
    """One row per link, direction and sampling interval of the ``queue`` series.

    Columns: ``link``, ``direction``, ``time_s`` (the interval's end), ``interval_s``,
    ``throughput_bps`` (bytes delivered to the far end, as bits per second), the interval's
    drops by cause (``drops_queue_full``, ``drops_aqm``, ``drops_link_loss``,
    ``drops_outage``, ``drops_handover``) and ``ecn_marks``, and the queue length at the
    interval's end (``packets``, ``bytes``).
    """
    frame = _series(result, "queue", 'add queues = ["NAME"] to the scenario\'s [trace] table')
    frame = _only(frame, "link", link, "link")
    rows = []
    for (name, direction), group in frame.groupby(["link", "direction"], observed=True, sort=True):
        group = group.sort_values("time_s")
        t = group["time_s"].to_numpy(dtype=float)
        if len(t) < 2:
            continue
        dt = np.diff(t)
        out = pd.DataFrame(
            {"link": str(name), "direction": str(direction), "time_s": t[1:], "interval_s": dt}
        )
        if "bytes_delivered" in group:
            out["throughput_bps"] = 8.0 * np.diff(group["bytes_delivered"].to_numpy(float)) / dt
        for column in _LINK_COUNTS:
            if column in group:
                out[column] = np.diff(group[column].to_numpy(dtype=np.int64))
        out["packets"] = group["packets"].to_numpy()[1:]
        out["bytes"] = group["bytes"].to_numpy()[1:]
        rows.append(out)
    if not rows:
        return pd.DataFrame()
    return pd.concat(rows, ignore_index=True)
