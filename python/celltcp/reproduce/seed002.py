"""Seed `002_…` (a 3GPP contribution on TCP and LTE-LTE handover): recovery time after a
handover without buffer transfer, and buffer overrun with buffer transfer.

Everything runs on ``celltcp/examples/002/handover-link.toml``
(server — wire — base station — access
link — UE, one NewReno + SACK download, one link handover) through :func:`celltcp.sweep`, and is
compared with :mod:`celltcp.models.handover`:

* **Recovery** (§2.1, §4.3, Figs. 3–4): the analytics' ``ramp_time_s`` (from the first RTO
  retransmission's arrival at the receiver to the start of the first goodput averaging window
  back at 90 % of the level before) against
  :func:`~celltcp.models.handover_recovery_time_s` with ``target_fraction=0.9``. The receive
  buffer forces the case: a window of 2·BDP at the handover gives ssthresh = BDP (best case), one
  BDP gives ssthresh = BDP/2 (worst case); the queue never overflows before the handover. Beside
  it, the time the sender's cwnd takes to reach 0.9·BDP: the model's own quantity, free of the
  lag of a goodput measured at the receiver.
* **Testbed** (§2, §4.2): rate × interruption × policy on the loss-driven sawtooth of a
  drop-tail queue of one BDP, RTT 50 ms: TCP outcomes, and the goodput lost over a horizon
  against the same run without the handover.
* **Buffer overrun** (§2.2, §4.4, Fig. 6): handovers with buffer transfer at phases spread over
  one sawtooth cycle, the share that overflow the queue against
  :func:`~celltcp.models.buffer_overrun_probability`; and a queue enlarged by
  :func:`~celltcp.models.overrun_free_extra_buffer_bytes`, which must lose nothing.

* **Episodes** (10 Mb/s, RTT 50 ms): Fig. 1 (a discard with a window of 2·BDP, under RTO
  floors of 1 s and 200 ms: the time the receiver gets nothing, the recovery, slow start
  throughout); the testbed's 40 ms discard with one setting changed at a time
  (:data:`ABLATION`: which one brings the seed's timeouts); trains of handovers
  :data:`TRAIN_SPACING_S` apart; a discard during the initial slow start. The sender's side of
  each is read from the ``cwnd`` and ``ssthresh`` traces.

A drop-tail queue has one limit, so a loss-driven sawtooth fills whatever queue it is given. A
buffer of B in normal operation plus E during the handover only is therefore emulated: the
receive buffer caps the window at the sawtooth's windows (quantiles of the time the sawtooth
spends at each window, the model's assumption 2) and the queue holds B + E. The real sawtooth
checks that assumption at E = 0. The report (tables, verdicts, figures) is built by
:mod:`celltcp.reproduce.seed002_report`; docs/seed-002.md has the mapping and the figures.

Units: rates bit/s, times s, sizes bytes, windows in 1500-byte packets (segments).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from celltcp import examples
from celltcp.models import (
    bdp_bytes,
    buffer_overrun_probability,
    handover_recovery_rounds_s,
    handover_recovery_time_s,
    overrun_free_extra_buffer_bytes,
)
from celltcp.reproduce.document import Document, mean_ci
from celltcp.reproduce.registry import Options, ReproductionError, StoreRunner

__all__ = [
    "ABLATION",
    "ALIASES",
    "FIG1_CELL",
    "FULL",
    "NAME",
    "QUICK",
    "SUMMARY",
    "AblationVariant",
    "Plan",
    "RecoveryCell",
    "Results",
    "Runner",
    "ablation_runs",
    "bdp_segments",
    "count_overruns",
    "emulated_overrun",
    "fig1_runs",
    "handover_event",
    "path_overrides",
    "recovery_cells",
    "recovery_table",
    "run",
    "run_recovery",
    "sawtooth_overrun",
    "sawtooth_period",
    "sized_buffer_runs",
    "slow_start_runs",
    "testbed_runs",
    "train_runs",
    "window_quantiles",
    "wire_delay_s",
]

NAME = "002-handover-buffer"
ALIASES = ("002",)
SUMMARY = (
    "3GPP contribution on TCP at LTE handover: recovery time without buffer transfer "
    "(Figs. 3-4), the testbed's interruptions, buffer overrun with transfer (Fig. 6)"
)

#: One data packet: 1448-byte MSS + 20 IP + 20 TCP + 12 bytes of timestamp option.
PACKET_BYTES = 1500
MSS_BYTES = 1448
#: A pure ACK with timestamps (no SACK blocks in the steady state).
ACK_BYTES = 52
#: The access link's propagation delay and the wire's rate, as in the scenario file.
ACCESS_DELAY_S = 0.001
WIRE_RATE_BPS = 1e9
#: The analytics' recovery threshold (celltcp_outputs::analytics, recovery_fraction).
RECOVERY_FRACTION = 0.9
#: Cells with a smaller BDP are skipped: slow start from one segment has no rounds to speak of.
MIN_BDP_SEGMENTS = 4.0
#: The seed's grid: rates (§4.1), the RTTs of Figs. 3–4, the testbed's interruptions and RTT.
RATES_BPS = (1e6, 5e6, 10e6, 100e6)
RTTS_S = (0.010, 0.050, 0.100)
INTERRUPTIONS_S = (0.040, 0.100, 0.200, 0.300)
TESTBED_RTT_S = 0.050
#: Validation 2 runs at 10 Mb/s; Fig. 6 is drawn for 10 Mb/s and 200 ms, and the seed's Fig. 9
#: names a 250 kB buffer for that set-up.
OVERRUN_RATE_BPS = 10e6
FIG6_RTT_S = 0.200
FIG6_BUFFER_BYTES = 250_000
#: From the handover to the first RTO: the scenario's min_rto is 1 s (RFC 6298 §2.4) and
#: RTO = max(min_rto, SRTT + 4·RTTVAR) stays close to it here.
RTO_ALLOWANCE_S = 1.5
MASTER_SEED = 1
_DROPS = "links.access.a_to_b.drops.queue_full"
_DELIVERED = "flows.bulk.receiver.bytes_delivered"


#: The testbed's shortest interruption, the one whose outcome the ablation explains.
ABLATION_INTERRUPTION_S = 0.040


@dataclass(frozen=True)
class AblationVariant:
    """One setting changed from the testbed's 40 ms discard at 10 Mb/s, RTT 50 ms, queue one
    BDP: TCP keys, the queue in BDPs, the interruption, the RTT and the interrupted
    directions."""

    name: str
    tcp: tuple[tuple[str, Any], ...] = ()
    queue_bdp: float = 1.0
    interruption_s: float = ABLATION_INTERRUPTION_S
    rtt_s: float = TESTBED_RTT_S
    direction: str = "a_to_b"

    def base(self) -> dict[str, Any]:
        buffer = round(self.queue_bdp * bdp_bytes(OVERRUN_RATE_BPS, self.rtt_s))
        return {
            **path_overrides(OVERRUN_RATE_BPS, self.rtt_s),
            "links.access.queue": _queue(f"{buffer}B"),
            **{f"flows.bulk.tcp.{k}": v for k, v in self.tcp},
        }

    @property
    def buffer_bytes(self) -> int:
        return round(self.queue_bdp * bdp_bytes(OVERRUN_RATE_BPS, self.rtt_s))


#: The ablation: every setting the seed's testbed may have had otherwise, one at a time.
ABLATION = {
    v.name: v
    for v in (
        AblationVariant("the scenario"),
        AblationVariant("no SACK (NewReno partial ACKs)", tcp=(("sack", False),)),
        AblationVariant("RTO floor 200 ms (Linux)", tcp=(("min_rto", "200ms"),)),
        AblationVariant("initial RTO 3 s (RFC 1122)", tcp=(("initial_rto", "3s"),)),
        AblationVariant("ACK every segment", tcp=(("delayed_ack", False),)),
        AblationVariant("no limited transmit", tcp=(("limited_transmit", False),)),
        AblationVariant("dupack threshold 5", tcp=(("dupack_threshold", 5),)),
        AblationVariant("queue ½ BDP", queue_bdp=0.5),
        AblationVariant("queue 2 BDP", queue_bdp=2.0),
        AblationVariant("both directions interrupted", direction="both"),
        AblationVariant("interruption 50 ms (= RTT)", interruption_s=0.050),
        AblationVariant("interruption 60 ms (> RTT)", interruption_s=0.060),
        AblationVariant("RTT 30 ms (< interruption)", rtt_s=0.030),
        # Pairs: does the delayed-ACK timer keep the ACK clock going past an interruption longer
        # than the RTT?
        AblationVariant(
            "interruption 60 ms, ACK every segment",
            tcp=(("delayed_ack", False),),
            interruption_s=0.060,
        ),
        AblationVariant("RTT 30 ms, ACK every segment", tcp=(("delayed_ack", False),), rtt_s=0.030),
    )
}


@dataclass(frozen=True)
class Plan:
    """Grid and replications of one mode. Recovery: rates × 10/50/100 ms × (case, delayed ACK)
    settings, cells with a model time above ``max_model_s`` left out, ``recovery_phases``
    handover times each. Testbed: rates × interruptions × 3 variants × phases. Overrun: the real
    sawtooth at 50 ms for queues of ``sawtooth_buffers`` BDPs; Fig. 6 at 200 ms with extra
    buffers as fractions of the overrun-free amount, ``fig6_windows`` emulated windows per
    point and ``fig6_sawtooth_phases`` real phases at E = 0 (0: none); ``sized_windows``
    windows per interruption in the overrun-free check. Episodes: ``fig1_phases`` handover
    times per RTO floor; the ablation's variants (names of :data:`ABLATION`) with
    ``ablation_phases`` phases each; ``train_phases`` trains of ``train_handovers``
    handovers; ``slow_start_phases`` handovers during the initial slow start."""

    recovery_rates: tuple[float, ...]
    recovery_settings: tuple[tuple[str, bool], ...]
    max_model_s: float
    recovery_phases: int
    testbed_rates: tuple[float, ...]
    testbed_interruptions: tuple[float, ...]
    testbed_phases: int
    sawtooth_buffers: tuple[float, ...]
    sawtooth_interruptions: tuple[float, ...]
    sawtooth_phases: int
    fig6_interruptions: tuple[float, ...]
    fig6_extras: tuple[float, ...]
    fig6_windows: int
    fig6_sawtooth_phases: int
    sized_windows: int
    fig1_phases: int
    ablation_variants: tuple[str, ...]
    ablation_phases: int
    train_phases: int
    train_handovers: int
    slow_start_phases: int


#: Figs. 3–4's settings only, short runs: about 10 s on 2 cores.
QUICK = Plan(
    recovery_rates=(1e6, 10e6, 100e6),
    recovery_settings=(("best", False), ("worst", True)),
    max_model_s=10.0,
    recovery_phases=2,
    testbed_rates=(1e6, 10e6),
    testbed_interruptions=(0.040, 0.300),
    testbed_phases=2,
    sawtooth_buffers=(2.0,),
    sawtooth_interruptions=(0.040,),
    sawtooth_phases=10,
    fig6_interruptions=(0.040, 0.100),
    fig6_extras=(0.0, 0.5, 1.0),
    fig6_windows=6,
    fig6_sawtooth_phases=0,
    sized_windows=3,
    fig1_phases=3,
    ablation_variants=(
        "the scenario",
        "no SACK (NewReno partial ACKs)",
        "interruption 50 ms (= RTT)",
    ),
    ablation_phases=2,
    train_phases=2,
    train_handovers=3,
    slow_start_phases=3,
)
#: The whole grid, the 84 s worst case included: a few minutes on 2 cores.
FULL = Plan(
    recovery_rates=RATES_BPS,
    recovery_settings=(("best", False), ("best", True), ("worst", False), ("worst", True)),
    max_model_s=math.inf,
    recovery_phases=3,
    testbed_rates=RATES_BPS,
    testbed_interruptions=INTERRUPTIONS_S,
    testbed_phases=5,
    sawtooth_buffers=(1.0, 2.0, 3.0),
    sawtooth_interruptions=(0.040, 0.100, 0.300),
    sawtooth_phases=40,
    fig6_interruptions=(0.040, 0.100, 0.200),
    fig6_extras=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
    fig6_windows=20,
    fig6_sawtooth_phases=40,
    # 17 windows and the peak at each of 4 interruptions: 72 handovers, the fewest with which
    # none overrunning puts the exact 95 % upper bound of the rate below 0.05.
    sized_windows=17,
    fig1_phases=10,
    ablation_variants=tuple(ABLATION),
    ablation_phases=10,
    train_phases=10,
    train_handovers=3,
    slow_start_phases=12,
)


# -- the path ---------------------------------------------------------------------------------


def bdp_segments(rate_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product in 1500-byte packets."""
    return bdp_bytes(rate_bps, rtt_s) / PACKET_BYTES


