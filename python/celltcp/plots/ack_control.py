"""Figures of receiver ACK control, seed study ``004_…`` (Miyoshi, Sugano & Murata): goodput
against the radio loss probability per variant (ACK copies, Snoop, ELN), the same relative to
one ACK beside the PFTK analysis, congestion windows over time, and the receivers' p_err
estimates over time against the true p_err as connections come and go.

Inputs are plain frames, so that a sweep's summary, a reproduction's tables and a single run's
``tcp`` series all fit: see each function for its columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ._common import BPS_PER_MBPS, BYTES_PER_KB, PlotError, new_figure, save

__all__ = [
    "cwnd_over_time",
    "loss_estimate_over_time",
    "throughput_ratio_vs_p_err",
    "throughput_vs_p_err",
]

_KBPS = BPS_PER_MBPS / 1e3
#: Plain numbers (0.5, 2, 300) on logarithmic axes instead of powers of ten.
_PLAIN = FuncFormatter(lambda value, _pos: f"{value:g}")


def _plain_log_axis(ax: Axes) -> None:
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(_PLAIN)
    ax.yaxis.set_minor_formatter(
        FuncFormatter(lambda value, _pos: f"{value:g}" if f"{value:.0e}"[0] in "25" else "")
    )


def _need(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise PlotError(f"{what}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        have = ", ".join(map(str, frame.columns)) or "none"
        raise PlotError(f"{what}: missing column(s) {', '.join(missing)} (have: {have})")
    if frame.empty:
        raise PlotError(f"{what}: the frame is empty")


def _labels(frame: pd.DataFrame, variants: Sequence[str] | None) -> list[str]:
    known = list(pd.unique(frame["variant"].astype(str)))
    if variants is None:
        return known
    unknown = [v for v in variants if v not in known]
    if unknown:
        raise PlotError(f"variants {unknown} are not in the frame (have: {', '.join(known)})")
    return list(variants)


def throughput_vs_p_err(
    table: pd.DataFrame,
    *,
    variants: Sequence[str] | None = None,
    capacity_bps: float | None = None,
    log: bool = True,
    title: str | None = None,
    out: str | None = None,
) -> Figure:
    """Goodput (kbit/s) against p_err, one line per variant with its confidence interval.

    ``table`` has the columns ``variant``, ``p_err``, ``goodput_bps`` and optionally
    ``goodput_half_bps`` (half-width of the interval, bit/s). ``capacity_bps`` draws the link's
    payload rate; ``log`` a logarithmic goodput axis (the goodput spans orders of magnitude
    across p_err).
    """
    _need(table, ("variant", "p_err", "goodput_bps"), "table")
    fig, (ax,) = new_figure(1)
    for label in _labels(table, variants):
        g = table[table["variant"].astype(str) == label].sort_values("p_err")
        y = g["goodput_bps"].to_numpy(dtype=float) / _KBPS
        half = (
            g["goodput_half_bps"].to_numpy(dtype=float) / _KBPS
            if "goodput_half_bps" in g
            else np.zeros_like(y)
        )
        half = np.nan_to_num(half)
        (line,) = ax.plot(g["p_err"], y, marker="o", markersize=3, label=label)
        low = np.maximum(y - half, y * 1e-3) if log else y - half
        ax.fill_between(g["p_err"], low, y + half, color=line.get_color(), alpha=0.12, lw=0)
    if capacity_bps is not None:
        ax.axhline(capacity_bps / _KBPS, color="grey", ls=":", lw=1, label="link payload rate")
    if log:
        _plain_log_axis(ax)
    ax.set_xlabel("radio loss probability p_err (each direction)")
    ax.set_ylabel("goodput (kbit/s)")
    ax.set_title(title or "Goodput against the radio loss probability")
    ax.legend(fontsize="small")
    save(fig, out)
    return fig


def throughput_ratio_vs_p_err(
    table: pd.DataFrame,
    *,
    baseline: str,
    variants: Sequence[str] | None = None,
    model: pd.DataFrame | None = None,
    title: str | None = None,
    out: str | None = None,
) -> Figure:
    """Goodput of each variant divided by that of ``baseline`` at the same p_err (log axis),
    beside model ratios.

    ``table`` as for :func:`throughput_vs_p_err`; points where the baseline's goodput is 0 are
    left out. ``model`` (optional) has the columns ``variant``, ``p_err``, ``ratio``: drawn
    dashed in the colour of the same variant (e.g. the PFTK analysis'
    S(n copies)/S(one copy)).
    """
    _need(table, ("variant", "p_err", "goodput_bps"), "table")
    labels = [v for v in _labels(table, variants) if v != baseline]
    base = table[table["variant"].astype(str) == baseline]
    if base.empty:
        known = ", ".join(pd.unique(table["variant"].astype(str)))
        raise PlotError(f"baseline '{baseline}' is not in the frame (have: {known})")
    if model is not None:
        _need(model, ("variant", "p_err", "ratio"), "model")
    ref = base.set_index("p_err")["goodput_bps"]
    fig, (ax,) = new_figure(1)
    for label in labels:
        g = table[table["variant"].astype(str) == label].sort_values("p_err")
        denom = ref.reindex(g["p_err"]).to_numpy(dtype=float)
        ok = denom > 0
        ratio = g["goodput_bps"].to_numpy(dtype=float)[ok] / denom[ok]
        (line,) = ax.plot(
            g["p_err"].to_numpy()[ok], ratio, marker="o", markersize=3, label=f"{label} (simulated)"
        )
        if model is not None:
            m = model[model["variant"].astype(str) == label].sort_values("p_err")
            if len(m):
                ax.plot(
                    m["p_err"],
                    m["ratio"],
                    ls="--",
                    color=line.get_color(),
                    label=f"{label} (model)",
                )
    ax.axhline(1.0, color="grey", lw=1)
    _plain_log_axis(ax)
    ax.set_xlabel("radio loss probability p_err (each direction)")
    ax.set_ylabel(f"goodput / goodput of {baseline}")
    ax.set_title(title or f"Goodput relative to {baseline}")
    ax.legend(fontsize="small")
    save(fig, out)
    return fig


def cwnd_over_time(
    runs: Mapping[str, pd.DataFrame],
    *,
    title: str | None = None,
    out: str | None = None,
) -> Figure:
    """Congestion window (kB) over time, one step line per labelled run.

    ``runs`` maps a label to a frame with the columns ``time_s`` and ``value`` (cwnd in bytes,
    the ``cwnd`` variable of a run's ``tcp`` series).
    """
    if not runs:
        raise PlotError("runs: expected at least one labelled cwnd series")
    fig, (ax,) = new_figure(1)
    for label, frame in runs.items():
        _need(frame, ("time_s", "value"), f"runs[{label!r}]")
        ax.step(frame["time_s"], frame["value"] / BYTES_PER_KB, where="post", lw=0.8, label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (kB)")
    ax.set_title(title or "Congestion window")
    ax.legend(fontsize="small")
    save(fig, out)
    return fig


def loss_estimate_over_time(
    tcp: pd.DataFrame,
    *,
    true_p_err: float,
    expected: float | None = None,
    threshold: float | None = None,
    title: str | None = None,
    out: str | None = None,
) -> Figure:
    """The receivers' p_err estimate over time against the true p_err, and the connections
    delivering data.

    ``tcp`` is a run's ``tcp`` series (columns ``time_s``, ``flow``, ``var``, ``value``) with the
    ``loss_estimate`` variable, drawn as one step line per flow: the updates that flow's
    receiver made (when the receivers of one host share its estimate, as scenario runs do,
    the lines are pieces of one estimate). When it also has ``delivered``, a lower panel counts
    the connections between their first and last delivery. ``expected`` draws the value the
    estimator converges to on this path, ``threshold`` the copies' threshold.
    """
    _need(tcp, ("time_s", "flow", "var", "value"), "tcp")
    est = tcp[tcp["var"] == "loss_estimate"]
    if est.empty:
        raise PlotError(
            "tcp: no 'loss_estimate' rows; trace it with trace.tcp = "
            "['loss_estimate'] and ack_copies.enabled = true"
        )
    delivered = tcp[tcp["var"] == "delivered"]
    rows = 2 if len(delivered) else 1
    fig, axes = new_figure(rows, height=6.0 if rows == 2 else None)
    ax = axes[0]
    for flow, g in est.groupby("flow", sort=True):
        ax.step(g["time_s"], g["value"], where="post", lw=0.9, label=f"{flow} estimate")
    ax.axhline(true_p_err, color="black", lw=1.2, label=f"true p_err = {true_p_err:g}")
    if expected is not None:
        ax.axhline(
            expected,
            color="black",
            ls="--",
            lw=1,
            label=f"estimator's limit on this path = {expected:.3f}",
        )
    if threshold is not None:
        ax.axhline(threshold, color="tab:red", ls=":", lw=1, label=f"threshold {threshold:g}")
    ax.set_ylabel("p_err")
    ax.set_ylim(bottom=0)
    ax.set_title(title or "Radio loss estimate")
    ax.legend(fontsize="x-small", ncol=2)
    if rows == 2:
        spans = delivered.groupby("flow")["time_s"].agg(["min", "max"])
        end = float(tcp["time_s"].max())
        grid = np.linspace(0.0, end, 2001)
        count = sum(((grid >= lo) & (grid <= hi)).astype(int) for lo, hi in spans.to_numpy())
        axes[1].step(grid, count, where="post", color="tab:grey")
        axes[1].set_ylabel("connections")
        axes[1].set_ylim(0, max(1, int(np.max(count))) + 0.5)
    axes[-1].set_xlabel("time (s)")
    save(fig, out)
    return fig
