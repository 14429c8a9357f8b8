"""Seed `001_…` ("Evaluation of End-to-End TCP Performance over WCDMA"): FTP downloads over a
WCDMA dedicated channel with RLC acknowledged mode, and a split-TCP proxy.

Everything runs on ``celltcp/examples/001/ftp-dch.toml``
(server — Internet 190 ms, loss 1 % — GGSN —
SGSN — RNC — DCH — UE, a round trip of about 500 ms as the seed's BDP figures imply; FTP with
exponential inter-request times of mean 30 s on a schedule drawn from the application's own
random stream, one file per connection, a file done when the UE has it; NewReno) through the
study engine (:mod:`celltcp.study`), so every run is stored and a repeated invocation reuses
them. The figure is the seed's **RLC throughput**, ``dch.radio.rlc_throughput_bps``: SDU bits
delivered to the UE over the time the downlink RLC is active within transfers (docs/wcdma.md,
"Outputs"). The seed's goals:

1. RLC throughput versus file size (50–200 kB) per DCH rate (64, 128, 256, 384 kbit/s);
2. versus TCP's initial window ("initial counter", 1–4 segments, and 10);
3. versus the Internet's packet loss ratio (0.01–0.1);
4. versus MaxDAT (transmissions of an RLC PDU before its SDU is discarded) at BLER 10 % and
   20 %, with F-RTO (RFC 5682) in a second set of runs to count the timeouts it finds spurious:
   once with independent block errors and once on a bursty channel (a Gilbert–Elliott channel
   with the same long-run BLER, ``dch.radio.errors``, docs/wcdma.md), where long error bursts
   can hold a segment in the RLC for longer than TCP's retransmission timeout;
5. with and without a split-TCP proxy at the GGSN (initial window 10 towards the UE) versus
   file size (up to 1000 kB) and versus BLER (0–15 %). Both arms carry the same workload (the
   same files due at the same times; the proxy's local ACKs do not end a transfer, the UE's
   receipt does), and the proxy's gain is read on the per-file transfer times (request to
   receipt by the UE) as well as on the RLC throughput.

The base point is the example's: 256 kbit/s (20 ms TTI; 384 kbit/s uses 10 ms), BLER 0.1,
MaxDAT 6, initial window 2, 100 kB files, Internet loss 1 %. Each goal varies its parameters
from there.

The study is a declaration on :mod:`celltcp.study`: this module declares its sweeps (one per
goal, named as the run counts of ``claims.json`` name them, the proxy's two arms as the points
of one sweep) and the metrics read from every run; :mod:`celltcp.reproduce.seed001_report`
declares the claims with their tests (goal 4's threshold chosen on held-out runs,
:class:`celltcp.study.HeldOut`), the tables, the figures and the report's layout;
docs/seed-001.md discusses it.

Units: rates bit/s, times s, sizes bytes unless a name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from celltcp import examples
from celltcp.reproduce.document import Document
from celltcp.reproduce.registry import Options, ReproductionError
from celltcp.study import Derived, Metric, Replications, Scenario, Sweep

if TYPE_CHECKING:
    from celltcp.study import Results

__all__ = [
    "ALIASES",
    "DERIVED",
    "EXPERIMENTS",
    "FILE_METRICS",
    "FILE_TIME",
    "FULL",
    "NAME",
    "PROXY",
    "QUICK",
    "SPURIOUS_PER_TRANSFER",
    "SUMMARY",
    "SWEEPS",
    "Plan",
    "burst_point",
    "numeric",
    "plan_of",
    "rate_point",
    "run",
    "scenario_file",
    "seconds_of",
    "sweep_points",
]

NAME = "001-wcdma"
ALIASES = ("001",)
SUMMARY = (
    "TCP over a WCDMA DCH with RLC AM: RLC throughput versus file size, initial window, "
    "Internet loss and MaxDAT (goals 1-4), and a split-TCP proxy"
)

#: DCH rates (kbit/s) and their TTIs: the 34.108 bearers (384 kbit/s with a 10 ms TTI).
RATES_KBPS = (64, 128, 256, 384)
TTI = {64: "20ms", 128: "20ms", 256: "20ms", 384: "10ms"}
MASTER_SEED = 1

RATE = "dch.radio.rate"
RATE_TTI = "dch.radio.tti"
FILE = "flows.ftp.app.file_size"
WINDOW = "flows.ftp.tcp.initial_window"
LOSS = "links.internet.a_to_b.loss.p"
MAX_DAT = "dch.radio.rlc.max_dat"
BLER = "dch.radio.bler"
FRTO = "flows.ftp.tcp.frto"
DURATION = "simulation.duration"
#: The block-error process of both directions (the uplink's follows the downlink's).
ERRORS_MODEL = "dch.radio.errors.model"
MEAN_BURST = "dch.radio.errors.mean_burst"
BAD_BLER = "dch.radio.errors.bad_bler"

RLC = "dch.radio.rlc_throughput_bps"
METRICS = (
    RLC,
    "dch.radio.sessions",
    "dch.radio.bler_measured",
    "dch.radio.pdus_retransmitted",
    "dch.radio.max_dat_discards",
    "dch.radio.sdus_refused",
    "flows.ftp.sender.ftp_transfers",
    "flows.ftp.sender.timeouts",
    "flows.ftp.sender.spurious_undos",
    "flows.ftp.sender.retransmissions",
)
#: Goal 4 on the bursty channel adds the longest RNC-to-UE delay of an SDU (s) and the TTIs
#: spent in the channel's bad state.
BURST_METRICS = (
    *METRICS,
    "dch.radio.delay_max_s",
    "dch.radio.ttis",
    "dch.radio.ttis_bad",
)
#: The files' own figures, for the proxy's comparison: the mean transfer time of a file in a
#: run (from its request to its receipt by the UE), and the workload each arm was offered and
#: made (requests, bytes requested, the sum of the due times, the requests held behind the
#: previous file and their waits).
FILE_TIME = "flows.ftp.sender.ftp_mean_transfer_time_s"
REQUESTS = "flows.ftp.sender.ftp_requests"
HELD = "flows.ftp.sender.ftp_requests_delayed"
DUE_SUM = "flows.ftp.sender.ftp_due_times_sum_s"
FILE_METRICS = (
    *METRICS,
    FILE_TIME,
    REQUESTS,
    HELD,
    DUE_SUM,
    "flows.ftp.sender.ftp_requested_bytes",
    "flows.ftp.sender.ftp_hold_s",
)
#: The arm with the proxy adds the proxy's own counters.
PROXY_METRICS = (
    *FILE_METRICS,
    "middleboxes.pep.timeouts_to_mobile",
    "middleboxes.pep.retransmissions_to_mobile",
)
#: The seed's proxy (slide 14): local ACKs at the GGSN, initial window 10 towards the UE.
PROXY = {
    "middleboxes.pep.kind": "split_tcp",
    "middleboxes.pep.node": "ggsn",
    "middleboxes.pep.mobile": ["ue"],
    "middleboxes.pep.to_mobile.initial_window": 10,
}


@dataclass(frozen=True)
class Plan:
    """Replications, run length and grids of one mode.

    Attributes:
        runs: replications per point (run numbers 0..runs−1 of master seed 1).
        duration: simulated length of each run; with a request every 30 s on average a run
            holds duration/30 s transfers.
        file_sizes_kb: goal 1's file sizes, kB.
        windows: goal 2's initial windows, segments.
        losses: goal 3's Internet loss ratios.
        max_dats: goal 4's MaxDAT values ("unlimited" retransmits until acknowledged).
        blers: goal 4's block error rates.
        bursts: goal 4's bursty channels, (mean burst, bad-state BLER) each: a Gilbert–Elliott
            channel with an error-free good state and the long-run BLER of ``blers``.
        burst_max_dats: the MaxDAT values on the bursty channels (bursts need more
            transmissions, so the grid goes further).
        proxy_rates_kbps, proxy_file_sizes_kb: the proxy's grid versus file size.
        proxy_blers: the proxy's grid versus BLER (at 384 kbit/s, 200 kB files).
    """

    runs: int
    duration: str
    file_sizes_kb: tuple[int, ...]
    windows: tuple[int, ...]
    losses: tuple[float, ...]
    max_dats: tuple[int | str, ...]
    blers: tuple[float, ...]
    bursts: tuple[tuple[str, float], ...]
    burst_max_dats: tuple[int | str, ...]
    proxy_rates_kbps: tuple[int, ...]
    proxy_file_sizes_kb: tuple[int, ...]
    proxy_blers: tuple[float, ...]


#: Every goal on a coarse grid, 2 × 600 s per point (about 20 transfers per point).
QUICK = Plan(
    runs=2,
    duration="600s",
    file_sizes_kb=(50, 100, 150, 200),
    windows=(1, 2, 3, 4, 10),
    losses=(0.01, 0.05, 0.1),
    max_dats=(1, 2, 3, 4, 6, 10, "unlimited"),
    blers=(0.1, 0.2),
    bursts=(("200ms", 0.9), ("1s", 0.9)),
    burst_max_dats=(3, 4, 6, 10, 20, "unlimited"),
    proxy_rates_kbps=(64, 128, 384),
    proxy_file_sizes_kb=(50, 200, 1000),
    proxy_blers=(0.0, 0.05, 0.1, 0.15),
)
#: The seed gives no replication count or run length in the text we have (its "Simulation
#: Parameter" slide is an image): 20 × 3600 s per point, about 2400 transfers. Goal 4 chooses
#: its threshold on the even-numbered runs and tests on the others, so 20 keeps 10 per test.
FULL = Plan(
    runs=20,
    duration="3600s",
    file_sizes_kb=(50, 75, 100, 125, 150, 175, 200),
    windows=(1, 2, 3, 4, 10),
    losses=(0.0, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1),
    max_dats=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, "unlimited"),
    blers=(0.1, 0.2),
    bursts=(("200ms", 0.9), ("1s", 0.9)),
    burst_max_dats=(2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40, "unlimited"),
    proxy_rates_kbps=(64, 128, 384),
    proxy_file_sizes_kb=(50, 100, 200, 500, 1000),
    proxy_blers=(0.0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15),
)


def scenario_file() -> Path:
    """``001/ftp-dch.toml`` of the library shipped in the package (:mod:`celltcp.examples`)."""
    return examples.path("001/ftp-dch")


def rate_point(rate_kbps: int) -> dict[str, Any]:
    """Overrides for a DCH rate and its TTI."""
    if rate_kbps not in TTI:
        raise ReproductionError(
            f"{rate_kbps} kbit/s is not a DCH rate of the study; expected one of "
            f"{', '.join(map(str, RATES_KBPS))}"
        )
    return {RATE: f"{rate_kbps}kbps", RATE_TTI: TTI[rate_kbps]}


def burst_point(mean_burst: str, bad_bler: float) -> dict[str, Any]:
    """Overrides for a Gilbert–Elliott channel on both directions: bursts of mean length
    ``mean_burst`` (a time, e.g. "200ms") with block error rate ``bad_bler`` in them, an
    error-free good state, and the point's ``dch.radio.bler`` as the long-run BLER."""
    return {ERRORS_MODEL: "gilbert_elliott", MEAN_BURST: mean_burst, BAD_BLER: bad_bler}


