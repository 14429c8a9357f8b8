"""Seed `003_…` (PETRA thesis, chapter 5): NewReno, TCP Westwood and PETRA over LTE.

Experiment 5-1 (one UE behind a 25 Mb/s radio hop with random errors; Tables 5.4 and 5.5,
Figs. 5.8 and 5.9), experiment 5-2 (three LTE cells, 15 bulk flows; Table 5.7) and experiment
5-3 (one UE driving along five cells at 25–100 km/h; Fig. 5.12, Table 5.9 — its own module,
:mod:`celltcp.reproduce.seed003_exp5_3`) are run on the scenario files of ``celltcp/examples/003/``
as a declaration on :mod:`celltcp.study` (:data:`STUDY`: four sweeps, named as the run counts of
``claims.json`` name them, the metrics read from every run, the claims with their tests and the
report's layout), so every run is kept in a results store and a repeated or interrupted
reproduction runs only what is missing; Fig. 5.8's traced runs are a sweep of their own that
keeps the ``tcp`` series. The mapping of the seed's set-up onto those
files, and the doubts about the published numbers, are in docs/seed-003.md; the published values
below are copied from the seed's tables.

The faithful set-up is ns-3.19's TCP, which the seed ran: 536-byte segments (ns-3.19's
``TcpSocket::SegmentSize`` default; 576-byte packets without timestamps), no SACK, and the
seed's TCPW as the original Westwood (``westwood-original``, ns-3's ``TcpWestwood`` default).
The other reading of Table 5.3 (1500-byte packets: 1448-byte segments with timestamps) and
SACK are run as ablations, and Westwood+ (``westwood``) as an additional controller. Which
reading reproduces the seed's loss ratios is the first table of the report.

Figures per flow, as ns-3's FlowMonitor defines them except for jitter: throughput = IP bytes
delivered · 8 / run length (Mb/s), mean one-way delay (ms), loss = dropped / (delivered +
dropped) (%). celltcp's summary gives the RFC 3550 §6.4.1 interarrival jitter (a smoothed
estimate, ms), not FlowMonitor's mean of |D_i − D_{i−1}|; the seed's jitter is not comparable
anyway (docs/seed-003.md). Claims are decided by the tests of :mod:`celltcp.reproduce.verdict`
on the replications; every one is decided by a test the study declares.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from celltcp import examples
from celltcp.reproduce import seed003_exp5_3 as exp5_3
from celltcp.reproduce.document import Document, fmt_ci, mean_ci
from celltcp.reproduce.registry import Options
from celltcp.reproduce.verdict import MAGNITUDE_FACTOR, Estimate, Sample, magnitude
from celltcp.study import (
    AtEvery,
    Block,
    Blocks,
    Claim,
    Claims,
    Evaluation,
    Figure,
    Items,
    MeanAgainst,
    Metric,
    Ratio,
    Replications,
    Results,
    Runs,
    Scenario,
    Section,
    Study,
    Sweep,
    Table,
    Text,
    Welch,
    WithinFactor,
)

__all__ = [
    "ALIASES",
    "FULL",
    "NAME",
    "QUICK",
    "READINGS",
    "STUDY",
    "SUMMARY",
    "Plan",
    "Reading",
    "Stat",
    "at",
    "ber_for_byte_error_rate",
    "cells",
    "cwnd_figures",
    "jain_index",
    "lowest",
    "ordering",
    "packet_error_rate",
    "plan",
    "run",
]

NAME = "003-petra-lte"
ALIASES = ("003",)
SUMMARY = (
    "PETRA thesis ch. 5: NewReno, Westwood and PETRA over LTE with random errors and mobility "
    "(experiments 5-1, 5-2, 5-3: Tables 5.4, 5.5, 5.7, 5.9, Figs. 5.8, 5.9, 5.12)"
)

#: The seed's TCPW: ns-3's ``TcpWestwood``, whose default is the original Westwood.
TCPW = "westwood-original"
#: The seed's three controllers, in its tables' order.
CONTROLLERS = ("newreno", TCPW, "petra")
#: Westwood+, run beside them as an ablation of the baseline.
WESTWOOD_PLUS = "westwood"
ALL_CC = (*CONTROLLERS, WESTWOOD_PLUS)
LABEL = {
    "newreno": "NewReno",
    TCPW: "TCPW (original Westwood)",
    WESTWOOD_PLUS: "Westwood+",
    "petra": "PETRA",
}
SHORT = {"newreno": "N", TCPW: "T", WESTWOOD_PLUS: "W+", "petra": "P"}
#: The seed's error rate of Tables 5.4 and 5.7, per byte (ns-3 RateErrorModel's default unit).
BASE_RATE = 5e-5
#: Table 5.5's sweep of that rate.
SWEEP_RATES = (7.5e-5, 9e-5, 1e-4, 2.5e-4, 5e-4)
RATES = (BASE_RATE, *SWEEP_RATES)
FLOWS_5_2 = tuple(f"f{i:02d}" for i in range(1, 16))
CELLS_5_2 = (1, 2, 3)
MASTER_SEED = 1
#: Length of the runs of Fig. 5.8 (the seed plots the first 10 s).
FIG_5_8_DURATION_S = 10.0


@dataclass(frozen=True)
class Reading:
    """A reading of the seed's packet size: the TCP segment and header options it implies.

    Attributes:
        name: "536", "1448" or "536-ns3".
        mss: the ``flows.*.tcp.mss`` value.
        timestamps: the ``flows.*.tcp.timestamps`` value.
        packet_bytes: IP size of a full data packet (payload + 20 + 20, + 12 with timestamps).
        why: where the reading comes from.
        initial_window, abc, window_scale: the ``flows.*.tcp`` keys of the same names
            (celltcp's defaults unless the reading takes ns-3.19's).
    """

    name: str
    mss: str
    timestamps: bool
    packet_bytes: int
    why: str
    initial_window: int = 10
    abc: int = 2
    window_scale: bool = True


#: The two readings; "536" is the faithful one (docs/seed-003.md).
READINGS = {
    "536": Reading(
        "536",
        "536B",
        False,
        576,
        "ns-3.19's TcpSocket::SegmentSize default; no timestamps option in ns-3.19",
    ),
    "1448": Reading("1448", "1448B", True, 1500, "Table 5.3's 1500-byte packets"),
    # An ablation: ns-3.19's other TCP defaults as well (TcpSocket::InitialCwnd = 1, one
    # segment per ACK in slow start, no window scale option: at most 64 KiB in flight).
    "536-ns3": Reading(
        "536-ns3",
        "536B",
        False,
        576,
        "the 536 reading with ns-3.19's other TCP defaults",
        initial_window=1,
        abc=0,
        window_scale=False,
    ),
}
#: The faithful set-up: (reading, SACK).
FAITHFUL = ("536", False)

# -- the seed's published numbers --------------------------------------------------------------

#: Table 5.4 (error rate 5e-5): throughput in the seed's own unit, delay and jitter ms, loss %.
SEED_5_4 = {
    "newreno": {"thr": 21.63, "delay": 33.69, "jitter": 3.37, "loss": 3.1},
    TCPW: {"thr": 81.23, "delay": 114.34, "jitter": 3.39, "loss": 3.2},
    "petra": {"thr": 99.33, "delay": 90.16, "jitter": 3.31, "loss": 3.0},
}
#: Table 5.5: throughput (seed's unit) per error rate, NewReno / TCPW / PETRA.
SEED_5_5 = {
    7.5e-5: (17.44, 62.53, 71.62),
    9e-5: (15.26, 60.39, 66.78),
    1e-4: (14.15, 52.18, 58.15),
    2.5e-4: (5.48, 7.02, 31.35),
    5e-4: (0.13, 0.13, 10.9),
}
#: Table 5.5: average delay (ms), NewReno / TCPW / PETRA.
SEED_5_5_DELAY = {
    7.5e-5: (33.24, 104.8, 92.3),
    9e-5: (33.06, 121.8, 93.7),
    1e-4: (32.95, 118.46, 94.5),
    2.5e-4: (32.27, 131.48, 106.57),
    5e-4: (31.5, 31.58, 85.4),
}
#: Table 5.5: loss ratio (%), NewReno / TCPW / PETRA.
SEED_5_5_LOSS = {
    7.5e-5: (4.7, 4.2, 4.0),
    9e-5: (4.53, 5.0, 4.4),
    1e-4: (5.4, 5.9, 5.23),
    2.5e-4: (15.2, 15.02, 14.2),
    5e-4: (40.0, 30.0, 30.9),
}
#: Fig. 5.8 (first 10 s at 5e-5): cwnd resets to the initial window, TCPW five (at 3.5, 5.1,
#: 6.4, 8.3 and 9.7 s) and PETRA one (about 5.3 s); PETRA has the largest windows, NewReno
#: "a very small cwnd size".
SEED_FIG_5_8 = {"resets": {TCPW: 5, "petra": 1}}
#: Table 5.7: total throughput (seed's unit), mean delay ms, mean loss %, Jain's index. The
#: indices of NewReno and TCPW are computed from the seed's per-flow values with its eq. 5.1.
SEED_5_7 = {
    "newreno": {"total": 66.87, "delay": 45.50, "loss": 0.48, "jain": 0.98707},
    TCPW: {"total": 273.43, "delay": 45.60, "loss": 0.46, "jain": 0.99899},
    "petra": {"total": 317.14, "delay": 45.64, "loss": 0.44, "jain": 0.99978},
}


@dataclass(frozen=True)
class Plan:
    """Run lengths and replications of one mode.

    Attributes:
        runs: replications (run numbers 0..runs−1 of master seed 1) per point of experiments
            5-1 and 5-2, and runs of Fig. 5.8.
        duration_5_1, duration_5_2: simulated length of each run (a scenario duration string).
        setups_at_base: (reading, SACK) set-ups run at the error rate 5e-5.
        setups_in_sweep: (reading, SACK) set-ups run at Table 5.5's rates.
        readings_5_2: readings run in experiment 5-2 (with the errors; the faithful one also
            without).
        runs_5_3, duration_5_3: replications and run length of experiment 5-3. Its radio link
            failures happen only after 66 s (the UE must first drive 800 m past the last eNB),
            so its runs keep the seed's 100 s even in the quick mode.
    """

    runs: int
    duration_5_1: str
    duration_5_2: str
    setups_at_base: tuple[tuple[str, bool], ...]
    setups_in_sweep: tuple[tuple[str, bool], ...]
    readings_5_2: tuple[str, ...] = ("536",)
    runs_5_3: int = 5
    duration_5_3: str = "100s"


#: A smoke reproduction: a few seconds per run, the orderings are noisy.
QUICK = Plan(
    runs=5,
    duration_5_1="10s",
    duration_5_2="5s",
    setups_at_base=(FAITHFUL, ("536", True), ("1448", False)),
    setups_in_sweep=(FAITHFUL,),
    readings_5_2=("536",),
    runs_5_3=1,
    duration_5_3="100s",
)
#: The seed's 100 s runs; 30 replications, at which most claims whose power for a 20 %
#: difference was below 80 % at 5 reach it (docs/seed-003.md).
FULL = Plan(
    runs=30,
    duration_5_1="100s",
    duration_5_2="100s",
    setups_at_base=(FAITHFUL, ("536", True), ("1448", False), ("1448", True), ("536-ns3", False)),
    setups_in_sweep=(FAITHFUL, ("536", True), ("1448", False), ("536-ns3", False)),
    readings_5_2=("536", "1448"),
    runs_5_3=30,
    duration_5_3="100s",
)


def ber_for_byte_error_rate(rate: float) -> float:
    """Per-bit error rate losing a packet as often as ``rate`` per byte: 1 − (1 − r)^(1/8)."""
    return float(1.0 - (1.0 - rate) ** (1.0 / 8.0))


def packet_error_rate(rate: float, packet_bytes: int) -> float:
    """Probability that a packet of ``packet_bytes`` is lost at the per-byte rate ``rate``."""
    return 1.0 - (1.0 - rate) ** packet_bytes


def _scenario_dir() -> Path:
    """The directory of ``003/exp5-1.toml``, ``exp5-2.toml`` and ``exp5-3.toml`` in the library
    shipped in the package (:mod:`celltcp.examples`)."""
    return examples.path("003")


# -- the sweeps --------------------------------------------------------------------------------

_CC = "flows.bulk.cc"
_BER = "links.access.a_to_b.loss.ber"
_SACK = "flows.bulk.tcp.sack"
_MSS = "flows.bulk.tcp.mss"
_TS = "flows.bulk.tcp.timestamps"
_IW = "flows.bulk.tcp.initial_window"
_ABC = "flows.bulk.tcp.abc"
_WS = "flows.bulk.tcp.window_scale"
_FIRST_FLOW = f"flows.{FLOWS_5_2[0]}"
_FIRST_CELL = f"links.s1u{CELLS_5_2[0]}.a_to_b.loss.ber"

#: The sweeps' names: those of the run counts in ``claims.json``.
EXP_5_1 = "experiment 5-1"
EXP_5_2 = "experiment 5-2"
FIG_5_8 = "Fig. 5.8"


def plan(quick: bool) -> Plan:
    """The plan of the mode."""
    return QUICK if quick else FULL


def _setups(plan: Plan, rate: float) -> tuple[tuple[str, bool], ...]:
    return plan.setups_at_base if rate == BASE_RATE else plan.setups_in_sweep


def _points_5_1(plan: Plan) -> list[dict[str, Any]]:
    """Experiment 5-1's points: every rate with its set-ups (all of them at 5e-5, fewer in
    Table 5.5's sweep), every controller."""
    points = []
    for rate in RATES:
        for reading, sack in _setups(plan, rate):
            r = READINGS[reading]
            for cc in ALL_CC:
                points.append(
                    {
                        _BER: ber_for_byte_error_rate(rate),
                        _SACK: sack,
                        _MSS: r.mss,
                        _TS: r.timestamps,
                        _IW: r.initial_window,
                        _ABC: r.abc,
                        _WS: r.window_scale,
                        _CC: cc,
                    }
                )
    return points