def wire_delay_s(rate_bps: float, rtt_s: float) -> float:
    """The wire's one-way delay (s) that makes the base RTT (no queueing) equal ``rtt_s``: the
    RTT less the access link's two propagation delays and the serialisation of one data packet
    and one ACK on each link. ReproductionError when those alone exceed it."""
    serialisation = (PACKET_BYTES + ACK_BYTES) * 8 * (1 / rate_bps + 1 / WIRE_RATE_BPS)
    delay = (rtt_s - serialisation) / 2 - ACCESS_DELAY_S
    if delay < 0:
        raise ReproductionError(
            f"an RTT of {rtt_s * 1e3:g} ms is shorter than the path's fixed part at "
            f"{rate_bps / 1e6:g} Mb/s ({(serialisation + 2 * ACCESS_DELAY_S) * 1e3:.2f} ms)"
        )
    return delay


def _ns(seconds: float) -> str:
    return f"{round(seconds * 1e9)}ns"


def path_overrides(rate_bps: float, rtt_s: float) -> dict[str, Any]:
    """Scenario overrides for an access rate and a base RTT."""
    return {
        "links.access.rate": f"{rate_bps / 1e6:g}Mbps",
        "links.wire.delay": _ns(wire_delay_s(rate_bps, rtt_s)),
    }


