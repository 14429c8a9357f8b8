"""Handover figures.

From the per-handover analytics (the ``handovers`` series, one row per handover and TCP flow,
docs/handover.md), over the runs of a results store or any frame of such rows:

* the probability of each outcome class (``timeout``, ``halving``, ``none``) per grid point,
  with Wilson intervals: seed study ``000_…`` Figs. 8 and 11;
* the data delivered from the handover command until one RTT after the attach, mean with its
  Student-t interval, as grouped bars: ``000_…`` Fig. 12.

From the analytic models of seed study ``002_…`` (:mod:`celltcp.models.handover`): recovery
time after a handover without buffer transfer versus the bottleneck rate, one curve per
round-trip time (Figs. 3–4), optionally with the simulated recoveries of a store on top, and the
probability of a buffer overrun with buffer transfer versus the extra buffer, one curve per
interruption time (Fig. 6).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from celltcp._docs import docs_url
from celltcp.models import buffer_overrun_probability, handover_recovery_time_s
from celltcp.outputs import TCP_OUTCOMES
from celltcp.outputs import label as output_label
from celltcp.sweep.stats import mean_interval, outcomes

from ._common import (
    BPS_PER_MBPS,
    BYTES_PER_KB,
    MS_PER_S,
    PlotError,
    new_figure,
    parse_quantity,
    save,
    select,
    store_series,
)
from .sweep import outcome_bars, point_labels, sorted_groups

__all__ = [
    "HANDOVER_OUTCOMES",
    "delivered_bars",
    "handover_outcome_bars",
    "handover_outcomes",
    "outcome_count_rows",
    "overrun_probability_vs_buffer",
    "recovery_points",
    "recovery_time_vs_rate",
    "store_handovers",
]

#: Round-trip times of the seed's Figs. 3–4 (seconds).
SEED_RTTS_S = (0.010, 0.050, 0.100)
#: Interruption times drawn by default for Fig. 6 (seconds); the seed's testbed used 40–300 ms.
DEFAULT_INTERRUPTIONS_S = (0.020, 0.050, 0.100, 0.200)
#: The outcome classes of the handover analytics, in the order of seed ``000_…`` Fig. 8 (the
#: core's labels, :data:`celltcp.outputs.TCP_OUTCOMES`).
HANDOVER_OUTCOMES = TCP_OUTCOMES
#: The name under which a handover's outcome class is summarised (the bars' axis label).
OUTCOME_METRIC = "handover outcome"
HANDOVERS_HINT = (
    f'keep the series with series = ["handovers"] in the sweep file ({docs_url("sweeps")})'
)
#: A simulated run is drawn with the model curve whose RTT is within this fraction of the RTT
#: it measured (its smallest RTT sample, which is the path's RTT without queueing).
RTT_MATCH = 0.2


# -- per-handover analytics from a results store ---------------------------------------------


def store_handovers(
    directory: str | os.PathLike[str], runs: pd.DataFrame, flow: str | None = None
) -> pd.DataFrame:
    """The per-handover analytics kept by the runs of ``runs`` (a frame of
    :func:`celltcp.plots.sweep.load_store`), one row per handover and flow, with each run's
    parameters, ``key`` and ``run`` in front; only the rows of ``flow`` when given.

    Raises :class:`PlotError` when no run kept the ``handovers`` series or ``flow`` has no row.
    """
    rows = store_series(directory, "handovers", runs, HANDOVERS_HINT)
    if flow is not None:
        parameters = rows.attrs.get("parameters", [])
        rows = select(rows, "flow", flow, "flow", "handovers")
        rows.attrs["parameters"] = parameters
    return rows


def outcome_count_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per handover counted by the metrics ``handovers.outcomes.<class>`` of the
    successful runs of ``runs`` (parameters, ``key``, ``run``, ``outcome``): the form of
    :func:`store_handovers` for a store that kept the counts but not the series.

    Raises :class:`PlotError` when ``runs`` has no such metric."""
    prefix = "handovers.outcomes."
    columns = {c[len(prefix) :]: c for c in runs.attrs.get("metrics", []) if c.startswith(prefix)}
    if not columns:
        raise PlotError(
            "the runs have neither the handovers series nor the metrics handovers.outcomes.*; "
            f'add "handovers.outcomes.*" to the sweep\'s metrics or {HANDOVERS_HINT}'
        )
    parameters = list(runs.attrs.get("parameters", []))
    ok = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    records: list[dict[str, Any]] = []
    for _, run in ok.iterrows():
        front = {p: run[p] for p in parameters}
        front.update({c: run[c] for c in ("key", "run") if c in run.index})
        for outcome, column in columns.items():
            count = run[column]
            if count is None or not math.isfinite(float(count)):
                continue
            records += [{**front, "outcome": outcome}] * int(count)
    rows = pd.DataFrame.from_records(records, columns=[*parameters, "key", "run", "outcome"])
    rows.attrs["parameters"] = parameters
    return rows