def sweep_points(plan: Plan) -> dict[str, list[dict[str, Any]]]:
    """The points of each sweep, by sweep name (the proxy's: its plain arm; the arm with the
    proxy adds :data:`PROXY` to each)."""
    goal1 = [{**rate_point(r), FILE: f"{s}KB"} for r in RATES_KBPS for s in plan.file_sizes_kb]
    goal2 = [{**rate_point(r), WINDOW: w} for r in RATES_KBPS for w in plan.windows]
    goal3 = [{**rate_point(r), LOSS: p} for r in RATES_KBPS for p in plan.losses]
    goal4 = [
        {BLER: b, MAX_DAT: m, FRTO: frto}
        for frto in (False, True)
        for b in plan.blers
        for m in plan.max_dats
    ]
    goal4_bursty = [
        {BLER: b, MAX_DAT: m, FRTO: frto, **burst_point(burst, bad)}
        for frto in (False, True)
        for burst, bad in plan.bursts
        for b in plan.blers
        for m in plan.burst_max_dats
    ]
    proxy_size = [
        {**rate_point(r), FILE: f"{s}KB"}
        for r in plan.proxy_rates_kbps
        for s in plan.proxy_file_sizes_kb
    ]
    proxy_bler = [{**rate_point(384), FILE: "200KB", BLER: b} for b in plan.proxy_blers]
    return {
        "goal 1": goal1,
        "goal 2": goal2,
        "goal 3": goal3,
        "goal 4": goal4,
        "goal 4 bursty": goal4_bursty,
        "proxy by size": proxy_size,
        "proxy by BLER": proxy_bler,
    }