def handover_event(at_s: float, interruption_s: float, policy: str) -> list[dict[str, Any]]:
    """The ``events`` list with one downlink handover of the access link."""
    return [
        {
            "at": _ns(at_s),
            "link": "access",
            "direction": "a_to_b",
            "handover": {"interruption": _ns(interruption_s), "policy": policy},
        }
    ]


def _queue(limit: str) -> dict[str, str]:
    return {"kind": "droptail", "limit": limit}


def _capped(rate_bps: float, rtt_s: float, window: float, queue_bytes: float) -> dict[str, Any]:
    """Overrides: the window capped at ``window`` segments by the receive buffer, a queue of
    ``queue_bytes``."""
    return {
        **path_overrides(rate_bps, rtt_s),
        "links.access.queue": _queue(f"{int(queue_bytes)}B"),
        "flows.bulk.tcp.rcv_buf": f"{max(1, round(window)) * MSS_BYTES}B",
    }


def _steady_at_s(rtt_s: float) -> float:
    """A handover time after the initial slow start of a window-capped flow has settled."""
    return 3.0 + 40.0 * rtt_s


def window_quantiles(bdp: float, w_max: float, n: int, beta: float = 0.5) -> list[float]:
    """Windows (segments) at the mid-quantiles ``(i + 1/2)/n`` of the time the AIMD sawtooth
    ``[beta·w_max, w_max]`` spends at each window: density ∝ max(1, W/bdp), the assumption of
    :func:`celltcp.models.buffer_overrun_probability` (the RTT grows with the queue)."""

    def mass(w: float) -> float:  # antiderivative of max(1, w/bdp)
        return w if w <= bdp else (w * w + bdp * bdp) / (2 * bdp)

    low, top = mass(beta * w_max), mass(w_max)
    out = []
    for i in range(n):
        m = low + (i + 0.5) / n * (top - low)
        out.append(m if m <= bdp else math.sqrt(2 * bdp * m - bdp * bdp))
    return out


# -- running ----------------------------------------------------------------------------------


def _scenario_file() -> Path:
    """``002/handover-link.toml`` of the library shipped in the package
    (:mod:`celltcp.examples`)."""
    return examples.path("002/handover-link")


class Runner(StoreRunner):
    """Runs lists of override points through :func:`celltcp.sweep` into one results store and
    reads the series kept there (:class:`StoreRunner`)."""

    temporary_prefix = "celltcp-002-"

    def run(
        self,
        points: Sequence[dict[str, Any]],
        name: str,
        metrics: Sequence[str] = (_DROPS,),
        series: Sequence[str] = (),
    ) -> pd.DataFrame:
        """One row per point, in order; ReproductionError if a run failed."""
        import celltcp

        spec: dict[str, Any] = {
            "scenario": str(_scenario_file()),
            "name": name,
            "seed": MASTER_SEED,
            "runs": 1,
            "metrics": list(metrics),
            "points": list(points),
        }
        if series:
            spec["series"] = list(series)
        frame = celltcp.sweep.sweep(
            spec, workers=self.options.workers, store=self.store, progress=self.options.progress
        )
        failed = frame[frame["status"] != "ok"]
        if len(failed):
            first = failed.iloc[0]["error"]
            raise ReproductionError(f"{name}: {len(failed)} runs failed (first: {first})")
        self.count(name, len(frame))
        return frame.sort_values("point").reset_index(drop=True)

    def series(self, frame: pd.DataFrame, name: str) -> list[pd.DataFrame]:
        """The kept series ``name`` of every run of ``frame``, in its order (one store open)."""
        from celltcp.sweep import Store

        with Store.open(self.store, read_only=True) as store:
            return [
                store.read_series(key, int(run), name)
                for key, run in zip(frame["key"], frame["run"], strict=True)
            ]

    def handovers(self, frame: pd.DataFrame) -> list[pd.Series]:
        """Each run's only row of the per-handover analytics."""
        out = []
        for rows in self.series(frame, "handovers"):
            if len(rows) != 1:
                raise ReproductionError(f"expected one handover row, found {len(rows)}")
            out.append(rows.iloc[0])
        return out


# -- validation 1: recovery time after a discard ----------------------------------------------