def _points_5_2(plan: Plan) -> list[dict[str, Any]]:
    """Experiment 5-2's points: every reading and controller, all 15 flows alike."""
    ber = ber_for_byte_error_rate(BASE_RATE)
    points = []
    for reading in plan.readings_5_2:
        r = READINGS[reading]
        # The errors sit on the S1-U links (docs/seed-003.md); 0 is the variant without them,
        # run for the faithful reading only.
        for errors in (ber, 0.0) if reading == FAITHFUL[0] else (ber,):
            for cc in ALL_CC:
                point: dict[str, Any] = {}
                for f in FLOWS_5_2:
                    point[f"flows.{f}.cc"] = cc
                    point[f"flows.{f}.tcp.mss"] = r.mss
                    point[f"flows.{f}.tcp.timestamps"] = r.timestamps
                    point[f"flows.{f}.tcp.sack"] = False
                for c in CELLS_5_2:
                    point[f"links.s1u{c}.a_to_b.loss.ber"] = errors
                points.append(point)
    return points


def _scaled(
    path: str, name: str, times: float = 1.0, per: float = 1.0, unit: str = ""
) -> tuple[Metric, Metric]:
    """A summary metric kept under its path, and the same in the seed's unit (``name``):
    times ``times`` over ``per`` (Mb/s over 1e6, not times 1e-6: the figures as the report
    has always computed them, to the last digit)."""
    return (
        Metric(path, summary=path),
        Metric(name, derived=lambda rows, _r: rows[path].astype(float) * times / per, unit=unit),
    )


def _flow_mean(path: str, factor: float) -> Callable[[pd.DataFrame, Results], np.ndarray]:
    """Per run: the mean over the 15 flows of a per-flow figure, in the seed's unit."""
    columns = [path.replace("*", f) for f in FLOWS_5_2]

    def of(rows: pd.DataFrame, _results: Results) -> np.ndarray:
        values: np.ndarray = (rows[columns].to_numpy(float) * factor).mean(axis=1)
        return values

    return of


def _total(rows: pd.DataFrame, _results: Results) -> np.ndarray:
    """Per run: the 15 flows' throughput summed, Mb/s."""
    columns = [f"flows.{f}.throughput_bps" for f in FLOWS_5_2]
    values: np.ndarray = (rows[columns].to_numpy(float) / 1e6).sum(axis=1)
    return values


def _jain(rows: pd.DataFrame, _results: Results) -> list[float]:
    """Per run: Jain's index of the 15 flows' throughput (the seed's eq. 5.1)."""
    columns = [f"flows.{f}.throughput_bps" for f in FLOWS_5_2]
    return [jain_index(r) for r in rows[columns].to_numpy(float) / 1e6]


_WHY_RUNS = (
    "5 replications in quick mode (a smoke reproduction: the orderings are noisy); 30 in full "
    "mode, at which most claims whose power for a 20 % difference was below 80 % at 5 reach it "
    "(docs/seed-003.md)"
)

SWEEP_5_1 = Sweep(
    name=EXP_5_1,
    scenario=Scenario("003/exp5-1"),
    axes={},
    points=_points_5_1(FULL),
    quick_points=_points_5_1(QUICK),
    metrics=(
        *_scaled("flows.bulk.throughput_bps", "thr", per=1e6, unit="Mb/s"),
        *_scaled("flows.bulk.delay_mean_s", "delay", 1e3, unit="ms"),
        *_scaled("flows.bulk.jitter_s", "jitter", 1e3, unit="ms"),
        *_scaled("flows.bulk.loss_ratio", "loss", 100.0, unit="%"),
        *_scaled("flows.bulk.sender.timeouts", "timeouts"),
        *_scaled("flows.bulk.sender.fast_recoveries", "fast_recoveries"),
    ),
    replications=Replications(QUICK.runs, FULL.runs, _WHY_RUNS),
    quick={"simulation.duration": QUICK.duration_5_1},
    full={"simulation.duration": FULL.duration_5_1},
    seed=MASTER_SEED,
)

