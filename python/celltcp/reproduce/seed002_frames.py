"""The frames derived from the runs of seed 002's reproduction (:mod:`celltcp.reproduce.seed002`):
one row per run or per handover, with the set-up it was run at (the rate, the interruption, the
variant, the phase) and what was read from its summary and its series (the TCP outcome and the
retransmissions of the per-handover analytics, the queue drops, the goodput lost against the
same run without the handover, the sender's ssthresh and cwnd ramp from the ``tcp`` traces).
The claims, tables and figures of :mod:`celltcp.reproduce.seed002_report` read them by name
(:class:`celltcp.study.Derived`); the points of each sweep are rebuilt from the same plan and
the same probes as when the sweep ran, so that row i of a sweep is job i of its set-up.

Units: rates bit/s, times s, sizes bytes, windows in 1500-byte packets (segments).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from celltcp.reproduce.document import mean_ci
from celltcp.reproduce.registry import ReproductionError
from celltcp.reproduce.seed002 import (
    _DELIVERED,
    _DROPS,
    ABLATION_SWEEP,
    FIG1,
    FIG1_CELL,
    FIG6,
    FULL,
    MSS_BYTES,
    OVERRUN_RATE_BPS,
    OVERRUN_SAWTOOTH,
    PACKET_BYTES,
    QUICK,
    RECOVERY,
    RECOVERY_FRACTION,
    SIZED,
    SLOW_START,
    SPAN,
    TESTBED,
    TESTBED_RTT_S,
    TRAINS,
    OverrunSet,
    Plans,
    _ablation_jobs,
    _fig1_jobs,
    _fig6_sets,
    _overrun_sawtooth_sets,
    _recovery_jobs,
    _series_of,
    _sized_jobs,
    _slow_start_jobs,
    _testbed_jobs,
    _train_jobs,
    bdp_segments,
    sawtooth_cycles,
    slow_start_span,
)
from celltcp.study import Derived

if TYPE_CHECKING:
    from celltcp.study import Results

__all__ = ["DERIVED", "derived_frames", "recovery_table", "with_columns"]


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


def _recovery_runs(results: Results, plans: Plans) -> pd.DataFrame:
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


def _overrun_rows(sets: Sequence[OverrunSet], drops: np.ndarray) -> pd.DataFrame:
    """One row per set, from the drops of the sets' runs in order."""
    rows, i = [], 0
    for s in sets:
        n = 2 * len(s.handovers)
        rows.append(s.row(drops[i : i + n]))
        i += n
    return pd.DataFrame(rows)


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


def _testbed(results: Results, plans: Plans) -> pd.DataFrame:
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


def _sized_rows(results: Results, plans: Plans, short: bool) -> pd.DataFrame:
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


def _sawtooth_overrun(results: Results, plans: Plans, fig6: bool) -> pd.DataFrame:
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


def _fig1(results: Results, plans: Plans) -> pd.DataFrame:
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


def _ablation(results: Results, plans: Plans) -> pd.DataFrame:
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


def _trains(results: Results, plans: Plans) -> pd.DataFrame:
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


def _slow_start(results: Results, plans: Plans) -> pd.DataFrame:
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


def derived_frames(plans: Plans) -> tuple[Derived, ...]:
    """The derived frames of the sweeps run with ``plans``, by the names the report reads."""
    return (
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


#: The frames of the study's sweeps (:data:`celltcp.reproduce.seed002.SWEEPS`).
DERIVED = derived_frames(Plans(QUICK, FULL))