@dataclass(frozen=True)
class RecoveryCell:
    """One point of the recovery grid: access rate, base RTT, ``case`` "best" (window 2·BDP at
    the handover) or "worst" (window = BDP), and ``delayed_ack``: delayed ACKs (40 ms, every
    second segment) without byte counting, the seed's "most typical" TCP (g = 1.5, a = 1/2),
    or else every segment acknowledged (g = 2, a = 1)."""

    rate_bps: float
    rtt_s: float
    case: str
    delayed_ack: bool

    @property
    def bdp_segments(self) -> float:
        return bdp_segments(self.rate_bps, self.rtt_s)

    @property
    def model_s(self) -> float:
        """The model's time from the timeout to cwnd = 0.9·BDP, seconds."""
        return handover_recovery_time_s(
            self.rate_bps,
            self.rtt_s,
            PACKET_BYTES,
            case=self.case,
            delayed_ack=self.delayed_ack,
            abc_limit=None,
            target_fraction=RECOVERY_FRACTION,
        )

    @property
    def rounds_s(self) -> float:
        """The same time with the window stepped ACK by ACK in whole rounds, from the flight the
        forced window leaves at the timeout (docs/models.md, "Recovery in whole rounds")."""
        return handover_recovery_rounds_s(
            self.rate_bps,
            self.rtt_s,
            PACKET_BYTES,
            case=self.case,
            delayed_ack=self.delayed_ack,
            target_fraction=RECOVERY_FRACTION,
            flight_segments=self.window_segments,
        )

    @property
    def window_segments(self) -> int:
        """The receive window that forces the case: 2·BDP or BDP, in whole segments."""
        return max(1, round((2.0 if self.case == "best" else 1.0) * self.bdp_segments))

    @property
    def interruption_s(self) -> float:
        """Longer than one RTT, so that every packet the ACK clock releases during it is
        discarded and the sender times out; shorter than the RTO, so that the first RTO
        retransmission is not lost in it (the timer's backoff would enter the ramp)."""
        return self.rtt_s + 0.050

    def handover_at_s(self, phase: int) -> float:
        return _steady_at_s(self.rtt_s) + phase * 0.37 * self.rtt_s

    def overrides(self, phase: int) -> dict[str, Any]:
        at = self.handover_at_s(phase)
        end = at + self.interruption_s + RTO_ALLOWANCE_S + 1.6 * self.model_s + 2.0
        return {
            **path_overrides(self.rate_bps, self.rtt_s),
            # The queue holds the whole window: nothing is lost before the handover.
            "links.access.queue": _queue(f"{self.window_segments + 10}p"),
            "flows.bulk.tcp.rcv_buf": f"{self.window_segments * MSS_BYTES}B",
            "flows.bulk.tcp.delayed_ack": "40ms" if self.delayed_ack else False,
            "flows.bulk.tcp.abc": 0,
            "events": handover_event(at, self.interruption_s, "discard"),
            "simulation.duration": _ns(end),
            "trace.tcp": ["cwnd"],
        }


def recovery_cells(
    rates: Sequence[float],
    rtts: Sequence[float],
    settings: Sequence[tuple[str, bool]],
    max_model_s: float = math.inf,
) -> tuple[list[RecoveryCell], list[tuple[float, float]]]:
    """The grid's cells, and the (rate, RTT) pairs skipped for a BDP below 4 segments."""
    cells, skipped = [], []
    for rate in rates:
        for rtt in rtts:
            if bdp_segments(rate, rtt) < MIN_BDP_SEGMENTS:
                skipped.append((rate, rtt))
                continue
            cells += [
                c
                for c in (RecoveryCell(rate, rtt, case, d) for case, d in settings)
                if c.model_s <= max_model_s
            ]
    return cells, skipped


def _cwnd_ramp_s(tcp: pd.DataFrame, first_rto_s: float, target_bytes: float) -> float:
    """Time from the first RTO to the first cwnd ≥ target after the loss window was set."""
    cwnd = tcp[(tcp["var"] == "cwnd") & (tcp["time_s"] >= first_rto_s)]
    values, times = cwnd["value"].to_numpy(), cwnd["time_s"].to_numpy()
    reset = np.flatnonzero(values <= 2 * MSS_BYTES)
    if reset.size == 0:
        return math.nan
    above = np.flatnonzero(values[reset[0] :] >= target_bytes)
    return float(times[reset[0] + above[0]] - first_rto_s) if above.size else math.nan


def run_recovery(runner: Runner, cells: Sequence[RecoveryCell], phases: int) -> pd.DataFrame:
    """One row per (cell, phase): the outcome, the analytics' ramp_time_s, the sender's cwnd
    ramp (from the first RTO to 0.9·BDP, ``cwnd_ramp_s``, and to the whole BDP,
    ``cwnd_full_s``), the model, and when the handover, the first RTO retransmission and the
    attach happened."""
    jobs = [(c, p) for c in cells for p in range(phases)]
    frame = runner.run(
        [c.overrides(p) for c, p in jobs], "002 recovery", series=("handovers", "tcp")
    )
    rows = []
    for (cell, phase), h, tcp in zip(
        jobs, runner.handovers(frame), runner.series(frame, "tcp"), strict=True
    ):
        target = RECOVERY_FRACTION * cell.bdp_segments * MSS_BYTES
        rows.append(
            {
                "handover_s": cell.handover_at_s(phase),
                "cwnd_full_s": _cwnd_ramp_s(tcp, h["first_rto_s"], cell.bdp_segments * MSS_BYTES),
                "rate_bps": cell.rate_bps,
                "rtt_s": cell.rtt_s,
                "case": cell.case,
                "delayed_ack": cell.delayed_ack,
                "phase": phase,
                "bdp_segments": cell.bdp_segments,
                "model_s": cell.model_s,
                "rounds_s": cell.rounds_s,
                "outcome": h["outcome"],
                "ramp_s": h["ramp_time_s"],
                "cwnd_ramp_s": _cwnd_ramp_s(tcp, h["first_rto_s"], target),
                "first_rto_s": h["first_rto_s"],
                "attach_s": h["attach_s"],
            }
        )
    return pd.DataFrame(rows)


