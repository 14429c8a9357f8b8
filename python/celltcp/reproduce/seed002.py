"""Seed `002_…` (a 3GPP contribution on TCP and LTE-LTE handover): recovery time after a
handover without buffer transfer, and buffer overrun with buffer transfer.

Everything runs on ``celltcp/examples/002/handover-link.toml``
(server — wire — base station — access
link — UE, one NewReno + SACK download, one link handover) through the study engine
(:mod:`celltcp.study`), and is compared with :mod:`celltcp.models.handover`:

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
checks that assumption at E = 0.

The study is a declaration on :mod:`celltcp.study`: this module declares its sweeps
(:func:`declare`, named as the run counts of ``claims.json`` name them) and the derived frames
the claims, tables and figures read (one row per run or per handover, with the set-up it was
run at); :mod:`celltcp.reproduce.seed002_report` declares the claims with their tests, the
tables, the figures and the report's layout. Two probes come first, all of whose points are
known in advance: ``002 sawtooth`` (one run without a handover per set-up whose sawtooth the
later sweeps place handovers on) and ``002 slow start, no handover``. The sweeps whose
handover times are phases of a sawtooth cycle or of the initial slow start (``002 testbed``,
``002 overrun, sawtooth``, ``002 ablation``, ``002 repeated handovers``, ``002 slow start``)
compute their points from them (:class:`celltcp.study.After`); the others are explicit points.
docs/seed-002.md has the mapping and the figures.

Units: rates bit/s, times s, sizes bytes, windows in 1500-byte packets (segments).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from celltcp.models import (
    bdp_bytes,
    buffer_overrun_probability,
    handover_recovery_rounds_s,
    handover_recovery_time_s,
    overrun_free_extra_buffer_bytes,
)
from celltcp.reproduce.document import Document, mean_ci
from celltcp.reproduce.registry import Options, ReproductionError
from celltcp.study import After, Derived, Metric, Replications, Scenario, Sweep

if TYPE_CHECKING:
    from pathlib import Path

    from celltcp.study import Results, Study

__all__ = [
    "ABLATION",
    "ABLATION_SWEEP",
    "ALIASES",
    "DERIVED",
    "FIG1",
    "FIG1_CELL",
    "FIG6",
    "FULL",
    "NAME",
    "OVERRUN_SAWTOOTH",
    "QUICK",
    "RECOVERY",
    "SAWTOOTH",
    "SIZED",
    "SLOW_START",
    "SLOW_START_PROBE_SWEEP",
    "SPAN",
    "SUMMARY",
    "SWEEPS",
    "TESTBED",
    "TRAINS",
    "AblationVariant",
    "OverrunSet",
    "Plan",
    "RecoveryCell",
    "Sawtooth",
    "bdp_segments",
    "declare",
    "handover_event",
    "path_overrides",
    "plan_of",
    "recovery_cells",
    "recovery_table",
    "run",
    "sawtooth_cycles",
    "sawtooth_probes",
    "scenario_file",
    "slow_start_span",
    "study_of",
    "window_quantiles",
    "wire_delay_s",
    "with_columns",
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
    windows per interruption (``sized_interruptions``) in the overrun-free check. Episodes: ``fig1_phases`` handover
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
    #: The interruptions of the overrun-free check (default: the testbed's four).
    sized_interruptions: tuple[float, ...] = INTERRUPTIONS_S
    #: The recovery cells in place of the grid (a test of a few cells); None: the grid.
    cells: tuple[RecoveryCell, ...] | None = None

    def recovery(self) -> tuple[list[RecoveryCell], list[tuple[float, float]]]:
        """The recovery cells of the mode, and the (rate, RTT) pairs skipped for a BDP below
        :data:`MIN_BDP_SEGMENTS` (:func:`recovery_cells`)."""
        if self.cells is not None:
            return list(self.cells), []
        return recovery_cells(self.recovery_rates, RTTS_S, self.recovery_settings, self.max_model_s)


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


def _recovery_jobs(plan: Plan) -> list[tuple[RecoveryCell, int]]:
    return [(c, p) for c in plan.recovery()[0] for p in range(plan.recovery_phases)]


def _cwnd_ramp_s(tcp: pd.DataFrame, first_rto_s: float, target_bytes: float) -> float:
    """Time from the first RTO to the first cwnd ≥ target after the loss window was set."""
    cwnd = tcp[(tcp["var"] == "cwnd") & (tcp["time_s"] >= first_rto_s)]
    values, times = cwnd["value"].to_numpy(), cwnd["time_s"].to_numpy()
    reset = np.flatnonzero(values <= 2 * MSS_BYTES)
    if reset.size == 0:
        return math.nan
    above = np.flatnonzero(values[reset[0] :] >= target_bytes)
    return float(times[reset[0] + above[0]] - first_rto_s) if above.size else math.nan


def _handovers(results: Results, rows: pd.DataFrame) -> list[pd.Series]:
    """Each run's only row of the per-handover analytics."""
    out = []
    for frame in results.read(rows, "handovers"):
        if len(frame) != 1:
            raise ReproductionError(f"expected one handover row, found {len(frame)}")
        out.append(frame.iloc[0])
    return out


