"""Seed `004_…` (Miyoshi, Sugano & Murata, "Performance Improvement of TCP in Wireless
Cellular Network Based on Acknowledgement Control"): the wireless terminal sends every ACK
several times so that a lost ACK no longer costs the sender a timeout.

Everything runs on the seed's topology, ``celltcp/examples/004/`` (wired terminal — base station —
radio link — wireless terminal; 100-byte segments, 40-byte ACKs, 50 KB buffers, 1 ms links,
radio errors of probability ``p_err`` in both directions), through :func:`celltcp.sweep`:

* **Throughput against p_err** (``ack-copies.toml``), the seed's simulation result: one, two and
  three copies of every ACK, two copies only while the estimate is at or above 0.1 (the seed's
  proposal with its estimator), Snoop and ELN at the base station; replications per point.
  The same with the timestamps option (:data:`SENSITIVITY`): without it an ACK that covers
  a retransmission gives the sender no RTT sample (Karn's rule), so with several holes per
  window it can go for minutes without one, keeping a backed-off RTO (RFC 6298 §5.5).
* **The PFTK analysis** (:mod:`celltcp.models.multi_ack`): the seed's curves at RTT 100 ms,
  T0 400 ms, p_buff 0.01 (two ACKs best for 0.1 < p_err < 0.47), and the same formula at the
  simulated path's own RTT, T0 and buffer loss, beside the simulated throughput and the loss
  indications the sender really saw.
* **Window size** for one and two ACKs (the seed's second figure), from traced runs.
* **The p_err estimator as connections come and go** (``tracking.toml``): 1, 2, …, 5, …, 1
  connections to one wireless terminal, whose receivers share the terminal's estimate; the
  estimate over time against the true p_err.

The study is a declaration on :mod:`celltcp.study`: this module declares its sweeps (one per
variant, named as the run counts of ``claims.json`` name them), the metrics read from every run
and the frames derived from them; :mod:`celltcp.reproduce.seed004_report` declares the claims
with their tests, the tables, the figures and the report's layout. docs/seed-004.md has the
mapping, the choices the seed leaves open and the measured figures.

Units: rates bit/s of payload (goodput), times s, probabilities per packet, windows bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from celltcp import examples
from celltcp.models import (
    ack_loss_effective_p,
    p_err_estimate,
    pftk_approx_throughput_bps,
)
from celltcp.reproduce.document import Document, mean_ci
from celltcp.reproduce.registry import Options
from celltcp.study import Derived, Metric, Replications, Runs, Scenario, Sweep

if TYPE_CHECKING:
    from celltcp.study import Results

__all__ = [
    "ALIASES",
    "DERIVED",
    "FULL",
    "NAME",
    "QUICK",
    "SENSITIVITY",
    "SUMMARY",
    "SWEEPS",
    "VARIANTS",
    "Plan",
    "Variant",
    "connections_over_time",
    "expected_estimate",
    "first_updates",
    "gaps_only_estimate",
    "longest_gap_s",
    "pftk_rows",
    "plan",
    "run",
    "throughput_table",
    "tracking_periods",
    "tracking_schedule",
]

NAME = "004-ack-control"
ALIASES = ("004",)
SUMMARY = (
    "Miyoshi, Sugano & Murata: one, two, three ACK copies on a lossy radio link against the "
    "PFTK analysis, the p_err estimator as connections come and go, Snoop and ELN"
)

#: The seed's packets: 100-byte segments (payload, MSS) in 140-byte packets without options,
#: 40-byte ACKs.
PAYLOAD_BYTES = 100
PACKET_BYTES = 140
ACK_BYTES = 40
#: The scenario files' rates and one-way propagation delay (the seed gives the delay only).
RADIO_RATE_BPS = 384e3
WIRED_RATE_BPS = 10e6
DELAY_S = 0.001
#: Goodput ceiling of the radio link: its rate times the payload share of a data packet.
PAYLOAD_CAPACITY_BPS = RADIO_RATE_BPS * PAYLOAD_BYTES / PACKET_BYTES
#: An ACK's way back without queueing: both links' propagation and serialisation.
ACK_RETURN_S = 2 * DELAY_S + ACK_BYTES * 8 / RADIO_RATE_BPS + ACK_BYTES * 8 / WIRED_RATE_BPS
#: The seed's analysis: parameters and its result (two ACKs best among 1–3 in this range).
SEED_RTT_S = 0.100
SEED_T0_S = 0.400
SEED_P_BUFF = 0.01
SEED_TWO_BEST = (0.1, 0.47)
#: The seed's simulation: "two ACKs can improve the throughput with p_err larger than 0.05".
SEED_SIM_IMPROVES_ABOVE = 0.05
#: The estimate's threshold of the adaptive variant (the seed gives none; the lower end of the
#: range where its analysis finds two ACKs best) and the p_buff every receiver assumes.
THRESHOLD = 0.1
ASSUMED_P_BUFF = 0.01
MASTER_SEED = 1

_ACK = "flows.bulk.tcp.ack_copies"
_P = "links.radio.loss.p"
_SENDER = "flows.bulk.sender."
GOODPUT = "flows.bulk.goodput_bps"
METRICS = (
    GOODPUT,
    "flows.bulk.delay_mean_s",
    _SENDER + "segments_sent",
    _SENDER + "retransmissions",
    _SENDER + "fast_recoveries",
    _SENDER + "timeouts",
    _SENDER + "dupacks_received",
    _SENDER + "max_cwnd_bytes",
    _SENDER + "srtt_s",
    "flows.bulk.receiver.acks_sent",
    "flows.bulk.receiver.ack_copies_sent",
    "links.radio.a_to_b.packets_sent",
    "links.radio.a_to_b.drops.queue_full",
    "links.radio.a_to_b.drops.link_loss",
    "links.radio.b_to_a.drops.link_loss",
    "links.wired.a_to_b.drops.queue_full",
)


@dataclass(frozen=True)
class Variant:
    """One way of running the lossy path: a label, the scenario overrides that make it, the
    number of ACK copies (None: one, unconditionally, with a middlebox doing the repair) and
    the metrics of its own it reports."""

    label: str
    overrides: Mapping[str, Any]
    copies: int | None = 1
    metrics: tuple[str, ...] = ()


def _copies(n: int, threshold: float = 0.0) -> dict[str, Any]:
    return {_ACK: {"enabled": True, "copies": n, "threshold": threshold, "p_buff": ASSUMED_P_BUFF}}


_SNOOP = {"middleboxes.snoop": {"kind": "snoop", "node": "bs"}}
_ELN = {"middleboxes.eln": {"kind": "eln", "node": "bs"}, "flows.bulk.tcp.eln": True}
_ELN_METRICS = ("middleboxes.eln.acks_marked", _SENDER + "eln_recoveries", _SENDER + "eln_timeouts")
_TIMESTAMPS = {"flows.bulk.tcp.timestamps": True}

VARIANTS = (
    Variant("one ACK", {}, 1),
    Variant("two ACKs", _copies(2), 2),
    Variant("three ACKs", _copies(3), 3),
    Variant(f"two ACKs at p_err est. ≥ {THRESHOLD:g}", _copies(2, THRESHOLD), None),
    Variant(
        "Snoop",
        _SNOOP,
        None,
        ("middleboxes.snoop.local_retransmissions", "middleboxes.snoop.dupacks_suppressed"),
    ),
    Variant("ELN", _ELN, None, _ELN_METRICS),
)
#: The variants the PFTK analysis describes (a fixed number of copies).
FIXED = tuple(v for v in VARIANTS if v.copies is not None)
#: The same with the timestamps option (RFC 7323), whose echo gives the sender an RTT sample
#: per ACK, also from an ACK that covers a retransmission (RFC 7323 §4): 12 more bytes per
#: packet (52-byte ACKs), but no long stretches without a sample, in which the RTO stays backed
#: off (docs/seed-004.md).
SENSITIVITY = (
    *(Variant(f"{v.label}, timestamps", {**v.overrides, **_TIMESTAMPS}, v.copies) for v in FIXED),
    Variant("ELN, timestamps", {**_ELN, **_TIMESTAMPS}, None, _ELN_METRICS),
    Variant(
        f"two ACKs at p_err est. ≥ {THRESHOLD:g}, timestamps",
        {**_copies(2, THRESHOLD), **_TIMESTAMPS},
        None,
    ),
)


@dataclass(frozen=True)
class Plan:
    """Grid and lengths of one mode. Throughput: ``p_errs`` × every variant × ``runs``
    replications of ``duration_s``. Traces (window size, RTT, RTO): one run of the fixed-copy
    variants at every p_err, ``trace_duration_s`` long. Tracking: ``tracking_p_errs`` ×
    ``tracking_runs`` runs of ``tracking.toml`` with periods of ``period_s``."""

    p_errs: tuple[float, ...]
    runs: int
    duration_s: float
    trace_duration_s: float
    window_p_err: float
    tracking_p_errs: tuple[float, ...]
    tracking_runs: int
    period_s: float


#: Short runs, a coarse grid, 4 replications: about 15 s on 2 cores.
QUICK = Plan(
    p_errs=(0.0, 0.02, 0.05, 0.1, 0.2, 0.3),
    runs=4,
    duration_s=60.0,
    trace_duration_s=60.0,
    window_p_err=0.05,
    tracking_p_errs=(0.05,),
    tracking_runs=1,
    period_s=10.0,
)
#: The seed gives no replication count nor run length: 10 replications of 300 s each on a grid
#: of 14 loss rates up to 0.5 (the seed's analysis ends at 0.47).
FULL = Plan(
    p_errs=(0.0, 0.01, 0.02, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.47, 0.5),
    runs=10,
    duration_s=300.0,
    trace_duration_s=60.0,
    window_p_err=0.05,
    tracking_p_errs=(0.02, 0.05, 0.1),
    tracking_runs=3,
    period_s=30.0,
)


def scenario_file(name: str) -> Path:
    """``004/<name>`` of the library shipped in the package (:mod:`celltcp.examples`)."""
    return examples.path(f"004/{name}")


def _seconds(value: float) -> str:
    return f"{value:g}s"


# -- throughput against p_err -----------------------------------------------------------------


def _spurious(rows: pd.DataFrame) -> pd.Series:
    """Retransmissions beyond the data packets lost (radio downlink and the base station's
    queue): a lower bound of the retransmissions of segments that had arrived or were still
    on their way. Snoop's local repairs are not the sender's and are left out by construction
    (only the sender's retransmissions are counted)."""
    lost = rows["radio_losses_down"] + rows["queue_drops"] + rows["sender_queue_drops"]
    return (rows["retransmissions"] - lost).clip(lower=0)


def throughput_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, p_err): goodput mean ± 95 % half-width (bit/s), and the means of the
    loss figures: ``p_buff`` (the base station queue's drop ratio), ``p_indication`` (fast
    recoveries and timeouts per segment sent), ``spurious_retx`` (per run)."""
    rows = rows.assign(
        p_buff=rows["queue_drops"] / (rows["radio_packets_down"] + rows["queue_drops"]),
        p_indication=(rows["fast_recoveries"] + rows["timeouts"]) / rows["segments_sent"],
        spurious_retx=_spurious(rows),
        rtt_s=rows["delay_mean_s"] + ACK_RETURN_S,
    )
    out = []
    for (label, p), g in rows.groupby(["variant", "p_err"], sort=False):
        mean, half = mean_ci(g["goodput_bps"])
        out.append(
            {
                "variant": label,
                "p_err": p,
                "runs": len(g),
                "goodput_bps": mean,
                "goodput_half_bps": half,
                **{
                    k: float(g[k].mean())
                    for k in (
                        "p_buff",
                        "p_indication",
                        "spurious_retx",
                        "retransmissions",
                        "timeouts",
                        "fast_recoveries",
                        "segments_sent",
                        "rtt_s",
                        "srtt_s",
                        "max_cwnd_bytes",
                        "ack_copies_sent",
                        "queue_drops",
                        "radio_losses_down",
                        "radio_losses_up",
                    )
                },
            }
        )
    return pd.DataFrame(out)


# -- traces: window size, RTT and RTO ---------------------------------------------------------


def _time_mean(times: np.ndarray, values: np.ndarray, end_s: float) -> float:
    """Mean of a step function (value held from each time to the next) over [times[0], end]."""
    if len(times) == 0:
        return math.nan
    widths = np.diff(np.append(times, max(end_s, times[-1])))
    total = widths.sum()
    return float((values * widths).sum() / total) if total > 0 else float(values[-1])


#: cwnd series of the traced runs by (variant label, p_err): columns ``time_s``, ``value``.
CwndSeries = dict[tuple[str, float], pd.DataFrame]


def longest_gap_s(times_s: np.ndarray, end_s: float) -> float:
    """The longest interval of [0, end_s] without an event at ``times_s`` (seconds): before
    the first, between two, or after the last; ``end_s`` when there is none."""
    edges = np.concatenate(([0.0], np.sort(np.asarray(times_s, dtype=float)), [end_s]))
    return float(np.diff(edges).max())


# -- the PFTK analysis ------------------------------------------------------------------------


def _pftk_bps(rtt_s: float, t0_s: float, p: float) -> float:
    """The seed's S_TCP (PFTK eq. 32, every segment acknowledged: b = 1), payload bit/s."""
    if not (p > 0 and rtt_s > 0 and t0_s > 0):
        return math.nan
    return pftk_approx_throughput_bps(PAYLOAD_BYTES, rtt_s, min(p, 1.0), t0_s, b=1.0)