def recovery_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per cell: mean ± 95 % half-width of the ramp over the runs that recovered, the ratios
    sim/model, the offset (ramp − model) in RTTs, and how many runs timed out and recovered."""
    out = []
    keys = ["rate_bps", "rtt_s", "case", "delayed_ack"]
    for key, g in rows.groupby(keys, sort=False):
        ramp, half = mean_ci(g["ramp_s"])
        cwnd, model = float(g["cwnd_ramp_s"].mean()), float(g["model_s"].iloc[0])
        rounds = float(g["rounds_s"].iloc[0])
        out.append(
            {
                **dict(zip(keys, key, strict=True)),
                "bdp_segments": g["bdp_segments"].iloc[0],
                "model_s": model,
                "ramp_s": ramp,
                "ramp_half_s": half,
                "ratio": ramp / model,
                "cwnd_ramp_s": cwnd,
                "cwnd_ratio": cwnd / model,
                "offset_rtts": (ramp - model) / key[1],
                "rounds_s": rounds,
                "rounds_ratio": ramp / rounds,
                "cwnd_rounds_ratio": cwnd / rounds,
                "timeouts": int((g["outcome"] == "timeout").sum()),
                "runs": len(g),
                "recovered": int(g["ramp_s"].notna().sum()),
            }
        )
    return pd.DataFrame(out)


# -- buffer overrun with buffer transfer ------------------------------------------------------


def _loss_events_s(tcp: pd.DataFrame) -> np.ndarray:
    """Times the sender entered fast recovery (CcState 2) or RTO recovery (3)."""
    cc = tcp[tcp["var"] == "cc_state"]
    state, times = cc["value"].to_numpy(), cc["time_s"].to_numpy()
    return np.asarray(times[1:][(state[1:] >= 2) & (state[1:] != state[:-1])])


def sawtooth_period(
    runner: Runner, base: dict[str, Any], rate_bps: float, rtt_s: float, buffer_bytes: float
) -> tuple[float, float]:
    """Start and end (s) of the second loss-to-loss cycle of the run ``base`` without a
    handover: the first whole AIMD cycle after the initial slow start's overshoot. The link
    model draws no random numbers, so runs with a handover repeat this run until then."""
    # A cycle: half the peak window BDP + B at 1/2 segment per RTT (delayed ACKs without byte
    # counting, the scenario's TCP), at the cycle's mean RTT.
    bdp = bdp_segments(rate_bps, rtt_s)
    w_max = bdp + buffer_bytes / PACKET_BYTES
    cycle = w_max * rtt_s * max(1.0, 0.75 * w_max / bdp)
    duration = 10.0 + 4.0 * cycle
    point = {**base, "events": [], "simulation.duration": _ns(duration), "trace.tcp": ["cc_state"]}
    frame = runner.run([point], "002 sawtooth", series=("tcp",))
    losses = _loss_events_s(runner.series(frame, "tcp")[0])
    if len(losses) < 3:
        raise ReproductionError(
            f"no steady sawtooth at {rate_bps / 1e6:g} Mb/s, {rtt_s * 1e3:g} ms, buffer "
            f"{buffer_bytes:g} B: {len(losses)} loss events in {duration:.0f} s"
        )
    return float(losses[1]), float(losses[2])


def _phases(start_s: float, end_s: float, n: int) -> list[float]:
    return [start_s + (i + 0.5) / n * (end_s - start_s) for i in range(n)]


def count_overruns(
    runner: Runner, handovers: Sequence[tuple[dict[str, Any], float, float]], name: str
) -> list[int]:
    """Queue drops during each (base overrides, handover time, interruption) with buffer
    transfer: the drops of a run ending 1 ms after the interruption less those of the same run
    without the handover ending at the handover (the two are identical until then)."""
    points = []
    for base, at, interruption in handovers:
        points.append({**base, "events": [], "simulation.duration": _ns(at)})
        points.append(
            {
                **base,
                "events": handover_event(at, interruption, "forward"),
                "simulation.duration": _ns(at + interruption + 0.001),
            }
        )
    drops = runner.run(points, name)[_DROPS].to_numpy(dtype=float)
    return [int(drops[2 * i + 1] - drops[2 * i]) for i in range(len(handovers))]


def _overrun_row(drops: Sequence[int], **point: Any) -> dict[str, Any]:
    p = point
    k = sum(d > 0 for d in drops)
    model = buffer_overrun_probability(
        p["buffer_bytes"],
        p["rate_bps"],
        p["rtt_s"],
        p["interruption_s"],
        PACKET_BYTES,
        p["extra_bytes"],
    )
    return {**p, "handovers": len(drops), "overruns": k, "p_sim": k / len(drops), "p_model": model}


def sawtooth_overrun(
    runner: Runner,
    rate_bps: float,
    rtt_s: float,
    buffer_bytes: int,
    interruptions: Sequence[float],
    phases: int,
) -> pd.DataFrame:
    """The real sawtooth of a drop-tail queue of ``buffer_bytes`` without extra buffer: per
    interruption, the share of ``phases`` handovers spread over one cycle that overflow the
    queue, beside the model's probability."""
    base = {**path_overrides(rate_bps, rtt_s), "links.access.queue": _queue(f"{buffer_bytes}B")}
    times = _phases(*sawtooth_period(runner, base, rate_bps, rtt_s, buffer_bytes), phases)
    drops = count_overruns(
        runner, [(base, at, t) for t in interruptions for at in times], "002 overrun, sawtooth"
    )
    return pd.DataFrame(
        [
            _overrun_row(
                drops[i * phases : (i + 1) * phases],
                method="sawtooth",
                rate_bps=rate_bps,
                rtt_s=rtt_s,
                buffer_bytes=buffer_bytes,
                interruption_s=t,
                extra_bytes=0.0,
            )
            for i, t in enumerate(interruptions)
        ]
    )


def emulated_overrun(
    runner: Runner,
    rate_bps: float,
    rtt_s: float,
    buffer_bytes: int,
    interruptions: Sequence[float],
    extras: Sequence[float],
    windows: int,
) -> pd.DataFrame:
    """Fig. 6: per interruption and extra buffer E (a fraction of the overrun-free amount), the
    share of ``windows`` sawtooth windows (:func:`window_quantiles`, W_max = BDP + buffer) whose
    handover overflows a queue of buffer + E, beside the model's probability."""
    bdp = bdp_segments(rate_bps, rtt_s)
    ws = window_quantiles(bdp, bdp + buffer_bytes / PACKET_BYTES, windows)
    at = _steady_at_s(rtt_s)
    keys = [
        (t, round(f * overrun_free_extra_buffer_bytes(rate_bps, rtt_s, t)))
        for t in interruptions
        for f in extras
    ]
    drops = count_overruns(
        runner,
        [(_capped(rate_bps, rtt_s, w, buffer_bytes + e), at, t) for t, e in keys for w in ws],
        "002 overrun, Fig. 6",
    )
    return pd.DataFrame(
        [
            _overrun_row(
                drops[i * windows : (i + 1) * windows],
                method="emulated",
                rate_bps=rate_bps,
                rtt_s=rtt_s,
                buffer_bytes=buffer_bytes,
                interruption_s=t,
                extra_bytes=float(e),
            )
            for i, (t, e) in enumerate(keys)
        ]
    )


def sized_buffer_runs(
    runner: Runner,
    interruptions: Sequence[float],
    windows: int,
    rate_bps: float = OVERRUN_RATE_BPS,
    rtt_s: float = TESTBED_RTT_S,
    short_packets: int = 0,
) -> pd.DataFrame:
    """Handovers with buffer transfer into a queue of one BDP plus the overrun-free extra
    buffer (less ``short_packets`` packets), at ``windows`` sawtooth windows and at the peak
    W_max = 2·BDP. One row per run: the TCP outcome, retransmissions and every queue drop of
    the run."""
    buffer = round(bdp_bytes(rate_bps, rtt_s))
    bdp = bdp_segments(rate_bps, rtt_s)
    w_max = bdp + buffer / PACKET_BYTES
    ws = [*window_quantiles(bdp, w_max, windows), math.floor(w_max)]
    at = _steady_at_s(rtt_s)
    jobs = []
    for t in interruptions:
        extra = overrun_free_extra_buffer_bytes(rate_bps, rtt_s, t)
        queue = int(buffer + extra - short_packets * PACKET_BYTES)
        jobs += [
            (
                t,
                round(w),
                queue,
                {
                    **_capped(rate_bps, rtt_s, w, queue),
                    "events": handover_event(at, t, "forward"),
                    "simulation.duration": _ns(at + t + 3.0),
                },
            )
            for w in ws
        ]
    frame = runner.run([j[3] for j in jobs], "002 overrun-free buffer", series=("handovers",))
    rows = []
    for (t, w, queue, _), (_, run_row), h in zip(
        jobs, frame.iterrows(), runner.handovers(frame), strict=True
    ):
        rows.append(
            {
                "interruption_s": t,
                "window_segments": w,
                "queue_bytes": queue,
                "outcome": h["outcome"],
                "rto_retransmissions": int(h["rto_retransmissions"]),
                "fast_retransmissions": int(h["fast_retransmissions"]),
                "drops": int(run_row[_DROPS]),
            }
        )
    return pd.DataFrame(rows)


