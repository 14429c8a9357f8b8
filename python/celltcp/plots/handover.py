"""Figures of the analytic handover models of seed study ``002_…``
(:mod:`celltcp.models.handover`): recovery time after a handover without buffer transfer versus
the bottleneck rate, one curve per round-trip time (Figs. 3–4), and the probability of a buffer
overrun with buffer transfer versus the extra buffer, one curve per interruption time (Fig. 6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from celltcp.models import buffer_overrun_probability, handover_recovery_time_s

from ._common import BPS_PER_MBPS, BYTES_PER_KB, MS_PER_S, PlotError, new_figure, save

__all__ = ["overrun_probability_vs_buffer", "recovery_time_vs_rate"]

#: Round-trip times of the seed's Figs. 3–4 (seconds).
SEED_RTTS_S = (0.010, 0.050, 0.100)
#: Interruption times drawn by default for Fig. 6 (seconds); the seed's testbed used 40–300 ms.
DEFAULT_INTERRUPTIONS_S = (0.020, 0.050, 0.100, 0.200)


def _positive_values(name: str, values: Sequence[float]) -> np.ndarray:
    array = np.asarray(list(values), dtype=float)
    if array.size == 0 or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise PlotError(f"{name}: expected a non-empty list of positive numbers, got {values!r}")
    return array


def recovery_time_vs_rate(
    rtts_s: Sequence[float] = SEED_RTTS_S,
    rates_bps: Sequence[float] | None = None,
    *,
    case: str = "best",
    mss_bytes: float = 1500.0,
    delayed_ack: bool = True,
    abc_limit: float | None = None,
    out: str | None = None,
) -> Figure:
    """Recovery time (s) after a handover without buffer transfer versus the rate (Mbit/s,
    log axis), one line per RTT in ``rtts_s`` (seconds).

    ``case="best"`` is the seed's Fig. 3 (TCP stays in slow start), ``case="worst"`` its Fig. 4
    (slow start to half the BDP, then congestion avoidance; the seed assumes delayed ACKs
    without byte counting). ``rates_bps`` defaults to 1–100 Mbit/s; ``delayed_ack`` and
    ``abc_limit`` (RFC 3465 L) select the window growth, see
    :func:`celltcp.models.handover_recovery_time_s`.
    """
    rtts = _positive_values("rtts_s", rtts_s)
    rates = (
        np.logspace(6, 8, 41) if rates_bps is None else _positive_values("rates_bps", rates_bps)
    )
    fig, (ax,) = new_figure(1)
    for rtt in rtts:
        try:
            times = [
                handover_recovery_time_s(rate, rtt, mss_bytes, case=case, delayed_ack=delayed_ack,
                                         abc_limit=abc_limit)
                for rate in rates
            ]
        except ValueError as e:
            raise PlotError(str(e)) from None
        ax.plot(rates / BPS_PER_MBPS, times, label=f"RTT {rtt * MS_PER_S:g} ms")
    ax.set_xscale("log")
    if case == "worst":
        ax.set_yscale("log")
    ax.set_xlabel("rate (Mbit/s)")
    ax.set_ylabel("recovery time (s)")
    growth = "delayed ACK" if delayed_ack else "ACK per segment"
    growth += f", ABC L = {abc_limit:g}" if abc_limit is not None else ", no ABC"
    phase = "slow start only" if case == "best" else "slow start then congestion avoidance"
    ax.set_title(f"Handover recovery time, {phase} ({growth}, MSS {mss_bytes:g} B)")
    ax.legend(fontsize="small")
    save(fig, out)
    return fig


def overrun_probability_vs_buffer(
    interruptions_s: Sequence[float] = DEFAULT_INTERRUPTIONS_S,
    extra_buffer_bytes: Sequence[float] | None = None,
    *,
    rate_bps: float = 10e6,
    rtt_s: float = 0.200,
    buffer_bytes: float = 250e3,
    mss_bytes: float = 1500.0,
    out: str | None = None,
) -> Figure:
    """Probability of a buffer overrun during a handover with buffer transfer versus the extra
    buffer made available for it (kB), one line per interruption time in ``interruptions_s``
    (seconds). Defaults are the seed's Fig. 6 and Fig. 9 setting: 10 Mbit/s, 200 ms RTT, a
    250 kB buffer. ``extra_buffer_bytes`` defaults to 0 to one bandwidth-delay product.
    """
    interruptions = _positive_values("interruptions_s", interruptions_s)
    if extra_buffer_bytes is None:
        bdp = rate_bps / 8.0 * rtt_s if rate_bps > 0 and rtt_s > 0 else 0.0
        extras = np.linspace(0.0, bdp, 101)
    else:
        extras = np.asarray(list(extra_buffer_bytes), dtype=float)
        if extras.size == 0 or not np.all(np.isfinite(extras)) or np.any(extras < 0):
            raise PlotError(
                f"extra_buffer_bytes: expected a non-empty list of sizes >= 0 in bytes, got "
                f"{extra_buffer_bytes!r}"
            )
    fig, (ax,) = new_figure(1)
    for interruption in interruptions:
        try:
            p = [
                buffer_overrun_probability(buffer_bytes, rate_bps, rtt_s, interruption,
                                           mss_bytes=mss_bytes, extra_buffer_bytes=extra)
                for extra in extras
            ]
        except ValueError as e:
            raise PlotError(str(e)) from None
        ax.plot(extras / BYTES_PER_KB, p, label=f"interruption {interruption * MS_PER_S:g} ms")
    ax.set_xlabel("extra buffer (kB)")
    ax.set_ylabel("overrun probability")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(
        f"Buffer overrun at handover: {rate_bps / BPS_PER_MBPS:g} Mbit/s, "
        f"RTT {rtt_s * MS_PER_S:g} ms, buffer {buffer_bytes / BYTES_PER_KB:g} kB"
    )
    ax.legend(fontsize="small")
    save(fig, out)
    return fig