def _recovery_runs(results: Results, plans: _Plans) -> pd.DataFrame:
    """One row per (cell, phase): the outcome, the analytics' ramp_time_s, the sender's cwnd
    ramp (from the first RTO to 0.9·BDP, ``cwnd_ramp_s``, and to the whole BDP,
    ``cwnd_full_s``), the model, and when the handover, the first RTO retransmission and the
    attach happened."""
    rows_in = results.frames[RECOVERY]
    jobs = _recovery_jobs(plans.of(results))
    rows = []
    for (cell, phase), h, tcp in zip(
        jobs, _handovers(results, rows_in), results.read(rows_in, "tcp"), strict=True
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


# -- the sawtooth probes ------------------------------------------------------------------------


def _series_of(tcp: pd.DataFrame, var: str) -> tuple[np.ndarray, np.ndarray]:
    sel = tcp[tcp["var"] == var]
    return sel["time_s"].to_numpy(dtype=float), sel["value"].to_numpy(dtype=float)


def _loss_events_s(tcp: pd.DataFrame) -> np.ndarray:
    """Times the sender entered fast recovery (CcState 2) or RTO recovery (3)."""
    cc = tcp[tcp["var"] == "cc_state"]
    state, times = cc["value"].to_numpy(), cc["time_s"].to_numpy()
    return np.asarray(times[1:][(state[1:] >= 2) & (state[1:] != state[:-1])])


@dataclass(frozen=True)
class Sawtooth:
    """A set-up whose loss-driven sawtooth later sweeps place handovers on: a run of ``base``
    without a handover, long enough for a few AIMD cycles, tracing ``cc_state``. The link
    model draws no random numbers, so runs with a handover repeat this run until then."""

    label: str
    rate_bps: float
    rtt_s: float
    buffer_bytes: float
    base: dict[str, Any]

    @property
    def duration_s(self) -> float:
        # A cycle: half the peak window BDP + B at 1/2 segment per RTT (delayed ACKs without
        # byte counting, the scenario's TCP), at the cycle's mean RTT.
        bdp = bdp_segments(self.rate_bps, self.rtt_s)
        w_max = bdp + self.buffer_bytes / PACKET_BYTES
        cycle = w_max * self.rtt_s * max(1.0, 0.75 * w_max / bdp)
        return 10.0 + 4.0 * cycle

    def point(self) -> dict[str, Any]:
        return {
            **self.base,
            "events": [],
            "simulation.duration": _ns(self.duration_s),
            "trace.tcp": ["cc_state"],
        }

    def cycle(self, tcp: pd.DataFrame) -> tuple[float, float]:
        """Start and end (s) of the second loss-to-loss cycle of the run's ``tcp`` series: the
        first whole AIMD cycle after the initial slow start's overshoot."""
        losses = _loss_events_s(tcp)
        if len(losses) < 3:
            raise ReproductionError(
                f"no steady sawtooth at {self.rate_bps / 1e6:g} Mb/s, {self.rtt_s * 1e3:g} ms, "
                f"buffer {self.buffer_bytes:g} B: {len(losses)} loss events in "
                f"{self.duration_s:.0f} s"
            )
        return float(losses[1]), float(losses[2])


def _queue_base(rate_bps: float, rtt_s: float, buffer_bytes: float) -> dict[str, Any]:
    return {**path_overrides(rate_bps, rtt_s), "links.access.queue": _queue(f"{buffer_bytes}B")}


def _testbed_sawtooth(rate: float) -> Sawtooth:
    buffer = round(bdp_bytes(rate, TESTBED_RTT_S))
    return Sawtooth(
        f"testbed {rate:g}", rate, TESTBED_RTT_S, buffer, _queue_base(rate, TESTBED_RTT_S, buffer)
    )


def _overrun_sawtooth(rtt_s: float, buffer_bytes: int, label: str) -> Sawtooth:
    return Sawtooth(
        label,
        OVERRUN_RATE_BPS,
        rtt_s,
        buffer_bytes,
        _queue_base(OVERRUN_RATE_BPS, rtt_s, buffer_bytes),
    )


def _ablation_sawtooth(name: str) -> Sawtooth:
    v = ABLATION[name]
    return Sawtooth(f"ablation {name}", OVERRUN_RATE_BPS, v.rtt_s, v.buffer_bytes, v.base())


def _train_sawtooth() -> Sawtooth:
    rate, rtt = OVERRUN_RATE_BPS, TESTBED_RTT_S
    buffer = round(bdp_bytes(rate, rtt))
    return Sawtooth("trains", rate, rtt, buffer, _queue_base(rate, rtt, buffer))


def _sawtooth_buffers(plan: Plan) -> list[int]:
    bdp = round(bdp_bytes(OVERRUN_RATE_BPS, TESTBED_RTT_S))
    return [round(k * bdp) for k in plan.sawtooth_buffers]


def sawtooth_probes(plan: Plan) -> list[Sawtooth]:
    """The set-ups of the sweep ``002 sawtooth``, in its run order: the testbed's per rate, the
    overrun check's per buffer (and Fig. 6's real sawtooth), the ablation's per variant, the
    trains'. Set-ups that coincide share their run."""
    return [
        *(_testbed_sawtooth(rate) for rate in plan.testbed_rates),
        *(_overrun_sawtooth(TESTBED_RTT_S, b, f"overrun {b}") for b in _sawtooth_buffers(plan)),
        *(
            [_overrun_sawtooth(FIG6_RTT_S, FIG6_BUFFER_BYTES, "fig6")]
            if plan.fig6_sawtooth_phases
            else []
        ),
        *(_ablation_sawtooth(name) for name in plan.ablation_variants),
        _train_sawtooth(),
    ]


def sawtooth_cycles(results: Results, plan: Plan) -> dict[str, tuple[float, float]]:
    """The measured cycle (start, end) of every probe of ``002 sawtooth`` run with ``plan``,
    by its label (:meth:`Sawtooth.cycle`)."""
    rows = results.frames[SAWTOOTH]
    probes = sawtooth_probes(plan)
    return {p.label: p.cycle(tcp) for p, tcp in zip(probes, results.read(rows, "tcp"), strict=True)}


def _phases(start_s: float, end_s: float, n: int) -> list[float]:
    return [start_s + (i + 0.5) / n * (end_s - start_s) for i in range(n)]


# -- buffer overrun with buffer transfer ------------------------------------------------------


@dataclass(frozen=True)
class OverrunSet:
    """Handovers with buffer transfer at one point of an overrun curve: ``handovers`` as (base
    overrides, handover time, interruption), and the point (``method``, rate, RTT, buffer,
    interruption, extra buffer) for the model's probability. Each handover is two runs: the
    run ending 1 ms after the interruption and the same run without the handover ending at the
    handover (the two are identical until then); the queue drops between them are the
    handover's."""

    point: dict[str, Any]
    handovers: tuple[tuple[dict[str, Any], float, float], ...]

    def points(self) -> list[dict[str, Any]]:
        out = []
        for base, at, interruption in self.handovers:
            out.append({**base, "events": [], "simulation.duration": _ns(at)})
            out.append(
                {
                    **base,
                    "events": handover_event(at, interruption, "forward"),
                    "simulation.duration": _ns(at + interruption + 0.001),
                }
            )
        return out

    def row(self, drops: np.ndarray) -> dict[str, Any]:
        """The share that overran, beside the model's, from the pairs' drops (in order)."""
        overran = [int(drops[2 * i + 1] - drops[2 * i]) for i in range(len(self.handovers))]
        p = self.point
        k = sum(d > 0 for d in overran)
        model = buffer_overrun_probability(
            p["buffer_bytes"],
            p["rate_bps"],
            p["rtt_s"],
            p["interruption_s"],
            PACKET_BYTES,
            p["extra_bytes"],
        )
        n = len(overran)
        return {**p, "handovers": n, "overruns": k, "p_sim": k / n, "p_model": model}


def _sawtooth_sets(
    probe: Sawtooth, cycle: tuple[float, float], interruptions: Sequence[float], phases: int
) -> list[OverrunSet]:
    """The real sawtooth without extra buffer: per interruption, ``phases`` handovers spread
    over one cycle."""
    times = _phases(*cycle, phases)
    return [
        OverrunSet(
            {
                "method": "sawtooth",
                "rate_bps": probe.rate_bps,
                "rtt_s": probe.rtt_s,
                "buffer_bytes": probe.buffer_bytes,
                "interruption_s": t,
                "extra_bytes": 0.0,
            },
            tuple((probe.base, at, t) for at in times),
        )
        for t in interruptions
    ]


def _overrun_sawtooth_sets(
    plan: Plan, cycles: dict[str, tuple[float, float]]
) -> tuple[list[OverrunSet], list[OverrunSet]]:
    """The sets of ``002 overrun, sawtooth``: per buffer of the overrun check, and Fig. 6's."""
    checks = [
        s
        for b in _sawtooth_buffers(plan)
        for s in _sawtooth_sets(
            _overrun_sawtooth(TESTBED_RTT_S, b, f"overrun {b}"),
            cycles[f"overrun {b}"],
            plan.sawtooth_interruptions,
            plan.sawtooth_phases,
        )
    ]
    fig6 = (
        _sawtooth_sets(
            _overrun_sawtooth(FIG6_RTT_S, FIG6_BUFFER_BYTES, "fig6"),
            cycles["fig6"],
            plan.fig6_interruptions,
            plan.fig6_sawtooth_phases,
        )
        if plan.fig6_sawtooth_phases
        else []
    )
    return checks, fig6


def _fig6_sets(plan: Plan) -> list[OverrunSet]:
    """Fig. 6: per interruption and extra buffer E (a fraction of the overrun-free amount),
    handovers at ``fig6_windows`` sawtooth windows (:func:`window_quantiles`, W_max = BDP +
    buffer) into a queue of buffer + E."""
    rate, rtt, buffer = OVERRUN_RATE_BPS, FIG6_RTT_S, FIG6_BUFFER_BYTES
    bdp = bdp_segments(rate, rtt)
    ws = window_quantiles(bdp, bdp + buffer / PACKET_BYTES, plan.fig6_windows)
    at = _steady_at_s(rtt)
    return [
        OverrunSet(
            {
                "method": "emulated",
                "rate_bps": rate,
                "rtt_s": rtt,
                "buffer_bytes": buffer,
                "interruption_s": t,
                "extra_bytes": float(e),
            },
            tuple((_capped(rate, rtt, w, buffer + e), at, t) for w in ws),
        )
        for t in plan.fig6_interruptions
        for e in (
            round(f * overrun_free_extra_buffer_bytes(rate, rtt, t)) for f in plan.fig6_extras
        )
    ]


def _overrun_rows(sets: Sequence[OverrunSet], drops: np.ndarray) -> pd.DataFrame:
    """One row per set, from the drops of the sets' runs in order."""
    rows, i = [], 0
    for s in sets:
        n = 2 * len(s.handovers)
        rows.append(s.row(drops[i : i + n]))
        i += n
    return pd.DataFrame(rows)


def _sized_jobs(plan: Plan) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Handovers with buffer transfer into a queue of one BDP plus the overrun-free extra
    buffer, at ``sized_windows`` sawtooth windows and at the peak W_max = 2·BDP; then, with two
    packets less, at the peak only (``short``). (label, point) each."""
    rate, rtt = OVERRUN_RATE_BPS, TESTBED_RTT_S
    buffer = round(bdp_bytes(rate, rtt))
    bdp = bdp_segments(rate, rtt)
    w_max = bdp + buffer / PACKET_BYTES
    at = _steady_at_s(rtt)
    jobs = []
    for windows, short_packets in ((plan.sized_windows, 0), (0, SHORT_PACKETS)):
        ws = [*window_quantiles(bdp, w_max, windows), math.floor(w_max)]
        for t in plan.sized_interruptions:
            extra = overrun_free_extra_buffer_bytes(rate, rtt, t)
            queue = int(buffer + extra - short_packets * PACKET_BYTES)
            jobs += [
                (
                    {
                        "short": bool(short_packets),
                        "interruption_s": t,
                        "window_segments": round(w),
                        "queue_bytes": queue,
                    },
                    {
                        **_capped(rate, rtt, w, queue),
                        "events": handover_event(at, t, "forward"),
                        "simulation.duration": _ns(at + t + 3.0),
                    },
                )
                for w in ws
            ]
    return jobs


# -- the testbed ------------------------------------------------------------------------------


def _horizon_s(rate_bps: float) -> float:
    """How long after the handover goodput is compared: the worst-case recovery with delayed
    ACKs at the testbed's RTT, and 5 s more."""
    return 5.0 + 1.2 * RecoveryCell(rate_bps, TESTBED_RTT_S, "worst", True).model_s


def _testbed_jobs(
    plan: Plan, cycles: dict[str, tuple[float, float]]
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The testbed at RTT 50 ms with a queue of one BDP: per rate, interruption and variant,
    ``testbed_phases`` handovers. Variants: ``discard`` and ``forward`` at phases of the real
    sawtooth, and ``forward + extra`` (queue BDP + overrun-free extra, window capped at
    sawtooth windows). (label, [the run without the handover, the run with it]) each."""
    jobs = []
    for rate in plan.testbed_rates:
        probe = _testbed_sawtooth(rate)
        base, buffer, horizon = probe.base, probe.buffer_bytes, _horizon_s(rate)
        cycle = cycles[probe.label]
        bdp = bdp_segments(rate, TESTBED_RTT_S)
        ws = window_quantiles(bdp, bdp + buffer / PACKET_BYTES, plan.testbed_phases)
        for t in plan.testbed_interruptions:
            extra = overrun_free_extra_buffer_bytes(rate, TESTBED_RTT_S, t)
            setups = [
                (base, at, policy, policy, i)
                for i, at in enumerate(_phases(*cycle, plan.testbed_phases))
                for policy in ("discard", "forward")
            ]
            setups += [
                (
                    _capped(rate, TESTBED_RTT_S, w, buffer + extra),
                    _steady_at_s(TESTBED_RTT_S),
                    "forward",
                    "forward + extra",
                    i,
                )
                for i, w in enumerate(ws)
            ]
            for overrides, at, policy, variant, i in setups:
                end = {"simulation.duration": _ns(at + horizon)}
                label = {"rate_bps": rate, "interruption_s": t, "variant": variant, "phase": i}
                jobs.append(
                    (
                        label,
                        [
                            {**overrides, **end, "events": []},
                            {**overrides, **end, "events": handover_event(at, t, policy)},
                        ],
                    )
                )
    return jobs


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
#: The overrun-free check's tightness: the same queue this many packets smaller, at the peak.
SHORT_PACKETS = 2


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


def _fig1_jobs(plan: Plan) -> list[tuple[float, int, dict[str, Any]]]:
    """Fig. 1: per RTO floor, ``fig1_phases`` handover times of :data:`FIG1_CELL`, tracing the
    window and the receiver's deliveries. (floor, phase, point) each."""
    cell = FIG1_CELL
    return [
        (
            m,
            p,
            {
                **cell.overrides(p),
                "flows.bulk.tcp.min_rto": _ns(m),
                "trace.tcp": ["cwnd", "ssthresh", "delivered"],
            },
        )
        for m in FIG1_MIN_RTOS_S
        for p in range(plan.fig1_phases)
    ]


def _ablation_jobs(
    plan: Plan, cycles: dict[str, tuple[float, float]]
) -> list[tuple[str, int, dict[str, Any]]]:
    """The testbed's 40 ms discard at 10 Mb/s with one setting changed at a time
    (:data:`ABLATION`): per variant, ``ablation_phases`` handovers spread over one cycle of that
    variant's own sawtooth. (variant, phase, point) each."""
    jobs = []
    for name in plan.ablation_variants:
        v = ABLATION[name]
        base = v.base()
        for i, at in enumerate(_phases(*cycles[f"ablation {name}"], plan.ablation_phases)):
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
    return jobs


def _episode_tail_s(interruption_s: float) -> float:
    """How long a run goes on after its (last) handover: the RTO's wait, the worst-case
    recovery at 10 Mb/s, 50 ms with delayed ACKs, and 4 s more."""
    worst = RecoveryCell(OVERRUN_RATE_BPS, TESTBED_RTT_S, "worst", True).model_s
    return interruption_s + RTO_ALLOWANCE_S + 1.6 * worst + 4.0


def _train_jobs(
    plan: Plan, cycles: dict[str, tuple[float, float]]
) -> list[tuple[str, int, list[float], dict[str, Any]]]:
    """Repeated handovers at 10 Mb/s, RTT 50 ms, queue one BDP: per phase of the sawtooth, one
    discard (``single``), ``train_handovers`` discards :data:`TRAIN_SPACING_S` apart
    (``discard``), and as many with buffer transfer into a queue of one BDP (``forward``) and
    into one BDP plus the overrun-free extra buffer with the window capped at the sawtooth's
    windows (``forward + extra``). (variant, phase, handover times, point) each."""
    rate, rtt, t = OVERRUN_RATE_BPS, TESTBED_RTT_S, TRAIN_INTERRUPTION_S
    probe = _train_sawtooth()
    base, buffer = probe.base, probe.buffer_bytes
    bdp = bdp_segments(rate, rtt)
    starts = _phases(*cycles[probe.label], plan.train_phases)
    windows = window_quantiles(bdp, bdp + buffer / PACKET_BYTES, plan.train_phases)
    extra = overrun_free_extra_buffer_bytes(rate, rtt, t)
    tail = _episode_tail_s(t)
    jobs = []
    for i, at in enumerate(starts):
        for variant, count, policy, overrides, start in (
            ("single", 1, "discard", base, at),
            ("discard", plan.train_handovers, "discard", base, at),
            ("forward", plan.train_handovers, "forward", base, at),
            (
                "forward + extra",
                plan.train_handovers,
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
    return jobs


def _slow_start_base() -> dict[str, Any]:
    rate, rtt = OVERRUN_RATE_BPS, TESTBED_RTT_S
    return {
        **_queue_base(rate, rtt, round(bdp_bytes(rate, rtt))),
        "trace.tcp": ["cwnd", "ssthresh", "cc_state"],
    }


#: The probe of the initial slow start: a run without a handover, 5 s.
SLOW_START_PROBE = {**_slow_start_base(), "events": [], "simulation.duration": _ns(5.0)}


#: The columns of the derived frame ``slow start span``.
SPAN = ("start_s", "end_s")


def slow_start_span(results: Results) -> tuple[float, float]:
    """The initial slow start's (start, end) in seconds, from the probe ``002 slow start, no
    handover``: from the first window to the first loss (cc_state is traced on changes: its
    first sample at 2 or more is the slow start's first loss)."""
    tcp = results.read(results.frames[SLOW_START_PROBE_SWEEP], "tcp")[0]
    state_t, state = _series_of(tcp, "cc_state")
    losses = state_t[state >= 2]
    cwnd_t, _ = _series_of(tcp, "cwnd")
    if not (losses.size and cwnd_t.size):
        raise ReproductionError("the initial slow start did not end in a loss within 5 s")
    return float(cwnd_t[0]), float(losses[0])


def _slow_start_jobs(plan: Plan, span: tuple[float, float]) -> list[tuple[float, dict[str, Any]]]:
    """A discard during the initial slow start: ``slow_start_phases`` handovers spread over
    ``span``. (handover time, point) each."""
    t = SLOW_START_INTERRUPTION_S
    tail = _episode_tail_s(t)
    return [
        (
            at,
            {
                **_slow_start_base(),
                "events": handover_event(at, t, "discard"),
                "simulation.duration": _ns(at + tail),
            },
        )
        for at in _phases(*span, plan.slow_start_phases)
    ]


# -- the sweeps and the frames derived from them ---------------------------------------------

RECOVERY = "002 recovery"
SAWTOOTH = "002 sawtooth"
SLOW_START_PROBE_SWEEP = "002 slow start, no handover"
TESTBED = "002 testbed"
SIZED = "002 overrun-free buffer"
OVERRUN_SAWTOOTH = "002 overrun, sawtooth"
FIG6 = "002 overrun, Fig. 6"
FIG1 = "002 Fig. 1"
ABLATION_SWEEP = "002 ablation"
TRAINS = "002 repeated handovers"
SLOW_START = "002 slow start"


@dataclass(frozen=True)
class _Plans:
    """The plans of the two modes a declaration was made with."""

    quick: Plan
    full: Plan

    def of(self, results: Results) -> Plan:
        return self.quick if results.quick else self.full


def _outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a 0/1 column per TCP outcome (``timeout``, ``halving``, ``none``) and
    ``handovers`` = 1: counts the share tests sum (:class:`celltcp.study.ShareAbove`)."""
    from celltcp.outputs import TCP_OUTCOMES

    out = frame.assign(handovers=1)
    for o in TCP_OUTCOMES:
        out[o] = (frame["outcome"] == o).astype(int) if len(frame) else pd.Series(dtype=int)
    return out


def _drops(results: Results, sweep: str) -> np.ndarray:
    drops: np.ndarray = results.frames[sweep][_DROPS].to_numpy(dtype=float)
    return drops


def _testbed(results: Results, plans: _Plans) -> pd.DataFrame:
    """One row per testbed handover: outcome, retransmissions, the run's queue drops, and the
    goodput lost over the horizon against the same run without the handover (bytes, and
    seconds of the link's payload rate); ``excess_s``, the loss beyond the interruption
    itself, and ``long``, an interruption at or above the RTT."""
    frame = results.frames[TESTBED]
    jobs = _testbed_jobs(plans.of(results), sawtooth_cycles(results, plans.of(results)))
    handovers = _handovers(results, frame.iloc[1::2])
    rows = []
    for j, (label, _) in enumerate(jobs):
        baseline, run_row, h = frame.iloc[2 * j], frame.iloc[2 * j + 1], handovers[j]
        lost = float(baseline[_DELIVERED]) - float(run_row[_DELIVERED])
        rate = label["rate_bps"]
        rows.append(
            {
                **label,
                "outcome": h["outcome"],
                "rto_retransmissions": int(h["rto_retransmissions"]),
                "fast_retransmissions": int(h["fast_retransmissions"]),
                "drops": int(run_row[_DROPS]),
                "lost_bytes": lost,
                "lost_s": lost * 8 / (rate * MSS_BYTES / PACKET_BYTES),
            }
        )
    return with_columns("testbed", pd.DataFrame(rows))


def _sized_rows(results: Results, plans: _Plans, short: bool) -> pd.DataFrame:
    """The overrun-free check (``short``: with two packets less at the peak): per handover the
    TCP outcome, retransmissions and every queue drop of the run; ``bad``: a drop or a
    reaction."""
    frame = results.frames[SIZED]
    jobs = _sized_jobs(plans.of(results))
    rows = []
    for (label, _), (_, run_row), h in zip(
        jobs, frame.iterrows(), _handovers(results, frame), strict=True
    ):
        if label["short"] != short:
            continue
        rows.append(
            {
                "interruption_s": label["interruption_s"],
                "window_segments": label["window_segments"],
                "queue_bytes": label["queue_bytes"],
                "outcome": h["outcome"],
                "rto_retransmissions": int(h["rto_retransmissions"]),
                "fast_retransmissions": int(h["fast_retransmissions"]),
                "drops": int(run_row[_DROPS]),
            }
        )
    return with_columns("short" if short else "sized", pd.DataFrame(rows))


def _forward(results: Results) -> pd.DataFrame:
    """Every handover with buffer transfer (the testbed's and the overrun-free check's):
    ``lossless`` (no queue drop) and ``rto`` (a retransmission timeout, 0/1)."""
    testbed = results.derived("testbed")
    frame = pd.concat(
        [testbed[testbed["variant"] != "discard"], results.derived("sized")], ignore_index=True
    )
    return frame.assign(
        lossless=frame["drops"] == 0, rto=(frame["rto_retransmissions"] > 0).astype(int)
    )


def _sawtooth_overrun(results: Results, plans: _Plans, fig6: bool) -> pd.DataFrame:
    """The real sawtooth's overrun shares: the overrun check's buffers, or (``fig6``) Fig. 6's
    set-up (no row when the mode runs none)."""
    plan = plans.of(results)
    checks, fig6_sets = _overrun_sawtooth_sets(plan, sawtooth_cycles(results, plan))
    drops = _drops(results, OVERRUN_SAWTOOTH)
    n = 2 * sum(len(s.handovers) for s in checks)
    if fig6:
        return _overrun_rows(fig6_sets, drops[n:])
    return _overrun_rows(checks, drops[:n])


def _overrun(results: Results) -> pd.DataFrame:
    """Every overrun point: the real sawtooth's, Fig. 6's real sawtooth's, Fig. 6's."""
    frames = [
        results.derived(name)
        for name in ("sawtooth overrun", "fig6 sawtooth overrun", "fig6 overrun")
    ]
    return pd.concat([f for f in frames if len(f)])


def _overrun_handovers(results: Results) -> pd.DataFrame:
    """One row per handover of every overrun point: ``diff``, whether it overran (1 or 0) less
    the model's probability at its point."""
    diffs: list[float] = []
    for _, r in results.derived("overrun").iterrows():
        k, n, p = int(r["overruns"]), int(r["handovers"]), float(r["p_model"])
        diffs += [1.0 - p] * k + [-p] * (n - k)
    return pd.DataFrame({"diff": diffs})


def _fig1(results: Results, plans: _Plans) -> pd.DataFrame:
    """Fig. 1, one row per run: the outcome, the time the receiver gets nothing (from the
    handover to its first in-order delivery after it), the analytics' recovery_time_s (from the
    handover to the goodput back at 90 %), and the sender's side (:func:`_episode`)."""
    frame = results.frames[FIG1]
    cell = FIG1_CELL
    rows = []
    for (m, p, _), h, tcp in zip(
        _fig1_jobs(plans.of(results)),
        _handovers(results, frame),
        results.read(frame, "tcp"),
        strict=True,
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
    return with_columns("fig1", pd.DataFrame(rows))


def _through(frame: pd.DataFrame) -> pd.DataFrame:
    """``through`` and ``not_through``: whether the recovery stayed in slow start (0/1)."""
    through = frame["slow_start_through"].astype(bool)
    return frame.assign(through=through.astype(int), not_through=(~through).astype(int))


def _ablation(results: Results, plans: _Plans) -> pd.DataFrame:
    """The ablation, one row per run: the variant, the outcome and the retransmissions."""
    frame = results.frames[ABLATION_SWEEP]
    plan = plans.of(results)
    jobs = _ablation_jobs(plan, sawtooth_cycles(results, plan))
    return with_columns(
        "ablation",
        pd.DataFrame(
            [
                {
                    "variant": name,
                    "phase": i,
                    "outcome": h["outcome"],
                    "rto_retransmissions": int(h["rto_retransmissions"]),
                    "fast_retransmissions": int(h["fast_retransmissions"]),
                    "dropped": int(h["dropped"]),
                }
                for (name, i, _), h in zip(jobs, _handovers(results, frame), strict=True)
            ]
        ),
    )


def _trains(results: Results, plans: _Plans) -> pd.DataFrame:
    """Repeated handovers, one row per handover: its index in the train (``last`` for the
    train's last) and its episode (:func:`_episode`; for the last of a train the ramp has no
    later handover to cut it, an earlier one's ramp cut short by the next is left out)."""
    frame = results.frames[TRAINS]
    plan = plans.of(results)
    bdp = bdp_segments(OVERRUN_RATE_BPS, TESTBED_RTT_S)
    rows = []
    for (variant, i, times, _), hs, tcp in zip(
        _train_jobs(plan, sawtooth_cycles(results, plan)),
        results.read(frame, "handovers"),
        results.read(frame, "tcp"),
        strict=True,
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
    return with_columns("trains", pd.DataFrame(rows))


def _slow_start(results: Results, plans: _Plans) -> pd.DataFrame:
    """A discard during the initial slow start, one row per run: its episode
    (:func:`_episode`) and the cwnd at the handover."""
    frame = results.frames[SLOW_START]
    bdp = bdp_segments(OVERRUN_RATE_BPS, TESTBED_RTT_S)
    rows = []
    for (at, _), h, tcp in zip(
        _slow_start_jobs(plans.of(results), slow_start_span(results)),
        _handovers(results, frame),
        results.read(frame, "tcp"),
        strict=True,
    ):
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
    return with_columns("slow start", pd.DataFrame(rows))


def _testbed_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``excess_s``, the goodput lost beyond the interruption itself, and ``long``, an
    interruption at or above the RTT."""
    return _outcomes(frame).assign(
        excess_s=frame["lost_s"] - frame["interruption_s"],
        long=frame["interruption_s"] >= TESTBED_RTT_S,
    )


def _sized_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``bad``: a handover with a drop or a reaction (0/1)."""
    bad = ~((frame["outcome"] == "none") & (frame["drops"] == 0))
    return _outcomes(frame).assign(bad=bad.astype(int))


def _trains_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``last``: the last handover of its train."""
    return _outcomes(frame).assign(last=frame["index"] == frame["count"] - 1)


_COLUMNS: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "testbed": _testbed_columns,
    "sized": _sized_columns,
    "short": _sized_columns,
    "fig1": lambda f: _through(_outcomes(f)),
    "ablation": _outcomes,
    "trains": _trains_columns,
    "slow start": lambda f: _through(_outcomes(f)),
}


def with_columns(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the derived frame ``name`` as measured (one per run or per handover: its
    set-up, ``outcome`` and the figures read from its series) with the columns the claims'
    tests count and select on: a 0/1 column per TCP outcome and ``handovers`` = 1, and the
    frame's own (:func:`_testbed_columns`, :func:`_sized_columns`, :func:`_trains_columns`,
    ``through``/``not_through`` for a recovery that stays in slow start). A test on synthetic
    rows gives them in the measured rows' form."""
    return _COLUMNS[name](frame)


#: The keys the computed points set: the path, the queue, the receive buffer, the events, the
#: run's length and traces, and the TCP settings the ablation changes.
_COMPUTED_KEYS = (
    "links.access.rate",
    "links.wire.delay",
    "links.access.queue",
    "flows.bulk.tcp.rcv_buf",
    "events",
    "simulation.duration",
    "trace.tcp",
    *sorted({f"flows.bulk.tcp.{k}" for v in ABLATION.values() for k, _ in v.tcp}),
)
_ONE_RUN = Replications(
    1,
    1,
    "the link model draws no random numbers: the replications are handover times (phases) "
    "across a sawtooth cycle or a slow start, one run each",
)
_DROPS_METRIC = Metric(_DROPS, summary=_DROPS)


def _sweep(
    name: str,
    quick: Sequence[dict[str, Any]] | After,
    full: Sequence[dict[str, Any]] | After,
    keep: tuple[str, ...] = (),
    metrics: tuple[Metric, ...] = (_DROPS_METRIC,),
) -> Sweep:
    """One sweep on ``002/handover-link``, master seed 1, one run per point."""
    return Sweep(
        name,
        Scenario("002/handover-link"),
        {},
        metrics,
        _ONE_RUN,
        seed=MASTER_SEED,
        keep=keep,
        points=full,
        quick_points=quick,
    )


def _after(
    needs: str, points: Callable[[Results, _Plans], list[dict[str, Any]]], plans: _Plans
) -> After:
    def computed(results: Results) -> list[dict[str, Any]]:
        return points(results, plans)

    return After((needs,), computed, _COMPUTED_KEYS)


def _testbed_points(results: Results, plans: _Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    return [p for _, pair in _testbed_jobs(plan, sawtooth_cycles(results, plan)) for p in pair]


def _overrun_sawtooth_points(results: Results, plans: _Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    checks, fig6 = _overrun_sawtooth_sets(plan, sawtooth_cycles(results, plan))
    return [p for s in (*checks, *fig6) for p in s.points()]


def _ablation_points(results: Results, plans: _Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    return [p for *_, p in _ablation_jobs(plan, sawtooth_cycles(results, plan))]


def _train_points(results: Results, plans: _Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    return [p for *_, p in _train_jobs(plan, sawtooth_cycles(results, plan))]


def _slow_start_points(results: Results, plans: _Plans) -> list[dict[str, Any]]:
    return [p for _, p in _slow_start_jobs(plans.of(results), slow_start_span(results))]


def declare(quick: Plan, full: Plan) -> tuple[tuple[Sweep, ...], tuple[Derived, ...]]:
    """The sweeps of the study with ``quick`` and ``full`` as the modes' plans, in run order,
    and the frames derived from them (one row per run or per handover, with its set-up)."""
    plans = _Plans(quick, full)

    def each(of: Callable[[Plan], Sequence[dict[str, Any]]]) -> dict[str, Any]:
        return {"quick": list(of(quick)), "full": list(of(full))}

    def explicit(name: str, of: Callable[[Plan], Sequence[dict[str, Any]]], **more: Any) -> Sweep:
        points = each(of)
        return _sweep(name, points["quick"], points["full"], **more)

    def computed(name: str, needs: str, of: Any, **more: Any) -> Sweep:
        after = _after(needs, of, plans)
        return _sweep(name, after, after, **more)

    sweeps = (
        explicit(
            RECOVERY,
            lambda p: [c.overrides(i) for c, i in _recovery_jobs(p)],
            keep=("handovers", "tcp"),
        ),
        explicit(SAWTOOTH, lambda p: [s.point() for s in sawtooth_probes(p)], keep=("tcp",)),
        explicit(SLOW_START_PROBE_SWEEP, lambda p: [SLOW_START_PROBE], keep=("tcp",)),
        computed(
            TESTBED,
            SAWTOOTH,
            _testbed_points,
            keep=("handovers",),
            metrics=(_DROPS_METRIC, Metric(_DELIVERED, summary=_DELIVERED)),
        ),
        explicit(SIZED, lambda p: [pt for _, pt in _sized_jobs(p)], keep=("handovers",)),
        computed(OVERRUN_SAWTOOTH, SAWTOOTH, _overrun_sawtooth_points),
        explicit(FIG6, lambda p: [pt for s in _fig6_sets(p) for pt in s.points()]),
        explicit(FIG1, lambda p: [pt for *_, pt in _fig1_jobs(p)], keep=("handovers", "tcp")),
        computed(ABLATION_SWEEP, SAWTOOTH, _ablation_points, keep=("handovers",)),
        computed(TRAINS, SAWTOOTH, _train_points, keep=("handovers", "tcp")),
        computed(SLOW_START, SLOW_START_PROBE_SWEEP, _slow_start_points, keep=("handovers", "tcp")),
    )
    derived = (
        Derived("recovery runs", partial(_recovery_runs, plans=plans)),
        Derived("recovery table", lambda r: recovery_table(r.derived("recovery runs"))),
        Derived("testbed", partial(_testbed, plans=plans)),
        Derived("sized", partial(_sized_rows, plans=plans, short=False)),
        Derived("short", partial(_sized_rows, plans=plans, short=True)),
        Derived("forward handovers", _forward),
        Derived("sawtooth overrun", partial(_sawtooth_overrun, plans=plans, fig6=False)),
        Derived("fig6 sawtooth overrun", partial(_sawtooth_overrun, plans=plans, fig6=True)),
        Derived("fig6 overrun", lambda r: _overrun_rows(_fig6_sets(plans.of(r)), _drops(r, FIG6))),
        Derived("overrun", _overrun),
        Derived("overrun handovers", _overrun_handovers),
        Derived("fig1", partial(_fig1, plans=plans)),
        Derived("ablation", partial(_ablation, plans=plans)),
        Derived("trains", partial(_trains, plans=plans)),
        Derived("slow start", partial(_slow_start, plans=plans)),
        Derived("slow start span", lambda r: pd.DataFrame([slow_start_span(r)], columns=SPAN)),
    )
    return sweeps, derived


SWEEPS, DERIVED = declare(QUICK, FULL)


def study_of(plan: Plan, only: Sequence[str] = ()) -> Study:
    """The runs of the study on another grid, without its claims: the sweeps of ``plan`` (in
    both modes) named in ``only`` and the probes they need (every sweep when ``only`` is
    empty), with the derived frames (a test of a few recovery cells, say)."""
    from celltcp.study import Study

    sweeps, derived = declare(plan, plan)
    wanted = set(only) or {s.name for s in sweeps}
    for s in reversed(sweeps):
        if s.name in wanted and isinstance(s.points, After):
            wanted |= set(s.points.needs)
    unknown = wanted - {s.name for s in sweeps}
    if unknown:
        raise ReproductionError(f"no sweep {', '.join(sorted(unknown))} in {NAME}")
    return Study(
        NAME,
        f"{NAME} on another grid",
        "The study's runs on another grid.",
        tuple(s for s in sweeps if s.name in wanted),
        (),
        derived=derived,
    )


def plan_of(results: Results) -> Plan:
    """The plan of the mode the results were run in (of :data:`SWEEPS`)."""
    return QUICK if results.quick else FULL


def scenario_file() -> Path:
    """``002/handover-link.toml`` of the library shipped in the package
    (:mod:`celltcp.examples`)."""
    return Scenario("002/handover-link").path()


def run(options: Options) -> Document:
    """Runs the study on :mod:`celltcp.study` and returns the report (nothing is written here
    but the store)."""
    from celltcp.reproduce.seed002_report import STUDY
    from celltcp.study import document
    from celltcp.study import run as run_study

    return document(STUDY, run_study(STUDY, options), options)
