"""TCP sender figures from the ``tcp`` series (``[trace] tcp = [...]``, docs/scenarios.md):
cwnd and RTT over a time window or around one handover of the run (seed study ``000_…``
Figs. 9–10, the window read from the ``handovers`` series), and the classic time–sequence plot
(seq_sent, ack_received, retransmissions).

The ``tcp`` series is long-form: ``time_s``, ``flow``, ``var``, ``value``; windows and sequence
numbers are in bytes (sequence numbers relative to the initial one), times in seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._common import (
    BYTES_PER_KB,
    MS_PER_S,
    HasSeries,
    PlotError,
    get_series,
    new_figure,
    save,
    select,
    time_window,
)

__all__ = ["cwnd_rtt", "cwnd_rtt_handover", "sequence"]

#: The trace variables each figure draws, suggested when they were not traced.
_CWND_RTT_VARS = ("cwnd", "ssthresh", "rtt", "srtt", "rto", "retx_rto", "retx_fast")
_SEQUENCE_VARS = ("seq_sent", "ack_received", "retx_fast", "retx_rto")


def _tcp_hint(variables: tuple[str, ...]) -> str:
    listed = ", ".join(f'"{v}"' for v in variables)
    return f"add tcp = [{listed}] to the scenario's [trace] table"


_BYTES_PER_MB = 1e6


def _flow_tcp(
    result: HasSeries, flow: str, t0: float | None, t1: float | None, drawn: tuple[str, ...]
) -> pd.DataFrame:
    frame = select(get_series(result, "tcp", _tcp_hint(drawn)), "flow", flow, "flow", "tcp")
    return time_window(frame, t0, t1)


def _var(frame: pd.DataFrame, var: str) -> tuple[np.ndarray, np.ndarray]:
    rows = frame[frame["var"].astype(str) == var]
    return rows["time_s"].to_numpy(dtype=float), rows["value"].to_numpy(dtype=float)


def _require(
    frame: pd.DataFrame, flow: str, needed: tuple[str, ...], any_of: bool, drawn: tuple[str, ...]
) -> None:
    present = set(frame["var"].astype(str))
    missing = [v for v in needed if v not in present]
    if (any_of and len(missing) == len(needed)) or (not any_of and missing):
        which = " or ".join(needed) if any_of else ", ".join(missing)
        raise PlotError(
            f"flow '{flow}': no '{which}' samples in series 'tcp' (in the time window, if one "
            f"was given); {_tcp_hint(drawn)}"
        )


def cwnd_rtt(
    result: HasSeries,
    flow: str,
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """cwnd (and ssthresh) above, RTT below, on a shared time axis from ``t0`` to ``t1``
    seconds (the whole run by default).

    Top axes, in kB: ``cwnd`` as a step line; ``ssthresh`` dashed where it is finite (it starts
    at infinity, RFC 5681 section 3.1). Bottom axes, in ms: ``rtt`` samples as dots, ``srtt`` and
    ``rto`` (RFC 6298) as lines, each drawn only when traced. Retransmission timeouts
    (``retx_rto``) are dotted vertical lines on both axes, fast retransmissions (``retx_fast``)
    short ticks at the top of the cwnd axes. Requires ``cwnd`` and one of ``rtt``/``srtt``.
    """
    frame = _flow_tcp(result, flow, t0, t1, _CWND_RTT_VARS)
    _require(frame, flow, ("cwnd",), any_of=False, drawn=_CWND_RTT_VARS)
    _require(frame, flow, ("rtt", "srtt"), any_of=True, drawn=_CWND_RTT_VARS)
    fig, (ax_w, ax_r) = new_figure(2)

    t, cwnd = _var(frame, "cwnd")
    ax_w.step(t, cwnd / BYTES_PER_KB, where="post", color="C0", label="cwnd")
    t, ssthresh = _var(frame, "ssthresh")
    if np.isfinite(ssthresh).any():
        shown = np.where(np.isfinite(ssthresh), ssthresh, np.nan) / BYTES_PER_KB
        ax_w.step(t, shown, where="post", color="C1", linestyle="--", label="ssthresh")
    ax_w.set_ylabel("window (kB)")

    t, rtt = _var(frame, "rtt")
    if t.size:
        ax_r.plot(t, rtt * MS_PER_S, ".", color="C2", markersize=2, label="RTT sample")
    for var, color in (("srtt", "C0"), ("rto", "C3")):
        t, value = _var(frame, var)
        if t.size:
            ax_r.step(t, value * MS_PER_S, where="post", color=color, label=var.upper())
    ax_r.set_ylabel("RTT (ms)")
    ax_r.set_xlabel("time (s)")

    rto_times, _ = _var(frame, "retx_rto")
    for i, when in enumerate(np.unique(rto_times)):
        for ax in (ax_w, ax_r):
            ax.axvline(when, color="C3", linestyle=":", label="RTO" if i == 0 else None)
    fast_times, _ = _var(frame, "retx_fast")
    if fast_times.size:
        ax_w.plot(
            fast_times,
            np.full(fast_times.size, 1.0),
            "|",
            color="C4",
            transform=ax_w.get_xaxis_transform(),
            markersize=8,
            label="fast retransmit",
        )
    if t0 is not None or t1 is not None:
        ax_r.set_xlim(t0, t1)
    ax_w.legend(loc="upper right", fontsize="small")
    ax_r.legend(loc="upper right", fontsize="small")
    fig.suptitle(f"Flow {flow}: congestion window and RTT")
    save(fig, out)
    return fig


_HANDOVERS_HINT = (
    "the run has no handover analytics (no handover happened, or no TCP flow "
    "ends at the UE that handed over)"
)


def _handover_row(result: HasSeries, handover: int, flow: str | None) -> pd.Series:
    """The analytics row of ``handover`` (its id) for ``flow``, or the only flow it has."""
    table = get_series(result, "handovers", _HANDOVERS_HINT)
    rows = table[table["handover"].to_numpy() == handover]
    if rows.empty:
        ids = ", ".join(str(i) for i in sorted(pd.unique(table["handover"]))) or "none"
        raise PlotError(f"handover {handover} is not in series 'handovers' (have: {ids})")
    flows = [str(f) for f in rows["flow"].astype(str)]
    if flow is None:
        if len(flows) != 1:
            raise PlotError(f"handover {handover} concerns flows {', '.join(flows)}; name one")
        return rows.iloc[0]
    if flow not in flows:
        raise PlotError(
            f"flow '{flow}' has no row for handover {handover} in series "
            f"'handovers' (have: {', '.join(flows)})"
        )
    return rows.iloc[flows.index(flow)]


def cwnd_rtt_handover(
    result: HasSeries,
    handover: int,
    flow: str | None = None,
    *,
    before_s: float = 1.0,
    after_s: float = 1.0,
    out: str | None = None,
) -> Figure:
    """:func:`cwnd_rtt` around one handover of the run (seed ``000_…`` Figs. 9–10).

    ``handover`` is the id in the ``handovers`` series (``summary.json`` ``handovers.list``);
    ``flow`` may be omitted when the handover concerns one TCP flow only. The window starts
    ``before_s`` seconds before the handover command and ends ``after_s`` seconds after the
    latest of the attach, the completion, the end of the outcome window and of the loss
    episode, and the recovery (those that happened). The interruption (command, or a conditional
    handover's execution, to attach) is shaded on both axes; the path switch and the completion are dashed lines.
    """
    for name, value in (("before_s", before_s), ("after_s", after_s)):
        if not (np.isfinite(value) and value >= 0):
            raise PlotError(f"{name}: {value!r} is not a duration >= 0 in seconds")
    row = _handover_row(result, handover, flow)
    flow = str(row["flow"])
    command = float(row["command_s"])
    # A conditional handover's command is its conditional reconfiguration; the UE leaves the
    # source at its execution, where the interruption (which ends at the attach) starts.
    interruption = float(row["interruption_s"])
    if np.isfinite(interruption) and np.isfinite(float(row["attach_s"])):
        departure = float(row["attach_s"]) - interruption
        if not abs(departure - command) < 1e-6:
            command = departure
    ends = [
        float(row[c])
        for c in ("attach_s", "completion_s", "window_end_s", "episode_end_s", "recovered_at_s")
        if c in row.index
    ]
    last = max([t for t in ends if np.isfinite(t)], default=command)
    fig = cwnd_rtt(result, flow, max(0.0, command - before_s), last + after_s)
    attach = float(row["attach_s"]) if np.isfinite(float(row["attach_s"])) else last
    marks = [
        (c, label)
        for c, label in (("path_switch_s", "path switch"), ("completion_s", "completion"))
        if c in row.index and np.isfinite(float(row[c]))
    ]
    for i, ax in enumerate(fig.axes):
        ax.axvspan(
            command, attach, color="0.5", alpha=0.2, label="interruption" if i == 0 else None
        )
        for j, (column, label) in enumerate(marks):
            ax.axvline(
                float(row[column]),
                color="0.3",
                linestyle="--",
                linewidth=0.8,
                dashes=(4, 2 + 2 * j),
                label=label if i == 0 else None,
            )
        ax.legend(loc="upper right", fontsize="small")
    outcome = f"; outcome {row['outcome']}" if "outcome" in row.index else ""
    fig.suptitle(
        f"Flow {flow} around handover {handover} ({row.get('source', '?')} → "
        f"{row.get('target', '?')}, {row.get('policy', '?')}{outcome})"
    )
    save(fig, out)
    return fig


def sequence(
    result: HasSeries,
    flow: str,
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """Time–sequence plot of a sender: relative sequence numbers (MB) of the segments sent
    (``seq_sent``, dots), the cumulative ACK (``ack_received``, a step line), and the
    retransmissions (``retx_fast`` crosses, ``retx_rto`` circles), each drawn when traced.
    Requires ``seq_sent`` or ``ack_received``.
    """
    frame = _flow_tcp(result, flow, t0, t1, _SEQUENCE_VARS)
    _require(frame, flow, ("seq_sent", "ack_received"), any_of=True, drawn=_SEQUENCE_VARS)
    fig, (ax,) = new_figure(1)
    t, seq = _var(frame, "seq_sent")
    if t.size:
        ax.plot(t, seq / _BYTES_PER_MB, ".", color="C0", markersize=1.5, label="segment sent")
    t, ack = _var(frame, "ack_received")
    if t.size:
        ax.step(t, ack / _BYTES_PER_MB, where="post", color="C1", label="ACK received")
    for var, marker, color, label in (
        ("retx_fast", "x", "C3", "fast retransmission"),
        ("retx_rto", "o", "C4", "timeout retransmission"),
    ):
        t, value = _var(frame, var)
        if t.size:
            ax.plot(
                t,
                value / _BYTES_PER_MB,
                marker,
                color=color,
                markersize=6,
                fillstyle="none",
                label=label,
            )
    ax.set_xlabel("time (s)")
    ax.set_ylabel("relative sequence number (MB)")
    if t0 is not None or t1 is not None:
        ax.set_xlim(t0, t1)
    ax.legend(loc="upper left", fontsize="small")
    ax.set_title(f"Flow {flow}: time–sequence")
    save(fig, out)
    return fig