def pftk_rows(table: pd.DataFrame, traces: pd.DataFrame) -> pd.DataFrame:
    """Per fixed-copy variant and p_err > 0: the seed's p(n) with the measured p_buff(n), the
    loss indications the sender saw, the simulated path's RTT (mean one-way delay of the data
    plus an ACK's way back) and T0 (from the traced run), the formula at p(n) and at the
    measured indication rate, and the simulated goodput."""
    out = []
    for v in FIXED:
        for _, r in table[table["variant"] == v.label].iterrows():
            if r["p_err"] <= 0:
                continue
            t = traces[(traces["variant"] == v.label) & (traces["p_err"] == r["p_err"])]
            t0 = float(t["t0_s"].iloc[0]) if len(t) else math.nan
            assert v.copies is not None
            p_model = ack_loss_effective_p(r["p_err"], r["p_buff"], v.copies)
            out.append(
                {
                    "variant": v.label,
                    "copies": v.copies,
                    "p_err": r["p_err"],
                    "p_buff": r["p_buff"],
                    "p_model": p_model,
                    "p_indication": r["p_indication"],
                    "rtt_s": r["rtt_s"],
                    "t0_s": t0,
                    "model_bps": _pftk_bps(r["rtt_s"], t0, p_model),
                    "model_measured_p_bps": _pftk_bps(r["rtt_s"], t0, r["p_indication"]),
                    "seed_params_bps": _pftk_bps(
                        SEED_RTT_S,
                        SEED_T0_S,
                        ack_loss_effective_p(r["p_err"], SEED_P_BUFF, v.copies),
                    ),
                    "goodput_bps": r["goodput_bps"],
                    "goodput_half_bps": r["goodput_half_bps"],
                }
            )
    return pd.DataFrame(out)