def handover_outcomes(rows: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per grid point (``key``, else the parameters) and outcome class: k of n handover rows,
    p = k/n and its Wilson score interval, as :func:`celltcp.sweep.outcomes` lays it out (the
    metric is named ``handover outcome``). Each row of ``rows`` (a handover and one flow) is one
    trial; ``attrs["parameters"]`` names the parameter columns."""
    if "outcome" not in rows.columns:
        raise PlotError("expected handover rows with an 'outcome' column (the handovers series)")
    if rows.empty:
        raise PlotError("no handover rows to count outcomes of")
    parameters = [p for p in rows.attrs.get("parameters", []) if p in rows.columns]
    keep = [*parameters, *(["key"] if "key" in rows.columns else [])]
    frame = rows[keep].copy()
    frame[OUTCOME_METRIC] = rows["outcome"].astype(str).to_numpy()
    return outcomes(frame, parameters=parameters, metrics=[OUTCOME_METRIC], confidence=confidence)


def handover_outcome_bars(
    rows: pd.DataFrame, *, confidence: float = 0.95, out: str | None = None
) -> Figure:
    """Seed ``000_…`` Figs. 8/11: the probability of each handover outcome class per grid point
    with Wilson intervals (:func:`handover_outcomes` drawn by
    :func:`celltcp.plots.outcome_bars`); a class never seen at a point is drawn at 0 with its
    Wilson upper bound."""
    frame = handover_outcomes(rows, confidence)
    return outcome_bars(frame, OUTCOME_METRIC, order=HANDOVER_OUTCOMES, out=out)


def _point_ticks(firsts: list[pd.Series], parameters: list[str]) -> tuple[list[str], str]:
    """Tick labels of one bar per grid point (the first row of each): the values of the
    parameters that differ, one per line, with the parameters' names as the axis label; the
    store key's first characters where those do not tell the points apart."""
    varying = [p for p in parameters if len({str(r.get(p)) for r in firsts}) > 1]
    ticks = ["\n".join(str(r.get(p)) for p in varying) for r in firsts]
    if len(set(ticks)) < len(ticks) or not varying:
        return point_labels(firsts, parameters), ""
    return ticks, " / ".join(varying)


def _cells(
    rows: pd.DataFrame, x: str | None, hue: str | None, parameters: list[str]
) -> tuple[list[tuple[str, str | None, pd.DataFrame]], str]:
    """(group label, bar label, rows) of each bar, groups along the x axis in order; and the
    x axis label."""
    point = "key" if "key" in rows.columns else None
    if x is None:
        by = [point] if point else parameters
        groups = list(rows.groupby(by, sort=False)) if by else [(None, rows)]
        ticks, label = _point_ticks([g.iloc[0] for _, g in groups], parameters)
        return [(tick, None, g) for tick, (_, g) in zip(ticks, groups, strict=True)], label
    cells: list[tuple[str, str | None, pd.DataFrame]] = []
    for x_value, group in sorted_groups(rows, x):
        inner = [(None, group)] if hue is None else sorted_groups(group, hue)
        for hue_value, cell in inner:
            if point and cell[point].nunique() > 1:
                others = [
                    p for p in parameters if p not in (x, hue) and cell[p].nunique(dropna=False) > 1
                ]
                why = (
                    f"they differ in {', '.join(others)}: pass one of them as hue "
                    "(celltcp plot: --by), or select one value (--where)"
                    if others
                    else "they differ only in their base scenario: keep the sweeps in separate "
                    "stores"
                )
                where = f"{x} = {x_value}" + ("" if hue is None else f", {hue} = {hue_value}")
                raise PlotError(f"several grid points have {where} ({why})")
            cells.append((str(x_value), None if hue is None else str(hue_value), cell))
    return cells, x


def delivered_bars(
    rows: pd.DataFrame,
    x: str | None = None,
    hue: str | None = None,
    *,
    confidence: float = 0.95,
    out: str | None = None,
) -> Figure:
    """Seed ``000_…`` Fig. 12: the data delivered to the UE from the handover command until one
    RTT after it attached to the target (the analytics' ``delivered_bytes``), in kB, as bars of
    the mean over the handover rows with the Student-t ``confidence`` interval as error bars
    (none for a single row).

    Without ``x``, one bar per grid point (``key``, else the parameters), labelled by the
    parameters that differ. With ``x`` (a parameter column), one group of bars per value of
    ``x``, and within it one bar per value of ``hue``; values written with units are ordered
    by quantity. ``rows`` is :func:`store_handovers` or any frame with ``delivered_bytes`` and
    the parameter columns named by ``attrs["parameters"]``.
    """
    if "delivered_bytes" not in rows.columns:
        raise PlotError(
            "expected handover rows with a 'delivered_bytes' column (the handovers series)"
        )
    if rows.empty:
        raise PlotError("no handover rows to draw")
    parameters = [p for p in rows.attrs.get("parameters", []) if p in rows.columns]
    for name, role in ((x, "x"), (hue, "hue")):
        if name is not None and name not in parameters:
            raise PlotError(
                f"{role} '{name}' is not a parameter (parameters: "
                f"{', '.join(parameters) or 'none'})"
            )
    if hue is not None and x is None:
        raise PlotError("hue needs x: the bars of each x value are told apart by hue")
    cells, x_label = _cells(rows, x, hue, parameters)
    groups = list(dict.fromkeys(g for g, _, _ in cells))
    bars = list(dict.fromkeys(b for _, b, _ in cells))
    width = 0.8 / len(bars)
    fig, (ax,) = new_figure(1)
    for i, bar in enumerate(bars):
        positions, means, errors = [], [], []
        for group, label, cell in cells:
            if label != bar:
                continue
            n, mean, _, low, high = mean_interval(
                list(cell["delivered_bytes"].to_numpy(dtype=float) / BYTES_PER_KB), confidence
            )
            positions.append(groups.index(group) + (i - (len(bars) - 1) / 2.0) * width)
            means.append(mean)
            # No interval from one row: no error bar rather than a zero-width one.
            errors.append((0.0, 0.0) if n < 2 else (mean - low, high - mean))
        ax.bar(
            positions,
            means,
            width=width,
            yerr=np.array(errors).T,
            capsize=3,
            label=None if bar is None else f"{hue} = {bar}",
        )
    ax.set_xticks(np.arange(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_xlabel(x_label)
    ax.set_ylabel(f"delivered data (kB), mean ± {confidence:.0%} CI")
    ax.set_title("Data delivered from the handover command until one RTT after the attach")
    if hue is not None:
        ax.legend(fontsize="small")
    save(fig, out)
    return fig


def _handover_link_rate_bps(scenario: dict[str, Any], key: str) -> float:
    """The rate of the one link the scenario's link handovers interrupt (bit/s)."""
    events = [e for e in scenario.get("events") or [] if isinstance(e, dict) and "handover" in e]
    links = sorted({str(e.get("link")) for e in events if e.get("link") is not None})
    if len(links) != 1:
        found = "no link handover" if not links else f"handovers on links {', '.join(links)}"
        raise PlotError(
            f"store key {key[:8]}: {found}; the simulated points need the bottleneck rate of "
            "one link whose handovers ([[events]] with handover) are analysed"
        )
    link = scenario.get("links", {}).get(links[0], {})
    direction = next((e.get("direction") for e in events if e.get("direction")), "a_to_b")
    rate = (link.get(direction) or {}).get("rate", link.get("rate"))
    if not isinstance(rate, str):
        raise PlotError(f"store key {key[:8]}: link {links[0]} has no fixed rate")
    return parse_quantity(rate, "rate")


def recovery_points(
    directory: str | os.PathLike[str], runs: pd.DataFrame, flow: str | None = None
) -> pd.DataFrame:
    """The simulated recoveries of a results store, for :func:`recovery_time_vs_rate`: one row
    per handover row whose outcome is ``timeout`` and that recovered, with ``rate_bps`` (the
    rate of the link the run's link handover interrupts), ``rtt_s`` (the flow's smallest RTT
    sample, ``flows.<flow>.sender.min_rtt_s``: the path's RTT without queueing) and ``time_s``
    (``ramp_time_s``: from the arrival of the first timeout retransmission until the goodput is
    back at 90 % of its level before, the model's quantity).
    """
    from celltcp.sweep.store import Store

    rows = store_handovers(directory, runs, flow)
    # The model is the ramp after a retransmission timeout; without one, ramp_time_s is
    # measured from the attach instead and is not the model's quantity.
    timed_out = rows["outcome"].astype(str).to_numpy() == output_label("tcp_outcome", "timeout")
    rows = rows[timed_out & np.isfinite(rows["ramp_time_s"].to_numpy(dtype=float))]
    if rows.empty:
        raise PlotError(
            "no handover of the selected runs timed out and recovered (ramp_time_s); the model "
            "is of handovers without buffer transfer (policy discard) that end in a timeout"
        )
    pairs = sorted({(str(k), int(r)) for k, r in zip(rows["key"], rows["run"], strict=True)})
    with Store.open(directory, read_only=True) as store:
        rates = {k: _handover_link_rate_bps(store.scenario(k), k) for k in {k for k, _ in pairs}}
        summaries = store.summaries(pairs)
    rtts = []
    for key, run, name in zip(rows["key"], rows["run"], rows["flow"].astype(str), strict=True):
        sender = (summaries.get((key, int(run)), {}).get("flows", {}).get(name) or {}).get(
            "sender"
        ) or {}
        rtts.append(float(sender.get("min_rtt_s", math.nan)))
    frame = pd.DataFrame(
        {
            "key": rows["key"].to_numpy(),
            "run": rows["run"].to_numpy(),
            "flow": rows["flow"].astype(str).to_numpy(),
            "rate_bps": [rates[k] for k in rows["key"]],
            "rtt_s": rtts,
            "time_s": rows["ramp_time_s"].to_numpy(dtype=float),
        }
    )
    return frame[np.isfinite(frame["rtt_s"])].reset_index(drop=True)


def _overlay_recovery(
    ax: Any, simulated: pd.DataFrame, rtts: np.ndarray, confidence: float
) -> None:
    """Means (with Student-t intervals) of the simulated recovery times per rate, each in the
    colour of the model curve of its RTT."""
    missing = [c for c in ("rate_bps", "rtt_s", "time_s") if c not in simulated.columns]
    if missing:
        raise PlotError(
            f"simulated: missing columns {', '.join(missing)} (expected rate_bps, rtt_s, time_s)"
        )
    data = simulated[
        np.isfinite(simulated[["rate_bps", "rtt_s", "time_s"]].to_numpy(float)).all(axis=1)
    ]
    if data.empty:
        raise PlotError("simulated: no row with a finite rate, RTT and time")
    measured = data["rtt_s"].to_numpy(dtype=float)
    nearest = np.abs(np.log(measured[:, None] / rtts[None, :])).argmin(axis=1)
    off = np.abs(measured / rtts[nearest] - 1.0) > RTT_MATCH
    if off.any():
        lost = ", ".join(f"{t * MS_PER_S:.1f}" for t in sorted(set(np.round(measured[off], 4))))
        raise PlotError(
            f"simulated runs with an RTT of {lost} ms have no model curve within "
            f"{RTT_MATCH:.0%}; add their RTT to the curves (rtts_s; celltcp plot: --rtt)"
        )
    for i, rtt in enumerate(rtts):
        mine = data[nearest == i]
        if mine.empty:
            continue
        stats = [
            (rate, *mean_interval(list(g["time_s"]), confidence))
            for rate, g in mine.groupby("rate_bps", sort=True)
        ]
        rates = np.array([r for r, *_ in stats])
        means = np.array([m for _, _, m, _, _, _ in stats])
        err = np.array(
            [(0.0, 0.0) if n < 2 else (m - lo, hi - m) for _, n, m, _, lo, hi in stats]
        ).T
        ax.errorbar(
            rates / BPS_PER_MBPS,
            means,
            yerr=err,
            fmt="o",
            color=f"C{i}",
            capsize=3,
            label=f"simulated, RTT {rtt * MS_PER_S:g} ms",
        )


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
    target_fraction: float = 1.0,
    simulated: pd.DataFrame | None = None,
    confidence: float = 0.95,
    out: str | None = None,
) -> Figure:
    """Recovery time (s) after a handover without buffer transfer versus the rate (Mbit/s,
    log axis), one line per RTT in ``rtts_s`` (seconds).

    ``case="best"`` is the seed's Fig. 3 (TCP stays in slow start), ``case="worst"`` its Fig. 4
    (slow start to half the BDP, then congestion avoidance; the seed assumes delayed ACKs
    without byte counting). ``rates_bps`` defaults to 1–100 Mbit/s; ``delayed_ack``,
    ``abc_limit`` (RFC 3465 L) and ``target_fraction`` (of the BDP the window must reach) are
    those of :func:`celltcp.models.handover_recovery_time_s`.

    ``simulated`` (columns ``rate_bps``, ``rtt_s``, ``time_s``, one row per recovery, e.g.
    :func:`recovery_points`) adds the mean recovery time per rate with its Student-t
    ``confidence`` interval, in the colour of the curve whose RTT is within 20 % of the row's;
    a row that matches no curve is an error. The analytics measure recovery to 90 % of the
    goodput before the handover, so compare them with ``target_fraction=0.9``.
    """
    rtts = _positive_values("rtts_s", rtts_s)
    rates = np.logspace(6, 8, 41) if rates_bps is None else _positive_values("rates_bps", rates_bps)
    fig, (ax,) = new_figure(1)
    for i, rtt in enumerate(rtts):
        try:
            times = [
                handover_recovery_time_s(
                    rate,
                    rtt,
                    mss_bytes,
                    case=case,
                    delayed_ack=delayed_ack,
                    abc_limit=abc_limit,
                    target_fraction=target_fraction,
                )
                for rate in rates
            ]
        except ValueError as e:
            raise PlotError(str(e)) from None
        ax.plot(
            rates / BPS_PER_MBPS,
            times,
            color=f"C{i}",
            label=f"{'model, ' if simulated is not None else ''}RTT {rtt * MS_PER_S:g} ms",
        )
    if simulated is not None:
        _overlay_recovery(ax, simulated, rtts, confidence)
    ax.set_xscale("log")
    if case == "worst":
        ax.set_yscale("log")
    ax.set_xlabel("rate (Mbit/s)")
    ax.set_ylabel("recovery time (s)")
    growth = "delayed ACK" if delayed_ack else "ACK per segment"
    growth += f", ABC L = {abc_limit:g}" if abc_limit is not None else ", no ABC"
    phase = "slow start only" if case == "best" else "slow start then congestion avoidance"
    target = "" if target_fraction == 1.0 else f", to {target_fraction:g}·BDP"
    ax.set_title(f"Handover recovery time, {phase} ({growth}, MSS {mss_bytes:g} B{target})")
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
                buffer_overrun_probability(
                    buffer_bytes,
                    rate_bps,
                    rtt_s,
                    interruption,
                    mss_bytes=mss_bytes,
                    extra_buffer_bytes=extra,
                )
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