def seconds_of(text: Any) -> float:
    """A time written as in scenario files ("200ms", "1s") in seconds."""
    t = str(text).strip()
    for unit, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("min", 60.0), ("s", 1.0)):
        if t.endswith(unit):
            return float(t.removesuffix(unit)) * scale
    raise ReproductionError(f"{text!r} is not a time such as '200ms'")


#: Goal 4's F-RTO figure: the timeouts F-RTO judged spurious per FTP transfer in a run.
SPURIOUS_PER_TRANSFER = "spurious_per_transfer"
_TRANSFERS = "flows.ftp.sender.ftp_transfers"
_SPURIOUS = "flows.ftp.sender.spurious_undos"


def _spurious_per_transfer(rows: pd.DataFrame, _results: Results) -> np.ndarray:
    """Spurious timeouts per completed transfer, run by run; NaN for a run that completed
    none (left out of the tests' samples, :meth:`celltcp.reproduce.verdict.Sample.of`)."""
    transfers = rows[_TRANSFERS].astype(float).to_numpy()
    spurious = rows[_SPURIOUS].astype(float).to_numpy()
    out = np.full(len(rows), np.nan)
    done = transfers > 0
    out[done] = spurious[done] / transfers[done]
    return out


def _metrics(paths: tuple[str, ...], *more: Metric) -> tuple[Metric, ...]:
    """Summary metrics named by their dotted paths (the tables read them so), then ``more``."""
    return (*(Metric(p, summary=p) for p in paths), *more)