# -- the estimator as connections come and go -------------------------------------------------

#: Connections per period of ``tracking.toml``: ck runs from (k − 1)·T to (11 − k)·T.
CONNECTIONS = (1, 2, 3, 4, 5, 5, 4, 3, 2, 1)
TRACKING_FLOWS = tuple(f"c{k}" for k in range(1, 6))


def tracking_schedule(period_s: float) -> dict[str, Any]:
    """Overrides giving ``tracking.toml`` periods of ``period_s``: flow ck starts at
    (k − 1)·period and stops at (11 − k)·period; the run lasts 10 periods."""
    out: dict[str, Any] = {"simulation.duration": _seconds(10 * period_s)}
    for k, flow in enumerate(TRACKING_FLOWS, start=1):
        out[f"flows.{flow}.start"] = _seconds((k - 1) * period_s)
        out[f"flows.{flow}.stop"] = _seconds((11 - k) * period_s)
    return out


def expected_estimate(p_err: float, p_buff: float = ASSUMED_P_BUFF) -> float:
    """What the seed's estimator converges to in the seed's own model (one ACK per segment, a
    segment whose ACK is lost retransmitted and seen again by the receiver) when both radio
    crossings lose with probability ``p_err`` and the buffers lose nothing: the receiver counts
    gaps and repeats, p = 1 − (1 − p_err)², and the formula returns p_err less the assumed
    p_buff's share (celltcp_tcp::ack_control::expected_estimate)."""
    return p_err_estimate(1.0 - (1.0 - p_err) ** 2, p_buff)