SWEEP_5_2 = Sweep(
    name=EXP_5_2,
    scenario=Scenario("003/exp5-2"),
    axes={},
    points=_points_5_2(FULL),
    quick_points=_points_5_2(QUICK),
    metrics=(
        *(
            Metric(p, summary=p)
            for p in (
                "flows.*.throughput_bps",
                "flows.*.delay_mean_s",
                "flows.*.jitter_s",
                "flows.*.loss_ratio",
            )
        ),
        Metric("total", derived=_total, unit="Mb/s"),
        Metric("delay", derived=_flow_mean("flows.*.delay_mean_s", 1e3), unit="ms"),
        Metric("jitter", derived=_flow_mean("flows.*.jitter_s", 1e3), unit="ms"),
        Metric("loss", derived=_flow_mean("flows.*.loss_ratio", 100.0), unit="%"),
        Metric("jain", derived=_jain),
    ),
    replications=Replications(QUICK.runs, FULL.runs, _WHY_RUNS),
    quick={"simulation.duration": QUICK.duration_5_2},
    full={"simulation.duration": FULL.duration_5_2},
    seed=MASTER_SEED,
)

SWEEP_5_3 = exp5_3.sweep(
    MASTER_SEED,
    Replications(
        QUICK.runs_5_3,
        FULL.runs_5_3,
        "one replication in quick mode (its radio link failures need the seed's 100 s); 30 in "
        "full mode, as experiments 5-1 and 5-2",
    ),
    QUICK.duration_5_3,
)


# -- numbers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stat:
    """Mean and 95 % half-width over replications, with the replications themselves (empty
    when only the summary is known)."""

    mean: float
    half: float
    values: tuple[float, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray | pd.Series) -> Stat:
        vals = tuple(float(v) for v in values)
        return cls(*mean_ci(vals), vals)

    def text(self, digits: int = 3) -> str:
        return fmt_ci(self.mean, self.half, digits)

    @property
    def sample(self) -> Sample:
        return Sample.of(self.values)

    @property
    def estimate(self) -> Estimate:
        return Estimate.of_sample(self.sample)

    @property
    def low(self) -> float:
        return self.mean - (0.0 if math.isnan(self.half) else self.half)

    @property
    def high(self) -> float:
        return self.mean + (0.0 if math.isnan(self.half) else self.half)


def _select_5_1(frame: pd.DataFrame, rate: float, setup: tuple[str, bool], cc: str) -> pd.DataFrame:
    reading, sack = setup
    ber = ber_for_byte_error_rate(rate)
    mask = (
        np.isclose(frame[_BER].astype(float), ber, rtol=1e-9, atol=0.0)
        & (frame[_SACK].astype(bool) == sack)
        & (frame[_MSS] == READINGS[reading].mss)
        & (frame[_IW].astype(int) == READINGS[reading].initial_window)
        & (frame[_CC] == cc)
    )
    return frame[mask]


def _figures_5_1(
    frame: pd.DataFrame, rate: float, setup: tuple[str, bool]
) -> dict[str, dict[str, Stat]]:
    """Controller → figure → Stat, for one error rate and set-up; {} when not run."""
    out: dict[str, dict[str, Stat]] = {}
    for cc in ALL_CC:
        rows = _select_5_1(frame, rate, setup, cc)
        if rows.empty:
            return {}
        out[cc] = {
            "thr": Stat.of(rows["flows.bulk.throughput_bps"] / 1e6),
            "delay": Stat.of(rows["flows.bulk.delay_mean_s"] * 1e3),
            "jitter": Stat.of(rows["flows.bulk.jitter_s"] * 1e3),
            "loss": Stat.of(rows["flows.bulk.loss_ratio"] * 100.0),
            "timeouts": Stat.of(rows["flows.bulk.sender.timeouts"]),
            "fast_recoveries": Stat.of(rows["flows.bulk.sender.fast_recoveries"]),
        }
    return out


def jain_index(throughputs: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²), the seed's eq. 5.1."""
    x = np.asarray(throughputs, dtype=float)
    denominator = len(x) * float((x**2).sum())
    return float(x.sum() ** 2 / denominator) if denominator > 0 else math.nan


@dataclass(frozen=True)
class Figures52:
    total: Stat
    per_flow: tuple[float, ...]
    delay: Stat
    jitter: Stat
    loss: Stat
    jain: Stat


def _figures_5_2(frame: pd.DataFrame, cc: str, reading: str, errors: bool) -> Figures52 | None:
    first_cell = f"links.s1u{CELLS_5_2[0]}.a_to_b.loss.ber"
    first = FLOWS_5_2[0]
    rows = frame[
        (frame[f"flows.{first}.cc"] == cc)
        & (frame[f"flows.{first}.tcp.mss"] == READINGS[reading].mss)
        & ((frame[first_cell].astype(float) > 0) == errors)
    ]
    if rows.empty:
        return None
    thr = rows[[f"flows.{f}.throughput_bps" for f in FLOWS_5_2]].to_numpy(float) / 1e6
    delay = rows[[f"flows.{f}.delay_mean_s" for f in FLOWS_5_2]].to_numpy(float) * 1e3
    jitter = rows[[f"flows.{f}.jitter_s" for f in FLOWS_5_2]].to_numpy(float) * 1e3
    loss = rows[[f"flows.{f}.loss_ratio" for f in FLOWS_5_2]].to_numpy(float) * 100.0
    return Figures52(
        total=Stat.of(thr.sum(axis=1)),
        per_flow=tuple(float(v) for v in thr.mean(axis=0)),
        delay=Stat.of(delay.mean(axis=1)),
        jitter=Stat.of(jitter.mean(axis=1)),
        loss=Stat.of(loss.mean(axis=1)),
        jain=Stat.of([jain_index(r) for r in thr]),
    )


# -- Fig. 5.8: cwnd over the first 10 s ------------------------------------------------------


def cwnd_figures(
    times_s: Sequence[float] | np.ndarray,
    cwnd_bytes: Sequence[float] | np.ndarray,
    mss: int,
    end_s: float,
) -> tuple[int, float]:
    """Resets and mean window of one cwnd trace (a step function recorded on every change).

    A reset is a fall of the window to one segment from above it (a timeout's loss window,
    which is also ns-3.19's initial window, the seed's "initial congestion window"); the mean
    is time-weighted from the first record to ``end_s``, in segments."""
    t = np.asarray(times_s, dtype=float)
    w = np.asarray(cwnd_bytes, dtype=float)
    if t.size == 0:
        return 0, math.nan
    resets = int(np.sum((w[1:] <= mss) & (w[:-1] > mss)))
    edges = np.append(t, max(end_s, t[-1]))
    widths = np.diff(edges)
    span = edges[-1] - edges[0]
    mean = float(np.sum(w * widths) / span / mss) if span > 0 else float(w[-1] / mss)
    return resets, mean


#: The faithful reading's segment, bytes: Fig. 5.8's unit of cwnd.
_MSS_BYTES = int(READINGS[FAITHFUL[0]].mss.rstrip("B"))


