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
(:func:`declare`, named as the run counts of ``claims.json`` name them);
:mod:`celltcp.reproduce.seed002_frames` the frames derived from their runs (one row per run or
per handover, with the set-up it was run at); :mod:`celltcp.reproduce.seed002_report` the
claims with their tests, the tables, the figures and the report's layout. Two probes come
first, all of whose points are known in advance: ``002 sawtooth`` (one run without a handover
per set-up whose sawtooth the later sweeps place handovers on) and ``002 slow start, no
handover``. The sweeps whose
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
from celltcp.reproduce.document import Document
from celltcp.reproduce.registry import Options, ReproductionError
from celltcp.study import After, Metric, Replications, Scenario, Sweep

if TYPE_CHECKING:
    from pathlib import Path

    from celltcp.study import Results, Study

__all__ = [
    "ABLATION",
    "ABLATION_SWEEP",
    "ALIASES",
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
    "Plans",
    "RecoveryCell",
    "Sawtooth",
    "bdp_segments",
    "declare",
    "handover_event",
    "path_overrides",
    "plan_of",
    "recovery_cells",
    "run",
    "sawtooth_cycles",
    "sawtooth_probes",
    "scenario_file",
    "slow_start_span",
    "study_of",
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
    windows per interruption (``sized_interruptions``) in the overrun-free check. Episodes:
    ``fig1_phases`` handover times per RTO floor; the ablation's variants (names of
    :data:`ABLATION`) with ``ablation_phases`` phases each; ``train_phases`` trains of
    ``train_handovers`` handovers; ``slow_start_phases`` handovers during the initial slow
    start. ``cells`` replaces the recovery grid by explicit cells (a test of a few)."""

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
class Plans:
    """The plans of the two modes a declaration was made with."""

    quick: Plan
    full: Plan

    def of(self, results: Results) -> Plan:
        return self.quick if results.quick else self.full


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
    needs: str, points: Callable[[Results, Plans], list[dict[str, Any]]], plans: Plans
) -> After:
    def computed(results: Results) -> list[dict[str, Any]]:
        return points(results, plans)

    return After((needs,), computed, _COMPUTED_KEYS)


def _testbed_points(results: Results, plans: Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    return [p for _, pair in _testbed_jobs(plan, sawtooth_cycles(results, plan)) for p in pair]


def _overrun_sawtooth_points(results: Results, plans: Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    checks, fig6 = _overrun_sawtooth_sets(plan, sawtooth_cycles(results, plan))
    return [p for s in (*checks, *fig6) for p in s.points()]


def _ablation_points(results: Results, plans: Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    return [p for *_, p in _ablation_jobs(plan, sawtooth_cycles(results, plan))]


def _train_points(results: Results, plans: Plans) -> list[dict[str, Any]]:
    plan = plans.of(results)
    return [p for *_, p in _train_jobs(plan, sawtooth_cycles(results, plan))]


def _slow_start_points(results: Results, plans: Plans) -> list[dict[str, Any]]:
    return [p for _, p in _slow_start_jobs(plans.of(results), slow_start_span(results))]


def declare(quick: Plan, full: Plan) -> tuple[Sweep, ...]:
    """The sweeps of the study with ``quick`` and ``full`` as the modes' plans, in run order
    (:func:`celltcp.reproduce.seed002_frames.derived_frames` the frames derived from them)."""
    plans = Plans(quick, full)

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
    return sweeps


SWEEPS = declare(QUICK, FULL)


def study_of(plan: Plan, only: Sequence[str] = ()) -> Study:
    """The runs of the study on another grid, without its claims: the sweeps of ``plan`` (in
    both modes) named in ``only`` and the probes they need (every sweep when ``only`` is
    empty), with the derived frames (a test of a few recovery cells, say)."""
    from celltcp.reproduce.seed002_frames import derived_frames
    from celltcp.study import Study

    sweeps = declare(plan, plan)
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
        derived=derived_frames(Plans(plan, plan)),
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