# -- the testbed table ------------------------------------------------------------------------


def _horizon_s(rate_bps: float) -> float:
    """How long after the handover goodput is compared: the worst-case recovery with delayed
    ACKs at the testbed's RTT, and 5 s more."""
    return 5.0 + 1.2 * RecoveryCell(rate_bps, TESTBED_RTT_S, "worst", True).model_s


def testbed_runs(
    runner: Runner, rates: Sequence[float], interruptions: Sequence[float], phases: int
) -> pd.DataFrame:
    """The testbed at RTT 50 ms with a queue of one BDP: per rate, interruption and variant,
    ``phases`` handovers. Variants: ``discard`` and ``forward`` at phases of the real sawtooth,
    and ``forward + extra`` (queue BDP + overrun-free extra, window capped at sawtooth
    windows). One row per run: outcome, retransmissions, the run's queue drops, and the goodput
    lost over the horizon against the same run without the handover (bytes, and seconds of the
    link's payload rate)."""
    jobs, labels = [], []
    for rate in rates:
        buffer, horizon = round(bdp_bytes(rate, TESTBED_RTT_S)), _horizon_s(rate)
        base = {**path_overrides(rate, TESTBED_RTT_S), "links.access.queue": _queue(f"{buffer}B")}
        cycle = sawtooth_period(runner, base, rate, TESTBED_RTT_S, buffer)
        bdp = bdp_segments(rate, TESTBED_RTT_S)
        ws = window_quantiles(bdp, bdp + buffer / PACKET_BYTES, phases)
        for t in interruptions:
            extra = overrun_free_extra_buffer_bytes(rate, TESTBED_RTT_S, t)
            for i, at in enumerate(_phases(*cycle, phases)):
                for policy in ("discard", "forward"):
                    jobs.append((base, at, t, policy, horizon))
                    labels.append((rate, t, policy, i))
            for i, w in enumerate(ws):
                capped = _capped(rate, TESTBED_RTT_S, w, buffer + extra)
                jobs.append((capped, _steady_at_s(TESTBED_RTT_S), t, "forward", horizon))
                labels.append((rate, t, "forward + extra", i))
    points = []
    for base, at, t, policy, horizon in jobs:
        end = {"simulation.duration": _ns(at + horizon)}
        points += [
            {**base, **end, "events": []},
            {**base, **end, "events": handover_event(at, t, policy)},
        ]
    frame = runner.run(points, "002 testbed", metrics=(_DROPS, _DELIVERED), series=("handovers",))
    handovers = runner.handovers(frame.iloc[1::2])
    rows = []
    for j, (rate, t, variant, i) in enumerate(labels):
        baseline, run_row, h = frame.iloc[2 * j], frame.iloc[2 * j + 1], handovers[j]
        lost = float(baseline[_DELIVERED]) - float(run_row[_DELIVERED])
        rows.append(
            {
                "rate_bps": rate,
                "interruption_s": t,
                "variant": variant,
                "phase": i,
                "outcome": h["outcome"],
                "rto_retransmissions": int(h["rto_retransmissions"]),
                "fast_retransmissions": int(h["fast_retransmissions"]),
                "drops": int(run_row[_DROPS]),
                "lost_bytes": lost,
                "lost_s": lost * 8 / (rate * MSS_BYTES / PACKET_BYTES),
            }
        )
    return pd.DataFrame(rows)


# -- episodes: Fig. 1, the 40 ms ablation, repeated handovers, slow start -------------------


#: Fig. 1 (§4.3): 10 Mb/s at the testbed's RTT, a window above 2·BDP at the handover (the
#: recovery grid's best case, delayed ACKs as in the scenario), no buffer transfer.
FIG1_CELL = RecoveryCell(10e6, TESTBED_RTT_S, "best", True)
#: The RTO floors Fig. 1 is run with: the scenario's (RFC 6298) and Linux's.
FIG1_MIN_RTOS_S = (1.0, 0.2)
#: Repeated handovers: spacing (s) and interruption (s) of a train of discards; the
#: interruption is the testbed's second, the shortest one at or above the RTT.
TRAIN_SPACING_S = 2.0
TRAIN_INTERRUPTION_S = 0.100
#: A handover during the initial slow start: interruption as the trains'.
SLOW_START_INTERRUPTION_S = 0.100


def _series_of(tcp: pd.DataFrame, var: str) -> tuple[np.ndarray, np.ndarray]:
    sel = tcp[tcp["var"] == var]
    return sel["time_s"].to_numpy(dtype=float), sel["value"].to_numpy(dtype=float)


def _in_effect(times: np.ndarray, values: np.ndarray, t: float) -> float:
    """The value in effect just after ``t`` (a variable is traced when it changes; 1 µs
    absorbs the rounding of a time read back in seconds). NaN before the first sample."""
    i = np.flatnonzero(times <= t + 1e-6)
    return float(values[i[-1]]) if i.size else math.nan


def _first_delivery_after_s(tcp: pd.DataFrame, t: float) -> float:
    """When the receiver's in-order delivery first grows after ``t`` (the end of a discarding
    interruption: the few packets already on the access link's wire at its start arrive
    during it)."""
    times, values = _series_of(tcp, "delivered")
    before = values[times <= t]
    level = before[-1] if before.size else 0.0
    later = np.flatnonzero((times > t) & (values > level))
    return float(times[later[0]]) if later.size else math.nan