_REPLICATIONS = Replications(
    quick=QUICK.runs,
    full=FULL.runs,
    why="the seed gives no replication count or run length; 20 × 3600 s per point is about "
    "2400 transfers, and goal 4 chooses its threshold on the even-numbered runs and tests on "
    "the others, so 20 keeps 10 per test",
)
_SPURIOUS_METRIC = Metric(SPURIOUS_PER_TRANSFER, derived=_spurious_per_transfer)


def _sweep(
    name: str, metrics: tuple[Metric, ...], extra: dict[str, Any] | None = None, count_as: str = ""
) -> Sweep:
    """One goal's sweep: the mode's points (with ``extra`` set at each), master seed 1."""
    quick, full = sweep_points(QUICK)[count_as or name], sweep_points(FULL)[count_as or name]
    more = extra or {}
    return Sweep(
        name,
        Scenario("001/ftp-dch"),
        {},
        metrics,
        _REPLICATIONS,
        quick={DURATION: QUICK.duration},
        full={DURATION: FULL.duration},
        seed=MASTER_SEED,
        points=[{**p, **more} for p in full],
        quick_points=[{**p, **more} for p in quick],
        count_as=count_as,
    )


#: The proxy's arms: the sweep of the plain arm and of the arm with the proxy, by experiment.
PROXY_ARMS = {
    "proxy by size": ("proxy by size", "proxy by size, with proxy"),
    "proxy by BLER": ("proxy by BLER", "proxy by BLER, with proxy"),
}
#: One run of the base point, 300 s, with the ``dch`` series every second (its figure).
TIMELINE = Sweep(
    "timeline",
    Scenario("001/ftp-dch", {DURATION: "300s", "trace.dch": ["radio"], "trace.interval": "1s"}),
    {},
    _metrics((RLC, "dch.radio.rlc_active_s", "dch.radio.bler_measured")),
    Replications(1, 1, "one traced run, for the figure of the dch series"),
    keep=("dch",),
)
SWEEPS = (
    _sweep("goal 1", _metrics(METRICS)),
    _sweep("goal 2", _metrics(METRICS)),
    _sweep("goal 3", _metrics(METRICS)),
    _sweep("goal 4", _metrics(METRICS, _SPURIOUS_METRIC)),
    _sweep("goal 4 bursty", _metrics(BURST_METRICS, _SPURIOUS_METRIC)),
    *(
        s
        for experiment, (plain, split) in PROXY_ARMS.items()
        for s in (
            _sweep(plain, _metrics(FILE_METRICS)),
            _sweep(split, _metrics(PROXY_METRICS), PROXY, count_as=experiment),
        )
    ),
    TIMELINE,
)