def _cwnd_trace(tcp: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The bulk flow's cwnd records of one run's ``tcp`` series: times (s) and bytes."""
    rows = tcp[(tcp["flow"] == "bulk") & (tcp["var"] == "cwnd")]
    return rows["time_s"].to_numpy(float), rows["value"].to_numpy(float)


def _cwnd_metric(which: int) -> Callable[[pd.DataFrame, Results], list[float]]:
    """Per traced run: its resets (``which`` 0) or its mean cwnd in segments (1)."""

    def of(rows: pd.DataFrame, results: Results) -> list[float]:
        return [
            float(cwnd_figures(*_cwnd_trace(tcp), _MSS_BYTES, FIG_5_8_DURATION_S)[which])
            for tcp in results.read(rows, "tcp")
        ]

    return of


SWEEP_5_8 = Sweep(
    name=FIG_5_8,
    scenario=Scenario(
        "003/exp5-1",
        {
            "simulation.duration": f"{FIG_5_8_DURATION_S:g}s",
            "trace.packets": [],
            "trace.tcp": ["cwnd"],
        },
    ),
    axes={_CC: ALL_CC},
    metrics=(
        Metric("resets", derived=_cwnd_metric(0)),
        Metric("mean_cwnd", derived=_cwnd_metric(1), unit="segments"),
    ),
    replications=Replications(QUICK.runs, FULL.runs, _WHY_RUNS),
    seed=MASTER_SEED,
    keep=("tcp",),
)


@dataclass(frozen=True)
class CwndRuns:
    """Fig. 5.8's figures per controller: resets and mean cwnd (segments) per run."""

    resets: dict[str, Stat]
    mean_cwnd: dict[str, Stat]


def _cwnd_runs(results: Results) -> CwndRuns:
    def stats(metric: str) -> dict[str, Stat]:
        return {cc: Stat.of(results.values(metric, _traced(cc))) for cc in ALL_CC}

    return CwndRuns(stats("resets"), stats("mean_cwnd"))


def _cwnd_traces(results: Results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The first run's trace (s, segments) per controller, for the plot."""
    out = {}
    for cc in ALL_CC:
        t, w = _cwnd_trace(results.series(_traced(cc), "tcp")[0])
        out[cc] = (t, w / _MSS_BYTES)
    return out


# -- the runs the claims compare ---------------------------------------------------------------


def at(rate: float, cc: str, setup: tuple[str, bool] = FAITHFUL) -> Runs:
    """Experiment 5-1's runs of one controller at one error rate and set-up."""
    reading, sack = setup
    r = READINGS[reading]
    return Runs(
        EXP_5_1,
        {
            _BER: ber_for_byte_error_rate(rate),
            _SACK: sack,
            _MSS: r.mss,
            _IW: r.initial_window,
            _CC: cc,
        },
        label=f"{SHORT[cc]} {rate:g}",
    )


def cells(cc: str, reading: str = FAITHFUL[0], errors: bool = True) -> Runs:
    """Experiment 5-2's runs of one controller, with the 5e-5 errors or without."""
    return Runs(
        EXP_5_2,
        {
            f"{_FIRST_FLOW}.cc": cc,
            f"{_FIRST_FLOW}.tcp.mss": READINGS[reading].mss,
            _FIRST_CELL: ber_for_byte_error_rate(BASE_RATE) if errors else 0.0,
        },
        label=SHORT[cc],
    )


def _at_rate(rate: float) -> Callable[[str], Runs]:
    """Experiment 5-1's runs at one rate, faithful set-up, by controller."""
    return lambda cc: at(rate, cc)


def _traced(cc: str) -> Runs:
    return Runs(FIG_5_8, {_CC: cc}, label=SHORT[cc])


def ordering(metric: str, runs: Callable[[str], Runs], claimed: Sequence[str]) -> AtEvery:
    """The claim that the means are ordered as ``claimed`` (highest first): Welch's t-test of
    each neighbouring pair, all of which must hold; the estimate is the first pair's ratio."""
    return AtEvery(
        {
            f"{SHORT[a]} > {SHORT[b]}": Welch(metric, runs(a), runs(b), ">")
            for a, b in itertools.pairwise(claimed)
        }
    )


def lowest(metric: str, runs: Callable[[str], Runs], who: str, others: Sequence[str]) -> AtEvery:
    """The claim that ``who`` has the lowest mean: Welch's t-test against each of ``others``."""
    return AtEvery(
        {f"{SHORT[who]} < {SHORT[o]}": Welch(metric, runs(who), runs(o), "<") for o in others}
    )


def _mean_of(metric: str, runs: Runs) -> Callable[[Evaluation, Results], Estimate]:
    """A claim's estimate: the mean of a metric over a set of runs."""
    return lambda _e, results: Estimate.of_sample(Sample.of(results.values(metric, runs)))


def _part(label: str) -> Callable[[Evaluation, Results], Estimate | None]:
    """A claim's estimate: that of one of its points."""
    return lambda e, _results: e.parts[label].estimate


def _none(_e: Evaluation, _results: Results) -> None:
    """A claim without a number of its own (several points, in direction only)."""
    return None


def _text(text: str) -> Callable[[Evaluation, Results], str]:
    return lambda _e, _results: text


def _order_text(values: dict[str, Stat]) -> str:
    return " > ".join(SHORT[k] for k in sorted(values, key=lambda k: values[k].mean, reverse=True))


def _ratio_estimate(num: Stat, den: Stat) -> Estimate:
    return Estimate.of_ratio(num.sample, den.sample)


def _triple(values: dict[str, Stat], digits: int = 3, ccs: Sequence[str] = ALL_CC) -> str:
    return " / ".join(f"{SHORT[c]} {values[c].text(digits)}" for c in ccs if c in values)


def _seed_triple(values: Sequence[float]) -> str:
    return " / ".join(f"{SHORT[c]} {v:g}" for c, v in zip(CONTROLLERS, values, strict=True))


# -- figures ---------------------------------------------------------------------------------


def _draw_5_9(results: Results) -> Any:
    import matplotlib.pyplot as plt

    by_rate = _faithful(results)
    rates = sorted(by_rate)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    seed = {BASE_RATE: tuple(SEED_5_4[c]["thr"] for c in CONTROLLERS), **SEED_5_5}
    for i, cc in enumerate(CONTROLLERS):
        left.plot(rates, [seed[r][i] for r in rates], marker="o", label=LABEL[cc])
    for cc in ALL_CC:
        means = [by_rate[r][cc]["thr"].mean for r in rates]
        halves = [by_rate[r][cc]["thr"].half for r in rates]
        halves = [0.0 if math.isnan(h) else h for h in halves]
        right.errorbar(
            rates,
            means,
            yerr=halves,
            marker="o",
            capsize=3,
            label=LABEL[cc],
            linestyle="--" if cc == WESTWOOD_PLUS else "-",
        )
    left.set_title("seed (Tables 5.4, 5.5), its own unit")
    right.set_title("celltcp, faithful set-up: mean ± 95 % CI")
    left.set_ylabel("throughput (seed's unit)")
    right.set_ylabel("throughput (Mb/s)")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        # Label the measured rates only: log minor-tick labels collide over this short range.
        ax.set_xticks(rates, [f"{r:g}" for r in rates], rotation=45)
        ax.minorticks_off()
        ax.set_xlabel("error rate per byte")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    return fig


def _draw_5_8(results: Results) -> Any:
    import matplotlib.pyplot as plt

    cw = _cwnd_runs(results)
    traces = _cwnd_traces(results)
    fig, ax = plt.subplots(figsize=(10, 4))
    for cc in ALL_CC:
        t, w = traces[cc]
        ax.step(
            t,
            w,
            where="post",
            label=f"{LABEL[cc]} ({cw.resets[cc].values[0]:.0f} resets)",
            linestyle="--" if cc == WESTWOOD_PLUS else "-",
        )
    ax.set_xlim(0, FIG_5_8_DURATION_S)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments of 536 B)")
    ax.set_title("Experiment 5-1, error rate 5e-5, first 10 s (run number 0)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def _draw_5_2(results: Results) -> Any:
    import matplotlib.pyplot as plt

    by_cc = _with_errors(results)
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(len(FLOWS_5_2))
    width = 0.8 / len(by_cc)
    for i, (cc, f) in enumerate(by_cc.items()):
        ax.bar(
            x + (i - (len(by_cc) - 1) / 2) * width,
            f.per_flow,
            width,
            label=f"{LABEL[cc]} (Jain {f.jain.mean:.4f})",
        )
    ax.set_xticks(x, [f"UE{i:02d}" for i in range(1, 16)], rotation=45)
    ax.set_ylabel("throughput (Mb/s), mean over runs")
    ax.set_title("Experiment 5-2: per-flow throughput, error rate 5e-5, faithful set-up")
    ax.grid(True, axis="y", alpha=0.3)
    # Above the plot: inside it the legend would hide the bars of the middle flows.
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.08), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


# -- the figures the report quotes -------------------------------------------------------------

BySetup = dict[tuple[str, bool], dict[float, dict[str, dict[str, Stat]]]]


def _by_setup(results: Results) -> BySetup:
    """Experiment 5-1's figures per set-up, rate and controller (rates not run left out)."""
    p = plan(results.quick)
    frame = results.frames[EXP_5_1]
    out: BySetup = {}
    for setup in dict.fromkeys((*p.setups_at_base, *p.setups_in_sweep)):
        got = {r: _figures_5_1(frame, r, setup) for r in RATES}
        out[setup] = {r: f for r, f in got.items() if f}
    return out


def _faithful(results: Results) -> dict[float, dict[str, dict[str, Stat]]]:
    return _by_setup(results)[FAITHFUL]


def _f52_by(results: Results) -> dict[tuple[str, bool], dict[str, Figures52]]:
    """Experiment 5-2's figures per (reading, errors) whose every controller ran."""
    frame = results.frames[EXP_5_2]
    out: dict[tuple[str, bool], dict[str, Figures52]] = {}
    for reading in plan(results.quick).readings_5_2:
        for errors in (True, False):
            got = {cc: _figures_5_2(frame, cc, reading, errors) for cc in ALL_CC}
            complete = {cc: f for cc, f in got.items() if f is not None}
            if len(complete) == len(got):
                out[(reading, errors)] = complete
    return out


def _with_errors(results: Results) -> dict[str, Figures52]:
    return _f52_by(results)[(FAITHFUL[0], True)]


# -- claims ----------------------------------------------------------------------------------

_SETUP_TEXT = {
    ("536", False): "536 B, no SACK",
    ("536", True): "536 B, SACK",
    ("1448", False): "1448 B, no SACK",
    ("1448", True): "1448 B, SACK",
    ("536-ns3", False): "536 B, no SACK, IW 1, no ABC, no window scaling",
}

Reason = str | Callable[[Results], str]


def _throughput_claim(
    key: str,
    where: str,
    claim: str,
    rate: float,
    seed: Sequence[float],
    reason: Reason,
    setup: tuple[str, bool] = FAITHFUL,
    order: Sequence[str] = ("petra", TCPW, "newreno"),
    when: Callable[[Results], bool] | None = None,
) -> Claim:
    """Throughput ordered as ``order`` at one rate and set-up; the estimate is the ratio of the
    first two, compared with the seed's P/T."""

    def thr(results: Results) -> dict[str, Stat]:
        figs = _by_setup(results)[setup][rate]
        return {c: figs[c]["thr"] for c in ALL_CC}

    def detail(_e: Evaluation, results: Results) -> str:
        t = thr(results)
        return f"P/{SHORT[order[1]]}; Mb/s " + _triple(t) + f"; order {_order_text(t)}"

    return Claim(
        key,
        where,
        claim,
        ordering("thr", lambda c: at(rate, c, setup), order),
        source_text=_seed_triple(seed) + f" (P/T {seed[2] / seed[1]:.2f})",
        source_value=seed[2] / seed[1] if order[1] == TCPW else None,
        reason=lambda _e, results: reason(results) if callable(reason) else reason,
        detail=detail,
        digits=2,
        shortfall=False,
        when=when,
    )


def _ablation_claim(setup: tuple[str, bool]) -> Claim:
    def reason(results: Results) -> str:
        by_setup = _by_setup(results)
        return _ablation_reason(setup, by_setup[setup][BASE_RATE], by_setup[FAITHFUL][BASE_RATE])

    return _throughput_claim(
        "5.4 ablation " + _SETUP_TEXT[setup],
        "5.4",
        f"the same, ablation: {_SETUP_TEXT[setup]}",
        BASE_RATE,
        [SEED_5_4[c]["thr"] for c in CONTROLLERS],
        reason,
        setup=setup,
        when=lambda results: setup in plan(results.quick).setups_at_base,
    )


def _tcpw_spread(results: Results) -> str:
    tcpw_thr = _faithful(results)[BASE_RATE][TCPW]["thr"].values
    return (
        f"; its throughput varies {max(tcpw_thr) / min(tcpw_thr):.0f}-fold between runs "
        f"({min(tcpw_thr):.2f}–{max(tcpw_thr):.2f} Mb/s)"
        if tcpw_thr and min(tcpw_thr) > 0
        else ""
    )


def _sweep_reason(rate: float) -> Reason:
    if rate < 2.5e-4:
        return (
            "the original Westwood overflows the remote host's queue at the end of "
            "each fast recovery (row 5.4)"
        )

    def reason(results: Results) -> str:
        a = _faithful(results)[rate]
        return (
            "the original Westwood falls below NewReno: through its timeouts its ssthresh stays "
            "about the whole pipe (BWE·RTTmin), so its slow starts and Reno's go-back-N lose "
            "many packets at once and successive timeouts double RFC 6298's RTO "
            f"({a[TCPW]['timeouts'].mean:.1f} timeouts and "
            f"{a[TCPW]['fast_recoveries'].mean:.1f} fast recoveries per run, NewReno "
            f"{a['newreno']['timeouts'].mean:.1f} and "
            f"{a['newreno']['fast_recoveries'].mean:.1f}; traced, seed 1 at 2.5e-4 waits "
            "3.2, 6.4 and 12.8 s between its last timeouts)"
        )

    return reason


def _stats_at(results: Results, rate: float, name: str) -> dict[str, Stat]:
    figs = _faithful(results)[rate]
    return {c: figs[c][name] for c in ALL_CC}


def _per_rate(name: str, rates: Sequence[float]) -> Callable[[Evaluation, Results], str]:
    """The "ours" cell of a claim at several rates: the seed's controllers' means per rate."""

    def detail(_e: Evaluation, results: Results) -> str:
        faithful = _faithful(results)
        return "; ".join(
            f"{r:g}: " + " / ".join(f"{faithful[r][c][name].mean:.2f}" for c in CONTROLLERS)
            for r in rates
        )

    return detail


def _seed_points(
    name: str, rates: Sequence[float], seed: Mapping[float, Sequence[float]]
) -> Callable[[Evaluation, Results], list[tuple[float, float]]]:
    """(celltcp's mean, the seed's value) of each of the seed's controllers at each rate."""

    def points(_e: Evaluation, results: Results) -> list[tuple[float, float]]:
        faithful = _faithful(results)
        return [
            (faithful[r][c][name].mean, seed[r][i])
            for r in rates
            for i, c in enumerate(CONTROLLERS)
        ]

    return points


_FOUR = SWEEP_RATES[:4]


def _tcpw_minus_petra(results: Results) -> dict[float, float]:
    faithful = _faithful(results)
    return {r: faithful[r][TCPW]["delay"].mean - faithful[r]["petra"]["delay"].mean for r in _FOUR}


def _claims_5_1() -> tuple[Claim, ...]:
    base = BASE_RATE
    seed_thr = [SEED_5_4[c]["thr"] for c in CONTROLLERS]
    ablations = tuple(s for s in FULL.setups_at_base if s != FAITHFUL)
    resets = SEED_FIG_5_8["resets"][TCPW]

    def base_stats(name: str) -> Callable[[Results], dict[str, Stat]]:
        return lambda results: _stats_at(results, base, name)

    def triple(name: str, digits: int, prefix: str) -> Callable[[Evaluation, Results], str]:
        return lambda _e, results: prefix + _triple(base_stats(name)(results), digits)

    def cw_triple(name: str, digits: int, prefix: str) -> Callable[[Evaluation, Results], str]:
        return lambda _e, results: prefix + _triple(getattr(_cwnd_runs(results), name), digits)

    def reset_detail(_e: Evaluation, results: Results) -> str:
        t_r = _cwnd_runs(results).resets[TCPW]
        return (
            f"TOST on [{resets / MAGNITUDE_FACTOR:.2f}, {resets * MAGNITUDE_FACTOR:.2f}]; "
            "resets per run " + ", ".join(f"{v:.0f}" for v in t_r.values)
        )

    def reset_reason(_e: Evaluation, results: Results) -> str:
        cw = _cwnd_runs(results)
        t_r = cw.resets[TCPW]
        return (
            "not chance: the resets come from the original Westwood's own overflows. "
            "Each end of fast recovery sets cwnd = BWE·RTTmin, about the pipe, and the burst "
            "overflows the remote host's 100-packet queue; a timeout follows, and more follow "
            "on radio losses while the window regrows "
            f"({t_r.mean:.1f} resets in 10 s, {min(t_r.values, default=math.nan):.0f} to "
            f"{max(t_r.values, default=math.nan):.0f} per run; NewReno "
            f"{cw.resets['newreno'].mean:.1f}; traced over the same runs: 4.4 overflow bursts "
            "of about 110 packets each, and 11 resets without any radio error)"
        )

    return (
        _throughput_claim(
            "5.4 throughput",
            "5.4",
            "throughput PETRA > TCPW > NewReno (faithful set-up)",
            base,
            seed_thr,
            lambda results: (
                "the original Westwood's per-ACK samples read the bottleneck's "
                "25 Mb/s from back-to-back packets (BWE about 22 Mb/s while it carries under 1 "
                "Mb/s), so ssthresh = BWE·RTTmin is about the whole pipe; each end of fast recovery "
                "sets cwnd = ssthresh, a jump of up to 270 segments sent at once into the remote "
                "host's 100-packet queue, which overflows (seed 1: 3001 overflows there, 406 "
                "random losses)" + _tcpw_spread(results)
            ),
        ),
        *(_ablation_claim(s) for s in ablations),
        _throughput_claim(
            "5.4 Westwood+",
            "5.4",
            "the same with Westwood+ as TCPW (ablation)",
            base,
            seed_thr,
            "an ablation of the baseline",
            order=("petra", WESTWOOD_PLUS, "newreno"),
        ),
        Claim(
            "5.4 delay lowest",
            "5.4",
            "delay: NewReno lowest",
            lowest("delay", lambda c: at(base, c), "newreno", ("petra", TCPW)),
            source_text="N 33.69 ms (T 114.34, P 90.16)",
            source_value=SEED_5_4["newreno"]["delay"],
            estimate=_mean_of("delay", at(base, "newreno")),
            detail=triple("delay", 2, "ms "),
            reason=_text(
                "celltcp's path has no queue but the 100-packet drop-tail ones of Table 5.2: "
                "every delay sits near the 28.4 ms floor"
            ),
            digits=2,
            unit="ms",
            shortfall=False,
        ),
        Claim(
            "5.4 delay T > P",
            "5.4",
            "delay: TCPW > PETRA",
            Welch("delay", at(base, TCPW), at(base, "petra"), ">", statistic="difference"),
            source_text="T 114.34 − P 90.16 = 24.18 ms",
            source_value=114.34 - 90.16,
            detail=_text("T − P"),
            reason=_text("as above: no deep queue on celltcp's path"),
            digits=2,
            unit="ms",
            shortfall=False,
        ),
        Claim(
            "5.4 loss lowest",
            "5.4",
            "loss: PETRA lowest",
            lowest("loss", lambda c: at(base, c), "petra", ("newreno", TCPW)),
            source_text="P 3.0 % (N 3.1, T 3.2)",
            source_value=SEED_5_4["petra"]["loss"],
            estimate=_mean_of("loss", at(base, "petra")),
            detail=triple("loss", 2, "% "),
            reason=_text(
                "every controller loses at least the random errors (2.84 % of 576-byte "
                "packets); the original Westwood adds overflows of the remote host's queue"
            ),
            digits=2,
            unit="%",
            shortfall=False,
        ),
        *(
            _throughput_claim(
                f"5.5 throughput {rate:g}",
                "5.5",
                f"throughput at {rate:g}: PETRA > TCPW > NewReno",
                rate,
                SEED_5_5[rate],
                _sweep_reason(rate),
            )
            for rate in SWEEP_RATES
        ),
        Claim(
            "5.5 delay lowest",
            "5.5",
            "delay: NewReno lowest at every rate",
            AtEvery(
                {
                    f"{r:g}": lowest("delay", _at_rate(r), "newreno", ("petra", TCPW))
                    for r in SWEEP_RATES
                }
            ),
            source_text="N 31.5–33.24 ms, T and P 85–131 ms (T 31.58 at 5e-4)",
            estimate=_none,
            detail=lambda e, results: (
                "ms N / T / P: " + _per_rate("delay", SWEEP_RATES)(e, results)
            ),
            reason=_text("near the 28.4 ms floor for all: no deep queue on celltcp's path"),
            points=_seed_points("delay", SWEEP_RATES, SEED_5_5_DELAY),
            shortfall=False,
        ),
        Claim(
            "5.5 delay T > P",
            "5.5",
            "delay: TCPW > PETRA (7.5e-5 … 2.5e-4)",
            AtEvery({f"{r:g}": Welch("delay", at(r, TCPW), at(r, "petra"), ">") for r in _FOUR}),
            source_text="T − P 12.5–28.1 ms",
            estimate=_none,
            detail=lambda _e, results: (
                "ms T − P: "
                + "; ".join(f"{r:g}: {d:+.2f}" for r, d in _tcpw_minus_petra(results).items())
            ),
            reason=_text(
                "no deep queue on celltcp's path; the original Westwood queues more than PETRA"
            ),
            points=lambda _e, results: [
                (d, SEED_5_5_DELAY[r][1] - SEED_5_5_DELAY[r][2])
                for r, d in _tcpw_minus_petra(results).items()
            ],
            shortfall=False,
        ),
        Claim(
            "5.5 loss lowest",
            "5.5",
            "loss: PETRA lowest (7.5e-5 … 2.5e-4; at 5e-4 the seed has TCPW lowest)",
            AtEvery(
                {f"{r:g}": lowest("loss", _at_rate(r), "petra", ("newreno", TCPW)) for r in _FOUR}
            ),
            source_text="P 4.0–14.2 %, 0.2–0.8 points below",
            estimate=_none,
            detail=lambda e, results: "% N / T / P: " + _per_rate("loss", _FOUR)(e, results),
            reason=_text(
                "PETRA and NewReno lose the random errors alone; their difference is within "
                "the binomial noise"
            ),
            points=_seed_points("loss", _FOUR, SEED_5_5_LOSS),
            shortfall=False,
        ),
        Claim(
            "Fig. 5.9 falls",
            "Fig. 5.9",
            "throughput falls with the error rate, every controller",
            AtEvery(
                {
                    f"{SHORT[cc]} {a:g}→{b:g}": Welch("thr", at(a, cc), at(b, cc), ">")
                    for cc in CONTROLLERS
                    for a, b in itertools.pairwise(RATES)
                }
            ),
            source_text="yes",
            estimate=_none,
            detail=_text(""),
            reason=_text("neighbouring rates too close for the replications"),
            shortfall=False,
        ),
        Claim(
            "Fig. 5.8 resets T > P",
            "Fig. 5.8",
            "cwnd resets in the first 10 s: TCPW more than PETRA",
            Welch("resets", _traced(TCPW), _traced("petra"), ">", statistic="difference"),
            source_text="T 5, P 1 (difference 4)",
            source_value=4.0,
            detail=cw_triple("resets", 1, "T − P; resets "),
            reason=_text(
                "PETRA's timeouts keep the window (radio losses), the original Westwood's "
                "reset it; the counts differ from the seed's single run"
            ),
            digits=1,
            shortfall=False,
        ),
        Claim(
            "Fig. 5.8 TCPW resets",
            "Fig. 5.8",
            "TCPW resets its window in the first 10 s (five times; tested: the mean within "
            f"×{MAGNITUDE_FACTOR:g} of 5)",
            WithinFactor("resets", _traced(TCPW), float(resets)),
            source_text="5",
            source_value=float(resets),
            detail=reset_detail,
            reason=reset_reason,
            digits=1,
            shortfall=False,
        ),
        Claim(
            "Fig. 5.8 largest cwnd",
            "Fig. 5.8",
            "largest mean cwnd: PETRA (over the first 10 s)",
            AtEvery(
                {
                    f"P > {SHORT[o]}": Welch("mean_cwnd", _traced("petra"), _traced(o), ">")
                    for o in ("newreno", TCPW)
                }
            ),
            source_text="PETRA highest (figure)",
            estimate=_part("P > T"),
            detail=cw_triple("mean_cwnd", 1, "P/T; segments "),
            reason=_text(
                "the original Westwood's ssthresh, BWE·RTTmin, is about the whole pipe, and "
                "each end of fast recovery sets cwnd to it: its mean window is the largest"
            ),
            digits=2,
            shortfall=False,
        ),
        Claim(
            "Fig. 5.8 NewReno smallest",
            "Fig. 5.8",
            "NewReno: a very small cwnd",
            lowest("mean_cwnd", _traced, "newreno", ("petra", TCPW)),
            source_text="NewReno lowest (figure)",
            estimate=_mean_of("mean_cwnd", _traced("newreno")),
            detail=_text("segments"),
            digits=1,
            shortfall=False,
        ),
    )


def _claims_5_2() -> tuple[Claim, ...]:
    seed_tot = [SEED_5_7[c]["total"] for c in CONTROLLERS]

    def stats(name: str) -> Callable[[Results], dict[str, Stat]]:
        return lambda results: {c: getattr(f, name) for c, f in _with_errors(results).items()}

    def triple(name: str, digits: int, prefix: str) -> Callable[[Evaluation, Results], str]:
        return lambda _e, results: prefix + _triple(stats(name)(results), digits)

    def jain_reason(_e: Evaluation, results: Results) -> str:
        jain = stats("jain")(results)
        return (
            "the original Westwood's flows, collapsed by their overflows, stall in their "
            "timeouts' backoff for different times (seed 1: 0.019–0.143 Mb/s per flow, 8–23 "
            f"timeouts each): its index is {jain[TCPW].mean:.3f}; NewReno "
            f"({jain['newreno'].mean:.3f}) and PETRA ({jain['petra'].mean:.3f}) lose the "
            "random errors alone"
        )

    return (
        Claim(
            "5.7 total throughput",
            "5.7",
            "total throughput PETRA > TCPW > NewReno",
            ordering("total", cells, ("petra", TCPW, "newreno")),
            source_text=_seed_triple(seed_tot) + f" (P/T {seed_tot[2] / seed_tot[1]:.2f})",
            source_value=seed_tot[2] / seed_tot[1],
            detail=triple("total", 2, "P/T; Mb/s "),
            reason=lambda _e, results: (
                "the original Westwood collapses in the LTE cells: "
                "ACKs of one transport block arrive microseconds apart, its per-ACK samples read "
                "tens of Mb/s, and its bursts overflow the remote host's 100-packet queue and the "
                f"10 KiB RLC buffers ({_with_errors(results)[TCPW].loss.mean:.0f} % of its packets "
                "lost; seed 1: 8303 and 2197 overflows)"
            ),
            digits=2,
            shortfall=False,
        ),
        Claim(
            "5.7 fairness",
            "5.7",
            "fairness: Jain's index above 0.99",
            AtEvery({SHORT[c]: MeanAgainst("jain", cells(c), 0.99, ">") for c in CONTROLLERS}),
            source_text="P 0.99978",
            source_value=SEED_5_7["petra"]["jain"],
            estimate=_part("P"),
            detail=triple("jain", 4, ""),
            reason=jain_reason,
            digits=4,
            shortfall=False,
        ),
        Claim(
            "5.7 delay lowest",
            "5.7",
            "delay: NewReno lowest",
            lowest("delay", cells, "newreno", ("petra", TCPW)),
            source_text="N 45.50 ms (T 45.60, P 45.64)",
            source_value=SEED_5_7["newreno"]["delay"],
            estimate=_mean_of("delay", cells("newreno")),
            detail=triple("delay", 2, "ms "),
            reason=_text("no radio latency or LENA processing delay in celltcp"),
            digits=2,
            unit="ms",
            shortfall=False,
        ),
        Claim(
            "5.7 loss lowest",
            "5.7",
            "loss (mean per flow): PETRA lowest",
            lowest("loss", cells, "petra", ("newreno", TCPW)),
            source_text="P 0.44 % (N 0.48, T 0.46)",
            source_value=SEED_5_7["petra"]["loss"],
            estimate=_mean_of("loss", cells("petra")),
            detail=triple("loss", 2, "% "),
            reason=_text(
                "NewReno, PETRA and Westwood+ lose the random errors alone (2.84 % of 576-byte "
                "packets); the seed's losses are below the 5e-5 errors themselves"
            ),
            digits=2,
            unit="%",
            shortfall=False,
        ),
    )


def _ablation_reason(
    setup: tuple[str, bool], figs: dict[str, dict[str, Stat]], faithful: dict[str, dict[str, Stat]]
) -> str:
    """What an ablation of experiment 5-1 changes, with its measured figures: why its PETRA/TCPW
    ratio differs from the seed's (docs/seed-003.md, "The faithful set-up")."""
    loss = {c: figs[c]["loss"].mean for c in ALL_CC}
    thr = {c: figs[c]["thr"].mean for c in ALL_CC}
    per = f"{loss[TCPW]:.1f} % of its packets lost, NewReno {loss['newreno']:.1f} %"
    reading, sack = setup
    if reading == "536-ns3":
        return (
            "without window scaling the original Westwood's window stops at 64 KiB (122 "
            "segments), so the jumps at the end of fast recovery overflow the remote host's "
            f"queue far less ({per}) and its ssthresh of about the pipe makes it lead"
        )
    if reading == "1448" and not sack:
        return (
            "the 100-packet queues hold 150 kB of 1500-byte packets, nearly the pipe: the "
            "original Westwood's bursts fit and its ssthresh of about the pipe makes it lead "
            f"({per})"
        )
    gain = thr["petra"] / faithful["petra"]["thr"].mean if faithful["petra"]["thr"].mean else 0.0
    return (
        f"with SACK PETRA repairs several radio losses per window and carries {gain:.1f} times "
        "its throughput on the faithful set-up, while the original Westwood still overflows "
        f"the queues ({per})"
    )


def _loss_readings_rows(results: Results) -> list[tuple[str, ...]]:
    """The seed's loss ratio beside each reading's packet error rate and measured losses."""
    by_setup = _by_setup(results)
    rows = []
    for rate in RATES:
        seed = (
            (SEED_5_4["newreno"]["loss"], SEED_5_4[TCPW]["loss"], SEED_5_4["petra"]["loss"])
            if rate == BASE_RATE
            else SEED_5_5_LOSS[rate]
        )
        seed_mean = float(np.mean(seed))
        cells = [f"{rate:g}", " / ".join(f"{v:g}" for v in seed)]
        for reading in ("536", "1448"):
            figs = by_setup.get((reading, False), {}).get(rate)
            per = 100 * packet_error_rate(rate, READINGS[reading].packet_bytes)
            if not figs:
                cells += [f"{per:.2f}", "not run", "", ""]
                continue
            # N and P (and W+) lose the random errors alone; TCPW's overflows are its own.
            errors_only = float(np.mean([figs[c]["loss"].mean for c in ("newreno", "petra")]))
            cells += [
                f"{per:.2f}",
                " / ".join(figs[c]["loss"].text(2) for c in CONTROLLERS),
                f"{errors_only / seed_mean:.2f}",
                magnitude(errors_only, seed_mean).replace("magnitude ", ""),
            ]
        rows.append(tuple(cells))
    return rows


def _gains_rows(results: Results) -> list[tuple[str, ...]]:
    """PETRA's throughput over TCPW's and over Westwood+'s, per rate and set-up."""
    by_setup = _by_setup(results)
    rows: list[tuple[str, ...]] = []
    for rate in RATES:
        seed = (
            (SEED_5_4["petra"]["thr"] / SEED_5_4[TCPW]["thr"])
            if rate == BASE_RATE
            else SEED_5_5[rate][2] / SEED_5_5[rate][1]
        )
        for setup, by_rate in by_setup.items():
            figs = by_rate.get(rate)
            if not figs:
                continue
            thr = {c: figs[c]["thr"] for c in ALL_CC}
            pt = _ratio_estimate(thr["petra"], thr[TCPW])
            pw = _ratio_estimate(thr["petra"], thr[WESTWOOD_PLUS])
            test = Ratio("thr", at(rate, "petra", setup), at(rate, TCPW, setup), ">")
            rows.append(
                (
                    f"{rate:g}",
                    _SETUP_TEXT[setup],
                    f"{seed:.2f}",
                    pt.text(2),
                    test.evaluate(results).decision.verdict.value,
                    magnitude(pt.value, seed).replace("magnitude ", ""),
                    pw.text(2),
                )
            )
    return rows


# -- the report ------------------------------------------------------------------------------


def _files(results: Results) -> tuple[str, ...]:
    return tuple(Path(s.scenario.path()).name for s in results.study.sweeps[:3])


def _what_was_run(results: Results) -> list[str]:
    from celltcp import _core

    p = plan(results.quick)
    options = results.options or Options(quick=results.quick)
    files = _files(results)
    runs = results.runs
    return [
        f"celltcp {_core.__version__}, `celltcp reproduce {NAME}"
        f"{' --quick' if results.quick else ''}` ({'quick' if results.quick else 'full'} mode)",
        f"scenario files: `celltcp/examples/003/{files[0]}` (experiment 5-1), "
        f"`celltcp/examples/003/{files[1]}` (experiment 5-2) and "
        f"`celltcp/examples/003/{files[2]}` (experiment 5-3); the mapping of the "
        "seed's set-up is explained in docs/seed-003.md",
        "faithful set-up (ns-3.19's TCP): 536-byte segments without timestamps "
        "(576-byte packets), no SACK, TCPW = the original Westwood "
        "(`westwood-original`); ablations: SACK, 1448-byte segments with timestamps "
        "(1500-byte packets), Westwood+ (`westwood`) as a fourth controller",
        f"master seed {MASTER_SEED}, replications: run numbers 0–{p.runs - 1} "
        "(independent random streams) at every point of experiments 5-1 and 5-2 and "
        "for Fig. 5.8",
        f"experiment 5-1: {p.duration_5_1} per run; per-byte error rate 5e-5 with "
        + ", ".join(_SETUP_TEXT[s] for s in p.setups_at_base)
        + "; "
        + ", ".join(f"{r:g}" for r in SWEEP_RATES)
        + " with "
        + ", ".join(_SETUP_TEXT[s] for s in p.setups_in_sweep)
        + f"; {runs[EXP_5_1]} runs; Fig. 5.8: {FIG_5_8_DURATION_S:g} s runs of the faithful "
        "set-up with the cwnd traced",
        f"experiment 5-2: {p.duration_5_2} per run; 15 flows, all with the same "
        "controller, no SACK, segments of "
        + " and ".join(f"{READINGS[r].mss}" for r in p.readings_5_2)
        + f" with the 5e-5 errors, the faithful set-up also without; {runs[EXP_5_2]} runs",
        f"experiment 5-3: {p.duration_5_3} per run; the four controllers at 25, 50, "
        "75 and 100 km/h on the faithful set-up, "
        + (f"run numbers 0–{p.runs_5_3 - 1}" if p.runs_5_3 > 1 else "run number 0")
        + f"; {runs[exp5_3.EXP_5_3]} runs",
        f"results store: `{options.store}`" if options.store else "results in memory",
        f"wall time of the runs: {results.wall_s:.1f} s",
    ]


def _reading_text(results: Results) -> str:
    return (
        "celltcp's figures are means over the replications with the half-width of their "
        "Student-t 95 % confidence interval. Throughput is in Mb/s; the seed's "
        '"throughput" columns cannot be rates (81–99 Mb/s for one flow over a 25 Mb/s '
        "link), so only orderings and ratios are compared. Jitter is RFC 3550's "
        "interarrival jitter."
        + (
            " **Quick mode**: the runs of experiments 5-1 and 5-2 are much shorter than the "
            "seed's 100 s, fewer set-ups are swept and experiment 5-3 has one replication, "
            "so the figures are noisier than in the full mode and in docs/seed-003.md."
            if results.quick
            else ""
        )
    )


def _rows_5_4(results: Results) -> list[tuple[str, ...]]:
    t54: list[tuple[str, ...]] = []
    for setup, by_rate in _by_setup(results).items():
        figs = by_rate.get(BASE_RATE)
        if not figs:
            continue
        for cc in ALL_CC:
            f = figs[cc]
            t54.append(
                (
                    LABEL[cc],
                    _SETUP_TEXT[setup],
                    f"{SEED_5_4[cc]['thr']:g}" if cc in SEED_5_4 else "",
                    f["thr"].text(),
                    f["delay"].text(2),
                    f["jitter"].text(3),
                    f["loss"].text(2),
                    f["timeouts"].text(1),
                    f["fast_recoveries"].text(1),
                )
            )
    return t54


def _table_5_5(results: Results) -> list[Block]:
    """Table 5.5's rows, with a throughput column per set-up of the mode's sweep."""
    p = plan(results.quick)
    by_setup = _by_setup(results)
    faithful = by_setup[FAITHFUL]
    t55 = []
    for rate in SWEEP_RATES:
        for cc in ALL_CC:
            i = CONTROLLERS.index(cc) if cc in CONTROLLERS else None
            row = [f"{rate:g}", LABEL[cc], "" if i is None else f"{SEED_5_5[rate][i]:g}"]
            for setup in p.setups_in_sweep:
                figs = by_setup[setup].get(rate)
                row.append(figs[cc]["thr"].text() if figs else "not run")
            f = faithful[rate][cc]
            row += [
                "" if i is None else f"{SEED_5_5_DELAY[rate][i]:g}",
                f["delay"].text(2),
                "" if i is None else f"{SEED_5_5_LOSS[rate][i]:g}",
                f["loss"].text(2),
                f["timeouts"].text(1),
            ]
            t55.append(tuple(row))
    header = (
        "rate",
        "TCP",
        "seed thr.",
        *(f"Mb/s, {_SETUP_TEXT[s]}" for s in p.setups_in_sweep),
        "seed delay ms",
        "delay ms",
        "seed loss %",
        "loss %",
        "timeouts",
    )
    return [Table("", header, lambda _r: t55)]


def _rows_5_8(results: Results) -> list[tuple[str, ...]]:
    cw = _cwnd_runs(results)
    return [(LABEL[cc], cw.resets[cc].text(1), cw.mean_cwnd[cc].text(1)) for cc in ALL_CC]


def _rows_5_7(results: Results) -> list[tuple[str, ...]]:
    t57: list[tuple[str, ...]] = []
    for (reading, errors), by_cc in _f52_by(results).items():
        for cc in ALL_CC:
            g = by_cc[cc]
            t57.append(
                (
                    f"{READINGS[reading].mss}, " + ("5e-5" if errors else "none"),
                    LABEL[cc],
                    f"{SEED_5_7[cc]['total']:g}" if errors and cc in SEED_5_7 else "",
                    g.total.text(2),
                    f"{min(g.per_flow):.2f}–{max(g.per_flow):.2f}",
                    g.delay.text(2),
                    g.jitter.text(3),
                    g.loss.text(2),
                    g.jain.text(5),
                )
            )
    return t57


REPORT: tuple[Block, ...] = (
    Section("What was run"),
    Items(_what_was_run),
    Text(_reading_text),
    Section("Which reading of the packet size reproduces the seed's loss ratios"),
    Table(
        "",
        (
            "rate",
            "seed loss % N / T / P",
            "536: PER %",
            "536: measured % N / T / P",
            "536: N,P mean / seed mean",
            "536: magnitude",
            "1448: PER %",
            "1448: measured % N / T / P",
            "1448: N,P mean / seed mean",
            "1448: magnitude",
        ),
        _loss_readings_rows,
        text="The seed's loss ratio beside the packet error rate (PER) of each reading at the "
        "per-byte error rate and the loss measured without SACK. NewReno and PETRA lose the "
        "random errors alone (their mean is compared with the seed's mean of the three); "
        "the original Westwood adds overflows of the remote host's 100-packet queue.",
    ),
    Section("The seed beside celltcp"),
    Text(
        "One row per claim of the seed, decided by a stated test on the replications "
        "(celltcp.reproduce.verdict: Welch's t-test for two means, the one-sample t-test, "
        "the t-test of a ratio on the log scale; a claim at several points holds when "
        "every point does). Seed values are N(ewReno) / T(CPW) / P(ETRA) in the seed's "
        "units; celltcp's are N / T (the original Westwood) / P / W+ (Westwood+), mean ± "
        "95 % CI, faithful set-up unless the row says otherwise."
    ),
    Claims(),
    Section("Experiment 5-1, Table 5.4 (error rate 5e-5)"),
    Table(
        "",
        (
            "TCP",
            "set-up",
            "seed thr.",
            "Mb/s",
            "delay ms",
            "jitter ms",
            "loss %",
            "timeouts",
            "fast recoveries",
        ),
        _rows_5_4,
    ),
    Section("Experiment 5-1, PETRA's gain over TCPW"),
    Table(
        "",
        (
            "rate",
            "set-up",
            "seed P/T",
            "celltcp P/T [95 % CI]",
            "P > T",
            "P/T vs seed",
            "celltcp P/W+ [95 % CI]",
        ),
        _gains_rows,
        text="PETRA's throughput over the original Westwood's (P/T, the seed's TCPW) and "
        'over Westwood+\'s (P/W+), with the delta-method 95 % interval; "P > T" is '
        "the t-test of the ratio on the log scale.",
    ),
    Section("Experiment 5-1, Table 5.5 (error-rate sweep)"),
    Text("Throughput per set-up; delay, loss and timeouts in the faithful set-up."),
    Blocks(_table_5_5),
    Figure(
        "fig-5-9-throughput-vs-error-rate.png",
        "Experiment 5-1 (Fig. 5.9 style): throughput of one bulk flow against the error rate, "
        "per controller; the seed on the left, celltcp's faithful set-up (536-byte segments, "
        "no SACK) on the right, with Westwood+ dashed.",
        _draw_5_9,
    ),
    Section("Experiment 5-1, Fig. 5.8 (cwnd, first 10 s)"),
    Table("", ("TCP", "resets in 10 s", "mean cwnd (segments)"), _rows_5_8),
    Figure(
        "fig-5-8-cwnd.png",
        "Experiment 5-1 (Fig. 5.8 style): congestion window of each controller over the first "
        "10 s, faithful set-up, one run; a reset is a fall to one segment.",
        _draw_5_8,
    ),
    Section("Experiment 5-2, Table 5.7 (15 flows, three cells)"),
    Table(
        "",
        (
            "segments, errors",
            "TCP",
            "seed total",
            "total Mb/s",
            "per flow Mb/s (min–max)",
            "delay ms",
            "jitter ms",
            "loss %",
            "Jain",
        ),
        _rows_5_7,
    ),
    Figure(
        "exp5-2-per-flow-throughput.png",
        "Experiment 5-2: throughput of each of the 15 flows (five UEs per cell) per controller, "
        "with Jain's index (mean over runs).",
        _draw_5_2,
    ),
    *exp5_3.SECTION,
    Text(
        "Why celltcp differs where it does (the original Westwood's overflows, timeouts "
        "dominating at high error rates, PETRA overflowing the 10 KiB RLC buffer in "
        "experiment 5-2, the seed's unexplained delays, where the UE of experiment 5-3 "
        "loses coverage) is discussed in docs/seed-003.md."
    ),
)

STUDY = Study(
    name=NAME,
    title=f"Reproduction {NAME}: PETRA over LTE (seed `003_…`, chapter 5)",
    question=SUMMARY,
    sweeps=(SWEEP_5_1, SWEEP_5_2, SWEEP_5_3, SWEEP_5_8),
    claims=(*_claims_5_1(), *_claims_5_2(), *exp5_3.CLAIMS),
    report=REPORT,
)


def run(options: Options) -> Document:
    """Runs the three experiments and Fig. 5.8's traced runs on :mod:`celltcp.study` and
    returns the report (nothing is written here but the store)."""
    from celltcp.study import document
    from celltcp.study import run as run_study

    return document(STUDY, run_study(STUDY, options), options)