def gaps_only_estimate(p_err: float, p_buff: float = ASSUMED_P_BUFF) -> float:
    """What the estimator converges to when it sees the data losses only, p = p_err (the gaps;
    no repeat of an acknowledged segment): the formula then inverts two crossings where there
    was one, about half the true p_err. This was celltcp's estimator before it counted repeats,
    and it is what remains where cumulative ACKs hide the lost ones."""
    return p_err_estimate(p_err, p_buff)


def connections_over_time(tcp: pd.DataFrame) -> pd.DataFrame:
    """Per flow of a tracking run: the first and the last time it delivered data (s)."""
    d = tcp[tcp["var"] == "delivered"]
    g = d.groupby("flow")["time_s"]
    return pd.DataFrame({"first_s": g.min(), "last_s": g.max()}).reset_index()


def tracking_periods(tcp: pd.DataFrame, p_err: float, period_s: float) -> pd.DataFrame:
    """Per period of one tracking run: the scheduled connections, the connections that
    delivered data in it, the estimate updates, and the estimates' mean and range (over every
    update of every connection in the period) beside the true p_err, :func:`expected_estimate`
    and :func:`gaps_only_estimate`."""
    est = tcp[tcp["var"] == "loss_estimate"]
    spans = connections_over_time(tcp)
    rows = []
    for i, scheduled in enumerate(CONNECTIONS):
        lo, hi = i * period_s, (i + 1) * period_s
        inside = est[(est["time_s"] >= lo) & (est["time_s"] < hi)]
        active = int(((spans["first_s"] < hi) & (spans["last_s"] >= lo)).sum())
        rows.append(
            {
                "period": i + 1,
                "scheduled": scheduled,
                "delivering": active,
                "updates": len(inside),
                "p_err": p_err,
                "expected": expected_estimate(p_err),
                "gaps_only": gaps_only_estimate(p_err),
                "mean": float(inside["value"].mean()) if len(inside) else math.nan,
                "min": float(inside["value"].min()) if len(inside) else math.nan,
                "max": float(inside["value"].max()) if len(inside) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def first_updates(tcp: pd.DataFrame, period_s: float) -> pd.DataFrame:
    """Per connection of a tracking run: its scheduled start, the delay to its first estimate,
    the number of updates, its first estimate and its mean estimate over its second half."""
    est = tcp[tcp["var"] == "loss_estimate"]
    rows = []
    for k, flow in enumerate(TRACKING_FLOWS, start=1):
        start = (k - 1) * period_s
        e = est[est["flow"] == flow]
        half = e[e["time_s"] >= e["time_s"].median()] if len(e) else e
        rows.append(
            {
                "flow": flow,
                "start_s": start,
                "first_update_after_s": float(e["time_s"].min() - start) if len(e) else math.nan,
                "updates": len(e),
                "first": float(e["value"].iloc[0]) if len(e) else math.nan,
                "second_half_mean": float(half["value"].mean()) if len(half) else math.nan,
            }
        )
    return pd.DataFrame(rows)


# -- the sweeps -------------------------------------------------------------------------------


def plan(quick: bool) -> Plan:
    """The plan of the mode."""
    return QUICK if quick else FULL


#: Short names of :data:`METRICS` and of the variants' own, as the tables and claims read them.
_NAMES = {
    "links.radio.a_to_b.drops.queue_full": "queue_drops",
    "links.radio.a_to_b.drops.link_loss": "radio_losses_down",
    "links.radio.b_to_a.drops.link_loss": "radio_losses_up",
    "links.radio.a_to_b.packets_sent": "radio_packets_down",
    "links.wired.a_to_b.drops.queue_full": "sender_queue_drops",
    "flows.bulk.receiver.acks_sent": "receiver_acks_sent",
}


def _summary_metrics(paths: tuple[str, ...]) -> tuple[Metric, ...]:
    return tuple(Metric(_NAMES.get(m, m.rsplit(".", 1)[-1]), summary=m) for m in paths)


def _copied_share(rows: pd.DataFrame, _results: Results | None = None) -> np.ndarray:
    """Per run: the share of the receiver's ACKs sent with a copy (copies over the ACKs
    without them; NaN for a run without an ACK)."""
    copies = rows["ack_copies_sent"].astype(float).to_numpy()
    plain = rows["receiver_acks_sent"].astype(float).to_numpy() - copies
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(plain > 0, copies / plain, np.nan)


_THROUGHPUT_RUNS = Replications(
    QUICK.runs,
    FULL.runs,
    "the seed gives no replication count nor run length: 10 runs of 300 s per point, 4 of 60 s "
    "in quick mode",
)


def _throughput_sweep(v: Variant) -> Sweep:
    return Sweep(
        name=f"004 {v.label}",
        scenario=Scenario("004/ack-copies", v.overrides),
        axes={_P: FULL.p_errs},
        quick_axes={_P: QUICK.p_errs},
        metrics=(
            *_summary_metrics(METRICS + v.metrics),
            Metric("copied_share", derived=_copied_share),
        ),
        replications=_THROUGHPUT_RUNS,
        quick={"simulation.duration": _seconds(QUICK.duration_s)},
        full={"simulation.duration": _seconds(FULL.duration_s)},
        seed=MASTER_SEED,
    )


def _trace_stats(rows: pd.DataFrame, results: Results) -> pd.DataFrame:
    """Per traced run: the time-weighted mean cwnd (bytes), the mean RTT sample (Karn's rule,
    the sender's own), T0, the mean RTO computed at those samples (before any backoff), and the
    longest time without an RTT sample (s; the RTO stays backed off until the next one,
    RFC 6298 §5)."""
    end_s = plan(results.quick).trace_duration_s
    out = []
    for tcp in results.read(rows, "tcp"):
        cwnd = tcp[tcp["var"] == "cwnd"]
        rtt = tcp[tcp["var"] == "rtt"]
        rto = tcp[tcp["var"] == "rto"]
        at_samples = rto[rto["time_ns"].isin(set(rtt["time_ns"]))]
        out.append(
            {
                "mean_cwnd_bytes": _time_mean(
                    cwnd["time_s"].to_numpy(), cwnd["value"].to_numpy(), end_s
                ),
                "mean_rtt_sample_s": float(rtt["value"].mean()) if len(rtt) else math.nan,
                "t0_s": float(at_samples["value"].mean()) if len(at_samples) else math.nan,
                "rtt_gap_s": longest_gap_s(rtt["time_s"].to_numpy(), end_s),
            }
        )
    return pd.DataFrame(out, columns=["mean_cwnd_bytes", "mean_rtt_sample_s", "t0_s", "rtt_gap_s"])


def _trace_metric(name: str) -> Metric:
    return Metric(name, derived=lambda rows, results: _trace_stats(rows, results)[name])


def _trace_sweep(v: Variant) -> Sweep:
    return Sweep(
        name=f"004 traces, {v.label}",
        scenario=Scenario("004/ack-copies", {**v.overrides, "trace.tcp": ["cwnd", "rtt", "rto"]}),
        axes={_P: FULL.p_errs},
        quick_axes={_P: QUICK.p_errs},
        metrics=(
            Metric("goodput_bps", summary=GOODPUT),
            *(_trace_metric(n) for n in ("mean_cwnd_bytes", "mean_rtt_sample_s", "t0_s")),
            _trace_metric("rtt_gap_s"),
        ),
        replications=Replications(
            1, 1, "one traced run (run 0) per point: the window figure and T0 of the analysis"
        ),
        quick={"simulation.duration": _seconds(QUICK.trace_duration_s)},
        full={"simulation.duration": _seconds(FULL.trace_duration_s)},
        seed=MASTER_SEED,
        keep=("tcp",),
    )


def _settled(rows: pd.DataFrame, results: Results) -> list[float]:
    """Per tracking run: the mean of the per-period estimates from period 2 on (the first is
    the moving average's climb from 0) over the true p_err."""
    period = plan(results.quick).period_s
    return [
        float(tracking_periods(tcp, float(p), period).iloc[1:]["mean"].dropna().mean()) / float(p)
        for p, tcp in zip(rows[_P], results.read(rows, "tcp"), strict=True)
    ]


TRACKING = Sweep(
    name="004 tracking",
    scenario=Scenario("004/tracking"),
    axes={_P: FULL.tracking_p_errs},
    quick_axes={_P: QUICK.tracking_p_errs},
    metrics=(
        Metric("queue_drops", summary="links.radio.a_to_b.drops.queue_full"),
        Metric("settled_over_p", derived=_settled),
    ),
    replications=Replications(
        QUICK.tracking_runs,
        FULL.tracking_runs,
        "the estimator's claim is an equivalence test over the runs at each p_err",
    ),
    quick=tracking_schedule(QUICK.period_s),
    full=tracking_schedule(FULL.period_s),
    seed=MASTER_SEED,
    keep=("tcp",),
)

#: Every sweep in the order they run: the throughput per variant, the traces, the tracking.
SWEEPS = (
    *(_throughput_sweep(v) for v in VARIANTS + SENSITIVITY),
    *(_trace_sweep(v) for v in FIXED),
    TRACKING,
)


def at(label: str, p: float) -> Runs:
    """The runs of a variant at one p_err."""
    return Runs(f"004 {label}", {_P: p}, label=f"{label} at {p:g}")


def traced(label: str, p: float) -> Runs:
    """The traced run of a fixed-copy variant at one p_err."""
    return Runs(f"004 traces, {label}", {_P: p}, label=f"{label} at {p:g}")


# -- the frames derived from the runs ---------------------------------------------------------


def _rows(results: Results) -> pd.DataFrame:
    """One row per (variant, p_err, run), the short metric names and ``variant``, ``p_err``."""
    frames = [
        results.frames[f"004 {v.label}"].pipe(
            lambda f, label=v.label: f.assign(variant=label, p_err=f[_P].astype(float))
        )
        for v in VARIANTS + SENSITIVITY
    ]
    return pd.concat(frames, ignore_index=True)


def _traces(results: Results) -> pd.DataFrame:
    """One row per fixed-copy variant and p_err: the traced run's statistics."""
    frames = [
        results.frames[f"004 traces, {v.label}"].pipe(
            lambda f, label=v.label: f.assign(variant=label, p_err=f[_P].astype(float))
        )
        for v in FIXED
    ]
    columns = ["variant", "p_err", "mean_cwnd_bytes", "mean_rtt_sample_s", "t0_s", "rtt_gap_s"]
    return pd.concat(frames, ignore_index=True)[columns]


def _tracking(results: Results) -> pd.DataFrame:
    """One row per tracking run: p_err, run, its ``tcp`` series and its periods."""
    rows = results.frames[TRACKING.name]
    period = plan(results.quick).period_s
    series = results.read(rows, "tcp")
    return pd.DataFrame(
        {
            "p_err": rows[_P].astype(float).to_numpy(),
            "run": rows["run"].astype(int).to_numpy(),
            "tcp": series,
            "periods": [
                tracking_periods(tcp, float(p), period)
                for p, tcp in zip(rows[_P], series, strict=True)
            ],
        }
    )


DERIVED = (
    Derived("rows", _rows),
    Derived("table", lambda r: throughput_table(r.derived("rows"))),
    Derived("traces", _traces),
    Derived("pftk", lambda r: pftk_rows(r.derived("table"), r.derived("traces"))),
    Derived("tracking", _tracking),
)


def run(options: Options) -> Document:
    """Runs the study on :mod:`celltcp.study` and returns the report (nothing is written here
    but the store)."""
    from celltcp.reproduce.seed004_report import STUDY
    from celltcp.study import document
    from celltcp.study import run as run_study

    return document(STUDY, run_study(STUDY, options), options)