def plan_of(results: Results) -> Plan:
    """The plan of the mode the results were run in."""
    return QUICK if results.quick else FULL


def numeric(results: Results, experiment: str) -> pd.DataFrame:
    """The rows of one experiment (a sweep, or both arms of the proxy's with a ``proxy``
    column) with numeric columns for the swept quantities: ``rate_kbps``, ``file_kb``,
    ``max_dat_label`` (text) and ``burst_s`` (mean burst, s); the derived frame of that name,
    computed once (:data:`DERIVED`)."""
    return results.derived(experiment)


def _numeric(results: Results, experiment: str) -> pd.DataFrame:
    if experiment in PROXY_ARMS:
        plain, split = PROXY_ARMS[experiment]
        frame = pd.concat(
            [
                results.frames[plain].assign(proxy=False),
                results.frames[split].assign(proxy=True),
            ],
            ignore_index=True,
        )
    else:
        frame = results.frames[experiment]
    out = frame.copy()
    if RATE in out.columns:
        out["rate_kbps"] = out[RATE].astype(str).str.removesuffix("kbps").astype(int)
    if FILE in out.columns:
        out["file_kb"] = out[FILE].astype(str).str.removesuffix("KB").astype(int)
    if MAX_DAT in out.columns:
        out["max_dat_label"] = out[MAX_DAT].astype(str)
    if MEAN_BURST in out.columns:
        out["burst_s"] = out[MEAN_BURST].map(seconds_of)
    return out


#: The experiments of the report, each a derived frame (:func:`numeric`).
EXPERIMENTS = ("goal 1", "goal 2", "goal 3", "goal 4", "goal 4 bursty", *PROXY_ARMS)
DERIVED = tuple(Derived(e, partial(_numeric, experiment=e)) for e in EXPERIMENTS)


def run(options: Options) -> Document:
    """Runs the study on :mod:`celltcp.study` and returns the report (nothing is written here
    but the store)."""
    from celltcp.reproduce.seed001_report import STUDY
    from celltcp.study import document
    from celltcp.study import run as run_study

    return document(STUDY, run_study(STUDY, options), options)