def _episode(h: pd.Series, tcp: pd.DataFrame, at_s: float, bdp: float) -> dict[str, Any]:
    """The sender's side of one handover: the ssthresh its first RTO set, and the times from
    the RTO and from the handover to cwnd ≥ 0.9·BDP (``bdp`` in segments)."""
    rto = float(h["first_rto_s"]) if pd.notna(h["first_rto_s"]) else math.nan
    target = RECOVERY_FRACTION * bdp * MSS_BYTES
    times, values = _series_of(tcp, "ssthresh")
    ssthresh = _in_effect(times, values, rto) if math.isfinite(rto) else math.nan
    ramp = _cwnd_ramp_s(tcp, rto, target) if math.isfinite(rto) else math.nan
    return {
        "outcome": h["outcome"],
        "rto_retransmissions": int(h["rto_retransmissions"]),
        "fast_retransmissions": int(h["fast_retransmissions"]),
        "first_rto_s": rto,
        "ssthresh_segments": ssthresh / MSS_BYTES,
        "slow_start_through": bool(ssthresh >= target) if math.isfinite(ssthresh) else False,
        "cwnd_ramp_s": ramp,
        "cwnd_back_s": rto - at_s + ramp,
        "recovery_time_s": float(h["recovery_time_s"])
        if pd.notna(h["recovery_time_s"])
        else math.nan,
    }


def fig1_runs(
    runner: Runner, phases: int, min_rtos_s: Sequence[float] = FIG1_MIN_RTOS_S
) -> pd.DataFrame:
    """Fig. 1: 10 Mb/s, RTT 50 ms, a window of 2·BDP at the handover (the receive buffer), no
    buffer transfer, an interruption of RTT + 50 ms, per RTO floor ``phases`` handover times.
    One row per run: the outcome, the time the receiver gets nothing (from the handover to its
    first in-order delivery after it), the analytics' recovery_time_s (from the handover to the
    goodput back at 90 %), and the sender's side (:func:`_episode`)."""
    cell = FIG1_CELL
    jobs = [(m, p) for m in min_rtos_s for p in range(phases)]
    points = [
        {
            **cell.overrides(p),
            "flows.bulk.tcp.min_rto": _ns(m),
            "trace.tcp": ["cwnd", "ssthresh", "delivered"],
        }
        for m, p in jobs
    ]
    frame = runner.run(points, "002 Fig. 1", series=("handovers", "tcp"))
    rows = []
    for (m, p), h, tcp in zip(
        jobs, runner.handovers(frame), runner.series(frame, "tcp"), strict=True
    ):
        at = cell.handover_at_s(p)
        end = at + cell.interruption_s
        rows.append(
            {
                "min_rto_s": m,
                "phase": p,
                "handover_s": at,
                "zero_s": _first_delivery_after_s(tcp, end) - at,
                **_episode(h, tcp, at, cell.bdp_segments),
            }
        )
    return pd.DataFrame(rows)


def ablation_runs(runner: Runner, variants: Sequence[str], phases: int) -> pd.DataFrame:
    """The testbed's 40 ms discard at 10 Mb/s with one setting changed at a time
    (:data:`ABLATION`): per variant, ``phases`` handovers spread over one cycle of that
    variant's own sawtooth. One row per run: the outcome and the retransmissions."""
    jobs = []
    for name in variants:
        v = ABLATION[name]
        base = v.base()
        cycle = sawtooth_period(runner, base, OVERRUN_RATE_BPS, v.rtt_s, v.buffer_bytes)
        for i, at in enumerate(_phases(*cycle, phases)):
            event = handover_event(at, v.interruption_s, "discard")
            event[0]["direction"] = v.direction
            jobs.append(
                (
                    name,
                    i,
                    {
                        **base,
                        "events": event,
                        "simulation.duration": _ns(at + v.interruption_s + 4.0),
                    },
                )
            )
    frame = runner.run([j[2] for j in jobs], "002 ablation", series=("handovers",))
    return pd.DataFrame(
        [
            {
                "variant": name,
                "phase": i,
                "outcome": h["outcome"],
                "rto_retransmissions": int(h["rto_retransmissions"]),
                "fast_retransmissions": int(h["fast_retransmissions"]),
                "dropped": int(h["dropped"]),
            }
            for (name, i, _), h in zip(jobs, runner.handovers(frame), strict=True)
        ]
    )


def train_runs(runner: Runner, phases: int, handovers: int) -> pd.DataFrame:
    """Repeated handovers at 10 Mb/s, RTT 50 ms, queue one BDP: per phase of the sawtooth, one
    discard (``single``), ``handovers`` discards :data:`TRAIN_SPACING_S` apart (``discard``),
    and as many with buffer transfer into a queue of one BDP (``forward``) and into one BDP
    plus the overrun-free extra buffer with the window capped at the sawtooth's windows
    (``forward + extra``). One row per handover: its index in the train and its episode
    (:func:`_episode`; for the last of a train the ramp has no later handover to cut it)."""
    rate, rtt, t = OVERRUN_RATE_BPS, TESTBED_RTT_S, TRAIN_INTERRUPTION_S
    buffer = round(bdp_bytes(rate, rtt))
    bdp = bdp_segments(rate, rtt)
    base = {**path_overrides(rate, rtt), "links.access.queue": _queue(f"{buffer}B")}
    starts = _phases(*sawtooth_period(runner, base, rate, rtt, buffer), phases)
    windows = window_quantiles(bdp, bdp + buffer / PACKET_BYTES, phases)
    extra = overrun_free_extra_buffer_bytes(rate, rtt, t)
    tail = (
        TRAIN_INTERRUPTION_S
        + RTO_ALLOWANCE_S
        + 1.6 * RecoveryCell(rate, rtt, "worst", True).model_s
        + 4.0
    )
    jobs = []
    for i, at in enumerate(starts):
        for variant, count, policy, overrides, start in (
            ("single", 1, "discard", base, at),
            ("discard", handovers, "discard", base, at),
            ("forward", handovers, "forward", base, at),
            (
                "forward + extra",
                handovers,
                "forward",
                _capped(rate, rtt, windows[i], buffer + extra),
                _steady_at_s(rtt),
            ),
        ):
            times = [start + k * TRAIN_SPACING_S for k in range(count)]
            events = [e for s in times for e in handover_event(s, t, policy)]
            jobs.append(
                (
                    variant,
                    i,
                    times,
                    {
                        **overrides,
                        "events": events,
                        "simulation.duration": _ns(times[-1] + tail),
                        "trace.tcp": ["cwnd", "ssthresh"],
                    },
                )
            )
    frame = runner.run([j[3] for j in jobs], "002 repeated handovers", series=("handovers", "tcp"))
    rows = []
    for (variant, i, times, _), hs, tcp in zip(
        jobs, runner.series(frame, "handovers"), runner.series(frame, "tcp"), strict=True
    ):
        if len(hs) != len(times):
            raise ReproductionError(f"expected {len(times)} handover rows, found {len(hs)}")
        hs = hs.sort_values("decision_s").reset_index(drop=True)
        for k, (at, (_, h)) in enumerate(zip(times, hs.iterrows(), strict=True)):
            row = _episode(h, tcp, at, bdp)
            nxt = times[k + 1] if k + 1 < len(times) else math.inf
            if not row["cwnd_back_s"] + at < nxt:
                row["cwnd_ramp_s"] = row["cwnd_back_s"] = math.nan
            rows.append(
                {
                    "variant": variant,
                    "phase": i,
                    "index": k,
                    "count": len(times),
                    "handover_s": at,
                    **row,
                }
            )
    return pd.DataFrame(rows)


def slow_start_runs(runner: Runner, phases: int) -> tuple[pd.DataFrame, tuple[float, float]]:
    """A discard during the initial slow start at 10 Mb/s, RTT 50 ms, queue one BDP: handovers
    spread from the first window to the slow start's first loss (found in a run without a
    handover). One row per run (:func:`_episode`, and the cwnd at the handover), and the slow
    start's (start, end) in seconds."""
    rate, rtt, t = OVERRUN_RATE_BPS, TESTBED_RTT_S, SLOW_START_INTERRUPTION_S
    buffer = round(bdp_bytes(rate, rtt))
    bdp = bdp_segments(rate, rtt)
    base = {
        **path_overrides(rate, rtt),
        "links.access.queue": _queue(f"{buffer}B"),
        "trace.tcp": ["cwnd", "ssthresh", "cc_state"],
    }
    probe = runner.run(
        [{**base, "events": [], "simulation.duration": _ns(5.0)}],
        "002 slow start, no handover",
        series=("tcp",),
    )
    tcp = runner.series(probe, "tcp")[0]
    # cc_state is traced on changes: its first sample is the slow start's first loss.
    state_t, state = _series_of(tcp, "cc_state")
    losses = state_t[state >= 2]
    cwnd_t, _ = _series_of(tcp, "cwnd")
    if not (losses.size and cwnd_t.size):
        raise ReproductionError("the initial slow start did not end in a loss within 5 s")
    span = (float(cwnd_t[0]), float(losses[0]))
    tail = t + RTO_ALLOWANCE_S + 1.6 * RecoveryCell(rate, rtt, "worst", True).model_s + 4.0
    times = _phases(*span, phases)
    frame = runner.run(
        [
            {
                **base,
                "events": handover_event(at, t, "discard"),
                "simulation.duration": _ns(at + tail),
            }
            for at in times
        ],
        "002 slow start",
        series=("handovers", "tcp"),
    )
    rows = []
    for at, h, tcp in zip(times, runner.handovers(frame), runner.series(frame, "tcp"), strict=True):
        ct, cv = _series_of(tcp, "cwnd")
        before = cv[ct <= at]
        rows.append(
            {
                "handover_s": at,
                "cwnd_at_handover_segments": float(before[-1]) / MSS_BYTES
                if before.size
                else math.nan,
                **_episode(h, tcp, at, bdp),
            }
        )
    return pd.DataFrame(rows), span


# -- the study -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Results:
    """Everything one reproduction measured (frames as returned by the functions above)."""

    plan: Plan
    cells: int
    skipped: list[tuple[float, float]]
    recovery: pd.DataFrame
    testbed: pd.DataFrame
    sized: pd.DataFrame
    short: pd.DataFrame
    sawtooth: list[pd.DataFrame]
    fig6: pd.DataFrame
    fig6_sawtooth: pd.DataFrame | None
    recovery_runs: pd.DataFrame
    fig1: pd.DataFrame
    ablation: pd.DataFrame
    trains: pd.DataFrame
    slow_start: pd.DataFrame
    slow_start_span: tuple[float, float]
    wall_s: float
    #: Runs per sweep (stored ones included).
    runs: dict[str, int] = field(default_factory=dict)


def run(options: Options) -> Document:
    """Runs the study and returns the report (nothing is written here but the store)."""
    from celltcp.reproduce.seed002_report import report

    plan = QUICK if options.quick else FULL
    started = time.perf_counter()
    bdp = round(bdp_bytes(OVERRUN_RATE_BPS, TESTBED_RTT_S))
    with Runner.open(options) as runner:
        cells, skipped = recovery_cells(
            plan.recovery_rates, RTTS_S, plan.recovery_settings, plan.max_model_s
        )
        recovery_runs = run_recovery(runner, cells, plan.recovery_phases)
        recovery = recovery_table(recovery_runs)
        testbed = testbed_runs(
            runner, plan.testbed_rates, plan.testbed_interruptions, plan.testbed_phases
        )
        sized = sized_buffer_runs(runner, INTERRUPTIONS_S, plan.sized_windows)
        short = sized_buffer_runs(runner, INTERRUPTIONS_S, 0, short_packets=2)
        sawtooth = [
            sawtooth_overrun(
                runner,
                OVERRUN_RATE_BPS,
                TESTBED_RTT_S,
                round(k * bdp),
                plan.sawtooth_interruptions,
                plan.sawtooth_phases,
            )
            for k in plan.sawtooth_buffers
        ]
        fig6 = emulated_overrun(
            runner,
            OVERRUN_RATE_BPS,
            FIG6_RTT_S,
            FIG6_BUFFER_BYTES,
            plan.fig6_interruptions,
            plan.fig6_extras,
            plan.fig6_windows,
        )
        fig6_sawtooth = None
        if plan.fig6_sawtooth_phases:
            fig6_sawtooth = sawtooth_overrun(
                runner,
                OVERRUN_RATE_BPS,
                FIG6_RTT_S,
                FIG6_BUFFER_BYTES,
                plan.fig6_interruptions,
                plan.fig6_sawtooth_phases,
            )
        fig1 = fig1_runs(runner, plan.fig1_phases)
        ablation = ablation_runs(runner, plan.ablation_variants, plan.ablation_phases)
        trains = train_runs(runner, plan.train_phases, plan.train_handovers)
        slow_start, span = slow_start_runs(runner, plan.slow_start_phases)
    results = Results(
        plan,
        len(cells),
        skipped,
        recovery,
        testbed,
        sized,
        short,
        sawtooth,
        fig6,
        fig6_sawtooth,
        recovery_runs,
        fig1,
        ablation,
        trains,
        slow_start,
        span,
        time.perf_counter() - started,
        dict(runner.runs),
    )
    return report(results, options)
